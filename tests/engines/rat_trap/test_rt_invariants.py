"""Rat Trap invariants over many seeded random games (CI: 200 per variant; slow: 2,000)."""

from __future__ import annotations

import pytest

from ratai.engines import game_class, load_game
from ratai.engines.rat_trap.data import CLOVER, TRAP
from tests.conftest import random_playout

VARIANTS = list(game_class("rat_trap").variants.items())


def card_total(s) -> list[int]:
    """Every Doorway card of the round, wherever it is now."""
    total = [0, 0, 0, 0]
    places = [c for st in s.stored for c in st] + [c for lo in s.lost for c in lo]
    places += [c for order in s.pile_order if order for c in order]
    for c in places:
        total[c] += 1
    for t in range(4):
        total[t] += s.pool[t] + s.manip_hand[t]
    total[TRAP] += sum(s.pile_g) + sum(s.trap_out)
    total[CLOVER] += s.used_clovers
    return total


def check_game(game, seed):
    last_points = [0] * game.participants
    limit = game.data.scratches_to_eliminate

    def check(s):
        nonlocal last_points
        assert card_total(s) == list(game.deck), "Doorway cards conserved"
        assert all(0 <= x <= limit for x in s.scratches)
        assert all(a >= b for a, b in zip(s.points, last_points, strict=True))
        last_points = list(s.points)
        assert all(s.eliminated[k] == (s.scratches[k] >= limit) for k in range(len(s.points)))
        assert all(TRAP not in st or s._holds(k, 3) for k, st in enumerate(s.stored))

    final = random_playout(game, seed, on_state=check)
    assert len(final.history()) <= game.max_game_length()
    assert final.round <= game.data.max_rounds + 1
    seats_winning = [w for w in final.winners if w < game.num_players()]
    assert sum(final.returns()) == pytest.approx(len(seats_winning) / len(final.winners))


@pytest.mark.parametrize("name,params", VARIANTS, ids=[v for v, _ in VARIANTS])
def test_invariants_200_games(name, params):
    game = load_game("rat_trap", backend="python", **params)
    for seed in range(200):
        check_game(game, seed)


@pytest.mark.slow
@pytest.mark.parametrize("name,params", VARIANTS, ids=[v for v, _ in VARIANTS])
def test_invariants_2000_games(name, params):
    game = load_game("rat_trap", backend="python", **params)
    for seed in range(2000):
        check_game(game, 10_000 + seed)
