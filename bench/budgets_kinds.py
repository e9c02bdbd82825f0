"""Budget overshoot, cancel latency and forced-move cost of the bot kinds (issue 13 item 8).

For each kind, game and time budget the script runs ``analyze`` on several decision nodes
of random games (the engines' default backend) and records the overshoot ``wall - budget``
(wall: from the call to the answer, setup included). It prints the median, p99 and max
overshoot in milliseconds with the sample count (p99 of fewer than 100 samples is close to
the max). ``--cancel`` measures the latency from setting the ``stop`` flag (a
``threading.Event``) to the answer, on a 10 s search. ``--joint`` measures ``smmcts``
iterations per second on the Ratapolis joint view. ``--intrinsic`` measures, in thread CPU
time (so a loaded machine does not inflate it), the largest gap between two budget polls
plus the work after the first poll that saw the budget spent: the overshoot on an idle
core.

Usage (short runs only on a shared machine)::

    python bench/budgets_kinds.py                       # 0.05-2 s, heuristic pimc expectimax smmcts
    python bench/budgets_kinds.py --kinds pimc --games ratapolis --budgets 30 --reps 1
    python bench/budgets_kinds.py --cancel --joint --budgets 0.1 --reps 5

Target (issue 13): median <= 2 ms, p99 <= 5 ms at every budget, every kind; cancel <= 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time

import numpy as np

from ratai.bots import make_bot
from ratai.engines import load_game
from ratai.engines.api import CHANCE, SIMULTANEOUS, sample_chance_outcome

GAMES = ("first_rat", "rat_trap", "ratapolis", "rats_to_riches")
KINDS = ("heuristic", "pimc", "expectimax", "smmcts")


def positions(name: str, count: int, players: int, seed: int = 0) -> list:
    """``count`` decision nodes with >= 2 legal moves from random games of ``name``."""
    game = load_game(name, num_players=players)
    rnd = random.Random(seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.new_initial_state()
        stop_at = rnd.randrange(2, 60)
        plies = 0
        while not s.is_terminal():
            cp = s.current_player()
            if cp == CHANCE:
                s.apply_action(sample_chance_outcome(s, rng))
                continue
            la = s.legal_actions()
            if plies >= stop_at and len(la) >= 2:
                out.append((game, s.clone()))
                break
            s.apply_action(la[rnd.randrange(len(la))])
            plies += 1
    return out


def percentile(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs), q)) if xs else float("nan")


def overshoot(kind: str, name: str, budget: float, reps: int, players: int) -> list[float]:
    """Overshoot samples (seconds) of ``kind`` at ``budget`` on ``reps`` positions."""
    samples = []
    for i, (game, s) in enumerate(positions(name, reps, players, seed=reps + int(budget * 1e3))):
        bot = make_bot(kind, game, s.current_player(), time_limit=budget, seed=i)
        t0 = time.perf_counter()
        bot.analyze(s)
        samples.append(time.perf_counter() - t0 - budget)
    return samples


class PollProbe:
    """Records the thread CPU time at every budget poll (``Budget.expired`` / ``done`` and
    expectimax's per-node ``_count``), to separate what the code does from what a loaded
    machine adds: ``gap`` is the largest CPU time between two polls (how late the search
    can notice the deadline), ``tail`` the CPU time from the first poll that saw the
    budget spent to the answer (report building, clean-up)."""

    def __init__(self):
        from ratai.search import expectimax
        from ratai.search.common import Budget

        self.patched = []
        probe = self

        def wrap(cls, name, seen):
            orig = getattr(cls, name)

            def f(self_, *a):
                out = orig(self_, *a)
                probe.poll(seen(out))
                return out
            setattr(cls, name, f)
            self.patched.append((cls, name, orig))

        wrap(Budget, "expired", bool)
        wrap(Budget, "done", bool)

        orig_count = expectimax.Expectimax._count

        def count(self_):
            try:
                orig_count(self_)
            except expectimax._Abort:
                probe.poll(True)
                raise
            probe.poll(False)
        expectimax.Expectimax._count = count
        self.patched.append((expectimax.Expectimax, "_count", orig_count))
        self.reset()

    def reset(self, budget: float = float("inf")):
        self.last = time.thread_time()
        self.gap = 0.0
        self.first_spent = None
        self.deadline = time.perf_counter() + budget

    def poll(self, spent: bool):
        """``spent``: what the search saw (a share of the budget may end before the whole);
        the tail starts at the first poll past the call's own deadline."""
        now = time.thread_time()
        self.gap = max(self.gap, now - self.last)
        self.last = now
        if self.first_spent is None and time.perf_counter() >= self.deadline:
            self.first_spent = now

    def undo(self):
        for cls, name, orig in self.patched:
            setattr(cls, name, orig)


def intrinsic(kind: str, name: str, budget: float, reps: int, players: int) -> list[float]:
    """Per call: CPU seconds of (largest gap between polls + tail after the first spent
    poll), the overshoot an idle core would see."""
    probe = PollProbe()
    out = []
    try:
        for i, (game, s) in enumerate(positions(name, reps, players, seed=reps + 1)):
            bot = make_bot(kind, game, s.current_player(), time_limit=budget, seed=i)
            probe.reset(budget)
            bot.analyze(s)
            end = time.thread_time()
            tail = end - probe.first_spent if probe.first_spent is not None else 0.0
            out.append(probe.gap + tail)
    finally:
        probe.undo()
    return out


def cancel_latency(kind: str, name: str, reps: int, players: int) -> list[float]:
    """Seconds from ``stop.set()`` to the answer of a 10 s search (set after 0.2 s)."""
    out = []
    for i, (game, s) in enumerate(positions(name, reps, players, seed=7)):
        kw = {"max_nodes": 10**8} if kind == "expectimax" else {}
        if kind == "heuristic":
            kw = {"max_evals": 10**6, "chance_samples": 1024}
        stop = threading.Event()
        bot = make_bot(kind, game, s.current_player(), time_limit=10.0, seed=i, **kw)
        th = threading.Thread(target=bot.analyze, args=(s,), kwargs={"stop": stop})
        th.start()
        time.sleep(0.2)
        t0 = time.perf_counter()
        stop.set()
        th.join()
        out.append(time.perf_counter() - t0)
    return out


def joint_speed(budget: float, reps: int) -> list[tuple[float, float]]:
    """smmcts iterations per wall-clock second and per CPU second of the searching thread
    (setup included), on the first Ratapolis joint planning node."""
    game = load_game("ratapolis", num_players=3, simultaneous=True)
    out = []
    for i in range(reps):
        s = game.new_initial_state()
        rng = np.random.default_rng(i)
        while s.current_player() == CHANCE:
            s.apply_action(sample_chance_outcome(s, rng))
        assert s.current_player() == SIMULTANEOUS
        t0, c0 = time.perf_counter(), time.thread_time()
        an = make_bot("smmcts", game, 0, time_limit=budget, seed=i).analyze(s)
        out.append((an.iterations / (time.perf_counter() - t0),
                    an.iterations / max(1e-9, time.thread_time() - c0)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--budgets", default="0.05,0.2,1,2", help="seconds, comma-separated")
    ap.add_argument("--reps", type=int, default=0,
                    help="positions per cell (default: ~1 s of budget per cell, 2..20)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--cancel", action="store_true", help="also measure cancel latency")
    ap.add_argument("--joint", action="store_true", help="also smmcts it/s on the joint view")
    ap.add_argument("--intrinsic", action="store_true",
                    help="also the CPU-time overshoot (poll gap + tail), immune to load")
    args = ap.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    games = [g for g in args.games.split(",") if g]
    budgets = [float(b) for b in args.budgets.split(",") if b]
    print("| kind | game | budget s | n | median ms | p99 ms | max ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for kind in kinds:
        for name in games:
            for b in budgets:
                reps = args.reps or max(2, min(20, int(1.0 / b)))
                xs = [1e3 * x for x in overshoot(kind, name, b, reps, args.players)]
                print(f"| {kind} | {name} | {b:g} | {len(xs)} | {statistics.median(xs):.2f} | "
                      f"{percentile(xs, 99):.2f} | {max(xs):.2f} |", flush=True)
    if args.intrinsic:
        print("\n| kind | game | budget s | n | CPU overshoot median ms | p99 ms | max ms |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for kind in kinds:
            for name in games:
                for b in budgets:
                    reps = args.reps or max(2, min(20, int(1.0 / b)))
                    xs = [1e3 * x for x in intrinsic(kind, name, b, reps, args.players)]
                    print(f"| {kind} | {name} | {b:g} | {len(xs)} | "
                          f"{statistics.median(xs):.2f} | {percentile(xs, 99):.2f} | "
                          f"{max(xs):.2f} |", flush=True)
    if args.cancel:
        print("\n| kind | game | n | cancel median ms | max ms |")
        print("| --- | --- | ---: | ---: | ---: |")
        for kind in kinds:
            for name in games:
                xs = [1e3 * x for x in cancel_latency(kind, name, args.reps or 3, args.players)]
                print(f"| {kind} | {name} | {len(xs)} | {statistics.median(xs):.2f} | "
                      f"{max(xs):.2f} |", flush=True)
    if args.joint:
        b = budgets[0]
        for b in budgets:
            xs = joint_speed(b, args.reps or 3)
            wall = [x for x, _ in xs]
            cpu = [y for _, y in xs]
            print(f"\nsmmcts on the Ratapolis joint view (3 seats, {b:g} s): median "
                  f"{statistics.median(wall):,.0f} it/s wall (min {min(wall):,.0f}), "
                  f"{statistics.median(cpu):,.0f} it per CPU s (min {min(cpu):,.0f}); "
                  f"n={len(xs)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
