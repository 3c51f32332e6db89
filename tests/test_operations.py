"""Argument validation of the two operations: the service forms sent, errors before any call.

Through a client of an in-process sandbox, which records the parameters of each request.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

import socialframe as sf
from socialframe.sandbox import Sandbox


def sent_params(call: Callable[[sf.Client], object]) -> dict[str, str]:
    """The query parameters of the first request ``call`` makes through a client."""
    sandbox = Sandbox()
    with sandbox.client(in_process=True, cache=False, progress=False) as client:
        call(client)
    return sandbox.requests[0].params


def refused(call: Callable[[sf.Client], object], match: str) -> None:
    """``call`` raises a ValueError matching ``match`` and sends nothing."""
    sandbox = Sandbox()
    client = sandbox.client(in_process=True, cache=False, progress=False)
    with client, pytest.raises(ValueError, match=match):
        call(client)
    assert sandbox.requests == []


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("123", "123"),
        (" urn:li:activity:7384427202391592960 ", "7384427202391592960"),
        (
            "https://www.linkedin.com/posts/x_y-activity-7383954759084576768-eGaf",
            "7383954759084576768",
        ),
        (7384427202391592960, "7384427202391592960"),
    ],
)
def test_post_id_forms(post: object, expected: str) -> None:
    assert sent_params(lambda c: c.post_comments(post, max_pages=1))["urn"] == expected  # type: ignore[arg-type]


def test_ad_params_in_service_forms() -> None:
    got = sent_params(
        lambda c: c.search_ads(
            " shoes ",
            ad_page_id=None,
            country="all",
            active_status="ALL",  # type: ignore[arg-type]
            after="2025-01-02",
            before=None,
            max_pages=1,
        )
    )
    assert got == {
        "query": "shoes",
        "country": "ALL",
        "activeStatus": "ALL",
        "after_time": "2025-01-02",
    }


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("2025-01-02T23:30:00-05:00", "2025-01-03"),
        (datetime(2025, 1, 2, 23, 30, tzinfo=UTC), "2025-01-02"),
        ("2025-01-02", "2025-01-02"),
        (datetime(2025, 1, 2, 23, 30), "2025-01-02"),
    ],
)
def test_days_with_a_zone_are_utc_days(given: object, sent: str) -> None:
    got = sent_params(lambda c: c.search_ads("q", after=given, max_pages=1))  # type: ignore[arg-type]
    assert got["after_time"] == sent


def test_short_activity_ids_in_urns() -> None:
    got = sent_params(lambda c: c.post_comments("urn:li:activity:12345", max_pages=1))
    assert got["urn"] == "12345"


@pytest.mark.parametrize(
    "post",
    ["٧٣٨٤٤٢٧٢٠٢٣٩١٥٩٢٩٦٠", "７３８４４２７２０２", "urn:li:activity:٧٣٨٤", "activity-７３８４"],
)
def test_ids_are_ascii_digits(post: str) -> None:
    refused(lambda c: c.post_comments(post), match="activity id")


@pytest.mark.parametrize("page_id", ["١٢٣", "１２３", "12３"])
def test_ad_page_ids_are_ascii_digits(page_id: str) -> None:
    refused(lambda c: c.search_ads(ad_page_id=page_id), match="numeric page id")


def test_a_post_read_as_a_float_is_refused_with_its_cause_and_remedy(
    tmp_path: object,
) -> None:
    """Before: "post must be a post id, urn:li:activity:<id> or a post URL (str), not
    float", for the column pandas made of a CSV with one blank cell."""
    import io

    import pandas as pd

    from socialframe.sandbox import EXAMPLE_POSTS

    column = pd.read_csv(
        io.StringIO(f"post\n{EXAMPLE_POSTS[82]}\n\n{EXAMPLE_POSTS[50]}\n"), skip_blank_lines=False
    )["post"]
    assert column.dtype == "float64"
    with Sandbox() as sandbox, sandbox.client(cache=False, progress=False) as client:
        with pytest.raises(TypeError) as lost:
            client.post_comments(column)
        assert sandbox.charges == 0  # refused before anything was paid
    said = str(lost.value)
    assert "is a float" in said and "16 digits" in said and "dtype=str" in said
    with (
        sf.Client("key", base_url="http://127.0.0.1:9", cache=False) as nowhere,
        pytest.raises(TypeError, match=r"NaN, a missing value: a blank cell.*dtype=str"),
    ):
        nowhere.post_comments(float("nan"))


@pytest.mark.parametrize(
    "post",
    [
        "urn:li:ugcPost:7384427202391592965",
        "https://www.linkedin.com/feed/update/urn:li:ugcPost:7384427202391592965/",
        "https://www.linkedin.com/feed/update/urn%3Ali%3Ashare%3A7384427202391592965",
    ],
)
def test_a_post_urn_of_another_kind_says_what_the_service_needs(post: str) -> None:
    with (
        sf.Client("key", base_url="http://127.0.0.1:9", cache=False) as nowhere,
        pytest.raises(ValueError) as refused,
    ):
        nowhere.post_comments(post)
    said = str(refused.value)
    assert "activity id (urn:li:activity:<id>)" in said and "Copy link to post" in said
