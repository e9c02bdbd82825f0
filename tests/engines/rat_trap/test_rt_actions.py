"""Rat Trap rulebook: The Actions, Drawing and Storing Cards, Elimination, End of Turn."""

from __future__ import annotations

from .rt_helpers import cards, do, labels, new_game, start_turn


def fresh(players=3, **params):
    return new_game(num_players=players, **params).new_initial_state()


def test_one_key_draws_the_top_card_of_the_chosen_pile_and_stores_it():
    """1 KEY: draw the top card from the pile of your choice; cheese is stored face down."""
    s = fresh()
    start_turn(s, "key1+heal", 1, "key1")
    assert labels(s) == ["draw from pile 0", "draw from pile 1", "draw from pile 2"]
    do(s, "draw from pile 1", "draw cheese2")
    assert s.stored[1] == cards("cheese2") and s._pile_size(1) == 4


def test_two_keys_draw_two_cards_consecutively_from_one_pile():
    """2 KEYS: draw 2 cards consecutively from the pile of your choice."""
    s = fresh()
    start_turn(s, "key2+heal", 2, "key2")
    do(s, "draw from pile 0", "draw cheese1", "draw clover")
    assert s.stored[2] == cards("cheese1", "clover") and s._pile_size(0) == 3


def test_two_keys_from_a_pile_of_one_card_draw_only_one():
    """2 KEYS: if the pile only contains a single card, only draw one."""
    s = fresh()
    s.pile_g[0], s.pile_r[0] = 0, 1
    s.pile_r[1], s.pile_r[2] = 0, 0
    s.pile_g[1] = s.pile_g[2] = 0
    start_turn(s, "key2+cat", 1, "key2")
    do(s, "draw cheese1")  # pile 0 was the only non-empty pile: no choice asked
    assert s.stored[1] == cards("cheese1") and s._pile_size(0) == 0
    assert s.phase == "cat_target"  # no second draw: seat 0's cat comes next


def test_clover_drawn_before_a_trap_protects():
    """2 KEYS: a Lucky Clover drawn before a Trap can protect you (RT-2: by choice)."""
    s = fresh()
    start_turn(s, "key2+heal", 1, "key2")
    do(s, "draw from pile 0", "draw clover", "draw trap (set-aside)")
    assert s.current_player() == 1 and labels(s) == ["use a Lucky Clover", "take the scratch"]
    do(s, "use a Lucky Clover")
    assert s.scratches[1] == 0 and s.stored[1] == [] and s.used_clovers == 1
    assert s.trap_out[0] == 1  # the Trap is revealed next to its pile


def test_trap_before_clover_does_not_protect():
    """2 KEYS: the inverse (Trap first, then clover) gives no protection."""
    s = fresh()
    start_turn(s, "key2+heal", 1, "key2")
    do(s, "draw from pile 0", "draw trap (set-aside)")
    assert labels(s) == ["take the scratch"]
    do(s, "take the scratch", "draw clover")
    assert s.scratches[1] == 1 and s.stored[1] == cards("clover")


def test_trap_is_revealed_and_gives_a_scratch_and_second_draw_still_happens():
    """Drawing and Storing Cards: a Trap is revealed at once and you take a Scratch token;
    a first-card Trap does not prevent the second draw."""
    s = fresh()
    start_turn(s, "key2+heal", 2, "key2")
    do(s, "draw from pile 2", "draw trap (set-aside)", "take the scratch", "draw cheese1")
    assert s.scratches[2] == 1 and s.trap_out[2] == 1 and s.stored[2] == cards("cheese1")


def test_the_scratch_decision_is_asked_even_without_a_clover():
    """RT-2 decision: asked whenever a scratch would be taken, so being asked reveals nothing
    about your cards; only TAKE is legal without a clover."""
    s = fresh()
    start_turn(s, "key1+cat", 1, "cat")
    do(s, "send the cat to seat 2")
    assert s.current_player() == 2 and labels(s) == ["take the scratch"]


def test_steal_takes_a_random_stored_card_of_the_chosen_player():
    """STEAL: one card at random stored by another player of your choice (RT-4)."""
    s = fresh()
    s.stored[2] = cards("cheese1", "cheese1", "clover", "cheese2")
    start_turn(s, "steal+heal", 1, "steal")
    # only seat 2 has cards: the victim is not asked
    out = {s.action_to_string(-1, a): p for a, p in s.chance_outcomes()}
    assert out == {"stolen card: cheese1": 0.5, "stolen card: cheese2": 0.25,
                   "stolen card: clover": 0.25}
    do(s, "stolen card: clover")
    assert s.stored[1] == cards("clover") and s.stored[2] == cards("cheese1", "cheese1", "cheese2")


