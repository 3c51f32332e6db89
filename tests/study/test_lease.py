"""The lease a refresh holds on its study (``_study/lease.py``): two processes with
separate HTTP caches refreshing one study in a bucket (moto's S3 server on loopback) at
once, a holder that stays, and a holder killed with ``kill -9``.

The refreshes of processes of their own that need the lease's times shortened run this
file as a script (:func:`main`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

import socialframe as sf
from socialframe._study import lease
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

if TYPE_CHECKING:
    from servers import S3

P82, P2345 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[2345]

#: A refresh in a process of its own: the study's storage options from AWS_* alone.
CHILD = textwrap.dedent(
    """
    import json, sys, socialframe as sf
    study = sf.Study(sys.argv[1])
    with sf.Client(sys.argv[3], base_url=sys.argv[2], cache=sys.argv[4], progress=False) as c:
        print("ready", flush=True)
        sys.stdin.readline()  # (both start at once)
        try:
            frame = study.refresh(c)
            said = {"rows": len(frame), "new": int(frame["new"].sum())}
        except sf.StudyError as exc:
            said = {"error": str(exc)}
        said["paid"] = c.ledger.paid_calls
    print(json.dumps(said), flush=True)
    """
)


def _env(s3: S3) -> dict[str, str]:
    return {
        **os.environ,
        "AWS_ENDPOINT_URL": s3.endpoint,
        "AWS_ACCESS_KEY_ID": s3.key_id,
        "AWS_SECRET_ACCESS_KEY": s3.secret,
        "AWS_REGION": "us-east-1",
        "AWS_ALLOW_HTTP": "true",
    }


def main(argv: list[str]) -> None:
    """A refresh of study ``argv[1]`` in this process (this file run as a script):

    - ``hold STUDY CACHE``: takes the study's lease as any refresh does, prints ``held``
      at its first call to the service (it has the lease then), and holds it until it is
      killed (the service never answers);
    - ``take STUDY``: a refresh that waits 0.5 s for the lease (not 10), printing the
      error it ends with, or ``took it``;
    - ``short-lease STUDY URL KEY CACHE``: a refresh whose lease lasts 2 s (a process
      stopped for longer loses it), printing JSON: its error (or null) and what it paid.
    """
    mode, study = argv[0], sf.Study(argv[1])
    if mode == "hold":

        def never(request: object) -> tuple[int, bytes]:
            print("held", flush=True)
            time.sleep(600)
            return 500, b""

        with sf.Client(
            "k-0123456789",
            base_url="https://api.example",
            transport=never,
            cache=argv[2],
            progress=False,
        ) as client:
            study.refresh(client)
    elif mode == "take":
        lease.WAIT = 0.5
        with sf.Client("k", base_url="http://127.0.0.1:9", progress=False, cache=False) as c:
            try:
                study.refresh(c)
                print("took it")
            except sf.StudyError as exc:
                print(exc)
    elif mode == "short-lease":
        lease.TTL = timedelta(seconds=2)
        url, key, cache = argv[2:5]
        with sf.Client(key, base_url=url, cache=cache, progress=False) as c:
            try:
                study.refresh(c)
                said = {"error": None}
            except sf.StudyError as exc:
                said = {"error": str(exc)}
            said["paid"] = c.ledger.paid_calls
        print(json.dumps(said), flush=True)


def _holder(study: Path, cache: Path) -> subprocess.Popen[str]:
    """A process holding ``study``'s lease (as a refresh under way), once it says so."""
    holder = subprocess.Popen(
        [sys.executable, __file__, "hold", str(study), str(cache)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def _gone(child: subprocess.Popen[str]) -> None:
    if child.poll() is None:
        os.kill(child.pid, signal.SIGCONT)
        child.kill()
    child.wait()
    if child.stdout is not None:
        child.stdout.close()


def _child(uri: str, server: Sandbox, cache: Path, s3: S3) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, uri, server.url, server.api_key, str(cache)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(s3),
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


@pytest.mark.slow
def test_two_refreshes_at_once_from_two_processes_pay_each_page_once(
    s3: S3, tmp_path: Path
) -> None:
    uri = f"s3://{s3.bucket()}/brand-watch"
    study = sf.Study(uri, storage_options=s3.options)
    study.add_posts([P2345])  # 47 pages, slowly: the two overlap
    with Sandbox(seed=0, latency=0.03, clock=PinnedClock()) as slow:
        children = [_child(uri, slow, tmp_path / f"cache-{n}", s3) for n in (1, 2)]
        for child in children:  # go
            assert child.stdin is not None
            child.stdin.write("\n")
            child.stdin.flush()
        said = []
        for child in children:
            out, _ = child.communicate(timeout=120)
            said.append(json.loads(out.strip().splitlines()[-1]))
        # one page, one payment: the second waited for the lease, then found it all done
        assert slow.charges == 47, said
    assert sorted(s["paid"] for s in said) == [0, 47], said
    second = next(s for s in said if s["paid"] == 0)
    assert second == {"rows": 0, "new": 0, "paid": 0}
    assert len(study.runs()) == 1 and study.runs()["paid_calls"].tolist() == [47]
    assert len(study.comments()) == 2345 and study.comments()["comment_id"].is_unique


def test_a_second_refresh_stops_saying_who_holds_the_lease_and_until_when(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_posts([P82])
    holder = _holder(study.path, tmp_path / "held")  # another process's refresh, alive
    monkeypatch.setattr(lease, "WAIT", 0.5)
    try:
        with (
            Sandbox(seed=0, clock=PinnedClock()) as server,
            server.client(cache=tmp_path / "cache", progress=False) as client,
        ):
            began = time.monotonic()
            with pytest.raises(sf.StudyError) as raised:
                study.refresh(client)
            assert time.monotonic() - began >= 0.5
            assert client.ledger.paid_calls == 0 and server.charges == 0
        said = str(raised.value)
        assert f"(pid {holder.pid})" in said and "until 20" in said, said
        assert str(study.path) in said
    finally:
        _gone(holder)
    # once it is gone (killed on this machine: its lease holds nothing) the study is there
    with (
        Sandbox(seed=0, clock=PinnedClock()) as server,
        server.client(cache=tmp_path / "cache", progress=False) as client,
    ):
        assert study.refresh(client)["new"].tolist() == [82]


@pytest.mark.slow
def test_kill_9_mid_refresh_in_a_bucket_leaves_the_study_as_it_was(s3: S3, tmp_path: Path) -> None:
    uri = f"s3://{s3.bucket()}/brand-watch"
    study = sf.Study(uri, storage_options=s3.options)
    study.add_posts([P82])
    with (
        Sandbox(seed=0, clock=PinnedClock()) as fast,
        fast.client(cache=tmp_path / "cache", progress=False) as c,
    ):
        study.refresh(c)
    before = study.comments()
    study.add_posts([P2345])
    with Sandbox(seed=0, latency=0.05, clock=PinnedClock()) as slow:
        child = _child(uri, slow, tmp_path / "cache", s3)
        assert child.stdin is not None
        child.stdin.write("\n")
        child.stdin.flush()
        deadline = time.monotonic() + 60
        while slow.charges < 12 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        assert child.stdout is not None
        child.stdout.close()
        child.stdin.close()
        paid_by_child = slow.charges
        assert 12 <= paid_by_child < 48
        assert len(study.runs()) == 1
        pd.testing.assert_frame_equal(study.comments(), before)
        with slow.client(cache=tmp_path / "cache", progress=False) as client:
            after = study.refresh(client)  # (the killed holder's lease holds nothing)
        stored = paid_by_child - 1
        assert slow.charges - paid_by_child in (47 - stored, 47 - stored + 1)
    assert after.set_index("item")["new"].to_dict() == {P82: 0, P2345: 2345}
    assert len(study.runs()) == 2 and len(study.comments()) == 82 + 2345


@pytest.mark.slow
def test_a_refresh_that_lost_its_lease_pays_for_nothing_more(tmp_path: Path) -> None:
    """A refresh stopped (SIGSTOP, a suspended VM) for longer than its lease, which
    another refresh takes meanwhile: once it runs again, it pays for no page more (it
    could keep none). Before: it paid every page left (44 of 47), then said it had lost
    the lease, and each page was paid twice."""

    study = sf.Study(tmp_path / "s")
    study.add_posts([P2345])  # 47 pages
    with Sandbox(seed=0, latency=0.05, clock=PinnedClock()) as slow:
        child = subprocess.Popen(
            [sys.executable, __file__, "short-lease", str(study.path), slow.url, slow.api_key]
            + [str(tmp_path / "cache")],
            stdout=subprocess.PIPE,
            text=True,
        )
        holder = None
        try:
            deadline = time.monotonic() + 60
            while slow.charges < 5 and time.monotonic() < deadline:
                time.sleep(0.01)
            os.kill(child.pid, signal.SIGSTOP)
            stopped_at = slow.charges
            holder = _holder(study.path, tmp_path / "held")  # another takes it once it expired
            os.kill(child.pid, signal.SIGCONT)
            out, _ = child.communicate(timeout=120)
        finally:
            _gone(child)
            if holder is not None:
                _gone(holder)
        said = json.loads(out.strip().splitlines()[-1])
        assert "lost its lease" in str(said["error"]), said
        assert slow.charges - stopped_at <= 1, (stopped_at, slow.charges)  # (one in flight)
    assert study.runs().empty and study.comments().empty


def test_a_holder_in_another_pid_namespace_of_the_same_host_is_not_taken_for_gone(
    tmp_path: Path,
) -> None:
    """Two containers of one host, with one host name (host networking): a pid of one
    means nothing in the other. Before: the refresh in the container did not see the
    holder's pid, took the living holder for killed and took the lease (two refreshes
    at once)."""
    import shutil

    if shutil.which("unshare") is None:
        pytest.skip("needs util-linux's unshare (apt-get install util-linux)")
    probe = subprocess.run(["unshare", "-p", "-f", "--mount-proc", "true"], check=False)
    if probe.returncode != 0:
        pytest.skip("making a pid namespace needs root (CAP_SYS_ADMIN)")

    study = sf.Study(tmp_path / "s")
    study.add_posts([P82])
    holder = _holder(study.path, tmp_path / "held")  # a process of this host holds it, alive
    try:
        done = subprocess.run(
            ["unshare", "-p", "-f", "--mount-proc", sys.executable, __file__, "take"]
            + [str(study.path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        _gone(holder)
    assert "is being refreshed by" in done.stdout, done.stdout + done.stderr[-2000:]
    assert f"(pid {holder.pid})" in done.stdout


def _planted(study: Path, name: str, until: str, *, released: bool) -> None:
    """A lease object nobody's refresh wrote (by hand, or by another program)."""
    folder = study / "_lease"
    folder.mkdir(exist_ok=True)
    body = {"holder": "someone@elsewhere (pid 1)", "until": until, "released": released}
    (folder / name).write_text(json.dumps(body))


def test_planted_lease_objects_never_lock_the_study_for_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a released lease numbered 99999999999999999999 let one refresh through,
    then the next looped for ever (the number after it has 21 digits, which no listing
    read); a lease until 2099 said only to try again then."""

    study = sf.Study(tmp_path / "s")
    study.add_posts([P82])
    _planted(tmp_path / "s", "9" * 20 + ".json", "2000-01-01T00:00:00+00:00", released=True)
    with Sandbox(seed=0, clock=PinnedClock()) as server:
        for expected in ([82], [0]):
            with server.client(cache=tmp_path / "cache", progress=False) as client:
                done = subprocess.run(  # (a loop for ever would be cut here, and fail)
                    [sys.executable, "-c", CHILD, str(study.path), server.url, server.api_key]
                    + [str(tmp_path / "cache")],
                    input="\n",
                    capture_output=True,
                    text=True,
                    timeout=60,
                    check=False,
                )
            said = json.loads(done.stdout.strip().splitlines()[-1])
            assert said.get("new") == sum(expected), said
    monkeypatch.setattr(lease, "WAIT", 0.3)
    _planted(tmp_path / "s", "1" + "0" * 39 + ".json", "2099-01-01T00:00:00+00:00", released=False)
    with (
        Sandbox(seed=0, clock=PinnedClock()) as server,
        server.client(cache=tmp_path / "cache", progress=False) as client,
    ):
        with pytest.raises(sf.StudyError, match="remove its _lease folder to free it"):
            study.refresh(client)
        assert server.charges == 0


if __name__ == "__main__":
    main(sys.argv[1:])
