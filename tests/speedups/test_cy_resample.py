"""The compiled Rat Trap determinization (``rt_determinize`` in ``_speedups/rat_trap.pyx``,
the search's ``c_resample``) against the reference ``engines/rat_trap/view.py::_rebuild``.

For states along random games of every variant and every seat: the C sample keeps the
seat's information state, is a consistent playable state (Doorway cards conserved, Traps
only with the Fool, random play reaches the end), reads nothing the seat cannot see (two
roots with equal information states give identical samples for one seed), and on fixed
positions its distribution of hidden cards and roles matches the reference's.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ratai.engines import game_class, load_game
from ratai.engines.rat_trap import view as V
from ratai.engines.rat_trap.data import FOOL, TRAP
from tests.conftest import old_belief_caps, sample_action
from tests.engines.rat_trap.rt_helpers import do
from tests.engines.rat_trap.test_rt_invariants import card_total

rt = pytest.importorskip("ratai._speedups.rat_trap")
core = pytest.importorskip("ratai._speedups.core")

VARIANTS = list(game_class("rat_trap", "python").variants.items())
IDS = [v for v, _ in VARIANTS]


def states_along(game, seed: int, every: int):
    """Every ``every``-th state of a seeded random game (a twin state each)."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    k = 0
    while not s.is_terminal():
        if k % every == 0:
            yield s.clone()
        s.apply_action(sample_action(s, rng))
        k += 1
    yield s.clone()


def check_consistent(game, sample, p: int) -> None:
    """Card conservation and the Fool rule on the reference view of a C sample."""
    ref = sample.to_reference()
    assert card_total(ref) == list(game.deck), "Doorway cards conserved"
    for q, cards in enumerate(ref.stored):
        assert TRAP not in cards or ref._holds(q, FOOL), "a Trap is stored only by the Fool"
    assert min(ref.pool) >= 0 and min(ref.pile_g) >= 0 and min(ref.pile_r) >= 0
    assert sum(ref.pile_r[i] for i in range(len(ref.pile_r))
               if ref.pile_order[i] is None) == sum(ref.pool), "pool = lazy piles' cards"
    for k, r in enumerate(ref.roles):  # a public or own role is kept, others are dealt
        assert (r >= 0) == (k < sum(1 for x in ref.roles if x >= 0))


@pytest.mark.parametrize("name,params", VARIANTS, ids=IDS)
def test_c_sample_is_a_consistent_state_of_the_same_information(name, params):
    """Along random games, every seat: the C sample's ``information_state_string(seat)`` is
    the root's, its cards add up to the round's deck (card_total, as the invariant tests),
    Traps are stored only by the Fool, the C path never declines, and random play from the
    sample reaches the end (C playouts for all, a Python playout for some)."""
    game = load_game("rat_trap", backend="cython", **params)
    n = game.num_players()
    checked = 0
    for seed in range(3):
        for s in states_along(game, seed, every=23):
            for p in range(n):
                sample = rt.c_determinize(s, p, 1000 * seed + 7 * p + checked)
                assert sample is not None, "the C path declined a reachable state"
                assert sample.information_state_string(p) == s.information_state_string(p)
                check_consistent(game, sample, p)
                core.random_playout_actions(sample.clone(), seed + checked)
                if checked % 11 == 0:
                    rng = np.random.default_rng(checked)
                    play = sample.clone()
                    while not play.is_terminal():
                        play.apply_action(sample_action(play, rng))
                        assert card_total(play.to_reference()) == list(game.deck)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("name,params", VARIANTS, ids=IDS)
def test_c_sample_does_not_peek(name, params):
    """Two roots with equal ``information_state_string(seat)`` (the second built with
    ``resample_from_infostate``) give identical C samples for the same C seed."""
    game = load_game("rat_trap", backend="cython", **params)
    n = game.num_players()
    for seed in range(2):
        for k, s in enumerate(states_along(game, 100 + seed, every=31)):
            for p in range(n):
                other = s.resample_from_infostate(p, np.random.default_rng(99 + k))
                assert other.information_state_string(p) == s.information_state_string(p)
                for c_seed in (5, 2**63 + 11):
                    a = rt.c_determinize(s, p, c_seed)
                    b = rt.c_determinize(other, p, c_seed)
                    assert a.serialize() == b.serialize()


