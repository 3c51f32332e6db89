"""A host whose name does not exist fails at once; a resolver that did not answer is retried.

Through the whole stack (requests, urllib3, the socket layer): only the system's
resolver is replaced, so that the test does not depend on this machine's DNS.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS

URL = "http://no-such-host.invalid"  # (.invalid never resolves: RFC 2606)


def _resolver(monkeypatch: pytest.MonkeyPatch, errno: int) -> list[str]:
    asked: list[str] = []
    real = socket.getaddrinfo

    def answer(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "no-such-host.invalid":
            asked.append(host)
            raise socket.gaierror(errno, "resolver says no")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", answer)
    return asked


def test_a_name_that_does_not_exist_is_one_attempt_not_five(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: a mistyped host was tried five times with backoff (19 s) to say its name
    was not found."""
    asked = _resolver(monkeypatch, socket.EAI_NONAME)
    with (
        sf.Client("key", base_url=URL, cache=False, max_retries=4, backoff=0.01) as client,
        pytest.raises(sf.NetworkError, match="its name was not found") as failed,
    ):
        client.post_comments(EXAMPLE_POSTS[82])
    assert len(asked) == 1 and client.ledger.failed_calls == 1
    assert "no-such-host.invalid" in str(failed.value)


def test_a_resolver_that_did_not_answer_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _resolver(monkeypatch, socket.EAI_AGAIN)
    with (
        sf.Client("key", base_url=URL, cache=False, max_retries=2, backoff=0.01) as client,
        pytest.raises(sf.NetworkError),
    ):
        client.post_comments(EXAMPLE_POSTS[82])
    assert len(asked) == 3 and client.ledger.failed_calls == 3
