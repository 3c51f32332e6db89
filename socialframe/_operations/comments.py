"""Operation B, a post's comments (``GET /get-profile-posts-comments``), as a record.

Its parameters in the service's forms (a post given as id, urn or URL), the
shape of its pages, and where its pager and frame builder live.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from typing import Any, Final, Literal, get_args
from urllib.parse import unquote

from .._schema import COMMENT_COLUMNS
from .base import Operation, kind_of, whole
from .checks import DIGITS, too_long

COMMENTS_PATH: Final = "get-profile-posts-comments"
Sort = Literal["mostRelevant", "mostRecent"]
SORTS: Final = get_args(Sort)

# "activity" is a word of its own (not "inactivity-12" of a URL's slug), and its id
# is the whole run of digits after it.
_ACTIVITY = re.compile(r"(?<![A-Za-z0-9])activity[:\-]([0-9]+)", re.ASCII)
_POST_HELP: Final = "a post id, urn:li:activity:<id> or a post URL"


# A post's urn of another kind (a share, a ugcPost): its number is not the activity id.
_OTHER_URN = re.compile(r"urn:li:(ugcPost|share|post|groupPost)[:\-][0-9]+", re.ASCII)


def _float_post(post: numbers.Real) -> str:
    """Why a post given as a float is refused, and what to do instead."""
    if post != post:  # NaN: a blank cell
        return (
            "post is NaN, a missing value: a blank cell of a CSV or spreadsheet column read"
            " by pandas; drop the blank rows (df['post'].dropna()) and read the column as"
            " text: pd.read_csv(..., dtype=str)"
        )
    return (
        f"post {post!r} is a float, which keeps about 16 digits: a 19-digit post id"
        " read as one no longer names its post. pandas reads a column of ids as floats"
        " when a cell is blank: read it as text, pd.read_csv(..., dtype=str)"
    )


def post_id(post: object) -> str:
    """The numeric activity id of a post given as id, ``urn:li:activity:<id>`` or URL.

    Raises:
        ValueError: empty, no activity id in it, an id of more than
            :data:`MAX_ID_DIGITS` digits, or two different activity ids.
        TypeError: not a string or an integer.
    """
    if isinstance(post, numbers.Real) and not isinstance(post, bool | numbers.Integral):
        raise TypeError(_float_post(post))
    if isinstance(post, bool) or not isinstance(post, str | numbers.Integral):
        raise TypeError(f"post must be {_POST_HELP} (str), not {type(post).__name__}")
    text = post.strip() if isinstance(post, str) else str(int(post))
    if not text:
        raise ValueError(f"post is empty: give {_POST_HELP}")
    if DIGITS.fullmatch(text):
        wrong = too_long(text, f"post id {text[:30]!r}...")
        if wrong:
            raise ValueError(wrong)
        return text
    found: list[str] = list(dict.fromkeys(_ACTIVITY.findall(unquote(text))))  # distinct
    for digits in found:
        wrong = too_long(digits, f"the activity id in post {text[:80]!r}")
        if wrong:
            raise ValueError(wrong)
    if len(found) > 1:
        raise ValueError(
            f"post {text[:120]!r} holds {len(found)} different activity ids; give the"
            " post's id, or urn:li:activity:<id>"
        )
    if found:
        return found[0]
    other = _OTHER_URN.search(unquote(text))
    if other:
        raise ValueError(
            f"post {text[:120]!r} names the post by its urn:li:{other.group(1)} id; the"
            " service takes its activity id (urn:li:activity:<id>), another number. Open"
            " the post on LinkedIn and use '...' > 'Copy link to post': that link holds"
            " urn:li:activity:<id>"
        )
    raise ValueError(
        f"no activity id in post {text[:120]!r}: expected digits, urn:li:activity:<id>"
        " or a URL containing 'activity:<id>' / 'activity-<id>'"
    )


def comment_params(post: object, sort: str = "mostRelevant") -> dict[str, str]:
    """Validated parameters of the first comments page."""
    pid = post_id(post)
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {SORTS}, got {sort!r}")
    return {"urn": pid, "sort": sort}


def shape(body: Any, paging: bool) -> str | None:
    """What makes ``body`` (a JSON object, or one decoded into structs) not a page of
    comments, or None. See :attr:`socialframe._operations.base.Operation.shape`."""
    data = body.get("data")
    if not isinstance(data, list):
        return f"'data' is {kind_of(data)}, not a list"
    for i, comment in enumerate(data if isinstance(body, Mapping) else ()):
        if not isinstance(comment, Mapping):
            return f"comment {i} is {kind_of(comment)}, not an object"
    if not paging:
        return None
    total = body.get("totalPage")
    if total is None and data:
        return "'totalPage' is missing"
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        return f"'totalPage' is {str(total)[:50]!r}, not a whole number"
    token = body.get("paginationToken")
    if token is not None and not isinstance(token, str):
        return f"'paginationToken' is {kind_of(token)}, not text"
    return None


def _rows(body: Any) -> int:
    return len(body["data"])


# (a page's body: a dict, or the structs a stored page decodes into: both have get)
def _total_rows(body: Any) -> int | None:
    return whole(body.get("total"))


def _total_pages(body: Any) -> int | None:
    return whole(body.get("totalPage")) or None  # (0 pages: not a count to go by)


COMMENTS: Final = Operation(
    name="comments",
    path=COMMENTS_PATH,
    base_url="comments",
    params=comment_params,
    shape=shape,
    pager="socialframe._fetch.pages:iter_comment_pages",
    frame="socialframe._frames.comments:comments_frame",
    columns=COMMENT_COLUMNS,
    rows=_rows,
    item_params=frozenset({"urn"}),
    paging=frozenset({"page", "paginationToken"}),
    item=lambda params: params.get("urn", ""),
    filter_names={"sort": "sort"},
    label=lambda params: f"comments {params['urn']}",
    decode="socialframe._frames.structs:decode_comments",
    report_facts="socialframe._display.report:comment_facts",
    report_sections="socialframe._display.sections:COMMENT_SECTIONS",
    noun="comment",
    units=("posts", "post"),
    page_rows=50,
    total_rows=_total_rows,
    total_pages=_total_pages,
    ended="socialframe._fetch.pages:comments_ended",
)
"""The record of a post's comments."""

__all__ = ["COMMENTS", "COMMENTS_PATH", "SORTS", "Sort", "comment_params", "post_id"]
