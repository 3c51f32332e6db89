"""A third operation, made up for the tests: a company's posts (``GET /get-company-posts``).

The provider sells it beside the comments (same host, same envelope: ``success``,
``message``, ``data``, ``total``, ``totalPage``, and a ``paginationToken`` set on the
last page too). socialframe does not ship it: this module is everything a new
operation needs, to show that one module, one registry entry, one client method and
one sandbox route are enough.

- :data:`COMPANY_POSTS`: the record (parameters, page shape, pager, frame, ...).
- :class:`CompanyClient`: the one client method, over ``Client.fetch``.
- :data:`ROUTE`: the sandbox's answer, a pure function of the company and the page.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pandas as pd

import socialframe as sf
from socialframe.operations import Fetched, Operation, Page, checked
from socialframe.sandbox import BadParam, Route

NAME = "company_posts"
PATH = "get-company-posts"
PER_PAGE = 10
COLUMNS = ("company", "post_urn", "posted_at", "text", "reactions", "comments", "reposts")
_COMPANY = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")


# -- the record -----------------------------------------------------------------------------


def company_params(company: object) -> dict[str, str]:
    """A company's LinkedIn username (``fleetworksai``), checked before any call."""
    if not isinstance(company, str):
        raise TypeError(f"company must be a str, not {type(company).__name__}")
    name = company.strip().lower()
    if not _COMPANY.fullmatch(name):
        raise ValueError(f"company must be a company's username (letters, digits, -): {company!r}")
    return {"company": name}


def shape(body: Any, paging: bool) -> str | None:
    data = body.get("data")
    if not isinstance(data, list):
        return "'data' is not a list"
    if not all(isinstance(post, Mapping) for post in data):
        return "a post is not an object"
    total = body.get("totalPage")
    if paging and data and (isinstance(total, bool) or not isinstance(total, int)):
        return "'totalPage' is not a whole number"
    return None


def iter_pages(
    fetch: Any, params: Mapping[str, str], *, max_pages: int | None = None
) -> Iterator[Page]:
    """Pages 1..totalPage, each after the first sending the previous page's token."""
    number, token = 1, None
    while True:
        sent = dict(params, page=str(number))
        if token:
            sent["cursor"] = token  # (a name of its own: the record says it is paging)
        fetched: Fetched = fetch(sent)
        checked(NAME, fetched.body, number)
        yield Page(
            fetched.body,
            number,
            fetched.fetched_at,
            fetched.from_cache,
            params["company"],
            sent,
            stale=fetched.stale,
        )
        if not fetched.body["data"] or number >= fetched.body["totalPage"]:
            return
        if max_pages is not None and number >= max_pages:
            return
        token = fetched.body.get("paginationToken")
        number += 1


def posts_frame(pages: Sequence[Page]) -> pd.DataFrame:
    """One row per post, in page order."""
    rows = [
        {
            "company": page.key,
            "post_urn": post["urn"],
            "posted_at": pd.Timestamp(post["postedDateTimestamp"], unit="ms", tz="UTC"),
            "text": post["text"],
            "reactions": post["totalReactionCount"],
            "comments": post["commentsCount"],
            "reposts": post["repostsCount"],
        }
        for page in pages
        for post in page.body["data"]
    ]
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype(
        {
            "company": "string",
            "post_urn": "string",
            "posted_at": "datetime64[ms, UTC]",
            "text": "string",
            "reactions": "Int64",
            "comments": "Int64",
            "reposts": "Int64",
        }
    )


COMPANY_POSTS = Operation(
    name=NAME,
    path=PATH,
    base_url="comments",  # the professional network's host, as the comments
    params=company_params,
    shape=shape,
    pager=iter_pages,
    frame=posts_frame,
    columns=COLUMNS,
    rows=lambda body: len(body["data"]),
    item_params=frozenset({"company"}),
    paging=frozenset({"page", "cursor"}),
    item=lambda params: params.get("company", ""),
    label=lambda params: f"posts of {params['company']}",
    noun="post",
    units=("companies", "company"),
)


# -- the client method ----------------------------------------------------------------------


class CompanyClient(sf.Client):
    """A client with the made-up operation's method."""

    def company_posts(
        self, company: str | list[str], *, max_pages: int | None = None, on_error: Any = "raise"
    ) -> pd.DataFrame:
        return self.fetch(NAME, company, max_pages=max_pages, on_error=on_error)


# -- the sandbox route ----------------------------------------------------------------------

_START = datetime(2025, 10, 16, tzinfo=UTC)


def total(company: str) -> int:
    """How many posts the sandbox gives ``company``: 3 to 32, from a hash of its name."""
    return 3 + hashlib.sha256(company.encode()).digest()[0] % 30


def _post(company: str, n: int) -> dict[str, Any]:
    digest = hashlib.sha256(f"{company}/{n}".encode()).hexdigest()
    urn = str(7384427202391592960 + int(digest[:8], 16))
    posted = _START - timedelta(hours=7 * n)
    return {
        "isBrandPartnership": False,
        "text": f"Post {n} of {company} <b>&amp;</b>",
        "totalReactionCount": int(digest[8:10], 16),
        "commentsCount": int(digest[10:11], 16),
        "repostsCount": int(digest[11:12], 16) % 4,
        "postUrl": f"https://www.linkedin.com/feed/update/urn:li:activity:{urn}/",
        "postedDate": posted.strftime("%Y-%m-%d %H:%M:%S.000 +0000 UTC"),
        "postedDateTimestamp": int(posted.timestamp() * 1000),
        "urn": urn,
        "author": {"firstName": "Pat", "lastName": company.title(), "username": f"pat-{company}"},
        "company": {"name": company.title(), "username": company},
        "contentType": "text",
    }


def answer(params: Mapping[str, str], seed: int, now: datetime, faults: bool) -> dict[str, Any]:
    """The body of one page: ``PER_PAGE`` posts, newest first; the token on every page."""
    company = params.get("company", "")
    if not _COMPANY.fullmatch(company):
        raise BadParam("company is required")
    page = int(params.get("page", "1"))
    count = total(company)
    pages = math.ceil(count / PER_PAGE)
    data = [_post(company, n) for n in range((page - 1) * PER_PAGE, min(page * PER_PAGE, count))]
    token = hashlib.sha256(f"{seed}/{company}/{page}".encode()).hexdigest()[:32]
    return {
        "success": True,
        "message": "",
        "data": data,
        "total": count,
        "totalPage": pages,
        "paginationToken": f"{seed}-{page}-{token}",
    }


ROUTE = Route(answer)
"""What the sandbox answers on ``/get-company-posts``."""
