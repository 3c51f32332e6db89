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

from . import _accessor as _accessor  # registers df.social
from ._api import configure, post_comments, search_ads
from ._client import AdFilters, Client
from ._clock import Clock
from ._display.notebook import register as _register
from ._display.reading import read_frame
from ._display.tables import show
from ._errors import (
    APIError,
    AuthError,
    BadRequestError,
    BudgetExceededError,
    CacheWarning,
    ConfigError,
    FetchError,
    NetworkError,
    NotCachedError,
    NotifyWarning,
    RateLimitError,
    SchemaError,
    SchemaWarning,
    ServerError,
    SettingError,
    SkippedWarning,
    SocialFrameError,
    StudyError,
)
from ._frames import ads_frame, comments_frame
from ._ledger import Ledger
from ._schema import AD_COLUMNS, COMMENT_COLUMNS

if TYPE_CHECKING:
    from ._http.transport import MockTransport
    from ._study.study import Study
    from .sandbox import Sandbox

from ._version import __version__

_register()  # in a notebook, frames of ours show with our display rules

__all__ = [
    "AD_COLUMNS",
    "APIError",
    "AdFilters",
    "AuthError",
    "BadRequestError",
    "BudgetExceededError",
    "COMMENT_COLUMNS",
    "CacheWarning",
    "Client",
    "Clock",
    "ConfigError",
    "FetchError",
    "Ledger",
    "MockTransport",
    "NetworkError",
    "NotCachedError",
    "NotifyWarning",
    "RateLimitError",
    "Sandbox",
    "SchemaError",
    "SchemaWarning",
    "ServerError",
    "SettingError",
    "SkippedWarning",
    "SocialFrameError",
    "Study",
    "StudyError",
    "__version__",
    "ads_frame",
    "comments_frame",
    "configure",
    "post_comments",
    "read_frame",
    "search_ads",
    "show",
]


def __getattr__(name: str) -> object:
    # Loaded on first use, keeping `import socialframe` cheap: the sandbox is an HTTP
    # server, the widgets need ipywidgets when a widget is built.
    if name == "MockTransport":  # a requests adapter: requests loads with it
        from ._http.transport import MockTransport

        return MockTransport
    if name == "Study":  # DuckDB and pyarrow load when a study is read or written
        from ._study.study import Study

        return Study
    if name == "Sandbox":
        from .sandbox import Sandbox

        return Sandbox
    if name in ("sandbox", "widgets"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'socialframe' has no attribute {name!r}")
