"""JSON values -> column values, and columns -> a typed frame.

The service's JSON is loose (ids as numbers or strings, flags missing, counts as
text); these helpers turn each value into what its column holds, or ``None``
(missing). Any JSON value is accepted: one that does not fit its column (a count
beyond 64 bits, a 5,000-digit number, a date beyond the calendar) becomes
missing and is noted in an :class:`Unfit` tally, which the builders report in
one :class:`~socialframe.SchemaWarning`. Columns are built directly from Python
lists: ``pd.json_normalize`` is about 3x slower at 200k rows.

Why over 400 lines: about thirty small converters, one per kind of column value,
each total over any JSON value, sharing the :class:`Unfit` tally.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final, NamedTuple, TypeAlias

import numpy as np
import pandas as pd

from .. import _words as words
from .._errors import SchemaError, SchemaWarning
from .._json import loads
from .._models import Page
from .._schema import BOOLEAN, FLOAT, INT, LIST, STRING, is_id

#: The int64 value numpy reads as NaT (no time).
NAT: Final = np.iinfo(np.int64).min
_DIGITS = re.compile(r"-?\d{1,19}", re.ASCII)  # more digits cannot fit in 64 bits
INT64: Final = (-(2**63), 2**63)
Raw: TypeAlias = bytes | bytearray | memoryview | str
#: What the frame builders take: bodies, raw JSON bodies or pages, or one of them.
Payloads: TypeAlias = "Iterable[Mapping[str, Any] | Page | Raw] | Mapping[str, Any] | Page | Raw"


_gc_lock = threading.Lock()
_gc_users = 0
_gc_was_enabled = False


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a frame is built.

    Building a frame makes hundreds of thousands of objects and no reference
    cycles; each time allocations pass the collector's threshold it scans every
    object still alive, so the work grows with what was already built (it cost
    the parse of 200k comments 4x here). Reference counting still frees
    everything as usual. Threads building at once share one pause; the
    collector comes back as it was when the last of them ends (a program that
    turned it off keeps it off).
    """
    global _gc_users, _gc_was_enabled
    with _gc_lock:
        if _gc_users == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_was_enabled:
                gc.enable()


