"""The README and docs/ tell the truth: every Python and shell example runs as written,
every link lands, the layout map is the tree, and CI runs the README's test command.

A block that cannot run as it is (the real service, which needs a key; a command that
serves until Ctrl-C; one that installs packages) has ``<!-- not run: why -->`` on the
line before it, and must say why.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"<!-- not run: (?P<why>.*?) -->")
FENCE = re.compile(r"^```(?P<language>[a-z]*)\n(?P<code>.*?)^```$", flags=re.S | re.M)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    code: str
    not_run: str | None  # why, for a block marked not to be run


def text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks, in order, each with the reason it is not run (if so)."""
    source = text(page)
    found = []
    for match in FENCE.finditer(source):
        before = source[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = NOT_RUN.fullmatch(before.strip())
        found.append(
            Block(
                page=page.relative_to(ROOT).as_posix(),
                line=source.count("\n", 0, match.start()) + 1,
                language=match["language"],
                code=match["code"],
                not_run=marker["why"].strip() if marker else None,
            )
        )
    return found


def runnable(language: str) -> list[Path]:
    return [p for p in PAGES if any(b.language == language and not b.not_run for b in blocks(p))]


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_pages_have_examples_and_every_block_not_run_says_why() -> None:
    for page in PAGES:
        source = text(page)
        marked = [b for b in blocks(page) if b.not_run is not None]
        assert all(b.not_run for b in marked), f"{name(page)}: a 'not run' needs its reason"
        assert all(b.language in {"python", "bash"} for b in marked), name(page)
        # a marker is on the line just before a block, or it marks nothing
        markers = re.findall(rf"^{NOT_RUN.pattern}$", source, flags=re.M)
        assert len(markers) == len(marked), f"{name(page)}: a stray marker"
    assert len(runnable("python")) >= 8 and len(runnable("bash")) >= 3


def test_readme_is_short_and_links_every_page() -> None:
    readme = text(ROOT / "README.md")
    assert len(readme.splitlines()) < 350
    for page in PAGES[1:]:
        assert f"](docs/{page.name})" in readme, f"README does not link {name(page)}"


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_link_lands(page: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", text(page)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        landing = (page.parent / path).resolve() if path else page
        assert landing.exists(), f"{name(page)} links {target}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", text(landing), flags=re.M)
            assert anchor in {slug(h) for h in headings}, f"{name(page)} links {target}"


def test_ci_runs_the_readme_test_command_exactly() -> None:
    [opening] = [b for b in blocks(ROOT / "README.md") if b.language == "bash"][:1]
    main_job, tests = opening.code.splitlines()
    assert "socialframe demo" in main_job
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().splitlines()[-1]
    assert ci == tests, ".ci/run must run the README's test command, exactly"


def test_layout_map_is_the_tree() -> None:
    development = text(ROOT / "docs" / "development.md")
    layout = development[development.index("## Layout\n") :]
    tree = next(b.code for b in blocks(ROOT / "docs" / "development.md") if b.code in layout)
    package_part = tree.split("\ntests/")[0]
    named = set(re.findall(r"(_?[a-z_]+(?:\.py|/))", package_part))
    package = ROOT / "socialframe"
    actual = {p.name for p in package.glob("*.py")} | {
        f"{p.name}/" for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"
    }
    assert actual - named == set(), "modules missing from the layout map"
    assert {n for n in named if n != "socialframe/"} - actual == set(), (
        "the layout map names modules that do not exist"
    )


@pytest.mark.slow
@pytest.mark.parametrize("page", runnable("python"), ids=name)
def test_python_examples_run_as_written(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page's Python, block after block in one session, as a reader pastes it, in a new
    folder: no name it does not define. The environment names a sandbox, as it would
    name the real service, for the examples that build `sf.Client()` from it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from socialframe.sandbox import PinnedClock, Sandbox

    monkeypatch.chdir(tmp_path)
    with Sandbox(clock=PinnedClock()) as service:
        monkeypatch.setenv("SOCIALFRAME_API_KEY", service.api_key)
        monkeypatch.setenv("SOCIALFRAME_BASE_URL", service.url)
        namespace: dict[str, object] = {"__name__": "__docs__"}
        code = [b for b in blocks(page) if b.language == "python" and not b.not_run]
        try:
            for block in code:
                where = f"{block.page}, the block at line {block.line}"
                exec(compile(block.code, where, "exec"), namespace)
                if page.name == "README.md" and block is code[0]:
                    # what the example's last line says it prints, it prints
                    printed = capsys.readouterr().out
                    assert printed.rstrip().endswith(
                        "paid 5 calls ($0.05) · cached 0 ($0.00 saved) · failed 0 (free)"
                    )
        finally:
            plt.close("all")
            for value in namespace.values():  # the sandboxes and clients a page started
                closing = getattr(value, "close", None) or getattr(value, "stop", None)
                if callable(closing) and type(value).__module__.startswith("socialframe"):
                    closing()


def test_the_filter_example_shows_what_it_says() -> None:
    """docs/analysis.md's filter, on the README example's post: "same rows, fewer"."""
    from socialframe.sandbox import example_comments

    analysis = text(ROOT / "docs" / "analysis.md")
    line = next(x for x in analysis.splitlines() if ".social.filter(" in x)
    filtered = eval(line.split("#")[0], {"comments": example_comments()})
    assert 0 < len(filtered) < 82, line


@pytest.fixture
def sandbox_shell(tmp_path: Path) -> dict[str, str]:
    """The environment of a terminal where the lines `socialframe sandbox` printed were
    pasted: the sandbox runs in its own process, as a reader starts it."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOCIALFRAME_")}
    env |= {
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "SOCIALFRAME_CACHE_DIR": str(tmp_path / "cache"),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "socialframe", "sandbox", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        printed = [server.stdout.readline() for _ in range(3)]
        exports = [line.strip().removeprefix("export ") for line in printed[1:]]
        assert [e.split("=")[0] for e in exports] == [
            "SOCIALFRAME_BASE_URL",
            "SOCIALFRAME_API_KEY",
        ], printed
        env |= dict(e.split("=", 1) for e in exports)
        yield env
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()


@pytest.mark.slow
@pytest.mark.parametrize("page", runnable("bash"), ids=name)
def test_shell_examples_run_as_written(
    page: Path, tmp_path: Path, sandbox_shell: dict[str, str]
) -> None:
    """A page's shell blocks, one after the other in one new folder, with `bash -e` (a
    failing command fails the block), against a sandbox `socialframe sandbox` serves."""
    work = tmp_path / "work"
    work.mkdir()
    if (ROOT / "socialframe").is_dir() and not Path(sys.executable).parent.joinpath(
        "socialframe"
    ).exists():
        pytest.fail(f"no `socialframe` beside {sys.executable}: install the package")
    for block in blocks(page):
        if block.language != "bash" or block.not_run:
            continue
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block.code],
            cwd=work,
            env=sandbox_shell,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, (
            f"{block.page}, the block at line {block.line}, exit {done.returncode}:\n"
            f"{block.code}\nstderr:\n{done.stderr[-3000:]}"
        )
