"""The exit codes: their numbers, what each means (the help's epilog), and the two
exceptions a command raises to end with one (:class:`Usage`, :class:`NoKey`)."""

from __future__ import annotations

from typing import Final

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2
EXIT_BUDGET: Final = 3
EXIT_AUTH: Final = 4
EXIT_FAILED: Final = 5
EXIT_INTERRUPTED: Final = 130
EXIT_HANGUP: Final = 128 + 1  # SIGHUP
EXIT_TERMINATED: Final = 128 + 15  # SIGTERM

EXIT_CODES: Final = f"""\
exit codes:
  {EXIT_OK}  done
  1  an unexpected error (a bug: please report it)
  {EXIT_USAGE}  bad arguments or settings; nothing was fetched or paid
  {EXIT_BUDGET}  stopped by --max-cost; the rows fetched before the stop are written
  {EXIT_AUTH}  no API key, or the service refused it
  {EXIT_FAILED}  the service, the network, the output or the study failed; what was fetched is kept
  {EXIT_HANGUP}  the terminal hung up (SIGHUP; not under nohup): stopped as by Ctrl-C
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C): no new call starts; the pages paid are in the cache
  {EXIT_TERMINATED}  stopped by SIGTERM (timeout, docker stop, systemd), as by Ctrl-C
"""

CACHE_EXIT_CODES: Final = f"""\
exit codes:
  {EXIT_OK}  done
  1  an unexpected error (a bug: please report it)
  {EXIT_USAGE}  bad arguments, an unusable cache, or clear without --yes and no terminal
  {EXIT_FAILED}  the cache failed (a team cache that stopped answering)
"""


class Usage(Exception):
    """A bad argument or setting found before anything was fetched (exit 2)."""


class NoKey(Exception):
    """No API key where one is needed (exit 4)."""
