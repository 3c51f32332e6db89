"""The package's layers are a checked contract (``[tool.importlinter]`` in pyproject.toml):
no module imports from a layer above its own, and no package's modules import each
other in a circle. ``lint-imports`` reads the code, so this fails on the first
upward import anyone adds."""

from __future__ import annotations

import ast
import io
import re
import shutil
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_layers_contract_is_kept() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe is not None, "lint-imports is missing: pip install -e '.[test]'"
    done = subprocess.run(
        [exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 kept, 0 broken" in done.stdout


# -- tests reach a private module only as their subject --------------------------------

#: Where a test file imports a private module that is not its subject (its folder's
#: package and its name's module: tests/http/test_retry.py tests socialframe._http.retry):
#: each is set-up that should go through the public API. The list only shrinks.
REACHES: Final = {
    # one value shown alike everywhere: any frame the analysis returns as a report's
    # table (df.social.report shows only its sections' tables, cut and with some columns)
    ("display/test_values.py", "socialframe._display.report"),
}

#: ``import a, b as c`` / ``from a import (b, c)`` (over lines), wherever they stand (a
#: child's script in a string too); and a dotted name in quotes ("socialframe._x.y": what
#: importlib and monkeypatch take).
_IMPORT = re.compile(r"^\s*import\s+([\w., ]+)", re.MULTILINE)
_FROM = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^\n]+)", re.MULTILINE)
_QUOTED = re.compile(r"[\"'](socialframe(?:\.\w+)+)")


