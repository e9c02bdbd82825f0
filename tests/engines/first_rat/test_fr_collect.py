"""First Rat, Step 2 "Collect Resources": spaces, light string, rat burrow, backpacks, energy
drinks, comics (rulebook "Step 2", "Details for the Light String", "Rat Burrow Details";
rulings FR-5, FR-6, FR-7, FR-13, FR-15)."""

from __future__ import annotations

from fr_helpers import clear_board, do, labels, make, restart


def moved_to(s, origin: int, dest: int, extra: str = "") -> None:
    """Seat 0 with one rat on ``origin`` moves it to ``dest`` (option A)."""
    clear_board(s, {0: [origin]})
    restart(s)
    where = "Start" if origin == 0 else f"space {origin}"
    do(s, f"A: rat 0 {where} -> space {dest}{extra}")


def test_yellow_space_gives_cheese():
    """Yellow Spaces: "Take the depicted number of Cheese (1 to 4)" (space 12: 2)."""
    s = make(2)
    before = s.cheese[0]
    moved_to(s, 10, 12)
    assert s.cheese[0] == before + 2


def test_green_and_orange_spaces_give_material():
    """Green and Orange Spaces: the depicted building material (space 13: a Calculator)."""
    s = make(2)
    moved_to(s, 10, 13)
    assert s.mats[0]["calculator"] == 1
    assert s.supply["calculator"] == 15 - 1  # Components: 15 Calculators


def test_blue_space_advances_the_light_string():
    """Blue Spaces: "Advance your Light String marker ... 1 space for each Lightbulb" (11: 2)."""
    s = make(2)
    moved_to(s, 10, 11)
    assert s.light[0] == 2


def test_white_space_moves_the_burrow_marker():
    """White Spaces: the Rat Burrow marker moves 1 space per Apple Core (14: 2 apples)."""
    s = make(2)
    moved_to(s, 10, 14)
    assert s.burrow[0] == "R2"


def test_rats_not_moved_do_not_collect():
    """Step 2: "Rats that weren't moved this turn don't collect resources"."""
    s = make(2)
    clear_board(s, {0: [26, 3]})
    s.cheese[0] = 0
    restart(s)
    do(s, "A: rat 1 space 3 -> space 4")
    assert s.cheese[0] == 0 and s.mats[0]["tin"] == 1


def test_lit_spaces_yield_one_more():
    """Light String: "your yield for any space your Light String marker has reached or passed
    is increased by 1" (FR-5: position k lights spaces 2k-1 and 2k; booths too)."""
    s = make(2)
    s.light[0] = 4  # lights 1..8
    before = s.cheese[0]
    moved_to(s, 3, 7)  # Harry Hamster's booth, a yellow 1-cheese space
    assert s.cheese[0] == before + 2
    s2 = make(2)
    s2.light[0] = 4
    moved_to(s2, 5, 9)  # 9 is not lit
    assert s2.mats[0]["tin"] == 1


def test_light_marker_counts_where_it_stood_at_the_start_of_collect():
    """FR-5: bulbs collected this turn move the marker afterwards. Light 2 lights 1-4; blue 5
    (1 bulb) and blue 11 (2 bulbs) give 3, not 4."""
    s = make(2)
    clear_board(s, {0: [3, 9]})
    s.light[0] = 2
    restart(s)
    do(s, "B: rat 0 space 3 -> space 5")
    do(s, "B: rat 1 space 9 -> space 11")
    assert s.light[0] == 5


def test_construction_lights_score_once_each():
    """Light String: reaching or passing a Construction Light places a Score marker (FR-5);
    passing two at once scores two (light 7 + 5 bulbs reaches 12, passing 8 and 12)."""
    s = make(2)
    s.light[0] = 3  # lights 1..6: blue 5 gives 1 + 1
    moved_to(s, 4, 5)
    assert s.light[0] == 5 and s.lights_scored[0] == 1
    assert s.track_slots["construction_lights"][0] == 0
    s = make(5)
    s.light[0] = 7
    s.drinks[0] = 0
    moved_to(s, 20, 23)  # 3 bulbs, lit by 7 (1..14)? no: 23 > 14 -> 3 bulbs
    assert s.light[0] == 10 and s.lights_scored[0] == 1
    s = make(5)
    s.light[0] = 7
    clear_board(s, {0: [20]})
    s.backpacks[0] = ["BP-B1"]  # blue +1
    s.comics[0] = ["CM6"]  # Bright Spark +1
    restart(s)
    do(s, "A: rat 0 space 20 -> space 23")  # 3 + 1 + 1 = 5 bulbs: 7 -> 12
    assert s.light[0] == 12 and s.lights_scored[0] == 2


