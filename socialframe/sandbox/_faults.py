"""What the real service does to a monitor, for a sandbox made with ``faults=True``.

Off by default: every other world answers as before. With it on, from the day after
the reference date (2026-01-01), deterministically by seed and by each ad's or
comment's id (pure functions: :func:`ad_dropped`, :func:`ad_pause`,
:func:`ad_edit_day`, :func:`comment_deleted_week`, :func:`comment_edit_week` say
what the world holds, so a bench can check a study against the truth):

Ads (operation A):

- **flaky paging**: on odd days (1, 3, 5, ... after the reference date), about
  :data:`DROP_PERCENT` % of the running ads are left out of every page that would show
  them, that day (so never two days running: a weekly refresh alternates odd and
  even days). A search by an advertiser's ``ad_page_id`` pages differently: its
  drops are drawn apart (:func:`ad_dropped` ``by_page``), and it lists the
  advertiser's ads of every text search the sandbox has answered (with its filters),
  as the real service lists an advertiser's ads whatever search found them;
- **pauses**: about :data:`PAUSE_PERCENT` % of the ads running at the reference date
  stop on a day between day 7 and day 41 and run again :data:`PAUSE_DAYS` days later.
  While paused they show ``is_active`` false and ``end_date`` the pause's first day in
  searches of every status, and are left out of searches of running ads (a search of
  stopped ads does not list them);
- **copy edits**: about :data:`EDIT_PERCENT` % of the ads get new copy on a day between 1
  and 56 (their body text, or their first card's for a dynamic ad), kept from then on;
- **noise on every answer** (no change of the ad): the landing URL's tracking
  parameters (``utm_content``, ``fbclid``) and fragment, the images' and videos' CDN
  host and signature query, and the order of a dynamic ad's cards differ with each
  request (its parameters and time).

Comments (operation B), of the comments the post had at the reference date:

- **edits**: about :data:`COMMENT_EDIT_PERCENT` % get a new text (and ``isEdited``
  true) from a week between 1 and 8;
- **deletions**: about :data:`COMMENT_DELETE_PERCENT` % are deleted from a week
  between 1 and 8: gone from every page, and from ``total`` (the pages close up).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

from ._common import REFERENCE_S, digest
from ._growth import day_of, day_start

DROP_PERCENT: Final = 4
PAUSE_PERCENT: Final = 3
PAUSE_DAYS: Final = 15
EDIT_PERCENT: Final = 3
COMMENT_EDIT_PERCENT: Final = 3
COMMENT_DELETE_PERCENT: Final = 2
#: What an edited ad's copy gains; an edited comment's text.
EDITED_COPY: Final = " Now with free shipping."
EDITED_COMMENT: Final = " (edited: a few words more)"


def _draw(*parts: object) -> int:
    return int(digest("fault", *parts)[:12], 16)


def ad_dropped(seed: int, ad_id: str, day: int, *, by_page: bool = False) -> bool:
    """Whether a running ad is left out of the answers of ``day`` (after the reference)
    to searches by text (``by_page``: to searches by its advertiser's page id, which
    page differently: drawn apart).

    Args:
        seed: The sandbox's seed.
        ad_id: The ad's ``ad_archive_id``.
        day: Whole days after the reference date (only odd days drop ads).
        by_page: For a search by the advertiser's ``ad_page_id``.

    Returns:
        True when that day's answers leave the ad out.

    Example:
        >>> ad_dropped(0, "4981752090746811", 1), ad_dropped(0, "4981752090746811", 2)
        (True, False)
    """
    kind = "drop-page" if by_page else "drop"
    return day > 0 and day % 2 == 1 and _draw(seed, kind, ad_id, day) % 100 < DROP_PERCENT


def ad_pause(seed: int, ad_id: str) -> tuple[int, int] | None:
    """The days ``[first, last + 1)`` an ad running at the reference date is paused, if
    it is one that pauses.

    Args:
        seed: The sandbox's seed.
        ad_id: The ad's ``ad_archive_id`` (one of :func:`running_ads`).

    Returns:
        ``(first, end)`` in days after the reference date, or None: it never pauses.

    Example:
        >>> ad_pause(0, "1580717947210727")
        (30, 45)
    """
    draw = _draw(seed, "pause", ad_id)
    if draw % 100 >= PAUSE_PERCENT:
        return None
    first = 7 + (draw // 100) % 35
    return first, first + PAUSE_DAYS


def ad_edit_day(seed: int, ad_id: str) -> int | None:
    """The day an ad gets new copy (:data:`EDITED_COPY` added to its text), if it is
    one that does.

    Args:
        seed: The sandbox's seed.
        ad_id: The ad's ``ad_archive_id``.

    Returns:
        Days after the reference date, or None: its copy never changes.

    Example:
        >>> ad_edit_day(0, "1620210363051354")
        15
    """
    draw = _draw(seed, "edit", ad_id)
    return None if draw % 100 >= EDIT_PERCENT else 1 + (draw // 100) % 56


@lru_cache(maxsize=65536)
def comment_edit_week(seed: int, permalink: str) -> int | None:
    """The week a comment of the reference world is edited in (:data:`EDITED_COMMENT`
    added to its text), if it is.

    Args:
        seed: The sandbox's seed.
        permalink: The comment's ``permalink``, as the service sends it.

    Returns:
        Whole weeks after the reference date (1 to 8), or None: never edited.

    Example:
        >>> from socialframe.sandbox import EXAMPLE_POSTS, comments_body
        >>> body = comments_body(EXAMPLE_POSTS[2345], "mostRecent")
        >>> [comment_edit_week(0, c["permalink"]) for c in body["data"][:6]]
        [None, None, None, None, None, None]
    """
    draw = _draw(seed, "comment-edit", permalink)
    return None if draw % 100 >= COMMENT_EDIT_PERCENT else 1 + (draw // 100) % 8


@lru_cache(maxsize=65536)
def comment_deleted_week(seed: int, permalink: str) -> int | None:
    """The week a comment of the reference world is deleted in, if it is: from then
    on it is gone from every page and from ``total``.

    Args:
        seed: The sandbox's seed.
        permalink: The comment's ``permalink``, as the service sends it.

    Returns:
        Whole weeks after the reference date (1 to 8), or None: never deleted.

    Example:
        >>> from socialframe.sandbox import EXAMPLE_POSTS, comments_body
        >>> body = comments_body(EXAMPLE_POSTS[2345], "mostRecent")
        >>> weeks = [comment_deleted_week(0, c["permalink"]) for c in body["data"]]
        >>> sorted(week for week in weeks if week is not None)
        [1, 2]
    """
    draw = _draw(seed, "comment-delete", permalink)
    return None if draw % 100 >= COMMENT_DELETE_PERCENT else 1 + (draw // 100) % 8


def ads(
    groups: list[list[dict[str, Any]]],
    *,
    seed: int,
    at_ms: int,
    active_status: str,
    base_running: frozenset[str],
    call: str,
    by_page: bool = False,
) -> list[list[dict[str, Any]]]:
    """One page's ad groups as the faulty service sends them (see the module).

    Args:
        groups: The page's groups (fresh copies: changed in place).
        seed: The sandbox's seed.
        at_ms: When, in Unix milliseconds.
        active_status: The search's ``activeStatus``.
        base_running: The ids of the ads running at the reference date (those pause).
        call: What tells this request from another (its parameters): the noise's seed.
        by_page: Whether the search is by an advertiser's page id (its drops are drawn
            apart from the text searches').
    """
    day = day_of(at_ms)
    if day <= 0:
        return groups
    kept_groups = []
    for group in groups:
        kept = []
        for index, ad in enumerate(group):
            aid = str(ad.get("ad_archive_id") or ad.get("collation_id"))
            running = bool(ad.get("is_active"))
            pause = ad_pause(seed, aid) if aid in base_running else None
            if running and pause is not None and pause[0] <= day < pause[1]:
                if active_status == "Active":
                    continue
                ad["is_active"] = False
                ad["end_date"] = day_start(pause[0])
                running = False
            if running and ad_dropped(seed, aid, day, by_page=by_page):
                continue
            edit = ad_edit_day(seed, aid)
            if edit is not None and day >= edit:
                _edit_copy(ad)
            _noise(ad, f"{seed}|{call}|{at_ms}|{index}")
            kept.append(ad)
        if kept:
            kept_groups.append(kept)
    return kept_groups


def _edit_copy(ad: dict[str, Any]) -> None:
    snap = ad.get("snapshot")
    if not isinstance(snap, dict):
        return
    body = snap.get("body")
    text = body.get("text") if isinstance(body, dict) else None
    cards = snap.get("cards")
    if isinstance(text, str) and "{{" in text and isinstance(cards, list) and cards:
        cards[0] = {**cards[0], "body": f"{cards[0].get('body') or ''}{EDITED_COPY}"}
    elif isinstance(body, dict):
        body["text"] = f"{text or ''}{EDITED_COPY}"


def _noise(ad: dict[str, Any], call: str) -> None:
    """What differs on every answer for the same ad."""
    token = digest("noise", call)[:10]
    snap = ad.get("snapshot")
    if not isinstance(snap, dict):
        return
    if isinstance(snap.get("link_url"), str):
        snap["link_url"] = _tracked(snap["link_url"], token)
    host = f"https://scontent-{int(token[:2], 16) % 9 + 1}.cdn.example.net/"
    for key in ("images", "videos", "cards"):
        for media in snap.get(key) or []:
            if not isinstance(media, dict):
                continue
            for name, value in list(media.items()):
                if isinstance(value, str) and value.startswith("https://scontent."):
                    path = value.split("/", 3)[3]
                    media[name] = f"{host}{path}?_nc_sig={token}&oe={token[:8]}"
                elif name == "link_url" and isinstance(value, str):
                    media[name] = _tracked(value, token)
    cards = snap.get("cards")
    body = snap.get("body")
    text = body.get("text") if isinstance(body, dict) else None
    if isinstance(cards, list) and len(cards) > 1 and isinstance(text, str) and "{{" in text:
        turn = int(token[2:4], 16) % len(cards)
        snap["cards"] = cards[turn:] + cards[:turn]


def _tracked(link: str, token: str) -> str:
    joiner = "&" if "?" in link else "?"
    return f"{link}{joiner}utm_content={token}&fbclid=IwAR{token}#ref-{token[:4]}"


def week_of(at_ms: int) -> int:
    """The week after the reference date ``at_ms`` falls in (0: the first)."""
    return (at_ms // 1000 - REFERENCE_S) // (7 * 86_400)


def call_of(params: Mapping[str, str]) -> str:
    """What tells one request from another: its parameters."""
    return json.dumps(sorted(params.items()))


def comments_kept(items: tuple[Any, ...], *, seed: int, at_ms: int) -> tuple[Any, ...]:
    """A post's comments (as ordered) without those deleted by ``at_ms``."""
    week = week_of(at_ms)
    if at_ms // 1000 < REFERENCE_S or week < 1:
        return items
    return tuple(
        item
        for item in items
        if not isinstance(item, dict)
        or (deleted := comment_deleted_week(seed, str(item.get("permalink")))) is None
        or deleted > week
    )


def comment_as_of(comment: dict[str, Any], *, seed: int, at_ms: int) -> dict[str, Any]:
    """A comment of the reference world as of ``at_ms``: with its new text once edited."""
    week = week_of(at_ms)
    if at_ms // 1000 < REFERENCE_S or week < 1:
        return comment
    edited = comment_edit_week(seed, str(comment.get("permalink")))
    if edited is None or edited > week:
        return comment
    return {**comment, "text": f"{comment.get('text') or ''}{EDITED_COMMENT}", "isEdited": True}
