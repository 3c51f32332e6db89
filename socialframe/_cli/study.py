"""The ``study`` command: add posts and searches to a study, refresh it (for cron), and
write what changed. A refresh exits as ``comments`` does: 3 when the budget stopped
it, 4 for the key, 5 for the service; what it fetched is kept in the study either way.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .. import _words as words
from . import outputs
from .collect import _client, _items, _write
from .exits import EXIT_AUTH, EXIT_BUDGET, EXIT_FAILED, EXIT_OK, Usage
from .messages import fail, say

if TYPE_CHECKING:
    import pandas as pd

    from .._study.study import Study


def study(args: argparse.Namespace) -> int:
    """``socialframe study ACTION STUDY ...``."""
    from .._study.study import Study

    chosen = Study(args.study)
    if args.action in ("refresh", "changes", "runs") and not chosen.watched().shape[0]:
        raise Usage(
            f"no study at {args.study} (or it watches nothing): add posts or searches first"
        )
    if args.action == "add-posts":
        posts = _items(args.posts, "POST")
        before = len(chosen.watched())
        chosen.add_posts(posts)
        added = len(chosen.watched()) - before
        say(f"{words.count(added, 'post')} added; {args.study} watches" + _count(chosen))
        return EXIT_OK
    if args.action == "add-ads":
        if args.query is None and args.page_id is None:
            raise Usage("give a QUERY, or --page-id ID")
        before = len(chosen.watched())
        chosen.add_ads(
            args.query, page_id=args.page_id, country=args.country, active_status=args.status
        )
        added = len(chosen.watched()) - before
        say(f"{words.count(added, 'search')} added; {args.study} watches" + _count(chosen))
        return EXIT_OK
    if args.action == "refresh":
        return _refresh(args, chosen)
    frame = chosen.changes(since=args.since) if args.action == "changes" else chosen.runs()
    return _written(frame, args, "change" if args.action == "changes" else "refresh")


def _count(chosen: Study) -> str:
    watched = chosen.watched()
    posts = int((watched["kind"] == "post").sum())
    return f" {words.count(posts, 'post')} and {words.count(len(watched) - posts, 'search')}"


def _written(frame: pd.DataFrame, args: argparse.Namespace, noun: str) -> int:
    target = outputs.target(args)
    unwritten = _write(frame, target, excel=args.excel)
    if unwritten:
        return fail(EXIT_FAILED, unwritten)
    say(f"wrote {words.count(len(frame), noun)} to {target}")
    return EXIT_OK


def _refresh(args: argparse.Namespace, chosen: Study) -> int:
    from .._errors import AuthError, BudgetExceededError, FetchError

    if args.offline:
        raise Usage("a refresh asks the service what is new: --offline cannot be used here")
    outputs.check_cache_place(args)
    target = outputs.target(args) if args.output else None
    failure: FetchError | None = None
    with _client(args) as client:
        try:
            frame = chosen.refresh(
                client,
                full=args.full,
                on_error=args.on_error,
                notify=args.notify,
                recheck_pages=args.recheck_pages,
            )
        except FetchError as exc:
            failure, frame = exc, exc.partial
        say(str(client.ledger))
    if frame is not None:
        new, changed = int(frame["new"].sum()), int(frame["changed"].sum())
        incomplete = int((~frame["complete"].fillna(False).astype(bool)).sum())
        say(
            f"{new:,} new, {changed:,} changed in {words.count(len(frame), 'item')}"
            + (f"; {incomplete:,} not complete" if incomplete else "")
            + (" (--full reads what a refresh cannot see)" if incomplete and not failure else "")
        )
        if target is not None:
            unwritten = _write(frame, target, excel=args.excel)
            if unwritten:
                return fail(EXIT_FAILED, unwritten)
    if failure is None:
        return EXIT_OK
    kept = "what was fetched before it is kept in the study"
    if isinstance(failure, BudgetExceededError):
        return fail(
            EXIT_BUDGET,
            f"stopped by --max-cost before the next paid call; {kept}. The next refresh picks up.",
        )
    code = EXIT_AUTH if isinstance(failure, AuthError) else EXIT_FAILED
    return fail(code, f"{type(failure).__name__}: {str(failure).rstrip('.')}; {kept}.")
