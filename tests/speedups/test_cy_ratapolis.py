"""Ratapolis Cython twin (``_speedups/ratapolis.pyx``): what the generic twin suites
(``test_cy_differential.py``, ``test_cy_state.py``) do not reach.

The Metro's empty areas computed on the building graph against the reference's cell flood
fill (RP-5), layouts given as a parameter, the joint-action view delegated to the reference,
and the C-level chance key ``c_info_hash`` against ``information_state_string``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ratai.engines import SIMULTANEOUS, load_game
from ratai.engines.ratapolis.rules import RatapolisState as RefState
from tests.conftest import sample_action
from tests.speedups.test_cy_differential import play_both

twin = pytest.importorskip("ratai._speedups.ratapolis")

ALL_PROPS = "A,B,C,F,G,H,I,L,S,T"


def _to_planning(state, rng):
    while state.phase != "plan":
        state.apply_action(sample_action(state, rng))
    return state


def test_metro_and_bus_destinations_match_the_reference_geometry():
    """RP-5 / RP-6: for random sets of hunted tiles (areas of one or several adjacent tiles)
    the twin offers the Metro and Bus station holder exactly the reference's moves; the twin
    finds empty areas as connected groups of hunted tiles instead of flood-filling cells."""
    ref_game = load_game("ratapolis", backend="python", num_players=3, property_tokens="H,L")
    cy_game = load_game("ratapolis", backend="cython", num_players=3, property_tokens="H,L")
    rng = np.random.default_rng(7)
    base = _to_planning(ref_game.new_initial_state(), rng)
    metro_moves = 0
    for trial in range(300):
        ref = base.clone()
        k = int(rng.integers(1, 9))
        removed = [int(x) for x in rng.choice(ref_game.nb, size=k, replace=False)]
        ref.removed = removed
        for x in removed:
            for s in range(3):
                ref.supply[s] += ref.board[x][s]
                ref.board[x][s] = 0
        ref.tokens = {"H": 0, "L": 0} if trial % 3 else {"H": 0, "L": 1}
        cy = cy_game.from_reference(ref)
        assert cy.legal_actions() == ref.legal_actions(), removed
        left = max(ref.legal_actions())  # a move (the highest id)
        ref.apply_action(left)
        cy.apply_action(left)
        assert cy.legal_actions() == ref.legal_actions(), removed
        metro, _ = ref_game.geometry(removed)
        metro_moves += sum(len(m) for m in metro)
    assert metro_moves > 0


@pytest.mark.parametrize("n", [2, 5])
def test_a_layout_given_as_a_parameter_plays_like_the_reference(n):
    """A city other than the first-game one (the grid mirrored), with every property."""
    rows = load_game("ratapolis", backend="python").data.first_game_layout
    params = {"num_players": n, "layout": "/".join(r[::-1] for r in rows),
              "property_tokens": ALL_PROPS}
    for seed in range(15):
        play_both("ratapolis", params, seed)


def test_the_joint_view_is_the_reference_engine():
    """``simultaneous=True`` is not compiled: the twin game makes reference states, so both
    backends give the same plays, serializations and samples."""
    cy_game = load_game("ratapolis", backend="cython", num_players=3, simultaneous=True)
    ref_game = load_game("ratapolis", backend="python", num_players=3, simultaneous=True)
    assert type(cy_game).__module__ == "ratai._speedups.ratapolis"
    assert cy_game.num_distinct_actions() == ref_game.num_distinct_actions()
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    a, b = cy_game.new_initial_state(), ref_game.new_initial_state()
    assert type(a) is RefState
    while not a.is_terminal():
        if a.current_player() == SIMULTANEOUS:
            plans_a = [int(rng_a.choice(a.legal_actions(s))) for s in range(3)]
            plans_b = [int(rng_b.choice(b.legal_actions(s))) for s in range(3)]
            a.apply_actions(plans_a)
            b.apply_actions(plans_b)
        else:
            a.apply_action(sample_action(a, rng_a))
            b.apply_action(sample_action(b, rng_b))
        assert a._fields() == b._fields()
    assert a.returns() == b.returns()
    assert type(cy_game.deserialize_state(a.serialize())) is RefState
    mid = cy_game.state_from_history(a.history()[:60])
    assert type(mid.resample_from_infostate(0, 3)) is RefState


def test_sequential_twin_refuses_apply_actions():
    state = load_game("ratapolis", backend="cython").new_initial_state()
    with pytest.raises(ValueError, match="simultaneous=True"):
        state.apply_actions([0, 0, 0])


@pytest.mark.parametrize("params", [{"num_players": 3, "property_tokens": ALL_PROPS},
                                    {"num_players": 5}])
def test_info_hash_keys_like_the_information_state(params):
    """IS-MCTS keys chance children by ``c_info_hash(player)``: for the children of a node
    (chance outcomes, and the planner's cells, which other seats must not tell apart), two
    children get equal digests exactly when the seat's ``information_state_string`` is
    equal."""
    search = pytest.importorskip("ratai._speedups.search")
    game = load_game("ratapolis", backend="cython", **params)
    n = game.num_players()
    for seed in range(3):
        rng = np.random.default_rng(seed)
        s = game.new_initial_state()
        step = 0
        while not s.is_terminal():
            if step % 3 == 0:
                children = []
                for a in s.legal_actions()[:12]:
                    c = s.clone()
                    c.apply_action(a)
                    children.append(c)
                for p in range(n):
                    keys = [(c.information_state_string(p), search.info_hash(c, p))
                            for c in children]
                    for x in keys:
                        for y in keys:
                            assert (x[0] == y[0]) == (x[1] == y[1]), (seed, step, p)
            s.apply_action(sample_action(s, rng))
            step += 1
