"""The ``ratai.v1.RatAI`` servicer (grpc.aio): protobuf <-> domain conversion, admission.

Every method is a coroutine on the server's one event loop and goes through :func:`_rpc`, the
one place where domain errors become gRPC status codes (messages cut to
``errors.MESSAGE_CHARS``; ``RESOURCE_EXHAUSTED`` carries ``retry-after-ms`` trailing metadata)
and where the structured request log line is written (method, game, seat, status, duration).
Short blocking work (event-log writes, history replays, views) runs on the manager's small
``io`` thread pool; searches wait in :class:`SearchPool` without a thread; ``WatchGame``
streams wait on an ``asyncio.Event``. The domain logic lives in :mod:`catalog`,
:mod:`positions`, :mod:`sessions` and :mod:`pool`.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import grpc

from . import ratai_pb2 as pb
from . import ratai_pb2_grpc as pb_grpc
from .catalog import BotConfig, check_bot, list_games, make_game
from .config import Limits
from .convert import (
    analysis_pb,
    bot_from_pb,
    check_text,
    event_pb,
    game_type_pb,
    seat_from_pb,
    struct_to_dict,
    view_pb,
)
from .errors import Internal, InvalidArgument, ResourceExhausted, ServiceError, clip
from .pool import SearchJob, SearchPool
from .positions import check_turn, position_state
from .sessions import SessionManager

__all__ = ["RatAIServicer", "peer_host"]

log = logging.getLogger("ratai.service")


def peer_host(peer: str) -> str:
    """``ipv4:127.0.0.1:5000`` -> ``127.0.0.1``; ``ipv6:[::1]:5000`` -> ``::1``."""
    kind, _, rest = (peer or "").partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:rest.find("]")]
    if kind in ("ipv4", "ipv6"):
        return rest.rsplit(":", 1)[0]
    return peer or "unknown"


def _log_line(info: dict, status: str, t0: float) -> None:
    info.update(status=status, duration_ms=round((time.perf_counter() - t0) * 1000, 2))
    log.info(json.dumps(info, default=str))


async def _abort(context: grpc.aio.ServicerContext, exc: ServiceError) -> None:
    meta: tuple = ()
    ms = getattr(exc, "retry_after_ms", None)
    if ms is not None:
        meta = (("retry-after-ms", str(int(ms))), ("grpc-retry-pushback-ms", str(int(ms))))
    await context.abort(getattr(grpc.StatusCode, exc.code), clip(str(exc)), meta)


#: A call its client ends this close to its deadline (seconds) ended by the deadline: the
#: client's timer fires first and its cancel arrives before the server's copy of the
#: deadline (set when the request arrived, so later by the request's transit) passes.
DEADLINE_SLACK_S = 0.05


def _gone(context) -> str:
    """The status of a call its client ended: ``DEADLINE_EXCEEDED`` when its deadline has
    passed (or is within ``DEADLINE_SLACK_S``), else ``CANCELLED`` (a cancel or a
    disconnect)."""
    try:
        left = context.time_remaining()
    except Exception:  # noqa: BLE001 - a closed call may not say
        left = None
    return "DEADLINE_EXCEEDED" if left is not None and left <= DEADLINE_SLACK_S \
        else "CANCELLED"


class Undecodable:
    """What :func:`lenient` hands a method for request bytes that do not parse as its
    message (truncated or hostile bytes, invalid UTF-8 in a string field): the method then
    answers ``INVALID_ARGUMENT`` and logs the request, where grpc's own deserializer
    failure answered ``UNKNOWN`` before any of the service's code ran."""

    def __init__(self, message: str, error: str):
        self.message, self.error = message, error


def lenient(message_class: Any) -> Callable[[bytes], Any]:
    """A request deserializer for ``message_class`` that returns :class:`Undecodable`
    instead of raising."""
    def parse(data: bytes) -> Any:
        try:
            return message_class.FromString(data)
        except Exception as exc:  # noqa: BLE001 - DecodeError and any other parse failure
            return Undecodable(message_class.DESCRIPTOR.name, str(exc)[:200])
    return parse


