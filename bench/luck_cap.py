"""The luck cap of a hidden-information title: how much a search that sees the *true state*
wins against the title's rollout search (issue 14's target for titles where luck caps any
edge).

Usage::

    python bench/luck_cap.py --game rat_trap --players 2 --games 200 --seconds 0.2
    python bench/luck_cap.py --game rat_trap --players 2 --games 100 --iterations 1000
    python bench/luck_cap.py --game rat_trap --players 3 --opponent random --games 60
    python bench/luck_cap.py --game rat_trap --players 4 --games 600 --workers 2

The *oracle* is UCT (``mcts``) searching the true state — every hidden card, role and plan
visible to it, which no ratai bot is allowed (bots never peek; this script is a measurement
outside ``ratai.bots``) — with ``--factor`` (10) times the budget of its opponents, the
title's rollout search (``ismcts``) in every other seat (``--opponent random``: random seats,
the cap of the "against random seats" targets; the oracle's budget is then ``factor`` times
``--iterations``). Whatever the oracle wins above the
fair share is the most any seat-limited bot can hope for against that opponent at that
budget: the rest is the dice and the draw. Seats rotate game by game; the oracle's mean return
(a k-way shared win counts 1/k) is printed with its 95% Wilson interval and the fair share.
A ``--seconds`` budget is per move (the oracle's is ``factor`` times it); the machine's load
changes such results, so quote ``uptime`` with them. ``--workers N`` plays the games in N
processes; each game is seeded by its index, so the result does not depend on N.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ratai.arena import wilson_interval
from ratai.bots import make_bot
from ratai.bots.search_bots import MCTSBot
from ratai.engines import CHANCE, load_game
from ratai.engines.api import sample_chance_outcome


class OracleUCT(MCTSBot):
    """``mcts`` on the true state (a benchmark baseline that peeks, never a bot kind)."""

    kind = "oracle-mcts"

    def _analyze(self, state, budget, srng, on_progress, allowed=None):
        from ratai.bots.search_bots import _cython_search
        cy = _cython_search(self.search_backend, state, self.search)
        if cy is None:
            raise ValueError("the oracle needs the compiled search (a Cython state)")
        return cy.CyUCT(self.player, self.search.c, self.max_nodes, self.max_memory_mb,
                        1).analyze(state, budget, srng, on_progress, self.progress_every,
                                   self.seed, self.kind, allowed)


def budget(iterations: int | None, seconds: float | None, factor: float = 1.0) -> dict:
    if seconds is not None:
        return {"time_limit": seconds * factor}
    return {"iterations": int(round(iterations * factor))}


def play(game, oracle_seat: int, seed: int, a) -> list[float]:
    """One game: the oracle in ``oracle_seat``, ``a.opponent`` elsewhere; the returns."""
    if isinstance(game, str):   # in a worker process
        game = load_game(game, backend="cython", num_players=a.players)
    n = game.num_players()
    rng = np.random.default_rng([a.seed, seed])
    bots = []
    for seat in range(n):
        if seat == oracle_seat:
            bots.append(OracleUCT(game, seat, seed=seed * 7 + seat, determinize=True,
                                  **budget(a.iterations, a.seconds, a.factor)))
        else:
            kw = {} if a.opponent == "random" else budget(a.iterations, a.seconds)
            bots.append(make_bot(a.opponent, game, seat, seed=seed * 7 + seat, **kw))
    state = game.new_initial_state()
    while not state.is_terminal():
        cp = state.current_player()
        if cp == CHANCE:
            state.apply_action(sample_chance_outcome(state, rng))
        else:
            state.apply_action(bots[cp].step(state))
    return list(state.returns())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="rat_trap")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--opponent", default="ismcts", help="the seat-limited rollout search")
    ap.add_argument("--iterations", type=int, default=1000, help="opponents' budget")
    ap.add_argument("--seconds", type=float, default=None, help="opponents' per-move budget")
    ap.add_argument("--factor", type=float, default=10.0, help="oracle budget / opponents'")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="processes (same result for any N)")
    a = ap.parse_args(argv)
    game = load_game(a.game, backend="cython", num_players=a.players)
    n = game.num_players()
    t0 = time.perf_counter()
    if a.workers <= 1:
        results = [play(game, i % n, i, a) for i in range(a.games)]
    else:
        with ProcessPoolExecutor(max_workers=a.workers) as pool:
            results = list(pool.map(play, [a.game] * a.games, [i % n for i in range(a.games)],
                                    range(a.games), [a] * a.games))
    total = sum(r[i % n] for i, r in enumerate(results))
    mean = total / a.games
    lo, hi = wilson_interval(total, a.games)
    what = f"{a.seconds:g} s/move" if a.seconds is not None else f"{a.iterations} iterations"
    print(f"{a.game} {n}p: oracle mcts ({a.factor:g}x budget) vs {a.opponent} at {what}: "
          f"return {mean:.3f} [{lo:.3f}, {hi:.3f}], fair share {1 / n:.3f}, ratio "
          f"{mean * n:.2f}, margin over fair {mean - 1 / n:+.3f}; {a.games} games, "
          f"{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
