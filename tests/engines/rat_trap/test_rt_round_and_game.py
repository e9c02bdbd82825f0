"""Rat Trap rulebook: End of Round, End of the Game, tie-breaks (RT-3, RT-5, RT-6)."""

from __future__ import annotations

import pytest

from .rt_helpers import cards, do, new_game, start_turn


def fresh(players=3, **params):
    return new_game(num_players=players, **params).new_initial_state()


def exhaust(s, *piles):
    for i in piles:
        s.pile_g[i] = s.pile_r[i] = 0


def end_round_now(s, accomplice=1):
    """Two exhausted piles: the round ends after a quiet turn (heal+heal)."""
    exhaust(s, 0, 1)
    start_turn(s, "heal+heal", accomplice, "heal")


def test_round_ends_when_two_piles_are_exhausted_after_the_turn():
    """End of Round: TWO PILES OF DOORWAY CARDS HAVE BEEN EXHAUSTED; the turn finishes first
    (RT-3)."""
    s = fresh()
    exhaust(s, 0)
    s.pile_g[1], s.pile_r[1] = 0, 1
    start_turn(s, "key1+cat", 1, "key1")
    do(s, "draw from pile 1", "draw cheese2")  # second pile exhausted
    assert s.round == 1 and s.phase == "cat_target"  # seat 0's cat still resolves
    do(s, "send the cat to seat 2", "take the scratch")
    assert s.round == 2 and s.points == [0, 2, 0]


def test_one_exhausted_pile_does_not_end_the_round():
    s = fresh()
    exhaust(s, 2)
    start_turn(s, "heal+heal", 1, "heal")
    assert s.round == 1


def test_scoring_non_eliminated_players_score_their_cheese():
    """End of Round 1: players not eliminated reveal and score the cheese they stored."""
    s = fresh()
    s.stored = [cards("cheese2", "cheese1", "clover"), cards("cheese1"), cards()]
    end_round_now(s)
    assert s.points == [3, 1, 0]
    assert s.round_results[0]["revealed"][0] == cards("cheese2", "cheese1", "clover")
    assert s.round_results[0]["gained"] == [3, 1, 0]


def test_no_cheese_stored_gives_two_points_to_each_non_eliminated_player():
    """End of Round, special case: no points collected -> 2 points each (not eliminated)."""
    s = fresh()
    s.stored = [cards("clover"), cards(), cards()]
    s.scratches[2] = 2
    s.pile_g[0] = s.pile_r[0] = 0
    s.pile_g[1] = s.pile_r[1] = 0
    start_turn(s, "key1+cat", 1, "cat")
    do(s, "send the cat to seat 2", "take the scratch")  # seat 2 eliminated
    do(s, "draw clover")  # active key1 from pile 2, the only pile left (clover: no cheese)
    assert s.points == [2, 2, 0]


def test_points_are_kept_and_next_round_starts_left_of_the_last_active():
    """End of Round 2: the dice pass to the left (RT-6); points are kept round to round."""
    s = fresh(4)
    s.stored[3] = cards("cheese2")
    end_round_now(s)  # seat 0 was active
    assert s.round == 2 and s.active == 1 and s.points == [0, 0, 0, 2]
    assert s.stored == [[], [], [], []] and s.scratches == [0, 0, 0, 0]
    assert s.pile_g == [1, 1, 1, 1] and s.pile_r == [4, 4, 4, 4]


def test_game_ends_at_seven_points_after_round_one():
    """End of the Game: at least one player has 7 points at the end of round 1 or 2."""
    s = fresh()
    s.points = [5, 0, 0]
    s.stored[0] = cards("cheese2")
    end_round_now(s)
    assert s.is_terminal() and s.points == [7, 0, 0] and s.returns() == [1.0, 0.0, 0.0]


def test_game_continues_below_seven_points():
    s = fresh()
    s.points = [4, 0, 0]
    s.stored[0] = cards("cheese2")
    end_round_now(s)
    assert not s.is_terminal() and s.round == 2


def test_game_ends_after_the_third_round():
    """End of the Game: THE THIRD ROUND IS COMPLETED."""
    s = fresh()
    s.round = 3
    s.points = [1, 3, 2]
    end_round_now(s)
    assert s.is_terminal() and s.returns() == [0.0, 1.0, 0.0]
    assert s.scores() == [3.0, 5.0, 4.0]  # nobody stored cheese: +2 each


def test_tie_broken_by_most_cards_stored_in_the_last_round():
    """End of the Game: on a tie, the player who stored the most cards in the last round."""
    s = fresh()
    s.round = 3
    s.points = [3, 2, 0]
    s.stored = [cards(), cards("cheese1", "clover"), cards()]
    end_round_now(s)
    assert s.points == [3, 3, 0] and s.returns() == [0.0, 1.0, 0.0]


def test_still_tied_players_share_the_victory():
    """RT-5: still tied -> a shared win (returns 1/k)."""
    s = fresh()
    s.round = 3
    s.points = [3, 2, 1]
    s.stored = [cards(), cards("cheese1"), cards()]
    s.stored[0] = cards("clover")
    end_round_now(s)
    assert s.points == [3, 3, 1] and s.returns() == [0.5, 0.5, 0.0]


def test_extra_round_tie_break_plays_one_more_round_with_everyone():
    """RT-5 configurable: a tiebreaker round in which all players participate."""
    s = fresh(tie_break="extra_round")
    s.round = 3
    s.points = [3, 3, 0]
    s.stored = [cards("clover"), cards("clover"), cards()]
    s.stored[2] = []
    end_round_now(s)
    # 0 and 1 tied on points and cards: nobody scored cheese so everyone got 2 -> 5, 5, 2
    assert not s.is_terminal() and s.tiebreak_round and s.round == 4
    s.stored[1] = cards("cheese1")
    end_round_now(s, accomplice=2)
    assert s.is_terminal() and s.returns() == [0.0, 1.0, 0.0]


def test_extra_round_still_tied_is_shared():
    s = fresh(tie_break="extra_round")
    s.round = 3
    s.points = [3, 3, 0]
    end_round_now(s)
    end_round_now(s, accomplice=2)
    assert s.is_terminal() and s.returns() == [0.5, 0.5, 0.0]


def test_max_turns_safety_valve_ends_a_round():
    """Not a rule: ``max_turns_per_round`` bounds a round (documented safety valve)."""
    s = fresh(max_turns_per_round=2)
    start_turn(s, "heal+heal", 1, "heal")
    assert s.round == 1
    start_turn(s, "heal+heal", 2, "heal")
    assert s.round == 2


@pytest.mark.parametrize("params,match", [
    ({"num_players": 1}, "num_players"), ({"num_players": 6}, "num_players"),
    ({"num_players": 3, "big_gang": True}, "big_gang"),
    ({"num_players": 2, "roles": True}, "roles"),
    ({"tie_break": "coin"}, "tie_break"),
    ({"data_path": "/nonexistent.json"}, "data_path"),
])
def test_bad_parameters_name_the_parameter(params, match):
    with pytest.raises(ValueError, match=match):
        new_game(**params)
