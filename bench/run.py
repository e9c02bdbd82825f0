"""Headline engine benchmark: reference (Python) engine vs Cython twin, per game.

Usage::

    python bench/run.py                      # every game with a twin, default parameters
    python bench/run.py --game rat_trap --variant 5p-big-gang-roles --repeats 7

For each game it prints, as medians of ``--repeats`` runs in this process:

* random playouts (uniform decisions, chance outcomes by probability) in games/s and
  actions/s: the reference engine driven from Python (``_legal_actions``,
  ``_chance_outcomes``, ``_apply_action``, the search's unchecked fast path), the twin driven
  the same way from Python, and the twin driven from C through the ``cdef`` interface
  (``ratai._speedups.core.random_playouts``, the engine speed a Cython search sees);
* ``clone()`` in ns called from Python on both backends, and inside Cython (``c_clone``: a
  new object; ``c_copy_from``: a memcpy into a reused state, as a node pool does);
* the ratios twin/reference (medians of per-run ratios; the drivers run interleaved).

The states for ``clone()`` are mid-game positions (30 random actions from the start).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ratai.engines import _CYTHON_REGISTRY, CHANCE, TERMINAL, game_class, load_game  # noqa: E402


def python_playouts(game, games: int, seed: int) -> int:
    """Random games through the Python-level fast path; returns the actions applied."""
    rnd = random.Random(seed)
    actions = 0
    for _ in range(games):
        state = game.new_initial_state()
        while True:
            p = state.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                u = rnd.random()
                outcomes = state._chance_outcomes()
                a = outcomes[-1][0]
                for action, prob in outcomes:
                    u -= prob
                    if u < 0:
                        a = action
                        break
            else:
                legal = state._legal_actions()
                a = legal[int(rnd.random() * len(legal))]
            state._apply_action(a)
            actions += 1
    return actions


def timed(fn, *args) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def mid_game(game, steps: int = 30, seed: int = 0):
    rnd = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rnd.choices([a for a, _ in outcomes],
                                           [p for _, p in outcomes])[0])
        else:
            state.apply_action(rnd.choice(state.legal_actions()))
    return state


def clone_ns(state, n: int, repeats: int) -> float:
    """Median ns per ``state.clone()`` called from Python."""
    clone = state.clone
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            clone()
        out.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(out)


def loop_ns(fn, state, n: int, repeats: int) -> float:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn(state, n)
        out.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(out)


def bench_game(name: str, params: dict, repeats: int, scale: float) -> dict:
    from ratai._speedups import core

    ref = load_game(name, backend="python", **params)
    cy = load_game(name, backend="cython", **params)
    ref_games = max(2, int(20 * scale))
    cy_py_games = max(5, int(200 * scale))
    cy_c_games = max(50, int(5000 * scale))
    row = {"game": name, "params": params}
    start = cy.new_initial_state()
    drivers = {
        "ref": (lambda g, s: python_playouts(ref, g, s), ref_games),
        "cypy": (lambda g, s: python_playouts(cy, g, s), cy_py_games),
        "cyc": (lambda g, s: core.random_playouts(start, g, s), cy_c_games),
    }
    rates: dict[str, list[tuple[float, float]]] = {key: [] for key in drivers}
    for r in range(repeats):  # interleaved, so a busy machine slows every driver alike
        for key, (fn, games) in drivers.items():
            dt, actions = timed(fn, games, r)
            rates[key].append((games / dt, actions / dt))
    for key, runs in rates.items():
        row[key + "_gps"] = statistics.median(g for g, _ in runs)
        row[key + "_aps"] = statistics.median(a for _, a in runs)
        # the ratio to the reference as the median of per-round ratios
        row[key + "_x"] = statistics.median(
            a / ra for (_, a), (_, ra) in zip(runs, rates["ref"], strict=True))
    ref_mid, cy_mid = mid_game(ref), mid_game(cy)
    row["ref_clone_ns"] = clone_ns(ref_mid, max(200, int(20_000 * scale)), repeats)
    row["cy_clone_ns"] = clone_ns(cy_mid, max(10_000, int(1_000_000 * scale)), repeats)
    row["cy_c_clone_ns"] = loop_ns(core.clone_loop, cy_mid, max(10_000, int(2_000_000 * scale)),
                                   repeats)
    row["cy_c_copy_ns"] = loop_ns(core.copy_loop, cy_mid, max(10_000, int(5_000_000 * scale)),
                                  repeats)
    return row


def print_table(rows: list[dict], repeats: int) -> None:
    print(f"ratai engine benchmark (medians of {repeats} runs, one process)")
    for r in rows:
        print(f"\n## {r['game']} {r['params'] or '(default parameters)'}")
        print(f"{'':34}{'games/s':>12}{'actions/s':>14}{'x reference':>13}")
        print(f"{'reference engine, Python driver':34}{r['ref_gps']:>12,.1f}"
              f"{r['ref_aps']:>14,.0f}{1.0:>13.1f}")
        print(f"{'Cython twin, Python driver':34}{r['cypy_gps']:>12,.1f}"
              f"{r['cypy_aps']:>14,.0f}{r['cypy_x']:>13.1f}")
        print(f"{'Cython twin, C driver (cdef)':34}{r['cyc_gps']:>12,.1f}"
              f"{r['cyc_aps']:>14,.0f}{r['cyc_x']:>13.1f}")
        print(f"{'clone()':34}{'ns':>12}")
        print(f"{'reference, from Python':34}{r['ref_clone_ns']:>12,.0f}")
        print(f"{'Cython twin, from Python':34}{r['cy_clone_ns']:>12,.0f}"
              f"{'':>14}{r['ref_clone_ns'] / r['cy_clone_ns']:>13.1f}")
        print(f"{'Cython twin, c_clone (in Cython)':34}{r['cy_c_clone_ns']:>12,.1f}")
        print(f"{'Cython twin, c_copy_from (memcpy)':34}{r['cy_c_copy_ns']:>12,.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", action="append", help="game(s) to run (default: every twin)")
    ap.add_argument("--variant", help="a named variant of the game (default: default params)")
    ap.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    ap.add_argument("--scale", type=float, default=1.0, help="work per run (1.0 ~ 1 s)")
    args = ap.parse_args(argv)
    games = args.game or sorted(_CYTHON_REGISTRY)
    rows = []
    for name in games:
        params = game_class(name, "python").variants[args.variant] if args.variant else {}
        rows.append(bench_game(name, params, args.repeats, args.scale))
    print_table(rows, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
