"""Rats to Riches: rulings RR-1..RR-10 of ../shared/RULES_GAPS.md."""

from __future__ import annotations

from rr_helpers import PIPE, card_id, card_total, do, game_cards, labels, make_state, reveal

from ratai.engines import CHANCE, TERMINAL, load_game


# ----------------------------------------------------------------------------- RR-1
def test_rr1_win_at_100_during_own_turn():
    """RR-1 / Objective: the first rat to collect $100 Swindle wins, at once."""
    _, s = make_state(2, cash=[90, 0], tableau={0: {PIPE: 4}})
    for _ in range(4):
        do(s, f"sell {PIPE}")  # after the 4th pipe only "sell now" is left: automatic
    assert s.is_terminal() and s.returns() == [1.0, 0.0] and s.scores() == [106.0, 0.0]


def test_rr1_win_during_another_rats_turn():
    """RR-1: a career holder paid for cheese in another rat's turn wins at $100 then."""
    _, s = make_state(2, phase="step3", cash=[5, 99], tableau={1: {"Red Ruffian": 1}})
    do(s, "buy 1 red cheese, end turn")
    assert s.current_player() == TERMINAL and s.winners == [1]
    assert s.cash == [4, 100]  # the game ended before seat 1 collected income


def test_rr1_win_by_income():
    """RR-1: income collected at the start of a turn can win."""
    _, s = make_state(2, phase="step3", cash=[0, 98])
    do(s, "buy no cheese, end turn")
    assert s.winners == [1]


def test_rr1_simultaneous_most_swindle_wins():
    """RR-1: several rats reach $100 at once (Free Money): the most Swindle wins."""
    _, s = make_state(3, active=0, cash=[0, 96, 97], cheese=[[0, 2, 0]] * 3,
                      sewer=[PIPE, None, None])
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Free Money")
    assert s.is_terminal() and s.winners == [2] and s.returns() == [0.0, 0.0, 1.0]


def test_rr1_simultaneous_tie_goes_to_turn_order_from_the_active_rat():
    """RR-1: equal Swindle at $100+: the first in turn order from the active rat wins."""
    _, s = make_state(3, active=1, cash=[96, 0, 96], cheese=[[0, 2, 0]] * 3,
                      sewer=[PIPE, None, None])
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Free Money")
    assert s.winners == [2]  # order from active rat 1: 1, 2, 0


# ----------------------------------------------------------------------------- RR-2
def test_rr2_flush_card_never_reenters_the_rat_pack():
    """RR-2: the Flush card dumped to flush leaves the game (to the box), not to the Cesspit,
    so a reshuffle (RR-6) never puts it into the Rat Pack (the spares stay in the Cesspit)."""
    game, s = make_state(2, sewer=[PIPE, "Snatch", "Snatch"])
    spares = s.observation(0)["cesspit"]["Flush"]
    do(s, f"flush: take {PIPE} (Open Sewer slot 0)")
    assert s.box == 1 and s.flush == [0, 1]
    assert s.observation(0)["cesspit"]["Flush"] == spares == 3


# ----------------------------------------------------------------------------- RR-3
def test_rr3_cards_lie_face_up_and_are_used_later():
    """RR-3: bought cards lie face up in front of their owner (public), no limit, and can
    be used on a later turn."""
    game, s = make_state(2, cheese=[[0, 0, 1], [0, 0, 0]], sewer=["Snatch", None, None])
    do(s, "buy Snatch (Scrappy Sewer) (Open Sewer slot 0)")
    reveal(s, PIPE)
    assert s.observation(1)["tableau"][0] == {"Snatch (Scrappy Sewer)": 1}
    do(s, "end step 2")
    do(s, "buy no cheese, end turn")
    do(s, "end step 2")
    do(s, "buy no cheese, end turn")
    assert s.active == 0 and any(x.startswith("use Snatch") for x in labels(s))


# ----------------------------------------------------------------------------- RR-4
def test_rr4_setup_event_resolves_after_starting_cash_and_cheese():
    """RR-4: events revealed during setup resolve after starting cash and cheese."""
    game = load_game("rats_to_riches", backend="python", num_players=2)
    s = game.new_initial_state()
    do(s, "take 3 green cheese")
    do(s, "take 2 green, 1 red cheese")
    reveal(s, "Sewer Flood")  # each rat returns 1 of its 3 cheese
    assert s.cheese[0] == [2, 0, 0]  # seat 0's choice was forced
    assert s.current_player() == 1
    do(s, "return 1 red cheese")
    assert s.cheese[1] == [2, 0, 0]
    assert s.current_player() == CHANCE and s.sewer == [None, None, None]
    reveal(s, "Free Money")
    assert s.cash == [10, 10]
    for key in (PIPE, PIPE, PIPE):
        reveal(s, key)
    assert s.cash == [12, 10] and s.phase == "step2"


