"""The compiled search (``_speedups/search.pyx``) behind ``mcts`` / ``ismcts`` on Cython states.

Issue 4 ("Bot properties (determinism under seed, no peeking) hold for the Cython search
too"): determinism, no peeking, legal moves in random games of every Rat Trap variant, the
hand-made Rat Trap positions of ``tests/bots/test_bot_positions.py`` solved by the compiled
search, exact iteration budgets, ``on_progress`` stopping, backend dispatch, and the C-level
chance key (``c_info_hash``) agreeing with ``information_state_string``.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from ratai.bots import make_bot
from ratai.engines import load_game
from ratai.search import numbers
from tests.bots.test_bot_positions import (
    Position,
    rt_cat_eliminates_the_leader,
    rt_heal_saves_the_round,
)
from tests.conftest import game_variants, sample_action

cy = pytest.importorskip("ratai._speedups.search")

RT_VARIANTS = [(v, p) for g, v, p, b in game_variants(backends=True)
               if g == "rat_trap" and b == "cython"]
RT_IDS = [v for v, _ in RT_VARIANTS]
KINDS = {"mcts": {"determinize": True}, "ismcts": {}}


def mid_game(params: dict, seed: int = 0, plies: int = 12):
    """A Cython Rat Trap state at a decision node with at least two moves."""
    game = load_game("rat_trap", backend="cython", **params)
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    seen = 0
    while True:
        assert not s.is_terminal()
        if s.is_player_node():
            seen += 1
            if seen > plies and len(s.legal_actions()) > 1:
                return s
        s.apply_action(sample_action(s, rng))


def cy_bot(kind: str, state, seed=3, **kw):
    opts = dict(KINDS[kind], **kw)
    return make_bot(kind, state.get_game(), state.current_player(), seed=seed,
                    search_backend="cython", **opts)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_auto_backend_uses_the_compiled_search(kind, monkeypatch):
    """``search_backend="auto"`` (the default) runs ``search.pyx`` on a Cython state and the
    Python search on a reference state; ``"cython"`` refuses what it cannot compile."""
    s = mid_game({"num_players": 3})
    calls = []
    cls = cy.CyUCT if kind == "mcts" else cy.CyISMCTS
    monkeypatch.setattr(cy, cls.__name__, lambda *a: calls.append(a) or cls(*a))
    make_bot(kind, s.get_game(), s.current_player(), iterations=5, seed=0,
             **KINDS[kind]).analyze(s)
    assert len(calls) == 1
    ref = s.get_game().reference_game()
    ref_state = ref.deserialize_state(s.serialize())
    make_bot(kind, ref, s.current_player(), iterations=5, seed=0, **KINDS[kind]).analyze(
        ref_state)
    make_bot(kind, s.get_game(), s.current_player(), iterations=5, seed=0,
             search_backend="python", **KINDS[kind]).analyze(s)
    assert len(calls) == 1
    with pytest.raises(ValueError, match="search_backend"):
        make_bot(kind, ref, s.current_player(), iterations=5, search_backend="cython",
                 **KINDS[kind]).analyze(ref_state)
    with pytest.raises(ValueError, match="search_backend"):
        cy_bot(kind, s, iterations=5, rollout_cutoff=4).analyze(s)
    with pytest.raises(ValueError, match="search_backend"):
        make_bot(kind, s.get_game(), s.current_player(), iterations=5, search_backend="c",
                 **KINDS[kind])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_determinism(kind):
    """Same state, seed and iterations => the same Analysis numbers (all but elapsed_s)."""
    s = mid_game({"num_players": 4})
    a = cy_bot(kind, s, iterations=400).analyze(s)
    b = cy_bot(kind, s.clone(), iterations=400).analyze(s.clone())
    assert numbers(a) == numbers(b)
    assert a.iterations == 400 and a.nodes > 1 and a.max_depth >= 1
    assert sum(m.visits for m in a.moves) == 400
    assert a.pv and a.pv[0].action == a.best_action
    c = cy_bot(kind, s, seed=4, iterations=400).analyze(s)
    assert numbers(c) != numbers(a)


@pytest.mark.parametrize("variant,params", RT_VARIANTS, ids=RT_IDS)
def test_ismcts_does_not_peek(variant, params):
    """Two states with equal ``information_state_string(player)`` (built with
    ``resample_from_infostate``) get the same analysis for the same seed."""
    s = mid_game(params, seed=1)
    p = s.current_player()
    a, b = s.resample_from_infostate(p, 11), s.resample_from_infostate(p, 12)
    assert a.information_state_string(p) == b.information_state_string(p)
    ra = cy_bot("ismcts", a, iterations=150).analyze(a)
    rb = cy_bot("ismcts", b, iterations=150).analyze(b)
    assert numbers(ra) == numbers(rb)
    # mcts reads only a determinization drawn from the information state too
    ma = cy_bot("mcts", a, iterations=150).analyze(a)
    mb = cy_bot("mcts", b, iterations=150).analyze(b)
    assert numbers(ma) == numbers(mb)


@pytest.mark.parametrize("variant,params", RT_VARIANTS, ids=RT_IDS)
def test_legal_action_at_every_decision_node(variant, params):
    """Random games of every variant: the compiled bots pick a legal move at every one of
    their decision nodes (tiny budgets)."""
    game = load_game("rat_trap", backend="cython", **params)
    rng = np.random.default_rng(5)
    s = game.new_initial_state()
    bots = {}
    steps = 0
    while not s.is_terminal() and steps < 400:
        if s.is_player_node():
            p = s.current_player()
            kind = ("mcts", "ismcts")[steps % 2]
            key = (kind, p)
            if key not in bots:
                bots[key] = cy_bot(kind, s, seed=p, iterations=8)
            a = bots[key].analyze(s).best_action
            assert a in s.legal_actions(), (variant, steps, a)
            s.apply_action(a)
        else:
            s.apply_action(sample_action(s, rng))
        steps += 1


@pytest.mark.parametrize("make", [rt_heal_saves_the_round, rt_cat_eliminates_the_leader],
                         ids=["heal", "cat"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_hand_made_positions(make, kind):
    """The Rat Trap positions of tests/bots/test_bot_positions.py (their docstrings cite the
    rulebook; the exhaustive solver there proves them) on the Cython twin: the compiled
    search plays a winning move, values it above every losing one."""
    ref: Position = make()
    game = load_game("rat_trap", backend="cython", **ref.game.params)
    state = game.from_reference(ref.state)
    for seed in (0, 1):
        an = cy_bot(kind, state, seed=seed, iterations=300).analyze(state)
        best = state.action_to_string(state.current_player(), an.best_action)
        assert best in ref.win, (ref.name, kind, seed, best, an.moves[:4])
        stats = {m.label: m for m in an.moves}
        assert stats[best].value > max(stats[m].value for m in ref.lose), an.moves


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_budgets(kind):
    """``iterations`` is exact; ``time_limit`` stops in time; with both the first exhausted
    stops; ``on_progress`` is called every K iterations and ``False`` stops the search."""
    s = mid_game({"num_players": 3})
    for it in (1, 7, 123):
        assert cy_bot(kind, s, iterations=it).analyze(s).iterations == it
    an = cy_bot(kind, s, time_limit=0.05).analyze(s)
    assert an.iterations > 0 and an.elapsed_s < 0.05 + 0.02
    an = cy_bot(kind, s, time_limit=0.05, iterations=10).analyze(s)
    assert an.iterations == 10
    seen = []

    def progress(a):
        seen.append(a.iterations)
        return len(seen) < 3

    an = cy_bot(kind, s, iterations=1000, on_progress=progress, progress_every=25).analyze(s)
    assert seen == [25, 50, 75] and an.iterations == 75


@pytest.mark.parametrize("variant,params", RT_VARIANTS, ids=RT_IDS)
def test_info_hash_keys_like_the_information_state(variant, params):
    """IS-MCTS keys chance children by ``c_info_hash(player)``: after every outcome of a chance
    node, two outcomes get equal digests exactly when the searcher's
    ``information_state_string`` is equal (the Python ``chance_key="infostate"`` key)."""
    game = load_game("rat_trap", backend="cython", **params)
    rng = np.random.default_rng(2)
    s = game.new_initial_state()
    checked = 0
    while not s.is_terminal() and checked < 40:
        if s.is_chance_node():
            for p in range(game.num_players()):
                after = []
                for a, _ in s.chance_outcomes():
                    c = s.clone()
                    c.apply_action(a)
                    after.append((c.information_state_string(p), cy.info_hash(c, p)))
                for x in after:
                    for y in after:
                        assert (x[0] == y[0]) == (x[1] == y[1])
            checked += 1
        s.apply_action(sample_action(s, rng))


# -- search core v2 (issue 13, items 4, 5, 7, 8, 9) -----------------------------------------
def test_multi_pv_and_values_from_the_tree():
    """Item 7: each move's PV starts with it and replays legally (UCT on the true state);
    per-seat values are visit means (``value == values[player]``); visits add up; the best
    move's PV is the analysis PV."""
    s = mid_game({"num_players": 3})
    p = s.current_player()
    an = make_bot("mcts", s.get_game(), p, seed=2, iterations=800, determinize=True,
                  search_backend="cython").analyze(s)
    assert sum(m.visits for m in an.moves) == 800 and an.pv == an.moves[0].pv
    for m in an.moves:
        assert m.pv[0].action == m.action and len(m.values) == 3 and m.value == m.values[p]
    assert any(len(m.pv) > 1 for m in an.moves)
    # ismcts: each PV starts with its move and is legal on the labelling determinization
    an = cy_bot("ismcts", s, iterations=800).analyze(s)
    assert sum(m.visits for m in an.moves) == 800
    for m in an.moves:
        assert m.pv and m.pv[0].action == m.action and m.pv[0].player == p


