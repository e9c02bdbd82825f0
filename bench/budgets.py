"""Budget overshoot of every bot kind: how far past ``time_limit`` a call to ``analyze`` returns.

Usage (short runs on a shared machine)::

    python bench/budgets.py                                   # mcts, ismcts; all games
    python bench/budgets.py --kinds pimc,expectimax,smmcts,heuristic --budgets 0.05,0.5,2
    python bench/budgets.py --games rat_trap --budgets 0.05,2,5,30 --reps 3
    python bench/budgets.py --opt mcts:threads=2 --json out.jsonl
    python bench/budgets.py --games rat_trap --players 5 --backend python --kinds ismcts

For each game, ``--reps`` decision positions are drawn from one seeded random game (a fresh
position per repetition, at least two legal moves); for each kind and budget a new bot with
``time_limit=budget`` is built and ``bot.analyze(state)`` is timed from the call to the
return (``time.perf_counter``). The overshoot is ``wall - budget`` (negative: it returned
early). The table prints, per game x kind x budget: the number of calls, the median, p99
(the largest value when fewer than 100 calls: an upper bound) and the maximum, in ms.
Issue 13's target is median <= 2 ms and p99 <= 5 ms for every kind from 0.05 s to 30 s.

Kinds are built through ``make_bot`` with per-kind defaults (``mcts`` on a hidden-information
game: ``determinize=True``); ``--opt kind:key=value`` adds options (values parsed as Python
literals). A kind that refuses a game (``ValueError`` at construction) is reported as such.
The machine is usually shared: the first rows ("machine floor") time a busy loop that only
reads the clock, the overshoot any code pays when the process is preempted across the
deadline; quote them and ``uptime`` with the figures. Each floor call busy-waits its whole
budget, so at long budgets ``--floor-reps`` (default ``--reps``; 0: no floor rows) keeps
them from doubling the run (100 floor calls at 30 s take 50 minutes).
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import time

import numpy as np

from ratai.bots import make_bot
from ratai.engines import load_game
from ratai.engines.api import SIMULTANEOUS

GAMES = ("first_rat", "rat_trap", "ratapolis", "rats_to_riches")


def positions(game, k: int, seed: int = 0, skip: int = 8) -> list:
    """``k`` decision positions with >= 2 legal moves from seeded random games (every
    ``skip``-th such position, so they spread over the game)."""
    rng = np.random.default_rng(seed)
    out, seen = [], 0
    while len(out) < k:
        s = game.new_initial_state()
        while not s.is_terminal() and len(out) < k:
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(int(rng.choice(acts, p=np.array(probs) / sum(probs))))
                continue
            p = s.current_player()
            if p == SIMULTANEOUS:
                s.apply_actions([int(rng.choice(la)) if la else -1
                                 for la in (s.legal_actions(q)
                                            for q in range(game.num_players()))])
                continue
            legal = s.legal_actions()
            if len(legal) >= 2:
                seen += 1
                if seen % skip == 1:
                    out.append(s.clone())
            s.apply_action(int(rng.choice(legal)))
    return out


def kind_options(kind: str, game, extra: dict) -> dict:
    opts = {}
    if kind == "mcts" and not game.perfect_information:
        opts["determinize"] = True
    opts.update(extra.get(kind, {}))
    return opts


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank; the maximum for small samples and q = 0.99)."""
    ys = sorted(xs)
    i = min(len(ys) - 1, max(0, int(np.ceil(q * len(ys))) - 1))
    return ys[i]


def measure(game, kind: str, budget: float, states: list, opts: dict, seed: int) -> list[float]:
    """Overshoot in seconds of ``analyze`` for each state."""
    out = []
    for i, s in enumerate(states):
        bot = make_bot(kind, game, s.current_player(), seed=seed + i, time_limit=budget,
                       **opts)
        t0 = time.perf_counter()
        bot.analyze(s)
        out.append(time.perf_counter() - t0 - budget)
        del bot
    return out


def floor(budget: float, reps: int) -> list[float]:
    """The machine's own overshoot: a busy loop that reads the clock until ``budget`` has
    passed. On a loaded machine the process is preempted across the deadline and this is
    the floor under every bot's figure."""
    out = []
    for _ in range(reps):
        dl = time.perf_counter() + budget
        while time.perf_counter() < dl:
            pass
        out.append(time.perf_counter() - dl)
    return out


def parse_opts(items: list[str]) -> dict:
    extra: dict = {}
    for it in items:
        kind, _, kv = it.partition(":")
        key, _, val = kv.partition("=")
        if not kind or not key:
            raise SystemExit(f"bad --opt {it!r}: allowed kind:key=value")
        try:
            v = ast.literal_eval(val)
        except (ValueError, SyntaxError):
            v = val
        extra.setdefault(kind, {})[key] = v
    return extra


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--kinds", default="mcts,ismcts")
    ap.add_argument("--budgets", default="0.05,0.2,1,2")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--backend", default="cython", choices=("cython", "python"))
    ap.add_argument("--players", type=int, default=None,
                    help="num_players for every game (default: each game's default)")
    ap.add_argument("--opt", action="append", default=[], help="kind:key=value")
    ap.add_argument("--floor-reps", type=int, default=None,
                    help="busy-loop calls per budget for the machine floor rows (default: "
                         "--reps; 0: none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="append one JSON line per row to this file")
    a = ap.parse_args(argv)
    extra = parse_opts(a.opt)
    budgets = [float(x) for x in a.budgets.split(",")]
    floor_reps = a.reps if a.floor_reps is None else a.floor_reps
    if floor_reps < 0:
        raise SystemExit(f"bad --floor-reps {floor_reps}: allowed an int >= 0")
    print(f"{'game':15s} {'kind':11s} {'budget s':>8s} {'n':>3s} {'median ms':>9s} "
          f"{'p99 ms':>7s} {'max ms':>7s}")
    rows = []
    for b in budgets if floor_reps else []:
        ms = [1000 * x for x in floor(b, floor_reps)]
        rows.append({"game": "-", "kind": "busy-loop", "budget_s": b, "n": len(ms),
                     "median_ms": statistics.median(ms), "p99_ms": percentile(ms, 0.99),
                     "max_ms": max(ms)})
        print(f"{'(machine floor)':15s} {'busy-loop':11s} {b:8.2f} {len(ms):3d} "
              f"{rows[-1]['median_ms']:9.2f} {rows[-1]['p99_ms']:7.2f} {rows[-1]['max_ms']:7.2f}",
              flush=True)
    for gname in a.games.split(","):
        game = load_game(gname, backend=a.backend,
                         **({} if a.players is None else {"num_players": a.players}))
        states = positions(game, a.reps, a.seed)
        for kind in a.kinds.split(","):
            opts = kind_options(kind, game, extra)
            for b in budgets:
                try:
                    xs = measure(game, kind, b, states, opts, a.seed)
                except ValueError as e:
                    print(f"{gname:15s} {kind:11s} {b:8.2f}   n/a: {e}")
                    break
                ms = [1000 * x for x in xs]
                row = {"game": gname, "kind": kind, "budget_s": b, "n": len(ms),
                       "median_ms": statistics.median(ms), "p99_ms": percentile(ms, 0.99),
                       "max_ms": max(ms), "options": opts}
                rows.append(row)
                print(f"{gname:15s} {kind:11s} {b:8.2f} {len(ms):3d} {row['median_ms']:9.2f} "
                      f"{row['p99_ms']:7.2f} {row['max_ms']:7.2f}", flush=True)
    if a.json:
        with open(a.json, "a") as f:
            for r in rows:
                f.write(json.dumps(r, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
