"""Building property tokens (rulebook "Building Property Tokens", Phase 5; RP-5, RP-6, RP-7)."""

from __future__ import annotations

from rp_helpers import (
    BLUE,
    RED,
    YELLOW,
    count,
    deal_round,
    do,
    hunt,
    idx,
    labels,
    make_state,
    plan,
    set_board,
)

from ratai.engines import load_game


def test_market_places_a_rat_from_supply_when_a_has_room():
    """Market (A), RP-6: after phase 3, if A has a free place, its holder may place one rat
    from supply there (a decision of the holder)."""
    g, s = make_state(3, tokens="A", holders={"A": RED}, board={"A": {RED: 1}})
    plan(s, {})
    assert s.phase == "market" and s.current_player() == RED
    assert labels(s) == ["pass", "market: place a rat"]
    supply = s.supply[RED]
    do(s, "market: place a rat")
    assert count(s, "A", RED) == 2 and s.supply[RED] == supply - 1
    assert s.phase == "hunt"


def test_market_declined_or_not_offered_when_full():
    """Market (A): "may" place: passing changes nothing; a full A offers no decision."""
    g, s = make_state(3, tokens="A", holders={"A": RED}, board={"A": {RED: 1}})
    plan(s, {})
    do(s, "pass")
    assert count(s, "A", RED) == 1 and s.phase == "hunt"
    g, s = make_state(3, tokens="A", holders={"A": RED}, board={"A": {RED: 5, BLUE: 4}})
    plan(s, {})
    assert s.phase == "hunt"


def test_archive_holder_looks_at_one_hunt_card_during_planning():
    """Archive (B), RP-6: its holder may look at one player's hunt card during planning;
    only the holder learns the card, everybody sees who looked at whom."""
    g = load_game("ratapolis", backend="python", num_players=3, property_tokens="B")
    s = g.new_initial_state()
    s.tokens["B"] = RED
    deal_round(s, "ABCDE")
    assert s.phase == "archive" and s.current_player() == RED
    assert labels(s) == ["archive: look at blue's card", "archive: look at yellow's card",
                         "pass"]
    do(s, "archive: look at yellow's card")
    assert s.phase == "plan"
    mine = s.observation(RED)["archive_looks"]
    assert mine == [{"round": 1, "viewer": RED, "target": YELLOW, "card": "C"}]
    assert s.observation(BLUE)["archive_looks"] == [{"round": 1, "viewer": RED,
                                                     "target": YELLOW}]
    # Determinization keeps what the holder saw.
    for seed in range(5):
        sample = g.state_from_observation(RED, s.observation(RED), seed)
        assert sample.hands[0][YELLOW] == idx(g, "C")


def test_shooting_range_attacks_an_adjacent_tile():
    """Shooting range (C): its holder may attack on tiles adjacent to its rats; others need
    a rat on the tile itself. J touches C."""
    g, s = make_state(3, tokens="C", holders={"C": RED},
                      board={"J": {RED: 1, YELLOW: 1}, "C": {BLUE: 1}})
    assert "attack C blue" in labels(s)
    do(s, "attack C blue")
    do(s, "idle")
    do(s, "idle")
    do(s, "idle")
    assert "attack C blue" not in labels(s)  # yellow holds no Shooting range
    do(s, "idle")
    do(s, "idle")
    assert count(s, "C", BLUE) == 0


def test_hotel_one_rat_over_capacity_and_only_one():
    """Hotel (F), RP-6: when moving, the holder may place one rat more than the capacity;
    only one rat above capacity on a tile, and the rats stay after the token is lost."""
    g, s = make_state(3, tokens="F", holders={"F": RED}, board={"F": {BLUE: 6}, "L": {RED: 3}})
    plan(s, {RED: ("move L>F", "move L>F")})
    assert s.phase == "hotel" and s.current_player() == RED
    assert labels(s) == ["pass", "hotel: +1 rat"]
    do(s, "hotel: +1 rat")
    # The right cell: F is already one over capacity, so no second decision.
    assert s.phase == "hunt"
    assert s.board[idx(g, "F")] == [1, 6, 0] and count(s, "L", RED) == 2
    s.tokens["F"] = -1
    assert s.board[idx(g, "F")] == [1, 6, 0]


