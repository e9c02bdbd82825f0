"""Searches off the gRPC threads: a process pool with a bounded queue and cancellation.

Each search is a :class:`SearchJob` (plain data: game name, params, serialized state, seat,
bot config, an absolute deadline). It runs in a worker process (``spawn``), so a slow search
never holds the GIL of the server. The pool has ``workers + max_queue`` slots; a request
that finds none free gets :class:`ResourceExhausted` (bot seats of hosted games wait instead).

Cancellation and progress cross the process boundary through two objects created with the
pool and inherited by the workers: a shared byte array of cancel flags (one per slot) that the
search polls from its ``on_progress`` callback, and a queue of partial analyses that a
dispatcher thread routes to the waiting request.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import multiprocessing as mp
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from .catalog import BotConfig
from .errors import InvalidArgument, ResourceExhausted, Unavailable

__all__ = ["SearchJob", "SearchResult", "SearchPool", "SearchHandle", "run_search"]

log = logging.getLogger("ratai.service")


@dataclass(frozen=True)
class SearchJob:
    """One search: what to search and how.

    Attributes:
        game, params: the game (``load_game(game, **params)``).
        state: ``State.serialize()`` bytes of the position (already validated).
        seat: the seat to advise (it is that seat's turn).
        bot: kind, budget and options.
        deadline: absolute ``time.time()`` by which the search must have returned (None: only
            the bot's budget and ``max_seconds``).
        max_seconds: the server's cap on the search's wall-clock time.
        report_every: iterations between progress callbacks (search kinds only).
        report_interval_s: least seconds between two progress messages (0: every callback).
        progress: whether partial analyses are wanted at all.
        untrusted: the position came from a client's serialized state or observation; an
            engine error while searching it is the input's fault (``ValueError`` ->
            ``INVALID_ARGUMENT``), not a server bug.
    """

    game: str
    params: dict
    state: bytes
    seat: int
    bot: BotConfig
    deadline: float | None = None
    max_seconds: float = 30.0
    report_every: int = 100
    report_interval_s: float = 0.0
    progress: bool = False
    untrusted: bool = False


@dataclass(frozen=True)
class SearchResult:
    """The final analysis and why the search stopped (``budget``, ``deadline``, ``cancelled``)."""

    analysis: Any
    stop_reason: str


# ----------------------------------------------------------------------------- worker side
_worker_flags: Any = None
_worker_queue: Any = None


def _init_worker(flags: Any, progress_queue: Any) -> None:
    global _worker_flags, _worker_queue
    _worker_flags, _worker_queue = flags, progress_queue


def _ping() -> bool:
    import ratai.bots  # noqa: F401  (warm the imports)

    return True


def _worker_entry(job: SearchJob, slot: int, job_id: int) -> SearchResult:
    return run_search(job, slot, job_id, _worker_flags, _worker_queue.put)


#: Sent as ``(job_id, END_OF_PROGRESS)`` after a job's last partial analysis.
END_OF_PROGRESS = None


def run_search(job: SearchJob, slot: int, job_id: int, flags: Any,
               put: Callable[[tuple], None] | None) -> SearchResult:
    """Run ``job`` here (a worker process or thread) and return its result.

    ``flags[slot]`` set to 1 stops the search at its next progress check; partial analyses
    are sent as ``put((job_id, analysis))``, and for a job that wants progress the stream
    always ends with ``put((job_id, END_OF_PROGRESS))`` on the same queue, so the receiver
    knows it has every partial before it sends the final analysis.

    Raises:
        ValueError: a bad bot option or a position the bot rejects (the message says why).
    """
    try:
        return _run_search(job, slot, job_id, flags, put)
    finally:
        if job.progress and put is not None:
            put((job_id, END_OF_PROGRESS))


def _run_search(job: SearchJob, slot: int, job_id: int, flags: Any,
                put: Callable[[tuple], None] | None) -> SearchResult:
    from ratai.bots import BOT_KINDS, SearchBot, make_bot
    from ratai.service.catalog import _cached_game

    try:
        if flags[slot]:
            raise _Cancelled
        game = _cached_game(job.game, json.dumps(job.params, sort_keys=True,
                                                 separators=(",", ":")))
        state = game.deserialize_state(job.state)
        bot = job.bot
        cap = job.max_seconds
        by_deadline = False
        if job.deadline is not None:
            left = job.deadline - time.time()
            if left < cap:
                cap, by_deadline = max(left, 0.001), True
        time_limit = min(bot.time_limit, cap) if bot.time_limit is not None else cap
        by_deadline = by_deadline and (bot.time_limit is None or cap < bot.time_limit)
        stopped = {"cancelled": False}
        last = [-math.inf]

        def on_progress(analysis: Any) -> bool:
            if flags[slot]:
                stopped["cancelled"] = True
                return False
            now = time.perf_counter()
            if job.progress and put is not None and now - last[0] >= job.report_interval_s:
                last[0] = now
                put((job_id, analysis))
            return True

        kw = dict(bot.options)
        if issubclass(BOT_KINDS[bot.kind], SearchBot):
            kw.update(on_progress=on_progress, progress_every=max(1, int(job.report_every)))
        b = make_bot(bot.kind, game, job.seat, iterations=bot.iterations,
                     time_limit=time_limit, max_depth=bot.max_depth, seed=bot.seed, **kw)
        t0 = time.perf_counter()
        analysis = b.analyze(state)
        if stopped["cancelled"]:
            reason = "cancelled"
        elif by_deadline and time.perf_counter() - t0 >= time_limit * 0.95 and (
                bot.iterations is None or analysis.iterations < bot.iterations):
            reason = "deadline"
        else:
            reason = "budget"
        return SearchResult(analysis, reason)
    except _Cancelled:
        return SearchResult(None, "cancelled")
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{type(exc).__name__}: {exc}") from None
    except Exception as exc:
        if job.untrusted:
            raise ValueError(f"the engine could not search this position "
                             f"({type(exc).__name__}: {exc}); check the observation or "
                             f"serialized state") from None
        raise


class _Cancelled(Exception):
    pass


# ----------------------------------------------------------------------------- server side
class SearchHandle:
    """A submitted search: wait for it, or cancel it (idempotent, thread-safe)."""

    def __init__(self, pool: SearchPool, slot: int, job_id: int, future: Future):
        self._pool, self.slot, self.job_id, self.future = pool, slot, job_id, future

    def cancel(self) -> None:
        """Ask the search to stop; it returns its best move so far (or nothing if not started)."""
        if not self.future.done():
            self._pool._flags[self.slot] = 1

    def result(self, timeout: float | None = None) -> SearchResult:
        """The result (raises ``InvalidArgument`` / ``Unavailable`` for failed searches)."""
        try:
            return self.future.result(timeout)
        except ValueError as exc:
            raise InvalidArgument(str(exc)) from None
        except BrokenProcessPool:
            self._pool._repair()
            raise Unavailable("a search worker died; retry") from None
        except CancelledError:
            raise Unavailable("the server is shutting down") from None


class SearchPool:
    """``workers`` search processes (0: threads in this process) and ``max_queue`` waiting slots.

    Raises (from :meth:`submit`): ``ResourceExhausted`` when all slots are taken.
    """

    def __init__(self, workers: int, max_queue: int):
        self.workers = max(0, int(workers))
        self.capacity = max(1, self.workers) + max(0, int(max_queue))
        self._free = list(range(self.capacity))
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._routes: dict[int, Callable[[Any], None]] = {}
        self._closed = False
        if self.workers:
            self._ctx = mp.get_context("spawn")
            self._flags = self._ctx.RawArray("b", self.capacity)
            self._queue = self._ctx.Queue()
        else:
            self._flags = bytearray(self.capacity)
            self._queue = queue.Queue()
        self._executor = self._new_executor()
        self._dispatcher = threading.Thread(target=self._dispatch, name="ratai-progress",
                                            daemon=True)
        self._dispatcher.start()

    def _new_executor(self):
        if self.workers:
            return ProcessPoolExecutor(self.workers, mp_context=self._ctx,
                                       initializer=_init_worker,
                                       initargs=(self._flags, self._queue))
        return ThreadPoolExecutor(2, thread_name_prefix="ratai-search")

    def _repair(self) -> None:
        with self._cond:
            if self.workers and getattr(self._executor, "_broken", False):
                log.warning(json.dumps({"event": "search_pool_repair"}))
                self._executor = self._new_executor()

    def warm(self) -> None:
        """Start the worker processes now (so the first request does not pay for it)."""
        if self.workers:
            futures = [self._executor.submit(_ping) for _ in range(self.workers)]
            for f in futures:
                f.result()

    def busy(self) -> int:
        """Slots taken (running plus queued searches)."""
        with self._cond:
            return self.capacity - len(self._free)

    def submit(self, job: SearchJob, on_progress: Callable[[Any], None] | None = None,
               *, block: bool = False) -> SearchHandle:
        """Queue ``job``; ``on_progress(analysis)`` receives its partial analyses.

        With ``block`` (bot seats) wait for a free slot instead of failing.

        Raises:
            ResourceExhausted: no free slot and not ``block``.
            Unavailable: the pool is shut down.
        """
        with self._cond:
            while not self._free and block and not self._closed:
                self._cond.wait(1.0)
            if self._closed:
                raise Unavailable("the server is shutting down")
            if not self._free:
                raise ResourceExhausted(
                    f"search queue full ({self.capacity} searches running or queued); retry later")
            slot = self._free.pop()
            job_id = next(self._ids)
            self._flags[slot] = 0
            if on_progress is not None:
                self._routes[job_id] = on_progress
        try:
            if self.workers:
                try:
                    future = self._executor.submit(_worker_entry, job, slot, job_id)
                except BrokenProcessPool:
                    self._repair()
                    future = self._executor.submit(_worker_entry, job, slot, job_id)
            else:
                future = self._executor.submit(run_search, job, slot, job_id, self._flags,
                                               self._queue.put)
        except BaseException:
            self._release(slot, job_id)
            raise
        future.add_done_callback(lambda f: self._release(slot, job_id, f, job.progress))
        return SearchHandle(self, slot, job_id, future)

    def _release(self, slot: int, job_id: int, future: Future, progress: bool) -> None:
        with self._cond:
            # a progress route lives until its END_OF_PROGRESS marker (partials may still be
            # in the queue); a job that died before sending it ends its route here
            ended = not progress or future.cancelled() or future.exception() is not None
            route = self._routes.pop(job_id, None) if ended else None
            self._free.append(slot)
            self._cond.notify()
        if route is not None and progress:
            route(END_OF_PROGRESS)

    def _dispatch(self) -> None:
        while True:
            try:
                item = self._queue.get()
            except (EOFError, OSError):
                return
            if item is None:
                return
            job_id, analysis = item
            with self._cond:
                route = (self._routes.pop(job_id, None) if analysis is END_OF_PROGRESS
                         else self._routes.get(job_id))
            if route is not None:
                try:
                    route(analysis)
                except Exception:  # a consumer's error must not kill the dispatcher
                    log.exception("progress route failed")

    def shutdown(self) -> None:
        """Stop accepting, cancel running searches, stop the workers."""
        with self._cond:
            self._closed = True
            for s in range(self.capacity):
                self._flags[s] = 1
            self._cond.notify_all()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._queue.put(None)
        self._dispatcher.join(timeout=5)
        if self.workers:
            self._queue.close()
