"""Rulings RP-1..RP-8 (RULES_GAPS.md) and the order of resolution (rulebook Phase 3)."""

from __future__ import annotations

import pytest
from rp_helpers import BLUE, GREEN, RED, YELLOW, count, do, hunt, idx, labels, make_state, plan

from ratai.engines import load_game
from ratai.engines.ratapolis.rules import share_capacity


def test_rp1_one_rat_of_each_colour_on_every_building():
    """RP-1 / Setup step 4: each player starts with one rat on every building (all 20 on
    the board, none in supply)."""
    for n in (2, 3, 4, 5):
        s = load_game("ratapolis", backend="python", num_players=n).new_initial_state()
        assert all(row == [1] * n for row in s.board)
        assert s.supply == [0] * n


def test_rp2_plans_are_committed_in_seat_order_and_hidden():
    """RP-2: each seat commits two cells, hidden from the others until the reveal."""
    g, s = make_state(3, board={"A": {RED: 2, BLUE: 1}})
    do(s, "move A>O")
    assert s.current_player() == RED
    do(s, "attack A blue")
    assert s.current_player() == BLUE
    obs = s.observation(BLUE)
    assert obs["committed"] == [2, 0, 0] and obs["my_plan"] == []
    assert "move A>O" not in str(obs)
    assert s.observation(RED)["my_plan"] == ["move A>O", "attack A blue"]
    assert s.describe_action(RED, 0) == "blue commits a hidden plan cell"
    assert s.describe_action(BLUE, 0) == "idle"
    do(s, "idle")
    do(s, "idle")
    do(s, "idle")
    do(s, "idle")
    assert s.observation(BLUE)["rounds"][0]["plans"][RED] == ["move A>O", "attack A blue"]


def test_rp3_simultaneous_attacks_are_checked_before_any_applies():
    """RP-3 / Phase 3: all attacks of a cell at once; two players may remove each other's
    last rat."""
    g, s = make_state(3, board={"O": {RED: 1, BLUE: 1}})
    plan(s, {RED: ("attack O blue", "idle"), BLUE: ("attack O red", "idle")})
    assert s.board[idx(g, "O")] == [0, 0, 0]


def test_rp3_attack_fails_when_the_attacker_has_left_the_tile():
    """RP-3: legality is checked when the cell resolves: red moves its only rat out of O
    in the left cell, so its right-cell attack on O does nothing."""
    g, s = make_state(3, board={"O": {RED: 1, BLUE: 1}})
    plan(s, {RED: ("move O>I", "attack O blue")})
    assert count(s, "O", BLUE) == 1 and count(s, "I", RED) == 1


def test_rp3_move_from_a_tile_without_rats_does_nothing():
    """RP-3: a move from a tile where the mover has no rats (lost to an attack) does
    nothing."""
    g, s = make_state(3, board={"O": {RED: 1, BLUE: 1}, "I": {YELLOW: 1}})
    plan(s, {RED: ("attack O blue", "idle"), BLUE: ("move O>I", "idle")})
    assert count(s, "O", BLUE) == 0 and count(s, "I", BLUE) == 0
    assert s.supply[BLUE] == 20


def test_rp3_right_cell_may_target_a_tile_reached_by_the_left_move():
    """RP-3 / Phase 2: planning the right cell, the destination of the seat's own left move
    counts as a tile with its rats, so move-then-attack can be planned."""
    g, s = make_state(3, board={"A": {RED: 2}, "O": {BLUE: 1}})
    do(s, "move A>O")
    assert "attack O blue" in labels(s)
    do(s, "attack O blue")
    plan_rest = ["idle"] * 4
    for label in plan_rest:
        do(s, label)
    assert s.board[idx(g, "O")] == [2, 0, 0]


