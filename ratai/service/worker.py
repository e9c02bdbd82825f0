"""One search: the job description, the search itself, and the worker process that runs it.

A :class:`SearchJob` is plain data (game name, params, serialized state, seat, bot config,
the wall-clock cap). :func:`run_search` runs one job wherever it is called (a worker process,
or a thread when the server has ``workers=0``).

Worker processes (``python -m ratai.service.worker FD PPID``) talk to the server over one
socket (``multiprocessing.connection`` framing): the server sends ``("job", id, job)`` and
``("cancel", id)``; the worker answers ``("ready", pid)`` once, then per job any number of
``("progress", id, analysis)`` and one ``("done", id, result)`` or ``("error", id, kind,
message)``. A worker dies with the server: it asks the kernel for ``SIGKILL`` when its parent
dies (``prctl(PR_SET_PDEATHSIG)``), and a reader thread exits the process as soon as the
socket reaches end-of-file (the server is gone). It starts no ``multiprocessing`` resource
tracker (no semaphores, no shared memory).
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .catalog import BotConfig

__all__ = ["SearchJob", "SearchResult", "run_search", "effective_time_limit", "NO_REPORTS"]

#: ``progress_every`` given to a search whose partial results nobody reads (no reports built).
NO_REPORTS = 10**9  # the largest progress_every the bots accept

#: Iterations per second seen per ``(game, kind)`` in this process, so that a search reports
#: (builds a labelled partial analysis) only about once per report interval.
_RATES: dict[tuple[str, str], float] = {}


def report_every(job: SearchJob) -> int:
    """Iterations between two progress reports of ``job``: the client's ``report_every``,
    raised to what the search does in ``report_interval_s`` (from earlier searches of the
    same game and kind), so no report is built that would not be sent."""
    if not job.progress:
        return NO_REPORTS
    every = max(1, int(job.report_every))
    rate = _RATES.get((job.game, job.bot.kind))
    if rate and job.report_interval_s > 0:
        every = max(every, int(rate * job.report_interval_s))
    return min(every, NO_REPORTS)


@dataclass(frozen=True)
class SearchJob:
    """One search: what to search and how.

    Attributes:
        game, params: the game (``load_game(game, **params)``).
        state: ``State.serialize()`` bytes of the position (already validated).
        seat: the seat to advise (it is that seat's turn).
        bot: kind, budget and options (already checked by ``catalog.check_bot``).
        time_limit: seconds the search may run, set by the pool when the job starts:
            ``min(bot.time_limit, server max_seconds, client deadline - margin)``.
        stop_at: the absolute ``time.monotonic()`` by which the search must have returned
            (set with ``time_limit``; it already excludes the request's parsing before and
            the answer's delivery after, so a hint's total latency matches its budget).
        report_every: iterations between progress reports (only when ``progress``; raised
            by :func:`report_every` so that reports are built only about once per interval).
        report_interval_s: least seconds between two progress messages (0: every report).
        progress: whether partial analyses are wanted at all (else none is ever built).
        untrusted: the position came from a client's serialized state or observation; an
            engine error while searching it is the input's fault (``ValueError`` ->
            ``INVALID_ARGUMENT``), not a server bug.
        ponder_key: a hosted bot seat's key (``"<game id>:<seat>"``) when the server
            ponders (``--ponder``): the worker keeps that seat's bot, which reuses its tree
            and ponders between moves (see :func:`run_search`); ``None``: a one-off bot.
        ponder_seconds: the longest ponder search of that bot (seconds).
    """

    game: str
    params: dict
    state: bytes
    seat: int
    bot: BotConfig
    time_limit: float = 30.0
    report_every: int = 100
    report_interval_s: float = 0.0
    progress: bool = False
    untrusted: bool = False
    stop_at: float | None = None
    ponder_key: str | None = None
    ponder_seconds: float = 0.0


@dataclass(frozen=True)
class SearchResult:
    """The final analysis and why the search stopped: ``budget``, ``deadline`` (the server's
    cap or the client's deadline cut the bot's own budget) or ``cancelled``."""

    analysis: Any
    stop_reason: str


def effective_time_limit(bot: BotConfig, max_seconds: float, deadline: float | None,
                         margin: float, now: float | None = None) -> tuple[float, bool]:
    """``(seconds, cut)``: the time a search may take and whether the cap is below the bot's own.

    ``seconds = min(bot.time_limit, max_seconds, deadline - now - margin)`` (``deadline`` an
    absolute ``time.monotonic()``, or None); ``cut`` is True when the server or the client
    deadline, not the bot's ``time_limit``, sets it.
    """
    now = time.monotonic() if now is None else now
    cap = float(max_seconds)
    if deadline is not None:
        cap = min(cap, deadline - now - margin)
    own = bot.time_limit if bot.time_limit is not None else math.inf
    return (own, False) if own <= cap else (cap, True)


#: Pondering bots kept in this worker process, by ``SearchJob.ponder_key`` (least recently
#: used first), with the configuration they were built for.
_KEPT: dict[str, tuple[tuple, Any]] = {}
#: The most pondering bots (kept trees) one worker holds; the oldest is closed beyond it.
MAX_KEPT = 2
_KEPT_LOCK = threading.Lock()
PONDER_KINDS = ("mcts", "ismcts", "az")


def halt_ponders() -> None:
    """Stop every ponder search of this process and join their threads (each sees its stop
    flag within one iteration): the first thing a worker does with any job, so a ponder
    search never takes the CPU a request needs."""
    with _KEPT_LOCK:
        bots = [b for _, b in _KEPT.values()]
    for b in bots:
        b._stop_ponder()


def _compiled(state: Any) -> bool:
    try:
        from ratai._speedups.search import is_cython_state
    except ImportError:
        return False
    return is_cython_state(state)


def _kept_bot(job: SearchJob, game: Any, make: Callable[[], Any]) -> Any:
    """The kept bot of ``job.ponder_key`` if it was built for the same configuration, else
    a new one from ``make()`` (kept for the seat's next move; the LRU beyond
    :data:`MAX_KEPT` is closed)."""
    conf = (job.game, json.dumps(job.params, sort_keys=True), job.seat, repr(job.bot),
            job.ponder_seconds)
    with _KEPT_LOCK:
        old = _KEPT.pop(job.ponder_key, None)
    if old is not None and old[0] == conf:
        bot = old[1]
    else:
        if old is not None:
            old[1].close()
        bot = make()
    with _KEPT_LOCK:
        _KEPT[job.ponder_key] = (conf, bot)
        drop = [k for k in list(_KEPT)[:-MAX_KEPT]]
        dropped = [_KEPT.pop(k)[1] for k in drop]
    for b in dropped:
        b.close()
    return bot


class _StopFlag:
    """``stop()`` as a bot's cancel flag (``SearchBot.analyze(stop=...)`` polls ``is_set()``
    inside its loop: the compiled searches between their ~1 ms nogil chunks)."""

    __slots__ = ("_stop",)

    def __init__(self, stop: Callable[[], bool]):
        self._stop = stop

    def is_set(self) -> bool:
        return bool(self._stop())


def run_search(job: SearchJob, stop: Callable[[], bool],
               put: Callable[[Any], None] | None) -> SearchResult:
    """Run ``job`` here and return its result.

    ``stop()`` turning true stops the search within one check of its loop (the search bots
    poll it as their ``stop`` flag; the pool also kills a worker process that does not stop
    within its grace). Partial analyses go to
    ``put(analysis)``, at most one per ``job.report_interval_s``.

    Raises:
        ValueError: a bad bot option or a position the bot rejects (the message says why).
    """
    from ratai.bots import BOT_KINDS, SearchBot, make_bot
    from ratai.service.catalog import _cached_game

    t0 = time.perf_counter()
    halt_ponders()              # this worker's ponder searches yield to every job
    try:
        if stop():
            return SearchResult(None, "cancelled")
        game = _cached_game(job.game, json.dumps(job.params, sort_keys=True,
                                                 separators=(",", ":")))
        state = game.deserialize_state(job.state, validate=False)  # the server wrote it
        bot = job.bot
        stopped = [False]
        last = [-math.inf]

        def on_progress(analysis: Any) -> bool:
            if stop():
                stopped[0] = True
                return False
            now = time.perf_counter()
            if job.progress and put is not None and now - last[0] >= job.report_interval_s:
                last[0] = now
                put(analysis)
            return True

        kw = dict(bot.options)
        # the clock of the search starts after the set-up above
        t_limit = time.perf_counter()
        if job.stop_at is not None:  # CLOCK_MONOTONIC is one clock for every process
            time_limit = max(0.001, job.stop_at - time.monotonic())
        else:
            time_limit = max(0.001, job.time_limit - (time.perf_counter() - t0))
        pondering = (job.ponder_key is not None and bot.kind in PONDER_KINDS
                     and job.ponder_seconds > 0
                     and (bot.kind != "mcts" or game.perfect_information)
                     and kw.get("threads", 1) == 1 and _compiled(state)
                     and kw.get("search_backend", "auto") != "python"
                     and kw.get("rollout", "random") == "random"
                     and kw.get("rollout_cutoff") is None)   # what the compiled loop runs
        if pondering:
            from ratai.search.common import Budget

            kw.update(progress_every=report_every(job), ponder=True,
                      ponder_seconds=job.ponder_seconds)
            b = _kept_bot(job, game, lambda: make_bot(
                bot.kind, game, job.seat, iterations=bot.iterations, time_limit=time_limit,
                max_depth=bot.max_depth, seed=bot.seed, **kw))
            b.budget = Budget(bot.iterations, time_limit, bot.max_depth).check(need=b.NEEDS)
            b.on_progress = on_progress
        elif issubclass(BOT_KINDS[bot.kind], SearchBot):
            kw.update(on_progress=on_progress, progress_every=report_every(job))
            b = make_bot(bot.kind, game, job.seat, iterations=bot.iterations,
                         time_limit=time_limit, max_depth=bot.max_depth, seed=bot.seed, **kw)
        else:
            b = make_bot(bot.kind, game, job.seat, iterations=bot.iterations,
                         time_limit=time_limit, max_depth=bot.max_depth, seed=bot.seed, **kw)
        if isinstance(b, SearchBot):  # a cancel reaches the search loop's own stop check
            analysis = b.analyze(state, stop=_StopFlag(stop))
        else:
            analysis = b.analyze(state)
        if analysis.elapsed_s > 0.05 and analysis.iterations > 0:
            key = (job.game, bot.kind)
            rate = analysis.iterations / analysis.elapsed_s
            _RATES[key] = rate if key not in _RATES else 0.5 * _RATES[key] + 0.5 * rate
        if stopped[0] or stop():
            return SearchResult(analysis, "cancelled")
        # "deadline": the server's cap or the client's deadline, not the bot's own budget,
        # ended the search (it ran to that clock with its own iterations not reached)
        cut = bot.time_limit is None or job.time_limit < bot.time_limit - 1e-9
        used = time.perf_counter() - t_limit
        if cut and not analysis.forced and used >= 0.9 * time_limit - 0.002 and (
                bot.iterations is None or analysis.iterations < bot.iterations):
            return SearchResult(analysis, "deadline")
        return SearchResult(analysis, "budget")
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{type(exc).__name__}: {exc}") from None
    except Exception as exc:
        if job.untrusted:
            raise ValueError(f"the engine could not search this position "
                             f"({type(exc).__name__}: {exc}); check the observation or "
                             f"serialized state") from None
        raise


# ----------------------------------------------------------------------------- process side
def _die_with_parent(ppid: int) -> None:
    """``SIGKILL`` this process when its parent dies (Linux); exit now if it already has."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except Exception:  # noqa: BLE001 - the socket watch below still applies
            pass
    if os.getppid() != ppid:
        os._exit(1)


