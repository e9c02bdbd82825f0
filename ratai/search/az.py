"""AlphaZero-style PUCT over single-observer IS-MCTS determinizations (the ``az`` bot).

The Python reference of ``CyAZ`` (``_speedups/search.pyx``). Silver et al. 2018, "A general
reinforcement learning algorithm that masters chess, shogi, and Go through self-play"
(PUCT selection, priors and values from one network, Dirichlet noise at the root), run over
the information-set tree of Cowling, Powley & Whitehouse 2012 (SO-ISMCTS, as
:mod:`ratai.search.ismcts`):

* every iteration draws a fresh determinization ``state.resample_from_infostate(player,
  rng)`` of the searching seat's information and descends one shared tree with it
  (decision children keyed by action id; chance outcomes sampled by probability, children
  keyed by what the seat perceives: its ``information_state_string`` after the outcome, or
  the outcome id with ``chance_key="action"``). A perfect-information game is the special
  case where every determinization is the state itself;
* **selection** at a decision node of seat ``p`` (values are vectors, each seat maximises its
  own component, max^n)::

      U(a) = Q(a) + c_puct * P(a) * sqrt(N) / (1 + n(a))

  with ``n(a)`` the visits of move ``a``, ``Q(a)`` its mean value for ``p``, and ``N = 1 +``
  the visits of the moves legal in this determinization (the parent's visit count, its own
  expansion included, in a perfect-information game: OpenSpiel's and AlphaZero's ``N``).
  **First-play urgency**: an unvisited move has ``Q = Q(parent) - fpu_reduction`` (the
  parent's mean value for ``p``; Leela Zero / KataGo). Exact ties of ``U`` are broken
  uniformly at random (seeded), never by the action id;
* **expansion and leaf value**: the first time a node is reached it is evaluated by the
  network at the acting seat's observation *of the determinized state*
  (``evaluator.evaluate(state, p, legal)``): the priors ``P`` over that determinization's
  legal moves are stored in the node (at softmax temperature ``policy_temperature``,
  :func:`tempered`: ``P**(1/T)`` renormalised, Leela Chess Zero's policy softmax
  temperature; 1 by default), and the values (expected return of every seat) are
  backed up, mixed with one random playout from the leaf when ``rollout_mix > 0``
  (``(1 - rollout_mix) * net + rollout_mix * playout``). With ``policy_playout = K > 0``
  the leaf is first played on for up to ``K`` decisions by the network's policy (each the
  move of highest prior at the mover's observation, exact ties uniformly at random; chance
  outcomes sampled by probability; a clone, the tree does not grow), and the value above
  (network and random playout) is taken where that line stops: after ``K`` decisions, or
  at a terminal (its ``returns()``) or ``SIMULTANEOUS`` node. This is the policy-guided
  start of a playout (Silver et al. 2016, AlphaGo's rollout policy, here the policy head
  itself, greedy); it costs ``K`` more evaluations per iteration. When the network's
  value has no weight (``rollout_mix = 1``, ``policy_playout = 0``) a new leaf is valued
  by its playout alone and not evaluated; its priors are computed the first time the
  search descends through it (AlphaGo's expansion threshold, Silver et al. 2016, at one
  visit): the same tree, without the evaluations of leaves never revisited. A move legal
  in a later determinization but not in the first gets its prior from the network at that
  determinization (one more evaluation; priors then need not sum to 1, which PUCT does
  not require). Terminal leaves back up ``returns()``. A ``SIMULTANEOUS`` node inside the
  tree is a leaf valued by the network from the searching seat's observation; one at the
  root is refused (use the sequential view);
* **hidden moves** (``hidden_moves``): a determinization draws another seat's moves the
  seat did not see (Ratapolis' committed plan cells, RP-2) as the rules' sampler does,
  uniformly among the legal moves: the exact posterior when nothing is assumed of how the
  others play (``"uniform"``, the default). With ``"policy"`` the network is the opponent
  model: each iteration's determinization is rewound to the first such move
  (``State.rewind_hidden_moves``) and replayed, each hidden move drawn from the network's
  priors at its seat's observation of the determinized state (its cards as this world has
  them; at ``policy_temperature``), the seat's own moves as they were. Its view's priors
  are kept for the search (keyed by the seat, its observation tensor and legal moves), so
  the cost is one evaluation per distinct view. The sampled law is then not the rules'
  posterior but that of a world where the others play by the network (opponent
  modelling in determinized search, as the policy-based inference of Rebstock et al.
  2019, "Policy-based inference in trick-taking card games", here by drawing the moves
  rather than weighting the worlds);
* **root**: evaluated once from the seat's own ``observation_tensor`` (its information;
  nothing hidden), counted as the root's first visit; with ``noise_fraction > 0`` the root
  priors are ``(1 - eps) * P + eps * Dirichlet(dirichlet_alpha)`` (self-play exploration;
  ``0`` for play). ``Analysis.moves[i].prior`` is the prior the search used, before noise
  (the network's, at ``policy_temperature``);
  ``values`` the move's mean value per seat.

Because the search reads the root only through ``resample_from_infostate`` and the seat's
own observation, two states with the same ``information_state_string(player)`` give
identical searches for the same seed.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from ratai.engines.api import CHANCE, SIMULTANEOUS, TERMINAL, Game, State

from .common import (
    Analysis,
    MoveStat,
    Rollout,
    SearchRng,
    apply_unchecked,
    argmax_ties,
    begin_determinized_root,
    check_int,
    check_number,
    determinized_loop,
    free_later,
    sample_outcome,
    sort_moves,
)
from .ismcts import OPPONENT_KEYS, _pv, merged_next, merges_moves
from .uct import MULTI_PV_LIMIT, with_pvs

__all__ = ["AZ", "AZNode", "Evaluator", "HIDDEN_MOVES", "PLAY_OPTION_RANGES",
           "UniformEvaluator", "dirichlet_noise", "tempered"]

#: How :class:`AZ` draws another seat's hidden moves in a determinization (module
#: docstring): as the rules' sampler does, or from the network's policy at that seat's view.
HIDDEN_MOVES = ("uniform", "policy")

#: ``hidden_moves="policy"``: views whose priors one search keeps (as ``CyAZ``'s cache,
#: 4,096 slots filled to 3/4); past that every one is evaluated again.
HIDDEN_CACHE = 3072


class Evaluator(Protocol):
    """What the search asks of a network (``ratai.nn.Model`` is one)."""

    def evaluate(self, state: State, player: int, legal) -> tuple[np.ndarray, np.ndarray]:
        """``(values (n,), priors (len(legal),))`` at ``player``'s observation of ``state``."""


