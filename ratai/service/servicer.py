"""The ``ratai.v1.RatAI`` servicer: protobuf <-> domain conversion only.

Every method goes through :func:`_rpc`, the one place where domain errors become gRPC status
codes and where the structured request log line is written (method, game, seat, status,
duration). The domain logic lives in :mod:`catalog`, :mod:`positions`, :mod:`sessions` and
:mod:`pool`.
"""

from __future__ import annotations

import functools
import json
import logging
import queue
import time
from collections.abc import Callable

import grpc

from . import ratai_pb2 as pb
from . import ratai_pb2_grpc as pb_grpc
from .catalog import BotConfig, check_bot, list_games, make_game
from .config import Limits
from .convert import (
    analysis_pb,
    bot_from_pb,
    event_pb,
    game_type_pb,
    seat_from_pb,
    struct_to_dict,
    view_pb,
)
from .errors import Internal, InvalidArgument, ServiceError
from .pool import END_OF_PROGRESS, SearchJob, SearchPool
from .positions import check_turn, position_state
from .sessions import SessionManager

__all__ = ["RatAIServicer"]

log = logging.getLogger("ratai.service")

#: Seconds kept free before a client's deadline for the answer to travel back.
_DEADLINE_MARGIN = 0.15


def _log_line(info: dict, status: str, t0: float) -> None:
    info.update(status=status, duration_ms=round((time.perf_counter() - t0) * 1000, 2))
    log.info(json.dumps(info, default=str))


def _abort(context: grpc.ServicerContext, exc: ServiceError) -> None:
    context.abort(getattr(grpc.StatusCode, exc.code), str(exc))


def _rpc(fn: Callable) -> Callable:
    """Map errors to status codes and log one line per request (unary and streaming)."""
    name = fn.__name__

    def start(context: grpc.ServicerContext) -> dict:
        return {"method": name, "peer": context.peer(), "game": None, "game_id": None,
                "seat": None}

    def fail(context, info, t0, exc: BaseException) -> None:
        if isinstance(exc, ServiceError):
            _log_line(info | {"error": str(exc)[:300]}, exc.code, t0)
            _abort(context, exc)
        log.exception("unexpected error in %s", name)
        _log_line(info, "INTERNAL", t0)
        _abort(context, Internal(f"internal error ({type(exc).__name__}); see server log"))

    if name in ("WatchGame", "Analyze"):
        @functools.wraps(fn)
        def stream(self, request, context):
            t0, info = time.perf_counter(), start(context)
            try:
                yield from fn(self, request, context, info)
            except Exception as exc:  # noqa: BLE001 - one mapping for everything
                if context.code() is not None and not isinstance(exc, ServiceError):
                    raise
                fail(context, info, t0, exc)
                return
            _log_line(info, "OK" if context.is_active() else "CANCELLED", t0)
        return stream

    @functools.wraps(fn)
    def unary(self, request, context):
        t0, info = time.perf_counter(), start(context)
        try:
            out = fn(self, request, context, info)
        except Exception as exc:  # noqa: BLE001
            if context.code() is not None and not isinstance(exc, ServiceError):
                raise
            fail(context, info, t0, exc)
        _log_line(info, "OK", t0)
        return out
    return unary