def test_hotel_is_optional_and_only_for_the_holder():
    """Hotel (F): "may": passing moves nothing extra; a non-holder gets no decision."""
    g, s = make_state(3, tokens="F", holders={"F": RED}, board={"F": {BLUE: 6}, "L": {RED: 3}})
    plan(s, {RED: ("move L>F", "idle")})
    do(s, "pass")
    assert s.board[idx(g, "F")] == [0, 6, 0] and s.phase == "hunt"
    g, s = make_state(3, tokens="F", holders={"F": BLUE}, board={"F": {BLUE: 6}, "L": {RED: 3}})
    plan(s, {RED: ("move L>F", "idle")})
    assert s.phase == "hunt" and count(s, "F", RED) == 0


def test_radio_station_redraws_once_among_all_the_rounds_cards():
    """Radio station (G), RP-6: the holder may discard the drawn hunt card once; it is
    shuffled back among the round's cards and a new card is drawn (no refusing it)."""
    g, s = make_state(3, tokens="G", holders={"G": RED}, board={"A": {RED: 2}},
                      cards="ABCDE")
    plan(s, {})
    hunt(s, "A")
    assert s.phase == "radio" and s.current_player() == RED
    assert labels(s) == ["pass", "radio: redraw"]
    do(s, "radio: redraw")
    assert s.phase == "hunt"
    assert [a for a, _ in s.chance_outcomes()] == [g.CARD + idx(g, c) for c in "ABCDE"]
    assert s.observation(BLUE)["rounds"][0]["radio_discarded"] == ["A"]
    hunt(s, "A")  # the same card again: the holder must accept it
    assert s.phase == "deal" and idx(g, "A") in s.removed


def test_radio_keep_and_no_decision_without_the_token():
    """Radio station (G): keeping the card hunts it; without a holder there is no decision."""
    g, s = make_state(3, tokens="G", holders={"G": RED}, cards="ABCDE")
    plan(s, {})
    hunt(s, "B")
    do(s, "pass")
    assert s.removed == [idx(g, "B")]
    g, s = make_state(3, tokens="G", cards="ABCDE")
    plan(s, {})
    hunt(s, "B")
    assert s.removed == [idx(g, "B")]


def _remove(s, letter):
    g = s.get_game()
    x = idx(g, letter)
    s.removed.append(x)
    for seat in range(g.n):
        s.supply[seat] += s.board[x][seat]
        s.board[x][seat] = 0


def test_metro_moves_across_an_empty_area():
    """Metro (H), RP-5: its holder may move from a tile next to an empty area to any tile
    next to that area; nobody moves into the empty area itself. D's area touches B, E, H,
    I, M and O; B does not touch E."""
    g, s = make_state(3, tokens="H", holders={"H": RED}, board={"B": {RED: 2, BLUE: 2}})
    _remove(s, "D")
    mine = labels(s)
    assert {"move B>E", "move B>H", "move B>I", "move B>M", "move B>O"} <= set(mine)
    assert "move B>D" not in mine
    do(s, "move B>E")
    do(s, "idle")
    theirs = labels(s)
    assert "move B>E" not in theirs and "move B>D" not in theirs and "move B>O" in theirs
    do(s, "idle")
    do(s, "idle")
    do(s, "idle")
    do(s, "idle")
    assert count(s, "E", RED) == 2 and count(s, "B", RED) == 0


def test_metro_area_of_two_adjacent_hunted_tiles_is_one_area():
    """Metro (H), RP-5: neighbouring hunted tiles form one empty area (D and E here), so a
    tile next to D reaches a tile next to E (T)."""
    g, s = make_state(3, tokens="H", holders={"H": RED}, board={"B": {RED: 2}})
    _remove(s, "D")
    _remove(s, "E")
    assert "move B>T" in labels(s)