class UniformEvaluator:
    """A network that knows nothing: uniform priors, value ``value`` for every seat (what a
    model with all-zero weights gives with ``value=0.5``). For tests and baselines."""

    def __init__(self, n: int, value: float = 0.5):
        self.n = n
        self.value = float(value)

    def evaluate(self, state, player, legal):
        k = len(legal)
        return (np.full(self.n, self.value, np.float32),
                np.full(k, 1.0 / k if k else 0.0, np.float32))


def tempered(priors, temperature: float) -> np.ndarray:
    """The priors at softmax temperature ``temperature`` (Leela Chess Zero's policy softmax
    temperature): ``P**(1/T)`` renormalised, which is the softmax of the logits divided by
    ``T`` (float64). ``T = 1`` returns them unchanged; ``T < 1`` sharpens, ``T > 1`` flattens
    them towards uniform."""
    priors = np.asarray(priors, np.float64)
    if temperature == 1.0 or priors.size == 0:
        return priors
    q = np.power(priors, 1.0 / temperature)
    return q / q.sum()


def dirichlet_noise(priors: np.ndarray, alpha: float, fraction: float,
                    rng: np.random.Generator) -> np.ndarray:
    """``(1 - fraction) * priors + fraction * Dirichlet(alpha, ..., alpha)`` (float64); the
    priors unchanged when ``fraction == 0`` or there is a single move (no draw is made)."""
    priors = np.asarray(priors, np.float64)
    if fraction <= 0.0 or priors.size < 2:
        return priors
    return (1.0 - fraction) * priors + fraction * rng.dirichlet([alpha] * priors.size)


