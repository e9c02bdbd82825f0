"""Protobuf <-> domain conversion (the only place that knows both)."""

from __future__ import annotations

import json
import math
from typing import Any

from google.protobuf import struct_pb2

from . import ratai_pb2 as pb
from .catalog import BotConfig
from .errors import InvalidArgument
from .sessions import HumanSpec

__all__ = ["struct_to_dict", "check_text", "check_number", "check_json_tree", "to_value",
           "to_struct", "bot_from_pb", "seat_from_pb", "game_type_pb", "view_pb", "event_pb",
           "analysis_pb"]


#: Input limits of Struct fields (params, bot options) and observation JSON. ``MAX_ITEMS``
#: bounds the values of one field in all (every nesting level together: the largest
#: observation of any title holds under 400), so a request near the message size limit is
#: refused after ~10,000 values instead of being converted whole on the event loop.
MAX_DEPTH = 32
MAX_ITEMS = 10_000
MAX_STRING = 10_000
MAX_NUMBER = 2.0**53


def struct_to_dict(s: struct_pb2.Struct | None, name: str = "params") -> dict:
    """A Struct as a plain dict, checked (numbers are floats; ``catalog`` makes ints).

    Raises:
        InvalidArgument: a NaN or infinite number, a number beyond ±2**53, a string over
            ``MAX_STRING`` characters, more than ``MAX_ITEMS`` values in all, nesting deeper
            than ``MAX_DEPTH``; the message names the field (e.g. ``bot.options.exploration``).
    """
    if s is None:
        return {}
    return _struct(s, name, 0, [MAX_ITEMS])


def _spend(left: list[int], n: int, path: str) -> None:
    """Count ``n`` more values against the field's ``MAX_ITEMS``."""
    left[0] -= n
    if left[0] < 0:
        raise InvalidArgument(f"{path}: more than {MAX_ITEMS} values in all")


def _struct(s: struct_pb2.Struct, path: str, depth: int, left: list[int]) -> dict:
    if depth > MAX_DEPTH:
        raise InvalidArgument(f"{path}: nested deeper than {MAX_DEPTH} levels")
    _spend(left, len(s.fields), path)
    out = {}
    for key, v in s.fields.items():
        check_text(f"{path} key", key, 200)
        out[key] = _value(v, f"{path}.{key}" if len(key) <= 40 else f"{path}.{key[:40]}...",
                          depth + 1, left)
    return out


def _value(v: struct_pb2.Value, path: str, depth: int, left: list[int]):
    kind = v.WhichOneof("kind")
    if kind == "number_value":
        return check_number(path, v.number_value)
    if kind == "string_value":
        return check_text(path, v.string_value, MAX_STRING)
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return _struct(v.struct_value, path, depth, left)
    if kind == "list_value":
        if depth > MAX_DEPTH:
            raise InvalidArgument(f"{path}: nested deeper than {MAX_DEPTH} levels")
        items = v.list_value.values
        _spend(left, len(items), path)
        return [_value(x, f"{path}[{i}]", depth + 1, left) for i, x in enumerate(items)]
    return None


def check_number(path: str, x: float) -> float:
    """``x`` if finite and within ±2**53, else ``InvalidArgument`` naming ``path``."""
    if not math.isfinite(x):
        raise InvalidArgument(f"{path}: {x!r} is not allowed (a finite number is)")
    if abs(x) > MAX_NUMBER:
        raise InvalidArgument(f"{path}: {x:.6g} is too large (allowed within ±2**53)")
    return x


def check_text(path: str, text: str, limit: int) -> str:
    """``text`` if at most ``limit`` characters, else ``InvalidArgument`` naming ``path``."""
    if len(text) > limit:
        raise InvalidArgument(f"{path}: {len(text)} characters, more than the {limit} allowed")
    return text


