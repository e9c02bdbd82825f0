"""Load test of the ratai service (issue 15): hint latency, health under load, idle watchers.

    python bench/load.py                       # starts a local server (workers = cores)
    python bench/load.py --seconds 10 --budget 0.2 --watchers 256 --json out.json

Loopback only. The server runs as a subprocess (``server.py --workers <cores>``, an event log
in a temporary directory). Phases, each ``--seconds`` long:

1. ``idle``: one client, sequential hints of ``--budget`` seconds (IS-MCTS, time budget):
   overshoot = latency - budget (target: median <= 5 ms, p99 <= 15 ms).
2. ``1x``: cores concurrent hint clients (target: hint p99 <= budget + 20 ms).
3. ``2x``: 2 x cores concurrent hint clients (target: 0 errors, health p99 <= 50 ms).
4. ``1x+watch`` and ``2x+watch``: the same with ``--watchers`` idle ``WatchGame`` streams open.

During phases 2-4 a prober calls the health check and ``ListGames`` every 20 ms on its own
channel. The server's RSS (server plus workers, MB) is read from ``/proc`` before and after.
Prints a Markdown table (and ``--json`` writes the numbers).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

import grpc
import numpy as np
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ratai.client import Client
from ratai.engines import load_game

ROOT = pathlib.Path(__file__).resolve().parents[1]


def positions(game_name: str, count: int, seed: int) -> list[tuple[int, list[int]]]:
    """``(seat, history)`` of ``count`` random decision positions."""
    game = load_game(game_name)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 60))):
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


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def rss_mb(pid: int) -> float:
    """RSS of ``pid`` and its children in MB."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                             text=True).stdout
        pids += [int(x) for x in out.split()]
    except OSError:
        pass
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total / 1024


def start_server(workers: int, tmp: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--port", "0", "--db",
                             os.path.join(tmp, "load.sqlite3"), "--workers", str(workers),
                             "--log-level", "INFO"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    while line and '"serving"' not in line:
        line = proc.stderr.readline()
    if not line:
        raise SystemExit("the server did not start")
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    return proc, json.loads(line)["address"]


def hints(target: str, game: str, clients: int, seconds: float, budget: float,
          pos: list, probe: bool) -> dict:
    """``clients`` threads asking ``budget``-second hints back to back for ``seconds``."""
    lat: list[float] = []
    health: list[float] = []
    listing: list[float] = []
    errors: collections.Counter = collections.Counter()
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(k: int) -> None:
        with Client(target, timeout=budget + 30) as c:
            i = k
            while time.monotonic() < stop_at:
                seat, hist = pos[i % len(pos)]
                i += clients
                t0 = time.perf_counter()
                try:
                    c.suggest_move(position=c.position(game, seat, history=hist),
                                   bot={"kind": "ismcts", "time_limit": budget, "seed": i})
                    dt = time.perf_counter() - t0
                    with lock:
                        lat.append(dt)
                except grpc.RpcError as exc:
                    with lock:
                        errors[exc.code().name] += 1

    def prober() -> None:
        with grpc.insecure_channel(target) as ch, Client(target, timeout=10) as c:
            stub = health_pb2_grpc.HealthStub(ch)
            while time.monotonic() < stop_at:
                t0 = time.perf_counter()
                try:
                    stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
                    health.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    c.list_games(timeout=10)
                    listing.append(time.perf_counter() - t0)
                except grpc.RpcError as exc:
                    errors["probe_" + exc.code().name] += 1
                time.sleep(0.02)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    if probe:
        threads.append(threading.Thread(target=prober))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    over = [x - budget for x in lat]
    return {"clients": clients, "hints": len(lat),
            "hint_p50_ms": 1000 * pct(lat, 50), "hint_p99_ms": 1000 * pct(lat, 99),
            "over_p50_ms": 1000 * pct(over, 50), "over_p99_ms": 1000 * pct(over, 99),
            "health_p50_ms": 1000 * pct(health, 50), "health_p99_ms": 1000 * pct(health, 99),
            "list_p99_ms": 1000 * pct(listing, 99), "probes": len(health),
            "errors": dict(errors)}


def open_watchers(target: str, n: int) -> tuple[Client, list]:
    c = Client(target, timeout=3600)
    gid = c.create_game("rat_trap", ["human"] * 3).game_id
    streams = [c.watch_game(gid, timeout=3600) for _ in range(n)]
    for s in streams:
        next(s)
    return c, streams


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=6.0, help="length of each phase")
    ap.add_argument("--budget", type=float, default=0.2, help="hint budget in seconds")
    ap.add_argument("--game", default="rat_trap")
    ap.add_argument("--watchers", type=int, default=256, help="idle WatchGame streams")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", default=None, help="write the numbers to this file")
    a = ap.parse_args(argv)
    cores = os.cpu_count() or 1
    pos = positions(a.game, 64, 0)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        proc, target = start_server(a.workers, tmp)
        try:
            rss0 = rss_mb(proc.pid)
            rows["idle"] = hints(target, a.game, 1, a.seconds, a.budget, pos, probe=False)
            rows["1x"] = hints(target, a.game, cores, a.seconds, a.budget, pos, probe=True)
            rows["2x"] = hints(target, a.game, 2 * cores, a.seconds, a.budget, pos, probe=True)
            wc, streams = open_watchers(target, a.watchers)
            try:
                rows["1x+watch"] = hints(target, a.game, cores, a.seconds, a.budget, pos, True)
                rows["2x+watch"] = hints(target, a.game, 2 * cores, a.seconds, a.budget, pos,
                                         True)
                rss1 = rss_mb(proc.pid)
            finally:
                for s in streams:
                    s.cancel()
                wc.close()
        finally:
            proc.terminate()
            proc.wait(30)
    print(f"server: {a.workers} workers, {cores} cores; hints: ismcts {a.budget} s on "
          f"{a.game}; {a.seconds} s per phase; {a.watchers} idle watchers in '+watch'")
    print("| phase | clients | hints | hint p50 | hint p99 | overshoot p50 | overshoot p99 "
          "| health p50 | health p99 | ListGames p99 | errors |")
    print("| --- " * 11 + "|")
    for name, r in rows.items():
        print(f"| {name} | {r['clients']} | {r['hints']} | {r['hint_p50_ms']:.1f} ms | "
              f"{r['hint_p99_ms']:.1f} ms | {r['over_p50_ms']:.1f} ms | "
              f"{r['over_p99_ms']:.1f} ms | {r['health_p50_ms']:.1f} ms | "
              f"{r['health_p99_ms']:.1f} ms | {r['list_p99_ms']:.1f} ms | "
              f"{sum(r['errors'].values())} {r['errors'] or ''} |")
    print(f"server RSS (with workers): {rss0:.0f} MB before, {rss1:.0f} MB after "
          f"({a.watchers} watchers open)")
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps({"rows": rows, "rss_mb": [rss0, rss1],
                                                    "cores": cores, "args": vars(a)},
                                                   indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
