"""First Rat solo play against Greg the Robo-Rat (rulebook "Solo Play"; ruling FR-16)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fr_helpers import clear_board, do, labels, make, restart

from ratai.engines import CHANCE, load_game
from ratai.engines.first_rat.data import load


def greg_turn(s, card_id: str, booths: bool = True):
    """Start Greg's turn now and reveal ``card_id`` (booth discards: first outcome)."""
    g = s.get_game()
    s.seat = g.greg
    s.greg_step = "draw"
    s._greg_run()
    assert s.current_player() == CHANCE and s.phase == "greg_draw"
    s.apply_action(g.CH_CARD + g.card_index[card_id])
    while booths and s.phase == "greg_booth":
        s.apply_action(s.chance_outcomes()[0][0])


def test_solo_setup():
    """Solo Setup: as for 2 players; Greg's rats on spaces 8, 5, 1 and Start; no Nursery,
    Light String or Rat Burrow for Greg; you are the start player."""
    s = make(1)
    assert s.greg_rats == [8, 5, 1, 0]
    assert len(s.rats) == 1 and len(s.light) == 1 and len(s.burrow) == 1
    assert len(s.disp_backpacks) == 5 and s.disp_drinks == 3  # 2-player counts
    assert s.track_slots["cockpit"] == [None, -1, None, -1]
    assert s.cheese == [1] and s.current_player() == 0
    assert s.greg_prepared == []


@pytest.mark.parametrize("level,a,b", [("easy", 5, 5), ("medium", 6, 4), ("difficult", 7, 3),
                                       ("unfair", 8, 2)])
def test_greg_deck_by_difficulty(level, a, b):
    """Solo Setup table: A/B cards 5/5, 6/4, 7/3, 8/2, plus the C card; drawn lazily: each
    unknown card is equally likely to be any unseen card of its stack."""
    s = make(1, difficulty=level)
    assert s.greg_unknown == {"A": a, "B": b}
    g = s.get_game()
    s.seat = 1
    s.greg_step = "draw"
    s._greg_run()
    outcomes = dict(s.chance_outcomes())
    assert math.isclose(sum(outcomes.values()), 1.0)
    total = a + b + 1
    assert math.isclose(outcomes[g.CH_CARD + g.card_index["C1"]], 1 / total)
    assert math.isclose(outcomes[g.CH_CARD + g.card_index["A1"]], a / total / 11)
    assert math.isclose(outcomes[g.CH_CARD + g.card_index["B1"]], b / total / 10)


def test_greg_moves_by_position():
    """Solo: "The top move is for Greg's Rat in 1st position, the next ... 2nd position"
    (card A5: 1, 2, 0, 3)."""
    s = make(1)
    greg_turn(s, "A5")
    assert s.greg_rats == [9, 7, 1, 3]


def test_rulebook_example_rocket_rats_pass_their_moves_on():
    """Solo rulebook example: with 2 of Greg's rats in the rocket, "the rat in 3rd position
    would move 3 spaces as shown on the card (1+2+0)"."""
    s = make(1)
    s.greg_rats = [27, 27, 10, 4]
    greg_turn(s, "A5")
    assert s.greg_rats == [27, 27, 13, 7]


def test_greg_forfeits_moves_after_reaching_the_launchpad():
    """Solo: "If one of Greg's Rats moves onto the Launchpad, any remaining moves are
    forfeited." Greg ignores shortcuts and the same-colour rule (FR-16)."""
    s = make(1)
    s.greg_rats = [25, 20, 5, 0]
    greg_turn(s, "A1")  # 3, 2, 1, 0
    assert s.greg_rats == [27, 20, 5, 0]
    assert s.track_slots["rattronaut"][0] == 1  # Greg's owner id


def test_greg_pays_you_from_the_supply_and_you_pay_to_the_supply():
    """Solo: "If Greg's Rats end their move in spaces with your Rats, you gain 1 Cheese";
    "Whenever you must give him Cheese, hand it in to the general supply instead"."""
    s = make(1)
    clear_board(s, {0: [9]})
    s.cheese = [0]
    greg_turn(s, "A5")  # Greg's first rat 8 -> 9
    assert s.cheese == [1]
    s = make(1)
    clear_board(s, {0: [3]})
    s.cheese = [2]
    restart(s)
    issued = s.cheese_issued
    do(s, "A: rat 0 space 3 -> space 5")  # Greg's rat is on 5 (blue: no cheese yield)
    assert s.cheese == [1] and s.cheese_issued == issued - 1


