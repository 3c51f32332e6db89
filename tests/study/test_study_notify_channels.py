"""A refresh's digest through apprise, received by real consumers: an SMTP server and a
Slack webhook, each on a loopback port this test starts, and the e-mail's HTML in
Chromium. The refresh goes to the sandbox over HTTP, which serves ads whose ids are
hostile text (markup, Slack's control sequences, a header injection): the digest names
them, and they must stay text wherever the digest goes.

The SMTP server is a small one on the standard library's socketserver: aiosmtpd (the
usual choice) warns from its own code on every login (``Session.login_data is
deprecated``), which ``filterwarnings = error`` turns into a refused login.
"""

from __future__ import annotations

import base64
import copy
import email
import email.policy
import html
import json
import socketserver
import threading
import warnings
from collections.abc import Iterator
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import hostile
import pytest
import test_browser
from test_browser import chromium_or_skip
from test_study_notify import _apprise_or_skip, every_logger_at_debug

import socialframe as sf
from socialframe.sandbox import PinnedClock, Sandbox

# tests/test_browser.py's Chromium, launched with this module's `requirements` (no JupyterLab)
browser = test_browser.browser
__all__ = ["every_logger_at_debug"]  # (a fixture: used by name)

SLACK = [
    "<!channel>",
    "<!here>",
    "<@U123>",
    "<https://evil.example|click>",
    f"*bold* {hostile.PAYLOADS[0]}",
]
"""Slack's control sequences (a mention of everyone, of a user, a link with a label),
and its bold, which may stay as it is."""

IDS = [
    *SLACK,
    "x\r\nBcc: evil@example.com",
    "@everyone @here",
    "[verify your account](https://evil.example/login)",
    "&lt;!channel&gt;",
    # (each markup payload once, but the <img> of SLACK's and the formula: no markup)
    *hostile.PAYLOADS[2:18:2],
    *hostile.PAYLOADS[20:],  # (the entities that decode into tags)
]
"""The ads' ids the sandbox serves: the digest names each (it lists the first 20)."""

PASSWORD = "pw-S3cr3t-smtp-9f2c"
TOKENS = ("T1JJ3T3L2", "A1BRTD4JD", "TIiajkdnlazkcOXrIdevi7FQ")


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=PinnedClock()) as server:
        yield server


def _hostile_study(tmp_path: Path, sandbox: Sandbox) -> sf.Study:
    """A study of one ad search, whose first walk the sandbox answers with ads whose
    ids are :data:`IDS`."""
    assert len(IDS) == len(set(IDS)) == 20  # (all in the digest's first 20)
    body = copy.deepcopy(hostile.ads_body())
    ads = [ad for group in body["data"]["ads"] for ad in group][: len(IDS)]
    for ad, ident in zip(ads, IDS, strict=True):
        ad["ad_archive_id"] = ident
    body["data"]["ads"] = [[ad] for ad in ads]
    sandbox.inject(body)
    study = sf.Study(tmp_path / "brand-watch")
    study.add_ads(hostile.QUERY, country="US", active_status="all")
    return study


def _title(study: sf.Study, run: Any) -> str:
    """The title the digest is sent with: counts and price, none of the service's text."""
    changes = study.changes()
    return f"socialframe: {len(changes)} changes (ad new {len(changes)}), ${run['cost_usd'].sum():.2f} paid"


def _assert_is_the_digest(text: str, study: sf.Study) -> None:
    """``text`` is the digest's JSON, naming every hostile id as it is."""
    digest = json.loads(text)
    assert digest["study"] == "brand-watch" and digest["changes"] == len(IDS)
    assert [row["id"] for row in digest["first"]] == list(study.changes()["id"].head(20))
    assert sorted(row["id"] for row in digest["first"]) == sorted(IDS)


# -- e-mail -------------------------------------------------------------------------------


