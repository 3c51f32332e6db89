"""The operations registry: records looked up by name, and a third operation added.

A made-up operation (a company's posts: :mod:`company_posts`, one module) is
registered (one entry), fetched with one client method, served by one sandbox route,
and goes end to end through requests, the cache, the ledger, workers and the budget
as the two real ones do: no other module of socialframe knows it.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pandas as pd
import pytest
from company_posts import COLUMNS, COMPANY_POSTS, NAME, PATH, ROUTE, CompanyClient, total

import socialframe as sf
from socialframe import operations
from socialframe.operations import problem
from socialframe.sandbox import PinnedClock, Sandbox

COMPANIES = ["acme", "globex", "initech", "umbrella", "hooli"]
BIG = next(name for name in (f"company-{n}" for n in range(100)) if total(name) > 20)


def pages_of(company: str) -> int:
    return math.ceil(total(company) / 10)


@pytest.fixture
def threads() -> Iterator[set[int]]:
    """Registers the made-up operation (its pager noting the threads it ran on), and
    takes it out again."""
    seen: set[int] = set()

    def pager(fetch: Any, params: Any, **limits: Any) -> Iterator[Any]:
        seen.add(threading.get_ident())
        yield from COMPANY_POSTS.pages(fetch, params, **limits)

    operations.register(dataclasses.replace(COMPANY_POSTS, pager=pager))
    try:
        yield seen
    finally:
        operations.unregister(NAME)


@pytest.fixture
def served() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock(), routes={PATH: ROUTE}) as server:
        yield server


def client(sandbox: Sandbox, **kwargs: Any) -> CompanyClient:
    kwargs.setdefault("progress", False)
    return CompanyClient(api_key=sandbox.api_key, base_url=sandbox.url, **kwargs)


def test_a_third_operation_goes_through_the_cache_the_ledger_and_workers(
    threads: set[int], served: Sandbox, cache_path: Path
) -> None:
    pages = sum(pages_of(c) for c in COMPANIES)
    with client(served, cache=cache_path, workers=3) as first:
        frame = first.company_posts(COMPANIES)
    assert list(frame.columns) == list(COLUMNS)
    assert frame.groupby("company", sort=False).size().to_dict() == {c: total(c) for c in COMPANIES}
    assert frame["post_urn"].is_unique and str(frame["posted_at"].dtype) == "datetime64[ms, UTC]"
    assert len(threads) > 1, "the items were fetched on one thread"
    assert first.ledger.paid_calls == served.charges == pages  # one payment per page
    assert first.ledger.spent_usd == pytest.approx(pages * 0.01)
    assert {r.path.rsplit("/", 1)[-1] for r in served.requests} == {PATH}

    with client(served, cache=cache_path, workers=3) as again:
        second = again.company_posts(COMPANIES)
        report = again.cache_report()
    assert again.ledger.paid_calls == 0 and again.ledger.cached_calls == pages
    assert served.charges == pages  # the second fetch paid nothing
    pd.testing.assert_frame_equal(second, frame)
    ours = report[report["operation"] == NAME].set_index("item")
    assert ours["rows"].to_dict() == {c: total(c) for c in COMPANIES}
    assert ours["pages"].to_dict() == {c: pages_of(c) for c in COMPANIES}
    assert ours["paid_usd"].sum() == pytest.approx(pages * 0.01)


def test_the_budget_stops_a_third_operation_and_keeps_what_it_fetched(
    threads: set[int], served: Sandbox, cache_path: Path
) -> None:
    budgeted = client(served, cache=cache_path, max_cost=0.02)
    with budgeted, pytest.raises(sf.BudgetExceededError) as caught:
        budgeted.company_posts(BIG)
    assert served.charges == budgeted.ledger.paid_calls == 2 < pages_of(BIG)
    partial = caught.value.partial
    assert partial is not None and len(partial) == 20
    assert partial["company"].unique().tolist() == [BIG]

    # Several items on workers: the budget holds across threads, and what was paid for
    # is in the cache for the next run, which pays only for the rest.
    companies = [BIG, *COMPANIES]
    budgeted = client(served, cache=cache_path, max_cost=0.05, workers=3)
    with budgeted, pytest.raises(sf.BudgetExceededError) as caught:
        budgeted.company_posts(companies)
    assert budgeted.ledger.paid_calls == 5 and served.charges == 7
    assert caught.value.partial is not None and len(caught.value.partial) > 0
    pages = sum(pages_of(c) for c in companies)
    with client(served, cache=cache_path, workers=3) as rest:
        whole = rest.company_posts(companies)
    assert rest.ledger.paid_calls == pages - 7 and served.charges == pages
    assert set(caught.value.partial["post_urn"]) <= set(whole["post_urn"])


def test_a_page_not_of_its_shape_is_an_error_and_is_not_stored(
    threads: set[int], served: Sandbox, cache_path: Path
) -> None:
    served.inject({"success": True, "data": "not a list"})  # a charged 200 of no shape
    with client(served, cache=cache_path) as fetching:
        with pytest.raises(sf.SchemaError, match=f"{NAME} page 1: 'data' is not a list"):
            fetching.company_posts("acme")
        fetched = fetching.company_posts("acme")  # fetched again: nothing bad was kept
    assert len(fetched) == total("acme")
    assert served.charges == 1 + pages_of("acme")


def test_bad_arguments_and_unknown_operations_cost_nothing(
    threads: set[int], served: Sandbox
) -> None:
    with client(served, cache=False) as fetching:
        with pytest.raises(ValueError, match="company must be"):
            fetching.company_posts(["acme", "not a company!"])
        with pytest.raises(ValueError, match="operation must be 'comments', 'ads' or"):
            fetching.fetch("company_post", "acme")
        with pytest.raises(ValueError, match="operation must be"):
            fetching.page_fetch("posts")
    assert served.requests == []


def test_an_operation_is_looked_up_by_name_and_registered_once() -> None:
    assert operations.get("comments").path == "get-profile-posts-comments"
    assert operations.get("ads").base_url == "ads"
    assert operations.names() == ("comments", "ads")
    with pytest.raises(ValueError, match="operation must be 'comments' or 'ads'"):
        operations.get(NAME)
    operations.register(COMPANY_POSTS)
    try:
        assert operations.get(NAME) is COMPANY_POSTS
        assert operations.operation_of(f"http://x.invalid/v1/{PATH}?company=a") == NAME
        with pytest.raises(ValueError, match="registered already"):
            operations.register(COMPANY_POSTS)
        same_path = dataclasses.replace(COMPANY_POSTS, name="other")
        with pytest.raises(ValueError, match="registered already"):
            operations.register(same_path)
    finally:
        operations.unregister(NAME)
    assert operations.operation_of(f"http://x.invalid/v1/{PATH}") == ""
    with pytest.raises(ValueError, match="stays"):
        operations.unregister("ads")


def test_the_page_shape_of_an_unknown_operation_is_an_error() -> None:
    """Before: ``problem("posts", body)`` returned None, so any body passed for a page."""
    assert problem("comments", {"data": [], "totalPage": 1}) is None
    with pytest.raises(ValueError, match="operation must be"):
        problem("posts", {"data": []})
    with pytest.raises(ValueError, match="operation must be"):
        problem("", {"data": []})


def test_a_sandbox_route_may_not_replace_the_services_own() -> None:
    with pytest.raises(ValueError, match="may not replace"):
        Sandbox(routes={"fetch_search_ads_pages": ROUTE})


#: What tells the operations apart: their names, their records and paths (and a record's
#: noun compared with anything).
_OPERATION_WORDS: Final = {"comments", "ads"}
_OPERATION_NAMES: Final = {"COMMENTS", "ADS", "COMMENTS_PATH", "ADS_PATH"}

#: Branches that stay, and why: the study's tables and the kinds of item it watches
#: bear the operations' names (a table of comments, a watched search). Only shrinks.
STUDY_KINDS: Final = {
    ("_study/queries.py", '"comments" in kinds'),
    ("_study/queries.py", '"ads" in kinds'),
    ("_study/watch.py", 'kind not in ("post", "ads")'),
    ("_study/queries.py", '{"comments": "comment_versions", "ads": "ad_versions"}.get(kind, kind)'),
}


def _told_apart(node: ast.AST) -> bool:
    """Whether ``node`` is a name of an operation (``"ads"``), its record or path
    (``ADS``, ``endpoints.COMMENTS``, ``ADS_PATH``), or a collection holding one."""
    if isinstance(node, ast.Constant):
        return node.value in _OPERATION_WORDS
    if isinstance(node, ast.Name | ast.Attribute):
        return (node.id if isinstance(node, ast.Name) else node.attr) in _OPERATION_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_told_apart(element) for element in node.elts)
    return False


def _branches(tree: ast.AST) -> Iterator[ast.AST]:
    """Comparisons (``==``, ``is``, ``in``...), ``case`` patterns and lookups in a dict
    written out (``{"ads": 26}[name]``, ``.get(name)``) that tell operations apart."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = (node.left, *node.comparators)
            nouns = any(isinstance(side, ast.Attribute) and side.attr == "noun" for side in sides)
            if nouns or any(_told_apart(side) for side in sides):
                yield node
        elif isinstance(node, ast.match_case):
            if any(
                isinstance(p, ast.MatchValue) and _told_apart(p.value)
                for p in ast.walk(node.pattern)
            ):
                yield node
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Dict)
            and any(key is not None and _told_apart(key) for key in node.value.keys)
        ) or (  # {"ads": 26}.get(name)
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Dict)
            and any(key is not None and _told_apart(key) for key in node.func.value.keys)
        ):
            yield node


