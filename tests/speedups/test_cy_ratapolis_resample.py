"""The compiled Ratapolis determinization (``rp_determinize`` in ``_speedups/ratapolis.pyx``,
the search's ``c_resample`` / ``c_resample_into``) against the reference
``engines/ratapolis/rules.py::_rebuild`` (``resample_from_infostate``).

Along random games of several variants and every seat: the C sample keeps the seat's
information state and plays to the end; it reads nothing the seat cannot see (two states
with equal information states give identical samples for one seed); and on positions with
every kind of hidden information (other seats' hunt cards of every round, revealed hunted /
Radio-discarded cards that must have been in a hand, Archive looks, fully and half
committed plans of other seats, both deck epochs) its frequencies of each hidden card and
plan match the reference sampler's (10,000 samples each, chi-square).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ratai.engines import load_game
from ratai.engines.ratapolis.rules import SMALL_CITY
from tests.conftest import sample_action

twin = pytest.importorskip("ratai._speedups.ratapolis")

ALL_PROPS = "A,B,C,F,G,H,I,L,S,T"
FIXED_EVENTS = "no_attack,normal,not_played,no_attack,not_played,normal,no_attack,normal"
PARAMS = [{"num_players": 3, "property_tokens": ALL_PROPS}, {"num_players": 2},
          {"num_players": 4, "property_tokens": "B,G,H,L,T"}, {"num_players": 5},
          {"num_players": 3, "round_events": "random", "property_tokens": ALL_PROPS},
          {"num_players": 4, "round_events": FIXED_EVENTS, "colors": "green,red,orange,blue"},
          {"num_players": 3, "layout": SMALL_CITY, "round_events": "random"}]


def states_along(game, seed: int, every: int):
    """Every ``every``-th state of a seeded random game, and the last one."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    k = 0
    while not s.is_terminal():
        if k % every == 0:
            yield s.clone()
        s.apply_action(sample_action(s, rng))
        k += 1
    yield s.clone()


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: f"{p['num_players']}p"
                         + ("-events" if "round_events" in p else "")
                         + ("-city" if "layout" in p else ""))
def test_c_sample_keeps_the_information_state_and_reads_only_it(params):
    """The C sample has the seat's information state, is a valid twin state (it converts to
    the reference and back, and random play finishes it), and a second state with the same
    information state (a reference sample of the first) gives the identical C sample for
    the same seed: the sampler reads no hidden field."""
    game = load_game("ratapolis", backend="cython", **params)
    n = game.num_players()
    for seed in range(3):
        for j, s in enumerate(states_along(game, seed, 5)):
            p = j % n
            info = s.information_state_string(p)
            c = s.resample_c(p, 1000 * seed + j)
            assert c.information_state_string(p) == info, (seed, j, p)
            assert game.from_reference(c.to_reference()).serialize() == c.serialize()
            other = s.resample_from_infostate(p, j)
            assert other.information_state_string(p) == info
            again = other.resample_c(p, 1000 * seed + j)
            assert again.serialize() == c.serialize(), (seed, j, p)
            rng = np.random.default_rng(j)
            while not c.is_terminal():
                c.apply_action(sample_action(c, rng))


def _find(game, pred, seeds=range(200)):
    """The first state of seeded random games where ``pred(state)`` gives a seat, with it."""
    for seed in seeds:
        for s in states_along(game, seed, 1):
            p = pred(s)
            if p is not None:
                return s, p
    raise AssertionError("no such position")


def _planning_after_others(s):
    # the last seat to plan, every other seat committed, hands hidden in several rounds
    n = s.get_game().num_players()
    if s.phase == "plan" and s.round >= 3 and s.current_player() == n - 1 \
            and s.observation(0)["committed"][n - 2] == 2:
        return n - 1
    return None


def _half_committed(s):
    # a rival has committed only its left cell (seat 0 sees it)
    if s.phase == "plan" and s.round >= 2 and s.current_player() > 0 \
            and s.observation(0)["committed"][s.current_player()] == 1:
        return 0
    return None


def _radio_and_archive_late(s):
    # second deck epoch, the seat looked with the Archive, a Radio redraw revealed a card
    obs = [s.observation(p) for p in range(s.get_game().num_players())]
    if s.round < 6 or s.phase != "plan":
        return None
    for p, o in enumerate(obs):
        looked = any("card" in lk for lk in o["archive_looks"])
        radio = any(r["radio_discarded"] for r in o["rounds"])
        if looked and radio:
            return p
    return None


def _kind(ref, q, a):
    """A plan cell's kind; a move onto a tile without ``q``'s rats changes the right cell's
    options, so it separates the pair-uniform and cell-uniform laws most sharply."""
    g = ref.get_game()
    if a == 0:
        return "idle"
    if a < g.MOVE:
        return "attack"
    return "move-new" if ref.board[(a - g.MOVE) % g.nb][q] == 0 else "move"


def _hidden_features(state, p):
    """Everything seat ``p`` cannot see in a sample, as named features."""
    ref = state.to_reference()
    obs = ref.observation(p)
    feats = {}
    for i, hand in enumerate(ref.hands):
        for q, c in enumerate(hand):
            if q != p and c >= 0:
                feats[f"hand r{i + 1} s{q}"] = c
    for q, cells in enumerate(ref.plans):
        if q != p and cells:
            for k, a in enumerate(cells):
                feats[f"plan s{q} cell {k}"] = a
                feats[f"plan s{q} cell {k} kind"] = _kind(ref, q, a)
    for c in obs["board"]:  # the stack, card by card
        x = ref.get_game().letters.index(c)
        feats[f"stack has {c}"] = x in ref.stack
    return feats