class Smtp:
    """An SMTP server on 127.0.0.1 (EHLO, AUTH PLAIN / LOGIN, MAIL, RCPT, DATA, QUIT)
    that keeps each message and each login; with ``refuse``, every login is refused."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.messages: list[bytes] = []
        self.logins: list[tuple[str, str]] = []
        smtp = self

        class Handler(socketserver.StreamRequestHandler):
            def say(self, line: str) -> None:
                self.wfile.write(line.encode() + b"\r\n")

            def line(self) -> str:
                return self.rfile.readline(65536).decode("utf-8", "replace").rstrip("\r\n")

            def login(self, user: str, password: str) -> None:
                smtp.logins.append((user, password))
                self.say("535 5.7.8 refused" if refuse else "235 2.7.0 accepted")

            def handle(self) -> None:
                self.say("220 127.0.0.1 ready")
                while command := self.line():
                    verb, _, rest = command.partition(" ")
                    verb = verb.upper()
                    if verb in ("EHLO", "HELO"):
                        self.say("250-127.0.0.1\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME")
                    elif verb == "AUTH" and rest.upper().startswith("PLAIN"):
                        given = rest[6:].strip()
                        if not given:
                            self.say("334 ")
                            given = self.line()
                        _, user, password = base64.b64decode(given).decode().split("\0")
                        self.login(user, password)
                    elif verb == "AUTH" and rest.upper().startswith("LOGIN"):
                        given = rest[6:].strip()  # (smtplib sends the user on this line)
                        if not given:
                            self.say("334 VXNlcm5hbWU6")
                            given = self.line()
                        user = base64.b64decode(given).decode()
                        self.say("334 UGFzc3dvcmQ6")
                        self.login(user, base64.b64decode(self.line()).decode())
                    elif verb == "DATA":
                        self.say("354 end with <CRLF>.<CRLF>")
                        lines = []
                        while (got := self.rfile.readline()) not in (b".\r\n", b""):
                            lines.append(got[1:] if got.startswith(b".") else got)
                        smtp.messages.append(b"".join(lines))
                        self.say("250 2.0.0 queued")
                    elif verb == "QUIT":
                        self.say("221 2.0.0 bye")
                        return
                    else:  # MAIL, RCPT, RSET, NOOP
                        self.say("250 2.0.0 ok")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, query: str = "") -> str:
        port = self.server.server_address[1]
        return (
            f"mailto://bob:{PASSWORD}@127.0.0.1:{port}"
            f"?to=team@example.com&from=bob@example.com{query}"
        )

    def __enter__(self) -> Smtp:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def requirements() -> str:
    """Chromium and Playwright (not JupyterLab); test_browser's ``browser`` uses this."""
    return chromium_or_skip(("playwright",))


#: What an element of the e-mail's HTML gives away, read in the page.
_ELEMENTS = "[...document.querySelectorAll('*')].map(e => [e.tagName.toLowerCase(), ...[...e.attributes].map(a => a.name)])"
_INJECTED = {"script", "img", "svg", "iframe", "details", "input", "a", "object", "embed", "form"}


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("query", ["", "&format=html"])
def test_an_email_digest_keeps_the_services_text_inert(
    sandbox: Sandbox, tmp_path: Path, browser: Any, query: str
) -> None:
    """``mailto://`` sends the digest as plain text; ``?format=html`` asks apprise for an
    HTML part too, which Chromium loads as a mail reader would."""
    _apprise_or_skip()
    study = _hostile_study(tmp_path, sandbox)
    with Smtp() as smtp, sandbox.client(cache=False, progress=False) as client:
        run = study.refresh(client, notify=smtp.url(query))  # (a NotifyWarning is an error)
    assert smtp.logins == [("bob", PASSWORD)] and len(smtp.messages) == 1
    raw = smtp.messages[0]
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)

    # the header: the title, and no header an id's line break could add
    head = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")
    assert message["Subject"] == _title(study, run)
    assert "evil@example.com" not in head and "Bcc" not in message
    assert all("\n" not in str(value) and "\r" not in str(value) for value in message.values())

    parts = [part for part in message.walk() if not part.is_multipart()]
    plain = [p.get_content() for p in parts if p.get_content_type() == "text/plain"]
    pages = [p.get_content() for p in parts if p.get_content_type() == "text/html"]
    assert len(plain) == 1 and len(pages) == (query != "")
    _assert_is_the_digest(plain[0], study)

    dialogs: list[str] = []
    for page_html in pages:
        context = browser.new_context()
        page = context.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        try:
            page.set_content(page_html, wait_until="load")
            page.wait_for_timeout(500)  # (an onerror, an ontoggle or an autofocus fires by then)
            pwned = page.evaluate("window.__pwned")
            elements = page.evaluate(_ELEMENTS)
            shown = page.inner_text("body")
        finally:
            context.close()
        assert dialogs == [] and pwned is None
        assert not {tag for tag, *_ in elements} & _INJECTED, elements
        assert not [e for e in elements if len(e) > 1 and e[0] not in ("html", "meta")], elements
        # the payloads, shown as text: the page reads as the digest's JSON
        _assert_is_the_digest(shown.replace("\xa0", " "), study)


# -- Slack --------------------------------------------------------------------------------


class SlackHook:
    """Slack's incoming webhook, on 127.0.0.1: keeps each POST's path and JSON."""

    def __init__(self, status: int = 200) -> None:
        self.posts: list[tuple[str, dict[str, Any]]] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                hook.posts.append((self.path, json.loads(self.rfile.read(length))))
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/services"

    def __enter__(self) -> SlackHook:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _to_local_slack(monkeypatch: pytest.MonkeyPatch, base: str) -> None:
    """apprise's slack plugin posts to Slack's fixed https host; here, to ``base``. Only
    where it posts changes: what it posts, its escaping included, stays apprise's own."""
    from apprise.plugins.slack import NotifySlack

    monkeypatch.setattr(NotifySlack, "webhook_url", base)


def _texts(value: Any, keys: tuple[str, ...] = ("title", "text")) -> list[str]:
    """Every title and text of a Slack payload (attachments' and blocks')."""
    if isinstance(value, dict):
        return [
            found
            for key, inner in value.items()
            for found in (
                [inner] if key in keys and isinstance(inner, str) else _texts(inner, keys)
            )
        ]
    if isinstance(value, list):
        return [found for inner in value for found in _texts(inner, keys)]
    return []


