"""Rulings FR-17 (Collect), FR-18 (Greg's booth discards) and FR-19 (one Super Rat per rat)
of ``../shared/RULES_GAPS.md``, each checked on both backends (the reference and the Cython
twin play the same actions from the same position and must agree after every action).
"""

from __future__ import annotations

import pytest
from fr_helpers import Both, clear_board, make, restart

from ratai.engines.first_rat.rules import NURSERY


def test_fr17_collect_is_not_optional_and_unmoved_rats_collect_nothing():
    """FR-17, rulebook "Step 2: Collect Resources" ("you may collect resources from all the
    spaces where you have just moved a Rat. Rats that weren't moved this turn don't collect"):
    the engine collects everything the moved rat earns, with no decision; the unmoved rat on
    the calculator space 13 collects nothing."""
    s = make(2)
    clear_board(s, {0: [10, 13], 1: [1]})
    restart(s)
    b = Both(s)
    before = b.obs()
    b.do("A: rat 0 space 10 -> space 12")  # yellow, 2 Cheese; no booth, nothing to build
    after = b.obs()
    assert after["cheese"][0] == before["cheese"][0] + 2
    assert after["mats"][0] == before["mats"][0]  # rat 1 on space 13 did not move
    # no collect decision: the turn went straight on to Player 1
    assert after["seat"] == 1 and after["phase"] == "move"
    assert not any("collect" in x.lower() for x in b.labels())


def test_fr17_option_b_collects_on_every_moved_rat():
    """FR-17, rulebook "Step 2": with option B each moved rat's space yields, all of it."""
    s = make(2)
    clear_board(s, {0: [5, 9, 20]})
    restart(s)
    b = Both(s)
    before = b.obs()
    b.do("B: rat 0 space 5 -> space 7")   # yellow, 1 Cheese (Harry Hamster's booth)
    b.do("B: rat 1 space 9 -> space 12")  # yellow, 2 Cheese
    b.do("end option B")
    after = b.obs()
    assert after["cheese"][0] == before["cheese"][0] + 1 + 2
    assert after["mats"][0] == before["mats"][0]  # rat 2 on space 20 (vinegar) stayed


def _greg_turn_now(s):
    s.seat = 1
    s.step = "end"
    s.greg_step = "draw"
    s._greg_run()


def test_fr18_greg_booth_discard_for_a_rat_that_did_not_move():
    """FR-18, rulebook "Solo Play", Sequence of Play: "If one of Greg's Rats ends its *turn*
    in a booth space ... return 1 at random to the box": card A1 gives Greg's 4th rat 0 steps,
    and it stands on Harry Hamster's booth (space 7): a discard, though it did not move."""
    s = make(1)
    s.greg_rats = [10, 9, 8, 7]  # ranks: 10, 9, 8 move 3, 2, 1; the rat on 7 moves 0
    _greg_turn_now(s)
    b = Both(s)
    b.do("Greg reveals A1: moves [3, 2, 1, 0], Greg prepares the Cockpit track")
    obs = b.obs()
    assert obs["greg_rats"] == [13, 11, 9, 7]
    assert obs["phase"] == "greg_booth" and obs["greg_booths"] == [7]
    shown = len(obs["disp_backpacks"])
    for state in b.states():
        action = state.chance_outcomes()[0][0]
        state.apply_action(action)
    b.check()
    assert len(b.obs()["disp_backpacks"]) == shown - 1 and b.obs()["greg_booths"] == []


def test_fr18_greg_booth_discard_for_a_rat_that_moved_there():
    """FR-18: a Greg rat that moves onto a booth and ends his turn there discards too."""
    s = make(1)
    s.greg_rats = [4, 2, 1, 0]
    _greg_turn_now(s)
    b = Both(s)
    b.do("Greg reveals A1: moves [3, 2, 1, 0], Greg prepares the Cockpit track")
    assert b.obs()["greg_rats"][0] == 7 and b.obs()["greg_booths"] == [7]


