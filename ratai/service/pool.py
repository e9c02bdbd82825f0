"""Searches off the event loop: worker processes, a bounded fair queue, deadlines and cancel.

:class:`SearchPool` lives on the server's asyncio loop (every method but :meth:`busy` must be
called there). ``await pool.run(job, client)`` waits for a worker without holding a thread.

- **Workers**: ``workers`` processes (``python -m ratai.service.worker``), or, with
  ``workers=0``, as many threads as cores in the server process (the compiled searches
  release the GIL; a thread cannot be killed, so there cancel relies on the bot's own checks).
- **Queue**: at most ``max_queue`` searches wait for a worker; a client (a seat token or a
  peer address) may hold at most ``max_queue_per_client`` of those places, and a peer
  address (``group``: all its seat tokens together) at most ``max_queue_per_peer``. Past
  any, :class:`ResourceExhausted` with ``retry_after_ms`` (an estimate from the recent search
  durations). Free workers take the waiting searches round-robin by client, so one client
  cannot starve another. Hosted bot seats (``wait=True``) always queue (their number is
  bounded by ``max_games``).
- **Running**: a peer address runs at most ``max_running_per_peer`` long searches at once
  (default: all workers but one), so one peer's long searches (30 s each, its hosted bot
  seats included) always leave a worker to the others; its further long searches wait even
  with a worker free. A search is short, and not capped, when its time limit is at most
  ``LONG_SEARCH_S`` (1 s), its kind is ``random``, or its iteration budget takes at most
  half that at the slowest rate measured for its game, params, kind and options (the
  pool's own finished searches, :meth:`SearchPool._rate_of`): a worker it holds is soon free
  again. An iteration budget alone does not make a search short: its speed depends on the
  kind, its options and the game (a Ratapolis ``ismcts`` with heuristic rollouts runs ~6
  iterations a second; ``heuristic`` may make up to 1,000,000 evaluations), so until such
  a search has been measured its time bound decides.
- **Time**: a search starts with ``time_limit = min(bot.time_limit, max_seconds, client
  deadline - margin)`` (a search whose deadline passed while queued is answered
  ``DEADLINE_EXCEEDED`` without running). A worker still busy ``overrun_grace_s`` after that
  limit is killed and replaced, so no bot kind can keep a worker longer.
- **Cancel**: cancelling the awaiting task (the client cancelled or disconnected) tells the
  worker to stop; a worker that has not stopped ``cancel_grace_s`` (30 ms) later is killed and
  replaced by a spare process that is already running (then a new spare starts), so the
  slot is usable again at once. While the spare is still starting nothing is killed (the
  search, told to stop, is let finish; looked at again every ``cancel_grace_s``): a kill
  would only hand the slot to a process that is not ready.
- **Starting**: a worker process that has not reported ready ``start_timeout_s`` (60 s) after
  it was started is killed; one that dies or is killed while starting is replaced after a
  backoff (0.5 s, doubling to 30 s while starts keep failing; reset by the next start that
  succeeds), so a slot is never lost for good. While ``UNHEALTHY_START_FAILURES`` starts in a
  row have failed and no worker is ready, :meth:`SearchPool.healthy` is False (the server
  reports ``NOT_SERVING``) and hints are refused ``UNAVAILABLE`` at once instead of waiting;
  hosted bot seats keep their place in the queue until a worker starts.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import logging
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .errors import DeadlineExceeded, InvalidArgument, ResourceExhausted, Unavailable
from .worker import SearchJob, SearchResult, effective_time_limit, run_search

__all__ = ["SearchJob", "SearchResult", "SearchPool"]

log = logging.getLogger("ratai.service")

#: A search allowed longer than this (seconds), of a kind not in ``SHORT_KINDS``, is long:
#: it counts against ``max_running_per_peer``, unless its iteration budget was measured to
#: take at most half of it (:meth:`SearchPool._long`).
LONG_SEARCH_S = 1.0
#: Search kinds (with their options, game and params) whose rates the pool keeps.
MAX_RATES = 4096
SHORT_KINDS = ("random",)
#: seconds a new worker process may take to report ready before it is killed and replaced
START_TIMEOUT_S = 60.0
#: failed worker starts in a row (with no worker ready) that make the pool unhealthy
UNHEALTHY_START_FAILURES = 3
#: seconds before replacing a worker that failed to start: doubles per failure up to the cap
START_BACKOFF_S, START_BACKOFF_MAX_S = 0.5, 30.0


def _rate_key(job: SearchJob) -> tuple:
    """What a search's speed depends on: its game and params, kind and options."""
    return (job.game, json.dumps(job.params, sort_keys=True, default=str), job.bot.kind,
            json.dumps(job.bot.options, sort_keys=True, default=str))


