"""Playing-strength presets ``level=1..10``, calibrated per game by ``ratai ladder``.

One data table, ``ratai/bots/levels.json`` (package data), maps each game and level to a
bot spec (``ratai.arena.BotSpec`` syntax: kind, budget, options) together with the rating
that spec measured in a rated round robin on this project's machine and the command that
measured it. Every front end reads this table: ``make_bot("level", game, seat, level=L)``,
the CLI's ``level:L`` bot specs (``ratai play --bots level:3``, ``ratai arena``,
``ratai ladder``), and the gRPC service's ``BotSpec.level``.

Level 1 is random; then come rollout ``mcts`` (perfect-information titles) or ``ismcts``
(hidden-information ones) at rising iteration budgets, with the one-ply heuristic placed by
its measured rating, and a budget dropped when it measured significantly weaker than the
level below (``ratai.ladder.calibrate_levels``); the measured ratings say how far apart the
levels are. A level whose spec
needs a bot kind that is not installed (``az`` before a model ships) is refused with a
``ValueError`` naming the missing kind, so no level silently changes meaning.

Re-calibrate a game with ``ratai ladder GAME --players 2 --calibrate-levels
ratai/bots/levels.json`` (see ``docs/ladder.md``).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

__all__ = ["MIN_LEVEL", "MAX_LEVEL", "LEVEL_CANDIDATES", "check_level", "level_table",
           "level_entry", "level_spec", "adapt_spec", "levels_path"]

MIN_LEVEL = 1
MAX_LEVEL = 10

#: The specs calibrated as levels 1..9, weakest first; ``{rollout}`` is ``mcts`` on
#: perfect-information games and ``ismcts`` otherwise. Entrants rated above them (``az``)
#: take the top levels; level 10 is the strongest bot the ladder kept (``az:3000`` in First
#: Rat and Rats to Riches, ``ismcts:10000`` in Rat Trap and Ratapolis, levels.json).
LEVEL_CANDIDATES: tuple[str, ...] = (
    "random", "heuristic", "{rollout}:10", "{rollout}:30", "{rollout}:100",
    "{rollout}:300", "{rollout}:1000", "{rollout}:3000", "{rollout}:10000",
)


def levels_path():
    """The packaged table (a ``Traversable``)."""
    return resources.files("ratai.bots").joinpath("levels.json")


@functools.lru_cache(maxsize=1)
def level_table() -> dict[str, Any]:
    """The parsed ``levels.json``: ``{"format": 1, "games": {game: {"players", "command",
    "games", "levels": [{"level", "spec", "mu", "sigma", "ordinal", "win_rate",
    "wilson95", "games", "seconds_per_move", ...}, ...]}}}``."""
    return json.loads(levels_path().read_text())


def check_level(level: Any) -> int:
    """``level`` as an int in ``MIN_LEVEL..MAX_LEVEL``.

    Raises:
        ValueError: not an integer (``"5"`` is accepted), or out of range.
    """
    if isinstance(level, bool):
        raise ValueError(f"bad level {level!r}: allowed integers {MIN_LEVEL}..{MAX_LEVEL}")
    try:
        value = int(level)
    except (TypeError, ValueError):
        raise ValueError(f"bad level {level!r}: allowed integers "
                         f"{MIN_LEVEL}..{MAX_LEVEL}") from None
    if isinstance(level, float) and not level.is_integer() or \
            not MIN_LEVEL <= value <= MAX_LEVEL:
        raise ValueError(f"bad level {level!r}: allowed integers {MIN_LEVEL}..{MAX_LEVEL}")
    return value


def level_entry(game_name: str, level: Any) -> dict[str, Any]:
    """The table row of ``level`` for ``game_name`` (spec, measured rating, ...).

    Raises:
        ValueError: a bad level (:func:`check_level`) or a game without calibrated levels
            (the message lists the games that have them).
    """
    lv = check_level(level)
    games = level_table()["games"]
    if game_name not in games:
        raise ValueError(f"no calibrated levels for game {game_name!r}; games with levels: "
                         f"{sorted(games)}")
    return next(row for row in games[game_name]["levels"] if row["level"] == lv)


def level_spec(game: Any, level: Any) -> str:
    """The bot spec (``ratai.arena.BotSpec`` syntax) of ``level`` for ``game`` (a ``Game``,
    or a registry name for the table's spec as calibrated).

    The levels were calibrated on each game's default parameters. For a ``Game`` the spec is
    adapted to its parameters so every level plays every variant (:func:`adapt_spec`): an
    ``az`` level whose packaged network does not fit the game (another variant, other
    components) becomes the game's rollout search at the same budget, and on a game with
    simultaneous moves (Ratapolis' joint view, ``simultaneous=True``) a tree search becomes
    ``smmcts`` at the same budget. Those adapted levels are not calibrated.

    Raises:
        ValueError: as :func:`level_entry`, or the level's kind is not installed.
    """
    from ratai.bots import BOT_KINDS

    name = game if isinstance(game, str) else game.name
    spec = level_entry(name, level)["spec"]
    kind = spec.split(":", 1)[0]
    if kind not in BOT_KINDS:
        raise ValueError(f"level {level} of {name} is {spec!r}, whose bot kind "
                         f"{kind!r} is not installed")
    return spec if isinstance(game, str) else adapt_spec(game, spec)


#: Bot kinds that search a tree of sequential decisions (``smmcts`` replaces them on a
#: game with simultaneous moves).
_TREE_KINDS = ("mcts", "ismcts", "pimc", "az", "expectimax")


def adapt_spec(game: Any, spec: str) -> str:
    """``spec`` (``KIND[:BUDGET]``) made playable on ``game``: ``az`` without a packaged
    network that fits ``game`` (``Model.check_game``) -> the rollout search
    (``ratai.ladder.rollout_kind``); a tree search on a ``simultaneous=True`` game ->
    ``smmcts``; the budget is kept."""
    kind, sep, rest = spec.partition(":")
    if kind == "az" and not _packaged_fits(game):
        from ratai.ladder import rollout_kind

        kind = rollout_kind(game)
    if game.params.get("simultaneous") is True and kind in _TREE_KINDS:
        kind = "smmcts"
    return kind + sep + rest


def _packaged_fits(game: Any) -> bool:
    from ratai.nn import ModelError, packaged

    path = packaged(game)
    if path is None:
        return False
    try:
        _load_model(str(path)).check_game(game)
    except ModelError:
        return False
    return True


@functools.lru_cache(maxsize=8)
def _load_model(path: str) -> Any:
    from ratai.nn import Model

    return Model.load(path)
