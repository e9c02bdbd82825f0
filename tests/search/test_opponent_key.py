"""Issue 13 item 1 / issue 14: the IS-MCTS tree after another seat's move (``opponent_key``).

A seat's later decisions must not be split by, nor chosen with, what it cannot see. With
``opponent_key="infostate"`` (the default ``"auto"`` in a game with hidden moves: Ratapolis'
secret plans, rulebook phase 2 "Planning actions") another seat's move keeps the mover's
statistics in the move's own child and the descent goes on from the node's child keyed by
the searching seat's information state after the move (Cowling, Powley & Whitehouse 2012,
SO-ISMCTS + partially observable moves). Checked here:

* ``Game.hidden_moves`` says what the rules do: some decision has two legal moves that leave
  another seat the same information state but different states exactly when it is true;
* the tree: every hidden plan of a rival leads to one node; a rival's run of moves (a
  plan's two cells) goes on below its first move, so its later cells are chosen knowing its
  earlier ones; with ``"action"`` the old tree;
* tree reuse walks on through a rival's hidden plan (it had to start afresh before); the
  walk's keys, the same whichever hidden plan was played, are tested with the action-keyed
  walk's in tests/search/test_reuse_ponder.py;
* options are checked; the compiled and the Python search agree on the law of the answer.
"""

from __future__ import annotations

import numpy as np
import pytest

from ratai.bots import make_bot
from ratai.engines import TERMINAL, load_game
from ratai.search import ISMCTS
from ratai.search.common import Budget, SearchRng
from ratai.search.ismcts import OPPONENT_KEYS, merges_moves
from ratai.search.reuse import ACTION, INFO, observed_path
from tests.conftest import game_variants

VARIANT_IDS_PY = [f"{g}-{v}" for g, v, _ in game_variants()]


def _sample(state, rng):
    if state.is_chance_node():
        outs = state.chance_outcomes()
        return outs[rng.choice(len(outs), p=[p for _, p in outs])][0]
    return int(rng.choice(state.legal_actions()))


def _has_hidden_move(s) -> bool:
    """Whether two legal moves of the mover leave some other seat the same information state
    but different states."""
    p = s.current_player()
    children = []
    for a in s.legal_actions()[:80]:
        t = s.clone()
        t.apply_action(a)
        children.append(t)
    for q in range(s.get_game().num_players()):
        if q == p:
            continue
        seen = {}
        for t in children:
            other = seen.setdefault(t.information_state_string(q), t)
            if other is not t and other != t:
                return True
    return False


@pytest.mark.parametrize("name,variant,params", game_variants(), ids=VARIANT_IDS_PY)
def test_hidden_moves_flag_matches_the_rules(name, variant, params):
    """``Game.hidden_moves`` (engines/api.py) is what random playouts find, in every named
    variant: Ratapolis' plans are hidden until the reveal (rulebook, phase 2 "Planning
    actions"); in Rat Trap with roles the Manipulator's order of a pile (rulebook, THE
    MANIPULATOR); every other move is public to the other seats."""
    game = load_game(name, **params)
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(4 if game.hidden_moves else 2):
        s = game.new_initial_state()
        for _ in range(160):
            if s.current_player() == TERMINAL:
                break
            if s.current_player() >= 0 and len(s.legal_actions()) > 1 and _has_hidden_move(s):
                found += 1
                if not game.hidden_moves:
                    break
            s.apply_action(_sample(s, rng))
    assert (found > 0) == game.hidden_moves, (name, found)


def test_opponent_key_values():
    ratapolis, rat_trap = load_game("ratapolis"), load_game("rat_trap")
    assert merges_moves(ratapolis, "auto") and not merges_moves(rat_trap, "auto")
    assert merges_moves(rat_trap, "infostate") and not merges_moves(ratapolis, "action")
    with pytest.raises(ValueError, match="opponent_key.*'auto', 'infostate', 'action'"):
        merges_moves(rat_trap, "public")
    for kind in ("ismcts", "az"):
        with pytest.raises(ValueError, match="opponent_key"):
            make_bot(kind, rat_trap, 0, iterations=10, opponent_key="nope")
        assert make_bot(kind, ratapolis, 0, iterations=10).search.merge
        assert not make_bot(kind, ratapolis, 0, iterations=10,
                            opponent_key="action").search.merge
    assert OPPONENT_KEYS == ("auto", "infostate", "action")


def _ratapolis_first_planner(n=3, seed=1, backend="python"):
    """A Ratapolis position where seat ``me`` plans and a rival plans after it (hidden)."""
    game = load_game("ratapolis", num_players=n, backend=backend)
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    while True:
        p = s.current_player()
        if p >= 0 and len(s.legal_actions()) > 1 and _has_hidden_move(s):
            t = s.clone()
            t.apply_action(t.legal_actions()[0])
            if t.current_player() >= 0 and t.current_player() != p and _has_hidden_move(t):
                return game, s, p
        s.apply_action(_sample(s, rng))


def _nodes(node):
    yield node
    for ch in node.children.values():
        yield from _nodes(ch)