def test_steal_knowledge_victim_knows_thief_knows_others_only_count():
    """RT-4: the thief learns the card, the victim knows what was lost, others the count."""
    s = fresh(4)
    s.stored[2] = cards("cheese2", "clover")
    s.stored[3] = cards("cheese1")
    start_turn(s, "steal+heal", 1, "steal")
    do(s, "steal from seat 2", "stolen card: cheese2")
    assert s.observation(1)["my_cards"] == cards("cheese2")
    assert s.observation(2)["known"][1] == cards("cheese2")  # victim knows where it went
    assert s.observation(1)["known_by"][2] == cards("cheese2")  # and the thief knows that
    assert s.observation(3)["known"][1] == [] and s.observation(3)["stored_counts"][1] == 1


def test_steal_from_nobody_is_skipped():
    """RT-1: an action that cannot be carried out is skipped."""
    s = fresh()
    start_turn(s, "steal+heal", 1, "steal")
    assert s.phase == "roll" and s.active == 1


def test_cat_attack_never_on_yourself_but_may_hit_your_partner():
    """CAT ATTACK: not on yourself; you may attack your partner."""
    s = fresh()
    start_turn(s, "key1+cat", 1, "cat")
    assert labels(s) == ["send the cat to seat 0", "send the cat to seat 2"]


def test_cat_not_twice_on_one_player_in_a_turn():
    """CAT ATTACK: with two Cat dice the active player and accomplice may not target the
    same player."""
    s = fresh(4)
    start_turn(s, "cat+cat", 1, "cat")
    do(s, "send the cat to seat 2", "take the scratch")
    assert s.current_player() == 0
    assert labels(s) == ["send the cat to seat 1", "send the cat to seat 3"]


def test_heal_returns_one_scratch():
    """HEAL: heal one Scratch token (if you have one)."""
    s = fresh()
    s.scratches[1] = 2
    start_turn(s, "key1+heal", 1, "heal")
    assert s.scratches[1] == 1


def test_clover_does_not_heal():
    """A Lucky Clover only prevents a scratch; it does not heal."""
    s = fresh()
    s.scratches[0] = 1
    s.stored[0] = cards("clover")
    start_turn(s, "steal+heal", 1, "steal")  # seat 1 steals (only seat 0 has a card)
    do(s, "stolen card: clover")
    assert s.scratches[0] == 0  # seat 0's own heal die healed it, the clover went to seat 1
    assert s.stored[1] == cards("clover")


def test_third_scratch_eliminates_loses_cards_and_ends_round_after_the_turn():
    """Elimination: the 3rd Scratch eliminates from the round, all stored cards are lost; the
    round ends after the turn's remaining actions (RT-3)."""
    s = fresh()
    s.scratches[2] = 2
    s.stored[2] = cards("cheese2", "cheese2")
    s.stored[0] = cards("cheese1")
    start_turn(s, "key1+cat", 1, "cat")
    do(s, "send the cat to seat 2", "take the scratch")
    assert s.eliminated[2] and s.stored[2] == [] and s.lost[2] == cards("cheese2", "cheese2")
    assert s.phase == "pile" and s.current_player() == 0  # the active's action still resolves
    do(s, "draw from pile 0", "draw cheese1")
    assert s.round == 2  # round ended: seat 0 scored 2, seat 1 nothing, seat 2 eliminated
    assert s.points == [2, 0, 0]


def test_several_players_can_be_eliminated_in_one_turn():
    """End of Round: it is possible for multiple players to be eliminated in the same turn."""
    s = fresh(4)
    s.scratches[2] = s.scratches[3] = 2
    s.stored[0] = cards("cheese1")
    start_turn(s, "cat+cat", 1, "cat")
    do(s, "send the cat to seat 2", "take the scratch", "send the cat to seat 3",
       "take the scratch")
    assert s.round == 2 and s.round_results[0]["eliminated"] == [False, False, True, True]


def test_eliminated_player_no_longer_acts():
    """A player eliminated by the first action does not play the second die (nor draw the
    second card of 2 KEYS: "unless you were eliminated by the Trap")."""
    s = fresh()
    s.scratches[1] = 2
    start_turn(s, "key2+cat", 1, "key2")
    do(s, "draw from pile 0", "draw trap (set-aside)", "take the scratch")
    assert s.eliminated[1] and s._pile_size(0) == 4
    # seat 1 is no target any more, so seat 0's cat goes to seat 2 without asking
    assert s.cat_targets == [2] and s.current_player() == 2


def test_end_of_turn_passes_the_dice_to_the_left():
    """End of Turn: the Active player passes the dice to the player on their left."""
    s = fresh(4)
    start_turn(s, "heal+heal", 3, "heal")
    assert s.active == 1
    start_turn(s, "heal+heal", 3, "heal")
    assert s.active == 2


def test_key_with_every_pile_empty_is_skipped():
    """RT-1: drawing when every pile is empty is skipped."""
    s = fresh()
    s.pile_g = [0, 0, 0]
    s.pile_r = [0, 0, 0]
    s.pile_g[0] = 1
    start_turn(s, "key1+key2", 1, "key1")
    do(s, "draw trap (set-aside)", "take the scratch")
    # seat 0's 2 KEYS find every pile empty: skipped, and the round ends (3 piles exhausted)
    assert s.round == 2

