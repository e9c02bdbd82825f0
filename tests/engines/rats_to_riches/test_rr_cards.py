"""Rats to Riches: every card effect of the data ("Types of Cards" and the card list)."""

from __future__ import annotations

import pytest
from rr_helpers import PIPE, PIPE3, card_id, do, game_cards, labels, make_state, reveal

from ratai.engines import CHANCE, IllegalActionError, load_game

#: Cards with a test below (the coverage test checks the data has no other card).
TESTED_CARDS = {
    "Emmental Energy Ltd", "Feta Frigates Inc.", "Queso Quarries Ltd",
    "Gorgonzola Goldmines plc", "Bonus Bonanza", "Pipe", "Penthouse Pipe", "Snatch",
    "Sabotage", "Pickpocket", "Cheese Run", "Hostile Takeover", "Shared Paradise",
    "Mutual Destruction", "Red Ruffian", "Green Gangster", "Blue Boss", "Cheese Baron",
    "Pipe Dream", "Free Money", "Sewer Flood", "Underdog Grant", "Tax Man", "Cheese Famine",
    "Investment Bundle", "Plumbing Bundle", "Mischief Bundle", "Rainbow Bundle",
}


def test_every_card_in_the_data_is_tested():
    """Each card of the data (its effects, engines/effects.py vocabulary) has a test here."""
    game = load_game("rats_to_riches", backend="python", num_players=2)
    assert {t.name for t in game.data.card_types} <= TESTED_CARDS


# ----------------------------------------------------------------------------- Green
@pytest.mark.parametrize("key,income", [("Emmental Energy Ltd", 2), ("Feta Frigates Inc.", 3),
                                        ("Queso Quarries Ltd", 4),
                                        ("Gorgonzola Goldmines plc", 6)])
def test_green_income_cards(key, income):
    """Green Cards affect Income ("Queso Quarries Ltd: Income +4"; Emmental +2 ...)."""
    _, s = make_state(2, tableau={0: {key: 1}})
    assert s.income(0) == 2 + income


def test_bonus_bonanza_collects_income_again():
    """Green Cards: "the Bonus Bonanza Card is an active card that lets you collect your
    Income an additional time on the same turn"; then it goes to the Cesspit."""
    game, s = make_state(2, cash=[3, 0], golden=0,
                         tableau={0: {"Bonus Bonanza": 1, "Feta Frigates Inc.": 1}})
    do(s, "use Bonus Bonanza (Scrappy Sewer)")
    assert s.cash[0] == 3 + 2 + 3 + 2
    assert s.cesspit[card_id(game, "Bonus Bonanza")] == 1


# ----------------------------------------------------------------------------- Blue
def test_five_pipes_sell_for_25():
    """Blue Cards are Pipes: "if you sold 5 Pipes, you collect $25"; sold pipes go to the
    Cesspit. Pipes are put into the sale one at a time, then sold."""
    game, s = make_state(2, cash=[0, 0], tableau={0: {PIPE: 3, PIPE3: 2}})
    do(s, f"sell {PIPE}")
    assert s.current_player() == 0 and s.pending[0]["kind"] == "sell"
    for _ in range(2):
        do(s, f"sell {PIPE}")
    for _ in range(2):
        do(s, f"sell {PIPE3}")
    assert s.cash[0] == 25  # the last pick left only "sell now": applied automatically
    assert s.cesspit[game.key_id[PIPE]] == 3 and s.cesspit[game.key_id[PIPE3]] == 2
    assert s.phase == "step2" and not s.pending


def test_selling_fewer_pipes_is_allowed():
    """Blue Cards: a rat may sell any number of its pipes: 2 of 3 pay $4."""
    _, s = make_state(2, tableau={0: {PIPE: 3}})
    do(s, f"sell {PIPE}")
    do(s, f"sell {PIPE}")
    do(s, "sell the chosen pipes")
    assert s.cash[0] == 4 and s.tableau[0][s.get_game().key_id[PIPE]] == 1


def test_penthouse_pipe_counts_as_two_when_sold():
    """Penthouse Pipe: "counts as 2 pipes when sold": with one Pipe, 3 pipes = $9."""
    _, s = make_state(2, tableau={0: {PIPE: 1, "Penthouse Pipe": 1}})
    do(s, f"sell {PIPE}")
    do(s, "sell Penthouse Pipe")
    assert s.cash[0] == 9