@dataclass(eq=False)
class _Entry:
    job: SearchJob
    client: str
    deadline: float | None            # absolute time.monotonic(), or None
    max_seconds: float
    margin: float
    future: asyncio.Future
    on_progress: Callable[[Any], None] | None
    wait: bool
    group: str = ""                   # the peer address whose caps it counts against
    id: int = 0
    worker: Any = None
    started: float = 0.0
    cancelled_at: float | None = None
    arrival: float | None = None
    enqueued: float = 0.0
    intended_end: float = 0.0
    timers: list = field(default_factory=list)


class _ProcWorker:
    """One search process and the thread that reads its socket."""

    def __init__(self, pool: SearchPool, index: int):
        self.pool, self.index = pool, index
        parent, child = socket.socketpair()
        from multiprocessing.connection import Connection

        self.conn = Connection(os.dup(parent.fileno()))
        parent.close()
        cfd = child.fileno()
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "ratai.service.worker", str(cfd), str(os.getpid())],
                pass_fds=(cfd,), stdin=subprocess.DEVNULL, env=env)
        except BaseException:  # no process (interpreter gone, no memory or descriptors)
            self.conn.close()
            raise
        finally:
            child.close()
        self.pid = self.proc.pid
        self.ready = False
        self.entry: _Entry | None = None
        self.dead = False
        self._send_lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, name=f"ratai-worker-{index}",
                                        daemon=True)
        self._thread.start()

    def _read(self) -> None:
        loop = self.pool.loop
        while True:
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):
                break
            except Exception:  # noqa: BLE001 - an unpicklable answer: treat as a crash
                if self.dead:   # killed (its connection closed under this recv): not news
                    break
                log.exception("bad message from search worker %s", self.pid)
                break
            try:
                loop.call_soon_threadsafe(self.pool._message, self, msg)
            except RuntimeError:  # the loop is closed
                return
        try:
            loop.call_soon_threadsafe(self.pool._died, self)
        except RuntimeError:
            pass

    def send(self, msg: tuple) -> bool:
        try:
            with self._send_lock:
                self.conn.send(msg)
            return True
        except (OSError, ValueError):
            return False

    def start(self, entry: _Entry) -> None:
        self.entry = entry
        if not self.send(("job", entry.id, entry.job)):  # the process is gone
            self.pool.loop.call_soon(self.pool._died, self)

    def cancel(self, entry: _Entry) -> None:
        self.send(("cancel", entry.id))

    def kill(self) -> None:
        if self.dead:
            return
        self.dead = True
        try:
            self.proc.send_signal(signal.SIGKILL)
        except (ProcessLookupError, OSError):
            pass
        try:
            self.conn.close()
        except OSError:
            pass
        threading.Thread(target=self.proc.wait, daemon=True).start()  # reap it


class _NoWorker:
    """A slot whose process could not even be spawned (``Popen`` raised: the interpreter
    was removed, no memory, no file descriptors); replaced like a failed start."""

    ready, entry, pid = False, None, None

    def __init__(self, index: int):
        self.index, self.dead = index, True

    def kill(self) -> None:
        pass


class _ThreadWorker:
    """A search thread in the server process (``workers=0``)."""

    def __init__(self, pool: SearchPool, index: int):
        self.pool, self.index = pool, index
        self.ready, self.dead, self.entry, self.pid = True, False, None, os.getpid()
        self._stop: set[int] = set()

    def start(self, entry: _Entry) -> None:
        self.entry = entry
        loop, pool = self.pool.loop, self.pool
        eid = entry.id

        def put(a: Any) -> None:
            loop.call_soon_threadsafe(pool._message, self, ("progress", eid, a))

        def work() -> None:
            try:
                msg = ("done", eid, run_search(entry.job, lambda: eid in self._stop, put),
                       time.monotonic())
            except ValueError as exc:
                msg = ("error", eid, "ValueError", str(exc))
            except Exception as exc:  # noqa: BLE001
                log.exception("search failed")
                msg = ("error", eid, type(exc).__name__, str(exc)[:2000])
            self._stop.discard(eid)
            try:
                loop.call_soon_threadsafe(pool._message, self, msg)
            except RuntimeError:
                pass

        pool._threads.submit(work)

    def cancel(self, entry: _Entry) -> None:
        self._stop.add(entry.id)

    def kill(self) -> None:  # a thread cannot be killed; it stops at its next check
        if self.entry is not None:
            self._stop.add(self.entry.id)


