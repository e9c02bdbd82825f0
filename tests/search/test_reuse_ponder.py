"""Issue 13, item 6: IS-MCTS (and az) tree reuse keyed by the seat's information state, and
pondering.

* No peeking: two games the seat cannot tell apart at every step (same information state
  after every action, different hidden cards) give a seeded reusing bot the same answers,
  move after move (compiled and Python search).
* Reuse: the kept visits carry over; a history the tree never saw starts afresh; a step the
  seat cannot observe (a hidden plan) ends the walk.
* Pondering: searches between calls on another thread, its visits reach the next answer,
  and ``close()`` / the context manager / the bot's ``stop`` flag end it; ``ponder=False``
  (the default) leaves seeded answers unchanged.
"""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

from ratai.bots import make_bot
from ratai.engines import CHANCE, SIMULTANEOUS, load_game
from ratai.search import numbers
from ratai.search.reuse import ACTION, INFO, observed_path


def _sample(state, rng):
    if state.is_chance_node():
        outs = state.chance_outcomes()
        return outs[rng.choice(len(outs), p=[p for _, p in outs])][0]
    return int(rng.choice(state.legal_actions()))


def _twin_step(a_state, b_state, action, me, rng):
    """Apply ``action`` to ``a_state`` and, to ``b_state``, an action (preferably another
    one) after which seat ``me`` sees in B exactly what it sees in A; False if none."""
    a_state.apply_action(action)
    want = a_state.information_state_string(me)
    cands = []
    for b in b_state.legal_actions():
        t = b_state.clone()
        t.apply_action(b)
        if t.information_state_string(me) == want:
            cands.append(b)
    if not cands:
        return False
    others = [b for b in cands if b != action]
    pick = others if others and b_state.current_player() == CHANCE else cands
    b_state.apply_action(int(pick[rng.integers(len(pick))]))
    return True


def _twin_games(name, me, seed, backend):
    """Two fresh states of ``name`` and the rng driving a lockstep twin play."""
    game = load_game(name, backend=backend)
    return game, game.new_initial_state(), game.new_initial_state(), np.random.default_rng(seed)


@pytest.mark.parametrize("kind,backend,budget", [("ismcts", "cython", {"iterations": 400}),
                                                 ("ismcts", "python", {"iterations": 60}),
                                                 ("az", "cython", {"iterations": 400})])
def test_reuse_never_peeks_same_observed_history_same_answers(kind, backend, budget):
    """Same seed + same sequence of information states for the seat => the same answers on
    every move, with the tree kept across moves (the walk reads observations only)."""
    me = 0
    differed = False
    for seed in range(3):
        game, a, b, rng = _twin_games("rat_trap", me, seed, backend)
        kw = dict(seed=11, reuse_tree=True, **budget)
        if backend == "python":
            kw["search_backend"] = "python"
        bot_a, bot_b = make_bot(kind, game, me, **kw), make_bot(kind, game, me, **kw)
        moves = 0
        ok = True
        while ok and not a.is_terminal() and moves < 5:
            if a.current_player() == me:
                assert a.information_state_string(me) == b.information_state_string(me)
                an_a, an_b = bot_a.analyze(a), bot_b.analyze(b)
                assert numbers(an_a) == numbers(an_b)
                moves += 1
                ok = _twin_step(a, b, an_a.best_action, me, rng)
            else:
                ok = _twin_step(a, b, _sample(a, rng), me, rng)
            differed |= a.serialize() != b.serialize()
        assert moves >= 2
    assert differed, "the twin games never differed in hidden information"


def _rat_trap_at_my_turn(backend="cython", seed=3, me=0):
    game = load_game("rat_trap", backend=backend)
    s = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while s.current_player() != me or len(s.legal_actions()) < 2:
        s.apply_action(_sample(s, rng))
    return game, s, rng


def _to_my_turn(s, me, rng, line=()):
    """Play the others' moves (and chance) until ``me`` is to move again, following
    ``line`` (a PV) while it is legal."""
    line = list(line)
    while not s.is_terminal() and s.current_player() != me:
        nxt = line.pop(0) if line else None
        if nxt is not None and nxt.player == s.current_player() \
                and nxt.action in s.legal_actions():
            s.apply_action(nxt.action)
        else:
            s.apply_action(_sample(s, rng))


@pytest.mark.parametrize("kind,backend", [("ismcts", "cython"), ("ismcts", "python"),
                                          ("az", "cython")])