class AZNode:
    """A node of the searching seat's information-set tree: ``visits``/``value`` are the
    statistics of the edge into it (value: sums per seat); ``priors`` (``{action: P}``,
    ``None`` until evaluated) and ``children`` (``{action or chance key: AZNode}``)."""

    __slots__ = ("children", "visits", "value", "priors", "player")

    def __init__(self, n: int, player: int = -99):
        self.children: dict = {}
        self.visits = 0
        self.value = [0.0] * n
        self.priors: dict[int, float] | None = None
        self.player = player


#: The options of :class:`AZ` that set how it plays, ``name: (type, lo, hi)`` (a ``float``
#: option takes any finite number in ``[lo, hi]``, an ``int`` one an integer): the one table
#: the bot checks them against, that a model's recommended ``play`` options are checked
#: against (``ratai.nn.model.PLAY_OPTIONS``) and that the service's catalogue serves.
PLAY_OPTION_RANGES: dict[str, tuple[type, float, float]] = {
    "rollout_mix": (float, 0.0, 1.0),
    "c_puct": (float, 0.0, 100.0),
    "fpu_reduction": (float, 0.0, 1.0),
    "policy_playout": (int, 0, 1000),
    "policy_temperature": (float, 0.05, 100.0),
}


def _play_option(name: str, value: Any) -> float | int:
    """``value`` checked against :data:`PLAY_OPTION_RANGES` (``ValueError`` naming it)."""
    kind, lo, hi = PLAY_OPTION_RANGES[name]
    return check_int(name, value, lo, hi) if kind is int else check_number(name, value, lo, hi)


