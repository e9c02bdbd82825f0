"""Random-playout invariants, determinization round trips, no information leak, and the
joint-action view (RP-2, rulebook Course of the Game)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from ratai.engines import SIMULTANEOUS, IllegalActionError, load_game
from tests.conftest import random_playout, sample_action

CI_GAMES = 150
SLOW_GAMES = 1000


def _check_game(g, seed: int) -> None:
    n = g.num_players()
    per = g.data.rats_per_player
    rounds_seen: list[int] = []
    removed_before: list[int] = []

    def check(s):
        hotel = "F" in s.tokens or "F" in s.tokens_gone
        for seat in range(n):
            assert sum(row[seat] for row in s.board) + s.supply[seat] == per
        for x in range(g.nb):
            extra = 1 if hotel else 0
            assert sum(s.board[x]) <= g.capacity[x] + extra, (x, s.board[x])
        for x in s.removed:
            assert s.board[x] == [0] * n
        assert s.removed[:len(removed_before)] == removed_before
        removed_before[:] = s.removed
        if not rounds_seen or rounds_seen[-1] != s.round:
            rounds_seen.append(s.round)

    final = random_playout(g, seed, on_state=check)
    assert rounds_seen == list(range(1, 9))
    assert final.is_terminal() and final.round == 8 and len(final.removed) == 8
    assert len(final.history()) <= g.max_game_length()


def _check_invariants(n: int, games: int) -> None:
    g = load_game("ratapolis", backend="python", num_players=n)
    for seed in range(games):
        _check_game(g, seed)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_invariants_over_random_games(n):
    """Invariants (issue 7): rats on board + supply = 20 per seat, no tile over capacity
    (Hotel +1 aside), removed tiles stay empty, exactly 8 rounds (CI: 150 games)."""
    _check_invariants(n, CI_GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_invariants_over_1000_random_games(n):
    """The same over 1,000 seeded games per player count."""
    _check_invariants(n, SLOW_GAMES)


@pytest.mark.parametrize("params", [
    {"num_players": 2}, {"num_players": 3, "property_tokens": "A,B,C,F,G,H,I,L,S,T"},
    {"num_players": 5}, {"num_players": 4, "simultaneous": True},
    # RP-9 / RP-10 / RP-11: events revealed or fixed, a small city, colours
    {"num_players": 3, "round_events": "random",
     "layout": "AAA.CC/B.IIG./B..HL./..MMLL/S.MFF./TTT...",
     "colors": "red,yellow,green"},
    {"num_players": 4, "round_events":
        "not_played,no_attack,normal,not_played,no_attack,normal,not_played,no_attack"},
])
def test_state_from_observation_round_trips(params):
    """Game.state_from_observation: for states along random games, observation(p) of the
    rebuilt state equals the given one, and equal observations + seed give equal samples."""
    g = load_game("ratapolis", backend="python", **params)
    n = g.num_players()
    for seed in range(4):
        rng = np.random.default_rng(seed)
        s = g.new_initial_state()
        step = 0
        while not s.is_terminal():
            if step % 3 == 0:
                for p in range(n):
                    obs = s.observation(p)
                    rebuilt = g.state_from_observation(p, copy.deepcopy(obs), seed)
                    assert rebuilt.observation(p) == obs
                    again = g.state_from_observation(p, obs, seed)
                    assert again.serialize() == rebuilt.serialize()
                    assert rebuilt.current_player() == s.current_player()
            s.apply_action(sample_action(s, rng))
            step += 1


def test_determinization_keeps_revealed_cards_in_somebodys_hand():
    """Phase 4: a hunted card that was neither face up nor the seat's own was in another
    seat's hand; the sample puts it there, and the others' hands come from the unknown
    cards."""
    g = load_game("ratapolis", backend="python", num_players=4, property_tokens="none")
    rng = np.random.default_rng(0)
    for seed in range(20):
        s = random_playout(g, seed)
        for p in range(4):
            sample = g.state_from_observation(p, s.observation(p), rng)
            for r in range(8):
                cards = sample.round_cards(r + 1)
                assert sample.hunted[r] in cards
                assert sample.face_up[r] == s.face_up[r]
                assert sample.hands[r][p] == s.hands[r][p]
                assert len(cards) == len(set(cards)) == (5 if r < 4 else 4)
            early = [c for r in range(4) for c in sample.round_cards(r + 1)]
            assert sorted(early) == list(range(20))


def test_no_information_leak_during_planning():
    """Issue 7 / RP-2: the observation of seat i during planning is identical whatever seat j
    planned (and whatever hunt card j holds)."""
    for n in (2, 3, 5):
        tokens = "A,B,C,F,G,H,I,L,S,T"[:2 * n + 1]
        g = load_game("ratapolis", backend="python", num_players=n, property_tokens=tokens)
        rng = np.random.default_rng(n)
        checked = 0
        for _ in range(6):
            s = g.new_initial_state()
            while not s.is_terminal():
                if s.phase == "plan":
                    j = s.current_player()
                    legal = s.legal_actions()
                    picks = [legal[k] for k in rng.choice(len(legal), min(12, len(legal)),
                                                          replace=False)]
                    views = set()
                    for a in picks:
                        t = s.clone()
                        t.apply_action(a)
                        if t.current_player() == j and j < n - 1:  # j's right cell too
                            t.apply_action(t.legal_actions()[-1])
                        if t.phase == "plan":  # the last cell of the last seat reveals all
                            views.add(tuple(t.information_state_string(i)
                                            for i in range(n) if i != j))
                    assert len(views) <= 1
                    # j's secret card does not show either.
                    hand = s.hands[s.round - 1]
                    if hand[j] != -1 and s.stack:
                        t = s.clone()
                        t.hands[t.round - 1][j] = t.stack[0]
                        lookers = {v for r, v, t in s.looks if r == s.round and t == j}
                        for i in range(n):
                            if i != j and i not in lookers:  # the Archive holder may know
                                assert (t.information_state_string(i)
                                        == s.information_state_string(i))
                    checked += 1
                s.apply_action(sample_action(s, rng))
        assert checked > 0


def _joint_replay(params: dict, seed: int):
    """Play a random game in the sequential view, then replay it in the joint view with
    apply_actions; return both final states."""
    seq = random_playout(load_game("ratapolis", backend="python", **params), seed)
    jg = load_game("ratapolis", backend="python", simultaneous=True, **params)
    joint = jg.new_initial_state()
    hist = seq.history()
    n = jg.num_players()
    k = 0
    while k < len(hist):
        if joint.phase == "plan":
            assert joint.current_player() == SIMULTANEOUS
            cells = hist[k:k + 2 * n]
            plans = [jg.PLAN + cells[2 * s] * jg.C + cells[2 * s + 1] for s in range(n)]
            for s in range(n):
                assert plans[s] in joint.legal_actions(s)
            joint.apply_actions(plans)
            k += 2 * n
        else:
            joint.apply_action(hist[k])
            k += 1
    return seq, joint


@pytest.mark.parametrize("n", [2, 3, 5])
def test_joint_view_gives_identical_outcomes(n):
    """Issue 7: the joint-action view (simultaneous=True) and the sequential view give
    identical outcomes for the same plans."""
    for seed in range(5):
        params = {"num_players": n, "property_tokens": "A,C,F,H,I,L"}
        seq, joint = _joint_replay(params, seed)
        assert joint.is_terminal()
        assert joint.board == seq.board and joint.removed == seq.removed
        assert joint.scores() == seq.scores() and joint.returns() == seq.returns()
        assert joint.plans_log == seq.plans_log
        # The joint history replays with apply_action alone.
        jg = joint.get_game()
        assert jg.state_from_history(joint.history()) == joint


def test_joint_view_per_seat_legal_plans_and_checks():
    """Joint view: legal_actions(seat) are that seat's (left, right) pairs; apply_actions
    checks every plan before applying any."""
    g = load_game("ratapolis", backend="python", num_players=2, property_tokens="none",
                  simultaneous=True)
    s = g.new_initial_state()
    while s.phase == "deal":
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.current_player() == SIMULTANEOUS
    for seat in range(2):
        plans = s.legal_actions(seat)
        pairs = {(left, r) for left in s.cell_actions(seat, 0)
                 for r in s.cell_actions(seat, 1, left)}
        assert len(plans) == len(pairs)
        assert {divmod(a - g.PLAN, g.C) for a in plans} == pairs
    before = s.serialize()
    good = s.legal_actions(0)[0]
    with pytest.raises(IllegalActionError):
        s.apply_actions([good, 5])
    assert s.serialize() == before
    with pytest.raises(ValueError):
        s.apply_actions([good])
    s.apply_actions([good, s.legal_actions(1)[-1]])
    assert s.phase != "plan"
    with pytest.raises(ValueError):
        s.apply_actions([good, good])


def test_malformed_observations_name_the_field():
    """state_from_observation raises ValueError naming the bad field."""
    g = load_game("ratapolis", backend="python", num_players=3)
    s = random_playout(g, 0)
    obs = s.observation(0)
    for field, value in [("board", {"A": [1, 2, 3]}), ("stack_count", 99),
                         ("round", 11), ("supply", [1, 2]), ("phase", "lunch"),
                         ("removed", ["Z"])]:
        bad = copy.deepcopy(obs)
        bad[field] = value
        with pytest.raises(ValueError, match=field):
            g.state_from_observation(0, bad, 0)
    bad = copy.deepcopy(obs)
    del bad["rounds"]
    with pytest.raises(ValueError, match="rounds"):
        g.state_from_observation(0, bad, 0)
    with pytest.raises(ValueError, match="player"):
        g.state_from_observation(1, obs, 0)


def test_heuristic_reads_the_observation_and_stays_in_range():
    """heuristic_value in [0, 1], equal for states a seat cannot tell apart."""
    g = load_game("ratapolis", backend="python", num_players=3)
    rng = np.random.default_rng(2)
    s = g.new_initial_state()
    while not s.is_terminal():
        for p in range(3):
            v = g.heuristic_value(s, p)
            assert 0.0 <= v <= 1.0
            twin = s.resample_from_infostate(p, rng)
            assert g.heuristic_value(twin, p) == v
        s.apply_action(sample_action(s, rng))
    assert [g.heuristic_value(s, p) for p in range(3)] == s.returns()


SCENARIO_PARAMS = [
    {"num_players": 3, "round_events": "random", "property_tokens": "A,B,C,F,G,H,I,L,S,T"},
    {"num_players": 4, "round_events":
        "not_played,no_attack,normal,not_played,no_attack,normal,not_played,no_attack"},
    {"num_players": 4, "layout": "AAA.CC/B.IIG./B..HL./..MMLL/S.MFF./TTT..."},
    {"num_players": 2, "layout": "AAA.CC/B.IIG./B..HL./..MMLL/S.MFF./TTT...",
     "round_events": "random", "colors": "green,orange"},
    {"num_players": 5, "round_events": "random", "colors": "orange,green,yellow,blue,red"},
]


@pytest.mark.parametrize("params", SCENARIO_PARAMS, ids=range(len(SCENARIO_PARAMS)))
def test_invariants_over_scenarios_cities_and_colours(params):
    """RP-9 / RP-10 / RP-11 over random games: rats conserved and within capacity, every
    hunt card of the city exactly once in the stack, the discard, the round in play or the
    hunted tiles; 8 rounds, a tile hunted exactly in each played round without the no-attack
    event, at most 6 events, random event cards distinct and only from round 3 (CI: 40
    games each)."""
    g = load_game("ratapolis", backend="python", **params)
    n = g.num_players()
    city = sorted(g.layout.tiles)

    def check(s):
        for seat in range(n):
            assert sum(row[seat] for row in s.board) + s.supply[seat] == g.data.rats_per_player
        for x in range(g.nb):
            assert sum(s.board[x]) <= g.capacity[x] + 1
        live = s.round_cards() if s.phase != "end" else []
        assert sorted(s.stack + s.discard + live + s.removed) == city

    for seed in range(40):
        final = random_playout(g, seed, on_state=check)
        assert final.round == 8 and len(final.events) == 8
        assert len(final.removed) == final.events.count("normal")
        assert sum(e != "normal" for e in final.events) <= len(g.data.event_cards)
        cards = [c for c in final.event_cards if c]
        assert len({c[0] for c in cards}) == len(cards)
        assert all(c is None for c in final.event_cards[:g.first_event_round - 1])
        if params.get("round_events") == "random":
            assert len(cards) == 6
        assert len(final.history()) <= g.max_game_length()
