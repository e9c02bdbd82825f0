"""Parallel compiled search: iterations/s with ``threads=1`` and ``threads=2``, and how long
another Python thread stalls during a search.

Usage (short; the machine is usually shared, so quote ``uptime`` with the figures)::

    python bench/threads.py --seconds 1 --reps 3

For each game and kind (``mcts``, ``ismcts``; compiled search) one decision position is
searched ``--reps`` times for ``--seconds`` per thread count, interleaved; the table gives
median iterations/s and the ratio 2 threads / 1 thread (the target is >= 1.7 on two idle
cores). ``cpu`` is the process's CPU seconds per wall second during the search: about 1 for
one thread and about 2 for two threads that really run at once (a GIL-bound search stays
near 1), whatever the machine's load does to the iteration rates. ``stall`` is the longest
gap seen by a Python thread that sleeps 1 ms in a loop while a ``--seconds`` search runs (the
compiled loop drops the GIL every ~1 ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time

sys.path.insert(0, "bench")
from budgets import GAMES, kind_options, positions  # noqa: E402

from ratai.bots import make_bot  # noqa: E402
from ratai.engines import load_game  # noqa: E402


def stall(bot, s, seconds: float) -> float:
    stop = threading.Event()
    gaps = [0.0]

    def tick():
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    th = threading.Thread(target=tick)
    th.start()
    time.sleep(0.01)
    bot.analyze(s)
    stop.set()
    th.join()
    return max(gaps)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--kinds", default="mcts,ismcts")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args(argv)
    print(f"{'game':15s} {'kind':7s} {'it/s 1T':>9s} {'it/s 2T':>9s} {'2T/1T':>6s} "
          f"{'cpu 1T':>6s} {'cpu 2T':>6s} {'stall ms':>8s}")
    for g in a.games.split(","):
        game = load_game(g, backend="cython")
        s = positions(game, 1, seed=0)[0]
        for k in a.kinds.split(","):
            opts = kind_options(k, game, {})
            rates: dict[int, list[float]] = {1: [], 2: []}
            cpu: dict[int, list[float]] = {1: [], 2: []}
            for _ in range(a.reps):
                for t in (1, 2):
                    bot = make_bot(k, game, s.current_player(), seed=0,
                                   time_limit=a.seconds, threads=t, **opts)
                    c0 = time.process_time()
                    an = bot.analyze(s)
                    cpu[t].append((time.process_time() - c0) / an.elapsed_s)
                    rates[t].append(an.iterations / an.elapsed_s)
            one, two = statistics.median(rates[1]), statistics.median(rates[2])
            cpu1, cpu2 = statistics.median(cpu[1]), statistics.median(cpu[2])
            bot = make_bot(k, game, s.current_player(), seed=0, time_limit=a.seconds, **opts)
            st = stall(bot, s, a.seconds)
            print(f"{g:15s} {k:7s} {one:9.0f} {two:9.0f} {two / one:6.2f} {cpu1:6.2f} "
                  f"{cpu2:6.2f} {1000 * st:8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