def test_multi_pv_replays_on_the_searched_state():
    """UCT's per-move PVs follow the tree of the very state searched (perfect information:
    Rats to Riches): every step is legal when replayed."""
    game = load_game("rats_to_riches", backend="cython")
    s = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not (s.is_player_node() and len(s.legal_actions()) > 1):
        s.apply_action(sample_action(s, rng))
    an = make_bot("mcts", game, s.current_player(), seed=1, iterations=1500).analyze(s)
    assert any(len(m.pv) > 1 for m in an.moves[1:])
    for m in an.moves:
        c = s.clone()
        for step in m.pv:
            assert c.current_player() == step.player
            assert step.action in c.legal_actions()
            # the root step reuses the root label; the rest are labelled on the clone
            assert step.label == c.action_to_string(step.player, step.action)
            c.apply_action(step.action)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_root_moves_honoured(kind):
    s = mid_game({"num_players": 3})
    legal = s.legal_actions()
    keep = legal[1:3]
    an = cy_bot(kind, s, iterations=300).analyze(s, root_moves=keep)
    assert sorted(m.action for m in an.moves) == sorted(keep)
    assert sum(m.visits for m in an.moves) == 300 and an.best_action in keep
    bad = max(legal) + 1
    with pytest.raises(ValueError, match=f"action {bad} is not legal"):
        cy_bot(kind, s, iterations=10).analyze(s, root_moves=[keep[0], bad])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_unvisited_ties_follow_the_seeded_key_not_the_id(kind):
    """Item 9: with one iteration all but one move tie on visits, value and prior; their
    order is the seeded random key (same seed: same order), not ascending action ids."""
    s = next(x for x in (mid_game({"num_players": 3}, seed=k) for k in range(50))
             if len(x.legal_actions()) >= 3)
    orders = []
    for seed in range(12):
        a = cy_bot(kind, s, seed=seed, iterations=1).analyze(s)
        b = cy_bot(kind, s, seed=seed, iterations=1).analyze(s)
        assert [m.action for m in a.moves] == [m.action for m in b.moves]
        orders.append([m.action for m in a.moves[1:]])
    assert any(o != sorted(o) for o in orders), orders
    assert len({tuple(o) for o in orders}) >= 2


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_memory_and_node_caps(kind):
    """Item 4: the pool stays under ``max_memory_mb`` and the tree under ``max_nodes``; the
    iteration budget is still exact and the answer legal."""
    s = mid_game({"num_players": 3})
    an = cy_bot(kind, s, iterations=3000, max_nodes=50).analyze(s)
    assert an.nodes <= 50 and an.iterations == 3000 and an.best_action in s.legal_actions()
    n = s.get_game().num_players()
    mb = 0.05
    slots = int(mb * 2**20 / (cy.NODE_BYTES + 8 * n))
    an = cy_bot(kind, s, iterations=20000, max_memory_mb=mb).analyze(s)
    assert an.nodes <= slots and an.iterations == 20000
    free = cy_bot(kind, s, iterations=20000, max_memory_mb=None).analyze(s)
    assert free.nodes > slots
    t0 = time.perf_counter()
    an = cy_bot(kind, s, time_limit=0.1, max_nodes=20).analyze(s)
    assert time.perf_counter() - t0 < 0.1 + 0.05 and an.nodes <= 20


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_threads_deterministic_and_no_peeking(kind):
    """Item 5: root-parallel trees with an iteration budget are reproducible for a seed, and
    two states with one information state give one answer (threads=1 and 2)."""
    s = mid_game({"num_players": 3}, seed=1)
    p = s.current_player()
    a, b = s.resample_from_infostate(p, 11), s.resample_from_infostate(p, 12)
    assert a.information_state_string(p) == b.information_state_string(p)
    for threads in (1, 2):
        ra = cy_bot(kind, a, iterations=400, threads=threads).analyze(a)
        rb = cy_bot(kind, b, iterations=400, threads=threads).analyze(b)
        assert numbers(ra) == numbers(rb)
        assert ra.iterations == 400 and sum(m.visits for m in ra.moves) == 400
    one = cy_bot(kind, a, iterations=400, threads=1).analyze(a)
    two = cy_bot(kind, a, iterations=400, threads=2).analyze(a)
    assert numbers(one) != numbers(two)


