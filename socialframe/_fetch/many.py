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

import contextlib
import itertools
import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping, Set
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .. import _frames as frames
from .. import _words as words
from .._errors import AuthError, BudgetExceededError, FetchError, SkippedWarning
from .._schema import AD_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

    from .._models import Page
    from .progress import Progress

OnError = Literal["raise", "skip"]
"""What a many-item fetch does when an item fails for good (a 400, a post that is
gone, retries exhausted, a body of the wrong shape): ``"raise"`` stops and raises
(``.partial`` holds every row so far); ``"skip"`` leaves the item out, lists it in
``frame.attrs["failed"]`` and warns once (:class:`~socialframe.SkippedWarning`).
A refused key or a budget stop ends the run either way."""

#: Failures that end a run even with ``on_error="skip"``: every next item would fail too.
ENDS_THE_RUN: tuple[type[FetchError], ...] = (AuthError, BudgetExceededError)


class Stopped(Exception):
    """An item's fetch failed after some pages (internal: never reaches a user).

    Args:
        error: The failure.
        pages: The pages fetched before it.
    """

    def __init__(self, error: FetchError, pages: list[Page]) -> None:
        super().__init__(str(error))
        self.error = error
        self.pages = pages


Build = Callable[[list[list["Page"]]], tuple["pd.DataFrame", list[int]]]
"""Pages of each item -> one frame of them all, in item order, and each item's row count."""


def fetch_all(
    keys: list[Any],
    items: list[dict[str, str]],
    one: Callable[[dict[str, str], bool], list[Page]],
    *,
    build: Build,
    key: str | None,
    empty: pd.DataFrame,
    progress: Progress,
    workers: int = 1,
    on_error: OnError = "raise",
    stop: Callable[[], None] = lambda: None,
) -> pd.DataFrame:
    """Fetch every item into one frame, under one progress bar over the items.

    Args:
        keys: The items as given (what the key column shows).
        items: The validated parameters of each item, in the same order.
        one: Fetches one item's pages (``one(params, show_its_own_bar)``);
            raises :class:`Stopped` with the pages fetched before a failure.
        build: Turns the pages of every item into one frame, once, at the end
            (a frame per item cost more than the calls at 100 posts).
        key: The key column's name; ``None`` adds none.
        empty: The empty frame of the operation (its columns and dtypes).
        progress: The bar over the items.
        workers: Items fetched at once (threads).
        on_error: ``"skip"`` leaves out an item whose fetch failed for good and
            goes on (see :data:`OnError`).
        stop: Tells the workers still running to send nothing more (called when
            the run is interrupted: Ctrl-C reaches the main thread only).

    An item given twice (the same post as an id and as a URL, say) is fetched
    once; its rows carry the first form given.
    """
    if key is not None and key in empty.columns and key != "query":
        raise ValueError(f"the key column {key!r} has the name of a result column; rename it first")
    unique: dict[tuple[tuple[str, str], ...], tuple[Any, dict[str, str]]] = {}
    for item_key, params in zip(keys, items, strict=True):
        unique.setdefault(tuple(sorted(params.items())), (item_key, params))
    todo = list(unique.values())
    # By position, order kept: the pages of each item, None if skipped, until built.
    got: list[list[Page] | None | object] = [_PENDING] * len(todo)
    failed: dict[int, FetchError] = {}
    skipped: dict[int, FetchError] = {}
    built = _Batches(todo, got, build, key)

    def run(position: int) -> None:
        try:
            got[position] = one(todo[position][1], False)
        except Stopped as ended:
            if on_error == "skip" and not isinstance(ended.error, ENDS_THE_RUN):
                skipped[position] = ended.error
                got[position] = None  # finished, with nothing to build
                return
            failed[position] = ended.error
            got[position] = ended.pages

    def finished() -> None:
        progress.page(len(todo))
        built.flush()

    try:
        if workers <= 1 or len(todo) <= 1:
            for position in range(len(todo)):
                run(position)
                if failed:
                    break
                finished()
        else:
            _in_threads(run, len(todo), workers, failed, finished, stop)
    except KeyboardInterrupt as exc:  # Ctrl-C: the items finished so far ride along
        exc.partial = built.whole(empty)  # type: ignore[attr-defined]
        raise
    finally:
        progress.close()
    whole = built.whole(empty)
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
                f"{n:,} of {words.count(len(todo), 'item')} failed and"
                f" {'was' if n == 1 else 'were'} left out (on_error='skip'):"
                " see the frame's attrs['failed']"
            ),
            stacklevel=4,
        )
    return whole


_PENDING: Any = object()  # an item not finished (or, after a failure, never started)

BATCH_PAGES = 500
"""Pages held before the finished items in front are built into a frame. One build
per batch keeps most of the speed of building once, without holding every page of
a long run until its end (60 posts x 47 pages held 730 MB; built per batch, the
pages of a batch are freed as its frame is made)."""


