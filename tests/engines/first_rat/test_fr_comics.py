"""First Rat Comics (Reference sheet stand-ins, data "comics"; Super Rats FR-15)."""

from __future__ import annotations

from fr_helpers import clear_board, do, labels, make, mover_labels, restart


def test_cm1_pipe_dream_uses_shortcuts_free():
    s = make(2)
    s.comics[0] = ["CM1"]
    restart(s)
    do(s, "A: rat 0 Start -> space 6 via SC1")
    assert s.mats[0]["vinegar"] == 0 and s.supply["vinegar"] == 30 and s.rats[0][0] == 6


def test_cm2_sneaky_paws_never_pays():
    s = make(2)
    clear_board(s, {0: [1], 1: [3]})
    s.comics[0] = ["CM2"]
    s.cheese = [0, 0]
    restart(s)
    do(s, "A: rat 0 space 1 -> space 3")
    assert s.cheese == [0, 0] and s.moldy == [0, 0]


def test_cm3_long_jump_option_a_to_6():
    s = make(2)
    s.comics[0] = ["CM3"]
    clear_board(s, {0: [0]})
    restart(s)
    assert mover_labels(s, "A:") == {f"A: rat 0 Start -> space {k}" for k in range(1, 7)}


def test_cm4_rat_pack_option_b_to_4():
    """Rat Pack: option B 1-4 spaces per rat (green 6 and 10 from 2 and 6? 4 steps each)."""
    s = make(2)
    clear_board(s, {0: [2, 6]})
    restart(s)
    assert "B: rat 1 space 6 -> space 10" not in labels(s)
    s.comics[0] = ["CM4"]
    restart(s)
    do(s, "B: rat 1 space 6 -> space 10")
    do(s, "B: rat 0 space 2 -> space 6")
    assert s.rats[0][:2] == [6, 10]


def test_sr1_chameleon_ignores_the_colour_condition():
    """SR1: the Super Rat ignores option B's same-colour condition; the others share one."""
    s = make(2)
    clear_board(s, {0: [0, 0]})
    restart(s)
    assert not mover_labels(s, "B:")
    s.comics[0] = ["SR1"]
    s.super_rats[0] = {"SR1": 1}
    restart(s)
    assert "B: rat 1 Start -> space 3" in labels(s)
    do(s, "B: rat 1 Start -> space 3")
    assert set(labels(s)) == {"B: rat 0 Start -> space 1", "B: rat 0 Start -> space 2"}


def test_sr4_ghost_shares_spaces_and_never_pays():
    """SR4: the Super Rat may share a space with your own rats and never pays cheese."""
    s = make(2)
    clear_board(s, {0: [1, 3], 1: [3]})
    s.comics[0] = ["SR4"]
    s.super_rats[0] = {"SR4": 0}
    s.cheese = [0, 0]
    restart(s)
    do(s, "A: rat 0 space 1 -> space 3")
    assert s.rats[0][:2] == [3, 3] and s.cheese == [0, 0] and s.moldy[0] == 0


def test_sr1_chameleon_on_the_launchpad_picks_no_colour():
    """SR1 + FR-3: a Chameleon ending on the Launchpad sets no colour; the next rat does."""
    s = make(2)
    clear_board(s, {0: [25, 0, 4]})
    s.comics[0] = ["SR1"]
    s.super_rats[0] = {"SR1": 0}
    restart(s)
    do(s, "B: rat 0 space 25 -> Launchpad")
    assert s.b_colour is None
    do(s, "B: rat 1 Start -> space 1")
    assert s.b_colour == "yellow"
    assert "B: rat 2 space 4 -> space 7" in labels(s)
    assert "B: rat 2 space 4 -> space 6" not in labels(s)
