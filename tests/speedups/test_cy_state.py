"""Cython twins: copying, history, serialization across backends, the C-level path
(issue: Cython core). Generic over ``ratai.engines._CYTHON_REGISTRY``."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

from ratai._speedups import search
from ratai.engines import IllegalActionError, State, load_game
from ratai.engines.api import canonical_json
from tests.conftest import sample_action
from tests.speedups.test_cy_differential import TWIN_IDS, TWIN_VARIANTS

core = pytest.importorskip("ratai._speedups.core")
twins = pytest.mark.parametrize(("name", "variant", "params"), TWIN_VARIANTS, ids=TWIN_IDS)


def advance(state, rng, steps: int):
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(sample_action(state, rng))
    return state


@twins
def test_clone_shares_nothing(name, variant, params):
    """Play a clone to the end: the original is unchanged, and the other way round."""
    game = load_game(name, backend="cython", **params)
    rng = np.random.default_rng(5)
    for steps in (0, 30, 120):
        state = advance(game.new_initial_state(), rng, steps)
        before, hist = state.serialize(), state.history()
        clone = state.clone()
        assert clone == state and clone is not state
        advance(clone, rng, 10_000)
        assert state.serialize() == before and state.history() == hist
        twin = state.clone()
        advance(state, rng, 10_000)
        assert twin.serialize() == before and twin.history() == hist
        for c in (copy.copy(twin), copy.deepcopy(twin), pickle.loads(pickle.dumps(twin))):
            assert c == twin and c.serialize() == before


@twins
def test_history_is_copy_on_write(name, variant, params):
    """``_history`` (appended to by the Python search) never leaks between clones."""
    game = load_game(name, backend="cython", **params)
    state = advance(game.new_initial_state(), np.random.default_rng(1), 20)
    clone = state.clone()
    a = clone.legal_actions()[0]
    clone._apply_action(a)
    clone._history.append(a)
    assert clone.history() == state.history() + [a]
    assert len(state._history) == state.move_number() == len(clone.history()) - 1


@twins
def test_serialization_crosses_backends(name, variant, params):
    """A state serialized on one backend restores on the other and plays on identically."""
    ref_game = load_game(name, backend="python", **params)
    cy_game = load_game(name, backend="cython", **params)
    rng = np.random.default_rng(2)
    ref = advance(ref_game.new_initial_state(), rng, 60)
    cy = cy_game.deserialize_state(ref.serialize())
    assert cy.serialize() == ref.serialize() and cy.history() == ref.history()
    assert cy_game.state_from_history(ref.history()) == cy
    back = ref_game.deserialize_state(cy.serialize())
    assert back == ref
    with pytest.raises(ValueError):
        cy_game.deserialize_state(b"{}")


@twins
def test_resample_is_the_reference_sample(name, variant, params):
    """Determinization reads the information state only; equal seeds give equal samples."""
    ref_game = load_game(name, backend="python", **params)
    cy_game = load_game(name, backend="cython", **params)
    rng = np.random.default_rng(3)
    ref = advance(ref_game.new_initial_state(), rng, 45)
    cy = cy_game.deserialize_state(ref.serialize())
    for p in range(ref_game.num_players()):
        a, b = ref.resample_from_infostate(p, 9), cy.resample_from_infostate(p, 9)
        assert type(b) is type(cy)
        assert json.loads(a.serialize()) == json.loads(b.serialize())  # field order may differ
        assert canonical_json(b.observation(p)) == cy.observation_string(p)
        assert b.information_state_string(p) == cy.information_state_string(p)
        advance(b, rng, 10_000)
        assert b.is_terminal()


@twins
def test_checked_apply_rejects_and_changes_nothing(name, variant, params):
    game = load_game(name, backend="cython", **params)
    state = advance(game.new_initial_state(), np.random.default_rng(4), 25)
    before = state.serialize()
    legal = state.legal_actions()
    for bad in [-1, game.num_distinct_actions(), 10**30, "1", None, True, 1.5,
                next(a for a in range(game.num_distinct_actions()) if a not in legal)]:
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
        assert state.serialize() == before
    state.apply_action(np.int64(legal[0]))  # numpy integers are accepted
    assert state.history()[-1] == legal[0]


@twins
def test_state_is_a_contract_state(name, variant, params):
    game = load_game(name, backend="cython", **params)
    state = game.new_initial_state()
    assert isinstance(state, State) and state.get_game() is game
    assert game.heuristic_value(state, 0) == pytest.approx(
        load_game(name, backend="python", **params).heuristic_value(
            load_game(name, backend="python", **params).new_initial_state(), 0))
    assert state.render(0) and state.describe_action(None, state.legal_actions()[0])


@twins
def test_c_level_playouts_follow_the_reference(name, variant, params):
    """The ``cdef`` path (C buffers, C RNG) plays games the reference accepts step by step
    and ends in the same state."""
    ref_game = load_game(name, backend="python", **params)
    cy_game = load_game(name, backend="cython", **params)
    for seed in range(20):
        state = cy_game.new_initial_state()
        actions = core.random_playout_actions(state, seed)
        assert state.is_terminal()
        ref = ref_game.state_from_history(actions)  # raises if any action is illegal
        assert ref.is_terminal() and ref.returns() == state.returns()
        # the C path keeps no Python ``views`` log (perfect recall), only the twin's digest
        fields = {k: v for k, v in state._fields().items() if k != "views"}
        assert {k: v for k, v in ref._fields().items() if k != "views"} == fields
        again = cy_game.from_reference(ref)  # its digest from the reference's logs
        for p in range(ref_game.num_players()):
            if search.info_hash_nogil(state, p) is not None:
                assert search.info_hash_nogil(state, p) == search.info_hash_nogil(again, p)
    start = cy_game.new_initial_state()
    before = start.serialize()
    assert core.random_playouts(start, 50, 1) > 50
    assert start.serialize() == before
