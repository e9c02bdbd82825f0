"""Server limits and settings (all configurable from the command line, see ``server.py``)."""

from __future__ import annotations

import os
import pathlib
import sys
from dataclasses import dataclass, field

__all__ = ["Limits", "ServerConfig", "default_db_path"]


@dataclass
class Limits:
    """What one server accepts.

    Attributes:
        max_iterations: largest search budget in iterations per request.
        max_seconds: largest search budget in wall-clock seconds; also the cap every search
            runs under (a search given only iterations still stops after this long).
        workers: search processes (0: searches run on threads in the server process, for
            debugging; default: the number of cores).
        max_queue: searches that may wait for a worker; beyond that ``RESOURCE_EXHAUSTED``.
        max_games: hosted games kept at once (``CreateGame`` beyond: ``RESOURCE_EXHAUSTED``).
        idle_expiry_s: a hosted game untouched this long is dropped (and not reloaded).
        max_message_bytes: largest gRPC message received or sent.
        default_kind: the hint bot when a request names none.
        default_iterations: the budget of a search bot given no budget.
        server_only_params: game parameters clients may not set (``data_path`` names a
            server file; ``simultaneous`` is the joint-move view for search, which hosted
            seats cannot play one at a time).
        report_every: default iterations between partial ``Analyze`` messages.
    """

    max_iterations: int = 200_000
    max_seconds: float = 30.0
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    max_queue: int = 32
    max_games: int = 1000
    idle_expiry_s: float = 7 * 24 * 3600.0
    max_message_bytes: int = 4 * 1024 * 1024
    default_kind: str = "ismcts"
    default_iterations: int = 1000
    server_only_params: tuple[str, ...] = ("data_path", "simultaneous")
    report_every: int = 100


@dataclass
class ServerConfig:
    """Where and how the server listens.

    Attributes:
        host: bind address (default loopback only; ``0.0.0.0`` for all interfaces).
        port: TCP port (0: any free port, see ``RatAIServer.port``).
        db: SQLite path of the event log, or ``:memory:``.
        tls_cert, tls_key: PEM files; both or neither (then plaintext).
        api_key: when set, every call but health checks needs metadata
            ``x-api-key: <key>`` (or ``authorization: Bearer <key>``).
        grpc_threads: threads serving RPCs (streams hold one each while open).
        limits: see :class:`Limits`.
    """

    host: str = "127.0.0.1"
    port: int = 50051
    db: str = ""
    tls_cert: str | None = None
    tls_key: str | None = None
    api_key: str | None = None
    grpc_threads: int = 32
    limits: Limits = field(default_factory=Limits)


def default_db_path() -> str:
    """``<user data dir>/ratai/games.sqlite3`` (XDG on Linux, the platform's dir elsewhere)."""
    if sys.platform == "win32":
        base = pathlib.Path(os.environ.get("LOCALAPPDATA", pathlib.Path.home() / "AppData/Local"))
    elif sys.platform == "darwin":
        base = pathlib.Path.home() / "Library" / "Application Support"
    else:
        base = pathlib.Path(os.environ.get("XDG_DATA_HOME", pathlib.Path.home() / ".local/share"))
    return str(base / "ratai" / "games.sqlite3")