def check_json_tree(obj, path: str, depth: int = 0):
    """Walk parsed JSON: the same limits as :func:`struct_to_dict` (ints within ±2**53)."""
    stack = [(obj, path, depth)]
    left = [MAX_ITEMS]
    while stack:
        x, where, d = stack.pop()
        if d > MAX_DEPTH:
            raise InvalidArgument(f"{where}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(x, dict):
            _spend(left, len(x), where)
            for k, v in x.items():
                check_text(f"{where} key", k, 200)
                stack.append((v, f"{where}.{k[:40]}", d + 1))
        elif isinstance(x, list):
            _spend(left, len(x), where)
            stack.extend((v, f"{where}[{i}]", d + 1) for i, v in enumerate(x))
        elif isinstance(x, bool) or x is None:
            pass
        elif isinstance(x, int | float):
            check_number(where, float(x) if abs(x) < 1e300 else math.inf)
        elif isinstance(x, str):
            check_text(where, x, MAX_STRING)
    return obj


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
        raise InvalidArgument(f"{name}: {x!r} is not allowed (a finite number >= 0 is)")
    return x


def bot_from_pb(b: pb.BotSpec, default_kind: str) -> BotConfig:
    """``BotSpec`` -> ``BotConfig`` (0 means "not set" for the budget fields and ``level``).

    A ``level`` gives ``BotConfig("level", ..., level=L)``, resolved by
    ``catalog.check_bot`` for the game (which also refuses a budget given with it).

    Raises:
        InvalidArgument: a negative budget, a level outside 1..10, a level with a kind.
    """
    if b.iterations < 0:
        raise InvalidArgument(f"bad iterations {b.iterations}: allowed >= 0 (0: not set)")
    if b.max_depth < 0:
        raise InvalidArgument(f"bad max_depth {b.max_depth}: allowed >= 0 (0: not set)")
    tl = _finite(b.time_limit_s, "bot.time_limit_s")
    check_text("bot.kind", b.kind, 40)
    options = struct_to_dict(b.options, "bot.options") if b.HasField("options") else {}
    for k, v in list(options.items()):
        if isinstance(v, float) and v.is_integer():  # JSON numbers: ints where integral
            options[k] = int(v)
    seed = int(b.seed) if b.HasField("seed") else None
    if b.level != 0 or b.kind == "level":
        from ratai.bots.levels import MAX_LEVEL, MIN_LEVEL

        if not MIN_LEVEL <= b.level <= MAX_LEVEL:
            raise InvalidArgument(f"bot.level {b.level} is not allowed ({MIN_LEVEL}..{MAX_LEVEL}; "
                                  f"0: not set)")
        if b.kind not in ("", "level"):
            raise InvalidArgument(f"bot.level {b.level} with bot.kind {b.kind!r}: a level "
                                  f"sets the kind (leave kind empty or 'level')")
        return BotConfig("level", int(b.iterations) or None, tl or None,
                         int(b.max_depth) or None, seed, options, int(b.level))
    return BotConfig(b.kind or default_kind, int(b.iterations) or None, tl or None,
                     int(b.max_depth) or None, seed, options)


def seat_from_pb(s: pb.SeatSpec, i: int, default_kind: str) -> HumanSpec | BotConfig:
    which = s.WhichOneof("player")
    if which == "human":
        return HumanSpec(check_text(f"seats[{i}].human.display_name", s.human.display_name,
                                    200))
    if which == "bot":
        try:
            return bot_from_pb(s.bot, default_kind)
        except InvalidArgument as exc:  # name the seat, as catalog.check_bot does
            raise InvalidArgument(f"seat {i}: {exc}") from None
    raise InvalidArgument(f"seats[{i}]: set human or bot")


def game_type_pb(d: dict) -> pb.GameType:
    out = pb.GameType(
        name=d["name"], title=d["title"], summary=d["summary"], min_players=d["min_players"],
        max_players=d["max_players"], num_distinct_actions=d["num_distinct_actions"],
        perfect_information=d["perfect_information"], max_game_length=d["max_game_length"],
        observation_schema_json=json.dumps(d["observation_schema"], sort_keys=True,
                                           separators=(",", ":")),
        observation_tensor_shape=d["observation_tensor_shape"])
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
        seats=[pb.SeatInfo(seat=i, kind=k, display_name=n) for i, k, n in d["seats"]],
        text=d.get("text", ""))
    if obs is not None:
        out.observation.CopyFrom(to_struct(obs))
    return out


def event_pb(d: dict) -> pb.GameEvent:
    return pb.GameEvent(
        kind=pb.GameEvent.Kind.Value(d["kind"]), move_number=d["move_number"],
        player=d["player"], label=d.get("label", ""), action=d.get("action", -1),
        your_turn=d.get("your_turn", False), scores=d.get("scores", []),
        returns=d.get("returns", []))


def _pv(steps) -> list[pb.PVStep]:
    return [pb.PVStep(player=int(p.player), action=int(p.action), label=p.label)
            for p in steps or ()]


def analysis_pb(a: Any, *, final: bool, stop_reason: str = "") -> pb.Analysis:
    """A ``ratai.search.Analysis`` as a message."""
    best_label = next((m.label for m in a.moves if m.action == a.best_action), "")
    seed = a.seed if isinstance(a.seed, int) and not isinstance(a.seed, bool) else None
    return pb.Analysis(
        best_action=int(a.best_action), best_label=best_label,
        moves=[pb.MoveStat(action=int(m.action), label=m.label, visits=int(m.visits),
                           value=float(m.value), prior=float(m.prior),
                           pv=_pv(getattr(m, "pv", ())),
                           values=[float(v) for v in getattr(m, "values", ()) or ()])
               for m in a.moves],
        pv=_pv(a.pv),
        iterations=int(a.iterations), nodes=int(a.nodes), max_depth=int(a.max_depth),
        elapsed_s=float(a.elapsed_s), seat=int(a.player), kind=a.kind,
        seed=seed if seed is not None and 0 <= seed < 2**64 else 0,
        has_seed=seed is not None, final=final, stop_reason=stop_reason)