def test_bulbs_past_the_end_of_the_light_string_are_lost():
    """FR-5: bulbs past 13 are lost; at most 3 Construction Light markers per player."""
    s = make(2)
    s.light[0] = 12
    s.lights_scored[0] = 3
    moved_to(s, 20, 23)
    assert s.light[0] == 13 and s.lights_scored[0] == 3
    assert s._markers_on("construction_lights", 0) == 0


def test_backpacks_add_their_bonus_and_stack():
    """FR-6: backpacks are permanent, +bonus on a space of their colour; copies stack."""
    s = make(2)
    s.backpacks[0] = ["BP-Y1", "BP-Y2", "BP-G1"]
    before = s.cheese[0]
    moved_to(s, 10, 12)  # 2 cheese + 2 + 2
    assert s.cheese[0] == before + 6


def test_energy_drink_doubles_the_whole_yield_once_per_turn():
    """FR-6: an energy drink is spent before Collect to double the turn's yield after the
    other bonuses; at most one per turn."""
    s = make(2)
    s.drinks[0] = 2
    s.light[0] = 1  # lights 1-2
    s.backpacks[0] = ["BP-G1"]
    clear_board(s, {0: [0]})
    restart(s)
    do(s, "A: rat 0 Start -> space 2")
    assert s.phase == "drink"
    do(s, "drink an Energy Drink")
    assert s.mats[0]["vinegar"] == (1 + 1 + 1) * 2 and s.drinks[0] == 1
    assert s.phase != "drink"


def test_energy_drink_may_be_kept():
    s = make(2)
    s.drinks[0] = 1
    moved_to(s, 0, 2)
    do(s, "no Energy Drink")
    assert s.mats[0]["vinegar"] == 1 and s.drinks[0] == 1


def test_drink_bought_this_turn_is_used_later():
    """FR-6: "a drink bought this turn is used later" (shopping follows Collect)."""
    s = make(2)
    s.cheese[0] = 10
    moved_to(s, 12, 16)  # Zippy the Frog
    assert s.phase == "shop"
    do(s, "buy an energy drink (3 Cheese)")
    assert s.drinks[0] == 1 and s.phase == "move"  # the turn ended, no drink decision
    do(s, "A: rat 0 space 16 -> space 17")
    assert s.phase == "drink"  # used on a later turn


def test_material_supply_is_finite():
    """FR-13: a yield the supply cannot pay is paid as far as it goes."""
    s = make(2)
    s.supply["vinegar"] = 1
    s.light[0] = 1
    moved_to(s, 0, 2)  # 2 vinegar due
    assert s.mats[0]["vinegar"] == 1 and s.supply["vinegar"] == 0


def test_burrow_intersection_is_a_decision():
    """Rat Burrow: "Whenever you reach an intersection, you must decide which way" (FR-7)."""
    s = make(2)
    s.burrow[0] = "R1"
    moved_to(s, 12, 14)  # 2 apples: R1 -> R2, then choose
    assert s.phase == "burrow"
    assert labels(s) == ["Rat Burrow: go left", "Rat Burrow: go up"]
    do(s, "Rat Burrow: go left")
    assert s.burrow[0] == "R3"


def test_nursery_reward_raises_a_rat_to_start():
    """Rat Burrow: entering the space left of the Nursery: "you may raise 1 new Rat"."""
    s = make(2)
    s.burrow[0] = "R1"
    moved_to(s, 12, 14)
    do(s, "Rat Burrow: go up")  # R7 = Nursery reward
    assert s.phase == "nursery"
    do(s, "Nursery: raise a rat")
    assert sorted(s.rats[0]) == [-1, -1, 0, 14]
    assert s.raised[0] == 1


def test_nursery_reward_may_be_declined_and_needs_a_rat():
    """FR-7: Nursery with no rat left gives nothing."""
    s = make(2)
    s.burrow[0] = "R1"
    moved_to(s, 12, 14)
    do(s, "Rat Burrow: go up")
    do(s, "Nursery: do not raise")
    assert s.rats[0].count(-1) == 3
    s = make(2)
    s.burrow[0] = "R1"
    clear_board(s, {0: [12, 0, 0, 0]})
    restart(s)
    do(s, "A: rat 0 space 12 -> space 14")
    do(s, "Rat Burrow: go up")
    assert s.burrow[0] == "R7" and s.phase != "nursery"


