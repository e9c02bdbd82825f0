"""Depth-limited expectimax: max^n or paranoid search with chance nodes weighted by probability.

* Chance nodes take the probability-weighted mean of their outcomes (expectiminimax,
  Michie 1966, "Game-playing and game-learning automata", in *Advances in Programming and
  Non-numerical Computation*).
* ``mode="maxn"``: every seat maximises its own component of a value vector (Luckhardt &
  Irani 1986, "An algorithmic solution of N-person games", AAAI). No pruning.
* ``mode="paranoid"``: the searching seat maximises its value and every other seat is assumed
  to minimise it (Sturtevant & Korf 2000, "On pruning techniques for multi-player games");
  alpha-beta at decision nodes and Ballard's Star1 pruning at chance nodes (Ballard 1983,
  "The *-minimax search procedure for trees containing chance nodes", Artificial
  Intelligence 21), using the value bounds [0, 1] of returns and heuristic values.
* Iterative deepening over decision plies (chance nodes do not consume depth, and a chance
  node at the horizon is averaged over its outcomes while they fit in 16 leaves) until
  ``max_depth``, the node budget (``iterations``, and always ``max_nodes``, default
  200,000), ``time_limit`` or the ``stop`` flag runs out. Every depth can be cut short
  (the clock and the flag are polled at every node); the answer is always there: the best
  move of the last completed depth, or, when even depth 1 (the heuristic's one-ply look)
  was cut short, the best of the moves it scored (a seeded random move if none). The root
  moves of a depth are searched best first by the previous depth's values; ties go to a
  seeded random order, never the action id. Deepening stops early when a depth was
  searched without reaching the horizon anywhere (the values are exact).
* A transposition table keyed by the state's full field content (a hash of the state) and
  remaining depth, per search.
* At the horizon (``evaluation="rollout"``, the default): the mean returns of
  ``rollouts`` (8) uniformly random playouts, to the end (in C on the compiled twins), or
  cut off after ``rollout_cutoff`` plies and then scored by the normalized heuristic; the
  clock and the cancel flag are polled before each playout. This Monte Carlo evaluation
  (Abramson 1990, "Expected-outcome: a general model of static evaluation", IEEE PAMI 12)
  is what makes the search stronger than the one-ply ``heuristic`` bot in every title (see
  the README's strength table); the games' hand-written ``heuristic_value`` is a
  material-lead estimate that a deeper look on it barely improves.
  ``evaluation="heuristic"``: the vector ``[game.heuristic_value(state, seat) for seat]``
  normalized to sum to 1 like ``returns()`` (a win is 1, a shared win 1/k), so horizon
  values and terminal returns share one scale; ``1/n`` each if the game has none.
* ``SIMULTANEOUS`` joint-view nodes below the root are scored like the horizon; a
  ``SIMULTANEOUS`` root is refused (use ``smmcts``).
* Hidden information: the root is determinized ``determinizations`` times with
  ``resample_from_infostate`` and the root values are averaged over the worlds.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from ratai.engines.api import CHANCE, SIMULTANEOUS, TERMINAL, Game, State

from .common import (
    Analysis,
    Budget,
    MoveStat,
    PVStep,
    Rollout,
    apply_unchecked,
    check_bool,
    check_int,
    free_later,
    has_heuristic,
    root_labels,
)

__all__ = ["Expectimax"]

_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Abort(Exception):
    """The budget ran out in the middle of a depth."""


class Expectimax:
    """Expectimax for seat ``player`` of ``game`` (see the module docstring).

    Args:
        game, player: the game and the searching seat.
        mode: ``"maxn"`` or ``"paranoid"``.
        determinizations: worlds averaged for hidden-information games (ignored, 1, with
            perfect information).
        max_chance_outcomes: if a chance node has more outcomes, sample this many (with
            replacement, equal weights) instead of enumerating them (``None``: enumerate;
            else an int 1..4096).
        transposition_table: keep the transposition table (default True).
        max_nodes: the most nodes one decision visits (an int 1..10**8, default 200,000),
            whatever the other budgets say, so a search is always bounded.
        evaluation: ``"rollout"`` (default) or ``"heuristic"`` (see the module docstring).
        rollouts: playouts per horizon leaf for ``evaluation="rollout"`` (1..1024,
            default 8).
        rollout_cutoff: plies per playout before the heuristic scores it (0..10**6, or
            ``None``, the default: play to the end).
        determinizations: an int 1..4096.

    Raises:
        ValueError: a bad parameter (named).
    """

    MODES = ("maxn", "paranoid")
    #: Leaves allowed below a chance node met at the horizon (see ``_horizon_chance``).
    HORIZON_WIDTH = 16

    EVALUATIONS = ("heuristic", "rollout")

    def __init__(self, game: Game, player: int, *, mode: str = "maxn",
                 determinizations: int = 4, max_chance_outcomes: int | None = None,
                 transposition_table: bool = True, max_nodes: int = 200_000,
                 evaluation: str = "rollout", rollouts: int = 8,
                 rollout_cutoff: int | None = None):
        if mode not in self.MODES:
            raise ValueError(f"bad mode {mode!r}: allowed one of {self.MODES}")
        if evaluation not in self.EVALUATIONS:
            raise ValueError(f"bad evaluation {evaluation!r}: allowed one of "
                             f"{self.EVALUATIONS}")
        check_int("determinizations", determinizations, 1, 4096)
        if max_chance_outcomes is not None:
            check_int("max_chance_outcomes", max_chance_outcomes, 1, 4096)
        self.max_nodes = check_int("max_nodes", max_nodes, 1, 10**8)
        self.rollouts = check_int("rollouts", rollouts, 1, 1024)
        cutoff = None if rollout_cutoff is None else check_int("rollout_cutoff",
                                                               rollout_cutoff, 0, 10**6)
        self.evaluation = evaluation
        self._rollout = Rollout(game, "random", cutoff) if evaluation == "rollout" else None
        self.game = game
        self.player = player
        self.n = game.num_players()
        self.mode = mode
        self.k = 1 if game.perfect_information else determinizations
        self.max_chance = max_chance_outcomes
        self.has_h = has_heuristic(game)
        self.use_tt = check_bool("transposition_table", transposition_table)

    # -- driver ------------------------------------------------------------------------
    def analyze(self, state: State, budget: Budget, srng, on_progress=None, every: int = 1,
                seed: Any = None, kind: str = "expectimax",
                legal: list[int] | None = None) -> Analysis:
        """Iteratively deepen on each world; ``on_progress`` after every completed depth.

        The clock runs from the bot's call (``budget.begin()`` is idempotent); worlds are
        drawn inside the budget, each gets an equal share of the time and nodes left.
        """
        player, k = self.player, self.k
        budget.begin()
        if state.current_player() == SIMULTANEOUS:
            raise ValueError("expectimax does not search a SIMULTANEOUS root; use the "
                             "sequential view of the game or the smmcts bot")
        if legal is None:  # ``legal``: the seat's legal moves, when the caller has them
            legal = state.legal_actions(player)
        order = list(legal)
        srng.py.shuffle(order)
        self._tiebreak = {a: i for i, a in enumerate(order)}
        node_cap = self.max_nodes if budget.iterations is None else min(self.max_nodes,
                                                                         budget.iterations)
        per_world: list[dict] = []
        totals = {"iterations": 0, "nodes": 0, "depth": 0}
        # every root move is labelled now, inside the budget, and the report's cost (those
        # labels and one PV) is reserved from the deadline (Ratapolis: 100-220 moves)
        labels = root_labels(state, player, legal, budget, 0)
        label = labels.__getitem__

        def report(extra: dict | None = None) -> Analysis:
            res = per_world + ([extra] if extra else [])
            moves = []
            for a in legal:
                vs = [r["values"][a] for r in res if a in r["values"]]
                vec = tuple(sum(v[i] for v in vs) / len(vs) for i in range(len(vs[0]))) \
                    if vs else ()
                value = (vec[player] if self.mode == "maxn" else vec[0]) if vec else 0.0
                visits = sum(r["visits"].get(a, 0) for r in res)
                moves.append(MoveStat(int(a), label(a), int(visits), float(value),
                                      1.0 / len(legal), vec if self.mode == "maxn" else ()))
            # searched moves first, then by value, then the seeded random order
            moves.sort(key=lambda m: (m.visits == 0, -m.value, self._tiebreak[m.action]))
            best = moves[0].action
            pv: tuple[PVStep, ...] = ()
            for r in res:
                if r["pv"] and r["pv"][0] == best:
                    pv = _label_pv(r["world"], r["pv"])
                    break
            if not pv:
                pv = (PVStep(player, best, label(best)),)
            return Analysis(best, tuple(moves), pv, totals["iterations"], totals["nodes"],
                            totals["depth"], budget.elapsed(), seed, player, kind)

        self._stop = budget.stop
        self._tt = {}
        stopped = False
        for i in range(k):
            if budget.expired() or node_cap - totals["nodes"] <= 0:
                break
            self._deadline = budget.deadline
            if budget.time_limit is not None:
                self._deadline = time.perf_counter() + budget.remaining() / (k - i)
            self._node_limit = (node_cap - totals["nodes"]) // (k - i) or 1
            self._nodes = 0
            world = state.clone() if self.game.perfect_information else \
                state.resample_from_infostate(player, srng.child_seed())
            self._rnd = random.Random(srng.child_seed())
            self._tt: dict = {}
            best_res = None
            depth = 0
            max_d = budget.max_depth
            prev: dict | None = None
            while max_d is None or depth < max_d:
                depth += 1
                self._horizon = False
                partial: dict = {"values": {}, "visits": {}, "pv": [], "world": world}
                try:
                    res = self._root(world, self._root_order(legal, prev), depth, partial)
                except _Abort:
                    if best_res is None and partial["values"]:
                        best_res = partial  # depth 1 cut short: the moves it scored
                    break
                res["world"] = world
                best_res = prev = res
                totals["iterations"] += 1
                totals["depth"] = max(totals["depth"], depth)
                if on_progress is not None and on_progress(report(res)) is False:
                    stopped = True
                    break
                if not self._horizon or self._out_of_budget():
                    break
            totals["nodes"] += self._nodes
            if best_res is not None:
                per_world.append(best_res)
            if stopped or budget.stopped():
                break
        out = report()
        free_later(self._tt)  # a large table is freed off the caller's path
        self._tt = {}
        return out

    def _root_order(self, legal: list[int], prev: dict | None) -> list[int]:
        """The previous depth's best first (by its values), ties in the seeded order."""
        tb = self._tiebreak
        if prev is None:
            return sorted(legal, key=lambda a: tb[a])
        key = self.player if self.mode == "maxn" else 0
        vals = prev["values"]
        return sorted(legal, key=lambda a: (-vals[a][key] if a in vals else 1.0, tb[a]))

    def _out_of_budget(self) -> bool:
        if self._nodes >= self._node_limit:
            return True
        return time.perf_counter() >= self._deadline or (
            self._stop is not None and self._stop.is_set())

    def _count(self) -> None:
        """Count one more node visited, or abort the search before it: at the node budget
        (so ``nodes`` never passes it; it reported one over), the deadline or a stop."""
        if self._nodes >= self._node_limit or time.perf_counter() >= self._deadline \
                or (self._stop is not None and self._stop.is_set()):
            raise _Abort
        self._nodes += 1

    def _root(self, s: State, legal: list[int], depth: int, out: dict) -> dict:
        """Search every root move to ``depth``; fills ``out`` as moves complete (so a depth
        cut short still shows what it scored)."""
        values: dict[int, tuple] = out["values"]
        visits: dict[int, int] = out["visits"]
        best_a, best_v, best_pv = None, None, []
        for a in legal:
            before = self._nodes
            c = s.clone()
            apply_unchecked(c, a)
            if self.mode == "maxn":
                v, pv = self._maxn(c, depth - 1)
                key = v[self.player]
                values[a] = tuple(v)
            else:
                v, pv = self._paranoid(c, depth - 1, 0.0, 1.0)
                key = v
                values[a] = (v,)
            visits[a] = self._nodes - before
            if best_v is None or key > best_v:
                best_a, best_v, best_pv = a, key, pv
                out["pv"] = [best_a] + best_pv
        return {"values": values, "visits": visits, "pv": [best_a] + best_pv}

    # -- evaluation ----------------------------------------------------------------------
    def _eval(self, s: State) -> list[float]:
        """The horizon value vector: the mean of the rollouts' returns, or the heuristic
        (:func:`_normalized` to shares of 1 between two or more seats; a solo seat's
        heuristic is its own estimate against the automaton)."""
        self._horizon = True
        n = self.n
        if self._rollout is not None:
            acc = [0.0] * n
            fast = self._compiled_playout(s)
            for _ in range(self.rollouts):
                self._count()
                if fast is not None:
                    c = s.clone()
                    fast(c, self._rnd.getrandbits(64))
                    v = c._returns()
                else:
                    v, _ = self._rollout(s.clone(), self._rnd)
                for i in range(n):
                    acc[i] += v[i]
            return [x / self.rollouts for x in acc]  # returns already are the values
        if not self.has_h:
            return [1.0 / n] * n
        return _normalized([float(self.game.heuristic_value(s, p)) for p in range(n)], n)

    def _compiled_playout(self, s: State):
        """``random_playout_actions`` of the compiled twins for a Cython state and a playout
        to the end (the same uniform policy as the Python ``Rollout``), else ``None``."""
        if self._rollout.cutoff is not None:
            return None
        try:
            from ratai._speedups import core, search
        except ImportError:
            return None
        return core.random_playout_actions if search.is_cython_state(s) else None

    def _horizon_chance(self, s: State, width: int) -> list[float]:
        """Value at the horizon: a decision node by the heuristic; a chance node by the mean
        over its outcomes while they fit in ``width`` leaves (shared by nested chance
        nodes), else by the heuristic of the chance node itself."""
        self._count()
        p = s.current_player()
        if p == TERMINAL:
            return list(s._returns())
        if p != CHANCE:
            return self._eval(s)
        outs = s._chance_outcomes()
        if len(outs) > width:
            return self._eval(s)
        acc = [0.0] * self.n
        for a, pr in outs:
            c = s.clone()
            apply_unchecked(c, a)
            v = self._horizon_chance(c, width // len(outs))
            for i in range(self.n):
                acc[i] += pr * v[i]
        return acc

    def _outcomes(self, s: State) -> list[tuple[int, float]]:
        outs = s._chance_outcomes()
        m = self.max_chance
        if m is None or len(outs) <= m:
            return outs
        rnd = self._rnd
        picked: dict[int, float] = {}
        cum, acc = [], 0.0
        for _, p in outs:
            acc += p
            cum.append(acc)
        for _ in range(m):
            u = rnd.random() * acc
            j = next((i for i, c in enumerate(cum) if u < c), len(outs) - 1)
            a = outs[j][0]
            picked[a] = picked.get(a, 0.0) + 1.0 / m
        return sorted(picked.items())

    @staticmethod
    def _key(s: State) -> str:
        return json.dumps(s._fields(), sort_keys=True, separators=(",", ":"))

    # -- max^n ---------------------------------------------------------------------------
    def _maxn(self, s: State, depth: int) -> tuple[list[float], list[int]]:
        self._count()
        p = s.current_player()
        if p == TERMINAL:
            return list(s._returns()), []
        if depth <= 0:
            if p == CHANCE:
                return self._horizon_chance(s, self.HORIZON_WIDTH), []
            return self._eval(s), []
        key = self._key(s) if self.use_tt else None
        hit = self._tt.get(key) if key is not None else None
        if hit is not None and hit[0] >= depth:
            if hit[3]:
                self._horizon = True
            return hit[1], hit[2]
        horizon_before = self._horizon
        self._horizon = False
        if p == CHANCE:
            acc = [0.0] * self.n
            best_p, pv = -1.0, []
            for a, pr in self._outcomes(s):
                c = s.clone()
                apply_unchecked(c, a)
                v, cpv = self._maxn(c, depth)
                for i in range(self.n):
                    acc[i] += pr * v[i]
                if pr > best_p:
                    best_p, pv = pr, [a] + cpv
            out = (acc, pv)
        elif p == SIMULTANEOUS:
            out = (self._eval(s), [])  # a joint-view node is scored like the horizon
        else:
            best, pv = None, []
            for a in s._legal_actions():
                c = s.clone()
                apply_unchecked(c, a)
                v, cpv = self._maxn(c, depth - 1)
                if best is None or v[p] > best[p]:
                    best, pv = v, [a] + cpv
            out = (best, pv)
        if key is not None:
            self._tt[key] = (depth, out[0], out[1], self._horizon)
        self._horizon = self._horizon or horizon_before
        return out

    # -- paranoid with alpha-beta and Star1 ---------------------------------------------
    def _paranoid(self, s: State, depth: int, alpha: float, beta: float
                  ) -> tuple[float, list[int]]:
        self._count()
        me = self.player
        p = s.current_player()
        if p == TERMINAL:
            return float(s._returns()[me]), []
        if depth <= 0:
            return self._horizon_chance(s, self.HORIZON_WIDTH)[me], []
        key = self._key(s) if self.use_tt else None
        hit = self._tt.get(key) if key is not None else None
        first = None
        if hit is not None:
            d, val, flag, pv, hz = hit
            if d >= depth and (flag == _EXACT or (flag == _LOWER and val >= beta)
                               or (flag == _UPPER and val <= alpha)):
                if hz:
                    self._horizon = True
                return val, pv
            first = pv[0] if pv else None
        horizon_before = self._horizon
        self._horizon = False
        a0, b0 = alpha, beta
        if p == CHANCE:
            lo, hi = 0.0, 1.0
            total, rem = 0.0, 1.0
            best_p, pv = -1.0, []
            flag = _EXACT
            val = None
            for a, pr in self._outcomes(s):
                rem -= pr
                ca = max(lo, (alpha - total - rem * hi) / pr)
                cb = min(hi, (beta - total - rem * lo) / pr)
                c = s.clone()
                apply_unchecked(c, a)
                v, cpv = self._paranoid(c, depth, ca, cb)
                total += pr * v
                if pr > best_p:
                    best_p, pv = pr, [a] + cpv
                if total + rem * hi <= alpha:
                    val, flag = total + rem * hi, _UPPER
                    break
                if total + rem * lo >= beta:
                    val, flag = total + rem * lo, _LOWER
                    break
            if val is None:
                val = total
        elif p == SIMULTANEOUS:
            val, pv, flag = self._eval(s)[me], [], _EXACT  # scored like the horizon
        else:
            legal = s._legal_actions()
            if first is not None and first in legal:
                legal = [first] + [a for a in legal if a != first]
            maximize = p == me
            val = None
            pv = []
            for a in legal:
                c = s.clone()
                apply_unchecked(c, a)
                v, cpv = self._paranoid(c, depth - 1, alpha, beta)
                if val is None or (v > val if maximize else v < val):
                    val, pv = v, [a] + cpv
                if maximize:
                    alpha = max(alpha, v)
                else:
                    beta = min(beta, v)
                if alpha >= beta:
                    break
            if val <= a0:
                flag = _UPPER
            elif val >= b0:
                flag = _LOWER
            else:
                flag = _EXACT
        if key is not None:
            self._tt[key] = (depth, val, flag, pv, self._horizon)
        self._horizon = self._horizon or horizon_before
        return val, pv


def _normalized(v: list[float], n: int) -> list[float]:
    """``v`` scaled to sum to 1 (as the returns of two or more seats do); ``1/n`` each when
    it sums to 0. One seat (a solo game against an automaton, whose return is 1 for a win
    and 0 for a loss) keeps its value: scaled, every position would be a certain win."""
    if n == 1:
        return [min(1.0, max(0.0, float(v[0])))]
    total = sum(v)
    if total <= 0.0:
        return [1.0 / n] * n
    return [x / total for x in v]


def _label_pv(world: State, actions: list[int]) -> tuple[PVStep, ...]:
    s = world.clone()
    out = []
    for a in actions:
        p = s.current_player()
        if p == TERMINAL or a not in s.legal_actions():
            break
        out.append(PVStep(int(p), int(a), s.action_to_string(p, a)))
        apply_unchecked(s, a)
    return tuple(out)