def test_reuse_kept_visits_carry_over_and_unseen_starts_fresh(kind, backend):
    me = 0
    its = 2000 if backend == "cython" else 80
    extra = {} if backend == "cython" else {"search_backend": "python"}
    carried = 0
    for seed in range(4):
        game, s, rng = _rat_trap_at_my_turn(backend, seed)
        bot = make_bot(kind, game, me, seed=5, iterations=its, reuse_tree=True, **extra)
        plain = make_bot(kind, game, me, seed=5, iterations=its, **extra)
        first = bot.analyze(s)
        assert numbers(first) == numbers(plain.analyze(s))     # the first call is unchanged
        assert sum(m.visits for m in first.moves) == its
        s.apply_action(first.best_action)
        _to_my_turn(s, me, rng, first.pv[1:])
        if s.is_terminal() or len(s.legal_actions()) < 2:
            continue
        second = bot.analyze(s)
        assert second.iterations == its
        total = sum(m.visits for m in second.moves)
        assert total >= its
        carried += total - its
        # a game the tree never saw (another history): a fresh search
        _, other, _ = _rat_trap_at_my_turn(backend, seed + 100)
        assert sum(m.visits for m in bot.analyze(other).moves) == its
        bot.close()
    assert carried > 0, "no kept visits were carried over in any game"


def test_compiled_reanalyze_missing_or_hidden_key_is_fresh():
    from ratai._speedups import search as cy
    from ratai.search.common import Budget, SearchRng
    game, s, _ = _rat_trap_at_my_turn()
    w = cy.CyISMCTS(0, 0.7, "infostate")
    w.analyze(s, Budget(iterations=300), SearchRng(1, s, 0), keep=True)
    for keys in ([(ACTION, 10**6)], [("c", 3)], [(INFO, "x", None)]):
        assert w.reanalyze(s, keys, Budget(iterations=10), SearchRng(1, s, 0)) is None
    # the empty walk continues the root itself: its visits carry over
    an = w.reanalyze(s, [], Budget(iterations=100), SearchRng(1, s, 0))
    assert sum(m.visits for m in an.moves) == 400
    w.release()
    assert w.reanalyze(s, [], Budget(iterations=10), SearchRng(1, s, 0)) is None


@pytest.mark.parametrize("merge", [False, True])
def test_observed_path_at_a_hidden_plan(merge):
    """Ratapolis planning: another seat's plan is hidden from seat 0 until the reveal (two
    legal plans look the same to it). Seat 0's own moves key as themselves. In an
    action-keyed tree the walk must not key a node by a hidden plan (``None``: start
    afresh) and keys others' moves it can tell apart as themselves; in a merged tree
    (``opponent_key``, ``merge=True``) another seat's run of moves keys once, as the seat's
    information state after it, the same whichever hidden plan was played."""
    game = load_game("ratapolis", backend="cython")
    rng = np.random.default_rng(0)
    hidden = public = 0
    for _ in range(2):
        s = game.new_initial_state()
        for _ in range(120):
            if s.is_terminal():
                break
            p = s.current_player()
            a = _sample(s, rng)
            keys = observed_path(s, [a], 0, merge=merge, seed=1)
            if p == 0:
                assert keys == [(ACTION, a)]
            elif p != CHANCE:
                after = s.clone()
                after.apply_action(a)
                look = after.information_state_string(0)
                alike = []
                for b in s.legal_actions():
                    t = s.clone()
                    t.apply_action(b)
                    if t.information_state_string(0) == look:
                        alike.append(b)
                if merge:
                    runs_on = after.current_player() == p
                    assert keys == ([] if runs_on else [(INFO, look, None)])
                    if len(alike) >= 2:
                        hidden += 1
                        other = next(b for b in alike if b != a)
                        assert observed_path(s, [other], 0, merge=True, seed=1) == keys
                    else:
                        public += 1
                elif len(alike) >= 2:
                    hidden += 1
                    assert keys is None
                elif keys is not None:
                    public += 1
                    assert keys == [(ACTION, a)]
            s.apply_action(a)
    assert hidden > 0 and public > 0


