"""A refresh's digest (``notify=URL``, ``--notify URL``) to a real HTTP server on a
loopback port this test starts; the refresh goes to the sandbox over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]
SECRET = "T000/B000/XXXXsecretXXXX"  # a webhook's path is its secret


class Hook:
    """A webhook on 127.0.0.1 that keeps every POST body, answering ``status``."""

    def __init__(self, status: int = 200) -> None:
        self.bodies: list[dict[str, object]] = []
        self.types: list[str] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                hook.bodies.append(json.loads(self.rfile.read(length)))
                hook.types.append(self.headers.get("Content-Type", ""))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/services/{SECRET}?token=abc"

    def __enter__(self) -> Hook:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock()) as server:
        yield server


def _study(tmp_path: Path) -> sf.Study:
    study = sf.Study(tmp_path / "brand-watch")
    study.add_posts([P82])
    study.add_ads("coffee", country="US", active_status="all")
    return study


def test_the_digest_says_what_the_refresh_found_and_paid(sandbox: Sandbox, tmp_path: Path) -> None:
    study = _study(tmp_path)
    with Hook() as hook, sandbox.client(cache=False, progress=False) as client:
        run = study.refresh(client, notify=hook.url)
    assert len(hook.bodies) == 1 and hook.types == ["application/json"]
    digest = hook.bodies[0]
    changes = study.changes()
    assert digest["study"] == "brand-watch"
    assert digest["paid_calls"] == int(run["paid_calls"].sum())
    assert digest["changes"] == len(changes)
    assert digest["counts"] == {
        kind: group["change"].value_counts().to_dict() for kind, group in changes.groupby("kind")
    }
    assert len(digest["first"]) == 20 and digest["first"][0]["change"] == "new"  # type: ignore[arg-type,index]


@pytest.mark.parametrize("status", [500, None])
def test_a_failed_notification_warns_and_keeps_the_refresh(
    sandbox: Sandbox, tmp_path: Path, status: int | None
) -> None:
    study = _study(tmp_path)
    with Hook(status or 200) as hook, sandbox.client(cache=False, progress=False) as client:
        url = hook.url
        if status is None:  # nobody listens there any more
            hook.server.server_close()
        with pytest.warns(sf.NotifyWarning) as caught:
            run = study.refresh(client, notify=url)
    message = str(caught[0].message)
    assert "127.0.0.1" in message and SECRET not in message and "token" not in message
    assert run["new"].sum() > 0 and len(study.changes()) == run["new"].sum()


def test_a_bad_webhook_is_refused_before_anything_is_paid(sandbox: Sandbox, tmp_path: Path) -> None:
    study = _study(tmp_path)
    with sandbox.client(cache=False, progress=False) as client:
        for bad in ("ftp://example.com/x", "not a url", "http://"):
            with pytest.raises(ValueError, match="webhook URL"):
                study.refresh(client, notify=bad)
    assert sandbox.charges == 0


@pytest.mark.slow
def test_the_command_line_sends_the_digest(sandbox: Sandbox, tmp_path: Path) -> None:
    _study(tmp_path)
    env = dict(os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    with Hook() as hook:
        done = subprocess.run(
            [sys.executable, "-m", "socialframe", "study", "refresh", "brand-watch"]
            + ["--notify", hook.url, "--recheck-pages", "1"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert len(hook.bodies) == 1 and hook.bodies[0]["study"] == "brand-watch"
