"""The command line: collect comments and ads into files, see into the cache, run the sandbox.

Data goes to standard output or the ``-o`` file; progress (on a terminal only),
the ledger and every message go to standard error, one line each, never a
traceback. The exit code says what happened (see :data:`EXIT_CODES`).

Built on argparse: it is in the standard library and adds about 7 ms to the
start where click adds about 25 ms and typer about 50 ms (plus rich for its
help); the start itself is importing pandas (~0.5 s). Its help lists every
option with its default, and an epilog carries the exit codes.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn

if TYPE_CHECKING:
    import pandas as pd

    from .._client import Client
    from .._display.export import Target

PROG: Final = "socialframe"

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2
EXIT_BUDGET: Final = 3
EXIT_AUTH: Final = 4
EXIT_FAILED: Final = 5
EXIT_INTERRUPTED: Final = 130
EXIT_HANGUP: Final = 128 + 1  # SIGHUP
EXIT_TERMINATED: Final = 128 + 15  # SIGTERM

EXIT_CODES: Final = f"""\
exit codes:
  {EXIT_OK}  done
  1  an unexpected error (a bug: please report it)
  {EXIT_USAGE}  bad arguments or settings; nothing was fetched or paid
  {EXIT_BUDGET}  stopped by --max-cost; the rows fetched before the stop are written
  {EXIT_AUTH}  no API key, or the service refused it
  {EXIT_FAILED}  the service, the network or the output failed; rows fetched before are written
  {EXIT_HANGUP}  the terminal hung up (SIGHUP; not under nohup): stopped as by Ctrl-C
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C): no new call starts; the pages paid are in the cache
  {EXIT_TERMINATED}  stopped by SIGTERM (timeout, docker stop, systemd), as by Ctrl-C
"""

CACHE_EXIT_CODES: Final = f"""\
exit codes:
  {EXIT_OK}  done
  1  an unexpected error (a bug: please report it)
  {EXIT_USAGE}  bad arguments, an unusable cache, or clear without --yes and no terminal
  {EXIT_FAILED}  the cache failed (a team cache that stopped answering)
