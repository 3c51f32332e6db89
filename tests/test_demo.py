"""The main job, run as a user runs it: twice, the second time for free."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path


def run_demo(tmp_path: Path) -> str:
    env = dict(os.environ, SOCIALFRAME_CACHE_DIR=str(tmp_path / "cache"), MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", "demo", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_demo_twice_second_run_pays_nothing(tmp_path: Path) -> None:
    first = run_demo(tmp_path)
    assert "2,345 comments" in first and "60 ads" in first
    paid = int(re.search(r"ledger:\s+paid (\d+) call", first).group(1))  # type: ignore[union-attr]
    assert paid == 47 + 3
    assert f"sandbox: {paid} paid calls served" in first
    second = run_demo(tmp_path)
    assert "ledger:  paid 0 calls ($0.00) · cached 50 ($0.50 saved)" in second
    assert "sandbox: 0 paid calls served" in second
    chart = tmp_path / "out" / "comment-activity.png"
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 10_000