# ----------------------------------------------------------------------------- Red
def test_snatch_takes_two_cheese_of_the_users_choice():
    """Snatch: "Take 2 Cheese from any rat" (colours chosen by the user)."""
    _, s = make_state(2, cheese=[[0, 0, 0], [2, 1, 0]], tableau={0: {"Snatch": 1}})
    assert {x for x in labels(s) if "Snatch" in x} == {
        "use Snatch on rat 1: take 2 green cheese",
        "use Snatch on rat 1: take 1 green, 1 blue cheese"}
    do(s, "use Snatch on rat 1: take 1 green, 1 blue cheese")
    assert s.cheese == [[1, 1, 0], [1, 0, 0]]


def test_snatch_takes_all_when_the_target_has_less():
    """Snatch on a rat with 1 cheese takes that one."""
    _, s = make_state(2, cheese=[[0, 0, 0], [0, 0, 1]], tableau={0: {"Snatch": 1}})
    do(s, "use Snatch on rat 1: take 1 red cheese")
    assert s.cheese == [[0, 0, 1], [0, 0, 0]]


def test_sabotage_sends_any_rats_card_to_the_cesspit():
    """Sabotage: "Send 1 Card from any rat to The Cesspit" (its own cards too)."""
    game, s = make_state(2, tableau={0: {"Sabotage": 1, PIPE: 1}, 1: {"Emmental Energy Ltd": 1}})
    assert "use Sabotage on rat 0's Sabotage" not in labels(s)
    assert f"use Sabotage on rat 0's {PIPE}" in labels(s)
    do(s, "use Sabotage on rat 1's Emmental Energy Ltd")
    assert s.tableau[1][game.key_id["Emmental Energy Ltd"]] == 0
    assert s.cesspit[game.key_id["Emmental Energy Ltd"]] == 1
    assert s.cesspit[card_id(game, "Sabotage")] == 1


def test_sabotaged_flush_card_goes_to_the_cesspit():
    """Sabotage: "Send 1 Card from any rat to The Cesspit" hits a Flush card too, and it goes
    to the Cesspit as the card says (RR-2 boxes only a Flush card dumped to flush). Its $2
    income is lost."""
    game, s = make_state(2, tableau={0: {"Sabotage": 1}})
    spares = s.cesspit[game.T]
    assert spares == 3  # 5 Flush cards, 2 rats
    do(s, "use Sabotage on rat 1's Flush card")
    assert s.flush == [1, 0] and s.box == 0 and s.income(1) == 0
    assert s.cesspit[game.T] == spares + 1
    assert s.observation(0)["cesspit"]["Flush"] == 4


def test_pickpocket_takes_5_or_all():
    """Pickpocket: take $5 (or all they have, if less) from any rat."""
    _, s = make_state(3, cash=[0, 9, 3], tableau={0: {"Pickpocket": 2}})
    do(s, "use Pickpocket on rat 1")
    do(s, "use Pickpocket on rat 2")
    assert s.cash == [8, 4, 0]


def test_cheese_run_takes_three_from_the_bank():
    """Cheese Run: take 3 cheese of any colours from the Cheese Bank."""
    _, s = make_state(2, tableau={0: {"Cheese Run": 1}})
    assert len([x for x in labels(s) if "Cheese Run" in x]) == 10
    do(s, "use Cheese Run: take 1 green, 2 red cheese")
    assert s.cheese[0] == [1, 0, 2]


def test_hostile_takeover_takes_a_green_card():
    """Hostile Takeover: take 1 green card from any rat into your tableau."""
    game, s = make_state(2, tableau={0: {"Hostile Takeover": 1},
                                     1: {"Gorgonzola Goldmines plc": 1, PIPE: 1}})
    assert [x for x in labels(s) if "Takeover" in x] == [
        "use Hostile Takeover on rat 1's Gorgonzola Goldmines plc"]
    do(s, "use Hostile Takeover on rat 1's Gorgonzola Goldmines plc")
    assert s.income(0) == 8 and s.income(1) == 2


def test_shared_paradise():
    """Shared Paradise: all rats take $5; you take $10 instead."""
    _, s = make_state(3, cash=[1, 1, 1], tableau={1: {"Shared Paradise": 1}}, active=1)
    do(s, "use Shared Paradise")
    assert s.cash == [6, 11, 6]


