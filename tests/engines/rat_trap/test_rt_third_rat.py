"""Rat Trap Bonus: the 2-player "Third Rat" variant (RT-8)."""

from __future__ import annotations

from ratai.engines import CHANCE

from .rt_helpers import cards, do, labels, new_game

TR = 2  # the Third Rat's participant index


def fresh():
    return new_game(num_players=2).new_initial_state()


def to_third_rat(s, roll):
    do(s, f"roll {roll}", "keep the dice", "choose Third Rat as accomplice")
    assert s.current_player() == CHANCE and s.phase == "tr_card"
    return s


def test_two_players_use_the_three_player_setup():
    """The game follows the rules of a 3-player game: 3 piles, the 15-card deck."""
    g = new_game(num_players=2)
    assert g.num_players() == 2 and g.participants == 3 and sum(g.deck) == 15
    s = g.new_initial_state()
    assert len(s.pile_g) == 3 and len(s.points) == 3 and s.scores() == [0.0, 0.0]


def test_active_may_choose_the_third_rat_as_accomplice():
    s = fresh()
    do(s, "roll key1+cat", "keep the dice")
    assert labels(s) == ["choose seat 1 as accomplice", "choose Third Rat as accomplice"]


def test_third_rat_keeps_the_first_face_of_its_card_priority():
    """RT-8: it keeps the first face of its card's priority list that is rolled."""
    s = to_third_rat(fresh(), "key1+cat")
    do(s, "Third Rat card TR3")  # cat, steal, key2, key1, heal; controller: the active
    assert s.kept == {"2": 3} and s.returned == [0]
    # its cat always scratches the non-controller (seat 1 here)
    assert s.current_player() == 1 and s.phase == "scratch"


def test_third_rat_cat_scratches_the_active_player_when_the_opponent_controls():
    s = to_third_rat(fresh(), "key1+cat")
    do(s, "Third Rat card TR4")  # same priority, controller: the opponent
    assert s.current_player() == 0 and s.phase == "scratch"


def test_controller_picks_the_pile_and_the_card_is_stored_face_up():
    s = to_third_rat(fresh(), "key2+heal")
    do(s, "Third Rat card TR2")  # key2 first; controller: the opponent (seat 1)
    assert s.current_player() == 1 and s.phase == "pile"
    do(s, "draw from pile 1", "draw cheese2", "draw clover")
    assert s.stored[TR] == cards("cheese2", "clover")
    assert s.observation(0)["third_rat_cards"] == cards("cheese2", "clover")
    assert s.observation(1)["third_rat_cards"] == cards("cheese2", "clover")


def test_third_rat_with_two_scratches_takes_heal():
    """If the Third Rat has 2 Scratch tokens it always chooses a Heal die if possible."""
    s = fresh()
    s.scratches[TR] = 2
    to_third_rat(s, "key2+heal")
    do(s, "Third Rat card TR1")  # would keep key2
    assert s.kept == {"2": 4} and s.scratches[TR] == 1


def test_third_rat_always_uses_a_clover():
    """The Third Rat always uses a Lucky Clover to avoid a Scratch token."""
    s = fresh()
    s.stored[TR] = cards("clover")
    to_third_rat(s, "key1+cat")
    do(s, "Third Rat card TR1", "draw from pile 0", "draw trap (set-aside)")
    assert s.scratches[TR] == 0 and s.stored[TR] == [] and s.used_clovers == 1


def test_third_rat_steal_controller_chooses_victim_with_fallback():
    """Steal: the controller decides who the Third Rat steals from; if that player has nothing
    stored, it steals from the other player if possible."""
    s = fresh()
    s.stored[0] = cards("cheese1")
    s.stored[1] = cards("cheese2")
    to_third_rat(s, "steal+heal")
    do(s, "Third Rat card TR5")  # steal first; controller: the active
    assert s.current_player() == 0 and labels(s) == ["steal from seat 0", "steal from seat 1"]
    s2 = fresh()
    s2.stored[0] = cards("cheese1")
    to_third_rat(s2, "steal+heal")
    do(s2, "Third Rat card TR5", "stolen card: cheese1")  # only seat 0 has cards: no choice
    assert s2.stored[TR] == cards("cheese1") and s2.stored[0] == []


def test_stealing_from_the_third_rat_is_public():
    """Its cards are shuffled before you draw one; they are face up, so everyone then knows
    which card you took."""
    s = fresh()
    s.stored[TR] = cards("cheese2", "cheese1")
    do(s, "roll steal+heal", "keep the dice", "choose seat 1 as accomplice", "keep die steal")
    assert len(s.chance_outcomes()) == 2
    do(s, "stolen card: cheese2")
    assert s.observation(0)["known"][1] == cards("cheese2")


def test_third_rat_cannot_be_chosen_after_all_six_cards():
    """You may choose the Third Rat only while its six cards have not all been taken."""
    s = fresh()
    s.tr_used = [0, 1, 2, 3, 4, 5]
    do(s, "roll key1+cat", "keep the dice")
    assert s.phase != "accomplice" and s.acc == 1  # only the opponent is left: chosen


def test_third_rat_cards_are_drawn_without_replacement_within_a_round():
    s = fresh()
    s.tr_used = [0, 2]
    to_third_rat(s, "heal+heal")
    assert [a for a, _ in s.chance_outcomes()] == [a for a in s.legal_actions()]
    assert len(s.chance_outcomes()) == 4


def test_third_rat_never_active_and_scores_points():
    """The Third Rat never rolls the dice; it collects Point tokens like any other player and
    can win (then both seats lose)."""
    s = fresh()
    assert s.active == 0
    do(s, "roll heal+heal", "keep the dice", "choose Third Rat as accomplice",
       "Third Rat card TR1")
    assert s.active == 1  # the dice go to the other player, never to the Third Rat
    do(s, "roll heal+heal", "keep the dice", "choose Third Rat as accomplice",
       "Third Rat card TR2")
    assert s.active == 0
    s.round = 3
    s.points = [1, 1, 5]
    s.pile_g = [0, 0, 1]
    s.pile_r = [0, 0, 4]
    do(s, "roll heal+heal", "keep the dice", "choose seat 1 as accomplice")
    # nobody stored cheese: 2 points each, the Third Rat included, and it leads
    assert s.is_terminal() and s.returns() == [0.0, 0.0] and s.points == [3, 3, 7]
