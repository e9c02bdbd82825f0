"""Shared test helpers: random playouts over any registered game."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ratai.engines import _CYTHON_REGISTRY, game_class, load_game, registered_games
from ratai.engines.api import sample_chance_outcome


def popen_sigint(args, **kw) -> subprocess.Popen:
    """``subprocess.Popen(args, **kw)`` for a child that must see Ctrl-C: SIGINT at its
    default even when the suite runs as a background job (which starts with SIGINT ignored,
    an ignore survives ``exec``, and Python then never raises ``KeyboardInterrupt``).

    The parent's ignore is lifted around the spawn (a handler does not survive ``exec``)
    rather than reset by a ``preexec_fn``: one forces a plain ``fork`` that runs Python in
    the child, and a child forked while gRPC's threads run in the parent (an xdist worker
    that ran a service test first) aborts there in gRPC's fork handler (SIGABRT, "epoll_wait
    error: Bad file descriptor") before it can ``exec``."""
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(args, **kw)
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def load_script(relpath: str):
    """A script of the repository (``bench/``, ``scripts/``: not packages) as a module,
    ``relpath`` relative to the repository root."""
    path = Path(__file__).resolve().parents[1] / relpath
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def game_variants(backends: bool = False) -> list[tuple]:
    """``(game, variant, params)`` for every registered game and each of its variants.

    With ``backends=True``: ``(game, variant, params, backend)``, the reference
    (``"python"``) for every game plus ``"cython"`` for games with a compiled twin.
    """
    out = [(name, v, params, "python") for name in registered_games()
           for v, params in game_class(name).variants.items()]
    out += [(name, v, params, "cython") for name in registered_games()
            if name in _CYTHON_REGISTRY
            for v, params in game_class(name, "python").variants.items()]
    return out if backends else [(g, v, p) for g, v, p, b in out if b == "python"]


def _variant_id(game: str, variant: str, backend: str) -> str:
    return f"{game}-{variant}" + ("" if backend == "python" else f"-{backend}")


VARIANT_IDS = [_variant_id(*entry[:2], entry[3]) for entry in game_variants(backends=True)]


def sample_action(state, rng: np.random.Generator, legal: list[int] | None = None) -> int:
    """A chance outcome by its probability, or a uniform legal decision (from ``legal`` when
    the caller already holds ``state.legal_actions()``)."""
    if state.is_chance_node():
        return sample_chance_outcome(state, rng)
    if legal is None:
        legal = state.legal_actions()
    return legal[rng.integers(len(legal))]


def random_playout(game, seed: int, on_state=None):
    """Play ``game`` to the end with random actions; call ``on_state(state)`` before each."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if on_state is not None:
            on_state(state)
        state.apply_action(sample_action(state, rng))
    if on_state is not None:
        on_state(state)
    return state


@pytest.fixture(params=game_variants(backends=True), ids=VARIANT_IDS)
def any_game(request):
    name, _, params, backend = request.param
    return load_game(name, backend=backend, **params)


def old_belief_caps(monkeypatch) -> None:
    """Give Rat Trap's exact-belief filter the caps the reference had without a deadline
    before stop 48: 1,000 states, 3,000 applied actions (``engines/belief.py``)."""
    from ratai.engines import belief

    monkeypatch.setattr(belief, "MAX_WORLDS", 1_000)
    monkeypatch.setattr(belief, "MAX_EXPANSIONS", 3_000)


@pytest.fixture()
def bounded_beliefs(monkeypatch):
    """Rat Trap's exact-belief filter with the caps it had before stop 48
    (:func:`old_belief_caps`): for contract tests whose properties (a sample keeps the seat's
    information state, depends only on it, plays on) must hold on both paths, the filter's
    and the closed form's beyond the caps. With the shipped caps the reference runs its
    filter to the end at 4-5 players (tens of seconds per test) and the closed form is
    rarely reached; the filter's law itself is tested against brute force in
    ``tests/engines/test_belief.py`` and ``test_exact_posterior.py``."""
    old_belief_caps(monkeypatch)