class AZ:
    """PUCT over SO-ISMCTS for seat ``player`` (see the module docstring).

    Args:
        game: the game.
        player: the searching seat.
        evaluator: the network (``ratai.nn.Model``, or any :class:`Evaluator`).
        c_puct: the exploration constant of ``U`` (>= 0; default 1.5).
        dirichlet_alpha: the root noise's concentration (> 0; default 0.3).
        noise_fraction: the root noise's weight ``eps`` in [0, 1] (default 0: play; 0.25
            for self-play training, as AlphaZero).
        rollout_mix: weight in [0, 1] of one random playout in the leaf value (default 0:
            the network alone).
        fpu_reduction: first-play urgency: an unvisited move is valued at its parent's
            mean minus this (in [0, 1]; default 0.1).
        policy_playout: decisions played from a new leaf by the network's most probable
            move before its value is taken (an int in 0..1,000; default 0: at the leaf).
        policy_temperature: the softmax temperature ``T`` of the network's priors
            (:func:`tempered`; in [0.05, 100], default 1: as the network gives them).
        chance_key: ``"infostate"`` or ``"action"``, as :class:`ratai.search.ISMCTS`.
        hidden_moves: ``"uniform"`` (default: another seat's hidden moves as the rules'
            sampler draws them) or ``"policy"`` (redrawn from the network's priors at that
            seat's view; module docstring).
        opponent_key: ``"auto"``, ``"infostate"`` or ``"action"``, as
            :class:`ratai.search.ISMCTS` (another seat's move: its statistics in the move's
            child, the seat going on from the child keyed by its information state after it).

    Raises:
        ValueError: a bad option (named, with its range).
    """

    CHANCE_KEYS = ("infostate", "action")
    OPPONENT_KEYS = OPPONENT_KEYS

    def __init__(self, game: Game, player: int, evaluator: Evaluator, *, c_puct: float = 1.5,
                 dirichlet_alpha: float = 0.3, noise_fraction: float = 0.0,
                 rollout_mix: float = 0.0, fpu_reduction: float = 0.1,
                 chance_key: str = "infostate", policy_playout: int = 0,
                 policy_temperature: float = 1.0, opponent_key: str = "auto",
                 hidden_moves: str = "uniform"):
        self.c_puct = _play_option("c_puct", c_puct)
        self.alpha = check_number("dirichlet_alpha", dirichlet_alpha, 0.0, 100.0, lo_open=True)
        self.eps = check_number("noise_fraction", noise_fraction, 0.0, 1.0)
        self.mix = _play_option("rollout_mix", rollout_mix)
        self.fpu = _play_option("fpu_reduction", fpu_reduction)
        self.policy_playout = _play_option("policy_playout", policy_playout)
        self.policy_temperature = _play_option("policy_temperature", policy_temperature)
        #: the network's value has no weight (``rollout_mix=1``, no policy playout): a leaf
        #: is valued by its playout alone and gets its priors when first descended through
        self.lazy = self.mix == 1.0 and self.policy_playout == 0
        if chance_key not in self.CHANCE_KEYS:
            raise ValueError(f"bad chance_key {chance_key!r}: allowed one of {self.CHANCE_KEYS}")
        if hidden_moves not in HIDDEN_MOVES:
            raise ValueError(f"bad hidden_moves {hidden_moves!r}: allowed one of {HIDDEN_MOVES}")
        self.hidden_moves = str(hidden_moves)   # (a str subclass goes to the compiled search)
        self._new_hidden_cache()
        self.game = game
        self.player = player
        self.n = game.num_players()
        self.evaluator = evaluator
        self.chance_key = str(chance_key)
        self.opponent_key = opponent_key
        self.merge = merges_moves(game, opponent_key)
        self.rollout = Rollout(game, "random")
        self._allowed: set[int] | None = None
        self._max_nodes = 2**62
        self.evaluations = 0

    # -- evaluation -----------------------------------------------------------------------
    def _evaluate(self, s: State, p: int, legal) -> tuple[np.ndarray, np.ndarray]:
        """One network evaluation (counted): ``(values, priors)`` at seat ``p``'s observation
        of ``s``, the priors at ``policy_temperature``."""
        values, priors = self.evaluator.evaluate(s, p, legal)
        self.evaluations += 1
        return values, tempered(priors, self.policy_temperature)

    def _leaf(self, s: State, p: int, legal, rnd) -> tuple[list[float], np.ndarray | None]:
        """The leaf value per seat (:meth:`_value`) and the network's priors over ``legal``
        at seat ``p``'s observation of ``s`` (``None`` with :attr:`lazy`: no evaluation,
        the value is the random playout's)."""
        if self.lazy:
            return self._playout(s, rnd), None
        values, priors = self._evaluate(s, p, legal)
        return self._value(s, values, legal, priors, rnd), priors

    def _value(self, s: State, values, legal, priors, rnd) -> list[float]:
        """The value per seat backed up from leaf ``s`` (module docstring), given the
        network's ``values`` and ``priors`` over ``legal`` there: after ``policy_playout``
        decisions of the policy (on a clone of ``s``), mixed with a random playout when
        ``rollout_mix > 0``. ``s`` is not changed."""
        w = s
        for _ in range(self.policy_playout):
            if not legal:
                break
            if w is s:
                w = s.clone()
            apply_unchecked(w, argmax_ties(zip(legal, priors, strict=True), rnd))
            q = w.current_player()
            while q == CHANCE:
                apply_unchecked(w, sample_outcome(w._chance_outcomes(), rnd.random()))
                q = w.current_player()
            if q == TERMINAL:
                return list(w._returns())
            if q == SIMULTANEOUS:
                q, legal = self.player, []
            else:
                legal = w._legal_actions()
            values, priors = self._evaluate(w, q, legal)
        vals = [float(v) for v in values]
        if self.mix > 0.0:
            m = self.mix
            vals = [(1.0 - m) * v + m * r
                    for v, r in zip(vals, self._playout(w, rnd), strict=True)]
        return vals

    def _playout(self, s: State, rnd) -> list[float]:
        """The returns per seat of one random playout of a clone of ``s``."""
        ret, _ = self.rollout(s.clone(), rnd)
        return [float(r) for r in ret]

    def _new_hidden_cache(self) -> None:
        """An empty :meth:`_hidden_priors` cache and zero counters (one per search)."""
        self._hidden_cache: dict = {}
        self.hidden_draws = 0
        self.hidden_evaluations = 0

    def _hidden_priors(self, s: State, q: int, legal: list[int]) -> np.ndarray:
        """The priors of seat ``q``'s moves ``legal`` in ``s`` (as :meth:`_evaluate` gives
        them), kept per search by ``q``, its observation tensor and ``legal`` (what they
        depend on; at most :data:`HIDDEN_CACHE` views)."""
        key = (q, s.observation_tensor(q).tobytes(), tuple(legal))
        priors = self._hidden_cache.get(key)
        if priors is None:
            _, priors = self._evaluate(s, q, legal)
            self.hidden_evaluations += 1
            if len(self._hidden_cache) < HIDDEN_CACHE:
                self._hidden_cache[key] = priors
        return priors

    def _redraw_hidden(self, s: State, rnd) -> None:
        """``hidden_moves="policy"``: the other seats' hidden moves of the determinization
        ``s`` redrawn (``State.rewind_hidden_moves``, then the script replayed: the seat's
        own moves as they were, each hidden one drawn from :meth:`_hidden_priors`)."""
        for a in s.rewind_hidden_moves(self.player):
            if a is None:
                legal = s._legal_actions()
                priors = self._hidden_priors(s, s.current_player(), legal)
                a = sample_outcome(list(zip(legal, priors, strict=True)), rnd.random())
                self.hidden_draws += 1
            apply_unchecked(s, a)

    def determinizations(self, state: State, count: int, seed: Any = 0) -> list[State]:
        """The worlds a search from ``state`` iterates on, for tests and inspection:
        ``count`` determinizations drawn as :meth:`analyze`'s iterations draw them
        (``resample_from_infostate``, then with ``hidden_moves="policy"`` the hidden moves
        redrawn). ``seed``: as :meth:`analyze`'s."""
        srng = SearchRng(seed, state, self.player)
        self._new_hidden_cache()
        out = []
        for _ in range(count):
            w = state.resample_from_infostate(self.player, srng.np)
            if self.hidden_moves == "policy":
                self._redraw_hidden(w, srng.py)
            out.append(w)
        return out

    def root_priors(self, state: State, legal: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The network's ``(values, priors)`` at the root from the seat's own observation."""
        values, priors = self._evaluate(state, self.player, legal)
        return np.asarray(values, np.float64), np.asarray(priors, np.float64)

    # -- the search -----------------------------------------------------------------------
    def analyze(self, state: State, budget, srng, on_progress=None, every: int = 100,
                seed: Any = None, kind: str = "az", allowed: list[int] | None = None,
                max_nodes: int = 2**62) -> Analysis:
        """Search from the seat's information state in ``state`` and report an ``Analysis``
        (moves with network priors, visits and per-seat values, each with its own PV).

        ``state`` is read through ``resample_from_infostate``, the seat's legal actions and
        its own observation. ``allowed`` restricts the root moves (validated by the caller);
        ``max_nodes`` caps the tree (at the cap no node is added; the leaf is evaluated
        where the descent stands).
        """
        player, n = self.player, self.n
        legal, tie, label_state, labels = begin_determinized_root(
            "az", state, player, budget, srng, allowed, MULTI_PV_LIMIT)
        root_values, net_priors = self.root_priors(state, legal)
        used = dirichlet_noise(net_priors, self.alpha, self.eps, srng.np)
        root = AZNode(n, player)
        root.priors = {int(a): float(q) for a, q in zip(legal, used, strict=True)}
        root.visits = 1
        root.value = [float(v) for v in root_values]
        prior_of = {int(a): float(q) for a, q in zip(legal, net_priors, strict=True)}
        stats = [0, 1, 0]  # iterations, nodes, max depth
        self._new_hidden_cache()
        self._allowed = None if allowed is None else set(allowed)
        self._max_nodes = max_nodes

        def report() -> Analysis:
            moves = []
            for a in legal:
                ch = root.children.get(a)
                v = ch.visits if ch is not None else 0
                vals = tuple(x / v for x in ch.value) if v else (0.0,) * n
                moves.append(MoveStat(int(a), labels[a], int(v), vals[player], prior_of[a],
                                      vals))
            moves = with_pvs(sort_moves(moves, tie), player,
                             lambda a, lim: _pv(root, label_state, a, lim, self.merge),
                             budget.end)
            return Analysis(moves[0].action, moves, moves[0].pv, stats[0], stats[1],
                            stats[2], budget.elapsed(), seed, player, kind)

        determinized_loop(state, player, budget, srng, stats,
                          lambda world, rnd, st: self._iterate(root, world, rnd, st),
                          on_progress, every, report)
        out = report()
        free_later(root)
        return out

    def _select(self, node: AZNode, legal: list[int], p: int, rnd) -> int:
        """The PUCT choice among ``legal`` at ``node`` for seat ``p`` (module docstring)."""
        children, priors = node.children, node.priors
        total = 1
        for a in legal:
            ch = children.get(a)
            if ch is not None:
                total += ch.visits
        sq = math.sqrt(total)
        fpu = node.value[p] / node.visits - self.fpu if node.visits else 0.0
        c = self.c_puct

        def u(a):
            ch = children.get(a)
            if ch is None or ch.visits == 0:
                return fpu + c * priors[a] * sq
            return ch.value[p] / ch.visits + c * priors[a] * sq / (1 + ch.visits)

        return argmax_ties(((a, u(a)) for a in legal), rnd)

    def _iterate(self, root: AZNode, s: State, rnd, stats: list[int]) -> None:
        if self.hidden_moves == "policy":
            self._redraw_hidden(s, rnd)
        me, cap, allowed = self.player, self._max_nodes, self._allowed
        by_info = self.chance_key == "infostate"
        node, path, depth = root, [root], 0
        run = [None]        # the node another seat's run of moves began at (merged trees)
        values = None
        while True:
            p = s.current_player()
            if p == TERMINAL:
                values = s._returns()
                break
            if p == CHANCE:
                a = sample_outcome(s._chance_outcomes(), rnd.random())
                apply_unchecked(s, a)
                depth += 1
                key = s.information_state_string(me) if by_info else ("c", a)
                child = node.children.get(key)
                if child is None:
                    if stats[1] >= cap:
                        break           # the node cap: evaluate where the descent stands
                    child = node.children[key] = AZNode(self.n, CHANCE)
                    stats[1] += 1
                node = child
                path.append(node)
                continue
            if p == SIMULTANEOUS:
                values, _ = self._leaf(s, me, [], rnd)
                break
            legal = s._legal_actions()
            if node is root and allowed is not None:
                legal = [a for a in legal if a in allowed]
            if node.priors is None:
                node.player = p
                if node.visits == 0 or not self.lazy:    # a new leaf: evaluate and expand
                    values, priors = self._leaf(s, p, legal, rnd)
                    if priors is not None:
                        node.priors = {int(a): float(q)
                                       for a, q in zip(legal, priors, strict=True)}
                    break
                _, priors = self._evaluate(s, p, legal)   # lazy: expand now
                node.priors = {int(a): float(q) for a, q in zip(legal, priors, strict=True)}
            missing = [a for a in legal if a not in node.priors]
            if missing:                                  # moves no earlier world allowed
                _, priors = self._evaluate(s, p, legal)
                for a, q in zip(legal, priors, strict=True):
                    node.priors.setdefault(int(a), float(q))
            a = self._select(node, legal, p, rnd)
            apply_unchecked(s, a)
            depth += 1
            child = node.children.get(a)
            if child is None:
                if stats[1] >= cap:
                    break
                child = node.children[a] = AZNode(self.n, -99)
                stats[1] += 1
            path.append(child)
            if self.merge and p != me:
                # the move's child holds the mover's statistics; once its run ends the seat
                # goes on from what it observed of it (a new node there is a leaf)
                nxt, _ = merged_next(node, child, p, s, me, run,
                                     lambda: AZNode(self.n, -99), stats, cap)
                if nxt is None:
                    break
                if nxt is not child:
                    path.append(nxt)
                child = nxt
            node = child
        if values is None:  # stopped at the cap: value the position the descent reached
            q = s.current_player()
            if q == TERMINAL:
                values = s._returns()
            else:
                obs = q if q >= 0 else me
                values, _ = self._leaf(s, obs, s._legal_actions() if q >= 0 else [], rnd)
        if depth > stats[2]:
            stats[2] = depth
        for nd in path:
            nd.visits += 1
            vals = nd.value
            for i in range(self.n):
                vals[i] += values[i]
