"""Shared test helpers: random playouts over any registered game."""

from __future__ import annotations

import numpy as np
import pytest

from ratai.engines import game_class, load_game, registered_games


def game_variants() -> list[tuple[str, str, dict]]:
    """``(game, variant, params)`` for every registered game and each of its variants."""
    return [(name, v, params) for name in registered_games()
            for v, params in game_class(name).variants.items()]


VARIANT_IDS = [f"{g}-{v}" for g, v, _ in game_variants()]


def sample_action(state, rng: np.random.Generator) -> int:
    """A chance outcome by its probability, or a uniform legal decision."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        probs = np.array([p for _, p in outcomes])
        return outcomes[rng.choice(len(outcomes), p=probs / probs.sum())][0]
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


@pytest.fixture(params=game_variants(), ids=VARIANT_IDS)
def any_game(request):
    name, _, params = request.param
    return load_game(name, **params)