@pytest.mark.parametrize("kind", ["ismcts", "az"])
def test_ponder_searches_between_calls_and_stops(kind):
    me = 0
    game, s, rng = _rat_trap_at_my_turn()
    stop = threading.Event()
    with make_bot(kind, game, me, seed=2, time_limit=0.05, ponder=True,
                  ponder_seconds=5.0, stop=None) as bot:
        first = bot.analyze(s)
        th = bot._ponder_thread
        assert th is not None and th.is_alive()
        time.sleep(0.15)                 # the other seats think; the bot ponders
        s.apply_action(first.best_action)
        _to_my_turn(s, me, rng, first.pv[1:])
        second = bot.analyze(s)          # stops the ponder search, reuses its tree
        assert not th.is_alive()
        assert bot.pondered_iterations > 0
    assert bot._ponder_thread is None and bot._kept is None       # closed by the with block
    assert second.iterations > 0
    # the bot's stop flag reaches the ponder search
    game, s, _ = _rat_trap_at_my_turn(seed=4)
    bot = make_bot(kind, game, me, seed=2, iterations=200, ponder=True, stop=stop)
    bot.analyze(s)
    th = bot._ponder_thread
    stop.set()
    th.join(timeout=2.0)
    assert not th.is_alive()
    bot.close()
    # ponder_seconds bounds it without any call
    game, s, _ = _rat_trap_at_my_turn(seed=5)
    bot = make_bot("mcts", load_game("rats_to_riches", backend="cython"), 0, seed=1,
                   iterations=50, ponder=True, ponder_seconds=0.05)
    rr = bot.game.new_initial_state()
    rng = np.random.default_rng(0)
    while rr.current_player() != 0 or len(rr.legal_actions()) < 2:
        rr.apply_action(_sample(rr, rng))
    bot.analyze(rr)
    th = bot._ponder_thread
    if th is not None:
        th.join(timeout=2.0)
        assert not th.is_alive()
    bot.close()


class _StandInTree:
    """Stands in for a kept compiled tree: ``_reroot`` takes ``reroot_s`` seconds and
    answers ``rerooted``; ``ponder`` returns ``on_ponder(budget)``."""

    def __init__(self, on_ponder, rerooted=True, reroot_s=0.0):
        self.on_ponder, self.rerooted, self.reroot_s = on_ponder, rerooted, reroot_s

    def _reroot(self, state, keys, srng):
        time.sleep(self.reroot_s)
        return self.rerooted

    def ponder(self, state, keys, budget, srng):
        return self.on_ponder(budget)

    def halt_now(self):
        pass

    def release(self):
        pass


def test_ponder_thread_bounds_the_belief_filter():
    """The ponder search's exact-belief filter (a determinization on the ponder thread) is
    bounded by the ponder budget's end and stopped by its flag: the next call joins that
    thread and must not wait for a cold filter."""
    import math

    from ratai.engines import belief as B

    seen = []
    tree = _StandInTree(lambda budget: seen.append((B._DEADLINE.get(), B._STOPS.get(),
                                                    budget.end)))
    game, s, _ = _rat_trap_at_my_turn()
    bot = make_bot("ismcts", game, 0, seed=2, iterations=20, ponder=True, ponder_seconds=3.0)
    an = bot.analyze(s)
    bot._stop_ponder()
    bot._kept = (tree, s.clone(), s.history())
    bot._start_ponder(an.best_action)
    flag = bot._ponder_flag
    bot._ponder_thread.join(2.0)
    assert len(seen) == 1
    deadline, stops, end = seen[0]
    assert deadline == end < math.inf and flag in stops
    bot.close()


def test_ponder_options_are_checked():
    game = load_game("rat_trap", backend="cython")
    with pytest.raises(ValueError, match="ponder_seconds"):
        make_bot("ismcts", game, 0, iterations=10, ponder=True, ponder_seconds=0)
    with pytest.raises(ValueError, match="threads=1"):
        make_bot("ismcts", game, 0, iterations=10, ponder=True, threads=2)
    with pytest.raises(ValueError, match="compiled search"):
        make_bot("ismcts", game, 0, iterations=10, ponder=True, search_backend="python")
    with pytest.raises(ValueError, match="bad reuse_tree"):
        make_bot("ismcts", game, 0, iterations=10, reuse_tree=1)
    with pytest.raises(ValueError, match="threads=1"):
        make_bot("az", game, 0, iterations=10, reuse_tree=True, threads=2)
    with pytest.raises(ValueError, match="compiled search"):
        make_bot("az", game, 0, iterations=10, ponder=True, search_backend="python")
    with pytest.raises(ValueError, match="needed by reuse_tree but ruled out by a game "
                                         "without compiled states"):
        make_bot("az", load_game("rat_trap", backend="python"), 0, iterations=10,
                 reuse_tree=True)
    # a joint-action root gets the kind's own message (it read "reuse_tree and ponder need
    # the compiled search" with reuse on; tester, stop 55)
    joint = load_game("ratapolis", simultaneous=True).new_initial_state()
    while joint.current_player() != SIMULTANEOUS:
        joint.apply_action(joint.chance_outcomes()[0][0] if joint.is_chance_node()
                           else joint.legal_actions()[0])
    # (a bot of the sequential view refuses the joint view's state as another game's,
    # stop 59; the packaged network refuses the joint view's parameters)
    with pytest.raises(ValueError, match="make the bot for the state's game"):
        make_bot("az", load_game("ratapolis"), 0, iterations=10, reuse_tree=True).analyze(joint)
    with pytest.raises(ValueError, match="ismcts does not search a SIMULTANEOUS root"):
        make_bot("ismcts", joint.get_game(), 0, iterations=10, reuse_tree=True).analyze(joint)
    # every search kind is a context manager; close() is a no-op where nothing is kept
    for kind in ("pimc", "expectimax", "smmcts", "ismcts", "az"):
        with make_bot(kind, game, 0, iterations=10) as bot:
            pass
        bot.close()