def test_worker_threads_keep_the_callers_belief_bounds():
    """Every worker thread of ``threads=N`` runs in a copy of the caller's context, so an
    exact-belief filter it runs (a determinization the compiled sampler declines goes to
    the reference path, which filters) has the caller's deadline and cancel flag
    (``belief_deadline``), not a fresh thread's (no deadline: a filter that runs on)."""
    import math

    from ratai.engines import belief as B
    from ratai.search.common import Budget

    seen = {}

    class Worker:
        def _loop(self, limit, deadline, stop, lock, progress, every):
            seen[threading.current_thread().name] = (B._DEADLINE.get(), B._STOPS.get())

    flag = threading.Event()
    with B.belief_deadline(123.0, flag):
        cy._run([Worker(), Worker(), Worker()], Budget(iterations=3).check(), None, 0, None)
    assert len(seen) == 3
    for deadline, stops in seen.values():
        assert deadline == 123.0 and flag in stops
    assert B._DEADLINE.get() == math.inf and B._STOPS.get() == ()


def test_search_does_not_stall_other_threads():
    """Item 5: the compiled loop runs without the GIL in ~1 ms chunks, so a Python thread
    ticking every millisecond keeps ticking during a search (it stalled ~300 ms before)."""
    s = mid_game({"num_players": 3})
    stop = threading.Event()
    gaps = []

    def tick():
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    th = threading.Thread(target=tick)
    th.start()
    time.sleep(0.02)
    cy_bot("mcts", s, time_limit=0.3).analyze(s)
    stop.set()
    th.join()
    assert len(gaps) > 30 and max(gaps) < 0.1, max(gaps)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_cancel_and_setup_inside_the_budget(kind):
    """Item 8: ``cancel`` is seen between chunks (~1 ms); the clock starts on entry."""
    s = mid_game({"num_players": 3})
    ev = threading.Event()
    threading.Timer(0.05, ev.set).start()
    t0 = time.perf_counter()
    an = cy_bot(kind, s, time_limit=5.0).analyze(s, stop=ev)
    assert time.perf_counter() - t0 < 0.5 and an.iterations > 0
    bot = cy_bot(kind, s, time_limit=0.05)
    t0 = time.perf_counter()
    an = bot.analyze(s)
    wall = time.perf_counter() - t0
    # the reported time runs from the call (setup included) to the answer
    assert wall - 0.02 < an.elapsed_s <= wall


