"""Build, start and stop the grpc.aio server; the ``serve(argv)`` entry point.

``python server.py --port 50051 [--db PATH] [--workers N]`` and ``ratai serve`` both call
:func:`serve` (options: :mod:`ratai.service.config`). :class:`RatAIServer` is the in-process
handle that tests and embedders use: it runs one asyncio event loop on its own thread, which
serves every RPC (no thread per call or stream) and owns the search workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import faulthandler
import hmac
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from . import ratai_pb2 as pb
from .config import ServerConfig, check_config, default_db_path, parse_args
from .errors import ServiceError
from .pool import SearchPool
from .servicer import RatAIServicer, add_servicer
from .sessions import SessionManager
from .store import Store, StoreError

__all__ = ["RatAIServer", "ApiKeyInterceptor", "serve", "parse_args", "SERVICE_NAME"]

log = logging.getLogger("ratai.service")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["RatAI"].full_name
_HEALTH_PREFIX = "/grpc.health.v1.Health/"


class ApiKeyInterceptor(grpc.aio.ServerInterceptor):
    """Rejects calls without the API key (``UNAUTHENTICATED``); health checks stay open.

    The key travels as metadata ``x-api-key: <key>`` or ``authorization: Bearer <key>``.
    """

    def __init__(self, key: str):
        self._key = key.encode()

        async def deny(request, context):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "missing or wrong API key (metadata x-api-key)")

        async def deny_stream(request, context):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "missing or wrong API key (metadata x-api-key)")
            yield  # pragma: no cover - makes this an async generator

        self._deny_unary = grpc.unary_unary_rpc_method_handler(deny)
        self._deny_stream = grpc.unary_stream_rpc_method_handler(deny_stream)

    async def intercept_service(self, continuation, handler_call_details):
        method = handler_call_details.method
        if method.startswith(_HEALTH_PREFIX):
            return await continuation(handler_call_details)
        given = b""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == "x-api-key":
                given = value.encode() if isinstance(value, str) else value
            elif key == "authorization" and str(value).startswith("Bearer "):
                given = str(value)[7:].encode()
        if hmac.compare_digest(given, self._key):
            return await continuation(handler_call_details)
        handler = await continuation(handler_call_details)
        if handler is not None and handler.response_streaming:
            return self._deny_stream
        return self._deny_unary


class RatAIServer:
    """A running server: ``start()`` binds and returns the port; ``stop()`` shuts down.

    ``stop`` is an orderly in-process shutdown: RPCs are cancelled, searches stopped, the
    event log closed; every acknowledged action is already on disk, so a new server on the
    same database continues the games.

    Raises (from the constructor): ``store.StoreLocked`` when another server holds the
    event log; ``config.ConfigError`` for unsafe or bad settings.
    """

    def __init__(self, config: ServerConfig):
        self.config = check_config(config)
        limits = config.limits
        db = config.db or default_db_path(config.port)
        self.store = Store(db)
        self.pool = SearchPool(limits.workers, limits.max_queue,
                               limits.max_queue_per_client or None,
                               max_queue_per_peer=limits.max_queue_per_peer or None,
                               max_running_per_peer=limits.max_running_per_peer or None)
        self.manager = SessionManager(self.store, self.pool, limits)
        self.servicer = RatAIServicer(self.manager, self.pool, limits)
        self.port: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._grpc: grpc.aio.Server | None = None
        self._health: health.aio.HealthServicer | None = None
        self._done: asyncio.Event | None = None
        self._health_task: asyncio.Task | None = None
        self._stopped = threading.Event()

    # ------------------------------------------------------------------ on the loop
    async def _build(self, warm: bool) -> int:
        cfg, limits = self.config, self.config.limits
        interceptors = [ApiKeyInterceptor(cfg.api_key)] if cfg.api_key else []
        opts = [("grpc.max_receive_message_length", limits.max_message_bytes),
                ("grpc.max_send_message_length", limits.max_message_bytes),
                ("grpc.so_reuseport", 0)]
        self._grpc = grpc.aio.server(interceptors=interceptors, options=opts)
        add_servicer(self.servicer, self._grpc)   # bad request bytes: INVALID_ARGUMENT
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._grpc)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
             reflection.SERVICE_NAME), self._grpc)
        address = f"{cfg.host}:{cfg.port}"
        if cfg.port and _in_use(cfg.host, cfg.port):   # before gRPC logs its own line
            raise OSError(f"could not bind {address}: the address is already in use")
        if cfg.tls_cert:
            with open(cfg.tls_key, "rb") as k, open(cfg.tls_cert, "rb") as c:
                creds = grpc.ssl_server_credentials([(k.read(), c.read())])
            port = self._grpc.add_secure_port(address, creds)
        else:
            port = self._grpc.add_insecure_port(address)
        if not port and cfg.port:
            raise OSError(f"could not bind {address}")
        self.pool.start(asyncio.get_running_loop())
        self.manager.bind(asyncio.get_running_loop())
        if warm:
            await self.pool.warm()
        restored = await asyncio.get_running_loop().run_in_executor(self.manager.io,
                                                                   self.manager.restore)
        await self._grpc.start()
        await self._set_health(True)
        self._health_task = asyncio.get_running_loop().create_task(self._watch_health())
        log.info(json.dumps({"event": "serving", "address": f"{cfg.host}:{port}",
                             "tls": bool(cfg.tls_cert), "api_key": bool(cfg.api_key),
                             "db": self.store.path, "workers": self.pool.workers,
                             "worker_pids": self.pool.pids(), "restored_games": restored}))
        return port

    async def _set_health(self, serving: bool) -> None:
        status = (health_pb2.HealthCheckResponse.SERVING if serving
                  else health_pb2.HealthCheckResponse.NOT_SERVING)
        for name in ("", SERVICE_NAME):
            await self._health.set(name, status)

    async def _watch_health(self, period: float = 0.5) -> None:
        """``NOT_SERVING`` while no search worker can start (:meth:`SearchPool.healthy`),
        ``SERVING`` again once one does."""
        serving = True
        while True:
            await asyncio.sleep(period)
            now = self.pool.healthy()
            if now != serving and not self.pool._closed:
                serving = now
                log.warning(json.dumps({"event": "health", "serving": serving}))
                await self._set_health(serving)

    async def _shutdown(self, grace: float | None) -> None:
        if self._health_task is not None:
            self._health_task.cancel()
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        self.manager.close(wait=False)
        await self.pool.shutdown()
        if self._grpc is not None:
            await self._grpc.stop(grace)

    def _run_loop(self, warm: bool, started: threading.Event, box: list) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        asyncio.set_event_loop(loop)

        async def main():
            self._done = asyncio.Event()
            try:
                box.append(await self._build(warm))
            except BaseException as exc:  # noqa: BLE001 - handed to start()
                box.append(exc)
                started.set()
                await self._shutdown(0)
                return
            started.set()
            await self._done.wait()

        try:
            loop.run_until_complete(main())
        finally:
            try:
                pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for t in pending:
                    t.cancel()
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            finally:
                loop.close()

    # ------------------------------------------------------------------ public
    def start(self, warm: bool = True) -> int:
        """Reload unfinished games, bind, start serving; returns the bound port.

        Raises:
            OSError: the address cannot be bound. RuntimeError: the workers did not start.
        """
        started, box = threading.Event(), []
        self._thread = threading.Thread(target=self._run_loop, args=(warm, started, box),
                                        name="ratai-loop", daemon=True)
        self._thread.start()
        started.wait()
        if isinstance(box[0], BaseException):
            self._thread.join(10)
            self.manager.close(wait=True)
            self.store.close()
            self._stopped.set()
            raise box[0]
        self.port = box[0]
        return self.port

    def stop(self, grace: float | None = 1.0) -> None:
        """Stop serving and release everything (idempotent)."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        loop = self.loop
        if loop is not None and not loop.is_closed() and self._thread.is_alive():
            fut = asyncio.run_coroutine_threadsafe(self._shutdown(grace), loop)
            try:
                fut.result((grace or 0) + 10)
            except Exception:  # noqa: BLE001
                log.exception("shutdown failed")
            loop.call_soon_threadsafe(self._done.set)
            self._thread.join(10)
        self.manager.close(wait=True)
        self.store.close()

    def wait(self) -> None:
        """Block until the server stops."""
        if self._thread is not None:
            self._thread.join()

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