def _warm() -> None:
    """Import the bots and build every registered game once with its default parameters
    (its engine modules, component data and compiled twin), before the worker says it is
    ready: a fresh worker (a spare replacing a killed one) then answers its first search
    about as fast as an old one (a Rat Trap 4-player job of 200 ismcts iterations: 0.07-0.08
    s cold, 0.02 s warmed; warming adds 0.15-0.25 s to the worker's start, before it is
    used). The packaged ``az`` networks are loaded too (``ratai.bots.az.load_model`` keeps
    them): a cold ``az`` bot took 0.07-0.18 s to build, so a 0.05 s ``az`` hint on a fresh
    worker overran its limit and got that worker killed, and so did the next on its
    replacement. The games are not kept: a job's game comes from its own parameters."""
    import ratai.bots  # noqa: F401
    from ratai.bots.az import load_model
    from ratai.engines import load_game, registered_games

    for name in registered_games():
        game = load_game(name)
        game.new_initial_state()
        try:
            load_model(None, game)
        except ValueError:   # no network shipped for this game
            pass


def worker_main(fd: int, ppid: int) -> None:
    """The worker process: serve jobs from the socket ``fd`` until it closes."""
    from multiprocessing.connection import Connection

    _die_with_parent(ppid)
    conn = Connection(fd)
    import queue

    _warm()

    jobs: queue.Queue = queue.Queue()
    cancelled: set[int] = set()
    send_lock = threading.Lock()

    def send(msg: tuple) -> None:
        with send_lock:
            conn.send(msg)

    def reader() -> None:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                os._exit(0)  # the server is gone: so is this worker
            if msg[0] == "job":
                jobs.put(msg)
            elif msg[0] == "cancel":
                cancelled.add(msg[1])

    threading.Thread(target=reader, name="ratai-worker-reader", daemon=True).start()
    send(("ready", os.getpid()))
    while True:
        _, job_id, job = jobs.get()
        try:
            res = run_search(job, lambda i=job_id: i in cancelled,
                             lambda a, i=job_id: send(("progress", i, a)))
            send(("done", job_id, res, time.monotonic()))
        except ValueError as exc:
            send(("error", job_id, "ValueError", str(exc)))
        except Exception as exc:  # noqa: BLE001 - reported to the server, which logs it
            send(("error", job_id, type(exc).__name__, str(exc)[:2000]))
        cancelled.discard(job_id)


if __name__ == "__main__":
    # run the module's own copy (not this ``__main__`` one) so results pickle by real name
    from ratai.service.worker import worker_main as _main

    _main(int(sys.argv[1]), int(sys.argv[2]))
