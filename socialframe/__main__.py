"""``python -m socialframe`` and the ``socialframe`` console script: the command line
(see :mod:`socialframe._cli.main`).

:func:`main` runs it in any process (a test, a script of yours); :func:`script` is the
process's own start, which leaves out the backends of requests-cache socialframe never
uses (:mod:`socialframe._cache.backends`: a faster start where boto3 or redis is
installed) before anything imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

__all__ = ["main", "script"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (``sys.argv[1:]`` when None).

    Returns:
        The exit code (see ``socialframe --help``).
    """
    from ._cli.main import main as run

    return run(argv)


def script() -> NoReturn:
    """The console script's entry: a process of socialframe's own, ended with the code."""
    from ._cache.backends import leave_out_unused

    leave_out_unused()
    raise SystemExit(main())


if __name__ == "__main__":
    script()
