"""Differential test of every Cython twin against its reference engine (issue: Cython core).

Generic over ``ratai.engines._CYTHON_REGISTRY``: a game's twin joins by registration. For every
variant, seeded random games play the same action sequence on both backends, which must agree
at every step on ``current_player``, ``legal_actions`` and ``chance_outcomes``; every
``OBS_EVERY``-th step and at the end also on ``returns``, ``scores``, ``serialize()`` (the full
state, hidden parts included, in the reference's format) and one seat's ``observation`` /
``information_state_string`` (seats in turn; every seat at the end of the game).

The reference applies each sampled action through the contract's unchecked fast path
(``apply_unchecked``, what the search runs on), so its legality check is not paid twice per
step; the twin through its checked ``apply_action``. The checked path and its errors are the
contract suite's (``tests/engines/test_contract.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from ratai.engines import _CYTHON_REGISTRY, load_game
from ratai.search.common import apply_unchecked
from tests.conftest import game_variants, sample_action

CI_GAMES = 300
SLOW_GAMES = 10_000
OBS_EVERY = 10

TWIN_VARIANTS = [(g, v, p) for g, v, p, b in game_variants(backends=True) if b == "cython"]
TWIN_IDS = [f"{g}-{v}" for g, v, _ in TWIN_VARIANTS]


def play_both(name: str, params: dict, seed: int, obs_every: int = OBS_EVERY) -> int:
    """Play one seeded random game on both backends, asserting agreement; returns its length."""
    ref_game = load_game(name, backend="python", **params)
    cy_game = load_game(name, backend="cython", **params)
    n = ref_game.num_players()
    rng = np.random.default_rng(seed)
    ref, cy = ref_game.new_initial_state(), cy_game.new_initial_state()
    step = 0
    while True:
        where = f"{name} {params} seed {seed} step {step}"
        cp = ref.current_player()
        assert cy.current_player() == cp, where
        legal = ref.legal_actions()
        assert cy.legal_actions() == legal, where
        if cp == -1:
            assert cy.chance_outcomes() == ref.chance_outcomes(), where
        terminal = ref.is_terminal()
        assert cy.is_terminal() == terminal, where
        if terminal or step % obs_every == 0:
            assert cy.returns() == ref.returns(), where
            assert cy.scores() == ref.scores(), where
            # one seat in turn (every seat at the end); the full state via serialize()
            for p in range(n) if terminal else [(step // obs_every) % n]:
                info = ref.information_state_string(p)
                assert cy.information_state_string(p) == info, f"{where} seat {p}"
                assert cy.observation(p) == ref.observation(p), f"{where} seat {p}"
            assert cy.serialize() == ref.serialize(), where
        if terminal:
            assert cy.history() == ref.history()
            return step
        action = sample_action(ref, rng, legal)
        apply_unchecked(ref, action)  # the search's fast path; legal was checked above
        cy.apply_action(action)
        step += 1


@pytest.mark.parametrize(("name", "variant", "params"), TWIN_VARIANTS, ids=TWIN_IDS)
def test_twin_plays_exactly_like_the_reference(name, variant, params):
    for seed in range(CI_GAMES):
        play_both(name, params, seed)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "variant", "params"), TWIN_VARIANTS, ids=TWIN_IDS)
def test_twin_plays_exactly_like_the_reference_long(name, variant, params):
    for seed in range(CI_GAMES, CI_GAMES + SLOW_GAMES):
        play_both(name, params, seed, obs_every=25)


def test_every_twin_is_registered_with_its_reference():
    for name in _CYTHON_REGISTRY:
        cy = load_game(name, backend="cython")
        ref = load_game(name, backend="python")
        assert type(cy).__module__.startswith("ratai._speedups.")
        assert cy.params == ref.params and cy.variants == ref.variants
        assert cy.num_distinct_actions() == ref.num_distinct_actions()
        assert cy.max_game_length() == ref.max_game_length()
        assert load_game(name).__class__ is type(cy)  # "auto" takes the twin when built


def test_ratai_backend_python_forces_the_reference(monkeypatch):
    monkeypatch.setenv("RATAI_BACKEND", "python")
    for name in _CYTHON_REGISTRY:
        assert not type(load_game(name)).__module__.startswith("ratai._speedups.")
        assert not type(load_game(name, backend="cython")).__module__.startswith(
            "ratai._speedups.")
