"""A refresh's digest (``notify=URL``, ``--notify URL``) to a real HTTP server on a
loopback port this test starts; the refresh goes to the sandbox over HTTP."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import socialframe as sf
from socialframe._study import notify
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


def _apprise_or_skip() -> None:
    """Skip saying how to install apprise, where it is missing; under CI=true, fail
    where the test extras name it (CI installs them)."""
    try:
        import apprise  # noqa: F401
    except ImportError:
        import tomllib

        extras = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
        test = extras["project"]["optional-dependencies"]["test"]
        if os.environ.get("CI") == "true" and any("notify" in e or "apprise" in e for e in test):
            pytest.fail("apprise is in the test extras but not installed")
        pytest.skip('apprise is not installed: pip install "socialframe[notify]"')


def test_other_schemes_go_through_apprise(sandbox: Sandbox, tmp_path: Path) -> None:
    _apprise_or_skip()
    study = _study(tmp_path)
    with Hook() as hook, sandbox.client(cache=False, progress=False) as client:
        # apprise's json:// POSTs {"title", "message", ...} (as slack://, mailto://, ...
        # send to their services); before: refused, only http(s) was sent
        url = hook.url.replace("http://", "json://")
        run = study.refresh(client, notify=url)
    assert len(hook.bodies) == 1
    sent = hook.bodies[0]
    changes = study.changes()
    assert sent["title"] == (
        f"socialframe: {len(changes)} changes (ad new {(changes['kind'] == 'ad').sum()},"
        f" comment new {(changes['kind'] == 'comment').sum()}),"
        f" ${run['cost_usd'].sum():.2f} paid"
    )
    digest = json.loads(str(sent["message"]))
    assert digest["study"] == "brand-watch" and digest["paid_calls"] == run["paid_calls"].sum()
    assert digest["first"][0]["id"] == changes["id"].iloc[0]


@pytest.fixture
def every_logger_at_debug(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every logger that may name a request (urllib3's, requests', apprise's) at DEBUG, as
    a user who debugs a cron job sets them; their levels restored after."""
    names = ("urllib3", "urllib3.connectionpool", "requests", "apprise", "socialframe")
    levels = {name: logging.getLogger(name).level for name in names}
    caplog.set_level(logging.DEBUG)
    for name in names:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield caplog
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def _assert_no_secret_logged(caplog: pytest.LogCaptureFixture) -> None:
    assert any(r.name.startswith("urllib3") for r in caplog.records)  # (the test hears them)
    for record in caplog.records:
        seen = record.getMessage() + repr(record.args) + str(record.exc_info or "")
        for secret in (SECRET, "XXXXsecretXXXX", "token=abc"):
            assert secret not in seen, (record.name, seen)


@pytest.mark.parametrize("scheme", ["http", "json"])
@pytest.mark.parametrize("status", [200, 500, None])
def test_no_log_holds_the_webhooks_secret(
    sandbox: Sandbox,
    tmp_path: Path,
    every_logger_at_debug: pytest.LogCaptureFixture,
    scheme: str,
    status: int | None,
) -> None:
    """urllib3 logs each request's path at DEBUG ("POST /services/T000/... 500"): before,
    with its logger at DEBUG, the webhook's secret was in the log."""
    if scheme != "http":
        _apprise_or_skip()
    study = _study(tmp_path)
    with Hook(status or 200) as hook, sandbox.client(cache=False, progress=False) as client:
        url = hook.url.replace("http://", f"{scheme}://")
        if status is None:  # nobody listens there any more
            hook.server.server_close()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = study.refresh(client, notify=url)
    told = [w for w in caught if issubclass(w.category, sf.NotifyWarning)]
    assert len(hook.bodies) == (status is not None) and len(told) == (status != 200)
    _assert_no_secret_logged(every_logger_at_debug)
    assert run["new"].sum() > 0 and len(study.changes()) == run["new"].sum()


def test_a_failed_apprise_notification_warns_without_its_secret(
    sandbox: Sandbox, tmp_path: Path, every_logger_at_debug: pytest.LogCaptureFixture
) -> None:
    _apprise_or_skip()
    study = _study(tmp_path)
    with (
        Hook(500) as hook,
        sandbox.client(cache=False, progress=False) as client,
        pytest.warns(sf.NotifyWarning) as caught,
    ):
        run = study.refresh(client, notify=hook.url.replace("http://", "json://"))
    message = str(caught[0].message)
    # (only the scheme: many apprise URLs hold a token where a host would be)
    assert "json://" in message and SECRET not in message and "token" not in message
    assert SECRET not in every_logger_at_debug.text
    _assert_no_secret_logged(every_logger_at_debug)
    assert run["new"].sum() > 0 and len(study.changes()) == run["new"].sum()