"""

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
    " without it (or -), CSV to standard output; /dev/null discards the rows"
)

#: The most --max-cost takes: more is no budget (leave the option out).
MAX_COST_USD: Final = Decimal(1_000_000)

#: Keys shorter than this are not hidden in messages: no service issues one, and
#: hiding a few common characters would cut ordinary words apart (the floor the
#: library sets for secret header values, socialframe._http.caller.MIN_SECRET).
MIN_SECRET: Final = 8

_ENV_NAME: Final = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")

#: The key(s) of this run, never shown: set by :func:`main` from the environment.
_secrets: list[str] = []

#: Options whose value is a file name: given to the system as the bytes typed, so
#: they need not be UTF-8 (every other value is text sent or shown).
_PATH_OPTIONS: Final = ("-o", "--output", "--cache", "--out")

#: Settings from the environment that are text (SOCIALFRAME_CACHE_DIR is a file name).
_TEXT_SETTINGS: Final = tuple(
    f"SOCIALFRAME_{n}"
    for n in ("BASE_URL", "ADS_URL", "COMMENTS_URL", "AUTH_HEADER", "CACHE_URL", "CACHE_EXPIRE")
)


class Usage(Exception):
    """A bad argument or setting found before anything was fetched (exit 2)."""


class NoKey(Exception):
    """No API key where one is needed (exit 4)."""


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the run stops as on Ctrl-C (exit 128 + the signal).

    A KeyboardInterrupt, so that everything that stops a run on Ctrl-C (no new
    call, the calls in flight finished and stored, the ledger printed, a file
    half-written removed) does the same.
    """

    def __init__(self, number: int) -> None:
        self.number = number
        self.name = signal.Signals(number).name
        super().__init__(self.name)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the message and where to read more."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments:"):
            # Only the option names: a value may be a key typed after a wrong option.
            tokens = message.split(":", 1)[1].split()
            names = [token.split("=", 1)[0] for token in tokens if token.startswith("-")]
            message = "unrecognized arguments: " + (" ".join(names) or "(values not shown)")
        _say(f"error: {message} (see '{self.prog} --help')")
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
    holding = next(
        (n for n, a in enumerate(argv, 1) if any(s.lower() in a.lower() for s in _secrets)), None
    )
    if holding is not None or any(_KEY_OPTION.fullmatch(a) for a in argv):
        where = "" if holding is None else f"argument {holding} holds the API key: "
        _say(
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
            _say(f"error: {name} is not UTF-8 text: set it again, as UTF-8 (see '{PROG} --help')")
            raise SystemExit(EXIT_USAGE)
    path_value = False
    for position, token in enumerate(argv, 1):
        is_path = path_value or token.startswith(tuple(f"{o}=" for o in _PATH_OPTIONS[1:]))
        is_path = is_path or (token.startswith("-o") and not token.startswith("--"))
        path_value = token in _PATH_OPTIONS
        if is_path or _is_utf8(token):
            continue
        _say(
            f"error: argument {position} ({_printable(token)}) is not UTF-8 text: type it,"
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


def _printable(text: str) -> str:
    """``text`` with the bytes that were not UTF-8 as ``\\xff`` (never a raw surrogate),
    and control characters (escapes) as ``\\x1b``."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate of another origin
        text = text.encode("utf-8", "backslashreplace").decode("ascii", "replace")
    else:
        text = raw.decode("utf-8", "backslashreplace")
    # What a terminal would act on (escapes, a carriage return, a new line that would
    # forge a line of ours, text turned backwards), from a service's message, a stored
    # page, a lock's holder or a file's name, is shown, never obeyed.
    return _CONTROL.sub(_escaped, text)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


#: C0 and C1 controls (new lines too), and the marks that reorder text on screen.
_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _keys(argv: Sequence[str]) -> list[str]:
    """The keys this run could use: ``SOCIALFRAME_API_KEY`` and the ``--key-env``
    variable's, longest first (so that a key inside another is hidden whole)."""
    names = {"SOCIALFRAME_API_KEY"}
    for token, following in zip(argv, [*argv[1:], ""], strict=True):
        if token == "--key-env":
            names.add(following)
        elif token.startswith("--key-env="):
            names.add(token.partition("=")[2])
    values = {os.environ.get(n, "").strip() for n in names if _ENV_NAME.fullmatch(n)}
    return sorted((v for v in values if len(v) >= MIN_SECRET), key=len, reverse=True)


def _shown(text: str) -> str:
    """``text`` as it may be shown: each key of the run as ``***`` (whatever its case),
    bytes that were not UTF-8 escaped."""
    for secret in _secrets:
        text = re.sub(re.escape(secret), "***", text, flags=re.IGNORECASE)
    return _printable(text)


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
    if not re.fullmatch(r"[A-Z_][A-Z0-9_]{0,63}", text):
        raise argparse.ArgumentTypeError(
            "expected the NAME of an environment variable holding the key, not a key"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
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
    out.add_argument("--excel", action="store_true", help="CSV for Excel: a BOM, ids kept as text")
    spend = fetching.add_argument_group("spending and the cache")
    spend.add_argument(
        "--max-cost",
        type=_usd,
        metavar="USD",
        help="stop before the call that would spend more (exit 3, rows so far written)",
    )
    spend.add_argument(
        "--workers", type=_count, default=4, metavar="N", help="items fetched at once (default 4)"
    )
    spend.add_argument(
        "--offline", action="store_true", help="answer from the cache only; send nothing"
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
    comments.add_argument("--max-pages", type=_count, metavar="N", help="pages per post (50 each)")

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
    ads.add_argument("--page-id", metavar="ID", help="numeric id of an advertiser page")
    ads.add_argument("--country", metavar="CC", help="ISO-3166 code such as US, or ALL")
    ads.add_argument("--status", choices=("active", "inactive", "all"), help="active status")
    ads.add_argument("--after", metavar="DATE", help="ads started on or after this day")
    ads.add_argument("--before", metavar="DATE", help="ads started on or before this day")
    ads.add_argument("--max-ads", type=_count, metavar="N", help="stop at N ads per query")
    ads.add_argument(
        "--max-pages", type=_count, metavar="N", help="pages per query (up to 26 ads each)"
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
        "info", help="where it is, its size, pages and their paid value", allow_abbrev=False
    )
    _cache_option(info)
    report = actions.add_parser(
        "report",
        help="one row per cached post or search: pages, rows, when fetched, paid value",
        allow_abbrev=False,
    )
    report.add_argument("-o", "--output", metavar="FILE", help=OUTPUT_HELP)
    report.add_argument("--excel", action="store_true", help="CSV for Excel")
    _cache_option(report)
    clear = actions.add_parser(
        "clear", help="remove every page, or the expired ones", allow_abbrev=False
    )
    clear.add_argument(
        "--expired",
        action="store_true",
        help="only the pages past their expiry (SOCIALFRAME_CACHE_EXPIRE when they were stored)",
    )
    clear.add_argument("--yes", action="store_true", help="do not ask (needed without a terminal)")
    _cache_option(clear)

    demo = commands.add_parser("demo", help="fetch comments and ads from the embedded sandbox")
    demo.add_argument(
        "--out", type=Path, default=Path("socialframe-demo"), help="folder of the charts"
    )
    demo.add_argument("--no-cache", action="store_true", help="do not use the on-disk cache")
    serve = commands.add_parser("sandbox", help="serve the sandbox for other tools")
    serve.add_argument("--port", type=int, default=8750, help="0 picks a free port")
    serve.add_argument("--seed", type=int, default=0)
    serve.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    serve.add_argument("--fault-rate", type=float, default=0.0, help="share of 5xx / success:false")
    serve.add_argument("--rate-limit", type=float, default=None, help="requests per second")
    serve.add_argument("--api-key", default=None, help="key to accept (default: a random one)")
    return parser


def _cache_option(group: Any) -> None:
    group.add_argument(
        "--cache",
        metavar="PATH|URL",
        help="the cache: a SQLite file or folder, or redis://host:port/db (default: the"
        " user cache folder, SOCIALFRAME_CACHE_DIR or SOCIALFRAME_CACHE_URL)",
    )


# -- running -------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``socialframe`` console script (and ``python -m socialframe``).

    Args:
        argv: The arguments (``sys.argv[1:]`` when ``None``).

    Returns:
        The exit code (see ``socialframe --help``).

    Example:
        >>> main(["cache", "clear", "--yes", "--cache", "/nonexistent/x.sqlite"])
        0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    _secrets[:] = _keys(argv)
    with _stop_on_signals():
        try:
            return _run(argv)
        except KeyboardInterrupt as exc:
            if isinstance(exc, Stopped):
                return _fail(
                    128 + exc.number,
                    f"stopped by {exc.name}: no new call was started;"
                    " the pages paid so far are in the cache",
                )
            return _fail(EXIT_INTERRUPTED, "interrupted; the pages paid so far are in the cache")


@contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Stopped`, as Ctrl-C raises KeyboardInterrupt.

    Their default is to end the process on the spot: no ledger, a temporary file
    left behind, and the calls in flight paid but never stored (paid again by the
    next run). One such signal stops the run; more while it winds down are let
    pass, since the sender's next step is SIGKILL anyway. A signal ignored when
    the run began (``nohup`` ignores SIGHUP) stays ignored. Only the main thread
    can set handlers: elsewhere (main() called from a thread) nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = False

    def stop(number: int, frame: object) -> None:
        nonlocal stopping
        if stopping:
            return
        stopping = True
        raise Stopped(number)

    numbers = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    previous = {
        number: signal.signal(number, stop)
        for number in numbers
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        stopping = True  # (one arriving while the handlers are put back is let pass)
        for number, handler in previous.items():
            signal.signal(number, handler)


def _run(argv: list[str]) -> int:
    """Parse ``argv`` and run its command; every failure but an interrupt as an exit code."""
    _refuse_key_options(argv)
    _refuse_bytes(argv)
    args = build_parser().parse_args(argv)
    command: Callable[[argparse.Namespace], int] = {
        "comments": _comments,
        "ads": _ads,
        "cache": _cache,
        "demo": _demo,
        "sandbox": _sandbox,
    }[args.command]
    with _one_line_warnings():
        try:
            return command(args)
        except (Usage, ValueError, TypeError) as exc:
            return _fail(EXIT_USAGE, str(exc))
        except NoKey as exc:
            return _fail(EXIT_AUTH, str(exc))
        except BrokenPipeError:
            # The reader left (`| head`): not an error of ours. Point stdout at nothing
            # so that Python's own flush at exit does not complain again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return EXIT_OK
        except Exception as exc:
            from .._errors import ConfigError, SocialFrameError

            if isinstance(exc, ConfigError):
                return _fail(EXIT_USAGE, str(exc))
            if isinstance(exc, SocialFrameError | OSError):
                return _fail(EXIT_FAILED, f"{type(exc).__name__}: {exc}")
            return _fail(1, f"unexpected {type(exc).__name__}: {exc} (a bug: please report it)")


def _say(line: str) -> None:
    """One line to standard error, the run's keys hidden (every message goes through here).

    A terminal that hung up (SIGHUP) cannot be written: the line is lost, the run
    goes on to its exit code.
    """
    if sys.stderr is None:  # (pythonw, a service: print() would go to standard output)
        return
    with suppress(OSError, ValueError):  # (closed, or gone with the terminal)
        print(f"{PROG}: {_shown(line)}", file=sys.stderr, flush=True)


def _fail(code: int, message: str) -> int:
    _say(f"error: {' '.join(message.split())}")
    return code


@contextmanager
def _one_line_warnings() -> Iterator[None]:
    """Warnings (a page not stored, values that did not fit) as one line each."""

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        _say(f"warning: {category.__name__}: {' '.join(str(message).split())}")

    class OneLine(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            _say(f"warning: {' '.join(record.getMessage().split())}")

    # requests-cache logs what it cannot read (an entry another version wrote); Python
    # would print it bare, with no name in front.
    library = logging.getLogger("requests_cache")
    handler, propagated = OneLine(logging.WARNING), library.propagate
    library.addHandler(handler)
    library.propagate = False
    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            yield
    finally:
        library.removeHandler(handler)
        library.propagate = propagated


def _items(given: list[str], what: str) -> list[str]:
    """The items as given, ``-`` replaced by the lines of standard input."""
    items: list[str] = []
    for item in given:
        if item != "-":
            items.append(item)
            continue
        if sys.stdin is None or sys.stdin.isatty():
            raise Usage(f"{what} '-' reads standard input, but nothing is piped in")
        raw = sys.stdin.buffer.read()
        try:
            text = raw.decode("utf-8-sig")  # (a byte-order mark is no part of the item)
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise Usage(
                f"standard input is not UTF-8 (line {line}): save it as UTF-8 first"
            ) from None
        lines = [line.strip() for line in text.splitlines()]
        for number, line in enumerate(lines, 1):
            if any(secret.lower() in line.lower() for secret in _secrets):
                raise Usage(
                    f"line {number} of standard input holds the API key: nothing was sent"
                    " (a list of items never needs the key)"
                )
        # '#' starts a comment in a list of posts; a query may be a hashtag.
        comment = what == "POST"
        items.extend(line for line in lines if line and not (comment and line[0] == "#"))
    if not items:
        raise Usage(f"no {what} given (standard input held none)")
    return items


def _client(args: argparse.Namespace) -> Client:
    from .._client import Client

    key = os.environ.get(args.key_env, "").strip() or None
    if key is None and not args.offline:
        if args.key_env == "SOCIALFRAME_API_KEY":
            raise NoKey(
                "no API key: set SOCIALFRAME_API_KEY in the environment"
                " (or name the variable holding it with --key-env NAME)"
            )
        # Not repeated: what was given may be the key itself, pasted by mistake.
        raise NoKey("no API key: the variable named by --key-env is not set (or is empty)")
    return Client(
        key,
        cache=args.cache or True,
        offline=args.offline,
        max_cost=args.max_cost,
        workers=args.workers,
        progress=sys.stderr.isatty(),
    )


def _comments(args: argparse.Namespace) -> int:
    posts = _items(args.posts, "POST")

    def fetch(client: Client) -> pd.DataFrame:
        options: dict[str, Any] = {"sort": args.sort, "max_pages": args.max_pages}
        if len(posts) > 1:
            return client.post_comments(posts, on_error=args.on_error, **options)
        # One post is fetched as one (its bar counts pages, where a list's counts posts),
        # with the same `post` column first as for several.
        from .._errors import FetchError
        from .._fetch.many import keyed

        try:
            frame = client.post_comments(posts[0], **options)
            return keyed(frame, "post", [posts[0]], [len(frame)])
        except FetchError as exc:
            partial = (
                None
                if exc.partial is None
                else keyed(exc.partial, "post", [posts[0]], [len(exc.partial)])
            )
            raise exc.with_partial(partial) from None

    return _collect(args, fetch, noun="comments")


def _ads(args: argparse.Namespace) -> int:
    queries = _items(args.queries, "QUERY") if args.queries else None
    if queries is None and args.page_id is None:
        raise Usage("give a QUERY (or '-' to read them from stdin), or --page-id ID")
    # One query is fetched as one (its bar counts pages); its frame is the same.
    query: str | list[str] | None = queries[0] if queries and len(queries) == 1 else queries
    return _collect(
        args,
        lambda client: client.search_ads(
            query,
            ad_page_id=args.page_id,
            country=args.country,
            active_status=args.status,
            after=args.after,
            before=args.before,
            max_pages=args.max_pages,
            max_ads=args.max_ads,
            on_error=args.on_error,
        ),
        noun="ads",
    )


def _collect(
    args: argparse.Namespace, fetch: Callable[[Client], pd.DataFrame], *, noun: str
) -> int:
    """Fetch, write what came back (all of it, or what came before a failure), report."""
    from .._cache.setting import cache_location
    from .._display import export as export
    from .._errors import AuthError, BudgetExceededError, FetchError

    # Before paying for anything: where it goes, and that it is neither the cache nor
    # the list of items piped in.
    location = cache_location(args.cache or True)
    cache_file = [location] if isinstance(location, Path) else []
    given = getattr(args, "posts", None) or getattr(args, "queries", None) or []
    target = export.check_target(
        args.output, protect=cache_file, inputs=[0] if "-" in given else []
    )
    where = str(target)
    failure: FetchError | None = None
    with _client(args) as client:
        try:
            frame: pd.DataFrame | None = fetch(client)
        except FetchError as exc:
            failure, frame = exc, exc.partial
        except KeyboardInterrupt:
            _say(str(client.ledger))
            raise
        except Exception as exc:
            if not client.ledger.paid_calls and isinstance(exc, ValueError | TypeError):
                raise  # bad input, found before any call: exit 2
            # Whatever stopped it once calls were paid: what they cost, and where they are.
            _say(str(client.ledger))
            return _fail(
                EXIT_FAILED,
                f"{type(exc).__name__}: {exc}; the pages paid so far are in the cache",
            )
        _say(str(client.ledger))
    if failure is None:
        assert frame is not None
        unwritten = _write(frame, target, excel=args.excel)
        if unwritten:
            return _fail(EXIT_FAILED, unwritten)
        skipped = frame.attrs.get("failed") or []
        _say(
            f"wrote {len(frame):,} {noun} to {where}"
            + (f"; {len(skipped)} item(s) skipped after failing" if skipped else "")
        )
        return EXIT_OK
    if frame is not None and len(frame):
        unwritten = _write(frame, target, excel=args.excel)
        written = f"wrote the {len(frame):,} {noun} fetched before it to {where} (partial)"
        kept = unwritten or written
    else:
        kept = "nothing was fetched before it, so nothing was written"
    if isinstance(failure, BudgetExceededError):
        from .._ledger import usd

        return _fail(
            EXIT_BUDGET,
            f"stopped by --max-cost {usd(round(failure.max_cost * 100))} before the next paid"
            f" call (spent {usd(round(failure.spent_usd * 100))}); {kept}. Run again with a"
            " higher --max-cost: the pages paid so far come from the cache.",
        )
    code = EXIT_AUTH if isinstance(failure, AuthError) else EXIT_FAILED
    return _fail(code, f"{type(failure).__name__}: {str(failure).rstrip('.')}; {kept}.")


def _write(frame: pd.DataFrame, target: Target, *, excel: bool) -> str:
    """Write the rows paid for; what went wrong, or ``""``.

    The target was checked before the fetch and is checked again now (it may have
    become a pipe, or a link to the cache, meanwhile): a failure now is the
    output's (exit 5), not a bad argument, since the calls are paid.
    """
    from .._display import export as export

    try:
        export.write(frame, target, excel=excel)
    except (ValueError, OSError) as exc:
        return (
            f"{exc}; nothing was written. The pages paid are in the cache:"
            " run again with another -o, they cost nothing then"
        )
    return ""


# -- the cache -----------------------------------------------------------------------------


def _cache(args: argparse.Namespace) -> int:
    from .._cache import inventory as inventory
    from .._cache.redis import shown
    from .._cache.setting import cache_location, open_backend
    from .._display import export as export
    from .._ledger import PRICE_CENTS, usd

    setting: Any = args.cache or True
    location = cache_location(setting)
    where = shown(location) if isinstance(location, str) else str(location)
    cache_file = [location] if isinstance(location, Path) else []
    target = (
        export.check_target(args.output, protect=cache_file) if args.action == "report" else None
    )
    missing = isinstance(location, Path) and not location.exists()
    # Reading an absent cache must not create one.
    backend = None if missing else open_backend(setting)
    try:
        if args.action == "info":
            total = inventory.summary(backend, where + (" (absent)" if missing else ""))
            sys.stdout.write("\n".join(_shown(line) for line in total.lines()) + "\n")
            return EXIT_OK
        if args.action == "report":
            frame = inventory.report(backend)
            export.write(frame, target, excel=args.excel)
            pages = int(frame["pages"].sum())
            paid = usd(pages * PRICE_CENTS)
            _say(f"{len(frame):,} items, {pages:,} pages, {paid} paid, in {where}")
            return EXIT_OK
        found = inventory.scan(backend) if backend is not None else inventory.Scan([], [])
        chosen = [page for page in found.pages if page.expired or not args.expired]
        kind = "expired pages" if args.expired else "pages"
        if not chosen and not found.unreadable:
            _say(f"no {kind} to remove in {where}")
            return EXIT_OK
        what = f"{len(chosen):,} {kind} ({usd(len(chosen) * PRICE_CENTS)} paid)"
        if found.unreadable:  # not pages: worth nothing, whichever pages are chosen
            what += f" and {len(found.unreadable):,} unreadable entries"
        what += f" from {where}"
        if not args.yes and not _confirm(f"remove {what}?"):
            raise Usage(f"cache clear would remove {what}: add --yes to do it")
        inventory.remove(backend, chosen, found.unreadable)
        _say(f"removed {what}")
        return EXIT_OK
    finally:
        if backend is not None:
            backend.close()


def _confirm(question: str) -> bool:
    """Ask on a terminal; without one (cron, a pipe) the answer is no."""
    if sys.stdin is None or not sys.stdin.isatty():
        return False
    print(f"{PROG}: {_shown(question)} [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


# -- the demo and the sandbox ---------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    from .demo import run

    run(args.out, cache=not args.no_cache)
    return EXIT_OK


def _sandbox(args: argparse.Namespace) -> int:
    from ..sandbox import Sandbox

    sandbox = Sandbox(
        port=args.port,
        seed=args.seed,
        latency=args.latency,
        fault_rate=args.fault_rate,
        rate_limit=args.rate_limit,
        api_key=args.api_key,
    )

    def ready(served: Sandbox) -> None:
        print(f"sandbox serving at {served.url} (Ctrl-C stops it)")
        print(f"  export SOCIALFRAME_BASE_URL={served.url}")
        print(f"  export SOCIALFRAME_API_KEY={served.api_key}")
        sys.stdout.flush()

    sandbox.serve_forever(ready=ready)
    return EXIT_OK
