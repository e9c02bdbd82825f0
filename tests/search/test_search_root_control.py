"""Search core v2 (issue 13, items 4, 7, 8, 9) on the Python search: multi-PV, root control,
seeded root tie-breaks, node and memory caps, the budget clock and cancellation.

The compiled twins are tested in ``tests/speedups/test_cy_search.py``.
"""

from __future__ import annotations

import random
import threading
import time
import weakref

import pytest
from ratai_toy_games import ChanceNimGame, KuhnGame, NullGame

from ratai.bots import make_bot
from ratai.engines import load_game
from ratai.engines.api import CHANCE
from ratai.search import numbers
from ratai.search.common import (
    Budget,
    MoveStat,
    SearchRng,
    check_root_moves,
    free_later,
    node_cap,
    sort_moves,
)
from ratai.search.uct import UCT, Node, root_moves, tree_pv

KINDS = ("mcts", "ismcts")


def bot(kind, game, seed=1, **kw):
    return make_bot(kind, game, 0, seed=seed, search_backend="python", **kw)


@pytest.mark.parametrize("kind", KINDS)
def test_multi_pv_every_move_has_its_own_line(kind):
    """Item 7: every reported move carries a PV that starts with it and replays legally;
    its values are per seat, ``value == values[player]``; the best move's PV is the
    analysis PV; visits add up to the iterations."""
    game = ChanceNimGame(roll=False, heap=9)
    s = game.new_initial_state()
    an = bot(kind, game, iterations=600).analyze(s)
    assert sum(m.visits for m in an.moves) == 600
    assert an.pv == an.moves[0].pv
    for m in an.moves:
        assert m.pv and m.pv[0].action == m.action and m.pv[0].player == 0
        assert len(m.values) == 2 and m.value == m.values[0]
        c = s.clone()
        for step in m.pv:
            if step.player == CHANCE:
                assert step.action in dict(c.chance_outcomes())
            else:
                assert c.current_player() == step.player
                assert step.action in c.legal_actions()
                assert step.label == c.action_to_string(step.player, step.action)
            c.apply_action(step.action)
    assert any(len(m.pv) > 1 for m in an.moves)


def test_multi_pv_is_consistent_with_the_tree():
    """Each move's statistics are its root child's visits and visit means, and its PV is the
    most visited line below that child."""
    game = ChanceNimGame(roll=True, heap=7, gust=True)
    s = game.new_initial_state()
    s.apply_action(4)
    uct = UCT(game, 0)
    srng = SearchRng(3, s, 0)
    res = uct.run(s, Budget(iterations=500).check(), srng.py)
    legal = s.legal_actions()
    moves = root_moves([res.root], 0, legal, lambda a: s.action_to_string(0, a), 2,
                       srng.tiebreak(legal), lambda a, lim: tree_pv(res.root, s, a, 0, lim))
    for m in moves:
        ch = res.root.children[m.action]
        assert m.visits == ch.visits
        assert m.values == pytest.approx(tuple(v / ch.visits for v in ch.value))
        node = res.root
        for step in m.pv:
            child = node.children[step.action]
            if node is not res.root:
                # the most visited child at every step below the root
                assert child.visits == max(c.visits for c in node.children.values())
            node = child


def test_report_past_the_time_limit_cuts_the_other_pvs():
    """Issue 13, item 8: the report is bounded by the time limit's end (``Budget.end``):
    once it has passed, the best move keeps its whole PV and every other move's PV is its
    first step (its root label); before it (or without a time limit) every PV is full."""
    game = ChanceNimGame(roll=False, heap=9)
    s = game.new_initial_state()
    uct = UCT(game, 0)
    srng = SearchRng(3, s, 0)
    res = uct.run(s, Budget(iterations=800).check(), srng.py)
    legal = s.legal_actions()

    def report(until):
        return root_moves([res.root], 0, legal, lambda a: s.action_to_string(0, a), 2,
                          srng.tiebreak(legal), lambda a, lim: tree_pv(res.root, s, a, 0, lim),
                          until)

    full, cut = report(float("inf")), report(time.perf_counter() - 1.0)
    assert [m.action for m in cut] == [m.action for m in full]
    assert any(len(m.pv) > 1 for m in full[1:])
    assert cut[0].pv == full[0].pv and len(cut[0].pv) > 1
    for c, f in zip(cut[1:], full[1:], strict=True):
        assert c.pv == f.pv[:1] and c.pv[0].label == c.label
    assert report(time.perf_counter() + 60.0) == full
    b = Budget(time_limit=0.5).check()
    assert b.end == float("inf")          # not started
    b.begin()
    b.reserve(0.01)
    assert b.end == pytest.approx(b.start + 0.5) and b.deadline < b.end
    assert b.share_end(0.5) == pytest.approx(b.start + 0.25)   # BELIEF_SHARE's bound
    assert Budget(iterations=5).check().end == float("inf")
    assert Budget(iterations=5).check().share_end(0.5) == float("inf")