def test_resample_c_api(monkeypatch):
    """``resample_c`` seeds the C stream from an int or a Generator, checks the seat, and the
    reference ``resample_from_infostate`` is unchanged (the twin's equals the reference's);
    where the exact filter is beyond its caps it is the C closed form (``c_determinize``)."""
    game = load_game("rat_trap", backend="cython", num_players=4, roles=True)
    along = list(states_along(game, 3, every=40))
    s = along[1]
    a, b = s.resample_c(1, 17), s.resample_c(1, 17)
    assert a.serialize() == b.serialize() and a is not b
    # a position past 1,000 states / 3,000 applied actions, within the caps; with the caps
    # lowered to those, the filter gives up
    beyond = along[6]
    exact = V.exact_belief(game.reference_game(), 1, beyond.observation(1),
                           beyond._own_log(1), game, beyond._obs_digest(1))
    assert exact is not None and len(exact.worlds) > 1
    old_belief_caps(monkeypatch)
    V._BELIEFS._entries.clear()
    beyond = along[6].clone()   # no sampler table prepared yet
    assert V.exact_belief(game.reference_game(), 1, beyond.observation(1),
                          beyond._own_log(1), game, beyond._obs_digest(1)) is None
    assert beyond.resample_c(1, 17).serialize() == rt.c_determinize(beyond, 1, 17).serialize()
    V._BELIEFS._entries.clear()
    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    assert s.resample_c(2, g1).serialize() == s.resample_c(2, g2).serialize()
    assert s.fast_c_resample is True
    with pytest.raises(ValueError, match="player"):
        s.resample_c(4, 0)
    ref = s.to_reference()
    assert s.resample_from_infostate(2, 9).serialize() == \
        ref.resample_from_infostate(2, 9).serialize()


# ---------------------------------------------------------------------------- distribution
def features(state, p: int) -> dict:
    """The hidden parts of a sample as categorical features (seat ``p``'s view)."""
    r = state.to_reference() if hasattr(state, "to_reference") else state
    n = r._game.num_players()
    out = {"roles": tuple(r.roles), "pool": tuple(r.pool), "fool_piles": tuple(r.fool_piles),
           "manip_hand": tuple(r.manip_hand)}
    for q in range(n):
        if q != p:
            out[f"stored{q}"] = tuple(r.stored[q])
            out[f"lost{q}"] = tuple(r.lost[q])
            out[f"fool{q}"] = r.roles[q] == FOOL
    for i, order in enumerate(r.pile_order):
        out[f"pile{i}"] = None if order is None else tuple(order)
    return out


def homogeneity_pvalue(a: Counter, b: Counter) -> float:
    """Chi-square two-sample homogeneity test of two category counts; categories with an
    expected count below 5 are pooled into one (the usual validity rule)."""
    cats = sorted(set(a) | set(b), key=repr)
    na, nb = sum(a.values()), sum(b.values())
    big = [c for c in cats if (a[c] + b[c]) * min(na, nb) / (na + nb) >= 5]
    rest = [c for c in cats if c not in big]
    rows = [[a[c] for c in big], [b[c] for c in big]]
    if rest:
        rows[0].append(sum(a[c] for c in rest))
        rows[1].append(sum(b[c] for c in rest))
    if len(rows[0]) < 2:
        return 1.0
    from scipy.stats import chi2_contingency  # here: 1-2 s to import, for a few tests only

    return float(chi2_contingency(np.array(rows))[1])


def positions():
    """Fixed positions with much hidden: (label, twin state, seat)."""
    out = []
    # a Fool holding an unrevealed Trap, an ordered pile, roles unknown (test_rt_hidden_info)
    ref_game = load_game("rat_trap", backend="python", num_players=3, roles=True)
    s = ref_game.new_initial_state()
    do(s, "deal manipulator", "deal fool", "deal alchemist", "look at pile 0",
       "look at pile 1", "pile holds 1xtrap,4xcheese1", "put trap next",
       *["put cheese1 next"] * 4, "pile holds 1xtrap,1xcheese1,3xcheese2",
       "put cheese2 next", "put trap next", "put cheese1 next", *["put cheese2 next"] * 2,
       "roll key1+heal", "keep the dice", "pass", "pass", "choose seat 1 as accomplice",
       "keep die key1", "draw from pile 0")
    cy3 = load_game("rat_trap", backend="cython", num_players=3, roles=True)
    twin = cy3.from_reference(s)
    out += [("fool-drew-trap-seat2", twin, 2), ("fool-drew-trap-seat1", twin, 1)]
    # seeded random positions late in round 1, picked for much hidden: other seats' unseen
    # cards, piles ordered by another seat, and (roles) an unrevealed Fool storing a Trap
    for variant, seed, plies, seat in (("2p-third-rat", 16, 82, 1), ("4p", 21, 147, 0),
                                       ("3p-roles", 23, 109, 1),
                                       ("5p-big-gang-roles", 25, 122, 4),
                                       ("4p-roles-extra-round", 34, 138, 2)):
        game = load_game("rat_trap", backend="cython",
                         **game_class("rat_trap", "python").variants[variant])
        rng = np.random.default_rng(seed)
        st = game.new_initial_state()
        for _ in range(plies):
            st.apply_action(sample_action(st, rng))
        out.append((variant, st, seat))
    return out


