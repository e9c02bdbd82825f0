"""Conformance suite of the engine contract (engines/api.py), run on every registered game
and each of its variants (the OpenSpiel habit: one suite, every game)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ratai.engines import CHANCE, TERMINAL, IllegalActionError, UnknownGameError, load_game
from ratai.engines.api import canonical_json
from tests.conftest import random_playout, sample_action

GAMES_PER_VARIANT = 3


def check_state(state) -> None:
    """Per-state invariants of the contract."""
    game = state.get_game()
    cp = state.current_player()
    legal = state.legal_actions()
    if cp == TERMINAL:
        assert state.is_terminal() and legal == []
        returns = state.returns()
        assert len(returns) == game.num_players()
        assert all(0.0 <= r <= 1.0 for r in returns) and sum(returns) <= 1.0 + 1e-9
        return
    assert legal, "a non-terminal state has legal actions"
    assert legal == sorted(set(legal))
    assert all(0 <= a < game.num_distinct_actions() for a in legal)
    assert state.returns() == [0.0] * game.num_players()
    if cp == CHANCE:
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == legal
        assert all(p > 0 for _, p in outcomes)
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    else:
        assert 0 <= cp < game.num_players()
        with pytest.raises(ValueError):
            state.chance_outcomes()
        labels = [state.action_to_string(cp, a) for a in legal]
        assert len(set(labels)) == len(labels), f"labels not unique: {labels}"
        for a, label in zip(legal, labels, strict=True):
            assert state.string_to_action(cp, label) == a
        other = (cp + 1) % game.num_players()
        if other != cp:
            assert state.legal_actions(other) == []
    assert len(scores := state.scores()) == game.num_players()
    assert all(isinstance(x, float) for x in scores)


def test_every_state_keeps_the_contract(any_game):
    for seed in range(GAMES_PER_VARIANT):
        final = random_playout(any_game, seed, on_state=check_state)
        assert len(final.history()) <= any_game.max_game_length()


def test_replay_and_serialization_reproduce_the_state(any_game):
    for seed in range(GAMES_PER_VARIANT):
        final = random_playout(any_game, seed)
        replayed = any_game.state_from_history(final.history())
        assert replayed == final
        restored = any_game.deserialize_state(final.serialize())
        assert restored == final and restored.history() == final.history()
        # mid-game too: a restored state continues exactly like the original
        mid = any_game.state_from_history(final.history()[: len(final.history()) // 2])
        copy = any_game.deserialize_state(mid.serialize())
        rng1, rng2 = np.random.default_rng(seed), np.random.default_rng(seed)
        while not mid.is_terminal():
            a = sample_action(mid, rng1)
            assert sample_action(copy, rng2) == a
            mid.apply_action(a)
            copy.apply_action(a)
        assert copy == mid


def test_clone_is_independent(any_game):
    state = any_game.new_initial_state()
    rng = np.random.default_rng(7)
    for _ in range(40):
        if state.is_terminal():
            break
        state.apply_action(sample_action(state, rng))
    before = state.serialize()
    clone = state.clone()
    assert clone == state
    while not clone.is_terminal():
        clone.apply_action(sample_action(clone, rng))
    assert state.serialize() == before


def test_illegal_actions_raise_and_change_nothing(any_game):
    state = any_game.new_initial_state()
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        legal = state.legal_actions()
        before = state.serialize()
        illegal = [a for a in range(any_game.num_distinct_actions()) if a not in legal][:3]
        for bad in illegal + [-1, any_game.num_distinct_actions(), "1", None, True, 1.5]:
            with pytest.raises(IllegalActionError) as info:
                state.apply_action(bad)
            assert str(legal[0]) in str(info.value) and repr(bad) in str(info.value)
            assert state.serialize() == before
        state.apply_action(sample_action(state, rng))
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(0)


def check_resamples(any_game, seeds) -> None:
    """resample_from_infostate: same information state; equal infostates + seed => equal sample;
    state_from_observation round-trips the observation (``observation_string``); every seat,
    every fifth state of the seeded random playouts ``seeds``."""
    n = any_game.num_players()

    def check(state):
        if state.move_number() % 5:
            return
        for p in range(n):
            info = state.information_state_string(p)
            json.loads(info)
            sample = state.resample_from_infostate(p, 11)
            assert sample.information_state_string(p) == info
            assert sample.current_player() == state.current_player()
            assert sample.legal_actions(p) == state.legal_actions(p)
            twin = state.resample_from_infostate(p, 12)  # another world, same infostate
            assert twin.information_state_string(p) == info
            again = twin.resample_from_infostate(p, 11)
            assert again.serialize() == sample.serialize()
            rebuilt = any_game.state_from_observation(p, state.observation(p), 5)
            assert canonical_json(rebuilt.observation(p)) == state.observation_string(p)
            # the current view round-trips; the past (perfect recall) is not in it
            assert rebuilt.observation_string(p) == state.observation_string(p)

    for seed in seeds:
        random_playout(any_game, seed, on_state=check)


def test_resample_keeps_information_state_and_depends_only_on_it(any_game):
    check_resamples(any_game, range(1))


@pytest.mark.slow
def test_resample_keeps_information_state_on_more_games(any_game):
    check_resamples(any_game, range(1, 11))


def test_resampled_states_play_on(any_game):
    """A determinization is a full, playable state: random play from it terminates."""
    state = any_game.new_initial_state()
    rng = np.random.default_rng(1)
    for step in range(400):
        if state.is_terminal():
            break
        if step % 25 == 0:
            for p in range(any_game.num_players()):
                sample = state.resample_from_infostate(p, rng)
                for _ in range(any_game.max_game_length()):
                    if sample.is_terminal():
                        break
                    sample.apply_action(sample_action(sample, rng))
                assert sample.is_terminal()
        state.apply_action(sample_action(state, rng))


def test_observations_are_json(any_game):
    def check(state):
        for p in range(any_game.num_players()):
            assert json.loads(json.dumps(state.observation(p))) == state.observation(p)
    random_playout(any_game, 0, on_state=check)


def test_unknown_game_and_bad_params():
    with pytest.raises(UnknownGameError, match="rat_trap"):
        load_game("no_such_game")
    with pytest.raises(ValueError, match="backend"):
        load_game("rat_trap", backend="fortran")
    with pytest.raises(ValueError, match="unknown parameter"):
        load_game("rat_trap", colour="red")


def test_deserialize_rejects_malformed_documents(any_game):
    """A serialized state cannot replace the game, add fields, or carry a bad history."""
    state = any_game.new_initial_state()
    doc = json.loads(state.serialize())
    bad_docs = [
        {**doc, "fields": []},
        {**doc, "fields": {**doc["fields"], "_game": 1}},
        {**doc, "fields": {k: v for k, v in list(doc["fields"].items())[1:]}},
        {**doc, "history": ["x"]},
        {**doc, "game": "chess"},
        {k: v for k, v in doc.items() if k != "history"},
        [],
    ]
    for bad in bad_docs:
        with pytest.raises(ValueError):
            any_game.deserialize_state(json.dumps(bad))
    with pytest.raises(ValueError):
        any_game.deserialize_state(b"\xff not json")


def test_seats_accept_numpy_ints_and_reject_other_types(any_game):
    """Seats are ints (numpy ints too, as for actions); bools, floats and strings are refused."""
    state = any_game.new_initial_state()
    obs = state.observation(np.int64(0))
    assert obs == state.observation(0)
    assert json.loads(state.information_state_string(np.int64(0))) == json.loads(
        state.information_state_string(0))
    for bad in (True, 0.0, "0", any_game.num_players(), -1):
        with pytest.raises(ValueError):
            state.observation(bad)


def test_string_to_action_takes_labels_and_ids(any_game):
    state = any_game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    if state.is_terminal():
        return
    cp, a = state.current_player(), state.legal_actions()[0]
    assert state.string_to_action(cp, state.action_to_string(cp, a)) == a
    assert state.string_to_action(cp, str(a)) == a and state.string_to_action(cp, np.int64(a)) == a
    with pytest.raises(IllegalActionError):
        state.string_to_action(cp, "no such move")



def test_apply_actions_outside_a_simultaneous_node_is_refused(any_game):
    state = any_game.new_initial_state()
    before = state.serialize()
    with pytest.raises(ValueError):
        state.apply_actions([0] * any_game.num_players())
    assert state.serialize() == before