def test_without_apprise_another_scheme_says_what_to_install(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "apprise", None)  # (an import of it fails, as uninstalled)
    study = _study(tmp_path)
    with (
        sandbox.client(cache=False, progress=False) as client,
        pytest.raises(ValueError, match=r'pip install "socialframe\[notify\]"'),
    ):
        study.refresh(client, notify="mailto://user:pass@example.com")
    assert sandbox.charges == 0


@pytest.mark.slow
def test_the_command_line_sends_the_digest(sandbox: Sandbox, tmp_path: Path) -> None:
    _study(tmp_path)
    env = dict(os.environ, SOCIALFRAME_BASE_URL=sandbox.url, SOCIALFRAME_API_KEY=sandbox.api_key)
    with Hook() as hook:
        done = subprocess.run(
            [sys.executable, "-m", "socialframe", "study", "refresh", "brand-watch"]
            + ["--notify", hook.url, "--recheck-pages", "1", "--confirm-stops"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert len(hook.bodies) == 1 and hook.bodies[0]["study"] == "brand-watch"


class Dribble(Hook):
    """A webhook that answers a byte at a time, each well within a read timeout, for
    about 20 seconds: a server slow on purpose, or a broken proxy."""

    def __init__(self) -> None:
        super().__init__()
        self.server.server_close()  # (Hook's own: this one answers otherwise)
        ended = self.ended = threading.Event()
        self.asked: list[float] = []  # (when the digest's POST came: time.monotonic())
        asked = self.asked

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                asked.append(time.monotonic())
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"x" * 80:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        if ended.wait(0.25):
                            break
                    self.wfile.write(b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass  # (the client gave up)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __exit__(self, *exc: object) -> None:
        self.ended.set()  # (its answer ends: the client's thread gets it and closes)
        super().__exit__(*exc)
        time.sleep(0.5)


def test_a_webhook_that_answers_slowly_holds_the_refresh_no_longer_than_its_timeout(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notify, "TIMEOUT", 1.0)  # (each byte comes well within it)
    study = _study(tmp_path)
    # before: requests' timeout is per read, and the refresh waited the ~20 s
    with (
        Dribble() as hook,
        sandbox.client(cache=False, progress=False) as client,
        pytest.warns(sf.NotifyWarning, match="TimeoutError") as caught,
    ):
        run = study.refresh(client, notify=hook.url)
        # (from the digest's POST on: the refresh's own walks, slow on a busy machine,
        # are not what is measured)
        waited = time.monotonic() - hook.asked[0]
    assert waited < 8, waited
    assert SECRET not in str(caught[0].message)
    assert run["new"].sum() > 0 and len(study.changes()) == run["new"].sum()


@pytest.mark.parametrize("port", ["99999", "secretpart"])
def test_a_webhook_whose_port_is_no_port_is_refused_before_anything_is_paid(
    sandbox: Sandbox, tmp_path: Path, port: str
) -> None:
    study = _study(tmp_path)
    # before: accepted, the refresh paid, then the digest raised ValueError (naming
    # the port) out of the refresh
    with (
        sandbox.client(cache=False, progress=False) as client,
        pytest.raises(ValueError, match="webhook URL") as raised,
    ):
        study.refresh(client, notify=f"http://127.0.0.1:{port}/services/{SECRET}")
    assert sandbox.charges == 0
    assert "secretpart" not in str(raised.value) and SECRET not in str(raised.value)


def test_an_apprise_url_whose_host_is_its_token_is_not_shown(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _apprise_or_skip()
    # apprise's requests go through a proxy nobody listens on: the service is never
    # reached, the notification fails at once, on any machine
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    token = "T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ"
    study = _study(tmp_path)
    with (
        sandbox.client(cache=False, progress=False) as client,
        pytest.warns(sf.NotifyWarning) as caught,
    ):
        run = study.refresh(client, notify=f"slack://{token}/#general")
    message = str(caught[0].message)
    # before: "slack://t1jj3t3l2": its first token, shown as if it were a host
    assert "slack://" in message and "t1jj3t3l2" not in message.lower()
    assert run["new"].sum() > 0
