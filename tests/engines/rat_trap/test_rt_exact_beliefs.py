"""Rat Trap beliefs (issue 13, item 1 "Exact beliefs"): the cases the audit found wrong, on the
reference sampler (``resample_from_infostate``) and the compiled one (``resample_c``, the
search's ``c_resample``). The generic check over random positions of every variant is
``tests/engines/test_exact_posterior.py``; here the numbers are derived by hand."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ratai.engines import _CYTHON_REGISTRY, load_game
from ratai.engines.rat_trap.data import FOOL, MANIPULATOR, TRAP
from tests.engines.posterior import exact_posterior, g_test

from .rt_helpers import cards, do, start_turn

SAMPLERS = ["python"] + (["cython", "compiled"] if "rat_trap" in _CYTHON_REGISTRY else [])


def samples(ref_state, seat: int, sampler: str, count: int):
    """``count`` determinizations of the reference position for ``seat`` (reference views)."""
    s = ref_state
    if sampler != "python":
        s = load_game("rat_trap", backend="cython", **ref_state.get_game().params
                      ).from_reference(ref_state)
    rng = np.random.default_rng(2024)
    draw = s.resample_c if sampler == "compiled" else s.resample_from_infostate
    for _ in range(count):
        x = draw(seat, rng)
        yield x.to_reference() if hasattr(x, "to_reference") else x


def p_next_trap(r, pile: int) -> float:
    """The chance that the next card of a lazily dealt pile is a Trap, in world ``r``."""
    g, k = r.pile_g[pile], r.pile_r[pile]
    return (g + k * r.pool[TRAP] / sum(r.pool)) / (g + k)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_a_revealed_trap_may_not_be_the_set_aside_one(sampler):
    """Rulebook "Round Setup": each pile is its set-aside Trap shuffled with four dealt cards.
    3 players: 4 Traps, one dealt (among 12 dealt cards). After the first card of pile 0 shows a
    Trap, it was the set-aside one with chance (1/5) / (1/5 + 4/5 * 1/12) = 3/4; the pile's next
    card is a Trap with 3/4 * 1/12 + 1/4 * 1/4 = 1/8 (the audit: 0.125, sampled 0.083)."""
    s = load_game("rat_trap", backend="python", num_players=3).new_initial_state()
    start_turn(s, "key1+heal", 1, "key1")
    do(s, "draw from pile 0", "draw trap (set-aside)", "take the scratch")
    worlds = list(samples(s, 2, sampler, 4000))
    set_aside_out = sum(r.pile_g[0] == 0 for r in worlds) / len(worlds)
    assert abs(set_aside_out - 0.75) < 0.03  # 4.4 standard deviations
    mean = sum(p_next_trap(r, 0) for r in worlds) / len(worlds)
    assert abs(mean - 0.125) < 0.005  # each world gives 1/12 or 1/4: sd of the mean 0.0011


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_a_manipulator_is_never_a_hidden_role(sampler):
    """RT-10: the Manipulator reveals at round start, so once roles are dealt and nobody
    revealed it, nobody holds it (the audit: dealt as a hidden role in ~45% of samples)."""
    s = load_game("rat_trap", backend="python", num_players=3, roles=True).new_initial_state()
    do(s, "deal fool", "deal alchemist", "deal hypnotist")
    assert not any(s.role_public)
    for r in samples(s, 0, sampler, 300):
        assert MANIPULATOR not in r.roles and r.roles[0] == FOOL


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_a_quiet_draw_may_be_the_fools_trap(sampler):
    """"Everyone Has a Role to Play": the Fool stores a drawn Trap unrevealed. Seat 0 (the
    Alchemist) sees seat 1 draw a card quietly; the exact belief that seat 1 now holds a Trap
    (it may be the Fool, and the card the pile's set-aside Trap or a dealt one) is computed by
    enumerating every history seat 0 cannot tell apart, and the samples match it (G-test)."""
    g = load_game("rat_trap", backend="python", num_players=3, roles=True)
    s = g.new_initial_state()
    do(s, "deal alchemist", "deal fool", "deal hypnotist", "roll key1+heal", "keep the dice",
       "pass", "pass", "choose seat 1 as accomplice", "keep die key1", "draw from pile 0",
       "draw trap (set-aside)")
    assert s.stored[1] == cards("trap") and s.observation(0)["stored_counts"][1] == 1
    exact = exact_posterior(g, s.history(), 0, lambda r: (TRAP in r.stored[1], r.pile_g[0]))
    holds = sum(w for (trap, _), w in exact.items() if trap)
    assert 0.05 < holds < 0.5  # neither certain nor impossible
    counts = Counter((TRAP in r.stored[1], r.pile_g[0]) for r in samples(s, 0, sampler, 10_000))
    assert g_test(exact, counts)[1] > 1e-4, (exact, counts)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_a_bystander_keeps_certain_knowledge_after_a_steal(sampler):
    """RT-4 and issue 13: seat 1 steals both of seat 0's 2-cheeses; seat 2 then steals one of
    seat 1's two cards. Seat 0 did not see which, but whichever went, seat 1 still holds a
    2-cheese: that stays in seat 0's observation (it used to be wiped), and every sample
    gives seat 1 a 2-cheese."""
    s = load_game("rat_trap", backend="python", num_players=3).new_initial_state()
    s.stored[0] = cards("cheese2", "cheese2")  # seat 0 drew them earlier (dealt cards)
    s.pool[2] -= 2
    s.pile_r[2] -= 2
    start_turn(s, "steal+heal", 1, "steal")  # seat 0 active: accomplice seat 1 steals
    do(s, "stolen card: cheese2")
    start_turn(s, "steal+heal", 2, "heal")  # seat 1 active plays the returned steal
    do(s, "stolen card: cheese2")
    assert s.observation(0)["known"][1] == cards("cheese2", "cheese2")
    start_turn(s, "steal+heal", 0, "heal")  # seat 2 active steals one of seat 1's two cards
    do(s, "stolen card: cheese2")
    assert s.observation(0)["known"][1] == cards("cheese2")
    for r in samples(s, 0, sampler, 200):
        assert 2 in r.stored[1]
