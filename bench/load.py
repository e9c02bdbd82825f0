"""Load test of the ratai service: N concurrent clients of SuggestMove for T seconds.

    python bench/load.py                        # starts a local server (cores workers)
    python bench/load.py --target 127.0.0.1:50051 --clients 8 --seconds 20 --iterations 50

Each client asks stateless hints (IS-MCTS, a small budget) for random positions of the chosen
game (built from random histories) and records latency. Prints throughput, p50/p99 latency
and the error count by status code. Not part of CI.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import threading
import time

import grpc
import numpy as np

from ratai.client import Client
from ratai.engines import load_game


def positions(game_name: str, count: int, seed: int) -> list[tuple[int, list[int]]]:
    """``(seat, history)`` of ``count`` random decision positions."""
    game = load_game(game_name)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        stop = int(rng.integers(0, 60))
        for _ in range(stop):
            if state.is_terminal():
                break
            if state.is_chance_node():
                oc = state.chance_outcomes()
                p = np.array([x for _, x in oc])
                state.apply_action(oc[rng.choice(len(oc), p=p / p.sum())][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
        if state.current_player() >= 0:
            out.append((state.current_player(), state.history()))
    return out


def run(target: str, game: str, clients: int, seconds: float, iterations: int,
        kind: str) -> dict:
    pos = positions(game, 64, 0)
    latencies: list[float] = []
    errors: collections.Counter = collections.Counter()
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def worker(k: int) -> None:
        with Client(target, timeout=30) as c:
            i = k
            while time.monotonic() < stop_at:
                seat, history = pos[i % len(pos)]
                i += clients
                p = c.position(game, seat, history=history)
                t0 = time.perf_counter()
                try:
                    c.suggest_move(position=p, bot={"kind": kind, "iterations": iterations,
                                                    "seed": i})
                    dt = time.perf_counter() - t0
                    with lock:
                        latencies.append(dt)
                except grpc.RpcError as exc:
                    with lock:
                        errors[exc.code().name] += 1

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    lat = sorted(latencies)
    q = (lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] * 1000) if lat else (lambda f: 0.0)
    return {"requests": len(lat), "throughput_rps": len(lat) / wall, "p50_ms": q(0.50),
            "p99_ms": q(0.99), "mean_ms": statistics.fmean(lat) * 1000 if lat else 0.0,
            "errors": dict(errors), "wall_s": wall}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", default=None, help="host:port (default: start a local server)")
    ap.add_argument("--game", default="rat_trap")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--kind", default="ismcts")
    ap.add_argument("--workers", type=int, default=None, help="local server's search workers")
    ap.add_argument("--max-queue", type=int, default=64)
    a = ap.parse_args(argv)
    server = None
    target = a.target
    if target is None:
        from ratai.service.config import Limits, ServerConfig
        from ratai.service.server import RatAIServer

        limits = Limits(max_queue=a.max_queue)
        if a.workers is not None:
            limits.workers = a.workers
        server = RatAIServer(ServerConfig(port=0, db=":memory:", limits=limits))
        target = f"127.0.0.1:{server.start()}"
    try:
        r = run(target, a.game, a.clients, a.seconds, a.iterations, a.kind)
    finally:
        if server is not None:
            server.stop(0)
    print(f"game={a.game} kind={a.kind} iterations={a.iterations} clients={a.clients} "
          f"seconds={a.seconds:g}")
    print(f"requests={r['requests']} throughput={r['throughput_rps']:.1f}/s "
          f"p50={r['p50_ms']:.1f} ms p99={r['p99_ms']:.1f} ms mean={r['mean_ms']:.1f} ms "
          f"errors={sum(r['errors'].values())} {r['errors'] or ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
