"""ratai.service: the gRPC service (``ratai.v1.RatAI``) and its domain logic.

Layers: :mod:`~ratai.service.catalog` (games, params, bot specs), :mod:`~.positions` (client
positions for stateless hints), :mod:`~.pool` (searches in worker processes), :mod:`~.store`
(SQLite event log), :mod:`~.sessions` (hosted games) -- plain Python the CLI can reuse --
and the thin gRPC layer :mod:`~.servicer` / :mod:`~.server`.

>>> from ratai.service import serve
>>> serve(["--port", "50051", "--db", ":memory:"])   # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

__all__ = ["serve", "RatAIServer", "ServerConfig", "Limits"]


def serve(argv: Any = None) -> int:
    """``ratai serve`` / ``python server.py``: run the server (see ``server.parse_args``)."""
    from .server import serve as _serve

    return _serve(argv)


def __getattr__(name: str) -> Any:
    if name == "RatAIServer":
        from .server import RatAIServer

        return RatAIServer
    if name in ("ServerConfig", "Limits"):
        from . import config

        return getattr(config, name)
    raise AttributeError(name)
