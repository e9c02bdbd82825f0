"""Fixtures: the toy games of ``ratai_toy_games`` (perfect information with chance, hidden
cards, simultaneous moves) used to test the search algorithms before and beside the real
engines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ratai_toy_games import ChanceNimGame, GoofspielGame, KuhnGame, LotteryGame  # noqa: E402


@pytest.fixture
def nim():
    """Two-player Chance Nim without the opening roll (forced wins: heap % 4 != 0)."""
    return ChanceNimGame(roll=False, heap=6)


@pytest.fixture
def lottery():
    return LotteryGame()


@pytest.fixture
def kuhn():
    return KuhnGame()


@pytest.fixture
def goofspiel():
    return GoofspielGame(cards=3, random_prizes=True)
