"""DuckDB over a study's files: the views ``comments``, ``ads``, ``changes``, ``runs``.

Every view reads exactly the files the tables' Delta logs name, and only the rows of
the refreshes ``runs`` names (a refresh that never finished is not seen): on a folder
by their paths, in a bucket as the Arrow datasets ``deltalake`` makes of the same
files (DuckDB needs no extension for either). DuckDB streams them, so a study larger than memory
still answers: only what a query returns has to fit. ``comment_versions`` and
``ad_versions`` hold every version ever seen; ``comments`` and ``ads`` the latest
one of each id, with when it was first and last seen.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from collections.abc import Callable, Collection
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

import pandas as pd

from .._errors import StudyError
from .._schema import AD_DTYPES, COMMENT_DTYPES
from . import copies, integrity, storage
from .dataset import KINDS, Dataset, Snapshot
from .schema import (
    CHANGE_DETAIL,
    CHANGE_DTYPES,
    ITEM_DTYPES,
    RUN_DTYPES,
    SEEN,
    STORED,
)

__all__ = [
    "CHANGE_DETAIL",
    "CHANGE_DTYPES",
    "ITEM_DTYPES",
    "RUN_DTYPES",
    "SEEN",
    "STORED",
    "Reader",
    "connect",
    "duckdb_module",
    "read_as",
    "typed",
    "unreadable",
]

if TYPE_CHECKING:
    import duckdb


def duckdb_module() -> Any:
    """DuckDB, for every part of a study that reads its files; without the study extra a
    StudyError that says what to install (not a ModuleNotFoundError, which the command
    line would report as a bug).

    Raises:
        StudyError: DuckDB or pyarrow is not installed.
    """
    try:
        import duckdb
        import pyarrow  # noqa: F401  (DuckDB hands frames over through it)
    except ImportError:
        raise StudyError(
            'studies need DuckDB and pyarrow: pip install "socialframe[study]"'
        ) from None
    return duckdb


#: How long before a refresh an ad's ``end_date`` must be to say it stopped, where the
#: service sent no ``is_active`` (a running ad's ``end_date`` is its last day shown,
#: which may lag a day behind). Here, as the view ``_ad_life`` reads it for an ad's state;
#: :mod:`.searches` stops a held ad by it.
END_PAST: Final = timedelta(days=2)

#: What one query may hold in memory before DuckDB spills to disk.
MEMORY_LIMIT: Final = "1GB"


def _empty(dtypes: dict[str, Any]) -> pd.DataFrame:
    frame = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in dtypes.items()})
    return frame.assign(refresh=pd.Series(dtype="string"))


def _empty_comments() -> pd.DataFrame:
    return _empty({**COMMENT_DTYPES, **SEEN})


def _empty_ads() -> pd.DataFrame:
    dtypes = {**AD_DTYPES, "extra": "string", **SEEN}
    for name in ("publisher_platforms", "countries", "image_urls", "video_urls"):
        dtypes[name] = "string"  # (lists; with no row their type cannot be told)
    return _empty(dtypes)


#: Columns added to a kind's rows after its first files were written (text, missing there).
ADDED: Final = {
    "comments": ("watch", "id_derived", "content_id"),
    "ads": ("watch", "id_derived", "content_id"),
    "changes": ("watch", *CHANGE_DETAIL),
    "items": ("watch",),
}
#: What older files hold in an added column that is not text (an id was never derived
#: before ``id_derived`` was written; a change's cost was not kept).
ADDED_AS: Final = {"id_derived": "false", "cost_usd": "null::double"}
#: A study's kinds with no file yet: every column, typed, and no row.
EMPTY: Final[dict[str, Callable[[], pd.DataFrame]]] = {
    "comments": _empty_comments,
    "ads": _empty_ads,
    "changes": lambda: _empty({**CHANGE_DTYPES, "watch": "string", **CHANGE_DETAIL}),
    "runs": lambda: _empty(RUN_DTYPES),
    "items": lambda: _empty({**ITEM_DTYPES, "watch": "string", "state": "string"}),
}


@functools.cache
def _empty_table(kind: str) -> Any:
    """:data:`EMPTY` of ``kind`` as an Arrow table, made once (it never changes).

    DuckDB reads a registered pandas frame column by column at each statement that
    names it (a view over it: every query), an Arrow table by its schema. On a study of
    two posts, ``comments()`` took 0.34 s with the frames and 0.18 s with these tables
    (the views name one a kind). Text of a category (``author_type``) is VARCHAR here, as
    in the study's files.
    """
    import pyarrow as pa

    return pa.Table.from_pandas(EMPTY[kind](), preserve_index=False)


_Answer = TypeVar("_Answer")


class Reader:
    """A DuckDB connection over a study's views (:func:`connect`), that reads nothing but
    the study's files, writes nothing, and hands back only what it read from the files
    as they were checked.

    DuckDB may read below the study's folder alone (``allowed_directories``: a link out
    of it is refused as it is read), loads no extension, and its settings are locked, so
    the SQL it is given (:meth:`socialframe.Study.sql`'s) can change none of this. Each
    answer (:meth:`df`) is checked once read: every file the views read is still the
    one checked (:func:`socialframe._study.integrity.unchanged`).
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        dataset: Dataset,
        root: Path,
        checked: integrity.Checked,
    ) -> None:
        self.con = con
        self._dataset = dataset
        self._root = root  # (the study's folder, or this machine's copies of a bucket's files)
        self._checked = checked

    def df(self, query: str, params: list[Any] | None = None) -> pd.DataFrame:
        """The answer to ``query``, read from the files as they were checked.

        Raises:
            StudyError: a file changed while it was read (named).
            duckdb.Error: DuckDB refused the query, or could not read a file (which did
                not change).
        """
        return self._checked_answer(lambda: self.con.execute(query, params or []).df())

    def frame(self, query: str, params: list[Any] | None = None) -> pd.DataFrame:
        """As :meth:`df`, for the study's own frames, which :func:`read_as` types: read
        as Arrow batches, text kept in Arrow (pandas' ``string`` dtype), so that a
        large answer is held once, not as a Python object a value and then copied
        (10M comments: about 1.5x the frame at the peak, not 3x and minutes)."""
        # (a relation's Arrow keeps the query's order; a cursor's, with
        # preserve_insertion_order off, handed batches back out of order)
        table = self._checked_answer(
            lambda: self.con.sql(query, params=params or None).to_arrow_table()
        )
        return _arrow_to_pandas(table)

    def _checked_answer(self, read: Callable[[], _Answer]) -> _Answer:
        """``read()``, then every file it read checked to be the one checked before
        (also when DuckDB failed: a file swapped for a link, say, is what to say)."""
        import duckdb

        try:
            answer = read()
        except duckdb.Error:
            self.unchanged()
            raise
        self.unchanged()
        return answer

    def unchanged(self) -> None:
        """Raise a StudyError naming a file that is no longer the one checked."""
        integrity.unchanged(self._root, self._checked)

    def register(self, name: str, frame: pd.DataFrame) -> None:
        self.con.register(name, frame)

    def unregister(self, name: str) -> None:
        self.con.unregister(name)

    def close(self) -> None:
        self.con.close()