def test_mutual_destruction_both_discard_two_own_cards():
    """Mutual Destruction: "choose a rat: you and it each send 2 of your own cards (own
    choice) to the Cesspit": the user chooses first, then the chosen rat."""
    game, s = make_state(2, tableau={0: {"Mutual Destruction": 1, PIPE: 2, "Snatch": 1},
                                     1: {"Emmental Energy Ltd": 1, "Feta Frigates Inc.": 2}})
    do(s, "use Mutual Destruction on rat 1")
    assert s.current_player() == 0
    do(s, f"send own {PIPE} to the Cesspit")
    do(s, "send own Snatch (Scrappy Sewer) to the Cesspit")
    assert s.current_player() == 1
    # picks go in card-id order (Flush last), so each pair of cards is one sequence
    assert labels(s) == ["send own Emmental Energy Ltd to the Cesspit",
                         "send own Feta Frigates Inc. to the Cesspit"]
    do(s, "send own Feta Frigates Inc. to the Cesspit")
    assert labels(s) == ["send own Feta Frigates Inc. to the Cesspit",
                         "send own Flush card to the Cesspit"]
    do(s, "send own Flush card to the Cesspit")
    assert s.tableau[0][game.key_id[PIPE]] == 1
    assert s.tableau[1][game.key_id["Feta Frigates Inc."]] == 1 and s.flush[1] == 0
    assert s.cesspit[game.T] == 3 + 1  # the discarded Flush card joins the 3 spares
    assert s.current_player() == 0 and s.phase == "step2"


def test_mutual_destruction_with_few_cards_is_forced():
    """Mutual Destruction: a rat with at most 2 cards sends them all (applied at once)."""
    _, s = make_state(2, flush=[0, 1], tableau={0: {"Mutual Destruction": 1}, 1: {PIPE: 1}})
    do(s, "use Mutual Destruction on rat 1")
    assert s.flush == [0, 0] and sum(s.tableau[1]) == 0 and s.current_player() == 0


# ----------------------------------------------------------------------------- Purple
@pytest.mark.parametrize("career,colour", [("Red Ruffian", 2), ("Green Gangster", 0),
                                           ("Blue Boss", 1)])
def test_colour_careers_are_paid_for_their_cheese(career, colour):
    """Cheesy Crooks / Green Gangster: "All rats now pay YOU for Green Cheese" (RR-7)."""
    _, s = make_state(2, phase="step3", cash=[5, 5], tableau={1: {career: 1}})
    combo = [0, 0, 0]
    combo[colour] = 2
    combo[(colour + 1) % 3] = 1
    do(s, f"buy {_text(combo)} cheese, end turn")
    assert s.cash[0] == 5 - 3
    assert s.cash[1] == 5 + 2 + 2  # paid for 2 pieces, then its own income


def test_green_gangster_buys_green_free():
    """RR-7: a career holder buying cheese of its colour pays nobody."""
    _, s = make_state(2, phase="step3", cash=[1, 0], tableau={0: {"Green Gangster": 1}})
    do(s, "buy 2 green, 1 red cheese, end turn")
    assert s.cash[0] == 0 and s.cheese[0] == [2, 0, 1]


def test_cheese_baron_buys_up_to_five():
    """Cheese Baron: "in step 3 you may buy up to 5 cheese"."""
    _, s = make_state(2, phase="step3", cash=[9, 0], tableau={0: {"Cheese Baron": 1}})
    sizes = {sum(s.get_game().layout.combos[a]) for a in s.legal_actions()}
    assert sizes == {0, 1, 2, 3, 4, 5}


def test_pipe_dream_counts_one_extra_pipe():
    """Pipe Dream: "when you sell at least 1 pipe, count 1 extra pipe": 2 pipes pay $9."""
    _, s = make_state(2, tableau={0: {"Pipe Dream": 1, PIPE: 2}})
    do(s, f"sell {PIPE}")
    do(s, f"sell {PIPE}")
    assert s.cash[0] == 9


# ----------------------------------------------------------------------------- Yellow
def _event_state(n=3, **kw):
    game, s = make_state(n, sewer=[PIPE, None, None], **kw)
    s.cheese[0] = [0, 2, 0]
    return game, s


def test_free_money_all_rats_take_5():
    """Yellow Cards / Free Money: "All rats take $5 from The Slush Fund"; the event goes to
    the Cesspit and its slot is refilled (RR-4)."""
    game, s = _event_state(cash=[0, 1, 2])
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Free Money")
    assert s.cash == [5, 6, 7]
    assert s.cesspit[card_id(game, "Free Money")] == 1
    assert s.current_player() == CHANCE and s.sewer[0] is None
    reveal(s, "Snatch")
    assert game.keys[s.sewer[0]] == "Snatch (Scrappy Sewer)"


