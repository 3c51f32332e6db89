"""A study's Delta tables (``socialframe._study.dataset``): a refresh compacts them by
itself every :data:`~socialframe._study.dataset.COMPACT_EVERY` refreshes (50; set small
here: fifty refreshes take minutes). Real tables on a folder, refreshed through the
sandbox over HTTP, as tests/study/test_history.py refreshes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_history import P50, _refreshes

import socialframe as sf
from socialframe._study import dataset


def test_a_refresh_compacts_every_so_many_refreshes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dataset, "COMPACT_EVERY", 4)
    study = sf.Study(tmp_path / "s")
    study.add_posts([P50])
    _refreshes(study, 5)
    import deltalake

    runs = deltalake.DeltaTable(str(tmp_path / "s" / "runs"))
    assert len(runs.file_uris()) == 2  # four compacted into one, and the fifth
    assert len(study.runs()) == 5