@pytest.mark.parametrize(("kind", "options", "needs", "out"), [
    ("ismcts", {"search_backend": "cython", "rollout": "heuristic"},
     "search_backend='cython'", "rollout='heuristic'"),
    ("ismcts", {"threads": 2, "rollout_cutoff": 5}, "threads=2", "rollout_cutoff=5"),
    ("ismcts", {"ponder": True, "rollout": "heuristic"}, "ponder", "rollout='heuristic'"),
    ("mcts", {"determinize": True, "search_backend": "cython", "rollout_cutoff": 3},
     "search_backend='cython'", "rollout_cutoff=3"),
    ("mcts", {"determinize": True, "threads": 2, "search_backend": "python"}, "threads=2",
     "search_backend='python'"),
])
def test_options_the_compiled_search_cannot_run_are_refused_when_made(kind, options, needs,
                                                                        out):
    """An option that needs the compiled search beside one that rules it out is refused by
    make_bot, naming both: such a bot was made and then failed at every search (a hosted
    bot seat of the service then played random moves)."""
    game = load_game("rat_trap", backend="cython")
    with pytest.raises(ValueError, match=f"needed by {re.escape(needs)} but ruled out by "
                                         f"{re.escape(out)}"):
        make_bot(kind, game, 0, iterations=10, **options)
    ref = load_game("rat_trap", backend="python")
    for k, kw in (("ismcts", {"threads": 2}), ("az", {"threads": 2}),
                  ("ismcts", {"search_backend": "cython"})):
        with pytest.raises(ValueError, match="ruled out by a game without compiled states"):
            make_bot(k, ref, 0, iterations=10, **kw)


def test_nogil_info_hash_equals_the_chance_key():
    """``c_info_hash_into`` (no GIL) gives ``c_info_hash`` in every game (the threaded
    IS-MCTS keys chance children by it)."""
    from ratai._speedups import search as cy
    for name in ("first_rat", "rat_trap", "ratapolis", "rats_to_riches"):
        game = load_game(name, backend="cython")
        rng = np.random.default_rng(1)
        s = game.new_initial_state()
        for _ in range(60):
            if s.is_terminal():
                break
            for p in range(game.num_players()):
                assert cy.info_hash_nogil(s, p) == cy.info_hash(s, p)
            s.apply_action(_sample(s, rng))