#: why a server may fail to start (a one-line error, exit 2, rather than a traceback)
_CANNOT_START = (OSError, RuntimeError, ValueError, StoreError, ServiceError)


def _in_use(host: str, port: int) -> bool:
    """Whether another socket holds ``host:port``: a plain bind of each address it
    resolves to (as gRPC binds it, without ``SO_REUSEPORT``). ``False`` when it does not
    resolve (gRPC reports that)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]") or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError:
        return False
    for family, kind, proto, _, addr in infos:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind(addr)
        except OSError as exc:   # no IPv6 here, no permission, ...: gRPC's to report
            if exc.errno == errno.EADDRINUSE:
                return True
    return False


#: seconds a stopping server process may take, from SIGINT/SIGTERM to its exit
STOP_WATCHDOG_SECONDS = 30.0


def serve(argv: Sequence[str] | None = None, *,
          watchdog: float | None = STOP_WATCHDOG_SECONDS) -> int:
    """Run the server until SIGINT/SIGTERM (the ``ratai serve`` command).

    Returns 0 after a clean stop, 2 (one line on stderr) when it cannot start: a bad option,
    the event log held by another server (named, with its pid) or not readable as one, an
    address in use.

    ``watchdog``: seconds the process may take to stop once the signal arrived, the
    interpreter's exit included (``stop`` itself is bounded at about 2 s of grace plus its
    joins). Past it, every thread's stack is written to stderr and the process exits with
    status 1 (``faulthandler.dump_traceback_later``), so a stuck shutdown is diagnosed and
    never holds the port or the event log's lock. ``None``: no watchdog, for a caller that
    keeps running after ``serve`` returns.
    """
    cfg = parse_args(argv)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter())
    root = logging.getLogger("ratai")
    root.addHandler(handler)
    root.setLevel(cfg.log_level.upper())
    try:
        server = RatAIServer(cfg)
    except _CANNOT_START as exc:  # StoreLocked, a damaged store, ConfigError, a bad path
        print(f"ratai serve: error: {exc}", file=sys.stderr)
        return 2
    with _signal_pipe(signal.SIGINT, signal.SIGTERM) as wait:  # a signal while starting counts
        try:
            server.start()
        except _CANNOT_START as exc:
            print(f"ratai serve: error: {exc}", file=sys.stderr)
            return 2
        signum = wait()
    if watchdog is not None:
        faulthandler.dump_traceback_later(watchdog, exit=True)
    log.info(json.dumps({"event": "stopping", "signal": signal.Signals(signum).name}))
    server.stop(2.0)
    log.info(json.dumps({"event": "stopped"}))
    return 0


@contextlib.contextmanager
def _signal_pipe(*signums: int) -> Iterator[Callable[[], int]]:
    """Catch ``signums`` for the block; yields ``wait()``, which blocks until one arrives.

    ``wait()`` returns the signal's number (at once if one came earlier in the block). The
    handler only writes a byte to a pipe that ``wait`` reads (the self-pipe trick): a handler
    that took a lock (``threading.Event.set``) could deadlock, since Python runs handlers in
    the main thread, possibly while that thread holds the same lock inside ``Event.wait``.
    The previous handlers are restored on leaving.
    """
    r, w = os.pipe()
    os.set_blocking(w, False)  # a burst of signals cannot block the handler on a full pipe

    def on_signal(signum, frame):
        try:
            os.write(w, bytes([signum]))
        except BlockingIOError:
            pass

    previous = {sig: signal.signal(sig, on_signal) for sig in signums}
    try:
        yield lambda: os.read(r, 1)[0]  # an interrupted read runs the handler, then resumes
    finally:
        for sig, handler in previous.items():  # before closing: the fd number may be reused
            signal.signal(sig, handler)
        os.close(r)
        os.close(w)
