"""When things happen after the reference date: the weekly rates and each arrival's time.

The sandbox's world is a pure function of ``(seed, now)``. At the reference date
(``REFERENCE``, 2026-01-01T00:00Z) it is the world its docs describe; after it,
week ``w`` (``w = 0, 1, ...``, the 7 days after ``REFERENCE + w weeks``) brings:

* to a post with ``t`` comments at the reference date, ``COMMENT_GROWTH[t].per_week``
  comments, of which ``old_thread_replies`` reply to threads older than the week
  and the rest start new threads. Their times: the week is cut in as many equal
  slots, one comment inside each (never within the slot's first or last tenth);
* to an ad search, ``AD_GROWTH[count]`` (``PAGE_AD_GROWTH`` for an ``ad_page_id``)
  by its ad count at the reference date: ads that start, and running ads that
  stop, each at 00:00 UTC of one of the week's days ``7w+1 .. 7w+7``.

Only *when* lives here (the same for every seed, so counts never depend on the
seed); *what* arrives (texts, authors, which thread a reply joins, which ads stop)
is drawn by :mod:`._comments` and :mod:`._ads` from the seed.

An item dated after ``now`` does not exist yet; before the reference date the
world is today's world with everything dated after ``now`` taken out.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from typing import NamedTuple

from ._common import DAY_S, REFERENCE_MS, REFERENCE_S, WEEK_MS, rng_for


class CommentGrowth(NamedTuple):
    """What every week after the reference date brings to a post.

    Attributes:
        per_week: Comments that arrive each week, replies included.
        old_thread_replies: How many of them reply to threads older than the week
            (they sit with their thread, so ``mostRecent`` shows them on a later
            page); the others start new threads (newest first in ``mostRecent``).

    Example:
        >>> COMMENT_GROWTH[2345]
        CommentGrowth(per_week=72, old_thread_replies=12)
    """

    per_week: int
    old_thread_replies: int


COMMENT_GROWTH: dict[int, CommentGrowth] = {
    82: CommentGrowth(0, 0),  # never: the README's and most examples' post stays as it is
    0: CommentGrowth(2, 0),  # (no thread to reply to in its first week)
    1: CommentGrowth(3, 1),
    50: CommentGrowth(3, 1),  # one page at the reference date, two a week later
    51: CommentGrowth(4, 1),
    2345: CommentGrowth(72, 12),  # 60 new threads a week: more than a page of them
    7: CommentGrowth(1, 0),
    120: CommentGrowth(6, 2),
}
"""Weekly growth of a post, by its comment total at the reference date (its
``TOTALS`` class: ``int(post) % 8``)."""


class AdGrowth(NamedTuple):
    """What every week after the reference date brings to an ad search.

    Attributes:
        started: Ads that start running (each a collation group of one ad,
            after the search's other ads in its answers).
        stopped: Running ads that stop (``is_active`` false, ``end_date`` the day
            they stopped), among those running at the week's start. Exact from the
            second week on; in the first, as long as the search had that many
            running (single-ad groups or groups small enough to make the count),
            which holds for every ``EXAMPLE_QUERIES`` search.

    Example:
        >>> AD_GROWTH[130], PAGE_AD_GROWTH[2]
        (AdGrowth(started=6, stopped=3), AdGrowth(started=0, stopped=0))
    """

    started: int
    stopped: int


AD_GROWTH: dict[int, AdGrowth] = {
    3: AdGrowth(0, 0),  # never ("typewriter ribbon")
    26: AdGrowth(2, 1),
    40: AdGrowth(3, 1),
    75: AdGrowth(4, 2),
    130: AdGrowth(6, 3),
}
"""Weekly growth of a ``query`` search, by its ad count at the reference date
(before filters: ``ads_total(query)``; ``country`` keeps about 2/3 of the new ads too)."""

PAGE_AD_GROWTH: dict[int, AdGrowth] = {
    2: AdGrowth(0, 0),  # never
    3: AdGrowth(1, 0),
    5: AdGrowth(1, 1),
    8: AdGrowth(2, 1),
    13: AdGrowth(2, 1),
}
"""Weekly growth of an ``ad_page_id`` search (one advertiser), by its ad count at
the reference date."""


# -- comments ----------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def arrival_times(post_id: str, week: int, per_week: int) -> tuple[int, ...]:
    """Return the times (Unix ms, ascending) of a post's comments in one week.

    Args:
        post_id: The post id.
        week: The week after the reference date, from 0.
        per_week: How many arrive in it.

    Returns:
        ``per_week`` times, one inside each equal slot of the week.
    """
    rng = rng_for("arrivals", post_id, week)
    start = REFERENCE_MS + week * WEEK_MS
    # The middle 80% of each slot: nothing lands on a week's edge, so a clock that
    # drifts a few minutes past the reference date (a ManualClock slept on) still
    # shows the reference world.
    return tuple(
        start + int((i + 0.1 + 0.8 * rng.random()) * WEEK_MS / per_week) for i in range(per_week)
    )


def comment_position(post_id: str, per_week: int, at_ms: int) -> tuple[int, int]:
    """Return how far a post's growth has come at ``at_ms`` (on or after the reference).

    Args:
        post_id: The post id.
        per_week: Its weekly comments.
        at_ms: The time, Unix ms, not before the reference date.

    Returns:
        ``(weeks, arrived)``: the whole weeks past, and how many of the current
        week's comments have arrived; the post has ``weeks * per_week + arrived``
        comments more than at the reference date.
    """
    weeks, _ = divmod(at_ms - REFERENCE_MS, WEEK_MS)
    if not per_week:
        return weeks, 0
    return weeks, bisect_right(arrival_times(post_id, weeks, per_week), at_ms)


# -- ads ---------------------------------------------------------------------------------------


def day_of(at_ms: int) -> int:
    """Return the day after the reference date that ``at_ms`` falls in (0 on it)."""
    return (at_ms // 1000 - REFERENCE_S) // DAY_S


def day_start(day: int) -> int:
    """Return 00:00 UTC of a day after the reference date, in Unix seconds."""
    return REFERENCE_S + day * DAY_S


@lru_cache(maxsize=4096)
def ad_days(key: str, kind: str, week: int, count: int) -> tuple[int, ...]:
    """Return the days (ascending) on which a search's ads start or stop in one week.

    Args:
        key: The search (``"q:<query>"`` or ``"p:<page id>"``).
        kind: ``"start"`` or ``"stop"``.
        week: The week after the reference date, from 0.
        count: How many.

    Returns:
        ``count`` days after the reference date, each within ``7w+1 .. 7w+7``.
    """
    rng = rng_for("ad-days", kind, key, week)
    return tuple(sorted(7 * week + 1 + int(rng.random() * 7) for _ in range(count)))


def ads_started(key: str, started: int, day: int) -> int:
    """Return how many ads a search has started after the reference date, by ``day``.

    Args:
        key: The search.
        started: Its ads started per week.
        day: The day after the reference date (0 or more).

    Returns:
        The count: ``started`` a week, each counted from its day on.
    """
    if not started:
        return 0
    weeks, _ = divmod(day, 7)
    # Week `weeks` starts on day 7*weeks+1, so on its first day nothing of it is out yet.
    return weeks * started + bisect_right(ad_days(key, "start", weeks, started), day)
