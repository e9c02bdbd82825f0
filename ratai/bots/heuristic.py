"""The one-ply greedy :class:`HeuristicBot`: the baseline every search bot must beat."""

from __future__ import annotations

from typing import Any

from ratai.engines.api import CHANCE, INVALID, SIMULTANEOUS, TERMINAL, Game, State
from ratai.search.common import (
    Analysis,
    MoveStat,
    PVStep,
    apply_joint,
    apply_unchecked,
    has_heuristic,
    joint_legal,
    sample_outcome,
)

from .base import Bot

__all__ = ["HeuristicBot"]


class HeuristicBot(Bot):
    """One-ply greedy play on the game's evaluation ``game.heuristic_value(state, player)``.

    For each legal action the bot applies it and scores the result for its seat: a terminal
    state by ``returns()``, a decision node by ``heuristic_value`` (which reads only the
    seat's observation), and a chance node by the probability-weighted mean over its outcomes
    (enumerated when there are at most ``chance_samples`` of them, nested chance nodes
    sharing that width; otherwise ``chance_samples`` sampled outcomes). Ties go to a seeded
    random order. At a ``SIMULTANEOUS`` node each own action is averaged over
    ``joint_samples`` uniformly random actions of the other seats, within ``max_evals``
    completions in all (a seeded random subset of the actions if there are more).

    Hidden information: the bot never applies moves to the state it is given. For a
    perfect-information game it works on a clone; otherwise on ``determinizations``
    worlds drawn with ``state.resample_from_infostate(player, rng)`` (averaged), so chance
    outcomes such as the next card come from what the seat knows, not from the real deck.

    Args:
        game, player, seed: see :class:`ratai.bots.Bot`.
        iterations, time_limit, max_depth: accepted for a uniform ``make_bot`` signature and
            ignored (the bot does a fixed one-ply evaluation).
        chance_samples: the enumeration width at chance nodes (>= 1).
        determinizations: worlds averaged for hidden-information games (>= 1).
        joint_samples: completions sampled per own action at ``SIMULTANEOUS`` nodes (>= 1).
        max_evals: cap on completions evaluated at a ``SIMULTANEOUS`` node (>= 1).

    Raises:
        ValueError: the game has no ``heuristic_value``, or a bad parameter (named).
    """

    kind = "heuristic"

    def __init__(self, game: Game, player: int, *, iterations: int | None = None,
                 time_limit: float | None = None, max_depth: int | None = None,
                 seed: Any = None, chance_samples: int = 16, determinizations: int = 1,
                 joint_samples: int = 8, max_evals: int = 1024):
        super().__init__(game, player, seed=seed)
        if not has_heuristic(game):
            raise ValueError(f"game {game.name!r} has no heuristic_value; the heuristic bot "
                             f"needs one")
        for name, v in (("chance_samples", chance_samples),
                        ("determinizations", determinizations),
                        ("joint_samples", joint_samples), ("max_evals", max_evals)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"bad {name} {v!r}: allowed an int >= 1")
        self.chance_samples = chance_samples
        self.determinizations = determinizations
        self.joint_samples = joint_samples
        self.max_evals = max_evals

    def analyze(self, state: State) -> Analysis:
        legal = self._check_turn(state)
        srng = self._rng(state)
        rnd = srng.py
        p, n = self.player, self.game.num_players()
        if self.game.perfect_information:
            worlds = [state]
        else:
            worlds = [state.resample_from_infostate(p, srng.child_seed())
                      for _ in range(self.determinizations)]
        order = list(legal)
        rnd.shuffle(order)
        tiebreak = {a: i for i, a in enumerate(order)}
        joint = state.current_player() == SIMULTANEOUS
        # A joint planning node may offer thousands of plans: evaluate at most max_evals
        # completions, on a seeded random subset of the plans if needs be.
        candidates = sorted(order[:self.max_evals]) if joint else legal
        samples = max(1, min(self.joint_samples, self.max_evals // len(candidates))) \
            if joint else 1
        self._evals = 0
        values: dict[int, float] = {a: 0.0 for a in legal}
        counts: dict[int, int] = {a: 0 for a in legal}
        per_seat = [joint_legal(w, n) for w in worlds] if joint else []
        for a in candidates:
            total = 0.0
            before = self._evals
            for wi, w in enumerate(worlds):
                if joint:
                    sub = 0.0
                    for _ in range(samples):
                        c = w.clone()
                        move = [a if q == p else (la[rnd.randrange(len(la))] if la else INVALID)
                                for q, la in enumerate(per_seat[wi])]
                        apply_joint(c, move)
                        sub += self._value(c, self.chance_samples, rnd)
                    total += sub / samples
                else:
                    c = w.clone()
                    apply_unchecked(c, a)
                    total += self._value(c, self.chance_samples, rnd)
            values[a] = total / len(worlds)
            counts[a] = self._evals - before
        label = worlds[0]
        moves = sorted(legal, key=lambda a: (counts[a] == 0, -values[a], tiebreak[a]))
        stats = tuple(MoveStat(int(a), label.action_to_string(p, a), counts[a], values[a],
                               1.0 / len(legal)) for a in moves)
        best = moves[0]
        return Analysis(best, stats, (PVStep(p, best, label.action_to_string(p, best)),),
                        self._evals, self._evals, 1, 0.0, self.seed, p, self.kind)

    def _value(self, s: State, width: int, rnd) -> float:
        p = self.player
        cp = s.current_player()
        if cp == TERMINAL:
            self._evals += 1
            return float(s.returns()[p])
        if cp != CHANCE or width < 1:
            self._evals += 1
            return float(self.game.heuristic_value(s, p))
        outs = s._chance_outcomes()
        if len(outs) <= width:
            total = 0.0
            for a, pr in outs:
                c = s.clone()
                apply_unchecked(c, a)
                total += pr * self._value(c, width // len(outs), rnd)
            return total
        total = 0.0
        for _ in range(width):
            c = s.clone()
            apply_unchecked(c, sample_outcome(outs, rnd.random()))
            total += self._value(c, 0, rnd)
        return total / width
