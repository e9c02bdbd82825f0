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

from run import mid_game, python_playouts  # noqa: E402

from ratai.engines import _CYTHON_REGISTRY, load_game  # noqa: E402

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
