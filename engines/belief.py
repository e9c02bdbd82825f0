"""Exact beliefs by filtering a seat's perfect-recall log (shared by every hidden-card game).

A seat's belief is the distribution of the full state over the histories it cannot tell
from the true one (``engines/api.py``, "Determinization"). Where a game's hidden part is
empty at known points (Rat Trap: every round starts from public facts, the cards are dealt
by chance afterwards), that belief is computed exactly by forward filtering from such an
*anchor*: walk the seat's ``views`` log step by step, keep every state whose view of each
step equals the logged one, weight it by the chance probabilities on its way (a decision
the seat sees weighs 1, policy-free: it only has to be legal; a decision it cannot see
weighs ``hidden_weight``), and merge states that are equal (their future views depend only
on the state, so the merge is exact). This is the forward algorithm of a hidden Markov
model over the game's own states, with the rules engine as transition model, the method
``tests/engines/posterior.py`` uses from the initial state to test samplers. A child state
is a clone of its parent with the action applied, except where the parent has one matching
action and was made by the same call: that parent is advanced in place (most steps of a
cold build; a cached layer's, a belief's or another copy's states are never changed).

It is exact and general, but its cost is the number of distinct states per step, which
grows with unseen events; :func:`filter_worlds` stops at ``max_worlds`` states or
``max_expansions`` applied actions and returns ``None``, and the game then uses its
closed-form sampler. :class:`BeliefCache` extends a cached filter as the log grows (a bot
asks at each of its decisions), so a game pays per new step, not per call.

A search bounds the filter by its clock: inside ``with belief_deadline(t)`` (the bots'
``analyze`` sets half its time limit) a filter still running at ``t`` stops, the caller
gets ``None`` (its closed form, for that call only) and the cache keeps the steps already
filtered, so a later call resumes there. ``belief_deadline(t, stop)`` also stops it as soon
as the search's cancel flag is set (a cold filter of a 5-player round takes seconds on the
reference engine; the cancel must not wait for it). Without a deadline (iteration budgets)
and without a cancel the filter always finishes, so a seeded search stays reproducible.

The caps (:func:`caps`, ``MAX_WORLDS`` states at any step and ``MAX_EXPANSIONS`` applied
actions in all) are the same on both backends, with or without a deadline, so the reference
and the Cython twin sample the same law at every position (both exact, or both the closed
form beyond the caps). Under a deadline the clock bounds a filter's time and the caps its
memory; without one (iteration budgets) they bound its time too: a cold build of a filter of
twin states (7-40 times faster per action) takes at most ~1.6 s (p90 under 62 ms; the largest
at 5 players), of reference states up to ~10 s at 4-5 players (``bench/README.md``,
stops 48, 50, 53 and 54). With these caps the filter answers at 99-100% of decisions; beyond
them are 5-player rounds of more than 10,000 states. Lower caps made the closed form answer
where it is not exact: 3,000 applied actions in plain 3-player round-1 positions (reached with
60 states left; stop 48), 30,000 in 4-5 player rounds of 1,500-2,500 states (stop 50),
100,000 in a 5-player round that carried 900-4,100 states over 45 steps to 208 worlds
(stop 54). The cache holds at most ``max_states`` stored states in all (least recently used
entries first out).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Belief", "BeliefCache", "filter_worlds", "belief_deadline", "caps", "MAX_WORLDS",
           "MAX_EXPANSIONS"]

#: Caps of one filter: distinct states at any step, and actions applied in all (each an
#: apply, most after a clone). A state takes ~1.1 KB on a twin, ~11 KB on the reference
#: (measured at 5 players), and a filter holds at most two steps' states.
MAX_WORLDS = 10_000
MAX_EXPANSIONS = 200_000


#: The ``time.perf_counter`` time by which a filter must stop (``inf``: none), per thread
#: and task (set by :func:`belief_deadline`).
_DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar("ratai_belief_deadline",
                                                                  default=math.inf)
#: The cancel flags in force (objects with ``is_set()``), per thread and task.
_STOPS: contextvars.ContextVar[tuple] = contextvars.ContextVar("ratai_belief_stops",
                                                               default=())


@contextlib.contextmanager
def belief_deadline(t: float, stop: Any = None) -> Iterator[None]:
    """Bound every filter run inside the block by ``t`` (``time.perf_counter`` seconds;
    ``inf``: unbounded) and by the cancel flag ``stop`` (anything with ``is_set()``, e.g. a
    ``threading.Event``; ``None``: none). An earlier deadline already in force is kept, and
    so are earlier flags (any one set stops the filter). The filter checks both before each
    applied action (one clone and apply: 20-100 us on the reference engine, 1-5 us on a
    twin); a state interrupted halfway is expanded again on resuming."""
    token = _DEADLINE.set(min(t, _DEADLINE.get()))
    stops = _STOPS.set(_STOPS.get() + (stop,)) if stop is not None else None
    try:
        yield
    finally:
        if stops is not None:
            _STOPS.reset(stops)
        _DEADLINE.reset(token)


def caps() -> tuple[int, int]:
    """The caps ``(max_worlds, max_expansions)``: ``MAX_WORLDS`` / ``MAX_EXPANSIONS``, read
    when a filter starts (so a caller may change them)."""
    return MAX_WORLDS, MAX_EXPANSIONS


def _caps(max_worlds: int | None, max_expansions: int | None) -> tuple[int, int]:
    """The caps asked for, each ``None`` taken from :func:`caps`."""
    w, e = caps()
    return (w if max_worlds is None else max_worlds,
            e if max_expansions is None else max_expansions)


class _OutOfTime(Exception):
    """A filter reached its deadline (:func:`belief_deadline`); its layer keeps the states
    expanded so far."""


#: :meth:`Belief.showing`'s cached answer "every world" (the belief itself).
_ALL = object()


@dataclass
class Belief:
    """A seat's exact belief: ``worlds`` (states of the anchor's backend, no history, their
    ``views`` logs holding only the last step's entries: the caller sets the logs) and their
    cumulative weights ``cum`` (``cum[-1]`` the total, unnormalised). ``pick(u)`` for ``u``
    uniform in [0, 1) is the index of a world drawn with probability weight / total."""

    worlds: list[Any]
    cum: np.ndarray

    def pick(self, u: float) -> int:
        return int(np.searchsorted(self.cum, u * self.cum[-1], "right"))

    def showing(self, view_key: Hashable, same: Callable[[Any], bool]) -> Belief | None:
        """The worlds for which ``same(world)`` (e.g. they show the seat its current
        observation), weights renormalised; ``None`` if none; ``self`` if all. Cached per
        ``view_key``; the cache never holds ``self`` (``_ALL`` stands for it), so a belief
        is in no reference cycle and reference counting frees it: the searches run with the
        cyclic collector paused (``ratai.search.common.paused_gc``), where a cycle would
        live on until the next full collection."""
        cache = self.__dict__.setdefault("_showing", {})
        if view_key not in cache:
            keep = [i for i, w in enumerate(self.worlds) if same(w)]
            if len(keep) == len(self.worlds):
                cache[view_key] = _ALL
            elif not keep:
                cache[view_key] = None
            else:
                w = np.diff(self.cum, prepend=0.0)[keep]
                cache[view_key] = Belief([self.worlds[i] for i in keep], np.cumsum(w))
        got = cache[view_key]
        return self if got is _ALL else got

    def probabilities(self) -> np.ndarray:
        """``float64`` vector of shape ``(len(worlds),)``: each world's probability."""
        return np.diff(self.cum, prepend=0.0) / self.cum[-1]


