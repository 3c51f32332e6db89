"""The change rules of a study's ads: what makes an ad missing, stopped, resumed or
edited, each change with its evidence and its price, through a real client, its SQLite
cache, Parquet and DuckDB (the service: the sandbox, its answers changed by the test
in process, as :class:`Service` says)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from delta import write_refresh

import socialframe as sf
from socialframe.sandbox import PinnedClock, Sandbox

Ad = dict[str, Any]


class Service:
    """The sandbox's answers (in process), with some ads changed by a function each
    (``edits``: ad id -> a function of the ad, in place), some left out (``gone``), and
    an ``Active`` search's third page answered with its first page again (``loop``)."""

    def __init__(self) -> None:
        self.sandbox = Sandbox(seed=0, clock=PinnedClock())
        self.inner = self.sandbox.transport().handler
        self.edits: dict[str, Callable[[Ad], None]] = {}
        self.gone: set[str] = set()
        self.loop = False
        self.first_active: bytes | None = None

    def __call__(self, request: Any) -> tuple[int, bytes, dict[str, str]]:
        status, content, headers = self.inner(request)
        url = str(request.url)
        body = json.loads(content)
        data = body.get("data")
        if isinstance(data, dict) and isinstance(data.get("ads"), list):
            active = "activeStatus=Active" in url
            if active and "end_cursor" not in url:
                self.first_active = json.dumps(data["ads"]).encode()
            elif self.loop and active and self.first_active and _page(url) >= 3:
                data["ads"] = json.loads(self.first_active)  # a page seen before, mid-walk
                data["page_info"]["has_next_page"] = True
                data["page_info"]["end_cursor"] = data["page_info"]["end_cursor"] or "x"
            for group in data["ads"]:
                kept = []
                for ad in group:
                    aid = str(ad.get("ad_archive_id"))
                    if aid in self.gone:
                        continue
                    if aid in self.edits:
                        self.edits[aid](ad)
                    kept.append(ad)
                group[:] = kept
            data["ads"] = [g for g in data["ads"] if g]
        return status, json.dumps(body).encode(), headers


def _page(url: str) -> int:
    """Which page of its walk a request asks for, from the sandbox's cursor."""
    import base64
    from urllib.parse import parse_qs, urlsplit

    cursor = parse_qs(urlsplit(url).query).get("end_cursor", [""])[0]
    padded = cursor + "=" * (-len(cursor) % 4)
    return int(json.loads(base64.urlsafe_b64decode(padded))["s"]) + 1


def _client(service: Service, tmp_path: Path) -> sf.Client:
    return sf.Client(
        service.sandbox.api_key,
        base_url="https://api.example",
        transport=sf.MockTransport(service),
        cache=tmp_path / "cache",
        progress=False,
    )


@pytest.fixture
def study(tmp_path: Path) -> sf.Study:
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", country="US", active_status="all")
    return study


def _changes(study: sf.Study, kind: str) -> pd.DataFrame:
    return study.changes().query("change == @kind").set_index("id")


# -- edits: what is noise, what is real ------------------------------------------------------


def _noise(turn: int) -> Callable[[Ad], None]:
    """What changes from one answer to the next without the ad changing."""

    def change(ad: Ad) -> None:
        snap = ad["snapshot"]
        link = snap["link_url"]
        snap["link_url"] = f"{link}&utm_campaign=c{turn}&fbclid=IwAR{turn}#section-{turn}"
        snap["body"]["text"] = f"  {snap['body']['text']}  "  # (spaces around: trimmed)
        snap["images"] = [
            {
                "original_image_url": f"https://scontent-{turn}.cdn.example/v/t39/1234_n.jpg"
                f"?_nc_sig={turn}abc&oe={turn:08x}",
                "resized_image_url": None,
            }
        ]

    return change


