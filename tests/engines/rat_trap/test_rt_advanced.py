"""Rat Trap Advanced Rules: "The Bigger the Gang" (RT-7) and "Everyone Has a Role to Play"
(RT-9, RT-10)."""

from __future__ import annotations

import pytest

from ratai.engines import CHANCE
from ratai.engines.rat_trap.data import ROLES, TRAP

from .rt_helpers import cards, do, labels, new_game


# ------------------------------------------------------------------- the bigger the gang
def gang(players=4, **params):
    return new_game(num_players=players, big_gang=True, **params).new_initial_state()


def test_bigger_gang_rolls_four_dice_once_without_reroll():
    """Bigger Gang: roll the 4 dice once (no reroll is possible)."""
    s = gang()
    assert s.phase == "roll_white"
    do(s, "roll key1+key2", "roll cat+heal")
    assert s.white == [0, 1] and s.black == [3, 4]
    assert s.phase == "accomplice" and "reroll both dice" not in labels(s)


def test_bigger_gang_two_accomplices_white_then_black():
    """Bigger Gang: white dice to one accomplice, black dice to a second one (RT-7)."""
    s = gang()
    do(s, "roll key1+key2", "roll cat+heal")
    assert s.ctx["colour"] == "white"
    do(s, "choose seat 3 as accomplice")
    assert s.ctx["colour"] == "black"
    assert labels(s) == ["choose seat 1 as accomplice", "choose seat 2 as accomplice"]


def test_bigger_gang_clockwise_keep_and_resolution_then_active_plays_last():
    """Bigger Gang: accomplices give back one die each in clockwise order, resolve in
    clockwise order, and the active player plays last, picking one of the two returned."""
    s = gang(5)
    do(s, "roll key1+key2", "roll cat+heal")
    do(s, "choose seat 4 as accomplice", "choose seat 2 as accomplice")
    assert s.current_player() == 2 and labels(s) == ["keep die cat", "keep die heal"]
    do(s, "keep die heal")
    assert s.current_player() == 4 and labels(s) == ["keep die key1", "keep die key2"]
    do(s, "keep die key1")
    # seat 2's heal (nothing to heal), then seat 4 draws
    assert s.phase == "pile" and s.current_player() == 4
    do(s, "draw from pile 0", "draw cheese1")
    assert s.current_player() == 0 and labels(s) == ["play die key2", "play die cat"]
    do(s, "play die cat")
    assert s.phase == "cat_target"


def test_bigger_gang_active_with_two_equal_returned_dice_plays_without_asking():
    s = gang()
    do(s, "roll heal+heal", "roll heal+heal", "choose seat 1 as accomplice",
       "choose seat 2 as accomplice")
    assert s.phase == "roll_white" and s.active == 1  # all heals: turn over


# ------------------------------------------------------------------------------ roles
def with_roles(deal, players=3, **params):
    """A roles game with roles dealt in seat order (names from ``deal``)."""
    s = new_game(num_players=players, roles=True, **params).new_initial_state()
    for role in deal:
        do(s, f"deal {role}")
    return s


def test_roles_dealt_each_round_as_chance_and_private():
    """Roles: shuffled and dealt face down each round; each player looks at their own (RT-9)."""
    s = new_game(num_players=3, roles=True).new_initial_state()
    assert s.phase == "deal_role" and s.current_player() == CHANCE
    assert len(s.chance_outcomes()) == 5
    do(s, "deal alchemist")
    assert len(s.chance_outcomes()) == 4
    do(s, "deal fool", "deal hypnotist")
    assert s.observation(0)["role"] == "alchemist" and s.observation(1)["role"] == "fool"
    assert s.observation(0)["public_roles"] == [None, None, None]
    text = s.information_state_string(0)
    assert '"fool"' not in text and '"hypnotist"' not in text


def test_manipulator_reveals_looks_at_two_piles_and_orders_them():
    """THE MANIPULATOR: reveal at round start, look at two piles, reorder each (RT-10)."""
    s = with_roles(["manipulator", "fool", "hypnotist"])
    assert s.role_public[0] and s.current_player() == 0 and s.phase == "manip_pile"
    do(s, "look at pile 2", "look at pile 0")
    assert s.current_player() == CHANCE and s.phase == "manip_deal"
    do(s, "pile holds 2xtrap,2xcheese1,1xclover")
    assert labels(s) == ["put trap next", "put cheese1 next", "put clover next"]
    do(s, "put cheese1 next", "put trap next", "put clover next", "put cheese1 next")
    assert labels(s) == ["put trap next"]  # asked even when forced: the count leaks nothing
    do(s, "put trap next")
    assert s.pile_order[2] == [1, 0, 3, 1, 0]
    do(s, "pile holds 1xtrap,1xcheese1,1xcheese2,2xclover", "put cheese2 next",
       "put clover next", "put trap next", "put clover next", "put cheese1 next")
    assert s.pile_order[0] == [2, 3, 0, 3, 1]
    assert s.phase == "roll"
    obs0, obs1 = s.observation(0), s.observation(1)
    assert obs0["pile_cards"][2] == [1, 0, 3, 1, 0] and obs1["pile_cards"] is None


def test_ordered_pile_draws_follow_the_order_and_the_manipulator_knows_them():
    s = with_roles(["manipulator", "hypnotist", "alchemist"])
    do(s, "look at pile 1", "look at pile 2", "pile holds 1xtrap,2xcheese2,2xclover",
       "put cheese2 next", "put clover next", "put trap next", "put cheese2 next",
       "put clover next", "pile holds 1xtrap,4xcheese1")
    do(s, "put cheese1 next", "put trap next", *["put cheese1 next"] * 3)
    assert s.pile_order[2] == [1, 0, 1, 1, 1]
    do(s, "roll key2+cat", "keep the dice")
    # Al Ratone window: seats 1 and 2 have unrevealed roles and are both asked
    do(s, "pass", "pass", "choose seat 1 as accomplice", "keep die key2",
       "draw from pile 1")
    assert s.stored[1] == cards("cheese2", "clover")  # no chance node: the order is known
    assert s.observation(0)["known"][1] == cards("cheese2", "clover")
    assert s.observation(2)["known"][1] == []