def test_rp4_remainder_smaller_than_a_pass_stays_unused():
    """RP-4: while free >= movers still moving, each moves one more rat; a remainder
    smaller than a full pass stays unused; rats that do not fit stay."""
    assert share_capacity(3, [5, 5]) == [1, 1]
    assert share_capacity(3, [1, 5]) == [1, 2]
    assert share_capacity(0, [2, 2]) == [0, 0]
    assert share_capacity(10, [2, 3]) == [2, 3]
    assert share_capacity(5, [4, 4, 4]) == [1, 1, 1]
    # On the board: O (3 places at 3 players) empty, red and blue bring 5 each.
    g, s = make_state(3, board={"A": {RED: 5}, "B": {BLUE: 5}})
    plan(s, {RED: ("move A>O", "idle"), BLUE: ("move B>O", "idle")})
    assert s.board[idx(g, "O")] == [1, 1, 0]
    assert count(s, "A", RED) == 4 and count(s, "B", BLUE) == 4


def test_rp4_departures_free_no_room_in_the_same_step():
    """RP-4: free places = capacity - rats on the destination at the start of the move step;
    rats leaving the destination in the same step do not make room."""
    g, s = make_state(3, board={"O": {BLUE: 3}, "A": {RED: 2}})
    plan(s, {RED: ("move A>O", "idle"), BLUE: ("move O>I", "idle")})
    assert count(s, "O", RED) == 0 and count(s, "I", BLUE) == 3
    g, s = make_state(3, board={"O": {BLUE: 3}, "A": {RED: 2}})
    plan(s, {RED: ("idle", "move A>O"), BLUE: ("move O>I", "idle")})
    assert count(s, "O", RED) == 2  # the next cell sees the room


def test_rp4_fire_station_holder_moves_first_alone():
    """RP-4: the Fire station holder moves first, alone (then the others share)."""
    g, s = make_state(3, tokens="I", holders={"I": BLUE},
                      board={"O": {YELLOW: 1}, "A": {RED: 3}, "B": {BLUE: 1}, "D": {YELLOW: 3}})
    plan(s, {RED: ("move A>O", "idle"), BLUE: ("move B>O", "idle"),
             YELLOW: ("move D>O", "idle")})
    # 2 free: blue first takes 1, then red and yellow would need 2 for a pass: 1 < 2.
    assert s.board[idx(g, "O")] == [0, 1, 1]


def test_rp5_hunted_tile_is_an_empty_area_nobody_enters():
    """RP-5 / Phase 4: the hunted tile leaves an empty area; nobody may move into it."""
    g, s = make_state(3, board={"O": {RED: 2}, "I": {RED: 1}}, cards="ABCDE")
    plan(s, {})
    hunt(s, "A")
    while s.phase == "deal":
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.current_player() == RED
    assert not any(label.endswith(">A") or " A " in label for label in labels(s))
    assert "A" not in s.observation(RED)["board"]


def test_rp6_and_rp7_are_covered_in_test_rp_properties():
    """RP-6 (Market, Hospital, Radio, Archive, Bus, Hotel) and RP-7 (Cheese shop) are tested
    one property each in test_rp_properties.py; this checks the table of properties."""
    g = load_game("ratapolis")
    assert g.property_letter == {"market": "A", "archive": "B", "shooting_range": "C",
                                 "hotel": "F", "radio": "G", "metro": "H",
                                 "fire_station": "I", "bus_station": "L",
                                 "cheese_shop": "S", "hospital": "T"}


def _final(n, board, cheese):
    g, s = make_state(n, board=board)
    s.cheese = list(cheese)
    s.cheese_bank -= sum(cheese)
    s.phase = "end"
    return s


def test_rp8_tie_on_cheese_broken_by_rats_in_the_city():
    """RP-8 / End of the Game: on equal cheese the player with more rats in the city wins."""
    s = _final(3, {"O": {RED: 1}, "A": {BLUE: 3}}, [0, 0, 0])  # 6 vs 6 cheese
    assert s.scores()[:2] == [6.0, 6.0]
    assert s.returns() == [0.0, 1.0, 0.0]


def test_rp8_full_tie_is_a_shared_win():
    """RP-8: same cheese and same rats in the city: a shared win (1/k each)."""
    s = _final(4, {"O": {RED: 1, GREEN: 1}}, [0, 0, 0, 0])
    assert s.returns() == [0.5, 0.0, 0.0, 0.5]


def test_attacks_before_moves_in_the_left_cell():
    """Phase 3: in each cell all attacks happen, then the moves. Green has 2 rats on I; red's
    attack hits before green's move, so one green rat moves."""
    g, s = make_state(4, board={"I": {RED: 1, GREEN: 2}})
    plan(s, {RED: ("attack I green", "idle"), GREEN: ("move I>O", "idle")})
    assert count(s, "O", GREEN) == 1 and count(s, "I", GREEN) == 0


