"""The command line's run: parse, hand the arguments to their command, and turn
whatever happens into one line on standard error and an exit code.

Data goes to standard output or the ``-o`` file; progress (on a terminal only),
the ledger and every message go to standard error, one line each, never a
traceback. The exit code says what happened (see :data:`.exits.EXIT_CODES`).
SIGTERM and SIGHUP stop a run as Ctrl-C does.

The commands are apart: :mod:`.collect` (``comments``, ``ads``), :mod:`.cache`
(``cache``), :mod:`.sandbox` (``demo``, ``sandbox``); the parser in :mod:`.parser`,
the exit codes in :mod:`.exits`, how messages are said in :mod:`.messages`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from .cache import cache
from .collect import ads, comments
from .exits import EXIT_AUTH, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, NoKey, Usage
from .mcp import mcp
from .messages import fail, hide_keys, one_line_warnings
from .parser import parse_args
from .report import report
from .sandbox import demo, sandbox
from .study import study

#: Each command's function: its arguments in, its exit code out.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "comments": comments,
    "ads": ads,
    "cache": cache,
    "demo": demo,
    "sandbox": sandbox,
    "study": study,
    "report": report,
    "mcp": mcp,
}


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the run stops as on Ctrl-C (exit 128 + the signal).

    A KeyboardInterrupt, so that everything that stops a run on Ctrl-C (no new
    call, the calls in flight finished and stored, the ledger printed, a file
    half-written removed) does the same.
    """

    def __init__(self, number: int) -> None:
        self.number = number
        self.name = signal.Signals(number).name
        super().__init__(self.name)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``socialframe`` console script (and ``python -m socialframe``).

    Args:
        argv: The arguments (``sys.argv[1:]`` when ``None``).

    Returns:
        The exit code (see ``socialframe --help``).

    Example:
        >>> main(["cache", "clear", "--yes", "--cache", "/nonexistent/x.sqlite"])
        0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    hide_keys(argv)
    with _stop_on_signals():
        try:
            return _run(argv)
        except KeyboardInterrupt as exc:
            if isinstance(exc, Stopped):
                return fail(
                    128 + exc.number,
                    f"stopped by {exc.name}: no new call was started;"
                    " the pages paid so far are in the cache",
                )
            return fail(EXIT_INTERRUPTED, "interrupted; the pages paid so far are in the cache")


@contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Stopped`, as Ctrl-C raises KeyboardInterrupt.

    Their default is to end the process on the spot: no ledger, a temporary file
    left behind, and the calls in flight paid but never stored (paid again by the
    next run). One such signal stops the run; more while it winds down are let
    pass, since the sender's next step is SIGKILL anyway. A signal ignored when
    the run began (``nohup`` ignores SIGHUP) stays ignored. Only the main thread
    can set handlers: elsewhere (main() called from a thread) nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = False

    def stop(number: int, frame: object) -> None:
        nonlocal stopping
        if stopping:
            return
        stopping = True
        raise Stopped(number)

    numbers = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    previous = {
        number: signal.signal(number, stop)
        for number in numbers
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        stopping = True  # (one arriving while the handlers are put back is let pass)
        for number, handler in previous.items():
            signal.signal(number, handler)


def _run(argv: list[str]) -> int:
    """Parse ``argv`` and run its command; every failure but an interrupt as an exit code."""
    args = parse_args(argv)
    command = COMMANDS[args.command]
    with one_line_warnings():
        try:
            return command(args)
        except (Usage, ValueError, TypeError) as exc:
            return fail(EXIT_USAGE, str(exc))
        except NoKey as exc:
            return fail(EXIT_AUTH, str(exc))
        except BrokenPipeError:
            # The reader left (`| head`): not an error of ours. Point stdout at nothing
            # so that Python's own flush at exit does not complain again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return EXIT_OK
        except Exception as exc:
            from .._errors import ConfigError, SocialFrameError

            if isinstance(exc, ConfigError):
                return fail(EXIT_USAGE, str(exc))
            if isinstance(exc, SocialFrameError | OSError):
                return fail(EXIT_FAILED, f"{type(exc).__name__}: {exc}")
            return fail(1, f"unexpected {type(exc).__name__}: {exc} (a bug: please report it)")
