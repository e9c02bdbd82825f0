"""Rats to Riches: setup ("Building The Sewer") and the turn ("Core Rules" steps 1-3)."""

from __future__ import annotations

import pytest
from rr_helpers import PIPE, card_id, card_total, do, game_cards, labels, make_state, reveal

from ratai.engines import CHANCE, IllegalActionError, load_game


def test_setup_cash_flush_cards_and_rat_pack_order():
    """Building The Sewer: $5 each; "give one Flush Card face-up to each rat. Put any spares
    in a discard pile on the board, called The Cesspit" (5 Flush cards, 3 rats: 2 spares);
    Scrappy Sewer cards lie on top of the Supreme Sewer cards in the Rat Pack."""
    game = load_game("rats_to_riches", backend="python", num_players=3)
    s = game.new_initial_state()
    assert s.cash == [5, 5, 5]
    assert s.flush == [1, 1, 1] and s.box == 0
    obs = s.observation(0)
    assert obs["cesspit"] == {"Flush": 2} and obs["flush_in_box"] == 0
    assert [seg["deck"] for seg in s.pack] == ["Scrappy Sewer", "Supreme Sewer"]
    assert [sum(seg["counts"]) for seg in s.pack] == [44, 36]
    assert s.current_player() == 0 and s.phase == "setup"


def test_setup_cheese_is_each_rats_choice():
    """Building The Sewer / Cheese: "Each rat then takes 3 pieces of any Cheese" (a decision
    per seat: the 10 multisets of 3 colours)."""
    game = load_game("rats_to_riches", backend="python", num_players=2)
    s = game.new_initial_state()
    assert len(s.legal_actions()) == 10
    do(s, "take 3 red cheese")
    assert s.current_player() == 1
    do(s, "take 1 green, 1 blue, 1 red cheese")
    assert s.cheese == [[0, 0, 3], [1, 1, 1]]
    assert s.current_player() == CHANCE


def test_setup_reveals_three_scrappy_cards_then_seat_0_collects_income():
    """Building The Sewer: turn over the top 3 cards (Scrappy Sewer first, drawn lazily with
    probability count/44); then "you get to start first": seat 0 collects its $2."""
    game = load_game("rats_to_riches", backend="python", num_players=2)
    s = game.new_initial_state()
    do(s, "take 3 green cheese")
    do(s, "take 3 blue cheese")
    outcomes = dict(s.chance_outcomes())
    pipe = game.layout.REVEAL + game.key_id[PIPE]
    assert outcomes[pipe] == pytest.approx(10 / 44)
    assert game.layout.REVEAL + game.key_id["Gorgonzola Goldmines plc"] not in outcomes
    reveal(s, PIPE)
    reveal(s, "Snatch")
    reveal(s, "Emmental Energy Ltd")
    assert [game.keys[t] for t in s.sewer] == [
        PIPE, "Snatch (Scrappy Sewer)", "Emmental Energy Ltd"]
    assert s.phase == "step2" and s.current_player() == 0
    assert s.cash == [7, 5]


def test_income_is_flush_plus_green_cards_plus_golden_rat():
    """Step 1: Collect Income: Flush card $2 + Green card incomes (Emmental +2, Feta +3,
    Queso +4, Gorgonzola +6) + the Big Cheese's +$2 (Meeples)."""
    _, s = make_state(2, phase="step3", active=1, golden=0, tableau={0: {
        "Emmental Energy Ltd": 1, "Feta Frigates Inc.": 1, "Queso Quarries Ltd": 1,
        "Gorgonzola Goldmines plc": 1, "Bonus Bonanza": 1}})
    assert s.income(0) == 2 + 2 + 3 + 4 + 6 + 2
    do(s, "buy no cheese, end turn")  # round ends (seat 1 was last), seat 0's turn starts
    assert s.active == 0 and s.cash[0] == 19


def test_buy_pays_cheese_and_refills_the_slot_at_once():
    """Step 2 / Buying Cards: pay the card's cost (coloured cheese) and keep it face up;
    the slot is refilled at once (a chance node)."""
    game, s = make_state(2, cheese=[[0, 3, 0], [0, 0, 0]], sewer=[PIPE, None, None])
    s.refill = []
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    assert s.cheese[0] == [0, 1, 0]
    assert s.tableau[0][game.key_id[PIPE]] == 1
    assert s.current_player() == CHANCE and s.refill == [0]


