"""The command line's parser: its help describes every command and option, and a
mistyped command, choice or option gets the closest known one."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

import pytest
from test_cli import P82, P2345, SCRIPT, _env, cli

from socialframe._cli import parser as _parser  # its tree of commands and options, read whole
from socialframe.sandbox import Sandbox


def _commands(
    parser: argparse.ArgumentParser, words: str = ""
) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(words or "socialframe", parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, f"{words} {name}".strip())
    return found


COMMANDS = _commands(_parser.build_parser())
FLAGS = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


@pytest.mark.parametrize(("words", "parser"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_every_command_says_what_it_does(words: str, parser: argparse.ArgumentParser) -> None:
    """Before: `sandbox`, `demo`, `study add-posts` and `cache info` had no description."""
    assert parser.description and len(parser.description.split()) >= 6, words


@pytest.mark.parametrize(("words", "parser"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_every_option_says_what_it_does_and_its_default(
    words: str, parser: argparse.ArgumentParser
) -> None:
    """Before: --seed and --country had no help, --port no default, and a dozen options
    left their default unsaid."""
    for action in parser._actions:
        if isinstance(action, FLAGS) or action.help == argparse.SUPPRESS:
            continue
        assert action.help, f"{words} {action.dest}: no help"
        if action.option_strings and not action.required:
            # (what is used without it: a default, or the argument it stands in for)
            said = "default" in action.help or "instead of" in action.help
            assert said, f"{words} {action.option_strings[0]}: no default said"


def _refused(argv: list[str]) -> str:
    """The one line the command line says when it refuses ``argv`` (exit code 2)."""
    run = cli(*argv)
    assert run.code == 2 and run.out == ""
    assert len(run.lines) == 1, run.err
    return run.lines[0]


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["comment", "1"], "did you mean comments?"),
        (["stdy", "refresh", "x"], "did you mean study?"),
        (["study", "refrsh", "x"], "did you mean refresh?"),
        (["cache", "inf"], "did you mean info?"),
        (["comments", "1", "--sort", "mostrecent"], "did you mean mostRecent?"),
    ],
)
def test_a_mistyped_command_or_choice_gets_the_closest(argv: list[str], hint: str) -> None:
    """Before: argparse's "invalid choice: 'comment' (choose from ...)" with no hint, as a
    mistyped option had."""
    assert hint in _refused(argv)


def test_an_option_of_another_command_says_whose_it_is() -> None:
    """Before: `comments --no-cache` said "did you mean --no-cache?", the option typed."""
    line = _refused(["comments", "1", "--no-cache"])
    assert "--no-cache is an option of 'socialframe demo', not of 'socialframe comments'" in line
    assert "did you mean --no-cache" not in line
    line = _refused(["comments", "1", "--full"])
    assert "--full is an option of 'socialframe study refresh'" in line


def test_a_suggestion_comes_from_the_command_typed() -> None:
    """Before: `comments --countri` suggested --country, an option of `ads` only."""
    line = _refused(["comments", "1", "--countri", "US"])
    assert "--country" not in line and "US" not in line  # (values are never repeated)
    assert "did you mean --country?" in _refused(["ads", "x", "--countri", "US"])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "position", "shown"),
    [
        ([b"ads", b"\xff"], 2, r"\xff"),
        ([b"ads", b"caf\xe9 au lait"], 2, r"caf\xe9 au lait"),
        ([b"ads", b"coffee", b"--country", b"\xff"], 4, r"\xff"),
        ([b"comments", P82.encode(), b"--sort", b"\xfe"], 4, r"\xfe"),
        ([b"comments", b"\xff"], 2, r"\xff"),
    ],
)
def test_an_argument_that_is_not_utf8_is_one_line(
    sandbox: Sandbox, tmp_path: Path, args: list[bytes], position: int, shown: str
) -> None:
    """Python hands such bytes over as lone surrogates: the run ended on a raw codec
    message ("'utf-8' codec can't encode character '\\udcff'...")."""
    done = subprocess.run(
        [os.fsencode(str(SCRIPT)), *args, b"--cache", os.fsencode(tmp_path)],
        capture_output=True,
        env=_env(sandbox),
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.decode("utf-8").splitlines() == [
        f"socialframe: error: argument {position} ({shown}) is not UTF-8 text: type it, or save"
        " the script or list holding it, as UTF-8 (see 'socialframe --help')"
    ]
    assert sandbox.requests == []


@pytest.mark.slow
def test_a_setting_that_is_not_utf8_is_one_line(sandbox: Sandbox) -> None:
    url = sandbox.url + "/caf\udce9"  # (the bytes caf\xe9, as Python reads them)
    done = subprocess.run(
        [str(SCRIPT), "comments", P82],
        capture_output=True,
        text=True,
        env=_env(sandbox, SOCIALFRAME_COMMENTS_URL=url),
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "socialframe: error: SOCIALFRAME_COMMENTS_URL is not UTF-8 text: set it again, as UTF-8"
        " (see 'socialframe --help')"
    ]
    assert sandbox.requests == []


@pytest.mark.slow
def test_a_budget_of_minus_zero_is_zero(sandbox: Sandbox) -> None:
    run = cli("comments", P82, "--max-cost", "-0", sandbox=sandbox)
    assert run.code == 3 and "$-" not in run.err
    assert run.lines[-1].startswith(
        "socialframe: error: stopped by --max-cost $0.00 before the next paid call (spent $0.00)"
    )
    assert sandbox.requests == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "value",
    ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "1e300", "1000000.01", "-1", "-0.01"]
    + ["0.005", "1.234", "1,5", "", "$", "0x10", "one"],
)
def test_a_budget_that_is_no_amount_is_refused(sandbox: Sandbox, value: str) -> None:
    run = cli("comments", P82, f"--max-cost={value}", sandbox=sandbox)  # (= : "-inf" is no option)
    assert run.code == 2 and len(run.lines) == 1, run.err
    assert run.lines[0].startswith(
        "socialframe: error: argument --max-cost: expected an amount of USD in whole cents"
        " from 0 to 1,000,000, such as 1.50"
    )
    assert sandbox.requests == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "shown"), [("$0.03", "$0.03"), ("0.030", "$0.03"), ("3e-2", "$0.03")]
)
def test_a_budget_in_whole_cents_is_taken(sandbox: Sandbox, value: str, shown: str) -> None:
    run = cli("comments", P2345, "--max-cost", value, sandbox=sandbox)
    assert run.code == 3 and sandbox.charges == 3
    assert f"stopped by --max-cost {shown} before the next paid call (spent $0.03)" in run.err


SECRET = "sk_live_9fQxTz2Lp0SECRET"


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["--api-key", SECRET, "comments", "123"],
        ["comments", "123", "--apikey", SECRET],
        ["comments", "123", f"--token={SECRET}"],
        ["cache", "info", "--api_key", SECRET],
        ["comments", "123", "--key-env", SECRET],
        ["comments", "123", "--bogus", SECRET],
        ["comments", "123", "--key-env", SECRET.upper()],  # a key in capitals passes the name rule
        ["comments", "123", "--cache", f"reddis://:{SECRET}@127.0.0.1:6379/0"],
    ],
)
def test_a_key_typed_on_the_command_line_is_never_repeated(
    sandbox: Sandbox, argv: list[str]
) -> None:
    run = cli(*argv, sandbox=sandbox, env={"SOCIALFRAME_API_KEY": ""})
    assert run.code in (2, 4)
    assert SECRET not in (run.out + run.err).replace(SECRET.upper(), SECRET)
    assert sandbox.requests == []
