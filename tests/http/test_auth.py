"""Secret headers: which are secret (a rule, not a list of names), sent as given, shown
nowhere: not in a repr of the session, its headers, a request, the client, not in logs
(every logger at DEBUG, urllib3's and requests-cache's included), not in the errors of
a call nor in the locals of their tracebacks' frames.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest
import requests

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]
KEY = "sf-auth-key-0123456789abcdef"
#: Extra headers whose names say they hold a secret, and one whose value holds the key.
SECRETS = {
    "X-Api-Token": "tok-3f1e2d0c9b8a7f6e",
    "X-RapidAPI-Key": "rapid-9a8b7c6d5e4f3a2b",
    "Cookie": "session=ck-5b4a3c2d1e0f9a8b",
    "X-Signature": "sig-7c6b5a4d3e2f1a0b",
    "X-Session-Id": "sess-1a2b3c4d5e6f7a8b",
    "x-client-secret": "cs-0f1e2d3c4b5a6978",
    "X-Echo": f"id={KEY}",
}
PLAIN = {"X-RapidAPI-Host": "ads-and-comments.example", "X-Team": "research-2026"}


def _secrets() -> list[str]:
    return [KEY, *SECRETS.values(), *(v.split("=", 1)[1] for v in SECRETS.values() if "=" in v)]


def _assert_unseen(*texts: str) -> None:
    for text in texts:
        for secret in _secrets():
            assert secret not in text, (secret, text[:300])


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        error = todo.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        todo += [error.__cause__, error.__context__]


def _shown(value: object) -> str:
    try:
        return repr(value)
    except Exception as exc:  # a half-built object
        return f"<unreprable {type(exc).__name__}>"


def _assert_hidden(exc: BaseException) -> None:
    """No secret in the error's text or repr, nor in any local of any frame of its
    traceback (and its chain's), the test's own frame left out (it holds what it gave)."""
    for error in _chain(exc):
        _assert_unseen(str(error), repr(error))
        tb: TracebackType | None = error.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_filename != __file__:
                _assert_unseen(*(_shown(v) for v in frame.f_locals.values()))
            tb = tb.tb_next


def _client(sandbox: Sandbox, tmp_path: Path, **kwargs: Any) -> sf.Client:
    return sf.Client(
        sandbox.api_key,
        base_url=sandbox.url,
        headers={**SECRETS, **PLAIN},
        cache=tmp_path / "c.sqlite",
        backoff=0.01,
        progress=False,
        **kwargs,
    )


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(api_key=KEY, clock=PinnedClock()) as sb:
        yield sb


def test_secret_headers_are_sent_and_shown_nowhere(sandbox: Sandbox, tmp_path: Path) -> None:
    with _client(sandbox, tmp_path) as client:
        headers = client.session.headers
        _assert_unseen(repr(headers), str(headers), repr(client), str(client))
        _assert_unseen(repr(client.session), repr(dict(headers)), f"{headers}")
        assert repr(headers["X-Api-Token"]) == "'***'"
        # Sent as given: the sandbox reads them, and the plain ones are shown.
        for name, value in SECRETS.items():
            assert headers[name] == value
        assert "ads-and-comments.example" in repr(headers) and "research-2026" in repr(headers)
        assert len(client.post_comments(P82)) == 82
        sent = sandbox.requests[0].headers
        assert {n.lower() for n in SECRETS} <= {n.lower() for n in sent}


def test_the_key_header_is_hidden_whatever_it_is_named(sandbox: Sandbox, tmp_path: Path) -> None:
    """The header configured to carry the key (not one of the names above) is shown as
    ``***`` in the request every hook and transport sees."""
    seen: list[str] = []

    def record(request: requests.PreparedRequest) -> tuple[int, Any]:
        seen.append(repr(request.headers))
        assert request.headers["X-Our-Gateway"] == KEY  # sent as it is
        return 200, {"success": True, "data": [], "totalPage": 1}

    with sf.Client(
        KEY,
        base_url=sandbox.url,
        auth_header="X-Our-Gateway",
        headers=SECRETS,
        cache=False,
        transport=record,
    ) as client:
        client.post_comments(P82)
    assert seen and "X-Our-Gateway" in seen[0]
    _assert_unseen(*seen)


def test_no_log_shows_a_secret(
    sandbox: Sandbox,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every logger at DEBUG (urllib3's connection pool, requests-cache's policy and
    storage, socialframe's), over a fetch, a cached re-run and a failing call."""
    caplog.set_level(logging.DEBUG)
    for name in ("urllib3", "requests_cache", "socialframe", "requests"):
        # (restored after: a level left at DEBUG changes what later tests hear)
        monkeypatch.setattr(logging.getLogger(name), "level", logging.DEBUG)
    with _client(sandbox, tmp_path, max_retries=1) as client:
        client.post_comments(P82)
        client.post_comments(P82)
        sandbox.inject(401)
        with pytest.raises(sf.AuthError):
            client.post_comments(EXAMPLE_POSTS[1])
    assert any(r.name.startswith("urllib3") for r in caplog.records)  # (the test hears them)
    for record in caplog.records:
        _assert_unseen(record.getMessage(), repr(record.args), str(record.exc_info))


@pytest.mark.parametrize(
    "answer",
    [
        "refused",  # nothing listens: a NetworkError
        "echo_500",  # the service repeats the headers in a 500's message
        "echo_401",  # and in a 401's
        "echo_200",  # a 200 of the wrong shape that echoes them
    ],
)
def test_errors_of_a_call_hold_no_secret(tmp_path: Path, answer: str) -> None:
    echoed = " ".join(f"{name}: {value}" for name, value in SECRETS.items()) + f" key {KEY}"

    def service(request: requests.PreparedRequest) -> tuple[int, Any]:
        if answer == "refused":
            raise requests.ConnectionError("[Errno 111] Connection refused")
        status = int(answer.split("_")[1])
        return status, {"message": echoed, "detail": dict(request.headers)}

    with (
        sf.Client(
            KEY,
            base_url="http://127.0.0.1:9",
            headers=SECRETS,
            cache=tmp_path / "c.sqlite",
            transport=service,
            max_retries=1,
            backoff=0.01,
            progress=False,
        ) as client,
        pytest.raises(sf.FetchError) as caught,
    ):
        client.post_comments(P82)
    _assert_hidden(caught.value)


def test_masked_text_is_the_text_to_everything_but_a_repr() -> None:
    with sf.Client(
        KEY, base_url="http://127.0.0.1:9", headers={"X-Api-Token": "tok-0123456789"}, cache=False
    ) as client:
        value = client.session.headers["X-Api-Token"]  # a secret header's value, as held
    assert value == "tok-0123456789" and value.encode("latin-1") == b"tok-0123456789"
    assert f"{value}" == "tok-0123456789" and repr(value) == "'***'"
    assert repr({"X-Api-Token": value}) == "{'X-Api-Token': '***'}"
    with pytest.raises(TypeError):
        __import__("pickle").dumps(value)
