"""Teaching socialframe an operation of the service: the records it knows them by.

socialframe ships the service's two operations (a post's comments and an ad search).
The provider sells more (a company's posts, for one), and each is one
:class:`Operation` record and one :func:`register` call away: the record says the
path, how the parameters are checked, the shape of a page, the pager and the frame
builder, which parameters page, what a page says of the pages and rows left, and how
reports name an item. Every layer (the client, the cache and its
report, the warm read, the workers, the ledger and the budget) asks the record, so
nothing else changes. ``tests/operations/company_posts.py`` is a whole one, fetched
end to end by ``tests/operations/test_registry.py``.

A record's pager gets ``fetch(params) -> Fetched`` and yields :class:`Page` values;
it calls :func:`checked` on each body before it trusts it::

    import socialframe as sf
    from socialframe.operations import Operation, register

    register(Operation(name="company_posts", path="get-company-posts", ...))
    with sf.Client() as client:
        frame = client.fetch("company_posts", ["acme"])

Example:
    >>> from socialframe import operations
    >>> operations.names()
    ('comments', 'ads')
    >>> operations.get("ads").path
    'fetch_search_ads_pages'
    >>> operations.problem("comments", {"data": "?"})
    "'data' is a str, not a list"
"""

from __future__ import annotations

from ._frames.shape import checked, problem
from ._models import Fetched, Page
from ._operations import get, names, operation_of, register, unregister
from ._operations.base import Operation

__all__ = [
    "Fetched",
    "Operation",
    "Page",
    "checked",
    "get",
    "names",
    "operation_of",
    "problem",
    "register",
    "unregister",
]