@pytest.mark.parametrize(
    "query",
    ["", "?format=text", "?format=markdown", "?blocks=yes", "?blocks=yes&format=markdown"],
)
def test_a_slack_digest_keeps_slacks_control_sequences_escaped(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """Slack reads ``<...>`` as a mention or a link and ``&lt;`` ``&gt;`` ``&amp;`` as
    the characters (its "Escaping text" rules): no ``<`` or ``>`` may reach it from the
    service. Before: with ``?format=markdown``, apprise's conversion let them through
    (``<@U123&gt;``, ``<https://evil.example%7Cclick\\>``, ``<img src\\=x ...``)."""
    _apprise_or_skip()
    study = _hostile_study(tmp_path, sandbox)
    with SlackHook() as hook, sandbox.client(cache=False, progress=False) as client:
        _to_local_slack(monkeypatch, hook.base)
        run = study.refresh(client, notify=f"slack://{'/'.join(TOKENS)}/#general{query}")
    assert len(hook.posts) == 1
    path, posted = hook.posts[0]
    assert path == f"/services/{'/'.join(TOKENS)}"
    texts = _texts(posted)
    assert len(texts) >= 2, posted
    for text in texts:
        assert "<" not in text and ">" not in text, text
        assert "&" not in text.replace("&lt;", "").replace("&gt;", "").replace("&amp;", ""), text
    shown = [html.unescape(text) for text in texts]  # (as Slack shows them)
    assert _title(study, run) in shown
    if "markdown" not in query:  # (plain text: Slack shows the digest's JSON as it is)
        _assert_is_the_digest(next(t for t in shown if t.startswith("{")), study)


@pytest.mark.parametrize("query", ["", "?format=markdown"])
def test_a_discord_digest_mentions_nobody(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """Discord pings whom a webhook's text names (``@everyone``, ``@here``, ``<@id>``);
    with ``?format=markdown`` apprise finds them in the body and allows them
    (``allow_mentions``). Before: both, from an ad's id."""
    _apprise_or_skip()
    from apprise.plugins.discord import NotifyDiscord

    study = _hostile_study(tmp_path, sandbox)
    with SlackHook() as hook, sandbox.client(cache=False, progress=False) as client:
        # (where it posts only: what it posts stays apprise's own)
        monkeypatch.setattr(NotifyDiscord, "notify_url", hook.base)
        study.refresh(client, notify=f"discord://123456/{TOKENS[2]}{query}")
    assert len(hook.posts) == 1
    posted = hook.posts[0][1]
    assert not posted.get("allow_mentions", {}).get("parse"), posted
    texts = _texts(posted, ("content", "description", "title"))
    assert texts and not [text for text in texts if "@" in text], texts
    # (a Markdown link shows its label only: before, a masked link to evil.example)
    assert not [text for text in texts if "](" in text or "[verify" in text], texts


# -- secrets ------------------------------------------------------------------------------


def _secrets_in(text: str) -> list[str]:
    found = [PASSWORD] if PASSWORD in text else []
    # (apprise lower-cases what stands where a host would: slack://t1jj3t3l2/...)
    return found + [token for token in TOKENS if token.lower() in text.lower()]


@pytest.mark.parametrize(
    "channel",
    ["mailto", "mailto refused", "mailto nobody", "slack", "slack 500", "slack nobody"],
)
def test_no_warning_log_or_output_holds_the_channels_secret(
    sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    every_logger_at_debug: pytest.LogCaptureFixture,
    channel: str,
) -> None:
    """The SMTP password of a ``mailto://`` URL and the tokens of a ``slack://`` one, sent
    or refused, with every logger at DEBUG."""
    _apprise_or_skip()
    study = _hostile_study(tmp_path, sandbox)
    kind, _, fault = channel.partition(" ")
    with (
        Smtp(refuse=fault == "refused") as smtp,
        SlackHook(500 if fault == "500" else 200) as hook,
        sandbox.client(cache=False, progress=False) as client,
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        _to_local_slack(monkeypatch, hook.base)
        url = smtp.url() if kind == "mailto" else f"slack://{'/'.join(TOKENS)}/#general"
        if fault == "nobody":
            (smtp if kind == "mailto" else hook).server.server_close()
        run = study.refresh(client, notify=url)
    told = [str(w.message) for w in caught if issubclass(w.category, sf.NotifyWarning)]
    assert len(told) == (fault != ""), told
    # (the secret went where it belongs, and the loggers heard the exchange)
    if kind == "mailto":
        assert set(smtp.logins) == ({("bob", PASSWORD)} if fault != "nobody" else set())
    else:
        assert len(hook.posts) == (fault != "nobody")
        heard = [r.getMessage() for r in every_logger_at_debug.records]
        assert any("POST" in m for m in heard) == (fault != "nobody"), heard
    seen = [str(w.message) for w in caught]
    for record in every_logger_at_debug.records:
        seen.append(record.getMessage() + repr(record.args) + str(record.exc_info or ""))
        seen.append(record.exc_text or "")
    out, err = capfd.readouterr()
    for text in [*seen, out, err]:
        assert not _secrets_in(text), text
    assert run["new"].sum() == len(IDS)
