"""Who comments, across posts, and how fast replies come: pure functions on comments frames.

Every function takes a comments frame (one post or many: a many-post fetch adds a
``post`` column, and ``post_urn`` tells the posts apart either way) and returns a
new frame; ``df.social`` is a thin shell over them. Result columns come from
:mod:`socialframe._schema`.

Shared rules:

- A post is its ``post_urn``. Per-post frames list the posts in the order they
  first appear (a many-post fetch's order) and start with ``post`` (the post as
  given, its first spelling) when the comments frame has that column. Comments
  without a ``post_urn`` form one post of their own, ``<NA>``, in
  :func:`post_summary` and :func:`response_times`; :func:`overlap` and
  :func:`overlap_matrix` leave them out (no post to share).
- An author is their ``author_id``, else their name (as ``df.social.authors``);
  comments with neither belong to no author.
- A reply belongs to the comment named by its ``parent_comment_id`` on the same
  post; replies whose parent is not in the frame (after ``max_pages`` or a
  filter) have no response time.
- Missing times are skipped, never guessed: they count as comments but have no
  hour, no first / last time and no response time.
"""

from __future__ import annotations

import warnings
from typing import Any, Final, Literal

import numpy as np
import pandas as pd

from .._checks import count, count_or_none
from .._schema import (
    AUTHOR_OVERLAP,
    POST_AS_GIVEN,
    POST_REPLY_TIMES,
    POST_SUMMARY,
    REPLY_TIMES,
    dtypes,
    summary_columns,
)
from .._time import check_zone

SUMMARY_COLUMNS = summary_columns(POST_SUMMARY)
OVERLAP_COLUMNS = summary_columns(AUTHOR_OVERLAP)
REPLY_COLUMNS = summary_columns(REPLY_TIMES)
POST_REPLY_COLUMNS = summary_columns(POST_REPLY_TIMES)
_ELAPSED = "timedelta64[us]"

Per = Literal["reply", "post"]


def _author_key(comments: pd.DataFrame) -> pd.Series:
    return comments["author_id"].fillna("name:" + comments["author_name"])


def _post_codes(comments: pd.DataFrame) -> np.ndarray[Any, np.dtype[np.intp]]:
    """Each row's post as its position in :func:`_posts` (a missing urn is a post too)."""
    codes, _ = pd.factorize(comments["post_urn"], use_na_sentinel=False)
    return np.asarray(codes, dtype=np.intp)


def _posts(comments: pd.DataFrame) -> pd.DataFrame:
    """One row per post (first appearance order): ``post`` (when present), ``post_urn``."""
    columns = [c for c in (POST_AS_GIVEN, "post_urn") if c in comments.columns]
    firsts = comments[columns].drop_duplicates("post_urn", keep="first")
    return firsts.reset_index(drop=True)


def _typed(frame: pd.DataFrame, contract: tuple[Any, ...]) -> pd.DataFrame:
    return frame.astype(dtypes(c for c in contract if not isinstance(c, str)))


def _replies(comments: pd.DataFrame) -> pd.DataFrame:
    """Every reply whose parent is on the same post in the frame, in frame order, with
    its post's code (``_post``) and its parent's time (``parent_at``)."""
    coded = comments.assign(_post=_post_codes(comments))
    is_reply = coded["parent_comment_id"].notna()
    parents = coded.loc[~is_reply, ["_post", "comment_id", "created_at"]]
    parents = parents.dropna(subset=["comment_id"]).drop_duplicates(["_post", "comment_id"])
    parents = parents.rename(columns={"comment_id": "parent_comment_id", "created_at": "parent_at"})
    columns = ["_post", "post_urn", "parent_comment_id", "comment_id", "created_at"]
    replies = coded.loc[is_reply, columns]
    return replies.merge(parents, on=["_post", "parent_comment_id"], how="inner", sort=False)


def _per_post(values: pd.Series, posts: int) -> pd.Series:
    """A Series indexed by post code, with every post (missing ones as NA)."""
    return values.reindex(pd.RangeIndex(posts))


# -- summary ------------------------------------------------------------------------------


