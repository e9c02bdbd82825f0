"""Memory of the tree searches: bytes per node per game, and process RSS after a search.

Usage (one short run; each measurement runs in a fresh subprocess so RSS is its own)::

    python bench/memory.py                       # compiled mcts/ismcts, 100k iterations
    python bench/memory.py --iterations 1000000 --games rat_trap
    python bench/memory.py --python --iterations 5000   # the Python search's node size

Compiled search: ``tree bytes`` is the pool (``cap * (sizeof(Node) + 8 * num_players)``,
growth slack and UCT's untried child slots included) and ``bytes/node`` divides it by the
nodes created; ``RSS`` is the process's resident set right after the search (the tree is
still held) minus RSS before it, in MB (2**20 bytes). Python search: ``tracemalloc`` bytes
allocated by the search divided by its nodes (what ``PY_NODE_BYTES`` in
``ratai/search/uct.py`` is set from). The default cap (``max_memory_mb=512``) is lifted
(``--cap none``) so the figures show the uncapped growth; ``--cap 64`` shows the cap holding.

Back to back (``--back-to-back N --seconds S``): ``N`` calls of ``make_bot(kind, game,
time_limit=S).analyze`` on different positions with no pause between them, as self-play, an
arena or a hosted seat makes them, each kind in a fresh subprocess with its default cap;
after each call: RSS (MB), the items queued for the freeing thread (trees and end-of-pause
markers) and the objects ``paused_gc`` froze that still live. RSS must level off, not grow
with the calls::

    python bench/memory.py --games ratapolis --kinds pimc,smmcts --back-to-back 8 --seconds 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

GAMES = ("first_rat", "rat_trap", "ratapolis", "rats_to_riches")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import os
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(game_name: str, kind: str, iterations: int, cap, python: bool) -> dict:
    import time
    import tracemalloc

    import numpy as np

    from ratai.engines import load_game
    from ratai.search.common import Budget, SearchRng, node_cap
    from ratai.search.ismcts import merges_moves

    sys.path.insert(0, "bench")
    from budgets import positions

    game = load_game(game_name, backend="python" if python else "cython")
    s = positions(game, 1, seed=0)[0]
    p = s.current_player()
    if kind == "mcts" and not game.perfect_information:
        s = s.resample_from_infostate(p, 0)
    budget = Budget(iterations=iterations).check()
    srng = SearchRng(0, s, p)
    t0 = time.perf_counter()
    if python:
        from ratai.search.ismcts import ISMCTS
        from ratai.search.uct import UCT
        tracemalloc.start()
        if kind == "mcts":
            res = UCT(game, p).run(s, budget, srng.py, max_nodes=node_cap(None, cap, 420))
            nodes, keep = res.nodes, res
        else:
            search = ISMCTS(game, p)
            keep = search
            an = search.analyze(s, budget, srng)
            nodes = an.nodes
        used, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out = {"nodes": nodes, "bytes_per_node": used / max(1, nodes), "tree_mb": used / 2**20}
        del keep
    else:
        from ratai._speedups import search as cy
        base = rss_mb()
        cls = cy.CyUCT(p, 1.0, None, cap) if kind == "mcts" else cy.CyISMCTS(
            p, 0.7, "infostate", None, cap, merge=merges_moves(s.get_game(), "auto"))
        # keep the tree: run the loop without the final release
        if kind == "mcts":
            cls._prepare(s, 1, None)
        else:
            cls._prepare(s, 1, None, s.resample_from_infostate(p, 1), np.random.default_rng(1))
        cls._loop(iterations, -1.0, None, None, None, 0)
        rss = rss_mb() - base
        out = {"nodes": int(cls.nodes), "tree_mb": cls._tree_bytes() / 2**20,
               "bytes_per_node": cls._tree_bytes() / max(1, cls.nodes), "rss_mb": rss,
               "capped": bool(cls.capped)}
    out.update(game=game_name, kind=kind, iterations=iterations, seconds=time.perf_counter() - t0,
               backend="python" if python else "cython", cap_mb=cap)
    return out


def back_to_back(game_name: str, kind: str, calls: int, seconds: float) -> None:
    import gc
    import time

    from ratai.bots import make_bot
    from ratai.engines import load_game
    from ratai.search import common

    sys.path.insert(0, "bench")
    from budgets import positions

    game = load_game(game_name, backend="cython")
    print(f"{game_name} {kind} {seconds:g} s: RSS {rss_mb():.0f} MB before", flush=True)
    for i, s in enumerate(positions(game, calls, seed=3)):
        bot = make_bot(kind, game, s.current_player(), seed=3 + i, time_limit=seconds)
        t0 = time.perf_counter()
        bot.analyze(s)
        took = time.perf_counter() - t0
        del bot
        print(f"  call {i + 1:3d}: {took:6.3f} s  RSS {rss_mb():7.0f} MB  queued "
              f"{common._TRASH.qsize():2d}  frozen {gc.get_freeze_count():9d}", flush=True)
    t0 = time.perf_counter()
    while common._TRASH.qsize():
        time.sleep(0.01)
    print(f"  drained {time.perf_counter() - t0:.2f} s after the last call; RSS "
          f"{rss_mb():.0f} MB", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--kinds", default="mcts,ismcts")
    ap.add_argument("--iterations", type=int, default=100_000)
    ap.add_argument("--cap", default="none", help="max_memory_mb, or 'none'")
    ap.add_argument("--python", action="store_true", help="the Python search (tracemalloc)")
    ap.add_argument("--back-to-back", type=int, default=0, metavar="N",
                    help="N timed calls of make_bot(kind).analyze with no pause (RSS per call)")
    ap.add_argument("--seconds", type=float, default=5.0, help="per call, with --back-to-back")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.back_to_back and a.child:
        back_to_back(*a.child.split(":"), a.back_to_back, a.seconds)
        return 0
    if a.back_to_back:
        for g in a.games.split(","):
            for k in a.kinds.split(","):
                subprocess.run([sys.executable, __file__, "--child", f"{g}:{k}", "--back-to-back",
                                str(a.back_to_back), "--seconds", str(a.seconds)], check=True)
        return 0
    cap = None if a.cap == "none" else float(a.cap)
    if a.child:
        g, k = a.child.split(":")
        print(json.dumps(child(g, k, a.iterations, cap, a.python)))
        return 0
    print(f"{'game':15s} {'kind':7s} {'backend':7s} {'iters':>8s} {'nodes':>9s} "
          f"{'tree MB':>8s} {'B/node':>7s} {'RSS MB':>7s} {'s':>6s}")
    for g in a.games.split(","):
        for k in a.kinds.split(","):
            cmd = [sys.executable, __file__, "--child", f"{g}:{k}", "--iterations",
                   str(a.iterations), "--cap", a.cap] + (["--python"] if a.python else [])
            r = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                          text=True).stdout.strip().splitlines()[-1])
            print(f"{g:15s} {k:7s} {r['backend']:7s} {r['iterations']:8d} {r['nodes']:9d} "
                  f"{r['tree_mb']:8.1f} {r['bytes_per_node']:7.0f} "
                  f"{r.get('rss_mb', float('nan')):7.1f} {r['seconds']:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