class RatAIServicer(pb_grpc.RatAIServicer):
    """Serves every registered game through :class:`SessionManager` and :class:`SearchPool`."""

    def __init__(self, manager: SessionManager, pool: SearchPool, limits: Limits):
        self.manager, self.pool, self.limits = manager, pool, limits

    # ------------------------------------------------------------------ catalogue
    @_rpc
    def ListGames(self, request, context, info):
        return pb.ListGamesResponse(games=[game_type_pb(d) for d in list_games(self.limits)])

    # ------------------------------------------------------------------ hosted games
    @_rpc
    def CreateGame(self, request, context, info):
        info["game"] = request.game
        seats = [seat_from_pb(s, i, self.limits.default_kind)
                 for i, s in enumerate(request.seats)]
        seed = request.seed if request.HasField("seed") else None
        s, tokens = self.manager.create(request.game, struct_to_dict(request.params), seats,
                                        seed)
        info["game_id"] = s.id
        return pb.CreateGameResponse(
            game_id=s.id, seat_tokens=[pb.SeatToken(seat=i, token=t) for i, t in tokens],
            view=view_pb(self.manager.view(s, None)))

    @_rpc
    def GetState(self, request, context, info):
        info["game_id"] = request.game_id
        s = self.manager.get(request.game_id)
        info["game"] = s.game.name
        seat = self.manager.seat_of(s, request.seat_token, required=False)
        info["seat"] = seat
        return view_pb(self.manager.view(s, seat))

    @_rpc
    def ApplyAction(self, request, context, info):
        info["game_id"] = request.game_id
        which = request.WhichOneof("move")
        if which is None:
            raise InvalidArgument("give action or action_label")
        expected = (request.expected_move_number
                    if request.HasField("expected_move_number") else None)
        view, at, dup = self.manager.apply(
            request.game_id, request.seat_token,
            action=request.action if which == "action" else None,
            label=request.action_label if which == "action_label" else None,
            expected=expected)
        info.update(game=view["game"], seat=view["seat"], move_number=at, duplicate=dup)
        return pb.ApplyActionResponse(view=view_pb(view), applied_at=at, duplicate=dup)

    @_rpc
    def WatchGame(self, request, context, info):
        info["game_id"] = request.game_id
        if request.since_move_number < 0:
            raise InvalidArgument("since_move_number must be >= 0")
        events = self.manager.watch(request.game_id, request.seat_token,
                                    request.since_move_number, context.is_active)
        for event in events:
            yield event_pb(event)

    # ------------------------------------------------------------------ hints
    def _job(self, request, context, info, progress: bool = False) -> SearchJob:
        """Resolve the target and bot of a SuggestMove/Analyze request into a search job."""
        which = request.WhichOneof("target")
        if which == "hosted":
            info["game_id"] = request.hosted.game_id
            game, state, seat = self.manager.hint_state(request.hosted.game_id,
                                                        request.hosted.seat_token)
            untrusted = False
        elif which == "position":
            p = request.position
            game = make_game(p.game, struct_to_dict(p.params), self.limits)
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
        remaining = context.time_remaining()
        deadline = None
        if remaining is not None and remaining < 1e9:
            deadline = time.time() + remaining - min(_DEADLINE_MARGIN, remaining * 0.2)
        every = self.limits.report_every
        interval = 0.0
        if progress:
            if request.report_every_iterations < 0 or request.report_interval_ms < 0:
                raise InvalidArgument("report_every_iterations and report_interval_ms must be "
                                      ">= 0")
            every = request.report_every_iterations or every
            interval = request.report_interval_ms / 1000.0
        return SearchJob(game.name, json.loads(json.dumps(game.params)), state.serialize(), seat,
                         bot, deadline, self.limits.max_seconds, every, interval, progress,
                         untrusted)

    @_rpc
    def SuggestMove(self, request, context, info):
        job = self._job(request, context, info)
        handle = self.pool.submit(job)
        context.add_callback(handle.cancel)
        res = handle.result()
        info["stop"] = res.stop_reason
        if res.analysis is None:
            raise InvalidArgument("the search was cancelled before it started")
        return analysis_pb(res.analysis, final=True, stop_reason=res.stop_reason)

    @_rpc
    def Analyze(self, request, context, info):
        job = self._job(request, context, info, progress=True)
        partials: queue.Queue = queue.Queue()
        handle = self.pool.submit(job, on_progress=partials.put)
        context.add_callback(handle.cancel)
        sent = 0
        try:
            while True:  # every partial, in order, until the worker's end marker
                try:
                    a = partials.get(timeout=0.05)
                except queue.Empty:
                    if not context.is_active():
                        handle.cancel()
                        return
                    continue
                if a is END_OF_PROGRESS:
                    break
                sent += 1
                yield analysis_pb(a, final=False)
            res = handle.result()
        finally:
            if not handle.future.done():
                handle.cancel()
        info.update(partials=sent, stop=res.stop_reason)
        if res.analysis is None:
            return
        yield analysis_pb(res.analysis, final=True, stop_reason=res.stop_reason)

