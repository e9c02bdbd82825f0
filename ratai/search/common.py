"""Shared pieces of the search algorithms: the :class:`Analysis` report, budgets, seeding,
fast state stepping and rollout policies.

Every search reads a state through the engine contract (``ratai.engines.api``) only. The
hot loops use the contract's unchecked fast path (``State._apply_action``, see
:func:`apply_unchecked`) on actions taken from the state's own legal list or chance outcomes,
so no legal-action list is generated twice per step.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import gc
import hashlib
import math
import queue
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ratai.engines.api import CHANCE, INVALID, SIMULTANEOUS, TERMINAL, Game, State

__all__ = [
    "Analysis",
    "MoveStat",
    "PVStep",
    "Budget",
    "StopFlag",
    "check_stop",
    "free_later",
    "check_int",
    "check_number",
    "SearchRng",
    "ProgressFn",
    "apply_for_labels",
    "apply_unchecked",
    "apply_joint",
    "joint_legal",
    "sample_outcome",
    "argmax_ties",
    "heuristic_vector",
    "has_heuristic",
    "Rollout",
    "numbers",
    "sort_moves",
    "check_root_moves",
    "start_reaper",
    "paused_gc",
    "root_labels",
    "DEFAULT_MAX_MEMORY_MB",
    "node_cap",
]


@dataclass(frozen=True)
class PVStep:
    """One step of a principal variation: who acts (a seat or ``CHANCE``), the action, its label."""

    player: int
    action: int
    label: str


@dataclass(frozen=True)
class MoveStat:
    """One candidate move at the root of a search.

    Attributes:
        action: the action id.
        label: ``state.action_to_string(player, action)``.
        visits: how often the search tried it (iterations through it; for expectimax the
            nodes searched below it; for the heuristic bot the evaluations).
        value: its estimated result for the searching seat, in [0, 1] (mean return, or
            the heuristic estimate for ``heuristic`` / at an expectimax horizon).
        prior: the prior probability the search gave it before searching (uniform for UCT).
        values: the estimate for every seat (shape ``[num_players]``); ``value`` is
            ``values[player]``.
        pv: this move's own principal variation (multi-PV), starting with the move itself
            and following the search tree below it (most visits, then value for the mover);
            ``()`` where a search keeps no tree (the heuristic bot).
    """

    action: int
    label: str
    visits: int
    value: float
    prior: float
    values: tuple[float, ...] = ()
    pv: tuple[PVStep, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """What a bot decided and the evidence, as the issue specifies.

    Attributes:
        best_action: the action the bot plays.
        moves: the root moves, sorted best first (most visits, then value, then prior, then
            a seeded random order: never the action id, see :func:`sort_moves`); each carries
            its own ``pv`` (multi-PV).
        pv: the principal variation from the root (the best move first); chance outcomes
            appear with ``player == CHANCE``. May stop early where the search tree does.
        iterations: iterations run (UCT-family: simulations; expectimax: completed
            iterative-deepening depths; heuristic: evaluations).
        nodes: search-tree nodes created (expectimax: nodes visited).
        max_depth: the deepest ply the search reached below the root.
        elapsed_s: wall-clock seconds spent (the only field that is not reproducible).
        seed: the bot's seed (``None`` when it was unseeded).
        player: the seat the analysis is for.
        kind: the bot kind that produced it.
        forced: the seat had a single legal move and the bot returned it without searching
            (``skip_forced``; ``iterations == 0``).
    """

    best_action: int
    moves: tuple[MoveStat, ...]
    pv: tuple[PVStep, ...]
    iterations: int
    nodes: int
    max_depth: int
    elapsed_s: float
    seed: Any = None
    player: int = 0
    kind: str = ""
    forced: bool = False


def numbers(analysis: Analysis) -> tuple:
    """Every field of ``analysis`` except ``elapsed_s``: what seeded runs must reproduce."""
    return (analysis.best_action, analysis.moves, analysis.pv, analysis.iterations,
            analysis.nodes, analysis.max_depth, analysis.seed, analysis.player, analysis.kind,
            analysis.forced)


#: ``on_progress(analysis) -> bool | None``; returning ``False`` stops the search.
ProgressFn = Callable[[Analysis], Any]


class StopFlag:
    """What a search polls to be cancelled: anything with ``is_set() -> bool``
    (``threading.Event``, ``multiprocessing.Event``, or a wrapper of a shared flag).

    This class documents the protocol; :func:`check_stop` validates an object against it.
    """

    def is_set(self) -> bool:  # pragma: no cover - protocol only
        raise NotImplementedError


def check_stop(stop: Any) -> Any:
    """``stop`` itself if it is ``None`` or has a callable ``is_set``; else ``ValueError``."""
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise ValueError(f"bad stop {stop!r}: allowed None or an object with is_set() "
                         f"(e.g. threading.Event)")
    return stop


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is a ``bool``; ``ValueError`` naming ``name`` otherwise (``"no"``, 0 and
    1 are refused: ``bool("no")`` is True)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"bad {name} {_short(value)}: allowed True or False")
    return bool(value)


def check_callable(name: str, value: Any) -> Any:
    """``value`` if it is ``None`` or callable; ``ValueError`` naming ``name`` otherwise."""
    if value is not None and not callable(value):
        raise ValueError(f"bad {name} {_short(value)}: allowed None or a callable")
    return value


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """``value`` as an ``int`` in ``[lo, hi]``; ``ValueError`` naming ``name`` otherwise
    (bools, floats such as ``1e300``, NaN and out-of-range ints are refused)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lo \
            or (hi is not None and value > hi):
        rng = f"{lo}..{hi:,}" if hi is not None else f">= {lo}"
        raise ValueError(f"bad {name} {_short(value)}: allowed an int {rng}")
    return int(value)


