"""Tournaments between bots: seat-rotated matches, win rates with 95% intervals, and
multiplayer ratings (openskill's Plackett-Luce model, Weng & Lin 2011).

Every game is reproducible from ``(game, params, seed, game index)``: the chance outcomes
come from ``numpy.random.default_rng([seed, index])`` and each seat's bot is seeded from
``SeedSequence([seed, index, seat])``, so local and Ray runs give identical records. Each
record holds the full action history, so
``load_game(...).state_from_history(record["history"])`` replays it.

Joint-move views (``current_player() == SIMULTANEOUS``, e.g. Ratapolis with
``simultaneous=True``): every seat with legal actions asks its own bot for its own action
(each bot sees the state only through its seat's information, as everywhere), and the
joint move is applied with ``state.apply_actions``. A seat with a single legal move plays
it without asking its bot to search (the bots' ``skip_forced``, on by default).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ratai.bots import make_bot
from ratai.engines import CHANCE, load_game
from ratai.engines.api import INVALID, SIMULTANEOUS, sample_chance_outcome

#: Local worker processes allowed per core (:func:`local_workers`).
MAX_WORKERS_PER_CORE = 8
#: The most games one arena or ladder run plays (their schedule is built up front: a
#: tester's ``--games 10**12`` took 548 MB before its first game).
MAX_GAMES = 1_000_000

#: ``make_bot`` arguments a spec's ``NAME=VALUE`` may not set: they are given apart from it.
RESERVED_OPTIONS = frozenset({"kind", "game", "player", "seed", "level", "on_progress", "stop"})


@dataclass(frozen=True)
class BotSpec:
    """A bot kind, its budget and options, parsed from ``kind[:N|:Ts][:name=value...]``:
    ``N`` iterations or ``T`` seconds, then any of the kind's options, e.g. ``random``,
    ``ismcts:2000``, ``mcts:0.5s``, ``expectimax:0.2s:determinizations=1:mode=paranoid``.
    Option values are read as JSON when they parse (numbers, ``true``, ``null``), else as
    strings; the names in :data:`RESERVED_OPTIONS` are refused."""

    kind: str
    iterations: int | None = None
    time_limit: float | None = None
    options: tuple[tuple[str, Any], ...] = ()
    level: int | None = None

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """Raises ``ValueError`` for a malformed budget or option, or a ``level:L`` whose
        ``L`` is not an integer in ``1..10`` (:mod:`ratai.bots.levels`)."""
        kind, *parts = text.strip().split(":")
        if not kind:
            raise ValueError(f"bad bot spec {text!r}: expected "
                             f"KIND[:ITERATIONS|:SECONDSs][:NAME=VALUE...]")
        if kind == "level":
            from ratai.bots.levels import check_level

            if len(parts) != 1:
                raise ValueError(f"bad bot spec {text!r}: expected level:L with L in 1..10")
            return cls("level", level=check_level(parts[0]))
        iterations = time_limit = None
        options = []
        for part in parts:
            if "=" in part:
                name, _, raw = part.partition("=")
                if not name:
                    raise ValueError(f"bad bot spec {text!r}: option {part!r} has no name")
                if name in RESERVED_OPTIONS:
                    why = ("a callback or flag of the Python API's make_bot"
                           if name in ("on_progress", "stop") else
                           "the seat and seed are given apart from the spec; a level is "
                           "level:L")
                    raise ValueError(f"bad bot spec {text!r}: {name!r} cannot be given in a "
                                     f"bot spec ({why})")
                if any(name == n for n, _ in options):
                    raise ValueError(f"bad bot spec {text!r}: option {name!r} given twice")
                if (name, True) in (("iterations", iterations is not None),
                                    ("time_limit", time_limit is not None)):
                    raise ValueError(f"bad bot spec {text!r}: {name}= besides the budget "
                                     f"{parts[0]!r}: give it once")
                try:
                    value = json.loads(raw)
                except ValueError:
                    value = raw
                options.append((name, value))
                continue
            if iterations is not None or time_limit is not None or options:
                raise ValueError(f"bad bot spec {text!r}: one budget, before the options")
            try:
                if part.endswith("s"):
                    time_limit = float(part[:-1])
                else:
                    iterations = int(part)
            except ValueError:
                raise ValueError(f"bad bot spec {text!r}: budget must be an int (iterations) "
                                 f"or seconds like 0.5s") from None
        return cls(kind, iterations, time_limit, tuple(options))

    @property
    def label(self) -> str:
        if self.level is not None:
            return f"level:{self.level}"
        out = self.kind
        if self.iterations is not None:
            out += f":{self.iterations}"
        if self.time_limit is not None:
            out += f":{self.time_limit:g}s"
        return out + "".join(f":{k}={json.dumps(v)}" for k, v in self.options)

    def make(self, game, seat: int, seed: Any):
        """The bot for ``seat`` of ``game`` (a ``level:L`` spec resolves to that game's
        calibrated kind and budget)."""
        if self.level is not None:
            return make_bot("level", game, seat, level=self.level, seed=seed)
        kw = dict(self.options)
        if self.iterations is not None:
            kw["iterations"] = self.iterations
        if self.time_limit is not None:
            kw["time_limit"] = self.time_limit
        return make_bot(self.kind, game, seat, seed=seed, **kw)


def _derived_seed(*keys: int) -> int:
    """An independent 32-bit seed for each (tournament seed, game, seat)."""
    return int(np.random.SeedSequence(list(keys)).generate_state(1)[0])


def seat_assignment(num_bots: int, num_players: int, index: int) -> list[int]:
    """Bot index per seat for game ``index``: bots rotate through the seats game by game."""
    return [(index + seat) % num_bots for seat in range(num_players)]


def play_game(game_name: str, params: dict, specs: Sequence[str], seed: int, index: int,
              backend: str = "auto") -> dict:
    """Play one game between the bots ``specs`` (one spec string per seat).

    Returns the record: ``game``, ``params``, ``seed``, ``index``, ``seats`` (spec per seat),
    ``history`` (all actions), ``scores``, ``automaton_scores`` (the solo game's automated
    rivals', e.g. Greg's: ``State.automaton_scores``; ``[]`` in other games), ``returns``,
    ``moves``, ``seconds`` (wall clock of the game), ``decisions`` (per seat: decisions with
    more than one legal action) and ``seat_seconds`` (per seat: seconds its bot spent
    choosing, forced moves included).
    """
    game = load_game(game_name, backend=backend, **params)
    rng = np.random.default_rng([seed, index])
    bots = [BotSpec.parse(s).make(game, seat, _derived_seed(seed, index, seat))
            for seat, s in enumerate(specs)]
    state = game.new_initial_state()
    start = time.perf_counter()
    n = game.num_players()
    decisions, thinking = [0] * n, [0.0] * n

    def choose(seat: int, legal) -> int:
        if len(legal) > 1:
            decisions[seat] += 1
        t0 = time.perf_counter()
        action = bots[seat].step(state)
        thinking[seat] += time.perf_counter() - t0
        return action

    while not state.is_terminal():
        cp = state.current_player()
        if cp == CHANCE:
            action = sample_chance_outcome(state, rng)
        elif cp == SIMULTANEOUS:
            joint = []
            for seat in range(n):
                legal = state.legal_actions(seat)
                joint.append(choose(seat, legal) if legal else INVALID)
            state.apply_actions(joint)
            continue
        else:
            action = choose(cp, state.legal_actions())
        state.apply_action(action)
    return {"game": game_name, "params": dict(game.params), "seed": seed, "index": index,
            "seats": list(specs), "history": state.history(), "scores": state.scores(),
            "automaton_scores": state.automaton_scores(), "returns": state.returns(),
            "moves": state.move_number(),
            "seconds": round(time.perf_counter() - start, 4), "decisions": decisions,
            "seat_seconds": [round(t, 4) for t in thinking]}


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval (Wilson 1927) of a win rate ``wins / n`` at ``z`` (1.96: 95%).

    ``wins`` may be fractional (a k-way shared win counts 1/k); ``n == 0`` gives (0, 1).
    Unlike the normal approximation it stays inside [0, 1] and is not degenerate at 0 or
    ``n`` wins.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Standing:
    """One bot's results: ``games`` seats played, ``wins`` (sum of returns: a k-way shared
    win counts 1/k), mean ``score``, its openskill rating (``mu``, ``sigma``), and the
    ``decisions`` it made (more than one legal action) in ``think_s`` seconds of search.
    ``rated`` is False when it played no game with two or more seats (solo games, e.g.
    First Rat with ``num_players=1`` against Greg): a rating needs two entrants in a game,
    so ``mu`` and ``sigma`` then stay at the prior."""

    bot: str
    games: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    returns: list[float] = field(default_factory=list)
    mu: float = 25.0
    sigma: float = 25.0 / 3
    decisions: int = 0
    think_s: float = 0.0
    rated: bool = True

    @property
    def wilson95(self) -> tuple[float, float]:
        """95% Wilson score interval of the win rate, the mean return per game (returns are
        in [0, 1]; :func:`wilson_interval` of ``wins`` over ``games``): 10 wins in 10 games
        give about [0.72, 1.00]. Every table of arena, bench and ladder prints it."""
        return wilson_interval(self.wins, self.games)

    @property
    def seconds_per_move(self) -> float:
        """Mean seconds of search per decision (0 when it made none)."""
        return self.think_s / self.decisions if self.decisions else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else 0.0

    @property
    def ordinal(self) -> float:
        """Conservative skill estimate mu - 3 sigma."""
        return self.mu - 3 * self.sigma


def standings(records: Iterable[dict], bots: Sequence[str]) -> list[Standing]:
    """Aggregate records (in index order) into one :class:`Standing` per bot, best first.

    Only games with two or more seats update the ratings (a rating ranks entrants within a
    game); a bot that played none (solo games) has ``rated=False``."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    table = {b: Standing(b, rated=False) for b in bots}
    ratings = {b: model.rating(name=b) for b in bots}
    for rec in sorted(records, key=lambda r: r["index"]):
        seats, rets = rec["seats"], rec["returns"]
        for seat, bot in enumerate(seats):
            st = table[bot]
            st.games += 1
            st.wins += rets[seat]
            st.score_sum += rec["scores"][seat]
            st.returns.append(rets[seat])
            if "decisions" in rec:
                st.decisions += rec["decisions"][seat]
                st.think_s += rec["seat_seconds"][seat]
        if len(seats) < 2:  # solo: a win rate against the game's automaton, no rating
            continue
        for bot in seats:
            table[bot].rated = True
        ranks = [1 + sum(1 for r in rets if r > mine) for mine in rets]
        new = model.rate([[ratings[b]] for b in seats], ranks=ranks)
        updated: dict[str, list] = {}
        for bot, team in zip(seats, new, strict=True):
            updated.setdefault(bot, []).append(team[0])
        for bot, rs in updated.items():  # a bot in several seats: average its updates
            r = ratings[bot]
            r.mu = sum(x.mu for x in rs) / len(rs)
            r.sigma = min(x.sigma for x in rs)
    for bot, r in ratings.items():
        table[bot].mu, table[bot].sigma = r.mu, r.sigma
    return sorted(table.values(), key=lambda s: (-s.win_rate, -s.ordinal))