@pytest.mark.parametrize("kind", KINDS)
def test_root_moves_restricts_the_search(kind):
    """``root_moves`` (UCI searchmoves): only those moves are searched and reported."""
    game = ChanceNimGame(roll=False, heap=9)
    s = game.new_initial_state()
    b = bot(kind, game, iterations=300)
    an = b.analyze(s, root_moves=[2, 0])
    assert sorted(m.action for m in an.moves) == [0, 2]
    assert sum(m.visits for m in an.moves) == 300
    assert an.best_action in (0, 2)
    # heap 9: taking 1 (action 0) is the only winning move; restricted away, the bot still
    # answers within the allowed set
    assert bot(kind, game, iterations=300).analyze(s, root_moves=[1, 2]).best_action in (1, 2)


def test_root_moves_errors():
    game = ChanceNimGame(roll=False, heap=9)
    s = game.new_initial_state()
    b = bot("mcts", game, iterations=10)
    with pytest.raises(ValueError, match=r"action 7 is not legal.*\[0, 1, 2\]"):
        b.analyze(s, root_moves=[0, 7])
    with pytest.raises(ValueError, match="empty"):
        b.analyze(s, root_moves=[])
    # the refusal names every kind that takes root_moves (it once left out az and random)
    with pytest.raises(ValueError, match="not supported by bot kind 'pimc'; supported: "
                                         "'random', 'mcts', 'ismcts', 'az'$"):
        make_bot("pimc", game, 0, iterations=10).analyze(s, root_moves=[0])
    assert check_root_moves(None, [0, 1]) is None
    assert check_root_moves([2, 0], [0, 1, 2]) == [0, 2]


@pytest.mark.parametrize("kind", KINDS)
def test_tie_break_is_seeded_never_by_id(kind):
    """Item 9: every move of the null game loses (value 0) and, with a multiple of the move
    count as budget, every move has the same visits: the seeded random key picks the move.
    The same seed gives the same move; over seeds the moves spread, not the lowest id."""
    game = NullGame(moves=6)
    s = game.new_initial_state()
    best = []
    for seed in range(24):
        an = bot(kind, game, seed=seed, iterations=60).analyze(s)
        assert {m.visits for m in an.moves} == {10} and {m.value for m in an.moves} == {0.0}
        assert an.best_action == bot(kind, game, seed=seed, iterations=60).analyze(s).best_action
        best.append(an.best_action)
    assert len(set(best)) >= 4, best


def test_pimc_tie_break_is_seeded_never_by_id():
    """Item 9 for pimc: its worlds' root statistics tie on the null game; the seeded key
    picks the move (same seed, same move), and every reported move has its own PV."""
    game = NullGame(moves=6)
    s = game.new_initial_state()
    best = []
    for seed in range(24):
        an = make_bot("pimc", game, 0, seed=seed, iterations=60).analyze(s)
        assert an.best_action == make_bot("pimc", game, 0, seed=seed,
                                          iterations=60).analyze(s).best_action
        assert all(m.pv and m.pv[0].action == m.action for m in an.moves if m.visits)
        best.append(an.best_action)
    assert len(set(best)) >= 4, best


def test_sort_moves_order():
    ms = [MoveStat(a, str(a), v, val, pr) for a, v, val, pr in
          [(0, 5, 0.5, 0.1), (1, 5, 0.6, 0.1), (2, 5, 0.6, 0.3), (3, 9, 0.0, 0.0)]]
    assert [m.action for m in sort_moves(ms, {0: 0.5, 1: 0.5, 2: 0.5, 3: 0.5})] == [3, 2, 1, 0]
    ties = [MoveStat(a, str(a), 1, 0.0, 0.25) for a in range(4)]
    key = {0: 0.9, 1: 0.1, 2: 0.5, 3: 0.3}
    assert [m.action for m in sort_moves(ties, key)] == [1, 3, 2, 0]