def test_rr4_events_chain():
    """RR-4: an event is replaced by the next card, which may be another event."""
    game, s = make_state(2, cash=[0, 0], cheese=[[0, 2, 0], [0, 0, 0]], sewer=[PIPE, None, None])
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Free Money")
    reveal(s, "Underdog Grant")
    reveal(s, "Free Money")
    assert s.cash == [10 + 5, 10 + 5] and s.current_player() == CHANCE
    reveal(s, "Snatch")
    assert game.keys[s.sewer[0]] == "Snatch (Scrappy Sewer)"
    assert s.cesspit[card_id(game, "Free Money")] == 2


# ----------------------------------------------------------------------------- RR-5
def test_rr5_strict_most_swindle_takes_the_golden_rat():
    """RR-5 / The Big Cheese: at round end the strictly richest rat takes the Golden Rat
    and gets +$2 income."""
    _, s = make_state(2, phase="step3", active=1, cash=[3, 7])
    do(s, "buy no cheese, end turn")
    assert s.golden == 1 and s.income(1) == 4


def test_rr5_tied_holder_keeps_it():
    """RR-5: on a tie for most, a current holder among the tied keeps it."""
    _, s = make_state(3, phase="step3", active=2, cash=[7, 7, 1], golden=1)
    do(s, "buy no cheese, end turn")
    assert s.golden == 1


def test_rr5_tie_without_holder_means_nobody():
    """RR-5: on a tie for most without the holder among them, nobody holds it."""
    _, s = make_state(3, phase="step3", active=2, cash=[7, 7, 1], golden=2)
    do(s, "buy no cheese, end turn")
    assert s.golden is None


# ----------------------------------------------------------------------------- RR-6
def _only_in_cesspit(s, keys):
    """Empty the Rat Pack; every card not placed elsewhere goes to the Cesspit except
    ``keys`` placement is as given (a dict key -> count kept in the Cesspit, rest boxed in
    tableaus of seat 1)."""
    game = s.get_game()
    for seg in s.pack:
        for t, c in enumerate(seg["counts"][:game.T]):  # the Rat Pack holds no Flush yet
            s.tableau[1][t] += c
    s.pack = []
    s.top_back = None  # RR-9: no back shows over an empty pack
    for key, count in keys.items():
        t = card_id(game, key)
        s.tableau[1][t] -= count
        s.cesspit[t] += count


def test_rr6_empty_rat_pack_reshuffles_the_cesspit():
    """RR-6: when the Rat Pack is empty, the Cesspit is shuffled into a new Rat Pack."""
    game, s = make_state(2, cheese=[[0, 2, 0], [0, 0, 0]], sewer=[PIPE, None, None],
                         flush_boxed=3)
    _only_in_cesspit(s, {"Snatch": 2, "Cheese Run": 1})
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    assert s.current_player() == CHANCE
    assert s.pack == [{"deck": "Cesspit", "counts": s.pack[0]["counts"]}]
    assert sum(s.cesspit) == 0
    assert dict(s.chance_outcomes()) == {
        game.layout.REVEAL + card_id(game, "Snatch"): 2 / 3,
        game.layout.REVEAL + game.key_id["Cheese Run"]: 1 / 3}
    reveal(s, "Cheese Run")
    assert card_total(s) == game_cards(game)


def test_rr6_reshuffled_cesspit_brings_the_spare_flush_cards_back():
    """RR-6 + "Building The Sewer > Cards": the spare Flush cards start in the Cesspit, so a
    reshuffle puts them into the new Rat Pack and one can be revealed into the Open Sewer."""
    game, s = make_state(2, cheese=[[0, 2, 0], [0, 0, 0]], sewer=[PIPE, None, None])
    _only_in_cesspit(s, {"Snatch": 1})
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    flush = game.layout.REVEAL + game.T
    # RR-9: the mixed pack first shows its top back (1 Snatch, 3 Flush cards)
    assert dict(s.chance_outcomes()) == {game.layout.BACK + 0: 1 / 4, game.layout.BACK + 2: 3 / 4}
    s.apply_action(game.layout.BACK + 2)
    assert dict(s.chance_outcomes()) == {flush: 1.0}
    assert s.action_to_string(CHANCE, flush) == "reveal Flush card"
    reveal(s, "Flush")
    assert s.observation(0)["open_sewer"] == ["Flush", None, None]
    assert card_total(s) == game_cards(game)


def test_rr6_both_empty_slot_stays_empty():
    """RR-6: if the Rat Pack and the Cesspit are both empty, the slot stays empty."""
    _, s = make_state(2, cheese=[[0, 2, 0], [0, 0, 0]], sewer=[PIPE, None, None],
                      flush_boxed=3)
    _only_in_cesspit(s, {})
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    assert s.current_player() == 0 and s.sewer == [None, None, None]