class SearchPool:
    """Search workers with a bounded, fair queue (see the module docstring).

    Args:
        workers: worker processes (0: threads, as many as cores).
        max_queue: searches that may wait for a worker (per server).
        max_queue_per_client: of those, the most one client may hold (default
            ``max(1, max_queue // 4)``).
        max_queue_per_peer: of those, the most one peer address may hold over all its
            clients (seat tokens; default ``max(max_queue_per_client, max_queue // 2)``).
        max_running_per_peer: long searches (over ``LONG_SEARCH_S``) one peer address may
            run at once (default ``max(1, size - 1)``: every worker but one).
        cancel_grace_s: how long a cancelled search may take to stop before its worker is
            killed (seconds).
        overrun_grace_s: how long past its time limit a search may run before its worker is
            killed (seconds; plus 10% of the limit).
        start_timeout_s: how long a new worker process may take to report ready before it
            is killed and replaced (seconds).
    """

    def __init__(self, workers: int, max_queue: int, max_queue_per_client: int | None = None,
                 cancel_grace_s: float = 0.03, overrun_grace_s: float = 0.25, *,
                 max_queue_per_peer: int | None = None,
                 max_running_per_peer: int | None = None,
                 start_timeout_s: float = START_TIMEOUT_S):
        self.workers = max(0, int(workers))
        self.max_queue = max(0, int(max_queue))
        self.max_queue_per_client = (max(1, self.max_queue // 4) if max_queue_per_client is None
                                     else max(1, int(max_queue_per_client)))
        self.max_queue_per_peer = (
            max(self.max_queue_per_client, self.max_queue // 2) if max_queue_per_peer is None
            else max(1, int(max_queue_per_peer)))
        self.cancel_grace_s = float(cancel_grace_s)
        self.overrun_grace_s = float(overrun_grace_s)
        self.size = self.workers or (os.cpu_count() or 1)
        self.max_running_per_peer = (max(1, self.size - 1) if max_running_per_peer is None
                                     else max(1, int(max_running_per_peer)))
        self.capacity = self.size + self.max_queue
        self.loop: asyncio.AbstractEventLoop | None = None
        self._pool: list[Any] = []
        self._queues: collections.OrderedDict[str, collections.deque] = \
            collections.OrderedDict()
        self._waiting = 0          # entries queued that count against max_queue
        self._ids = itertools.count(1)
        self._running: dict[int, _Entry] = {}
        self._ewma = 0.2           # seconds per search, for retry-after estimates
        #: the slowest iterations/s seen per (game, params, kind, options): :meth:`_long`
        self._rates: dict[tuple, float] = {}
        #: seconds, per bot kind, by which a time-bound search is told to stop early so that
        #: its answer arrives on time: learnt from how late the last answers were (the
        #: search's own overshoot, freeing its tree, pickling, the way back)
        self._reserve: dict[str, float] = collections.defaultdict(lambda: 0.002)
        self._closed = False
        self._threads = ThreadPoolExecutor(self.size, thread_name_prefix="ratai-search") \
            if not self.workers else None
        self.kills = 0             # workers killed (cancel or overrun), for tests and logs
        #: seconds from the last cancel to its worker being free again (tests, logs)
        self.last_cancel_free_s: float | None = None
        self._spare: Any = None    # a started process that replaces a killed worker at once
        self.start_timeout_s = float(start_timeout_s)
        self._start_failures = 0   # worker starts failed in a row (reset by a good start)

    # ------------------------------------------------------------------ lifecycle
    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the workers (call on the loop's thread, which must outlive them)."""
        self.loop = loop
        for i in range(self.size):
            self._pool.append(self._new_worker(i))
        if self.workers:
            self._spare = self._new_worker(-1)

    def _new_worker(self, index: int) -> Any:
        if not self.workers:
            return _ThreadWorker(self, index)
        try:
            w = _ProcWorker(self, index)
        except (OSError, subprocess.SubprocessError) as exc:
            log.error(json.dumps({"event": "search_worker_spawn_failed",
                                  "error": f"{type(exc).__name__}: {exc}"[:300]}))
            w = _NoWorker(index)
            self.loop.call_soon(self._start_failed, w)
            return w
        self.loop.call_later(self.start_timeout_s, self._start_timeout, w)
        return w

    def _start_timeout(self, w: Any) -> None:
        if w.ready or w.dead or self._closed:
            return
        log.error(json.dumps({"event": "search_worker_start_timeout", "pid": w.pid,
                              "seconds": self.start_timeout_s}))
        w.kill()
        self._start_failed(w)

    def _start_failed(self, w: Any) -> None:
        """``w`` died, hung or could not be spawned before it was ready: a ready spare takes
        its slot at once; a new process starts after a backoff."""
        if self._closed:
            return
        self._start_failures += 1
        delay = min(START_BACKOFF_MAX_S, START_BACKOFF_S * 2 ** (self._start_failures - 1))
        log.error(json.dumps({"event": "search_worker_start_failed", "pid": w.pid,
                              "failures_in_a_row": self._start_failures,
                              "retry_in_s": delay}))
        spare = self._spare
        if w in self._pool and spare is not None and spare.ready and not spare.dead:
            self._swap_in_spare(self._pool.index(w))  # w, dead, is replaced as the spare
            self._pump()
        if not self.healthy():
            for q in self._queues.values():   # hints: refuse now rather than wait
                for e in [x for x in q if not x.wait]:
                    self._finish(e, exc=self._no_worker())
        self.loop.call_later(delay, self._replace, w)

    def healthy(self) -> bool:
        """False while the last ``UNHEALTHY_START_FAILURES`` worker starts (or more) failed
        and no worker is ready, or after :meth:`shutdown` (the server's health check)."""
        if self._closed:
            return False
        return (self._start_failures < UNHEALTHY_START_FAILURES
                or any(w.ready and not w.dead for w in self._pool))

    def _no_worker(self) -> Unavailable:
        return Unavailable(f"no search worker could start ({self._start_failures} failed "
                           f"starts in a row); the server keeps trying, retry later")

    async def warm(self, timeout: float = 120.0) -> None:
        """Wait until every worker process has started and imported the engines."""
        end = time.monotonic() + timeout
        while not all(w.ready for w in self._pool) or (
                self._spare is not None and not self._spare.ready):
            if time.monotonic() > end:
                raise RuntimeError("search workers did not start")
            await asyncio.sleep(0.01)

    def pids(self) -> list[int]:
        """Process ids of the live workers and the spare (empty with ``workers=0``)."""
        spare = [self._spare] if self._spare is not None else []
        return [w.pid for w in self._pool + spare if self.workers and not w.dead]

    def busy(self) -> int:
        """Searches running or queued (thread-safe snapshot)."""
        return len(self._running) + sum(len(q) for q in list(self._queues.values()))

    async def shutdown(self) -> None:
        """Refuse new searches, fail the queued and running ones, stop the workers."""
        self._closed = True
        for q in self._queues.values():
            for e in q:
                self._finish(e, exc=Unavailable("the server is shutting down"))
        self._queues.clear()
        self._waiting = 0
        for e in list(self._running.values()):
            self._finish(e, exc=Unavailable("the server is shutting down"))
        for w in self._pool:
            w.kill()
        if self._spare is not None:
            self._spare.kill()
        if self._threads is not None:
            self._threads.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ requests
    def retry_after_ms(self) -> int:
        """An estimate of when a place may be free (milliseconds, 50..60000)."""
        queued = sum(len(q) for q in self._queues.values())
        est = self._ewma * (queued / max(1, self.size) + 1.0)
        return int(min(60_000, max(50, math.ceil(est * 1000))))

    async def run(self, job: SearchJob, client: str, *, deadline: float | None = None,
                  max_seconds: float = 30.0, margin: float = 0.0,
                  on_progress: Callable[[Any], None] | None = None,
                  wait: bool = False, arrival: float | None = None,
                  group: str | None = None) -> SearchResult:
        """Run ``job`` for ``client``; ``on_progress(analysis)`` gets its partials (on the loop).

        ``group``: the peer address ``client`` belongs to (default: ``client`` itself), whose
        caps (``max_queue_per_peer``, ``max_running_per_peer``) the search counts against.

        ``deadline`` is an absolute ``time.monotonic()`` by which the answer is due (the
        search gets ``margin`` seconds less); ``max_seconds`` the server's cap; ``arrival``
        the ``time.monotonic()`` at which the request arrived (its handling before the search
        counts against the budget; the time spent queued does not).

        Raises:
            ResourceExhausted: the queue (or the client's share of it) is full; the error's
                ``retry_after_ms`` says when to retry.
            DeadlineExceeded: the deadline passed before a worker was free.
            InvalidArgument: the search rejected its input. Unavailable: shutting down, or
                the worker died (retry).
        """
        if self._closed:
            raise Unavailable("the server is shutting down")
        if not wait and not self.healthy():
            raise self._no_worker()
        fut = self.loop.create_future()
        group = group or client
        e = _Entry(job, client, deadline, max_seconds, margin, fut, on_progress, wait,
                   group, next(self._ids), arrival=arrival, enqueued=time.monotonic())
        idle = any(w.ready and w.entry is None and not w.dead for w in self._pool)
        starts_now = idle and not self._queues and not self._held_back(e, self._long_running())
        if not wait and not starts_now:
            mine = self._queues.get(client)
            if mine is not None and sum(not x.wait for x in mine) >= self.max_queue_per_client:
                raise ResourceExhausted(
                    f"this client already has {self.max_queue_per_client} searches queued "
                    f"(its share of the queue); retry later",
                    retry_after_ms=self.retry_after_ms())
            theirs = sum(not x.wait and x.group == group
                         for q in self._queues.values() for x in q)
            if theirs >= self.max_queue_per_peer:
                raise ResourceExhausted(
                    f"this address already has {self.max_queue_per_peer} searches queued "
                    f"(its share of the queue, over all its seat tokens); retry later",
                    retry_after_ms=self.retry_after_ms())
            if self._waiting >= self.max_queue:
                raise ResourceExhausted(
                    f"search queue full ({self.max_queue} searches queued, {self.size} "
                    f"running); retry later", retry_after_ms=self.retry_after_ms())
        self._queues.setdefault(client, collections.deque()).append(e)
        if not wait:
            self._waiting += 1
        self._pump()
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            self._cancel(e)
            raise

    # ------------------------------------------------------------------ scheduling
    def _pump(self) -> None:
        for w in self._pool:
            if not self._queues:
                return
            if not (w.ready and w.entry is None and not w.dead):
                continue
            e = self._next()
            while e is not None and not self._dispatch(w, e):
                e = self._next()

    def _long(self, e: _Entry) -> bool:
        """Is ``e`` a long search (see the module docstring; its time limit once started)?"""
        bot = e.job.bot
        if bot.kind in SHORT_KINDS:
            return False
        tl = e.job.time_limit if e.id in self._running else effective_time_limit(
            bot, e.max_seconds, e.deadline, e.margin)[0]
        if tl <= LONG_SEARCH_S:
            return False
        rate = self._rates.get(_rate_key(e.job)) if bot.iterations is not None else None
        return not (rate and bot.iterations / rate <= LONG_SEARCH_S / 2)

    def _rate_of(self, job: SearchJob, res: SearchResult) -> None:
        """Keep the slowest iterations/s of ``job``'s kind, options, game and params (a
        finished search that ran at least 20 ms; the table keeps ``MAX_RATES`` keys)."""
        an = res.analysis
        if an is None or res.stop_reason == "cancelled" or getattr(an, "forced", False) \
                or an.iterations <= 0 or an.elapsed_s < 0.02:
            return
        key = _rate_key(job)
        rate = an.iterations / an.elapsed_s
        self._rates[key] = min(rate, self._rates.pop(key, math.inf))   # newest last
        if len(self._rates) > MAX_RATES:
            del self._rates[next(iter(self._rates))]

    def _long_running(self) -> collections.Counter:
        """Long searches running, per peer address."""
        return collections.Counter(r.group for r in self._running.values() if self._long(r))

    def _held_back(self, e: _Entry, running_long: collections.Counter) -> bool:
        """``e`` is long and its peer already runs ``max_running_per_peer`` long searches."""
        return running_long[e.group] >= self.max_running_per_peer and self._long(e)

    def _next(self) -> _Entry | None:
        """The next search to start: the clients in round-robin order, passing over one whose
        next search is held back (:meth:`_held_back`; it keeps its place)."""
        running = self._long_running()
        for client in list(self._queues):
            q = self._queues[client]
            while q and q[0].future.done():   # answered or cancelled while it waited
                if not q.popleft().wait:
                    self._waiting -= 1
            if not q:
                del self._queues[client]
                continue
            if self._held_back(q[0], running):
                continue
            e = q.popleft()
            if q:
                self._queues.move_to_end(client)  # round-robin between clients
            else:
                del self._queues[client]
            if not e.wait:
                self._waiting -= 1
            return e
        return None

    def _dispatch(self, w: Any, e: _Entry) -> bool:
        now = time.monotonic()
        tl, cut = effective_time_limit(e.job.bot, e.max_seconds, e.deadline, e.margin, now)
        if cut and tl <= 0.001:  # (a bot's own tiny time_limit runs: ~0 iterations, a move)
            self._finish(e, exc=DeadlineExceeded(
                "the deadline passed while the search waited for a worker"))
            return False
        from dataclasses import replace

        # the parse before (arrival..enqueue) and the delivery after count against the budget
        before = max(0.0, e.enqueued - e.arrival) if e.arrival is not None else 0.0
        e.intended_end = now + tl - before
        stop_at = e.intended_end - self._reserve[e.job.bot.kind]
        e.job = replace(e.job, time_limit=tl, stop_at=stop_at)
        if not self.workers and e.job.ponder_key is not None:
            # threads share one process: a ponder thread would run beside other searches
            e.job = replace(e.job, ponder_key=None)
        e.worker, e.started = w, now
        self._running[e.id] = e
        w.start(e)
        grace = self.overrun_grace_s + 0.1 * tl
        e.timers.append(self.loop.call_later(tl + grace, self._overrun, e))
        return True

    def _cancel(self, e: _Entry) -> None:
        """The awaiting task was cancelled: unqueue, or stop the worker (kill if it lingers)."""
        if not e.future.done():
            e.future.cancel()
        if e.id not in self._running:
            q = self._queues.get(e.client)
            if q is not None and e in q:
                q.remove(e)
                if not e.wait:
                    self._waiting -= 1
                if not q:
                    del self._queues[e.client]
            return
        w = e.worker
        w.cancel(e)
        e.cancelled_at = time.monotonic()
        e.timers.append(self.loop.call_later(self.cancel_grace_s, self._linger, e))

    def _linger(self, e: _Entry) -> None:
        """A cancelled search still runs ``cancel_grace_s`` after the cancel: kill its worker
        when a ready spare can take the slot at once. Without one (a spare still starting,
        after an earlier kill) the kill would hand the slot to a process that needs seconds
        to start, while the search, told to stop, returns within milliseconds: a tester's
        cancels in a row killed three workers in 2 s and another client's 0.1 s hint waited
        3 s. Then look again every ``cancel_grace_s`` (the overrun timer still bounds it)."""
        if self._running.get(e.id) is not e:
            return
        spare = self._spare
        if self.workers and (spare is None or spare.dead or not spare.ready):
            # the handle that fired (the last one: _cancel appended it) gives way to the next
            e.timers[-1] = self.loop.call_later(self.cancel_grace_s, self._linger, e)
            return
        self._kill(e, "cancel")

    def _overrun(self, e: _Entry) -> None:
        if self._running.get(e.id) is e:
            self._kill(e, "overrun")
            self._finish(e, exc=DeadlineExceeded(
                f"the {e.job.bot.kind} search overran its {e.job.time_limit:.3f} s limit and "
                f"was stopped"))

    def _kill(self, e: _Entry, why: str) -> None:
        w = e.worker
        self.kills += 1
        log.warning(json.dumps({"event": "search_worker_killed", "reason": why,
                                "pid": w.pid, "kind": e.job.bot.kind}))
        self._running.pop(e.id, None)
        if e.cancelled_at is not None:
            self.last_cancel_free_s = time.monotonic() - e.cancelled_at
        if self.workers:
            w.entry = None
            w.kill()
            self._replace(w)
        else:
            w.kill()  # sets the search's stop flag; the slot stays busy until it returns
        self._pump()

    def _replace(self, w: Any) -> None:
        if self._closed or (w not in self._pool and w is not self._spare):
            return
        i = self._pool.index(w) if w in self._pool else None
        if i is None:
            if w is self._spare:
                self._spare = self._new_worker(-1)
            return
        spare = self._spare
        if spare is not None and not spare.dead:
            self._swap_in_spare(i)
            self._spare = self._new_worker(-1)
        else:
            self._pool[i] = self._new_worker(w.index)

    def _swap_in_spare(self, i: int) -> None:
        """The spare takes slot ``i``; the slot's worker becomes the spare (index -1)."""
        w, spare = self._pool[i], self._spare
        spare.index, w.index = w.index, -1
        self._pool[i], self._spare = spare, w

    def _finish(self, e: _Entry, result: Any = None, exc: BaseException | None = None) -> None:
        for t in e.timers:
            t.cancel()
        e.timers.clear()
        if e.future.done():
            return
        if exc is not None:
            e.future.set_exception(exc)
        else:
            e.future.set_result(result)

    # ------------------------------------------------------------------ worker messages
    def _message(self, w: Any, msg: tuple) -> None:
        kind = msg[0]
        if kind == "ready":
            if w.dead:
                return
            w.ready = True
            self._start_failures = 0
            if w is self._spare:  # a slot still starting (or dead) takes the ready spare
                slot = next((i for i, x in enumerate(self._pool)
                             if (x.dead or not x.ready) and x.entry is None), None)
                if slot is not None:
                    self._swap_in_spare(slot)
                    if self._spare.dead:
                        self._replace(self._spare)
            self._pump()
            return
        e = self._running.get(msg[1])
        if kind == "progress":
            if e is not None and e.on_progress is not None and not e.future.done():
                try:
                    e.on_progress(msg[2])
                except Exception:  # noqa: BLE001 - a consumer's error must not stop the pool
                    log.exception("progress consumer failed")
            return
        if e is None or e.worker is not w:
            if (not self.workers and w.entry is not None and w.entry.id == msg[1]
                    and self._running.get(msg[1]) is None):
                w.entry = None  # a thread told to stop (cancel, overrun) has returned
                self._pump()
            return  # a search we already killed or gave up on
        del self._running[e.id]
        w.entry = None
        if e.cancelled_at is not None:
            self.last_cancel_free_s = time.monotonic() - e.cancelled_at
        dt = time.monotonic() - e.started
        self._ewma = 0.8 * self._ewma + 0.2 * dt
        if kind == "done":
            res = msg[2]
            self._rate_of(e.job, res)
            if e.job.bot.iterations is None and res.stop_reason != "cancelled":
                # a time-bound search: aim its answer 1 ms (the reply) before the budget ends
                late = time.monotonic() - (e.intended_end - 0.001)
                k = e.job.bot.kind
                self._reserve[k] = min(0.03, max(0.0, self._reserve[k] + 0.3 * late))
            self._finish(e, res)
        elif msg[2] == "ValueError":
            self._finish(e, exc=InvalidArgument(msg[3]))
        else:
            log.error(json.dumps({"event": "search_failed", "error": f"{msg[2]}: {msg[3]}"}))
            self._finish(e, exc=RuntimeError(f"{msg[2]}: {msg[3]}"))
        self._pump()

    def _died(self, w: Any) -> None:
        if w.dead and w.entry is None and w not in self._pool and w is not self._spare:
            return  # already handled
        e = w.entry
        was_killed = w.dead
        w.dead = True
        w.entry = None
        if e is not None and self._running.get(e.id) is e:
            del self._running[e.id]
            self._finish(e, exc=Unavailable("a search worker died; retry"))
        if not was_killed and not self._closed:
            if w.ready:
                log.warning(json.dumps({"event": "search_worker_died", "pid": w.pid}))
                self._replace(w)
            else:
                self._start_failed(w)
        self._pump()