def run_arena(game_name: str, params: dict, bots: Sequence[str], games: int, *, seed: int = 0,
              workers: int = 1, backend: str = "local", engine_backend: str = "auto",
              on_record: Callable[[dict], None] | None = None) -> list[dict]:
    """Play ``games`` seat-rotated games and return their records (in index order).

    Args:
        bots: bot specs (``BotSpec.parse`` syntax); seats are filled by rotation
            (:func:`seat_assignment`).
        workers: processes for ``backend="local"`` (1 = in this process).
        backend: ``"local"`` or ``"ray"`` (needs ``pip install ratai[ray]``; connects with
            ``ray.init()``, so ``RAY_ADDRESS`` selects a cluster).
        on_record: called with each finished record (for progress display).

    Raises:
        ValueError: a bad bot spec or kind, bad game parameters, a bad backend, or ``games``
            outside ``1..MAX_GAMES``.
    """
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"bad games {games!r}: allowed 1..{MAX_GAMES:,}")
    for spec in bots:
        BotSpec.parse(spec)
    n = load_game(game_name, backend=engine_backend, **params).num_players()
    seatings = [[bots[b] for b in seat_assignment(len(bots), n, i)] for i in range(games)]
    return run_schedule(game_name, params, seatings, seed=seed, workers=workers,
                        backend=backend, engine_backend=engine_backend, on_record=on_record)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel ``pool``'s queued games and end the running ones at once (terminating its
    worker processes: their games' results are not wanted any more)."""
    if hasattr(pool, "terminate_workers"):   # Python 3.14+
        pool.shutdown(wait=False, cancel_futures=True)
        pool.terminate_workers()
        return
    # taken before shutdown(), which drops the pool's table of processes (Python < 3.14):
    # read after it, no worker was terminated and the parent waited for their games
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()