def test_a_card_revealed_in_a_refilled_slot_can_be_bought_the_same_turn():
    """Buying Cards: "You may buy newly-replaced Open Sewer Cards on the same turn as well"."""
    game, s = make_state(2, cheese=[[1, 2, 0], [0, 0, 0]], sewer=[PIPE, "Snatch", "Snatch"])
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Emmental Energy Ltd")
    do(s, "buy Emmental Energy Ltd (Open Sewer slot 0)")
    assert s.tableau[0][game.key_id["Emmental Energy Ltd"]] == 1
    assert s.cheese[0] == [0, 0, 0]


def test_card_costs_grey_in_cash_purple_in_three_cheese():
    """Types of Cards: Grey cards are bought for $5, not cheese; Purple cards cost 3 cheese."""
    game, s = make_state(2, cash=[5, 0], cheese=[[3, 0, 0], [0, 0, 0]],
                         sewer=["Investment Bundle", "Green Gangster", "Red Ruffian"])
    assert "buy Red Ruffian (Open Sewer slot 2)" not in labels(s)
    do(s, "buy Investment Bundle (Scrappy Sewer) (Open Sewer slot 0)")
    assert s.cash[0] == 0
    reveal(s, PIPE)
    do(s, "buy Green Gangster (Open Sewer slot 1)")
    assert s.cheese[0] == [0, 0, 0]


def test_unaffordable_cards_cannot_be_bought():
    """Buying Cards: the cost must be paid."""
    _, s = make_state(2, cheese=[[0, 1, 0], [0, 0, 0]], sewer=[PIPE, None, None])
    with pytest.raises(IllegalActionError):
        do(s, f"buy {PIPE} (Open Sewer slot 0)")


def test_buy_cheese_up_to_three_at_one_dollar_then_turn_passes():
    """Step 3: Buy Cheese: up to 3 pieces of any colour, $1 each, to the Slush Fund; then
    the next rat (clockwise) takes its turn and collects its income."""
    _, s = make_state(3, phase="step3", cash=[10, 0, 0])
    sizes = {sum(s.get_game().layout.combos[a]) for a in s.legal_actions()}
    assert sizes == {0, 1, 2, 3}
    do(s, "buy 2 green, 1 red cheese, end turn")
    assert s.cash[0] == 7 and s.cheese[0] == [2, 0, 1]
    assert s.active == 1 and s.phase == "step2" and s.cash[1] == 2


def test_cheese_purchase_is_limited_by_cash():
    """Step 3: each piece costs $1; a rat cannot pay more than it has."""
    _, s = make_state(2, phase="step3", cash=[1, 0])
    sizes = {sum(s.get_game().layout.combos[a]) for a in s.legal_actions()}
    assert sizes == {0, 1}


def test_step2_actions_in_any_order_then_end_step2():
    """RR-3: cards can be bought and used in any order and number during Step 2; no hand or
    tableau limit."""
    game, s = make_state(2, cash=[0, 6], cheese=[[0, 0, 3], [0, 0, 0]],
                         sewer=["Pickpocket", "Pickpocket", "Snatch"])
    do(s, "buy Pickpocket (Open Sewer slot 0)")
    reveal(s, PIPE)
    do(s, "use Pickpocket on rat 1")
    do(s, "buy Pickpocket (Open Sewer slot 1)")
    reveal(s, PIPE)
    do(s, "buy Snatch (Scrappy Sewer) (Open Sewer slot 2)")
    reveal(s, PIPE)
    do(s, "use Pickpocket on rat 1")
    assert s.cash == [6, 0]
    assert s.tableau[0][card_id(game, "Snatch")] == 1
    do(s, "end step 2")
    assert s.phase == "step3"


def test_round_ends_after_the_last_seat_and_seat_0_starts_again():
    """Core Rules: turns go clockwise from the first player; a round is one turn each."""
    _, s = make_state(3, phase="step3", active=2, cash=[0, 0, 0])
    do(s, "buy no cheese, end turn")
    assert s.round == 1 and s.active == 0 and s.cash == [2, 0, 0]


def test_turn_action_cap_is_a_safety_valve():
    """Safety valve (not a rule): after ``max_turn_actions`` Step 2 actions only ending
    Step 2 is legal."""
    _, s = make_state(2, tableau={0: {"Pickpocket": 2}}, max_turn_actions=1)
    do(s, "use Pickpocket on rat 1")
    assert labels(s) == ["end step 2"]


def test_cards_are_conserved_by_a_turn():
    """Card conservation: buying, using and refilling never create or lose cards."""
    game, s = make_state(2, cheese=[[0, 0, 3], [0, 0, 0]], sewer=["Snatch", PIPE, PIPE],
                         cash=[3, 3])
    before = card_total(s)
    do(s, "buy Snatch (Scrappy Sewer) (Open Sewer slot 0)")
    reveal(s, "Cheese Run")
    do(s, "use Snatch on rat 1: take no cheese")
    assert card_total(s) == before == game_cards(game)
