"""Build, start and stop the gRPC server; the ``serve(argv)`` entry point.

``python server.py --port 50051 [--db PATH] [--workers N]`` and ``ratai serve`` both call
:func:`serve`. :class:`RatAIServer` is the in-process handle that tests and embedders use.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from . import ratai_pb2 as pb
from . import ratai_pb2_grpc as pb_grpc
from .config import Limits, ServerConfig, default_db_path
from .pool import SearchPool
from .servicer import RatAIServicer
from .sessions import SessionManager
from .store import Store

__all__ = ["RatAIServer", "ApiKeyInterceptor", "serve", "parse_args", "SERVICE_NAME"]

log = logging.getLogger("ratai.service")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["RatAI"].full_name
_HEALTH_PREFIX = "/grpc.health.v1.Health/"


class ApiKeyInterceptor(grpc.ServerInterceptor):
    """Rejects calls without the API key (``UNAUTHENTICATED``); health checks stay open.

    The key travels as metadata ``x-api-key: <key>`` or ``authorization: Bearer <key>``.
    """

    def __init__(self, key: str):
        import hmac

        self._key = key.encode()
        self._eq = hmac.compare_digest

        def deny(request, context):
            context.abort(grpc.StatusCode.UNAUTHENTICATED,
                          "missing or wrong API key (metadata x-api-key)")

        self._deny_unary = grpc.unary_unary_rpc_method_handler(deny)
        self._deny_stream = grpc.unary_stream_rpc_method_handler(deny)

    def intercept_service(self, continuation, handler_call_details):
        method = handler_call_details.method
        if method.startswith(_HEALTH_PREFIX):
            return continuation(handler_call_details)
        given = b""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == "x-api-key":
                given = value.encode() if isinstance(value, str) else value
            elif key == "authorization" and str(value).startswith("Bearer "):
                given = str(value)[7:].encode()
        if self._eq(given, self._key):
            return continuation(handler_call_details)
        handler = continuation(handler_call_details)
        if handler is not None and handler.response_streaming:
            return self._deny_stream
        return self._deny_unary


class RatAIServer:
    """A running server: ``start()`` binds and returns the port; ``stop()`` shuts down.

    ``stop`` is an orderly in-process shutdown: RPCs are cancelled, searches stopped, the
    event log closed; every acknowledged action is already on disk, so a new server on the
    same database continues the games.
    """

    def __init__(self, config: ServerConfig):
        self.config = config
        limits = config.limits
        db = config.db or default_db_path()
        self.store = Store(db)
        self.pool = SearchPool(limits.workers, limits.max_queue)
        self.manager = SessionManager(self.store, self.pool, limits)
        interceptors = [ApiKeyInterceptor(config.api_key)] if config.api_key else []
        opts = [("grpc.max_receive_message_length", limits.max_message_bytes),
                ("grpc.max_send_message_length", limits.max_message_bytes),
                ("grpc.so_reuseport", 0)]
        self.grpc = grpc.server(futures.ThreadPoolExecutor(config.grpc_threads,
                                                           thread_name_prefix="ratai-rpc"),
                                interceptors=interceptors, options=opts,
                                maximum_concurrent_rpcs=config.grpc_threads * 4)
        self.servicer = RatAIServicer(self.manager, self.pool, limits)
        pb_grpc.add_RatAIServicer_to_server(self.servicer, self.grpc)
        self.health = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.grpc)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME), self.grpc)
        self.port: int | None = None
        self._stopped = threading.Event()

    def start(self, warm: bool = True) -> int:
        """Reload unfinished games, bind, start serving; returns the bound port."""
        cfg = self.config
        address = f"{cfg.host}:{cfg.port}"
        if cfg.tls_cert or cfg.tls_key:
            if not (cfg.tls_cert and cfg.tls_key):
                raise ValueError("give both --tls-cert and --tls-key")
            with open(cfg.tls_key, "rb") as k, open(cfg.tls_cert, "rb") as c:
                creds = grpc.ssl_server_credentials([(k.read(), c.read())])
            self.port = self.grpc.add_secure_port(address, creds)
        else:
            self.port = self.grpc.add_insecure_port(address)
        if warm:
            self.pool.warm()
        restored = self.manager.restore()
        self.grpc.start()
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        log.info(json.dumps({"event": "serving", "address": f"{cfg.host}:{self.port}",
                             "tls": bool(cfg.tls_cert), "api_key": bool(cfg.api_key),
                             "db": self.store.path, "workers": self.pool.workers,
                             "restored_games": restored}))
        return self.port

    def stop(self, grace: float | None = 1.0) -> None:
        """Stop serving and release everything (idempotent)."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        self.health.enter_graceful_shutdown()
        self.manager.close(wait=False)
        event = self.grpc.stop(grace)
        self.pool.shutdown()
        self.manager.close(wait=True)
        event.wait(5)
        self.store.close()

    def wait(self) -> None:
        self.grpc.wait_for_termination()

    def __enter__(self) -> RatAIServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop(0)


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        msg = record.getMessage()
        try:
            doc = json.loads(msg)
            if not isinstance(doc, dict):
                raise ValueError
        except ValueError:
            doc = {"msg": msg}
        doc = {"ts": round(time.time(), 3), "level": record.levelname, **doc}
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str)