@pytest.mark.parametrize("kind", KINDS)
def test_node_cap_is_respected(kind):
    """Item 4: at ``max_nodes`` the tree stops growing; the iteration budget is still exact
    and the bot still answers a legal move."""
    game = ChanceNimGame(roll=True, heap=12, gust=True)
    s = game.new_initial_state()
    s.apply_action(4)
    an = bot(kind, game, iterations=2000, max_nodes=40).analyze(s)
    assert an.nodes <= 40 and an.iterations == 2000
    assert an.best_action in s.legal_actions()
    free = bot(kind, game, iterations=2000, max_memory_mb=None).analyze(s)
    assert free.nodes > 40
    # a memory cap is a node cap through the measured node size
    assert node_cap(None, 1.0, 1024) == 1024 and node_cap(10, 1.0, 1024) == 10
    with pytest.raises(ValueError, match="max_nodes"):
        bot(kind, game, iterations=10, max_nodes=0)
    with pytest.raises(ValueError, match="max_memory_mb"):
        bot(kind, game, iterations=10, max_memory_mb=-1)


@pytest.mark.parametrize("kind", KINDS)
def test_node_cap_with_a_time_limit_still_answers_in_time(kind):
    game = ChanceNimGame(roll=False, heap=20)
    s = game.new_initial_state()
    t0 = time.perf_counter()
    an = bot(kind, game, time_limit=0.1, max_nodes=10).analyze(s)
    assert time.perf_counter() - t0 < 0.1 + 0.05
    assert an.nodes <= 10 and an.iterations > 10


@pytest.mark.parametrize("kind", KINDS)
def test_cancel_stops_the_search(kind):
    """Item 8: ``cancel`` (a ``threading.Event``) is checked inside the loop."""
    game = ChanceNimGame(roll=False, heap=40)
    s = game.new_initial_state()
    ev = threading.Event()
    threading.Timer(0.05, ev.set).start()
    t0 = time.perf_counter()
    an = bot(kind, game, time_limit=5.0).analyze(s, stop=ev)
    assert time.perf_counter() - t0 < 1.0
    assert an.iterations > 0 and an.best_action in s.legal_actions()


def test_clock_starts_at_entry():
    """Setup is paid from the budget: a search handed an already running clock keeps it."""
    b = Budget(time_limit=0.2).check()
    b.begin()
    start = b.start
    time.sleep(0.01)
    b.begin()
    assert b.start == start
    b.reserve(1.0)       # capped at a tenth of the limit
    assert b.deadline == pytest.approx(start + 0.18)


def test_threads_need_the_compiled_search():
    """Refused when the bot is made (it failed at every search before: a hosted bot seat
    then played random moves)."""
    game = ChanceNimGame(roll=False, heap=9)
    with pytest.raises(ValueError, match="needed by threads=2 but ruled out by "
                                         "search_backend='python' and a game without "
                                         "compiled states"):
        bot("mcts", game, iterations=10, threads=2)
    with pytest.raises(ValueError, match="bad threads"):
        bot("mcts", game, iterations=10, threads=0)


def test_ismcts_same_information_state_same_answer():
    """No peeking with the new root control and caps: Kuhn states that differ only in the
    opponent's card give the same analysis for the same seed."""
    game = KuhnGame()
    a, b = game.new_initial_state(), game.new_initial_state()
    a.apply_action(2 + 2)   # seat 0: K
    a.apply_action(2 + 0)   # seat 1: J
    b.apply_action(2 + 2)
    b.apply_action(2 + 1)   # seat 1: Q
    assert a.information_state_string(0) == b.information_state_string(0)
    ra = bot("ismcts", game, seed=5, iterations=300, max_nodes=30).analyze(a, root_moves=[0, 1])
    rb = bot("ismcts", game, seed=5, iterations=300, max_nodes=30).analyze(b, root_moves=[0, 1])
    assert numbers(ra) == numbers(rb)


class _Leaf:
    children: dict = {}


def test_free_later_frees_off_the_callers_path():
    """A tree handed to ``free_later`` is dismantled on the reaper thread."""
    root = Node(0, 2)
    cur = root
    for _ in range(2000):
        nxt = Node(0, 2)
        cur.children[random.random()] = nxt
        cur = nxt
    leaf = _Leaf()
    cur.children[0] = leaf
    ref = weakref.ref(leaf)
    free_later(root)
    del root, cur, nxt, leaf
    for _ in range(200):
        if ref() is None:
            break
        time.sleep(0.01)
    assert ref() is None


