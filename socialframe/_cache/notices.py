"""What a cache has to say after a fetch: entries it could not read, pages it could not
store. The client turns each into one :class:`~socialframe.CacheWarning`."""

from __future__ import annotations

from typing import Any

from .. import _words as words


def unreadable_message(count: int, where: object, then: str = "") -> str:
    """The :class:`~socialframe.CacheWarning` text for ``count`` entries of a cache that
    are not pages socialframe can read; ``then`` says what became of them."""
    return (
        f"{words.count(count, 'entry')} of the cache at {where} could not be read as a page"
        " (junk, another program's data, or a page pickled by an earlier version, which is"
        " never read from a team cache) and counted as not cached"
        + (f": {then}" if then else "; a fetch pays for such a page again and stores it anew.")
    )


def notices(backend: Any) -> list[str]:
    """What ``backend`` has to say since it was last asked: entries it could not read
    and paid pages it could not store (its ``failures``; nothing for a backend of the
    user's, which counts none), and start counting again."""
    failures = getattr(backend, "failures", None)
    if failures is None:
        return []
    said = []
    count, reason = failures.take()
    team = getattr(backend, "where", None)
    where = team or backend.db_path
    unreadable = failures.take_unreadable()
    if unreadable:
        said.append(unreadable_message(unreadable, where))
    if count:
        fix = (
            "Check the team cache's Redis (its memory, its permissions), or pass cache=True"
            " for the local cache."
            if team
            else "Free some space or fix the file's permissions, or pass another cache= path."
        )
        said.append(
            f"{words.count(count, 'paid page')} could not be stored in the cache at"
            f" {where}: {reason}. They are in what this fetch returns (or in its error's"
            f" .partial); a re-run would pay for them again. {fix}"
        )
    return said
