"""Progress of multi-page fetches: pages so far and the running cost.

In a terminal, a tqdm bar. In a notebook, one line of text updated in place, which
stays as a line of what was done ("comments 7384…: 47 pages, $0.47"): not a progress
widget, whose finished bars (and "5/?" stubs where the total is unknown) would stay
in the output, and which a saved notebook cannot show without its kernel.

tqdm (and IPython's display) are imported only when something is really shown.
"""

from __future__ import annotations

import html
import sys
from typing import Any

from .. import _words as words
from .._ledger import Ledger


def interactive() -> bool:
    """True in a Jupyter kernel or an interactive interpreter (not merely where a library
    imported ipykernel: ipywidgets and anywidget do)."""
    return _in_a_notebook() or hasattr(sys, "ps1") or bool(sys.flags.interactive)


def ipython_shell() -> Any:
    """The running IPython shell, or None (IPython is not imported for it: only a
    process where it already runs has one)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def _in_a_notebook() -> bool:
    """Whether output goes to a Jupyter front end (a kernel's shell, not a terminal's)."""
    return type(ipython_shell()).__name__ == "ZMQInteractiveShell"


class _Line:
    """One line of output, updated in place (IPython's display with an id)."""

    def __init__(self) -> None:
        from IPython.display import display

        self._handle = display(self._bundle(""), raw=True, display_id=True)  # type: ignore[no-untyped-call]
        self.n = 0

    @staticmethod
    def _bundle(text: str) -> dict[str, str]:
        return {
            "text/plain": text,
            "text/html": f"<span class='socialframe-progress'>{html.escape(text)}</span>",
        }

    def show(self, text: str) -> None:
        if self._handle is not None:
            self._handle.update(self._bundle(text), raw=True)


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
        self._line: _Line | None = None
        self._total: int | None = None
        self._pages = 0
        self._start_spent = ledger.spent_usd
        self._start_pages = ledger.paid_calls + ledger.cached_calls

    def page(self, total: int | None = None) -> None:
        """One more page (or item) is in; ``total`` when known."""
        self._pages += 1
        if not self.enabled:
            return
        if self._line is None and self._bar is None and self._pages >= 2:
            if _in_a_notebook():
                self._line = _Line()
            else:
                from tqdm import tqdm

                self._bar = tqdm(desc=self.description, unit=self.unit, total=total, initial=1)
        if self._line is not None:
            self._total = total if total is not None else self._total
            self._line.show(self._text(done=False))
        if self._bar is not None:
            if total is not None and self._bar.total != total:
                self._bar.total = total
            self._bar.update(self._pages - self._bar.n)
            # Pages and running cost, from the ledger: exact under any number of workers.
            cost = self.ledger.spent_usd - self._start_spent
            pages = self.ledger.paid_calls + self.ledger.cached_calls - self._start_pages
            self._bar.set_postfix_str(f"{words.count(pages, 'page')}, ${cost:.2f}", refresh=True)

    def _text(self, *, done: bool) -> str:
        """``comments 7384…: 3 of 47 pages, $0.03 …`` (done: ``47 pages, $0.47``)."""
        cost = self.ledger.spent_usd - self._start_spent
        calls = self.ledger.paid_calls + self.ledger.cached_calls - self._start_pages
        units = (
            f"{self._pages:,}" if done or not self._total else f"{self._pages:,} of {self._total:,}"
        )
        what = words.noun(self._pages if done or not self._total else self._total, self.unit)
        tail = "" if done else " …"
        calls_note = "" if calls == self._pages else f" in {words.count(calls, 'call')}"
        return f"{self.description}: {units} {what}{calls_note}, ${cost:.2f}{tail}"

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._line is not None:  # what was done, in one line
            self._line.show(self._text(done=True))
            self._line = None
