"""The exceptions socialframe raises, all under one base.

::

    SocialFrameError
      ├─ ConfigError            missing key / base URL; raised before any request
      ├─ NotCachedError         offline and the page is not cached; nothing sent
      ├─ BudgetExceededError    the next paid call would pass max_cost; .partial
      ├─ SchemaError            a 200 body that is not the documented shape
      ├─ NetworkError           the service could not be reached, after the retries
      └─ APIError               .status_code .message .operation
           ├─ BadRequestError   400
           ├─ AuthError         401
           ├─ RateLimitError    429, .retry_after
           └─ ServerError       5xx, and HTTP 200 bodies with success: false

Every error raised part-way through a multi-page fetch carries ``.partial``: the
frame of the pages fetched before it (those pages are in the cache too, so a
re-run pays only for the rest). Messages never contain the API key.

Bad arguments (an empty post, a malformed date, ...) are plain ``ValueError`` /
``TypeError``, raised before any request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "APIError",
    "AuthError",
    "BadRequestError",
    "BudgetExceededError",
    "ConfigError",
    "NetworkError",
    "NotCachedError",
    "RateLimitError",
    "SchemaError",
    "ServerError",
    "SocialFrameError",
]


class SocialFrameError(Exception):
    """Base of every error socialframe raises.

    Attributes:
        partial: The frame fetched before the error, when it stopped a multi-page
            fetch part-way; ``None`` otherwise.
    """

    partial: pd.DataFrame | None = None


class ConfigError(SocialFrameError):
    """The client lacks an API key or a base URL. Raised before any request."""


class NotCachedError(SocialFrameError):
    """Offline mode and the page is not in the cache. Nothing was sent."""


class BudgetExceededError(SocialFrameError):
    """The next paid call would take the spend over ``max_cost``; it was not sent.

    Attributes:
        partial: The frame fetched so far (possibly empty, never ``None``).
        max_cost: The budget in USD.
        spent_usd: What the client had spent when it refused.
    """

    def __init__(self, message: str, *, max_cost: float, spent_usd: float) -> None:
        super().__init__(message)
        self.max_cost = max_cost
        self.spent_usd = spent_usd


class SchemaError(SocialFrameError):
    """An HTTP 200 body that is not the documented shape."""


class NetworkError(SocialFrameError):
    """The service could not be reached (refused, DNS, timeout), after the retries."""


class APIError(SocialFrameError):
    """The service answered with an error.

    Attributes:
        status_code: The HTTP status (200 for a ``success: false`` body).
        message: The service's own message, if it sent one.
        operation: ``"ads"`` or ``"comments"``.
    """

    def __init__(self, status_code: int, message: str, *, operation: str = "") -> None:
        self.status_code = status_code
        self.message = message
        self.operation = operation
        where = f" ({operation})" if operation else ""
        super().__init__(f"HTTP {status_code}{where}: {message or 'no message'}")


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
    ) -> None:
        super().__init__(status_code, message, operation=operation)
        self.retry_after = retry_after


class ServerError(APIError):
    """HTTP 5xx, or an HTTP 200 body with ``success: false``, after the retries."""
