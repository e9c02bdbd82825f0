"""Rats to Riches Cython twin (issue 8, "The Cython twin"): what the generic differential
test (``test_cy_differential.py``, default parameters) rarely or never reaches: the safety
valves (``max_turn_actions``; RR-6's round limit with shared wins; RR-5 over many rounds),
effect amounts and costs from another data file, the compiled determinization
(``c_resample``) and IS-MCTS chance key (``c_info_hash``), and the twin's size limits."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from ratai.engines import load_game
from tests.conftest import sample_action
from tests.speedups.test_cy_differential import play_both

rr = pytest.importorskip("ratai._speedups.rats_to_riches")
core = pytest.importorskip("ratai._speedups.core")
search = pytest.importorskip("ratai._speedups.search")

NAME = "rats_to_riches"


def data_file(tmp_path, name: str = "rr.json", **top) -> str:
    """The packaged card list with top-level keys replaced, written to ``tmp_path``."""
    doc = json.loads(resources.files("ratai.engines.rats_to_riches")
                     .joinpath("rats_to_riches.json").read_text())
    doc.update(top)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("cap", [1, 2, 5])
def test_turn_action_cap_plays_like_the_reference(cap):
    """Safety valve ``max_turn_actions`` (rules.py "Safety valves"): once reached only
    END_STEP2 is legal, on both backends alike."""
    for seed in range(25):
        play_both(NAME, {"num_players": 3, "max_turn_actions": cap}, seed, obs_every=5)


def test_round_limit_and_big_cheese_play_like_the_reference(tmp_path):
    """RR-6 safety valve (after the last round the most Swindle wins; ties share) and RR-5
    (the Golden Rat changes hands at round ends) in games nobody can win by $100."""
    path = data_file(tmp_path, win_cash=10**6, max_rounds_safety=4)
    for n in (2, 3, 5):
        ref_game = load_game(NAME, backend="python", num_players=n, data_path=path)
        for seed in range(20):
            play_both(NAME, {"num_players": n, "data_path": path}, seed, obs_every=3)
        # the C-level path through the round limit
        cy_game = load_game(NAME, backend="cython", num_players=n, data_path=path)
        for seed in range(10):
            state = cy_game.new_initial_state()
            actions = core.random_playout_actions(state, seed)
            ref = ref_game.state_from_history(actions)
            assert ref.is_terminal() and ref.round == 4
            assert ref._fields() == state._fields() and ref.returns() == state.returns()


ALT = str(Path(__file__).parents[1] / "engines" / "rats_to_riches" / "alt_rats_to_riches.json")


def test_costs_and_setup_numbers_from_a_data_file_play_like_the_reference(tmp_path):
    """data.py "The Flush card": the twin reads every number from the data (the Flush card
    costing 1 green cheese with income 3, 7 Flush cards, 2 Open Sewer slots, start $8 and 2
    cheese)."""
    path = data_file(
        tmp_path, flush_card={"income": 3, "cost": {"green": 1}, "count": 7},
        start={"cash": 8, "cheese": 2, "open_sewer_slots": 2})
    for n in (2, 4):
        for seed in range(15):
            play_both(NAME, {"num_players": n, "data_path": path}, seed, obs_every=4)


def test_an_alternative_rat_pack_with_other_effects_plays_identically_on_both_backends():
    """Issue #17 "Component effects as data": an alternative card list (other effects made of
    the same primitives, other counts, 4 Open Sewer slots: ``alt_rats_to_riches.json``) is
    compiled into the twin's tables and played move for move like the reference: legal
    actions, chance outcomes, observations, serialization and returns agree."""
    reached: set[str] = set()
    for n in (2, 3, 5):
        for seed in range(12):
            play_both(NAME, {"num_players": n, "data_path": ALT}, seed, obs_every=3)
        game = load_game(NAME, backend="python", num_players=n, data_path=ALT)
        cy_game = load_game(NAME, backend="cython", num_players=n, data_path=ALT)
        rng = np.random.default_rng(n)
        s = game.new_initial_state()
        while not s.is_terminal():
            reached.update(s.action_to_string(s.current_player(), a).split(" on ")[0]
                           for a in s.legal_actions())
            if s.pending:  # frames with continuations survive the rebuild on the twin
                obs = s.observation(1)
                assert cy_game.state_from_observation(1, obs).observation(1) == obs
            s.apply_action(sample_action(s, rng))
    for card in ("use Rat Race", "use Pipe Bomb", "use Cheese Heist", "use Pied Piper",
                 "use Double Dip", "use Mutual Aid"):
        assert card in reached, card


def test_c_resample_is_the_reference_determinization():
    """Perfect information (rules.py "Hidden information"): the compiled ``c_resample`` that
    the Cython IS-MCTS uses is the state itself with an empty history, exactly what
    ``resample_from_infostate`` (``state_from_observation``) rebuilds."""
    game = load_game(NAME, backend="cython", num_players=4)
    assert game.new_initial_state().fast_c_resample is True
    rng = np.random.default_rng(8)
    state = game.new_initial_state()
    step = 0
    while not state.is_terminal():
        if step % 7 == 0:
            for p in range(4):
                fast = state.fast_resample(p, 3)
                slow = state.resample_from_infostate(p, 3)
                assert fast.history() == slow.history() == []
                assert json.loads(fast.serialize()) == json.loads(slow.serialize())
                assert fast.information_state_string(p) == state.information_state_string(p)
        state.apply_action(sample_action(state, rng))
        step += 1


def test_info_hash_keys_like_the_information_state():
    """IS-MCTS keys chance children by ``c_info_hash(player)``: after the outcomes of a chance
    node two states get equal digests exactly when ``information_state_string`` is equal;
    a copy or a rebuilt state keeps the digest; seats see different digests."""
    for n in (2, 5):
        game = load_game(NAME, backend="cython", num_players=n)
        rng = np.random.default_rng(n)
        s = game.new_initial_state()
        seen: dict[int, str] = {}
        while not s.is_terminal():
            if s.is_chance_node():
                for p in range(n):
                    after = []
                    for a, _ in s.chance_outcomes():
                        c = s.clone()
                        c.apply_action(a)
                        after.append((c.information_state_string(p), search.info_hash(c, p)))
                    for x in after:
                        for y in after:
                            assert (x[0] == y[0]) == (x[1] == y[1])
            h = search.info_hash(s, 0)
            info = s.information_state_string(0)
            assert seen.setdefault(h, info) == info  # no collision along the game
            rebuilt = game.state_from_observation(0, s.observation(0))
            assert search.info_hash(rebuilt, 0) == h
            assert search.info_hash(s, 1) != h
            s.apply_action(sample_action(s, rng))


def test_limits_of_the_twin_are_refused_with_a_clear_error(tmp_path):
    """A card list beyond the twin's fixed sizes (255 copies of a card) is refused by the
    Cython backend with a ValueError naming the way out; the reference plays it."""
    doc = json.loads(resources.files("ratai.engines.rats_to_riches")
                     .joinpath("rats_to_riches.json").read_text())
    doc["scrappy_sewer"][0]["count"] = 300
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="backend='python'"):
        load_game(NAME, backend="cython", data_path=str(path))
    assert load_game(NAME, backend="python", data_path=str(path)).new_initial_state()


def test_reference_conversion_round_trips_mid_game():
    """``to_reference`` / ``from_reference`` are exact inverses (every field, the history),
    at every step of a game with pending sub-decisions."""
    game = load_game(NAME, backend="cython", num_players=3)
    rng = np.random.default_rng(11)
    s = game.new_initial_state()
    kinds = set()
    while not s.is_terminal():
        ref = s.to_reference()
        kinds.update(f["kind"] for f in ref.pending)
        back = game.from_reference(ref)
        assert back == s and back.serialize() == s.serialize()
        assert back.history() == s.history()
        s.apply_action(sample_action(s, rng))
    with pytest.raises(ValueError):
        game.from_reference(load_game(NAME, backend="python", num_players=2)
                            .new_initial_state())
