"""Engine speed with pytest-benchmark (issue: Cython core): the reference engine and the
Cython twin of every game in ``ratai.engines._CYTHON_REGISTRY``.

Run: ``pytest bench/test_engine_speed.py --benchmark-enable`` (the default ``pytest`` run of
``tests/`` does not collect ``bench/``; ``--benchmark-disable`` from pyproject makes each
benchmark run once, as a smoke test). ``python bench/run.py`` prints the headline table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import (  # noqa: E402
    SEARCH_KINDS,
    _kind_options,
    mid_game,
    python_playouts,
    search_position,  # noqa: E402
)

from ratai.bots import make_bot  # noqa: E402
from ratai.engines import _CYTHON_REGISTRY, load_game  # noqa: E402
from ratai.search.common import Budget, SearchRng  # noqa: E402
from ratai.search.ismcts import merges_moves  # noqa: E402

core = pytest.importorskip("ratai._speedups.core")
GAMES = sorted(_CYTHON_REGISTRY)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("backend", ["python", "cython"])
def test_random_playouts_python_driver(benchmark, name, backend):
    game = load_game(name, backend=backend)
    games = 2 if backend == "python" else 20
    actions = benchmark(python_playouts, game, games, 0)
    assert actions > games


@pytest.mark.parametrize("name", GAMES)
def test_random_playouts_c_driver(benchmark, name):
    start = load_game(name, backend="cython").new_initial_state()
    actions = benchmark(core.random_playouts, start, 200, 0)
    assert actions > 200


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("backend", ["python", "cython"])
def test_clone_from_python(benchmark, name, backend):
    state = mid_game(load_game(name, backend=backend))
    clone = benchmark(state.clone)
    assert clone == state


@pytest.mark.parametrize("name", GAMES)
def test_clone_in_cython(benchmark, name):
    state = mid_game(load_game(name, backend="cython"))
    assert benchmark(core.clone_loop, state, 10_000) == 10_000


@pytest.mark.parametrize("name", GAMES)
def test_copy_in_cython(benchmark, name):
    state = mid_game(load_game(name, backend="cython"))
    assert benchmark(core.copy_loop, state, 10_000) == 10_000


# -- observation tensors (issue 14: the twins' compiled c_observation_tensor) ------------
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("path", ["reference", "twin-dict", "twin"])
def test_observation_tensor_from_python(benchmark, name, path):
    """``observation_tensor(0, out=buf)``: the reference engine, the twin through the
    observation dict (the path before the compiled writers), and the twin itself."""
    import numpy as np

    from ratai.engines.api import State

    state = mid_game(load_game(name, backend="python" if path == "reference" else "cython"))
    buf = np.empty(state.get_game().observation_tensor_shape(), dtype=np.float32)
    if path == "twin-dict":
        out = benchmark(State.observation_tensor, state, 0, buf)
    else:
        out = benchmark(state.observation_tensor, 0, buf)
    assert out is buf


@pytest.mark.parametrize("name", GAMES)
def test_observation_tensor_in_cython(benchmark, name):
    """10,000 ``c_observation_tensor`` calls from C without the GIL (twins with a compiled
    writer)."""
    state = mid_game(load_game(name, backend="cython"))
    if core.observation_tensor_loop(state, 1, 0) != 1:
        pytest.skip(f"the {name} twin has no compiled tensor writer")
    assert benchmark(core.observation_tensor_loop, state, 10_000, 0) == 10_000


# -- search (issue 4: Python search + Python engine vs compiled search + Cython twin) ------
SEARCH_ITERATIONS = {("mcts", "python"): 100, ("mcts", "cython"): 10_000,
                     ("ismcts", "python"): 60, ("ismcts", "cython"): 600}


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("backend", ["python", "cython"])
@pytest.mark.parametrize("kind", SEARCH_KINDS)
def test_search_iterations_per_second(benchmark, name, backend, kind):
    """Iterations/s at a fixed position (``extra_info["iterations_per_s"]``)."""
    cy_state = search_position(load_game(name, backend="cython"))
    game = load_game(name, backend=backend)
    state = game.deserialize_state(cy_state.serialize())
    bot = make_bot(kind, game, state.current_player(), seed=0, search_backend=backend,
                   iterations=SEARCH_ITERATIONS[kind, backend], **_kind_options(kind, game))
    an = benchmark.pedantic(bot.analyze, args=(state,), rounds=3, iterations=1)
    benchmark.extra_info["iterations_per_s"] = an.iterations / max(an.elapsed_s, 1e-9)


@pytest.mark.parametrize("name", GAMES)
def test_ismcts_depth_in_one_second(benchmark, name):
    """Mean and max tree depth the compiled IS-MCTS reaches in 1 s (``extra_info``)."""
    from ratai._speedups.search import CyISMCTS

    state = search_position(load_game(name, backend="cython"))
    p = state.current_player()
    search = CyISMCTS(p, 0.7, merge=merges_moves(state.get_game(), "auto"))
    an = benchmark.pedantic(
        lambda: search.analyze(state, Budget(time_limit=1.0).check(), SearchRng(0, state, p)),
        rounds=1, iterations=1)
    benchmark.extra_info.update(mean_depth=search.depth_sum / max(1, search.iterations),
                                max_depth=an.max_depth, iterations=an.iterations)
    assert an.max_depth >= 1


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("kind", SEARCH_KINDS)
def test_search_time_budget_within_5ms(name, kind):
    """``time_limit`` honoured by the compiled search within 5 ms (median of 5 calls)."""
    import statistics
    import time

    game = load_game(name, backend="cython")
    state = search_position(game)
    over = []
    for seed in range(5):
        bot = make_bot(kind, game, state.current_player(), time_limit=0.1, seed=seed,
                       search_backend="cython", **_kind_options(kind, game))
        t0 = time.perf_counter()
        bot.analyze(state)
        over.append(time.perf_counter() - t0 - 0.1)
    assert -0.001 <= statistics.median(over) <= 0.005, over
