"""The settings of ``Client()``, checked when the client is built: a value outside
what is allowed is a ``ValueError`` (a ``ConfigError`` too) naming the setting, before
anything can be paid; no message and no frame of its traceback holds the key or a
header's value.

Everything goes through real HTTP on 127.0.0.1 (the sandbox) and the real console script.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pytest

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, PinnedClock, Sandbox

P82 = EXAMPLE_POSTS[82]
KEY = "sk-trust-inputs-0123456789"
SECRET = "hdr-secret-value-42"  # a header's value
MAX_EXPIRE = timedelta(days=36525)  # the longest expire_after, as documented (a century)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=0, api_key=KEY, clock=PinnedClock()) as server:
        yield server


def _build(sandbox: Sandbox, tmp_path: Path, **settings: Any) -> sf.Client:
    return sf.Client(KEY, base_url=sandbox.url, cache=tmp_path / "c.sqlite", **settings)


# -- settings: checked in Client(), before anything is paid ---------------------------------

BAD_SETTINGS = [
    ("expire_after", float("inf")),
    ("expire_after", float("nan")),
    ("expire_after", 1e300),
    ("expire_after", 10**400),
    ("expire_after", timedelta.max),
    ("expire_after", MAX_EXPIRE + timedelta(days=1)),
    ("expire_after", -5),
    ("expire_after", 0),
    ("expire_after", timedelta(seconds=-1)),
    ("timeout", 1e300),
    ("timeout", 3601),
    ("backoff", 1e300),
    ("backoff", 601),
    ("workers", 10**9),
    ("workers", 257),
    ("max_retries", 10**12),
    ("max_retries", 101),
    ("rate_limit", 1e-300),
    ("rate_limit", 1e300),
    ("rate_limit", "1/99999999999999999d"),
    ("rate_limit", "2000000/s"),
    ("max_cost", "abc"),
    ("max_cost", float("nan")),
    ("max_cost", -1),
    # found by the hostile review: raw decimal / float errors, or every run paying
    ("max_cost", "1e999999"),
    ("max_cost", Decimal("1E+999999")),
    ("rate_limit", 10**400),
    ("expire_after", 1e-7),
    ("expire_after", 0.5),
    ("expire_after", Fraction(1, 10**30)),
    ("expire_after", np.timedelta64(500, "ms")),
]


@pytest.mark.parametrize(("name", "value"), BAD_SETTINGS)
def test_a_setting_out_of_range_is_refused_when_the_client_is_built(
    sandbox: Sandbox, tmp_path: Path, name: str, value: object
) -> None:
    with pytest.raises(ValueError, match=name) as info:
        _build(sandbox, tmp_path, **{name: value})
    assert isinstance(info.value, sf.ConfigError)  # one error class for both ways of catching
    _assert_hidden(info.value, KEY)
    assert sandbox.requests == [] and sandbox.charges == 0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("offline", "no"),
        ("progress", "yes"),
        ("clock", object()),
        ("expire_after", "1 hour"),
        ("base_url", 5),
        ("auth_header", 5),
        ("headers", [("X-A", "b")]),
        ("headers", {"X-A": SECRET.encode()}),
        ("headers", {"X-A": 5, "X-B": SECRET}),
    ],
)
def test_a_setting_of_the_wrong_type_is_a_type_error(
    sandbox: Sandbox, tmp_path: Path, name: str, value: object
) -> None:
    settings: dict[str, Any] = {"base_url": sandbox.url, name: value}
    with pytest.raises(TypeError, match=name) as info:
        sf.Client(KEY, cache=tmp_path / "c.sqlite", **settings)
    _assert_hidden(info.value, KEY, SECRET)
    assert sandbox.requests == []


def test_the_longest_expiry_and_never_work_and_store_the_pages(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    for expire_after in (MAX_EXPIRE, MAX_EXPIRE.total_seconds(), -1):
        cache = tmp_path / str(expire_after)
        for _ in range(2):  # the second run is served by the cache
            with sf.Client(KEY, base_url=sandbox.url, cache=cache, expire_after=expire_after) as c:
                assert len(c.post_comments(P82)) == 82
    assert sandbox.charges == 3 * 2  # two pages, paid once per cache
    with pytest.raises(ValueError, match="expire_after"):
        _build(sandbox, tmp_path, expire_after=MAX_EXPIRE + timedelta(seconds=1))


@pytest.mark.parametrize("raw", ["inf", "nan", "1e300", "-5", "0"])
def test_an_unusable_expiry_from_the_environment_is_refused(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv("SOCIALFRAME_CACHE_EXPIRE", raw)
    with pytest.raises(sf.ConfigError, match="SOCIALFRAME_CACHE_EXPIRE") as info:
        _build(sandbox, tmp_path)
    assert isinstance(info.value, ValueError)
    monkeypatch.setenv("SOCIALFRAME_CACHE_EXPIRE", "never")
    with _build(sandbox, tmp_path) as client:
        assert client.session.settings.expire_after == -1  # type: ignore[attr-defined]
    assert sandbox.requests == []


@pytest.mark.parametrize(
    ("base_url", "shown"),
    [
        ("https://user:hunter2-pass@api.example", "must not carry a user or password"),
        ("https://api.example/?token=hunter2-pass", "no query"),
        ("https://api.example/#hunter2-pass", "no query"),
        ("https://api .example", "spaces"),
        ("https://api.example:99999", "not a URL"),
        ("https://", "no host"),
        ("ftp://api.example", "http:// or https://"),
        ("", "empty"),
        # requests (or the socket) could not send to these: found by the hostile review
        ("https://api.example\u00ad.com", "no request can carry"),  # a soft hyphen
        ("https://\u0661\u0662\u0663.com", "no request can carry"),  # Arabic digits
        ("https://" + "a" * 64 + ".com", "no request can carry"),  # a label over 63
    ],
)
def test_unusable_base_urls_are_refused_without_their_secrets(
    tmp_path: Path, base_url: str, shown: str
) -> None:
    with pytest.raises(sf.ConfigError) as info:
        sf.Client(KEY, base_url=base_url, cache=tmp_path / "c.sqlite")
    assert isinstance(info.value, ValueError) and shown.split()[-1] in str(info.value)
    assert "hunter2" not in str(info.value)


# -- headers: checked in Client(); never shown ---------------------------------------------


def _our_frames(exc: BaseException) -> Iterator[Any]:
    """Every socialframe frame of ``exc``'s traceback, and of its cause and context."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        error = todo.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        todo += [error.__cause__, error.__context__]
        tb: TracebackType | None = error.__traceback__
        while tb is not None:
            if "socialframe" in tb.tb_frame.f_code.co_filename.replace("\\", "/").split("/"):
                yield tb.tb_frame
            tb = tb.tb_next