def local_workers(workers: int, tasks: int) -> int:
    """The processes to start for ``tasks`` games: ``workers``, at most one per game.

    Raises:
        ValueError: more than :data:`MAX_WORKERS_PER_CORE` per core of this machine (a
            process pool forks them all at once; ``backend="ray"`` spreads over machines).
    """
    cap = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)
    if workers > cap:
        raise ValueError(f"workers={workers}: at most {cap} processes on this machine "
                         f"({MAX_WORKERS_PER_CORE} per core); use backend 'ray' for more")
    return max(1, min(workers, tasks))


def run_schedule(game_name: str, params: dict, seatings: Sequence[Sequence[str]], *,
                 seed: int = 0, workers: int = 1, backend: str = "local",
                 engine_backend: str = "auto",
                 on_record: Callable[[dict], None] | None = None) -> list[dict]:
    """Play one game per entry of ``seatings`` (the bot spec of every seat; game ``i`` is
    seeded from ``(seed, i)`` like every arena game) and return the records in index order.

    This is the machinery under :func:`run_arena` and ``ratai.ladder``: ``workers``
    processes locally, or Ray tasks with ``backend="ray"`` (same records for the same seed).

    Raises:
        ValueError: a bad bot spec or kind, a seating of the wrong length, bad game
            parameters, a bad backend, or too many local ``workers``
            (:func:`local_workers`).
        ChildProcessError: a local worker process died (killed, out of memory, crashed).
    """
    if backend == "local":
        workers = local_workers(workers, len(seatings))
    game = load_game(game_name, backend=engine_backend, **params)
    n = game.num_players()
    for seating in seatings:
        if len(seating) != n:
            raise ValueError(f"a seating of {len(seating)} bots for a {n}-player game")
    # fail fast on bad specs or kinds (every distinct one) before starting workers
    for spec in dict.fromkeys(s for seating in seatings for s in seating):
        BotSpec.parse(spec).make(game, 0, 0)
    jobs = [(game_name, dict(game.params), list(seating), seed, i, engine_backend)
            for i, seating in enumerate(seatings)]
    records: list[dict] = []

    def done(rec: dict) -> None:
        records.append(rec)
        if on_record is not None:
            on_record(rec)

    if backend == "ray":
        try:
            import ray
        except ImportError:
            raise ValueError("backend 'ray' needs Ray: pip install 'ratai[ray]'") from None
        if not ray.is_initialized():
            ray.init(ignore_reinit_error=True, log_to_driver=False)
        remote = ray.remote(play_game)
        pending = [remote.remote(*job) for job in jobs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            done(ray.get(ready[0]))
    elif backend == "local":
        if workers <= 1:
            for job in jobs:
                done(play_game(*job))
        else:
            pool = ProcessPoolExecutor(max_workers=workers)
            try:
                for fut in as_completed([pool.submit(play_game, *job) for job in jobs]):
                    done(fut.result())
            except BrokenProcessPool as exc:   # a worker died (never a hang)
                stop_pool(pool)
                raise ChildProcessError(f"a worker process died while playing (killed, out of "
                                        f"memory or crashed: {exc})") from None
            except BaseException:   # Ctrl-C or a failed game: stop now, not after the queue
                stop_pool(pool)
                raise
            pool.shutdown()
    else:
        raise ValueError(f"bad backend {backend!r}: allowed 'local' or 'ray'")
    return sorted(records, key=lambda r: r["index"])


def format_table(rows: Sequence[Standing]) -> str:
    """A Markdown table of standings: the win rate with its 95% Wilson interval
    (:attr:`Standing.wilson95`), rating columns ``n/a`` for an unrated bot."""
    lines = ["| bot | seats played | win rate | 95% interval | mean score | rating mu | "
             "sigma | ordinal |", "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    for s in rows:
        lo, hi = s.wilson95
        rating = f"{s.mu:.2f} | {s.sigma:.2f} | {s.ordinal:.2f}" if s.rated else "n/a | n/a | n/a"
        lines.append(f"| {s.bot} | {s.games} | {s.win_rate:.3f} | [{lo:.3f}, {hi:.3f}] | "
                     f"{s.mean_score:.2f} | {rating} |")
    return "\n".join(lines)


def write_records(records: Iterable[dict], path: str) -> None:
    with open(path, "w") as f:
        for rec in records:
            f.write(json.dumps(rec) + "\n")