@pytest.mark.parametrize("kind", ["ismcts", "az"])
@pytest.mark.parametrize("name", ["rat_trap", "ratapolis"])
def test_ponder_search_never_peeks(kind, name):
    """The ponder search reads the state only through the seat's determinizations: on two
    games the seat cannot tell apart at any step (different hidden cards; in Ratapolis
    different hidden plans of the rivals, which the tree goes on through with
    ``opponent_key``), iteration-bounded ponder searches (the bots bound them by time) and
    the reuse that follows give identical answers move after move."""
    from ratai._speedups import search as cy
    from ratai.bots.az import load_model
    from ratai.search.common import Budget, SearchRng
    me, reused, differed = 0, 0, False

    def worker(game):
        if kind == "az":
            return cy.CyAZ(me, load_model(None, game), rollout_mix=1.0, merge=game.hidden_moves)
        return cy.CyISMCTS(me, 0.7, "infostate", merge=game.hidden_moves)

    for seed in range(3):
        game, a, b, rng = _twin_games(name, me, seed, "cython")
        kept = [None, None]      # (worker, state at its root) per twin
        ok, moves = True, 0
        while ok and not a.is_terminal() and moves < 5:
            if a.current_player() != me:
                ok = _twin_step(a, b, _sample(a, rng), me, rng)
                differed |= a.serialize() != b.serialize()
                continue
            outs = []
            for i, s in enumerate((a, b)):
                an = None
                if kept[i] is not None:
                    w, root = kept[i]
                    keys = observed_path(root, s.history()[len(root.history()):], me,
                                         seed=7, info_hash=cy.info_hash,
                                         merge=game.hidden_moves)
                    if keys is not None:
                        an = w.reanalyze(s, keys, Budget(iterations=300), SearchRng(7, s, me))
                if an is None:
                    w = worker(game)
                    an = w.analyze(s, Budget(iterations=300), SearchRng(7, s, me), keep=True)
                else:
                    reused += i == 0
                s1 = s.clone()
                s1.apply_action(an.best_action)
                kept[i] = None     # the root moved below the answer, or no reuse
                if not s1.is_terminal() and w.ponder(s1, [(ACTION, an.best_action)],
                                                     Budget(iterations=600),
                                                     SearchRng(7, s1, me)) > 0:
                    kept[i] = (w, s1)
                outs.append(numbers(an))
            assert outs[0] == outs[1]
            moves += 1
            ok = _twin_step(a, b, outs[0][0], me, rng)
    assert reused > 0 and differed


@pytest.mark.parametrize("name,kind", [("first_rat", "mcts"), ("rats_to_riches", "mcts"),
                                       ("ratapolis", "ismcts"), ("rat_trap", "ismcts"),
                                       ("ratapolis", "az"), ("first_rat", "az")])
def test_positions_without_history_are_not_taken_for_one_another(name, kind):
    """A tester: ``reuse_tree`` asked two positions built from observations (the documented
    hint path; ``history()`` is empty for both) continued the first one's tree at the second
    (431 root visits from 300 iterations, another best move) and First Rat's ``close()`` then
    aborted the interpreter (double free). The kept tree is continued only where the new
    position is the kept root after the actions since, as the seat sees it."""
    game = load_game(name)
    rng = np.random.default_rng(0)
    s, seat, picks = game.new_initial_state(), 0, []
    while not s.is_terminal() and len(picks) < 3:
        if s.is_chance_node():
            a, p = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(int(rng.choice(a, p=np.array(p) / sum(p))))
            continue
        if s.current_player() == seat and len(s.legal_actions()) > 1 and rng.random() < 0.5:
            picks.append(s.clone())
        s.apply_action(int(rng.choice(s.legal_actions())))
    x, y = (game.state_from_observation(seat, picks[i].observation(seat), 1) for i in (0, 2))
    assert x.history() == y.history() == []
    with make_bot(kind, game, seat, seed=3, iterations=300, reuse_tree=True) as bot:
        bot.analyze(x)
        an = bot.analyze(y)
    fresh = make_bot(kind, game, seat, seed=3, iterations=300).analyze(y)
    assert sum(m.visits for m in an.moves) == an.iterations == 300
    assert numbers(an) == numbers(fresh)


def test_no_tree_is_kept_or_pondered_below_a_move_not_played():
    """A decisive move that overrides the search's choice ended the game, yet the bot kept
    and pondered the tree below the search's move (a core's ``ponder_seconds`` spent on a
    line never played)."""
    import ratai.bots.search_bots as sb
    from tests.bots.test_bot_forced_wins import immediate_wins

    game = load_game("first_rat", num_players=3)
    overridden = 0
    for s, wins in immediate_wins(game, seeds=range(8), limit=4):
        for seed in range(6):
            bot = make_bot("mcts", game, s.current_player(), seed=seed, iterations=5,
                           ponder=True, ponder_seconds=5.0)
            real = sb.decisive_move
            sb.decisive_move = lambda *a, **k: None
            try:
                searched = make_bot("mcts", game, s.current_player(), seed=seed,
                                    iterations=5).analyze(s).best_action
            finally:
                sb.decisive_move = real
            an = bot.analyze(s)
            assert an.best_action in wins
            if searched not in wins:
                overridden += 1
                assert bot._kept is None and bot._ponder_thread is None
            bot.close()
    assert overridden


