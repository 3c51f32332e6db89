"""The widgets' controls that ipywidgets lacks: toggles for several choices, ISO date
boxes, a day range under a chart kept in step with them, and a debounce.

ipywidgets is imported when one is built (``import socialframe.widgets`` stays cheap).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any, Final

import pandas as pd

from .._time import parse_when
from . import values

DEBOUNCE: Final = 0.3
"""Seconds a typed filter waits for the next keystroke before it applies."""


def debounced(action: Callable[[], None], delay: float = DEBOUNCE) -> Callable[..., None]:
    """``action``, run ``delay`` after the last call in a row (a kernel's event loop runs
    it); at once where no loop runs (a script, a test driving the widget)."""
    pending: list[asyncio.TimerHandle] = []

    def call(_change: object = None) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            action()
            return
        for handle in pending:
            handle.cancel()
        pending[:] = [loop.call_later(delay, action)]

    return call


@functools.cache
def _toggles_type() -> type[Any]:
    import ipywidgets as w
    import traitlets

    class Toggles(w.HBox):  # type: ignore[misc]
        """One toggle button per choice, any number on: ``value`` is the tuple of those
        on (set it to turn buttons on and off). Observe ``value`` as any widget's."""

        value = traitlets.Tuple()

        def __init__(self, choices: Sequence[tuple[str, str]], value: Sequence[str]) -> None:
            self._buttons = {
                choice: w.ToggleButton(
                    description=label,
                    value=choice in value,
                    tooltip=f"show {choice} comments",
                    layout=w.Layout(width="auto"),
                )
                for label, choice in choices
            }
            super().__init__(list(self._buttons.values()))
            self.value = tuple(c for c in self._buttons if c in value)
            for button in self._buttons.values():
                button.observe(self._clicked, names="value")
            self.observe(self._set, names="value")

        def _clicked(self, _change: object) -> None:
            self.value = tuple(c for c, b in self._buttons.items() if b.value)

        def _set(self, change: dict[str, Any]) -> None:
            unknown = [c for c in change["new"] if c not in self._buttons]
            if unknown:
                self.value = change["old"]
                raise ValueError(f"unknown choices {unknown}; the choices: {list(self._buttons)}")
            for choice, button in self._buttons.items():
                button.value = choice in change["new"]

    return Toggles


def toggles(choices: Sequence[tuple[str, str]], value: Sequence[str]) -> Any:
    """Toggle buttons for ``choices`` (``(label, value)`` pairs), those in ``value`` on."""
    return _toggles_type()(choices, value)


def date_box(description: str) -> Any:
    """A box for a day, written the ISO way (``2026-01-05``), whatever the browser's
    locale: blank is none. It applies on Enter or when it loses the focus."""
    import ipywidgets as w

    return w.Text(
        value="",
        description=description,
        placeholder="YYYY-MM-DD",
        continuous_update=False,
        style={"description_width": "initial"},
        layout=w.Layout(width="270px"),
    )


def day_range(first: date, last: date) -> Any:
    """A slider over the days ``first`` to ``last`` (ends included), both ends chosen;
    :func:`with_range` shows it with the range it holds in words."""
    import ipywidgets as w

    days = [d.date() for d in pd.date_range(first, last, freq="D")]
    return w.SelectionRangeSlider(
        options=[(d.isoformat(), d) for d in days],
        index=(0, len(days) - 1),
        description="Days",
        continuous_update=False,
        # (its own readout joins the two days with a hyphen: "2025-11-02-2026-01-01")
        readout=False,
        layout=w.Layout(flex="1 1 auto", width="auto"),
        style={"description_width": "initial"},
    )


def with_range(slider: Any) -> Any:
    """``slider`` (:func:`day_range`) beside the range it holds, as every display says a
    range: ``2025-11-02 to 2026-01-01``."""
    import ipywidgets as w

    label = w.Label(layout=w.Layout(flex="0 0 auto"))
    label.add_class("socialframe-range")

    def show(_change: object = None) -> None:
        low, high = (slider.options[i][0] for i in slider.index)
        label.value = values.span(low, high)

    slider.observe(show, names="index")
    show()
    return w.HBox([slider, label], layout=w.Layout(width="95%", align_items="center"))


def in_step(slider: Any, start: Any, end: Any) -> None:
    """Keep ``slider`` (:func:`day_range`) and the ``start`` / ``end`` boxes
    (:func:`date_box`) saying the same days: a box left blank is the slider's end."""
    days = [value for _, value in slider.options]
    busy: list[bool] = []

    def from_slider(_change: object) -> None:
        if busy:
            return
        busy.append(True)
        try:
            low, high = slider.index
            start.value = "" if low == 0 else days[low].isoformat()
            end.value = "" if high == len(days) - 1 else days[high].isoformat()
        finally:
            busy.clear()

    def from_boxes(_change: object) -> None:
        if busy:
            return
        try:
            low, high = _day(start.value), _day(end.value)
        except ValueError:
            return  # not a day: the filter says what is wrong
        index = (
            0 if low is None else _nearest(days, low),
            len(days) - 1 if high is None else _nearest(days, high),
        )
        if index[0] > index[1]:
            return  # a start after the end: the filter says so
        busy.append(True)
        try:
            slider.index = index
        finally:
            busy.clear()

    slider.observe(from_slider, names="index")
    start.observe(from_boxes, names="value")
    end.observe(from_boxes, names="value")


def _day(text: str) -> date | None:
    """The day a box says, None when blank.

    Raises:
        ValueError: it is no day.
    """
    if not text.strip():
        return None
    when = parse_when(text.strip(), name="day")
    return when.date() if isinstance(when, datetime) else when


def _nearest(days: list[date], day: date) -> int:
    """The slider's position for ``day``: its own, or the nearest end."""
    if day <= days[0]:
        return 0
    if day >= days[-1]:
        return len(days) - 1
    return (day - days[0]).days
