"""Seat-rotated strength matches between bot kinds, with win rates and 95% confidence intervals.

Usage (small runs only on a shared machine)::

    python bench/strength.py --game rat_trap --a ismcts --a-iterations 1000 --b random --games 100
    python bench/strength.py --game rats_to_riches --a auto --b heuristic --sweep 100,300,1000

Bot A takes one seat and bot B every other seat; A's seat rotates game by game so every seat
is played equally often. A's score per game is its ``returns()`` entry (win 1, loss 0, a
k-way shared win 1/k). With ``n`` seats the fair share is ``1/n``: "beating the field" means
a win rate above it. The interval is the normal approximation ``mean ± 1.96 · sd / sqrt(N)``
(clipped to [0, 1]).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import dataclass

from ratai.bots import make_bot
from ratai.engines import load_game
from ratai.engines.api import SIMULTANEOUS


@dataclass
class MatchResult:
    """Outcome of a match: A's mean score, its 95% interval and the game count."""

    games: int
    mean: float
    low: float
    high: float
    seconds: float

    def __str__(self) -> str:
        return (f"{100 * self.mean:5.1f}%  [{100 * self.low:5.1f}, {100 * self.high:5.1f}]  "
                f"n={self.games}  {self.seconds:.1f}s")


def confidence_interval(scores: list[float]) -> tuple[float, float, float]:
    """Mean and the 95% normal-approximation interval of ``scores`` (each in [0, 1])."""
    n = len(scores)
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / (n - 1) if n > 1 else 0.25
    half = 1.96 * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def resolve(kind: str, game) -> str:
    """``auto``: ``mcts`` for perfect information, else ``ismcts``."""
    if kind == "auto":
        return "mcts" if game.perfect_information else "ismcts"
    return kind


def bot_kwargs(kind: str, iterations: int | None, seed: int) -> dict:
    if kind == "random" or kind == "heuristic":
        return {"seed": seed}
    if kind == "expectimax":
        return {"seed": seed, "max_depth": 2, "iterations": iterations}
    return {"seed": seed, "iterations": iterations}


def play_game(game, bots, rnd: random.Random) -> list[float]:
    """Play one game with ``bots[seat]``; returns ``returns()``."""
    s = game.new_initial_state()
    n = game.num_players()
    while not s.is_terminal():
        cp = s.current_player()
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
        elif cp == SIMULTANEOUS:
            s.apply_actions([bots[p].step(s) if s.legal_actions(p) else -3 for p in range(n)])
        else:
            s.apply_action(bots[cp].step(s))
    return s.returns()


def match(game, a: str, b: str, games: int, a_iterations: int | None,
          b_iterations: int | None, seed: int = 0, on_game=None) -> MatchResult:
    """``games`` seat-rotated games of bot ``a`` against ``n-1`` copies of ``b``;
    ``on_game()`` after each game (for a progress bar)."""
    n = game.num_players()
    rnd = random.Random(seed)
    scores = []
    t0 = time.perf_counter()
    for g in range(games):
        seat = g % n
        bots = []
        for p in range(n):
            kind, it = (a, a_iterations) if p == seat else (b, b_iterations)
            kind = resolve(kind, game)
            bots.append(make_bot(kind, game, p, **bot_kwargs(kind, it, seed * 1000 + g * 10 + p)))
        scores.append(play_game(game, bots, rnd)[seat])
        if on_game is not None:
            on_game()
    mean, low, high = confidence_interval(scores)
    return MatchResult(games, mean, low, high, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--a", default="auto", help="kind of the bot under test (auto: mcts/ismcts)")
    ap.add_argument("--a-iterations", type=int, default=1000)
    ap.add_argument("--b", default="random", help="kind of the opponents")
    ap.add_argument("--b-iterations", type=int, default=None)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sweep", default=None,
                    help="comma-separated iteration counts for A (e.g. 100,300,1000,3000,10000)")
    args = ap.parse_args(argv)
    params = {"num_players": args.players} if args.players else {}
    game = load_game(args.game, **params)
    n = game.num_players()
    a = resolve(args.a, game)
    print(f"{game!r}: {a} vs {n - 1} x {args.b}; fair share {100 / n:.1f}%")
    sweep = [int(x) for x in args.sweep.split(",")] if args.sweep else [args.a_iterations]
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        for it in sweep:
            task = bar.add_task(f"{a}@{it}", total=args.games)
            res = match(game, a, args.b, args.games, it, args.b_iterations, args.seed,
                        on_game=lambda t=task: bar.advance(t))
            bar.remove_task(task)
            print(f"  {a}@{it:<6} {res}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