def parse_args(argv: Sequence[str] | None = None) -> ServerConfig:
    """Command-line flags -> :class:`ServerConfig`."""
    d = Limits()
    ap = argparse.ArgumentParser(prog="ratai serve", description="Run the ratai gRPC service.")
    ap.add_argument("--host", default="127.0.0.1",
                    help="bind address (default 127.0.0.1: loopback only)")
    ap.add_argument("--port", type=int, default=50051)
    ap.add_argument("--db", default=None,
                    help=f"SQLite event log (default {default_db_path()}; ':memory:' keeps "
                         f"nothing)")
    ap.add_argument("--workers", type=int, default=d.workers,
                    help="search processes (default: cores; 0 = threads in this process)")
    ap.add_argument("--max-queue", type=int, default=d.max_queue)
    ap.add_argument("--max-iterations", type=int, default=d.max_iterations)
    ap.add_argument("--max-seconds", type=float, default=d.max_seconds)
    ap.add_argument("--max-games", type=int, default=d.max_games)
    ap.add_argument("--idle-expiry", type=float, default=d.idle_expiry_s, help="seconds")
    ap.add_argument("--max-message-bytes", type=int, default=d.max_message_bytes)
    ap.add_argument("--default-kind", default=d.default_kind)
    ap.add_argument("--default-iterations", type=int, default=d.default_iterations)
    ap.add_argument("--tls-cert", default=None)
    ap.add_argument("--tls-key", default=None)
    ap.add_argument("--api-key", default=os.environ.get("RATAI_API_KEY"),
                    help="require this key (default: $RATAI_API_KEY; unset = no key)")
    ap.add_argument("--grpc-threads", type=int, default=32)
    ap.add_argument("--log-level", default="INFO")
    a = ap.parse_args(argv)
    limits = Limits(max_iterations=a.max_iterations, max_seconds=a.max_seconds,
                    workers=a.workers, max_queue=a.max_queue, max_games=a.max_games,
                    idle_expiry_s=a.idle_expiry, max_message_bytes=a.max_message_bytes,
                    default_kind=a.default_kind, default_iterations=a.default_iterations)
    cfg = ServerConfig(host=a.host, port=a.port, db=a.db or default_db_path(),
                       tls_cert=a.tls_cert, tls_key=a.tls_key, api_key=a.api_key or None,
                       grpc_threads=a.grpc_threads, limits=limits)
    cfg.log_level = a.log_level  # type: ignore[attr-defined]
    return cfg


def serve(argv: Sequence[str] | None = None) -> int:
    """Run the server until SIGINT/SIGTERM (the ``ratai serve`` command). Returns 0."""
    cfg = parse_args(argv)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter())
    root = logging.getLogger("ratai")
    root.addHandler(handler)
    root.setLevel(getattr(cfg, "log_level", "INFO").upper())
    server = RatAIServer(cfg)
    try:
        server.start()
    except (OSError, RuntimeError, ValueError) as exc:
        log.error(json.dumps({"event": "start_failed", "error": str(exc)}))
        server.stop(0)
        return 1
    done = threading.Event()

    def on_signal(signum, frame):
        done.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    done.wait()
    server.stop(2.0)
    return 0
