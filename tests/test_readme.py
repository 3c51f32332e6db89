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


@pytest.mark.slow
def test_every_example_runs_as_written_in_order_and_shows_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's Python, block after block in one session, as a reader pastes it: no
    name it does not define, and what its comments say it shows, it shows. The
    environment names a sandbox, as it would name the real service."""
    import matplotlib

    matplotlib.use("Agg")
    from socialframe.sandbox import PinnedClock, Sandbox

    monkeypatch.chdir(tmp_path)
    with Sandbox(clock=PinnedClock()) as service:
        monkeypatch.setenv("SOCIALFRAME_API_KEY", service.api_key)
        monkeypatch.setenv("SOCIALFRAME_BASE_URL", service.url)
        monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path / "cache"))
        namespace: dict[str, object] = {"__name__": "__readme__"}
        for number, code in enumerate(blocks(README, "python")):
            exec(compile(code, f"README.md: python block {number + 1}", "exec"), namespace)
            if number == 0:  # the Example: what its last line says it prints
                printed = capsys.readouterr().out
                assert printed.rstrip().endswith(
                    "paid 5 calls ($0.05) · cached 0 ($0.00 saved) · failed 0 (free)"
                )
    # the filter example, on the Example's post: "same rows, fewer": some, not none
    from socialframe.sandbox import example_comments

    line = next(x for x in README.splitlines() if ".social.filter(" in x)
    filtered = eval(line.split("#")[0], {"comments": example_comments()})
    assert 0 < len(filtered) < 82, line
