"""The README tells the truth: its standalone examples run, its layout map is the tree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(heading: str) -> str:
    start = README.index(f"## {heading}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("heading", ["Example", "Testing code that uses socialframe"])
def test_standalone_examples_run(
    heading: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    [code] = blocks(section(heading), "python")
    exec(compile(code, f"README.md: {heading}", "exec"), {"__name__": "__readme__"})


def test_layout_map_is_the_tree() -> None:
    [tree] = blocks(section("Layout"), "")
    package_part = tree.split("\ntests/")[0]
    named = set(re.findall(r"(_?[a-z_]+(?:\.py|/))", package_part))
    package = ROOT / "socialframe"
    actual = {p.name for p in package.glob("*.py")} | {
        f"{p.name}/" for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"
    }
    assert actual - named == set(), "modules missing from the README's layout map"
    assert {n for n in named if n != "socialframe/"} - actual == set(), (
        "the layout map names modules that do not exist"
    )
