"""The training run: generations of self-play, training, gating and evaluation in a run
directory that survives a kill.

Run directory layout::

    config.json          the run's configuration (TrainConfig) and versions
    state.json           progress: the last finished generation, the next phase of the one
                         after it, the best generation, a per-generation summary
    metrics.jsonl        one JSON object per event (selfplay, train, gate, eval, generation)
    checkpoints/gen-G.pt the torch weights and optimizer state after generation G's training
    models/gen-G.npz     generation G exported with ratai.nn.model (Model.save)
    best.npz             the best generation so far (the one self-play uses)
    buffer/              the replay buffer (ratai.train.buffer)
    work/gen-G/          finished games of the generation in progress (deleted when it ends)
    loss.png, strength.png, report.md

One generation ``G`` (AlphaGo Zero's loop, Silver et al. 2017): (1) ``games_per_gen``
self-play games by the best network, player counts in turn, into the buffer; (2)
``train_steps`` Adam steps on batches drawn from the buffer, continuing from generation
``G-1``'s weights and optimizer, after measuring those weights on generation ``G``'s new
positions, which they have never trained on (``heldout`` in the ``train`` metric:
:func:`ratai.train.net.heldout`); export; (3) gating: ``gate_games`` seat-rotated games of
the new network (one seat) against the best (the other seats); the new network becomes the
best when its score ``R_new / (R_new + R_best)`` (mean return per seat of each side; at 2
players its win rate; a solo gate game is played by each network alone, on separate
seeds) reaches ``gate_threshold``; (4) evaluation: ``eval_games`` games per
player count of the new network against random seats (strength per generation).

Every phase writes its results atomically and then records itself in ``state.json``; every
finished game is kept in ``work/`` at once. All randomness is derived from ``(seed,
generation, phase, game index)``, so a run killed at any instant (``kill -9``) and started
again with the same arguments replays nothing it had finished and ends with the files an
uninterrupted run writes; ``workers`` and ``backend`` change only the speed.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ratai.engines.api import parse_json
from ratai.train.buffer import (
    FIELDS,
    ReplayBuffer,
    atomic_write_bytes,
    atomic_write_json,
    load_npz,
    save_npz,
)
from ratai.train.selfplay import GameJob, SeatSpec, derived_seed, play

#: Options that may differ when a run is resumed (they change only speed or length).
RESUMABLE = ("generations", "workers", "backend", "max_minutes")
_PHASE_SEEDS = {"init": 0, "selfplay": 1, "train": 2, "gate": 3, "eval": 4}
#: The phases a generation goes through (``state.json``'s ``phase``).
_PHASES = ("selfplay", "train", "gate", "eval")


class RunError(ValueError):
    """A run directory that cannot be used (another game or configuration, a corrupt
    checkpoint or state); one line."""


@dataclass
class TrainConfig:
    """Everything that defines a training run (``config.json``).

    Sizes: ``hidden`` = (H1, H2) units; ``buffer_positions`` positions (all player counts);
    ``batch_size`` positions; budgets in search iterations per move. ``init``: a model file
    (``.npz``) whose weights are generation 0 instead of a random network (a warm start,
    e.g. from a shipped model); it must be of the same game, parameters, player counts,
    hidden sizes, component data and tensor layout (checked when the run is created; a
    resumed run no longer reads it).

    ``max_minutes``: a time budget in minutes of run time (the run's ``seconds``, summed
    over its sittings): a generation starts only if it would end within the budget, taking
    its time to be the last finished generation's, so the run ends within the budget unless
    a generation runs longer than the one before it (generation 0 always completes).
    ``None``: no budget. Like ``generations`` it may change when a run resumes
    (:data:`RESUMABLE`).

    ``rollout_mix`` in [0, 1]: the weight of one random playout in the leaf value of every
    ``az`` search of the run (self-play, gating, evaluation). 0 is AlphaZero (the network
    values the leaves it is learning to value); 1 is Expert Iteration with a rollout expert
    (Anthony, Tian & Barber 2017): a PUCT search steered by the network's priors and valued
    by random playouts makes the visit counts the policy head imitates, and the value head
    learns from the games of that search. A run with ``rollout_mix > 0`` exports models that
    record it as their play option (``meta["play"]``), so they are played as they were
    trained.

    ``value_target_q`` in [0, 1]: the weight of the search's root value ``q`` (per seat, the
    visit-weighted mean of its root moves' values) in the value target, the rest the game's
    result ``z``: ``(1 - w) * z + w * q``. 0 is AlphaZero's target; ``q`` has far less
    variance than one game's result at 3-5 players and in games of dice and blind draws,
    and with ``rollout_mix = 1`` it is the rollout search's own estimate, so the value head
    learns to stand in for that search ("Lessons from AlphaZero, part 4: improving the
    training target", Oracle Developers 2018, averaged the two).

    ``value_l2`` >= 0: an extra L2 penalty ``value_l2 * sum(wv**2)`` on the value head's
    output weights alone, on top of ``l2``. One game's result is shared by all its
    positions, so a small buffer shown many times lets the value head memorise its games
    (its error on new positions, the ``heldout`` figures of the ``train`` metric, then
    climbs above the constant ``1/n``'s) while the policy head still generalises; a
    penalty on ``wv`` holds the value head near what generalises without weakening the
    policy that a larger ``l2`` would (docs/training.md, "Memorising the results"). Whether
    that plays stronger is a match's to say: one Ratapolis hour at 1.0 held the head at the
    constant and played weaker with its value mixed in (bench/README.md, stop 45).

    ``seat_relative``: train a seat-relative network (``ratai.nn.model``: the mover's own
    fields first, values and seat-naming actions renumbered from the mover); the replay
    buffer stays in absolute seats and each batch is mapped as it is drawn.
    """

    game: str
    players: list[int]
    params: dict = field(default_factory=dict)
    generations: int = 10
    games_per_gen: int = 40
    iterations: int = 100
    c_puct: float | None = None
    rollout_mix: float = 0.0
    dirichlet_alpha: float = 0.3
    noise_fraction: float = 0.25
    temperature_moves: int = 12
    buffer_positions: int = 100_000
    hidden: list[int] = field(default_factory=lambda: [128, 64])
    batch_size: int = 256
    train_steps: int = 200
    lr: float = 1e-3
    l2: float = 1e-4
    gate_games: int = 20
    gate_threshold: float = 0.55
    gate_iterations: int | None = None
    eval_games: int = 10
    eval_iterations: int | None = None
    seed: int = 0
    model_dtype: str = "float16"
    init: str | None = None
    workers: int = 1
    backend: str = "local"
    max_minutes: float | None = None
    seat_relative: bool = False
    value_target_q: float = 0.0
    value_l2: float = 0.0

    def check(self) -> TrainConfig:
        """Validate against the game; raises ``ValueError`` naming the bad value."""
        from ratai.engines import load_game, registered_games

        if self.game not in registered_games():
            raise ValueError(f"unknown game {self.game!r}; known: {registered_games()}")
        if not self.players:
            raise ValueError("--players: give at least one player count")
        self.players = sorted(set(int(n) for n in self.players))
        for n in self.players:
            load_game(self.game, num_players=n, **self.params)  # ValueError names the count
        if len(self.hidden) != 2 or min(self.hidden) < 1:
            raise ValueError(f"bad hidden {self.hidden}: allowed H1,H2 >= 1")
        for name in ("generations", "games_per_gen", "iterations", "buffer_positions",
                     "batch_size", "workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"bad {name} {getattr(self, name)}: allowed >= 1")
        for name in ("train_steps", "gate_games", "eval_games", "temperature_moves"):
            if getattr(self, name) < 0:
                raise ValueError(f"bad {name} {getattr(self, name)}: allowed >= 0")
        if not 0.0 <= self.gate_threshold <= 1.0:
            raise ValueError(f"bad gate_threshold {self.gate_threshold}: allowed 0..1")
        if not 0.0 <= self.rollout_mix <= 1.0:
            raise ValueError(f"bad rollout_mix {self.rollout_mix}: allowed 0..1")
        if not 0.0 <= self.value_target_q <= 1.0:
            raise ValueError(f"bad value_target_q {self.value_target_q}: allowed 0..1")
        if not 0.0 <= self.noise_fraction <= 1.0 or self.dirichlet_alpha <= 0:
            raise ValueError("bad noise: noise_fraction 0..1, dirichlet_alpha > 0")
        if not (self.lr > 0 and math.isfinite(self.lr)) or self.l2 < 0:
            raise ValueError("bad optimiser settings: lr > 0, l2 >= 0")
        if not (self.value_l2 >= 0 and math.isfinite(self.value_l2)):
            raise ValueError(f"bad value_l2 {self.value_l2}: allowed a finite number >= 0")
        if self.max_minutes is not None and not (self.max_minutes > 0
                                                 and math.isfinite(self.max_minutes)):
            raise ValueError(f"bad max_minutes {self.max_minutes}: allowed a finite number > 0")
        if self.backend not in ("local", "ray"):
            raise ValueError(f"bad backend {self.backend!r}: allowed 'local' or 'ray'")
        if self.model_dtype not in ("float16", "float32"):
            raise ValueError(f"bad model_dtype {self.model_dtype!r}: float16 or float32")
        return self

    def init_model(self):
        """The ``init`` model, checked against this configuration (``None`` without one).

        Raises:
            ModelError: (a ``ValueError``) the file is unreadable, corrupt, or made for
                another game, parameter, player count, data file or tensor layout; or its
                hidden sizes differ from ``hidden``. One line, naming the file.
        """
        from ratai.engines import load_game
        from ratai.nn.model import Model, ModelError

        if self.init is None:
            return None
        model = Model.load(self.init)
        if model.players != self.players:
            raise ModelError(f"--init {self.init}: the model plays "
                             f"{','.join(map(str, model.players))} players, the run "
                             f"{','.join(map(str, self.players))}")
        if model.seat_relative != self.seat_relative:
            kind = {True: "seat-relative", False: "absolute"}
            raise ModelError(f"--init {self.init}: the model is {kind[model.seat_relative]}, "
                             f"the run {kind[self.seat_relative]} (--seat-relative "
                             f"{'given' if self.seat_relative else 'not given'})")
        if list(model.hidden) != list(self.hidden):
            raise ModelError(f"--init {self.init}: hidden {model.hidden[0]},{model.hidden[1]}"
                             f" in the model, {self.hidden[0]},{self.hidden[1]} asked")
        for n in self.players:
            model.check_game(load_game(self.game, num_players=n, **self.params))
        return model

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def differences(self, other: dict) -> list[str]:
        """The fields (other than :data:`RESUMABLE`) whose values differ from ``other``.
        A field that ``other`` lacks (a run created before the field existed) holds its
        default there."""
        mine = self.to_json()
        defaults = {f.name: f.default for f in dataclasses.fields(self)
                    if f.default is not dataclasses.MISSING}
        other = {**{k: v for k, v in defaults.items() if k not in other}, **other}
        keys = sorted((set(mine) | set(other)) - set(RESUMABLE))
        return [f"{k} {other.get(k)!r} (asked {mine.get(k)!r})" for k in keys
                if mine.get(k) != other.get(k)]


# -- job dispatch ----------------------------------------------------------------------------
class Dispatcher:
    """Runs :class:`GameJob` s in this process (``workers=1``), in a process pool, or on
    Ray; ``map(jobs, done)`` calls ``done(result)`` as each game ends (any order)."""

    def __init__(self, workers: int, backend: str):
        if backend != "ray":   # a local pool: at most MAX_WORKERS_PER_CORE per core
            from ratai.arena import local_workers

            local_workers(workers, workers)
        self.workers, self.backend = workers, backend
        self._pool = None
        #: the peak resident memory (MB) each local worker process reported, by pid
        self.worker_peaks: dict[int, float] = {}
        if backend == "ray":
            try:
                import ray  # noqa: F401
            except ImportError:
                raise ValueError("--backend ray needs Ray: pip install 'ratai[ray]'") from None

    def map(self, jobs: Sequence[GameJob], done: Callable[[dict], None]) -> None:
        if not jobs:
            return
        if self.backend == "ray":
            import ray

            if not ray.is_initialized():
                ray.init(ignore_reinit_error=True, log_to_driver=False)
            remote = ray.remote(play)
            pending = [remote.remote(job) for job in jobs]
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                done(ray.get(ready[0]))
        elif self.workers <= 1:
            for job in jobs:
                done(play(job))
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            if self._pool is None:   # spawn: the workers never inherit torch's threads
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"))
            futures = [self._pool.submit(play, job) for job in jobs]
            for fut in as_completed(futures):
                res = fut.result()
                if res.get("peak_rss_mb") is not None:
                    pid = res["pid"]
                    self.worker_peaks[pid] = max(self.worker_peaks.get(pid, 0.0),
                                                 res["peak_rss_mb"])
                done(res)

    def close(self, terminate: bool = False) -> None:
        """Shut the local pool down: wait for its running games, or (``terminate``: the run
        was interrupted; their results are not wanted) end them at once."""
        if self._pool is not None:
            if terminate:
                from ratai.arena import stop_pool

                stop_pool(self._pool)
            else:
                self._pool.shutdown(cancel_futures=True)
            self._pool = None


# -- the run -----------------------------------------------------------------------------
def _mean_ci(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean return and its 95% Wilson interval (``ratai.arena.wilson_interval``, as every
    arena and ladder table; returns in [0, 1], a shared win counting 1/k): honest for the few
    games of a generation's evaluation, where a normal approximation gives [1, 1] for 4 wins."""
    from ratai.arena import wilson_interval

    if not xs:
        return 0.0, 0.0, 1.0
    m = float(np.mean(xs))
    lo, hi = wilson_interval(float(np.sum(xs)), len(xs))
    return m, lo, hi


class TrainingRun:
    """A run directory (module docstring). ``TrainingRun(path, config).run(progress)``.

    Raises:
        RunError: ``path`` holds a run of another game or configuration (naming the
            differing fields), is a non-empty directory that is no run, or its state or
            checkpoint is corrupt. Raised before anything in ``path`` is written.
        ValueError: a bad configuration; ``backend="ray"`` without Ray; no PyTorch.
    """

    def __init__(self, path: str | os.PathLike, config: TrainConfig):
        from ratai.train.net import import_torch

        self.torch = import_torch()
        # one intra-op thread: the network is small, the self-play workers own the cores
        # (measured on the shared 2-core machine: 71 Adam steps/s with 1 thread, 3 with 2),
        # and a fixed thread count keeps the float sums, so the results, reproducible
        self.torch.set_num_threads(1)
        self.cfg = config.check()
        self.root = Path(path)
        self.dispatcher = Dispatcher(config.workers, config.backend)
        self.state: dict[str, Any] | None = None
        self._ckpt: dict | None = None
        self._init = None   # the checked --init model of a new run
        if self.root.exists() and not self.root.is_dir():
            raise RunError(f"run directory {self.root} is a file")
        cfg_path = self.root / "config.json"
        if cfg_path.exists():
            try:
                stored = parse_json(cfg_path.read_text())["config"]
                if not isinstance(stored, dict):
                    raise TypeError
            except (ValueError, KeyError, TypeError):
                raise RunError(f"corrupt {cfg_path}: not a ratai training configuration") \
                    from None
            if stored.get("game") != config.game:
                raise RunError(f"run directory {self.root} holds a {stored.get('game')!r} "
                               f"run, not {config.game!r}; pick another --run")
            diff = config.differences(stored)
            if diff:
                raise RunError(f"run directory {self.root} holds another configuration: "
                               f"{'; '.join(diff)}; resume with the same options or pick "
                               f"another --run")
            self._load_state()
        elif self.root.is_dir() and any(self.root.iterdir()):
            raise RunError(f"run directory {self.root} is not empty and holds no ratai "
                           f"training run (no config.json); pick another --run")
        if self.state is None:   # a run to create (new, or killed while it was created):
            self._init = self.cfg.init_model()   # check the warm start before any write

    # -- files ---------------------------------------------------------------------------
    def _p(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    def model_path(self, generation: int) -> Path:
        return self._p("models", f"gen-{generation:05d}.npz")

    def ckpt_path(self, generation: int) -> Path:
        return self._p("checkpoints", f"gen-{generation:05d}.pt")

    def _load_state(self) -> None:
        """Read and check ``state.json``, the checkpoint and the best model (no writes)."""
        from ratai.nn.model import Model, ModelError

        sp = self._p("state.json")
        if not sp.exists():   # killed while the run was created: create it again
            return
        try:
            self.state = parse_json(sp.read_text())
            gen, best = int(self.state["generation"]), int(self.state["best"])
            metrics = int(self.state["metrics_bytes"])
            if self.state["phase"] not in _PHASES or not -1 <= gen or not 0 <= best <= gen + 1:
                raise ValueError
            if not isinstance(self.state["summary"], list) or not all(
                    isinstance(e, dict) and isinstance(e.get("generation"), int)
                    and isinstance(e.get("seconds"), int | float)
                    for e in self.state["summary"]):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            raise RunError(f"corrupt {sp}: not a ratai training state") from None
        mp = self._p("metrics.jsonl")
        size = mp.stat().st_size if mp.exists() else 0
        if not 0 <= metrics <= size:  # the run only ever cuts back to what it wrote
            raise RunError(f"corrupt {sp}: metrics_bytes {metrics} is not within "
                           f"{mp.name} ({size} bytes)")
        trained = gen + (1 if self.state["phase"] in ("gate", "eval") else 0)
        self._ckpt = self._read_ckpt(trained)
        for g in {best, trained}:
            try:
                Model.load(self.model_path(g))
            except ModelError as exc:
                raise RunError(f"corrupt run directory: {exc}") from None
        index = self._p("buffer", "index.json")
        try:
            if index.exists():
                json.loads(index.read_text())["shards"]  # noqa: B018
        except (ValueError, KeyError, TypeError):
            raise RunError(f"corrupt replay buffer index {index}") from None

    def _read_ckpt(self, generation: int) -> dict:
        path = self.ckpt_path(generation)
        try:
            ckpt = self.torch.load(path, weights_only=True)
            if not isinstance(ckpt, dict) or int(ckpt["generation"]) != generation:
                raise ValueError("not a checkpoint of this generation")
            ckpt["net"], ckpt["optimizer"]  # noqa: B018
        except FileNotFoundError:
            raise RunError(f"missing checkpoint {path}") from None
        except Exception as exc:  # torch raises many kinds on a damaged file
            msg = " ".join(str(exc).split())[:160] or type(exc).__name__
            raise RunError(f"corrupt checkpoint {path}: {msg}") from None
        return ckpt

    def _write_ckpt(self, generation: int, net, optimizer, games_trained: int) -> None:
        buf = io.BytesIO()
        self.torch.save({"generation": generation, "net": net.state_dict(),
                         "optimizer": optimizer.state_dict(), "games_trained": games_trained},
                        buf)
        atomic_write_bytes(self.ckpt_path(generation), buf.getvalue())

    def _commit(self, **updates: Any) -> None:
        """Record a finished phase (after its outputs are on disk)."""
        self.state.update(updates)
        mp = self._p("metrics.jsonl")
        self.state["metrics_bytes"] = mp.stat().st_size if mp.exists() else 0
        atomic_write_json(self._p("state.json"), self.state)

    def _metric(self, event: str, **fields: Any) -> None:
        fields = {"event": event, "time": round(self.run_seconds(), 2), **fields}
        with open(self._p("metrics.jsonl"), "a") as f:
            f.write(json.dumps(fields, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())

    # -- setup ---------------------------------------------------------------------------
    def _create(self) -> None:
        from ratai import __version__
        from ratai.nn.model import Model
        from ratai.train.net import build_net

        for d in ("checkpoints", "models", "buffer", "work"):
            self._p(d).mkdir(parents=True, exist_ok=True)
        cfg = self.cfg
        # config.json first, state.json last: a run killed in between is created again
        atomic_write_json(self._p("config.json"), {
            "config": cfg.to_json(), "ratai": __version__, "torch": self.torch.__version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": "ratai train " + " ".join(cli_args(cfg))})
        start = self._init
        model = Model.init(cfg.game, cfg.players, hidden=cfg.hidden,
                           seed=derived_seed(cfg.seed, 0, _PHASE_SEEDS["init"]),
                           params=cfg.params, notes=f"ratai train --seed {cfg.seed}",
                           seat_relative=cfg.seat_relative)
        if start is not None:   # warm start: the init model's weights, this run's metadata
            model = model.with_arrays(start.arrays(), init=_lineage(cfg.init, start))
        model.meta.update(generation=0, games_trained=0)
        if cfg.rollout_mix > 0:   # later generations inherit it (net.to_model keeps meta)
            model = model.with_meta(play={"rollout_mix": cfg.rollout_mix})
        model.save(self.model_path(0), dtype=cfg.model_dtype)
        shutil.copyfile(self.model_path(0), self._p("best.npz"))
        net = build_net(Model.load(self.model_path(0)))
        opt = self.torch.optim.Adam(net.parameters(), lr=cfg.lr)
        self._write_ckpt(0, net, opt, 0)
        self._p("metrics.jsonl").write_bytes(b"")
        self.state = {"generation": -1, "phase": "eval", "best": 0, "games_trained": 0,
                      "positions_seen": 0, "seconds": 0.0, "summary": [],
                      "metrics_bytes": 0}
        atomic_write_json(self._p("state.json"), self.state)

    # -- the loop ------------------------------------------------------------------------
    def run(self, progress: Any = None) -> dict:
        """Run (or resume) up to ``config.generations``; returns ``state.json``'s content.

        ``progress``: an object with ``phase(description, total)`` returning a callable
        ``advance()`` and ``done()`` (see :class:`ratai.train.progress`), or ``None``.
        """
        self.t0 = time.time()
        self.progress = progress
        if self.state is None:
            self.root.mkdir(parents=True, exist_ok=True)
            self._create()
            self._ckpt = self._read_ckpt(0)
        else:   # drop metric lines of a phase that a kill interrupted (it is redone)
            mp = self._p("metrics.jsonl")
            with open(mp, "r+b") as f:
                f.truncate(self.state["metrics_bytes"])
        try:
            while self.state["generation"] < self.cfg.generations:
                g = self.state["generation"] + 1
                phase = self.state["phase"]
                if phase == "selfplay" and self.out_of_time():   # the report says why
                    write_report(self.root, self.cfg, {**self.state, "stopped_by_budget": True})
                    break
                if phase == "selfplay":
                    self._selfplay(g)
                    phase = "train"
                if phase == "train":
                    self._train(g)
                    phase = "gate"
                if phase == "gate":
                    self._gate(g)
                    phase = "eval"
                if phase == "eval":   # generation 0 (the random network) starts here
                    self._eval(g)
                    self._finish(g)
        except BaseException:   # Ctrl-C, SIGTERM, an error: end the running games at once
            self.dispatcher.close(terminate=True)   # (the run resumes from its checkpoint)
            raise
        self.dispatcher.close()
        return self.state

    def run_seconds(self) -> float:
        """Seconds of run time so far, every sitting included (``state.json``'s ``seconds``
        plus this sitting's since its last finished generation)."""
        return self.state.get("seconds", 0.0) + time.time() - self.t0

    def out_of_time(self) -> bool:
        """Would the next generation end past the run's time budget (``max_minutes``)? Its
        time is taken to be the last finished generation's."""
        limit = self.cfg.max_minutes
        if limit is None:
            return False
        done = [e["seconds"] for e in self.state["summary"][-2:]]
        last = done[-1] - done[0] if len(done) == 2 else 0.0
        return self.run_seconds() + last > 60.0 * limit

    def _phase_progress(self, description: str, total: int):
        if self.progress is None:
            return (lambda: None), (lambda: None)
        return self.progress.phase(description, total)

    def _games(self, g: int, kind: str, jobs: list[GameJob]) -> list[dict]:
        """Play ``jobs`` (skipping those already in ``work/``), keeping each finished game."""
        work = self._p("work", f"gen-{g:05d}")
        work.mkdir(parents=True, exist_ok=True)
        results: dict[int, dict] = {}
        todo = []
        for job in jobs:
            path = work / f"{kind}-{job.index:05d}.npz"
            if path.exists():
                results[job.index] = _read_game(path)
            else:
                todo.append(job)
        advance, finish = self._phase_progress(f"gen {g} {kind}", len(jobs))
        for _ in results:
            advance()

        def done(res: dict) -> None:
            _write_game(work / f"{kind}-{res['index']:05d}.npz", res)
            results[res["index"]] = res
            advance()

        self.dispatcher.map(todo, done)
        finish()
        return [results[job.index] for job in jobs]

    def _az(self, model: Path, iterations: int, noise: bool) -> SeatSpec:
        opts: list[tuple[str, Any]] = []
        if self.cfg.c_puct is not None:
            opts.append(("c_puct", self.cfg.c_puct))
        opts.append(("rollout_mix", self.cfg.rollout_mix))
        if noise:
            opts += [("dirichlet_alpha", self.cfg.dirichlet_alpha),
                     ("noise_fraction", self.cfg.noise_fraction)]
        else:
            opts.append(("noise_fraction", 0.0))
        return SeatSpec("az", str(model.resolve()), iterations, tuple(opts))

    def _params(self, n: int) -> dict:
        return {**self.cfg.params, "num_players": n}

    def _selfplay(self, g: int) -> None:
        cfg = self.cfg
        best = self.model_path(self.state["best"])
        seed = derived_seed(cfg.seed, g, _PHASE_SEEDS["selfplay"])
        jobs = []
        for i in range(cfg.games_per_gen):
            n = cfg.players[i % len(cfg.players)]
            jobs.append(GameJob(cfg.game, self._params(n),
                                tuple(self._az(best, cfg.iterations, True) for _ in range(n)),
                                seed, i, record=tuple(range(n)),
                                temperature_moves=cfg.temperature_moves, tag={"players": n}))
        start = time.time()
        results = self._games(g, "selfplay", jobs)
        seconds = sum(r["seconds"] for r in results)
        buffer = ReplayBuffer(self._p("buffer"), cfg.buffer_positions)
        positions = 0
        for n in cfg.players:
            parts = [r["positions"] for r in results if r["tag"]["players"] == n]
            if parts:
                arrays = {k: np.concatenate([p[k] for p in parts]) for k in FIELDS}
                positions += len(arrays["obs"])
                buffer.add(g, n, arrays)
        wall = time.time() - start
        self._metric("selfplay", generation=g, games=len(results), positions=positions,
                     mean_moves=float(np.mean([r["moves"] for r in results])),
                     game_seconds=round(seconds, 3), wall_seconds=round(wall, 3),
                     games_per_s=round(len(results) / max(wall, 1e-9), 4),
                     buffer_positions=len(buffer), buffer_by_players={
                         str(k): v for k, v in buffer.positions_by_players().items()})
        self._commit(phase="train", games_trained=self.state["games_trained"] + len(results),
                     positions_seen=self.state["positions_seen"] + positions)

    def _train(self, g: int) -> None:
        from ratai.engines import load_game
        from ratai.nn.model import Model
        from ratai.train.net import build_net, heldout, losses, pooled

        cfg, torch = self.cfg, self.torch
        torch.manual_seed(derived_seed(cfg.seed, g, _PHASE_SEEDS["train"]))
        model = Model.load(self.model_path(g - 1))
        net = build_net(model)
        ckpt = self._read_ckpt(g - 1)
        net.load_state_dict(ckpt["net"])
        opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
        opt.load_state_dict(ckpt["optimizer"])
        buffer = ReplayBuffer(self._p("buffer"), cfg.buffer_positions)
        data = buffer.load()
        counts = np.array([len(data[n]) for n in data], dtype=np.float64)
        ns = list(data)
        maps = {n: model.seat_maps(n, load_game(cfg.game, num_players=n, **cfg.params))
                for n in ns}   # None for an absolute network
        # this generation's games, before the network trains on them: its validation set
        fresh = {n: heldout(net, pos, n, maps.get(n))
                 for n, pos in buffer.load(generation=g).items()}
        rng = np.random.default_rng([cfg.seed, g, _PHASE_SEEDS["train"]])
        advance, finish = self._phase_progress(f"gen {g} train", cfg.train_steps)
        start = time.time()
        sums = np.zeros(5)
        curve = []
        every = max(1, cfg.train_steps // 10)
        window = np.zeros(5)
        for step in range(cfg.train_steps):
            n = ns[int(rng.choice(len(ns), p=counts / counts.sum()))]
            d = data[n]
            idx = rng.integers(0, len(d), size=min(cfg.batch_size, len(d)))
            batch = d.batch(idx, n, maps[n])
            total, value, policy, reg, mse = losses(net, batch, n, cfg.l2, cfg.value_target_q,
                                                       cfg.value_l2)
            opt.zero_grad()
            total.backward()
            opt.step()
            row = np.array([t.item() for t in (total, value, policy, reg, mse)])
            sums += row
            window += row
            if (step + 1) % every == 0 or step + 1 == cfg.train_steps:
                k = (step % every) + 1
                curve.append([step + 1] + [round(v, 5) for v in (window / k).tolist()])
                window[:] = 0
            advance()
        finish()
        mean = (sums / max(1, cfg.train_steps)).tolist()
        self._write_ckpt(g, net, opt, self.state["games_trained"])
        model = net.to_model(generation=g, games_trained=self.state["games_trained"],
                             created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                             notes=f"ratai train --seed {cfg.seed}, generation {g}")
        model.save(self.model_path(g), dtype=cfg.model_dtype)
        self._metric("train", generation=g, steps=cfg.train_steps,
                     loss=round(mean[0], 5), value_loss=round(mean[1], 5),
                     policy_loss=round(mean[2], 5), l2=round(mean[3], 3),
                     value_mse=round(mean[4], 5), buffer_positions=int(counts.sum()),
                     heldout=pooled(fresh), heldout_by_players=fresh,
                     seconds=round(time.time() - start, 3),
                     curve=curve, curve_fields=["step", "loss", "value_loss", "policy_loss",
                                                "l2", "value_mse"])
        self._commit(phase="gate")

    def _gate(self, g: int) -> None:
        cfg = self.cfg
        new, best = self.model_path(g), self.model_path(self.state["best"])
        it = cfg.gate_iterations or cfg.iterations
        seed = derived_seed(cfg.seed, g, _PHASE_SEEDS["gate"])
        jobs = []
        for i in range(cfg.gate_games):
            n = cfg.players[i % len(cfg.players)]
            if n == 1:  # a solo game has no other seat: each network plays it alone
                for who, path, index in (("new", new, i), ("best", best, cfg.gate_games + i)):
                    jobs.append(GameJob(cfg.game, self._params(1), (self._az(path, it, False),),
                                        seed, index, tag={"players": 1, "solo": who}))
                continue
            seat = (i // len(cfg.players)) % n
            seats = tuple(self._az(new if s == seat else best, it, False) for s in range(n))
            jobs.append(GameJob(cfg.game, self._params(n), seats, seed, i,
                                tag={"players": n, "new_seat": seat}))
        results = self._games(g, "gate", jobs)
        r_new, r_best = [], []
        for r in results:
            tag = r["tag"]
            if tag["players"] == 1:
                (r_new if tag["solo"] == "new" else r_best).append(r["returns"][0])
                continue
            r_new.append(r["returns"][tag["new_seat"]])
            r_best.append(float(np.mean([x for s, x in enumerate(r["returns"])
                                         if s != tag["new_seat"]])))
        mn, mb = float(np.mean(r_new)) if r_new else 0.0, float(np.mean(r_best)) if r_best \
            else 0.0
        score = mn / (mn + mb) if mn + mb > 0 else 0.5
        promoted = bool(results) and score >= cfg.gate_threshold
        if not results:    # no gating games: every generation becomes the best
            promoted = True
        _, lo, hi = _mean_ci(r_new)
        self._metric("gate", generation=g, games=len(results), against=self.state["best"],
                     score=round(score, 4), new_return=round(mn, 4), best_return=round(mb, 4),
                     new_return_ci95=[round(lo, 4), round(hi, 4)],
                     threshold=cfg.gate_threshold, promoted=promoted)
        if promoted:
            tmp = self._p("best.npz.tmp")
            shutil.copyfile(new, tmp)
            os.replace(tmp, self._p("best.npz"))
        self._gate_result = {"score": score, "games": len(results), "promoted": promoted,
                             "against": self.state["best"]}
        self._commit(phase="eval", best=g if promoted else self.state["best"],
                     pending_gate=self._gate_result)

    def _eval(self, g: int) -> None:
        cfg = self.cfg
        model = self.model_path(g)
        it = cfg.eval_iterations or cfg.iterations
        seed = derived_seed(cfg.seed, g, _PHASE_SEEDS["eval"])
        jobs = []
        for n in cfg.players:
            for j in range(cfg.eval_games):
                seat = j % n
                seats = tuple(self._az(model, it, False) if s == seat else SeatSpec("random")
                              for s in range(n))
                jobs.append(GameJob(cfg.game, self._params(n), seats, seed, len(jobs),
                                    tag={"players": n, "az_seat": seat}))
        results = self._games(g, "eval", jobs)
        strength = {}
        for n in cfg.players:
            rets = [r["returns"][r["tag"]["az_seat"]] for r in results
                    if r["tag"]["players"] == n]
            m, lo, hi = _mean_ci(rets)
            strength[str(n)] = {"games": len(rets), "return": round(m, 4),
                                "ci95": [round(lo, 4), round(hi, 4)],
                                "fair_share": round(1 / n, 4),
                                "ratio_to_fair": round(m * n, 3)}
        self._metric("eval", generation=g, iterations=it, opponents="random",
                     strength=strength)
        self._commit(pending_eval=strength)

    def _peak_rss_mb(self) -> float | None:
        """Peak resident memory of this sitting (MB): this process's ``VmHWM`` plus that
        of each local self-play worker (:func:`ratai.train.selfplay.peak_rss_mb`; the sum
        bounds their peak together; Ray workers on other machines are not counted);
        ``None`` where the platform reports none."""
        from ratai.train.selfplay import peak_rss_mb

        main = peak_rss_mb()
        if main is None:
            return None
        return round(main + sum(self.dispatcher.worker_peaks.values()), 1)

    def _finish(self, g: int) -> None:
        entry = {"generation": g, "games_trained": self.state["games_trained"],
                 "positions_seen": self.state["positions_seen"],
                 "gate": self.state.pop("pending_gate", None),
                 "strength": self.state.pop("pending_eval", None),
                 "seconds": round(self.run_seconds(), 1),
                 "peak_rss_mb": self._peak_rss_mb()}
        self._metric("generation", **entry, best=self.state["best"])
        self.state["seconds"] = entry["seconds"]
        self.t0 = time.time()
        self.state["summary"] = [s for s in self.state["summary"] if s["generation"] != g]
        self.state["summary"].append(entry)
        self.state.update(generation=g, phase="selfplay")
        write_report(self.root, self.cfg, self.state)
        self._commit()
        shutil.rmtree(self._p("work", f"gen-{g:05d}"), ignore_errors=True)


def _lineage(path: str, model) -> dict:
    """What a warm-started run records of its ``init`` model (file, digest, generation,
    self-play games behind it, and that model's own lineage)."""
    import hashlib

    out = {"file": os.path.basename(path),
           "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
           "generation": model.generation,
           "games_trained": int(model.meta.get("games_trained", 0))}
    if "init" in model.meta:
        out["init"] = model.meta["init"]
    return out


def _write_game(path: Path, res: dict) -> None:
    meta = {k: v for k, v in res.items() if k != "positions"}
    arrays = {"meta": np.array(json.dumps(meta))}
    if res["positions"] is not None:
        arrays.update(res["positions"])
    save_npz(path, arrays)


def _read_game(path: Path) -> dict:
    try:
        with np.load(path, allow_pickle=False) as f:
            res = json.loads(str(f["meta"][()]))
            res["positions"] = (load_npz(path) if "obs" in f.files else None)
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise RunError(f"corrupt finished game {path}: {type(exc).__name__}") from None
    return res


def cli_args(cfg: TrainConfig) -> list[str]:
    """The ``ratai train`` arguments that reproduce ``cfg``."""
    out = [cfg.game, "--players", ",".join(map(str, cfg.players))]
    for k, v in sorted(cfg.params.items()):
        out += ["--param", f"{k}={json.dumps(v)}"]
    defaults = TrainConfig(cfg.game, cfg.players)
    for f in dataclasses.fields(cfg):
        if f.name in ("game", "players", "params"):
            continue
        v = getattr(cfg, f.name)
        if v != getattr(defaults, f.name):
            flag = "--" + f.name.replace("_", "-")
            if isinstance(v, bool):   # a flag
                out += [flag] if v else []
                continue
            out += [flag, ",".join(map(str, v)) if isinstance(v, list) else str(v)]
    return out


def write_report(root: Path, cfg: TrainConfig, state: dict) -> None:
    """``report.md`` (config, seed, games, time, strength per generation), ``loss.png`` and
    ``strength.png`` of the run in ``root``."""
    from ratai.train.report import plots, report_markdown

    atomic_write_bytes(root / "report.md", report_markdown(root, cfg, state).encode())
    plots(root, cfg, state)