def test_stored_food_scores_and_several_rewards_in_one_turn():
    """Rat Burrow note: "it is possible to gain rewards several times in one turn". From R3,
    4 apples pass R4 (Stored Food), R5, R6 and enter R8 (Library)."""
    s = make(2, first_game=True)
    s.burrow[0] = "R3"
    s.light[0] = 12  # lights 1..24: space 24 gives 3 + 1 apples
    moved_to(s, 21, 24)
    assert s.track_slots["stored_food"][0] == 0
    assert s.phase == "library"
    assert "Library: take CM1 Pipe Dream" in labels(s)
    do(s, "Library: take CM1 Pipe Dream")
    assert s.comics[0] == ["CM1"] and "CM1" not in s.library and s.burrow[0] == "R8"


def test_empty_library_gives_nothing():
    """FR-7: an empty Library gives nothing."""
    s = make(2)
    s.library = []
    s.burrow[0] = "R3"
    s.light[0] = 12
    moved_to(s, 21, 24)
    assert s.burrow[0] == "R8" and s.phase != "library"


def test_super_rat_comic_chooses_a_rat_on_the_path():
    """FR-15: on taking a Super Rat comic, choose one of your rats on the path (Start
    included) to become the Super Rat."""
    s = make(2)
    s.library = ["SR2"]
    s.burrow[0] = "R6"
    clear_board(s, {0: [12, 0]})
    restart(s)
    do(s, "A: rat 0 space 12 -> space 14")  # R6 -> R8 (Library) -> R1
    do(s, "Library: take SR2 Super Rat: Turbo")
    assert s.phase == "super" and labels(s) == ["Super Rat SR2 Turbo: rat 0 on space 14",
                                                "Super Rat SR2 Turbo: rat 1 on Start"]
    do(s, "Super Rat SR2 Turbo: rat 1 on Start")
    assert s.super_rats[0] == {"SR2": 1}


def test_super_rat_without_rat_on_the_path_is_the_next_raised():
    """FR-15: if none is on the path, the next rat raised becomes it."""
    s = make(2)
    s.library = ["SR3"]
    s.burrow[0] = "R6"
    s.light[0] = 12
    clear_board(s, {0: [26, 27, 27]})
    restart(s)
    s.rats[0] = [21, 27, 27, -1]
    restart(s)
    do(s, "A: rat 0 space 21 -> space 24")  # 4 apples: R8 (Library), R1, R2, then choose
    do(s, "Library: take SR3 Super Rat: Strongpaws")
    assert s.super_rats[0] == {"SR3": 0}  # the only rat on the path: no decision
    s = make(2)
    s.library = ["SR3"]
    s.rats[0] = [27, 27, 27, -1]
    s._take_comic("SR3")
    assert s.super_rats[0] == {"SR3": -1}
    s._raise_rat(0)
    assert s.super_rats[0] == {"SR3": 3} and s.rats[0][3] == 0


def test_strongpaws_and_turbo_super_rats():
    """Comics SR3 (+1 yield for the Super Rat) and SR2 (A: 1-7 spaces)."""
    s = make(2)
    clear_board(s, {0: [10, 11]})
    s.comics[0] = ["SR2", "SR3"]
    s.super_rats[0] = {"SR2": 0, "SR3": 1}  # FR-19: two Super Rats are two rats
    restart(s)
    assert "A: rat 0 space 10 -> space 17" in labels(s)  # 7 spaces
    assert "A: rat 1 space 11 -> space 17" not in labels(s)  # not Turbo: 5
    before = s.cheese[0]
    do(s, "A: rat 1 space 11 -> space 16")
    assert s.cheese[0] == before + 2 + 1


def test_energy_drink_doubles_the_bright_spark_step():
    """FR-6: an energy drink doubles "the whole turn's yield after other bonuses"; Bright Spark
    (CM6: "whenever you collect lightbulbs, advance 1 extra step") is such a bonus, like
    Strongpaws' +1. Start -> space 5 (blue, 1 bulb, not lit), Bright Spark, drink:
    (1 + 1) * 2 = 4 steps on the light string."""
    s = make(2)
    clear_board(s, {0: [0]})
    s.comics[0] = ["CM6"]
    s.drinks[0] = 1
    restart(s)
    do(s, "A: rat 0 Start -> space 5")
    do(s, "drink an Energy Drink")
    assert s.light[0] == 4 and s.drinks[0] == 0
    s = make(2)  # without the drink: 1 + 1 = 2
    clear_board(s, {0: [0]})
    s.comics[0] = ["CM6"]
    restart(s)
    do(s, "A: rat 0 Start -> space 5")
    assert s.light[0] == 2
