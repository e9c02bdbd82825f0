"""Ratapolis terminal rendering (issue 9, ``ratai play``: "the city grid with rat counts,
hunt board"): a golden text for a fixed seeded position, the 100-column limit, and that the
text shows only what the seat may know (rulebook Phase 1 "Important", RP-2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ratai.engines import load_game
from ratai.engines.ratapolis.view import WIDTH
from tests.conftest import sample_action

GOLDEN = Path(__file__).with_name("render_ratapolis.txt")


def _seeded_state(n: int = 3, seed: int = 1, plies: int = 60):
    game = load_game("ratapolis", backend="python", num_players=n)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(sample_action(state, rng))
    return state


def test_render_matches_the_golden_text():
    """A 3-player game, seed 1, after 60 plies (round 5 planning: red has planned, looked
    at yellow's card with the Archive), seen by red (regenerate the .txt by writing
    ``_seeded_state().render(0) + "\\n"`` and review the diff)."""
    assert _seeded_state().render(0) + "\n" == GOLDEN.read_text()


def test_render_hides_other_seats_secrets():
    """Rulebook Phase 1 "Important" / RP-2: blue's view shows its own hunt card, not red's,
    nor red's plan or red's Archive look result."""
    state = _seeded_state()
    red, blue = state.render(0), state.render(1)
    assert "your plan: move P>F / move G>I" in red and "move P>F" not in blue
    assert "Archive: red looked at yellow's card: L" in red
    assert "Archive: red looked at yellow's card\n" in blue + "\n"
    assert "your secret card: N" in red and "your secret card: N" not in blue


@pytest.mark.parametrize("n", [2, 5])
def test_render_fits_100_columns_and_reads_only_the_observation(n):
    """Every line fits a 100-column terminal; states the seat cannot tell apart (a
    determinization from its observation) render the same."""
    game = load_game("ratapolis", backend="python", num_players=n)
    state = game.new_initial_state()
    rng = np.random.default_rng(n)
    while not state.is_terminal():
        if len(state.history()) % 9 == 0:
            text = state.render(0)
            assert max(len(line) for line in text.splitlines()) <= WIDTH
            assert state.resample_from_infostate(0, 1).render(0) == text
        state.apply_action(sample_action(state, rng))
    assert "game over" in state.render(0)