def _module(dotted: str) -> str:
    """The module (or package) a dotted name of the package leads to: its longest part
    that is a file or a folder of the package (``socialframe._study.run.RESUME_WITHIN``:
    ``socialframe._study.run``)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        path = ROOT.joinpath(*parts[:end])
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return ".".join(parts[:end])
    return dotted


def _code(text: str) -> str:
    """``text`` with its comments and docstrings blanked: prose may name a module it does
    not use (a child's script, a string, stays)."""
    tree = ast.parse(text)
    docstrings = {
        (node.body[0].lineno, node.body[0].col_offset)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    kept = list(text)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT or (
            token.type == tokenize.STRING and token.start in docstrings
        ):
            begin = starts[token.start[0] - 1] + token.start[1]
            end = starts[token.end[0] - 1] + token.end[1]
            kept[begin:end] = [c if c == "\n" else " " for c in kept[begin:end]]
    return "".join(kept)


def _reached(text: str) -> set[str]:
    """Every module of the package that ``text`` imports or names in quotes (its
    comments and docstrings left out)."""
    text = _code(text).replace("\\\n", " ")  # (a line continued: one line)
    names = [dotted for dotted, _, _ in _imports(text)]
    names += [found.group(1) for found in _QUOTED.finditer(text)]
    names += _through_aliases(text)
    return {_module(n) for n in names if n.split(".")[0] == "socialframe"}


def _imports(text: str) -> Iterator[tuple[str, str, str]]:
    """Each name an import of ``text`` takes: what it names, the name it binds and what
    that name is (``import a.b``: ``a.b``, ``a``, ``a``; ``from a import b as c``:
    ``a.b``, ``c``, ``a.b``)."""
    for found in _IMPORT.finditer(text):
        for imported in found.group(1).split(","):
            dotted, _, alias = (part.strip() for part in imported.partition(" as "))
            yield dotted, alias or dotted.split(".")[0], dotted if alias else dotted.split(".")[0]
    for found in _FROM.finditer(text):
        base, listed = found.group(1), found.group(2).strip("() \n")
        for imported in listed.split(","):
            name, _, alias = (part.strip() for part in imported.partition(" as "))
            dotted = f"{base}.{name}" if name else base
            yield dotted, alias or name, dotted


def _aliases(text: str) -> dict[str, str]:
    """The names ``text`` binds to a module of the package: ``import socialframe as sf``
    (``sf``), ``import socialframe._frames`` (``socialframe``), ``from socialframe import
    _words as words`` (``words``); not a name it takes from one."""
    return {
        alias: bound
        for _, alias, bound in _imports(text)
        if alias and bound.startswith("socialframe") and _module(bound) == bound
    }


def _through_aliases(text: str) -> list[str]:
    """What ``text`` reaches by attribute through a module it bound: ``_frames.values.x``
    with ``import socialframe._frames as _frames``, ``sf._cache.sqlite`` with ``import
    socialframe as sf`` (an import of the package alone names nothing private)."""
    names = []
    for alias, dotted in _aliases(text).items():
        for found in re.finditer(rf"(?<![\w.]){re.escape(alias)}((?:\.\w+)+)", text):
            names.append(dotted + found.group(1))
    return names


def _subject(test: Path) -> tuple[str, str]:
    """A test file's subject: its folder's package (``_http`` for tests/http/, none at
    the top) and its name's module (``retry`` for test_retry.py; a conftest's, and a
    test named after its folder's, the whole package)."""
    folder = test.parent.relative_to(ROOT / "tests").parts
    name = test.stem.removeprefix("test_")
    if folder:  # (tests/study/test_study_notify.py: socialframe._study.notify)
        name = name.removeprefix(folder[0] + "_")
    whole = name == "conftest" or bool(folder) and name == folder[0]  # tests/frames/test_frames.py
    package = ""  # (tests/sandbox/: the public socialframe.sandbox; tests/http/: _http)
    if folder:
        package = folder[0] if (ROOT / "socialframe" / folder[0]).is_dir() else "_" + folder[0]
    return package, ("" if whole else name)


def _named(name: str, module: str) -> bool:
    """Whether a test named ``name`` is of ``module``: the same, or more words after it
    (test_warm_read.py: warm; not test_runs.py: run)."""
    return not name or name == module or name.startswith(module + "_")


def _theirs(module: str, subject: tuple[str, str]) -> bool:
    """Whether ``module`` (``socialframe._http.retry``) is the test's subject's own."""
    parts = module.split(".")[1:]
    package, name = subject
    if not any(p.startswith("_") for p in parts) or parts[0] == "__main__":
        return True  # public (or the documented entry point)
    if package:  # tests/http/test_retry.py: socialframe._http or its module retry
        return parts[0] == package and (len(parts) == 1 or _named(name, parts[1].lstrip("_")))
    return len(parts) == 1 and _named(name, parts[0].lstrip("_"))  # tests/test_words.py


def test_tests_reach_a_private_module_only_when_it_is_their_subject() -> None:
    """A test of a private module's own unit may import it; a test that reaches into
    another module's internals to set itself up goes through the public API instead
    (issue 31). Every import line counts, those of a child process's script too."""
    found = set()
    for test in sorted((ROOT / "tests").rglob("*.py")):
        if test.name == "test_layers.py":  # (this file names the forms it looks for)
            continue
        for module in _reached(test.read_text(encoding="utf-8")):
            if not _theirs(module, _subject(test)):
                found.add((str(test.relative_to(ROOT / "tests")), module))
    assert found - REACHES == set(), "import the public API instead (or move the test)"
    assert REACHES - found == set(), "gone: take them off REACHES"


@pytest.mark.parametrize(
    ("text", "reached"),
    [
        ("from socialframe._http import retry", "socialframe._http.retry"),
        ("from socialframe._study.run import RESUME_WITHIN", "socialframe._study.run"),
        ('monkeypatch.setattr("socialframe._cache.sqlite.legacy", f)', "socialframe._cache.sqlite"),
        ("import socialframe as sf\nsf._study.run.RESUME_WITHIN", "socialframe._study.run"),
        ("import socialframe._frames as f\nf.ads.ad_ids(body)", "socialframe._frames.ads"),
        ("from socialframe import _frames\n_frames.values.NAT", "socialframe._frames.values"),
        ("import socialframe._cache.warm\nsocialframe._cache.warm.x", "socialframe._cache.warm"),
        (
            "from socialframe import (\n    Client,  # public\n    _frames,\n)",
            "socialframe._frames",
        ),
        ("from socialframe import Client, \\\n    _frames", "socialframe._frames"),
        ('CHILD = """\nfrom socialframe._display import files\n"""', "socialframe._display.files"),
    ],
)
def test_the_guard_sees_every_form_of_a_reach(text: str, reached: str) -> None:
    assert reached in _reached(text)


@pytest.mark.parametrize(
    "text",
    [
        "import socialframe\n# as socialframe._http.retry does",
        'import socialframe as sf\n\n\ndef test() -> None:\n    """Like sf._cache.warm."""',
        '"""See socialframe._fetch.pages and "socialframe._study.run"."""\nimport socialframe',
    ],
)
def test_prose_that_names_a_module_is_no_reach(text: str) -> None:
    assert _reached(text) <= {"socialframe"}


@pytest.mark.parametrize(
    ("test", "module", "theirs"),
    [
        ("http/test_retry.py", "socialframe._http.retry", True),
        ("http/test_retry.py", "socialframe._http.caller", False),
        ("sandbox/test_ads.py", "socialframe.sandbox._ads", True),  # (a public package's)
        ("sandbox/test_ads.py", "socialframe.sandbox._comments", False),
        ("frames/test_frames.py", "socialframe._frames.ads", True),  # (the package's test)
        ("study/test_study_notify.py", "socialframe._study.notify", True),
        ("test_words.py", "socialframe._words", True),
        ("test_words.py", "socialframe._cache", False),
    ],
)
def test_a_tests_subject_is_its_folders_package_and_its_names_module(
    test: str, module: str, theirs: bool
) -> None:
    assert _theirs(module, _subject(ROOT / "tests" / test)) is theirs