POSITIONS = positions()


@pytest.mark.parametrize("label,state,seat", POSITIONS, ids=[x[0] for x in POSITIONS])
def test_c_distribution_matches_the_reference(label, state, seat):
    """2,000 C samples against 2,000 reference ``_rebuild`` samples of one position: for each
    hidden feature (each other seat's stored and lost cards, the pool, each ordered pile,
    the roles, where the Fool is, its ``fool_piles``), a chi-square homogeneity test.

    Bound: with about 15 features a position and 7 positions, p > 1e-4 per test keeps the
    family-wise false-alarm rate below 1% (Bonferroni) for correct samplers; with 2,000
    samples a side the test detects a shift of about 0.06 in a probability near 0.5 (e.g.
    the Fool's seat when the role weighting ``comb(allowed, traps_left)`` is dropped). The
    largest frequency difference is also bounded by 0.08 (5 standard deviations of the
    difference of two proportions, sqrt(2 * 0.25 / 2000) = 0.016)."""
    N = 2000
    ref_counts: dict[str, Counter] = {}
    c_counts: dict[str, Counter] = {}
    obs = state.observation(seat)
    game = state.get_game()
    ref_game = game.reference_game()
    rng = np.random.default_rng(12345)
    from ratai.engines.rat_trap.view import _rebuild
    for _ in range(N):
        for key, value in features(_rebuild(ref_game, seat, obs, rng), seat).items():
            ref_counts.setdefault(key, Counter())[value] += 1
    for i in range(N):
        sample = rt.c_determinize(state, seat, 777 + i * 7919)
        assert sample is not None
        for key, value in features(sample, seat).items():
            c_counts.setdefault(key, Counter())[value] += 1
    assert set(ref_counts) == set(c_counts)
    varied = 0
    for key in ref_counts:
        a, b = ref_counts[key], c_counts[key]
        cats = set(a) | set(b)
        varied += len(cats) > 1
        worst = max(abs(a[c] - b[c]) / N for c in cats)
        assert worst < 0.08, (label, key, worst, a.most_common(4), b.most_common(4))
        pv = homogeneity_pvalue(a, b)
        assert pv > 1e-4, (label, key, pv, a.most_common(6), b.most_common(6))
    assert varied >= 2, "the position hides too little to test the distribution"


def test_fool_weighting_is_exercised():
    """In the Fool position, seat 2 cannot tell whether seat 1 (who drew an unrevealed card
    from a pile the Manipulator ordered) is the Fool: both occur in the C samples, and seat 1
    holds a Trap exactly when it is the Fool."""
    _, state, seat = POSITIONS[0]
    seen = Counter()
    for i in range(300):
        r = rt.c_determinize(state, seat, i).to_reference()
        fool = r.roles[1] == FOOL
        seen[fool] += 1
        if not fool:
            assert TRAP not in r.stored[1]
    assert seen[True] > 20 and seen[False] > 20


def test_ismcts_draws_its_determinizations_in_c():
    """The compiled IS-MCTS uses ``c_resample`` (``fast_c_resample``): the Python-level
    sampler (``_sample_infostate``) runs once (the labelling determinization), not per
    iteration;
    a seeded search is reproducible."""
    from ratai.bots import make_bot
    from ratai.search import numbers

    game = load_game("rat_trap", backend="cython", num_players=4, roles=True)
    s = list(states_along(game, 8, every=30))[2]
    while not s.is_player_node():
        s.apply_action(s.chance_outcomes()[0][0])
    calls = []
    original = game._sample_infostate  # the sampler behind resample_from_infostate
    game._sample_infostate = lambda *a: calls.append(1) or original(*a)
    try:
        p = s.current_player()
        runs = [make_bot("ismcts", game, p, iterations=300, seed=5,
                         search_backend="cython").analyze(s.clone()) for _ in range(2)]
    finally:
        del game._sample_infostate
    assert len(calls) == 2  # one labelling determinization per search
    assert runs[0].iterations == 300 and numbers(runs[0]) == numbers(runs[1])