def post_summary(comments: pd.DataFrame, *, tz: str = "UTC") -> pd.DataFrame:
    """One row per post: counts, authors, first / last comment, busiest hour, reply speed.

    See :meth:`socialframe._accessor.CommentsAccessor.summary` for the columns.
    """
    check_zone(tz)
    posts = _posts(comments)
    n = len(posts)
    coded = comments.assign(
        _post=_post_codes(comments),
        _author=_author_key(comments),
        _known=comments["author_type"].notna().astype("int64"),
        _org=(comments["author_type"] == "organization").fillna(False).astype("int64"),
    )
    grouped = coded.groupby("_post")
    known = grouped["_known"].sum()
    share = grouped["_org"].sum() / known.where(known > 0)
    out = posts.assign(
        comments=_per_post(grouped.size(), n).to_numpy(dtype="int64"),
        replies=_per_post(grouped["parent_comment_id"].count(), n).to_numpy(dtype="int64"),
        authors=_per_post(grouped["_author"].nunique(), n).to_numpy(dtype="int64"),
        organization_share=_per_post(share, n).to_numpy(dtype="float64", na_value=np.nan),
        first_comment_at=_per_post(grouped["created_at"].min(), n).array,
        last_comment_at=_per_post(grouped["created_at"].max(), n).array,
        busiest_hour=_per_post(_busiest_hours(coded, tz), n).array,
        median_first_reply=_per_post(_median_first_reply(comments), n).array,
    )
    columns = [POST_AS_GIVEN] * (POST_AS_GIVEN in posts.columns) + list(SUMMARY_COLUMNS)
    return _typed(out, POST_SUMMARY)[columns]


def _busiest_hours(coded: pd.DataFrame, tz: str) -> pd.Series:
    """Per post code, the local hour with most comments (the earliest of a tie); Int64."""
    dated = coded[coded["created_at"].notna()]
    hours = dated["created_at"].dt.tz_convert(tz).dt.hour.rename("_hour")
    table = dated.groupby(["_post", hours]).size().unstack(fill_value=0)
    if table.empty:
        return pd.Series(dtype="Int64")
    # idxmax takes the first maximum; the columns (hours) are sorted, so the earliest.
    return table.idxmax(axis=1).astype("Int64")


def _median_first_reply(comments: pd.DataFrame) -> pd.Series:
    """Per post code, the median over threads of the time to the thread's first reply."""
    replies = _replies(comments)
    delay = (replies["created_at"] - replies["parent_at"]).rename("_delay")
    timed = replies.assign(_delay=delay).dropna(subset=["_delay"])
    if timed.empty:
        return pd.Series(dtype=_ELAPSED)
    firsts = timed.groupby(["_post", "parent_comment_id"])["_delay"].min()
    return firsts.groupby(level="_post").median().astype(_ELAPSED)


# -- overlap ------------------------------------------------------------------------------


def _authored(comments: pd.DataFrame) -> pd.DataFrame:
    """The comments with a post and an author, with the author key in ``_author``."""
    keyed = comments.assign(_author=_author_key(comments))
    return keyed[keyed["_author"].notna() & keyed["post_urn"].notna()]


def overlap(comments: pd.DataFrame, min_posts: int = 2) -> pd.DataFrame:
    """Authors who commented on at least ``min_posts`` posts (columns :data:`OVERLAP_COLUMNS`).

    See :meth:`socialframe._accessor.CommentsAccessor.overlap`.
    """
    count("min_posts", min_posts, minimum=1)
    keyed = _authored(comments)
    pairs = keyed[["_author", "post_urn"]].drop_duplicates()
    posts = pairs.groupby("_author", sort=False).size()
    # Lists only for the authors kept: most authors of a large frame comment on one post.
    kept = keyed[keyed["_author"].isin(posts.index[posts >= min_posts])]
    ordered = kept.sort_values("created_at", kind="stable", na_position="first")
    grouped = ordered.groupby("_author", sort=False)
    latest = grouped.tail(1).set_index("_author")[["author_id", "author_name", "author_type"]]
    kept_pairs = pairs[pairs["_author"].isin(latest.index)].sort_values("post_urn")
    urns = kept_pairs.groupby("_author", sort=False)["post_urn"].agg(list).reindex(latest.index)
    out = latest.assign(
        posts=posts.reindex(latest.index).to_numpy(dtype="int64"),
        comments=grouped.size().reindex(latest.index).to_numpy(dtype="int64"),
        post_urns=pd.Series([list(u) for u in urns], index=latest.index, dtype=object),
    )
    out = out.sort_values(
        ["posts", "comments", "author_name", "author_id"],
        ascending=[False, False, True, True],
        kind="stable",
    )
    return _typed(out.reset_index(drop=True), AUTHOR_OVERLAP)[list(OVERLAP_COLUMNS)]