def test_the_reaper_drops_small_subtrees_whole(monkeypatch):
    """Taking every object of a tree apart in Python (~10 us a node) made the reaper fall
    behind back-to-back Python searches, and their trees piled up (``bench/memory.py
    --back-to-back``). A node with at most ``_SMALL_SUBTREE`` visits is dropped whole, so
    the Python steps scale with the few big nodes, not the tree; what the tree shares with
    the outside survives."""
    from ratai.search.common import _SMALL_SUBTREE, _dismantle

    rng = random.Random(5)
    shared = [7, 8]
    count = [0]

    def grow(visits: int) -> Node:   # a search-shaped tree: a node per visit
        count[0] += 1
        node = Node(0, 2)
        node.visits = visits
        node.legal = [shared]
        left = visits - 1
        while left > 0:
            v = min(left, rng.randint(1, max(1, visits // 3)))
            node.children[len(node.children)] = grow(v)
            left -= v
        return node

    steps = _dismantle(grow(20_000))      # (no other reference may hold the tree)
    assert count[0] == 20_000
    rng.seed(5)
    with monkeypatch.context() as m:      # every object taken apart, as before
        m.setattr("ratai.search.common._SMALL_SUBTREE", -1)
        every = _dismantle(grow(20_000))
    assert every > 50_000 and steps * 20 < every, (steps, every)
    whole = _dismantle(grow(_SMALL_SUBTREE))
    apart = _dismantle(grow(_SMALL_SUBTREE + 1))
    assert whole == 1 and apart > 1, (whole, apart)
    assert shared == [7, 8]


@pytest.mark.parametrize("name", ["first_rat", "rat_trap", "ratapolis", "rats_to_riches"])
def test_pv_labels_from_the_bare_apply_match_the_logged_apply(name):
    """Issue 13, item 8: a PV is labelled on a clone played with ``apply_for_labels`` (a
    twin's compiled apply, without history or views, so the report after the deadline is
    cheap). Along random games it must reach the same positions, legal moves and labels as
    the logged ``apply_action``, for every twin; a reference state takes the logged path."""
    import numpy as np

    from ratai.engines import load_game
    from ratai.search.common import apply_for_labels
    from tests.conftest import sample_action

    for backend in ("cython", "python"):
        game = load_game(name, backend=backend)
        rng = np.random.default_rng(3)
        logged = game.new_initial_state()
        bare = logged.clone()
        steps = 0
        while not logged.is_terminal() and steps < 150:
            assert bare.current_player() == logged.current_player()
            p = logged.current_player()
            if p >= 0:
                legal = logged.legal_actions()
                assert bare.legal_actions() == legal
                assert [bare.action_to_string(p, a) for a in legal] == \
                    [logged.action_to_string(p, a) for a in legal]
            elif p != CHANCE:   # a joint view: keep the sequential checks only
                break
            a = int(sample_action(logged, rng))
            logged.apply_action(a)
            apply_for_labels(bare, a)
            steps += 1
        assert steps > 20
        assert hasattr(bare, "_apply_bare") == (backend == "cython")


@pytest.mark.parametrize("kind", ["pimc", "smmcts"])
def test_world_searches_have_a_node_cap(kind):
    """Item 4 for the per-world searches: ``pimc`` and ``smmcts`` keep every world's tree
    until the answer, so ``max_nodes`` / ``max_memory_mb`` (default 512 MB) bound all of
    them together, an equal share each; the iteration budget is still exact. (Without it a
    30 s ``pimc`` call on Ratapolis grew past 20 GB: bench/README.md, stop 42.)"""
    game = ChanceNimGame(roll=True, heap=12, gust=True)   # perfect information: one tree
    s = game.new_initial_state()
    s.apply_action(4)
    an = make_bot(kind, game, 0, seed=1, iterations=2000, max_nodes=40).analyze(s)
    assert an.nodes <= 40 and an.iterations == 2000 and an.best_action in s.legal_actions()
    assert make_bot(kind, game, 0, seed=1, iterations=2000,
                    max_memory_mb=None).analyze(s).nodes > 40
    hidden = load_game("rat_trap", num_players=3)            # four worlds share the cap
    h = hidden.new_initial_state()
    while h.current_player() < 0:
        h.apply_action(h.chance_outcomes()[0][0])
    an = make_bot(kind, hidden, h.current_player(), seed=1, iterations=2000,
                  determinizations=4, max_nodes=100).analyze(h)
    assert an.nodes <= 100 and an.iterations == 2000
    for bad in ({"max_nodes": 0}, {"max_memory_mb": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            make_bot(kind, game, 0, iterations=10, **bad)