@dataclass
class _Layer:
    """A filter in progress: ``{(pos, key): (state, w)}`` the states after their first ``pos``
    log entries (one action may add several entries, e.g. what automatic steps show, and how
    many may depend on the world), ``None`` once the caps were exceeded; the actions applied
    so far. A step stopped by a deadline keeps its partial result: ``nxt`` (the next
    layer's states so far, ``None`` between steps) after the first ``done`` entries of
    ``states``."""

    states: dict[tuple[int, Hashable], tuple[Any, float]] | None
    expansions: int = 0
    nxt: dict[tuple[int, Hashable], tuple[Any, float]] | None = None
    done: int = 0

    def copy(self) -> _Layer:
        """A copy that can be advanced without changing this one (the states are shared:
        :func:`_advance` changes in place only states its own call made)."""
        return _Layer(None if self.states is None else dict(self.states), self.expansions,
                      None if self.nxt is None else dict(self.nxt), self.done)


def _merge(nxt: dict, key: tuple, state: Any, w: float) -> None:
    """Add ``state`` with weight ``w`` to ``nxt``, summing the weights of equal states
    (the last one stored is kept: they are the same world)."""
    old = nxt.get(key)
    nxt[key] = (state, w + (old[1] if old is not None else 0.0))


def _advance(layer: _Layer, codes: Sequence, player: int, max_worlds: int,
             max_expansions: int) -> _Layer:
    """Extend ``layer`` to the end of ``codes`` (in place); ``states`` None when a cap is hit.

    A state of either backend takes part through ``_view_code(a, player)`` (the seat's view
    of ``a`` before it is applied), ``_apply_seen(a, player)`` (apply, returning the seat's
    entries of the step), ``_world_key()`` and ``_hidden_weight(a)`` (``engines/api.py``).

    Raises:
        ValueError: no state explains the log (an impossible information state).
        _OutOfTime: the deadline of :func:`belief_deadline` passed or its cancel flag was
            set; ``layer`` keeps every state expanded so far (a later call resumes with the
            next one).
    """
    end = len(codes)
    deadline, stops = _DEADLINE.get(), _STOPS.get()
    clock = time.perf_counter
    # ``owned``: the states of ``layer.states`` were made by this call's previous step and
    # nothing else refers to them (not a cached layer's, a Belief's or another copy's), so a
    # state with one matching action is advanced in place instead of cloned; the state
    # left behind in ``layer.states`` is never read again (entries before ``done``).
    owned = False
    while layer.states is not None and (
            layer.nxt is not None or any(pos < end for pos, _ in layer.states)):
        made_here = layer.nxt is None
        if made_here:
            layer.nxt, layer.done = {}, 0
        nxt = layer.nxt
        over = False
        for (pos, ck), (state, w) in list(layer.states.items())[layer.done:]:
            if pos >= end:  # already through the log: carried as it is
                _merge(nxt, (pos, ck), state, w)
                layer.done += 1
                continue
            chance = state.is_chance_node()
            moves = state.chance_outcomes() if chance else \
                [(a, 1.0) for a in state.legal_actions()]
            code = codes[pos]
            matching = [(a, prob) for a, prob in moves if state._view_code(a, player) == code]
            in_place = owned and len(matching) == 1
            kids = []
            before = layer.expansions
            for a, prob in matching:
                if clock() >= deadline or (stops and any(f.is_set() for f in stops)):
                    # this state is expanded again on resuming
                    layer.expansions = before
                    raise _OutOfTime
                child = state if in_place else state.clone()
                seen = child._apply_seen(a, player)
                layer.expansions += 1
                k = len(seen)  # the action's entry, then what automatic steps showed
                if k > 1 and list(codes[pos + 1: pos + k]) != list(seen[1:]):
                    continue
                kids.append((a, prob, child, pos + k))
            if not chance and len(kids) > 1 and len(kids) == len(moves):
                # a choice the seat cannot see: the game's prior for it
                kids = [(a, state._hidden_weight(a), c, k) for a, _, c, k in kids]
            for _, prob, child, after in kids:
                if prob > 0.0:
                    _merge(nxt, (after, child._world_key()), child, w * prob)
            layer.done += 1
            if len(nxt) > max_worlds or layer.expansions > max_expansions:
                over = True
                break  # over a cap: no need to finish the step
        layer.nxt = None
        if not nxt:
            raise ValueError("observation is impossible: no history explains the seat's log")
        over = over or len(nxt) > max_worlds or layer.expansions > max_expansions
        layer.states = None if over else nxt
        owned = made_here
    return layer


