"""``ratai train``: the replay buffer, the torch network against the numpy reference, one
tiny run end to end (the CI smoke test), reproducibility, resume after ``kill -9``, and the
bad-input contract (one line, exit code 2, nothing overwritten).

The tests that train need PyTorch (``pip install 'ratai[train]'``); without it they are
skipped with that reason. They run in the default suite when torch is installed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ratai.cli import main
from ratai.train.buffer import FIELDS, ReplayBuffer, network_input

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed: "
                                 "pip install 'ratai[train]' (torch==2.13.0) to run the "
                                 "training tests")

#: A tiny run: 2 generations of 2 Rat Trap games at 4 iterations, a 16x8 network.
TINY = ["rat_trap", "--players", "2", "--generations", "2", "--games-per-gen", "2",
        "--iterations", "4", "--train-steps", "5", "--batch-size", "16", "--gate-games", "2",
        "--eval-games", "1", "--hidden", "16,8", "--seed", "3"]
#: Fields of metrics.jsonl / state.json that measure wall time or memory (not reproducible).
CLOCK = {"time", "seconds", "wall_seconds", "game_seconds", "games_per_s", "metrics_bytes",
         "peak_rss_mb"}


def _shard(n_pos: int, tag: float, n: int = 2, d: int = 3, a: int = 4) -> dict:
    return {"obs": np.full((n_pos, d), tag, np.float32), "seat": np.zeros(n_pos, np.int8),
            "mask": np.ones((n_pos, a), bool), "pi": np.full((n_pos, a), 0.25, np.float32),
            "z": np.full((n_pos, n), 0.5, np.float32)}


def test_buffer_is_bounded_and_drops_the_oldest(tmp_path):
    buf = ReplayBuffer(tmp_path / "b", capacity=10)
    buf.add(1, 2, _shard(6, 1.0))
    buf.add(2, 2, _shard(6, 2.0))             # 12 > 10: the two oldest rows of gen 1 go
    assert len(buf) == 10
    data = buf.load()[2]
    assert data["obs"][:, 0].tolist() == [1.0] * 4 + [2.0] * 6
    buf.add(3, 3, _shard(7, 3.0, n=3))       # gen 1 dropped whole, 1 row of gen 2 trimmed
    again = ReplayBuffer(tmp_path / "b", capacity=10)   # reopened from disk
    assert len(again) == 10 and again.positions_by_players() == {2: 3, 3: 7}
    assert again.load()[2]["obs"][:, 0].tolist() == [2.0] * 3
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == [
        "gen-00002-2p-last3.npz", "gen-00003-3p.npz", "index.json"]
    again.add(3, 3, _shard(7, 9.0, n=3))     # a resumed generation re-adds: no duplicate
    assert len(again) == 10 and again.load()[3]["obs"][0, 0] == 3.0
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(tmp_path / "c", capacity=0)


def test_buffer_holds_policy_rows_sparse_and_batches_them_dense(tmp_path):
    """The loaded buffer keeps only the legal actions of each row (memory grows with the
    legal moves, not the action space) and gives back exactly the dense rows it was given."""
    rng = np.random.default_rng(0)
    shards = []
    for g in range(3):
        p, a = 5 + g, 9
        mask = rng.random((p, a)) < 0.4
        mask[np.arange(p), rng.integers(0, a, p)] = True      # at least one legal action
        pi = np.where(mask, rng.random((p, a)), 0).astype(np.float32)
        pi /= pi.sum(axis=1, keepdims=True)
        shards.append({"obs": rng.random((p, 4)).astype(np.float32),
                       "seat": rng.integers(0, 3, p).astype(np.int8), "mask": mask, "pi": pi,
                       "z": rng.random((p, 3)).astype(np.float32),
                       "q": rng.random((p, 3)).astype(np.float32)})
    buf = ReplayBuffer(tmp_path / "b", capacity=100)
    for g, sh in enumerate(shards):
        buf.add(g, 3, sh)
    data = buf.load()[3]
    dense = {k: np.concatenate([sh[k] for sh in shards]) for k in FIELDS}
    assert len(data) == len(dense["obs"]) == 18
    assert data.cols.size == int(dense["mask"].sum())           # sparse: legal entries only
    for k in FIELDS:
        assert np.array_equal(data[k], dense[k]), k
    idx = np.array([17, 0, 5, 5, 11])
    batch = data.batch(idx, 3)
    assert np.array_equal(batch["mask"], dense["mask"][idx])
    assert np.array_equal(batch["pi"], dense["pi"][idx])
    assert np.array_equal(batch["x"], network_input(dense["obs"][idx], dense["seat"][idx], 3))
    assert np.array_equal(batch["z"], dense["z"][idx])
    assert np.array_equal(batch["q"], dense["q"][idx])
    bad = dict(shards[0], pi=np.where(shards[0]["mask"], 0, 0.5).astype(np.float32))
    buf.add(9, 2, bad)
    with pytest.raises(ValueError, match="outside the legal-action mask"):
        buf.load()


def test_a_shard_written_before_q_existed_reads_q_as_z(tmp_path):
    """Shards of runs made before the ``q`` field (the search's root value) are read with
    ``q = z``, so an old run resumes and trains as before; a shard added without ``q``
    stores ``z`` there."""
    from ratai.train.buffer import load_npz

    buf = ReplayBuffer(tmp_path / "b", capacity=100)
    buf.add(1, 2, _shard(4, 1.0))                       # no "q" given
    data = buf.load()[2]
    assert np.array_equal(data["q"], data["z"])
    old = tmp_path / "old.npz"
    np.savez(old, **_shard(3, 2.0))                     # as an old run wrote it
    arrays = load_npz(old)
    assert set(arrays) == set(FIELDS) and np.array_equal(arrays["q"], arrays["z"])
    with_q = dict(_shard(4, 1.0), q=np.full((4, 2), 0.25, np.float32))
    buf.add(2, 2, with_q)
    assert buf.load()[2]["q"][4:].tolist() == [[0.25, 0.25]] * 4


def test_root_value_is_the_visit_weighted_mean_of_the_root_moves():
    """``q`` of a recorded position: each root move's per-seat values weighted by its
    visits (the mean return over the search's iterations); ``None`` without visits."""
    from ratai.search.common import Analysis, MoveStat
    from ratai.train.selfplay import root_value

    moves = (MoveStat(1, "a", 3, 0.9, 0.5, (0.9, 0.1)), MoveStat(2, "b", 1, 0.1, 0.5, (0.1, 0.9)),
             MoveStat(3, "c", 0, 0.0, 0.0, (0.0, 0.0)))
    an = Analysis(1, moves, (), iterations=4, nodes=4, max_depth=1, elapsed_s=0.1)
    assert root_value(an, 2).tolist() == pytest.approx([0.7, 0.3])
    unvisited = Analysis(3, moves[2:], (), iterations=0, nodes=0, max_depth=0, elapsed_s=0.0)
    assert root_value(unvisited, 2) is None


def test_a_read_only_buffer_touches_nothing(tmp_path):
    """``readonly=True`` (tools reading a live run): a shard not yet in the index stays, a
    missing directory is not created, and adding is refused."""
    buf = ReplayBuffer(tmp_path / "b", capacity=10)
    buf.add(1, 2, _shard(4, 1.0))
    stray = tmp_path / "b" / "gen-00002-2p.npz"       # being written by the run
    stray.write_bytes(b"partial")
    ro = ReplayBuffer(tmp_path / "b", capacity=10, readonly=True)
    assert stray.exists() and len(ro) == 4
    assert ro.load()[2]["obs"][:, 0].tolist() == [1.0] * 4
    with pytest.raises(ValueError, match="read-only"):
        ro.add(2, 2, _shard(4, 2.0))
    assert stray.read_bytes() == b"partial"
    ReplayBuffer(tmp_path / "none", capacity=10, readonly=True)
    assert not (tmp_path / "none").exists()
    ReplayBuffer(tmp_path / "b", capacity=10)            # the run's own open cleans up
    assert not stray.exists()


def test_buffer_refuses_a_damaged_index(tmp_path):
    buf = ReplayBuffer(tmp_path, capacity=5)
    buf.add(1, 2, _shard(2, 1.0))
    (tmp_path / "gen-00001-2p.npz").unlink()
    with pytest.raises(ValueError, match="missing"):
        ReplayBuffer(tmp_path, capacity=5)
    (tmp_path / "index.json").write_text("{not json")
    with pytest.raises(ValueError, match="corrupt replay buffer index"):
        ReplayBuffer(tmp_path, capacity=5)


def test_network_input_appends_the_seat_one_hot():
    obs = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = network_input(obs, np.array([2, 0], np.int8), 3)
    assert x.shape == (2, 6)
    assert x[0].tolist() == [0, 1, 2, 0, 0, 1] and x[1].tolist() == [3, 4, 5, 1, 0, 0]


@needs_torch
def test_torch_net_equals_the_numpy_model_and_the_loss_formula():
    import torch

    from ratai.engines import load_game
    from ratai.nn.model import Model
    from ratai.train.net import build_net, losses

    model = Model.init("rat_trap", [2, 3], hidden=(16, 8), seed=5)
    net = build_net(model)
    rng = np.random.default_rng(0)
    for n in (2, 3):
        d = load_game("rat_trap", num_players=n).observation_tensor_shape()[0]
        x = network_input(rng.random((4, d), dtype=np.float32),
                          rng.integers(0, n, 4).astype(np.int8), n)
        v_ref, p_ref = model.evaluate_batch(x, n)
        with torch.no_grad():
            v, p = net(torch.from_numpy(x), n)
        np.testing.assert_allclose(torch.sigmoid(v).numpy(), v_ref, atol=1e-5)
        np.testing.assert_allclose(p.numpy(), p_ref, atol=1e-5)
    # the export is the same network
    again = net.to_model(generation=1)
    np.testing.assert_allclose(again.evaluate_batch(x, 3)[1], p_ref, atol=1e-6)
    assert again.meta["generation"] == 1
    # policy loss = -sum(pi log softmax over the legal actions); value = BCE per seat
    a = model.net(2).num_actions
    d = model.net(2).tensor_size
    mask = np.zeros((1, a), bool)
    mask[0, [3, 7]] = True
    pi = np.zeros((1, a), np.float32)
    pi[0, [3, 7]] = [0.25, 0.75]
    batch = {"x": network_input(np.zeros((1, d), np.float32), np.array([0], np.int8), 2),
             "mask": mask, "pi": pi, "z": np.array([[1.0, 0.0]], np.float32)}
    total, value, policy, reg, mse = losses(net, batch, 2, l2=0.5)
    v_ref, logits = model.evaluate_batch(batch["x"], 2)
    z = logits[0, [3, 7]]
    logp = z - np.log(np.exp(z).sum())
    policy, value, reg, mse, total = (t.item() for t in (policy, value, reg, mse, total))
    assert float(policy) == pytest.approx(-(0.25 * logp[0] + 0.75 * logp[1]), rel=1e-5)
    bce = -(np.log(v_ref[0, 0]) + np.log(1 - v_ref[0, 1])) / 2
    assert float(value) == pytest.approx(bce, rel=1e-5)
    w2 = sum(float((v ** 2).sum()) for k, v in model.arrays().items() if k.startswith("w"))
    assert float(reg) == pytest.approx(w2, rel=1e-4)
    assert float(total) == pytest.approx(float(value) + float(policy) + 0.5 * w2, rel=1e-5)
    assert float(mse) == pytest.approx(((v_ref[0] - [1.0, 0.0]) ** 2).mean(), rel=1e-4)
    # --value-target-q w: the target is (1 - w) * z + w * q, the search's root value mixed in
    batch["q"] = np.array([[0.2, 0.6]], np.float32)
    _, value, *_rest, mse = losses(net, batch, 2, l2=0.5, q_weight=0.25)
    t = np.array([0.75 * 1.0 + 0.25 * 0.2, 0.75 * 0.0 + 0.25 * 0.6])
    bce = -(t * np.log(v_ref[0]) + (1 - t) * np.log(1 - v_ref[0])).mean()
    assert value.item() == pytest.approx(bce, rel=1e-5)
    assert mse.item() == pytest.approx(((v_ref[0] - t) ** 2).mean(), rel=1e-4)
    # --value-l2 c: c * sum(wv**2) over the value heads' output weights joins the total only
    plain = losses(net, batch, 2, l2=0.5, q_weight=0.25)
    penalised = losses(net, batch, 2, l2=0.5, q_weight=0.25, value_l2=3.0)
    wv2 = sum(float((v ** 2).sum()) for k, v in model.arrays().items() if k.startswith("wv"))
    assert wv2 > 0
    assert penalised[0].item() == pytest.approx(plain[0].item() + 3.0 * wv2, rel=1e-5)
    assert [t.item() for t in penalised[1:]] == [t.item() for t in plain[1:]]


@needs_torch
def test_heldout_figures_are_the_loss_formulas_over_all_rows_in_chunks():
    """``ratai.train.net.heldout``: the value head's squared error against ``z``, the
    constant ``1/n``'s, and the policy loss, averaged over every row whatever the chunk."""
    import torch

    from ratai.nn.model import Model
    from ratai.train.buffer import Positions
    from ratai.train.net import build_net, heldout, losses

    model = Model.init("rat_trap", [3], hidden=(16, 8), seed=2)
    net = build_net(model)
    n, d, a = 3, model.net(3).tensor_size, model.net(3).num_actions
    rng = np.random.default_rng(4)
    z = np.eye(n, dtype=np.float32)[rng.integers(0, n, 10)]       # one winner per game
    z[0] = 1.0 / 3                                                  # and a three-way tie
    mask = rng.random((10, a)) < 0.3
    mask[:, 0] = True
    pi = np.where(mask, rng.random((10, a)), 0).astype(np.float32)
    pi /= pi.sum(axis=1, keepdims=True)
    pos = Positions.from_dense({"obs": rng.random((10, d), dtype=np.float32),
                                "seat": rng.integers(0, n, 10).astype(np.int8),
                                "mask": mask, "pi": pi, "z": z,
                                "q": np.full((10, n), 0.9, np.float32)})
    whole = heldout(net, pos, n)
    with torch.no_grad():
        _, _, policy, _, mse = losses(net, pos.batch(np.arange(10), n), n, 0.0)
    assert whole["positions"] == 10
    assert whole["value_mse"] == pytest.approx(mse.item(), abs=1e-5)    # against z, not q
    assert whole["policy_loss"] == pytest.approx(policy.item(), abs=1e-5)
    assert whole["constant_mse"] == pytest.approx(float(((z - 1 / 3) ** 2).mean()), abs=1e-5)
    for key, value in heldout(net, pos, n, chunk=3).items():             # 3 + 3 + 3 + 1
        assert value == pytest.approx(whole[key], abs=2e-5), key
    empty = Positions.from_dense({k: v[:0] for k, v in
                                  {"obs": pos.obs, "seat": pos.seat, "mask": mask, "pi": pi,
                                   "z": z}.items()})
    assert heldout(net, empty, n) == {"positions": 0}
    # pooled over player counts: each count weighted by its positions
    from ratai.train.net import pooled

    two = {"positions": 30, "value_mse": 0.3, "constant_mse": 0.25, "policy_loss": 1.0}
    both = pooled({3: whole, 2: two, 4: {"positions": 0}})
    assert both["positions"] == 40
    assert both["value_mse"] == pytest.approx((10 * whole["value_mse"] + 30 * 0.3) / 40,
                                              abs=1e-5)
    assert both["policy_loss"] == pytest.approx((10 * whole["policy_loss"] + 30) / 40,
                                                abs=1e-5)
    assert pooled({}) == {"positions": 0}


def _run(args, expect=0):
    err = io.StringIO()
    out = io.StringIO()
    old = sys.stderr
    sys.stderr = err
    try:
        code = main(args, out=out)
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.stderr = old
    assert code == expect, (code, err.getvalue())
    return out.getvalue(), err.getvalue()


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _strip(obj):
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in CLOCK}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _results(root: Path) -> dict:
    """What a run computed, without its clock readings."""
    from ratai.nn.model import Model

    models = {p.name: {k: v.tolist() for k, v in sorted(Model.load(p).arrays().items())}
              for p in sorted((root / "models").glob("*.npz"))}
    buf = ReplayBuffer(root / "buffer", 10**9).load()
    return {"metrics": [_strip(json.loads(line)) for line in
                        (root / "metrics.jsonl").read_text().splitlines()],
            "state": _strip(json.loads((root / "state.json").read_text())),
            "models": models,
            "best": {k: v.tolist() for k, v in Model.load(root / "best.npz").arrays().items()},
            "buffer": {n: {k: d[k].tolist() for k in FIELDS} for n, d in buf.items()}}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("train") / "run"
    start = time.perf_counter()
    out, _ = _run(["train", *TINY, "--run", str(root)])
    return root, out, time.perf_counter() - start


@needs_torch
def test_one_tiny_generation_end_to_end(tiny_run):
    """The CI smoke test: self-play, buffer, training, export, gating, evaluation, files."""
    from ratai.engines import load_game
    from ratai.nn.model import Model

    root, out, seconds = tiny_run
    assert seconds < 120
    assert "generation 2" in out and "best model" in out
    for name in ("config.json", "state.json", "metrics.jsonl", "best.npz", "report.md",
                 "loss.png", "strength.png", "checkpoints/gen-00002.pt",
                 "models/gen-00000.npz", "models/gen-00002.npz"):
        assert (root / name).is_file(), name
    events = [json.loads(line) for line in (root / "metrics.jsonl").read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds == ["eval", "generation"] + ["selfplay", "train", "gate", "eval",
                                              "generation"] * 2
    sp = [e for e in events if e["event"] == "selfplay"]
    assert all(e["games"] == 2 and e["positions"] > 0 for e in sp)
    assert sp[1]["buffer_positions"] == sp[0]["positions"] + sp[1]["positions"]
    tr = [e for e in events if e["event"] == "train"]
    assert all(np.isfinite(e["loss"]) and e["loss"] > 0 for e in tr)
    gate = [e for e in events if e["event"] == "gate"]
    assert all(e["games"] == 2 and 0 <= e["score"] <= 1 for e in gate)
    model = Model.load(root / "models" / "gen-00002.npz")
    assert model.meta["generation"] == 2 and model.meta["games_trained"] == 4
    model.check_game(load_game("rat_trap", num_players=2))
    best = json.loads((root / "state.json").read_text())["best"]
    assert (root / "best.npz").read_bytes() == \
        (root / "models" / f"gen-{best:05d}.npz").read_bytes()
    report = (root / "report.md").read_text()
    assert "| 2 | 4 |" in report and "Seed 3" in report
    assert not any((root / "work").iterdir())
    gens = [e for e in events if e["event"] == "generation"]   # the sitting's peak memory
    assert all(50 < e["peak_rss_mb"] < 4096 for e in gens if sys.platform == "linux")
    assert "peak RSS (MB)" in report
    # each train event measures the previous generation's weights on the generation's new
    # positions (never trained on) before it trains on them
    from ratai.train.net import build_net, heldout

    buf = ReplayBuffer(root / "buffer", 10**9)
    for e in tr:
        g = e["generation"]
        fresh = buf.load(generation=g)
        assert e["heldout"]["positions"] == sum(len(p) for p in fresh.values()) > 0
        assert set(e["heldout_by_players"]) == {str(n) for n in fresh}
        again = heldout(build_net(Model.load(root / "models" / f"gen-{g - 1:05d}.npz")),
                        fresh[2], 2)
        for key in ("value_mse", "constant_mse", "policy_loss"):
            assert e["heldout"][key] == pytest.approx(again[key], abs=1e-3), key
    assert "held-out value MSE (1/n)" in report


@needs_torch
def test_bench_value_heldout_reads_a_run_and_fits_offline(tiny_run, capsys):
    """``bench/value_heldout.py``: a finished run's held-out figures are the ones its train
    metric recorded (the last generation's); ``--fit`` trains a fresh network on the early
    generations and reports each later player count; a non-run directory is one line."""
    from tests.conftest import load_script

    mod = load_script("bench/value_heldout.py")
    root = tiny_run[0]
    mod.main([str(root), "--generations", "1"])
    out = capsys.readouterr().out
    last = [json.loads(line) for line in (root / "metrics.jsonl").read_text().splitlines()
            if '"train"' in line][-1]["heldout"]
    assert f"held out: value MSE {last['value_mse']:.3f}" in out
    assert f"constant 1/n {last['constant_mse']:.3f}" in out
    mod.main([str(root), "--fit", "1", "--steps", "2", "--every", "1", "--batch-size", "8"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["step 1", "step 2"]
    assert all("2p value" in line for line in lines[1:])
    with pytest.raises(SystemExit, match="not a ratai train run directory"):
        mod.main([str(root / "buffer")])


@needs_torch
def test_two_workers_report_their_peak_memory(tmp_path):
    """With local worker processes the generation's ``peak_rss_mb`` adds each worker's
    peak (``VmHWM``) to this process's: more than a run without workers reports."""
    if sys.platform != "linux":
        pytest.skip("VmHWM is read from /proc")
    from ratai.train.loop import Dispatcher
    from ratai.train.selfplay import GameJob, SeatSpec, peak_rss_mb

    d = Dispatcher(2, "local")
    seen = []
    try:
        d.map([GameJob("rat_trap", {"num_players": 2}, (SeatSpec("random"),) * 2, 1, i)
               for i in range(4)], seen.append)
    finally:
        d.close()
    assert len(seen) == 4 and {r["pid"] for r in seen} == set(d.worker_peaks)
    assert os.getpid() not in d.worker_peaks
    assert all(v > 10 for v in d.worker_peaks.values()) and peak_rss_mb() > 10


def test_local_workers_are_capped():
    """A tester's ``--workers 100000`` was taken as is (a process pool forks on demand): a
    local run takes at most ``arena.MAX_WORKERS_PER_CORE`` per core, as ``ratai arena``
    does."""
    from ratai.arena import MAX_WORKERS_PER_CORE
    from ratai.train.loop import Dispatcher

    too_many = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1) + 1
    with pytest.raises(ValueError, match="at most"):
        Dispatcher(too_many, "local")
    Dispatcher(too_many - 1, "local").close()


@needs_torch
def test_too_many_workers_are_refused_before_the_run_directory_is_made(tmp_path, capsys):
    """... and on the command line: one line, exit 2, and no run directory is made."""
    from ratai.arena import MAX_WORKERS_PER_CORE

    too_many = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1) + 1
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as info:
        main(["train", "rat_trap", "--players", "2", "--run", str(run), "--workers",
              str(too_many)], io.StringIO())
    assert info.value.code == 2 and not run.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at most" in err[0], err


@needs_torch
def test_solo_player_count_is_gated_by_each_network_alone(tmp_path):
    """A 1-player count (First Rat solo) has no other seat to compare with: each gate game
    is played once by the new network and once by the best, alone (the mean return over an
    empty set of other seats made the score NaN, so the gate never promoted)."""
    root = tmp_path / "solo"
    _run(["train", "first_rat", "--players", "1,2", "--generations", "1", "--games-per-gen",
          "2", "--iterations", "3", "--train-steps", "2", "--batch-size", "16",
          "--gate-games", "3", "--eval-games", "0", "--hidden", "8,8", "--seed", "1",
          "--run", str(root)])
    events = [json.loads(line) for line in (root / "metrics.jsonl").read_text().splitlines()]
    gate = [e for e in events if e["event"] == "gate"]
    assert len(gate) == 1
    # gate games 0 and 2 are solo (two games each), game 1 has two seats
    assert gate[0]["games"] == 5
    assert all(np.isfinite(gate[0][k]) for k in ("score", "new_return", "best_return"))
    assert 0 <= gate[0]["score"] <= 1


@needs_torch
def test_same_seed_one_worker_same_results_and_kill_resume(tiny_run, tmp_path):
    """A run killed with SIGKILL mid-way and started again ends with exactly the results of
    the uninterrupted run (same seed, one worker): nothing lost, nothing duplicated."""
    ref_root = tiny_run[0]
    root = tmp_path / "killed"
    cmd = [sys.executable, "-m", "ratai.cli", "train", *TINY, "--run", str(root)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    deadline = time.time() + 100
    # kill once generation 1 has begun (a finished self-play game, or later phases)
    while time.time() < deadline and proc.poll() is None:
        state = root / "state.json"
        if any(root.glob("work/gen-00001/*.npz")) or (
                state.exists() and json.loads(state.read_text())["generation"] >= 1):
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_state = json.loads((root / "state.json").read_text())
    assert killed_state["generation"] < 2
    out, _ = _run(["train", *TINY, "--run", str(root)])
    assert "resumed;" in out
    assert _results(root) == _results(ref_root)


@needs_torch
def test_two_worker_processes_give_the_same_results(tiny_run, tmp_path):
    root = tmp_path / "two"
    _run(["train", *TINY, "--workers", "2", "--run", str(root)])
    assert _results(root) == _results(tiny_run[0])


@needs_torch
def test_a_finished_run_resumes_to_more_generations(tiny_run, tmp_path):
    root = tmp_path / "more"
    shutil.copytree(tiny_run[0], root)
    out, _ = _run(["train", *TINY[:3], "--generations", "3", *TINY[5:], "--run", str(root)])
    assert "generation 3" in out
    assert json.loads((root / "state.json").read_text())["generation"] == 3


@needs_torch
def test_max_minutes_stops_between_generations_and_a_larger_budget_continues(tiny_run,
                                                                              tmp_path):
    """``--max-minutes``: a generation starts only if it would end within the run's time
    budget (all sittings), taking it to last as long as the one before; the run stays
    resumable and a larger budget continues it."""
    root = tmp_path / "budget"
    shutil.copytree(tiny_run[0], root)
    summary = json.loads((root / "state.json").read_text())["summary"]
    spent, last = summary[-1]["seconds"], summary[-1]["seconds"] - summary[-2]["seconds"]
    assert last > 0
    more = [*TINY[:3], "--generations", "3", *TINY[5:], "--run", str(root)]
    # not spent yet, but generation 3 would end past it
    out, _ = _run(["train", *more, "--max-minutes", f"{(spent + last / 2) / 60:.6f}"])
    assert "generation 2" in out and "stopped at the time budget" in out
    state = json.loads((root / "state.json").read_text())
    assert state["generation"] == 2 and state["phase"] == "selfplay"
    assert "Stopped at its time budget" in (root / "report.md").read_text()
    assert not any((root / "work").iterdir())
    out, _ = _run(["train", *more, "--max-minutes", "600"])
    assert "generation 3" in out and "stopped" not in out
    assert "Stopped at its time budget" not in (root / "report.md").read_text()
    from ratai.train import TrainConfig

    with pytest.raises(ValueError, match="max_minutes"):
        TrainConfig("rat_trap", [2], max_minutes=0.0).check()


@needs_torch
@pytest.mark.parametrize("args, message", [
    (["rat_trap", "--players", "1"], "num_players"),
    (["rat_trap", "--players", "2", "--param", "big_gang=7"], "big_gang"),
    (["chess", "--players", "2"], "chess"),
])
def test_bad_game_or_player_count_is_one_line(tmp_path, args, message):
    _, err = _run(["train", *args, "--run", str(tmp_path / "r")], expect=2)
    assert err.count("\n") == 1 and err.startswith("ratai: ") and message in err
    assert not (tmp_path / "r").exists()


@needs_torch
@pytest.mark.parametrize("change, message", [
    (["--players", "3"], "players"),
    (["--iterations", "5"], "iterations"),
])
def test_a_run_of_another_config_is_refused_untouched(tiny_run, change, message):
    root = tiny_run[0]
    before = _snapshot(root)
    args = list(TINY)
    i = args.index(change[0])
    args[i + 1] = change[1]
    _, err = _run(["train", *args, "--run", str(root)], expect=2)
    assert err.count("\n") == 1 and "another configuration" in err and message in err
    _, err = _run(["train", "ratapolis", *args[1:], "--run", str(root)], expect=2)
    assert err.count("\n") == 1 and "'rat_trap' run, not 'ratapolis'" in err
    assert _snapshot(root) == before


@needs_torch
def test_a_corrupt_checkpoint_or_foreign_directory_is_refused_untouched(tiny_run, tmp_path):
    root = tmp_path / "corrupt"
    shutil.copytree(tiny_run[0], root)
    ckpt = root / "checkpoints" / "gen-00002.pt"
    ckpt.write_bytes(ckpt.read_bytes()[:100])
    before = _snapshot(root)
    _, err = _run(["train", *TINY[:3], "--generations", "3", *TINY[5:], "--run", str(root)],
                  expect=2)
    assert err.count("\n") == 1 and "corrupt checkpoint" in err and "gen-00002.pt" in err
    assert _snapshot(root) == before
    (root / "state.json").write_text("[1, 2")
    _, err = _run(["train", *TINY, "--run", str(root)], expect=2)
    assert err.count("\n") == 1 and "corrupt" in err and "state.json" in err
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    _, err = _run(["train", *TINY, "--run", str(other)], expect=2)
    assert err.count("\n") == 1 and "holds no ratai training run" in err
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


@needs_torch
@pytest.mark.parametrize("where, change", [
    ("state.json", {"metrics_bytes": 10**9}),    # grew metrics.jsonl to 1 GB with NULs
    ("state.json", {"metrics_bytes": -1}),
    ("state.json", {"summary": "x"}),              # a traceback after new files were written
    ("state.json", {"summary": [{"generation": "1"}]}),
    ("state.json", {"phase": "dance"}),
    ("state.json", {"best": 99}),
    ("config.json", {"config": []}),               # an AttributeError traceback
])
def test_a_tampered_run_file_is_refused_in_one_line_untouched(tiny_run, tmp_path, where,
                                                                change):
    """docs/training.md: a corrupt state or configuration is refused with one line (exit
    2) before anything is written, whatever field is wrong."""
    root = tmp_path / "tampered"
    shutil.copytree(tiny_run[0], root)
    doc = json.loads((root / where).read_text())
    doc.update(change)
    (root / where).write_text(json.dumps(doc))
    before = _snapshot(root)
    _, err = _run(["train", *TINY, "--run", str(root)], expect=2)
    assert err.count("\n") == 1 and "corrupt" in err and where in err, err
    assert _snapshot(root) == before


@needs_torch
def test_ray_backend_without_ray_is_one_line(tmp_path):
    pytest.importorskip("torch")
    try:
        import ray  # noqa: F401
        pytest.skip("ray is installed")
    except ImportError:
        pass
    _, err = _run(["train", *TINY, "--backend", "ray", "--run", str(tmp_path / "r")],
                  expect=2)
    assert err.count("\n") == 1 and "pip install 'ratai[ray]'" in err
    assert not (tmp_path / "r").exists()


@needs_torch
def test_warm_start_begins_at_the_init_models_weights_and_records_it(tiny_run, tmp_path):
    """``--init``: generation 0 holds the given model's weights (here the tiny run's best),
    its lineage is in the model metadata and the report; a mismatched file is refused in
    one line before anything is written."""
    from ratai.nn.model import Model

    src = tiny_run[0] / "best.npz"
    root = tmp_path / "warm"
    args = list(TINY)
    args[args.index("--generations") + 1] = "1"
    _run(["train", *args, "--init", str(src), "--run", str(root)])
    gen0 = Model.load(root / "models" / "gen-00000.npz")
    want = Model.load(src).arrays()
    assert all(np.array_equal(v, want[k]) for k, v in gen0.arrays().items())
    init = gen0.meta["init"]
    assert init["file"] == "best.npz" and init["sha256"] == hashlib.sha256(
        src.read_bytes()).hexdigest()
    assert Model.load(root / "models" / "gen-00001.npz").meta["init"] == init
    assert "Warm start: generation 0 is `best.npz`" in (root / "report.md").read_text()
    assert "--init" in json.loads((root / "config.json").read_text())["command"]
    for change, message in ((["--hidden", "9,9"], "hidden"), (["--players", "2,3"], "players"),
                            (["--param", "max_turns_per_round=150"], "max_turns_per_round")):
        _, err = _run(["train", *args, *change, "--init", str(src), "--run",
                       str(tmp_path / "refused")], expect=2)
        assert err.count("\n") == 1 and message in err, err
        assert not (tmp_path / "refused").exists()
    moved = tmp_path / "moved.npz"   # a created run no longer needs its init file
    shutil.copyfile(src, moved)
    longer = list(args)
    longer[longer.index("--generations") + 1] = "2"
    _run(["train", *args, "--init", str(moved), "--run", str(tmp_path / "w2")])
    moved.unlink()
    _run(["train", *longer, "--init", str(moved), "--run", str(tmp_path / "w2")])
    bad = tmp_path / "bad.npz"
    bad.write_bytes(src.read_bytes()[:50])
    _, err = _run(["train", *args, "--init", str(bad), "--run", str(tmp_path / "r2")],
                  expect=2)
    assert err.count("\n") == 1 and "bad.npz" in err and not (tmp_path / "r2").exists()


@needs_torch
def test_rollout_mix_reaches_every_search_and_is_the_models_play_option(tiny_run, tmp_path):
    """``--rollout-mix`` (Expert Iteration, Anthony et al. 2017): every az search of the run
    mixes a random playout into its leaf values, so the self-play visit counts differ from
    the AlphaZero run of the same seed, and every exported model records the option as the
    one it plays with (``meta["play"]``); 0 (the default) records none."""
    from ratai.nn.model import Model

    root = tmp_path / "exit"
    out, _ = _run(["train", *TINY, "--rollout-mix", "0.5", "--run", str(root)])
    assert "generation 2" in out
    for g in range(3):
        model = Model.load(root / "models" / f"gen-{g:05d}.npz")
        assert model.play_options == {"rollout_mix": 0.5}, g
    assert Model.load(tiny_run[0] / "models" / "gen-00002.npz").play_options == {}
    mine = ReplayBuffer(root / "buffer", 10**9).load()[2]
    theirs = ReplayBuffer(tiny_run[0] / "buffer", 10**9).load()[2]
    assert not np.array_equal(mine["pi"], theirs["pi"])
    assert "--rollout-mix 0.5" in json.loads((root / "config.json").read_text())["command"]
    _, err = _run(["train", *TINY, "--rollout-mix", "1.5", "--run", str(tmp_path / "bad")],
                  expect=2)
    assert err.count("\n") == 1 and "--rollout-mix" in err
    assert not (tmp_path / "bad").exists()


@needs_torch
def test_value_target_q_records_root_values_and_changes_the_value_target(tiny_run, tmp_path):
    """Self-play records each position's root value ``q`` (values in [0, 1]; a seat's own
    value is what its search expected, not the game's result); ``--value-target-q`` mixes it
    into the value target, so the same games train other weights, and the command records
    it; a value outside [0, 1] is one line, nothing created."""
    from ratai.nn.model import Model

    base = ReplayBuffer(tiny_run[0] / "buffer", 10**9).load()[2]
    assert base["q"].shape == base["z"].shape
    assert np.all((base["q"] >= 0) & (base["q"] <= 1)) and not np.array_equal(base["q"],
                                                                              base["z"])
    root = tmp_path / "q"
    out, _ = _run(["train", *TINY, "--value-target-q", "0.5", "--run", str(root)])
    assert "generation 2" in out
    mine = ReplayBuffer(root / "buffer", 10**9).load()[2]
    # generation 0 is the same network, so its games are the same; training then differs
    assert np.array_equal(mine["q"][:10], base["q"][:10])
    a = Model.load(root / "models" / "gen-00001.npz").arrays()
    b = Model.load(tiny_run[0] / "models" / "gen-00001.npz").arrays()
    assert a.keys() == b.keys()
    assert any(not np.array_equal(a[k], b[k]) for k in a if k.startswith("wv"))
    assert "--value-target-q 0.5" in json.loads((root / "config.json").read_text())["command"]
    _, err = _run(["train", *TINY, "--value-target-q", "-0.1", "--run", str(tmp_path / "bad")],
                  expect=2)
    assert err.count("\n") == 1 and "--value-target-q" in err
    assert not (tmp_path / "bad").exists()


@needs_torch
def test_value_l2_shrinks_the_value_head_alone_and_is_recorded(tiny_run, tmp_path):
    """``--value-l2``: the same games train a value head with smaller output weights (the
    penalty holds it near what generalises), the other layers follow only through it; the
    command records it; a negative value is one line, nothing created."""
    from ratai.nn.model import Model

    root = tmp_path / "vl2"
    out, _ = _run(["train", *TINY, "--value-l2", "50", "--run", str(root)])
    assert "generation 2" in out
    a = Model.load(root / "models" / "gen-00002.npz").arrays()
    b = Model.load(tiny_run[0] / "models" / "gen-00002.npz").arrays()

    def norm(arrays, prefix):
        return sum(float((v.astype(np.float64) ** 2).sum()) for k, v in arrays.items()
                   if k.startswith(prefix))

    assert norm(a, "wv") < 0.8 * norm(b, "wv")
    assert norm(a, "wp") == pytest.approx(norm(b, "wp"), rel=0.05)
    assert "--value-l2 50.0" in json.loads((root / "config.json").read_text())["command"]
    _, err = _run(["train", *TINY, "--value-l2", "-1", "--run", str(tmp_path / "bad")],
                  expect=2)
    assert err.count("\n") == 1 and "--value-l2" in err
    assert not (tmp_path / "bad").exists()


@needs_torch
def test_seat_relative_run_trains_and_exports_seat_relative_networks(tiny_run, tmp_path):
    """``--seat-relative``: every exported model is a seat-relative network (format 2) that
    the az bot plays; its training saw the same games as the absolute run of the seed
    (self-play of generation 0 differs only through the network's reading), the command
    records the flag, and an absolute ``--init`` model is refused in one line."""
    from ratai.bots import make_bot
    from ratai.engines import load_game
    from ratai.nn.model import Model

    root = tmp_path / "rel"
    out, _ = _run(["train", *TINY, "--seat-relative", "--run", str(root)])
    assert "generation 2" in out
    for g in range(3):
        model = Model.load(root / "models" / f"gen-{g:05d}.npz")
        assert model.seat_relative and model.meta["format"] == 2, g
    assert not Model.load(tiny_run[0] / "best.npz").seat_relative
    assert "--seat-relative" in json.loads((root / "config.json").read_text())["command"]
    assert "hidden 16x8 (seat-relative);" in (root / "report.md").read_text()
    game = load_game("rat_trap", num_players=2)
    bot = make_bot("az", game, 0, seed=1, iterations=8, model=str(root / "best.npz"))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    if state.current_player() == 0:
        assert bot.step(state) in state.legal_actions(0)
    _, err = _run(["train", *TINY, "--seat-relative", "--init", str(tiny_run[0] / "best.npz"),
                   "--run", str(tmp_path / "refused")], expect=2)
    assert err.count("\n") == 1 and "absolute" in err, err
    assert not (tmp_path / "refused").exists()


@needs_torch
def test_a_run_created_before_a_config_field_existed_resumes(tiny_run, tmp_path):
    """A ``config.json`` without a field added later (``rollout_mix``) holds that field's
    default: the run resumes with the default and refuses another value, naming it."""
    root = tmp_path / "old"
    shutil.copytree(tiny_run[0], root)
    cfg = json.loads((root / "config.json").read_text())
    del cfg["config"]["rollout_mix"]
    (root / "config.json").write_text(json.dumps(cfg))
    before = _snapshot(root)
    _, err = _run(["train", *TINY, "--rollout-mix", "1", "--run", str(root)], expect=2)
    assert err.count("\n") == 1 and "rollout_mix None (asked 1.0)" not in err
    assert "rollout_mix 0.0 (asked 1.0)" in err
    assert _snapshot(root) == before
    out, _ = _run(["train", *TINY[:3], "--generations", "3", *TINY[5:], "--run", str(root)])
    assert "resumed;" in out and "generation 3" in out
