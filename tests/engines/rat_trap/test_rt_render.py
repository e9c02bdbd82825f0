"""Rat Trap terminal renderer: golden text of a seeded position (both backends render alike)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ratai.engines import load_game
from tests.conftest import sample_action

GOLDEN = Path(__file__).with_name("render_rat_trap.txt")


def position(backend: str):
    game = load_game("rat_trap", backend=backend, num_players=2)
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(60):
        state.apply_action(sample_action(state, rng))
    return state


def test_render_matches_golden_text():
    """Regenerate after an intended change: write position("python").render(0) + "\\n" to the
    golden file and review the diff."""
    assert position("python").render(0) + "\n" == GOLDEN.read_text()


@pytest.mark.parametrize("seat", [0, 1])
def test_render_fits_100_columns_and_reads_only_the_observation(seat):
    state = position("python")
    text = state.render(seat)
    assert all(len(line) <= 100 for line in text.splitlines())
    twin = state.resample_from_infostate(seat, 3)
    assert twin.render(seat) == text