def filter_worlds(anchor: Any, codes: Sequence, player: int, max_worlds: int | None = None,
                  max_expansions: int | None = None) -> Belief | None:
    """The exact belief of ``player`` after the log ``codes`` from ``anchor`` (module
    docstring), or ``None`` beyond the caps.

    Args:
        anchor: a state (either backend) the seat knows completely; not modified.
        codes: the seat's ``views`` entries from the anchor on.
        max_worlds: cap on distinct states at any step (``None``: :func:`caps`).
        max_expansions: cap on actions applied in all (``None``: :func:`caps`).

    Returns ``None`` too when a :func:`belief_deadline` passes (or its flag is set) first.

    Raises:
        ValueError: no history from ``anchor`` explains ``codes``.
    """
    layer = _start(anchor)
    try:
        _advance(layer, codes, player, *_caps(max_worlds, max_expansions))
    except _OutOfTime:
        return None
    return _belief(layer)


def _start(anchor: Any) -> _Layer:
    start = anchor.clone()
    return _Layer({(0, start._world_key()): (start, 1.0)})


def _belief(layer: _Layer) -> Belief | None:
    if layer.states is None:
        return None
    items = list(layer.states.values())
    return Belief([s for s, _ in items], np.cumsum([w for _, w in items]))


class BeliefCache:
    """Filters kept per (seat, anchor, caps) and extended as the seat's log grows. ``get``
    returns the same :class:`Belief` object for the same log. Thread-safe: threads may share
    one cache (the service's in-process searches share Rat Trap's); the entries are read and
    written under a lock, and each call filters its own copy of a cached layer outside it.

    Args:
        size: entries kept (least recently used first out).
        max_states: stored states kept in all entries together (their layers' states,
            those of an interrupted step included; least recently used entries first out,
            the newest always kept). Default ``2 * MAX_WORLDS``.
    """

    def __init__(self, size: int = 16, max_states: int = 2 * MAX_WORLDS):
        self.size = size
        self.max_states = max_states
        self._entries: OrderedDict[tuple, tuple[tuple, _Layer, Belief | None, bool]] = \
            OrderedDict()
        self._lock = threading.Lock()

    def get(self, anchor_key: Hashable, anchor: Callable[[], Any], codes: Sequence,
            player: int, max_worlds: int | None = None,
            max_expansions: int | None = None) -> Belief | None:
        """:func:`filter_worlds` for ``anchor()`` (built only when not cached) and ``codes``,
        continuing a cached filter of a prefix of ``codes`` when there is one; ``None``
        beyond the caps or where no history explains the log (a position set up by hand,
        or an impossible one: the caller's closed form then decides), and when a
        :func:`belief_deadline` passes first (the steps filtered so far are kept and the
        next call for this log or a longer one resumes from them)."""
        codes = tuple(codes)
        max_worlds, max_expansions = _caps(max_worlds, max_expansions)
        ck = (anchor_key, player, max_worlds, max_expansions)
        with self._lock:
            hit = self._entries.get(ck)
            # an entry: (log, layer, belief, complete); an interrupted filter is incomplete
            if hit is not None and hit[0] == codes and hit[3]:
                self._entries.move_to_end(ck)
                return hit[2]
        # a stored layer is never changed: this call filters a copy (or a new start)
        if hit is not None and len(hit[0]) <= len(codes) and codes[:len(hit[0])] == hit[0]:
            if hit[1].states is None:  # a prefix already exceeded the caps
                return None
            layer = hit[1].copy()
        else:
            layer = _start(anchor())
        complete = True
        try:
            _advance(layer, codes, player, max_worlds, max_expansions)
        except ValueError:  # no history explains the log (a position set up by hand)
            layer.states = None
        except _OutOfTime:  # keep what was filtered; this call gets the closed form
            complete = False
        belief = _belief(layer) if complete else None
        with self._lock:
            self._entries[ck] = (codes, layer, belief, complete)
            self._entries.move_to_end(ck)
            while len(self._entries) > self.size or (
                    len(self._entries) > 1 and self._stored() > self.max_states):
                self._entries.popitem(last=False)
        return belief

    def stored(self) -> int:
        """The states the cached filters hold in all (what ``max_states`` bounds)."""
        with self._lock:
            return self._stored()

    def _stored(self) -> int:
        return sum(len(layer.states or ()) + len(layer.nxt or ())
                   for _, layer, _, _ in self._entries.values())