@pytest.mark.parametrize("opponent_key", ["infostate", "action"])
def test_the_tree_joins_a_rivals_hidden_plans(opponent_key):
    game, s, me = _ratapolis_first_planner()
    search = ISMCTS(game, me, opponent_key=opponent_key)
    # one root move: its rivals' runs complete in the tree
    search.analyze(s, Budget(iterations=1000).check(), SearchRng(3, s, me),
                   allowed=s.legal_actions()[:1], keep=True)
    root = search.last_root
    joined = 0
    for node in _nodes(root):
        if node.player < 0 or node.player == me:
            continue
        moves = {k: ch for k, ch in node.children.items() if isinstance(k, int)}
        seen = {k: ch for k, ch in node.children.items() if isinstance(k, str)}
        if opponent_key == "action":
            assert not seen          # the move's child is the continuation
            continue
        # a descent through the node passes one move's child, and one observed child once
        # the mover's run of moves (a plan's two cells) ends in the tree
        assert sum(ch.visits for ch in seen.values()) <= sum(ch.visits for ch in moves.values())
        # a run goes on below the move's child by the mover's next moves (action ids)
        assert all(isinstance(k, int) for ch in moves.values() for k in ch.children)
        if len(moves) >= 2 and len(seen) == 1:
            joined += 1
    assert joined > 0 or opponent_key == "action"


def test_compiled_and_python_search_agree_on_the_merged_tree():
    """The compiled search runs the same algorithm (its random streams differ): searching
    one root move, so that rivals' runs complete in the tree, both grow trees of the same
    size and both PVs go on through the rivals' hidden plans."""
    game, s, me = _ratapolis_first_planner(n=3, seed=4)
    cy_game = load_game("ratapolis", num_players=3, backend="cython")
    cs = cy_game.from_reference(s)
    root = s.legal_actions()[:1]
    py = make_bot("ismcts", game, me, seed=2, iterations=1500,
                  search_backend="python").analyze(s, root_moves=root)
    cy = make_bot("ismcts", cy_game, me, seed=2, iterations=1500).analyze(cs, root_moves=root)
    # a descent ends at the first node it adds, but a rival's completed run adds its last
    # move's child and then goes on in the node it leads to: more nodes than iterations
    assert py.nodes > py.iterations + 100
    assert abs(cy.nodes - py.nodes) <= 0.1 * py.nodes, (cy.nodes, py.nodes)
    for an in (py, cy):
        assert len([step for step in an.pv if step.player != me]) >= 3, an.pv


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_the_pv_goes_on_through_a_rivals_hidden_plans(backend):
    """A root move's principal variation follows the merged tree through the rivals' hidden
    plan steps (the Python search on a twin state too: its line keeps the information
    states the tree is keyed by)."""
    game, s, me = _ratapolis_first_planner(n=3, seed=1, backend=backend)
    bot = make_bot("ismcts", game, me, seed=3, iterations=400, search_backend="python")
    an = bot.analyze(s, root_moves=s.legal_actions()[:1])
    rivals = [step for step in an.pv[1:] if step.player != me]
    assert len(rivals) >= 3, an.pv       # two plan steps of one rival, then the next's


@pytest.mark.parametrize("kind", ["ismcts", "az"])
def test_a_kept_tree_goes_on_through_a_rivals_hidden_plan(kind):
    """Seat ``me`` plans, then a rival plans (hidden from it): the observed keys lead on to
    the node the plan leads to, whichever plan it was, and a search continued there (a
    ponder search, as on the rival's time) keeps the visits that node had. The action-keyed
    tree cannot: its walk stops at the hidden plan (``None``: start afresh)."""
    from ratai._speedups import search as cy
    from ratai.bots.az import load_model

    game, s, me = _ratapolis_first_planner(n=3, seed=0, backend="cython")
    rng = np.random.default_rng(0)
    plans = set()
    for _ in range(3):
        w = cy.CyAZ(me, load_model(None, game), rollout_mix=1.0, merge=True) \
            if kind == "az" else cy.CyISMCTS(me, 0.7, "infostate", merge=True)
        mine = s.legal_actions()[0]      # one root move: the rival's runs complete in the tree
        w.analyze(s, Budget(iterations=3000), SearchRng(7, s, me), allowed=[mine], keep=True)
        steps = [mine]
        s2 = s.clone()
        s2.apply_action(mine)
        rival = s2.current_player()
        while s2.current_player() == rival:     # the rival's plan, both cells, at random
            steps.append(int(rng.choice(s2.legal_actions())))
            s2.apply_action(steps[-1])
        plans.add(tuple(steps[1:]))
        assert observed_path(s, steps, me, seed=7) is None   # action keys: hidden
        keys = observed_path(s, steps, me, merge=True, seed=7, info_hash=cy.info_hash)
        assert keys[0] == (ACTION, mine) and [k[0] for k in keys[1:]] == [INFO]
        assert w.ponder(s2, keys, Budget(iterations=500), SearchRng(7, s2, me)) == 500
        assert w.kept_visits() > 500            # the node's earlier visits carried over
        w.release()
    assert len(plans) > 1
