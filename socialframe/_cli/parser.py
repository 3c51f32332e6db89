"""The parser: what the command line accepts, its help, and how it says no.

Arguments that would carry an API key, and arguments or settings that are not
UTF-8, are refused before parsing, without repeating them; a bad value gets one
line naming what is allowed (exit 2), never argparse's usage block.

Built on argparse: it is in the standard library and adds about 7 ms to the
start where click adds about 25 ms and typer about 50 ms (plus rich for its
help); the start itself is importing pandas (~0.5 s). Its help lists every
option with its default, and an epilog carries the exit codes.

Why over 400 lines: most of it is the help users read (every command's options,
their descriptions and examples); the code is the option types and the refusals.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Final, NoReturn

from .._time import instant
from .exits import CACHE_EXIT_CODES, EXIT_CODES, EXIT_USAGE
from .messages import ENV_NAME, PROG, holds_key, printable, say

ENVIRONMENT: Final = """\
environment:
  SOCIALFRAME_API_KEY     the API key (--key-env names another variable); never
                          put a key on the command line: it stays in shell history
  SOCIALFRAME_BASE_URL    the service's base URL (or SOCIALFRAME_ADS_URL and
                          SOCIALFRAME_COMMENTS_URL)
  SOCIALFRAME_CACHE_DIR   folder of the cache; SOCIALFRAME_CACHE_URL: a team cache
                          (redis://host:port/db); SOCIALFRAME_CACHE_EXPIRE: seconds
"""

OUTPUT_HELP: Final = (
    "write to FILE; its suffix picks the format: .csv (ids as text, lists as JSON),"
    " .jsonl (one row per line), .parquet, .xlsx (if openpyxl is installed);"
    " /dev/null discards the rows; default (or -): CSV to standard output. Never written"
    " through a link, over the cache, or into a study"
)

EXCEL_HELP: Final = (
    "CSV for a spreadsheet: a BOM, ids kept as text, text that would be a formula kept as"
    " text (default: exact data, for programs)"
)
COUNTRY_HELP: Final = "ISO-3166 code such as US, or ALL (default: the service's, no filter)"
STATUS_HELP: Final = "running, stopped or both (default: the service's, no filter)"

#: The most --max-cost takes: more is no budget (leave the option out).
MAX_COST_USD: Final = Decimal(1_000_000)

#: Options whose value is a file name: given to the system as the bytes typed, so
#: they need not be UTF-8 (every other value is text sent or shown).
_PATH_OPTIONS: Final = ("-o", "--output", "--cache", "--out")

#: Settings from the environment that are text (SOCIALFRAME_CACHE_DIR is a file name).
_TEXT_SETTINGS: Final = tuple(
    f"SOCIALFRAME_{n}"
    for n in ("BASE_URL", "ADS_URL", "COMMENTS_URL", "AUTH_HEADER", "CACHE_URL", "CACHE_EXPIRE")
)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command and its options, or exit 2 with one line saying what is wrong.

    Key-like options and arguments that are not UTF-8 are refused before argparse
    reads them, so that neither is ever repeated in a message.
    """
    _refuse_key_options(argv)
    _refuse_bytes(argv)
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parser.unrecognized(unknown, _chosen(parser, args))
    return args


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser of the command ``args`` ran: ``study refresh``'s, say."""
    chosen = parser
    while True:
        sub = next((a for a in chosen._actions if isinstance(a, argparse._SubParsersAction)), None)
        name = getattr(args, sub.dest, None) if sub is not None and sub.dest else None
        if sub is None or name not in sub.choices:
            return chosen
        chosen = sub.choices[name]


def _options(parser: argparse.ArgumentParser) -> set[str]:
    """The long options ``parser`` itself takes (not its commands')."""
    return {
        o
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for o in action.option_strings
        if o.startswith("--")
    }


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command under ``parser``, by its words (``study refresh``), depth first."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append((name, sub))
                found += [(f"{name} {deeper}", p) for deeper, p in _commands(sub)]
    return found


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the message and where to read more."""

    def error(self, message: str) -> NoReturn:
        wrong = re.match(r"argument (\S+): invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if wrong:
            # A mistyped command (or choice) gets the closest, as a mistyped option does.
            import difflib

            # (Python 3.12 stopped quoting the choices)
            choices = [c.strip().strip("'") for c in wrong.group(3).split(",")]
            close = difflib.get_close_matches(wrong.group(2), choices, n=1, cutoff=0.6)
            given = wrong.group(2) if len(wrong.group(2)) <= 40 else wrong.group(2)[:39] + "…"
            message = f"{wrong.group(1)} {given!r} is not one of {', '.join(choices)}"
            if close:
                message += f"; did you mean {close[0]}?"
        say(f"error: {message} (see '{self.prog} --help')")
        raise SystemExit(EXIT_USAGE)

    def unrecognized(self, tokens: Sequence[str], command: argparse.ArgumentParser) -> NoReturn:
        """Exit 2 for arguments ``command`` does not take: their option names (a value may
        be a key typed after a wrong option), each with the closest option ``command``
        takes, or the commands that take it."""
        import difflib

        names = [token.split("=", 1)[0] for token in tokens if token.startswith("-")]
        message = "unrecognized arguments: " + (" ".join(names) or "(values not shown)")
        known = _options(command)
        hints = []
        for name in names:
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
            elsewhere = [words for words, sub in _commands(self) if name in _options(sub)]
            if elsewhere:
                hints.append(
                    f"{name} is an option of '{self.prog} {elsewhere[0]}', not of '{command.prog}'"
                )
            elif close:
                hints.append(f"did you mean {close[0]}?")
        if hints:
            message += "; " + "; ".join(hints)
        say(f"error: {message} (see '{command.prog} --help')")
        raise SystemExit(EXIT_USAGE)


# Options that would carry a secret: refused before parsing, never repeated.
_KEY_OPTION = re.compile(
    r"--?(api[-_]?key|apikey|key|token|secret|password|auth)(=.*)?", re.IGNORECASE
)


def _refuse_key_options(argv: Sequence[str]) -> None:
    """Exit 2 when a key-like option is on the command line, without echoing its value
    (the sandbox command's own --api-key, the key the sandbox accepts, excepted)."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command == "sandbox":
        return
    holding = next((n for n, a in enumerate(argv, 1) if holds_key(a)), None)
    if holding is not None or any(_KEY_OPTION.fullmatch(a) for a in argv):
        where = "" if holding is None else f"argument {holding} holds the API key: "
        say(
            f"error: {where}never put the API key on the command line (it stays in shell"
            " history): set SOCIALFRAME_API_KEY, or name another variable with"
            f" --key-env NAME (see '{PROG} --help')"
        )
        raise SystemExit(EXIT_USAGE)


def _refuse_bytes(argv: Sequence[str]) -> None:
    """Exit 2 on an argument or a setting that is not UTF-8 (Python keeps its bytes as lone
    surrogates, which no request, cache key or file format can carry), file names excepted."""
    for name in _TEXT_SETTINGS:
        if not _is_utf8(os.environ.get(name, "")):
            # (its value not shown: a URL may carry a password)
            say(f"error: {name} is not UTF-8 text: set it again, as UTF-8 (see '{PROG} --help')")
            raise SystemExit(EXIT_USAGE)
    path_value = False
    for position, token in enumerate(argv, 1):
        is_path = path_value or token.startswith(tuple(f"{o}=" for o in _PATH_OPTIONS[1:]))
        is_path = is_path or (token.startswith("-o") and not token.startswith("--"))
        path_value = token in _PATH_OPTIONS
        if is_path or _is_utf8(token):
            continue
        say(
            f"error: argument {position} ({printable(token)}) is not UTF-8 text: type it,"
            " or save the script or list holding it, as UTF-8"
            f" (see '{PROG} --help')"
        )
        raise SystemExit(EXIT_USAGE)


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _RefuseKey(argparse.Action):
    """``--api-key``: refused without repeating it, since the key would be in the output."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        parser.error(
            "never put the API key on the command line (it stays in shell history):"
            " set SOCIALFRAME_API_KEY, or name another variable with --key-env NAME"
        )


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _usd(text: str) -> float:
    """A budget in USD: whole cents (each call costs one), from 0 to :data:`MAX_COST_USD`."""
    allowed = f"an amount of USD in whole cents from 0 to {MAX_COST_USD:,}, such as 1.50"
    try:
        value = Decimal(text.strip().removeprefix("$"))
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}") from None
    if not value.is_finite() or value < 0 or value > MAX_COST_USD:
        raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}")
    if value * 100 != int(value * 100):
        raise argparse.ArgumentTypeError(
            f"expected {allowed} (a call costs $0.01: no fraction of a cent), got {text!r}"
        )
    return float(abs(value))  # (abs: "-0" is 0, never shown as $-0.00)


def _env_name(text: str) -> str:
    # Capitals, digits and _, as environment variables are named: a key pasted here by
    # mistake is refused without being repeated in a message.
    if not ENV_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            "expected the NAME of an environment variable holding the key, not a key"
        )
    return text


def build_parser() -> _Parser:
    """The ``socialframe`` parser with every command."""
    from .._version import __version__

    formatter = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog=PROG,
        description="Paid social data into files and frames, cached and budgeted.\n\n"
        "  socialframe comments POST [POST ...] -o comments.csv\n"
        "  socialframe ads 'running shoes' --country US --max-ads 100 -o ads.parquet\n"
        "  socialframe cache report",
        epilog=EXIT_CODES + "\n" + ENVIRONMENT,
        formatter_class=formatter,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    fetching = _Parser(add_help=False, allow_abbrev=False)
    out = fetching.add_argument_group("output")
    out.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    out.add_argument("--excel", action="store_true", help=EXCEL_HELP)
    spend = fetching.add_argument_group("spending and the cache")
    spend.add_argument(
        "--max-cost",
        type=_usd,
        metavar="USD",
        help="USD this run may spend, not a total over runs (cached pages are free): it"
        " stops before the call that would spend more (exit 3, rows so far written);"
        " default: no limit",
    )
    spend.add_argument(
        "--workers", type=_count, default=4, metavar="N", help="items fetched at once (default 4)"
    )
    spend.add_argument(
        "--offline",
        action="store_true",
        help="answer from the cache only; send nothing (default: ask the service for what"
        " the cache lacks)",
    )
    spend.add_argument(
        "--on-error",
        choices=("raise", "skip"),
        default="raise",
        help="with several items: stop at the first that fails (default), or skip it",
    )
    _cache_option(spend)
    spend.add_argument(
        "--key-env",
        type=_env_name,
        default="SOCIALFRAME_API_KEY",
        metavar="NAME",
        help="environment variable holding the API key (default SOCIALFRAME_API_KEY)",
    )
    for refused in ("--api-key", "--key"):
        spend.add_argument(refused, nargs="?", action=_RefuseKey, help=argparse.SUPPRESS)

    comments = commands.add_parser(
        "comments",
        parents=[fetching],
        help="the comments of posts, one row per comment",
        description="All comments of one or more LinkedIn posts (replies included), one\n"
        "row per comment, the post as given in the first column.",
        epilog=EXIT_CODES,
        formatter_class=formatter,
        allow_abbrev=False,
    )
    comments.add_argument(
        "posts",
        nargs="+",
        metavar="POST",
        help="a post id, urn:li:activity:<id> or post URL; '-' reads one per line from stdin",
    )
    comments.add_argument(
        "--sort",
        choices=("mostRelevant", "mostRecent"),
        default="mostRelevant",
        help="the service's order of the comments (default mostRelevant)",
    )
    comments.add_argument(
        "--max-pages", type=_count, metavar="N", help="pages per post, 50 each (default: all)"
    )

    ads = commands.add_parser(
        "ads",
        parents=[fetching],
        help="a Meta Ad Library search, one row per ad",
        description="Ads of the Meta Ad Library matching each QUERY (or of one advertiser\n"
        "page), one row per distinct ad, with the query it matched.",
        epilog=EXIT_CODES,
        formatter_class=formatter,
        allow_abbrev=False,
    )
    ads.add_argument(
        "queries",
        nargs="*",
        metavar="QUERY",
        help="search text; '-' reads one per line from stdin (or give --page-id)",
    )
    ads.add_argument(
        "--page-id", metavar="ID", help="numeric id of an advertiser page (instead of a QUERY)"
    )
    ads.add_argument("--country", metavar="CC", help=COUNTRY_HELP)
    ads.add_argument("--status", choices=("active", "inactive", "all"), help=STATUS_HELP)
    ads.add_argument(
        "--after", metavar="DATE", help="ads started on or after this day (default: any day)"
    )
    ads.add_argument(
        "--before", metavar="DATE", help="ads started on or before this day (default: any day)"
    )
    ads.add_argument(
        "--max-ads", type=_count, metavar="N", help="stop at N ads per query (default: all)"
    )
    ads.add_argument(
        "--max-pages",
        type=_count,
        metavar="N",
        help="pages per query, up to 26 ads each (default: all)",
    )

    cache = commands.add_parser(
        "cache",
        help="what the cache holds and what it cost; clear it",
        description="The cache: what it holds and what it cost (every page in it was paid\n"
        "once, $0.01), and clearing it.",
        epilog=CACHE_EXIT_CODES,
        formatter_class=formatter,
        allow_abbrev=False,
    )
    actions = cache.add_subparsers(dest="action", required=True, metavar="ACTION")
    info = actions.add_parser(
        "info",
        help="where it is, its size, pages and their paid value",
        description="Where the cache is, its size, how many pages it holds and what they\n"
        "were paid (each once, $0.01).\n\n  socialframe cache info\n"
        "  socialframe cache info --cache redis://localhost:6379/0",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    _cache_option(info)
    report = actions.add_parser(
        "report",
        help="one row per cached post or search: pages, rows, when fetched, paid value",
        description="One row per post or search the cache holds: its pages, rows, when\n"
        "they were fetched and what they were paid.\n\n"
        "  socialframe cache report -o cache.csv",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    report.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    report.add_argument("--excel", action="store_true", help=EXCEL_HELP)
    _cache_option(report)
    clear = actions.add_parser(
        "clear",
        help="remove every page, or the expired ones",
        description="Remove every page from the cache (after asking, on a terminal), or\n"
        "only the expired ones. Pages removed are paid again when fetched again.",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    clear.add_argument(
        "--expired",
        action="store_true",
        help="only the pages past their expiry (SOCIALFRAME_CACHE_EXPIRE when they were"
        " stored); default: every page",
    )
    clear.add_argument(
        "--yes",
        action="store_true",
        help="do not ask (needed without a terminal); default: ask on a terminal",
    )
    _cache_option(clear)

    _study_commands(commands, fetching, formatter)

    made = commands.add_parser(
        "report",
        help="the HTML report of a comments or ads file (CSV, JSON lines, Parquet, .xlsx)",
        description="The report df.social.report writes, from a file socialframe wrote:\n\n"
        "  socialframe report comments.parquet -o report.html\n"
        "  socialframe comments POST | socialframe report - -o report.html",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    made.add_argument(
        "file",
        metavar="FILE",
        help="a file comments or ads wrote with -o (.csv, --excel .csv, .jsonl, .parquet,"
        " .xlsx; told by its content, not its name), or - for stdin",
    )
    made.add_argument("-o", "--output", metavar="FILE", required=True, help="the .html to write")
    made.add_argument(
        "--title", default=None, help="the page's title (default: what the file holds)"
    )
    made.add_argument("--tz", default="UTC", help="time zone of the times shown (default UTC)")

    demo = commands.add_parser(
        "demo",
        help="fetch comments and ads from the embedded sandbox",
        description="A tour against the embedded sandbox (no key, no network): six posts'\n"
        "comments and an ad search into typed frames, a summary, the ledger and three\n"
        "charts. Run it again: the cache answers, $0.00.\n\n"
        "  socialframe demo --out socialframe-demo",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    demo.add_argument(
        "--out",
        type=Path,
        default=Path("socialframe-demo"),
        help="folder of the charts (default socialframe-demo)",
    )
    demo.add_argument(
        "--no-cache",
        action="store_true",
        help="do not use the on-disk cache (default: use it, so a second run is free)",
    )
    _mcp_command(commands, formatter)

    serve = commands.add_parser(
        "sandbox",
        help="serve the sandbox for other tools",
        description="Serve the sandbox, a local stand-in for the service, until Ctrl-C. It\n"
        "prints two export lines: paste them into another terminal, and every command\n"
        "there talks to the sandbox.\n\n"
        "  socialframe sandbox\n"
        "  socialframe sandbox --at 2026-01-01   # the world every example shows",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    serve.add_argument(
        "--port",
        type=int,
        default=8750,
        help="port on 127.0.0.1; 0 picks a free one (default 8750)",
    )
    serve.add_argument(
        "--seed",
        type=int,
        default=0,
        help="which data: the same seed, the same answers (default 0)",
    )
    serve.add_argument(
        "--latency", type=float, default=0.0, help="seconds before each answer (default 0)"
    )
    serve.add_argument(
        "--fault-rate",
        type=float,
        default=0.0,
        help="share of requests answered 5xx or success:false, from 0 to 1 (default 0)",
    )
    serve.add_argument(
        "--rate-limit",
        type=float,
        default=None,
        help="requests per second; more get 429 (default: no limit)",
    )
    serve.add_argument("--api-key", default=None, help="key to accept (default: a random one)")
    serve.add_argument(
        "--at",
        type=_moment,
        default=None,
        metavar="WHEN",
        help="the date its world shows, standing still (ISO, e.g. 2026-01-01, the"
        " reference world); by default it moves with the system clock",
    )
    return parser


def _moment(text: str) -> datetime:
    """An ISO date or time (UTC when it names no zone), for ``--at``."""
    moment = instant(text)
    if moment is None:
        raise argparse.ArgumentTypeError(f"not an ISO date or time: {text!r} (e.g. 2026-01-01)")
    return moment


def _study_commands(commands: Any, fetching: argparse.ArgumentParser, formatter: Any) -> None:
    """``socialframe study ACTION STUDY ...``: watch posts and searches over time."""
    study = commands.add_parser(
        "study",
        help="watch posts and ad searches over time, paying only for what may be new",
        description="A study is a folder or a bucket (s3://, gs://, az://, abfss://): what it\n"
        "watches, and every version of every comment and ad its refreshes saw, as Delta\n"
        "Lake tables (for DuckDB, polars, pandas, Spark, Trino). In a bucket, the storage's\n"
        "credentials come from the AWS_* / GOOGLE_* / AZURE_* variables.\n\n"
        "  socialframe study add-posts brand-watch 7384427202391592960 ...\n"
        "  socialframe study add-ads brand-watch 'running shoes' --country US\n"
        "  socialframe study refresh s3://team-bucket/brand-watch --max-cost 2.00\n"
        "  socialframe study changes brand-watch --since 7d -o changes.csv",
        epilog=EXIT_CODES,
        formatter_class=formatter,
        allow_abbrev=False,
    )
    actions = study.add_subparsers(dest="action", required=True, metavar="ACTION")
    folder = {
        "metavar": "STUDY",
        "help": "the study's folder, or its bucket URI (s3://bucket/name); created on the"
        " first add",
    }
    posts = actions.add_parser(
        "add-posts",
        help="watch posts",
        description="Watch posts: the next refresh reads their comments. A post already\n"
        "watched (in any form: id, urn or URL) is not added twice.\n\n"
        "  socialframe study add-posts brand-watch 7384427202391592960\n"
        "  socialframe study add-posts brand-watch - < posts.txt",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    posts.add_argument("study", **folder)
    posts.add_argument(
        "posts",
        nargs="+",
        metavar="POST",
        help="a post id, urn:li:activity:<id> or post URL; '-' reads one per line from stdin",
    )
    searches = actions.add_parser(
        "add-ads",
        help="watch an ad search or an advertiser",
        description="Watch an ad search (a QUERY and its filters) or an advertiser's page:\n"
        "the next refresh asks for what started, stopped or changed.\n\n"
        "  socialframe study add-ads brand-watch 'running shoes' --country US",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    searches.add_argument("study", **folder)
    searches.add_argument("query", nargs="?", metavar="QUERY", help="search text (or --page-id)")
    searches.add_argument(
        "--page-id", metavar="ID", help="numeric id of an advertiser page (instead of a QUERY)"
    )
    searches.add_argument("--country", metavar="CC", help=COUNTRY_HELP)
    searches.add_argument("--status", choices=("active", "inactive", "all"), help=STATUS_HELP)
    refresh = actions.add_parser(
        "refresh",
        parents=[fetching],
        help="look again at everything watched; -o writes one row per item",
        description="Look again at every watched post and search, paying only for the pages\n"
        "that may hold what is new, and keep what is found.",
        epilog=EXIT_CODES,
        formatter_class=formatter,
        allow_abbrev=False,
    )
    refresh.add_argument("study", **folder)
    refresh.add_argument(
        "--full",
        action="store_true",
        help="read every page of the posts not complete (new replies under old threads);"
        " default: only the pages that may hold what is new",
    )
    refresh.add_argument(
        "--notify",
        metavar="URL",
        help="once the refresh is kept, POST its digest as JSON to this http(s) webhook"
        " (counts by change, the first changes), or send it to mailto://, slack://, ..."
        ' through apprise (pip install "socialframe[notify]"); a failure is a warning;'
        " default: none",
    )
    refresh.add_argument(
        "--recheck-pages",
        type=int,
        default=0,
        metavar="N",
        help="re-read N pages of each post past the first known comment, to find edits"
        " and deletions in recent threads (N calls more a post); default 0",
    )
    refresh.add_argument(
        "--confirm-stops",
        action="store_true",
        help="before calling an ad stopped by its absence, one search by its advertiser's"
        " page id from its start day ($0.01 a page, usually one page an advertiser and"
        " day; in --max-cost); default: the absence rule alone",
    )
    changes = actions.add_parser(
        "changes",
        help="what changed: new, missing, stopped, resumed, edited, deleted",
        description="What the refreshes found changed, one row per change, newest last.\n\n"
        "  socialframe study changes brand-watch --since 7d -o changes.csv",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    changes.add_argument("study", **folder)
    changes.add_argument(
        "--since",
        metavar="WHEN",
        help="a time (2026-11-01) or a span back from now (7d, 12h); default: every change",
    )
    changes.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    changes.add_argument("--excel", action="store_true", help=EXCEL_HELP)
    runs = actions.add_parser(
        "runs",
        help="one row per refresh: what it paid and found",
        description="One row per refresh of the study: when, what it paid and what it found.\n\n"
        "  socialframe study runs brand-watch",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    runs.add_argument("study", **folder)
    runs.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    runs.add_argument("--excel", action="store_true", help=EXCEL_HELP)


def _http_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) for ``mcp --http``."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT such as 127.0.0.1:8765, got {text!r}")
    return host, int(port)


def _mcp_command(commands: Any, formatter: Any) -> None:
    serve = commands.add_parser(
        "mcp",
        help="serve the tools to an AI agent (Model Context Protocol), with a spend cap",
        description="An MCP server: estimate, search_ads, post_comments, ledger,\n"
        "study_changes, study_sql. The cap is the server's: a call whose worst case passes\n"
        "what is left of --max-cost is refused before anything is sent.\n\n"
        "  socialframe mcp --max-cost 5.00\n"
        "  socialframe mcp --max-cost 5.00 --http 127.0.0.1:8765\n"
        "  socialframe mcp --sandbox",
        formatter_class=formatter,
        allow_abbrev=False,
    )
    serve.add_argument(
        "--max-cost",
        type=_usd,
        metavar="USD",
        help="USD this server may spend in its life (0: the cache only); required for paid"
        " calls (default: none, every call that would pay is refused; $1.00 with --sandbox)",
    )
    serve.add_argument(
        "--max-call-cost",
        type=_usd,
        metavar="USD",
        help="USD one call may spend at most (default: no limit but --max-cost)",
    )
    serve.add_argument(
        "--confirm-over",
        type=_usd,
        metavar="USD",
        help="a call that may cost more asks the human (MCP elicitation), and is refused"
        " where the client cannot ask (default: never asks)",
    )
    serve.add_argument(
        "--http",
        type=_http_address,
        metavar="HOST:PORT",
        help="serve streamable HTTP there (loopback only unless --allow-remote);"
        " default: standard input and output",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --http listen on an address that is not loopback (default: refused)",
    )
    serve.add_argument(
        "--sandbox",
        action="store_true",
        help="serve the embedded sandbox's data (no key, no network), to try an agent"
        " (default: the service SOCIALFRAME_BASE_URL names)",
    )
    serve.add_argument(
        "--study",
        action="append",
        default=[],
        metavar="PATH",
        help="a study the study tools may read (repeat for more); named by its folder"
        " (default: none)",
    )
    serve.add_argument(
        "--out",
        type=Path,
        metavar="FOLDER",
        help="also write a result's whole frame here (JSON lines, a name the server picks)"
        " when rows were left out (default: only the resource URI)",
    )
    _cache_option(serve)
    serve.add_argument(
        "--key-env",
        type=_env_name,
        default="SOCIALFRAME_API_KEY",
        metavar="NAME",
        help="environment variable holding the API key (default SOCIALFRAME_API_KEY)",
    )
    for refused in ("--api-key", "--key"):
        serve.add_argument(refused, nargs="?", action=_RefuseKey, help=argparse.SUPPRESS)


def _cache_option(group: Any) -> None:
    group.add_argument(
        "--cache",
        metavar="PATH|URL",
        help="the cache: a SQLite file or folder, or redis://host:port/db (default: the"
        " user cache folder, SOCIALFRAME_CACHE_DIR or SOCIALFRAME_CACHE_URL)",
    )
