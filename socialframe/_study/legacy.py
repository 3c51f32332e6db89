"""Studies of the format before Delta Lake (``study.json``), read once to be migrated
(:mod:`.migration`): nothing here writes.

::

    brand-watch/
      study.json                               the manifest (what is watched, the refreshes)
      comments/refresh=20261125T030500123Z/part-0.parquet
      ads/ changes/ runs/ items/               the same, per kind

The manifest names each refresh's files and records each file's size and SHA-256 (checked
before a file is read, as :mod:`.integrity` does); nothing it names is used unchecked (a
file it names must be one of the study's own partitions, never any path).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Final

from .._errors import StudyError
from . import folder, integrity

#: What ``study.json`` says it is; a newer number is refused, never half-read.
FORMAT: Final = "socialframe-study"
VERSION: Final = 1
MANIFEST: Final = "study.json"
#: The kinds of file a refresh writes, each a folder Hive-partitioned by ``refresh``.
KINDS: Final = ("comments", "ads", "changes", "runs", "items")


@dataclass
class Manifest:
    """What ``study.json`` holds.

    Attributes:
        watched: One dict per watched item (``kind``, ``item``, ``filters``, ``added_at``).
        refreshes: One dict per committed refresh, oldest first: ``id``, ``at`` and
            ``files`` (kind -> path relative to the folder).
        state: Per watched item (by its key), what the next refresh needs.
        pending: The refresh under way (``id``, ``at``), if one started and did not
            finish: the next one reads the pages it paid for from the HTTP cache,
            and the next write removes the files it left.
        checks: Per file (its path relative to the folder), what the study wrote:
            ``size`` and ``sha256`` (see :mod:`.integrity`). A file written before
            these were kept has none.
    """

    watched: list[dict[str, Any]] = field(default_factory=list)
    refreshes: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)

    def files(self, kind: str) -> list[str]:
        """The files of ``kind`` of every committed refresh, oldest first."""
        return [r["files"][kind] for r in self.refreshes if kind in r.get("files", {})]


class Dataset:
    """One study folder of the format before Delta Lake (see the module's docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"a study is a folder path, not {type(path).__name__}")
        self.path = Path(path).expanduser()
        if self.path.exists() and not self.path.is_dir():
            raise StudyError(f"{self.path} is a file, not a study folder")

    # -- the manifest ----------------------------------------------------------------------

    def exists(self) -> bool:
        return (self.path / MANIFEST).is_file()

    def read(self) -> Manifest:
        """The manifest; an empty one where the folder is not a study yet.

        Raises:
            StudyError: the folder holds files but no manifest (not a study), or the
                manifest is unreadable or of a newer format.
        """
        target = self.path / MANIFEST
        try:
            raw = self._manifest_bytes()
        except FileNotFoundError:
            if self.path.is_dir():
                found = [p for p in self.path.iterdir() if not _scaffolding(p.name)]
                if any(p.name in KINDS for p in found):
                    raise StudyError(
                        f"{self.path} holds a study's data but no {MANIFEST} (moved away, or a"
                        " partial copy): it is left as it is; put its study.json back"
                    ) from None
                if found:
                    raise StudyError(
                        f"{self.path} is not a study (it holds other files and no {MANIFEST});"
                        " give an empty or new folder"
                    ) from None
            return Manifest()
        except OSError as exc:
            raise StudyError(f"{target} cannot be read: {exc.strerror}") from None
        try:
            value = json.loads(raw)
            if value.get("format") != FORMAT:
                raise ValueError("not a study manifest")
            version = value.get("version")
        except (ValueError, AttributeError, RecursionError):
            raise StudyError(f"{target} is not a study manifest (it cannot be read)") from None
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise StudyError(f"{target} is not a study manifest (version {version!r:.20})")
        if version > VERSION:
            raise StudyError(
                f"{self.path} was written by a newer socialframe (study format {version!r};"
                f" this one reads up to {VERSION}): upgrade socialframe to read it"
            )
        problem = _manifest_problem(value)
        if problem:
            raise StudyError(f"{target} is not a study manifest as written ({problem})")
        return Manifest(
            watched=list(value["watched"]),
            refreshes=list(value["refreshes"]),
            state=dict(value["state"]),
            pending=value.get("pending"),
            checks=dict(value.get("checks") or {}),
        )

    def _manifest_bytes(self) -> bytes:
        """``study.json``'s bytes, never read through a link."""
        with folder.opened(self.path) as root:
            fd = folder.open_file(self.path, root, MANIFEST)
            with os.fdopen(fd, "rb") as source:
                return source.read()


#: Where a refresh writes its files before each partition is moved into place.
STAGING: Final = ".staging"
_PART = re.compile(r"(comments|ads|changes|runs|items)/refresh=[0-9TZ-]{1,40}/part-0\.parquet")
_REFRESH_ID = re.compile(r"[0-9]{8}T[0-9]{9}Z(-[0-9]{6})?")
#: A manifest on its way in: ``tempfile.mkstemp``'s names, with a suffix of the study's
#: own (``.study.json.original`` is a name a user may give a copy of their own).
_ON_ITS_WAY: Final = ".socialframe-partial"
_MANIFEST_TEMPORARY = re.compile(
    rf"\.{re.escape(MANIFEST)}\.[a-z0-9_]{{8}}{re.escape(_ON_ITS_WAY)}"
)


def _manifest_problem(value: Any) -> str | None:
    """What is wrong with a manifest's fields, or None: nothing in it is used unchecked
    (a file it names must be one of the study's own partitions, never any path)."""
    from .watch import checked

    watched, refreshes = value.get("watched"), value.get("refreshes")
    if not isinstance(watched, list) or not isinstance(refreshes, list):
        return "watched and refreshes must be lists"
    if not isinstance(value.get("state"), dict):
        return "state must be an object"
    for item in watched:
        problem = checked(item) or _time_problem(item.get("added_at"), "added_at")
        if problem:
            return problem
    for key, state in value["state"].items():
        problem = _state_problem(state)
        if problem:
            return f"the state of {key!r:.60}: {problem}"
    ids: set[str] = set()
    for entry in refreshes:
        if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
            return "a refresh without its files"
        if not isinstance(entry.get("id"), str) or not _REFRESH_ID.fullmatch(entry["id"]):
            return f"a refresh id {entry.get('id')!r:.40}"
        if entry["id"] in ids:  # its files would be read, and its changes counted, twice
            return f"refresh {entry['id']} named twice"
        ids.add(entry["id"])
        problem = _time_problem(entry.get("at"), "a refresh's at")
        if problem:
            return problem
        for kind, path in entry["files"].items():
            if (
                kind not in KINDS
                or not isinstance(path, str)
                or not _PART.fullmatch(path)
                or not path.startswith(f"{kind}/refresh={entry['id']}/")
            ):
                return f"a file that is not one of the study's partitions: {path!r:.80}"
    checks = value.get("checks", {})
    if not isinstance(checks, dict):
        return "checks must be an object"
    for path, record in checks.items():
        problem = integrity.record_problem(record)
        if problem:
            return f"the record of {path!r:.80}: {problem}"
    pending = value.get("pending")
    if pending is not None and not (
        isinstance(pending, dict)
        and isinstance(pending.get("id"), str)
        and _REFRESH_ID.fullmatch(pending["id"])  # (its files' names are made of it)
        and isinstance(pending.get("at"), str)
    ):
        return "pending must be null or an object with a refresh id and at"
    return None if pending is None else _time_problem(pending["at"], "pending's at")


def _time_problem(value: object, name: str) -> str | None:
    """What is wrong with a time read from a manifest (ISO text, with its zone), or None."""
    try:
        if isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None:
            return None
    except ValueError:
        pass
    return f"{name} {value!r:.40} is not an ISO time with its zone"


def _state_problem(state: object) -> str | None:
    """What is wrong with one watched item's state (what the next refresh reads), or None."""
    if not isinstance(state, dict):
        return "not an object"
    walked, total = state.get("walked"), state.get("total")
    if walked is not None and not (isinstance(walked, str) and _REFRESH_ID.fullmatch(walked)):
        return f"walked {walked!r:.40} is not a refresh id"
    if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
        return f"total {total!r:.40} is not a count"
    if not isinstance(state.get("complete", False), bool):
        return "complete is not true or false"
    for name in ("resume_after", "floor"):
        if state.get(name) is not None:
            problem = _time_problem(state[name], name)
            if problem:
                return problem
    if "checked" in state:
        try:
            date.fromisoformat(state["checked"])
        except (TypeError, ValueError):
            return f"checked {state['checked']!r:.40} is not a day"
    return None


def _scaffolding(name: str) -> bool:
    """What a study folder holds besides data: its lock, staging, a manifest on its way."""
    return name in (".lock", STAGING) or name.startswith(f".{MANIFEST}.")
