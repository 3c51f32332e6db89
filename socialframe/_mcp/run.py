"""Starting the server: its clients, its sandbox (``--sandbox``), its transport.

``socialframe mcp`` calls :func:`serve`; tests build the same :class:`~.server.Setup`
with :func:`setup` and connect to :func:`~.server.build`'s server in memory.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cap import Cap

if TYPE_CHECKING:
    from .._cache.setting import CacheSetting
    from .server import Setup

#: ``--max-cost`` under ``--sandbox`` when none is given: the sandbox's money is play money.
SANDBOX_MAX_COST = 1.00


def setup(
    *,
    api_key: str | None,
    base_url: str | None = None,
    cache: CacheSetting = True,
    max_cost: float | None,
    max_call_cost: float | None = None,
    confirm_over: float | None = None,
    studies: Mapping[str, Path] | None = None,
    where: str = "the service",
    workers: int = 4,
    out: Path | None = None,
) -> Setup:
    """The clients and the cap of a server.

    Args:
        api_key: The key (``None``: ``SOCIALFRAME_API_KEY``).
        base_url: The service's URL (``None``: ``SOCIALFRAME_BASE_URL``...).
        cache: The cache both clients share (the estimates read it offline).
        max_cost: ``--max-cost``; ``max_call_cost``, ``confirm_over``: the others.
        studies: The studies the study tools read, by name.
        where: What the server talks to, for its instructions.
        workers: Unused by the tools (one item at a time); the client's setting.
        out: ``--out``: where a result's whole frame is also written (checked now).

    Returns:
        A :class:`~.server.Setup`.

    Raises:
        ConfigError: no key or no base URL (the library's message).
        ValueError: a setting outside what is allowed.
    """
    from .. import _config as config
    from .._client import Client
    from .._config import Hidden
    from .._display import files
    from .server import Setup

    # The server's own client is unbudgeted here: its budget is the cap's ledger (every
    # page is counted in a ledger capped at the call's held worst case).
    client = Client(api_key, base_url=base_url, cache=cache, progress=False, workers=workers)
    # the key the client sends, resolved as the client resolved it (argument, else the
    # environment): the secret every result is scrubbed of (a Secret: its repr is ***)
    key = config.resolve(
        Hidden(api_key), base_url=base_url, auth_header=Hidden(None), headers=Hidden(None)
    ).api_key
    offline = Client(base_url=base_url, cache=cache, offline=True, progress=False)
    if out is not None:  # (checked once the cache is made: never inside it)
        try:
            out = files.check_folder(out, guard=files.cache_guard(cache))
            out.mkdir(parents=True, exist_ok=True)
        except BaseException:
            client.close()
            offline.close()
            raise
    return Setup(
        client=client,
        offline=offline,
        cap=Cap(max_cost, max_call_cost=max_call_cost, confirm_over=confirm_over),
        studies=dict(studies or {}),
        secrets=() if key is None else (key,),
        where=where,
        out=out,
        cache=cache,
    )


def loopback(host: str, *, allow_remote: bool) -> str:
    """``host``, refused unless it is a loopback address (or ``allow_remote``).

    Raises:
        ValueError: a host that is not loopback, without ``allow_remote``.
    """
    name = host.strip("[]")
    if name == "localhost":
        return name
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        address = None
    if (address is None or not address.is_loopback) and not allow_remote:
        raise ValueError(
            f"--http {host!r} is not a loopback address: anyone who can reach it could spend"
            " this server's budget. Use 127.0.0.1, or add --allow-remote (then put it behind"
            " your own authentication)"
        )
    return name


@contextlib.contextmanager
def sandboxed() -> Iterator[Any]:
    """A sandbox served on a free loopback port for the server's life."""
    from ..sandbox import Sandbox

    with Sandbox() as sandbox:
        yield sandbox


def serve(server: Any, *, http: tuple[str, int] | None = None) -> None:
    """Run ``server`` on stdio, or on streamable HTTP at ``http``."""
    if http is None:
        server.run()
        return
    host, port = http
    options: dict[str, Any] = {}
    guard = _rebinding_guard(host)
    if guard is not None:
        options["transport_security"] = guard
    server.run("streamable-http", host=host, port=port, **options)


def _rebinding_guard(host: str) -> Any:
    """The Host and Origin checks (against DNS rebinding: a web page whose name now
    points here) for a loopback address the SDK does not guard by itself: it guards
    127.0.0.1, localhost and ::1 only, and every loopback address is served without
    --allow-remote. ``None``: the SDK's own (or, past --allow-remote, the user's)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # (localhost: the SDK's; a name past --allow-remote: the user's)
    if not address.is_loopback:
        return None
    from mcp.server.transport_security import TransportSecuritySettings

    shown = f"[{address.compressed}]" if address.version == 6 else address.compressed
    names = [shown, "127.0.0.1", "localhost", "[::1]"]
    if address.version == 6 and host != address.compressed:
        names.append(f"[{host}]")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )
