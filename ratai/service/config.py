"""Server limits and settings, and the ``ratai serve`` / ``python server.py`` options.

The option table (:func:`build_parser`) and its checks (:func:`parse_args`,
:func:`check_config`) live here so every front end (``server.py``, ``ratai serve``) only
delegates: a bad option is one line naming it and what is allowed, exit code 2.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import pathlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Limits", "ServerConfig", "default_db_path", "build_parser", "parse_args",
           "check_config", "ConfigError", "is_loopback"]


#: The most search processes one server starts (``--workers``; also ``ratai demo``'s).
MAX_WORKERS = 256


@dataclass
class Limits:
    """What one server accepts.

    Attributes:
        max_iterations: largest search budget in iterations per request.
        max_seconds: largest search budget in wall-clock seconds; also the cap every search
            runs under (a search given only iterations still stops after this long).
        workers: search processes, 0..``MAX_WORKERS`` (0: searches run on threads in the
            server process; default: the number of cores, at most ``MAX_WORKERS``).
        max_queue: searches that may wait for a worker; beyond that ``RESOURCE_EXHAUSTED``
            with a retry-after hint.
        max_queue_per_client: of those places, the most one client (seat token or peer
            address) may hold (0: ``max(1, max_queue // 4)``).
        max_queue_per_peer: of those places, the most one peer address may hold over all
            its seat tokens (0: ``max(max_queue_per_client, max_queue // 2)``).
        max_running_per_peer: long searches (allowed over 1 s, ``pool.LONG_SEARCH_S``,
            unless of kind ``random`` or of an iteration budget measured to take at most
            half of it: ``pool.SearchPool._long``) one peer address (its
            position hints, its seat tokens' hints and the bot seats of the games it
            created) may run at once (0: every worker but one, at least 1), so one peer's
            long searches cannot hold every worker.
        max_games_per_peer: unfinished hosted games one peer address may have created
            (0: ``max(1, max_games // 4)``).
        max_games: hosted games kept at once (``CreateGame`` beyond: ``RESOURCE_EXHAUSTED``).
        max_watch_per_peer: open ``WatchGame`` streams per peer address.
        max_watch: open ``WatchGame`` streams per server.
        idle_expiry_s: a hosted game untouched this long is dropped (and not reloaded).
        max_message_bytes: largest gRPC message received or sent.
        default_kind: the hint bot when a request names none.
        default_iterations: the budget of a search bot given no budget.
        server_only_params: game parameters clients may not set (``data_path`` names a
            server file; ``simultaneous`` is the joint-move view for search, which hosted
            seats cannot play one at a time).
        report_every: default iterations between partial ``Analyze`` messages.
        deadline_margin_s: seconds kept free before a client's deadline for the answer to
            travel back (at most 20% of the time left).
        min_report_interval_s: least seconds between two partial ``Analyze`` messages
            (whatever the client asks; partials in between are coalesced, the newest wins).
        ponder: hosted ``mcts``/``ismcts``/``az`` bot seats keep their tree between moves and
            ponder on it while the other seats think (off by default: answers then depend
            on timing). Policy: a search worker ponders only while it has no job — every
            job it receives first stops its ponder search (a nogil flag, seen within one
            iteration) — and the pool has at most one worker per core, so a ponder search
            never holds a worker or a core another request needs. Needs process workers
            (``workers >= 1``, at most the number of cores).
        ponder_seconds: the longest one ponder search runs (seconds; also capped by
            ``max_seconds``); the bot's ``max_memory_mb`` bounds its tree.
    """

    max_iterations: int = 200_000
    max_seconds: float = 30.0
    workers: int = field(default_factory=lambda: min(os.cpu_count() or 1, MAX_WORKERS))
    max_queue: int = 32
    max_queue_per_client: int = 0
    max_queue_per_peer: int = 0
    max_running_per_peer: int = 0
    max_games: int = 1000
    max_games_per_peer: int = 0
    max_watch_per_peer: int = 512
    max_watch: int = 4096
    idle_expiry_s: float = 7 * 24 * 3600.0
    max_message_bytes: int = 4 * 1024 * 1024
    default_kind: str = "ismcts"
    default_iterations: int = 1000
    server_only_params: tuple[str, ...] = ("data_path", "simultaneous")
    report_every: int = 1000
    deadline_margin_s: float = 0.1
    min_report_interval_s: float = 0.1
    ponder: bool = False
    ponder_seconds: float = 10.0


@dataclass
class ServerConfig:
    """Where and how the server listens.

    Attributes:
        host: bind address (default loopback only). A non-loopback address needs TLS or an
            API key, or ``insecure``.
        port: TCP port 0..65535 (0: any free port, see ``RatAIServer.port``).
        db: SQLite path of the event log, ``:memory:``, or empty for
            :func:`default_db_path` of the port.
        tls_cert, tls_key: PEM files; both or neither (then plaintext).
        api_key: when set, every call but health checks needs metadata
            ``x-api-key: <key>`` (or ``authorization: Bearer <key>``).
        insecure: allow a non-loopback bind without TLS and API key.
        limits: see :class:`Limits`.
    """

    host: str = "127.0.0.1"
    port: int = 50051
    db: str = ""
    tls_cert: str | None = None
    tls_key: str | None = None
    api_key: str | None = None
    insecure: bool = False
    grpc_threads: int = 0   # unused since the asyncio server (kept for old callers)
    limits: Limits = field(default_factory=Limits)
    log_level: str = "INFO"


class ConfigError(ValueError):
    """A bad server option (the message names it and what is allowed)."""


def default_db_path(port: int | None = None) -> str:
    """The default event log: ``<user data dir>/ratai/games-<port>.sqlite3``.

    One file per port, so two servers on different ports never share games (XDG data dir on
    Linux, the platform's application-data dir elsewhere). ``port`` None or 0 gives
    ``games.sqlite3``.
    """
    if sys.platform == "win32":
        base = pathlib.Path(os.environ.get("LOCALAPPDATA", pathlib.Path.home() / "AppData/Local"))
    elif sys.platform == "darwin":
        base = pathlib.Path.home() / "Library" / "Application Support"
    else:
        base = pathlib.Path(os.environ.get("XDG_DATA_HOME", pathlib.Path.home() / ".local/share"))
    name = f"games-{port}.sqlite3" if port else "games.sqlite3"
    return str(base / "ratai" / name)


def is_loopback(host: str) -> bool:
    """True for ``localhost``, 127.0.0.0/8 and ``::1``."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_tls(cert: str, key: str) -> None:
    """The certificate chain and key load (PEM, the key matching the certificate), read as
    gRPC will read them: checked here so a bad file is one line naming it, not gRPC's
    several log lines ending in a misleading "failed to bind"."""
    import ssl

    try:
        # no prompt for a passphrase (gRPC cannot use an encrypted key): a ConfigError
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key,
                                                               password=lambda: b"")
    except OSError as exc:   # ssl.SSLError is an OSError
        why = getattr(exc, "reason", None) or exc.strerror or exc
        raise ConfigError(f"--tls-cert {cert} / --tls-key {key}: cannot be loaded as a PEM "
                          f"certificate chain and its private key ({why})") from None


def _check_host(host: str) -> None:
    """``host`` is an IP address or a name that resolves (gRPC's bind error for one that is
    neither logs several lines)."""
    import socket

    try:
        socket.getaddrinfo(host.strip("[]"), None)
    except (OSError, UnicodeError) as exc:
        raise ConfigError(f"--host {host!r} is neither an IP address nor a name that "
                          f"resolves ({exc})") from None


def _int_in(lo: int, hi: int | None):
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer") from None
        if v < lo or (hi is not None and v > hi):
            allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise argparse.ArgumentTypeError(f"{v} is out of range (allowed {allowed})")
        return v
    return conv


def _seconds(lo_exclusive: float, hi: float):
    def conv(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number") from None
        if not math.isfinite(v) or not lo_exclusive < v <= hi:
            raise argparse.ArgumentTypeError(f"{text[:40]} is out of range (allowed seconds "
                                             f"> {lo_exclusive:g} and <= {hi:g})")
        return v
    return conv


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``ratai serve: error: ...``, exit code 2)."""

    def error(self, message: str):  # noqa: D401
        self.exit(2, f"{self.prog}: error: {message}\n")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default in its help, but no ``(default: None)`` after options whose
    help already says what their absence means (``--db``, ``--api-key``)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def build_parser(prog: str = "ratai serve") -> argparse.ArgumentParser:
    """The server's options (every one with help and its default)."""
    from ratai.bots import BOT_KINDS

    d = Limits()
    ap = _Parser(prog=prog, description="Run the ratai gRPC service (grpc.aio).",
                 formatter_class=_HelpFormatter)
    ap.add_argument("--host", default="127.0.0.1",
                    help="bind address; a non-loopback one needs --tls-cert/--tls-key or "
                         "--api-key, or --insecure")
    ap.add_argument("--port", type=_int_in(0, 65535), default=50051,
                    help="TCP port 0..65535 (0: any free port)")
    ap.add_argument("--db", default=None,
                    help=f"SQLite event log (default {default_db_path(50051)} for port 50051: "
                         f"one file per port; ':memory:' keeps nothing)")
    ap.add_argument("--workers", type=_int_in(0, MAX_WORKERS), default=d.workers,
                    help="search processes (0: threads in the server process)")
    ap.add_argument("--max-queue", type=_int_in(0, 100_000), default=d.max_queue,
                    help="searches that may wait for a worker before RESOURCE_EXHAUSTED")
    ap.add_argument("--max-queue-per-client", type=_int_in(0, 100_000),
                    default=d.max_queue_per_client,
                    help="queue places one client may hold (0: max(1, max-queue / 4))")
    ap.add_argument("--max-queue-per-peer", type=_int_in(0, 100_000),
                    default=d.max_queue_per_peer,
                    help="queue places one peer address may hold over all its seat tokens "
                         "(0: max(max-queue-per-client, max-queue / 2))")
    ap.add_argument("--max-running-per-peer", type=_int_in(0, 256),
                    default=d.max_running_per_peer,
                    help="long searches (time bound over 1 s, iterations not measured fast) "
                         "one peer address may run at once (0: every worker but one, at "
                         "least 1)")
    ap.add_argument("--max-iterations", type=_int_in(1, 10**9), default=d.max_iterations,
                    help="largest search budget in iterations")
    ap.add_argument("--max-seconds", type=_seconds(0, 3600), default=d.max_seconds,
                    help="largest search budget in seconds; every search stops by then")
    ap.add_argument("--max-games", type=_int_in(1, 10**7), default=d.max_games,
                    help="hosted games kept at once")
    ap.add_argument("--max-games-per-peer", type=_int_in(0, 10**7),
                    default=d.max_games_per_peer,
                    help="unfinished hosted games one peer address may have created (0: "
                         "max(1, max-games / 4))")
    ap.add_argument("--max-watch-per-peer", type=_int_in(1, 10**6),
                    default=d.max_watch_per_peer, help="open WatchGame streams per peer address")
    ap.add_argument("--max-watch", type=_int_in(1, 10**7), default=d.max_watch,
                    help="open WatchGame streams per server")
    ap.add_argument("--idle-expiry", type=_seconds(0, 10**9), default=d.idle_expiry_s,
                    help="seconds after which an untouched hosted game is dropped")
    ap.add_argument("--max-message-bytes", type=_int_in(1024, 1 << 30),
                    default=d.max_message_bytes, help="largest gRPC message in bytes")
    ap.add_argument("--default-kind", choices=sorted(BOT_KINDS), default=d.default_kind,
                    help="hint bot when a request names none")
    ap.add_argument("--default-iterations", type=_int_in(1, 10**9),
                    default=d.default_iterations, help="budget of a search bot given none")
    ap.add_argument("--ponder", action="store_true",
                    help="hosted mcts/ismcts/az bot seats keep their tree and ponder on it "
                         "between moves, only in a worker with no job (answers then depend "
                         "on timing); default off")
    ap.add_argument("--ponder-seconds", type=_seconds(0, 3600), default=d.ponder_seconds,
                    help="longest ponder search (s; capped by --max-seconds)")
    ap.add_argument("--tls-cert", default=None, help="PEM certificate (with --tls-key)")
    ap.add_argument("--tls-key", default=None, help="PEM private key (with --tls-cert)")
    ap.add_argument("--api-key", default=os.environ.get("RATAI_API_KEY"),
                    help="require this key in metadata x-api-key (default: $RATAI_API_KEY; "
                         "unset: no key)")
    ap.add_argument("--insecure", action="store_true",
                    help="allow a non-loopback --host without TLS and API key")
    ap.add_argument("--log-level", default="INFO",
                    choices=["DEBUG", "INFO", "WARNING", "ERROR"], type=str.upper,
                    help="log level of the JSON-lines log on stderr")
    return ap


def check_config(cfg: ServerConfig) -> ServerConfig:
    """Refuse unsafe or inconsistent settings.

    Raises:
        ConfigError: a port outside 0..65535, workers outside 0..``MAX_WORKERS``, only one
            of the TLS files or files that do not load, a host that is not an address, a
            ``max_iterations``/``max_seconds`` below the defaults they cap, or a non-loopback
            host without TLS or an API key (unless ``insecure``).
    """
    if isinstance(cfg.port, bool) or not isinstance(cfg.port, int) or not 0 <= cfg.port <= 65535:
        raise ConfigError(f"--port {cfg.port!r} is out of range (allowed 0..65535)")
    if bool(cfg.tls_cert) != bool(cfg.tls_key):
        raise ConfigError("give both --tls-cert and --tls-key, or neither")
    if cfg.tls_cert:
        _check_tls(cfg.tls_cert, cfg.tls_key)
    _check_host(cfg.host)
    lim = cfg.limits
    if isinstance(lim.workers, bool) or not isinstance(lim.workers, int) or \
            not 0 <= lim.workers <= MAX_WORKERS:
        raise ConfigError(f"--workers {lim.workers!r} is out of range (allowed "
                          f"0..{MAX_WORKERS})")
    if lim.default_iterations > lim.max_iterations:
        raise ConfigError(f"--default-iterations {lim.default_iterations} is over "
                          f"--max-iterations {lim.max_iterations}")
    if not (math.isfinite(lim.max_seconds) and lim.max_seconds > 0):
        raise ConfigError(f"--max-seconds {lim.max_seconds!r}: allowed seconds > 0")
    if lim.ponder:
        cores = os.cpu_count() or 1
        if not 1 <= lim.workers <= cores:
            raise ConfigError(f"--ponder needs process workers, at most one per core: "
                              f"--workers 1..{cores} (got {lim.workers}); a ponder search "
                              f"must never take a core another search needs")
        if not (math.isfinite(lim.ponder_seconds) and lim.ponder_seconds > 0):
            raise ConfigError(f"--ponder-seconds {lim.ponder_seconds!r}: allowed seconds > 0")
    if not is_loopback(cfg.host) and not (cfg.tls_cert or cfg.api_key) and not cfg.insecure:
        raise ConfigError(f"--host {cfg.host} is not a loopback address: give --tls-cert/"
                          f"--tls-key or --api-key (or --insecure to serve it in the clear "
                          f"to anyone)")
    return cfg


def parse_args(argv: Sequence[str] | None = None, prog: str = "ratai serve") -> ServerConfig:
    """Command-line options -> a checked :class:`ServerConfig` (exit code 2 on a bad one)."""
    ap = build_parser(prog)
    a = ap.parse_args(argv)
    limits = Limits(max_iterations=a.max_iterations, max_seconds=a.max_seconds,
                    workers=a.workers, max_queue=a.max_queue,
                    max_queue_per_client=a.max_queue_per_client,
                    max_queue_per_peer=a.max_queue_per_peer,
                    max_running_per_peer=a.max_running_per_peer,
                    max_games=a.max_games, max_games_per_peer=a.max_games_per_peer,
                    max_watch_per_peer=a.max_watch_per_peer, max_watch=a.max_watch,
                    idle_expiry_s=a.idle_expiry, max_message_bytes=a.max_message_bytes,
                    default_kind=a.default_kind, default_iterations=a.default_iterations,
                    ponder=a.ponder, ponder_seconds=a.ponder_seconds)
    cfg = ServerConfig(host=a.host, port=a.port, db=a.db or default_db_path(a.port),
                       tls_cert=a.tls_cert, tls_key=a.tls_key, api_key=a.api_key or None,
                       insecure=a.insecure, limits=limits, log_level=a.log_level)
    try:
        return check_config(cfg)
    except ConfigError as exc:
        ap.error(str(exc))
        raise  # not reached
