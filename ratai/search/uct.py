"""UCT: Monte Carlo tree search with UCB1 selection (Kocsis & Szepesvári 2006).

"Bandit based Monte-Carlo Planning", L. Kocsis and C. Szepesvári, ECML 2006, with the UCB1
rule of Auer, Cesa-Bianchi and Fischer (2002). Extensions used here:

* **Vector returns for n players**: every node keeps the summed ``returns()`` of all seats;
  the seat to move at a node maximises its own component (the max^n view of MCTS,
  Sturtevant 2008, "An Analysis of UCT in Multi-Player Games").
* **Chance nodes sampled** from ``chance_outcomes()``; each sampled outcome gets its own
  child, so the tree is closed-loop over chance.
* **Decoupled UCT at simultaneous nodes** (``current_player() == SIMULTANEOUS``): each seat
  runs its own UCB1 bandit over its own actions and the joint action indexes the child
  (Lanctot, Lisý & Winands 2013, "Monte Carlo Tree Search in Simultaneous Move Games with
  Applications to Goofspiel"; Tak, Lanctot & Winands 2014, "Monte Carlo Tree Search
  Variants for Simultaneous Move Games"). :mod:`ratai.search.smmcts` documents that view.
* Random or heuristic-guided rollouts, optionally cut off after a number of plies and scored
  with ``game.heuristic_value`` (see :class:`ratai.search.common.Rollout`).

UCT needs the true state, so it is for perfect-information play; the bots apply it to a
determinization for hidden-information games only when asked (``determinize=True``,
or ``pimc`` which averages several).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ratai.engines.api import CHANCE, INVALID, SIMULTANEOUS, TERMINAL, Game, State

from .common import (
    MAX_EXPLORATION,
    Analysis,
    MoveStat,
    PVStep,
    Rollout,
    apply_for_labels,
    apply_joint,
    apply_unchecked,
    check_number,
    free_later,
    joint_legal,
    paused_gc,
    root_labels,
    sample_outcome,
    sort_moves,
    start_reaper,
)

__all__ = ["UCT", "Node", "RunResult", "root_moves", "tree_pv", "analyze_uct",
           "PY_NODE_BYTES", "MULTI_PV_LIMIT"]

#: Size of one Python UCT/IS-MCTS node with its statistics, child-dict entry and expansion
#: lists (bytes): the largest ``bench/memory.py --python`` measured (475-1,493 B per node over
#: Rat Trap and Rats to Riches); converts ``max_memory_mb`` into a node cap.
PY_NODE_BYTES = 1500
#: Plies of each non-best move's own PV (the best move's PV keeps 64).
MULTI_PV_LIMIT = 8


class Node:
    """A UCT tree node (one per state reached).

    ``visits`` and ``value`` (sums of returns per seat) are the statistics of the move that
    led here, seen from the parent. Expansion data is filled lazily on the first visit
    so leaf nodes cost no legal-move generation.
    """

    __slots__ = ("player", "children", "visits", "value", "untried", "outcomes",
                 "legal", "svis", "sval")

    def __init__(self, player: int, n: int):
        self.player = player
        self.children: dict = {}
        self.visits = 0
        self.value = [0.0] * n
        self.untried: list[int] | None = None
        self.outcomes: list[tuple[int, float]] | None = None
        self.legal: list[list[int]] | None = None
        self.svis: list[list[int]] | None = None
        self.sval: list[list[float]] | None = None


@dataclass
class RunResult:
    """Raw outcome of one tree search (before it is turned into an ``Analysis``)."""

    root: Any
    iterations: int
    nodes: int
    max_depth: int
    stopped: bool
    capped: bool = False   # the node cap was reached (the tree stopped growing)
    max_nodes: int = 2**62


class UCT:
    """UCT search for seat ``player`` of ``game``.

    Args:
        game: the game.
        player: the searching seat (its moves are reported at the root).
        exploration: the UCB1 constant ``c`` in ``Q + c * sqrt(ln N / n)`` (returns are in
            [0, 1]; ``sqrt(2)`` is UCB1's original value, smaller is greedier).
        rollout: ``"random"`` or ``"heuristic"`` playouts.
        rollout_cutoff: plies after which a playout is scored by the heuristic (``None``: to
            the end).
        rollout_epsilon: exploration rate of the heuristic playout policy.

    Raises:
        ValueError: a bad parameter (named).
    """

    def __init__(self, game: Game, player: int, *, exploration: float = 1.0,
                 rollout: str = "random", rollout_cutoff: int | None = None,
                 rollout_epsilon: float = 0.1):
        self.game = game
        self.player = player
        self.n = game.num_players()
        self.c = check_number("exploration", exploration, 0.0, MAX_EXPLORATION)
        self.rollout = Rollout(game, rollout, rollout_cutoff, rollout_epsilon)

    # -- the search loop ---------------------------------------------------------------
    def run(self, state: State, budget, rnd: random.Random,
            hook: Callable[[int, Any], bool] | None = None, every: int = 0,
            allowed: list[int] | None = None, max_nodes: int = 2**62) -> RunResult:
        """Search from ``state`` (not modified) until ``budget`` is spent.

        ``hook(iterations, partial_result)`` is called every ``every`` iterations; returning
        False stops the search. ``allowed`` restricts the root's moves (legal actions of
        the root's seat; ``None``: all; ``ValueError`` at a ``SIMULTANEOUS`` root).
        ``max_nodes`` caps the tree: once it holds that
        many nodes no node is added (descents end at the frontier and play out from there),
        so memory stays bounded and the search still answers within its budget.
        """
        root = Node(state.current_player(), self.n)
        if allowed is not None:
            if root.player == SIMULTANEOUS:
                raise ValueError("root_moves is not supported at a SIMULTANEOUS root (the "
                                 "joint-move view); use the sequential view")
            root.untried = list(allowed)
        res = RunResult(root, 0, 1, 0, False, max_nodes=max_nodes)
        budget.begin()
        it = 0
        with paused_gc():
            while not budget.done(it):
                self._iterate(root, state, rnd, res)
                it += 1
                res.iterations = it
                if hook is not None and every and it % every == 0 and hook(it, res) is False:
                    res.stopped = True
                    break
        return res

    def _iterate(self, root: Node, root_state: State, rnd: random.Random, res: RunResult) -> None:
        n, c = self.n, self.c
        s = root_state.clone()
        node = root
        path = [root]
        sims: list[tuple[Node, list[int]]] = []
        depth = 0
        while True:
            p = node.player
            if p == TERMINAL:
                break
            if p == CHANCE:
                if node.outcomes is None:
                    node.outcomes = s._chance_outcomes()
                a = sample_outcome(node.outcomes, rnd.random())
                apply_unchecked(s, a)
                child = node.children.get(a)
                depth += 1
                if child is None:
                    if res.nodes >= res.max_nodes:
                        res.capped = True
                        break
                    child = node.children[a] = Node(s.current_player(), n)
                    res.nodes += 1
                node = child
                path.append(node)
                continue
            if p == SIMULTANEOUS:
                idx = self._select_joint(node, s, rnd)
                joint = tuple(la[j] if j >= 0 else INVALID
                              for la, j in zip(node.legal, idx, strict=True))
                apply_joint(s, joint)
                sims.append((node, idx))
                child = node.children.get(joint)
                depth += 1
                if child is None:
                    if res.nodes >= res.max_nodes:
                        res.capped = True
                        break
                    child = node.children[joint] = Node(s.current_player(), n)
                    res.nodes += 1
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
            untried = node.untried
            if untried is None:
                untried = node.untried = list(s._legal_actions())
            if untried and res.nodes >= res.max_nodes:
                res.capped = True
                if not node.children:
                    break  # a frontier node: play out from here
                untried = ()  # select among the children it has
            if untried:
                i = int(rnd.random() * len(untried))
                a = untried[i]
                untried[i] = untried[-1]
                untried.pop()
                apply_unchecked(s, a)
                child = node.children[a] = Node(s.current_player(), n)
                res.nodes += 1
                path.append(child)
                depth += 1
                break
            # UCB1 over the children, maximising the mover's own component.
            logn = math.log(node.visits) if node.visits > 1 else 0.0
            best_a, best, best_u = -1, None, -math.inf
            for a, ch in node.children.items():
                cv = ch.visits
                u = ch.value[p] / cv + c * math.sqrt(logn / cv)
                if u > best_u:
                    best_a, best, best_u = a, ch, u
            apply_unchecked(s, best_a)
            node = best
            path.append(node)
            depth += 1
        if depth > res.max_depth:
            res.max_depth = depth
        if s.current_player() == TERMINAL:
            values = s._returns()
        else:
            values, _ = self.rollout(s, rnd)
        for nd in path:
            nd.visits += 1
            vals = nd.value
            for i in range(n):
                vals[i] += values[i]
        for nd, idx in sims:
            for i, j in enumerate(idx):
                if j >= 0:
                    nd.svis[i][j] += 1
                    nd.sval[i][j] += values[i]

    def _select_joint(self, node: Node, s: State, rnd: random.Random) -> list[int]:
        """Decoupled UCB1: each seat picks its own action index (``-1`` if it has none)."""
        if node.legal is None:
            node.legal = joint_legal(s, self.n)
            node.svis = [[0] * len(la) for la in node.legal]
            node.sval = [[0.0] * len(la) for la in node.legal]
        logn = math.log(node.visits) if node.visits > 1 else 0.0
        c = self.c
        idx = []
        for la, vis, val in zip(node.legal, node.svis, node.sval, strict=False):
            if not la:
                idx.append(-1)
                continue
            if 0 in vis:
                # An untried action first: a random start, then the next untried one
                # (O(1) expected while few are tried; plans can number in the thousands).
                j = int(rnd.random() * len(la))
                while vis[j]:
                    j = j + 1 if j + 1 < len(la) else 0
                idx.append(j)
                continue
            best_j, best_u = 0, -math.inf
            for j, v in enumerate(vis):
                u = val[j] / v + c * math.sqrt(logn / v)
                if u > best_u:
                    best_j, best_u = j, u
            idx.append(best_j)
        return idx


# -- turning trees into reports ----------------------------------------------------------
#: With more legal moves than this (a joint plan node), ``Analysis.moves`` lists only the
#: this many most visited moves (labelling thousands of plans would outlast the budget).
MAX_REPORTED_MOVES = 256


def reported_moves(legal: list[int], visits: dict[int, int]) -> list[int]:
    """The root moves a report lists: all of ``legal``, or past :data:`MAX_REPORTED_MOVES`
    (a joint plan node: 14,641 plans in Ratapolis' joint view) the most visited ones by
    ``visits`` (``{action: root visits}``), in legal order (the first move if none was)."""
    if len(legal) <= MAX_REPORTED_MOVES:
        return legal
    top = set(sorted(visits, key=lambda a: -visits[a])[:MAX_REPORTED_MOVES])
    return [a for a in legal if a in top] or legal[:1]


def root_visits(root: Node, player: int, out: dict[int, int]) -> dict[int, int]:
    """Add ``root``'s visits per move of ``player`` to ``out`` (a decision root's children,
    or a ``SIMULTANEOUS`` root's decoupled statistics of the seat); returns ``out``."""
    if root.player == SIMULTANEOUS and root.legal is not None:
        for a, v in zip(root.legal[player], root.svis[player], strict=True):
            if v:
                out[a] = out.get(a, 0) + v
        return out
    for a, ch in root.children.items():
        out[a] = out.get(a, 0) + ch.visits
    return out


def root_moves(roots: list[Node], player: int, legal: list[int], label: Callable[[int], str],
               n: int, tiebreak: dict[int, float] | None = None,
               pv_of: Callable[[int, int], tuple[PVStep, ...]] | None = None,
               until: float = math.inf) -> tuple[MoveStat, ...]:
    """Per-move statistics summed over one or more root nodes (PIMC sums its worlds).

    Works for a decision root (children keyed by action) and a ``SIMULTANEOUS`` root (the
    seat's decoupled bandit statistics). ``legal`` lists the moves to report (the root
    restriction, if any); ``tiebreak`` is the seeded last key of :func:`sort_moves`.
    ``pv_of(action, limit)`` gives a visited move's own PV (multi-PV; the best move gets 64
    plies, the others :data:`MULTI_PV_LIMIT`); an unvisited move's PV is the move alone.
    """
    visits = {a: 0 for a in legal}
    sums = {a: [0.0] * n for a in legal}
    for root in roots:
        if root.player == SIMULTANEOUS and root.legal is not None:
            for a, v, w in zip(root.legal[player], root.svis[player], root.sval[player],
                               strict=True):
                if a in visits:
                    visits[a] += v
                    sums[a][player] += w
            continue
        for a, ch in root.children.items():
            if a in visits:
                visits[a] += ch.visits
                for i in range(n):
                    sums[a][i] += ch.value[i]
    prior = 1.0 / len(legal) if legal else 0.0
    moves = []
    for a in legal:
        v = visits[a]
        vals = tuple((x / v) if v else 0.0 for x in sums[a])
        moves.append(MoveStat(int(a), label(a), int(v), vals[player], prior, vals))
    moves = sort_moves(moves, tiebreak)
    return with_pvs(moves, player, pv_of, until)


def with_pvs(moves: tuple[MoveStat, ...], player: int,
             pv_of: Callable[[int, int], tuple[PVStep, ...]] | None,
             until: float = math.inf) -> tuple[MoveStat, ...]:
    """``moves`` (sorted best first) with each move's own ``pv`` filled (see
    :func:`root_moves`); a PV always starts with its move.

    The best move's PV runs to 64 plies, the others' to ``MULTI_PV_LIMIT``. ``until`` (a
    ``time.perf_counter`` time, the budget's :attr:`~ratai.search.common.Budget.end`)
    bounds the report: once it has passed, the remaining moves' PVs are their first move
    only, so labelling a wide root (Ratapolis: 100-220 moves, ~20 us a step) cannot run
    the answer past its time limit. Without a time limit (``inf``) every PV is full.
    """
    out = []
    clock = time.perf_counter
    for i, m in enumerate(moves):
        pv: tuple[PVStep, ...] = ()
        if pv_of is not None and m.visits and (i == 0 or clock() < until):
            pv = pv_of(m.action, 64 if i == 0 else MULTI_PV_LIMIT)
        if not pv or pv[0].action != m.action:
            pv = (PVStep(player, m.action, m.label),)
        out.append(MoveStat(m.action, m.label, m.visits, m.value, m.prior, m.values, pv))
    return tuple(out)


def tree_pv(root: Node, state: State, first: int | None, player: int, limit: int = 64
            ) -> tuple[PVStep, ...]:
    """Principal variation: from ``root`` follow the most visited child (``first`` forces the
    first move of seat ``player``), labelling moves by replaying them on a clone of ``state``."""
    s = state.clone()
    node = root
    pv: list[PVStep] = []
    while node is not None and len(pv) < limit and not s.is_terminal():
        p = s.current_player()
        if p == SIMULTANEOUS:
            if not node.children or node.svis is None:
                break
            joint = tuple(la[_argmax(vis)] if la else INVALID
                          for la, vis in zip(node.legal, node.svis, strict=False))
            if first is not None and node is root:
                joint = tuple(first if i == player else a for i, a in enumerate(joint))
            for i, a in enumerate(joint):
                if a != INVALID:
                    pv.append(PVStep(i, int(a), s.action_to_string(i, a)))
            child = node.children.get(joint)
            apply_joint(s, joint)
            node = child
            continue
        if not node.children:
            break
        if first is not None and node is root and first in node.children:
            a = first
        else:
            a = max(node.children.items(),
                    key=lambda kv: (kv[1].visits, _mean(kv[1], p), -kv[0]))[0]
        if node.children[a].visits == 0:
            break
        pv.append(PVStep(int(p), int(a), s.action_to_string(p, a)))
        apply_for_labels(s, a)
        node = node.children[a]
    return tuple(pv)


def _argmax(vis: list[int]) -> int:
    best, bv = 0, -1
    for j, v in enumerate(vis):
        if v > bv:
            best, bv = j, v
    return best


def _mean(node: Node, p: int) -> float:
    if p < 0 or not node.visits:
        return 0.0
    return node.value[p] / node.visits


def analyze_uct(search: UCT, state: State, budget, srng, on_progress=None, every: int = 100,
                seed: Any = None, kind: str = "mcts", allowed: list[int] | None = None,
                max_nodes: int = 2**62) -> Analysis:
    """Run ``search`` from ``state`` and report it as an :class:`Analysis`.

    ``on_progress(analysis)`` is called every ``every`` iterations; returning ``False``
    stops the search (the result so far is returned). ``allowed`` restricts the root moves
    (validated by the caller, :func:`ratai.search.common.check_root_moves`); ``max_nodes``
    caps the tree (:meth:`UCT.run`). Every reported move carries its own PV. The tree is
    freed off the caller's path (:func:`ratai.search.common.free_later`).
    """
    player, n = search.player, search.n
    budget.begin()
    start_reaper()
    legal = state.legal_actions(player) if allowed is None else list(allowed)
    tie = srng.tiebreak(legal)
    # the moves a report can list, labelled now (reserving the report's time in the budget);
    # past MAX_REPORTED_MOVES (a joint plan node) the others are labelled when shown
    labels = root_labels(state, player, legal[:MAX_REPORTED_MOVES], budget, MULTI_PV_LIMIT)

    def label(a: int) -> str:
        text = labels.get(a)
        if text is None:
            text = labels[a] = state.action_to_string(player, a)
        return text

    def report(res: RunResult) -> Analysis:
        shown = reported_moves(legal, root_visits(res.root, player, {})) \
            if len(legal) > MAX_REPORTED_MOVES else legal
        moves = root_moves([res.root], player, shown, label, n, tie,
                           lambda a, lim: tree_pv(res.root, state, a, player, lim),
                           budget.end)
        best = moves[0].action
        return Analysis(best, moves, moves[0].pv, res.iterations,
                        res.nodes, res.max_depth, budget.elapsed(), seed, player, kind)

    hook = None
    if on_progress is not None:
        def hook(it: int, res: RunResult) -> bool:
            return on_progress(report(res)) is not False
    res = search.run(state, budget, srng.py, hook, every, allowed, max_nodes)
    out = report(res)
    free_later(res.root)
    return out
