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
from ratai.search.az import HIDDEN_MOVES, PLAY_OPTION_RANGES

from .config import Limits
from .errors import InvalidArgument, NotFound, ResourceExhausted

__all__ = ["BotConfig", "list_games", "make_game", "check_bot", "check_option", "player_range",
           "resolve_level", "BOT_OPTION_RANGES", "MAX_DEPTH"]


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
            "observation_schema": game.observation_schema(),
            "observation_tensor_shape": list(game.observation_tensor_shape()),
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
    except UnknownGameError:
        from .errors import quote

        raise NotFound(f"unknown game {quote(name, 100)}; known games: "
                       f"{registered_games()}") from None
    params = dict(params or {})
    refused = sorted(set(params) & set(limits.server_only_params))
    if refused:
        raise InvalidArgument(f"parameter(s) {refused} of {name!r} are server-only and may not "
                              f"be set by clients")
    params = _coerce(cls, params)
    try:
        return _cached_game(name, canonical_json(params))
    except (ValueError, TypeError, OverflowError) as exc:
        raise InvalidArgument(f"bad params for {name!r}: {exc}") from None


@functools.lru_cache(maxsize=256)
def _cached_game(name: str, params_json: str) -> Game:
    return load_game(name, **json.loads(params_json))


@dataclass(frozen=True)
class BotConfig:
    """A bot kind with its budget and options (plain data, sent to search workers).

    ``time_limit`` is in seconds; ``options`` are the kind's keyword options. ``level``:
    a strength preset 1..10 (``kind == "level"`` until :func:`check_bot` resolves it to the
    game's calibrated kind and budget; kept afterwards to say where the budget came from).
    """

    kind: str
    iterations: int | None = None
    time_limit: float | None = None
    max_depth: int | None = None
    seed: int | None = None
    options: dict = field(default_factory=dict)
    level: int | None = None

    def describe(self) -> dict:
        out = {"kind": self.kind, "iterations": self.iterations, "time_limit": self.time_limit,
               "max_depth": self.max_depth, "seed": self.seed, "options": dict(self.options)}
        if self.level is not None:
            out["level"] = self.level
        return out


#: Options a client may not pass (the service owns progress reporting).
_RESERVED_OPTIONS = ("on_progress", "progress_every", "skip_forced", "stop")

#: Largest ``max_depth`` (plies) a request may give.
MAX_DEPTH = 64

#: The bot options the service accepts, each with its allowed values: ``(int, lo, hi)``,
#: ``(float, lo, hi)`` (finite), ``(bool,)``, or a tuple of choices; ``None`` is allowed
#: where the bot's default is ``None``. Other options are refused (``INVALID_ARGUMENT``).
BOT_OPTION_RANGES: dict[str, tuple] = {
    "exploration": (float, 0.0, 100.0),
    "rollout": ("random", "heuristic"),
    "rollout_cutoff": (int, 1, 10_000, None),
    "rollout_epsilon": (float, 0.0, 1.0),
    "chance_key": ("infostate", "action"),
    "opponent_key": ("auto", "infostate", "action"),
    "search_backend": ("auto", "python", "cython"),
    "determinize": (bool,),
    "determinizations": (int, 1, 256),
    "mode": ("maxn", "paranoid"),
    "max_chance_outcomes": (int, 1, 1000, None),
    "transposition_table": (bool,),
    "chance_samples": (int, 1, 256),
    "joint_samples": (int, 1, 256),
    "max_evals": (int, 1, 100_000),
    # az (the packaged model only: a client cannot name a model file on the server): the
    # options a model may recommend, in their ranges, and the self-play ones
    **PLAY_OPTION_RANGES,
    "hidden_moves": HIDDEN_MOVES,
    "dirichlet_alpha": (float, 0.001, 100.0),
    "noise_fraction": (float, 0.0, 1.0),
    "temperature": (float, 0.0, 100.0),
}

#: Per-kind tighter caps (bounds on the heuristic bot's work per decision, besides its clock).
_KIND_RANGES: dict[tuple[str, str], tuple] = {
    ("heuristic", "determinizations"): (int, 1, 64),
    ("heuristic", "chance_samples"): (int, 1, 64),
    ("heuristic", "max_evals"): (int, 1, 10_000),
}


