"""First Rat, Step 1 "Move Rats": options A and B, movement rules, shortcuts, cheese for
landing and Moldy Cheese (rulebook "Step 1", "Rules for Movement", "Moldy Cheese",
"Shortcuts"; rulings FR-1..FR-4)."""

from __future__ import annotations

from fr_helpers import clear_board, do, labels, make, mover_labels, restart

# Standard layout colours (data/first_rat.json): yellow 1 7 12 16 21 26, green 2 6 10 15 20 25,
# white 3 8 14 19 24, orange 4 9 13 18 22, blue 5 11 17 23; Launchpad 27.


def test_option_a_moves_one_rat_1_to_5_spaces():
    """Step 1 A: "Advance 1 of your Rats 1 to 5 spaces" (no material: no shortcut)."""
    s = make(2)
    clear_board(s, {0: [0]})
    restart(s)
    assert mover_labels(s, "A:") == {f"A: rat 0 Start -> space {k}" for k in range(1, 6)}
    assert not mover_labels(s, "B:")  # option B needs 2-4 rats


def test_the_game_starts_with_two_rats_available():
    """Step 1 note: "When the game begins, you only have 2 Rats available to move"; both on
    Start are interchangeable, so the lowest index is offered."""
    s = make(3)
    assert s.rats[0] == [0, 0, -1, -1]
    assert {x.split(" ")[2] for x in mover_labels(s, "A:")} == {"0"}


def test_option_b_rats_end_on_different_spaces_of_one_colour():
    """Step 1 B: "2-4 of your Rats for 1 to 3 spaces each ... different spaces of the same
    color" (FR-3). From Start and space 4 the pairs are yellow 1+7 and green 2+6."""
    s = make(2)
    clear_board(s, {0: [0, 4]})
    restart(s)
    assert mover_labels(s, "B:") == {
        "B: rat 0 Start -> space 1", "B: rat 0 Start -> space 2",
        "B: rat 1 space 4 -> space 6", "B: rat 1 space 4 -> space 7"}
    do(s, "B: rat 0 Start -> space 2")
    assert s.phase == "move_b" and labels(s) == ["B: rat 1 space 4 -> space 6"]
    do(s, "B: rat 1 space 4 -> space 6")
    assert s.rats[0][:2] == [2, 6] and s.phase != "move_b"


def test_option_b_from_start_needs_two_colours_apart():
    """FR-3: a first option-B rat is offered only if a second can complete the move; two
    rats on Start reach spaces 1-3, all of different colours, so there is no option B."""
    s = make(2)
    assert not mover_labels(s, "B:")


def test_option_b_may_stop_after_two_and_moves_at_most_four():
    """Step 1 B: 2-4 Rats; the seat may end option B after the second rat, and the move
    ends by itself after the fourth. Green targets 2, 6, 10, 15 from Start, 4, 8, 12."""
    s = make(2)
    clear_board(s, {0: [0, 4, 8, 12]})
    restart(s)
    do(s, "B: rat 0 Start -> space 2")
    assert "end option B" not in labels(s)
    do(s, "B: rat 1 space 4 -> space 6")
    assert "end option B" in labels(s)
    do(s, "B: rat 2 space 8 -> space 10")
    do(s, "B: rat 3 space 12 -> space 15")
    assert s.rats[0] == [2, 6, 10, 15] and s.phase != "move_b"


def test_option_b_vacate_then_enter():
    """Rules for Movement: "If you choose Option B, you may move a Rat away from a space first
    before moving another Rat into that space." (FR-3)."""
    s = make(2)
    clear_board(s, {0: [2, 1]})
    s.mats[0]["vinegar"] = 1
    restart(s)
    first = mover_labels(s, "B:")
    assert "B: rat 0 space 2 -> space 6 via SC1" in first
    assert "B: rat 1 space 1 -> space 2" not in first  # space 2 still taken
    do(s, "B: rat 0 space 2 -> space 6 via SC1")
    assert "B: rat 1 space 1 -> space 2" in labels(s)
    do(s, "B: rat 1 space 1 -> space 2")
    assert s.rats[0][:2] == [6, 2]


def test_never_two_own_rats_on_one_space_except_start():
    """Rules for Movement: "You may never have 2 of your Rats in the same space (except for
    the Start space)"; other players' rats may share."""
    s = make(2)
    clear_board(s, {0: [1, 3], 1: [2]})
    restart(s)
    a = mover_labels(s, "A: rat 0")
    assert "A: rat 0 space 1 -> space 3" not in a
    assert "A: rat 0 space 1 -> space 2" in a  # seat 1's rat is there: allowed


def test_movement_only_forward():
    """Rules for Movement: "always move your Rats in the direction towards the rocket"."""
    s = make(2)
    clear_board(s, {0: [10, 15]})
    restart(s)
    g = s.get_game()
    for a in s.legal_actions():
        opt, r, mask, dest, ci = s._decode_move(a)
        assert dest > s.rats[0][r]
    assert g.num_distinct_actions() > max(s.legal_actions())