class Unfit:
    """A tally of the values that did not fit their columns, by column."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        #: How many values in all: a cheap way to see whether a parse noted one.
        self.total = 0

    def note(self, column: str) -> None:
        """One more value of ``column`` that became missing."""
        self.counts[column] += 1
        self.total += 1

    def add(self, other: Unfit) -> None:
        """Count ``other``'s values too (a row's, tallied apart until it was kept)."""
        self.counts.update(other.counts)
        self.total += other.total

    def warn(self, frame: str) -> None:
        """One :class:`SchemaWarning` naming every column that lost values, if any."""
        if not self.counts:
            return
        total = sum(self.counts.values())
        columns = ", ".join(f"{name} ({n})" for name, n in sorted(self.counts.items()))
        warnings.warn(
            SchemaWarning(
                f"{words.count(total, 'value')} of the {frame} did not fit"
                f" {'its column' if total == 1 else 'their columns'} and"
                f" {'is' if total == 1 else 'are'} missing: {columns}"
            ),
            stacklevel=3,
        )


#: The types of a raw response body: JSON text, as sent or as saved.
RAW: Final = (bytes, bytearray, memoryview, str)


def pages(payloads: Payloads, fast: Callable[[Raw], Any] | None = None) -> Iterable[Page]:
    """Pages from response bodies (numbered by position), raw JSON bodies or :class:`Page` objects.

    A raw body (``bytes`` or ``str``) is parsed here: the builders call this
    with the garbage collector paused, which parses large inputs twice as fast.
    ``fast``, if given, decodes a raw body straight into a builder's own types
    (its result becomes the page's ``body``), or returns None to leave the body
    to the generic parse.

    Raises:
        SchemaError: ``payloads`` is not a body, a page or an iterable of them,
            or a raw body is not JSON.
    """
    if isinstance(payloads, (Mapping, Page, *RAW)):
        payloads = [payloads]
    if not isinstance(payloads, Iterable):
        raise SchemaError(
            f"expected response bodies (dicts or JSON text) or a list of them,"
            f" not {type(payloads).__name__}"
        )
    for position, item in enumerate(payloads, start=1):
        if isinstance(item, Page):
            yield item
        elif isinstance(item, Mapping):
            yield Page(item, position)
        elif isinstance(item, RAW):
            if isinstance(item, memoryview) and not item.c_contiguous:
                item = item.tobytes()  # the parsers read one contiguous buffer
            body = fast(item) if fast is not None else None
            if body is None:
                try:
                    body = loads(item)
                except ValueError as error:
                    raise SchemaError(f"page {position} is not JSON: {error}") from None
                if not isinstance(body, Mapping):
                    raise SchemaError(
                        f"page {position} is JSON {type(body).__name__}, not an object"
                    )
            yield Page(body, position)
        else:
            raise SchemaError(f"page {position} is a {type(item).__name__}, not a JSON object")


def text(value: Any, unfit: Unfit | None = None, column: str = "") -> str | None:
    """Ids and text as strings; '' and None are missing. Ints never go through float.

    Any other JSON value is kept as its text; only an integer too long to print
    (Python refuses over 4,300 digits) is unfit.
    """
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    try:
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)
    except (ValueError, RecursionError):  # an int beyond Python's digit limit, or too deep
        _unfit(unfit, column)
        return None


_NONE: Final = type(None)


def texts(values: list[Any], unfit: Unfit, column: str, *, empty: bool = False) -> list[str | None]:
    """:func:`text` of each value (``empty``: keep ``""`` as text, not missing); a
    column of text and nulls only is checked in C."""
    if set(map(type, values)) <= {str, _NONE}:
        return values if empty or "" not in values else [value or None for value in values]
    return [
        value if empty and type(value) is str else text(value, unfit, column) for value in values
    ]


def flags(values: list[Any], unfit: Unfit, column: str) -> list[bool | None]:
    """:func:`flag` of each value; a column of booleans and nulls only is checked in C."""
    if set(map(type, values)) <= {bool, _NONE}:
        return values
    return [flag(value, unfit, column) for value in values]


def flag(value: Any, unfit: Unfit | None = None, column: str = "") -> bool | None:
    """A JSON boolean, or missing (any other value is unfit)."""
    if isinstance(value, bool) or value is None:
        return value
    _unfit(unfit, column)
    return None


def whole(value: Any, unfit: Unfit | None = None, column: str = "") -> int | None:
    """A 64-bit integer from an int, an integral float or a string of digits.

    ``None`` and ``""`` are missing; anything else that is not such an integer
    (a bool, a fraction, text, a list, a number beyond 64 bits) is unfit.
    """
    number: int | None = None
    if isinstance(value, bool) or value is None or value == "":
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        try:
            number = int(value)
        except ValueError:  # str.strip() takes "\x1f" away, int() does not
            number = None
    if number is not None and INT64[0] <= number < INT64[1]:
        return number
    if value is None or value == "":
        return None
    _unfit(unfit, column)
    return None


def within(number: int | None, low: int, high: int, unfit: Unfit, column: str) -> int | None:
    """``number`` when ``low <= number < high``; outside, unfit."""
    if number is None or low <= number < high:
        return number
    _unfit(unfit, column)
    return None


def real(value: Any, unfit: Unfit | None = None, column: str = "") -> float | None:
    """A finite float from a number or a numeric string; None and "" are missing."""
    if value is None or value == "":
        return None
    if not isinstance(value, bool) and isinstance(value, int | float | str):
        try:
            number = float(value)
        except (ValueError, OverflowError):
            pass
        else:
            if math.isfinite(number):
                return number
    _unfit(unfit, column)
    return None


def _unfit(unfit: Unfit | None, column: str) -> None:
    if unfit is not None:
        unfit.note(column)


def times(values: list[int | None] | np.ndarray[Any, Any], unit: str) -> pd.DatetimeIndex:
    """Epoch integers in ``unit`` (None = missing) -> tz-aware UTC, microseconds."""
    if isinstance(values, np.ndarray):
        raw = values.astype(np.int64)
    else:
        raw = np.array([NAT if v is None else v for v in values], dtype=np.int64)
    stamps = raw.view(f"datetime64[{unit}]").astype("datetime64[us]")
    return pd.DatetimeIndex(stamps).tz_localize("UTC")


def fetch_times(counted: list[tuple[Page, int]]) -> pd.DatetimeIndex:
    """Each row's ``fetched_at``: the time of the page it came on."""
    stamps = [_epoch_us(page.fetched_at) for page, _ in counted]
    return times(_per_row([NAT if v is None else v for v in stamps], counted), "us")


def page_numbers(counted: list[tuple[Page, int]]) -> np.ndarray[Any, Any]:
    """Each row's page number: the number of the page it came on."""
    return _per_row([page.page for page, _ in counted], counted)


def walk_numbers(counted: list[tuple[Page, int]]) -> list[int]:
    """Each row's walk: pages are numbered from 1 in each walk of a post (or search),
    so a page numbered no higher than the one before starts another walk."""
    walks, walk, last = [], 0, None
    for page, _ in counted:
        if last is not None and page.page <= last:
            walk += 1
        last = page.page
        walks.append(walk)
    numbers: list[int] = _per_row(walks, counted).tolist()
    return numbers


def _per_row(per_page: list[int], counted: list[tuple[Page, int]]) -> np.ndarray[Any, Any]:
    """One int64 per page, repeated for each of its rows."""
    return np.repeat(np.array(per_page, dtype=np.int64), [n for _, n in counted])


_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_US: Final = timedelta(microseconds=1)


def _epoch_us(at: datetime | None) -> int | None:
    if at is None:
        return None
    if type(at) is datetime and at.tzinfo is not None:  # exact, in integers
        return (at - _EPOCH) // _US
    ts = pd.Timestamp(at)
    ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    return int(ts.value // 1000)


def objects(values: list[Any]) -> np.ndarray[Any, Any]:
    """An object array holding each value as is (lists stay lists, never a 2-D array)."""
    return np.fromiter(values, dtype=object, count=len(values))


class Coded(NamedTuple):
    """A column given as its distinct values and, per row, the position of its value.

    Authors and posts repeat on every comment: typing each distinct value once and
    taking rows from it in C is several times faster than typing every row.
    """

    values: list[Any]
    codes: np.ndarray[Any, np.dtype[np.intp]]


def typed_frame(
    columns: Mapping[str, Any], order: Iterable[str], dtypes: Mapping[str, Any]
) -> pd.DataFrame:
    """A frame of ``columns`` (lists, :class:`Coded` or Index/Series), named and typed.

    Every column of ``order`` must be built, and nothing else: a builder that
    forgets a column, or names one the schema does not know, fails here.
    """
    order = tuple(order)
    if set(columns) != set(order):
        missing, unknown = set(order) - set(columns), set(columns) - set(order)
        raise AssertionError(f"frame columns differ from the schema: {missing=} {unknown=}")
    out = {}
    for name in order:
        values = columns[name]
        dtype = dtypes[name]
        if isinstance(values, pd.Index | pd.Series):
            out[name] = pd.Series(values, dtype=dtype).reset_index(drop=True)
            continue
        if isinstance(values, Coded):
            array = _typed(values.values, dtype).take(values.codes)
        else:
            array = _typed(values, dtype)
        out[name] = pd.Series(array, dtype=object) if dtype is LIST else pd.Series(array)
    return pd.DataFrame(out)


def _typed(values: list[Any], dtype: Any) -> Any:
    """``values`` as an array of ``dtype`` (the same typing :func:`typed_frame` does)."""
    if dtype is LIST:
        return objects(values)
    if dtype is STRING:
        return strings(values)
    if dtype is BOOLEAN and set(map(type, values)) <= {bool, _NONE}:
        return booleans(values)
    return pd.array(values, dtype=dtype)


def booleans(values: list[bool | None]) -> pd.arrays.BooleanArray:
    """A ``boolean`` array of True / False / None, built in numpy: pandas' own
    constructor checks each value in Python, at twice the time."""
    held = np.fromiter(values, dtype=object, count=len(values))
    missing = held == None  # noqa: E711 - elementwise, in C
    return pd.arrays.BooleanArray(held.astype(bool), missing)


def strings(values: list[str | None]) -> Any:
    """A ``string`` array of str / None values, built by Arrow directly when it can be.

    pandas' own constructor re-validates every element first: ten times slower.
    A lone surrogate (JSON can spell ``"\\ud800"``; UTF-8 cannot hold it) is
    replaced by U+FFFD, as Python's ``"replace"`` error handler does.
    """
    try:
        return _strings(values)
    except UnicodeEncodeError:
        return _strings([None if v is None else without_lone_surrogates(v) for v in values])


def _strings(values: list[str | None]) -> Any:
    if STRING.storage == "pyarrow":
        import pyarrow as pa

        return pd.arrays.ArrowStringArray(pa.array(values, type=pa.large_string()))
    for value in values:  # what Arrow refuses, refuse here too: the same values either way
        if value is not None:
            value.encode()
    return pd.array(values, dtype=STRING)


def without_lone_surrogates(value: str) -> str:
    """``value`` as a ``string`` column holds it: a lone surrogate becomes U+FFFD."""
    try:
        value.encode()
    except UnicodeEncodeError:
        # pairs of surrogates join into their character; a lone one becomes U+FFFD
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def extra_array(name: str, values: list[Any]) -> Any:
    """Type an extra column from its values; anything that does not fit stays as sent."""
    kinds = set(map(type, values))
    kinds.discard(type(None))
    if not kinds:
        return objects(values)
    if is_id(name):  # ids are text, whatever type they came in
        if kinds <= {str, int} and all(type(v) is not int or _printable(v) for v in values):
            return strings([None if v is None else str(v) for v in values])
        return objects(values)
    if kinds == {bool}:
        return booleans(values)
    if kinds == {str}:
        return strings(values)
    if kinds == {int} and all(v is None or -(2**63) <= v < 2**63 for v in values):
        return pd.array(values, dtype=INT)
    if kinds <= {int, float} and all(type(v) is not int or abs(v) <= 2**53 for v in values):
        return pd.array(values, dtype=FLOAT)  # exact: no int beyond 2**53
    return objects(values)


def _printable(number: int) -> bool:
    """Whether Python will print this int (it refuses over 4,300 digits)."""
    try:
        str(number)
    except ValueError:
        return False
    return True


def retype_extras(frame: pd.DataFrame, contract: Iterable[str]) -> pd.DataFrame:
    """Type again the untyped (object) extra columns of a frame, e.g. after a concat.

    An ads frame whose extras were all missing in one search holds them as object;
    concatenated with another search's typed column the result is object too.
    """
    fixed = set(contract)
    for name in frame.columns:
        if name in fixed or frame[name].dtype != object:
            continue
        values = [None if _missing(v) else v for v in frame[name]]
        frame[name] = extra_array(str(name), values)
    return frame


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)
