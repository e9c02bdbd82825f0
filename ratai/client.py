"""``ratai.client.Client``: a small Python client for the ``ratai.v1.RatAI`` service.

>>> from ratai.client import Client
>>> with Client("127.0.0.1:50051") as c:                        # doctest: +SKIP
...     g = c.create_game("rat_trap", seats=["human", "random", {"kind": "ismcts",
...                                                             "iterations": 200}])
...     view = c.get_state(g.game_id, g.seat_tokens[0].token)
...     hint = c.suggest_move(game_id=g.game_id, seat_token=g.seat_tokens[0].token)

Methods return the protobuf messages of ``ratai/service/ratai_pb2.py``; errors are
``grpc.RpcError`` with the service's status code and message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import grpc
from google.protobuf import struct_pb2

from ratai.service import ratai_pb2 as pb
from ratai.service import ratai_pb2_grpc as pb_grpc

__all__ = ["Client", "pb"]


def _struct(d: Mapping[str, Any] | None) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    if d:
        s.update(json.loads(json.dumps(dict(d))))
    return s


def bot_spec(spec: Mapping[str, Any] | str | None) -> pb.BotSpec | None:
    """A bot spec string as everywhere else in ratai (``KIND[:ITERATIONS|:SECONDSs]
    [:NAME=VALUE...]`` or ``level:L``, e.g. ``"ismcts:500"``, ``"mcts:0.1s:exploration=2"``,
    ``"level:5"``; :meth:`ratai.arena.BotSpec.parse`) or a mapping ``{"kind", "iterations",
    "time_limit_s" (or "time_limit"), "max_depth", "seed", "options", "level"}`` ->
    ``BotSpec``. Raises ``ValueError`` for a malformed string (the server checks the kind,
    budget and options)."""
    if spec is None:
        return None
    if isinstance(spec, str):
        # the CLI's parser, imported when a string needs it
        from ratai.arena import BotSpec

        parsed = BotSpec.parse(spec)
        if parsed.level is not None:
            return pb.BotSpec(kind="level", level=parsed.level)
        spec = {"kind": parsed.kind, "iterations": parsed.iterations,
                "time_limit": parsed.time_limit, "options": dict(parsed.options)}
    spec = dict(spec)
    options = spec.pop("options", None)
    if "time_limit" in spec:
        spec["time_limit_s"] = spec.pop("time_limit")
    out = pb.BotSpec(**{k: v for k, v in spec.items() if v is not None})
    if options:
        out.options.CopyFrom(_struct(options))
    return out


def _seat(spec: Any) -> pb.SeatSpec:
    if spec == "human" or spec is None:
        return pb.SeatSpec(human=pb.HumanSeat())
    if isinstance(spec, Mapping) and "human" in spec:
        return pb.SeatSpec(human=pb.HumanSeat(display_name=str(spec["human"] or "")))
    return pb.SeatSpec(bot=bot_spec(spec))


class Client:
    """A connection to a ratai server.

    Args:
        target: ``host:port``.
        api_key: sent as ``x-api-key`` metadata when the server wants one.
        root_certificates: PEM bytes for TLS (``None``: plaintext; ``b""`` not allowed).
        timeout: default deadline in seconds for unary calls (``None``: none).
        channel: use this channel instead of creating one.
    """

    def __init__(self, target: str = "127.0.0.1:50051", *, api_key: str | None = None,
                 root_certificates: bytes | None = None, timeout: float | None = 60.0,
                 channel: grpc.Channel | None = None, options: Sequence = ()):
        if channel is None:
            if root_certificates is not None:
                creds = grpc.ssl_channel_credentials(root_certificates)
                channel = grpc.secure_channel(target, creds, options=list(options))
            else:
                channel = grpc.insecure_channel(target, options=list(options))
        self.channel = channel
        self.stub = pb_grpc.RatAIStub(channel)
        self.timeout = timeout
        self._md = (("x-api-key", api_key),) if api_key else ()

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _kw(self, timeout: float | None) -> dict:
        return {"timeout": self.timeout if timeout is None else timeout, "metadata": self._md}

    # ------------------------------------------------------------------ calls
    def list_games(self, timeout: float | None = None) -> list[pb.GameType]:
        return list(self.stub.ListGames(pb.ListGamesRequest(), **self._kw(timeout)).games)

    def create_game(self, game: str, seats: Sequence[Any], params: Mapping | None = None,
                    seed: int | None = None, timeout: float | None = None
                    ) -> pb.CreateGameResponse:
        """Seats: ``"human"``, ``{"human": "name"}``, a bot kind or a bot spec dict."""
        req = pb.CreateGameRequest(game=game, params=_struct(params),
                                   seats=[_seat(s) for s in seats])
        if seed is not None:
            req.seed = seed
        return self.stub.CreateGame(req, **self._kw(timeout))

    def get_state(self, game_id: str, seat_token: str = "",
                  timeout: float | None = None) -> pb.GameView:
        return self.stub.GetState(pb.GetStateRequest(game_id=game_id, seat_token=seat_token),
                                  **self._kw(timeout))

    def apply_action(self, game_id: str, seat_token: str, action: int | str,
                     expected_move_number: int | None = None,
                     timeout: float | None = None) -> pb.ApplyActionResponse:
        """``action``: an id, or a label string."""
        req = pb.ApplyActionRequest(game_id=game_id, seat_token=seat_token)
        if isinstance(action, str):
            req.action_label = action
        else:
            req.action = int(action)
        if expected_move_number is not None:
            req.expected_move_number = expected_move_number
        return self.stub.ApplyAction(req, **self._kw(timeout))

    def watch_game(self, game_id: str, seat_token: str = "", since_move_number: int = 0,
                   timeout: float | None = None) -> Iterator[pb.GameEvent]:
        """A stream of events (iterate it; ``.cancel()`` it to stop early)."""
        return self.stub.WatchGame(pb.WatchGameRequest(game_id=game_id, seat_token=seat_token,
                                                       since_move_number=since_move_number),
                                   timeout=timeout, metadata=self._md)

    @staticmethod
    def position(game: str, seat: int, *, params: Mapping | None = None,
                 history: Sequence[int] | None = None, serialized_state: bytes | None = None,
                 observation: Mapping | str | None = None) -> pb.Position:
        """A stateless position from exactly one of history, serialized state, observation."""
        p = pb.Position(game=game, seat=seat, params=_struct(params))
        if history is not None:
            p.history.actions.extend(int(a) for a in history)
        if serialized_state is not None:
            p.serialized_state = serialized_state
        if observation is not None:
            p.observation_json = (observation if isinstance(observation, str)
                                  else json.dumps(observation))
        return p

    def _target(self, req: Any, game_id, seat_token, position) -> None:
        if position is not None:
            req.position.CopyFrom(position)
        else:
            req.hosted.CopyFrom(pb.HostedSeat(game_id=game_id or "", seat_token=seat_token or ""))

    def suggest_move(self, *, game_id: str | None = None, seat_token: str | None = None,
                     position: pb.Position | None = None, bot: Any = None,
                     timeout: float | None = None) -> pb.Analysis:
        """A hint for a hosted seat (``game_id`` + ``seat_token``) or a ``position``."""
        req = pb.SuggestMoveRequest()
        self._target(req, game_id, seat_token, position)
        b = bot_spec(bot)
        if b is not None:
            req.bot.CopyFrom(b)
        return self.stub.SuggestMove(req, **self._kw(timeout))

    def analyze(self, *, game_id: str | None = None, seat_token: str | None = None,
                position: pb.Position | None = None, bot: Any = None,
                report_every_iterations: int = 0, report_interval_ms: int = 0,
                timeout: float | None = None) -> Iterator[pb.Analysis]:
        """Streamed analysis: partial messages, then one with ``final`` set."""
        req = pb.AnalyzeRequest(report_every_iterations=report_every_iterations,
                                report_interval_ms=report_interval_ms)
        self._target(req, game_id, seat_token, position)
        b = bot_spec(bot)
        if b is not None:
            req.bot.CopyFrom(b)
        return self.stub.Analyze(req, timeout=timeout, metadata=self._md)
