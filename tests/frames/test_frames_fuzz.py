"""The frame builders on hostile bodies: any JSON value in any field position.

Rule: a builder returns a frame with every contract column and dtype, or raises
``SchemaError`` naming the page; nothing else, ever. A value that does not fit
its column becomes missing and is counted in a ``SchemaWarning``.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import socialframe as sf
from socialframe import AD_COLUMNS, COMMENT_COLUMNS
from socialframe.sandbox import EXAMPLE_POSTS, ads_body, comments_body

# The contract's dtypes, as the empty frames carry them (tests/frames/test_frames.py holds
# those to the schema's tables).
COMMENT_DTYPES = sf.comments_frame([]).dtypes.to_dict()
AD_DTYPES = sf.ads_frame([]).dtypes.to_dict()


class Huge(int):
    """An int drawn as ``Huge(exponent)``: Hypothesis cannot print 5,000 digits when it
    reports an example, so the number itself is only made inside the body."""

    def __repr__(self) -> str:
        return f"Huge({int(self)})"


def _materialize(value: Any) -> Any:
    if isinstance(value, Deep):
        return _deep(int(value))
    if isinstance(value, Huge):
        return 10 ** int(value) if int(value) > 0 else -(10 ** -int(value))
    if isinstance(value, list):
        return [_materialize(v) for v in value]
    if isinstance(value, dict):
        return {k: _materialize(v) for k, v in value.items()}
    return value


HUGE = [2**63, 2**64, -(2**63) - 1, 10**20, 10**17, 10**13]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from(HUGE)
    | st.sampled_from([Huge(5000), Huge(-5000), Huge(400)])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(["", "--", "9" * 5000, "1e400", "urn:li:company:1", "1,2K followers"])
    | st.just("99999999999999999999999 followers")
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


class Deep(int):
    """``Deep(n)``: a dict nested n levels, made only inside the body (Hypothesis
    cannot print it when it reports an example)."""

    def __repr__(self) -> str:
        return f"Deep({int(self)})"


def _deep(levels: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cur = out
    for _ in range(levels):
        cur["a"] = {}
        cur = cur["a"]
    return out


# json.loads refuses nesting deeper than the recursion limit, so a body off the
# wire is at most ~1000 levels deep; 950 leaves room for the body's own levels.
VALUES = JSON | st.builds(Deep, st.integers(min_value=50, max_value=950))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position in a JSON document: dict keys and list indexes, all depths."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:2]):
            found += _paths(inner, (*prefix, index))
    return found


def _replaced(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(body)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = _materialize(value)
    return out


COMMENTS_BODY = comments_body(EXAMPLE_POSTS[82], "mostRelevant", 2)
COMMENTS_BODY["data"] = COMMENTS_BODY["data"][:4]  # a person, a reply, an organisation
ADS_BODY = ads_body({"query": "for kids"})
ADS_BODY["data"]["ads"] = ADS_BODY["data"]["ads"][:3]  # includes a dynamic (DCO) ad
COMMENT_PATHS = _paths(COMMENTS_BODY)
AD_PATHS = _paths(ADS_BODY)


def _check(
    build: Callable[[list[Any]], pd.DataFrame], body: Any, columns: Any, dtypes: Any
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.SchemaWarning)
        try:
            frame = build([body])
        except sf.SchemaError:
            return
    assert tuple(frame.columns[: len(columns)]) == columns
    for name in columns:
        assert frame[name].dtype == dtypes[name], name


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(COMMENT_PATHS), value=VALUES)
@pytest.mark.slow
def test_comments_frame_never_raises_but_schema_error(path: tuple[Any, ...], value: Any) -> None:
    _check(
        sf.comments_frame, _replaced(COMMENTS_BODY, path, value), COMMENT_COLUMNS, COMMENT_DTYPES
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(AD_PATHS), value=VALUES)
@pytest.mark.slow
def test_ads_frame_never_raises_but_schema_error(path: tuple[Any, ...], value: Any) -> None:
    _check(sf.ads_frame, _replaced(ADS_BODY, path, value), AD_COLUMNS, AD_DTYPES)


@given(value=VALUES)
@settings(max_examples=100, deadline=None)
def test_whole_bodies_and_payloads(value: Any) -> None:
    for build, columns, dtypes in [
        (sf.comments_frame, COMMENT_COLUMNS, COMMENT_DTYPES),
        (sf.ads_frame, AD_COLUMNS, AD_DTYPES),
    ]:
        _check(build, _materialize(value), columns, dtypes)
        with pytest.raises(sf.SchemaError):  # not an iterable of pages
            build(_materialize(value) if not isinstance(value, list | dict) else None)


# -- the cases the hostile run reported, with exact outcomes ------------------------------------


def _ad(**fields: Any) -> dict[str, Any]:
    body = copy.deepcopy(ADS_BODY)
    ad = body["data"]["ads"][0][0]
    for name, value in fields.items():
        if name.startswith("snapshot_"):
            ad["snapshot"][name.removeprefix("snapshot_")] = value
        else:
            ad[name] = value
    return body


@pytest.mark.parametrize(
    ("fields", "column"),
    [
        ({"start_date": 10**20}, "start_date"),
        ({"start_date": 10**13}, "start_date"),  # was year -265697
        ({"end_date": -(10**13)}, "end_date"),
        ({"collation_count": 2**64}, "collation_count"),
        ({"snapshot_page_like_count": 2**64}, "page_like_count"),
        ({"total_active_time": 10**17}, "total_active_time"),
        ({"spend": 10**400}, "spend"),
    ],
)
def test_unfit_ad_values_are_missing_and_counted(fields: dict[str, Any], column: str) -> None:
    with pytest.warns(sf.SchemaWarning, match=rf"1 value .*{column}"):
        frame = sf.ads_frame([_ad(**fields)])
    assert pd.isna(frame.loc[0, column])
    (name, sent), *_ = fields.items()
    assert frame.loc[0, f"raw_{column}"] == sent  # nothing the service sent is dropped
    untouched = sf.ads_frame([ADS_BODY])
    assert frame.loc[1:, column].equals(untouched.loc[1:, column])  # the other ads keep theirs


def test_unfit_comment_values_are_missing_and_counted() -> None:
    body = copy.deepcopy(COMMENTS_BODY)
    org = next(
        c for c in body["data"] if str(c["author"].get("id", "")).startswith("urn:li:company")
    )
    org["author"]["title"] = "99999999999999999999999 followers"
    body["data"][0]["createdAt"] = "9" * 5000
    body["data"][0]["permalink"] = None  # no id to fall back on either
    body["data"][1]["text"] = 10**5000
    with pytest.warns(sf.SchemaWarning) as caught:
        frame = sf.comments_frame([body])
    message = str(caught[0].message)
    assert "author_followers" in message and "created_at" in message and "text" in message
    assert frame["author_followers"].isna().sum() >= 1 and pd.isna(frame.loc[0, "created_at"])


def test_deeply_nested_extras_stay_as_sent() -> None:
    deep = _deep(950)
    frame = sf.ads_frame([_ad(extra_deep=deep)])
    assert isinstance(
        frame.loc[0, next(c for c in frame.columns if c.startswith("extra_deep"))], dict
    )


@pytest.mark.parametrize("payloads", [None, 3, "text", b"bytes", [None], [[1, 2]]])
def test_payloads_that_are_not_pages_are_schema_errors(payloads: Any) -> None:
    for build in (sf.comments_frame, sf.ads_frame):
        with pytest.raises(sf.SchemaError):
            build(payloads)


# -- raw bodies: decoded straight into structs, the same frame as from the dicts ----------------


def _frame_and_warnings(build: Callable[[Any], pd.DataFrame], payload: Any) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            frame = build([payload])
        except sf.SchemaError as error:
            return "SchemaError", str(error)
    return frame, sorted(str(w.message) for w in caught)


def _assert_same_from_raw(build: Callable[[Any], pd.DataFrame], body: Any) -> None:
    try:
        raw = json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except ValueError:  # an int Python will not print: no body on the wire has it
        return
    from_dict = _frame_and_warnings(build, json.loads(raw))
    from_raw = _frame_and_warnings(build, raw)
    if isinstance(from_dict[0], str):
        # the same error; its words differ only where the body is not an object
        assert from_raw[0] == from_dict[0]
        assert from_raw[1] == from_dict[1] or not isinstance(body, dict)
        return
    pd.testing.assert_frame_equal(from_raw[0], from_dict[0])
    assert from_raw[1] == from_dict[1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(COMMENT_PATHS), value=VALUES)
@pytest.mark.slow
def test_raw_comment_bodies_give_the_frame_of_their_dicts(
    path: tuple[Any, ...], value: Any
) -> None:
    _assert_same_from_raw(sf.comments_frame, _replaced(COMMENTS_BODY, path, value))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(AD_PATHS), value=VALUES)
@pytest.mark.slow
def test_raw_ad_bodies_give_the_frame_of_their_dicts(path: tuple[Any, ...], value: Any) -> None:
    _assert_same_from_raw(sf.ads_frame, _replaced(ADS_BODY, path, value))


@given(value=VALUES)
@settings(max_examples=100, deadline=None)
def test_raw_whole_bodies_give_the_frame_of_their_dicts(value: Any) -> None:
    for build in (sf.comments_frame, sf.ads_frame):
        _assert_same_from_raw(build, _materialize(value))


@pytest.mark.parametrize(
    "raw",
    [
        # duplicate keys: the last one wins, in the struct path as in a dict
        b'{"data": [{"text": "a", "text": "b"}], "data": [{"text": "c", "author": {"id": "1"}}]}',
        b'{"success": false, "message": "quota", "data": []}',
        b'{"data": [{"text": NaN}]}',  # msgspec refuses NaN; the standard library takes it
        b'{"data": [{"text": "\\ud800"}]}',  # a lone surrogate
        b'{"data": [1]}',
        b'{"data": {}}',
        b'{"data": [{"createdAt": 1760584641073.0, "isPinned": 1, "author": [1]}]}',
        b"\xef\xbb\xbf{}",  # a byte-order mark
        # the author is kept as JSON text, parsed once per distinct text:
        b'{"data": [{"author": {"name": "\xff"}}]}',  # invalid UTF-8 msgspec does not check
        b'{"data": [{"author": {"name": "a", "followers": 1e999}}]}',  # msgspec refuses, json: inf
        b'{"data": [{"author": null}, {"author": "x"}, {"author": {}}, {}]}',
        b'{"data": [{"author": {"id": "1", "name": "a"}}, {"author": {"name":"a","id":"1"}},'
        b' {"author": {"id": "1", "name": "b"}}, {"author": {"id": "1", "name": "a"}}]}',
        b'{"data": [{"author": {"id": "1", "firstName": "A", "first_name": "B"}},'
        b' {"author": {"id": "1", "first_name": "B", "firstName": "A"}}]}',
    ],
)
def test_raw_comment_bodies_edge_cases(raw: bytes) -> None:
    try:
        body = json.loads(raw)
    except ValueError:
        with pytest.raises(sf.SchemaError, match="page 1 is not JSON"):
            sf.comments_frame([raw])
        return
    from_dict = _frame_and_warnings(sf.comments_frame, body)
    from_raw = _frame_and_warnings(sf.comments_frame, raw)
    if isinstance(from_dict[0], str):
        assert from_raw == from_dict
    else:
        pd.testing.assert_frame_equal(from_raw[0], from_dict[0])
        assert from_raw[1] == from_dict[1]


def test_a_raw_author_that_is_not_json_names_its_page() -> None:
    good = json.dumps(COMMENTS_BODY).encode()
    bad = b'{"data": [{"text": "x", "author": {"name": "\xff"}}]}'
    with pytest.raises(sf.SchemaError, match="page 3 is not JSON"):
        sf.comments_frame([good, good, bad])


def test_raw_and_dict_bodies_mixed_give_the_frame_of_the_dicts() -> None:
    # the same author arrives as text (raw pages) and as a dict: one frame, as from dicts
    raw = json.dumps(COMMENTS_BODY).encode()
    mixed = sf.comments_frame([raw, json.loads(raw), raw])
    dicts = sf.comments_frame([json.loads(raw)] * 3)
    pd.testing.assert_frame_equal(mixed, dicts)


def test_the_first_page_that_is_not_json_is_named() -> None:
    bad = b'{"data": [{"text": "x", "author": {"name": "\xff"}}]}'
    with pytest.raises(sf.SchemaError, match="page 1 is not JSON"):
        sf.comments_frame([bad, b"not json"])
    with pytest.raises(sf.SchemaError, match="page 1 is not JSON"):
        sf.comments_frame([bad, b'{"data": {}}'])


def test_the_position_of_a_byte_that_is_not_utf8_is_in_its_page() -> None:
    bad = b'{"data": [{"text": "x", "author": {"name": "\xff"}}]}'
    with pytest.raises(
        sf.SchemaError, match="position 44"
    ):  # in the page, as the generic path says
        sf.comments_frame([bad])


@pytest.mark.parametrize("author", [b'{"name": "Ada"}', b"\x00\x01", b""])
def test_a_dict_comment_whose_author_is_bytes_has_no_author(author: bytes) -> None:
    """Dict bodies are Python values: ``bytes`` is not an author object, so the row has
    no author, not a KeyError from the JSON-text path of raw bodies (only SchemaError
    may leave comments_frame, whatever the values)."""
    raw = json.dumps({"data": [{"text": "y", "author": {"id": "1", "name": "Ada"}}]}).encode()
    body = {"data": [{"text": "x", "author": author}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = sf.comments_frame([body, raw, {"data": [{"text": "z", "author": author}]}])
    assert frame["text"].tolist() == ["x", "y", "z"]
    assert frame["author_name"].isna().tolist() == [True, False, True]
    assert frame["author_name"].iloc[1] == "Ada"
    assert frame["author_type"].isna().tolist() == [True, False, True]
    alone = sf.comments_frame([body])
    expected = sf.comments_frame([{"data": [{"text": "x", "author": None}]}])
    pd.testing.assert_frame_equal(alone, expected)