#: The tables each of the study's views reads (a view and those it is made of).
NEEDS: Final = {
    "runs": ("runs",),
    "comments": ("runs", "comments"),
    "ads": ("runs", "ads", "changes"),
    "changes": ("runs", "changes"),
}


def connect(
    dataset: Dataset, snapshot: Snapshot | None = None, *, views: tuple[str, ...] | None = None
) -> Reader:
    """An in-memory DuckDB connection with the study's views (times in UTC), once every
    file the tables' logs name is checked whole (:mod:`.integrity`, on a folder); see
    :class:`Reader`. ``views``: only those (:data:`NEEDS`: the views they are made of
    come with them), for an answer that reads no other; every view when ``None``.
    (DuckDB binds each view as it is made: an answer of one view of four made only
    what it reads.) Every file of the study is checked either way.

    Raises:
        StudyError: a file is not as the study wrote it (named), or is reached
            through a link.
    """
    duckdb = duckdb_module()
    snapshot = snapshot or dataset.snapshot(KINDS)
    place = dataset.place
    located: dict[str, tuple[str, str | None]]
    if isinstance(place, storage.Folder):
        # (the folder as DuckDB will find it, the user's links in its path followed once)
        root = Path(os.path.realpath(place.path))
        located = {
            f.relative: (f.relative, f.sha256) for kind in KINDS for f in snapshot.files[kind]
        }
    else:  # a bucket's files are read from this machine's checked copies of them
        root, copied = _copied(dataset, lambda: copies.local(dataset, snapshot, KINDS))
        located = dict(copied)
    files = [(kind, located[f.relative][0]) for kind in KINDS for f in snapshot.files[kind]]
    records = {
        located[f.relative][0]: {"size": f.size, "sha256": located[f.relative][1]}
        for kind in KINDS
        for f in snapshot.files[kind]
    }
    try:
        checked = integrity.check(root, files, records, stored=STORED, optional=ADDED)
    except StudyError:
        if isinstance(place, storage.Folder):
            raise
        # A copy damaged on this machine's disk is the bucket's file copied again (and
        # checked as it arrives); the bucket's own damaged files are named as they are.
        _copied(dataset, lambda: copies.replace_damaged(dataset, snapshot, KINDS))
        checked = integrity.check(root, files, records, stored=STORED, optional=ADDED)

    con = duckdb.connect(":memory:")
    reader = Reader(con, dataset, root, checked)
    try:
        _confine(con, root)
        kinds = KINDS if views is None else {k for v in views for k in NEEDS[v]}
        _views(con, dataset, root, located, snapshot, kinds)
    except BaseException as exc:
        con.close()
        if isinstance(exc, duckdb.Error):
            reader.unchanged()
            raise unreadable(dataset, exc) from None
        raise
    return reader


