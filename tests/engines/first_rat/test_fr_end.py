"""First Rat: the Launchpad, end of game and final scoring (rulebook "The Final Space: The
Launchpad", "End of Game"; rulings FR-9, FR-11, FR-12)."""

from __future__ import annotations

import pytest
from fr_helpers import clear_board, do, labels, make, restart

from ratai.engines import TERMINAL


def test_rattronaut_goes_to_leftmost_free_space_and_reward_choice():
    """The Launchpad: "Place your Rat in the leftmost free space ... of the Rattronaut Score
    track"; "Either take 1 Award ... or raise 1 of your Rats" (FR-9)."""
    s = make(2)
    clear_board(s, {0: [26, 5]})
    restart(s)
    do(s, "A: rat 0 space 26 -> Launchpad")
    assert s.rats[0][0] == 27 and s.track_slots["rattronaut"][0] == 0
    assert s.phase == "launch"
    assert labels(s) == ["Launchpad: take an Award", "Launchpad: raise a rat"]
    do(s, "Launchpad: take an Award")
    assert s.awards[0] == 1 and s.supply["awards"] == 15


def test_launchpad_raise_puts_a_nursery_rat_on_start():
    s = make(2)
    clear_board(s, {0: [26, 5]})
    restart(s)
    do(s, "A: rat 0 space 26 -> Launchpad")
    do(s, "Launchpad: raise a rat")
    assert s.rats[0] == [27, 5, 0, -1]


def test_award_only_with_a_rat_left_on_the_path():
    """The Launchpad note: "You can only choose the Award if you still have at least 1 of your
    Rats on the junkyard path or if you have just placed your fourth and final Rat" (FR-9)."""
    s = make(2)
    s.rats[0] = [26, 27, 27, -1]
    restart(s)
    do(s, "A: rat 0 space 26 -> Launchpad")
    assert s.rats[0] == [27, 27, 27, 0] and s.awards[0] == 0  # the raise was forced
    s = make(2)
    s.rats[0] = [26, 27, 27, 27]
    restart(s)
    do(s, "A: rat 0 space 26 -> Launchpad")
    assert s.awards[0] == 1  # fourth Rattronaut: the Award


def test_no_reward_when_neither_is_allowed():
    """FR-9: if neither option is allowed, nothing."""
    s = make(2)
    s.rats[0] = [26, 27, 27, 27]
    s.supply["awards"] = 0
    restart(s)
    do(s, "A: rat 0 space 26 -> Launchpad")
    assert s.awards[0] == 0 and s.phase != "launch"


def test_rattronauts_never_move_again():
    """The Launchpad: "Rats on the Rattronaut Score track may no longer be moved."."""
    s = make(2)
    s.rats[0] = [27, 3, -1, -1]
    restart(s)
    assert all("rat 0" not in x for x in labels(s))


def test_second_and_third_rattronauts_skip_neutral_rats():
    """Setup note: Neutral Rats on the highlighted spaces of the Rattronaut track (2 players:
    spaces 2 and 4), so Rattronauts take spaces 1, 3, then 5."""
    s = make(2)
    for _ in range(3):
        s._to_rocket(0)
    assert s.track_slots["rattronaut"] == [0, -1, 0, -1]
    assert s.track_last["rattronaut"] == [0]
    assert s._track_points(0)["rattronaut"] == 10 + 6 + 4


def play_to_end(s) -> None:
    """End every remaining turn with the first legal action."""
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(s.chance_outcomes()[0][0])
        else:
            s.apply_action(s.legal_actions()[0])


def test_fourth_rattronaut_ends_the_game_at_the_end_of_the_round():
    """End of Game A: "the game ends at the end of the current round so that all players will
    have the same number of turns" (FR-11)."""
    s = make(3)
    s.rats[1] = [26, 27, 27, 27]
    s.rats[0] = [3, 3, -1, -1]
    restart(s)
    do(s, "A: rat 0 space 3 -> space 4")
    if s.seat == 0:
        do(s, "end turn")
    assert s.seat == 1
    do(s, "A: rat 0 space 26 -> Launchpad")
    assert s.end_round == s.round and s.seat == 2 and not s.is_terminal()
    r = s.round
    while s.seat == 2 and not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert s.is_terminal() and s.round == r and s.current_player() == TERMINAL


