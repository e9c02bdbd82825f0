"""The one-ply greedy :class:`HeuristicBot`: the baseline every search bot must beat."""

from __future__ import annotations

from ratai.engines.api import CHANCE, INVALID, SIMULTANEOUS, TERMINAL, State
from ratai.search.common import (
    Analysis,
    Budget,
    MoveStat,
    PVStep,
    apply_joint,
    apply_unchecked,
    check_int,
    has_heuristic,
    joint_legal,
    sample_outcome,
)
from ratai.search.pimc import MAX_REPORTED_MOVES

from .search_bots import SearchBot

__all__ = ["HeuristicBot"]

#: The largest value of each heuristic option (a documented range, so no request can ask
#: for unbounded work: ``determinizations=1e300`` is refused).
OPTION_MAX = {"chance_samples": 1024, "determinizations": 1024, "joint_samples": 1024,
              "max_evals": 1_000_000}


class _OutOfBudget(Exception):
    """The evaluation cap, the time limit or the cancel flag ended the decision."""


class HeuristicBot(SearchBot):
    """One-ply greedy play on the game's evaluation ``game.heuristic_value(state, player)``.

    For each legal action the bot applies it and scores the result for its seat: a terminal
    state by ``returns()``, a decision node by ``heuristic_value`` (which reads only the
    seat's observation), and a chance node by the probability-weighted mean over its outcomes
    (enumerated when there are at most ``chance_samples`` of them, nested chance nodes
    sharing that width; otherwise ``chance_samples`` sampled outcomes). Ties go to a seeded
    random order. At a ``SIMULTANEOUS`` node each own action is averaged over
    ``joint_samples`` uniformly random actions of the other seats.

    Work is bounded: one decision makes at most ``max_evals`` evaluations (calls of
    ``heuristic_value`` or ``returns``), at every kind of node. When the full pass would need
    more, the chance width and the joint samples shrink so that every candidate still gets
    an equal share, and when there are more candidates than the cap allows, a seeded random
    subset of them is evaluated (the others are listed with ``visits == 0``, after the
    evaluated ones). With more than 256 legal moves (a joint plan node) ``Analysis.moves``
    lists at most the 256 best evaluated ones. ``time_limit`` and the ``stop`` flag are
    checked before every evaluation; the decision then ranks what it evaluated (never an
    unevaluated move first).

    Hidden information: the bot never applies moves to the state it is given. For a
    perfect-information game it works on a clone; otherwise on ``determinizations``
    worlds drawn with ``state.resample_from_infostate(player, rng)`` (averaged), so chance
    outcomes such as the next card come from what the seat knows, not from the real deck.

    Args:
        game, player, seed: see :class:`ratai.bots.Bot`.
        iterations: optional further cap on evaluations (the smaller of it and
            ``max_evals`` applies).
        time_limit: optional wall-clock seconds for the decision (setup included).
        max_depth: accepted for a uniform ``make_bot`` signature and ignored (one ply).
        on_progress, progress_every, skip_forced, stop: as for
            :class:`ratai.bots.SearchBot` (``on_progress`` every ``progress_every``
            evaluations; ``skip_forced`` default True).
        chance_samples: the enumeration width at chance nodes (an int 1..1024, default 16).
        determinizations: worlds averaged for hidden-information games (1..1024, default 1).
        joint_samples: completions sampled per own action at ``SIMULTANEOUS`` nodes
            (1..1024, default 8).
        max_evals: the most evaluations of one decision (1..1,000,000, default 1,024).

    Raises:
        ValueError: the game has no ``heuristic_value``, or a bad parameter (named).
    """

    kind = "heuristic"
    OPTIONS = ("chance_samples", "determinizations", "joint_samples", "max_evals")
    NEEDS = ""

    def _setup(self, chance_samples: int = 16, determinizations: int = 1,
               joint_samples: int = 8, max_evals: int = 1024) -> None:
        if not has_heuristic(self.game):
            raise ValueError(f"game {self.game.name!r} has no heuristic_value; the heuristic "
                             f"bot needs one")
        self.chance_samples = check_int("chance_samples", chance_samples, 1,
                                        OPTION_MAX["chance_samples"])
        self.determinizations = check_int("determinizations", determinizations, 1,
                                          OPTION_MAX["determinizations"])
        self.joint_samples = check_int("joint_samples", joint_samples, 1,
                                       OPTION_MAX["joint_samples"])
        self.max_evals = check_int("max_evals", max_evals, 1, OPTION_MAX["max_evals"])

    def _analyze(self, state: State, budget: Budget, srng, on_progress) -> Analysis:
        legal = state.legal_actions(self.player)
        rnd = srng.py
        p, n = self.player, self.game.num_players()
        cap = self.max_evals if budget.iterations is None else min(self.max_evals,
                                                                     budget.iterations)
        k = 1 if self.game.perfect_information else min(self.determinizations, cap)
        order = list(legal)
        rnd.shuffle(order)
        tiebreak = {a: i for i, a in enumerate(order)}
        joint = state.current_player() == SIMULTANEOUS
        # At most cap // k candidates, so each (candidate, world) gets >= 1 evaluation.
        candidates = sorted(order[:max(1, cap // k)])
        per = cap // (len(candidates) * k)  # evaluations per (candidate, world), >= 0
        samples = max(1, min(self.joint_samples, per)) if joint else 1
        width = min(self.chance_samples, per // samples)
        self._evals, self._cap, self._budget = 0, cap, budget
        values: dict[int, float] = {a: 0.0 for a in legal}
        counts: dict[int, int] = {a: 0 for a in legal}
        label = state

        labels: dict[int, str] = {}

        def name(a: int) -> str:
            text = labels.get(a)
            if text is None:
                text = labels[a] = label.action_to_string(p, a)
            return text

        def report() -> Analysis:
            pool = legal
            if len(legal) > MAX_REPORTED_MOVES:  # a joint plan node: the evaluated plans
                pool = [a for a in candidates if counts[a]] or [candidates[0]]
            moves = sorted(pool, key=lambda a: (counts[a] == 0, -values[a], tiebreak[a]))
            moves = moves[:MAX_REPORTED_MOVES]
            stats = tuple(MoveStat(int(a), name(a), counts[a], values[a], 1.0 / len(legal))
                          for a in moves)
            best = moves[0]
            return Analysis(best, stats, (PVStep(p, best, name(best)),),
                            self._evals, self._evals, 1, budget.elapsed(), self.seed, p,
                            self.kind)

        every = self.progress_every
        next_report = every
        try:
            worlds: list[State] = []
            for _ in range(k):
                self._tick()
                worlds.append(state.clone() if self.game.perfect_information else
                              state.resample_from_infostate(p, srng.child_seed()))
            label = worlds[0]
            per_seat = [joint_legal(w, n) for w in worlds] if joint else []
            for a in candidates:
                total = 0.0
                before = self._evals
                for wi, w in enumerate(worlds):
                    if joint:
                        sub = 0.0
                        for _ in range(samples):
                            self._tick()
                            c = w.clone()
                            move = [a if q == p else
                                    (la[rnd.randrange(len(la))] if la else INVALID)
                                    for q, la in enumerate(per_seat[wi])]
                            apply_joint(c, move)
                            sub += self._value(c, width, rnd)
                        total += sub / samples
                    else:
                        self._tick()
                        c = w.clone()
                        apply_unchecked(c, a)
                        total += self._value(c, width, rnd)
                values[a] = total / len(worlds)
                counts[a] = self._evals - before
                if on_progress is not None and self._evals >= next_report:
                    next_report = self._evals + every
                    if on_progress(report()) is False:
                        break
        except _OutOfBudget:
            pass
        return report()

    def _tick(self) -> None:
        """Raise ``_OutOfBudget`` when no further evaluation is allowed."""
        if self._evals >= self._cap or self._budget.expired():
            raise _OutOfBudget

    def _value(self, s: State, width: int, rnd) -> float:
        """The seat's estimate of ``s``; at most ``max(1, width)`` evaluations."""
        p = self.player
        cp = s.current_player()
        if cp == TERMINAL or cp != CHANCE or width < 1:
            self._tick()
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