def test_fr19_a_super_rat_cannot_become_a_second_super_rat():
    """FR-19 (the box has 4 separate Super Rat figures), rulebook "Rat Burrow Details"
    (Library) and FR-15: rat 1 on Start is already Turbo (SR2), so Strongpaws (SR3) can only
    go to rat 0: no decision is offered, rat 0 becomes it."""
    s = make(2)
    clear_board(s, {0: [12, 0]})
    s.comics[0] = ["SR2"]
    s.super_rats[0] = {"SR2": 1}
    s.library = ["SR3"]
    s.burrow[0] = "R6"  # 2 apple cores: R6 -> R8 (Library) -> R1
    restart(s)
    b = Both(s)
    b.do("A: rat 0 space 12 -> space 14")
    assert b.obs()["phase"] == "library"
    b.do("Library: take SR3 Super Rat: Strongpaws")
    assert b.obs()["phase"] != "super"
    assert b.obs()["super_rats"][0] == {"SR2": 1, "SR3": 0}


def test_fr19_choice_offers_only_rats_that_are_not_super_rats():
    """FR-19 with a real choice: rats 0 (space 14), 1 (Start, Ghost SR4) and 2 (space 3);
    the Super Rat of SR2 is rat 0 or rat 2, never the Ghost."""
    s = make(2)
    clear_board(s, {0: [12, 0, 3]})
    s.comics[0] = ["SR4"]
    s.super_rats[0] = {"SR4": 1}
    s.library = ["SR2"]
    s.burrow[0] = "R6"
    restart(s)
    b = Both(s)
    b.do("A: rat 0 space 12 -> space 14")
    b.do("Library: take SR2 Super Rat: Turbo")
    assert b.obs()["phase"] == "super"
    assert b.labels() == ["Super Rat SR2 Turbo: rat 0 on space 14",
                          "Super Rat SR2 Turbo: rat 2 on space 3"]
    b.do("Super Rat SR2 Turbo: rat 2 on space 3")
    assert b.obs()["super_rats"][0] == {"SR4": 1, "SR2": 2}


def test_fr19_every_rat_on_the_path_is_super_so_the_next_raised_becomes_it():
    """FR-19 then FR-15: the only rat on the path is already a Super Rat, so the new comic's
    Super Rat is the next rat raised; with two comics waiting, each raised rat takes one."""
    s = make(2)
    clear_board(s, {0: [12]})
    s.comics[0] = ["SR2"]
    s.super_rats[0] = {"SR2": 0}
    s.library = ["SR3"]
    s.burrow[0] = "R6"
    restart(s)
    b = Both(s)
    b.do("A: rat 0 space 12 -> space 14")
    b.do("Library: take SR3 Super Rat: Strongpaws")
    assert b.obs()["super_rats"][0] == {"SR2": 0, "SR3": -1}
    # Two comics wait; a rat reaching the Launchpad must raise (no Award: no rat left on the
    # path, FR-9), and the raised rat becomes only the first waiting Super Rat.
    s = make(2)
    clear_board(s, {0: [25]})
    s.comics[0] = ["SR3", "SR4"]
    s.super_rats[0] = {"SR3": -1, "SR4": -1}
    s.library = []
    restart(s)
    b = Both(s)
    b.do("A: rat 0 space 25 -> Launchpad")
    obs = b.obs()
    assert obs["rats"][0][:2] == [27, 0] and obs["rats"][0][2:] == [NURSERY, NURSERY]
    assert obs["super_rats"][0] == {"SR3": 1, "SR4": -1}


def test_fr19_an_observation_with_two_super_rats_on_one_rat_is_rejected():
    """FR-19: ``state_from_observation`` refuses a rat that is two Super Rats, naming it."""
    s = make(2)
    s.comics[0] = ["SR2", "SR3"]
    s.super_rats[0] = {"SR2": 0, "SR3": 0}
    s.library = []
    obs = s.observation(0)
    with pytest.raises(ValueError, match=r"super_rats\[0\].*FR-19"):
        s.get_game().state_from_observation(0, obs)