def add_servicer(servicer: Any, server: Any) -> None:
    """Register ``servicer``'s methods of ``ratai.v1.RatAI`` on ``server`` as the generated
    ``add_RatAIServicer_to_server`` does (the methods and their shapes read from the
    service descriptor), with :func:`lenient` request deserializers."""
    service = pb.DESCRIPTOR.services_by_name["RatAI"]
    handlers = {}
    for m in service.methods:
        make = (grpc.unary_stream_rpc_method_handler if m.server_streaming
                else grpc.unary_unary_rpc_method_handler)
        handlers[m.name] = make(
            getattr(servicer, m.name),
            request_deserializer=lenient(getattr(pb, m.input_type.name)),
            response_serializer=getattr(pb, m.output_type.name).SerializeToString)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),))
    server.add_registered_method_handlers(service.full_name, handlers)


def _undecodable(request: Any) -> None:
    if isinstance(request, Undecodable):
        raise InvalidArgument(f"the request is not a valid {request.message} message: "
                              f"{request.error}")


def _rpc(fn: Callable) -> Callable:
    """Map errors to status codes and log one line per request (unary and streaming)."""
    name = fn.__name__

    def start(context) -> dict:
        return {"method": name, "peer": context.peer(), "game": None, "game_id": None,
                "seat": None}

    async def fail(context, info, t0, exc: BaseException) -> None:
        if isinstance(exc, ServiceError):
            _log_line(info | {"error": str(exc)[:300]}, exc.code, t0)
            await _abort(context, exc)
        log.error("unexpected error in %s", name, exc_info=exc)
        _log_line(info, "INTERNAL", t0)
        await _abort(context, Internal(f"internal error ({type(exc).__name__}); see server "
                                       f"log"))

    if name in ("WatchGame", "Analyze"):
        @functools.wraps(fn)
        async def stream(self, request, context):
            t0, info = time.perf_counter(), start(context)
            try:
                _undecodable(request)
                async for msg in fn(self, request, context, info):
                    yield msg
            except (asyncio.CancelledError, grpc.aio.AbortError):
                _log_line(info, _gone(context), t0)
                raise
            except Exception as exc:  # noqa: BLE001 - one mapping for everything
                await fail(context, info, t0, exc)
                return
            _log_line(info, "OK", t0)
        return stream

    @functools.wraps(fn)
    async def unary(self, request, context):
        t0, info = time.perf_counter(), start(context)
        try:
            _undecodable(request)
            out = await fn(self, request, context, info)
        except asyncio.CancelledError:
            _log_line(info, _gone(context), t0)  # the client cancelled, left, or timed out
            raise
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001
            await fail(context, info, t0, exc)
        _log_line(info, "OK", t0)
        return out
    return unary


