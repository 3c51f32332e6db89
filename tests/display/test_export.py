"""Export: CSV that spreadsheets read right, and Parquet that round-trips."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from socialframe.sandbox import EXAMPLE_POSTS, IDLESS_POSTS, PinnedClock, Sandbox


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    with Sandbox(clock=PinnedClock()) as sandbox, sandbox.client(cache=False) as client:
        return client.post_comments(EXAMPLE_POSTS[82]), client.search_ads("running shoes")


def test_csv_keeps_ids_text_and_newlines(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    comments, _ = frames
    path = comments.social.to_csv(tmp_path / "comments.csv")
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    assert b"E+18" not in raw and b"e+18" not in raw
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"))))
    assert len(rows) == 82
    assert [r["comment_id"] for r in rows] == comments["comment_id"].tolist()
    assert [r["text"] for r in rows] == comments["text"].tolist()  # newlines, spaces, <script>
    assert any("\n" in r["text"] for r in rows)
    assert rows[0]["created_at"] == comments["created_at"].iloc[0].isoformat(
        timespec="microseconds"
    )
    assert rows[0]["created_at"].endswith("+00:00")  # RFC 3339
    back = pd.read_csv(path, dtype={"comment_id": str})
    assert back["comment_id"].tolist() == comments["comment_id"].tolist()


def test_csv_lists_are_json(frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path) -> None:
    _, ads = frames
    path = ads.social.to_csv(tmp_path / "ads.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [json.loads(r["publisher_platforms"]) for r in rows] == ads[
        "publisher_platforms"
    ].tolist()
    assert json.loads(rows[0]["snapshot_cards"]) == ads["snapshot_cards"].iloc[0]
    assert [r["ad_archive_id"] for r in rows] == ads["ad_archive_id"].tolist()


def test_csv_for_excel(frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path) -> None:
    comments, _ = frames
    path = comments.social.to_csv(tmp_path / "excel.csv", excel=True)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert rows[0]["comment_id"] == f'="{comments["comment_id"].iloc[0]}"'
    assert [r["text"] for r in rows] == comments["text"].tolist()
    assert rows[0]["author_name"] == comments["author_name"].iloc[0]  # non-ASCII kept


def test_derived_ids_are_exported_as_the_text_they_are(tmp_path: Path) -> None:
    with Sandbox(clock=PinnedClock()) as sandbox, sandbox.client(cache=False) as client:
        comments = client.post_comments(IDLESS_POSTS["some"])
    derived = comments[comments["id_derived"]]
    assert len(derived) == 25
    plain = comments.social.to_csv(tmp_path / "plain.csv")
    back = pd.read_csv(plain, dtype={"comment_id": str})
    assert back["comment_id"].tolist() == comments["comment_id"].tolist()
    assert back["id_derived"].tolist() == comments["id_derived"].tolist()  # a flag, read back
    excel = comments.social.to_csv(tmp_path / "excel.csv", excel=True)
    rows = list(csv.DictReader(io.StringIO(excel.read_text("utf-8-sig"), newline="")))
    shown = {r["comment_id"]: r["id_derived"] for r in rows}
    for cid in derived["comment_id"]:  # text, as every id: "derived:" shows what it is
        assert shown[f'="{cid}"'] == "True"


def _as_lists(value: object) -> object:
    if hasattr(value, "tolist") and not isinstance(value, str | pd.Timestamp):
        value = value.tolist()  # type: ignore[union-attr]
    if isinstance(value, list):
        return [_as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("which", [0, 1])
def test_parquet_round_trips_every_column(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path, which: int
) -> None:
    frame = frames[which]
    path = tmp_path / "frame.parquet"
    frame.to_parquet(path)
    back = pd.read_parquet(path)
    assert list(back.columns) == list(frame.columns)
    for name in frame.columns:
        assert str(back[name].dtype) == str(frame[name].dtype), name
        if frame[name].dtype == object:
            # pyarrow hands lists back as numpy arrays: same values, same order
            assert [_as_lists(v) for v in back[name]] == [_as_lists(v) for v in frame[name]], name
        else:
            pd.testing.assert_series_equal(back[name], frame[name], check_exact=True)
    assert back.social.kind == frame.social.kind


def test_parquet_frames_still_analyse(
    frames: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    _, ads = frames
    ads.to_parquet(tmp_path / "ads.parquet")
    back = pd.read_parquet(tmp_path / "ads.parquet")
    pd.testing.assert_frame_equal(back.social.by_page(), ads.social.by_page())


def test_csv_numeric_ids_and_formulas(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "page_id": pd.array([7384427202391592960, None], dtype="Int64"),
            "author_company_id": [94275825.0, None],
            "text": ['=HYPERLINK("http://evil","x")', "+1 great"],
        }
    )
    plain = list(csv.DictReader(io.StringIO(frame.social.to_csv(tmp_path / "p.csv").read_text())))
    assert [r["page_id"] for r in plain] == ["7384427202391592960", ""]
    assert plain[0]["author_company_id"] == "94275825"
    assert plain[0]["text"] == '=HYPERLINK("http://evil","x")'  # plain CSV keeps text exactly
    path = frame.social.to_csv(tmp_path / "x.csv", excel=True)
    excel = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    assert excel[0]["page_id"] == '="7384427202391592960"'
    assert [r["text"] for r in excel] == ['\'=HYPERLINK("http://evil","x")', "'+1 great"]
