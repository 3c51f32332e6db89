"""The main job: the sandbox, six posts' comments, one ad search, the ledger, three charts.

Run it twice: the second run is answered from the on-disk cache and pays nothing.
The charts of the README and ``docs/analysis.md`` (``docs/*.png``) are this demo's:
``python -m socialframe demo --out docs`` redraws them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .. import _words as words
from .._client import Client
from .._display import files, values
from .._display.files import Guarded
from ..sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

DEMO_POST = EXAMPLE_POSTS[2345]
DEMO_POSTS = list(EXAMPLE_POSTS.values())  # DEMO_POST among them
DEMO_QUERY = "running shoes"
CHARTS = ("comment-activity.png", "comment-overlap.png", "share-of-voice.png")


def _summary_comments(df: pd.DataFrame) -> str:
    kinds = df["author_type"].value_counts()
    top = df.social.top_authors(3).set_index("author_name")["comments"]
    span = values.span(f"{df['created_at'].min():%Y-%m-%d}", f"{df['created_at'].max():%Y-%m-%d}")
    return "\n".join(
        [
            f"  {words.count(len(df), 'comment')}"
            f" ({words.count(int(df['is_reply'].sum()), 'reply')}) on"
            f" {df['post_urn'].iloc[0]}, {span} UTC",
            f"  authors: {len(df.social.authors()):,} distinct;"
            f" {words.count(int(kinds.get('person', 0)), 'comment')} by people,"
            f" {int(kinds.get('organization', 0)):,} by organisations",
            "  most active: " + ", ".join(f"{name} ({n})" for name, n in top.items()),
            f"  fetched at {df['fetched_at'].min():%Y-%m-%d %H:%M} UTC",
        ]
    )


def _summary_posts(df: pd.DataFrame) -> str:
    posts = df["post_urn"].nunique()
    regulars = df.social.overlap(min_posts=2)
    lines = [
        f"  {words.count(len(df), 'comment')} on {posts}"
        f" of the {words.count(len(DEMO_POSTS), 'post')}"
        f" ({len(DEMO_POSTS) - posts} without comments)",
        f"  {words.count(len(regulars), 'author')} commented on 2 or more of them",
    ]
    if len(regulars):
        first = regulars.iloc[0]
        lines[-1] += (
            f"; most: {first['author_name']} ({words.count(int(first['posts']), 'post')},"
            f" {words.count(int(first['comments']), 'comment')})"
        )
    return "\n".join(lines)


def _summary_ads(df: pd.DataFrame) -> str:
    formats = df["display_format"].value_counts()
    pages = df.social.by_page()
    return "\n".join(
        [
            f"  {words.count(len(df), 'ad')} from {words.count(len(pages), 'advertiser')},"
            f" {int(df['is_active'].sum())} active; {words.count(len(df.columns), 'column')}",
            f"  biggest advertiser: {pages['page_name'].iloc[0]}"
            f" ({words.count(int(pages['ads'].iloc[0]), 'ad')})",
            "  formats: " + ", ".join(f"{k} {v}" for k, v in formats.items()),
            "  started "
            + values.span(
                f"{df['start_date'].min():%Y-%m-%d}", f"{df['start_date'].max():%Y-%m-%d}"
            ),
            _summary_voice(df),
        ]
    )


def _summary_voice(df: pd.DataFrame) -> str:
    shares = df.social.share_of_voice("ME", top=3, share=True)
    if shares.empty:
        return "  share of voice: no ad with a start date"
    month, last = shares.index[-1], shares.iloc[-1]
    named = last.drop("other", errors="ignore").sort_values(ascending=False, kind="stable")
    parts = ", ".join(f"{name} {values.percent(share)}" for name, share in named.items())
    if "other" in last:
        parts += f", other {values.percent(last['other'])}"
    return f"  share of the ads running in {month:%Y-%m}: {parts}"


def run(out: Path, *, cache: object = True, guard: Iterable[Guarded] = ()) -> dict[str, object]:
    """Run the demo, print its report, and return the figures it printed.

    The charts are written as every file is (:func:`socialframe._display.files.write_whole`),
    never over ``guard`` (the cache in use).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # The world as of the sandbox's reference date (2026-01-01), whatever the day:
    # the demo's figures ($0.57, 2,345 comments) and the charts in docs/ stay put.
    with Sandbox(seed=0, clock=PinnedClock()) as sandbox:
        client: Client
        with sandbox.client(cache=cache) as client:
            everything = client.post_comments(DEMO_POSTS)
            comments = everything[everything["post"] == DEMO_POST]
            ads = client.search_ads(DEMO_QUERY, max_ads=60)
            print(f"socialframe demo against the embedded sandbox at {sandbox.url}\n")
            print(f"post_comments({DEMO_POST!r}):")
            print(_summary_comments(comments))
            print(f"\nthe {len(DEMO_POSTS)} example posts, one post_comments([...]):")
            print(_summary_posts(everything))
            print(f"\nsearch_ads({DEMO_QUERY!r}, max_ads=60):")
            print(_summary_ads(ads))
            out.mkdir(parents=True, exist_ok=True)
            drawn = [
                comments.social.plot_activity("1D"),
                everything.social.plot_overlap(),
                ads.social.plot_share_of_voice("ME"),
            ]
            charts = [out / name for name in CHARTS]
            for chart, ax in zip(charts, drawn, strict=True):
                draw = functools.partial(ax.figure.savefig, format="png", dpi=100)
                files.write_whole(chart, draw, guard=guard)
                plt.close(ax.figure)
            print(f"\nledger:  {client.ledger}")
            print(f"sandbox: {sandbox.charges} paid calls served")
            print("charts:  " + "\n         ".join(str(chart) for chart in charts))
            return {
                "comments": len(comments),
                "posts_comments": len(everything),
                "ads": len(ads),
                "paid_calls": client.ledger.paid_calls,
                "cached_calls": client.ledger.cached_calls,
                "charges": sandbox.charges,
                "charts": charts,
            }