class _Batches:
    """The frame of a many-item fetch, built a batch of finished items at a time.

    Only the finished items at the front are built (items finish out of order in
    threads), so the parts stay in item order.
    """

    def __init__(
        self,
        todo: list[tuple[Any, dict[str, str]]],
        got: list[Any],
        build: Build,
        key: str | None,
    ) -> None:
        self.todo, self.got, self.build, self.key = todo, got, build, key
        self.parts: list[pd.DataFrame] = []
        self.front = 0  # the first item not built yet
        self.scanned = 0  # the first item at or after front not seen finished yet
        self.held = 0  # pages of the finished items from front to scanned

    def flush(self, final: bool = False) -> None:
        """Build the finished items at the front once they hold a batch of pages
        (``final``: every finished item left, in order)."""
        end = self.scanned  # each item is counted once: a flush per item stays linear
        while end < len(self.got) and self.got[end] is not _PENDING:
            if isinstance(self.got[end], list):
                self.held += len(self.got[end])
            end += 1
        self.scanned = end
        if not final and self.held < BATCH_PAGES:
            return
        if final:
            end = len(self.got)
        chosen = [i for i in range(self.front, end) if isinstance(self.got[i], list)]
        if chosen:
            frame, counts = self.build([self.got[i] for i in chosen])
            self.parts.append(keyed(frame, self.key, [self.todo[i][0] for i in chosen], counts))
        for i in range(self.front, end):
            if self.got[i] is not _PENDING:
                self.got[i] = None  # built: its pages can go
        self.front = self.scanned = end
        self.held = 0

    def whole(self, empty: pd.DataFrame) -> pd.DataFrame:
        """Every part in item order, as one frame (the empty one when nothing came)."""

        self.flush(final=True)
        if not self.parts:
            return keyed(empty, self.key, [], [])
        whole = self.parts[0] if len(self.parts) == 1 else pd.concat(self.parts, ignore_index=True)
        return finish(whole)


def finish(frame: pd.DataFrame) -> pd.DataFrame:
    """Type the extra columns a build left as sent, once over all the rows of a fetch
    (so the frame is the same however its rows were built apart)."""
    return frames.retype_extras(frame, AD_COLUMNS)


def _in_threads(
    run: Callable[[int], None],
    n: int,
    workers: int,
    failed: Mapping[int, FetchError],
    done: Callable[[], None],
    stop: Callable[[], None],
) -> None:
    """``run(0..n-1)`` on ``workers`` threads; after a failure no new item starts, and
    after an interrupt (Ctrl-C) the running ones send nothing more."""

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="socialframe") as pool:
        pending: set[Future[None]] = set()
        position = 0
        try:
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
        except BaseException:
            stop()  # the pool's exit then waits only for the calls already in flight
            raise


def check_on_error(on_error: object) -> None:
    """Raise ValueError for anything but ``"raise"`` / ``"skip"`` (before any call)."""
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")


def items_of(value: object, name: str) -> list[Any] | None:
    """The items of a list-like argument, or None for a single post / query.

    A list, a tuple, a pandas Series, any other iterable (a generator too) gives
    its items, each checked by the operation before any call. Refused at once
    (a ``TypeError`` naming what was given), since their items are not posts or
    queries and would be paid for as if they were:

    - bytes, ``bytearray``, ``memoryview``: iterated they are small ints (``b"7384"``
      would be posts 55, 56, 52 and 52);
    - a dict (its keys are not the rows' items), a DataFrame (its column names);
    - a set: it has no order, and the frame keeps the items' order.

    Raises:
        TypeError: one of the above.
    """
    if value is None or isinstance(value, str | numbers.Integral):
        return None
    kind = type(value).__name__
    if isinstance(value, bytes | bytearray | memoryview):
        raise TypeError(
            f"{name} must be text (str), not {kind}: decode it first, e.g. .decode('utf-8')"
        )
    view = None
    with contextlib.suppress(TypeError, ValueError):
        view = memoryview(value)  # type: ignore[arg-type]  # (array.array, numpy arrays)
    if view is not None and (view.itemsize == 1 or view.format in ("u", "w", "c")):
        raise TypeError(
            f"{name} must be text (str), not a {kind} of bytes or characters: iterated,"
            " its items are small ints or single characters, not posts or queries"
        )
    if isinstance(value, Mapping):
        raise TypeError(f"{name} must be text or a list of them, not a {kind}")
    if isinstance(value, Set):
        raise TypeError(
            f"{name} must not be a {kind}: it has no order and the frame keeps the"
            " order given; pass a list, e.g. sorted(...)"
        )
    if _is_frame(value):
        raise TypeError(f"{name} must be text or a list of them, not a DataFrame: pass one column")
    if isinstance(value, Iterable):
        items = list(itertools.islice(value, MAX_ITEMS + 1))  # (an endless generator ends)
        if len(items) > MAX_ITEMS:
            raise ValueError(f"{name}: more than {MAX_ITEMS:,} items in one call")
        return items
    return None  # one item of another type: the operation's check refuses it


MAX_ITEMS = 1_000_000
"""Posts or queries one call takes (an endless generator would never be done)."""


def _is_frame(value: object) -> bool:

    return isinstance(value, pd.DataFrame)


def key_name(items: object, default: str | None) -> str | None:
    """The key column of a many-item fetch: a named Series' name, else ``default``."""

    if isinstance(items, pd.Series) and items.name is not None:
        return str(items.name)
    return default


def keyed(
    frame: pd.DataFrame, key: str | None, values: list[Any], counts: list[int]
) -> pd.DataFrame:
    """The frame with a column ``key`` holding the item each row came from, as given.

    ``values[i]`` is repeated ``counts[i]`` times, in order. The column comes
    first, unless it is the ads frame's own ``query`` column, which it fills.
    """
    if key is None:
        return frame

    keyed = frame.copy(deep=False)
    # each item's text once, then taken row by row in Arrow
    column = frames.strings([str(value) for value in values])
    column = column.take(np.repeat(np.arange(len(values), dtype=np.intp), counts))
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
