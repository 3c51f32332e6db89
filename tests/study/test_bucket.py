"""A study in a bucket (``_study/storage.py``): moto's S3 server on loopback, checking every
request's signature, the sandbox over HTTP, and the tables read back by deltalake and by
polars alone."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from hostile import same_size_forgery
from servers import S3

import socialframe as sf
from socialframe.sandbox import EXAMPLE_POSTS, ManualClock, Sandbox

P82, P50 = EXAMPLE_POSTS[82], EXAMPLE_POSTS[50]


@pytest.fixture
def uri(s3: S3) -> str:
    return f"s3://{s3.bucket()}/brand-watch"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def sandbox(clock: ManualClock) -> Iterator[Sandbox]:
    with Sandbox(seed=0, clock=clock) as server:
        yield server


def _refreshed(uri: str, s3: S3, sandbox: Sandbox, clock: ManualClock, tmp_path: Path) -> sf.Study:
    study = sf.Study(uri, storage_options=s3.options if uri.startswith("s3://") else None)
    study.add_posts([P82, P50])
    study.add_ads("coffee", country="US")
    with sandbox.client(cache=tmp_path / "cache", progress=False, clock=clock) as client:
        study.refresh(client)
        clock.advance(7 * 86400)
        study.refresh(client)
    return study


def test_a_study_in_a_bucket_answers_as_the_same_study_in_a_folder(
    uri: str, s3: S3, sandbox: Sandbox, clock: ManualClock, tmp_path: Path
) -> None:
    in_bucket = _refreshed(uri, s3, sandbox, clock, tmp_path / "a")
    other_clock = ManualClock()  # (the same world again, from its start)
    with Sandbox(seed=0, clock=other_clock) as other:
        in_folder = _refreshed(str(tmp_path / "folder"), s3, other, other_clock, tmp_path / "b")
    for answer in ("comments", "ads", "changes", "runs", "watched"):
        bucket_frame = getattr(in_bucket, answer)()
        folder_frame = getattr(in_folder, answer)()
        assert len(bucket_frame) > 0, answer
        if answer == "watched":
            bucket_frame, folder_frame = (
                bucket_frame.drop(columns="added_at"),
                folder_frame.drop(columns="added_at"),
            )
        pd.testing.assert_frame_equal(bucket_frame, folder_frame, obj=answer)
    assert in_bucket.runs()["paid_calls"].tolist() == [5, 4]
    versions = "select count(*) as n from comment_versions"
    assert in_bucket.sql(versions)["n"][0] == in_folder.sql(versions)["n"][0] == 232
    assert repr(in_bucket) == f"Study({uri!r})"


def test_each_table_is_read_back_by_deltalake_and_by_polars_alone(
    uri: str, s3: S3, sandbox: Sandbox, clock: ManualClock, tmp_path: Path
) -> None:
    import deltalake
    import polars as pl

    study = _refreshed(uri, s3, sandbox, clock, tmp_path)
    comments = deltalake.DeltaTable(uri + "/comments", storage_options=s3.options).to_pandas()
    assert len(comments) == 232 and comments["refresh"].nunique() == 2
    assert set(comments["comment_id"]) == set(study.comments()["comment_id"])
    runs = pl.read_delta(uri + "/runs", storage_options=s3.options).sort("refresh")
    assert runs["paid_calls"].to_list() == [5, 4]
    assert runs["refresh"].to_list() == sorted(runs["refresh"].to_list())
    for kind in ("ads", "changes", "items", "watched"):
        assert pl.read_delta(f"{uri}/{kind}", storage_options=s3.options).height > 0, kind


def test_storage_options_default_to_the_aws_variables(
    uri: str,
    s3: S3,
    sandbox: Sandbox,
    clock: ManualClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.key_id)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.secret)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    study = sf.Study(uri)
    study.add_posts(P50)
    with sandbox.client(cache=tmp_path / "cache", progress=False, clock=clock) as client:
        study.refresh(client)
    assert len(sf.Study(uri, storage_options=s3.options).comments()) == 50


def test_a_wrong_secret_key_is_one_clear_error_naming_no_secret(
    uri: str,
    s3: S3,
    sandbox: Sandbox,
    clock: ManualClock,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    _refreshed(uri, s3, sandbox, clock, tmp_path)
    wrong = {**s3.options, "aws_secret_access_key": "wrong-secret-0123456789abcdef"}
    secrets = (s3.secret, "wrong-secret-0123456789abcdef")
    said = []
    with pytest.raises(sf.StudyError) as raised:
        sf.Study(uri, storage_options=wrong).comments()
    said.append(str(raised.value))
    study = sf.Study(uri, storage_options=s3.options)
    assert len(study.comments()) == 135  # nothing lost
    with pytest.raises(sf.StudyError) as raised:
        bad = sf.Study.__new__(sf.Study)
        bad._data = type(study._data)(uri, wrong)
        bad.add_posts(P82)
    said.append(str(raised.value))
    said.append(repr(sf.Study(uri, storage_options=s3.options)))
    said.append(caplog.text)
    for text in said:
        for secret in secrets:
            assert secret not in text
    assert "secret key is wrong" in said[0] and uri in said[0], said[0]
    # nor in a frame of the error's traceback (crash reporters show their locals), nor
    # in an error it carries (__context__, __cause__: crash reporters walk those too,
    # and deltalake's own frames hold the storage options whole)
    token = "session-token-0123456789abcdef"
    for options in (wrong, {**s3.options, "aws_session_token": token}):
        with pytest.raises(sf.StudyError) as raised:
            sf.Study(uri, storage_options=options).comments()
        assert raised.value.__context__ is None and raised.value.__cause__ is None
        tb = raised.value.__traceback__
        package = str(Path(sf.__file__).parent)
        frames = 0
        while tb is not None:
            if not tb.tb_frame.f_code.co_filename.startswith(package):  # (this test's own)
                tb = tb.tb_next
                continue
            frames += 1
            for name, value in tb.tb_frame.f_locals.items():
                shown = f"{name}={value!r}"
                assert not any(s in shown for s in (*secrets, token)), tb.tb_frame.f_code.co_name
            tb = tb.tb_next
        assert frames >= 3


@pytest.mark.slow
def test_a_bucket_that_refuses_writes_is_one_error_before_any_paid_call_and_loses_nothing(
    uri: str, s3: S3, sandbox: Sandbox, clock: ManualClock, tmp_path: Path
) -> None:
    study = _refreshed(uri, s3, sandbox, clock, tmp_path)
    before = {a: getattr(study, a)() for a in ("comments", "changes", "runs")}
    reading = sf.Study(uri, storage_options=s3.reader)
    pd.testing.assert_frame_equal(reading.comments(), before["comments"])  # it reads
    charged = sandbox.charges
    with sandbox.client(cache=tmp_path / "cache", progress=False, clock=clock) as client:
        with pytest.raises(sf.StudyError, match="cannot be written.*access denied") as raised:
            reading.refresh(client)
        assert client.ledger.paid_calls == 0 and sandbox.charges == charged
    assert s3.reader["aws_secret_access_key"] not in str(raised.value)
    with pytest.raises(sf.StudyError, match="access denied"):
        reading.add_posts([EXAMPLE_POSTS[1]])
    for answer, frame in before.items():
        pd.testing.assert_frame_equal(getattr(study, answer)(), frame)


def test_a_bucket_that_does_not_exist_is_one_clear_error(s3: S3) -> None:
    with pytest.raises(sf.StudyError, match="no such bucket|cannot be"):
        sf.Study("s3://no-such-bucket-here/s", storage_options=s3.options).add_posts(P82)


def test_options_for_a_folder_and_credentials_in_a_uri_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="storage_options are for a study in a bucket"):
        sf.Study(tmp_path / "s", storage_options={"aws_region": "x"})
    with pytest.raises(ValueError, match="holds no credentials"):
        sf.Study("s3://key:secret@bucket/s")
    with pytest.raises(ValueError, match="name inside the bucket"):
        sf.Study("s3://bucket")


@pytest.mark.slow
def test_every_study_command_takes_a_bucket_uri(
    uri: str, s3: S3, sandbox: Sandbox, tmp_path: Path
) -> None:
    import os
    import subprocess
    import sys

    env = dict(
        os.environ,
        SOCIALFRAME_BASE_URL=sandbox.url,
        SOCIALFRAME_API_KEY=sandbox.api_key,
        AWS_ENDPOINT_URL=s3.endpoint,
        AWS_ACCESS_KEY_ID=s3.key_id,
        AWS_SECRET_ACCESS_KEY=s3.secret,
        AWS_REGION="us-east-1",
        AWS_ALLOW_HTTP="true",
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "socialframe", "study", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "Traceback" not in done.stderr, done.stderr
        assert s3.secret not in done.stdout + done.stderr
        return done

    assert run("add-posts", uri, P82).returncode == 0
    assert run("add-ads", uri, "coffee", "--country", "US").returncode == 0
    refreshed = run("refresh", uri, "--cache", "c", "-o", "run.csv")
    assert refreshed.returncode == 0, refreshed.stderr
    assert run("changes", uri, "-o", "changes.csv").returncode == 0
    assert run("runs", uri, "-o", "runs.csv").returncode == 0
    assert len(pd.read_csv(tmp_path / "changes.csv")) == len(
        sf.Study(uri, storage_options=s3.options).changes()
    )
    assert pd.read_csv(tmp_path / "runs.csv")["paid_calls"].tolist() == [4]  # 2 + 2 pages
    # a wrong secret: one clear error, exit code, and no secret said
    env["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-0123456789abcdef"
    refused = run("runs", uri, "-o", "again.csv")
    assert refused.returncode != 0 and "secret key is wrong" in refused.stderr, refused.stderr
    assert "wrong-secret-0123456789abcdef" not in refused.stdout + refused.stderr


def test_a_same_size_file_put_over_one_of_the_studys_is_never_read_as_the_studys(
    uri: str,
    s3: S3,
    sandbox: Sandbox,
    clock: ManualClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    study = _refreshed(uri, s3, sandbox, clock, tmp_path)
    bucket, prefix = uri.removeprefix("s3://").split("/", 1)
    client = s3.client()
    listed = client.list_objects_v2(Bucket=bucket, Prefix=f"{prefix}/comments/")  # type: ignore[attr-defined]
    key = next(o["Key"] for o in listed["Contents"] if o["Key"].endswith(".parquet"))
    original = client.get_object(Bucket=bucket, Key=key)["Body"].read()  # type: ignore[attr-defined]
    forged = same_size_forgery(original)
    assert len(forged) == len(original)
    client.put_object(Bucket=bucket, Key=key, Body=forged)  # type: ignore[attr-defined]
    # (read on a machine that has not read the study before)
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path / "another-machine"))
    for answer in ("comments", "changes"):
        with pytest.raises(sf.StudyError, match=r"comments/part-.*SHA-256 differs"):
            getattr(study, answer)()
    with pytest.raises(sf.StudyError, match="SHA-256 differs"):
        study.sql("select text from comments")
    client.put_object(Bucket=bucket, Key=key, Body=original)  # type: ignore[attr-defined]
    assert "FORGED" not in set(study.comments()["text"])


def test_each_file_of_a_bucket_is_copied_once_and_a_damaged_copy_is_copied_again(
    uri: str,
    s3: S3,
    sandbox: Sandbox,
    clock: ManualClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    machine = tmp_path / "machine-cache"
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(machine))
    study = _refreshed(uri, s3, sandbox, clock, tmp_path)
    first = study.comments()
    copies = sorted((machine / "study-files").iterdir())
    assert copies and all(p.name.endswith(".parquet") for p in copies)
    assert oct((machine / "study-files").stat().st_mode & 0o777) == "0o700"
    seen = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in copies}
    again = sf.Study(uri, storage_options=s3.options)
    pd.testing.assert_frame_equal(again.comments(), first)
    assert {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in copies} == seen
    # A copy damaged on this machine's disk: copied again, the answer as before.
    biggest = max(copies, key=lambda p: p.stat().st_size)
    data = bytearray(biggest.read_bytes())
    data[len(data) // 2] ^= 0xFF
    biggest.write_bytes(bytes(data))
    pd.testing.assert_frame_equal(again.comments(), first)
    assert biggest.read_bytes() != bytes(data)


def test_readers_on_one_machine_copying_a_study_at_once_all_get_its_answers(
    uri: str,
    s3: S3,
    sandbox: Sandbox,
    clock: ManualClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    study = _refreshed(uri, s3, sandbox, clock, tmp_path)
    expected = study.comments()
    monkeypatch.setenv("SOCIALFRAME_CACHE_DIR", str(tmp_path / "a-new-machine"))
    with ThreadPoolExecutor(4) as pool:
        frames = list(
            pool.map(lambda _: sf.Study(uri, storage_options=s3.options).comments(), range(4))
        )
    for frame in frames:
        pd.testing.assert_frame_equal(frame, expected)
    assert not [
        p for p in (tmp_path / "a-new-machine" / "study-files").iterdir() if p.name.startswith(".")
    ]