def test_attacks_before_moves_in_the_right_cell():
    """Phase 3: the same order in the right cell."""
    g, s = make_state(4, board={"I": {RED: 1, GREEN: 2}})
    plan(s, {RED: ("idle", "attack I green"), GREEN: ("idle", "move I>O")})
    assert count(s, "O", GREEN) == 1 and count(s, "I", GREEN) == 0


def test_rats_arriving_in_a_cell_are_not_hit_by_that_cells_attacks():
    """Phase 3: moves follow the attacks, so rats moving in are safe from the same cell's
    attacks (only the green rat already on O is hit)."""
    g, s = make_state(4, board={"O": {RED: 1, GREEN: 1}, "I": {GREEN: 2}})
    plan(s, {RED: ("attack O green", "idle"), GREEN: ("move I>O", "idle")})
    assert count(s, "O", GREEN) == 2


def test_left_cell_before_right_cell():
    """Phase 3: all of the left cell, then the right cell: yellow's right move takes the rats
    its left move brought (A>O then O>I), and red's right attack meets them."""
    g, s = make_state(3, board={"A": {YELLOW: 2}, "I": {RED: 1}})
    plan(s, {YELLOW: ("move A>O", "move O>I"), RED: ("idle", "attack I yellow")})
    # Right cell: red's attack comes before yellow's move into I, so it finds no yellow rat.
    assert count(s, "I", YELLOW) == 2 and count(s, "O", YELLOW) == 0
    g, s = make_state(3, board={"A": {YELLOW: 2}, "O": {RED: 1}})
    plan(s, {YELLOW: ("move A>O", "idle"), RED: ("idle", "attack O yellow")})
    assert count(s, "O", YELLOW) == 1


def test_left_cell_attacks_need_the_target_colour_on_the_tile():
    """Phase 2: for the left cell, the board is the one its attacks meet, so only colours
    present can be targeted; the right cell may target any rival colour (RP-3 checks)."""
    g, s = make_state(3, board={"O": {RED: 1, BLUE: 1}})
    left = labels(s)
    assert "attack O blue" in left and "attack O yellow" not in left
    do(s, "idle")
    right = labels(s)
    assert "attack O blue" in right and "attack O yellow" in right
    assert "attack O red" not in right


def test_bad_params_name_the_parameter():
    """Params: out-of-range values raise ValueError naming the parameter."""
    with pytest.raises(ValueError, match="num_players"):
        load_game("ratapolis", backend="python", num_players=6)
    with pytest.raises(ValueError, match="layout"):
        load_game("ratapolis", backend="python", layout="AB/CD")


def test_custom_layout_as_rows():
    """Params: a layout is a grid of letters (rows separated by '/'); a park cell '.' is
    neither a building nor an empty area."""
    rows = "AAAJCC./BOIIGK./BDDHLK./NEMMLL./SEMFFP./TTTQQR."
    g = load_game("ratapolis", backend="python", layout=rows)
    assert g.neighbours == load_game("ratapolis").neighbours


def test_data_path_parameter_and_validation(tmp_path):
    """Component data lives in one file (RULES_GAPS.md): a replacement file is read through
    the data_path parameter and validated with errors naming the field."""
    import json

    from ratai.engines.ratapolis.data import DATA_PATH

    doc = json.loads(DATA_PATH.read_text())
    doc["buildings"][14]["cheese_per_rat"] = 7  # O, the Pharmacy
    good = tmp_path / "ratapolis.json"
    good.write_text(json.dumps(doc))
    g = load_game("ratapolis", backend="python", data_path=str(good))
    assert g.cheese_per_rat[idx(g, "O")] == 7
    doc["hunt_schedule"]["rounds_1_4"] = 4
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="hunt_schedule"):
        load_game("ratapolis", backend="python", data_path=str(bad))
    doc = json.loads(DATA_PATH.read_text())
    doc["adjacency"].append("AT")
    bad.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="adjacency"):
        load_game("ratapolis", backend="python", data_path=str(bad))
