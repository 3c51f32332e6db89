"""Pure: raw response dicts -> typed DataFrames. Never touches the network.

- :mod:`.values`: JSON values -> column values; columns -> a frame typed by the schema;
- :mod:`.comments`: comment pages -> one row per comment;
- :mod:`.ads`: ad search pages -> one row per distinct ad, then every other field;
- :mod:`.identity`: the id of a row the service sent without one, derived from it.

Both builders take an iterable of pages: raw response dicts as the service sent
them, or :class:`~socialframe._models.Page` objects (which add the page number,
the fetch time and the post / query). For raw dicts the page number is the
position in the iterable and ``fetched_at`` is missing. The columns, their
order and dtypes come from :mod:`socialframe._schema`, by name.
"""

from __future__ import annotations

from .ads import ads_frame, ads_with_content, untyped_ads_frame
from .comments import comments_frame, comments_with_content
from .values import retype_extras, strings

__all__ = [
    "ads_frame",
    "ads_with_content",
    "comments_frame",
    "comments_with_content",
    "retype_extras",
    "strings",
    "untyped_ads_frame",
]