def check_number(name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False
                 ) -> float:
    """``value`` as a finite ``float`` in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``);
    ``ValueError`` naming ``name`` otherwise (NaN and infinities are refused)."""
    ok = not isinstance(value, bool) and isinstance(value, int | float | np.integer
                                                    | np.floating)
    if ok:
        v = float(value)
        ok = math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi
    if not ok:
        left = "(" if lo_open else "["
        raise ValueError(f"bad {name} {_short(value)}: allowed a finite number in "
                         f"{left}{lo:g}, {hi:g}]")
    return float(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: The largest UCB1 ``exploration`` constant the searches accept (returns are in [0, 1]; the
#: service's ``BOT_OPTION_RANGES`` cap it there too).
MAX_EXPLORATION = 100.0

#: The largest ``time_limit`` a budget accepts (seconds; one day).
MAX_TIME_LIMIT = 86400.0
#: The largest ``iterations`` a budget accepts (a trillion: days of search at any speed;
#: the compiled loops count in 64-bit integers).
MAX_ITERATIONS = 10**12
#: The most search threads one bot runs (``threads``): root-parallel trees are built before
#: the clock's first check, so thousands of them overran a 0.2 s limit by ~1 s.
MAX_THREADS = 64


@dataclass
class Budget:
    """A search budget: ``iterations`` (exact count) and/or ``time_limit`` (seconds).

    When both are given the first one exhausted stops the search. ``max_depth`` (plies) is
    carried for the depth-limited searches. ``stop`` (see :class:`StopFlag`, e.g. a
    ``threading.Event``) cancels the search when set: every search polls it in its loops
    (through :meth:`done` / :meth:`expired`) and returns its best answer so far. Raises
    ``ValueError`` for negative, non-finite or absent budgets (see :meth:`check`).

    The clock starts at :meth:`begin`; the bots call it on entry to ``analyze`` so that
    setup (determinizations, buffers, the root) is paid from the budget, and a search that
    finds the clock already running keeps it.
    """

    iterations: int | None = None
    time_limit: float | None = None
    max_depth: int | None = None
    stop: Any = field(default=None, repr=False)
    start: float = field(default=0.0, repr=False)
    deadline: float = field(default=math.inf, repr=False)

    def check(self, *, need: str = "iterations or time_limit") -> Budget:
        """Validate; ``need`` names what must be present. Returns ``self``.

        Ranges: ``iterations`` an int in 1..:data:`MAX_ITERATIONS`; ``time_limit`` finite
        seconds in (0, :data:`MAX_TIME_LIMIT`]; ``max_depth`` an int >= 1.
        """
        if self.iterations is not None:
            self.iterations = check_int("iterations", self.iterations, 1, MAX_ITERATIONS)
        if self.time_limit is not None:
            self.time_limit = check_number("time_limit", self.time_limit, 0.0, MAX_TIME_LIMIT,
                                           lo_open=True)
        if self.max_depth is not None:
            self.max_depth = check_int("max_depth", self.max_depth, 1)
        check_stop(self.stop)
        present = {"iterations": self.iterations, "time_limit": self.time_limit,
                   "max_depth": self.max_depth}
        if need and all(present[k] is None for k in need.split(" or ")):
            raise ValueError(f"a search bot needs a budget: give {need}")
        return self

    @property
    def started(self) -> bool:
        return self.start != 0.0

    def begin(self) -> None:
        """Start the clock, once: a budget already started keeps its start and deadline, so
        the setup a bot does after starting it (determinizations, legal moves) counts."""
        if self.start:
            return
        self.start = time.perf_counter()
        self.deadline = (self.start + self.time_limit) if self.time_limit is not None else math.inf

    @property
    def end(self) -> float:
        """When the time limit runs out (``time.perf_counter`` seconds: ``start +
        time_limit``; ``inf`` without a time limit or before :meth:`begin`). Unlike
        ``deadline``, not moved by :meth:`reserve`: the report's own bound."""
        return self.share_end(1.0)

    def share_end(self, share: float) -> float:
        """When ``share`` (a fraction, 0..1) of the time limit has passed
        (``time.perf_counter`` seconds: ``start + share * time_limit``; ``inf`` without a
        time limit or before :meth:`begin`): the bound of a phase that may use only part of
        the budget (the exact-belief filter, ``BELIEF_SHARE``)."""
        if self.time_limit is None or not self.start:
            return math.inf
        return self.start + share * self.time_limit

    def stopped(self) -> bool:
        """True when the ``stop`` flag is set (cancelled)."""
        return self.stop is not None and self.stop.is_set()

    def expired(self) -> bool:
        """True when the time is up or the search was cancelled (iterations not counted)."""
        return time.perf_counter() >= self.deadline or (
            self.stop is not None and self.stop.is_set())

    def done(self, iterations_run: int) -> bool:
        """True when the budget is exhausted after ``iterations_run`` iterations, the time
        is up, or the search was cancelled."""
        if self.iterations is not None and iterations_run >= self.iterations:
            return True
        return self.expired()

    def reserve(self, seconds: float) -> None:
        """Stop the search loop ``seconds`` before the time limit (at most a tenth of it),
        keeping that time for the report that follows the loop (labels, PVs): the move
        overhead of chess engines. No-op without a time limit."""
        if self.time_limit is not None and seconds > 0:
            self.deadline = self.start + self.time_limit - min(seconds, 0.1 * self.time_limit)

    def remaining(self) -> float:
        """Seconds left before the deadline (``inf`` without a time limit; >= 0)."""
        return max(0.0, self.deadline - time.perf_counter())

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def split(self, k: int, i: int) -> Budget:
        """The ``i``-th of ``k`` equal shares (iterations distributed exactly, time evenly);
        the share polls the same ``stop`` flag."""
        it = None
        if self.iterations is not None:
            it = self.iterations // k + (1 if i < self.iterations % k else 0)
        tl = self.time_limit / k if self.time_limit is not None else None
        return Budget(it, tl, self.max_depth, self.stop)


_TRASH: queue.SimpleQueue = queue.SimpleQueue()
_TRASH_LOCK = threading.Lock()
_TRASH_THREAD: list[threading.Thread] = []


def _empty_trash() -> None:
    while True:
        _dismantle(_TRASH.get())
        with _GC_LOCK:
            if _GC_PAUSES[0] == 0:
                gc.unfreeze()   # what paused_gc froze and still lives goes back to the collector


#: The reaper hands the GIL over once it has held it this long (seconds; it reads the clock
#: every ``_CLOCK_EVERY + 1`` steps, a power of two minus one).
_HOLD = 2e-4
_CLOCK_EVERY = 15
#: A search node with at most this many ``visits`` is dropped whole: a search adds at most a
#: node or two per visit, so its subtree is small and frees in tens of microseconds.
_SMALL_SUBTREE = 64


def _dismantle(obj: Any) -> int:
    """Drop ``obj`` piece by piece: lists, dicts, tuples and objects' attributes are taken
    apart iteratively, so each object freed has (almost) nothing left below it. Dropping the
    root of a big tree at once would free the whole tree inside one reference-count
    decrement, holding the GIL for seconds (10^6 nodes) and stalling every other thread;
    this way the interpreter can switch threads between any two steps. An object that is
    referenced from outside the tree is left intact (only this reference is dropped).

    A search node (an object with an integer ``visits``) with at most ``_SMALL_SUBTREE``
    visits is dropped whole: taking each of its ~10 objects apart in Python cost ~10 us per
    node, so the reaper fell behind back-to-back Python searches (the trees of 5 s ``pimc``
    calls took 2 s each at full speed, and the reaper gets a few percent of the GIL while a
    search runs), and their trees piled up in memory. Returns the steps taken (objects
    handled in Python)."""
    stack = [obj]
    del obj
    pop, push = stack.pop, stack.append
    refs = sys.getrefcount
    yield_gil = time.sleep
    clock = time.perf_counter
    held_since = clock()
    steps = 0
    while stack:
        steps += 1
        if not steps & _CLOCK_EVERY and clock() - held_since > _HOLD:
            # Hand the GIL over now and then: a thread that wants it (a search about to
            # report, an event loop) would otherwise wait for the interpreter's switch
            # interval (5 ms) — an overshoot of every budget.
            yield_gil(0)
            held_since = clock()
        o = pop()
        if refs(o) > 2:  # also held elsewhere (an engine's cached list, a live state):
            del o        # drop only our reference, never empty a shared object
            continue
        if isinstance(o, list):
            while o:
                push(o.pop())
        elif isinstance(o, dict):
            while o:
                push(o.popitem()[1])
        elif isinstance(o, tuple):
            for x in o:
                push(x)
        elif not isinstance(o, int | float | str | bytes | bool | type(None) | type):
            visits = getattr(o, "visits", None)
            if type(visits) is int and visits <= _SMALL_SUBTREE:
                del o    # a small subtree: freed at once by reference counting
                continue
            d = getattr(o, "__dict__", None)
            if isinstance(d, dict):
                while d:
                    push(d.popitem()[1])
            for name in getattr(type(o), "__slots__", ()):
                value = getattr(o, name, None)
                if isinstance(value, list | dict | tuple):
                    try:
                        setattr(o, name, None)
                    except (AttributeError, TypeError):
                        continue
                    push(value)
        del o
    return steps


_GC_LOCK = threading.Lock()
_GC_PAUSES = [0, False]        # searches inside paused_gc, and whether gc was enabled


@contextlib.contextmanager
def paused_gc():
    """Pause Python's cyclic garbage collector during a Python search loop.

    A full (generation 2) collection traverses every tracked object — a Python search tree
    is ~10^5-10^6 of them — and took 26 ms of CPU inside one search iteration, past any
    small budget. The trees hold no reference cycles (reference counting frees them), so
    the loop runs with the collector off and the previous setting comes back when the last
    paused search ends (nested and concurrent searches count; a collector the caller had
    disabled stays disabled). Everything allocated meanwhile is first moved out of the
    collector's generations (``gc.freeze``): re-enabling would otherwise make the next
    allocation run one collection over the whole new tree (~0.1 s at 10^5 nodes, on the
    caller's path); the reaper (:func:`free_later`) gives the survivors back to the collector
    (``gc.unfreeze``, O(1): they join the oldest generation without counting towards its
    next collection) after it has freed a tree, or after the last pause ends, off the
    caller's path. Every search bot's ``analyze`` runs inside one pause (a full collection
    over a cache of determinizations cost 89 ms inside a 50 ms budget).

    Searches run back to back (self-play, an arena, hosted bot seats) leave the reaper no
    moment without a pause, so what was frozen stays frozen and garbage in a reference
    cycle is never collected: searches and the engines must make none (reference counting
    frees everything else). ``tests/bots/test_budgets_kinds.py::
    test_searches_leave_no_cyclic_garbage`` checks every kind on every game.
    """
    with _GC_LOCK:
        if _GC_PAUSES[0] == 0:
            _GC_PAUSES[1] = gc.isenabled()
            gc.disable()
        _GC_PAUSES[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_PAUSES[0] -= 1
            thaw = _GC_PAUSES[0] == 0 and _GC_PAUSES[1]
            if thaw:
                gc.freeze()
                gc.enable()
        if thaw:
            free_later(None)    # the reaper unfreezes once no pause is running


def start_reaper() -> None:
    """Start the daemon thread of :func:`free_later` (idempotent); the searches call it
    during setup so that the first release does not pay a thread start."""
    if not _TRASH_THREAD:
        with _TRASH_LOCK:
            if not _TRASH_THREAD:
                t = threading.Thread(target=_empty_trash, name="ratai-free", daemon=True)
                t.start()
                _TRASH_THREAD.append(t)


def free_later(obj: Any) -> None:
    """Hand ``obj`` (a search tree, a transposition table) to a daemon thread that takes it
    apart (see :func:`_dismantle`), off the caller's path.

    A search calls this just before returning, after dropping its own references, so the
    answer is not delayed by freeing its tree, and the freeing thread never holds the GIL
    for long: it hands the GIL over after ``_HOLD`` (0.2 ms), so a thread that needs it (the
    next search's loop or report) does not wait for the interpreter's 5 ms switch interval.
    Small subtrees are dropped whole (``_SMALL_SUBTREE``), so it frees a tree much faster
    than a Python search grows one, even with searches back to back.
    The caller must hold no other reference for this to help.
    """
    start_reaper()
    _TRASH.put(obj)


class SearchRng:
    """The random streams of one search call, derived from a seed and the seat's information.

    For an ``int`` seed the streams depend only on ``(seed, observation_string(player))`` —
    the seat's current view, which is all a search reads of the root (its determinizations
    are drawn from ``observation(player)``) — so one seeded bot gives the same answer for the
    same position however often it is asked, whether the position came with its whole history
    or with the seat's observation alone, and different answers are not correlated across
    positions; they never depend on hidden parts of the state (equal information states have
    equal observations). ``seed=None`` draws fresh entropy; a ``numpy.random.Generator`` is
    used as a running stream.

    Attributes:
        np: a ``numpy.random.Generator`` (for ``resample_from_infostate``).
        py: a ``random.Random`` (fast draws in the hot loops).
    """

    def __init__(self, seed: Any, state: State | None, player: int,
                 fallback: np.random.Generator | None = None):
        if isinstance(seed, np.random.Generator):
            base = seed
        elif seed is None:
            base = fallback if fallback is not None else np.random.default_rng()
        else:
            info = state.observation_string(player) if state is not None else ""
            h = int.from_bytes(hashlib.blake2b(info.encode(), digest_size=8).digest(), "little")
            base = np.random.default_rng([_seed_int(seed), h, player])
        self.np = np.random.default_rng(int(base.integers(2**63)))
        self.py = random.Random(int(base.integers(2**63)))
        # Drawn after the two streams, so it changes neither: the root tie-break order.
        self.tie_seed = int(base.integers(2**63))

    def tiebreak(self, actions) -> dict[int, float]:
        """A seeded random key per action for the last tie-break at the root
        (:func:`sort_moves`): reproducible for a seeded bot, independent of the ids."""
        r = random.Random(self.tie_seed)
        return {int(a): r.random() for a in actions}

    def child_seed(self) -> int:
        """A fresh 63-bit seed drawn from this stream (for sub-searches)."""
        return int(self.np.integers(2**63))


def _seed_int(seed: Any) -> int:
    if isinstance(seed, bool):
        raise ValueError(f"bad seed {seed!r}: allowed a non-negative int, None or a Generator")
    if isinstance(seed, int | np.integer) and seed >= 0:
        return int(seed)
    if isinstance(seed, str):
        return int.from_bytes(hashlib.blake2b(seed.encode(), digest_size=8).digest(), "little")
    raise ValueError(f"bad seed {seed!r}: allowed a non-negative int, None or a Generator")


def apply_unchecked(state: State, action: int) -> None:
    """Apply ``action`` without the legality check (the contract's fast path).

    Valid only for an action taken from ``state``'s own legal list or chance outcomes; it
    records the action in the history exactly as ``State.apply_action`` does.
    """
    state._apply_action(action)
    state._history.append(action)


def apply_for_labels(state: State, action: int) -> None:
    """Apply ``action`` (legal here) to a clone that only labels moves (a principal
    variation): a twin's compiled apply, without history or ``views`` logs (``_apply_bare``),
    else :func:`apply_unchecked`. The clone's history and information states are not kept;
    its position, current player, legal moves and labels are. Labelling every root move's
    PV is the report's cost, paid after the search's deadline."""
    bare = getattr(state, "_apply_bare", None)
    if bare is not None:
        bare(action)
    else:
        apply_unchecked(state, action)


def joint_legal(state: State, n: int) -> list[list[int]]:
    """Per-seat legal actions at a ``SIMULTANEOUS`` node (``[]`` for a seat that does not act)."""
    return [state.legal_actions(p) for p in range(n)]


#: Per state class: whether applying a joint move seat by seat with the unchecked fast
#: path gives exactly what ``apply_actions`` gives (verified once per class, see below).
_SEATWISE_JOINT: dict[type, bool] = {}


def apply_joint(state: State, joint: Sequence[int]) -> None:
    """Apply one action per seat at a ``SIMULTANEOUS`` node (``INVALID`` for seats without moves).

    ``joint`` must come from the state's own per-seat legal lists (the searches' case). A
    joint view whose history records a joint move as one entry per acting seat, in seat
    order (Ratapolis ``simultaneous=True`` documents this), is stepped with the unchecked
    fast path (:func:`apply_unchecked` per seat), which skips regenerating every seat's
    legal plans; the first call per state class checks, on clones, that this gives the same
    fields and history as ``state.apply_actions(joint)`` and otherwise always uses
    ``apply_actions``.
    """
    cls = type(state)
    ok = _SEATWISE_JOINT.get(cls)
    if ok is None:
        checked, fast = state.clone(), state.clone()
        checked.apply_actions(list(joint))
        try:
            for a in joint:
                if a != INVALID:
                    apply_unchecked(fast, a)
            ok = fast.history() == checked.history() and fast._fields() == checked._fields()
        except Exception:  # noqa: BLE001 - any failure means: not seat-wise
            ok = False
        _SEATWISE_JOINT[cls] = ok
    if ok:
        for a in joint:
            if a != INVALID:
                state._apply_action(a)
                state._history.append(a)
    else:
        state.apply_actions(list(joint))


def argmax_ties(scored, rnd) -> int:
    """The move of the highest score in ``scored`` (``(move, score)`` pairs, read once in
    order), exact ties broken uniformly at random (reservoir sampling: one ``rnd.random()``
    draw per tie, the k-th tied move kept with probability 1/k), never by the lowest id;
    -1 if empty. The compiled search's ``argmax_offer`` draws the same way."""
    best_a, best_u, ties = -1, -math.inf, 1
    for a, u in scored:
        if u > best_u:
            best_a, best_u, ties = a, u, 1
        elif u == best_u:
            ties += 1
            if rnd.random() * ties < 1.0:
                best_a = a
    return int(best_a)


def sample_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The outcome whose cumulative probability interval contains ``u`` in [0, 1)."""
    acc = 0.0
    for a, p in outcomes:
        acc += p
        if u < acc:
            return a
    return outcomes[-1][0]


def has_heuristic(game: Game) -> bool:
    """True when ``game`` implements ``heuristic_value`` (the base class raises)."""
    return type(game).heuristic_value is not Game.heuristic_value


def heuristic_vector(game: Game, state: State, n: int) -> list[float]:
    """``[game.heuristic_value(state, p) for p in seats]`` (terminal: ``returns()``)."""
    if state.is_terminal():
        return list(state.returns())
    return [float(game.heuristic_value(state, p)) for p in range(n)]


#: The budget bounding the heuristic playouts of the search in progress (per thread and
#: task; :func:`bounded_playouts`).
_PLAYOUT_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "ratai_playout_budget", default=None)


@contextlib.contextmanager
def bounded_playouts(budget: Budget):
    """Inside the block a heuristic playout (:class:`Rollout`, ``policy="heuristic"``) ends
    as soon as ``budget`` is expired (its time is up or its ``stop`` flag set): it scores
    the position it reached with ``heuristic_value``, as a ``cutoff`` does. One such playout
    takes up to ~0.5 s on a 5-player Ratapolis (a one-ply search of every legal move at
    every ply), so checking the budget only between iterations let a 0.05 s search run ten
    times over. Random playouts are not checked: a compiled one takes microseconds, a Python
    one milliseconds. Every search bot's ``analyze`` runs inside one."""
    token = _PLAYOUT_BUDGET.set(budget)
    try:
        yield
    finally:
        _PLAYOUT_BUDGET.reset(token)


class Rollout:
    """A playout policy: from a state, play to the end (or a cut-off) and return values per seat.

    Args:
        game: the game.
        policy: ``"random"`` (uniform legal moves) or ``"heuristic"`` (epsilon-greedy one-ply
            on ``game.heuristic_value`` for the mover; slower, stronger).
        cutoff: stop after this many plies and score the position with
            ``heuristic_value`` for every seat (``None``: play to the end).
        epsilon: probability of a uniform move in the heuristic policy.

    Raises:
        ValueError: an unknown policy, a bad cut-off, or heuristics asked of a game without
            ``heuristic_value``.
    """

    POLICIES = ("random", "heuristic")

    def __init__(self, game: Game, policy: str = "random", cutoff: int | None = None,
                 epsilon: float = 0.1):
        if policy not in self.POLICIES:
            raise ValueError(f"bad rollout {policy!r}: allowed one of {self.POLICIES}")
        if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int)
                                   or cutoff < 0):
            raise ValueError(f"bad rollout_cutoff {cutoff!r}: allowed an int >= 0 or None")
        epsilon = check_number("rollout_epsilon", epsilon, 0.0, 1.0)
        if (policy == "heuristic" or cutoff is not None) and not has_heuristic(game):
            raise ValueError(f"game {game.name!r} has no heuristic_value: use rollout='random' "
                             f"and rollout_cutoff=None")
        self.game = game
        self.n = game.num_players()
        self.policy = policy
        self.cutoff = cutoff
        self.epsilon = float(epsilon)
        # A Cython twin state's uniform playout to the end runs in C (``core``'s playout,
        # one call instead of one Python step per ply: a Ratapolis playout of ~0.2-5 ms in
        # Python takes microseconds), so a Python search iteration stays short and its
        # budget check frequent. Same policy (uniform decisions, chance by probability),
        # seeded from ``rnd``.
        self._cy_state: type | None = None
        self._cy_playout = None
        if policy == "random" and cutoff is None:
            try:
                from ratai._speedups import core
            except ImportError:
                pass
            else:
                self._cy_state, self._cy_playout = core.CyState, core.random_playout_actions

    def __call__(self, state: State, rnd: random.Random) -> tuple[list[float], int]:
        """Play ``state`` (mutated) out; returns ``(values per seat, plies played)``."""
        if self._cy_state is not None and isinstance(state, self._cy_state):
            plies = len(self._cy_playout(state, rnd.getrandbits(64)))
            return list(state._returns()), plies
        game, n, cutoff = self.game, self.n, self.cutoff
        greedy = self.policy == "heuristic"
        eps = self.epsilon
        budget = _PLAYOUT_BUDGET.get() if greedy else None
        plies = 0
        while True:
            p = state.current_player()
            if p == TERMINAL:
                return list(state._returns()), plies
            if (cutoff is not None and plies >= cutoff) or (
                    budget is not None and budget.expired()):
                return heuristic_vector(game, state, n), plies
            if p == CHANCE:
                a = sample_outcome(state._chance_outcomes(), rnd.random())
            elif p == SIMULTANEOUS:
                joint = [(la[int(rnd.random() * len(la))] if la else INVALID)
                         for la in joint_legal(state, n)]
                apply_joint(state, joint)
                plies += 1
                continue
            else:
                legal = state._legal_actions()
                if greedy and len(legal) > 1 and rnd.random() >= eps:
                    a = _greedy(game, state, p, legal, budget)
                else:
                    a = legal[int(rnd.random() * len(legal))]
            state._apply_action(a)
            state._history.append(a)
            plies += 1


def _greedy(game: Game, state: State, p: int, legal: Sequence[int],
            budget: Budget | None = None) -> int:
    """The legal move of best ``heuristic_value`` for ``p`` (a win counts 1); the best so
    far once ``budget`` is expired (checked every 8 moves)."""
    best, best_v = legal[0], -math.inf
    for i, a in enumerate(legal):
        if budget is not None and i & 7 == 7 and budget.expired():
            break
        child = state.clone()
        apply_unchecked(child, a)
        v = child.returns()[p] if child.is_terminal() else game.heuristic_value(child, p)
        if v > best_v:
            best, best_v = a, v
    return best


def sort_moves(moves: list[MoveStat], tiebreak: dict[int, float] | None = None
               ) -> tuple[MoveStat, ...]:
    """Best first: most visits, then highest value, then highest prior, then the seeded random
    key ``tiebreak[action]`` (:meth:`SearchRng.tiebreak`) — never the action id, which would
    make a position whose moves all look alike play its lowest id (issue 13, item 9).
    Without ``tiebreak`` (a report outside any search) the order of ``moves`` is kept."""
    if tiebreak is None:
        return tuple(sorted(moves, key=lambda m: (-m.visits, -m.value, -m.prior)))
    return tuple(sorted(moves, key=lambda m: (-m.visits, -m.value, -m.prior,
                                              tiebreak.get(m.action, 1.0))))


#: Worlds (determinizations of the seat's information) in which a hidden-information seat
#: checks that a move wins at once (:func:`decisive_move`).
DECISIVE_WORLDS = 4
#: The share of a time limit the decisive-move check may take (then it gives up: the search
#: has the rest).
DECISIVE_SHARE = 0.1


def _wins_at_once(world: State, action: int, player: int) -> bool:
    after = world.clone()
    apply_unchecked(after, action)
    return after.is_terminal() and after.returns()[player] >= 1.0 - 1e-9


def decisive_move(state: State, player: int, legal: Sequence[int], seed: int,
                  budget: Budget | None = None) -> int | None:
    """A legal move after which the game is over and ``player`` has won alone (return 1;
    solo: beaten the automaton), or ``None``: the "decisive move" rule of Teytaud & Teytaud
    (2010), which every search bot applies at its root so that a seat that can win at once
    does so rather than play a move its search values the same (every move of a won position
    has value 1).

    With hidden information the check never reads the hidden parts: the move must win at
    once in each of ``DECISIVE_WORLDS`` determinizations drawn from the seat's information
    (``resample_from_infostate(player, ...)``, or the twin's compiled ``resample_c``, seeded
    by ``seed``), so a win that depends on what the seat cannot see is left to the search.
    Nothing is checked at a simultaneous node (one seat's action alone does not move the
    game) or a chance node. Costs one clone
    and one ``apply_action`` per legal move and world, and the worlds' determinizations
    (median 2-3 ms on the Cython twins of Rat Trap and Ratapolis). With a ``budget`` the
    check gives up (``None``) once it has used ``DECISIVE_SHARE`` of the time limit or the
    budget is stopped."""
    if state.current_player() != player:
        return None
    end = budget.share_end(DECISIVE_SHARE) if budget is not None else math.inf

    def out_of_time() -> bool:
        return budget is not None and (time.perf_counter() >= end or budget.stopped())

    game = state.get_game()
    if game.perfect_information:
        worlds = [state]
    else:
        # the twins' compiled sampler (the search's own, same law) where there is one
        sample = getattr(state, "resample_c", None) or state.resample_from_infostate
        worlds = []
        for i in range(DECISIVE_WORLDS):
            if out_of_time():
                return None
            worlds.append(sample(player, np.random.default_rng([seed, i])))
    for a in legal:
        if out_of_time():
            return None
        if all(_wins_at_once(w, int(a), player) for w in worlds):
            return int(a)
    return None


def play_decisive(analysis: Analysis, action: int | None, state: State) -> Analysis:
    """``analysis`` with the decisive ``action`` (:func:`decisive_move`) as its best move,
    first among ``moves`` (the others keep their order), valued as won (1 for the seat, 0 for
    the others), and as the head of ``pv``; unchanged when ``action`` is ``None``."""
    if action is None:
        return analysis
    p = analysis.player
    # a sole win at once: worth 1 to the seat and 0 to the others, whatever the search had
    # time to find (a capped heuristic or expectimax may not have evaluated it)
    values = tuple(1.0 if q == p else 0.0 for q in range(state.get_game().num_players()))
    mine = [m for m in analysis.moves if m.action == action]
    if mine:
        win = dataclasses.replace(mine[0], value=1.0, values=values)
    else:  # a move the search did not report
        label = state.action_to_string(p, action)
        win = MoveStat(action, label, 0, 1.0, 0.0, values, (PVStep(p, action, label),))
    if not win.pv:
        win = dataclasses.replace(win, pv=(PVStep(p, action, win.label),))
    moves = (win, *[m for m in analysis.moves if m.action != action])
    pv = analysis.pv if analysis.best_action == action and analysis.pv else win.pv
    return dataclasses.replace(analysis, best_action=action, moves=moves, pv=pv)


def check_root_moves(root_moves, legal: Sequence[int]) -> list[int] | None:
    """Validate a root restriction (UCI ``searchmoves``, KataGo ``allowMoves``).

    Returns the allowed actions in legal order (``None``: no restriction). Raises
    ``ValueError`` naming the action and the legal set for an action that is not legal, for
    an empty restriction, and for a ``root_moves`` that is not a collection of action ids.
    """
    if root_moves is None:
        return None
    if isinstance(root_moves, str | bytes | dict) or not hasattr(root_moves, "__iter__"):
        raise ValueError(f"root_moves: give a list of legal action ids; got "
                         f"{type(root_moves).__name__}; legal: {list(legal)}")
    allowed = set()
    for a in root_moves:
        if isinstance(a, bool) or not isinstance(a, int | np.integer) or int(a) not in legal:
            raise ValueError(f"root_moves: action {a!r} is not legal here; legal: {list(legal)}")
        allowed.add(int(a))
    if not allowed:
        raise ValueError(f"root_moves is empty; give legal actions from {list(legal)}")
    return [a for a in legal if a in allowed]


#: The default memory cap of every tree search, in MB: the service's longest budget (30 s)
#: stays under it in every game (see ``bench/memory.py``).
DEFAULT_MAX_MEMORY_MB = 512.0


def node_cap(max_nodes: int | None, max_memory_mb: float | None, bytes_per_node: float) -> int:
    """The node limit of a tree search: ``max_nodes`` and ``max_memory_mb`` (MB = 2**20 bytes,
    converted with ``bytes_per_node``), whichever is smaller; ``max_memory_mb=None`` and
    ``max_nodes=None`` together mean no cap. Raises ``ValueError`` for values < 1."""
    cap = math.inf
    if max_nodes is not None:
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, int | np.integer) \
                or max_nodes < 1:
            raise ValueError(f"bad max_nodes {max_nodes!r}: allowed an int >= 1 or None")
        cap = int(max_nodes)
    if max_memory_mb is not None:
        if isinstance(max_memory_mb, bool) or not isinstance(max_memory_mb, int | float) \
                or not 0 < max_memory_mb < math.inf:
            raise ValueError(f"bad max_memory_mb {max_memory_mb!r}: allowed finite MB > 0 "
                             f"or None")
        cap = min(cap, max(1, int(max_memory_mb * 2**20 / bytes_per_node)))
    return 2**62 if cap == math.inf else int(cap)


