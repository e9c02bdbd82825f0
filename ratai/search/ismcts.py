"""Single-observer information set MCTS (SO-ISMCTS).

Cowling, Powley & Whitehouse 2012, "Information Set Monte Carlo Tree Search", IEEE
Transactions on Computational Intelligence and AI in Games 4(2), Algorithm 2 (SO-ISMCTS):

* every iteration draws a fresh determinization ``state.resample_from_infostate(player, rng)``
  — a full state consistent with what the searching seat knows — and descends one shared
  tree with it;
* tree nodes are information sets *of the searching seat*: its own moves are keyed by action
  id; chance outcomes by what the searching seat perceives of them — by default its
  ``information_state_string`` after the outcome, so a hidden draw merges into one child and a
  public die roll splits into one child per face;
* another seat's move is chosen by that seat's UCB1 over per-move statistics kept at the node
  (the move's child, keyed by action id). With ``opponent_key="infostate"``, when that seat's
  run of moves ends (the next mover is someone else: a Ratapolis plan is two moves, its left
  and right cells) the descent goes on from the child of the node the run began at keyed by
  the searching seat's information state after it, as for chance: runs the seat cannot tell
  apart (rivals' secret plans) lead to one node, and the seat's later decisions are not
  split by, nor chosen with, what it cannot see (:func:`merged_next`). Inside a run the
  mover's later moves hang below its earlier ones, so it chooses them knowing its own plan.
  This is the paper's *partially observable moves* (SO-ISMCTS + POM, section V-B), except
  that the mover picks its concrete moves by its own statistics rather than uniformly. With
  ``"action"`` the move's child is itself the continuation (plain SO-ISMCTS: the seat's later
  nodes are split by other seats' hidden choices). ``"auto"`` (default) is ``"infostate"``
  in a game with hidden moves (``Game.hidden_moves``) and ``"action"`` elsewhere, where
  every move is observable and both give the same tree. A descent still ends at the first
  node it adds, so a rival's run joins the shared node only once its moves are in the tree:
  with hundreds of plans per rival that takes many visits of the node it starts at. A
  descent through such a node passes one move's child and, when the run completes in the
  tree, one observed child, so the observed children's visits never exceed the moves';
* selection is UCB1 with **availability counts**: an action legal in only some
  determinizations has its exploration term computed from the number of times it was
  available, not the parent's visit count (``Q + c * sqrt(ln avail / n)``);
* values are vectors of returns for all seats; each seat maximises its own component.

Because the search reads the root only through ``resample_from_infostate``, two states with
the same ``information_state_string(player)`` give identical searches for the same seed.
Hidden simultaneous commitments in the sequential view (Ratapolis planning) are hidden
opponent moves here (see ``opponent_key`` above). In a joint-move view a ``SIMULTANEOUS``
node inside the tree is a leaf (scored by the playout), and one at the root is refused: use
``smmcts`` there.
"""

from __future__ import annotations

import math
from typing import Any

from ratai.engines.api import CHANCE, SIMULTANEOUS, TERMINAL, Game, State

from .common import (
    MAX_EXPLORATION,
    Analysis,
    PVStep,
    Rollout,
    apply_for_labels,
    apply_unchecked,
    argmax_ties,
    begin_determinized_root,
    check_number,
    determinized_loop,
    free_later,
    paused_gc,
    sample_outcome,
)
from .uct import MULTI_PV_LIMIT, root_moves

__all__ = ["ISMCTS", "ISNode", "OPPONENT_KEYS", "merges_moves"]

#: Values of ``opponent_key`` (the module docstring).
OPPONENT_KEYS = ("auto", "infostate", "action")


def merges_moves(game: Game, opponent_key: str) -> bool:
    """Whether a search with ``opponent_key`` continues after another seat's move in the child
    keyed by the searching seat's information state (``"infostate"``, or ``"auto"`` in a game
    whose ``hidden_moves`` is true) rather than in the move's own child (``"action"``).

    Raises:
        ValueError: an ``opponent_key`` not in :data:`OPPONENT_KEYS`.
    """
    if opponent_key not in OPPONENT_KEYS:
        raise ValueError(f"bad opponent_key {opponent_key!r}: allowed one of {OPPONENT_KEYS}")
    if opponent_key == "auto":
        return bool(game.hidden_moves)
    return opponent_key == "infostate"


def merged_next(node, child, p: int, s: State, me: int, run: list, make, stats: list[int],
                cap: int):
    """Where the descent goes after another seat ``p``'s move, applied to ``s``, at ``node``
    (``child``: the move's own child) in a merged tree. While ``p`` moves again (a run of its
    moves: a Ratapolis plan's cells) the run goes on in ``child``, so its later moves are
    chosen knowing its earlier ones, and ``run[0]`` remembers the node the run began at;
    when the run ends the descent goes on from that node's child keyed by seat ``me``'s
    information state (:func:`observed_child`), shared by every run the seat cannot tell
    apart. Returns ``(next node or None at the node cap, whether it was made now)``."""
    if s.current_player() == p:
        if run[0] is None:
            run[0] = node
        return child, False
    base = node if run[0] is None else run[0]
    run[0] = None
    return observed_child(base, s, me, make, stats, cap)