class RatAIServicer(pb_grpc.RatAIServicer):
    """Serves every registered game through :class:`SessionManager` and :class:`SearchPool`."""

    def __init__(self, manager: SessionManager, pool: SearchPool, limits: Limits):
        self.manager, self.pool, self.limits = manager, pool, limits
        self._games: pb.ListGamesResponse | None = None
        self._watch_peer: Counter[str] = Counter()
        self._watch_total = 0

    async def _io(self, fn: Callable, *args, **kw):
        """Run a short blocking domain call on the io threads."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.manager.io, functools.partial(fn, *args, **kw))

    # ------------------------------------------------------------------ catalogue
    @_rpc
    async def ListGames(self, request, context, info):
        if self._games is None:
            games = await self._io(list_games, self.limits)
            self._games = pb.ListGamesResponse(games=[game_type_pb(d) for d in games])
        return self._games

    # ------------------------------------------------------------------ hosted games
    @_rpc
    async def CreateGame(self, request, context, info):
        check_text("game", request.game, 100)
        info["game"] = request.game
        seats = [seat_from_pb(s, i, self.limits.default_kind)
                 for i, s in enumerate(request.seats)]
        params = struct_to_dict(request.params, "params")
        seed = request.seed if request.HasField("seed") else None

        owner = "peer:" + peer_host(context.peer())  # the key its position hints use

        def create():
            s, tokens = self.manager.create(request.game, params, seats, seed, owner)
            return s, tokens, self.manager.view(s, None)

        s, tokens, view = await self._io(create)
        info["game_id"] = s.id
        return pb.CreateGameResponse(
            game_id=s.id, seat_tokens=[pb.SeatToken(seat=i, token=t) for i, t in tokens],
            view=view_pb(view))

    @_rpc
    async def GetState(self, request, context, info):
        check_text("game_id", request.game_id, 100)
        check_text("seat_token", request.seat_token, 200)
        info["game_id"] = request.game_id

        def get():
            s = self.manager.get(request.game_id)
            info["game"] = s.game.name
            seat = self.manager.seat_of(s, request.seat_token, required=False)
            info["seat"] = seat
            return self.manager.view(s, seat)

        return view_pb(await self._io(get))

    @_rpc
    async def ApplyAction(self, request, context, info):
        check_text("game_id", request.game_id, 100)
        check_text("seat_token", request.seat_token, 200)
        info["game_id"] = request.game_id
        which = request.WhichOneof("move")
        if which is None:
            raise InvalidArgument("give action or action_label")
        if which == "action_label":
            check_text("action_label", request.action_label, 200)
        expected = (request.expected_move_number
                    if request.HasField("expected_move_number") else None)
        view, at, dup = await self._io(
            self.manager.apply, request.game_id, request.seat_token,
            action=request.action if which == "action" else None,
            label=request.action_label if which == "action_label" else None,
            expected=expected)
        info.update(game=view["game"], seat=view["seat"], move_number=at, duplicate=dup)
        return pb.ApplyActionResponse(view=view_pb(view), applied_at=at, duplicate=dup)

    @_rpc
    async def WatchGame(self, request, context, info):
        check_text("game_id", request.game_id, 100)
        check_text("seat_token", request.seat_token, 200)
        info["game_id"] = request.game_id
        if request.since_move_number < 0:
            raise InvalidArgument("since_move_number must be >= 0")
        peer = peer_host(context.peer())
        lim = self.limits
        if self._watch_peer[peer] >= lim.max_watch_per_peer:
            raise ResourceExhausted(f"this peer has {lim.max_watch_per_peer} WatchGame streams "
                                    f"open (the server's limit per peer); close one first",
                                    retry_after_ms=1000)
        if self._watch_total >= lim.max_watch:
            raise ResourceExhausted(f"the server has {lim.max_watch} WatchGame streams open "
                                    f"(its limit); retry later", retry_after_ms=1000)
        self._watch_peer[peer] += 1
        self._watch_total += 1
        try:
            async for event in self.manager.watch(request.game_id, request.seat_token,
                                                  request.since_move_number):
                yield event_pb(event)
        finally:
            self._watch_total -= 1
            self._watch_peer[peer] -= 1
            if self._watch_peer[peer] <= 0:
                del self._watch_peer[peer]

    def open_watches(self) -> int:
        """Open ``WatchGame`` streams."""
        return self._watch_total

    # ------------------------------------------------------------------ hints
    def _job(self, request, info, progress: bool = False) -> tuple[SearchJob, str]:
        """Resolve the target and bot of a SuggestMove/Analyze request (blocking; io thread).

        Returns the job and the client key its queue place is charged to (the seat token's
        digest for a hosted seat, else the peer address).
        """
        which = request.WhichOneof("target")
        client = None
        if which == "hosted":
            check_text("hosted.game_id", request.hosted.game_id, 100)
            check_text("hosted.seat_token", request.hosted.seat_token, 200)
            info["game_id"] = request.hosted.game_id
            game, state, seat = self.manager.hint_state(request.hosted.game_id,
                                                        request.hosted.seat_token)
            untrusted = False
            client = "seat:" + hashlib.sha256(request.hosted.seat_token.encode()).hexdigest()[:16]
        elif which == "position":
            p = request.position
            check_text("position.game", p.game, 100)
            game = make_game(p.game, struct_to_dict(p.params, "position.params"), self.limits)
            form = p.WhichOneof("state")
            state = position_state(
                game, p.seat,
                history=list(p.history.actions) if form == "history" else None,
                serialized=p.serialized_state if form == "serialized_state" else None,
                observation_json=p.observation_json if form == "observation_json" else None)
            seat = p.seat
            check_turn(state, seat)
            untrusted = form in ("serialized_state", "observation_json")
        else:
            raise InvalidArgument("set hosted or position")
        info.update(game=game.name, seat=seat)
        bot = bot_from_pb(request.bot, self.limits.default_kind) if request.HasField("bot") \
            else BotConfig(self.limits.default_kind)
        bot = check_bot(game, seat, bot, self.limits)
        info["kind"] = bot.kind
        every = self.limits.report_every
        interval = 0.0
        if progress:
            if request.report_every_iterations < 0 or request.report_interval_ms < 0:
                raise InvalidArgument("report_every_iterations and report_interval_ms must be "
                                      ">= 0")
            every = request.report_every_iterations or every
            interval = max(request.report_interval_ms / 1000.0,
                           self.limits.min_report_interval_s)
        job = SearchJob(game.name, json.loads(json.dumps(game.params)), state.serialize(), seat,
                        bot, time_limit=self.limits.max_seconds, report_every=every,
                        report_interval_s=interval, progress=progress, untrusted=untrusted)
        return job, client

    def _deadline(self, context) -> tuple[float | None, float]:
        remaining = context.time_remaining()
        if remaining is None or remaining > 1e9:
            return None, 0.0
        return (time.monotonic() + remaining,
                min(self.limits.deadline_margin_s, max(0.0, remaining) * 0.2))

    async def _run(self, request, context, info, progress: bool, on_progress=None):
        arrival = time.monotonic()
        deadline, margin = self._deadline(context)
        job, client = await self._io(self._job, request, info, progress)
        peer = "peer:" + peer_host(context.peer())
        return await self.pool.run(job, client or peer, deadline=deadline,
                                   max_seconds=self.limits.max_seconds, margin=margin,
                                   on_progress=on_progress, arrival=arrival, group=peer)

    @_rpc
    async def SuggestMove(self, request, context, info):
        res = await self._run(request, context, info, False)
        info["stop"] = res.stop_reason
        if res.analysis is None:
            raise InvalidArgument("the search was cancelled before it started")
        return analysis_pb(res.analysis, final=True, stop_reason=res.stop_reason)

    @_rpc
    async def Analyze(self, request, context, info):
        latest: list = [None]
        fresh = asyncio.Event()

        def on_progress(a) -> None:  # newest wins: a slow reader gets coalesced partials
            latest[0] = a
            fresh.set()

        task = asyncio.ensure_future(self._run(request, context, info, True, on_progress))
        sent = 0
        gap = max(request.report_interval_ms / 1000.0, self.limits.min_report_interval_s)
        try:
            while True:
                if latest[0] is None and not task.done():
                    waiter = asyncio.ensure_future(fresh.wait())
                    await asyncio.wait((task, waiter), return_when=asyncio.FIRST_COMPLETED)
                    waiter.cancel()
                fresh.clear()
                a, latest[0] = latest[0], None
                if a is not None:
                    sent += 1
                    sent_at = time.monotonic()
                    yield analysis_pb(a, final=False)  # waits for flow control
                    pause = sent_at + gap - time.monotonic()
                    if pause > 0 and not task.done():
                        await asyncio.wait((task,), timeout=pause)
                    continue
                if task.done():
                    break
            res = task.result()
        finally:
            if not task.done():
                task.cancel()
        info.update(partials=sent, stop=res.stop_reason)
        if res.analysis is None:
            return
        yield analysis_pb(res.analysis, final=True, stop_reason=res.stop_reason)
