"""How the command line speaks: every message one line on standard error, after the
program's name, with the run's API keys hidden and what a terminal would obey shown
escaped; warnings and requests-cache's log lines said the same way."""

from __future__ import annotations

import itertools
import logging
import os
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, Final

PROG: Final = "socialframe"

#: Keys shorter than this are not hidden in messages: no service issues one, and
#: hiding a few common characters would cut ordinary words apart (the floor the
#: library sets for secret header values, socialframe._http.auth.MIN_SECRET).
MIN_SECRET: Final = 8

#: The name of an environment variable (capitals, digits and _), as --key-env takes.
ENV_NAME: Final = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")

#: The key(s) of this run, never shown: set by :func:`hide_keys` from the environment.
_secrets: list[str] = []


def hide_keys(argv: Sequence[str]) -> None:
    """From now on, hide in every message the keys this run could use (see :func:`_keys`)."""
    _secrets[:] = _keys(argv)


def _keys(argv: Sequence[str]) -> list[str]:
    """The keys this run could use: ``SOCIALFRAME_API_KEY`` and the ``--key-env``
    variable's, longest first (so that a key inside another is hidden whole)."""
    names = {"SOCIALFRAME_API_KEY"}
    for token, following in itertools.pairwise([*argv, ""]):
        if token == "--key-env":
            names.add(following)
        elif token.startswith("--key-env="):
            names.add(token.partition("=")[2])
    values = {os.environ.get(n, "").strip() for n in names if ENV_NAME.fullmatch(n)}
    return sorted((v for v in values if len(v) >= MIN_SECRET), key=len, reverse=True)


def holds_key(text: str) -> bool:
    """Whether ``text`` holds one of the run's keys (whatever its case)."""
    return any(secret.lower() in text.lower() for secret in _secrets)


def printable(text: str) -> str:
    """``text`` with the bytes that were not UTF-8 as ``\\xff`` (never a raw surrogate),
    and control characters (escapes) as ``\\x1b``."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate of another origin
        text = text.encode("utf-8", "backslashreplace").decode("ascii", "replace")
    else:
        text = raw.decode("utf-8", "backslashreplace")
    # What a terminal would act on (escapes, a carriage return, a new line that would
    # forge a line of ours, text turned backwards), from a service's message, a stored
    # page, a lock's holder or a file's name, is shown, never obeyed.
    return _CONTROL.sub(_escaped, text)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


#: C0 and C1 controls (new lines too), and the marks that reorder text on screen.
_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """``text`` as it may be shown: each key of the run as ``***`` (whatever its case),
    bytes that were not UTF-8 escaped."""
    for secret in _secrets:
        text = re.sub(re.escape(secret), "***", text, flags=re.IGNORECASE)
    return printable(text)


def say(line: str) -> None:
    """One line to standard error, the run's keys hidden (every message goes through here).

    A terminal that hung up (SIGHUP) cannot be written: the line is lost, the run
    goes on to its exit code.
    """
    if sys.stderr is None:  # (pythonw, a service: print() would go to standard output)
        return
    with suppress(OSError, ValueError):  # (closed, or gone with the terminal)
        print(f"{PROG}: {shown(line)}", file=sys.stderr, flush=True)


def fail(code: int, message: str) -> int:
    """Say ``message`` as an error, on one line; return ``code`` (the exit code)."""
    say(f"error: {' '.join(message.split())}")
    return code


@contextmanager
def one_line_warnings() -> Iterator[None]:
    """Warnings (a page not stored, values that did not fit) as one line each."""

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        say(f"warning: {category.__name__}: {' '.join(str(message).split())}")

    class OneLine(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            say(f"warning: {' '.join(record.getMessage().split())}")

    # requests-cache logs what it cannot read (an entry another version wrote); Python
    # would print it bare, with no name in front.
    library = logging.getLogger("requests_cache")
    handler, propagated = OneLine(logging.WARNING), library.propagate
    library.addHandler(handler)
    library.propagate = False
    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            yield
    finally:
        library.removeHandler(handler)
        library.propagate = propagated
