"""The game catalogue, checked game construction and bot specs (no gRPC here).

Everything is generic over ``ratai.engines.registered_games()``: a newly registered game is
served without service code.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ratai.engines import Game, UnknownGameError, game_class, load_game, registered_games
from ratai.engines.api import canonical_json

from .config import Limits
from .errors import InvalidArgument, NotFound, ResourceExhausted

__all__ = ["BotConfig", "list_games", "make_game", "check_bot", "player_range"]


def player_range(cls: type[Game]) -> tuple[int, int]:
    """Smallest and largest ``num_players`` the game accepts (probing 1..12 with its Param)."""
    spec = next((p for p in cls.param_specs if p.name == "num_players"), None)
    counts = {int(v.get("num_players", spec.default if spec else 0)) for v in cls.variants.values()}
    if spec is not None:
        for n in range(1, 13):
            try:
                spec.validate(n)
                counts.add(n)
            except ValueError:
                pass
    counts.discard(0)
    return (min(counts), max(counts)) if counts else (0, 0)


def list_games(limits: Limits) -> list[dict]:
    """One dict per registered game (sorted by name): the ``GameType`` fields."""
    out = []
    for name in registered_games():
        cls = game_class(name)
        game = load_game(name)
        lo, hi = player_range(cls)
        params = []
        for p in cls.param_specs:
            d = p.describe()
            d["server_only"] = p.name in limits.server_only_params
            params.append(d)
        out.append({
            "name": name, "title": cls.title, "summary": cls.summary,
            "min_players": lo, "max_players": hi, "params": params,
            "num_distinct_actions": game.num_distinct_actions(),
            "max_game_length": game.max_game_length(),
            "perfect_information": bool(cls.perfect_information),
            "variants": {k: dict(v) for k, v in cls.variants.items()},
        })
    return out


def _coerce(cls: type[Game], params: Mapping[str, Any]) -> dict:
    """JSON numbers arrive as floats: make integral ones ints where the Param wants an int."""
    specs = {p.name: p for p in cls.param_specs}
    out = {}
    for key, value in params.items():
        spec = specs.get(key)
        if isinstance(value, float) and spec is not None and spec.type is not float \
                and math.isfinite(value) and value.is_integer():
            value = int(value)
        elif isinstance(value, int) and not isinstance(value, bool) and spec is not None \
                and spec.type is float:
            value = float(value)
        out[key] = value
    return out


def make_game(name: str, params: Mapping[str, Any] | None, limits: Limits) -> Game:
    """The game ``name`` with client ``params``, checked.

    Raises:
        NotFound: ``name`` is not a registered game (the message lists the known ones).
        InvalidArgument: an unknown, server-only or bad parameter (named, with the allowed
            values).
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"game is required; known games: {registered_games()}")
    try:
        cls = game_class(name)
    except UnknownGameError as exc:
        raise NotFound(str(exc)) from None
    params = dict(params or {})
    refused = sorted(set(params) & set(limits.server_only_params))
    if refused:
        raise InvalidArgument(f"parameter(s) {refused} of {name!r} are server-only and may not "
                              f"be set by clients")
    params = _coerce(cls, params)
    try:
        return _cached_game(name, canonical_json(params))
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(f"bad params for {name!r}: {exc}") from None


@functools.lru_cache(maxsize=256)
def _cached_game(name: str, params_json: str) -> Game:
    return load_game(name, **json.loads(params_json))


@dataclass(frozen=True)
class BotConfig:
    """A bot kind with its budget and options (plain data, sent to search workers).

    ``time_limit`` is in seconds; ``options`` are the kind's keyword options.
    """

    kind: str
    iterations: int | None = None
    time_limit: float | None = None
    max_depth: int | None = None
    seed: int | None = None
    options: dict = field(default_factory=dict)

    def describe(self) -> dict:
        return {"kind": self.kind, "iterations": self.iterations, "time_limit": self.time_limit,
                "max_depth": self.max_depth, "seed": self.seed, "options": dict(self.options)}


#: Options a client may not pass (the service owns progress reporting).
_RESERVED_OPTIONS = ("on_progress", "progress_every", "skip_forced")


def check_bot(game: Game, seat: int, bot: BotConfig, limits: Limits) -> BotConfig:
    """Validate ``bot`` for ``seat`` of ``game`` against the server's limits.

    Fills a default budget (``limits.default_iterations``) for a search kind given none.

    Raises:
        InvalidArgument: unknown kind (the message lists the kinds), a bad option or budget,
            a kind that cannot play ``game``.
        ResourceExhausted: iterations or seconds over the server's limits.
    """
    from ratai.bots import BOT_KINDS, SearchBot, make_bot

    if bot.kind not in BOT_KINDS:
        raise InvalidArgument(f"unknown bot kind {bot.kind!r}; known kinds: {sorted(BOT_KINDS)}")
    if bot.iterations is not None and bot.iterations > limits.max_iterations:
        raise ResourceExhausted(f"iterations {bot.iterations} over the server's limit "
                                f"{limits.max_iterations}")
    if bot.time_limit is not None and bot.time_limit > limits.max_seconds:
        raise ResourceExhausted(f"time_limit_s {bot.time_limit} over the server's limit "
                                f"{limits.max_seconds}")
    reserved = sorted(set(bot.options) & set(_RESERVED_OPTIONS))
    if reserved:
        raise InvalidArgument(f"bot option(s) {reserved} are set by the service")
    if issubclass(BOT_KINDS[bot.kind], SearchBot) and bot.iterations is None \
            and bot.time_limit is None and bot.max_depth is None:
        bot = BotConfig(bot.kind, limits.default_iterations, None, None, bot.seed,
                        dict(bot.options))
    try:
        make_bot(bot.kind, game, seat, iterations=bot.iterations, time_limit=bot.time_limit,
                 max_depth=bot.max_depth, seed=bot.seed, **bot.options)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(f"bad bot spec: {exc}") from None
    return bot