def test_al_ratone_forces_being_chosen_and_is_asked_of_every_unrevealed_seat():
    """AL RATONE: once a round, after the roll, reveal to force being the accomplice (RT-10)."""
    s = with_roles(["fool", "hypnotist", "al_ratone"], players=4)
    do(s, "deal alchemist")
    do(s, "roll steal+heal", "keep the dice")
    assert s.phase == "alratone" and s.current_player() == 1 and labels(s) == ["pass"]
    do(s, "pass")
    assert s.current_player() == 2 and labels(s) == ["pass", "reveal Al Ratone"]
    do(s, "reveal Al Ratone")
    assert s.acc == 2 and s.role_public[2] and s.current_player() == 2  # keeps a die now
    do(s, "keep die heal")
    # next turn: Al Ratone is used, no window any more
    do(s, "roll steal+heal", "keep the dice")
    assert s.phase == "accomplice"


def test_al_ratone_in_bigger_gang_chooses_the_colour():
    """AL RATONE with the advanced rules: also decide which colour dice you get."""
    s = new_game(num_players=4, roles=True, big_gang=True).new_initial_state()
    do(s, "deal fool", "deal al_ratone", "deal hypnotist", "deal alchemist")
    do(s, "roll heal+heal", "roll key1+key2")
    assert labels(s) == ["pass", "reveal Al Ratone and take the white dice",
                         "reveal Al Ratone and take the black dice"]
    do(s, "reveal Al Ratone and take the black dice")
    assert s.acc_black == 1 and s.ctx["colour"] == "white"
    assert labels(s) == ["choose seat 2 as accomplice", "choose seat 3 as accomplice"]


def test_hypnotist_redirects_a_cat_once_per_round():
    """THE HYPNOTIST: once a round, if targeted by the Cat, redirect it (RT-10)."""
    s = with_roles(["fool", "hypnotist", "alchemist"])
    do(s, "roll key1+cat", "keep the dice", "pass", "pass", "choose seat 2 as accomplice",
       "keep die cat", "send the cat to seat 1")
    assert s.current_player() == 1
    assert labels(s) == ["redirect the cat to seat 0", "redirect the cat to seat 2", "pass"]
    do(s, "redirect the cat to seat 0")
    assert s.role_public[1] and s.current_player() == 0 and s.phase == "scratch"
    do(s, "take the scratch")
    assert s.scratches == [1, 0, 0]


def test_hypnotist_window_is_asked_of_any_unrevealed_target():
    s = with_roles(["fool", "hypnotist", "alchemist"])
    do(s, "roll key1+cat", "keep the dice", "pass", "pass", "choose seat 1 as accomplice",
       "keep die cat", "send the cat to seat 2")
    assert s.current_player() == 2 and s.phase == "hypnotist" and labels(s) == ["pass"]


def test_fool_stores_traps_without_reveal_or_scratch():
    """THE FOOL: each Trap drawn is stored unrevealed, without a Scratch token."""
    s = with_roles(["fool", "hypnotist", "alchemist"])
    do(s, "roll key2+heal", "keep the dice", "pass", "pass", "choose seat 1 as accomplice",
       "keep die heal", "draw from pile 0", "draw trap (set-aside)", "draw trap")
    assert s.stored[0] == [TRAP, TRAP] and s.scratches[0] == 0 and s.trap_out == [0, 0, 0]
    assert s.observation(1)["stored_counts"][0] == 2 and s.observation(0)["fool_piles"] == [0, 0]


def test_fool_robbed_of_a_trap_reveals_all_and_takes_scratches():
    """THE FOOL: a thief who steals a Trap takes a scratch; the Fool reveals the other Traps,
    discards them and takes one scratch each, then discards the role."""
    s = with_roles(["fool", "hypnotist", "alchemist"])
    s.stored[0] = [TRAP, TRAP, 1]
    s.fool_piles = [0, 2]
    do(s, "roll steal+steal", "keep the dice", "pass", "pass", "choose seat 1 as accomplice",
       "stolen card: trap")  # seat 0 is the only player with cards: no choice asked
    assert s.current_player() == 1 and s.phase == "scratch"  # the thief first
    do(s, "take the scratch")
    assert s.current_player() == 0 and s.role_gone[0] and s.role_public[0]
    do(s, "take the scratch")
    assert s.scratches == [1, 1, 0] and s.stored[0] == [1] and s.trap_out == [1, 0, 1]
    assert s.phase == "roll" and s.active == 1  # seat 0's steal found nobody with cards


def test_alchemist_unused_clovers_count_one_cheese():
    """THE ALCHEMIST: each Lucky Clover stored and unused at round end counts one cheese."""
    s = with_roles(["alchemist", "hypnotist", "fool"])
    s.stored[0] = cards("clover", "clover", "cheese1")
    s.stored[1] = cards("clover")
    s.pile_g[0] = s.pile_r[0] = s.pile_g[1] = s.pile_r[1] = 0
    do(s, "roll heal+heal", "keep the dice", "pass", "pass", "choose seat 1 as accomplice")
    assert s.points == [3, 0, 0] and s.round_results[0]["roles"][0] == "alchemist"


@pytest.mark.parametrize("role", ROLES)
def test_each_role_can_be_dealt(role):
    s = new_game(num_players=5, roles=True).new_initial_state()
    assert f"deal {role}" in labels(s)
