"""Tree reuse, pondering and threads: strength at equal per-move time, and the visits carried
over.

Usage (short runs on a shared machine; quote ``uptime`` with the figures)::

    python bench/ponder.py --game rat_trap --mode ponder --time-limit 0.05 --games 20
    python bench/ponder.py --game rat_trap --mode reuse --time-limit 0.05 --games 20
    python bench/ponder.py --game rats_to_riches --kind mcts --mode ponder --games 20
    python bench/ponder.py --game rat_trap --mode threads --time-limit 0.2 --games 40

Bot A (``--kind``: ``az``, or by default ``ismcts`` on hidden information and ``mcts``
otherwise) with ``reuse_tree=True`` (``--mode reuse``) or ``ponder=True`` (``--mode
ponder``, which implies reuse) or ``threads=--threads`` (``--mode threads``: root-parallel
search on that many threads, default 2) takes one seat, the same kind without it every
other seat, all with the same ``--time-limit`` (or ``--iterations``) per move; A's seat
rotates game by game, so the fair share is ``1/n``. ``--mode threads`` measures what a
second core buys at equal wall time (issue 13, item 5): only on an idle machine with as
many cores as threads.
A's pondering runs while the other seats think (their ``--time-limit`` per move, on the
other core); on a machine whose cores are busy it only steals time, so the strength figure
is meaningful on an idle machine only. The script prints A's mean score with its 95%
interval (normal approximation) and the game count, and per A move: its own iterations,
the visits its tree already held when the search began ("carried": root visits minus
the iterations of this call) and the share of moves that found their node in the kept tree.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

sys.path.insert(0, "bench")
from strength import MatchResult, confidence_interval  # noqa: E402

from ratai.bots import make_bot  # noqa: E402
from ratai.engines import load_game  # noqa: E402


def play(game, bots, a_seat: int, rnd: random.Random) -> tuple[float, list[tuple[int, int]]]:
    """One game; returns A's result and ``(iterations, carried visits)`` per A search."""
    s = game.new_initial_state()
    per_move = []
    while not s.is_terminal():
        cp = s.current_player()
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
            continue
        an = bots[cp].analyze(s)
        if cp == a_seat and not an.forced:
            per_move.append((an.iterations, sum(m.visits for m in an.moves) - an.iterations))
        s.apply_action(an.best_action)
    return s.returns()[a_seat], per_move


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--kind", default="auto", choices=("auto", "mcts", "ismcts", "az"))
    ap.add_argument("--mode", default="ponder", choices=("ponder", "reuse", "threads", "none"))
    ap.add_argument("--threads", type=int, default=2, help="A's threads in --mode threads")
    ap.add_argument("--time-limit", type=float, default=0.05)
    ap.add_argument("--iterations", type=int, default=None,
                    help="equal iterations per move instead of time (reuse's kept visits "
                         "come on top: a reproducible check of the reuse itself)")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    params = {"num_players": a.players} if a.players else {}
    game = load_game(a.game, backend="cython", **params)
    kind = a.kind if a.kind != "auto" else ("mcts" if game.perfect_information else "ismcts")
    n = game.num_players()
    rnd = random.Random(a.seed)
    extra = {"ponder": {"ponder": True}, "reuse": {"reuse_tree": True},
             "threads": {"threads": a.threads}, "none": {}}[a.mode]
    scores, moves = [], []
    t0 = time.perf_counter()
    for g in range(a.games):
        seat = g % n
        budget = ({"iterations": a.iterations} if a.iterations else
                  {"time_limit": a.time_limit})
        bots = [make_bot(kind, game, p, seed=a.seed * 1000 + g * 10 + p, **budget,
                         **(extra if p == seat else {}))
                for p in range(n)]
        try:
            score, per = play(game, bots, seat, rnd)
        finally:
            for b in bots:
                b.close()
        scores.append(score)
        moves += per
    mean, low, high = confidence_interval(scores)
    res = MatchResult(a.games, mean, low, high, time.perf_counter() - t0)
    its = statistics.mean(m[0] for m in moves) if moves else 0.0
    carried = statistics.mean(m[1] for m in moves) if moves else 0.0
    hit = sum(1 for m in moves if m[1] > 0) / len(moves) if moves else 0.0
    per = f"{a.iterations} iterations" if a.iterations else f"{a.time_limit} s"
    mode = f"threads={a.threads}" if a.mode == "threads" else a.mode
    print(f"{a.game} ({n} players): {kind}({mode}) vs {kind}, {per} per move, "
          f"fair share {1 / n:.2f}: {res}")
    print(f"  per A move ({len(moves)} searches): iterations {its:,.0f}, carried visits "
          f"{carried:,.0f}, kept node found in {hit:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
