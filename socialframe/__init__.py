"""socialframe: paid social data into typed pandas DataFrames, cached and budgeted.

Example:
    >>> import socialframe as sf
    >>> with sf.Sandbox() as sandbox, sandbox.client(cache=False) as client:
    ...     ads = client.search_ads("running shoes", max_ads=60)
    >>> len(ads), client.ledger.paid_calls
    (60, 3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import accessor as accessor  # registers df.social
from ._default import configure, post_comments, search_ads
from .client import Client
from .errors import (
    APIError,
    AuthError,
    BadRequestError,
    BudgetExceededError,
    ConfigError,
    NetworkError,
    NotCachedError,
    RateLimitError,
    SchemaError,
    ServerError,
    SocialFrameError,
)
from .frames import ads_frame, comments_frame
from .ledger import Ledger

if TYPE_CHECKING:
    from .sandbox import Sandbox

from ._version import __version__

__all__ = [
    "APIError",
    "AuthError",
    "BadRequestError",
    "BudgetExceededError",
    "Client",
    "ConfigError",
    "Ledger",
    "NetworkError",
    "NotCachedError",
    "RateLimitError",
    "Sandbox",
    "SchemaError",
    "ServerError",
    "SocialFrameError",
    "__version__",
    "ads_frame",
    "comments_frame",
    "configure",
    "post_comments",
    "search_ads",
]


def __getattr__(name: str) -> object:
    # The sandbox (an HTTP server) is loaded on first use, keeping `import socialframe` cheap.
    if name == "Sandbox":
        from .sandbox import Sandbox

        return Sandbox
    raise AttributeError(f"module 'socialframe' has no attribute {name!r}")
