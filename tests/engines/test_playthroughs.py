"""Golden playthroughs: a seeded game reproduces its file byte for byte.

If a rule change alters a playthrough on purpose, regenerate with
``python scripts/make_playthrough.py GAME`` and review the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratai.playthrough import GOLDENS, golden_path, playthrough

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_playthrough_matches_golden_file(name):
    params, seed = GOLDENS[name]
    expected = (ROOT / golden_path(name)).read_text()
    assert playthrough(name, params, seed) == expected