@pytest.mark.parametrize("kind", ["ismcts", "az"])
def test_a_kept_tree_past_half_its_cap_is_not_continued(kind):
    """A tester (stop 55): with the kept pool full, a continued search could add no node
    below its new root, so 2,000 iterations gave the root's moves 345, 33, 5, 0 visits where
    a fresh search under the same cap gave 2,000. A kept tree past ``KEEP_FILL`` of its cap
    is now dropped and the call searches afresh."""
    from ratai.bots.search_bots import KEEP_FILL

    game = load_game("first_rat", num_players=2)
    rng = np.random.default_rng(1)
    its, cap = 2000, 1.0
    bot = make_bot(kind, game, 0, iterations=its, seed=3, reuse_tree=True, max_memory_mb=cap)
    s, calls, dropped = game.new_initial_state(), 0, 0
    while not s.is_terminal() and calls < 12:
        if s.is_chance_node() or s.current_player() != 0:
            s.apply_action(_sample(s, rng))
            continue
        an = bot.analyze(s)
        calls += 1
        if not an.forced:
            assert sum(m.visits for m in an.moves) >= its
            if bot._kept is None:
                dropped += 1
            else:
                assert bot._kept[0].fill() <= KEEP_FILL
        s.apply_action(an.best_action)
    bot.close()
    assert dropped, "the cap never filled: the test checks nothing"


def test_a_state_of_another_game_does_not_continue_the_tree():
    """A tester (stop 55): a reusing bot handed a state of the same game with other
    parameters (same history and information state string) continued the old tree. Since
    stop 59 every bot refuses a state of other rules; the kept tree is untouched by the
    refusal and continues at the bot's own game's next position."""
    g1 = load_game("rat_trap", max_turns_per_round=200)
    g2 = load_game("rat_trap", max_turns_per_round=3)
    rng = np.random.default_rng(0)
    s1, s2 = g1.new_initial_state(), g2.new_initial_state()
    bot = make_bot("ismcts", g1, 0, iterations=300, seed=2, reuse_tree=True)
    first = True
    while True:
        if not s1.is_chance_node() and s1.current_player() == 0 and len(s1.legal_actions()) > 1:
            if not first:
                assert s1.information_state_string(0) == s2.information_state_string(0)
                with pytest.raises(ValueError, match="make the bot for the state's game"):
                    bot.analyze(s2)
                an = bot.analyze(s1)
                assert sum(m.visits for m in an.moves) > 300   # the kept tree continued
                break
            a = bot.analyze(s1).best_action
            first = False
        else:
            a = _sample(s1, rng)
        s1.apply_action(a)
        s2.apply_action(a)
    bot.close()


def test_a_numpy_integer_seed_keys_the_walk_as_its_int():
    """A tester (stop 55): ``seed=np.int64(11)`` (accepted by every bot) drew the walk's
    observability tests from fresh entropy, so two equal reusing bots could diverge."""
    from ratai.search.reuse import _step_rng

    for seed in (11, "eleven"):
        want = _step_rng(seed, "info", 1).integers(1 << 62, size=4)
        got = _step_rng(np.int64(seed) if seed == 11 else seed, "info", 1).integers(
            1 << 62, size=4)
        assert (want == got).all()
    assert (_step_rng(np.uint32(11), "info", 1).integers(1 << 62, size=4)
            == _step_rng(11, "info", 1).integers(1 << 62, size=4)).all()


def test_the_ponder_search_moves_its_root_off_the_callers_path():
    """A tester (stop 55): ``_start_ponder`` moved the kept root below the answer on the
    caller's thread, after the search (its sampler's setup may filter a Rat Trap belief:
    127-176 ms past a 100 ms budget at 5 players). The ponder thread does it now; the kept
    state follows the root once moved, and stays when the move was never tried."""
    game, s, _ = _rat_trap_at_my_turn()
    for ok in (True, False):
        bot = make_bot("ismcts", game, 0, seed=2, iterations=20, ponder=True)
        an = bot.analyze(s)
        bot._stop_ponder()
        tree = _StandInTree(lambda budget: 7, rerooted=ok, reroot_s=0.5)
        bot._kept = (tree, s.clone(), s.history())
        t0 = time.perf_counter()
        bot._start_ponder(an.best_action)
        assert time.perf_counter() - t0 < 0.4
        bot._ponder_thread.join(5.0)
        kept_tree, kept_state, _ = bot._kept
        assert kept_tree is tree
        want = s.history() + ([an.best_action] if ok else [])
        assert kept_state.history() == want
        assert bot._pondered == (7 if ok else 0)
        bot._kept = None
        bot.close()
