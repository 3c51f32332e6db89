"""Speed and memory, each figure side by side with its anchor, measured in one run.

    python bench/run.py            # full size (a few minutes)
    python bench/run.py --quick    # small inputs: the test suite runs this as a smoke test

Prints one table: what was measured, socialframe's figure, the anchor's, their
ratio, the goal and whether it is met. Asserts nothing: these machines are
shared and noisy, so only ratios of figures taken in the same run mean
anything. Each timing is the best of a few repeats.

Anchors:

- ``json_normalize``: ``orjson.loads`` of each page, then ``pd.json_normalize`` of
  its records (flattening only: no typing, no ids, no times).
- parse floor: ``orjson.loads`` of each page alone, kept in a list (what any
  bytes -> frame path must at least do).
- plain requests-cache: a ``requests_cache.CachedSession`` reading the same
  cached pages (one ``get`` each, body parsed by ``response.json()``).
- round trip: plain ``requests`` GETs of the same pages from the same sandbox.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import orjson
import pandas as pd
import requests
from bulk_bench import KEY, POSTS, served  # the same sandbox process and posts

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, ads_body, comment_total, comments_body, total_pages

Row = dict[str, Any]


def best(fn: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    """The fastest of ``repeats`` runs (seconds) and the last result."""
    times, result = [], None
    for _ in range(repeats):
        result = None
        gc.collect()
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return min(times), result


# -- data: the real shapes, from the sandbox's pure functions ----------------------------


def comment_pages(rows: int) -> list[bytes]:
    """Comment pages (50 per page) as the service sends them, ``rows`` comments in all.

    A post of 2,345 comments repeated; each copy gets its own post and comment ids.
    """
    post = EXAMPLE_POSTS[2345]
    base = [
        json.dumps(comments_body(post, "mostRelevant", p, 0), ensure_ascii=False)
        for p in range(1, total_pages(comment_total(post)) + 1)
    ]
    out: list[bytes] = []
    count, copy = 0, 0
    while count < rows:
        for page in base:
            # a new post (and comment ids) per copy: 19-digit ids stay 19 digits
            text = page.replace(post[:-4], f"{int(post[:-4]) + copy:015d}")
            out.append(text.encode())
            count += 50
            if count >= rows:
                break
        copy += 1
    return out


def ad_pages(rows: int) -> list[bytes]:
    """Ad search pages from the sandbox (26 ads each), copied with new ids to ``rows``."""
    bodies = []
    for query in ("running shoes", "coffee", "insurance", "for kids", "shoes", "tea"):
        params: dict[str, str] = {"query": query, "country": "US"}
        for _ in range(6):
            body = ads_body(params, 0)
            bodies.append(json.dumps(body, ensure_ascii=False))
            info = body["data"]["page_info"]
            if not info.get("has_next_page") or not info.get("end_cursor"):
                break
            params = dict(params, end_cursor=info["end_cursor"])
    out: list[bytes] = []
    count, copy = 0, 0
    while count < rows:
        for body in bodies:
            page = orjson.loads(body)
            for group in page["data"]["ads"]:
                for ad in group if isinstance(group, list) else [group]:
                    ad["ad_archive_id"] = f"{copy:06d}{ad.get('ad_archive_id')}"
                    count += 1
            out.append(orjson.dumps(page))
            if count >= rows:
                break
        copy += 1
    return out


# -- figures ------------------------------------------------------------------------------


def row(
    what: str, ours: float, anchor: float, unit: str, goal: str, met: bool, **extra: Any
) -> Row:
    return {
        "figure": what,
        "socialframe": f"{ours:,.1f} {unit}" if ours >= 10 else f"{ours:.3g} {unit}",
        "anchor": f"{anchor:,.1f} {unit}" if anchor >= 10 else f"{anchor:.3g} {unit}",
        "ratio": round(ours / anchor, 2) if anchor else float("nan"),
        "goal": goal,
        "met": "yes" if met else "NO",
        **extra,
    }


def parse_floor(pages: list[bytes]) -> list[Any]:
    return [orjson.loads(page) for page in pages]


def normalize(pages: list[bytes], records: Callable[[Any], list[Any]]) -> pd.DataFrame:
    return pd.json_normalize([r for page in pages for r in records(orjson.loads(page))])


def ours_comments(pages: list[bytes]) -> pd.DataFrame:
    return sf.comments_frame(pages)  # raw bodies: parsed inside, with the GC paused


def ours_ads(pages: list[bytes]) -> pd.DataFrame:
    return sf.ads_frame(pages)


def comment_records(body: Any) -> list[Any]:
    return list(body["data"])


def ad_records(body: Any) -> list[Any]:
    return [ad for group in body["data"]["ads"] for ad in group]


def speed_rows(
    kind: str,
    pages: list[bytes],
    ours: Callable[[list[bytes]], pd.DataFrame],
    records: Callable[[Any], list[Any]],
    goals: tuple[float, float],
) -> tuple[list[Row], pd.DataFrame, pd.DataFrame]:
    """bytes -> frame for ``kind`` vs json_normalize (``goals[0]``x faster) and vs the
    parse floor (within ``goals[1]``x); the two frames too."""
    t_ours, frame = best(lambda: ours(pages))
    t_norm, flat = best(lambda: normalize(pages, records))
    t_floor, _ = best(lambda: parse_floor(pages))
    rows = len(frame)
    faster, within = goals
    return (
        [
            row(
                f"{kind} bytes -> typed frame, {rows:,} rows (vs json_normalize)",
                rows / t_ours,
                rows / t_norm,
                "rows/s",
                f">= {faster:g}x",
                t_norm / t_ours >= faster,
            ),
            row(
                "  the same, vs the orjson parse floor (time ratio)",
                t_ours,
                t_floor,
                "s",
                f"<= {within:g}x",
                t_ours / t_floor <= within,
            ),
        ],
        frame,
        flat,
    )


def frames_rows(n_comments: int, n_ads: int) -> list[Row]:
    out, frame, flat = speed_rows(
        "comments", comment_pages(n_comments), ours_comments, comment_records, (2.5, 1.7)
    )
    mem_ours = frame.memory_usage(deep=True).sum() / 1e6
    mem_norm = flat.memory_usage(deep=True).sum() / 1e6
    out.append(
        row(
            f"comments frame memory, {len(frame):,} rows (deep)",
            mem_ours,
            mem_norm,
            "MB",
            "<= 0.6x",
            mem_ours / mem_norm <= 0.6,
        )
    )
    del frame, flat
    ads, _, _ = speed_rows("ads", ad_pages(n_ads), ours_ads, ad_records, (2, 3))
    return out + ads


def growth_rows(small: int, large: int) -> list[Row]:
    """Seconds per row at ``small`` and ``large`` rows: linear growth keeps them equal."""
    per_row = {}
    for n in (small, large):
        pages = comment_pages(n)
        t, frame = best(lambda pages=pages: ours_comments(pages), repeats=2)  # type: ignore[misc]
        per_row[n] = t / len(frame)
        del frame, pages
    ratio = per_row[large] / per_row[small]
    return [
        row(
            f"growth: time per row at {large:,} vs {small:,} rows",
            per_row[large] * 1e6,
            per_row[small] * 1e6,
            "us/row",
            "<= 1.3x (linear)",
            ratio <= 1.3,
        )
    ]


def posts(n: int) -> list[str]:
    """Posts of 3 pages each (120 comments) in the sandbox."""
    return POSTS[:n]


def warm_rows(url: str, n_pages: int) -> list[Row]:
    """A warm re-run of ``n_pages`` cached pages -> one frame, vs plain requests-cache."""
    import requests_cache

    items = posts(n_pages // 3)
    with tempfile.TemporaryDirectory() as folder:
        with sf.Client(KEY, base_url=url, cache=folder, progress=False, workers=1) as client:
            client.post_comments(items)
            pages = client.ledger.paid_calls
            t_ours, frame = best(lambda: client.post_comments(items))
            assert client.ledger.paid_calls == pages  # every re-run page came from the cache
            store: Any = client.session.cache  # type: ignore[attr-defined]
            keys = list(store.responses.keys())
            bodies = [store.get_response(k).content for k in keys]
            urls = [store.get_response(k).url for k in keys]
        # plain requests-cache over a copy of the same pages, read by URL
        plain = requests_cache.CachedSession(
            f"{folder}/plain", backend="sqlite", allowable_codes=(200,), expire_after=-1
        )
        plain.headers["Authorization"] = f"Bearer {KEY}"
        for u in urls:
            plain.get(u)  # stores it
        t_plain, _ = best(lambda: [plain.get(u).json() for u in urls])
        plain.close()
    t_floor, _ = best(lambda: [orjson.loads(b) for b in bodies])
    n = len(frame)
    return [
        row(
            f"warm re-run, {pages} cached pages -> frame ({n:,} rows), vs parse floor",
            t_ours,
            t_floor,
            "s",
            "<= 3x",
            t_ours / t_floor <= 3,
        ),
        row(
            f"  the same, vs plain requests-cache warm reads of {len(urls)} pages",
            pages / t_ours,
            len(urls) / t_plain,
            "pages/s",
            "> 1x (faster)",
            (pages / t_ours) > (len(urls) / t_plain),
        ),
    ]


def warm_flat_rows(url: str, small: int, large: int) -> list[Row]:
    """Warm reads of the same 99 pages from caches holding ``small`` and ``large`` entries
    (best of 5: a read of 99 pages is short, and the machine is shared)."""
    items = posts(33)
    per_page = {}
    for entries in (small, large):
        with (
            tempfile.TemporaryDirectory() as folder,
            sf.Client(KEY, base_url=url, cache=folder, progress=False, workers=1) as client,
        ):
            store: Any = client.session.cache  # type: ignore[attr-defined]
            client.post_comments(items)
            filler = next(iter(store.responses.values()))
            for k in range(entries - 99):
                store.responses[f"filler-{k:08d}"] = filler
            t, _ = best(lambda client=client: client.post_comments(items), repeats=5)  # type: ignore[misc]
            per_page[entries] = t / 99
    return [
        row(
            f"growth: warm read per page with {large:,} vs {small:,} cache entries",
            per_page[large] * 1e3,
            per_page[small] * 1e3,
            "ms/page",
            "<= 1.3x (flat)",
            per_page[large] / per_page[small] <= 1.3,
        )
    ]


def cold_rows(url: str, n_posts: int) -> list[Row]:
    """Cold calls through socialframe vs plain requests GETs of the same pages."""
    items = posts(n_posts)
    with (
        tempfile.TemporaryDirectory() as folder,
        sf.Client(KEY, base_url=url, cache=folder, progress=False, workers=1) as client,
    ):
        started = time.perf_counter()
        client.post_comments(items)
        t_ours = time.perf_counter() - started
        calls = client.ledger.paid_calls
        store: Any = client.session.cache  # type: ignore[attr-defined]
        urls = [store.get_response(k).url for k in list(store.responses)]
    with requests.Session() as session:
        session.headers["Authorization"] = f"Bearer {KEY}"
        started = time.perf_counter()
        for u in urls:
            session.get(u, timeout=60).json()
        t_plain = time.perf_counter() - started
    ours_ms, plain_ms = t_ours / calls * 1e3, t_plain / len(urls) * 1e3
    return [
        row(
            f"cold call, {calls} calls: socialframe vs plain requests (ms per call)",
            ours_ms,
            plain_ms,
            "ms",
            "overhead <= 2 ms",
            ours_ms - plain_ms <= 2.0,
            overhead_ms=round(ours_ms - plain_ms, 2),
        )
    ]


def import_rows(repeats: int) -> list[Row]:
    def cost(module: str) -> float:
        code = (
            f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
        )
        runs = [
            float(
                subprocess.run(
                    [sys.executable, "-c", code], capture_output=True, text=True, check=True
                ).stdout
            )
            for _ in range(repeats)
        ]
        return statistics.median(runs)

    ours, pandas = cost("socialframe"), cost("pandas")
    return [
        row(
            "import socialframe vs import pandas",
            ours,
            pandas,
            "s",
            "<= 1.2x",
            ours / pandas <= 1.2,
        )
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs (a smoke test)")
    args = parser.parse_args(argv)
    quick = args.quick
    table: list[Row] = []
    table += frames_rows(2_000 if quick else 200_000, 500 if quick else 53_000)
    table += growth_rows(2_000 if quick else 10_000, 10_000 if quick else 1_000_000)
    with served() as url:
        table += warm_rows(url, 30 if quick else 1_000)
        table += warm_flat_rows(url, 100, 1_000 if quick else 10_000)
        table += cold_rows(url, 5 if quick else 100)
    table += import_rows(3 if quick else 7)
    with pd.option_context("display.width", 250, "display.max_colwidth", 80):
        print(pd.DataFrame(table).astype(object).fillna("").to_string(index=False))


if __name__ == "__main__":
    main()
