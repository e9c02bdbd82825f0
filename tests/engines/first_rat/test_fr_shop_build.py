"""First Rat, Step 3 "Go Shopping" and Step 4 "Build and Donate Cheese", score tracks
(rulebook "Step 3", "Step 4", "Score Tracks"; rulings FR-8, FR-10, FR-11)."""

from __future__ import annotations

import pytest
from fr_helpers import clear_board, do, labels, make, restart

from ratai.engines.first_rat.data import TRACK_NAMES, load


def at_booth(s, origin: int, booth: int, cheese: int) -> None:
    clear_board(s, {0: [origin]})
    s.cheese[0] = cheese
    restart(s)
    do(s, f"A: rat 0 space {origin} -> space {booth}")


def test_shop_buy_pays_and_the_rat_stays():
    """Step 3 A: "Hand in the specified number of Cheese ... take 1 of the items" (backpack 4)."""
    s = make(2)
    at_booth(s, 4, 7, 3)  # 3 + 1 from the yellow booth space = 4
    item = s.disp_backpacks[0]
    label = f"buy backpack {item}: +1 on green spaces (4 Cheese)"
    assert s.phase == "shop" and label in labels(s)
    do(s, label)
    assert s.backpacks[0] == [item] and s.cheese[0] == 0 and s.rats[0][0] == 7
    assert item not in s.disp_backpacks


def test_shop_steal_returns_the_rat_to_start_and_keeps_the_yield():
    """Step 3 B: "Take 1 of the items ... and return this Rat to the Start space" (FR-8)."""
    s = make(2)
    at_booth(s, 18, 21, 0)
    cap = s.disp_caps[0]
    do(s, f"steal bottle cap {cap}: 3 per cockpit built (rat 0 back to Start)")
    assert s.caps[0] == [cap] and s.rats[0][0] == 0 and s.cheese[0] == 3


def test_cannot_buy_without_the_cheese():
    s = make(2)
    at_booth(s, 14, 16, 0)  # 2 cheese < 3 for an energy drink
    assert labels(s) == ["do not shop", "steal an energy drink (rat 0 back to Start)"]


def test_identical_backpacks_are_offered_once():
    """Backpacks with the same colour and bonus are the same choice (legal lists stay small)."""
    s = make(2)
    s.disp_backpacks = ["BP-Y1", "BP-Y2", "BP-G1"]
    at_booth(s, 4, 7, 10)
    assert [x for x in labels(s) if x.startswith("buy")] == [
        "buy backpack BP-Y1: +2 on yellow spaces (4 Cheese)",
        "buy backpack BP-G1: +1 on green spaces (4 Cheese)"]


def test_shopping_only_with_rats_moved_there_this_turn():
    """Step 3: "You may not Go Shopping with any of your Rats in a booth space if they did not
    move there this turn."""
    s = make(2)
    clear_board(s, {0: [7, 1]})
    s.cheese[0] = 20
    restart(s)
    do(s, "A: rat 1 space 1 -> space 2")
    assert s.phase != "shop"


def test_each_rat_on_a_booth_shops_once():
    """Step 3: "If you moved more than 1 Rat to different booth spaces, each of these Rats may
    Go Shopping for 1 item" (the booths are yellow, so one option-B move reaches all three)."""
    s = make(2)
    clear_board(s, {0: [4, 13, 18]})
    s.cheese[0] = 30
    restart(s)
    do(s, "B: rat 0 space 4 -> space 7")
    do(s, "B: rat 1 space 13 -> space 16")
    do(s, "B: rat 2 space 18 -> space 21")
    bought = []
    for _ in range(3):
        assert s.phase == "shop"
        choice = [x for x in labels(s) if x.startswith("buy")][0]
        bought.append(choice)
        do(s, choice)
    assert s.phase != "shop" and len(s.backpacks[0]) == 1 and s.drinks[0] == 1
    assert len(s.caps[0]) == 1


def test_haggler_discount():
    """Comic CM5 Haggler: items cost 2 cheese less (backpack 4 -> 2)."""
    s = make(2)
    s.comics[0] = ["CM5"]
    at_booth(s, 4, 7, 1)  # 1 + 1 = 2
    do(s, f"buy backpack {s.disp_backpacks[0]}: +1 on green spaces (2 Cheese)")
    assert s.cheese[0] == 0


@pytest.mark.parametrize("part,cost", [("cockpit", {"calculator": 2, "tin": 1}),
                                        ("cargo_bay", {"soda": 3, "tin": 2}),
                                        ("thruster", {"vinegar": 5, "soda": 2})])
