"""The report's sections (``socialframe._display.sections``): a section for a new analysis
is one more entry of ``COMMENT_SECTIONS``, and nothing else changes; an entry that fails
is the report's error. Reports are read back as tests/display/test_report.py reads them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import test_report
from test_report import TEXT_1, TEXT_2, body, read

from socialframe._display import sections as _sections

# tests/display/test_report.py's fixture, shared: five comments that attack the page.
hostile = test_report.hostile


def test_a_new_section_is_one_entry(
    hostile: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = (
        lambda df, tz: _sections.Section("Texts", table=df[["text"]].head(2), caption="<two>"),
        lambda df, tz: None,  # a builder may leave its section out
    )
    monkeypatch.setattr(_sections, "COMMENT_SECTIONS", (*_sections.COMMENT_SECTIONS, *extra))
    page = read(hostile.social.report(tmp_path / "r.html"))
    assert page.headings[-1] == "Texts" and page.captions["Texts"] == "<two>"
    assert body(page, "Texts") == [[TEXT_1], [TEXT_2]]
    links = [a["href"] for tag, a in page.tags if tag == "a" and a["href"].startswith("#")]
    assert links == [f"#s{n}" for n in range(1, 9)]  # the seven sections, then "Texts"


def test_a_section_that_fails_is_raised_and_leaves_the_old_report(
    hostile: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A section's builder that raises is the report's error (no report quietly short of
    a section), and the report already there stays as it was, with no file left over."""
    path = hostile.social.report(tmp_path / "r.html")
    old = path.read_bytes()

    def broken(df: pd.DataFrame, tz: str) -> _sections.Section:
        raise RuntimeError("a section failed")

    monkeypatch.setattr(_sections, "COMMENT_SECTIONS", (*_sections.COMMENT_SECTIONS, broken))
    with pytest.raises(RuntimeError, match="a section failed"):
        hostile.social.report(path)
    assert path.read_bytes() == old and [p.name for p in tmp_path.iterdir()] == ["r.html"]
    with pytest.raises(RuntimeError, match="a section failed"):
        hostile.social.report(tmp_path / "new.html")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