def observed_child(node, s: State, me: int, make, stats: list[int], cap: int):
    """After another seat's move applied to ``s``: ``node``'s child keyed by seat ``me``'s
    information state (made by ``make()`` and counted in ``stats[1]`` when new), or ``None``
    at the node cap. Returns ``(child, new)``."""
    key = s.information_state_string(me)
    child = node.children.get(key)
    if child is not None:
        return child, False
    if stats[1] >= cap:
        return None, False
    child = node.children[key] = make()
    stats[1] += 1
    return child, True


class ISNode:
    """A node of the searching seat's information-set tree.

    ``visits``/``value`` are the statistics of the edge into this node; ``avail`` counts the
    iterations in which that edge was available at the parent.
    """

    __slots__ = ("children", "visits", "avail", "value", "player")

    def __init__(self, n: int, player: int = -99):
        self.children: dict = {}
        self.visits = 0
        self.avail = 1
        self.value = [0.0] * n
        self.player = player


def _ucb(ch: ISNode, p: int, c: float) -> float:
    """UCB1 with availability (Cowling, Powley & Whitehouse 2012) of child ``ch`` for its
    mover ``p``: the mean return plus ``c * sqrt(ln(avail) / visits)``."""
    return ch.value[p] / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)


class ISMCTS:
    """SO-ISMCTS for seat ``player`` of ``game`` (see the module docstring).

    Args:
        game: the game (hidden information and chance allowed).
        player: the searching seat.
        exploration: the UCB1 constant ``c``.
        rollout, rollout_cutoff, rollout_epsilon: the playout policy
            (:class:`ratai.search.common.Rollout`).
        chance_key: ``"infostate"`` (children of chance nodes keyed by the seat's information
            state after the outcome; exact) or ``"action"`` (keyed by outcome id: faster,
            but splits the tree on outcomes the seat cannot see).
        opponent_key: ``"auto"``, ``"infostate"`` or ``"action"``: how the tree continues
            after another seat's move (module docstring; :func:`merges_moves`).

    Raises:
        ValueError: a bad parameter (named).
    """

    CHANCE_KEYS = ("infostate", "action")
    OPPONENT_KEYS = OPPONENT_KEYS

    def __init__(self, game: Game, player: int, *, exploration: float = 0.7,
                 rollout: str = "random", rollout_cutoff: int | None = None,
                 rollout_epsilon: float = 0.1, chance_key: str = "infostate",
                 opponent_key: str = "auto"):
        if chance_key not in self.CHANCE_KEYS:
            raise ValueError(f"bad chance_key {chance_key!r}: allowed one of {self.CHANCE_KEYS}")
        self.game = game
        self.player = player
        self.n = game.num_players()
        self.c = check_number("exploration", exploration, 0.0, MAX_EXPLORATION)
        self.rollout = Rollout(game, rollout, rollout_cutoff, rollout_epsilon)
        self.chance_key = str(chance_key)   # (a str subclass goes to the compiled search)
        self.opponent_key = opponent_key
        #: other seats' moves continue in the child keyed by the seat's information state
        self.merge = merges_moves(game, opponent_key)
        self._allowed: set[int] | None = None
        self._max_nodes = 2**62
        self.last_root: ISNode | None = None
        self.last_nodes = 0

    def analyze(self, state: State, budget, srng, on_progress=None, every: int = 100,
                seed: Any = None, kind: str = "ismcts", allowed: list[int] | None = None,
                max_nodes: int = 2**62, root: ISNode | None = None, nodes: int = 1,
                keep: bool = False) -> Analysis:
        """Search from the seat's information state in ``state`` and report an ``Analysis``.

        ``state`` is read only through ``resample_from_infostate`` and the seat's own legal
        actions. Labels come from one extra determinization. ``allowed`` restricts the root
        moves (validated by the caller); ``max_nodes`` caps the tree: at the cap no node is
        added and descents play out from the frontier. Every reported move carries its own PV
        (through the tree's decision nodes, see ``_pv``); the tree is freed off the caller's
        path.

        Tree reuse: ``root`` continues a kept node (``walk`` from an earlier search's
        ``last_root``; its statistics carry over and ``nodes`` says how many nodes the kept
        tree holds, for the cap); ``keep=True`` keeps the tree in ``self.last_root`` instead
        of freeing it.
        """
        player, n = self.player, self.n
        legal, tie, label_state, labels = begin_determinized_root(
            "ismcts", state, player, budget, srng, allowed, MULTI_PV_LIMIT, " or the smmcts bot")
        root = ISNode(n, player) if root is None else root
        stats = [0, nodes, 0]  # iterations, nodes, max depth
        self._allowed = None if allowed is None else set(allowed)
        self._max_nodes = max_nodes

        def report() -> Analysis:
            moves = root_moves([root], player, legal, labels.__getitem__, n, tie,
                               lambda a, lim: _pv(root, label_state, a, lim, self.merge),
                               budget.end)
            best = moves[0].action
            return Analysis(best, moves, moves[0].pv, stats[0], stats[1],
                            stats[2], budget.elapsed(), seed, player, kind)

        with paused_gc():
            determinized_loop(state, player, budget, srng, stats,
                              lambda world, rnd, st: self._iterate(root, world, rnd, st),
                              on_progress, every, report)
        out = report()
        if keep:
            self.last_root, self.last_nodes = root, stats[1]
        else:
            free_later(root)
        return out

    def walk(self, root: ISNode, keys) -> ISNode | None:
        """The node of ``root``'s tree the observed ``keys`` lead to
        (:func:`ratai.search.reuse.observed_path`), or ``None`` (a key the tree never saw)."""
        by_info = self.chance_key == "infostate"
        node = root
        for key in keys:
            kind = key[0]
            if kind == "a":
                k = key[1]
            elif kind == "i" and (by_info or self.merge):
                k = key[1]
            elif kind == "c" and not by_info:
                k = ("c", key[1])
            else:
                return None
            node = node.children.get(k)
            if node is None:
                return None
        return node

    def _iterate(self, root: ISNode, s: State, rnd, stats: list[int]) -> None:
        n, c, me = self.n, self.c, self.player
        allowed, cap = self._allowed, self._max_nodes
        by_info = self.chance_key == "infostate"
        node = root
        path = [root]
        depth = 0
        run = [None]        # the node another seat's run of moves began at (merged trees)
        while True:
            p = s.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                a = sample_outcome(s._chance_outcomes(), rnd.random())
                apply_unchecked(s, a)
                key = s.information_state_string(me) if by_info else ("c", a)
                child = node.children.get(key)
                depth += 1
                if child is None:
                    if stats[1] >= cap:
                        break  # the node cap: play out from the frontier
                    child = node.children[key] = ISNode(n, CHANCE)
                    stats[1] += 1
                node = child
                path.append(node)
                continue
            if p == SIMULTANEOUS:
                break  # a joint-view node is a leaf here: the playout decides it
            node.player = p
            legal = s._legal_actions()
            if node is root and allowed is not None:
                legal = [a for a in legal if a in allowed]
            children = node.children
            untried = []
            for a in legal:
                ch = children.get(a)
                if ch is None:
                    untried.append(a)
                else:
                    ch.avail += 1
            depth += 1
            if untried and stats[1] >= cap:
                if len(untried) == len(legal):
                    break  # a frontier node under the cap: play out from here
                legal = [a for a in legal if a in children]
                untried = []
            if untried:       # expand one: the descent ends at the node it adds
                best_a = untried[int(rnd.random() * len(untried))]
                best = children[best_a] = ISNode(n, p)
                stats[1] += 1
                added = True
            else:
                # UCB1 with availability; exact ties uniformly at random
                best_a = argmax_ties(((a, _ucb(children[a], p, c)) for a in legal), rnd)
                best, added = children[best_a], False
            apply_unchecked(s, best_a)
            path.append(best)
            if self.merge and p != me:
                # the move's child holds the mover's statistics; once its run ends the
                # seat goes on from what it observed of it (the node moves it cannot tell
                # apart lead to is usually there already)
                nxt, new = merged_next(node, best, p, s, me, run, lambda: ISNode(n), stats,
                                       cap)
                if nxt is None:
                    break
                if nxt is not best:
                    path.append(nxt)
                    added = new
                best = nxt
            if added:
                break
            node = best
        if depth > stats[2]:
            stats[2] = depth
        if s.current_player() == TERMINAL:
            values = s._returns()
        else:
            values, _ = self.rollout(s, rnd)
        for nd in path:
            nd.visits += 1
            vals = nd.value
            for i in range(n):
                vals[i] += values[i]


