"""Protobuf <-> domain conversion (the only place that knows both)."""

from __future__ import annotations

import json
import math
from typing import Any

from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

from . import ratai_pb2 as pb
from .catalog import BotConfig
from .errors import InvalidArgument
from .sessions import HumanSpec

__all__ = ["struct_to_dict", "to_value", "to_struct", "bot_from_pb", "seat_from_pb",
           "game_type_pb", "view_pb", "event_pb", "analysis_pb"]


def struct_to_dict(s: struct_pb2.Struct | None) -> dict:
    """A Struct as a plain dict (numbers are floats; ``catalog.make_game`` makes ints)."""
    if s is None:
        return {}
    return MessageToDict(s)


def to_value(v: Any) -> struct_pb2.Value:
    out = struct_pb2.Value()
    if v is None:
        out.null_value = struct_pb2.NULL_VALUE
    elif isinstance(v, bool):
        out.bool_value = v
    elif isinstance(v, int | float):
        out.number_value = float(v)
    elif isinstance(v, str):
        out.string_value = v
    else:
        out.string_value = json.dumps(v)
    return out


def to_struct(d: dict | None) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    if d:
        s.update(json.loads(json.dumps(d)))
    return s


def _finite(x: float, name: str) -> float:
    if not math.isfinite(x) or x < 0:
        raise InvalidArgument(f"bad {name} {x!r}: allowed a finite number >= 0")
    return x


def bot_from_pb(b: pb.BotSpec, default_kind: str) -> BotConfig:
    """``BotSpec`` -> ``BotConfig`` (0 means "not set" for the budget fields)."""
    if b.iterations < 0:
        raise InvalidArgument(f"bad iterations {b.iterations}: allowed >= 0 (0: not set)")
    if b.max_depth < 0:
        raise InvalidArgument(f"bad max_depth {b.max_depth}: allowed >= 0 (0: not set)")
    tl = _finite(b.time_limit_s, "time_limit_s")
    options = struct_to_dict(b.options) if b.HasField("options") else {}
    for k, v in list(options.items()):
        if isinstance(v, float) and v.is_integer():  # JSON numbers: ints where integral
            options[k] = int(v)
    return BotConfig(b.kind or default_kind, int(b.iterations) or None, tl or None,
                     int(b.max_depth) or None, int(b.seed) if b.HasField("seed") else None,
                     options)


def seat_from_pb(s: pb.SeatSpec, i: int, default_kind: str) -> HumanSpec | BotConfig:
    which = s.WhichOneof("player")
    if which == "human":
        return HumanSpec(s.human.display_name)
    if which == "bot":
        return bot_from_pb(s.bot, default_kind)
    raise InvalidArgument(f"seats[{i}]: set human or bot")


def game_type_pb(d: dict) -> pb.GameType:
    out = pb.GameType(
        name=d["name"], title=d["title"], summary=d["summary"], min_players=d["min_players"],
        max_players=d["max_players"], num_distinct_actions=d["num_distinct_actions"],
        perfect_information=d["perfect_information"], max_game_length=d["max_game_length"])
    for p in d["params"]:
        out.params.append(pb.ParamSpec(
            name=p["name"], default_value=to_value(p["default"]), type=p["type"],
            choices=[to_value(c) for c in (p["choices"] or [])], allowed=p["allowed"] or "",
            doc=p["doc"] or "", server_only=p["server_only"]))
    for name, params in d["variants"].items():
        out.variants[name].CopyFrom(to_struct(params))
    return out


def view_pb(d: dict) -> pb.GameView:
    obs = d["observation"]
    out = pb.GameView(
        game_id=d["game_id"], game=d["game"], params=to_struct(d["params"]), seat=d["seat"],
        move_number=d["move_number"], current_player=d["current_player"],
        is_terminal=d["is_terminal"], your_turn=d["your_turn"],
        observation_json=json.dumps(obs, sort_keys=True, separators=(",", ":"))
        if obs is not None else "",
        legal_actions=[pb.LegalAction(action=a, label=label) for a, label in d["legal_actions"]],
        scores=d["scores"], returns=d["returns"],
        seats=[pb.SeatInfo(seat=i, kind=k, display_name=n) for i, k, n in d["seats"]])
    if obs is not None:
        out.observation.CopyFrom(to_struct(obs))
    return out


def event_pb(d: dict) -> pb.GameEvent:
    return pb.GameEvent(
        kind=pb.GameEvent.Kind.Value(d["kind"]), move_number=d["move_number"],
        player=d["player"], label=d.get("label", ""), action=d.get("action", -1),
        your_turn=d.get("your_turn", False), scores=d.get("scores", []),
        returns=d.get("returns", []))


def analysis_pb(a: Any, *, final: bool, stop_reason: str = "") -> pb.Analysis:
    """A ``ratai.search.Analysis`` as a message."""
    best_label = next((m.label for m in a.moves if m.action == a.best_action), "")
    seed = a.seed if isinstance(a.seed, int) and not isinstance(a.seed, bool) else None
    return pb.Analysis(
        best_action=int(a.best_action), best_label=best_label,
        moves=[pb.MoveStat(action=int(m.action), label=m.label, visits=int(m.visits),
                           value=float(m.value), prior=float(m.prior)) for m in a.moves],
        pv=[pb.PVStep(player=int(p.player), action=int(p.action), label=p.label) for p in a.pv],
        iterations=int(a.iterations), nodes=int(a.nodes), max_depth=int(a.max_depth),
        elapsed_s=float(a.elapsed_s), seat=int(a.player), kind=a.kind,
        seed=seed if seed is not None and 0 <= seed < 2**64 else 0,
        has_seed=seed is not None, final=final, stop_reason=stop_reason)