def test_tracking_parameters_fragments_cdn_hosts_and_signatures_are_no_edit(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        running = study.ads().query("is_active")["ad_archive_id"].tolist()[:4]
        for aid in running:
            service.edits[aid] = _noise(1)
        study.refresh(client)  # the images are new here: an edit (they were not there)
        for aid in running:
            service.edits[aid] = _noise(2)  # another host, signature, utm, fbclid, fragment
        run = study.refresh(client)
    # Before: every link_url with another utm_* or fbclid was "edited"
    assert run["changed"].tolist() == [0]
    edits = _changes(study, "edited")
    assert set(edits.index) == set(running)  # the second refresh's, the images added
    assert set(edits["fields"]) == {"image_urls"}


def test_a_real_edit_says_which_fields_from_what_to_what(study: sf.Study, tmp_path: Path) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        ads = study.ads().query("is_active and display_format in ('IMAGE', 'VIDEO')")
        aid = ads["ad_archive_id"].iloc[0]
        old_body = ads["body_text"].iloc[0]

        def rewrite(ad: Ad) -> None:
            ad["snapshot"]["body"]["text"] = "Now 20% off, this week only"
            ad["snapshot"]["link_url"] = "https://example.com/sale?utm_source=facebook"

        service.edits[aid] = rewrite
        run = study.refresh(client)
    assert run["changed"].tolist() == [1]
    edit = _changes(study, "edited").loc[aid]
    assert edit["fields"] == "body_text,link_url"
    previous, current = json.loads(edit["previous"]), json.loads(edit["current"])
    assert previous["body_text"] == old_body
    assert current == {
        "body_text": "Now 20% off, this week only",
        "link_url": "https://example.com/sale?utm_source=facebook",
    }
    evidence = json.loads(edit["evidence"])
    assert evidence["complete"] and evidence["refresh"] and edit["cost_usd"] == 0


def test_a_dynamic_ads_cards_in_another_order_are_no_edit(study: sf.Study, tmp_path: Path) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        dynamic = study.ads().query("is_active and display_format in ('DCO', 'DPA')")
        assert len(dynamic), "the sandbox's search has dynamic ads"
        for aid in dynamic["ad_archive_id"]:
            service.edits[aid] = lambda ad: ad["snapshot"]["cards"].reverse()
        run = study.refresh(client)
        # Before: the frame's body_text (the first card's) changed, so "edited"
        assert run["changed"].tolist() == [0]
        aid = dynamic["ad_archive_id"].iloc[0]

        def new_card(ad: Ad) -> None:
            ad["snapshot"]["cards"][0]["body"] = "A new product, a new copy"

        service.edits[aid] = new_card  # a card's copy changed: that is an edit
        study.refresh(client)
    assert set(_changes(study, "edited").index) == {aid}


def _long_ago(ad: Ad) -> None:
    """No is_active, and an end_date long past: it ran for a day, long ago."""
    del ad["is_active"]
    ad["end_date"] = ad["start_date"]


def _no_flag(ad: Ad) -> None:
    """No is_active, and today's end_date: the last day it was shown."""
    del ad["is_active"]
    ad["end_date"] = int(time.time()) // 86400 * 86400


# -- an ad's life ----------------------------------------------------------------------------


def test_an_ad_absent_once_is_missing_and_running_again_when_seen(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        aid = study.ads().query("is_active")["ad_archive_id"].iloc[0]
        service.gone.add(aid)
        study.refresh(client)
        ads = study.ads().set_index("ad_archive_id")
        assert ads.at[aid, "state"] == "missing" and ads.at[aid, "is_active"]
        service.gone.clear()
        study.refresh(client, stopped_after=timedelta(0))
    ads = study.ads().set_index("ad_archive_id")
    assert ads.at[aid, "state"] == "running" and pd.isna(ads.at[aid, "stopped_seen"])
    # Before: "stopped" at once, and never running again
    assert study.changes().query("id == @aid")["change"].tolist() == ["new", "missing"]


def test_a_stopped_ad_seen_running_again_is_resumed_and_keeps_its_history(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        aid = study.ads().query("is_active")["ad_archive_id"].iloc[0]
        service.edits[aid] = lambda ad: ad.update(is_active=False)
        study.refresh(client)
        stopped = study.ads().set_index("ad_archive_id")
        assert stopped.at[aid, "state"] == "stopped" and not stopped.at[aid, "is_active"]
        del service.edits[aid]
        run = study.refresh(client)
    assert run["changed"].tolist() == [1]
    life = study.changes().query("id == @aid")
    # Before: an ad once stopped never came back
    assert life["change"].tolist() == ["new", "stopped", "resumed"]
    assert json.loads(life["evidence"].iloc[1])["service"]["is_active"] is False
    ads = study.ads().set_index("ad_archive_id")
    assert ads.at[aid, "state"] == "running" and ads.at[aid, "is_active"]
    assert pd.isna(ads.at[aid, "stopped_seen"])


def test_an_ad_stopped_by_its_absence_resumes_when_returned_without_is_active(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        aid = study.ads().query("is_active")["ad_archive_id"].iloc[0]
        service.gone.add(aid)
        study.refresh(client)  # missing
        study.refresh(client, stopped_after=timedelta(0))  # stopped: absent twice
        assert study.ads().set_index("ad_archive_id").at[aid, "state"] == "stopped"
        service.gone.clear()
        service.edits[aid] = _no_flag  # (nothing says it stopped)
        study.refresh(client)
    life = study.changes().query("id == @aid")
    # Before: only is_active true resumed it: returned again, it stayed stopped
    assert life["change"].tolist() == ["new", "missing", "stopped", "resumed"]
    assert json.loads(life["evidence"].iloc[-1])["service"]["is_active"] is None
    assert study.ads().set_index("ad_archive_id").at[aid, "state"] == "running"


def test_an_ad_the_service_stopped_stays_stopped_when_returned_without_is_active(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        aid = study.ads().query("is_active")["ad_archive_id"].iloc[0]
        service.edits[aid] = lambda ad: ad.update(is_active=False)
        study.refresh(client)
        service.edits[aid] = lambda ad: ad.pop("is_active")  # (the service said stopped)
        study.refresh(client)
    assert study.changes().query("id == @aid")["change"].tolist() == ["new", "stopped"]
    assert study.ads().set_index("ad_archive_id").at[aid, "state"] == "stopped"


def test_an_end_date_in_the_past_says_stopped_where_is_active_is_not_sent(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        running = study.ads().query("is_active")["ad_archive_id"].tolist()
        ended, today = running[0], running[1]
        service.edits[ended], service.edits[today] = _long_ago, _no_flag
        study.refresh(client)
    stopped = _changes(study, "stopped")
    # Before: only is_active false (or absence) said stopped
    assert set(stopped.index) == {ended}
    said = json.loads(stopped.at[ended, "evidence"])["service"]
    assert said["is_active"] is None and said["end_date"]
    state = study.ads().set_index("ad_archive_id")["state"]
    assert state[ended] == "stopped" and state[today] == "running"


def test_a_walk_cut_short_proves_nothing(study: sf.Study, tmp_path: Path) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        running = study.ads().query("is_active")["ad_archive_id"].tolist()
        assert len(running) > 52, "three pages of running ads, for the loop"
        service.gone.add(running[-1])  # on the last page of the running ones
        # the budget: one page of the running ones, then stopped
        with pytest.raises(sf.BudgetExceededError):
            study.refresh(client, max_cost=0.02)
        # the loop guard: the third page of the running ones is the first again
        service.loop = True
        cut = study.refresh(client, stopped_after=timedelta(0))
        assert not cut["complete"].any()
        service.loop = False
        study.refresh(client, stopped_after=timedelta(0))  # complete: missing, once
    changes = study.changes().query("change != 'new'")
    # Before: absent from a walk the loop guard ended, every later running ad "stopped"
    assert changes[["id", "change"]].values.tolist() == [[running[-1], "missing"]]


# -- older studies -----------------------------------------------------------------------------


def test_a_study_written_before_changes_had_their_proof_still_reads(tmp_path: Path) -> None:
    """Change files of the older shape (no fields, previous, current, evidence, cost):
    read with those null, and their ``stopped`` still stops the ad."""
    from socialframe.sandbox import example_ads

    sf.Study(tmp_path / "s").add_ads("coffee")  # (its tables)
    at = pd.Timestamp("2026-01-01", tz="UTC")
    ads = example_ads().head(2)

    rows = _stored(ads).assign(item=pd.array(["coffee"] * 2, "string"), seen_at=at.as_unit("us"))
    old = pd.DataFrame(
        {
            "at": [at.as_unit("us")],
            "kind": pd.array(["ad"], "string"),
            "item": pd.array(["coffee"], "string"),
            "id": pd.array([ads["ad_archive_id"].iloc[0]], "string"),
            "change": pd.array(["stopped"], "string"),
        }
    )
    run = pd.DataFrame(
        [{"at": at.as_unit("us"), "paid_calls": 1, "cost_usd": 0.01, "new": 2, "changed": 1}]
    ).assign(items=1, complete=True)
    write_refresh(tmp_path / "s", at, {"ads": rows, "changes": old, "runs": run})
    study = sf.Study(tmp_path / "s")
    changes = study.changes()
    assert changes.columns.tolist() == [
        "at",
        "kind",
        "item",
        "id",
        "change",
        "fields",
        "previous",
        "current",
        "evidence",
        "cost_usd",
        "filters",
    ]
    assert changes[["fields", "previous", "current", "evidence", "cost_usd"]].isna().all().all()
    state = study.ads().set_index("ad_archive_id")["state"]
    assert state.loc[ads["ad_archive_id"].iloc[0]] == "stopped"


def test_another_image_behind_the_same_proxy_file_name_is_an_edit(
    study: sf.Study, tmp_path: Path
) -> None:
    """A link ad's outside image comes through the CDN's proxy: the file name in the
    path is the proxy's (``safe_image.php``), the image is the ``url`` parameter."""
    service = Service()

    def proxied(image: str, turn: int) -> Callable[[Ad], None]:
        def change(ad: Ad) -> None:
            ad["snapshot"]["images"] = [
                {
                    "original_image_url": f"https://external-{turn}.cdn.example/safe_image.php"
                    f"?d=AQ{turn}&url=https%3A%2F%2Fshop.example%2Fimg%2F{image}&_nc_sig={turn}",
                    "resized_image_url": None,
                }
            ]

        return change

    with _client(service, tmp_path) as client:
        study.refresh(client)
        aid = study.ads().query("is_active")["ad_archive_id"].iloc[0]
        service.edits[aid] = proxied("spring.jpg", 1)
        study.refresh(client)
        service.edits[aid] = proxied("spring.jpg", 2)  # the same image: another signature
        same = study.refresh(client)
        service.edits[aid] = proxied("summer.jpg", 3)  # another image
        other = study.refresh(client)
    assert same["changed"].tolist() == [0]
    # before: both were "safe_image.php", and the new image was no edit
    assert other["changed"].tolist() == [1]
    edit = _changes(study, "edited").loc[[aid]].iloc[-1]
    assert edit["fields"] == "image_urls"
    assert json.loads(edit["previous"])["image_urls"][0].startswith("https://external-2.")


def test_an_ad_two_searches_find_is_edited_once(tmp_path: Path) -> None:
    """Two watched searches (all ads; running ones) both return the edited ad: one edit."""
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", country="US", active_status="all")
    study.add_ads("running shoes", country="US", active_status="active")
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        aid = study.ads().query("is_active")["ad_archive_id"].iloc[0]
        service.edits[aid] = lambda ad: ad["snapshot"]["body"].update(text="Now 20% off")
        run = study.refresh(client)
    # Before: each search's walk reported it: two "edited" rows, changed 1 in each row
    edits = study.changes().query("change == 'edited'")
    assert edits["id"].tolist() == [aid]
    assert int(run["changed"].sum()) == 1


def test_an_older_studys_ad_seen_running_after_its_stop_reads_as_running(tmp_path: Path) -> None:
    """An older socialframe stopped an ad at once from one walk without it and, seeing it
    running again later, wrote no change (there was no ``resumed``): it showed it running
    (``is_active`` true). It still reads so, and the next refresh says nothing of it."""
    from socialframe.sandbox import example_ads

    sf.Study(tmp_path / "s").add_ads("coffee")  # (its tables)
    ads = example_ads().head(2).assign(is_active=True)
    aid = ads["ad_archive_id"].iloc[0]
    times = [pd.Timestamp(f"2026-01-0{day}", tz="UTC").as_unit("us") for day in (1, 2, 3)]

    def seen(at: pd.Timestamp, rows: pd.DataFrame) -> pd.DataFrame:
        return _stored(rows).assign(item=pd.array(["coffee"] * len(rows), "string"), seen_at=at)

    def old_change(at: pd.Timestamp, what: str) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "at": [at],
                "kind": pd.array(["ad"], "string"),
                "item": pd.array(["coffee"], "string"),
                "id": pd.array([aid], "string"),
                "change": pd.array([what], "string"),
            }
        )

    written = [  # new; absent once: "stopped"; seen running again: no change
        {"ads": seen(times[0], ads), "changes": old_change(times[0], "new")},
        {"ads": seen(times[1], ads.tail(1)), "changes": old_change(times[1], "stopped")},
        {"ads": seen(times[2], ads)},
    ]
    for at, kinds in zip(times, written, strict=True):
        run = pd.DataFrame(
            [{"at": at, "paid_calls": 1, "cost_usd": 0.01, "new": 0, "changed": 0}]
        ).assign(items=1, complete=True)
        write_refresh(tmp_path / "s", at, {**kinds, "runs": run})
    ad = sf.Study(tmp_path / "s").ads().set_index("ad_archive_id").loc[aid]
    # Before: "stopped" (is_active false), though seen running since its stop
    assert ad["state"] == "running" and ad["is_active"] and pd.isna(ad["stopped_seen"])
    changes = sf.Study(tmp_path / "s").changes()
    assert changes["change"].tolist() == ["new", "stopped"]  # its old changes as they were


def _stored(ads: pd.DataFrame) -> pd.DataFrame:
    """Ads as a study's ``ads`` table holds them: the contract's columns, and every other
    field in one JSON text column, ``extra``."""
    extra = ads.drop(columns=list(sf.AD_COLUMNS)).to_dict("records")
    return ads[list(sf.AD_COLUMNS)].assign(
        extra=pd.array([json.dumps(r, default=str, sort_keys=True) for r in extra], "string")
    )


class _Unsaid(Service):
    """A service that sends no ``is_active`` in a search of stopped ads (its ads are
    stopped by being listed there), and lists there the ads of ``moved`` (left out of
    every other search)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: dict[str, Ad] = {}  # each ad as last sent
        self.moved: set[str] = set()

    def __call__(self, request: Any) -> tuple[int, bytes, dict[str, str]]:
        inactive = "activeStatus=Inactive" in str(request.url)
        self.gone = set() if inactive else set(self.moved)
        status, content, headers = super().__call__(request)
        body = json.loads(content)
        groups = body["data"]["ads"] if isinstance(body.get("data"), dict) else []
        self.sent.update({str(ad["ad_archive_id"]): ad for group in groups for ad in group})
        if inactive:
            if "end_cursor" not in str(request.url):
                today = int(time.time()) // 86400 * 86400  # (no end_date past: not that)
                groups += [[dict(self.sent[aid], end_date=today)] for aid in sorted(self.moved)]
            for group in groups:
                for ad in group:
                    ad.pop("is_active", None)
        return status, json.dumps(body).encode(), headers


def test_an_ad_a_search_of_stopped_ads_lists_is_stopped_without_is_active(
    tmp_path: Path,
) -> None:
    study = sf.Study(tmp_path / "s")
    study.add_ads("running shoes", country="US", active_status="all")
    only = sf.Study(tmp_path / "only")  # (its ads seen nowhere else)
    only.add_ads("running shoes", country="US", active_status="inactive")
    service = _Unsaid()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        aid = study.ads().query("is_active")["ad_archive_id"].iloc[0]
        service.moved.add(aid)  # now listed as stopped only, without is_active
        study.add_ads("running shoes", country="US", active_status="inactive")
        study.refresh(client)
        only.refresh(client)
    # Before: read as running, every one (nothing said is_active false)
    assert set(only.ads()["state"]) == {"stopped"}
    # and the ad listed as stopped stayed running
    assert study.ads().set_index("ad_archive_id").at[aid, "state"] == "stopped"
    stop = study.changes().query("id == @aid")
    assert stop["change"].tolist() == ["new", "stopped"]
    said = json.loads(stop["evidence"].iloc[-1])["service"]
    assert said["is_active"] is None and said["listed_in"] == "activeStatus=Inactive"


def test_an_ad_first_seen_long_ended_without_is_active_is_stopped_from_the_start(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        running = study.ads().query("is_active")["ad_archive_id"].tolist()
        ended, today = running[0], running[1]
        service.edits[ended], service.edits[today] = _long_ago, _no_flag
        fresh = sf.Study(tmp_path / "fresh")  # (these ads are new to it)
        fresh.add_ads("running shoes", country="US", active_status="all")
        fresh.refresh(client)
        state = fresh.ads().set_index("ad_archive_id")["state"]
        # Before: "running", and a "stopped" change at the next refresh, long after
        assert state[ended] == "stopped" and state[today] == "running"
        again = fresh.refresh(client)
    assert again["changed"].tolist() == [0]


def test_a_dynamic_ads_edit_shows_its_template_and_cards_before_and_after(
    study: sf.Study, tmp_path: Path
) -> None:
    service = Service()
    with _client(service, tmp_path) as client:
        study.refresh(client)
        dynamic = study.ads().query("is_active and display_format in ('DCO', 'DPA')")
        aid = dynamic["ad_archive_id"].iloc[0]

        def second_card(ad: Ad) -> None:
            ad["snapshot"]["cards"][1]["body"] = "A new copy in card two"

        service.edits[aid] = second_card  # (the first card, the frame's body_text, is as it was)
        study.refresh(client)
    edit = _changes(study, "edited").loc[aid]
    previous, current = json.loads(edit["previous"]), json.loads(edit["current"])
    # Before: the first card's copy, the same before and after: no difference shown
    assert previous != current
    assert "A new copy in card two" in current["body_text"]["cards"]
    assert "A new copy in card two" not in previous["body_text"]["cards"]
    assert current["body_text"]["template"] == previous["body_text"]["template"]
