"""Observation tensor speed (issue 14, item 1): ``State.observation_tensor(player)`` per game,
before and after the twins' compiled writers (``c_observation_tensor``).

Usage::

    python bench/obs_tensor.py                    # every game with a twin, default parameters
    python bench/obs_tensor.py --game first_rat --variant 5p --repeats 7

For each game it prints the tensor's length and microseconds per call, as medians of
``--repeats`` runs over a set of positions (``--positions`` mid-game states of seeded random
games, 5 to 60 actions in) and every seat:

* ``reference``: the reference engine (``observation(player)`` encoded by the game's
  ``TensorLayout``);
* ``twin, dict``: the twin through the same dict encoding (what the twins did before the
  compiled writer; still the path of a twin without one);
* ``twin``: the twin's ``observation_tensor(player, out=buf)`` from Python (the compiled
  writer when the twin has one), and ``twin, new array`` without ``out=``;
* ``in C``: ``c_observation_tensor`` called from C without the GIL into one buffer
  (``ratai._speedups.core.observation_tensor_loop``), the cost the compiled search sees;
* ``speedup``: ``twin, dict`` / ``twin`` and ``twin, dict`` / ``in C``.

Timings on a shared machine are noisy; the ratios of one run are the robust figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ratai.engines import _CYTHON_REGISTRY, game_class, load_game  # noqa: E402
from ratai.engines.api import State  # noqa: E402


def positions(game, count: int, seed: int = 0) -> list:
    """``count`` states of seeded random games, 5 to 60 actions in (not terminal)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(5, 61))):
            if state.is_terminal():
                break
            if state.is_chance_node():
                acts, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(acts, p=np.array(probs) / sum(probs))))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal():
            out.append(state)
    return out


def per_call_us(fn, states, seats: int, calls: int) -> float:
    """Microseconds per ``fn(state, seat)`` over every state and seat, ``calls`` rounds."""
    t0 = time.perf_counter()
    for _ in range(calls):
        for state in states:
            for p in range(seats):
                fn(state, p)
    return (time.perf_counter() - t0) / (calls * len(states) * seats) * 1e6


def bench_game(name: str, params: dict, repeats: int, npos: int) -> dict:
    from ratai._speedups import core

    cy_game = load_game(name, backend="cython", **params)
    ref_game = load_game(name, backend="python", **params)
    (size,) = cy_game.observation_tensor_shape()
    n = cy_game.num_players()
    cy_states = positions(cy_game, npos)
    ref_states = [ref_game.deserialize_state(s.serialize()) for s in cy_states]
    buf = np.empty(size, dtype=np.float32)
    for s, r in zip(cy_states, ref_states, strict=True):   # the figures are of equal tensors
        for p in range(n):
            assert np.array_equal(s.observation_tensor(p), r.observation_tensor(p))
    compiled = core.observation_tensor_loop(cy_states[0], 1, 0) == 1
    rows: dict[str, list[float]] = {k: [] for k in (
        "reference", "twin, dict", "twin", "twin, new array", "in C")}
    for _ in range(repeats):
        rows["reference"].append(per_call_us(
            lambda s, p: s.observation_tensor(p, buf), ref_states, n, 2))
        rows["twin, dict"].append(per_call_us(
            lambda s, p: State.observation_tensor(s, p, buf), cy_states, n, 2))
        rows["twin"].append(per_call_us(
            lambda s, p: s.observation_tensor(p, buf), cy_states, n, 200 if compiled else 2))
        rows["twin, new array"].append(per_call_us(
            lambda s, p: s.observation_tensor(p), cy_states, n, 200 if compiled else 2))
        if compiled:
            loops = 20_000
            t0 = time.perf_counter()
            for s in cy_states:
                core.observation_tensor_loop(s, loops, 0)
            rows["in C"].append((time.perf_counter() - t0) / (loops * len(cy_states)) * 1e6)
    med = {k: statistics.median(v) if v else float("nan") for k, v in rows.items()}
    med["size"] = size
    med["speedup"] = med["twin, dict"] / med["twin"]
    med["speedup C"] = med["twin, dict"] / med["in C"] if compiled else float("nan")
    return med


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(_CYTHON_REGISTRY))
    parser.add_argument("--variant", help="a variant name of the game (default parameters)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--positions", type=int, default=8)
    args = parser.parse_args(argv)
    games = [args.game] if args.game else sorted(_CYTHON_REGISTRY)
    print("| game | size | reference µs | twin, dict µs | twin µs | twin, new array µs "
          "| in C µs | speedup (Python call) | speedup (in C) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in games:
        params = game_class(name, "python").variants[args.variant] if args.variant else {}
        m = bench_game(name, params, args.repeats, args.positions)
        print(f"| {name} | {m['size']} | {m['reference']:.1f} | {m['twin, dict']:.1f} | "
              f"{m['twin']:.2f} | {m['twin, new array']:.2f} | {m['in C']:.3f} | "
              f"{m['speedup']:.0f}x | {m['speedup C']:.0f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
