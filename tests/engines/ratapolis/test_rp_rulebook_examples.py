"""The rulebook's worked examples, with the rulebook's numbers."""

from __future__ import annotations

import numpy as np
from rp_helpers import BLUE, GREEN, RED, YELLOW, count, hunt, idx, make_state, plan, set_board

from ratai.engines import load_game
from tests.conftest import sample_action


def test_capacities_in_a_three_player_game():
    """Rulebook Phase 3 "Example of building capacity": O 3x1 = 3, I 3x2 = 6, A 3x3 = 9;
    Game Elements: a x2 tile holds 6 rats with 3 players."""
    g = load_game("ratapolis", backend="python", num_players=3)
    assert g.capacity[idx(g, "O")] == 3
    assert g.capacity[idx(g, "I")] == 6
    assert g.capacity[idx(g, "A")] == 9


def test_three_player_capacity_example_yellow_and_green_each_move_one_rat():
    """Rulebook Phase 3 example: yellow and green escape from the pharmacy (O) to the fire
    station (I), which holds 6 and already has 4 red rats: each moves one rat. Then yellow
    moves its group from the market (A) to the pharmacy, which has room (capacity 3)."""
    # 3 players: the seats' colours are red, blue, yellow; seat 1 plays the example's green.
    g, s = make_state(3, board={"I": {RED: 4}, "O": {YELLOW: 2, BLUE: 1}, "A": {YELLOW: 2}})
    plan(s, {YELLOW: ("move O>I", "move A>O"), BLUE: ("move O>I", "idle")})
    assert s.board[idx(g, "I")] == [4, 1, 1]          # 4 red + one yellow + one "green"
    assert count(s, "O", YELLOW) == 3                  # 1 left behind + 2 from the market
    assert count(s, "O", BLUE) == 0
    assert count(s, "A", YELLOW) == 0


def test_capacity_example_with_the_real_green_seat():
    """Same example at 4 players with the green seat itself: I holds 4x2 = 8 with 6 red
    rats already, so yellow and green each move one (the same 2 free places)."""
    g, s = make_state(4, board={"I": {RED: 6}, "O": {YELLOW: 2, GREEN: 1}, "A": {YELLOW: 2}})
    plan(s, {YELLOW: ("move O>I", "move A>O"), GREEN: ("move O>I", "idle")})
    assert s.board[idx(g, "I")] == [6, 0, 1, 1]
    assert count(s, "O", YELLOW) == 3 and count(s, "O", GREEN) == 0


def test_double_attack_on_one_green_rat():
    """Rulebook Phase 3 example: red and yellow both attack the green rat in the pharmacy;
    the single green rat returns to green (one rat for two attacks)."""
    g, s = make_state(4, board={"O": {RED: 1, YELLOW: 1, GREEN: 1}})
    supply = s.supply[GREEN]
    plan(s, {RED: ("attack O green", "idle"), YELLOW: ("attack O green", "idle")})
    assert count(s, "O", GREEN) == 0
    assert s.supply[GREEN] == supply + 1
    assert count(s, "O", RED) == 1 and count(s, "O", YELLOW) == 1


def test_double_attack_on_two_green_rats_removes_both():
    """Rulebook Phase 3 example: "If there had been two green rats on the tile, both would
    have returned", because green was the target of 2 attacks."""
    g, s = make_state(4, board={"O": {RED: 1, YELLOW: 1, GREEN: 2}})
    plan(s, {RED: ("attack O green", "idle"), YELLOW: ("attack O green", "idle")})
    assert count(s, "O", GREEN) == 0


def test_pharmacy_example_attack_then_move():
    """Rulebook Phase 2 example: red attacks the green rat in the pharmacy (left cell), then
    moves its group from the market to the pharmacy (right cell)."""
    g, s = make_state(3, board={"O": {RED: 1, 1: 1}, "A": {RED: 2}})
    # Seat 1 stands for green at 3 players (colours are per seat).
    plan(s, {RED: ("attack O blue", "move A>O")})
    assert s.board[idx(g, "O")] == [3, 0, 0]
    assert count(s, "A", RED) == 0