def test_eighth_score_marker_finishes_the_round_plus_one_more():
    """End of Game B: "finish the current round and then play 1 additional round" (FR-11)."""
    s = make(2)
    s.markers[1] = 7
    s._place("cockpit", 1)
    assert s.end_round == s.round + 1
    s._place("cockpit", 0)  # a later 8th marker changes nothing
    for _ in range(7):
        s._place("thruster", 0)
    assert s.end_round == s.round + 1


def test_both_triggers_the_earlier_ending_wins():
    """FR-11: if both happen, the earlier-ending trigger wins."""
    s = make(2)
    s.markers[0] = 7
    s._place("cockpit", 0)
    s.rats[1] = [27, 27, 27, 27]
    s._to_rocket(1)  # (a 5th placement, only to fire the trigger check)
    assert s.end_round == s.round


def test_game_over_after_the_extra_round():
    s = make(2)
    s.markers[0] = 7
    s._place("cockpit", 0)
    r = s.round
    play_to_end(s)
    assert s.round == r + 1


def test_final_scoring_lines():
    """End of Game: tracks, Bottle Caps, 3-point Awards, -2 per Moldy Cheese, 1 point per 4
    leftover Vinegar, Baking Soda, Tin Cans, Calculators and Cheese (FR-12)."""
    s = make(5)
    s._place("cockpit", 0)  # 8
    s._place("rattronaut", 0, marker=False)  # 10
    s.awards[0] = 2
    s.moldy[0] = 1
    s.mats[0] = {"vinegar": 3, "soda": 2, "tin": 1, "calculator": 1}
    s.cheese[0] = 2  # 9 leftovers -> 2 points
    s.built[0]["cockpit"] = 1
    s.caps[0] = ["BC1"]  # 3 per Cockpit built
    b = s.score_breakdown(0)
    assert b["cockpit"] == 8 and b["rattronaut"] == 10 and b["bottle_caps"] == 3
    assert b["awards_moldy"] == 6 - 2 and b["leftovers"] == 2
    assert s.scores()[0] == 8 + 10 + 3 + 4 + 2


@pytest.mark.parametrize("cap,setup,points", [
    ("BC2", lambda s: s.built[0].update(cargo_bay=2), 4),
    ("BC3", lambda s: s.built[0].update(thruster=3), 6),
    ("BC4", lambda s: [s._place("rocket", 0) for _ in range(2)], 8),
    ("BC5", lambda s: s.rats[0].__setitem__(0, 27), 3),
    ("BC6", lambda s: s._place("provisions", 0), 3),
    ("BC7", lambda s: s._place("construction_lights", 0), 3),
    ("BC8", lambda s: s._place("stored_food", 0), 3),
    ("BC9", lambda s: s.comics[0].extend(["CM1", "CM2"]), 4),
    ("BC10", lambda s: s.backpacks[0].extend(["BP-Y1"]), 2),
])
def test_bottle_caps_score_by_their_counts(cap, setup, points):
    """FR-12: Bottle caps score at game end by the counts in the data."""
    s = make(5)
    setup(s)
    s.caps[0] = [cap]
    assert s.score_breakdown(0)["bottle_caps"] == points


def test_ties_by_rattronauts_then_shared():
    """End of Game: "In the event of a tie, the tied player with the most Rattronauts in the
    rocket wins. If there is still a tie, the tied players share the win."."""
    s = make(3)
    s.cheese = [0, 0, 0]
    s._place("cockpit", 0)  # 8
    s._place("cargo_bay", 1)  # 9 - 1 below
    s.rats[1] = [27, 0, -1, -1]
    s.track_values["cargo_bay"] = [8, 7, 6, 5, 4]
    s.phase = "over"
    assert s.scores()[0] == s.scores()[1]
    assert s.returns() == [0.0, 1.0, 0.0]
    s.rats[1] = [0, 0, -1, -1]
    assert s.returns() == [0.5, 0.5, 0.0]
