"""Tree reuse: strength of ``mcts(reuse_tree=True)`` against plain ``mcts`` at equal per-move
budget, seat-rotated, with a 95% interval (``bench/strength.py``'s machinery).

Usage (short runs on a shared machine)::

    python bench/reuse.py --game rats_to_riches --iterations 300 --games 40
    python bench/reuse.py --game first_rat --time-limit 0.05 --games 20

Bot A (tree reuse) takes one seat and plain mcts every other seat; A's seat rotates game by
game. ``--iterations`` gives both the same iterations per move (reuse adds the kept visits on
top: what "equal per-move time" buys when reuse itself is free); ``--time-limit`` gives both
the same seconds per move (noisy on a loaded machine). The fair share is ``1/n``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

sys.path.insert(0, "bench")
from strength import MatchResult, confidence_interval, play_game  # noqa: E402

from ratai.bots import make_bot  # noqa: E402
from ratai.engines import load_game  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--iterations", type=int, default=None)
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if (a.iterations is None) == (a.time_limit is None):
        raise SystemExit("give one of --iterations or --time-limit")
    game = load_game(a.game, backend="cython")
    n = game.num_players()
    rnd = random.Random(a.seed)
    budget = {"iterations": a.iterations, "time_limit": a.time_limit}
    scores = []
    t0 = time.perf_counter()
    for g in range(a.games):
        seat = g % n
        bots = [make_bot("mcts", game, p, seed=a.seed * 1000 + g * 10 + p,
                         reuse_tree=(p == seat), **budget) for p in range(n)]
        scores.append(play_game(game, bots, rnd)[seat])
    mean, low, high = confidence_interval(scores)
    res = MatchResult(a.games, mean, low, high, time.perf_counter() - t0)
    print(f"{a.game}: mcts reuse_tree vs mcts ({budget}), fair share {1 / n:.2f}: {res}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