def begin_determinized_root(kind: str, state: State, player: int, budget: Budget,
                            srng: SearchRng, allowed: Sequence[int] | None, pv_plies: int,
                            hint: str = "") -> tuple[list[int], dict[int, float], State,
                                                     dict[int, str]]:
    """Start a single-observer search of ``state`` for ``player`` (IS-MCTS and az): start the
    budget's clock, refuse a joint-action root, and return the root moves (``allowed`` or the
    seat's legal actions), their seeded tie-break keys, one determinization (for labels and
    principal variations) and the moves' labels (with the report's cost reserved,
    :func:`root_labels`).

    Raises:
        ValueError: ``state`` is a SIMULTANEOUS (joint-action) node.
    """
    budget.begin()
    if state.current_player() == SIMULTANEOUS:
        raise ValueError(f"{kind} does not search a SIMULTANEOUS root; use the sequential "
                         f"view of the game{hint}")
    legal = state.legal_actions(player) if allowed is None else list(allowed)
    tie = srng.tiebreak(legal)
    label_state = state.resample_from_infostate(player, srng.child_seed())
    start_reaper()
    return legal, tie, label_state, root_labels(label_state, player, legal, budget, pv_plies)


def determinized_loop(state: State, player: int, budget: Budget, srng: SearchRng,
                      stats: list[int], iterate: Callable[[State, Any, list[int]], None],
                      on_progress: ProgressFn | None, every: int,
                      report: Callable[[], Analysis]) -> None:
    """The iteration loop of a single-observer search (IS-MCTS and az): until the budget
    is spent (``stats[0]`` counts iterations), call ``iterate(world, rnd, stats)`` on a fresh
    determinization of ``state`` for ``player`` (drawn from ``srng.np``; ``rnd`` is
    ``srng.py``), and every ``every`` iterations pass ``report()`` to ``on_progress``,
    stopping when it returns ``False``."""
    rng, rnd = srng.np, srng.py
    while not budget.done(stats[0]):
        iterate(state.resample_from_infostate(player, rng), rnd, stats)
        stats[0] += 1
        if on_progress is not None and every and stats[0] % every == 0 \
                and on_progress(report()) is False:
            break


def root_labels(state: State, player: int, actions: Sequence[int],
                budget: Budget | None = None, pv_plies: int = 8) -> dict[int, str]:
    """``{action: state.action_to_string(player, action)}`` for the root moves, timed: with a
    ``budget``, reserve (:meth:`Budget.reserve`) the estimated cost of the final report —
    about ``pv_plies + 1`` labels per move plus the best move's 64 — so that the answer,
    not only the loop, ends within the time limit."""
    t0 = time.thread_time()       # CPU time: a preemption while labelling is not a cost
    labels = {int(a): state.action_to_string(player, a) for a in actions}
    if budget is not None and labels:
        per = (time.thread_time() - t0) / len(labels)
        # a PV step costs a label plus a checked apply on a clone: ~2 labels
        budget.reserve(2.0 * per * ((pv_plies + 1) * len(labels) + 64) + 2e-4)
    return labels


def elapsed_since(t0: float) -> float:
    return time.perf_counter() - t0
