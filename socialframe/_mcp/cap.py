"""The server's spend cap: a call's worst case held against the ledger before it is sent.

The model asks; the server decides. A paid tool call first works out its worst case
(the pages its bound allows, less those the cache holds: :mod:`.calls`), then holds
that many calls' price in the server's :class:`~socialframe.Ledger`, the same budget
``Client(max_cost=)`` keeps and that never overspends under threads: its ``reserve``
checks and holds in one step under its lock. The holds of every call in flight count
against what is left, so concurrent calls can never together pass ``--max-cost``.

The call then runs with a ledger of its own whose budget is exactly what it held (its
pages are refused past it, even if a cached page it counted free has gone), and when
it ends, however it ends (done, failed, cancelled), what it really paid is recorded in
the server's ledger against its holds and the rest given back: the server's ledger
counts every paid call once, as the service charged it.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._ledger import PRICE_CENTS, Hold, Ledger, usd
from .._words import count

if TYPE_CHECKING:
    from collections.abc import Iterator


class Refused(Exception):  # noqa: N818 (a refusal is an answer, not an error of ours)
    """A call the cap refuses before anything is sent; the message says what is left and
    how to ask for less."""


@dataclass(frozen=True)
class Worst:
    """What one call may cost at most.

    Attributes:
        pages: Pages the call may pay for (its bound's pages less the cached ones).
        cached: Pages of its bound the cache holds (free).
        per_item: The pages its bound allows for one item (a post, a query).
        items: How many items it fetches.
        unit: The bound's name and its rows per page, to say how to ask for less
            (``("max_comments", 50)``).
    """

    pages: int
    cached: int
    per_item: int
    items: int
    unit: tuple[str, int]

    @property
    def cents(self) -> int:
        """The worst case in whole cents."""
        return self.pages * PRICE_CENTS


@dataclass
class Held:
    """One call's worst case, held in the server's ledger until :meth:`Cap.settle`."""

    holds: list[Hold]
    ledger: Ledger = field(default_factory=Ledger)  # the call's own, capped at its holds


class Cap:
    """The server's budget: ``--max-cost``, ``--max-call-cost``, ``--confirm-over``.

    Args:
        max_cost: USD the server may spend over its life (``None``: paid tools refuse
            every call that would send; ``0``: the cache only).
        max_call_cost: USD one call may spend at most (``None``: only ``max_cost``).
        confirm_over: A call whose worst case passes this many USD asks the human first.

    Example:
        >>> cap = Cap(max_cost=0.05)
        >>> held = cap.hold(Worst(pages=3, cached=0, per_item=3, items=1, unit=("max_ads", 26)))
        >>> cap.left_cents
        2
        >>> cap.settle(held)
        >>> cap.left_cents
        5
    """

    def __init__(
        self,
        max_cost: float | None,
        *,
        max_call_cost: float | None = None,
        confirm_over: float | None = None,
    ) -> None:
        from .._ledger import to_cents

        self.max_cost_cents = None if max_cost is None else to_cents(max_cost)
        self.max_call_cents = None if max_call_cost is None else to_cents(max_call_cost)
        self.confirm_cents = None if confirm_over is None else to_cents(confirm_over)
        self.ledger = Ledger(self.max_cost_cents)
        # Holding N calls is N reserves: one at a time, so that two calls each holding
        # part of what they need cannot both be refused where one would have fit.
        self._holding = threading.Lock()

    @property
    def left_cents(self) -> int:
        """Cents neither spent nor held by a call in flight (0 without ``--max-cost``)."""
        return self.ledger.calls_left or 0 if self.max_cost_cents is not None else 0

    def needs_confirmation(self, worst: Worst) -> bool:
        """Whether ``worst`` passes ``--confirm-over`` (and so asks the human)."""
        return self.confirm_cents is not None and worst.cents > self.confirm_cents

    def hold(self, worst: Worst) -> Held:
        """Hold ``worst`` against the budget, or refuse it before anything is sent.

        Raises:
            Refused: no ``--max-cost`` (and the call must pay), the call passes
                ``--max-call-cost``, or what is left (less the calls in flight).
        """
        if worst.pages and self.max_cost_cents is None:
            raise Refused(
                f"this call may cost up to {usd(worst.cents)} and the server was started"
                " without --max-cost, so it pays for nothing: restart it with"
                " --max-cost USD (0 answers from the cache only)"
            )
        if self.max_call_cents is not None and worst.cents > self.max_call_cents:
            less = self._less(worst, self.max_call_cents)
            raise Refused(
                f"this call may cost up to {usd(worst.cents)}, more than --max-call-cost"
                f" {usd(self.max_call_cents)}; nothing was sent. {less}"
            )
        holds: list[Hold] = []
        with self._holding:
            for _ in range(worst.pages):
                hold = self.ledger.reserve()
                if hold is None:
                    for given in holds:
                        self.ledger.release(given)
                    left = self.left_cents
                    raise Refused(
                        f"this call may cost up to {usd(worst.cents)} ({_pages(worst)}),"
                        f" and {usd(left)} is left of --max-cost"
                        f" {usd(self.max_cost_cents or 0)} (spent"
                        f" {usd(self.ledger.paid_calls * PRICE_CENTS)}, the rest held by"
                        f" calls in flight); nothing was sent. {self._less(worst, left)}"
                    )
                holds.append(hold)
        return Held(holds, Ledger(worst.cents))

    def settle(self, held: Held) -> None:
        """Record what the call paid (its own ledger's count) against its holds, and give
        back the rest. Safe to call once the call can send no more."""
        own = held.ledger
        outcomes = iter(
            ["unsure"] * own.unsure_calls + ["paid"] * (own.paid_calls - own.unsure_calls)
        )
        for hold in held.holds:
            outcome = next(outcomes, None)
            if outcome is None:
                self.ledger.release(hold)
            else:
                self.ledger.record(outcome, hold=hold)  # type: ignore[arg-type]
        for outcome in _rest(outcomes):  # (never: the call's ledger caps it at its holds)
            self.ledger.record(outcome)  # type: ignore[arg-type]
        for _ in range(own.cached_calls):
            self.ledger.record("cached")
        for _ in range(own.failed_calls):
            self.ledger.record("failed")
        held.holds = []

    def _less(self, worst: Worst, cents: int) -> str:
        """How to ask for a call that fits ``cents``."""
        name, rows = worst.unit
        pages = cents // PRICE_CENTS + worst.cached
        if worst.items > 1:
            per_item = pages // worst.items
        else:
            per_item = pages
        if per_item < 1:
            return (
                "Ask for less: nothing more can be paid; what the cache holds is free"
                " (the estimate tool says what a call would cost)."
            )
        return (
            f"Ask for less: {name}={per_item * rows} or fewer"
            + (f" per item over {worst.items} items" if worst.items > 1 else "")
            + ", or fewer items (the estimate tool says what a call would cost)."
        )


def _pages(worst: Worst) -> str:
    free = f", {worst.cached} more in the cache, free" if worst.cached else ""
    return f"{count(worst.pages, 'page')} at $0.01{free}"


def _rest(outcomes: Iterator[str]) -> list[str]:
    return list(outcomes)


def pages_for(rows: int, per_page: int) -> int:
    """The pages ``rows`` rows take at most ``per_page`` a page (at least one)."""
    return max(1, math.ceil(rows / per_page))
