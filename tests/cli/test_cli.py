"""The command line, as users run it: its arguments, environment, standard input and
working folder in; its exit code, standard output and standard error out.

Each run talks to a sandbox served by the test over real HTTP (its URL and key
passed through the environment, as a user or a cron job sets them); its cache is
the test's own folder. Every run's output is checked for the key and a traceback.
:func:`cli` runs ``main()`` in this process, as the console script would (a second of
Python, pandas and the rest saved a run, over hundreds of runs); ``process=True``, the
installed console script in a subprocess: for what only a process shows (its start,
exit, signals, a terminal: also ``test_cli_main.py`` and the docs' shell examples).
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import requests
from commands import SCRIPT, cli

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, Sandbox, comment_total

pytestmark = pytest.mark.slow  # real processes, servers or a browser: -m 'not slow' leaves them out

P82, P50, P51, P2345 = (EXAMPLE_POSTS[n] for n in (82, 50, 51, 2345))


def reference(sandbox: Sandbox, cache_dir: Path) -> sf.Client:
    """A client on the cache the command line filled: it reads the very pages the run stored."""
    return sandbox.client(cache=cache_dir, progress=False)


# -- comments ----------------------------------------------------------------------------------


def test_comments_to_standard_output_as_csv(sandbox: Sandbox, clean_env: Path) -> None:
    run = cli("comments", P82, sandbox=sandbox, process=True)  # (and the console script's)
    assert run.code == 0, run.err
    frame = pd.read_csv(io.StringIO(run.out), dtype=str, keep_default_na=False)
    with reference(sandbox, clean_env) as client:
        expected = client.post_comments([P82])
    assert frame.columns.tolist() == ["post", *sf.COMMENT_COLUMNS]
    assert frame["comment_id"].tolist() == expected["comment_id"].tolist()
    assert set(frame["post"]) == {P82}
    assert frame["text"].tolist() == expected["text"].fillna("").tolist()  # emoji, CJK, quotes
    assert run.lines == [
        "socialframe: paid 2 calls ($0.02) · cached 0 ($0.00 saved) · failed 0 (free)",
        "socialframe: wrote 82 comments to standard output",
    ]
    assert sandbox.charges == 2


def test_posts_from_standard_input(sandbox: Sandbox, tmp_path: Path) -> None:
    piped = f"{P82}\n\n# a comment line\nurn:li:activity:{P50}\n"
    run = cli(
        "comments", "-", "-o", str(tmp_path / "c.csv"), sandbox=sandbox, stdin=piped, process=True
    )
    assert run.code == 0, run.err
    frame = pd.read_csv(tmp_path / "c.csv", dtype=str)
    assert frame.groupby("post", sort=False).size().to_dict() == {
        P82: 82,
        f"urn:li:activity:{P50}": 50,
    }
    assert run.lines[-1] == f"socialframe: wrote 132 comments of 2 posts to {tmp_path / 'c.csv'}"


def test_an_empty_standard_input_is_a_bad_argument(sandbox: Sandbox) -> None:
    run = cli("comments", "-", sandbox=sandbox, stdin="\n\n")
    assert (run.code, run.lines) == (
        2,
        ["socialframe: error: no POST given (standard input held none)"],
    )
    assert sandbox.requests == []


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet", ".xlsx"])
def test_every_output_format_reads_back(
    suffix: str, sandbox: Sandbox, tmp_path: Path, clean_env: Path
) -> None:
    out = tmp_path / f"ads{suffix}"
    run = cli(
        "ads",
        "running shoes",
        "--country",
        "US",
        "--max-ads",
        "30",
        "-o",
        str(out),
        sandbox=sandbox,
    )
    assert run.code == 0, run.err
    assert run.lines[-1] == f"socialframe: wrote 30 ads to {out}"
    with reference(sandbox, clean_env) as client:
        expected = client.search_ads(["running shoes"], country="US", max_ads=30)
        assert client.ledger.paid_calls == 0  # the very pages the command stored
    ids = expected["ad_archive_id"].tolist()
    if suffix == ".parquet":
        pd.testing.assert_frame_equal(pd.read_parquet(out), expected)
        return
    if suffix == ".csv":
        back = pd.read_csv(out, dtype=str, keep_default_na=False)
        assert back["publisher_platforms"].map(json.loads).tolist() == [
            list(p) for p in expected["publisher_platforms"]
        ]
        assert (
            pd.to_datetime(back["start_date"], utc=True).tolist() == expected["start_date"].tolist()
        )
        assert back["start_date"].iloc[0].endswith("+00:00")  # RFC 3339, as df.social.to_csv
    elif suffix == ".jsonl":
        back = pd.read_json(out, lines=True, dtype=False)
        assert len(out.read_text(encoding="utf-8").splitlines()) == 30  # one row per line
        assert back["publisher_platforms"].tolist() == [
            list(p) for p in expected["publisher_platforms"]
        ]
        assert (
            pd.to_datetime(back["start_date"], utc=True).tolist() == expected["start_date"].tolist()
        )
    else:
        back = pd.read_excel(out, dtype={"ad_archive_id": str, "page_id": str})
        assert back["start_date"].tolist() == [
            t.tz_localize(None) for t in expected["start_date"]
        ]  # UTC, without a zone: Excel has none
    assert back.columns.tolist() == expected.columns.tolist()
    assert back["ad_archive_id"].tolist() == ids  # 16-digit ids intact, as text
    assert back["body_text"].fillna("").tolist() == expected["body_text"].fillna("").tolist()


def test_xlsx_without_a_writer_says_so_before_paying(sandbox: Sandbox, tmp_path: Path) -> None:
    # The same entry point with the Excel writers made unimportable.
    code = (
        "import sys; sys.modules['openpyxl'] = sys.modules['xlsxwriter'] = None\n"
        "from socialframe.__main__ import main; raise SystemExit(main())"
    )
    env = dict(os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    done = subprocess.run(
        [sys.executable, "-c", code, "ads", "coffee", "-o", str(tmp_path / "ads.xlsx")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "socialframe: error: writing ads.xlsx needs an Excel writer: pip install openpyxl"
        " (or write .csv, which Excel opens)"
    ]
    assert sandbox.requests == [] and not (tmp_path / "ads.xlsx").exists()


def test_a_budget_stop_writes_the_partial_output_and_exits_3(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    out = tmp_path / "big.csv"
    run = cli(
        "comments", P2345, "--max-cost", "0.03", "-o", str(out), sandbox=sandbox, process=True
    )
    assert run.code == 3
    assert sandbox.charges == 3
    assert len(pd.read_csv(out, dtype=str)) == 150  # three pages of 50
    assert run.lines == [
        "socialframe: paid 3 calls ($0.03) · cached 0 ($0.00 saved) · failed 0 (free)",
        "socialframe: error: stopped by --max-cost $0.03 before the next paid call (spent $0.03);"
        f" wrote the 150 comments fetched before it to {out} (partial). Run again with a higher"
        " --max-cost: the pages paid so far come from the cache.",
    ]
    # The budget is this run's: the three pages paid before come from the cache, free.
    again = cli("comments", P2345, "--max-cost", "0.05", "-o", str(out), sandbox=sandbox)
    assert again.code == 3 and sandbox.charges == 8
    assert len(pd.read_csv(out, dtype=str)) == 400
    assert again.lines[0] == (
        "socialframe: paid 5 calls ($0.05) · cached 3 ($0.03 saved) · failed 0 (free)"
    )


def test_a_budget_stop_before_anything_writes_nothing(sandbox: Sandbox, tmp_path: Path) -> None:
    out = tmp_path / "none.csv"
    run = cli("comments", P82, "--max-cost", "0", "-o", str(out), sandbox=sandbox)
    assert run.code == 3 and sandbox.requests == [] and not out.exists()
    assert "nothing was fetched before it, so nothing was written" in run.lines[-1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["comments", P82, "--max-pages", "x"],
            "argument --max-pages: expected a whole number >= 1, got 'x'"
            " (see 'socialframe comments --help')",
        ),
        (
            ["comments", P82, "--sort", "newest"],
            "--sort 'newest' is not one of mostRelevant, mostRecent"
            " (see 'socialframe comments --help')",
        ),
        (
            ["ads", "coffee", "--country", "USA"],
            "country must be an ISO-3166 alpha-2 code such as 'US', or 'ALL'; got 'USA'",
        ),
        (
            ["ads", "--country", "US"],
            "give a QUERY (or '-' to read them from stdin), or --page-id ID",
        ),
        (
            ["ads", "coffee", "-o", "ads.txt"],
            "cannot write 'ads.txt': the suffix chooses the format: .csv, .jsonl, .parquet or .xlsx",
        ),
        (
            ["comments", P82, "-o", "c.xlsx", "--excel"],  # (before: --excel was let go)
            "cannot write 'c.xlsx': --excel (excel=True) is for a .csv file; .xlsx has one form only",
        ),
        (
            ["comments", P82, "-o", "no/such/folder/c.csv"],
            "cannot write no/such/folder/c.csv: there is no folder no/such/folder",
        ),
        (
            ["comments", "not a post"],
            "no activity id in post 'not a post':"
            " expected digits, urn:li:activity:<id> or a URL containing 'activity:<id>' / 'activity-<id>'",
        ),
        (
            ["comments", P82, "not a post"],  # several: the message names the item
            "item 1 ('not a post'): no activity id in post 'not a post':"
            " expected digits, urn:li:activity:<id> or a URL containing 'activity:<id>' / 'activity-<id>'",
        ),
        (
            ["comments", P82, "--max-cost", "-1"],
            "argument --max-cost: expected an amount of USD in whole cents from 0 to 1,000,000,"
            " such as 1.50, got '-1' (see 'socialframe comments --help')",
        ),
    ],
)
def test_a_bad_argument_is_one_line_and_costs_nothing(
    args: list[str], message: str, sandbox: Sandbox, tmp_path: Path
) -> None:
    run = cli(*args, sandbox=sandbox, cwd=tmp_path)
    assert (run.code, run.out, len(run.lines)) == (2, "", 1)
    pattern = re.escape(message).replace(r"'\?", "'?")
    assert re.fullmatch(f"socialframe: error: {pattern}", run.err.strip()), run.err
    assert sandbox.requests == []


def test_the_key_is_never_taken_on_the_command_line(sandbox: Sandbox) -> None:
    for args in (["--api-key", sandbox.api_key], [f"--api-key={sandbox.api_key}"]):
        run = cli("comments", P82, *args, sandbox=sandbox)  # cli() checks the key is not echoed
        assert run.code == 2
        assert "never put the API key on the command line" in run.err
    assert sandbox.requests == []


def test_the_key_from_another_variable(sandbox: Sandbox) -> None:
    env = {"SOCIALFRAME_API_KEY": "", "TEAM_KEY": sandbox.api_key}
    run = cli("comments", P82, "--key-env", "TEAM_KEY", sandbox=sandbox, env=env)
    assert run.code == 0 and len(pd.read_csv(io.StringIO(run.out))) == 82
    missing = cli("comments", P82, "--key-env", "NO_SUCH_VAR", sandbox=sandbox)
    assert missing.code == 4 and len(missing.lines) == 1
    assert missing.lines[0].startswith(
        "socialframe: error: not set: the variable --key-env names (it is not set, or empty);"
    )
    assert "NO_SUCH_VAR" not in missing.err  # (what was given may be the key itself)


def test_a_missing_or_refused_key_exits_4(sandbox: Sandbox) -> None:
    none = cli("ads", "coffee", sandbox=sandbox, env={"SOCIALFRAME_API_KEY": ""})
    assert none.code == 4 and "not set: SOCIALFRAME_API_KEY (your key);" in none.err
    wrong = cli(
        "ads", "coffee", sandbox=sandbox, env={"SOCIALFRAME_API_KEY": "sf-wrong"}, process=True
    )
    assert wrong.code == 4 and wrong.out == ""
    assert wrong.lines[-1] == (
        "socialframe: error: AuthError: HTTP 401 (ads): Invalid API key;"
        " nothing was fetched before it, so nothing was written."
    )
    assert sandbox.charges == 0


def test_a_service_failure_exits_5_with_the_rows_before_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    cli("comments", P82, sandbox=sandbox)  # P82 is cached now
    sandbox.inject(400)  # the next request: P50's first page
    out = tmp_path / "c.jsonl"
    run = cli("comments", P82, P50, "--workers", "1", "-o", str(out), sandbox=sandbox, process=True)
    assert run.code == 5
    assert run.lines[-1].startswith("socialframe: error: BadRequestError: HTTP 400 (comments): ")
    assert run.lines[-1].endswith(f"wrote the 82 comments fetched before it to {out} (partial).")
    assert len(out.read_text(encoding="utf-8").splitlines()) == 82


def test_skipping_failed_items(sandbox: Sandbox) -> None:
    sandbox.inject(400)
    run = cli("comments", P50, P82, "--workers", "1", "--on-error", "skip", sandbox=sandbox)
    assert run.code == 0
    assert set(pd.read_csv(io.StringIO(run.out), dtype=str)["post"]) == {P82}
    assert any(
        "SkippedWarning" in line and line.startswith("socialframe: warning: ") for line in run.lines
    )
    assert run.lines[-1] == (
        "socialframe: wrote 82 comments of 2 posts to standard output; 1 item skipped after failing"
    )


def test_offline_needs_no_key_and_sends_nothing(sandbox: Sandbox) -> None:
    assert cli("comments", P82, sandbox=sandbox).code == 0
    sent = len(sandbox.requests)
    no_key = {"SOCIALFRAME_API_KEY": ""}
    run = cli("comments", P82, "--offline", sandbox=sandbox, env=no_key)
    assert run.code == 0 and len(pd.read_csv(io.StringIO(run.out))) == 82
    miss = cli("comments", P50, "--offline", sandbox=sandbox, env=no_key)
    assert miss.code == 5 and "NotCachedError: offline" in miss.lines[-1]
    assert len(sandbox.requests) == sent


def test_no_command_at_all_is_a_usage_error() -> None:
    # Before: a traceback (zip() of the arguments and their successors, strict) and exit 1.
    run = cli()
    assert run.code == 2 and run.out == ""
    assert run.lines == [
        "socialframe: error: the following arguments are required: COMMAND"
        " (see 'socialframe --help')"
    ]


def test_help_documents_the_exit_codes() -> None:
    for args in (["--help"], ["comments", "--help"], ["ads", "--help"]):
        run = cli(*args)
        assert run.code == 0
        for line in (
            "2  bad arguments or settings; nothing was fetched or paid",
            "3  stopped by --max-cost; the rows fetched before the stop are written",
            "4  no API key, or the service refused it",
        ):
            assert line in run.out
    assert "--key-env NAME" in cli("comments", "--help").out
    assert "--api-key" not in cli("comments", "--help").out


def test_python_dash_m_is_the_same_command(sandbox: Sandbox) -> None:
    env = dict(os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", "ads", "coffee", "--max-pages", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    with sandbox.client(cache=False, progress=False) as client:
        expected = client.search_ads(["coffee"], max_pages=1)
    frame = pd.read_csv(io.StringIO(done.stdout), dtype=str)
    assert frame["ad_archive_id"].tolist() == expected["ad_archive_id"].tolist()


def test_sandbox_command_serves_until_stopped() -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "socialframe", "sandbox", "--port", "0", "--api-key", "k-cli"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = re.search(r"serving at (\S+)", line).group(1)  # type: ignore[union-attr]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/seed-0", url)
        with sf.Client("k-cli", base_url=url, cache=False) as client:
            assert len(client.post_comments(EXAMPLE_POSTS[82])) == 82
        assert requests.get(url + "/fetch_search_ads_pages", timeout=5).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.slow
@pytest.mark.parametrize("at", ["2026-01-01", "2026-03-01T12:00+01:00"])
def test_sandbox_command_shows_its_world_as_of_a_date(at: str) -> None:
    from datetime import UTC, datetime

    when = datetime.fromisoformat(at)
    when = when if when.tzinfo else when.replace(tzinfo=UTC)  # (a date alone is UTC)

    argv = [sys.executable, "-m", "socialframe", "sandbox", "--port", "0", "--api-key", "k"]
    proc = subprocess.Popen(
        [*argv, "--at", at],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert proc.stdout is not None
        url = re.search(r"serving at (\S+)", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
        assert "standing still" in proc.stdout.readline()
        with sf.Client("k", base_url=url, cache=False) as client:
            got = client.post_comments(EXAMPLE_POSTS[2345])
        assert len(got) == comment_total(EXAMPLE_POSTS[2345], now=when)
        assert len(got) == 2345 if at == "2026-01-01" else len(got) > 2345
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        assert proc.stdout is not None
        proc.stdout.close()


def test_sandbox_command_refuses_a_date_it_cannot_read() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", "sandbox", "--at", "next tuesday"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "not an ISO date or time: 'next tuesday'" in done.stderr


def test_the_key_never_reaches_the_logs(
    sandbox: Sandbox, client: sf.Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sandbox.inject(503, 401)
    with pytest.raises(sf.AuthError) as info:
        client.post_comments(EXAMPLE_POSTS[82])
    client.search_ads("for kids", max_pages=1)
    client.search_ads("for kids", max_pages=1)
    assert "requests_cache" in caplog.text  # the cache did log, at DEBUG
    for text in (caplog.text, str(info.value), repr(info.value), repr(client), str(client.ledger)):
        assert sandbox.api_key not in text


# -- the cache -----------------------------------------------------------------------------------


def test_cache_info_report_and_clear(sandbox: Sandbox, tmp_path: Path, clean_env: Path) -> None:
    assert cli("comments", P82, P51, sandbox=sandbox).code == 0
    assert (
        cli("ads", "for kids", "--country", "US", "--status", "active", sandbox=sandbox).code == 0
    )
    paid = sandbox.charges
    cache_file = clean_env / "http_cache.sqlite"

    info = cli("cache", "info", process=True)
    assert info.code == 0
    fields = dict(line.split(":", 1) for line in info.out.splitlines())
    assert fields["cache"].strip() == str(cache_file)
    assert fields["pages"].strip() == str(paid)
    assert fields["paid value"].strip() == f"${paid / 100:.2f} (each page paid once)"
    assert fields["items"].strip() == "3"

    report = cli("cache", "report", "-o", str(tmp_path / "report.csv"))
    assert report.code == 0
    assert report.lines == [
        f"socialframe: 3 items, {paid} pages, ${paid / 100:.2f} paid, in {cache_file}"
    ]
    frame = pd.read_csv(tmp_path / "report.csv", dtype={"item": str})
    assert frame["first_fetched"].is_monotonic_increasing  # oldest first
    # (the two posts were fetched at once, by two workers: either may be first)
    frame = frame.set_index("item", drop=False).loc[[P82, P51, "for kids"]]
    with reference(sandbox, clean_env) as client:
        ads = client.search_ads(["for kids"], country="US", active_status="active")
        assert client.cache_report().equals(pd.read_parquet(_parquet_report(tmp_path)))
    assert frame[["operation", "item", "filters", "pages", "rows", "paid_usd"]].to_dict(
        "records"
    ) == [
        {
            "operation": "comments",
            "item": P82,
            "filters": "sort=mostRelevant",
            "pages": 2,
            "rows": 82,
            "paid_usd": 0.02,
        },
        {
            "operation": "comments",
            "item": P51,
            "filters": "sort=mostRelevant",
            "pages": 2,
            "rows": 51,
            "paid_usd": 0.02,
        },
        {
            "operation": "ads",
            "item": "for kids",
            "filters": "active_status=active country=US",
            "pages": paid - 4,
            "rows": len(ads),
            "paid_usd": (paid - 4) / 100,
        },
    ]
    assert frame["paid_usd"].sum() == pytest.approx(paid / 100)

    refused = cli("cache", "clear")  # no terminal, no --yes: nothing removed
    assert refused.code == 2
    assert refused.lines == [
        f"socialframe: error: cache clear would remove {paid} pages (${paid / 100:.2f} paid)"
        f" from {cache_file}: add --yes to do it"
    ]
    cleared = cli("cache", "clear", "--yes")
    assert (cleared.code, cleared.lines) == (
        0,
        [f"socialframe: removed {paid} pages (${paid / 100:.2f} paid) from {cache_file}"],
    )
    empty = cli("cache", "report")
    assert empty.out.splitlines() == [
        "operation,item,filters,pages,rows,first_fetched,last_fetched,paid_usd,expired_pages,base_url"
    ]
    assert cli("comments", P82, sandbox=sandbox).code == 0 and sandbox.charges == paid + 2


def _parquet_report(folder: Path) -> Path:
    out = folder / "report.parquet"
    assert cli("cache", "report", "-o", str(out)).code == 0
    return out


def test_the_cache_commands_leave_an_absent_cache_absent(tmp_path: Path) -> None:
    where = tmp_path / "nowhere" / "c.sqlite"
    info = cli("cache", "info", "--cache", str(where))
    assert info.code == 0 and f"cache:          {where} (absent)" in info.out
    assert "pages:          0" in info.out
    assert cli("cache", "clear", "--yes", "--cache", str(where)).code == 0
    assert not where.parent.exists()


def test_clear_expired_removes_only_the_expired_pages(sandbox: Sandbox, clean_env: Path) -> None:
    # P82's pages are stored to expire after 1 s; P51's never (the default).
    assert cli("comments", P82, sandbox=sandbox, env={"SOCIALFRAME_CACHE_EXPIRE": "1"}).code == 0
    assert cli("comments", P51, sandbox=sandbox).code == 0
    _wait_until_expired(2)
    run = cli("cache", "clear", "--expired", "--yes")
    cache_file = clean_env / "http_cache.sqlite"
    assert (run.code, run.lines) == (
        0,
        [f"socialframe: removed 2 expired pages ($0.02 paid) from {cache_file}"],
    )
    left = pd.read_csv(io.StringIO(cli("cache", "report").out), dtype={"item": str})
    assert left["item"].tolist() == [P51] and left["expired_pages"].tolist() == [0]
    again = cli("cache", "clear", "--expired", "--yes")
    assert again.lines == [f"socialframe: no expired pages to remove in {cache_file}"]


def _wait_until_expired(pages: int, *args: str) -> None:
    """Until the cache reports ``pages`` expired pages (a wait, not a timing assertion)."""

    for _ in range(200):
        report = pd.read_csv(io.StringIO(cli("cache", "report", *args).out))
        if int(report["expired_pages"].sum()) >= pages:
            return
        time.sleep(0.1)
    raise AssertionError("the pages never expired")


def test_the_cache_commands_on_a_team_cache(
    sandbox: Sandbox, tmp_path: Path, redis_url: str
) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    url = redis_url
    team = {"SOCIALFRAME_CACHE_URL": url}
    assert cli("comments", P82, sandbox=sandbox, env=team).code == 0
    assert (
        cli(
            "ads",
            "coffee",
            "--max-pages",
            "1",
            sandbox=sandbox,
            env=team,
        ).code
        == 0
    )
    assert (
        cli("comments", P51, sandbox=sandbox, env={**team, "SOCIALFRAME_CACHE_EXPIRE": "1"}).code
        == 0
    )
    # What else lives in the namespace: a page lock held by another machine, a rate bucket.
    r = redis.Redis.from_url(url)
    r.set("socialframe:lock:0123abcd", "token")
    r.zadd("socialframe:rate:3/1000ms", {"x": 1})
    assert not list(tmp_path.glob("**/*.sqlite"))

    info = cli("cache", "info", "--cache", url)
    assert info.code == 0
    fields = {k: v.strip() for k, v in (line.split(":", 1) for line in info.out.splitlines())}
    assert fields["cache"] == url
    assert (fields["pages"], fields["items"]) == ("5", "3")
    assert fields["paid value"] == "$0.05 (each page paid once)"
    assert int(fields["size"].split()[0].replace(",", "").split(".")[0]) > 0

    report = pd.read_csv(io.StringIO(cli("cache", "report", env=team).out), dtype={"item": str})
    assert sorted(zip(report["item"], report["pages"], strict=True)) == sorted(
        [(P82, 2), ("coffee", 1), (P51, 2)]
    )
    _wait_until_expired(2, "--cache", url)
    run = cli("cache", "clear", "--expired", "--yes", "--cache", url)
    assert run.lines == [f"socialframe: removed 2 expired pages ($0.02 paid) from {url}"]
    assert cli("cache", "clear", "--yes", env=team).lines == [
        f"socialframe: removed 3 pages ($0.03 paid) from {url}"
    ]
    assert r.get("socialframe:lock:0123abcd") == b"token"  # not a page: left alone
    assert sandbox.api_key.encode() not in b"".join(r.dump(k) or b"" for k in r.scan_iter())


def _on_a_terminal(
    args: list[str], env: dict[str, str], answer: bytes = b""
) -> tuple[int, str, str]:
    """Run the script with stdin and stderr on a pseudo-terminal (as in a shell), stdout to a
    file (a pipe nobody reads while the terminal is read would fill and block the script)."""
    import pty
    import tempfile

    assert SCRIPT is not None
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    # 24 rows x 100 columns, as a terminal window has (a fresh pty says 0 x 0).
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with tempfile.TemporaryFile() as stdout:
        proc = subprocess.Popen([SCRIPT, *args], stdin=slave, stdout=stdout, stderr=slave, env=env)
        os.close(slave)
        if answer:
            os.write(master, answer)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the script closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        code = proc.wait(timeout=60)
        stdout.seek(0)
        out = stdout.read().decode()
    return code, out, seen.decode(errors="replace")


def test_progress_shows_on_a_terminal_only(sandbox: Sandbox) -> None:
    env = dict(os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    code, out, terminal = _on_a_terminal(["comments", P2345, "--max-pages", "3"], env)
    assert code == 0 and len(pd.read_csv(io.StringIO(out))) == 150
    # the tqdm bar, to the pages it will read: 3 (of the post's 47: it said 3/47, and
    # stopped at 6%)
    assert re.search(r"comments \d+: .*\| 3/3 ", terminal) and "/47" not in terminal, terminal
    assert "3 pages, $0.03" in terminal
    assert sandbox.api_key not in out + terminal
    piped = cli("comments", P2345, "--max-pages", "3", sandbox=sandbox)  # stderr not a terminal
    assert piped.code == 0 and len(piped.lines) == 2 and "%|" not in piped.err


def test_clear_asks_on_a_terminal(sandbox: Sandbox) -> None:
    assert cli("comments", P82, sandbox=sandbox).code == 0
    env = dict(os.environ)
    code, _, terminal = _on_a_terminal(["cache", "clear"], env, answer=b"n\n")
    assert code == 2 and "remove 2 pages ($0.02 paid)" in terminal and "[y/N]" in terminal
    assert "pages:          2\n" in cli("cache", "info").out  # "n": nothing removed
    code, _, terminal = _on_a_terminal(["cache", "clear"], env, answer=b"y\n")
    assert code == 0 and "removed 2 pages ($0.02 paid)" in terminal
    assert "pages:          0" in cli("cache", "info").out


def test_no_base_url_is_a_bad_setting(sandbox: Sandbox) -> None:
    run = cli("comments", P82, env={"SOCIALFRAME_API_KEY": sandbox.api_key})
    assert run.code == 2 and len(run.lines) == 1
    assert run.lines[0].startswith(
        "socialframe: error: not set: SOCIALFRAME_BASE_URL (the service's URL); export it"
    )
    assert sandbox.api_key not in run.err


@pytest.mark.parametrize(
    ("env", "code", "named"),
    [
        ({}, 4, ["SOCIALFRAME_API_KEY (your key) and SOCIALFRAME_BASE_URL"]),
        ({"SOCIALFRAME_API_KEY": "k"}, 2, ["SOCIALFRAME_BASE_URL (the service's URL)"]),
        (
            {"SOCIALFRAME_API_KEY": "k", "SOCIALFRAME_ADS_URL": "http://127.0.0.1:9"},
            2,
            ["SOCIALFRAME_COMMENTS_URL (or SOCIALFRAME_BASE_URL for both operations)"],
        ),
        ({"SOCIALFRAME_BASE_URL": "http://127.0.0.1:9"}, 4, ["SOCIALFRAME_API_KEY (your key);"]),
    ],
)
def test_missing_settings_are_named_at_once_with_the_shells_remedy(
    env: dict[str, str], code: int, named: list[str]
) -> None:
    """Before: the key alone was named, then, once it was set, the base URL with a
    Python remedy ("Pass it to sf.Client(...)", a `with sf.Sandbox()` snippet)."""
    base = {"SOCIALFRAME_API_KEY": "", "SOCIALFRAME_BASE_URL": ""}
    run = cli("comments", P82, env={**base, **env})
    assert run.code == code and len(run.lines) == 1 and run.out == ""
    assert all(part in run.lines[0] for part in named), run.lines
    assert "export" in run.lines[0] and "run 'socialframe sandbox'" in run.lines[0]
    assert "sf." not in run.err and "Client(" not in run.err


def test_a_clear_that_cannot_write_says_so(sandbox: Sandbox, clean_env: Path) -> None:
    import sqlite3

    assert cli("comments", P82, P51, sandbox=sandbox).code == 0
    holder = sqlite3.connect(clean_env / "http_cache.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, for longer than we wait
    try:
        run = cli("cache", "clear", "--yes")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert run.code == 5 and len(run.lines) == 1
    assert run.lines[0].startswith("socialframe: error: OSError: 4 of 4 pages could not be removed")
    assert "lock" in run.lines[0]
    assert "pages:          4\n" in cli("cache", "info").out  # all still there


def test_posts_without_comments_are_named_in_the_closing_line(sandbox: Sandbox) -> None:
    empty = EXAMPLE_POSTS[0]
    run = cli("comments", EXAMPLE_POSTS[82], empty, sandbox=sandbox)
    assert run.code == 0, run.err
    assert run.lines[-1] == (
        f"socialframe: wrote 82 comments of 2 posts (1 had none: {empty}) to standard output"
    )


def test_closing_lines_count_what_they_name(sandbox: Sandbox, tmp_path: Path) -> None:
    """One and many, as English has them ("wrote 1 comments", "1 post(s) added" before)."""
    one = tmp_path / "one.csv"
    run = cli("comments", EXAMPLE_POSTS[1], "-o", str(one), sandbox=sandbox)
    assert run.code == 0, run.err
    assert run.lines == [
        "socialframe: paid 1 call ($0.01) · cached 0 ($0.00 saved) · failed 0 (free)",
        f"socialframe: wrote 1 comment to {one}",
    ]
    report = cli("report", str(one), "-o", str(tmp_path / "one.html"))
    assert report.code == 0, report.err
    assert (
        report.lines[-1] == f"socialframe: wrote the report of 1 comment to {tmp_path / 'one.html'}"
    )
    study = str(tmp_path / "s")
    added = cli("study", "add-posts", study, EXAMPLE_POSTS[1], sandbox=sandbox)
    assert added.lines == [f"socialframe: 1 post added; {study} watches 1 post and 0 searches"]
    added = cli("study", "add-ads", study, "coffee", sandbox=sandbox)
    assert added.lines == [f"socialframe: 1 search added; {study} watches 1 post and 1 search"]
    refreshed = cli("study", "refresh", study, "--cache", str(tmp_path / "c"), sandbox=sandbox)
    assert refreshed.code == 0, refreshed.err
    assert refreshed.lines[-1].endswith(" changed in 2 items"), refreshed.lines
    runs = cli("study", "runs", study, "-o", str(tmp_path / "runs.csv"))
    assert runs.lines == [f"socialframe: wrote 1 refresh to {tmp_path / 'runs.csv'}"]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("--max-cots", "--max-cost"), ("--countri", "--country"), ("--ouptut", "--output")],
)
def test_an_unknown_option_suggests_the_closest(typed: str, meant: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", "ads", "coffee", typed, "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"unrecognized arguments: {typed}; did you mean {meant}?" in done.stderr
    assert " 1" not in done.stderr.split("unrecognized arguments:")[1]  # values never shown


def test_max_cost_says_it_is_per_run() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "socialframe", "comments", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "this run may spend, not a total over runs" in " ".join(done.stdout.split())


def _env(sandbox: Sandbox, **more: str) -> dict[str, str]:
    return dict(
        os.environ,
        SOCIALFRAME_BASE_URL=sandbox.url,
        SOCIALFRAME_API_KEY=sandbox.api_key,
        PYTHONUNBUFFERED="1",
        **more,
    )


@pytest.mark.slow
def test_the_command_line_refuses_an_infinite_expiry_before_paying(sandbox: Sandbox) -> None:
    run = cli("comments", P82, sandbox=sandbox, env={"SOCIALFRAME_CACHE_EXPIRE": "inf"})
    assert run.code == 2, run.err
    assert "SOCIALFRAME_CACHE_EXPIRE must be -1 (never expire) or seconds" in run.err
    assert "paid so far" not in run.err and run.out == ""
    assert sandbox.requests == [] and sandbox.charges == 0