def test_greg_booth_discards_one_tile_at_random():
    """Solo: a Greg rat ending on a booth: "mix the tiles facedown and return 1 at random to
    the box"; he is never returned to Start."""
    s = make(1)
    s.greg_rats = [4, 2, 1, 0]
    greg_turn(s, "A1", booths=False)  # 4 -> 7 (Harry Hamster)
    assert s.greg_rats[0] == 7 and s.phase == "greg_booth"
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 5 and all(math.isclose(p, 0.2) for _, p in outcomes)
    s.apply_action(outcomes[0][0])
    assert len(s.disp_backpacks) == 4
    s = make(1)
    s.greg_rats = [13, 2, 1, 0]
    greg_turn(s, "A1")  # 13 -> 16 (Zippy: identical drinks, no chance needed)
    assert s.disp_drinks == 2


def test_prepare_then_score_a_track():
    """Solo icons, "Prepare a specific track": the first time prepare; if already prepared,
    Greg scores the track and the marker goes back."""
    s = make(1)
    greg_turn(s, "A1")  # prepare: cockpit
    assert s.greg_prepared == ["cockpit"]
    s2 = make(1)
    s2.greg_prepared = ["cockpit"]
    greg_turn(s2, "A1")
    assert s2.greg_prepared == [] and s2.track_slots["cockpit"][0] == 1
    assert s2.markers[1] == 1 and s2.greg_points() >= 8


def test_remove_a_comic():
    """Solo icon "Remove a Comic": one Library comic at random returns to the box."""
    s = make(1)
    n = len(s.library)
    greg_turn(s, "A7")
    assert s.phase == "greg_comic" and len(s.chance_outcomes()) == n
    s.apply_action(s.chance_outcomes()[-1][0])
    assert len(s.library) == n - 1


def test_prepare_best_track_and_reshuffle():
    """Solo icon "Prepare the best track": the track where Greg would score most (thruster 11);
    then the faceup cards are reshuffled into Greg's deck."""
    s = make(1)
    s.greg_discard = [s.get_game().card_index["A2"]]
    greg_turn(s, "C1")
    assert s.greg_prepared == ["thruster"]
    g = s.get_game()
    assert sorted(s.greg_known) == sorted([g.card_index["A2"], g.card_index["C1"]])
    assert s.greg_discard == []


def test_prepare_best_ties_by_order_or_choice():
    """FR-16: ties break in the order cockpit, cargo bay, thruster, stored food, provisions,
    construction lights; configurable: the player chooses."""
    s = make(1)
    for t in s.track_values:
        s.track_values[t] = [5, 4, 3, 2, 1]
    greg_turn(s, "C1")
    assert s.greg_prepared == ["cockpit"]
    s = make(1, greg_best_tie="choose")
    for t in s.track_values:
        s.track_values[t] = [5, 4, 3, 2, 1]
    greg_turn(s, "C1")
    assert s.phase == "greg_best" and s.current_player() == 0
    assert len(labels(s)) == 6
    do(s, "Greg prepares the Stored Food track")
    assert s.greg_prepared == ["stored_food"]


def test_greg_deck_reshuffles_when_empty():
    """FR-16: Greg's deck is reshuffled when empty."""
    s = make(1)
    g = s.get_game()
    s.greg_known = []
    s.greg_unknown = {"A": 0, "B": 0}
    s.greg_discard = [g.card_index["A1"], g.card_index["B1"]]
    s.seat = 1
    s.greg_step = "draw"
    s._greg_run()
    assert [a - g.CH_CARD for a, _ in s.chance_outcomes()] == sorted(s.greg_known)
    assert s.greg_discard == []


def test_solo_win_needs_more_points_than_greg():
    """Solo End of the Game: "If you have more points than Greg, you win"."""
    s = make(1)
    s.cheese = [0]
    s.phase = "over"
    s._place("cockpit", 1)  # Greg 8
    s.awards[0] = 2  # 6
    assert s.returns() == [0.0]
    s.track_values["cargo_bay"] = [2, 2, 2, 2, 2]
    s._place("cargo_bay", 0)
    assert s.scores() == [8.0] and s.returns() == [0.0]  # a tie is not a win
    assert s.automaton_scores() == [8.0]                  # Greg's, beside the seat's
    s.awards[0] = 3
    assert s.returns() == [1.0]


