"""Plans of many own decisions: which bots find a win that needs K moves in a row.

Issue 14: "positions that need a plan of several own decisions are out of reach of random
rollouts: in a Rats to Riches position where selling ten Pipes wins at once, every bot kind
returns value 0.000 for every root move at 1,000 iterations". The position (the one of
``tests/bots/test_bot_positions.py``, ``rr_ten_pipe_sale_reaches_100``, with ``--pipes K``):
2 players, seat 0 to act in Step 2 with ``100 - K**2`` $ and K Pipes (Scrappy Sewer); only
selling all K in one sale (K decisions: put a pipe into the sale, K - 1 more times; the
sale completes with the last pipe) pays K² $ and reaches $100 (rulebook "Blue Cards are
Pipes", RR-1). Anything else lets seat 1 ($98, income $2) win with its next income. A
random playout completes the line about once in 2**K.

Usage::

    python bench/plans.py                       # K = 10, Cython twin, 10 seeds
    python bench/plans.py --kinds mcts,az --budgets 300,1000 --backend python --seeds 6

For each kind, backend and iteration budget, over ``--seeds`` seeds (0, 1, ...): ``root``,
how many seeds chose the winning root move; ``value``, the mean value the search gave that
move (the mover's expected return, 0 to 1); ``won``, how many seeds won the game when the
bot played every decision of seat 0 from there (``Bot.step``, a fresh search per move).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ratai.bots import make_bot
from ratai.engines import load_game

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "engines"
                       / "rats_to_riches"))
import rr_helpers as rr  # noqa: E402  (the tests' position builder)


def position(pipes: int, backend: str):
    """The K-pipe position on ``backend`` (seat 0 to move)."""
    if not 1 <= pipes <= 10:
        raise SystemExit(f"plans.py: error: --pipes {pipes}: allowed 1..10")
    _, s = rr.make_state(2, cash=[100 - pipes * pipes, 98], tableau={0: {rr.PIPE: pipes}})
    if backend == "cython":
        s = load_game("rats_to_riches", backend="cython",
                      num_players=2).deserialize_state(s.serialize())
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pipes", type=int, default=10, help="K, the plan's length (1..10)")
    ap.add_argument("--kinds", default="mcts,ismcts,pimc,az")
    ap.add_argument("--budgets", default="100,300,1000,3000", help="iterations per move")
    ap.add_argument("--backend", choices=["python", "cython"], default="cython")
    ap.add_argument("--seeds", type=int, default=10)
    a = ap.parse_args(argv)
    budgets = [int(b) for b in a.budgets.split(",")]
    start = position(a.pipes, a.backend)
    win = start.string_to_action(0, f"sell {rr.PIPE}")
    print(f"{'kind':8} {'backend':8} {'iterations':>10} {'root':>6} {'value':>6} {'won':>6} "
          f"{'s':>6}")
    for kind in a.kinds.split(","):
        for it in budgets:
            t0 = time.perf_counter()
            root = won = 0
            value = 0.0
            for seed in range(a.seeds):
                s = start.clone()
                bot = make_bot(kind, s.get_game(), 0, seed=seed, iterations=it)
                an = bot.analyze(s)
                root += an.best_action == win
                value += next(m.value for m in an.moves if m.action == win)
                while s.current_player() == 0:
                    s.apply_action(bot.step(s))
                won += s.is_terminal() and s.returns()[0] == 1.0
            print(f"{kind:8} {a.backend:8} {it:>10} {root:>3}/{a.seeds:<2} "
                  f"{value / a.seeds:6.3f} {won:>3}/{a.seeds:<2} "
                  f"{time.perf_counter() - t0:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
