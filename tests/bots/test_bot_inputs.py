"""Bad inputs to ``make_bot`` and ``analyze`` found by stop 59's hostile tester: each is a
``ValueError`` (``TypeError`` for a non-state) naming what is wrong, before any search, and
the budgets a bot reports are the ones it was given."""

from __future__ import annotations

import math
import random
import threading
import time

import pytest

from ratai.bots import make_bot
from ratai.engines import SIMULTANEOUS, load_game
from ratai.search.common import MAX_THREADS
from ratai.search.uct import MAX_REPORTED_MOVES

TREE_KINDS = ("mcts", "ismcts", "smmcts", "az")


def _position(game, seed=1, plies=6):
    s = game.new_initial_state()
    rnd = random.Random(seed)
    while s.is_chance_node() or plies > 0:
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
        else:
            s.apply_action(rnd.choice(s.legal_actions()))
            plies -= 1
    return s


@pytest.mark.parametrize("kind", TREE_KINDS)
def test_threads_are_bounded(kind):
    """``threads=5000`` was taken: its trees, built before the clock's first check, made a
    0.2 s search take ~1 s (and ``10**12`` raised an OverflowError in the search)."""
    game = load_game("rat_trap", backend="cython")
    for bad in (MAX_THREADS + 1, 10**12, 0, 2.0, True):
        with pytest.raises(ValueError, match="threads"):
            make_bot(kind, game, 0, iterations=10, threads=bad)


@pytest.mark.parametrize("kind", [*TREE_KINDS, "pimc"])
def test_an_infinite_memory_cap_is_a_value_error(kind):
    """``max_memory_mb=inf`` raised ``OverflowError: cannot convert float infinity``;
    ``None`` is the way to ask for no cap."""
    game = load_game("rat_trap")
    for bad in (math.inf, math.nan, -1.0, 0):
        with pytest.raises(ValueError, match="max_memory_mb"):
            make_bot(kind, game, 0, iterations=10, max_memory_mb=bad)


@pytest.mark.parametrize("kind,option,bad", [
    ("mcts", "rollout_epsilon", None), ("ismcts", "rollout_epsilon", "0.1"),
    ("pimc", "rollout_epsilon", math.nan), ("smmcts", "rollout_epsilon", 2.0),
    ("expectimax", "transposition_table", "no"), ("expectimax", "transposition_table", 1),
    ("ismcts", "on_progress", 5), ("az", "on_progress", "print"),
    ("mcts", "skip_forced", "no"), ("ismcts", "reuse_tree", 1),
])
def test_option_types_are_checked_and_named(kind, option, bad):
    """``rollout_epsilon=None`` was a ``TypeError``; ``transposition_table="no"`` switched
    the table on (``bool("no")``); ``on_progress=5`` failed only inside the search."""
    game = load_game("rats_to_riches")
    kw = {"max_depth": 2} if kind == "expectimax" else {"iterations": 10}
    with pytest.raises(ValueError, match=option):
        make_bot(kind, game, 0, **kw, **{option: bad})


def test_a_random_bot_checks_the_budget_it_is_given():
    """``make_bot("random", ..., iterations=-5)`` was taken and ignored."""
    game = load_game("rat_trap")
    for kw in ({"iterations": -5}, {"time_limit": math.nan}, {"max_depth": 0}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            make_bot("random", game, 0, **kw)
    make_bot("random", game, 0, iterations=5, time_limit=0.1)   # valid, and unused


@pytest.mark.parametrize("kind", ["random", "mcts", "ismcts", "pimc", "az"])
def test_analyze_refuses_what_is_not_a_state_of_its_game(kind):
    """A 3-player Rat Trap bot answered a Ratapolis or a 5-player Rat Trap state with a
    confident move; ``analyze(None)`` was an ``AttributeError``; ``root_moves=3`` a
    ``TypeError`` from iterating an int."""
    game = load_game("rat_trap", num_players=3)
    kw = {} if kind == "random" else {"iterations": 10}
    if kind == "mcts":
        kw["determinize"] = True
    bot = make_bot(kind, game, 0, **kw)
    for other in (load_game("ratapolis", num_players=3), load_game("rat_trap", num_players=5),
                  load_game("rat_trap", num_players=3, roles=True)):
        s = other.new_initial_state()
        while s.current_player() != 0:
            outs = s.chance_outcomes() if s.is_chance_node() else None
            s.apply_action(outs[0][0] if outs else s.legal_actions()[0])
        with pytest.raises(ValueError, match="make the bot for the state's game"):
            bot.analyze(s)
    with pytest.raises(TypeError, match="takes a state"):
        bot.analyze(None)
    s = game.new_initial_state()
    while s.current_player() != 0:
        outs = s.chance_outcomes() if s.is_chance_node() else None
        s.apply_action(outs[0][0] if outs else s.legal_actions()[0])
    for bad in (3, "12", {"a": 1}):
        with pytest.raises(ValueError, match="root_moves"):
            bot.analyze(s, root_moves=bad)
    # the same rules on the other backend, and a cosmetic parameter, are the same game
    twin = load_game("rat_trap", backend="cython", num_players=3).deserialize_state(
        s.serialize())
    assert bot.analyze(twin).best_action in s.legal_actions()


def test_a_data_file_with_the_packaged_data_is_the_same_game():
    """A reviewer: a state of ``load_game("rat_trap", data_path=<the packaged file>)`` was
    refused by a bot of the default game, though the rules are the same: the component data
    are compared by content (``ratai.nn.model.game_data_hash``)."""
    import importlib.resources

    path = str(importlib.resources.files("ratai.engines.rat_trap").joinpath("rat_trap.json"))
    bot = make_bot("ismcts", load_game("rat_trap"), 0, iterations=10)
    s = load_game("rat_trap", data_path=path).new_initial_state()
    while s.current_player() != 0:
        s.apply_action(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0])
    assert bot.analyze(s).best_action in s.legal_actions()