def test_automaton_scores_are_gregs_points_on_both_backends():
    """``State.automaton_scores()`` (the engine contract's solo rivals) is ``[Greg's
    points]`` in the solo game on both backends, move for move, and decides the result
    (Solo End: more points than Greg wins); ``[]`` with several players and in every other
    title."""
    ref = load_game("first_rat", backend="python", num_players=1)
    twin = load_game("first_rat", backend="cython", num_players=1)
    rng = np.random.default_rng(4)
    a, b = ref.new_initial_state(), twin.new_initial_state()
    while not a.is_terminal():
        assert a.automaton_scores() == b.automaton_scores() == [float(a.greg_points())]
        if a.is_chance_node():
            acts, probs = zip(*a.chance_outcomes(), strict=True)
            x = acts[rng.choice(len(acts), p=probs)]
        else:
            la = a.legal_actions()
            x = la[rng.integers(len(la))]
        a.apply_action(x)
        b.apply_action(x)
    (greg,) = b.automaton_scores()
    assert b.returns() == a.returns() == [1.0 if a.scores()[0] > greg else 0.0]
    for name in ("first_rat", "rat_trap", "ratapolis", "rats_to_riches"):
        for backend in ("python", "cython"):
            assert load_game(name, backend=backend, num_players=2).new_initial_state() \
                .automaton_scores() == []


def test_greg_eighth_marker_triggers_the_end():
    """Solo End: the same rules as the multi-player game (Greg's 8th Score marker)."""
    s = make(1)
    s.markers[1] = 7
    s.greg_prepared = ["cockpit"]
    greg_turn(s, "A1")
    assert s.end_round == 2


def test_random_solo_games_end():
    game = load_game("first_rat", backend="python", num_players=1, difficulty="unfair")
    for seed in range(5):
        rng = np.random.default_rng(seed)
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(acts[rng.choice(len(acts), p=probs)])
            else:
                la = s.legal_actions()
                s.apply_action(la[rng.integers(len(la))])
        assert len(s.returns()) == 1
    assert load().cards[-1].id == "C1"


def test_greg_rat_ending_his_turn_on_a_booth_discards_even_without_moving():
    """Solo Play, Sequence of Play: "If one of Greg's Rats ends its turn in a booth space for
    Harry Hamster, Zippy the Frog, or the Madcap Crow, mix the tiles facedown and return 1 at
    random to the box." The text says "ends its turn" (the cheese sentence above it says "end
    their move"), so a rat that stays put counts too. Card A1 moves 3, 2, 1, 0: the rat in 4th
    position stays on Harry Hamster's booth (space 7); the moved rats reach no booth."""
    s = make(1)
    s.greg_rats = [20, 15, 10, 7]  # 20 -> 23, 15 -> 17, 10 -> 11, 7 stays
    greg_turn(s, "A1", booths=False)
    assert s.greg_rats == [23, 17, 11, 7]
    assert s.phase == "greg_booth" and s.greg_booths == [7]
    outcomes = s.chance_outcomes()
    assert len(outcomes) == 5  # the 5 backpacks of the 2-player display
    s.apply_action(outcomes[0][0])
    assert len(s.disp_backpacks) == 4 and s.greg_booths == []


def test_greg_discards_once_per_rat_on_a_booth():
    """Solo Play: each of Greg's rats ending his turn on a booth returns 1 tile (JUDGEMENT in
    rules.py: two rats on one booth discard twice). Zippy's drinks are identical, so no
    chance node: 3 drinks -> 1."""
    s = make(1)
    s.greg_rats = [20, 16, 16, 0]  # card A1: 20 -> 23, 16 -> 18, 16 -> 17, Start stays
    greg_turn(s, "A1")
    assert s.greg_rats == [23, 18, 17, 0] and s.disp_drinks == 3  # nobody ends on 16
    s = make(1)
    s.greg_rats = [21, 20, 16, 16]  # 21 -> 24, 20 -> 22, 16 -> 17, the other 16 stays
    greg_turn(s, "A1")
    assert s.greg_rats.count(16) == 1 and s.disp_drinks == 2
    s = make(1)
    s.greg_rats = [20, 19, 16, 15]  # 20 -> 23, 19 -> 21 (Crow), 16 -> 17, 15 stays
    greg_turn(s, "A1")
    assert s.disp_drinks == 3 and len(s.disp_caps) == 5
    s = make(1)
    s.greg_rats = [25, 16, 16, 0]  # 25 -> Launchpad forfeits the rest: two rats stay on 16
    greg_turn(s, "A1")
    assert s.greg_rats == [27, 16, 16, 0] and s.disp_drinks == 1


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("param,value", [("difficulty", "unfair"), ("difficulty", "easy"),
                                         ("greg_best_tie", "choose")])
def test_solo_only_params_are_rejected_with_several_players(n, param, value):
    """Contract (api.py ``_check_params``: cross-parameter checks raise ValueError naming the
    parameter). Greg's difficulty and tie rule exist only in the rulebook's "Solo Play"; with
    2-5 players a non-default value is an error (the defaults are accepted, rules.py)."""
    with pytest.raises(ValueError, match=param):
        load_game("first_rat", backend="python", num_players=n, **{param: value})
    load_game("first_rat", backend="python", num_players=n, difficulty="medium",
              greg_best_tie="order")
    load_game("first_rat", backend="python", num_players=1, **{param: value})
