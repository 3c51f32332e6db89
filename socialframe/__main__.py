"""``python -m socialframe``: the command line (see :mod:`socialframe._cli.main`)."""

from __future__ import annotations

from ._cli.main import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
