"""What a sandbox made with ``faults=True`` does to a monitor, as pure functions: the
truth a test or a bench checks a study against.

From the day after the reference date, deterministically by seed and by each ad's or
comment's id, a faulty world drops running ads from some answers (:func:`ad_dropped`),
pauses some ads for :data:`PAUSE_DAYS` days (:func:`ad_pause`, of
:func:`running_ads`), gives some ads new copy (:func:`ad_edit_day`), and edits or
deletes some comments (:func:`comment_edit_week`, :func:`comment_deleted_week`). The
whole story is in :mod:`socialframe.sandbox._faults`.

Example:
    >>> from socialframe.sandbox import faults
    >>> paused = [ad for ad in faults.running_ads("running shoes") if faults.ad_pause(0, ad)]
    >>> len(paused), faults.PAUSE_DAYS
    (3, 15)
"""

from __future__ import annotations

from ._ads import running_ads
from ._faults import (
    COMMENT_DELETE_PERCENT,
    COMMENT_EDIT_PERCENT,
    DROP_PERCENT,
    EDIT_PERCENT,
    EDITED_COMMENT,
    EDITED_COPY,
    PAUSE_DAYS,
    PAUSE_PERCENT,
    ad_dropped,
    ad_edit_day,
    ad_pause,
    comment_deleted_week,
    comment_edit_week,
)

__all__ = [
    "COMMENT_DELETE_PERCENT",
    "COMMENT_EDIT_PERCENT",
    "DROP_PERCENT",
    "EDITED_COMMENT",
    "EDITED_COPY",
    "EDIT_PERCENT",
    "PAUSE_DAYS",
    "PAUSE_PERCENT",
    "ad_dropped",
    "ad_edit_day",
    "ad_pause",
    "comment_deleted_week",
    "comment_edit_week",
    "running_ads",
]
