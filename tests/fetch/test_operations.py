"""Argument validation of the two operations: service forms, errors before any call."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from socialframe import _operations as operations


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
    assert operations.post_id(post) == expected


def test_ad_params_in_service_forms() -> None:
    got = operations.ad_params(
        " shoes ",
        ad_page_id=None,
        country="all",
        active_status="ALL",
        after="2025-01-02",
        before=None,
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
    got = operations.ad_params(
        "q", ad_page_id=None, country=None, active_status=None, after=given, before=None
    )  # type: ignore[arg-type]
    assert got["after_time"] == sent


def test_short_activity_ids_in_urns() -> None:
    assert operations.post_id("urn:li:activity:12345") == "12345"


@pytest.mark.parametrize(
    "post",
    ["٧٣٨٤٤٢٧٢٠٢٣٩١٥٩٢٩٦٠", "７３８４４２７２０２", "urn:li:activity:٧٣٨٤", "activity-７３８４"],
)
def test_ids_are_ascii_digits(post: str) -> None:
    with pytest.raises(ValueError, match="activity id"):
        operations.post_id(post)


@pytest.mark.parametrize("page_id", ["١٢٣", "１２３", "12３"])
def test_ad_page_ids_are_ascii_digits(page_id: str) -> None:
    with pytest.raises(ValueError, match="numeric page id"):
        operations.ad_params(
            None, ad_page_id=page_id, country=None, active_status=None, after=None, before=None
        )