def _few_rats_half_committed(game):
    """Seat 1 has rats on two tiles only and has committed its left cell; seat 0 observes.
    Its left moves onto new tiles widen its right cell by about a half, so the pair-uniform
    law of the left cell differs clearly from the cell-uniform one (RP-2)."""
    ref_game = load_game("ratapolis", backend="python", **game.params)
    s = ref_game.new_initial_state()
    rng = np.random.default_rng(3)
    while s.phase != "plan":
        s.apply_action(sample_action(s, rng))
    L = ref_game.letters
    s.board = [[1, 0, 1] if L[x] not in "AO" else [1, 3, 1] for x in range(ref_game.nb)]
    s.supply = [20 - sum(r[q] for r in s.board) for q in range(3)]
    for a in (0, 0, 0):  # seat 0 idles twice, seat 1 idles in its left cell
        s.apply_action(a)
    return game.from_reference(s), 0


POSITIONS = [
    ("planning-after-others", {"num_players": 3, "property_tokens": ALL_PROPS},
     _planning_after_others),
    ("half-committed", {"num_players": 3, "property_tokens": ALL_PROPS}, _half_committed),
    ("radio-archive-late", {"num_players": 3, "property_tokens": "B,G,S"},
     _radio_and_archive_late),
    ("four-players", {"num_players": 4}, _planning_after_others),
    ("events-late", {"num_players": 3, "round_events": FIXED_EVENTS}, _planning_after_others),
    ("small-city", {"num_players": 3, "layout": SMALL_CITY, "property_tokens": "B,G,S"},
     _radio_and_archive_late),
    ("few-rats-half-committed", {"num_players": 3, "property_tokens": "none"},
     _few_rats_half_committed),
]


SAMPLES = [pytest.param(1_500, id="1500"),
           pytest.param(10_000, id="10000", marks=pytest.mark.slow)]


@pytest.mark.parametrize("n_samples", SAMPLES)
@pytest.mark.parametrize("name,params,pred", POSITIONS, ids=[x[0] for x in POSITIONS])
def test_c_sampler_frequencies_match_the_reference(name, params, pred, n_samples):
    """On fixed positions, ``n_samples`` from each sampler (10,000 with ``-m slow``; the
    reference needs ~1.5 ms a sample when three rivals' plans are drawn): for every hidden
    hunt card slot, each cell of every rival's committed plan and each card's place in the
    stack, the two samplers' frequency tables are indistinguishable (chi-square,
    Bonferroni-corrected at 0.001)."""
    game = load_game("ratapolis", backend="cython", **params)
    s, p = pred(game) if pred is _few_rats_half_committed else _find(game, pred)
    obs = s.observation(p)
    rng = np.random.default_rng(11)
    ref_samples = [_hidden_features(game.state_from_observation(p, obs, rng), p)
                   for _ in range(n_samples)]
    gen = np.random.default_rng(12)
    c_samples = [_hidden_features(s.resample_c(p, gen), p) for _ in range(n_samples)]
    keys = sorted(ref_samples[0])
    assert keys == sorted(c_samples[0])
    from scipy.stats import chi2_contingency  # here: 1-2 s to import, for a few tests only

    pvalues = {}
    for key in keys:
        counts = [Counter(x[key] for x in xs) for xs in (ref_samples, c_samples)]
        values = sorted(set(counts[0]) | set(counts[1]))
        if len(values) < 2:
            assert counts[0].keys() == counts[1].keys(), key
            continue
        table = [[cnt[v] for v in values] for cnt in counts]
        pvalues[key] = chi2_contingency(table)[1]
    assert pvalues, "the position has hidden information"
    worst = min(pvalues, key=pvalues.get)
    assert pvalues[worst] * len(pvalues) > 1e-3, (name, worst, pvalues[worst])


def test_compiled_right_cell_counts_match_the_reference():
    """The compiled sampler weighs a rival's left cell by its number of right cells,
    counted incrementally (``right_counts``: the new tile's targets and destinations, with
    the Shooting range, the Metro and the Bus station); along random games with every
    property and random hunted tiles, the counts equal ``len(cell_actions(seat, 1, left))``
    of the reference for every legal left cell of every seat."""
    ref_game = load_game("ratapolis", backend="python", num_players=3,
                         property_tokens=ALL_PROPS)
    cy_game = load_game("ratapolis", backend="cython", num_players=3,
                        property_tokens=ALL_PROPS)
    rng = np.random.default_rng(8)
    checked = 0
    for seed in range(6):
        for j, s in enumerate(states_along(ref_game, seed, 9)):
            if s.phase != "plan":
                continue
            s.tokens = {t: int(rng.integers(-1, 3)) for t in s.tokens}
            cy = cy_game.from_reference(s)
            for q in range(3):
                want = {a: len(s.cell_actions(q, 1, a)) for a in s.cell_actions(q, 0)}
                assert cy._right_counts(q) == want, (seed, j, q)
                checked += 1
    assert checked > 20