def test_launchpad_colour_choice_binds_option_b():
    """The Launchpad has all 5 colours: a rat ending there picks one; the other option-B rats
    must end on that colour (FR-3). From 25 and 23: white 24, green 25 (vacated), yellow 26."""
    s = make(2)
    clear_board(s, {0: [25, 23]})
    restart(s)
    to_lp = {x for x in mover_labels(s, "B: rat 0") if "Launchpad" in x}
    assert to_lp == {f"B: rat 0 space 25 -> Launchpad ({c})" for c in ("white", "green", "yellow")}
    do(s, "B: rat 0 space 25 -> Launchpad (green)")
    assert labels(s) == ["B: rat 1 space 23 -> space 25"]


def test_option_b_at_most_one_rat_on_the_launchpad():
    """FR-3: at most one rat ends on the Launchpad in option B."""
    s = make(2)
    clear_board(s, {0: [25, 26]})
    restart(s)
    assert mover_labels(s, "B:") == {"B: rat 1 space 26 -> Launchpad (yellow)"}


def test_option_a_to_the_launchpad_needs_no_colour():
    """A single rat on the Launchpad: its colour only matters for option B."""
    s = make(2)
    clear_board(s, {0: [24]})
    restart(s)
    assert "A: rat 0 space 24 -> Launchpad" in labels(s)


def test_shortcut_costs_its_material():
    """Shortcuts: "you must hand in the building material depicted on the shortcut" (FR-1:
    a shortcut is one step; no material, no shortcut)."""
    s = make(2)
    assert "A: rat 0 Start -> space 6 via SC1" not in labels(s)
    s.mats[0]["vinegar"] = 1
    restart(s)
    supply = s.supply["vinegar"]
    do(s, "A: rat 0 Start -> space 6 via SC1")  # 0->1->2, SC1 to 6: 3 steps
    assert s.mats[0]["vinegar"] <= 1 and s.supply["vinegar"] >= supply
    assert s.rats[0][0] == 6


def test_two_shortcuts_in_one_move_pay_both():
    """FR-1: two shortcuts in one move = pay both (8 -SC2-> 12 -> 13 -SC3-> 17: 3 steps)."""
    s = make(2)
    clear_board(s, {0: [8]})
    s.mats[0].update(soda=1, tin=1)
    restart(s)
    do(s, "A: rat 0 space 8 -> space 17 via SC2+SC3")
    assert s.rats[0][0] == 17
    assert s.mats[0]["soda"] == 0 and s.mats[0]["tin"] == 0 + 0  # space 17 yields bulbs


def test_paying_cheese_to_each_player_on_the_space():
    """Rules for Movement: "give each of these players 1 Cheese" (FR-4)."""
    s = make(3)
    clear_board(s, {0: [1], 1: [3], 2: [3]})
    s.cheese = [5, 0, 0]
    restart(s)
    do(s, "A: rat 0 space 1 -> space 3")
    assert s.cheese[1] == 1 and s.cheese[2] == 1 and s.cheese[0] == 3


def test_paying_per_space_more_than_one_cheese_to_one_player():
    """Rules for Movement note: "more than 1 Cheese if your Rats end their movement in more
    than 1 space where that player already has Rats"."""
    s = make(2)
    clear_board(s, {0: [0, 4], 1: [1, 7]})
    s.cheese = [5, 0]
    restart(s)
    do(s, "B: rat 0 Start -> space 1")
    do(s, "B: rat 1 space 4 -> space 7")
    assert s.cheese[1] == 2


def test_moldy_cheese_exactly_as_needed():
    """Moldy Cheese: "Each Moldy Cheese gives you 3 Cheese"; "only as much Moldy Cheese as is
    necessary"; FR-4: the fewest that cover the debt, keep the change."""
    s = make(3)
    clear_board(s, {0: [1], 1: [3], 2: [3]})
    s.cheese = [1, 0, 0]
    restart(s)
    do(s, "A: rat 0 space 1 -> space 3")  # owes 2, has 1: one Moldy Cheese
    assert s.moldy[0] == 1 and s.cheese[0] == 2 and s.cheese[1:] == [1, 1]
    assert s.supply["moldy_cheese"] == 11


def test_moldy_cheese_for_a_debt_of_four():
    s = make(4)
    clear_board(s, {0: [0, 4], 1: [1, 7], 2: [1, 7]})
    s.cheese = [0, 0, 0, 0]
    restart(s)
    do(s, "B: rat 0 Start -> space 1")
    do(s, "B: rat 1 space 4 -> space 7")
    # owes 4 with 0 cheese: 2 Moldy Cheese (6), keeps 2, then collects 1 + 1 on yellow 1 and 7
    assert s.moldy[0] == 2 and s.cheese == [4, 2, 2, 0]


def test_no_moldy_cheese_without_debt():
    """Moldy Cheese: "You may never take Moldy Cheese for any other reason"."""
    s = make(2)
    s.cheese = [0, 0]
    restart(s)
    do(s, "A: rat 0 Start -> space 2")
    assert s.moldy == [0, 0]


def test_start_and_launchpad_cost_nothing():
    """FR-2 (Start never costs) and FR-4 (the Launchpad is excepted)."""
    s = make(2)
    clear_board(s, {0: [26], 1: [0, 27]})
    s.cheese = [0, 0]
    restart(s)
    do(s, "A: rat 0 space 26 -> Launchpad")
    assert s.cheese == [0, 0] and s.moldy == [0, 0]