def _copied(dataset: Dataset, copy: Callable[[], _Answer]) -> _Answer:
    """``copy()``, which copies a bucket study's files to this machine: an OSError of
    this machine's disk said as the study's error."""
    try:
        return copy()
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        where = exc.filename if exc.filename and not full else copies.where()
        remedy = (
            "free some space there, or set SOCIALFRAME_CACHE_DIR to a folder with room"
            if full
            else "make it writable, or set SOCIALFRAME_CACHE_DIR to a folder of your own"
        )
        raise StudyError(
            f"{dataset.path}: the study's files cannot be copied to this machine to be read:"
            f" {where}: {exc.strerror}; {remedy}"
        ) from None


def _confine(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    """What every query of ``con`` may do (see :class:`Reader`), set first and locked:
    read below ``root``, the study's real folder (or the copies of a bucket's files)."""
    con.execute("set TimeZone = 'UTC'")
    # Bounded memory, whatever the study's size: past the limit DuckDB spills to the
    # system's temporary folder (never into the study or the working folder).
    con.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
    con.execute(
        f"set temp_directory = {_quoted(str(Path(tempfile.gettempdir()) / 'socialframe-duckdb'))}"
    )
    con.execute("set preserve_insertion_order = false")
    con.execute("set enable_progress_bar = false")  # a library prints nothing
    # Files below the study's real folder alone (DuckDB compares each path it opens, its
    # links followed: one that leads out of the study is refused), no extension from
    # disk or the network, and none of this changed by a query.
    inside = os.path.join(root, "")
    # (and as the views name it: DuckDB checks a path before it expands a pattern, and
    # a study at s* is read as s[*]: see _no_glob)
    allowed = ", ".join(_quoted(f) for f in dict.fromkeys([inside, _no_glob(inside)]))
    con.execute(f"set allowed_directories = [{allowed}]")
    con.execute("set enable_external_access = false")
    con.execute("set autoinstall_known_extensions = false")
    con.execute("set autoload_known_extensions = false")
    con.execute("set lock_configuration = true")


#: What the views read from each kind's files (a file without them is not the study's).
NEEDED: Final = {
    "comments": ("comment_id", "created_at", "text", "item", "seen_at", "refresh"),
    "ads": ("ad_archive_id", "is_active", "start_date", "item", "seen_at", "refresh"),
    "changes": ("at", "kind", "item", "id", "change", "refresh"),
    "runs": ("at", "paid_calls", "cost_usd", "new", "changed", "items", "complete", "refresh"),
    "items": ("at", "kind", "item", "refresh"),
}


#: Columns the views add to each kind's rows: never a file's own.
_OWN_ALL: Final = ()
OWN: Final = {
    "comments": ("rank_", "first_seen", "last_seen", "ident_"),
    "ads": (
        "rank_",
        "first_seen",
        "last_seen",
        "stopped_seen",
        "state",
        "id",
        "ident_",
    ),
}
#: The DuckDB types each needed column may have (by name; text where not named).
_TYPES: Final = {
    "created_at": ("TIMESTAMP",),
    "seen_at": ("TIMESTAMP",),
    "at": ("TIMESTAMP",),
    "start_date": ("TIMESTAMP", "DATE"),
    "is_active": ("BOOLEAN",),
    "complete": ("BOOLEAN",),
    "paid_calls": ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER"),
    "new": ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER"),
    "changed": ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER"),
    "items": ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER"),
    "cost_usd": ("DOUBLE", "FLOAT", "DECIMAL", "BIGINT", "INTEGER"),
}


def _fits(column: str, kind: str | None) -> bool:
    """Whether a needed column's DuckDB type is one the study writes (or it is absent:
    said apart)."""
    if kind is None:
        return True
    return kind.startswith(_TYPES.get(column, ("VARCHAR",)))


def unreadable(dataset: Dataset, exc: Exception) -> StudyError:
    """The error for a study whose files cannot be read as the study's (damaged, moved
    away, replaced): DuckDB's reason, first line, without its query."""
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StudyError(
        f"{dataset.path}: the study's files cannot be read ({reason[:300]}); a file the"
        " table's log names is damaged, missing or not one socialframe wrote"
    )


def _views(
    con: duckdb.DuckDBPyConnection,
    dataset: Dataset,
    root: Path,
    located: dict[str, tuple[str, str | None]],
    snapshot: Snapshot,
    kinds: Collection[str],
) -> None:
    # runs first: every other view reads only the rows of the refreshes it names
    for kind in ("runs", "comments", "ads", "changes", "items"):
        if kind not in kinds:
            continue
        name = {"comments": "comment_versions", "ads": "ad_versions"}.get(kind, kind)
        empty = f"_empty_{kind}"
        con.register(empty, _empty_table(kind))
        if snapshot.files[kind]:
            files = [_no_glob(str(root / located[f.relative][0])) for f in snapshot.files[kind]]
            listed = ", ".join(_quoted(f) for f in files)
            reading = f"read_parquet([{listed}], hive_partitioning = false, union_by_name = true)"
        else:
            reading = empty
        committed = "" if kind == "runs" else " where refresh in (select refresh from _runs_once)"
        source = f"select * from {reading}{committed}"
        con.execute(f"create view _files_{name} as {source}")
        # Columns a study's older files may lack (written before them): missing there.
        described = con.execute(f"select * from _files_{name} limit 0").description
        have = {column[0]: str(column[1]).upper() for column in described}
        lacking = [column for column in NEEDED[kind] if column not in have]
        # A column the views add themselves would be taken for theirs (a file's rank_
        # chose the latest versions, its refresh ordered them). (The view's columns are
        # its files', or the empty table's, which has none of these.)
        theirs = [column for column in OWN.get(kind, _OWN_ALL) if column in have]
        # A column of another type (text where a time belongs) would pass the queries
        # and fail as a frame, or be compared wrongly by a refresh: refused here.
        wrong = [column for column in NEEDED[kind] if not _fits(column, have.get(column))]
        if lacking or wrong or theirs:
            if lacking:
                what = f"no column {lacking[0]!r}"
            elif wrong:
                what = f"a column {wrong[0]!r} of type {have[wrong[0]]}"
            else:
                what = f"a column {theirs[0]!r} of their own"
            raise StudyError(
                f"{dataset.path}: the study's files cannot be read (its {kind} files have"
                f" {what}); a file a table's log names is not one socialframe wrote"
            )
        later = ADDED.get(kind, ())
        added = "".join(
            f", {ADDED_AS.get(column, 'null::varchar')} as {column}"
            for column in later
            if column not in have
        )
        # (files of both ages read together: the older ones' rows are null there)
        older = [
            f"coalesce({c}, {ADDED_AS[c]}) as {c}" for c in later if c in have and c in ADDED_AS
        ]
        replaced = f" replace ({', '.join(older)})" if older else ""
        con.execute(f"create view {name} as select *{replaced}{added} from _files_{name}")
        if kind == "runs":  # (a refresh's row is read once, however often it was written)
            con.execute("create view _runs_once as select distinct refresh from runs")
    if "comments" in kinds:
        _comment_views(con)
    if "ads" in kinds and "changes" in kinds:
        _ad_views(con)


def _comment_views(con: duckdb.DuckDBPyConnection) -> None:
    # One comment, two names: sent once with its permalink (its id) and once without (the
    # id derived from it, its content_id), a comment is one. Its name in the study
    # (ident_) is its id where any sighting had one, else the derived id.
    con.execute(
        """
        create view _comment_names as
        select v.*,
            coalesce(case when not v.id_derived then v.comment_id end, named.id, v.comment_id)
                as ident_
        from comment_versions v left join (
            select item, content_id, max(comment_id) as id from comment_versions
            where not id_derived and content_id in (
                select comment_id from comment_versions where id_derived
            ) group by item, content_id
        ) named on v.id_derived and named.item = v.item and named.content_id = v.comment_id
        """
    )
    con.execute(
        """
        create view comments as
        select * exclude (rank_, ident_, content_id) from (
            select *,
                min(seen_at) over ids as first_seen,
                max(seen_at) over ids as last_seen,
                row_number() over (partition by ident_ order by refresh desc, id_derived)
                    as rank_
            from _comment_names
            window ids as (partition by ident_)
        ) where rank_ = 1
        """
    )


def _ad_views(con: duckdb.DuckDBPyConnection) -> None:
    # An ad, like a comment, is one whether it came with its ad_archive_id or without.
    con.execute(
        """
        create view _ad_names as
        select v.*,
            coalesce(case when not v.id_derived then v.ad_archive_id end, named.id,
                v.ad_archive_id) as ident_
        from ad_versions v left join (
            select content_id, max(ad_archive_id) as id from ad_versions
            where not id_derived and content_id in (
                select ad_archive_id from ad_versions where id_derived
            ) group by content_id
        ) named on v.id_derived and named.content_id = v.ad_archive_id
        """
    )
    # An ad's life (see socialframe._study.searches): its state now, from its latest
    # sighting and the changes of its life that the refreshes proved.
    con.execute(
        """
        create view _ad_life as
        with names as (select distinct ad_archive_id, ident_ from _ad_names),
        life as (
            select n.ident_, c."at", c.change, c.refresh from changes c
            join names n on n.ad_archive_id = c.id
            where c.kind = 'ad' and c.change in ('new', 'missing', 'stopped', 'resumed')
        ),
        last as (
            select ident_, arg_max(change, "at") as last_change, max("at") as last_at,
                arg_max(refresh, "at") as last_refresh,
                max("at") filter (where change = 'stopped') as stopped_at
            from life group by ident_
        ),
        seen as (
            select ident_,
                max(seen_at) filter (where coalesce(is_active, true)) as running_seen,
                max(seen_at) filter (where is_active) as active_seen,
                arg_max(is_active, refresh) as latest_active,
                arg_max_null(end_date, refresh) as latest_end, max(seen_at) as latest_seen
            from _ad_names group by ident_
        )
        -- (a stop is undone by a later sighting with is_active true: a refresh writes
        -- "resumed" then; an older socialframe wrote nothing, and showed it running)
        select seen.ident_,
            case when last.last_change = 'stopped'
                      and coalesce(seen.active_seen <= last.last_at, true) then 'stopped'
                 when seen.latest_active = false then 'stopped'
                 -- (never an is_active: an end_date past says it, END_PAST)
                 when seen.latest_active is null and seen.latest_end
                      < seen.latest_seen - interval '{END_PAST_HOURS} hours' then 'stopped'
                 when last.last_change = 'missing'
                      and coalesce(seen.running_seen < last.last_at, true) then 'missing'
                 else 'running' end as state,
            last.last_at as missing_at, last.last_refresh as missing_refresh,
            last.stopped_at, seen.latest_active
        from seen left join last using (ident_)
        """.replace("{END_PAST_HOURS}", str(int(END_PAST.total_seconds() // 3600)))
    )
    con.execute(
        """
        create view ads as
        select * exclude (
            rank_, ident_, content_id, missing_at, missing_refresh, stopped_at, latest_active
        )
            replace (case when state = 'stopped' then false else is_active end as is_active)
        from (
            select v.*,
                min(v.seen_at) over ids as first_seen,
                max(v.seen_at) over ids as last_seen,
                row_number() over (partition by v.ident_ order by v.refresh desc, v.id_derived)
                    as rank_
            from _ad_names v
            window ids as (partition by v.ident_)
        ) latest join (
            select *, case when state = 'stopped' then stopped_at end as stopped_seen
            from _ad_life
        ) using (ident_)
        where rank_ = 1
        """
    )


def _no_glob(path: str) -> str:
    """``path`` as DuckDB's file readers take it literally: they read every name a
    ``*``, ``?`` or ``[`` in it matches (a study at ``s*`` would read ``sB``'s files
    too), and a class of one character matches just that character.

    Example:
        >>> _no_glob("/data/s*/comments/refresh=1/part-0.parquet")
        '/data/s[*]/comments/refresh=1/part-0.parquet'
    """
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def read_as(dataset: Dataset, frame: pd.DataFrame, dtypes: dict[str, Any]) -> pd.DataFrame:
    """:func:`typed`, for rows read from the study's files: a value its column's dtype
    cannot hold (a file socialframe did not write) is a StudyError naming the column."""
    failures = (ValueError, TypeError, OverflowError, ArithmeticError)
    try:
        return typed(frame, dtypes)
    except failures:
        pass
    for name in frame.columns:  # which column: said in the error
        try:
            typed(frame[[name]], dtypes)
        except failures as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise StudyError(
                f"{dataset.path}: the study's files cannot be read (column {name!r}:"
                f" {reason[:200]}); a file a table's log names is not one socialframe wrote"
            ) from None
    raise StudyError(f"{dataset.path}: the study's files cannot be read as the study's")


def _arrow_to_pandas(table: Any) -> pd.DataFrame:
    """A pyarrow Table as pandas: text as pandas' ``string`` (Arrow-backed, its buffers
    handed over), the rest as pyarrow makes it (lists as arrays, made lists by
    :func:`typed`); the table's buffers are released as each column is made."""
    import pyarrow as pa

    def mapped(kind: Any) -> Any:
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            return pd.StringDtype()
        if pa.types.is_boolean(kind):
            return pd.BooleanDtype()
        return None

    return table.to_pandas(types_mapper=mapped, self_destruct=True, split_blocks=True)


def typed(frame: pd.DataFrame, dtypes: dict[str, Any]) -> pd.DataFrame:
    """``frame`` (from DuckDB) with the study's dtypes: the frames' own, lists as lists."""
    out = frame.copy(deep=False)  # (each column typed is replaced, never written into)
    for name in out.columns:
        want = dtypes.get(name)
        column = out[name]
        if column.dtype == object:
            out[name] = column.map(lambda v: v.tolist() if hasattr(v, "tolist") else v)
        if want is None or str(want) == "object":
            continue
        if str(want).startswith("datetime64") and not isinstance(column.dtype, pd.DatetimeTZDtype):
            out[name] = pd.to_datetime(column, utc=True).astype(want)
        else:
            out[name] = out[name].astype(want)
    return out


def comment_dtypes() -> dict[str, Any]:
    return {**COMMENT_DTYPES, **SEEN, "first_seen": SEEN["seen_at"], "last_seen": SEEN["seen_at"]}


def ad_dtypes() -> dict[str, Any]:
    return {
        **AD_DTYPES,
        **SEEN,
        "first_seen": SEEN["seen_at"],
        "last_seen": SEEN["seen_at"],
        "state": "string",
        "stopped_seen": SEEN["seen_at"],
        "extra": "string",
    }