def test_a_cosmetic_parameter_is_the_same_game():
    """Ratapolis' ``colors`` only renames things (``Param.cosmetic``)."""
    game = load_game("ratapolis")
    other = load_game("ratapolis", colors="orange,green,yellow,blue,red")
    s = _position(other, plies=0)
    bot = make_bot("ismcts", game, s.current_player(), iterations=10)
    assert bot.analyze(s).best_action in s.legal_actions()


@pytest.mark.parametrize("game_name", ["rats_to_riches", "rat_trap"])
@pytest.mark.parametrize("budget", ["iterations", "max_nodes"])
def test_expectimax_visits_at_most_its_node_budget(game_name, budget):
    """``iterations=N`` / ``max_nodes=N`` reported ``nodes = N + 1``: the node over the
    budget was counted before the search stopped."""
    game = load_game(game_name)
    s = _position(game)
    for n in (1, 40):
        kw = {"iterations": n} if budget == "iterations" else {"max_depth": 3, "max_nodes": n}
        an = make_bot("expectimax", game, s.current_player(), **kw).analyze(s)
        assert 1 <= an.nodes <= n, (n, an.nodes)


def test_mcts_at_a_joint_plan_node_lists_the_most_visited_plans_in_time():
    """``mcts(determinize=True)`` at a Ratapolis joint planning node labelled and reported
    all 14,641 joint plans: a 0.05 s search took 0.15 s (0.95 s on a loaded machine) with
    no iteration. It lists at most ``MAX_REPORTED_MOVES`` plans, as ``pimc`` does."""
    game = load_game("ratapolis", simultaneous=True)
    s = game.new_initial_state()
    rnd = random.Random(0)
    while s.current_player() != SIMULTANEOUS:
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
        else:
            s.apply_action(rnd.choice(s.legal_actions()))
    legal = s.legal_actions(0)
    assert len(legal) > MAX_REPORTED_MOVES
    an = make_bot("mcts", game, 0, iterations=300, determinize=True, seed=3).analyze(s)
    assert 1 <= len(an.moves) <= MAX_REPORTED_MOVES and an.best_action in legal
    assert an.best_action == an.moves[0].action and set(m.action for m in an.moves) <= \
        set(legal)
    t = time.thread_time()
    make_bot("mcts", game, 0, time_limit=0.05, determinize=True, seed=3).analyze(s)
    assert time.thread_time() - t < 0.15   # CPU time: a loaded machine's preemption aside


@pytest.mark.parametrize("kind", ["mcts", "ismcts", "az"])
@pytest.mark.parametrize("threads", [1, 2])
def test_a_tiny_memory_cap_searches_from_the_root_alone(kind, threads):
    """The compiled searches raised ``MemoryError: search tree`` for ``max_memory_mb`` below
    one node (and az below its root's priors), where the Python search keeps a one-node
    floor: both now search from the root with what fits and answer a legal move."""
    game = load_game("rats_to_riches" if kind == "mcts" else "rat_trap", backend="cython")
    s = _position(game)
    for mb in (1e-9, 1e-3):
        bot = make_bot(kind, game, s.current_player(), iterations=50, max_memory_mb=mb,
                       threads=threads, seed=1)
        an = bot.analyze(s)
        assert an.best_action in s.legal_actions() and an.iterations == 50


def test_a_stopped_search_still_answers_with_the_checked_inputs():
    """The checks above come before the clock: a valid call is unchanged (a stop flag set
    before the call answers a legal move at once)."""
    game = load_game("rat_trap")
    s = _position(game)
    ev = threading.Event()
    ev.set()
    an = make_bot("ismcts", game, s.current_player(), time_limit=5, seed=1).analyze(s, stop=ev)
    assert an.best_action in s.legal_actions()


@pytest.mark.parametrize("kind", ["mcts", "ismcts", "az"])
def test_a_huge_memory_cap_is_no_cap(kind):
    """A newcomer's ``max_memory_mb=1e15`` left the compiled tree at 7 nodes (its slot count
    overflowed a C long): a cap above what fits in memory behaves as no cap, node for node
    the same search as ``max_memory_mb=None``."""
    game = load_game("rats_to_riches" if kind == "mcts" else "rat_trap", backend="cython")
    s = _position(game)
    p = s.current_player()
    runs = [make_bot(kind, game, p, iterations=2000, seed=3, max_memory_mb=mb).analyze(s)
            for mb in (None, 1e15, 1e300)]
    assert runs[0].nodes > 100
    assert {(a.nodes, a.best_action, tuple(m.visits for m in a.moves)) for a in runs} == {
        (runs[0].nodes, runs[0].best_action, tuple(m.visits for m in runs[0].moves))}