#: The posts :func:`overlap_matrix` keeps by default: 1,000 x 1,000 int64 cells are 8 MB,
#: 10,000 x 10,000 are 800 MB.
MAX_POSTS: Final = 1_000
#: Authors on at most this many posts count by pairs of their posts; the rest by a product.
_PAIRS_UP_TO: Final = 32
#: The work of one step: pairs of posts, or cells of an author x post block. Steps keep
#: the memory of the count to the matrix and a few arrays of this size.
_STEP: Final = 1 << 18
_MIB: Final = 1 << 20


def overlap_matrix(comments: pd.DataFrame, max_posts: int | None = MAX_POSTS) -> pd.DataFrame:
    """Post x post: how many distinct authors commented on both (diagonal: on that post).

    Over ``max_posts`` posts, the ``max_posts`` with the most distinct commenters
    (the earlier of a tie), in their order, with a warning saying how many were
    left out. See :meth:`socialframe._accessor.CommentsAccessor.overlap_matrix`.

    Raises:
        ValueError: ``max_posts`` is not an int >= 1 or None.
    """
    max_posts = count_or_none("max_posts", max_posts, minimum=1)
    matrix, total = shared_commenters(comments, max_posts)
    if len(matrix) < total:
        size = total * total * 8 / _MIB
        warnings.warn(
            f"overlap_matrix: the frame has {total:,} posts; the matrix keeps the "
            f"{len(matrix):,} with the most distinct commenters (max_posts={max_posts:,}) and "
            f"leaves {total - len(matrix):,} out. max_posts=None keeps them all: a "
            f"{total:,} x {total:,} matrix of {size:,.0f} MiB.",
            UserWarning,
            stacklevel=3,  # the caller of df.social.overlap_matrix
        )
    return matrix


def shared_commenters(comments: pd.DataFrame, max_posts: int | None) -> tuple[pd.DataFrame, int]:
    """:func:`overlap_matrix` without its warning: the matrix, and how many posts there are.

    The matrix of the posts kept is the same as that part of the whole one: a cell
    counts the authors of its two posts, whatever other posts they commented on.
    """
    posts = pd.Index(
        _posts(comments)["post_urn"].dropna().to_numpy(dtype=object), name="post_urn"
    ).astype("string")
    total = len(posts)
    # Two columns, not the frame: a copy of every column of 10,000 posts' comments is
    # what a count of authors needs least.
    authors = _author_key(comments)
    known = (authors.notna() & comments["post_urn"].notna()).to_numpy(dtype=bool)
    seen = pd.DataFrame(
        {
            "author": pd.factorize(authors[known])[0],
            "post": posts.get_indexer(comments["post_urn"][known]),
        }
    ).drop_duplicates()
    author = seen["author"].to_numpy(dtype=np.intp)
    post = seen["post"].to_numpy(dtype=np.intp)
    keep = np.arange(total)
    if max_posts is not None and total > max_posts:
        # Each post's distinct commenters (its diagonal), most first, the earlier of a tie.
        own = np.bincount(post, minlength=total)
        keep = np.sort(np.argsort(-own, kind="stable")[:max_posts])
        code = np.full(total, -1, dtype=np.intp)
        code[keep] = np.arange(len(keep))
        post = code[post]
        author, post = author[post >= 0], post[post >= 0]
    counts = _shared(author, post, len(keep))
    kept = posts[keep]
    return pd.DataFrame(counts, index=kept, columns=kept.copy(), copy=False), total


