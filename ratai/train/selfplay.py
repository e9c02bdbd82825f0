"""Self-play and arena games of the training loop, as picklable jobs.

Every game is reproducible from its job alone: the chance outcomes and the temperature
draws come from ``numpy.random.default_rng([seed, index, stream])`` and every seat's bot is
seeded from ``SeedSequence([seed, index, seat])``, so a game played in this process, in a
worker process or on a Ray node gives the same positions and returns, in any order.

Self-play (AlphaZero, Silver et al. 2018): every seat is its own ``az`` search (each with
Dirichlet noise at its root, ``noise_fraction`` and ``dirichlet_alpha``) guided by the same
network. At the first ``temperature_moves`` recorded decisions of a game the move is drawn
in proportion to the root visit counts (temperature 1), later the most visited move is
played (temperature 0). A decision position (a seat with at least two legal actions, at its
own turn or at a ``SIMULTANEOUS`` node of a joint-move view) is recorded with the seat's
observation tensor, its legal mask, its root visit distribution and its root value per seat
(:func:`root_value`); the final returns per seat are attached when the game ends. A seat
with one legal action plays it unrecorded.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ratai.engines import CHANCE, load_game
from ratai.engines.api import INVALID, SIMULTANEOUS, sample_chance_outcome

_TEMPERATURE_STREAM = 7919   # the temperature draws' stream (chance uses stream 0)


def derived_seed(*keys: int) -> int:
    """An independent 32-bit seed for a tuple of non-negative ints."""
    return int(np.random.SeedSequence([int(k) for k in keys]).generate_state(1)[0])


@dataclass(frozen=True)
class SeatSpec:
    """Who plays a seat: ``kind`` ``"az"`` (with ``model``, a path) or any other bot kind,
    with its iteration budget and options."""

    kind: str
    model: str | None = None
    iterations: int | None = None
    options: tuple[tuple[str, Any], ...] = ()

    def make(self, game, seat: int, seed: int, models: dict):
        from ratai.bots import make_bot

        kw = dict(self.options)
        if self.iterations is not None:
            kw["iterations"] = self.iterations
        if self.model is not None:
            kw["model"] = _cached_model(self.model, models)
        return make_bot(self.kind, game, seat, seed=seed, **kw)


@dataclass(frozen=True)
class GameJob:
    """One game: ``seats`` (a :class:`SeatSpec` per seat), ``record`` (seats whose decision
    positions are recorded), ``temperature_moves`` (see the module docstring)."""

    game: str
    params: dict
    seats: tuple[SeatSpec, ...]
    seed: int
    index: int
    record: tuple[int, ...] = ()
    temperature_moves: int = 0
    tag: dict = field(default_factory=dict)


_MODELS: dict = {}


def _cached_model(path: str, cache: dict):
    """The :class:`ratai.nn.model.Model` at ``path`` (loaded once per process and file
    version)."""
    import os

    from ratai.nn.model import Model

    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in cache:
        cache.clear()  # a process holds the models of one generation
        cache[key] = Model.load(path)
    return cache[key]


def peak_rss_mb() -> float | None:
    """This process's peak resident memory so far, in MB: ``VmHWM`` of ``/proc/self/status``
    on Linux, else ``resource.getrusage``'s ``ru_maxrss`` (KB on Linux and BSD, bytes on
    macOS); ``None`` where neither exists (Windows)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def root_value(analysis, n: int) -> np.ndarray | None:
    """The search's value of its root per seat, float32 ``(n,)``: its root moves' per-seat
    values (``MoveStat.values``) weighted by their visits, the mean return over every
    iteration of the search (AlphaZero's ``q`` at the root; mixed with the game result ``z``
    into the value target by ``ratai train --value-target-q``, as in "Lessons from
    AlphaZero, part 4: improving the training target", Oracle Developers, 2018). ``None``
    when no move has visits and values."""
    moves = [m for m in analysis.moves if m.visits > 0 and len(m.values) == n]
    if not moves:
        return None
    w = np.array([m.visits for m in moves], dtype=np.float64)
    v = np.array([m.values for m in moves], dtype=np.float64)
    return (w @ v / w.sum()).astype(np.float32)


