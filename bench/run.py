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

Search (``--no-search`` skips it), at a fixed decision position of each game (12 decisions
into a seeded random game, :func:`search_position`), the same position on both backends:

* ``mcts`` (with ``determinize=True`` on hidden-information games) and ``ismcts``
  iterations/s: the Python search over the reference engine (``search_backend="python"``)
  against the compiled search over the twin (``_speedups/search.pyx``), and their ratio;
* the mean and max tree depth (plies below the root) compiled IS-MCTS reaches in 1 s;
* time-budget accuracy: ``bot.analyze`` wall time minus ``time_limit`` (0.1 s), compiled
  search, median and worst over the runs, in ms.
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
from ratai.search.ismcts import merges_moves  # noqa: E402


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


def search_position(game, plies: int = 12, seed: int = 0):
    """A decision node with two or more moves, ``plies`` decisions into a seeded game."""
    rnd = random.Random(seed)
    s = game.new_initial_state()
    seen = 0
    while True:
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
            continue
        seen += 1
        if seen > plies and len(s.legal_actions()) > 1:
            return s
        s.apply_action(rnd.choice(s.legal_actions()))


SEARCH_KINDS = ("mcts", "ismcts")

#: Parameter sets benchmarked per game when no ``--variant`` is given (default: the game's
#: default parameters only). The search figures are taken at the first set.
ROWS: dict[str, tuple[dict, ...]] = {
    "first_rat": ({"num_players": 2}, {"num_players": 3}, {"num_players": 5}),
}


def _kind_options(kind: str, game) -> dict:
    return {"determinize": True} if kind == "mcts" and not game.perfect_information else {}


def bench_search(name: str, params: dict, repeats: int, scale: float) -> dict:
    """Search iterations/s on both backends, IS-MCTS depth in 1 s and time-budget accuracy."""
    from ratai._speedups.search import CyISMCTS
    from ratai.bots import make_bot
    from ratai.search.common import Budget, SearchRng

    ref = load_game(name, backend="python", **params)
    cy = load_game(name, backend="cython", **params)
    cy_state = search_position(cy)
    ref_state = ref.deserialize_state(cy_state.serialize())
    p = cy_state.current_player()
    row: dict = {}
    budgets = {"mcts": (max(20, int(300 * scale)), max(500, int(40_000 * scale))),
               "ismcts": (max(20, int(200 * scale)), max(100, int(2_000 * scale)))}
    for kind in SEARCH_KINDS:
        py_it, cy_it = budgets[kind]
        rates: dict[str, list[float]] = {"py": [], "cy": []}
        for r in range(repeats):  # interleaved
            for key, game, state, it, backend in (("py", ref, ref_state, py_it, "python"),
                                                   ("cy", cy, cy_state, cy_it, "cython")):
                bot = make_bot(kind, game, p, iterations=it, seed=r, search_backend=backend,
                               **_kind_options(kind, game))
                t0 = time.perf_counter()
                an = bot.analyze(state)
                rates[key].append(an.iterations / (time.perf_counter() - t0))
        row[kind + "_py"] = statistics.median(rates["py"])
        row[kind + "_cy"] = statistics.median(rates["cy"])
        row[kind + "_x"] = statistics.median(
            c / q for c, q in zip(rates["cy"], rates["py"], strict=True))
    depth_t = 1.0 if scale >= 0.5 else 0.2
    means, maxes, its = [], [], []
    for r in range(max(1, repeats // 2)):
        search = CyISMCTS(p, 0.7, merge=merges_moves(cy_state.get_game(), "auto"))
        an = search.analyze(cy_state, Budget(time_limit=depth_t).check(),
                            SearchRng(r, cy_state, p))
        means.append(search.depth_sum / max(1, search.iterations))
        maxes.append(an.max_depth)
        its.append(an.iterations)
    row.update(depth_t=depth_t, depth_mean=statistics.median(means),
               depth_max=statistics.median(maxes), depth_its=statistics.median(its))
    tl = 0.1
    for kind in SEARCH_KINDS:
        over = []
        for r in range(repeats):
            bot = make_bot(kind, cy, p, time_limit=tl, seed=r, search_backend="cython",
                           **_kind_options(kind, cy))
            t0 = time.perf_counter()
            bot.analyze(cy_state)
            over.append((time.perf_counter() - t0 - tl) * 1e3)
        row[kind + "_over_med"] = statistics.median(over)
        row[kind + "_over_max"] = max(over)
    return row


def print_search(r: dict, repeats: int) -> None:
    print(f"\n{'search, fixed position':34}{'Python it/s':>12}{'Cython it/s':>14}"
          f"{'x Python':>13}")
    for kind in SEARCH_KINDS:
        print(f"{kind:34}{r[kind + '_py']:>12,.0f}{r[kind + '_cy']:>14,.0f}"
              f"{r[kind + '_x']:>13.1f}")
    print(f"IS-MCTS (compiled) in {r['depth_t']:g} s: {r['depth_its']:,.0f} iterations, "
          f"mean depth {r['depth_mean']:.1f}, max depth {r['depth_max']:.0f}")
    for kind in SEARCH_KINDS:
        print(f"time_limit=0.1 s, {kind} (compiled): overshoot median "
              f"{r[kind + '_over_med']:.2f} ms, worst {r[kind + '_over_max']:.2f} ms "
              f"({repeats} runs)")


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
        if "search" in r:
            print_search(r["search"], repeats)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", action="append", help="game(s) to run (default: every twin)")
    ap.add_argument("--variant", help="a named variant of the game (default: default params)")
    ap.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    ap.add_argument("--scale", type=float, default=1.0, help="work per run (1.0 ~ 1 s)")
    ap.add_argument("--no-search", action="store_true", help="skip the search benchmarks")
    ap.add_argument("--no-engine", action="store_true", help="skip the engine benchmarks")
    args = ap.parse_args(argv)
    games = args.game or sorted(_CYTHON_REGISTRY)
    rows = []
    for name in games:
        param_sets = ((game_class(name, "python").variants[args.variant],) if args.variant
                      else ROWS.get(name, ({},)))
        for i, params in enumerate(param_sets):
            if args.no_engine:
                if i == 0:
                    print(f"## {name} {params or '(default parameters)'}")
                    print_search(bench_search(name, params, args.repeats, args.scale),
                                 args.repeats)
                continue
            row = bench_game(name, params, args.repeats, args.scale)
            if not args.no_search and i == 0:
                row["search"] = bench_search(name, params, args.repeats, args.scale)
            rows.append(row)
    print_table(rows, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