def _found(package: Path) -> set[tuple[str, str]]:
    found = set()
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[0] in ("_operations", "sandbox"):
            continue
        source = path.read_text(encoding="utf-8")
        for node in _branches(ast.parse(source)):
            found.add((relative.as_posix(), str(ast.get_source_segment(source, node))))
    return found


def test_no_module_outside_the_records_branches_on_an_operation() -> None:
    """What differs between operations is asked of their records (issue 31); the
    sandbox, a stand-in for the service, serves each route its own way."""
    found = _found(Path(sf.__file__).parent)
    assert found - STUDY_KINDS == set(), "ask the operation's record instead"
    assert STUDY_KINDS - found == set(), "gone: take them off STUDY_KINDS"


@pytest.mark.parametrize(
    "branch",
    [
        'if call.operation.name == "ads": pass',  # (what it found in _mcp/calls.py)
        'if "comments" != record.name: pass',
        "if record is not operations.COMMENTS: pass",
        "if record is endpoints.ADS: pass",
        "if record == ADS: pass",
        'if record.name in ("ads",): pass',
        'if record.name in {"comments"}: pass',
        "if record.path == ADS_PATH: pass",
        'if record.noun == "ad": pass',
        'per_page = {"comments": 50, "ads": 26}[record.name]',
        'per_page = {"comments": 50, "ads": 26}.get(record.name, 10)',
        'match record.name:\n    case "ads": pass',
        "match record:\n    case operations.ADS: pass",
        'x = f"#{n}" if record.name == "ads" else ""',
    ],
)
def test_the_guard_sees_every_form_of_a_branch(branch: str) -> None:
    assert list(_branches(ast.parse(branch)))


@pytest.mark.parametrize("field", ["item_params", "paging"])
def test_a_records_parameter_names_are_a_set_not_a_text(field: str) -> None:
    with pytest.raises(TypeError, match=f"{field} is a set of names"):
        dataclasses.replace(COMPANY_POSTS, **{field: "cursor"})
    given = ("company", "page", "cursor")  # (any collection of names, as before)
    assert getattr(dataclasses.replace(COMPANY_POSTS, **{field: given}), field) == given
