"""Charts: drawn on the given Axes, returned, labelled with their zone, never shown."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import socialframe as sf  # noqa: E402
from socialframe._display import plots
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox  # noqa: E402


@pytest.fixture(autouse=True)
def never_show(no_plt_show: None) -> None:
    """Every test here: no plt.show(), figures closed after (conftest's no_plt_show)."""


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    with Sandbox(clock=PinnedClock()) as sandbox, sandbox.client(cache=False) as client:
        return client.post_comments(EXAMPLE_POSTS[2345]), client.search_ads("running shoes")


def test_plot_activity_draws_the_activity_counts(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    comments, _ = frames
    fig, ax = plt.subplots()
    got = comments.social.plot_activity("1D", tz="Asia/Tokyo", ax=ax)
    assert got is ax
    counts = comments.social.activity("1D", by="author_type", tz="Asia/Tokyo")
    containers = ax.containers
    assert len(containers) == 2  # person, organization stacked
    assert [bar.get_height() for bar in containers[0]] == counts["person"].tolist()
    assert [bar.get_height() for bar in containers[1]] == counts["organization"].tolist()
    assert ax.get_xlabel() == "time (Asia/Tokyo)" and ax.get_ylabel() == "comments per day"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["person", "organization"]
    assert "2,345 comments" in ax.get_title()


def test_plot_activity_makes_its_own_axes(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    comments, _ = frames
    ax = comments.social.plot_activity("1W", by=None)
    assert ax.get_ylabel() == "comments per week" and ax.get_legend() is None
    assert sum(bar.get_height() for bar in ax.containers[0]) == len(comments)


def test_plot_timeline(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    _, ads = frames
    ax = ads.social.plot_timeline(max_ads=40)
    bars = ax.containers[0]
    assert len(bars) == 40 and ax.get_xlabel() == "time (UTC)"
    latest = ads.sort_values("start_date").tail(40)
    colors = [matplotlib.colors.to_hex(bar.get_facecolor()) for bar in bars]
    expected = ["#2ca02c" if active else "#7f7f7f" for active in latest["is_active"]]
    assert colors == expected
    assert "40 of 130 ads" in ax.get_title()


def test_plot_platforms(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    _, ads = frames
    fig, ax = plt.subplots()
    assert ads.social.plot_platforms(ax=ax) is ax
    drawn = {
        tick.get_text(): bar.get_width()
        for tick, bar in zip(ax.get_yticklabels(), ax.containers[0], strict=True)
    }
    expected = ads["publisher_platforms"].explode().value_counts().to_dict()
    assert drawn == expected


def test_demo_chart_helpers_accept_empty_frames() -> None:
    empty = sf.comments_frame([])
    ax = empty.social.plot_activity()
    assert ax.get_title() == "Comment activity (0 comments)"


def test_bars_start_at_their_period() -> None:
    import matplotlib.dates as mdates

    rows = [
        {
            "createdAt": int(pd.Timestamp(s, tz="UTC").timestamp() * 1000),
            "text": "",
            "author": {"name": "A", "id": "1"},
        }
        for s in ("2025-10-20 10:00", "2025-10-21 10:00", "2025-11-03 08:00")
    ]
    df = sf.comments_frame([{"success": True, "data": rows, "totalPage": 1}])
    ax = df.social.plot_activity("1W", by=None)
    starts = [mdates.num2date(bar.get_x()).date().isoformat() for bar in ax.containers[0]]
    assert starts == ["2025-10-20", "2025-10-27", "2025-11-03"]
    assert [bar.get_height() for bar in ax.containers[0]] == [2, 0, 1]


def test_plot_activity_leaves_other_subplots_alone(
    frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    comments, _ = frames
    fig, (top, bottom) = plt.subplots(2, 1)
    bottom.plot([0, 1], [0, 1])
    comments.social.plot_activity("1D", ax=top)
    fig.canvas.draw()
    assert top.get_xlabel() == "time (UTC)"
    assert any(label.get_text() for label in top.get_xticklabels())
    assert all(label.get_rotation() == 0 for label in bottom.get_xticklabels())


def test_small_counts_get_whole_number_ticks(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    comments, _ = frames
    fig, ax = plt.subplots()
    comments.head(3).social.plot_activity("1D", ax=ax)
    fig.canvas.draw()
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)  # never 0.5, 1.5
    assert ax.get_ylim()[0] == 0
    fig, empty = plt.subplots()
    comments.iloc[:0].social.plot_activity("1D", ax=empty)
    assert empty.get_ylim() == (0.0, 1.0) and empty.get_legend() is None


def test_the_legend_is_beside_the_bars_not_over_them(
    frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    comments, _ = frames
    fig, ax = plt.subplots(figsize=(10, 3.5), layout="constrained")
    comments.social.plot_activity("1D", ax=ax)
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    axes = ax.get_window_extent()
    assert legend.x0 >= axes.x1  # right of the plotting area
    assert fig.bbox.contains(legend.x1 - 1, legend.y0 + 1)  # and still in the figure


def test_a_span_fixes_the_time_range(frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    import matplotlib.dates as mdates

    comments, _ = frames
    span = plots.activity_span(comments, "1D", tz="Europe/Berlin")
    assert span is not None
    local = comments["created_at"].dt.tz_convert("Europe/Berlin")
    first, last = local.min().normalize(), local.max().normalize()
    assert span == (first, last + pd.Timedelta(days=1))  # the first day's start, the last's end
    one_day = comments[comments["created_at"].dt.tz_convert("Europe/Berlin").dt.day == 20]
    fig, ax = plt.subplots()
    plots.plot_activity(one_day, "1D", tz="Europe/Berlin", ax=ax, span=span)
    assert ax.get_xlim() == pytest.approx(tuple(mdates.date2num(t) for t in span))
    assert plots.activity_span(comments.iloc[:0]) is None


def test_dollar_signs_in_names_are_shown_as_written(tmp_path: Path) -> None:
    """matplotlib reads text between two ``$`` as math: names from the data must not be."""
    from matplotlib.figure import Figure

    from socialframe.sandbox import example_ads, example_comments

    ads = example_ads().copy()
    names = {
        name: f"Save ${i} today, $10 {{x}}" for i, name in enumerate(ads["page_name"].unique())
    }
    names[ads["page_name"].iloc[0]] = r"Bad $\frac{$ math"  # a syntax error as math
    ads["page_name"] = ads["page_name"].replace(names)
    drawn = {}
    for name, draw in {
        "sov": lambda ax: ads.social.plot_share_of_voice("ME", ax=ax),
        "timeline": lambda ax: ads.social.plot_timeline(ax=ax),
    }.items():
        figure = Figure()
        ax = figure.subplots()
        draw(ax)
        figure.savefig(tmp_path / f"{name}.png")  # renders every label: math would fail here
        drawn[name] = ax
    legend = [t.get_text() for t in drawn["sov"].get_legend().get_texts()]
    assert r"Bad \$\frac{\$ math" in legend or any(r"\$" in t for t in legend)
    assert all(t.replace(r"\$", "$") in set(names.values()) | {"other"} for t in legend)
    ticks = [t.get_text() for t in drawn["timeline"].get_yticklabels()]
    assert ticks and all("$" not in t.replace(r"\$", "") for t in ticks)

    comments = example_comments().copy()
    half = len(comments) // 2
    names_ = ["$a$ $b$"] * half + ["$c$"] * (len(comments) - half)
    comments["author_name"] = pd.array(names_, dtype="string")
    figure = Figure()
    ax = figure.subplots()
    comments.social.plot_activity("1W", by="author_name", ax=ax)
    figure.savefig(tmp_path / "activity.png")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [r"\$a\$ \$b\$", r"\$c\$"]


def test_a_name_starting_with_an_underscore_keeps_its_place_in_the_legend(tmp_path: Path) -> None:
    """matplotlib leaves a label starting with ``_`` out of the legend: an advertiser or
    an author type named so lost its entry, and its band or bars were nobody's."""
    from matplotlib.figure import Figure

    from socialframe.sandbox import example_ads, example_comments

    ads = example_ads().copy()
    first, second = ads["page_name"].value_counts().index[:2]
    ads["page_name"] = ads["page_name"].replace({first: "_nolegend_", second: "_Under Co"})
    comments = example_comments().copy()
    comments["author_type"] = comments["author_type"].cat.rename_categories({"person": "_person"})
    for frame, draw, wanted in (
        (ads, lambda f, ax: f.social.plot_share_of_voice(ax=ax), {"_nolegend_", "_Under Co"}),
        (comments, lambda f, ax: f.social.plot_activity(ax=ax), {"_person", "organization"}),
    ):
        figure = Figure()
        ax = figure.subplots()
        draw(frame, ax)
        figure.savefig(tmp_path / "chart.png")
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        handles, _ = ax.get_legend_handles_labels()
        assert wanted <= {t.strip("\u200b") for t in legend}, legend
        assert len(legend) == len(handles) == len(ax.get_legend().legend_handles)


def test_names_in_cjk_arabic_and_devanagari_draw_with_installed_fonts(tmp_path: Path) -> None:
    """With Debian's Noto fonts, labels from the data draw in every script of the data
    (matplotlib's own font has no CJK: boxes and a "Glyph missing" warning, an error here)."""
    import os

    from matplotlib import font_manager
    from matplotlib.figure import Figure

    from socialframe.sandbox import example_ads

    # the fonts on the system, whether or not matplotlib's font cache has them yet
    files = {Path(f).name for f in font_manager.findSystemFonts()}
    needed = {"NotoSansCJK": "Noto Sans CJK JP", "NotoSansArabic": "Noto Sans Arabic"}
    needed["NotoSansDevanagari"] = "Noto Sans Devanagari"
    missing = {n for prefix, n in needed.items() if not any(f.startswith(prefix) for f in files)}
    if missing:
        message = (
            f"fonts missing ({', '.join(sorted(missing))}): apt-get install fonts-noto-core"
            " fonts-noto-cjk (Debian/Ubuntu)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"on CI: {message}")
        pytest.skip(message)
    ads = example_ads().copy()
    names = ["ユニクロ 日本", "مكتبة جرير", "राहुल स्टोर"]
    first = ads["page_name"].unique()[:3]
    ads["page_name"] = ads["page_name"].replace(dict(zip(first, names, strict=True)))
    for draw in (
        lambda ax: ads.social.plot_timeline(ax=ax, max_ads=60),
        lambda ax: ads.social.plot_share_of_voice("ME", top=None, ax=ax),
    ):
        figure = Figure()
        draw(figure.subplots())
        figure.savefig(tmp_path / "chart.png")  # a missing glyph warns: an error in tests


def test_fonts_installed_after_matplotlib_built_its_cache_are_found() -> None:
    """matplotlib lists the fonts of its cache, built when it first ran: Noto installed
    later was not used (boxes, and a failing test) until that cache was deleted."""
    from matplotlib import font_manager

    files = [Path(f).name for f in font_manager.findSystemFonts()]
    if not any(f.startswith("NotoSansCJK") for f in files):
        pytest.skip("fonts-noto-cjk is not installed")
    manager = font_manager.fontManager
    before = list(manager.ttflist)
    manager.ttflist = [f for f in before if not f.name.startswith("Noto Sans")]  # as if new
    plots._installed_fallbacks.cache_clear()
    try:
        assert "Noto Sans CJK JP" in plots.families()
    finally:
        manager.ttflist = before
        plots._installed_fallbacks.cache_clear()


def test_label_fonts_follow_the_default_family_as_it_changes() -> None:
    """Labels from the data (legend entries, advertisers' names) take the default family
    first, as it is when the chart is drawn."""
    import matplotlib
    from matplotlib.figure import Figure

    from socialframe.sandbox import example_ads, example_comments

    comments, ads = example_comments(), example_ads()
    for family in ("monospace", "serif", "monospace"):
        with matplotlib.rc_context({"font.family": [family]}):
            legend = comments.social.plot_activity("1W", ax=Figure().subplots()).get_legend()
            names = ads.social.plot_timeline(ax=Figure().subplots()).get_yticklabels()
        assert [t.get_fontfamily()[0] for t in legend.get_texts()] == [family] * 2
        assert names and {t.get_fontfamily()[0] for t in names} == {family}
