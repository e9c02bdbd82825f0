"""A 3-player Rat Trap game with roles where the Manipulator's determinization crashed.

Found at stop 58 by an arena match (``ratai arena rat_trap --variant 3p-roles``, game 253 of
seed 5): seat 1, the Manipulator (rulebook, THE MANIPULATOR: it ordered piles 0 and 2), must
decide in round 2 after seat 2, the hidden Fool (rulebook, THE FOOL: it stores the Traps it
draws without revealing them), drew quietly from pile 0 and was eliminated. The exact
filter (``engines/belief.py``) had the seat's belief, but the compiled path read the
observation's digest from the closed-form rebuild, which declared this observation
impossible: it let the Fool hold a dealt Trap only among its quiet draws from piles the
seat did not order, and the observation no longer says which of the Fool's lost cards the
Manipulator saw drawn from its own piles. Two fixes: the digest comes from a world of the
belief (``view.exact_belief``), and the closed form (``view._posterior_table`` and
``_rebuild``, and the twin's compiled copy) lets any quiet card of the Fool hide a dealt
Trap (a limit of reading the current observation only, as its others,
``RatTrapGame._state_from_observation``).
"""

from __future__ import annotations

import numpy as np
import pytest

from ratai.engines import load_game
from ratai.engines.rat_trap.data import FOOL

#: the game's actions up to seat 1's decision
HISTORY = [
    55, 54, 52, 43, 16, 19, 19, 11, 1, 6, 29, 27, 11, 19, 18, 49, 16, 19, 19, 12, 3, 11, 19,
    18, 39, 16, 19, 19, 11, 3, 10, 19, 18, 5, 30, 49, 15, 37, 19, 20, 1, 5, 31, 27, 18, 5,
    29, 46, 15, 48, 12, 11, 19, 18, 10, 19, 18, 40, 16, 11, 0, 5, 28, 46, 15, 36, 12, 6, 29,
    7, 27, 18, 52, 51, 54, 5, 7, 99, 24, 26, 23, 24, 23, 87, 26, 23, 25, 24, 24, 38, 15, 43,
    19, 19, 10, 3, 11, 18, 5, 49, 15, 38, 19, 11, 0, 6, 30, 33, 46, 16, 19, 11, 2, 33, 11,
    17, 46, 15, 48, 19, 19, 12, 11, 18, 12, 19, 18, 42, 16, 19, 11, 2, 5, 38, 16, 19, 11, 0,
    7, 11, 35, 49, 16, 19, 20, 4, 12, 19, 18, 40, 16, 10, 0, 6, 29, 37, 16, 11, 1, 6, 31,
    30, 7, 18, 43, 15, 36, 10, 7, 7, 36, 15, 46, 11, 3, 12, 19, 18, 11, 33, 48, 16, 11, 12,
    19, 18
]


def _position(backend):
    game = load_game("rat_trap", backend=backend, num_players=3, roles=True)
    return game, game.state_from_history(HISTORY)


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_the_manipulator_determinizes_after_a_quiet_fool(backend):
    """Determinization (the exact belief) works here and keeps the seat's observation."""
    game, s = _position(backend)
    assert s.current_player() == 1 and s.observation(1)["role"] == "manipulator"
    for seed in range(5):
        w = s.resample_from_infostate(1, seed)
        assert w.observation(1) == s.observation(1)
    from ratai.bots import make_bot
    an = make_bot("ismcts", game, 1, iterations=50, seed=1).analyze(s)
    assert an.best_action in s.legal_actions()


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_closed_form_rebuild_of_this_observation(backend):
    """The closed form now has a place for the Fool's Trap: its rebuilds show the seat its
    observation, and seat 2 is the Fool in every one (no other deal of the free roles leaves
    room for the two Traps the seat cannot place)."""
    game, s = _position(backend)
    obs = s.observation(1)
    for seed in range(20):
        w = game.state_from_observation(1, obs, rng=np.random.default_rng(seed))
        assert w.observation(1) == obs
        assert (w.to_reference() if backend == "cython" else w).roles[2] == FOOL


def test_compiled_closed_form_of_this_observation():
    """The twin's compiled closed form (``rt_determinize``, used where no views log is kept)
    answers here by itself, with the same law's support: the seat's observation, the Fool in
    seat 2."""
    from ratai._speedups import search as cy

    game, s = _position("cython")
    s._set_views(None)   # no perfect recall: the closed form, not the filter
    search = cy.CyISMCTS(1, 0.7, "infostate")
    worlds = search.determinizations(s, 200, seed=3)
    assert search.gil_resamples == 0
    obs = s.observation(1)
    for w in worlds[:: 10]:
        assert w.observation(1) == obs
    assert all(w.to_reference().roles[2] == FOOL for w in worlds)
