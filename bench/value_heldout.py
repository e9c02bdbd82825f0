"""Does a run's value head generalise? Its error on positions it has not trained on.

Usage::

    python bench/value_heldout.py runs/ratapolis                      # the last 10 generations
    python bench/value_heldout.py runs/ratapolis --generations 20
    python bench/value_heldout.py runs/ratapolis --fit 246 --steps 3000 --value-l2 1

Default: for each of the last ``--generations`` generations ``G`` held in the run's replay
buffer, generation ``G-1``'s exported network on ``G``'s positions (it never trained on them;
``ratai train`` records the same figures as ``heldout`` in each ``train`` metric since stop
45, and this recomputes them for runs made before): the value's mean squared error per seat
against the game's result ``z``, the constant ``1/n``'s, and the policy loss, pooled over
player counts and generations (:func:`ratai.train.net.heldout`); then the last network on
the whole buffer (positions it trained on). A value head below the constant generalises;
one far below it on its own buffer and above it on new games has memorised its games.

``--fit SPLIT``: train a fresh network (the run's generation-0 model, so its sizes) on the
buffer's generations ``<= SPLIT`` and report the held-out figures on the later ones every
``--every`` steps, per player count, as the value error minus the constant's: a quick way to
try ``--l2``, ``--value-l2``, ``--value-target-q`` and ``--lr`` before spending an hour of
self-play on them (docs/training.md, "The value head memorises"). The run's files are only read
(a run still training may be measured). Batches are drawn as
``ratai train`` draws them (player counts in proportion to their positions). Needs the
``[train]`` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def _maps(model, game: str, players, params):
    from ratai.engines import load_game

    return {n: model.seat_maps(n, load_game(game, num_players=n, **params)) for n in players}


def last_generations(root: Path, k: int) -> None:
    from ratai.nn.model import Model
    from ratai.train.buffer import ReplayBuffer
    from ratai.train.net import build_net, heldout, pooled

    cfg = json.loads((root / "config.json").read_text())["config"]
    buf = ReplayBuffer(root / "buffer", 10**12, readonly=True)
    gens = [g for g in sorted({s["generation"] for s in buf.shards}) if g >= 1][-k:]
    rows = []
    for g in gens:
        model = Model.load(root / "models" / f"gen-{g - 1:05d}.npz")
        maps = _maps(model, cfg["game"], cfg["players"], cfg.get("params", {}))
        net = build_net(model)
        rows.append(pooled({n: heldout(net, pos, n, maps[n])
                             for n, pos in buf.load(generation=g).items()}))
    held = pooled(dict(enumerate(rows)))   # over the generations, as over player counts
    if not held["positions"]:
        sys.exit(f"error: {root}: no generation >= 1 in the replay buffer")
    last = Model.load(root / "models" / f"gen-{gens[-1]:05d}.npz")
    maps = _maps(last, cfg["game"], cfg["players"], cfg.get("params", {}))
    seen = pooled({n: heldout(build_net(last), pos, n, maps[n])
                    for n, pos in buf.load().items()})
    print(f"{root}: generations {gens[0]}-{gens[-1]}, {held['positions']} held-out positions")
    print(f"  held out: value MSE {held['value_mse']:.3f}, constant 1/n "
          f"{held['constant_mse']:.3f}, policy loss {held['policy_loss']:.3f}")
    print(f"  generation {gens[-1]} on its own buffer ({seen['positions']} positions): value MSE "
          f"{seen['value_mse']:.3f}, constant 1/n {seen['constant_mse']:.3f}")


def fit(root: Path, a: argparse.Namespace) -> None:
    import torch

    from ratai.nn.model import Model
    from ratai.train.buffer import Positions, ReplayBuffer
    from ratai.train.net import build_net, heldout, losses

    cfg = json.loads((root / "config.json").read_text())["config"]
    buf = ReplayBuffer(root / "buffer", 10**12, readonly=True)
    train: dict[int, list] = {}
    test: dict[int, list] = {}
    for g in sorted({s["generation"] for s in buf.shards}):
        for n, pos in buf.load(generation=g).items():
            (train if g <= a.fit else test).setdefault(n, []).append(pos)
    if not train or not test:
        sys.exit(f"error: --fit {a.fit} leaves no training or no test generations")
    train = {n: Positions.concatenate(v) for n, v in sorted(train.items())}
    test = {n: Positions.concatenate(v) for n, v in sorted(test.items())}
    torch.manual_seed(a.seed)
    model = Model.load(root / "models" / "gen-00000.npz")
    maps = _maps(model, cfg["game"], cfg["players"], cfg.get("params", {}))
    net = build_net(model)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    rng = np.random.default_rng(a.seed)
    ns = list(train)
    share = np.array([len(train[n]) for n in ns], float)
    share /= share.sum()
    print(f"{root}: train on generations <= {a.fit} ({sum(map(len, train.values()))} "
          f"positions), test on the later ones ({sum(map(len, test.values()))}); value = "
          "held-out MSE minus the constant 1/n's; policy = held-out loss")
    start = time.time()
    for step in range(1, a.steps + 1):
        n = ns[int(rng.choice(len(ns), p=share))]
        idx = rng.integers(0, len(train[n]), size=a.batch_size)
        total, *_ = losses(net, train[n].batch(idx, n, maps[n]), n, a.l2, a.value_target_q,
                           a.value_l2)
        opt.zero_grad()
        total.backward()
        opt.step()
        if step % a.every == 0 or step == a.steps:
            cells = []
            for n, pos in test.items():
                h = heldout(net, pos, n, maps[n])
                cells.append(f"{n}p value {h['value_mse'] - h['constant_mse']:+.3f} "
                             f"policy {h['policy_loss']:.2f}")
            print(f"  step {step}: " + "  ".join(cells) + f"  [{time.time() - start:.0f} s]",
                  flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", type=Path, help="a ratai train run directory")
    ap.add_argument("--generations", type=int, default=10, help="last generations to measure")
    ap.add_argument("--fit", type=int, default=None, metavar="SPLIT",
                    help="train a fresh network on generations <= SPLIT, test on the rest")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--value-l2", type=float, default=0.0)
    ap.add_argument("--value-target-q", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if not (a.run / "config.json").is_file():
        sys.exit(f"error: {a.run} is not a ratai train run directory (no config.json)")
    if a.fit is None:
        last_generations(a.run, a.generations)
    else:
        fit(a.run, a)


if __name__ == "__main__":
    main()
