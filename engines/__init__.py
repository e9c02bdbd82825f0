"""ratai.engines: the reference rule engines and the ``load_game`` registry.

>>> from ratai.engines import load_game
>>> game = load_game("rat_trap", num_players=3)
>>> state = game.new_initial_state()
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from .api import (
    CHANCE,
    INVALID,
    SIMULTANEOUS,
    TERMINAL,
    Game,
    IllegalActionError,
    Param,
    State,
    UnknownGameError,
)

__all__ = [
    "CHANCE", "INVALID", "SIMULTANEOUS", "TERMINAL", "Game", "IllegalActionError", "Param",
    "State", "UnknownGameError", "load_game", "registered_games", "game_class",
]

#: name -> "module:GameClass" of the pure-Python reference engine.
_REGISTRY: dict[str, str] = {
    "rat_trap": "ratai.engines.rat_trap.rules:RatTrapGame",
    "ratapolis": "ratai.engines.ratapolis.rules:RatapolisGame",
    "first_rat": "ratai.engines.first_rat.rules:FirstRatGame",
    "rats_to_riches": "ratai.engines.rats_to_riches.rules:RatsToRichesGame",
}

#: name -> "module:GameClass" of the Cython twin (issue: Cython core).
_CYTHON_REGISTRY: dict[str, str] = {
    "rat_trap": "ratai._speedups.rat_trap:RatTrapGame",
    "ratapolis": "ratai._speedups.ratapolis:RatapolisGame",
    "rats_to_riches": "ratai._speedups.rats_to_riches:RatsToRichesGame",
    "first_rat": "ratai._speedups.first_rat:FirstRatGame",
}

BACKENDS = ("auto", "python", "cython")


def registered_games() -> list[str]:
    """Names accepted by :func:`load_game`, sorted."""
    return sorted(_REGISTRY)


def _resolve(path: str) -> type[Game]:
    module, cls = path.split(":")
    return getattr(importlib.import_module(module), cls)


def game_class(name: str, backend: str = "python") -> type[Game]:
    """The ``Game`` subclass registered under ``name`` for ``backend``.

    Raises:
        UnknownGameError: ``name`` is not registered (the message lists the known names).
        ValueError: ``backend`` is not one of ``auto``, ``python``, ``cython``, or
            ``cython`` was asked for a game without a compiled twin.
    """
    if name not in _REGISTRY:
        raise UnknownGameError(f"unknown game {name!r}; known games: {registered_games()}")
    if backend not in BACKENDS:
        raise ValueError(f"bad backend {backend!r}: allowed one of {BACKENDS}")
    if os.environ.get("RATAI_BACKEND", "").lower() == "python":
        backend = "python"
    if backend in ("auto", "cython") and name in _CYTHON_REGISTRY:
        try:
            return _resolve(_CYTHON_REGISTRY[name])
        except ImportError:
            if backend == "cython":
                raise
    elif backend == "cython":
        raise ValueError(f"game {name!r} has no Cython backend yet")
    return _resolve(_REGISTRY[name])


def load_game(name: str, backend: str = "auto", **params: Any) -> Game:
    """Create the game ``name`` with ``params`` (e.g. ``num_players=3``).

    ``backend="auto"`` takes the Cython twin when it is built, else the reference;
    the environment variable ``RATAI_BACKEND=python`` forces the reference everywhere.

    Raises:
        UnknownGameError: unknown ``name``.
        ValueError: a bad parameter or backend, naming it and the allowed values.
    """
    return game_class(name, backend)(**params)
