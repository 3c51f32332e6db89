"""Real servers the tests start on free loopback ports (not a test module).

Without the server's program a test skips, saying how to install it; under
``CI=true`` (``.ci/run`` installs it first) a missing server fails the run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

INSTALL = "needs redis-server: apt-get install redis-server (Debian/Ubuntu) or brew install redis"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_redis(
    folder: Path, *options: str, port: int | None = None, _tries: int = 4
) -> tuple[subprocess.Popen[bytes], str]:
    """A real redis-server on a free loopback port, or on ``port`` (a server started again
    where one was killed); skips, or fails on CI, without one. ``options`` are more of its
    command line (``--requirepass``, ``--appendonly yes``...)."""
    exe = shutil.which("redis-server")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"redis-server is missing on CI: {INSTALL}")
        pytest.skip(INSTALL)
    import redis

    given = port
    port = port or free_port()
    server = subprocess.Popen(
        [
            exe,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
            *options,
        ],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    password = options[options.index("--requirepass") + 1] if "--requirepass" in options else None
    answering = redis.Redis(host="127.0.0.1", port=port, password=password, socket_timeout=5)
    deadline = time.monotonic() + 20
    while True:
        try:
            # this server, not another test process's that took the port first (pytest -n)
            if answering.info("server")["process_id"] == server.pid:
                break
        except redis.RedisError:
            pass
        if server.poll() is not None and given is None and _tries > 0:
            # (it exited: the free port was taken before it bound it, by a server or a
            # connection of another test process): another port
            return start_redis(folder, *options, _tries=_tries - 1)
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            pytest.fail("redis-server did not start")
        time.sleep(0.05)
    answering.close()
    return server, url


@contextlib.contextmanager
def running_redis(folder: Path, *options: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """:func:`start_redis` for the block, stopped after it (if the test did not)."""
    server, url = start_redis(folder, *options)
    try:
        yield server, url
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=10)


S3_INSTALL = 'needs moto\'s S3 server: pip install "moto[server]" (or pip install -e ".[test]")'


class S3:
    """A real S3-compatible server (moto's) on a free loopback port, checking every
    request's signature: only the access key it made is let in.

    It runs in a process of its own, not in a thread of the tests' (ThreadedMotoServer):
    deltalake holds the GIL while it waits for an answer, so a server in a thread of the
    same process never answers it.

    Attributes:
        endpoint: ``http://127.0.0.1:<port>``.
        options: The storage options of a study in it (the key it made).
        reader: Those of a key that may read and list, never write.
        secret: The secret key, for the tests that look for it where it must not be.
    """

    def __init__(self) -> None:
        try:
            import boto3
            import moto.server  # noqa: F401
        except ImportError:
            if os.environ.get("CI") == "true":
                pytest.fail(f"moto is missing on CI: {S3_INSTALL}")
            pytest.skip(S3_INSTALL)
        import sys
        import urllib.request

        port = free_port()
        self._server = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.endpoint = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or self._server.poll() is not None:
                    self._server.kill()
                    pytest.fail("moto's S3 server did not start")
                time.sleep(0.1)
        anonymous = {"aws_access_key_id": "setup", "aws_secret_access_key": "setup"}
        iam = boto3.client("iam", endpoint_url=self.endpoint, region_name="us-east-1", **anonymous)
        iam.create_user(UserName="study")
        iam.put_user_policy(
            UserName="study",
            PolicyName="all",
            PolicyDocument='{"Version": "2012-10-17", "Statement": [{"Effect": "Allow",'
            ' "Action": "*", "Resource": "*"}]}',
        )
        key = iam.create_access_key(UserName="study")["AccessKey"]
        self.key_id, self.secret = key["AccessKeyId"], key["SecretAccessKey"]
        # a reader: a bucket that refuses this key's writes
        iam.create_user(UserName="reader")
        iam.put_user_policy(
            UserName="reader",
            PolicyName="read",
            PolicyDocument='{"Version": "2012-10-17", "Statement": [{"Effect": "Allow",'
            ' "Action": ["s3:GetObject", "s3:ListBucket", "s3:HeadObject"],'
            ' "Resource": "*"}]}',
        )
        reader = iam.create_access_key(UserName="reader")["AccessKey"]
        self.options = {
            "aws_endpoint": self.endpoint,
            "aws_access_key_id": self.key_id,
            "aws_secret_access_key": self.secret,
            "aws_region": "us-east-1",
            "aws_allow_http": "true",
        }
        self.reader = {
            **self.options,
            "aws_access_key_id": reader["AccessKeyId"],
            "aws_secret_access_key": reader["SecretAccessKey"],
        }
        # From now on every request is signed with a key it knows, or refused.
        urllib.request.urlopen(
            urllib.request.Request(
                f"{self.endpoint}/moto-api/reset-auth",
                data=b"0",
                method="POST",
                headers={"Content-Type": "text/plain"},  # (a form's body would be parsed away)
            )
        ).read()
        self._buckets = 0

    def client(self) -> object:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=self.key_id,
            aws_secret_access_key=self.secret,
        )

    def bucket(self) -> str:
        """A new, empty bucket's name."""
        self._buckets += 1
        name = f"study-bucket-{self._buckets}"
        self.client().create_bucket(Bucket=name)  # type: ignore[attr-defined]
        return name

    def stop(self) -> None:
        self._server.terminate()
        self._server.wait(timeout=10)
