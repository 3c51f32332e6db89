"""The package's layers are a checked contract (``[tool.importlinter]`` in pyproject.toml):
no module imports from a layer above its own, and no package's modules import each
other in a circle. ``lint-imports`` reads the code, so this fails on the first
upward import anyone adds."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

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
    # every writer of files refuses a link (export's other formats than df.social.to_csv's
    # CSV have no public writer but -o); the study's names the display layer repeats
    ("display/test_files.py", "socialframe._display.export"),
    ("display/test_files.py", "socialframe._study.dataset"),
    ("display/test_files.py", "socialframe._study.lease"),
    ("display/test_files.py", "socialframe._study.legacy"),
    # a section that fails, and one added: the report's sections are a module of their own
    ("display/test_report.py", "socialframe._display.sections"),
    # one value shown alike everywhere: a notebook's HTML (shown through IPython's
    # formatter, only in a shell), the widget's table, any frame as a report's table
    ("display/test_values.py", "socialframe._display.html"),
    ("display/test_values.py", "socialframe._display.notebook"),
    ("display/test_values.py", "socialframe._display.report"),
    # a body cut short, as the transport hands it over
    ("http/test_answers.py", "socialframe._http.transport"),
    # compaction every 4 refreshes, not 50; a kill -9 after the Nth Delta commit
    ("study/test_history.py", "socialframe._study.dataset"),
    ("study/test_migration.py", "socialframe._study.dataset"),
    # the filters' TypedDict, checked against the docs (imported for type checking only)
    ("test_public_api.py", "socialframe._client"),
}

_PRIVATE = re.compile(
    r"^\s*(?:from|import)\s+(socialframe(?:\.[A-Za-z_]\w*)*)"
    r"(?:\s+import\s+([\w, ()]+))?",
    re.MULTILINE,
)


def _imported(line: re.Match[str]) -> list[str]:
    """The modules an import line names (``from socialframe._a import b, c``: ``_a.b``
    where ``b`` is a module, else ``_a``)."""
    base = line.group(1)
    names = [n.strip(" ()") for n in (line.group(2) or "").split(",") if n.strip(" ()")]
    found = []
    for name in names or [""]:
        name = name.split(" as ")[0].strip()
        module = f"{base}.{name}" if name else base
        found.append(module if (ROOT / (module.replace(".", "/") + ".py")).exists() else base)
    return found


def _subject(test: Path) -> tuple[str, str]:
    """A test file's subject: its folder's package (``_http`` for tests/http/, none at
    the top) and its name's module (``retry`` for test_retry.py; a conftest's, the
    whole package)."""
    folder = test.parent.relative_to(ROOT / "tests").parts
    name = test.stem.removeprefix("test_")
    if folder:  # (tests/study/test_study_notify.py: socialframe._study.notify)
        name = name.removeprefix(folder[0] + "_")
    return ("_" + folder[0] if folder else ""), ("" if name == "conftest" else name)


def _theirs(module: str, subject: tuple[str, str]) -> bool:
    """Whether ``module`` (``socialframe._http.retry``) is the test's subject's own."""
    parts = module.split(".")[1:]
    package, name = subject
    if not parts or not parts[0].startswith("_") or parts[0] == "__main__":
        return True  # public (or the documented entry point)
    if parts[0] == "sandbox":
        return not any(p.startswith("_") for p in parts[1:])
    if package:  # tests/http/test_retry.py: socialframe._http or its module retry*
        return parts[0] == package and (len(parts) == 1 or name.startswith(parts[1]) or not name)
    return name.startswith(parts[0].lstrip("_"))  # tests/test_words.py: socialframe._words


def test_tests_reach_a_private_module_only_when_it_is_their_subject() -> None:
    """A test of a private module's own unit may import it; a test that reaches into
    another module's internals to set itself up goes through the public API instead
    (issue 31). Every import line counts, those of a child process's script too."""
    found = set()
    for test in sorted((ROOT / "tests").rglob("*.py")):
        for line in _PRIVATE.finditer(test.read_text(encoding="utf-8")):
            for module in _imported(line):
                if not _theirs(module, _subject(test)):
                    found.add((str(test.relative_to(ROOT / "tests")), module))
    assert found - REACHES == set(), "import the public API instead (or move the test)"
    assert REACHES - found == set(), "gone: take them off REACHES"