def test_end_game_totals_16_23_26():
    """Rulebook End of the Game example with the data's cheese values: green 1+2+2 rats
    = 16, yellow 1+1+3+1 rats + 1 token = 23, red 1+1+1+3 rats + 2 tokens = 26; red wins."""
    g, s = make_state(4)
    set_board(s, {
        # green: 1 x O (6) + 2 x B (3) + 2 x A (2) = 16
        "O": {GREEN: 1, RED: 1}, "B": {GREEN: 2}, "A": {GREEN: 2},
        # yellow: 1 x J (6) + 1 x G (5) + 3 x C (3) + 1 x M (2) + 1 token = 23
        "J": {YELLOW: 1}, "G": {YELLOW: 1}, "C": {YELLOW: 3}, "M": {YELLOW: 1},
        # red: 1 x O (6) + 1 x N (6) + 1 x R (6) + 3 x T (2) + 2 tokens = 26
        "N": {RED: 1}, "R": {RED: 1}, "T": {RED: 3},
    })
    s.cheese = [2, 0, 1, 0]
    s.cheese_bank -= 3
    assert s.scores() == [26.0, 0.0, 23.0, 16.0]
    s.phase = "end"
    assert s.is_terminal()
    assert s.returns() == [1.0, 0.0, 0.0, 0.0]


def _play_to_end(n: int, seed: int):
    """A random game, recording at each round start the stack size and the round's cards."""
    g = load_game("ratapolis", backend="python", num_players=n, property_tokens="none")
    s = g.new_initial_state()
    rng = np.random.default_rng(seed)
    log = []
    while not s.is_terminal():
        if s.phase == "deal" and not s.round_cards():
            log.append({"round": s.round, "stack": len(s.stack), "discard": len(s.discard)})
        if s.phase == "hunt" and s.drawn == -1 and len(log[-1]) == 3:
            i = s.round - 1
            log[-1]["secret"] = sum(c != -1 for c in s.hands[i])
            log[-1]["face_up"] = len(s.face_up[i])
        s.apply_action(sample_action(s, rng))
    return s, log


def test_hunt_card_schedule_and_the_16_card_reshuffle():
    """Rulebook Phase 1: 5 cards in rounds 1-4, 4 in rounds 5-8, one secret card per
    player and the rest face up; at the start of round 5 the 16 discards become the new
    stack. Phase 4: the hunted card stays on its round slot, so no building is hunted twice,
    and cards discarded in rounds 1-3 are not hunted before round 5."""
    for n in (2, 3, 4):
        for seed in range(3):
            s, log = _play_to_end(n, seed)
            assert [r["stack"] for r in log[:4]] == [20, 15, 10, 5]
            assert log[4]["stack"] == 16 and log[4]["discard"] == 0
            assert [r["stack"] for r in log[4:]] == [16, 12, 8, 4]
            for r in log:
                cards = 5 if r["round"] <= 4 else 4
                assert r["secret"] == n and r["face_up"] == cards - n
            assert len(s.hunted) == 8 and len(set(s.hunted)) == 8
            early = set()
            for i in range(3):
                early |= set(s.round_cards(i + 1)) - {s.hunted[i]}
                assert s.hunted[i + 1] not in early
            assert len(s.stack) == 0 and len(s.discard) == 12


def test_five_players_rounds_5_to_8_all_cards_face_up():
    """Rulebook Phase 1: "In a 5-player game, in rounds 5-8 place all 4 hunt cards face up";
    in rounds 1-4 all five cards are dealt, none face up."""
    for seed in range(3):
        _s, log = _play_to_end(5, seed)
        for r in log:
            if r["round"] <= 4:
                assert (r["secret"], r["face_up"]) == (5, 0)
            else:
                assert (r["secret"], r["face_up"]) == (0, 4)


def test_hunted_building_leaves_the_city_and_rats_go_home():
    """Rulebook Phase 4: the tile with the revealed letter is removed and all its rats
    return to their owners; the hunted card stays on the round slot, the rest go to the
    discard pile."""
    g, s = make_state(3, board={"A": {RED: 3, 1: 2}, "B": {RED: 1}}, cards="ABCDE")
    plan(s, {})
    hunt(s, "A")
    assert idx(g, "A") in s.removed and s.hunted[0] == idx(g, "A")
    assert s.board[idx(g, "A")] == [0, 0, 0]
    assert s.supply[RED] == 19 and s.supply[1] == 20
    assert sorted(s.discard) == sorted(idx(g, c) for c in "BCDE")
    assert s.round == 2 and s.phase == "deal"
