"""The public contract: names, signatures, the error tree."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest
from samples import Table

import socialframe as sf


def test_all_is_sorted_and_complete() -> None:
    assert sf.__all__ == sorted(sf.__all__)
    for name in sf.__all__:
        assert getattr(sf, name) is not None
    public = {n for n in dir(sf) if not n.startswith("_") and inspect.isclass(getattr(sf, n))}
    assert public <= set(sf.__all__)


def test_client_signature_is_the_contract() -> None:
    params = inspect.signature(sf.Client).parameters
    expected = {
        "api_key": None,
        "base_url": None,
        "auth_header": "Authorization",
        "headers": None,
        "cache": True,
        "offline": False,
        "max_cost": None,
        "max_retries": 4,
        "timeout": 60.0,
        "progress": None,
    }
    assert list(params)[: len(expected)] == list(expected)
    assert {n: params[n].default for n in expected} == expected
    assert all(p.kind is p.KEYWORD_ONLY for n, p in params.items() if n != "api_key")


def _contract_then_additions(method: object, contract: list[str]) -> dict[str, object]:
    """The contract's parameters come first, in order; later additions are keyword-only
    with a default, so every call written against the contract still works."""
    params = inspect.signature(method).parameters  # type: ignore[arg-type]
    assert list(params)[: len(contract)] == contract
    added = list(params.values())[len(contract) :]
    assert all(p.kind is p.KEYWORD_ONLY and p.default is not p.empty for p in added)
    return {name: p.default for name, p in params.items()}


def test_operation_signatures_are_the_contract() -> None:
    comments = _contract_then_additions(
        sf.Client.post_comments, ["self", "post", "sort", "max_pages"]
    )
    assert comments["sort"] == "mostRelevant" and comments["max_pages"] is None
    contract = [
        "self",
        "query",
        "ad_page_id",
        "country",
        "active_status",
        "after",
        "before",
        "max_pages",
        "max_ads",
    ]
    ads = _contract_then_additions(sf.Client.search_ads, contract)
    assert all(ads[n] is None for n in contract[1:])
    sandbox = inspect.signature(sf.Sandbox).parameters
    assert {
        n: sandbox[n].default for n in ["port", "seed", "latency", "fault_rate", "rate_limit"]
    } == {"port": 0, "seed": 0, "latency": 0.0, "fault_rate": 0.0, "rate_limit": None}


def test_error_tree() -> None:
    for leaf in (
        sf.ConfigError,
        sf.NotCachedError,
        sf.BudgetExceededError,
        sf.SchemaError,
        sf.APIError,
        sf.NetworkError,
    ):
        assert issubclass(leaf, sf.SocialFrameError)
    for leaf in (sf.BadRequestError, sf.AuthError, sf.RateLimitError, sf.ServerError):
        assert issubclass(leaf, sf.APIError)
    err = sf.RateLimitError(429, "slow down", operation="ads", retry_after=2.0)
    assert (err.status_code, err.message, err.retry_after) == (429, "slow down", 2.0)
    assert str(err) == "HTTP 429 (ads): slow down"


def test_ledger_shows_itself() -> None:
    ledger = sf.Ledger()
    for outcome in ["paid", "paid", "cached", "failed"]:
        ledger.record(outcome)
    assert (ledger.spent_usd, ledger.saved_usd) == (0.02, 0.01)
    assert str(ledger) == "paid 2 calls ($0.02) · cached 1 ($0.01 saved) · failed 1 (free)"
    table = ledger._repr_html_()
    assert table.startswith("<table") and "$0.02 spent" in table and "$0.01 saved" in table
    read = Table(table)
    assert [read.head, *read.rows] == [
        ["calls", "n", "USD"],
        ["paid", "2", "$0.02 spent"],
        ["from cache", "1", "$0.01 saved"],
        ["failed", "1", "$0.00 (not charged)"],
    ]


def test_accessor_and_widget_signatures_are_the_contract() -> None:
    # df.social's class, and the class it is built as on a comments / an ads frame
    kinds = (pd.DataFrame.social, type(sf.comments_frame([]).social), type(sf.ads_frame([]).social))

    def sig(name: str) -> list[tuple[str, object, str]]:
        owner = next(c for c in kinds if name in vars(c))
        params = list(inspect.signature(getattr(owner, name)).parameters.values())[1:]
        return [(p.name, p.default, p.kind.name) for p in params]

    empty, kw, pos = inspect.Parameter.empty, "KEYWORD_ONLY", "POSITIONAL_OR_KEYWORD"
    assert sig("activity") == [("freq", "1D", pos), ("by", None, kw), ("tz", "UTC", kw)]
    assert sig("plot_activity") == [
        ("freq", "1D", pos),
        ("by", "author_type", kw),
        ("tz", "UTC", kw),
        ("ax", None, kw),
    ]
    assert sig("top_authors") == [("n", 10, pos)]
    for name in ("authors", "organizations", "people", "threads", "by_page"):
        assert sig(name) == []
    assert sig("active_on")[0] == ("day", empty, pos)
    assert sig("plot_timeline") == [("ax", None, kw), ("max_ads", 50, kw)]
    assert sig("plot_platforms") == [("ax", None, kw)]
    assert sig("fetch_comments") == [
        ("column", "post", pos),
        ("client", None, kw),
        ("sort", "mostRelevant", kw),
        ("max_pages", None, kw),
        ("on_error", "raise", kw),  # issue 8 (an addition: keyword-only, a default)
    ]
    assert sig("fetch_ads") == [
        ("column", "query", pos),
        ("client", None, kw),
        ("filters", empty, "VAR_KEYWORD"),
    ]
    assert sig("to_csv") == [("path", empty, pos), ("excel", False, kw)]

    import socialframe.widgets as widgets

    assert list(inspect.signature(widgets.explore_comments).parameters)[0] == "comments"
    assert list(inspect.signature(widgets.ad_search).parameters)[0] == "client"


def _public_callables() -> list[tuple[str, object]]:
    """Every public function, class and method of the public modules and df.social."""
    import socialframe.operations as operations
    import socialframe.sandbox as sandbox
    import socialframe.widgets as widgets
    from socialframe.sandbox import faults

    found: list[tuple[str, object]] = []
    modules = [
        ("sf", sf),
        ("widgets", widgets),
        ("sandbox", sandbox),
        ("operations", operations),
        ("faults", faults),
    ]
    for module_name, module in modules:
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, Exception):
                continue  # the error tree is documented in the errors module's docstring
            if inspect.isclass(obj) or inspect.isfunction(obj):
                found.append((f"{module_name}.{name}", obj))
    classes = [obj for _, obj in found if inspect.isclass(obj)] + [pd.DataFrame.social]
    for cls in dict.fromkeys(classes):
        for name, member in vars(cls).items():
            if name.startswith("_") or not inspect.isfunction(member):
                continue
            found.append((f"{cls.__name__}.{name}", member))
    return found


def test_every_public_callable_documents_args_returns_and_an_example() -> None:
    gaps = []
    for where, obj in _public_callables():
        doc = inspect.getdoc(obj) or ""
        if inspect.isclass(obj):
            if "Example:" not in doc:
                gaps.append(f"{where}: no Example")
            continue
        params = [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]
        needs = ["Example:"]
        if params:
            needs.append("Args:")
        if inspect.signature(obj).return_annotation not in (None, "None"):
            needs.append("Returns:")
        gaps += [f"{where}: no {n}" for n in needs if n not in doc]
    assert gaps == []


@pytest.mark.slow
def test_sf_widgets_after_a_plain_import_is_lazy() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, socialframe as sf\n"
        "shells = (sf.widgets.explore_comments, sf.widgets.ad_search)\n"
        "print(sf.sandbox.Sandbox is sf.Sandbox, 'ipywidgets' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


def _every_fetch_error(partial: object) -> list[sf.FetchError]:
    return [
        sf.FetchError("m", partial=partial),  # type: ignore[arg-type]
        sf.NotCachedError("m", partial=partial),  # type: ignore[arg-type]
        sf.SchemaError("m", partial=partial),  # type: ignore[arg-type]
        sf.NetworkError("m", partial=partial),  # type: ignore[arg-type]
        sf.BudgetExceededError("m", max_cost=1.0, spent_usd=0.5, partial=partial),  # type: ignore[arg-type]
        *(
            cls(401, "Invalid API key", operation="ads", partial=partial)  # type: ignore[arg-type]
            for cls in (sf.APIError, sf.BadRequestError, sf.AuthError, sf.ServerError)
        ),
        sf.RateLimitError(429, "slow", operation="comments", retry_after=3.0, partial=partial),  # type: ignore[arg-type]
    ]


def _raise(index: int) -> None:
    import pandas as pd

    raise _every_fetch_error(pd.DataFrame({"x": [index]}))[index]


def test_fetch_errors_survive_pickle_copy_and_a_process_pool() -> None:
    import copy
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    import pandas as pd

    partial = pd.DataFrame({"x": [1, 2]})
    for error in _every_fetch_error(partial):
        for twin in (pickle.loads(pickle.dumps(error)), copy.copy(error), copy.deepcopy(error)):
            assert type(twin) is type(error) and str(twin) == str(error)
            assert vars(twin).keys() == vars(error).keys()
            assert twin.partial is not None and twin.partial.equals(partial)
            for name in ("status_code", "message", "operation", "retry_after", "max_cost"):
                assert getattr(twin, name, None) == getattr(error, name, None)
    n = len(_every_fetch_error(None))
    with ProcessPoolExecutor(2) as pool:  # what a parallel notebook does with a failed fetch
        futures = [pool.submit(_raise, i) for i in range(n)]
        for i, future in enumerate(futures):
            error = future.exception()
            assert isinstance(error, type(_every_fetch_error(None)[i]))
            assert error.partial is not None and error.partial["x"].tolist() == [i]


@pytest.mark.slow
def test_importing_socialframe_is_cheap() -> None:
    # The heavy parts load when first used: charts, widgets, the cache, its locks, and
    # HTTP itself (requests, the retry library) with the first Client.
    import subprocess
    import sys

    heavy = ["matplotlib", "ipywidgets", "requests_cache", "filelock", "sqlite3", "hypothesis"]
    heavy += ["requests", "urllib3", "tenacity", "asyncio", "msgspec", "pyrate_limiter"]
    probe = f"import sys, socialframe\nprint([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
