"""A tqdm.auto bar for multi-page fetches: pages so far and the running cost.

tqdm is imported only when a bar is really shown (tqdm.auto pulls in ipywidgets
in notebooks, which is not cheap).
"""

from __future__ import annotations

import sys
from typing import Any

from .._ledger import Ledger


def interactive() -> bool:
    """True in a Jupyter kernel or an interactive interpreter."""
    return "ipykernel" in sys.modules or hasattr(sys, "ps1") or bool(sys.flags.interactive)


class Progress:
    """Shown from the second page on, so single-page fetches stay quiet."""

    def __init__(
        self, enabled: bool, description: str, ledger: Ledger, *, unit: str = "page"
    ) -> None:
        self.enabled = enabled
        self.unit = unit
        self.description = description
        self.ledger = ledger
        self._bar: Any = None
        self._pages = 0
        self._start_spent = ledger.spent_usd
        self._start_pages = ledger.paid_calls + ledger.cached_calls

    def page(self, total: int | None = None) -> None:
        """One more page (or item) is in; ``total`` when known."""
        self._pages += 1
        if not self.enabled:
            return
        if self._bar is None and self._pages >= 2:
            from tqdm.auto import tqdm

            self._bar = tqdm(desc=self.description, unit=self.unit, total=total, initial=1)
        if self._bar is not None:
            if total is not None and self._bar.total != total:
                self._bar.total = total
            self._bar.update(self._pages - self._bar.n)
            # Pages and running cost, from the ledger: exact under any number of workers.
            cost = self.ledger.spent_usd - self._start_spent
            pages = self.ledger.paid_calls + self.ledger.cached_calls - self._start_pages
            self._bar.set_postfix_str(f"{pages} pages, ${cost:.2f}", refresh=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