def _rr_position(seed=0):
    game = load_game("rats_to_riches", backend="cython")
    s = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not (s.is_player_node() and len(s.legal_actions()) > 1):
        s.apply_action(sample_action(s, rng))
    return game, s


def test_tree_reuse_continues_the_kept_subtree():
    """Item 6 (perfect information): after the bot's move and the others' moves along its
    PV, the next search starts from the kept subtree (its visits carry over); a position off
    the kept line is searched afresh; the same call sequence gives the same answers."""
    def play(seed):
        game, s = _rr_position()
        me = s.current_player()
        b = make_bot("mcts", game, me, seed=seed, iterations=3000, reuse_tree=True)
        first = b.analyze(s)
        assert sum(m.visits for m in first.moves) == 3000
        # the others' moves and the chance outcomes of the best line (so they are in the tree)
        for step in first.pv:
            if step is not first.pv[0] and step.player == me:
                break
            s.apply_action(step.action)
        assert s.current_player() == me
        second = b.analyze(s)
        return b, s, first, second

    b, s, first, second = play(4)
    assert second.iterations == 3000
    assert sum(m.visits for m in second.moves) > 3000      # the kept visits
    _, _, f2, s2 = play(4)
    assert numbers(f2) == numbers(first) and numbers(s2) == numbers(second)
    game, other = _rr_position(seed=9)                      # another game: fresh search
    if other.current_player() == b.player:
        assert sum(m.visits for m in b.analyze(other).moves) == 3000
    with pytest.raises(ValueError, match="reuse_tree needs a perfect-information game"):
        cy_bot("mcts", mid_game({"num_players": 3}), iterations=10, reuse_tree=True)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_threads_split_the_caps_evenly(kind):
    """Item 4 with item 5: ``threads=N`` gives every root-parallel tree ``1/N`` of
    ``max_nodes`` (the first tree's share was once taken before the others were sized, so
    they got ``1/N**2``): two trees under ``max_nodes=40`` fill 20 nodes each."""
    s = mid_game({"num_players": 3})
    an = cy_bot(kind, s, iterations=4000, max_nodes=40, threads=2).analyze(s)
    assert an.nodes == 40 and an.iterations == 4000
