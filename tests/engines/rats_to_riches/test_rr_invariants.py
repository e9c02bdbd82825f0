"""Rats to Riches: random-playout invariants, observations, parameters and data loading."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rr_helpers import PIPE, card_total, game_cards, make_state

from ratai.engines import load_game
from ratai.engines.api import read_component_json
from ratai.engines.rats_to_riches import data as D
from tests.conftest import random_playout, sample_action

PLAYER_COUNTS = (2, 3, 4, 5)
CI_GAMES = 200  # issue 8: 200 seeded games per player count in CI, 2,000 under "slow"
SLOW_GAMES = 2000


def check_invariants(state) -> None:
    """Card conservation across Rat Pack, Open Sewer, tableaus, Cesspit and the box (Flush
    cards included: in front of the rats, in the piles, or out of the game); money and
    cheese never negative."""
    game = state.get_game()
    d = game.data
    assert card_total(state) == game_cards(game)
    assert all(f >= 0 for f in state.flush)
    assert all(c >= 0 for c in state.cash)
    assert all(h >= 0 for row in state.cheese for h in row)
    assert all(c >= 0 for row in state.tableau for c in row)
    assert all(c >= 0 for c in state.cesspit)
    assert all(c >= 0 for seg in state.pack for c in seg["counts"])
    assert state.round <= d.max_rounds


def _run_games(n: int, count: int) -> None:
    game = load_game("rats_to_riches", backend="python", num_players=n)
    bound = game.max_game_length()
    for seed in range(count):
        final = random_playout(game, seed, on_state=check_invariants)
        assert final.is_terminal() and final.winners
        assert len(final.history()) <= bound
        if final.round < game.data.max_rounds:
            assert max(final.cash) >= game.data.win_cash  # a winner, or the safety valve


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_random_games_keep_invariants(n):
    """Invariants over 200 seeded random games per player count (issue 8, CI count)."""
    _run_games(n, CI_GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_random_games_keep_invariants_slow(n):
    """Invariants over 2,000 seeded random games per player count (issue 8)."""
    _run_games(n, SLOW_GAMES)


def _late_game_runs(n: int, count: int) -> None:
    """Random games from a position whose Rat Pack is empty: every refill reshuffles the
    Cesspit (RR-6), which holds the spare Flush cards, so Flush cards are revealed, bought,
    sabotaged and flushed. Checks the invariants and the observation round trip."""
    game = load_game("rats_to_riches", backend="python", num_players=n)
    flush_seen = 0
    for seed in range(count):
        _, state = make_state(n, cash=[10] * n, cheese=[[2, 2, 2]] * n,
                              sewer=[PIPE, "Snatch", "Sabotage"])
        for seg in state.pack:  # the Rat Pack has run out: all of it is in the Cesspit
            for t, c in enumerate(seg["counts"]):
                state.cesspit[t] += c
        state.pack = []
        state.top_back = None  # RR-9: no back shows over an empty pack
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            check_invariants(state)
            flush_seen += game.T in state.sewer or max(state.flush) > 1
            if len(state.history()) % 25 == 0:
                obs = state.observation(0)
                assert game.state_from_observation(0, obs).observation(0) == obs
            state.apply_action(sample_action(state, rng))
        check_invariants(state)
    if n < game.data.flush_count:  # spares exist: the Flush-card paths were exercised
        assert flush_seen


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_reshuffled_flush_cards_keep_invariants(n):
    """Building The Sewer (spare Flush cards in the Cesspit) + RR-6: invariants hold while
    Flush cards circulate through the Rat Pack and the Open Sewer (20 seeded games)."""
    _late_game_runs(n, 20)


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_reshuffled_flush_cards_keep_invariants_slow(n):
    _late_game_runs(n, 500)


def test_observation_seat_is_checked():
    """Engine contract (engines/api.py ``check_player``): ``observation`` takes a Python or
    numpy int seat and echoes it as a plain int (JSON); a bool, a float or an out-of-range
    seat is a ValueError naming the allowed range."""
    game, s = make_state(3, sewer=[PIPE, None, None])
    obs = s.observation(np.int64(2))
    assert obs == s.observation(2) and type(obs["player"]) is int
    assert s.information_state_string(np.int32(2)) == s.information_state_string(2)
    json.dumps(obs)
    for bad in (True, 0.0, -1, 3, "0", None):
        with pytest.raises(ValueError, match="0 to 2"):
            s.observation(bad)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_state_from_observation_round_trips(n):
    """``state_from_observation(p, s.observation(p)).observation(p) == s.observation(p)``
    along random games; here (RR-8: nothing hidden) the rebuilt state is the state."""
    game = load_game("rats_to_riches", backend="python", num_players=n)
    rng = np.random.default_rng(n)

    def check(state):
        p = int(rng.integers(n))
        obs = state.observation(p)
        json.dumps(obs)
        rebuilt = game.state_from_observation(p, obs, int(rng.integers(1 << 30)))
        assert rebuilt.observation(p) == obs
        assert rebuilt._fields() == state._fields()
        if not state.is_terminal():
            assert rebuilt.legal_actions() == state.legal_actions()

    for seed in range(8):
        random_playout(game, 100 + seed, on_state=check)


def test_rebuilt_states_play_on_identically():
    """A rebuilt state continues exactly like the original under the same actions."""
    game = load_game("rats_to_riches", backend="python", num_players=3)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    for _ in range(60):
        state.apply_action(sample_action(state, rng))
    rebuilt = game.state_from_observation(0, state.observation(0))
    while not state.is_terminal():
        a = sample_action(state, rng)
        state.apply_action(a)
        rebuilt.apply_action(a)
        assert rebuilt._fields() == state._fields()


@pytest.mark.parametrize("field,value,match", [
    ("player", 2, "player"),
    ("phase", "lunch", "phase"),
    ("cash", [1, 2], "cash"),
    ("cash", [1, -2, 3], r"cash\[1\]"),
    ("cheese", [{"green": 1}] * 3, r"cheese\[0\]"),
    ("tableau", [{"Golden Pipe": 1}, {}, {}], r"tableau\[0\]"),
    ("open_sewer", ["Free Money", None, None], r"open_sewer\[0\]"),
    ("flush_in_box", 1, "flush_in_box"),
    ("flush", [1, True, 1], r"flush\[1\]"),
    ("cesspit", {PIPE: 1}, "cesspit"),
    ("pending", [{"kind": "dance"}], r"pending\[0\]"),
    ("winners", [0], "winners"),
    ("reshuffled", "no", "reshuffled"),
])
def test_malformed_observation_names_the_field(field, value, match):
    """``state_from_observation`` raises ValueError naming the wrong field."""
    game, s = make_state(3, sewer=[PIPE, None, None])
    obs = s.observation(0)
    obs[field] = value
    with pytest.raises(ValueError, match=match):
        game.state_from_observation(0, obs)


def test_missing_observation_field():
    game, s = make_state(2)
    obs = s.observation(0)
    del obs["rat_pack"]
    with pytest.raises(ValueError, match="rat_pack"):
        game.state_from_observation(0, obs)


def test_heuristic_value_is_in_unit_interval_and_prefers_the_richer():
    """``heuristic_value`` reads the observation; more Swindle, income, pipes is better."""
    game, s = make_state(2, cash=[40, 10], tableau={0: {PIPE: 2}})
    v0, v1 = game.heuristic_value(s, 0), game.heuristic_value(s, 1)
    assert 0.0 <= v1 < 0.5 < v0 <= 1.0
    s.winners, s.phase = [1], "over"
    assert game.heuristic_value(s, 1) == 1.0 and game.heuristic_value(s, 0) == 0.0


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_heuristic_counts_the_pipes_of_an_open_sale(backend):
    """Rulebook "Blue Cards are Pipes" (N pipes sold at once pay N²): the worth of a rat's
    pipes counts those already put into its open sale with those it holds, so putting a
    pipe into the sale does not lower ``heuristic_value`` (it did: the sale's pipes had left
    the tableau uncounted, and the heuristic bot never started a sale), and selling early
    does (2² + 8² < 10²). Once the sale is open, the heuristic bot adds every pipe and wins
    with the tenth ($0 + 10² = $100, RR-1)."""
    from ratai.bots import make_bot

    game, s = make_state(2, cash=[0, 98], tableau={0: {PIPE: 10}})
    if backend == "cython":
        game = load_game("rats_to_riches", backend="cython", num_players=2)
        s = game.deserialize_state(s.serialize())
    before = game.heuristic_value(s, 0)
    sell = s.string_to_action(0, f"sell {PIPE}")
    s.apply_action(sell)
    assert game.heuristic_value(s, 0) == before
    s.apply_action(sell)
    assert game.heuristic_value(s, 0) == before
    early = s.clone()
    early.apply_action(early.string_to_action(0, "sell the chosen pipes"))
    assert early.observation(0)["cash"][0] == 4
    assert game.heuristic_value(early, 0) < before
    bot = make_bot("heuristic", game, 0, seed=0)
    decisions = 0
    while s.current_player() == 0:
        s.apply_action(bot.step(s))
        decisions += 1
    assert decisions == 8 and s.is_terminal() and s.returns()[0] == 1.0


# ----------------------------------------------------------------------------- params, data
@pytest.mark.parametrize("n", [1, 6, "x"])
def test_bad_num_players(n):
    """Params: num_players 2-5; the error names the parameter and the allowed values."""
    with pytest.raises(ValueError, match="num_players.*2 to 5"):
        load_game("rats_to_riches", backend="python", num_players=n)


def test_data_path_loads_another_card_list(tmp_path):
    """``data_path``: another card list (here: fewer Pipes, dearer Snatch)."""
    doc, _ = read_component_json(D.__package__, "rats_to_riches.json", None)
    doc["scrappy_sewer"][3]["count"] = 4
    doc["scrappy_sewer"][4]["cost"] = {"red": 2}
    path = tmp_path / "rr.json"
    path.write_text(json.dumps(doc))
    game = load_game("rats_to_riches", backend="python", num_players=2, data_path=str(path))
    assert game.data.total_cards == 74
    snatch = [t for t in game.data.card_types if t.name == "Snatch"]
    assert len(snatch) == 2 and {t.key for t in snatch} == {"Snatch (Scrappy Sewer)",
                                                            "Snatch (Supreme Sewer)"}
    random_playout(game, 0, on_state=check_invariants)


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d["scrappy_sewer"][0].pop("colour"), "colour"),
    (lambda d: d["scrappy_sewer"][0].update(colour="pink"), "colour"),
    (lambda d: d["scrappy_sewer"][4]["effects"][0].update(op="dance"), "effects"),
    (lambda d: d["scrappy_sewer"][0].update(count=0), "count"),
    (lambda d: d.pop("win_cash"), "win_cash"),
    (lambda d: d["scrappy_sewer"][14]["effects"][0].update(filter={"colour": "pink"}),
     "filter"),
    (lambda d: d["scrappy_sewer"][4]["effects"][0].update(amount=-1), "amount"),
    (lambda d: d.update(effect_amounts={"snatch": {"cheese": 1}}), "effect_amounts"),
])
def test_bad_data_is_rejected_naming_the_field(mutate, field):
    """Data is validated at load with clear errors naming the field."""
    doc, _ = read_component_json(D.__package__, "rats_to_riches.json", None)
    mutate(doc)
    with pytest.raises(ValueError, match=field):
        D.parse(doc, "test.json")


def test_missing_data_file():
    with pytest.raises(ValueError, match="data_path"):
        load_game("rats_to_riches", backend="python", data_path="/nonexistent/rr.json")


def test_packaged_data_matches_the_shared_stand_in():
    """The packaged card list is ../shared/data/rats_to_riches.json: 44 + 36 cards."""
    d = D.load()
    assert sum(t.counts[0] for t in d.card_types) == 44
    assert sum(t.counts[1] for t in d.card_types) == 36
    assert (d.win_cash, d.start_cash, d.start_cheese, d.max_rounds) == (100, 5, 3, 60)
