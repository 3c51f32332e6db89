"""What the child processes the tests start need (not a test module)."""

from __future__ import annotations

import signal


def as_at_a_terminal() -> None:
    """A child's Ctrl-C and hang-up as a terminal gives them (``preexec_fn``): a test run
    started in the background (``&``, nohup) has them ignored, and a child inherits that,
    so a signal a test sends would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