def test_rocket_part_costs(part, cost):
    """Step 4 Build: Cockpit 2 Calculators + 1 Tin Can; Cargo Bay 3 Baking Soda + 2 Tin Cans;
    Thruster 5 Vinegar Bottles + 2 Baking Soda."""
    assert load().part_costs[part] == cost
    s = make(3)
    s.mats[0].update(cost)
    clear_board(s, {0: [2]})
    restart(s)
    do(s, "A: rat 0 space 2 -> space 3")
    assert f"build a {TRACK_NAMES[part]}" in labels(s)
    do(s, f"build a {TRACK_NAMES[part]}")
    assert s.built[0][part] == 1 and sum(s.mats[0].values()) == 0
    assert s.track_slots[part][0] == 0  # leftmost free space
    assert s.phase != "build"  # nothing else possible: the turn ended


def test_build_missing_material_is_not_offered_and_step_is_skipped():
    s = make(2)
    s.mats[0].update(calculator=1, tin=5)
    clear_board(s, {0: [2]})
    restart(s)
    do(s, "A: rat 0 space 2 -> space 3")
    assert s.phase == "move" and s.round == 2  # nothing to build: the turn ended by itself


def test_rocket_track_scores_each_complete_set_and_duplicates_are_allowed():
    """Score Tracks: "Complete Rocket: ... each time you complete a set using all 3 rocket
    parts" (FR-10); Step 4 note: "as many rocket parts as you want, including duplicate"."""
    s = make(5)
    s.mats[0].update(calculator=4, tin=6, soda=10, vinegar=10)
    clear_board(s, {0: [2]})
    restart(s)
    do(s, "A: rat 0 space 2 -> space 3")
    do(s, "build a Cockpit")
    do(s, "build a Cockpit")
    do(s, "build a Cargo Bay")
    assert s.rocket_sets[0] == 0
    do(s, "build a Thruster")
    assert s.rocket_sets[0] == 1 and s.track_slots["rocket"][0] == 0
    do(s, "build a Cargo Bay")
    do(s, "build a Thruster")
    assert s.rocket_sets[0] == 2 and s.track_slots["rocket"][:2] == [0, 0]
    assert s._track_points(0)["rocket"] == 12 + 10


def test_donate_ten_cheese_any_number_of_times():
    """Step 4 Donate Cheese: "Hand in 10 Cheese"; "as many times as you like"; each scores
    the Provisions track."""
    s = make(5)
    clear_board(s, {0: [2]})
    s.cheese[0] = 25
    restart(s)
    do(s, "A: rat 0 space 2 -> space 3")
    do(s, "donate Cheese (Provisions)")
    do(s, "donate Cheese (Provisions)")
    assert s.cheese[0] == 5 and s._markers_on("provisions", 0) == 2
    assert s._track_points(0)["provisions"] == 9 + 7


def test_score_track_spaces_one_marker_each_fifth_unlimited():
    """Score Tracks: "1 Score marker may be placed in each of the first 4 spaces ... Any number
    ... in the last (fifth) space"; markers go to the free space furthest left."""
    s = make(5)
    for owner in (0, 1, 2, 3, 4, 0, 1):
        s._place("cockpit", owner)
    assert s.track_slots["cockpit"] == [0, 1, 2, 3]
    assert s.track_last["cockpit"] == [4, 0, 1]
    assert s._track_points(0)["cockpit"] == 8 + 3


@pytest.mark.parametrize("n,neutral", [(2, [2, 4]), (3, [4]), (4, [4]), (5, [])])
def test_neutral_markers_on_highlighted_spaces(n, neutral):
    """Setup, Neutral Score markers: 3-4 players the rightmost highlighted space, 2 players
    both highlighted spaces (also the Neutral Rats on the Rattronaut track)."""
    s = make(n)
    for track, slots in s.track_slots.items():
        assert [i + 1 for i, o in enumerate(slots) if o == -1] == neutral, track
    s._place("thruster", 0)
    s._place("thruster", 1 % n)
    free = [i for i in range(4) if i + 1 not in neutral]
    assert s.track_slots["thruster"][free[0]] == 0 and s.track_slots["thruster"][free[1]] == 1 % n


def test_at_most_ten_score_markers():
    """End of Game note: "Each player may never use more than 10 Score markers" (FR-11)."""
    s = make(5)
    for _ in range(12):
        s._place("provisions", 0)
    assert s.markers[0] == 10 and s._markers_on("provisions", 0) == 10