def test_sewer_flood_each_rat_returns_half_its_cheese_by_choice():
    """Sewer Flood: every rat returns half its cheese (rounded down, its choice of colours),
    in turn order from the active rat."""
    _, s = _event_state(cash=[0, 0, 0])
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    s.cheese = [[0, 0, 3], [2, 1, 2], [1, 0, 0]]  # returns 1 (forced), 2 (choice), 0
    reveal(s, "Sewer Flood")
    assert s.cheese[0] == [0, 0, 2]
    assert s.current_player() == 1
    assert labels(s) == ["return 1 green cheese", "return 1 blue cheese", "return 1 red cheese"]
    do(s, "return 1 blue cheese")  # then only red is left above blue: forced
    assert s.cheese[1] == [2, 0, 1] and s.current_player() == CHANCE  # red was forced


def test_underdog_grant_pays_the_poorest():
    """Underdog Grant: the rat(s) with the least Swindle take $5."""
    _, s = _event_state(cash=[3, 1, 1])
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Underdog Grant")
    assert s.cash == [3, 6, 6]


def test_tax_man_takes_5_above_50():
    """Tax Man: every rat with more than $50 pays $5 to the Slush Fund ($50 pays nothing)."""
    _, s = _event_state(cash=[51, 50, 70])
    _supreme_on_top(s)
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Tax Man")
    assert s.cash == [46, 50, 65]


def test_cheese_famine_returns_one_of_each_colour_held():
    """Cheese Famine: every rat returns 1 cheese of each colour it holds."""
    _, s = _event_state(cash=[0, 0, 0])
    _supreme_on_top(s)
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    s.cheese = [[0, 0, 3], [2, 1, 0], [0, 0, 0]]
    reveal(s, "Cheese Famine")
    assert s.cheese == [[0, 0, 2], [1, 0, 0], [0, 0, 0]]


def _supreme_on_top(s):
    """Drop the Scrappy Sewer segment into the Cesspit (Supreme cards come next)."""
    s.pack = [seg for seg in s.pack if seg["deck"] == "Supreme Sewer"]
    s.top_back = None
    s._fix_back()  # RR-9: the Supreme Sewer back is on top now
    _rebalance(s)


def _rebalance(s):
    """Put every card not placed elsewhere into the Cesspit (keeps card conservation)."""
    s.cesspit = game_cards(s.get_game())
    s.cesspit[-1] -= sum(s.flush) + s.box
    for seg in s.pack:
        for t, c in enumerate(seg["counts"]):
            s.cesspit[t] -= c
    for row in s.tableau:
        for t, c in enumerate(row):
            s.cesspit[t] -= c
    for t in s.sewer:
        if t is not None:
            s.cesspit[t] -= 1


# ----------------------------------------------------------------------------- Grey
def test_investment_bundle_dumps_three_green_cards_for_25():
    """Grey Cards / Investment Bundle: "Dump this with 3 Green Cards for $25"; the rat
    chooses which green cards."""
    game, s = make_state(2, tableau={0: {"Investment Bundle": 1, "Emmental Energy Ltd": 2,
                                         "Gorgonzola Goldmines plc": 2}})
    do(s, "use Investment Bundle (Scrappy Sewer)")
    # picks go in card-id order, so one Emmental is forced first; the choice is then
    # {Emmental, Gorgonzola} or {Gorgonzola, Gorgonzola} for the other two
    assert s.pending[0]["kind"] == "pick" and s.pending[0]["left"] == 2
    assert labels(s) == ["dump Emmental Energy Ltd with Investment Bundle",
                         "dump Gorgonzola Goldmines plc with Investment Bundle"]
    assert s.cash[0] == 0
    do(s, "dump Emmental Energy Ltd with Investment Bundle")  # the third (Gorgonzola) is forced
    assert s.cash[0] == 25 and not s.pending
    assert s.tableau[0][game.key_id["Gorgonzola Goldmines plc"]] == 1
    assert s.cesspit[card_id(game, "Investment Bundle")] == 1
    assert s.cesspit[game.key_id["Emmental Energy Ltd"]] == 2