def _shared(
    author: np.ndarray[Any, np.dtype[np.intp]], post: np.ndarray[Any, np.dtype[np.intp]], n: int
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The n x n count of distinct authors per pair of posts, from distinct (author, post).

    Most authors comment on a few posts: every pair of their posts is counted
    (bincount). The few on many posts would make that posts squared per author
    (gigabytes when a hundred people comment on each of 1,000 posts): they are
    counted by an author x post product (BLAS). Both go in steps of about
    :data:`_STEP` pairs or cells, so the memory is the matrix and a few steps,
    however many comments there are.
    """
    order = np.lexsort((post, author))
    author, post = author[order], post[order]
    firsts = np.flatnonzero(np.diff(author, prepend=-1))  # each author's first row
    sizes = np.diff(np.append(firsts, len(author)))  # each author's posts
    few = np.repeat(sizes <= _PAIRS_UP_TO, sizes)
    shared = _pairs(post[few], sizes[sizes <= _PAIRS_UP_TO], n)
    many = sizes[sizes > _PAIRS_UP_TO]
    if len(many):
        product = np.empty((n, n))  # one block's, reused: no n x n array per block
        their_posts, ends = post[~few], np.cumsum(many)
        rows = max(1, _STEP // n)  # authors per block
        for first in range(0, len(many), rows):
            last = min(first + rows, len(many))
            begin = ends[first - 1] if first else 0
            block = np.zeros((last - first, n))
            block[
                np.repeat(np.arange(last - first), many[first:last]),
                their_posts[begin : ends[last - 1]],
            ] = 1
            np.matmul(block.T, block, out=product)
            # exact: sums of 0 and 1, far below 2**53
            np.add(shared, product, out=shared, casting="unsafe")
    return shared


def _pairs(
    post: np.ndarray[Any, np.dtype[np.intp]], sizes: np.ndarray[Any, np.dtype[np.intp]], n: int
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Every pair of posts of each author, counted into an n x n matrix.

    ``post`` holds each author's posts together, ``sizes`` how many each author has.
    """
    shared = np.zeros(n * n, dtype=np.int64)
    if len(post):
        per_row = np.repeat(sizes, sizes)  # the pairs of each row: its author's posts
        first = np.repeat(np.cumsum(sizes) - sizes, sizes)  # its author's first row
        work = np.cumsum(per_row)
        cuts = np.searchsorted(work, np.arange(_STEP, work[-1], _STEP), side="right")
        for begin, end in zip(np.r_[0, cuts], np.r_[cuts, len(post)], strict=True):
            k = per_row[begin:end]
            cells = post[np.repeat(np.arange(begin, end), k)] * n
            cells += post[np.repeat(first[begin:end], k) + _offsets(k)]
            if n * n <= 4 * _STEP:
                shared += np.bincount(cells, minlength=n * n)
            else:  # a large matrix: add to the cells this step touches only
                found, times = np.unique(cells, return_counts=True)
                shared[found] += times
    return shared.reshape(n, n)


def _offsets(sizes: np.ndarray[Any, np.dtype[np.intp]]) -> np.ndarray[Any, np.dtype[np.intp]]:
    """For groups of these sizes laid end to end: each element's place in its group."""
    places: np.ndarray[Any, np.dtype[np.intp]]
    places = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return places


# -- response times -----------------------------------------------------------------------


def response_times(comments: pd.DataFrame, *, per: Per = "reply") -> pd.DataFrame:
    """Time from each thread's top-level comment to each of its replies; or quantiles per post.

    See :meth:`socialframe._accessor.CommentsAccessor.response_times`.
    """
    if per not in ("reply", "post"):
        raise ValueError(f"per must be 'reply' or 'post', got {per!r}")
    posts = _posts(comments)
    replies = _replies(comments)
    replies = replies.assign(
        response_time=(replies["created_at"] - replies["parent_at"]).astype(_ELAPSED)
    )
    given = [POST_AS_GIVEN] * (POST_AS_GIVEN in posts.columns)
    if per == "post":
        out = pd.concat([posts, _quantiles(replies, len(posts))], axis=1)
        return _typed(out, POST_REPLY_TIMES)[[*given, *POST_REPLY_COLUMNS]]
    # Posts in order of appearance, threads in the order of their top-level comment
    # (the merge kept the replies in frame order), replies oldest first.
    threads = replies.groupby(["_post", "parent_comment_id"], sort=False).ngroup()
    ordered = (
        replies.assign(_thread=threads)
        .sort_values(["_post", "_thread", "created_at"], kind="stable", na_position="last")
        .reset_index(drop=True)
    )
    if given:
        ordered.insert(0, POST_AS_GIVEN, posts[POST_AS_GIVEN].take(ordered["_post"]).array)
    return _typed(ordered, REPLY_TIMES)[[*given, *REPLY_COLUMNS]]


def _quantiles(replies: pd.DataFrame, posts: int) -> pd.DataFrame:
    """Per post code (every post): threads, replies and the response-time quantiles."""
    timed = replies.dropna(subset=["response_time"])
    grouped = timed.groupby("_post")["response_time"]
    table = pd.DataFrame(
        {
            "threads": timed.groupby("_post")["parent_comment_id"].nunique(),
            "replies": grouped.size(),
            "p25": grouped.quantile(0.25),
            "median": grouped.median(),
            "p75": grouped.quantile(0.75),
            "p90": grouped.quantile(0.9),
            "max": grouped.max(),
        },
        columns=list(POST_REPLY_COLUMNS[1:]),
    ).reindex(pd.RangeIndex(posts))
    return table.fillna({"threads": 0, "replies": 0})
