"""Rat Trap rulebook: Game Setup, Round Setup, Turn Structure steps 1-4."""

from __future__ import annotations

import pytest

from ratai.engines import CHANCE, IllegalActionError
from ratai.engines.rat_trap.data import CARD_TYPES, TRAP
from ratai.engines.rat_trap.rules import DRAW, _draw_outcomes

from .rt_helpers import do, labels, new_game, start_turn


@pytest.mark.parametrize("players,cards", [(3, 15), (4, 20), (5, 25)])
def test_game_setup_doorway_cards_per_player_count(players, cards):
    """Game Setup: 15 cards with 3 players, 20 with 4, 25 with 5."""
    g = new_game(num_players=players)
    assert sum(g.deck) == cards
    s = g.new_initial_state()
    assert sum(s._pile_size(i) for i in range(players)) == cards


@pytest.mark.parametrize("players", [3, 4, 5])
def test_round_setup_one_pile_per_player_each_five_cards_with_a_set_aside_trap(players):
    """Round Setup: as many piles as players, 5 cards each including one set-aside Trap."""
    s = new_game(num_players=players).new_initial_state()
    assert s.pile_g == [1] * players and s.pile_r == [4] * players
    assert s.pool[TRAP] == s._game.deck[TRAP] - players


def _pile_trap_distribution(state, pile):
    """Exact distribution of Traps among a pile's 5 cards, enumerating the draw outcomes."""
    dist: dict[int, float] = {}

    def walk(st, prob, traps, left):
        if left == 0:
            dist[traps] = dist.get(traps, 0) + prob
            return
        st.ctx = {"pile": pile}
        for a, p in _draw_outcomes(st):
            nxt = st.clone()
            if a == DRAW:
                nxt.pile_g[pile] = 0
            else:
                nxt.pile_r[pile] -= 1
                nxt.pool[a - DRAW - 1] -= 1
            walk(nxt, prob * p, traps + (a in (DRAW, DRAW + 1)), left - 1)

    walk(state.clone(), 1.0, 0, 5)
    return dist


def test_lazy_piles_are_exactly_a_shuffled_deal():
    """Round Setup: a pile is its set-aside Trap + 4 dealt cards; drawing it card by card
    gives the hypergeometric Trap count of the physical deal (4 players: 1 extra Trap in 16)."""
    s = new_game(num_players=4).new_initial_state()
    dist = _pile_trap_distribution(s, 0)
    assert dist[1] == pytest.approx(12 / 16)  # the extra Trap is not among the 4 dealt
    assert dist[2] == pytest.approx(4 / 16)
    assert 0 not in dist and sum(dist.values()) == pytest.approx(1)


def test_first_draw_probabilities_from_a_fresh_pile():
    """4 players: P(Trap) = 1/5 (set-aside) + 4/5 * 1/16 (the extra Trap) = 1/4."""
    s = new_game(num_players=4).new_initial_state()
    start_turn(s, "key1+key1", 1, "key1")
    do(s, "draw from pile 2")
    out = dict(s.chance_outcomes())
    assert out[DRAW] == pytest.approx(1 / 5)
    assert out[DRAW + 1] == pytest.approx(4 / 5 * 1 / 16)
    assert out[DRAW + 1 + CARD_TYPES.index("cheese1")] == pytest.approx(4 / 5 * 7 / 16)


def test_starting_active_player_is_seat_0_and_rolls_first():
    """Game Setup: the starting Active player takes the dice (seat 0 by convention)."""
    s = new_game(num_players=3).new_initial_state()
    assert s.current_player() == CHANCE and s.phase == "roll" and s.active == 0


def test_roll_probabilities_of_two_black_dice():
    """1. Roll the Dice: two dice of faces key1, key2, steal, cat, cat, heal (data)."""
    s = new_game(num_players=3).new_initial_state()
    out = {s.action_to_string(CHANCE, a): p for a, p in s.chance_outcomes()}
    assert out["roll cat+cat"] == pytest.approx(1 / 9)
    assert out["roll key1+key2"] == pytest.approx(2 / 36)
    assert out["roll key1+cat"] == pytest.approx(4 / 36)
    assert len(out) == 15 and sum(out.values()) == pytest.approx(1)


def test_reroll_both_dice_and_the_second_result_is_final():
    """1. Roll the Dice: you may reroll BOTH; the second result is final."""
    s = new_game(num_players=3).new_initial_state()
    do(s, "roll heal+heal")
    assert labels(s) == ["reroll both dice", "keep the dice"]
    do(s, "reroll both dice", "roll key2+key2")
    assert s.phase == "accomplice" and s.black == [1, 1]


def test_choose_an_accomplice_gives_both_dice_to_another_player():
    """2. Choose an Accomplice: another player, never yourself."""
    s = new_game(num_players=4).new_initial_state()
    do(s, "roll key1+steal", "keep the dice")
    assert labels(s) == [f"choose seat {k} as accomplice" for k in (1, 2, 3)]
    do(s, "choose seat 2 as accomplice")
    assert s.current_player() == 2 and labels(s) == ["keep die key1", "keep die steal"]


def test_accomplice_die_resolves_before_the_active_players_die():
    """3-4: the accomplice keeps one die; its action resolves first, then the active's."""
    s = new_game(num_players=3).new_initial_state()
    start_turn(s, "key1+cat", 1, "cat")
    # the accomplice (seat 1) now resolves the cat, then seat 0 draws with key1
    assert s.phase == "cat_target" and s.current_player() == 1
    do(s, "send the cat to seat 2", "take the scratch")
    assert s.phase == "pile" and s.current_player() == 0


def test_a_pair_of_equal_faces_leaves_no_choice_and_heal_without_scratch_does_nothing():
    """A decision with one public option is applied without asking; HEAL with no Scratch
    token is skipped (RT-1)."""
    s = new_game(num_players=3).new_initial_state()
    do(s, "roll heal+heal", "keep the dice", "choose seat 2 as accomplice")
    assert s.phase == "roll" and s.active == 1 and s.scratches == [0, 0, 0]


def test_wrong_seat_cannot_act_and_state_is_unchanged():
    """Bad input: an illegal action names the legal ones and changes nothing."""
    s = new_game(num_players=3).new_initial_state()
    do(s, "roll key1+cat", "keep the dice")
    before = s.serialize()
    with pytest.raises(IllegalActionError, match="choose seat 1 as accomplice"):
        s.apply_action(s.legal_actions()[0] - 1)
    assert s.serialize() == before


def test_every_action_id_has_a_label():
    g = new_game(num_players=5, big_gang=True, roles=True)
    s = g.new_initial_state()
    for a in range(g.num_distinct_actions()):
        assert not s.action_to_string(0, a).startswith("invalid")
    assert s.action_to_string(0, g.num_distinct_actions()).startswith("invalid")