def _shown(value: object) -> str:
    try:
        return repr(value)
    except Exception as exc:  # a half-built object: its repr may fail
        return f"<unreprable: {type(exc).__name__}>"


def _assert_hidden(exc: BaseException, *secrets: str) -> None:
    """No secret in the error's text, repr, or the locals of any socialframe frame."""
    frames = list(_our_frames(exc))
    assert frames, "the error must come from socialframe"
    texts = [str(exc), repr(exc)] + [_shown(v) for f in frames for v in f.f_locals.values()]
    for secret in secrets:
        for text in texts:
            assert secret not in text


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Team": f"{SECRET}\r\nX-Injected: 1"},
        {"X-Team": f"{SECRET}\n"},
        {"X-Team": f" {SECRET}"},
        {"X-Team": f"{SECRET} "},
        {"X-Team": f"\xa0{SECRET}"},  # a no-break space: requests refuses it at call time
        {"X-Team": f"{SECRET}\x00"},
        {"X-Team": f"{SECRET}€"},  # not Latin-1: http.client cannot encode it
        {f"X-Team: {SECRET}": "x"},  # a whole header line pasted as a name
        {"X Team": SECRET},
        {"": SECRET},
        {"X-Team": SECRET, "x-team": SECRET},
        {"Authorization": f"Bearer {SECRET}"},  # would replace the key's header
    ],
)
def test_unsendable_headers_are_refused_in_the_client_without_showing_them(
    sandbox: Sandbox, tmp_path: Path, headers: dict[str, str]
) -> None:
    with pytest.raises(sf.ConfigError) as info:
        _build(sandbox, tmp_path, headers=headers)
    assert isinstance(info.value, ValueError) and "headers" in str(info.value)
    _assert_hidden(info.value, SECRET, KEY)
    assert sandbox.requests == []


@pytest.mark.parametrize("auth_header", [f"X-Key: {KEY}", "X-\r\nKey", "X(Key)", "Ké"])
def test_an_auth_header_that_is_no_header_name_is_refused_unshown(
    sandbox: Sandbox, tmp_path: Path, auth_header: str
) -> None:
    with pytest.raises(sf.ConfigError, match="auth_header must be a header name") as info:
        _build(sandbox, tmp_path, auth_header=auth_header)
    assert auth_header.strip() not in str(info.value)
    _assert_hidden(info.value, KEY)


def test_an_auth_header_from_the_environment_is_checked_and_named(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALFRAME_AUTH_HEADER", f"X-Key: {KEY}")
    with pytest.raises(sf.ConfigError, match="SOCIALFRAME_AUTH_HEADER must be") as info:
        _build(sandbox, tmp_path)
    _assert_hidden(info.value, KEY)


def test_a_key_of_the_wrong_type_is_not_held_by_the_traceback(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="api_key must be a string") as info:
        sf.Client(KEY.encode(), base_url="http://127.0.0.1:9", cache=False)  # type: ignore[arg-type]
    _assert_hidden(info.value, KEY, repr(KEY.encode()))
    with pytest.raises(sf.ConfigError) as bad:
        sf.Client(KEY + "é", base_url="http://127.0.0.1:9", cache=False)
    _assert_hidden(bad.value, KEY)


def test_latin_1_and_tab_header_values_are_sent(sandbox: Sandbox, tmp_path: Path) -> None:
    seen: list[str] = []

    def record(request: Any) -> tuple[int, Any]:
        seen.append(request.headers["X-Team"])
        return 200, {"success": True, "data": [], "totalPage": 1}

    with sf.Client(
        KEY, base_url=sandbox.url, cache=False, transport=record, headers={"X-Team": "café\tx"}
    ) as client:
        client.post_comments(P82)
    assert seen == ["café\tx"]
    with _build(sandbox, tmp_path, headers={"X-Team": "café"}) as client:  # through a socket
        assert len(client.post_comments(P82)) == 82
    with pytest.raises(ValueError, match="headers"):
        _build(sandbox, tmp_path, headers={"X-Team": "caf€"})
