"""The package's layers are a checked contract (``[tool.importlinter]`` in pyproject.toml):
no module imports from a layer above its own, and no package's modules import each
other in a circle. ``lint-imports`` reads the code, so this fails on the first
upward import anyone adds."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_layers_contract_is_kept() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe is not None, "lint-imports is missing: pip install -e '.[test]'"
    done = subprocess.run(
        [exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 kept, 0 broken" in done.stdout
