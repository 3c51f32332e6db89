"""The main job: the sandbox, one post's comments, one ad search, the ledger, a chart.

Run it twice: the second run is answered from the on-disk cache and pays nothing.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ._client import Client
from .sandbox import EXAMPLE_POSTS, Sandbox

DEMO_POST = EXAMPLE_POSTS[2345]
DEMO_QUERY = "running shoes"


def _summary_comments(df: pd.DataFrame) -> str:
    kinds = df["author_type"].value_counts()
    top = df.social.top_authors(3).set_index("author_name")["comments"]
    span = f"{df['created_at'].min():%Y-%m-%d} .. {df['created_at'].max():%Y-%m-%d}"
    return "\n".join(
        [
            f"  {len(df):,} comments ({int(df['is_reply'].sum()):,} replies) on"
            f" {df['post_urn'].iloc[0]}, {span} UTC",
            f"  authors: {df['author_name'].nunique():,} distinct; {kinds.get('person', 0):,}"
            f" comments by people, {kinds.get('organization', 0):,} by organisations",
            "  most active: " + ", ".join(f"{name} ({n})" for name, n in top.items()),
            f"  fetched at {df['fetched_at'].min():%Y-%m-%d %H:%M:%S} UTC",
        ]
    )


def _summary_ads(df: pd.DataFrame) -> str:
    formats = df["display_format"].value_counts()
    pages = df.social.by_page()
    return "\n".join(
        [
            f"  {len(df)} ads from {len(pages)} advertisers,"
            f" {int(df['is_active'].sum())} active; {len(df.columns)} columns",
            f"  biggest advertiser: {pages['page_name'].iloc[0]} ({pages['ads'].iloc[0]} ads)",
            "  formats: " + ", ".join(f"{k} {v}" for k, v in formats.items()),
            f"  started {df['start_date'].min():%Y-%m-%d} .. {df['start_date'].max():%Y-%m-%d}",
        ]
    )


def run(out: Path, *, cache: object = True) -> dict[str, object]:
    """Run the demo, print its report, and return the figures it printed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with Sandbox(seed=0) as sandbox:
        client: Client
        with sandbox.client(cache=cache) as client:
            comments = client.post_comments(DEMO_POST)
            ads = client.search_ads(DEMO_QUERY, max_ads=60)
            print(f"socialframe demo against the embedded sandbox at {sandbox.url}\n")
            print(f"post_comments({DEMO_POST!r}):")
            print(_summary_comments(comments))
            print(f"\nsearch_ads({DEMO_QUERY!r}, max_ads=60):")
            print(_summary_ads(ads))
            out.mkdir(parents=True, exist_ok=True)
            chart = out / "comment-activity.png"
            ax = comments.social.plot_activity("1D")
            ax.figure.savefig(chart, dpi=100)
            plt.close(ax.figure)
            print(f"\nledger:  {client.ledger}")
            print(f"sandbox: {sandbox.charges} paid calls served")
            print(f"chart:   {chart}")
            return {
                "comments": len(comments),
                "ads": len(ads),
                "paid_calls": client.ledger.paid_calls,
                "cached_calls": client.ledger.cached_calls,
                "charges": sandbox.charges,
                "chart": chart,
            }
