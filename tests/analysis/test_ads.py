"""Ads across advertisers: campaigns, share of voice and spend, on hand-made and sandbox frames.

Expected values are worked out by hand from the literal ads below (dates in UTC;
weeks start on Mondays: 2025-01-06, 01-13, 01-20, 01-27, 02-03).
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import socialframe as sf  # noqa: E402
from socialframe._analysis.ads import Bounds, parse_amount  # noqa: E402
from socialframe.sandbox import Sandbox  # noqa: E402

TIME = "datetime64[us, UTC]"


def ad(
    ad_id: str,
    collation: str | None,
    page: str,
    start: str,
    end: str | None,
    active: bool,
    platforms: list[str],
    fmt: str,
    body: str | None,
    **more: Any,
) -> dict[str, Any]:
    snapshot: dict[str, Any] = {"display_format": fmt, "body": {"text": body}}
    snapshot.update(more.pop("snapshot", {}))
    return {
        "ad_archive_id": ad_id,
        "collation_id": collation,
        "page_id": page,
        "page_name": {"10": "Acme", "20": "Bolt", "30": "Solo"}.get(page, page),
        "is_active": active,
        "start_date": int(pd.Timestamp(start, tz="UTC").timestamp()),
        "end_date": int(pd.Timestamp(end, tz="UTC").timestamp()) if end else None,
        "publisher_platform": platforms,
        "snapshot": snapshot,
        **more,
    }


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return sf.ads_frame([{"data": {"ads": [[r] for r in rows], "page_info": {}}}])


CARDS = {"cards": [{"body": "{{product.name}}"}, {"body": "Bolt runners"}]}
ROWS = [
    ad("a1", "C1", "10", "2025-01-06", "2025-01-19", False, ["FACEBOOK"], "IMAGE", "Buy shoes"),
    ad("a2", "C1", "10", "2025-01-08", "2025-01-10", False, ["INSTAGRAM"], "IMAGE", "Buy boots"),
    ad("a3", "C1", "10", "2025-01-13", None, True, ["FACEBOOK", "MESSENGER"], "VIDEO", "Buy boots"),
    ad(
        "b1",
        "C2",
        "20",
        "2025-01-20",
        "2025-01-26",
        False,
        ["FACEBOOK"],
        "DCO",
        "{{x}}",
        snapshot=CARDS,
    ),
    ad("b2", "C2", "20", "2025-01-21", "2025-01-22", False, ["FACEBOOK"], "IMAGE", ""),
    ad("s1", None, "30", "2025-01-15", "2025-01-15 12:00", False, ["THREADS"], "IMAGE", "Solo ad"),
]
for row in ROWS[:3]:
    row["collation_count"] = 3


@pytest.fixture
def ads() -> pd.DataFrame:
    return frame(ROWS)


def many(ads: pd.DataFrame, *, ignore_index: bool = True) -> pd.DataFrame:
    """A two-query frame: q1 found every ad, q2 found a3 and b1 again."""
    q1 = ads.assign(query="q1")
    q2 = ads[ads["ad_archive_id"].isin(["a3", "b1"])].assign(query="q2")
    return pd.concat([q1, q2], ignore_index=ignore_index).astype({"query": "string"})


def weeks(*days: str, tz: str = "UTC") -> list[pd.Timestamp]:
    return [pd.Timestamp(d, tz=tz) for d in days]


# -- campaigns ----------------------------------------------------------------------------


def test_campaigns_group_variants_by_collation_id(ads: pd.DataFrame) -> None:
    got = ads.social.campaigns()
    assert list(got.columns) == [
        "collation_id",
        "page_id",
        "page_name",
        "variants",
        "collation_count",
        "active",
        "first_start",
        "last_end",
        "platforms",
        "display_formats",
        "body_text",
        "ad_archive_ids",
        "queries",
    ]
    assert got["collation_id"].tolist() == ["C1", "C2", pd.NA]  # most variants first
    assert got["variants"].tolist() == [3, 2, 1]
    assert got["collation_count"].tolist() == [3, pd.NA, pd.NA]
    assert got["active"].tolist() == [1, 0, 0]
    assert got["page_name"].tolist() == ["Acme", "Bolt", "Solo"]
    assert got["first_start"].tolist() == weeks("2025-01-06", "2025-01-20", "2025-01-15")
    # C1 has an active variant with no end date: still running, as in by_page
    assert pd.isna(got.loc[0, "last_end"])
    assert got.loc[1, "last_end"] == pd.Timestamp("2025-01-26", tz="UTC")
    assert got.loc[2, "last_end"] == pd.Timestamp("2025-01-15 12:00", tz="UTC")
    assert got.loc[0, "platforms"] == ["FACEBOOK", "INSTAGRAM", "MESSENGER"]
    assert got.loc[0, "display_formats"] == ["IMAGE", "VIDEO"]
    assert got.loc[1, "display_formats"] == ["DCO", "IMAGE"]
    # the most common text; the DCO template gives way to its first real card text
    assert got["body_text"].tolist() == ["Buy boots", "Bolt runners", "Solo ad"]
    assert got["ad_archive_ids"].tolist() == [["a1", "a2", "a3"], ["b1", "b2"], ["s1"]]
    assert got["queries"].tolist() == [[], [], []]  # built from dicts: no query was sent
    assert {c: str(t) for c, t in got.dtypes.items()} == {
        "collation_id": "string",
        "page_id": "string",
        "page_name": "string",
        "variants": "int64",
        "collation_count": "Int64",
        "active": "int64",
        "first_start": TIME,
        "last_end": TIME,
        "platforms": "object",
        "display_formats": "object",
        "body_text": "string",
        "ad_archive_ids": "object",
        "queries": "object",
    }


def test_campaigns_on_a_many_query_frame_count_each_ad_once(ads: pd.DataFrame) -> None:
    for combined in (many(ads), many(ads, ignore_index=False)):  # duplicate index labels too
        got = combined.social.campaigns()
        assert got["variants"].tolist() == [3, 2, 1] and got["active"].tolist() == [1, 0, 0]
        assert got["queries"].tolist() == [["q1", "q2"], ["q1", "q2"], ["q1"]]
        assert got["ad_archive_ids"].tolist() == [["a1", "a2", "a3"], ["b1", "b2"], ["s1"]]


def test_campaign_text_ties_names_and_templates() -> None:
    rows = [
        ad("y", "T", "10", "2025-02-01", "2025-02-02", False, [], "IMAGE", "Second"),
        ad("x", "T", "10", "2025-01-01", "2025-01-02", False, [], "IMAGE", "First"),
        ad("z", "T", "10", "2025-03-01", "2025-03-02", False, [], "IMAGE", "  "),
        ad("d", "D", "20", "2025-01-01", "2025-01-02", False, [], "DPA", "{{product.brand}}"),
    ]
    rows[0]["page_name"] = "Acme Inc"  # the latest-starting variant with a name names it
    rows[2]["page_name"] = None
    got = frame(rows).drop(columns=["query"]).social.campaigns()
    assert "queries" not in got.columns
    assert got["collation_id"].tolist() == ["T", "D"]
    assert got["body_text"].tolist() == ["First", "{{product.brand}}"]  # tie: earliest start
    assert got["page_name"].tolist() == ["Acme Inc", "Bolt"]
    assert got["ad_archive_ids"].tolist() == [["x", "y", "z"], ["d"]]


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        ([("A", False), ("B", False), ("B", False)], "B"),
        ([("A", False), ("B", False)], "A"),
        ([(None, False), ("B", False)], "B"),
        ([("{{t}}", True), ("{{t}}", True), ("Real", False)], "Real"),
        ([("{{t}}", True), (None, False)], "{{t}}"),
        ([(None, False)], None),
        ([], None),
    ],
)
def test_representative_text(texts: list[tuple[str | None, bool]], expected: str | None) -> None:
    """The text campaigns() gives a campaign of these variants (oldest first; a template
    is ``{{...}}`` text without a card to take a real text from)."""
    assert all(("{{" in (text or "")) == template for text, template in texts)
    rows = [
        ad(f"v{i}", "C", "10", f"2025-01-{i + 1:02d}", None, False, [], "IMAGE", text)
        for i, (text, _) in enumerate(texts)
    ]
    got = frame(rows).social.campaigns()
    if not rows:
        assert got.empty  # no variant, no campaign to name
        return
    (text,) = got["body_text"].tolist()  # one campaign
    assert (None if pd.isna(text) else text) == expected


def test_campaigns_need_a_collation_id(ads: pd.DataFrame) -> None:
    with pytest.raises(KeyError, match="collation_id"):
        ads.drop(columns=["collation_id"]).social.campaigns()
    bare = ads.drop(columns=["collation_count", "body_text", "snapshot_cards"])
    got = bare.social.campaigns()
    assert got["variants"].tolist() == [3, 2, 1] and got["body_text"].isna().all()


# -- share of voice -----------------------------------------------------------------------


def test_share_of_voice_counts_every_week_an_ad_runs(ads: pd.DataFrame) -> None:
    got = ads.social.share_of_voice()
    # no fetched_at in a frame built from dicts: the ongoing a3 runs to the latest date (Jan 26)
    assert got.index.tolist() == weeks("2025-01-06", "2025-01-13", "2025-01-20")
    assert got.index.name == "period" and got.columns.name == "page_name"
    assert got.to_dict("list") == {"Acme": [2, 2, 1], "Bolt": [0, 0, 2], "Solo": [0, 1, 0]}
    assert set(got.dtypes.astype(str)) == {"int64"}
    shares = ads.social.share_of_voice(share=True)
    expected = [[1.0, 0.0, 0.0], [2 / 3, 0.0, 1 / 3], [1 / 3, 2 / 3, 0.0]]
    np.testing.assert_allclose(shares.to_numpy(dtype="float64"), expected)
    assert set(shares.dtypes.astype(str)) == {"Float64"}  # as every share
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)


def test_ongoing_ads_run_until_the_latest_fetch(ads: pd.DataFrame) -> None:
    fetched = ads.assign(fetched_at=pd.Timestamp("2025-02-03 12:00", tz="UTC"))
    got = fetched.social.share_of_voice()
    assert got.index[-1] == pd.Timestamp("2025-02-03", tz="UTC") and len(got) == 5
    assert got.to_dict("list") == {
        "Acme": [2, 2, 1, 1, 1],
        "Bolt": [0, 0, 2, 0, 0],
        "Solo": [0, 1, 0, 0, 0],
    }
    # an inactive ad with no end date ran at its start only
    stopped = frame([ad("n", None, "10", "2025-01-06", None, False, [], "IMAGE", "x")])
    assert stopped.social.share_of_voice("D").to_dict("list") == {"Acme": [1]}


def test_top_and_other(ads: pd.DataFrame) -> None:
    top1 = ads.social.share_of_voice(top=1)
    assert top1.to_dict("list") == {"Acme": [2, 2, 1], "other": [0, 1, 2]}
    assert ads.social.share_of_voice(top=0).to_dict("list") == {"other": [2, 3, 3]}
    assert list(ads.social.share_of_voice(top=None).columns) == ["Acme", "Bolt", "Solo"]
    assert list(ads.social.share_of_voice(top=3).columns) == ["Acme", "Bolt", "Solo"]
    # an advertiser called "other" keeps its name; the rest gets another
    named = ads.assign(page_name=ads["page_name"].replace("Acme", "other"))
    assert named.social.share_of_voice(top=1).to_dict("list") == {
        "other": [2, 2, 1],
        "<other>": [0, 1, 2],
    }


def test_share_of_voice_on_a_many_query_frame(ads: pd.DataFrame) -> None:
    combined = many(ads, ignore_index=False)
    assert combined.social.share_of_voice().equals(ads.social.share_of_voice())
    by_query = combined.social.share_of_voice(by="query")
    assert by_query.to_dict("list") == {"q1": [2, 3, 3], "q2": [0, 1, 2]}
    missing = ads.assign(page_name=ads["page_name"].where(ads["page_id"] != "30"))
    assert missing.social.share_of_voice().to_dict("list")["<NA>"] == [0, 1, 0]


def comment_at(stamp: str) -> dict[str, Any]:
    ms = int(pd.Timestamp(stamp, tz="UTC").timestamp() * 1000)
    return {"createdAt": ms, "text": "x", "author": {"name": "A", "id": "1"}}


@pytest.mark.parametrize(
    ("freq", "tz", "start", "end", "counts"),
    [
        # Sunday 20:00 UTC is Monday 05:00 in Tokyo: a second week there
        ("W", "UTC", "2025-01-15", "2025-01-19 20:00", [1]),
        ("W", "Asia/Tokyo", "2025-01-15", "2025-01-19 20:00", [1, 1]),
        # months in Berlin across the switch to summer time (+01:00, then +02:00)
        ("ME", "Europe/Berlin", "2025-02-28 23:30", "2025-04-02", [1, 1]),
        ("1D", "America/New_York", "2025-03-08 12:00", "2025-03-10 03:00", [1, 1]),
        ("12h", "UTC", "2025-03-08 01:00", "2025-03-08 13:00", [1, 1]),
    ],
)
def test_periods_are_those_of_activity(
    freq: str, tz: str, start: str, end: str, counts: list[int]
) -> None:
    ads = frame([ad("t", None, "10", start, end, False, [], "IMAGE", "x")])
    got = ads.social.share_of_voice(freq, tz=tz)
    assert got["Acme"].tolist() == counts
    comments = sf.comments_frame([{"success": True, "data": [comment_at(start), comment_at(end)]}])
    labels = comments.social.activity(freq, tz=tz).index
    assert got.index.equals(labels) and str(got.index.dtype) == str(labels.dtype)


def test_share_of_voice_rejects_bad_arguments(ads: pd.DataFrame) -> None:
    with pytest.raises(KeyError, match="nope"):
        ads.social.share_of_voice(by="nope")
    with pytest.raises(ValueError, match="top"):
        ads.social.share_of_voice(top=-1)
    with pytest.raises(ValueError):
        ads.social.share_of_voice("fortnightly")


# -- spend ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("<1K", (0.0, 1_000.0, None)),
        ("< 1K", (0.0, 1_000.0, None)),
        ("1K-5K", (1_000.0, 5_000.0, None)),
        ("1k-5k", (1_000.0, 5_000.0, None)),
        ("1K–5K", (1_000.0, 5_000.0, None)),  # en dash
        ("1K — 5K", (1_000.0, 5_000.0, None)),  # em dash
        ("1K to 5K", (1_000.0, 5_000.0, None)),
        (">1M", (1_000_000.0, None, None)),
        ("1M+", (1_000_000.0, None, None)),
        ("over 1M", (1_000_000.0, None, None)),
        ("less than 1K", (0.0, 1_000.0, None)),
        ("1.5K", (1_500.0, 1_500.0, None)),
        ("2.5M-3M", (2_500_000.0, 3_000_000.0, None)),
        ("1B", (1_000_000_000.0, 1_000_000_000.0, None)),
        ("0.1K", (100.0, 100.0, None)),
        ("1,000", (1_000.0, 1_000.0, None)),
        ("1,000,000-4,999,999", (1_000_000.0, 4_999_999.0, None)),
        ("  42  ", (42.0, 42.0, None)),
        ("0", (0.0, 0.0, None)),
        ("100", (100.0, 100.0, None)),
        ("$1,000", (1_000.0, 1_000.0, "$")),
        ("USD 100 - 199", (100.0, 199.0, "USD")),
        ("100-199 EUR", (100.0, 199.0, "EUR")),
        ("€1.5K", (1_500.0, 1_500.0, "EUR")),
        ("<€1K", (0.0, 1_000.0, "EUR")),
        ("R$100–R$199", (100.0, 199.0, "BRL")),
        ("£2K", (2_000.0, 2_000.0, "GBP")),
        (100, (100.0, 100.0, None)),
        (99.5, (99.5, 99.5, None)),
        (np.int64(7), (7.0, 7.0, None)),
    ],
)
def test_parse_amount(
    value: object, expected: tuple[float | None, float | None, str | None]
) -> None:
    assert parse_amount(value) == Bounds(*expected)


@pytest.mark.parametrize(
    "value",
    [
        None,
        pd.NA,
        float("nan"),
        float("inf"),
        -3,
        True,
        "",
        "   ",
        "N/A",
        "TBD",
        "abc",
        "1K-",
        "-5",
        "5K-1K",  # lower above upper
        "1,5K",  # a decimal comma is not read as a thousands separator
        "1KK",
        "1.2.3",
        "$100-€200",  # two currencies
        [1, 2],
        {"lower_bound": "1"},
    ],
)
def test_parse_amount_junk_is_missing(value: object) -> None:
    assert parse_amount(value) == Bounds(None, None, None)


def spend_ad(ad_id: str, **fields: Any) -> dict[str, Any]:
    return ad(ad_id, None, "10", "2025-01-01", "2025-01-02", False, [], "IMAGE", "x", **fields)


def test_spend_reads_every_shape() -> None:
    rows = [
        spend_ad(
            "x1",
            spend={"lower_bound": "100", "upper_bound": "199"},
            currency="USD",
            impressions_with_index={"impressions_text": "1K-5K", "impressions_index": 1},
        ),
        spend_ad("x2", spend=250, currency="", impressions_with_index={"impressions_text": "<1K"}),
        spend_ad("x3", spend="€1K–5K", impressions_with_index={"impressions_text": ">1M"}),
        spend_ad("x4", spend=None, impressions_with_index={"impressions_text": None}),
        spend_ad("x5", spend="junk"),
        spend_ad(
            "x6",
            spend={"lower_bound": "1000"},
            currency="EUR",
            impressions={"lower_bound": "2000", "upper_bound": "2999"},
        ),
    ]
    with pytest.warns(sf.SchemaWarning, match="spend"):  # text does not fit the float column
        ads = frame(rows)
    got = ads.social.spend()
    assert list(got.columns) == [
        "ad_archive_id",
        "page_name",
        "currency",
        "spend_lower",
        "spend_upper",
        "impressions_lower",
        "impressions_upper",
    ]
    assert {c: str(t) for c, t in got.dtypes.items()} == {
        "ad_archive_id": "string",
        "page_name": "string",
        "currency": "string",
        "spend_lower": "Float64",
        "spend_upper": "Float64",
        "impressions_lower": "Int64",
        "impressions_upper": "Int64",
    }
    na = pd.NA
    assert got["ad_archive_id"].tolist() == ["x1", "x2", "x3", "x4", "x5", "x6"]
    assert got["currency"].tolist() == ["USD", na, "EUR", na, na, "EUR"]
    assert got["spend_lower"].tolist() == [100.0, 250.0, 1000.0, na, na, 1000.0]
    assert got["spend_upper"].tolist() == [199.0, 250.0, 5000.0, na, na, na]
    assert got["impressions_lower"].tolist() == [1000, 0, 1_000_000, na, na, 2000]
    assert got["impressions_upper"].tolist() == [5000, 1000, na, na, na, 2999]


def test_spend_on_a_many_query_frame(ads: pd.DataFrame) -> None:
    combined = many(ads)
    got = combined.social.spend()
    assert got["ad_archive_id"].tolist() == ["a1", "a2", "a3", "b1", "b2", "s1"]
    assert got.index.tolist() == [0, 1, 2, 3, 4, 5]  # each ad's first row
    assert got["spend_lower"].isna().all() and got["currency"].isna().all()
    assert ads.iloc[[5, 0]].social.spend()["ad_archive_id"].to_dict() == {5: "s1", 0: "a1"}


def test_spend_counts_beyond_64_bits_are_missing() -> None:
    rows = [spend_ad("big", impressions_with_index={"impressions_text": "1K-10000000000B"})]
    got = frame(rows).social.spend()
    assert got.loc[0, "impressions_lower"] == 1000 and pd.isna(got.loc[0, "impressions_upper"])


# -- empty frames, wrong frames, the accessor's contract ---------------------------------


def test_empty_frames(ads: pd.DataFrame, client: sf.Client, sandbox: Sandbox) -> None:
    for empty in (ads.iloc[:0], client.search_ads([])):
        assert sandbox.charges == 0
        found = empty.social.campaigns()
        assert len(found) == 0 and list(found.columns) == list(ads.social.campaigns().columns)
        assert found.dtypes.equals(ads.social.campaigns().dtypes)
        counts = empty.social.share_of_voice(tz="Asia/Tokyo")
        assert counts.shape == (0, 0) and counts.index.name == "period"
        assert str(counts.index.dtype) == "datetime64[us, Asia/Tokyo]"
        assert empty.social.share_of_voice(share=True).shape == (0, 0)
        money = empty.social.spend()
        assert len(money) == 0 and money.dtypes.equals(ads.social.spend().dtypes)
        ax = empty.social.plot_share_of_voice(ax=plt.subplots()[1])
        assert ax.get_legend() is None and ax.get_ylim() == (0.0, 1.0)


def test_only_on_ads_frames() -> None:
    comments = sf.comments_frame([{"success": True, "data": [comment_at("2025-01-01")]}])
    for method in ("campaigns", "share_of_voice", "plot_share_of_voice", "spend"):
        with pytest.raises(AttributeError, match="ad_archive_id"):
            getattr(comments.social, method)()
        assert method not in dir(comments.social)


def test_signatures() -> None:
    accessor = type(sf.ads_frame([]).social)  # df.social's class on an ads frame

    def sig(name: str) -> list[tuple[str, object, str]]:
        params = list(inspect.signature(getattr(accessor, name)).parameters.values())[1:]
        return [(p.name, p.default, p.kind.name) for p in params]

    kw = "KEYWORD_ONLY"
    assert sig("campaigns") == [] and sig("spend") == []
    common = [("by", "page_name", kw), ("top", 8, kw), ("tz", "UTC", kw)]
    assert sig("share_of_voice") == [
        ("freq", "W", "POSITIONAL_OR_KEYWORD"),
        *common,
        ("share", False, kw),
    ]
    assert sig("plot_share_of_voice") == [
        ("freq", "W", "POSITIONAL_OR_KEYWORD"),
        *common,
        ("share", True, kw),
        ("ax", None, kw),
    ]


# -- the chart --------------------------------------------------------------------------


def test_plot_share_of_voice(ads: pd.DataFrame, no_plt_show: None, tmp_path: Any) -> None:
    fig, ax = plt.subplots()
    assert ads.social.plot_share_of_voice(top=1, tz="Asia/Tokyo", ax=ax) is ax
    bands = ax.collections
    assert len(bands) == 2  # Acme, other
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["other", "Acme"]  # top first
    assert matplotlib.colors.to_hex(bands[1].get_facecolor()[0]) == "#7f7f7f"  # other: grey
    assert ax.get_xlabel() == "time (Asia/Tokyo)" and ax.get_ylabel() == "share of running ads"
    assert ax.get_ylim() == (0.0, 1.0)
    # from the first week's start to the last week's end, Monday midnight in Tokyo
    first = pd.Timestamp("2025-01-06", tz="Asia/Tokyo")
    last = pd.Timestamp("2025-01-27", tz="Asia/Tokyo")
    x0, x1 = ax.get_xlim()
    assert math.isclose(x0, matplotlib.dates.date2num(first.tz_convert("UTC").tz_localize(None)))
    assert math.isclose(x1, matplotlib.dates.date2num(last.tz_convert("UTC").tz_localize(None)))
    # the top band reaches 1 in every week (shares sum to 1)
    top = bands[1].get_paths()[0].vertices[:, 1]
    assert math.isclose(float(top.max()), 1.0)
    fig.savefig(tmp_path / "share.png")  # renders
    counts_ax = ads.social.plot_share_of_voice(share=False)
    assert counts_ax.get_ylabel() == "running ads per week" and len(counts_ax.collections) == 3


# -- the sandbox, through HTTP ----------------------------------------------------------


def test_on_sandbox_search(client: sf.Client, no_plt_show: None) -> None:
    ads = client.search_ads("running shoes")
    assert len(ads) == 130
    found = ads.social.campaigns()
    assert int(found["variants"].sum()) == 130
    by_collation = ads.groupby("collation_id")["ad_archive_id"].apply(set).to_dict()
    pairs = zip(found["collation_id"], found["ad_archive_ids"], strict=True)
    assert {c: set(ids) for c, ids in pairs} == by_collation
    # every group is whole in a full search: the service's count is the variants found
    counted = found.dropna(subset=["collation_count"])
    assert (counted["collation_count"] == counted["variants"]).all() and len(counted) > 0
    assert found["queries"].map(tuple).unique().tolist() == [("running shoes",)]
    assert found["variants"].is_monotonic_decreasing

    # every day's total is the number of ads active_on that day (no ad here lacks an end)
    daily = ads.social.share_of_voice("1D", top=None)
    for day in daily.index[::9]:
        assert daily.loc[day].sum() == len(ads.social.active_on(day.date()))
    shares = ads.social.share_of_voice("W", share=True)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    assert len(shares.columns) == 9 and shares.columns[-1] == "other"
    assert ads.social.plot_share_of_voice().get_legend() is not None

    money = ads.social.spend()
    assert money["ad_archive_id"].tolist() == ads["ad_archive_id"].tolist()
    ranged = ads["spend_lower_bound"].notna()
    assert money.loc[ranged, "spend_lower"].tolist() == [
        float(v) for v in ads.loc[ranged, "spend_lower_bound"]
    ]
    assert money.loc[ranged, "spend_upper"].tolist() == [
        float(v) for v in ads.loc[ranged, "spend_upper_bound"]
    ]
    assert money.loc[~ranged, "spend_lower"].isna().all()
    expected = {"<1K": (0, 1000), "1K-5K": (1000, 5000), ">1M": (1_000_000, pd.NA)}
    for text, low, high in zip(
        ads["impressions_text"], money["impressions_lower"], money["impressions_upper"], strict=True
    ):
        assert (low, high) == (expected[text] if isinstance(text, str) else (pd.NA, pd.NA))
    assert money["currency"].tolist() == ads["currency"].tolist()


def test_on_sandbox_many_queries(client: sf.Client) -> None:
    ads = client.search_ads(["coffee", "yoga mat"])
    assert ads["query"].value_counts().to_dict() == {"coffee": 40, "yoga mat": 26}
    found = ads.social.campaigns()
    assert int(found["variants"].sum()) == 66
    for queries, ids in zip(found["queries"], found["ad_archive_ids"], strict=True):
        assert queries == sorted(set(ads.loc[ads["ad_archive_id"].isin(ids), "query"]))
    by_query = ads.social.share_of_voice("ME", by="query")
    assert list(by_query.columns) == sorted(by_query.columns, key=lambda q: -by_query[q].sum())
    assert by_query.sum(axis=1).equals(ads.social.share_of_voice("ME", top=None).sum(axis=1))
    assert len(ads.social.spend()) == 66


def test_spend_bounds_sent_apart_are_checked_like_a_range() -> None:
    rows = [
        spend_ad("inverted", spend={"lower_bound": "5000", "upper_bound": "1000"}),
        spend_ad("two currencies", spend={"lower_bound": "USD 100", "upper_bound": "EUR 200"}),
        spend_ad("junk", spend={"lower_bound": "100", "upper_bound": "lots"}),
        spend_ad("ok", spend={"lower_bound": "USD 100", "upper_bound": "199"}),
        spend_ad("huge", spend="9" * 400),
        spend_ad("huge range", spend="1-" + "9" * 400),
        spend_ad("seen", impressions={"lower_bound": "3000", "upper_bound": "2000"}),
    ]
    with pytest.warns(sf.SchemaWarning, match="spend"):
        got = frame(rows).social.spend().set_index("ad_archive_id")
    na = pd.NA
    assert got["spend_lower"].tolist() == [na, na, na, 100.0, na, na, na]
    assert got["spend_upper"].tolist() == [na, na, na, 199.0, na, na, na]
    assert got["currency"].tolist() == [na, na, na, "USD", na, na, na]
    assert got.loc["seen", ["impressions_lower", "impressions_upper"]].isna().all()
    assert parse_amount("9" * 400) == Bounds(None, None, None)  # not inf


def test_share_of_voice_by_a_column_of_lists_says_how(ads: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"holds lists: .*explode"):
        ads.social.share_of_voice(by="publisher_platforms")
    exploded = ads.explode("publisher_platforms").social.share_of_voice(
        "D", by="publisher_platforms", top=None
    )
    assert not any(str(c).startswith("[") for c in exploded.columns)


def test_post_labels_stay_apart_when_two_kinds_share_an_id() -> None:
    from matplotlib.figure import Figure

    urns = ["urn:li:activity:7384427202391592960", "urn:li:ugcPost:7384427202391592960"]
    one = sf.comments_frame([{"success": True, "data": [comment_at("2025-01-01")]}])
    posts = pd.concat(
        [one.assign(post_urn=pd.array([urn], dtype="string")) for urn in urns], ignore_index=True
    )
    ax = posts.social.plot_overlap(ax=Figure().subplots())
    assert [t.get_text() for t in ax.get_xticklabels()] == urns


def test_list_columns_back_from_parquet_are_refused_too(ads: pd.DataFrame, tmp_path: Any) -> None:
    path = tmp_path / "ads.parquet"
    ads.to_parquet(path)
    with pytest.raises(ValueError, match="holds lists"):
        pd.read_parquet(path).social.share_of_voice(by="publisher_platforms")


def test_a_campaign_of_an_ad_without_ids_lists_no_ids(ads: pd.DataFrame) -> None:
    nameless = ads.iloc[[0]].copy()
    nameless["collation_id"] = pd.array([None], dtype="string")
    nameless["ad_archive_id"] = pd.array([None], dtype="string")
    found = pd.concat([ads, nameless], ignore_index=True).social.campaigns()
    assert all(isinstance(ids, list) for ids in found["ad_archive_ids"])
    assert [] in found["ad_archive_ids"].tolist()


@pytest.mark.parametrize("text", ["€1.000", "1.000", "USD 2.500"])
def test_amounts_two_conventions_read_apart_give_no_bounds(text: str) -> None:
    assert parse_amount(text) == Bounds(None, None, None)
    assert parse_amount("1.5K") == Bounds(1500.0, 1500.0, None)  # a suffix: a decimal point
    assert parse_amount("1,000.000") == Bounds(1000.0, 1000.0, None)  # commas: US style


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.500", Bounds(0.5, 0.5, None)),  # no thousands to separate
        ("1234.567", Bounds(1234.567, 1234.567, None)),  # four digits: not a group of three
        ("1.000", Bounds(None, None, None)),  # one, or a thousand
    ],
)
def test_amounts_read_one_way_only_are_read(text: str, expected: Bounds) -> None:
    assert parse_amount(text) == expected


def test_share_of_voice_refuses_sets_too(ads: pd.DataFrame) -> None:
    tagged = ads.assign(tags=[frozenset({"x", "y"})] * len(ads))
    with pytest.raises(ValueError, match="holds lists"):
        tagged.social.share_of_voice(by="tags")
