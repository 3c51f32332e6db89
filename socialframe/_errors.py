"""The exceptions socialframe raises, all under one base.

::

    SocialFrameError
      ├─ ConfigError                missing key / base URL; raised before any request
      │    └─ SettingError          a setting's value is not allowed (a ValueError too)
      ├─ StudyError                 a study's folder cannot be used (not a study, newer,
      │                             read-only, full, busy with another refresh)
      └─ FetchError                 a fetch failed; .partial: the frame fetched before
           ├─ NotCachedError        offline and the page is not cached; nothing sent
           ├─ BudgetExceededError   the next paid call would pass max_cost
           ├─ SchemaError           a 200 body that is not the documented shape
           ├─ NetworkError          the service (or the team cache) could not be reached
           └─ APIError              .status_code .message .operation
                ├─ BadRequestError  400
                ├─ AuthError        401
                ├─ RateLimitError   429, .retry_after
                └─ ServerError      5xx, and HTTP 200 bodies with success: false

Every error raised by a fetch is a :class:`FetchError` carrying ``.partial``:
the frame of the pages fetched before it (those pages are in the cache too, so a
re-run pays only for the rest). The client builds the error with it; an error
raised outside a fetch (``sf.comments_frame`` on a bad body) has ``None``.
Messages never contain the API key.

Bad arguments (an empty post, a malformed date, ...) are plain ``ValueError`` /
``TypeError``, raised before any request.

Two warnings: :class:`SchemaWarning`, when a value the service sent does not fit
its column (a date beyond the calendar, a count beyond 64 bits): the cell is
missing, the frame is still returned; :class:`CacheWarning`, when paid pages
could not be stored (disk full, read-only file, a lock held too long);
:class:`SkippedWarning`, when ``on_error="skip"`` left failed items out;
:class:`NotifyWarning`, when a study refresh's digest could not be sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self, TypeVar

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "APIError",
    "AuthError",
    "BadRequestError",
    "BudgetExceededError",
    "CacheWarning",
    "ConfigError",
    "FetchError",
    "NetworkError",
    "NotCachedError",
    "RateLimitError",
    "SchemaError",
    "SchemaWarning",
    "ServerError",
    "SettingError",
    "SkippedWarning",
    "SocialFrameError",
    "StudyError",
]


class SocialFrameError(Exception):
    """Base of every error socialframe raises."""


class ConfigError(SocialFrameError):
    """The client lacks an API key or a base URL, or a setting is unusable.

    Raised when the client is built, before any request.
    """


class StudyError(SocialFrameError):
    """A study's folder cannot be used as asked: it is not a study, it was written by a
    newer socialframe, it cannot be written (read-only, disk full), another refresh
    holds it, a file of it is damaged or not its own, or a link inside it is in the
    way (the message names the file). Nothing the study already held is lost."""


class SettingError(ConfigError, ValueError):
    """A setting with a value it cannot have (a ``ConfigError`` and a ``ValueError``).

    Raised when the client is built, before any request; the message names the
    setting and what is allowed, never a secret's value.
    """


class FetchError(SocialFrameError):
    """A fetch failed part-way (or at its first call).

    Args:
        message: What happened.
        partial: The frame fetched before the failure, if any.
    """

    def __init__(self, message: str, *, partial: pd.DataFrame | None = None) -> None:
        super().__init__(message)
        self._partial = partial

    @property
    def partial(self) -> pd.DataFrame | None:
        """The frame of the pages fetched before the error (``None`` outside a fetch)."""
        return self._partial

    def with_partial(self, partial: pd.DataFrame | None) -> Self:
        """This error with ``partial`` as the frame fetched so far (a new error).

        The client raises the new one, with the original traceback, once it
        knows what the fetch had collected; the original is left as it was.
        """
        new = _rebuilt(type(self), self.args, self.__dict__)
        new._partial = partial
        return new

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle and copy rebuild the error from its state, not by calling __init__
        # again with the formatted message (subclasses take other arguments).
        # A process pool returning an error needs this.
        return (_rebuilt, (type(self), self.args, self.__dict__))


def _rebuilt(cls: type[_E], args: tuple[object, ...], state: dict[str, object]) -> _E:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


_E = TypeVar("_E", bound=FetchError)


class NotCachedError(FetchError):
    """Offline mode and the page is not in the cache. Nothing was sent."""


class BudgetExceededError(FetchError):
    """The next paid call would take the spend over ``max_cost``; it was not sent.

    Attributes:
        partial: The frame fetched so far (possibly empty).
        max_cost: The budget in USD.
        spent_usd: What the client had spent when it refused.
    """

    def __init__(
        self,
        message: str,
        *,
        max_cost: float,
        spent_usd: float,
        partial: pd.DataFrame | None = None,
    ) -> None:
        super().__init__(message, partial=partial)
        self.max_cost = max_cost
        self.spent_usd = spent_usd


class SchemaError(FetchError):
    """An HTTP 200 body that is not the documented shape."""


class SchemaWarning(UserWarning):
    """Values the service sent did not fit their columns; those cells are missing.

    The message names each column and how many values it lost. In an ads frame the
    value as sent is kept in a ``raw_<column>`` column.
    """


class CacheWarning(UserWarning):
    """Paid pages could not be stored in the cache (disk full, read-only, locked).

    The fetch still returns its frame; a re-run would pay for those pages again.
    The message names the cache file, how many pages and why.
    """


class NotifyWarning(UserWarning):
    """A study refresh's digest could not be sent to its webhook (``notify=``).

    The refresh and its data are kept; the message names the webhook's host, never
    its path or query.
    """


class SkippedWarning(UserWarning):
    """Items of a many-item fetch with ``on_error="skip"`` failed and were left out.

    The frame's ``attrs["failed"]`` lists each one (item, error type, message).
    """


class NetworkError(FetchError):
    """The service, or the team cache's Redis, could not be reached (refused, DNS,
    timeout), after the retries, or a body broke (cut short, or over the size cap).

    Args:
        message: What happened.
        partial: The frame fetched before the failure, if any.
        retryable: Whether trying again could help (not for a body over the cap:
            the same request gets the same body).
    """

    def __init__(
        self, message: str, *, partial: pd.DataFrame | None = None, retryable: bool = True
    ) -> None:
        super().__init__(message, partial=partial)
        self.retryable = retryable


class APIError(FetchError):
    """The service answered with an error.

    Attributes:
        status_code: The HTTP status (200 for a ``success: false`` body).
        message: The service's own message, if it sent one.
        operation: ``"ads"`` or ``"comments"``.
    """

    def __init__(
        self,
        status_code: int,
        message: str,
        *,
        operation: str = "",
        partial: pd.DataFrame | None = None,
    ) -> None:
        where = f" ({operation})" if operation else ""
        super().__init__(f"HTTP {status_code}{where}: {message or 'no message'}", partial=partial)
        self.status_code = status_code
        self.message = message
        self.operation = operation


class BadRequestError(APIError):
    """HTTP 400: the service rejected the parameters. Never retried."""


class AuthError(APIError):
    """HTTP 401: the API key was refused. Never retried."""


class RateLimitError(APIError):
    """HTTP 429, still failing after the retries.

    Attributes:
        retry_after: Seconds the service asked to wait, if it said.
    """

    def __init__(
        self,
        status_code: int,
        message: str,
        *,
        operation: str = "",
        retry_after: float | None = None,
        partial: pd.DataFrame | None = None,
    ) -> None:
        super().__init__(status_code, message, operation=operation, partial=partial)
        self.retry_after = retry_after


class ServerError(APIError):
    """HTTP 5xx, or an HTTP 200 body with ``success: false``, after the retries."""