def play(job: GameJob) -> dict:
    """Play ``job`` to the end.

    Returns:
        ``{"index", "tag", "returns" (list, per seat), "scores", "moves" (actions incl.
        chance), "decisions" (recorded positions), "seconds", "pid", "peak_rss_mb" (the
        playing process's, :func:`peak_rss_mb`), "positions"}`` where ``positions`` is
        ``None`` when nothing is recorded, else the arrays of
        :data:`ratai.train.buffer.FIELDS` (``z`` filled with the final returns, ``q`` with
        :func:`root_value` of each recorded search, the final returns where it has none).
    """
    game = load_game(job.game, **job.params)
    n = game.num_players()
    bots = [spec.make(game, seat, derived_seed(job.seed, job.index, seat), _MODELS)
            for seat, spec in enumerate(job.seats)]
    chance_rng = np.random.default_rng([job.seed, job.index, 0])
    temp_rng = np.random.default_rng([job.seed, job.index, _TEMPERATURE_STREAM])
    record = set(job.record)
    obs, seats, masks, pis, qs = [], [], [], [], []
    state = game.new_initial_state()
    start = time.perf_counter()
    decisions = 0

    def decide(seat: int) -> int:
        nonlocal decisions
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return int(legal[0])
        analysis = bots[seat].analyze(state)
        if seat not in record and decisions >= job.temperature_moves:
            decisions += 1
            return int(analysis.best_action)
        visits = {m.action: m.visits for m in analysis.moves}
        counts = np.array([visits.get(a, 0) for a in legal], dtype=np.float64)
        total = counts.sum()
        dist = counts / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        if decisions < job.temperature_moves:
            action = int(legal[int(temp_rng.choice(len(legal), p=dist))])
        else:
            action = int(analysis.best_action)
        if seat in record:
            obs.append(np.asarray(state.observation_tensor(seat), dtype=np.float32).copy())
            seats.append(seat)
            mask = np.zeros(game.num_distinct_actions(), dtype=bool)
            mask[legal] = True
            masks.append(mask)
            pi = np.zeros(game.num_distinct_actions(), dtype=np.float32)
            pi[legal] = dist
            pis.append(pi)
            qs.append(root_value(analysis, n))
        decisions += 1
        return action

    while not state.is_terminal():
        cp = state.current_player()
        if cp == CHANCE:
            state.apply_action(sample_chance_outcome(state, chance_rng))
        elif cp == SIMULTANEOUS:
            state.apply_actions([decide(seat) if state.legal_actions(seat) else INVALID
                                 for seat in range(n)])
        else:
            state.apply_action(decide(cp))
    returns = [float(r) for r in state.returns()]
    positions = None
    z = np.array(returns, dtype=np.float32)
    if record:
        d = int(np.prod(game.observation_tensor_shape()))
        a = game.num_distinct_actions()
        positions = {
            "obs": np.array(obs, dtype=np.float32).reshape(-1, d),
            "seat": np.array(seats, dtype=np.int8),
            "mask": np.array(masks, dtype=bool).reshape(-1, a),
            "pi": np.array(pis, dtype=np.float32).reshape(-1, a),
            "z": np.tile(z, (len(obs), 1)).reshape(-1, n),
            "q": np.array([z if q is None else q for q in qs], dtype=np.float32).reshape(-1, n),
        }
    return {"index": job.index, "tag": dict(job.tag), "returns": returns,
            "scores": [float(s) for s in state.scores()], "moves": state.move_number(),
            "decisions": len(obs), "seconds": round(time.perf_counter() - start, 4),
            "pid": os.getpid(), "peak_rss_mb": peak_rss_mb(), "positions": positions}
