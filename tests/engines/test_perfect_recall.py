"""Perfect recall (issue 13, item 1): ``information_state_string(p)`` is the seat's whole
action-observation history (OpenSpiel's meaning), ``observation_string(p)`` its current view.

Checked for every game with hidden information, on both backends: equal histories give equal
strings (replayed, cloned, serialized); histories the current observation conflates are told
apart (Rat Trap: a first roll that was re-rolled; every hidden game: the order of public
events); histories that differ only in what the seat cannot see stay equal; a
determinization keeps the seat's information state (its own log; the other seats' past
unknown); and the compiled chance key of Rat Trap (``c_info_hash_into``, no GIL) agrees with
the strings (equal information states give equal digests).
"""

from __future__ import annotations

import numpy as np
import pytest

from ratai.engines import _CYTHON_REGISTRY, game_class, load_game, registered_games
from ratai.engines.api import canonical_json
from ratai.engines.rat_trap.rules import KEEP_ROLL, PAIRS, REROLL, ROLE, ROLL
from tests.conftest import sample_action

HIDDEN = [g for g in registered_games() if not game_class(g, "python").perfect_information]
CASES = [(g, v, b) for g in HIDDEN for v in game_class(g, "python").variants
         for b in (["python", "cython"] if g in _CYTHON_REGISTRY else ["python"])]
IDS = ["-".join(c) for c in CASES]


def _play(game, seed: int, steps: int) -> list[int]:
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    actions = []
    for _ in range(steps):
        if s.is_terminal():
            break
        a = int(sample_action(s, rng))
        s.apply_action(a)
        actions.append(a)
    return actions


@pytest.mark.parametrize(("name", "variant", "backend"), CASES, ids=IDS)
def test_equal_histories_give_equal_information_states(name, variant, backend):
    params = game_class(name, "python").variants[variant]
    game = load_game(name, backend=backend, **params)
    n = game.num_players()
    for seed in range(3):
        actions = _play(game, seed, 120)
        a, b = game.new_initial_state(), game.new_initial_state()
        for k, act in enumerate(actions):
            a.apply_action(act)
            b._apply_action(act)  # the unchecked path keeps the logs too
            b._history.append(act)
            if k % 17 == 0 or k == len(actions) - 1:
                c = a.clone()
                d = game.deserialize_state(a.serialize())
                for p in range(n):
                    info = a.information_state_string(p)
                    assert b.information_state_string(p) == info
                    assert c.information_state_string(p) == info
                    assert d.information_state_string(p) == info
                    doc = {"observation": a.observation(p), "views": _views(a)[p]}
                    assert info == canonical_json(doc)
                    assert a.observation_string(p) == canonical_json(a.observation(p))
                    assert len(doc["views"]) == k + 1 + _auto_entries(doc["views"])


def _views(state) -> list:
    return state.__dict__["views"] if hasattr(state, "__dict__") else state._get_views()


def _auto_entries(log: list) -> int:
    """Entries for automatic steps (Rat Trap: a card drawn from an ordered pile, -2 or
    -10 - card), beyond one per action."""
    return sum(1 for x in log if x is not None and x <= -2)


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_a_rerolled_first_roll_is_remembered(backend):
    """Rat Trap: rolling key+key then re-rolling to cat+cat, or rolling steal+steal then
    re-rolling to cat+cat, leaves the same current view (the final dice, "rerolled"), but
    every seat saw the first roll: the information states differ, the observations do not."""
    game = load_game("rat_trap", backend=backend, num_players=3)
    states = []
    for first in ((0, 0), (2, 2)):
        s = game.new_initial_state()
        s.apply_action(ROLL + PAIRS.index(first))
        s.apply_action(REROLL)
        s.apply_action(ROLL + PAIRS.index((3, 3)))
        states.append(s)
    a, b = states
    for p in range(3):
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_string(p) != b.information_state_string(p)
    c = game.new_initial_state()
    c.apply_action(ROLL + PAIRS.index((0, 0)))
    c.apply_action(KEEP_ROLL)
    assert c.information_state_string(0) != a.information_state_string(0)


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_a_role_dealt_to_another_seat_stays_unseen(backend):
    """RT-9: two deals that differ only in seat 1's role are the same history for seat 0 and
    seat 2 (equal information states) and different ones for seat 1."""
    game = load_game("rat_trap", backend=backend, num_players=4, roles=True)
    states = []
    for role1 in (1, 2):  # seat 0 the Alchemist; seat 1 Al Ratone or the Hypnotist
        s = game.new_initial_state()
        for role in (4, role1, 3, 0):
            s.apply_action(ROLE + role)
        states.append(s)
    a, b = states
    assert a.information_state_string(1) != b.information_state_string(1)
    for p in (0, 2):
        assert a.information_state_string(p) == b.information_state_string(p)


