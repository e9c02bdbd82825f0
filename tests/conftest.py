"""Shared test helpers: random playouts over any registered game."""

from __future__ import annotations

import importlib.util
import signal
from pathlib import Path

import numpy as np
import pytest

from ratai.engines import _CYTHON_REGISTRY, game_class, load_game, registered_games
from ratai.engines.api import sample_chance_outcome


def sigint_default() -> None:
    """A ``preexec_fn`` for a child that must see Ctrl-C: SIGINT at its default even when
    the suite runs as a background job (which starts with SIGINT ignored, and Python then
    never raises ``KeyboardInterrupt``)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def load_script(relpath: str):
    """A script of the repository (``bench/``, ``scripts/``: not packages) as a module,
    ``relpath`` relative to the repository root."""
    path = Path(__file__).resolve().parents[1] / relpath
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def game_variants(backends: bool = False) -> list[tuple]:
    """``(game, variant, params)`` for every registered game and each of its variants.

    With ``backends=True``: ``(game, variant, params, backend)``, the reference
    (``"python"``) for every game plus ``"cython"`` for games with a compiled twin.
    """
    out = [(name, v, params, "python") for name in registered_games()
           for v, params in game_class(name).variants.items()]
    out += [(name, v, params, "cython") for name in registered_games()
            if name in _CYTHON_REGISTRY
            for v, params in game_class(name, "python").variants.items()]
    return out if backends else [(g, v, p) for g, v, p, b in out if b == "python"]


def _variant_id(game: str, variant: str, backend: str) -> str:
    return f"{game}-{variant}" + ("" if backend == "python" else f"-{backend}")


VARIANT_IDS = [_variant_id(*entry[:2], entry[3]) for entry in game_variants(backends=True)]


def sample_action(state, rng: np.random.Generator, legal: list[int] | None = None) -> int:
    """A chance outcome by its probability, or a uniform legal decision (from ``legal`` when
    the caller already holds ``state.legal_actions()``)."""
    if state.is_chance_node():
        return sample_chance_outcome(state, rng)
    if legal is None:
        legal = state.legal_actions()
    return legal[rng.integers(len(legal))]


def random_playout(game, seed: int, on_state=None):
    """Play ``game`` to the end with random actions; call ``on_state(state)`` before each."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if on_state is not None:
            on_state(state)
        state.apply_action(sample_action(state, rng))
    if on_state is not None:
        on_state(state)
    return state


@pytest.fixture(params=game_variants(backends=True), ids=VARIANT_IDS)
def any_game(request):
    name, _, params, backend = request.param
    return load_game(name, backend=backend, **params)
