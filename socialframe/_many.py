"""Many items (posts or queries) into one frame.

Every item is validated before the first call (errors name the item); an item
given twice is fetched once; each row carries the item it came from in a key
column; one progress bar covers the items; a failure hands back every row
fetched so far as the error's ``.partial``.

Items are fetched by up to ``workers`` threads at once (the pages of one item
stay in order in one thread: each needs the previous token or cursor). The
frame is the same whatever ``workers`` is: items in the order given.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from . import _frames as frames
from ._errors import AuthError, BudgetExceededError, FetchError, SkippedWarning
from ._schema import AD_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

    from ._progress import Progress

OnError = Literal["raise", "skip"]
"""What a many-item fetch does when an item fails for good (a 400, a post that is
gone, retries exhausted, a body of the wrong shape): ``"raise"`` stops and raises
(``.partial`` holds every row so far); ``"skip"`` leaves the item out, lists it in
``frame.attrs["failed"]`` and warns once (:class:`~socialframe.SkippedWarning`).
A refused key or a budget stop ends the run either way."""

#: Failures that end a run even with ``on_error="skip"``: every next item would fail too.
ENDS_THE_RUN: tuple[type[FetchError], ...] = (AuthError, BudgetExceededError)


def fetch_all(
    keys: list[Any],
    items: list[dict[str, str]],
    one: Callable[[dict[str, str], bool], pd.DataFrame],
    *,
    key: str | None,
    empty: pd.DataFrame,
    progress: Progress,
    workers: int = 1,
    on_error: OnError = "raise",
) -> pd.DataFrame:
    """Fetch every item into one frame, under one progress bar over the items.

    Args:
        keys: The items as given (what the key column shows).
        items: The validated parameters of each item, in the same order.
        one: Fetches one item's frame (``one(params, show_its_own_bar)``).
        key: The key column's name; ``None`` adds none.
        empty: The empty frame of the operation (its columns and dtypes).
        progress: The bar over the items.
        workers: Items fetched at once (threads).
        on_error: ``"skip"`` leaves out an item whose fetch failed for good and
            goes on (see :data:`OnError`).

    An item given twice (the same post as an id and as a URL, say) is fetched
    once; its rows carry the first form given.
    """
    import pandas as pd

    if key is not None and key in empty.columns and key != "query":
        raise ValueError(f"the key column {key!r} has the name of a result column; rename it first")
    unique: dict[tuple[tuple[str, str], ...], tuple[Any, dict[str, str]]] = {}
    for item_key, params in zip(keys, items, strict=True):
        unique.setdefault(tuple(sorted(params.items())), (item_key, params))
    todo = list(unique.values())
    got: list[pd.DataFrame | None] = [None] * len(todo)  # by position: order kept
    failed: dict[int, FetchError] = {}
    skipped: dict[int, FetchError] = {}

    def run(position: int) -> None:
        item_key, params = todo[position]
        try:
            got[position] = keyed(one(params, False), key, item_key)
        except FetchError as exc:
            if on_error == "skip" and not isinstance(exc, ENDS_THE_RUN):
                skipped[position] = exc
                return
            failed[position] = exc
            this = exc.partial if exc.partial is not None else empty
            got[position] = keyed(this, key, item_key)

    try:
        if workers <= 1 or len(todo) <= 1:
            for position in range(len(todo)):
                run(position)
                if failed:
                    break
                progress.page(len(todo))
        else:
            _in_threads(run, len(todo), workers, failed, lambda: progress.page(len(todo)))
    finally:
        progress.close()
    parts = [frame for frame in got if frame is not None]
    if not parts:
        whole = keyed(empty, key, "")
    else:
        # One query's extras may all be missing (typed object) where another's are
        # text: retype after the concat so the frame stays typed (and Parquet-safe).
        whole = frames.retype_extras(pd.concat(parts, ignore_index=True), AD_COLUMNS)
    if skipped:
        whole.attrs["failed"] = [
            {"item": todo[i][0], "error": type(skipped[i]).__name__, "message": str(skipped[i])}
            for i in sorted(skipped)
        ]
    if failed:
        first = failed[min(failed)]  # the first failing item in the order given
        raise first.with_partial(whole).with_traceback(first.__traceback__)
    if skipped:
        n = len(skipped)
        warnings.warn(
            SkippedWarning(
                f"{n} of {len(todo)} item{'s' * (len(todo) != 1)} failed and"
                f" {'was' if n == 1 else 'were'} left out (on_error='skip'):"
                " see the frame's attrs['failed']"
            ),
            stacklevel=4,
        )
    return whole


def _in_threads(
    run: Callable[[int], None],
    n: int,
    workers: int,
    failed: Mapping[int, FetchError],
    done: Callable[[], None],
) -> None:
    """``run(0..n-1)`` on ``workers`` threads; after a failure no new item starts."""
    from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="socialframe") as pool:
        pending: set[Future[None]] = set()
        position = 0
        while position < n or pending:
            while position < n and len(pending) < workers and not failed:
                pending.add(pool.submit(run, position))
                position += 1
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                future.result()  # anything but a FetchError (a bug, Ctrl-C) surfaces
                done()


def check_on_error(on_error: object) -> None:
    """Raise ValueError for anything but ``"raise"`` / ``"skip"`` (before any call)."""
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")


def items_of(value: object) -> list[Any] | None:
    """The items of a list-like argument, or None for a single post / query."""
    if value is None or isinstance(value, str | bytes | int | Mapping):
        return None
    if isinstance(value, Iterable):
        return list(value)
    return None


def key_name(items: object, default: str | None) -> str | None:
    """The key column of a many-item fetch: a named Series' name, else ``default``."""
    import pandas as pd

    if isinstance(items, pd.Series) and items.name is not None:
        return str(items.name)
    return default


def keyed(frame: pd.DataFrame, key: str | None, value: Any) -> pd.DataFrame:
    """The frame with a column ``key`` holding the item it came from, as given.

    First, unless it is the ads frame's own ``query`` column, which it fills.
    """
    if key is None:
        return frame
    import pandas as pd

    keyed = frame.copy()
    column = pd.array([str(value)] * len(keyed), dtype="string")
    if key in keyed.columns:  # only "query": checked before any call
        keyed[key] = column
    else:
        keyed.insert(0, key, column)
    return keyed


def validate_each(
    many: list[Any] | None, one: object, check: Callable[[Any], dict[str, str]]
) -> list[dict[str, str]]:
    """Validated parameters of every item, before any call; errors name the item."""
    if many is None:
        return [check(one)]
    out = []
    for position, item in enumerate(many):
        try:
            out.append(check(item))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"item {position} ({item!r}): {exc}") from None
    return out