@pytest.mark.usefixtures("bounded_beliefs")
@pytest.mark.parametrize(("name", "variant", "backend"), CASES, ids=IDS)
def test_a_determinization_keeps_the_information_state(name, variant, backend):
    """``resample_from_infostate`` (and the twin's compiled ``resample_c``) keeps the seat's
    information state, so a search keyed by it sees one tree; the other seats' logs in the
    sample start with ``None`` (their past is unknown to the seat). With Rat Trap's belief
    filter at its old caps (``bounded_beliefs``), so the closed form past the caps is checked
    too; every world of the filter itself shows the seat its information state
    (``test_belief.py``)."""
    params = game_class(name, "python").variants[variant]
    game = load_game(name, backend=backend, **params)
    n = game.num_players()
    for seed in range(2):
        s = game.new_initial_state()
        rng = np.random.default_rng(seed)
        for step in range(90):
            if s.is_terminal():
                break
            if step % 23 == 5:
                for p in range(n):
                    info = s.information_state_string(p)
                    draws = [s.resample_from_infostate(p, 7)]
                    if hasattr(s, "resample_c"):
                        draws.append(s.resample_c(p, 7))
                    for t in draws:
                        assert t.information_state_string(p) == info
                        views = _views(t)
                        assert all(views[q][:1] == [None] for q in range(n) if q != p)
                        assert views[p] == _views(s)[p]
                        t2 = t.clone()
                        if not t2.is_terminal():  # the sample's logs go on from there
                            t2.apply_action(int(sample_action(t2, rng)))
                            assert all(len(_views(t2)[q]) > len(views[q]) for q in range(n))
                            assert _views(t) == views  # the clone did not share its writes
            s.apply_action(int(sample_action(s, rng)))


def test_state_from_observation_has_an_unknown_past():
    """A state rebuilt from an observation alone (a client's) knows no seat's past."""
    game = load_game("rat_trap", backend="python", num_players=3)
    s = game.new_initial_state()
    for a in _play(game, 4, 30):
        s.apply_action(a)
    t = game.state_from_observation(1, s.observation(1), 3)
    assert t.views == [[None]] * 3
    assert t.observation_string(1) == s.observation_string(1)
    assert t.information_state_string(1) != s.information_state_string(1)


@pytest.mark.parametrize("variant", list(game_class("rat_trap", "python").variants))
def test_compiled_chance_key_follows_the_information_state(variant):
    """Rat Trap's compiled, GIL-free digest (``c_info_hash_into``, the IS-MCTS chance key)
    equals ``c_info_hash`` and is equal for equal information states (the children of a
    chance node, the state and its determinizations)."""
    from ratai._speedups import search

    params = game_class("rat_trap", "python").variants[variant]
    game = load_game("rat_trap", backend="cython", **params)
    rng = np.random.default_rng(3)
    s = game.new_initial_state()
    seen: dict[str, int] = {}
    for _ in range(150):
        if s.is_terminal():
            break
        p = 0
        key = search.info_hash_nogil(s, p)
        assert key == search.info_hash(s, p)
        info = s.information_state_string(p)
        assert seen.setdefault(info, key) == key
        for t in (s.resample_c(p, 5), s.resample_from_infostate(p, 6)):
            assert search.info_hash_nogil(t, p) == key
        if s.is_chance_node():
            for a, _ in s.chance_outcomes():
                c = s.clone()
                c.apply_action(a)
                ci = c.information_state_string(p)
                assert seen.setdefault(ci, search.info_hash_nogil(c, p)) == \
                    search.info_hash_nogil(c, p)
        s.apply_action(int(sample_action(s, rng)))