def check_option(kind: str, name: str, value: Any) -> Any:
    """``value`` if allowed for option ``name`` (see :data:`BOT_OPTION_RANGES`).

    Raises:
        InvalidArgument: an option the service does not offer, or a value out of range
            (the message names ``bot.options.<name>`` and the allowed values).
    """
    from .errors import quote

    spec = _KIND_RANGES.get((kind, name), BOT_OPTION_RANGES.get(name))
    where = f"bot.options.{name[:40]}"
    if spec is None:
        raise InvalidArgument(f"{where}: not an option this server accepts (allowed: "
                              f"{sorted(BOT_OPTION_RANGES)})")
    if value is None and spec[-1] is None and len(spec) == 4:
        return None
    t = spec[0]
    if t is bool:
        if not isinstance(value, bool):
            raise InvalidArgument(f"{where}: {quote(value, 40)} is not allowed (true or false)")
        return value
    if t is int or t is float:
        lo, hi = spec[1], spec[2]
        ok = isinstance(value, int | float) and not isinstance(value, bool) and \
            math.isfinite(value) and lo <= value <= hi and \
            (t is float or float(value).is_integer())
        if not ok:
            kind_s = "an integer" if t is int else "a finite number"
            raise InvalidArgument(f"{where}: {quote(value, 40)} is not allowed ({kind_s} in "
                                  f"{lo}..{hi})")
        return int(value) if t is int else float(value)
    if value not in spec:
        raise InvalidArgument(f"{where}: {quote(value, 40)} is not allowed (one of "
                              f"{list(spec)})")
    return value


def resolve_level(game: Game, bot: BotConfig) -> BotConfig:
    """A ``kind == "level"`` config as the game's calibrated kind, budget and options
    (``ratai.bots.levels``), keeping its seed and level; other configs unchanged.

    Raises:
        InvalidArgument: a level outside 1..10, a budget or option given with it, or a game
            without calibrated levels.
    """
    if bot.kind != "level":
        return bot
    from ratai.arena import BotSpec
    from ratai.bots.levels import MAX_LEVEL, MIN_LEVEL, level_spec

    if bot.level is None or not MIN_LEVEL <= bot.level <= MAX_LEVEL:
        raise InvalidArgument(f"bot.level {bot.level} is not allowed ({MIN_LEVEL}..{MAX_LEVEL}; "
                              f"0: not set)")
    given = [name for name, v in (("iterations", bot.iterations),
                                  ("time_limit_s", bot.time_limit),
                                  ("max_depth", bot.max_depth)) if v is not None]
    if given or bot.options:
        raise InvalidArgument(f"bot.level sets the budget and options; do not give "
                              f"{given + (['options'] if bot.options else [])} with it")
    try:
        spec = BotSpec.parse(level_spec(game, bot.level))
    except ValueError as exc:
        raise InvalidArgument(f"bot.level: {exc}") from None
    return BotConfig(spec.kind, spec.iterations, spec.time_limit, None, bot.seed,
                     dict(spec.options), bot.level)


def check_bot(game: Game, seat: int, bot: BotConfig, limits: Limits) -> BotConfig:
    """Validate ``bot`` for ``seat`` of ``game`` against the server's limits.

    A ``level`` config is first resolved to its kind and budget (:func:`resolve_level`).

    Fills a default budget (``limits.default_iterations``) for a search kind given none.
    Every option is checked against :data:`BOT_OPTION_RANGES`; ``max_depth`` is at most
    :data:`MAX_DEPTH`. The search's wall-clock time is capped later, when it starts
    (``worker.effective_time_limit``).

    Raises:
        InvalidArgument: unknown kind (the message lists the kinds), a bad option or budget,
            a kind that cannot play ``game``.
        ResourceExhausted: iterations or seconds over the server's limits.
    """
    from ratai.bots import BOT_KINDS, SearchBot, make_bot

    bot = resolve_level(game, bot)
    if bot.kind not in BOT_KINDS:
        from .errors import quote

        raise InvalidArgument(f"unknown bot kind {quote(bot.kind, 40)}; known kinds: "
                              f"{sorted(BOT_KINDS)}")
    if bot.max_depth is not None and not 1 <= bot.max_depth <= MAX_DEPTH:
        raise InvalidArgument(f"bot.max_depth {bot.max_depth} is not allowed (1..{MAX_DEPTH})")
    if bot.iterations is not None and bot.iterations > limits.max_iterations:
        raise ResourceExhausted(f"iterations {bot.iterations} over the server's limit "
                                f"{limits.max_iterations}")
    if bot.time_limit is not None and bot.time_limit > limits.max_seconds:
        raise ResourceExhausted(f"time_limit_s {bot.time_limit} over the server's limit "
                                f"{limits.max_seconds}")
    reserved = sorted(set(bot.options) & set(_RESERVED_OPTIONS))
    if reserved:
        raise InvalidArgument(f"bot option(s) {reserved} are set by the service")
    options = {k: check_option(bot.kind, k, v) for k, v in bot.options.items()}
    bot = BotConfig(bot.kind, bot.iterations, bot.time_limit, bot.max_depth, bot.seed, options,
                    bot.level)
    if issubclass(BOT_KINDS[bot.kind], SearchBot) and bot.iterations is None \
            and bot.time_limit is None and bot.max_depth is None:
        bot = BotConfig(bot.kind, limits.default_iterations, None, None, bot.seed,
                        dict(bot.options), bot.level)
    try:
        make_bot(bot.kind, game, seat, iterations=bot.iterations, time_limit=bot.time_limit,
                 max_depth=bot.max_depth, seed=bot.seed, **bot.options)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(f"bad bot spec: {exc}") from None
    return bot