def test_rr6_one_reshuffle_per_refill_when_only_events_remain():
    """RR-6 + safety valve: a refill shuffles the Cesspit in at most once, so a Cesspit of
    events only cannot cycle forever; the slot then stays empty."""
    game, s = make_state(2, cash=[0, 0], cheese=[[0, 2, 0], [0, 0, 0]],
                         sewer=[PIPE, None, None], flush_boxed=3)
    _only_in_cesspit(s, {"Sewer Flood": 1})
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    reveal(s, "Sewer Flood")
    assert s.current_player() == 0 and s.sewer[0] is None
    assert s.cesspit[game.key_id["Sewer Flood"]] == 1


def test_rr6_safety_valve_after_60_rounds():
    """RR-6: after 60 rounds the most Swindle wins (a tie is a shared win)."""
    _, s = make_state(3, phase="step3", active=2, round=59, cash=[40, 40, 12])
    do(s, "buy no cheese, end turn")
    assert s.is_terminal() and s.round == 60 and s.returns() == [0.5, 0.5, 0.0]


# ----------------------------------------------------------------------------- RR-7
def test_rr7_sabotaged_career_stops_collecting():
    """RR-7: Sabotage can remove a career; cheese is then paid to the Slush Fund."""
    _, s = make_state(2, cash=[5, 0], tableau={0: {"Sabotage": 1}, 1: {"Green Gangster": 1}})
    do(s, "use Sabotage on rat 1's Green Gangster")
    do(s, "end step 2")
    do(s, "buy 2 green cheese, end turn")
    assert s.cash == [3, 2]  # seat 1 got only its income


def test_rr7_payments_go_to_each_colours_holder():
    """RR-7: a mixed purchase pays each colour's holder."""
    _, s = make_state(3, phase="step3", cash=[5, 0, 0],
                      tableau={1: {"Green Gangster": 1}, 2: {"Blue Boss": 1}})
    do(s, "buy 1 green, 1 blue, 1 red cheese, end turn")
    assert s.cash == [2, 1 + 2, 1]


# ----------------------------------------------------------------------------- RR-8
def test_rr8_everything_but_the_rat_pack_order_is_public():
    """RR-8: all cards in front of players are public, only the Rat Pack order is hidden:
    every seat's observation is the same (up to its seat number) and rebuilds the state."""
    game, s = make_state(3, cash=[1, 2, 3], tableau={2: {"Penthouse Pipe": 1}},
                         sewer=[PIPE, "Snatch", None])
    obs = [s.observation(p) for p in range(3)]
    for o in obs:
        o.pop("player")
    assert obs[0] == obs[1] == obs[2]
    assert obs[0]["tableau"][2] == {"Penthouse Pipe": 1}
    assert obs[0]["rat_pack"][0]["deck"] == "Scrappy Sewer"
    rebuilt = game.state_from_observation(1, s.observation(1), 7)
    assert rebuilt._fields() == s._fields()


# ----------------------------------------------------------------------------- RR-10
def test_rr10_the_default_turn_action_cap_never_binds_in_ordinary_play():
    """RR-10: Step 2's cap (``max_turn_actions``) is a safety valve, not a rule: its default
    (200) is far above what play reaches. Random playouts (the most action-hungry policy
    measured; docs/components.md) take at most 30 Step 2 actions in a turn; here 240
    seeded games on 2-5 seats stay below a quarter of the default, so the cap never binds."""
    import numpy as np

    from ratai.engines.rats_to_riches.rules import MAX_TURN_ACTIONS

    assert MAX_TURN_ACTIONS == 200
    most = 0
    for n in (2, 3, 4, 5):
        game = load_game("rats_to_riches", num_players=n)
        assert game.params["max_turn_actions"] == MAX_TURN_ACTIONS
        end = game.layout.END_STEP2
        for seed in range(60):
            rng = np.random.default_rng(seed)
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.current_player() == CHANCE:
                    outs = s.chance_outcomes()
                    a = outs[rng.choice(len(outs), p=[p for _, p in outs])][0]
                else:
                    legal = s.legal_actions()
                    a = legal[rng.integers(len(legal))]
                    if a == end:  # Step 2 ends: its actions so far (the reference field)
                        ref = s.to_reference() if hasattr(s, "to_reference") else s
                        most = max(most, ref.turn_actions)
                s.apply_action(a)
    assert 5 <= most < MAX_TURN_ACTIONS // 4


def test_rr10_a_small_cap_still_bounds_the_turn():
    """RR-10: the valve works when set low: after ``max_turn_actions`` Step 2 actions only
    ending Step 2 is legal."""
    _, s = make_state(2, cash=[20, 0], tableau={0: {"Bonus Bonanza": 2, "Pickpocket": 1}},
                      max_turn_actions=2)
    do(s, "use Bonus Bonanza (Scrappy Sewer)")
    do(s, "use Pickpocket on rat 1")
    assert labels(s) == ["end step 2"]
