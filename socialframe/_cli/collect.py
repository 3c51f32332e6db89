"""The ``comments`` and ``ads`` commands: read the items, fetch them through a Client,
write the rows (all of them, or those fetched before a failure) and say what it cost."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import _words as words
from . import outputs
from .exits import EXIT_AUTH, EXIT_BUDGET, EXIT_FAILED, EXIT_OK, NoKey, Usage
from .messages import PROG, fail, holds_key, say

if TYPE_CHECKING:
    import pandas as pd

    from .._client import Client
    from .._display.export import Target


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
            if holds_key(line):
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


#: Trying the command line with no key: the sandbox prints the lines to paste.
TRY_SANDBOX = (
    "to try it without a key, run 'socialframe sandbox' in another terminal and paste"
    " the two export lines it prints"
)


def missing_settings(args: argparse.Namespace) -> str | None:
    """Every setting a command that calls the service lacks, named at once with the
    shell's remedy (``None``: none is missing). The key is not needed offline; the base
    URL is (it is part of each page's cache key)."""
    missing = []
    if not args.offline and not os.environ.get(args.key_env, "").strip():
        # (--key-env's value is not repeated: it may be the key itself, pasted by mistake)
        missing.append(
            "SOCIALFRAME_API_KEY (your key)"
            if args.key_env == "SOCIALFRAME_API_KEY"
            else "the variable --key-env names (it is not set, or empty)"
        )
    url = {op: os.environ.get(f"SOCIALFRAME_{op}_URL", "").strip() for op in ("ADS", "COMMENTS")}
    if not os.environ.get("SOCIALFRAME_BASE_URL", "").strip() and not all(url.values()):
        lacking = [f"SOCIALFRAME_{op}_URL" for op, given in url.items() if not given]
        missing.append(
            "SOCIALFRAME_BASE_URL (the service's URL)"
            if len(lacking) == 2
            else f"{lacking[0]} (or SOCIALFRAME_BASE_URL for both operations)"
        )
    if not missing:
        return None
    return (
        f"not set: {' and '.join(missing)}; export "
        + ("it" if len(missing) == 1 else "them")
        + f" in the shell ('{PROG} --help' lists the settings), or, {TRY_SANDBOX}"
    )


def _client(args: argparse.Namespace) -> Client:
    """The Client the options describe; :class:`NoKey` without a key (unless offline),
    :class:`Usage` without a base URL: every missing setting named at once."""
    from .._client import Client

    missing = missing_settings(args)
    if missing is not None:
        no_key = not args.offline and not os.environ.get(args.key_env, "").strip()
        raise (NoKey if no_key else Usage)(missing)
    key = os.environ.get(args.key_env, "").strip() or None
    return Client(
        key,
        cache=args.cache or True,
        offline=args.offline,
        max_cost=args.max_cost,
        workers=args.workers,
        progress=sys.stderr.isatty(),
    )


def comments(args: argparse.Namespace) -> int:
    """``socialframe comments``: every comment of the posts given, one row each."""
    posts = _items(args.posts, "POST")
    args.resolved_posts = posts  # (standard input is read once)

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

    return _collect(args, fetch, noun="comment")


def ads(args: argparse.Namespace) -> int:
    """``socialframe ads``: the ads matching each query (or of one page), one row each."""
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
        noun="ad",
    )


def _collect(
    args: argparse.Namespace, fetch: Callable[[Client], pd.DataFrame], *, noun: str
) -> int:
    """Fetch, write what came back (all of it, or what came before a failure), report."""
    from .._errors import AuthError, BudgetExceededError, FetchError

    # Before paying for anything: where it goes (neither the cache, nor a study, nor
    # the list of items piped in), and where the cache goes.
    outputs.check_cache_place(args)
    target = outputs.target(args)
    where = str(target)
    failure: FetchError | None = None
    with _client(args) as client:
        try:
            frame: pd.DataFrame | None = fetch(client)
        except FetchError as exc:
            failure, frame = exc, exc.partial
        except KeyboardInterrupt as exc:
            # As a budget stop: the rows fetched before it are written, then it ends.
            say(str(client.ledger))
            partial = getattr(exc, "partial", None)
            if partial is not None and len(partial):
                unwritten = _write(partial, target, excel=args.excel)
                say(
                    unwritten
                    or f"wrote the {words.count(len(partial), noun)} fetched before it to {where}"
                    " (partial)"
                )
            raise
        except Exception as exc:
            if not client.ledger.paid_calls and isinstance(exc, ValueError | TypeError):
                raise  # bad input, found before any call: exit 2
            # Whatever stopped it once calls were paid: what they cost, and where they are.
            say(str(client.ledger))
            return fail(
                EXIT_FAILED,
                f"{type(exc).__name__}: {exc}; the pages paid so far are in the cache",
            )
        say(str(client.ledger))
    if failure is None:
        assert frame is not None
        unwritten = _write(frame, target, excel=args.excel)
        if unwritten:
            return fail(EXIT_FAILED, unwritten)
        skipped = frame.attrs.get("failed") or []
        say(
            f"wrote {words.count(len(frame), noun)}{_of_posts(frame, args)} to {where}"
            + (f"; {words.count(len(skipped), 'item')} skipped after failing" if skipped else "")
        )
        return EXIT_OK
    if frame is not None and len(frame):
        unwritten = _write(frame, target, excel=args.excel)
        written = (
            f"wrote the {words.count(len(frame), noun)} fetched before it to {where} (partial)"
        )
        kept = unwritten or written
    else:
        kept = "nothing was fetched before it, so nothing was written"
    if isinstance(failure, BudgetExceededError):
        from .._ledger import usd

        return fail(
            EXIT_BUDGET,
            f"stopped by --max-cost {usd(round(failure.max_cost * 100))} before the next paid"
            f" call (spent {usd(round(failure.spent_usd * 100))}); {kept}. Run again with a"
            " higher --max-cost: the pages paid so far come from the cache.",
        )
    code = EXIT_AUTH if isinstance(failure, AuthError) else EXIT_FAILED
    return fail(code, f"{type(failure).__name__}: {str(failure).rstrip('.')}; {kept}.")


def _of_posts(frame: pd.DataFrame, args: argparse.Namespace) -> str:
    """`` of 3 posts (1 had none: 7384…)``: the posts given, and those without a comment
    (a frame has no row to say so); empty for ads."""
    posts = getattr(args, "resolved_posts", None)
    if not posts or "post" not in frame.columns:
        return ""
    given = list(dict.fromkeys(posts))
    skipped = {str(f.get("item")) for f in frame.attrs.get("failed") or []}
    had = set(frame["post"].dropna().astype(str))
    none = [p for p in given if p not in had and p not in skipped]
    if len(given) == 1 and not none:
        return ""  # (one post: its comments say it all)
    text = f" of {words.count(len(given), 'post')}"
    if none:
        shown = ", ".join(none[:5]) + (f" and {len(none) - 5:,} more" if len(none) > 5 else "")
        text += f" ({len(none):,} had none: {shown})"
    return text


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
