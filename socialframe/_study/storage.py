"""Where a study lives: a local folder, or a prefix of a bucket (``s3://``, ``gs://``,
``az://``, ``abfss://``), and the few things a study does there besides Delta's own
commits: write a new file (never over one), read one, list a folder, remove one.

Two places, one interface (:class:`Place`):

- :class:`Folder`, a local folder, walked without following a link (:mod:`.folder`):
  a file is created with ``O_EXCL | O_NOFOLLOW``, so a link planted in the study is
  never written through;
- :class:`Bucket`, an object store through ``obstore`` (the ``object_store`` crate that
  delta-rs uses, with the same option names): a file is written with the store's
  conditional write (``If-None-Match: *`` on S3), so it never replaces another.

The storage options (keys, tokens) are held hidden (:class:`socialframe._config.Hidden`)
and handed to ``obstore`` and ``deltalake`` only at the call: they never reach a repr,
a message or a file. Where none are given, both read the standard ``AWS_*``,
``GOOGLE_*`` and ``AZURE_*`` variables.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Protocol

from .._config import Hidden
from .._errors import StudyError
from . import folder

#: The schemes of a study in a bucket, and the prefix of their ``object_store`` options.
SCHEMES: Final = {
    "s3": "aws_",
    "s3a": "aws_",
    "gs": "google_",
    "az": "azure_",
    "abfs": "azure_",
    "abfss": "azure_",
}
_URI = re.compile(r"([a-z][a-z0-9+.-]*)://(.*)", re.IGNORECASE | re.DOTALL)
#: ``object_store``'s client options (not a store's own configuration).
_CLIENT: Final = {
    "allow_http",
    "allow_invalid_certificates",
    "connect_timeout",
    "timeout",
    "proxy_url",
    "pool_idle_timeout",
    "http1_only",
    "http2_only",
    "user_agent",
}


class Already(Exception):
    """A file a study writes is there already (a write never replaces one)."""


def is_uri(location: object) -> bool:
    """Whether ``location`` names a bucket (``s3://...``) rather than a local folder."""
    if not isinstance(location, str):
        return False
    found = _URI.fullmatch(location.strip())
    return found is not None and found[1].lower() != "file"


class Place(Protocol):
    """What a study does where it lives, besides Delta's commits."""

    #: How the study is shown (a folder's path, a bucket's URI: never a secret).
    shown: str
    local: bool

    def table_uri(self, kind: str) -> str:
        """The URI (or absolute path) of the Delta table ``kind``."""

    def delta_options(self) -> dict[str, str] | None:
        """The storage options for ``deltalake`` (None for a folder)."""

    def put_new(self, relative: str, data: bytes) -> None:
        """Write ``data`` as ``relative``, a new file: never over one (:class:`Already`)."""

    def get(self, relative: str) -> bytes | None:
        """The bytes of ``relative``, or None where it is missing."""

    def listed(self, relative: str) -> list[str]:
        """The names of the files in the folder ``relative`` (none where it is missing)."""

    def remove(self, relative: str) -> None:
        """Remove the file ``relative`` if it is there (tidying up: quietly)."""

    def exists(self, relative: str) -> bool:
        """Whether anything is at ``relative`` (a file, or a folder holding files)."""


class Folder:
    """A study in a local folder (see the module's docstring)."""

    local = True

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shown = str(path)

    def table_uri(self, kind: str) -> str:
        return str(Path(os.path.abspath(self.path)) / kind)

    def delta_options(self) -> dict[str, str] | None:
        return None

    def make(self) -> None:
        """Create the study's folder (and those above it) where it is missing."""
        self.path.mkdir(parents=True, exist_ok=True)

    def put_new(self, relative: str, data: bytes) -> None:
        from .._display.files import new_file_mode

        self.make()
        parent, _, name = relative.rpartition("/")
        with folder.opened(self.path) as root:
            at = folder.open_dir(self.path, root, parent, create=True) if parent else os.dup(root)
            try:
                try:
                    fd = folder.create_file(self.path, at, name, relative, new_file_mode())
                except FileExistsError:
                    raise Already(relative) from None
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                    out.flush()
                    os.fsync(out.fileno())
                folder.fsync_dir(at)
            finally:
                os.close(at)

    def get(self, relative: str) -> bytes | None:
        try:
            with folder.opened(self.path) as root:
                fd = folder.open_file(self.path, root, relative)
                with os.fdopen(fd, "rb") as source:
                    return source.read()
        except FileNotFoundError:
            return None

    def listed(self, relative: str) -> list[str]:
        try:
            with folder.opened(self.path) as root:
                at = folder.open_dir(self.path, root, relative)
                try:
                    return sorted(os.listdir(at))
                finally:
                    os.close(at)
        except (FileNotFoundError, NotADirectoryError):
            return []

    def remove(self, relative: str) -> None:
        with contextlib.suppress(OSError), folder.opened(self.path) as root:
            folder.remove_file(root, relative)

    def exists(self, relative: str) -> bool:
        return os.path.lexists(self.path / relative)


class Bucket:
    """A study under a prefix of an object store (see the module's docstring)."""

    local = False

    def __init__(self, uri: str, options: Hidden) -> None:
        scheme, rest = _URI.fullmatch(uri.strip()).groups()  # type: ignore[union-attr]
        scheme = scheme.lower()
        if scheme not in SCHEMES:
            raise ValueError(
                f"a study lives in a folder or a bucket (s3://, gs://, az://, abfss://), not"
                f" {scheme}://"
            )
        rest = rest.strip("/")
        if not rest or "/" not in rest.rstrip("/") and scheme in ("s3", "s3a", "gs"):
            raise ValueError(
                f"give the study a name inside the bucket ({scheme}://bucket/brand-watch),"
                " not the bucket alone"
            )
        self.uri = f"{scheme}://{rest}"
        self.shown = self.uri  # (a URI with a password or a token in it is refused below)
        if "@" in rest.split("/")[0] or "?" in rest:
            raise ValueError(
                "a study's URI holds no credentials (user:secret@, ?sig=...): give them"
                " as storage_options, or in the AWS_* / GOOGLE_* / AZURE_* variables"
            )
        self._prefix = SCHEMES[scheme]
        checked, problem = _options(hidden(options))
        if problem is not None:
            raise TypeError(problem)
        self._options = Hidden(checked)
        del checked
        self._store: Any = None

    def table_uri(self, kind: str) -> str:
        return f"{self.uri}/{kind}"

    def delta_options(self) -> dict[str, str] | None:
        given: dict[str, str] = self._options.reveal()  # type: ignore[assignment]
        return dict(given) if given else None

    def store(self) -> Any:
        """The ``obstore`` store rooted at the study (made once).

        Raises:
            StudyError: an option of another store, or options ``obstore`` refuses (named,
                never their values: no frame of the error's traceback holds them).
        """
        if self._store is None:
            made, problem = _opened(self.uri, self._prefix, self._options)
            if problem is not None:
                raise StudyError(problem)
            self._store = made
        return self._store

    def put_new(self, relative: str, data: bytes) -> None:
        import obstore

        try:
            obstore.put(self.store(), relative, data, mode="create", use_multipart=False)
        except obstore.exceptions.AlreadyExistsError:
            raise Already(relative) from None
        except obstore.exceptions.PreconditionError:
            raise Already(relative) from None
        except Exception as exc:
            raise self.failed(exc, "written") from None

    def get(self, relative: str) -> bytes | None:
        import obstore

        try:
            return bytes(obstore.get(self.store(), relative).bytes())
        except FileNotFoundError:
            return None
        except obstore.exceptions.NotFoundError:
            return None
        except Exception as exc:
            raise self.failed(exc, "read") from None

    def listed(self, relative: str) -> list[str]:
        import obstore

        try:
            found = obstore.list(self.store(), prefix=relative.rstrip("/") + "/").collect()
        except Exception as exc:
            raise self.failed(exc, "read") from None
        return sorted(
            name
            for entry in found
            if "/" not in (name := str(entry["path"])[len(relative.rstrip("/")) + 1 :])
        )

    def remove(self, relative: str) -> None:
        import obstore

        with contextlib.suppress(Exception):
            obstore.delete(self.store(), relative)

    def exists(self, relative: str) -> bool:
        import obstore

        try:
            obstore.head(self.store(), relative)
            return True
        except FileNotFoundError:
            pass
        except obstore.exceptions.NotFoundError:
            pass
        except Exception as exc:
            raise self.failed(exc, "read") from None
        return bool(self.listed(relative))

    def failed(self, exc: BaseException, done: str) -> StudyError:
        """A StudyError for a store's failure: what kind of failure, never its text
        (which may echo a request's headers) beyond the words that say why."""
        return StudyError(
            f"{self.uri} cannot be {done} ({storage_reason(exc)}); the study is as it was"
            " before this step. Check the bucket, its permissions and the storage options"
            " (or AWS_* / GOOGLE_* / AZURE_* variables)"
        )


def _opened(uri: str, prefix: str, options: Hidden) -> tuple[Any, str | None]:
    """``obstore``'s store for ``uri``, or what is wrong (a message naming no value): the
    options are revealed in this frame alone, which is gone before anything is raised."""
    from obstore.store import from_url

    given: dict[str, str] = options.reveal()  # type: ignore[assignment]
    config: dict[str, Any] = {}
    client: dict[str, Any] = {}
    for key, value in given.items():
        bare = key.lower().removeprefix(prefix)
        if bare in _CLIENT:
            client[bare] = value
        elif key.lower().startswith(prefix):
            config[key.lower()] = value
        else:
            return None, (
                f"storage option {key!r:.60} is not one of {uri}'s: its options start with"
                f" {prefix} (or are client options such as allow_http, timeout)"
            )
    opening: Any = from_url
    try:
        return opening(uri, config=config or None, client_options=client or None), None
    except BaseException as exc:  # (a bad option panics in Rust: never its values)
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        kind = type(exc).__name__
    return (
        None,
        f"{uri} cannot be opened with the storage options given ({kind}); check their names",
    )


def storage_reason(exc: BaseException) -> str:
    """Why a store refused, in a few words and no secret: a status the store sent, or
    the kind of failure."""
    text = str(exc)
    for words, reason in (
        ("SignatureDoesNotMatch", "the credentials were refused: the secret key is wrong"),
        ("InvalidAccessKeyId", "the credentials were refused: no such access key"),
        ("AccessDenied", "access denied"),
        ("Forbidden", "access denied"),
        ("NoSuchBucket", "no such bucket"),
        ("Connection refused", "the storage did not answer (connection refused)"),
        ("dns error", "the storage's host is unknown"),
        ("timed out", "the storage did not answer in time"),
    ):
        if words.lower() in text.lower():
            return reason
    status = re.search(r"\b(?:status|Status)[: ]+(\d{3})\b", text)
    if status:
        return f"the storage answered HTTP {status[1]}"
    return type(exc).__name__


def hidden(given: object) -> Hidden:
    """The storage options as given, hidden (see :class:`socialframe._config.Hidden`)."""
    return given if isinstance(given, Hidden) else Hidden(given)


def _options(options: Hidden) -> tuple[dict[str, str], str | None]:
    """The storage options, checked: names and values are text; or what is wrong (naming
    no value: this frame, which holds them, is gone before the caller raises)."""
    given = options.reveal()
    if given is None:
        return {}, None
    if not isinstance(given, Mapping):
        kind = type(given).__name__
        return {}, f"storage_options must be a dict of option names to text, not {kind}"
    out: dict[str, str] = {}
    for key, value in given.items():
        if not isinstance(key, str) or not key.strip():
            return {}, "storage_options' names must be text (aws_region, ...)"
        if isinstance(value, bool):
            value = "true" if value else "false"
        if not isinstance(value, str | int | float):
            return {}, f"storage option {key!r:.60} must be text"
        out[key.strip()] = str(value)
    return out, None


def place(location: str | os.PathLike[str], options: Hidden) -> Place:
    """The place ``location`` names (see the module's docstring).

    Raises:
        ValueError: a URI of another scheme, or one holding credentials.
        TypeError: storage options that are not text; options for a local folder.
    """
    if is_uri(location):
        return Bucket(str(location), options)
    if options.reveal():
        raise TypeError("storage_options are for a study in a bucket (s3://...), not a folder")
    if isinstance(location, str) and location.strip().lower().startswith("file://"):
        location = location.strip()[len("file://") :]
    return Folder(Path(location).expanduser())