def test_fire_station_holder_moves_first():
    """Fire station (I), RP-4: during a move all of the holder's rats move first, then the
    others share what is left. O (3 places at 3 players) holds 1 yellow rat: 2 free."""
    board = {"O": {YELLOW: 1}, "A": {RED: 3}, "B": {BLUE: 3}}
    g, s = make_state(3, tokens="I", holders={"I": RED}, board=board)
    plan(s, {RED: ("move A>O", "idle"), BLUE: ("move B>O", "idle")})
    assert s.board[idx(g, "O")] == [2, 0, 1]
    g, s = make_state(3, tokens="I", board=board)
    plan(s, {RED: ("move A>O", "idle"), BLUE: ("move B>O", "idle")})
    assert s.board[idx(g, "O")] == [1, 1, 1]


def test_bus_station_moves_through_one_tile_even_a_full_one():
    """Bus station (L), RP-6: its holder may move through one intermediate building tile,
    even a full one, but not through an empty area. F-L-G: F does not touch G."""
    g, s = make_state(3, tokens="L", holders={"L": RED},
                      board={"F": {RED: 2, BLUE: 1}, "L": {YELLOW: 9}})
    assert "move F>G" in labels(s)
    do(s, "move F>G")
    do(s, "idle")
    assert "move F>G" not in labels(s)  # blue holds no Bus station
    plan_rest = ("idle", "idle")
    do(s, plan_rest[0])
    do(s, plan_rest[1])
    do(s, "idle")
    do(s, "idle")
    assert count(s, "G", RED) == 2
    g, s = make_state(3, tokens="L", holders={"L": RED}, board={"F": {RED: 2}})
    _remove(s, "L")
    assert "move F>G" not in labels(s)


def test_cheese_shop_pays_from_the_round_it_is_taken():
    """Cheese shop (S), RP-7: the holder takes 1 cheese token at the end of each round,
    starting with the round in which the token was received."""
    g, s = make_state(3, tokens="S", board={"S": {RED: 2, BLUE: 1}}, cards="ABCDE")
    plan(s, {})
    hunt(s, "A")
    assert s.tokens["S"] == RED and s.cheese == [1, 0, 0] and s.cheese_bank == 7


def _jump_to_round(s, r):
    """Pretend rounds 1..r-1 were played with no cards (only for phase 4/5 unit tests)."""
    n = s.get_game().n
    pad = r - s.round
    s.round = r
    s.hands = [[-1] * n for _ in range(pad)] + s.hands
    s.face_up = [[] for _ in range(pad)] + s.face_up
    s.hunted = [-1] * pad + s.hunted
    s.radio_discarded = [[] for _ in range(pad)] + s.radio_discarded
    s.plans_log = [[[0, 0] for _ in range(n)] for _ in range(pad)] + s.plans_log


def test_cheese_shop_pays_in_round_8_and_at_most_8_tokens():
    """RP-7: round 8 included (the game ends after phase 4, the shop still pays); at most
    8 cheese tokens exist."""
    g, s = make_state(3, tokens="S", holders={"S": RED}, board={"S": {RED: 1}}, cards="ABCDE")
    _jump_to_round(s, 8)
    plan(s, {})
    hunt(s, "A")
    assert s.is_terminal() and s.cheese == [1, 0, 0]
    g, s = make_state(3, tokens="S", holders={"S": RED}, board={"S": {RED: 1}}, cards="ABCDE")
    s.cheese, s.cheese_bank = [8, 0, 0], 0
    plan(s, {})
    hunt(s, "A")
    assert s.cheese == [8, 0, 0]


