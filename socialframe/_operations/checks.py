"""Checks the operations share: ids of digits, text that can be sent.

Everything here runs before any request: a bad argument is a ``ValueError``
(or ``TypeError``) that costs nothing.
"""

from __future__ import annotations

import re
from typing import Final

#: The most digits an id may have. The service's post ids have 19 today (64-bit
#: numbers, see SERVICE-NOTES); 20 leaves a little room (the most an unsigned
#: 64-bit number has). A longer run of digits is refused, never cut: a cut id
#: names another post, and that one would be paid for.
MAX_ID_DIGITS: Final = 20
#: Ids are ASCII digits.
DIGITS: Final = re.compile(r"[0-9]+", re.ASCII)


def too_long(digits: str, what: str) -> str | None:
    """Why an id of ``digits`` is refused (more than :data:`MAX_ID_DIGITS`), or None."""
    if len(digits) <= MAX_ID_DIGITS:
        return None
    return (
        f"{what} has {len(digits):,} digits: ids have 19 (at most {MAX_ID_DIGITS} are"
        " taken); a longer one is refused, never cut to another id"
    )


def is_sendable_text(text: str) -> bool:
    """Whether ``text`` can be sent as UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
