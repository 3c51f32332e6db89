"""The command line's parser: its help describes every command and option, and a
mistyped command, choice or option gets the closest known one."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from socialframe._cli.parser import build_parser, parse_args


def _commands(
    parser: argparse.ArgumentParser, words: str = ""
) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(words or "socialframe", parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, f"{words} {name}".strip())
    return found


COMMANDS = _commands(build_parser())
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
    said = io.StringIO()
    with contextlib.redirect_stderr(said), pytest.raises(SystemExit) as stop:
        parse_args(argv)
    assert stop.value.code == 2
    lines = said.getvalue().splitlines()
    assert len(lines) == 1
    return lines[0]


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