def test_hospital_rescues_one_rat_to_an_adjacent_tile_with_room():
    """Hospital (T), RP-6: during the hunt its holder may move one of its rats from the
    hunted tile to an adjacent tile with room; a full neighbour is not offered."""
    g, s = make_state(3, tokens="T", holders={"T": RED},
                      board={"D": {RED: 2}, "O": {BLUE: 3}}, cards="ABCDE")
    plan(s, {})
    hunt(s, "D")
    assert s.phase == "hospital" and s.current_player() == RED
    assert labels(s) == ["pass"] + [f"hospital: move a rat to {c}" for c in "BEHIM"]
    do(s, "hospital: move a rat to E")
    assert count(s, "E", RED) == 1 and idx(g, "D") in s.removed
    assert s.supply[RED] == 19


def test_hospital_not_offered_without_own_rats_on_the_hunted_tile():
    """Hospital (T): only the holder's own rats can be rescued."""
    g, s = make_state(3, tokens="T", holders={"T": RED}, board={"D": {BLUE: 2}}, cards="ABCDE")
    plan(s, {})
    hunt(s, "D")
    assert s.removed == [idx(g, "D")] and s.phase == "deal"


def test_tokens_go_to_the_strict_majority_and_back_on_a_tie():
    """Rulebook Phase 5: the player with more rats than any other takes the token; it passes
    to a new leader; on equal numbers it returns to the tile."""
    g, s = make_state(3, tokens="A,I,S", holders={"I": BLUE},
                      board={"A": {RED: 2, BLUE: 1}, "I": {RED: 1, BLUE: 1},
                             "S": {YELLOW: 1}}, cards="BCDEF")
    plan(s, {})
    hunt(s, "B")
    assert s.tokens == {"A": RED, "I": -1, "S": YELLOW}


def test_hunted_property_tile_token_leaves_the_game():
    """RP-5: a hunted property tile's token leaves the game (its holder loses it)."""
    g, s = make_state(3, tokens="A,I", holders={"A": RED}, board={"A": {RED: 2}},
                      cards="ABCDE")
    plan(s, {})
    do(s, "pass")  # Market: A has room
    hunt(s, "A")
    assert "A" not in s.tokens and s.tokens_gone == ["A"]
    assert s.observation(BLUE)["tokens_gone"] == ["A"]


def test_random_setup_draws_players_plus_one_tokens():
    """Setup step 3: players + 1 property tokens drawn at random (chance nodes), the rest
    returned to the box; all start on their tiles."""
    for n in (2, 3, 5):
        g = load_game("ratapolis", backend="python", num_players=n)
        s = g.new_initial_state()
        draws = 0
        while s.phase == "tokens":
            outcomes = s.chance_outcomes()
            assert len(outcomes) == 10 - draws
            s.apply_action(outcomes[-1][0])
            draws += 1
        assert draws == n + 1 and len(s.tokens) == n + 1
        assert set(s.tokens.values()) == {-1}


def test_tokens_parameter_rejects_unknown_letters():
    """Params: property_tokens must be distinct property letters."""
    import pytest
    with pytest.raises(ValueError, match="property_tokens"):
        load_game("ratapolis", backend="python", property_tokens="A,D")
    with pytest.raises(ValueError, match="property_tokens"):
        load_game("ratapolis", backend="python", property_tokens="A,A")


def test_tokens_parameter_rejects_an_empty_list():
    """Rulebook Setup 3 ("randomly take as many tokens as there are players plus 1"): a
    city always has property tokens, so an empty list ("" or " , ") is a mistake, not a
    silent game without them; a game without tokens must be asked for with "none"."""
    import pytest
    for bad in ("", " , ", ","):
        with pytest.raises(ValueError, match="property_tokens.*'none'"):
            load_game("ratapolis", backend="python", property_tokens=bad)
    g = load_game("ratapolis", backend="python", property_tokens="none")
    assert g.new_initial_state().tokens == {} and g.new_initial_state().phase == "deal"


def test_set_board_helper_keeps_20_rats_per_seat():
    g, s = make_state(3)
    set_board(s, {"A": {RED: 3}})
    assert s.supply[RED] == 17
