"""What a client paid, what the cache saved, and the budget guard.

Counts are taken where a request really goes out (see ``transport``): a sent
call that succeeded is paid, one answered from the cache is saved, a failed one
is counted but free. Money is kept in whole cents so that ``max_cost=0.03``
means exactly three calls.

One answer cannot always be told: a body cut short on the way before it said
whether it succeeded (see ``socialframe._http.charges``), or no answer within the
deadline to a request that was sent. Such a call is
*unsure*: counted as paid (the budget must count it, and the service charges most
such answers) and counted apart as well, so the ledger says what it knows: the
service charged between ``paid_calls - unsure_calls`` and ``paid_calls`` calls.
"""

from __future__ import annotations

import html
import numbers
import os
import threading
import time
import weakref
from dataclasses import dataclass
from decimal import Decimal, DecimalException
from typing import Final, Literal

from . import _words as words
from ._errors import BudgetExceededError

PRICE_CENTS: Final = 1  # 0.01 USD per successful call

Outcome = Literal["paid", "cached", "failed", "unsure"]
"""Where a call went: sent and charged, answered from the cache, sent and failed, or
sent with an answer that broke before it said which (paid, as far as anyone knows)."""


def usd(cents: int) -> str:
    """Whole cents as dollars, exactly: ``usd(1234)`` is ``"$12.34"`` (no float rounding)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"


@dataclass(frozen=True)
class Money:
    """An amount of USD as it was given (``max_cost``), exact: the one type a budget
    travels as, from ``Client(max_cost=)`` to the ledger that keeps it.

    Attributes:
        usd: The amount, exactly as given (``0.03`` is 3 cents, not 3.0000000000000004).

    Example:
        >>> budget = Money.of(0.015)
        >>> budget.cents, budget.shown  # a fraction of a cent buys no call
        (1, 0.015)
    """

    usd: Decimal

    @classmethod
    def of(cls, amount: float | int | str | Decimal) -> Money:
        """``amount`` of USD, checked.

        Raises:
            TypeError: a bool.
            ValueError: not a finite amount >= 0.
        """
        if isinstance(amount, bool):
            raise TypeError("max_cost must be a number of USD")
        # (text is not repeated: it could be anything pasted, the key included)
        shown = "text" if isinstance(amount, str) else repr(amount)[:40]
        try:
            usd = Decimal(str(amount))
            cents = usd * 100
        except DecimalException:  # not a number, or one past Decimal's exponents ("1e999999")
            raise ValueError(f"max_cost must be a finite number of USD, got {shown}") from None
        if not cents.is_finite() or cents < 0:
            raise ValueError(f"max_cost must be a finite amount >= 0, got {shown}")
        return cls(usd)

    @classmethod
    def from_cents(cls, cents: int) -> Money:
        """Whole ``cents`` as an amount of USD."""
        return cls(Decimal(cents).scaleb(-2))

    @property
    def cents(self) -> int:
        """The amount in whole cents, down (a fraction of a cent buys no call)."""
        return int(self.usd * 100)  # (and -0 is 0)

    @property
    def shown(self) -> float:
        """The amount as it is shown back (``client.max_cost``, errors): a float."""
        return abs(float(self.usd))  # (inf past a float's range)


def to_cents(usd: float | int | str | Decimal) -> int:
    """USD amount -> whole cents, exactly (``0.03`` is 3, not 3.0000000000000004); a
    fraction of a cent buys no call, so it is dropped (``0.019`` is 1)."""
    return Money.of(usd).cents


def _as_money(cents: int, usd: float | None) -> Money:
    """Whole cents, and the USD they were given as (earlier versions' two values), as
    one :class:`Money`: the USD when it is that many cents, else the cents."""
    if usd is not None:
        try:
            given = Money.of(usd)
        except (TypeError, ValueError):
            given = None
        if given is not None and given.cents == cents:
            return given
    return Money.from_cents(cents)


class Hold:
    """One call's price held against the budget while the call is in flight."""

    __slots__ = ("settled",)

    def __init__(self) -> None:
        self.settled = False


class _Own:
    """The ledger's own budget (the default of :meth:`Ledger.reserve`'s argument)."""

    def __repr__(self) -> str:
        return "the ledger's own budget"


_OWN = _Own()


class Ledger:
    """Running account of one client's calls.

    Attributes:
        paid_calls: Calls sent to the service that succeeded (charged), and the
            unsure ones.
        cached_calls: Calls answered from the cache (not sent, not charged).
        failed_calls: Calls sent that failed (429, 5xx, ``success: false``,
            connection errors): not charged.
        unsure_calls: Of ``paid_calls``, those whose answer broke on the way before
            it said whether it succeeded, or did not come in time: maybe not charged
            (see the module doc).

    Example:
        >>> from socialframe.sandbox import EXAMPLE_POSTS, Sandbox
        >>> with Sandbox().client(in_process=True, cache=False) as client:
        ...     _ = client.post_comments(EXAMPLE_POSTS[82])
        >>> print(client.ledger)
        paid 2 calls ($0.02) · cached 0 ($0.00 saved) · failed 0 (free)
        >>> client.ledger.spent_usd
        0.02
    """

    def __init__(
        self, max_cost_cents: Money | int | None = None, *, max_cost_usd: float | None = None
    ) -> None:
        self._fresh_locks()
        self.set_max_cost(max_cost_cents, max_cost_usd)
        _LEDGERS.add(self)
        self.paid_calls = 0
        self.cached_calls = 0
        self.failed_calls = 0
        self.unsure_calls = 0
        self._held = 0  # cents reserved by calls in flight

    @property
    def max_cost_cents(self) -> int | None:
        """The budget in whole cents (``None``: no budget)."""
        return self._max_cost_cents

    @max_cost_cents.setter
    def max_cost_cents(self, cents: int | None) -> None:
        self.set_max_cost(cents)

    def set_max_cost(self, budget: Money | int | None, usd: float | None = None) -> None:
        """Set the budget, for the calls that follow.

        Args:
            budget: A :class:`Money` (what the client passes: the amount as given), or
                whole cents (as earlier versions took it), or ``None`` for no budget.
            usd: With whole cents only: the amount of USD it was given as, shown by
                :attr:`max_cost_usd` (by default ``cents / 100``).

        Raises:
            TypeError: ``budget`` is not a Money nor a whole number (a bool is not one).
            ValueError: ``budget`` is negative.

        Example:
            >>> ledger = Ledger()
            >>> ledger.set_max_cost(Money.of(0.015))  # $0.015 allows one call
            >>> ledger.max_cost_cents, ledger.max_cost_usd
            (1, 0.015)
            >>> ledger.set_max_cost(1, 0.015)  # the same, as earlier versions took it
            >>> ledger.max_cost_cents, ledger.max_cost_usd
            (1, 0.015)
        """
        if budget is not None and not isinstance(budget, Money):
            if isinstance(budget, bool) or not isinstance(budget, numbers.Integral):
                raise TypeError(
                    f"max_cost_cents must be a whole number of cents or None, not {budget!r:.40}"
                )
            if budget < 0:
                raise ValueError(f"max_cost_cents must be >= 0, got {budget}")
            budget = _as_money(int(budget), usd)
        self._budget = budget
        self._max_cost_cents = None if budget is None else budget.cents  # (read on every call)

    def _fresh_locks(self) -> None:
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)  # a hold was settled or given back

    def _after_fork(self) -> None:
        """In a forked child: the parent's calls in flight are not the child's, and never
        settle there; their holds are dropped (and the lock, maybe held, is new)."""
        self._fresh_locks()
        self._held = 0

    def reserve(
        self,
        max_cost_cents: Decimal | int | None | _Own = _OWN,
        *,
        wait: float = 0.0,
        stop: threading.Event | None = None,
    ) -> Hold | None:
        """Hold one call's price against the budget before it is sent.

        The check and the hold are one step under the ledger's lock, so any
        number of threads sharing a client never send more paid calls than
        ``max_cost`` allows. Settle the hold with :meth:`record` (``hold=``) or
        give it back with :meth:`release`.

        Args:
            wait: Seconds to wait, when only the calls in flight fill the budget,
                for them to be settled or given back (they may fail, for free)
                instead of refusing at once: a budget is refused when it is really
                spent, or when the calls in flight still hold it after ``wait``.
            stop: Set when the run is interrupted: the wait ends (refused).

        Returns:
            A :class:`Hold`, or ``None`` when the spend (plus, without ``wait``,
            the calls already in flight) leaves no room for one more.

        Example:
            >>> ledger = Ledger(max_cost_cents=1)
            >>> first = ledger.reserve()
            >>> ledger.reserve() is None  # the first call may still be charged
            True
            >>> ledger.release(first)
            >>> ledger.reserve() is not None
            True
        """
        until = time.monotonic() + wait
        if isinstance(max_cost_cents, _Own):
            max_cost_cents = self.max_cost_cents
        with self._lock:
            while max_cost_cents is not None:
                spent = self.paid_calls * PRICE_CENTS
                if spent + PRICE_CENTS > max_cost_cents:
                    return None  # no room even if every call in flight is given back
                if spent + self._held + PRICE_CENTS <= max_cost_cents:
                    break
                left = until - time.monotonic()
                if left <= 0 or (stop is not None and stop.is_set()):
                    return None
                # a call in flight settles: look again (and now and then, for a stop)
                self._settled.wait(left if stop is None else min(left, 0.1))
            self._held += PRICE_CENTS
            return Hold()

    def release(self, hold: Hold | None) -> None:
        """Give back a hold that was not settled (no-op if it was, or for ``None``).

        Args:
            hold: What :meth:`reserve` returned.

        Example:
            >>> ledger = Ledger(max_cost_cents=2)
            >>> hold = ledger.reserve()
            >>> ledger.record("paid", hold=hold)  # settled: charged
            >>> ledger.release(hold)  # so nothing to give back
            >>> ledger.paid_calls, ledger.would_exceed()
            (1, False)
        """
        with self._lock:
            self._settle(hold)

    def _settle(self, hold: Hold | None) -> None:
        if hold is not None and not hold.settled:
            hold.settled = True
            self._held -= PRICE_CENTS
            self._settled.notify_all()

    def record(self, outcome: Outcome, hold: Hold | None = None) -> None:
        """Count one call: ``"paid"``, ``"cached"``, ``"failed"`` or ``"unsure"`` (a
        paid call that may not have been charged: in ``paid_calls`` and in
        ``unsure_calls``).

        Args:
            outcome: Where the call went.
            hold: The call's :meth:`reserve` hold, settled in the same step.

        Raises:
            ValueError: any other outcome.

        Example:
            >>> ledger = Ledger()
            >>> ledger.record("paid"); ledger.record("cached"); ledger.record("unsure")
            >>> ledger.paid_calls, ledger.cached_calls, ledger.failed_calls, ledger.unsure_calls
            (2, 1, 0, 1)
        """
        with self._lock:
            self._settle(hold)
            if outcome in ("paid", "unsure"):
                self.paid_calls += 1
                self.unsure_calls += outcome == "unsure"
            elif outcome == "cached":
                self.cached_calls += 1
            elif outcome == "failed":
                self.failed_calls += 1
            else:
                raise ValueError(
                    f"outcome must be 'paid', 'cached', 'failed' or 'unsure', got {outcome!r}"
                )

    @property
    def spent_usd(self) -> float:
        """USD charged by the service for this client's calls (at most: the unsure
        calls count, see :attr:`unsure_calls`)."""
        return self.paid_calls * PRICE_CENTS / 100

    @property
    def saved_usd(self) -> float:
        """USD the cache saved: what the cached calls would have cost."""
        return self.cached_calls * PRICE_CENTS / 100

    def would_exceed(self, max_cost_cents: Decimal | int | None | _Own = _OWN) -> bool:
        """Whether one more paid call would take the spend over the budget.

        Args:
            max_cost_cents: A budget to ask about instead of the ledger's own (as
                earlier versions took it on every call).

        Returns:
            True when the next paid call must not be sent (calls in flight count).

        Example:
            >>> ledger = Ledger(max_cost_cents=1)
            >>> ledger.would_exceed()
            False
            >>> ledger.record("paid")
            >>> ledger.would_exceed()
            True
        """
        budget = self.max_cost_cents if isinstance(max_cost_cents, _Own) else max_cost_cents
        if budget is None:
            return False
        spent = self.paid_calls * PRICE_CENTS + self._held + PRICE_CENTS
        return spent > budget

    @property
    def calls_left(self) -> int | None:
        """How many more paid calls the budget allows (calls in flight count); ``None``
        without a budget.

        Example:
            >>> ledger = Ledger(max_cost_cents=5)
            >>> ledger.record("paid")
            >>> ledger.calls_left
            4
            >>> Ledger().calls_left is None
            True
        """
        budget = self.max_cost_cents
        if budget is None:
            return None
        spent = self.paid_calls * PRICE_CENTS + self._held
        return max(0, (budget - spent) // PRICE_CENTS)

    @property
    def max_cost_usd(self) -> float | None:
        """The budget in USD (``None``: none): what ``max_cost`` shows at the edges.

        Example:
            >>> Ledger(max_cost_cents=250).max_cost_usd
            2.5
        """
        return None if self._budget is None else self._budget.shown

    def refusal(self, operation: str) -> BudgetExceededError:
        """The error for a call of ``operation`` the budget refused (nothing was sent).

        Args:
            operation: ``"comments"`` or ``"ads"``.

        Returns:
            A :class:`~socialframe.BudgetExceededError` saying the budget and the spend.

        Example:
            >>> print(Ledger(max_cost_cents=3).refusal("ads"))  # doctest: +ELLIPSIS
            the next ads call would take the spend over max_cost=$0.03 (spent $0.00); ...
        """
        budget = self.max_cost_usd or 0.0
        return BudgetExceededError(
            f"the next {operation} call would take the spend over"
            f" max_cost={usd(self.max_cost_cents or 0)}"
            f" (spent {usd(self.paid_calls * PRICE_CENTS)}); it was not sent."
            " Raise max_cost, or use the pages fetched so far: error.partial.",
            max_cost=budget,
            spent_usd=self.spent_usd,
        )

    def reset(self) -> None:
        """Start counting from zero (the budget counts from here too).

        Example:
            >>> ledger = Ledger()
            >>> ledger.record("paid")
            >>> ledger.reset()
            >>> ledger.paid_calls
            0
        """
        with self._lock:
            self.paid_calls = self.cached_calls = self.failed_calls = self.unsure_calls = 0

    def as_dict(self) -> dict[str, float | int]:
        """The figures as a plain dict.

        Returns:
            ``paid_calls``, ``cached_calls``, ``failed_calls``, ``unsure_calls``,
            ``spent_usd``, ``saved_usd``.

        Example:
            >>> ledger = Ledger()
            >>> ledger.record("failed")
            >>> ledger.as_dict()  # doctest: +NORMALIZE_WHITESPACE
            {'paid_calls': 0, 'cached_calls': 0, 'failed_calls': 1, 'unsure_calls': 0,
             'spent_usd': 0.0, 'saved_usd': 0.0}
        """
        return {
            "paid_calls": self.paid_calls,
            "cached_calls": self.cached_calls,
            "failed_calls": self.failed_calls,
            "unsure_calls": self.unsure_calls,
            "spent_usd": self.spent_usd,
            "saved_usd": self.saved_usd,
        }

    def __str__(self) -> str:
        paid, cached = self.paid_calls, self.cached_calls
        unsure = (
            f" (of which {self.unsure_calls:,} unsure: cut short or late, maybe not charged)"
            if self.unsure_calls
            else ""
        )
        return (
            f"paid {words.count(paid, 'call')} ({usd(paid * PRICE_CENTS)}){unsure}"
            f" · cached {cached:,} ({usd(cached * PRICE_CENTS)} saved)"
            f" · failed {self.failed_calls:,} (free)"
        )

    def __repr__(self) -> str:
        unsure = f"unsure_calls={self.unsure_calls}, " if self.unsure_calls else ""
        return (
            f"Ledger(paid_calls={self.paid_calls}, cached_calls={self.cached_calls}, "
            f"failed_calls={self.failed_calls}, {unsure}spent_usd={self.spent_usd:.2f}, "
            f"saved_usd={self.saved_usd:.2f})"
        )

    def to_html(self) -> str:
        """The ledger as a small HTML table (what Jupyter shows).

        Returns:
            A ``<table class='socialframe-ledger'>``: one row each for paid,
            cached and failed calls, with their count and dollars.

        Example:
            >>> ledger = Ledger()
            >>> ledger.record("paid")
            >>> "$0.01 spent" in ledger.to_html()
            True
        """
        rows = [
            ("paid", self.paid_calls, f"{usd(self.paid_calls * PRICE_CENTS)} spent"),
            ("from cache", self.cached_calls, f"{usd(self.cached_calls * PRICE_CENTS)} saved"),
            ("failed", self.failed_calls, f"{usd(0)} (not charged)"),
        ]
        if self.unsure_calls:  # (in "paid": the budget counts them)
            rows.insert(1, ("of which unsure", self.unsure_calls, "maybe not charged"))
        # Room around each cell: without it the columns run into each other.
        pad = "padding:2px 12px 2px 0;line-height:1.35"
        body = "".join(
            f"<tr><th style='text-align:left;{pad}'>{html.escape(name)}</th>"
            f"<td style='text-align:right;{pad}'>{n}</td>"
            f"<td style='text-align:left;{pad}'>{html.escape(money)}</td></tr>"
            for name, n, money in rows
        )
        head = "".join(
            f"<th style='text-align:{side};{pad}'>{name}</th>"
            for name, side in (("calls", "left"), ("n", "right"), ("USD", "left"))
        )
        return (
            f"<table class='socialframe-ledger'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )

    def _repr_html_(self) -> str:
        return self.to_html()


class Ledgers:
    """Several ledgers that count the same calls: the client's, and the ones a run
    keeps of its own (a study's refresh: its ``max_cost``, and each watched item's
    paid calls). A call is sent only when every one of them has room for it, and each
    counts every attempt (a charged retry included), with the :class:`Ledger` API
    the caller uses.
    """

    def __init__(self, first: Ledger, *others: Ledger) -> None:
        self.ledgers = (first, *others)

    def reserve(
        self, *, wait: float = 0.0, stop: threading.Event | None = None
    ) -> tuple[Hold, ...] | None:
        """One hold in each ledger, or None (and none held) if any has no room."""
        holds: list[Hold] = []
        for ledger in self.ledgers:
            hold = ledger.reserve(wait=wait, stop=stop)
            if hold is None:
                for given, back in zip(self.ledgers, holds, strict=False):
                    given.release(back)
                return None
            holds.append(hold)
        return tuple(holds)

    def release(self, holds: tuple[Hold, ...] | None) -> None:
        for ledger, hold in zip(self.ledgers, holds or (None,) * len(self.ledgers), strict=True):
            ledger.release(hold)

    def record(self, outcome: Outcome, hold: tuple[Hold, ...] | None = None) -> None:
        for ledger, each in zip(self.ledgers, hold or (None,) * len(self.ledgers), strict=True):
            ledger.record(outcome, hold=each)

    def refusal(self, operation: str) -> BudgetExceededError:
        """The refusal of the ledger whose budget has no room (the first one's if none)."""
        full = [ledger for ledger in self.ledgers if ledger.would_exceed()]
        return (full or list(self.ledgers))[0].refusal(operation)


_LEDGERS: weakref.WeakSet[Ledger] = weakref.WeakSet()


def _ledgers_after_fork() -> None:
    for ledger in list(_LEDGERS):
        ledger._after_fork()


os.register_at_fork(after_in_child=_ledgers_after_fork)