def _pv(root: ISNode, label_state: State, first: int, limit: int = 64,
        merge: bool = False) -> tuple[PVStep, ...]:
    """Most-visited line through decision nodes, labelled on one determinization; it stops at
    the first chance node or at a move the labelling determinization does not allow. With
    ``merge`` (``opponent_key``) another seat's move goes on from the child keyed by the
    root seat's information state after it, so the line is applied with its history and
    logs (``apply_unchecked``; a twin's bare apply keeps no information state)."""
    s = label_state.clone()
    node = root
    me = s.current_player()
    step = apply_unchecked if merge else apply_for_labels
    run = None          # where another seat's run of moves began (:func:`merged_next`)
    pv: list[PVStep] = []
    while len(pv) < limit:
        p = s.current_player()
        if p < 0 or not node.children:
            break
        legal = s._legal_actions()
        cands = [(a, ch) for a, ch in node.children.items() if a in legal and ch.visits]
        if not cands:
            break
        if node is root and first in node.children:
            a = first
        else:
            a = max(cands, key=lambda kv: (kv[1].visits, -kv[0]))[0]
        pv.append(PVStep(int(p), int(a), s.action_to_string(p, a)))
        step(s, a)
        if merge and p != me and s.current_player() != p:
            base = node if run is None else run
            run = None
            node = base.children.get(s.information_state_string(me))
            if node is None:
                break
        else:
            if merge and p != me and run is None:
                run = node
            node = node.children[a]
    return tuple(pv)