def test_bundle_needs_its_cards():
    """Bundles: without 3 green cards the Investment Bundle cannot be used."""
    _, s = make_state(2, tableau={0: {"Investment Bundle": 1, "Emmental Energy Ltd": 2}})
    assert "use Investment Bundle (Scrappy Sewer)" not in labels(s)


@pytest.mark.parametrize("bundle,cards", [
    ("Plumbing Bundle", {PIPE: 2, "Penthouse Pipe": 1}),
    ("Mischief Bundle", {"Snatch": 3}),
    ("Rainbow Bundle", {"Emmental Energy Ltd": 1, PIPE: 1, "Snatch": 1}),
])
def test_other_bundles(bundle, cards):
    """Plumbing (3 pipes, counted per card), Mischief (3 red), Rainbow (1 green, 1 blue,
    1 red): dump for $25; a forced choice is applied automatically."""
    _, s = make_state(2, tableau={0: {bundle: 1, **cards}})
    do(s, f"use {s.get_game().keys[card_id(s.get_game(), bundle)]}")  # RR-9 keys
    while s.pending:
        do(s, labels(s)[0])
    assert s.cash[0] == 25 and sum(s.tableau[0]) == 0


# ----------------------------------------------------------------------------- Flush
def test_flush_takes_one_card_free_and_sends_the_others_to_the_cesspit():
    """Flush Cards / RR-2: dump the Flush card to take one Open Sewer card free; the other
    two go to the Cesspit; the slots refill; the Flush card leaves the game (the box) and
    its $2 income is lost."""
    game, s = make_state(2, sewer=["Gorgonzola Goldmines plc", PIPE, "Snatch"])
    do(s, "flush: take Gorgonzola Goldmines plc (Open Sewer slot 0)")
    assert s.tableau[0][game.key_id["Gorgonzola Goldmines plc"]] == 1
    assert s.cesspit[game.key_id[PIPE]] == 1 and s.cesspit[card_id(game, "Snatch")] == 1
    assert s.flush == [0, 1] and s.box == 1 and s.income(0) == 6
    assert s.refill == [0, 1, 2] and s.current_player() == CHANCE
    for key in ("Snatch", "Snatch", PIPE):
        reveal(s, key)
    assert s.current_player() == 0
    assert not [x for x in labels(s) if x.startswith("flush")]


def test_flush_is_not_usable_twice():
    """Flush Cards: each rat has one; after dumping it there is nothing to flush with."""
    _, s = make_state(2, flush=[0, 1], sewer=[PIPE, PIPE, PIPE])
    with pytest.raises(IllegalActionError):
        do(s, f"flush: take {PIPE} (Open Sewer slot 0)")


def test_flush_card_in_the_open_sewer_is_bought_for_2_dollars():
    """A Flush card back from a reshuffled Cesspit (RR-6) is an Open Sewer card: "pay the cost
    of that Card" ("The Flush Card (cost 2)", paid in $: data.FLUSH_COST), keep it face up;
    each Flush card in front of a rat adds its $2 to the Income ("the sum of all values")."""
    game, s = make_state(2, cash=[3, 0], sewer=["Flush", None, None])
    assert "buy Flush card (Open Sewer slot 0)" in labels(s)
    do(s, "buy Flush card (Open Sewer slot 0)")
    assert s.cash == [1, 0] and s.flush == [2, 1] and s.income(0) == 4
    assert s.observation(1)["flush"] == [2, 1]
    reveal(s, PIPE)
    _, s = make_state(2, cash=[1, 0], sewer=["Flush", None, None])
    assert "buy Flush card (Open Sewer slot 0)" not in labels(s)  # $1 < $2


def test_a_rat_with_two_flush_cards_flushes_twice():
    """Flush Cards: each Flush card is dumped on its own ("Dump this"); RR-3 lets a rat use
    cards in any number, so a second Flush card flushes again; each leaves the game (RR-2)."""
    game, s = make_state(2, flush=[2, 1], sewer=[PIPE, "Snatch", "Flush"])
    do(s, "flush: take Flush card (Open Sewer slot 2)")  # dump one, take the other: still 2
    assert s.flush == [2, 1] and s.box == 1
    for key in ("Snatch", "Snatch", PIPE):
        reveal(s, key)
    do(s, f"flush: take {PIPE} (Open Sewer slot 2)")
    assert s.flush == [1, 1] and s.box == 2 and s.income(0) == 2


def _text(combo):
    parts = [f"{k} {c}" for k, c in zip(combo, ("green", "blue", "red"), strict=True) if k]
    return ", ".join(parts)
