# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled MCTS (UCT) and single-observer IS-MCTS over the ``cdef`` engine contract.

The twins of :mod:`ratai.search.uct` (:class:`CyUCT`) and :mod:`ratai.search.ismcts`
(:class:`CyISMCTS`) for states that subclass ``CyState`` (``core.pxd``). The bots
``make_bot("mcts" | "ismcts", ...)`` use them automatically on a Cython state
(``search_backend="auto"``, see :mod:`ratai.bots.search_bots`); they return the same
:class:`ratai.search.common.Analysis`.

Tree layout: one flat C array of ``Node`` structs (a pool that grows by ``realloc``) and a
parallel array of value sums (``num_players`` doubles per node); no Python object per node.
A node's children are the index range ``[first, first + nch)``; its block has room for
``cap`` children and moves to the end of the pool when it must grow (IS-MCTS: an action or a
chance perception not seen before), so indices, never pointers, are kept across expansions.
The playout is ``core.c_random_playout`` (uniform decisions, chance by probability) on a
pooled state (``c_copy_from``: a memcpy per iteration, no allocation). Randomness is one
splitmix64 stream per search seeded from the bot's :class:`~ratai.search.common.SearchRng`,
so a seeded bot is reproducible per position exactly as the Python search is.

Semantics are those of the Python search (same rules, same statistics, same budgets):

* UCB1 ``Q + c * sqrt(ln N / n)`` with vector returns; the seat to move at a node maximises
  its own component (max^n). IS-MCTS uses availability counts (``ln avail``).
* An untried move is drawn uniformly among the untried legal moves; a new leaf is scored by
  one random playout; chance outcomes are sampled by probability and the descent continues
  through them (UCT: one child per outcome; IS-MCTS: see below).
* IS-MCTS draws a fresh determinization of the root every iteration from the searcher's
  information state only: ``game.state_from_observation(player, obs, rng)`` with the root's
  ``obs = observation(player)`` built once (the definition of ``resample_from_infostate`` in
  ``engines/api.py``), or ``c_resample(player, rng)`` for a twin that sets
  ``fast_c_resample = True`` (a compiled determinization). The root is never read otherwise.
  Decision children are keyed by action id. Chance children are keyed, as in the Python
  ``chance_key="infostate"``, by the searcher's information state after the outcome: here by
  its 64-bit digest ``CyState.c_info_hash(player)`` (the base class hashes
  ``information_state_string``; equal information states give equal keys, and distinct ones
  collide with probability about ``2**-64`` per pair). ``chance_key="action"`` keys them by
  outcome id, as in Python.
* ``iterations`` is exact; ``time_limit`` is checked before every iteration against a
  monotonic clock; the first exhausted stops. ``on_progress(analysis)`` runs every
  ``every`` iterations and returning ``False`` stops the search.
* ``iterations``, ``nodes`` and ``max_depth`` count what the Python search counts (nodes:
  the root plus every child created; a UCT child exists once it is first tried or sampled).

Where results differ from the Python search for the same seed:

* The random streams differ (splitmix64 here, ``random.Random`` / numpy there), so the
  sampled trees and thus the numbers differ; their distributions are the same.
* UCB1 ties: UCT breaks them here by the lower action id (children sit in legal-action
  order); the Python UCT by the order in which the children were first expanded. IS-MCTS
  breaks them by the lower action id in both.
* Only the ``"random"`` playout without cut-off is compiled: ``rollout="heuristic"`` or a
  ``rollout_cutoff`` runs the Python search (``search_backend="auto"``) or raises
  (``search_backend="cython"``).
* Chance keys are 64-bit digests, not strings (see above).
"""

import math
import time

from libc.math cimport log, sqrt
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from .core cimport CyState, c_random_playout, ratai_splitmix64, ratai_uniform

from ratai.search.common import Analysis, MoveStat, PVStep, sort_moves

__all__ = ["CyUCT", "CyISMCTS", "is_cython_state", "info_hash"]

cdef enum:
    CHANCE = -1
    TERMINAL = -4
    UNSEEN = -99       # a UCT child slot not tried yet / player not known yet

# IS-MCTS child keys: decision children by action id (>= 0); chance children tagged.
cdef unsigned long long TAG_INFO = 1ULL << 63
cdef unsigned long long TAG_ACTION = 1ULL << 62


ctypedef struct Node:
    unsigned long long key   # IS-MCTS: action id, or a tagged chance key
    int action               # the action (decision or chance outcome) that led here
    int player               # who acts here: a seat, CHANCE, TERMINAL or UNSEEN
    int first                # children: [first, first + nch), room for cap
    int nch
    int cap
    int visits
    int avail                # IS-MCTS availability count
    double prob              # UCT chance child: the outcome's probability


def is_cython_state(state) -> bool:
    """True when ``state`` is a Cython twin state (a ``CyState``)."""
    return isinstance(state, CyState)


def info_hash(state, int player) -> int:
    """``c_info_hash(player)`` of a Cython state: the IS-MCTS chance key (for tests)."""
    return (<CyState?>state).c_info_hash(player)


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <double>ts.tv_sec + <double>ts.tv_nsec * 1e-9


cdef class _Tree:
    """The node pool: ``nodes[i]`` and value sums ``vals[i * n : (i + 1) * n]``."""

    cdef Node* nodes
    cdef double* vals
    cdef int n, size, cap

    def __cinit__(self, int n, int cap=1024):
        self.n = n
        self.size = 0
        self.cap = cap
        self.nodes = <Node*>malloc(sizeof(Node) * cap)
        self.vals = <double*>malloc(sizeof(double) * cap * n)
        if self.nodes == NULL or self.vals == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.nodes)
        free(self.vals)

    cdef int alloc(self, int k) except -1:
        """``k`` zeroed slots at the end of the pool; returns the first index."""
        cdef int first = self.size, newcap = self.cap
        cdef void* p
        cdef int i
        while first + k > newcap:
            newcap *= 2
        if newcap != self.cap:
            p = realloc(self.nodes, sizeof(Node) * newcap)
            if p == NULL:
                raise MemoryError()
            self.nodes = <Node*>p
            p = realloc(self.vals, sizeof(double) * newcap * self.n)
            if p == NULL:
                raise MemoryError()
            self.vals = <double*>p
            self.cap = newcap
        memset(&self.nodes[first], 0, sizeof(Node) * k)
        memset(&self.vals[first * self.n], 0, sizeof(double) * k * self.n)
        for i in range(first, first + k):
            self.nodes[i].player = UNSEEN
            self.nodes[i].first = -1
        self.size = first + k
        return first

    cdef int new_root(self, int player) except -1:
        cdef int r = self.alloc(1)
        self.nodes[r].player = player
        self.nodes[r].avail = 1
        return r

    cdef int add_child(self, int parent, unsigned long long key, int action,
                       int player) except -1:
        """Append a child to ``parent``'s block (moving the block when it is full)."""
        cdef Node* nd = &self.nodes[parent]
        cdef int newcap, first, c
        if nd.nch == nd.cap:
            newcap = 4 if nd.cap == 0 else nd.cap * 2
            first = self.alloc(newcap)
            nd = &self.nodes[parent]           # alloc may have moved the pool
            if nd.nch:
                memcpy(&self.nodes[first], &self.nodes[nd.first], sizeof(Node) * nd.nch)
                memcpy(&self.vals[first * self.n], &self.vals[nd.first * self.n],
                       sizeof(double) * nd.nch * self.n)
            nd.first = first
            nd.cap = newcap
        c = nd.first + nd.nch
        nd.nch += 1
        self.nodes[c].key = key
        self.nodes[c].action = action
        self.nodes[c].player = player
        self.nodes[c].avail = 1
        return c

    cdef inline int find(self, int parent, unsigned long long key) noexcept nogil:
        cdef Node* nd = &self.nodes[parent]
        cdef int i
        for i in range(nd.first, nd.first + nd.nch):
            if self.nodes[i].key == key:
                return i
        return -1

    cdef double mean(self, int i, int p):
        if p < 0 or self.nodes[i].visits == 0:
            return 0.0
        return self.vals[i * self.n + p] / self.nodes[i].visits


cdef class _Search:
    """Shared state of one compiled search: buffers, RNG, budget and statistics."""

    cdef int n, me, na
    cdef double c
    cdef _Tree tree
    cdef unsigned long long rng
    cdef int* act
    cdef double* prob
    cdef int* idx
    cdef double* ret
    cdef int* path
    cdef int path_cap
    # statistics of the last search (depth_sum: tree plies summed over iterations)
    cdef public long iterations, nodes, max_depth, depth_sum

    def __cinit__(self, *args, **kwargs):
        self.act = NULL
        self.prob = NULL
        self.idx = NULL
        self.ret = NULL
        self.path = NULL

    def __dealloc__(self):
        free(self.act)
        free(self.prob)
        free(self.idx)
        free(self.ret)
        free(self.path)

    cdef void setup(self, CyState state, int player, double exploration,
                    unsigned long long seed) except *:
        self.n = state.c_num_players()
        self.na = state.c_num_actions()
        self.me = player
        self.c = exploration
        self.rng = seed
        self.tree = _Tree(self.n)
        self.act = <int*>malloc(sizeof(int) * (self.na + 1))
        self.prob = <double*>malloc(sizeof(double) * (self.na + 1))
        self.idx = <int*>malloc(sizeof(int) * (self.na + 1))
        self.ret = <double*>malloc(sizeof(double) * (self.n + 1))
        self.path_cap = 256
        self.path = <int*>malloc(sizeof(int) * self.path_cap)
        if self.act == NULL or self.prob == NULL or self.idx == NULL or self.ret == NULL \
                or self.path == NULL:
            raise MemoryError()
        self.iterations = 0
        self.nodes = 1
        self.max_depth = 0
        self.depth_sum = 0

    cdef inline int push(self, int plen, int node) except -1:
        cdef void* p
        if plen == self.path_cap:
            p = realloc(self.path, sizeof(int) * self.path_cap * 2)
            if p == NULL:
                raise MemoryError()
            self.path = <int*>p
            self.path_cap *= 2
        self.path[plen] = node
        return plen + 1

    cdef inline int pick_outcome(self, int k) noexcept nogil:
        """Index of a chance outcome of ``self.prob[:k]`` drawn by probability."""
        cdef double u = ratai_uniform(&self.rng)
        cdef int i = 0
        while i < k - 1:
            u -= self.prob[i]
            if u < 0:
                break
            i += 1
        return i

    cdef inline int below(self, int k) noexcept nogil:
        """A uniform index in ``0..k-1``."""
        cdef int i = <int>(ratai_uniform(&self.rng) * k)
        return k - 1 if i >= k else i

    cdef void finish(self, CyState s, int plen, int depth) noexcept:
        """Play out from ``s`` (mutated) and back the returns up along the path."""
        cdef int i, j, nd, n = self.n
        cdef double* v
        self.depth_sum += depth
        if depth > self.max_depth:
            self.max_depth = depth
        if s.c_current_player() != TERMINAL:
            c_random_playout(s, &self.rng, self.act, self.prob)
        s.c_returns(self.ret)
        for i in range(plen):
            nd = self.path[i]
            self.tree.nodes[nd].visits += 1
            v = &self.tree.vals[nd * n]
            for j in range(n):
                v[j] += self.ret[j]

    def _loop(self, state, budget, on_progress, int every, report):
        """Run iterations until the budget is spent (see the module docstring)."""
        cdef long limit = -1 if budget.iterations is None else budget.iterations
        cdef double deadline = -1.0
        budget.begin()
        if budget.time_limit is not None:
            deadline = now() + budget.time_limit
        while True:
            if limit >= 0 and self.iterations >= limit:
                break
            if deadline >= 0 and now() >= deadline:
                break
            self.iterate(state)
            self.iterations += 1
            if on_progress is not None and every and self.iterations % every == 0 \
                    and on_progress(report()) is False:
                break

    cdef void iterate(self, object state) except *:
        pass

    # -- reports --------------------------------------------------------------------------
    def _root_moves(self, legal, labeller) -> tuple:
        """Per-move statistics at the root (decision children keyed by action)."""
        cdef _Tree t = self.tree
        cdef int i, j, n = self.n, v
        cdef Node* root = &t.nodes[0]
        stats = {}
        for i in range(root.first, root.first + root.nch):
            if t.nodes[i].key < TAG_ACTION and t.nodes[i].visits > 0:
                stats[t.nodes[i].action] = i
        prior = 1.0 / len(legal) if legal else 0.0
        moves = []
        for a in legal:
            i = stats.get(a, -1)
            if i < 0:
                vals = tuple(0.0 for _ in range(n))
                v = 0
            else:
                v = t.nodes[i].visits
                vals = tuple(t.vals[i * n + j] / v for j in range(n))
            moves.append(MoveStat(int(a), labeller(a), int(v), vals[self.me], prior, vals))
        return sort_moves(moves)


cdef class CyUCT(_Search):
    """UCT over a Cython state (see :class:`ratai.search.uct.UCT` and the module docstring).

    Args:
        player: the searching seat.
        exploration: the UCB1 constant ``c``.
    """

    cdef CyState root_state
    cdef CyState work
    cdef object py_state

    def __init__(self, int player, double exploration=1.0):
        self.me = player
        self.c = exploration

    def analyze(self, state, budget, srng, on_progress=None, int every=100, seed=None,
                str kind="mcts"):
        """Search ``state`` (not modified) and report an ``Analysis`` as ``analyze_uct``."""
        cdef CyState cs = <CyState?>state
        self.setup(cs, self.me, self.c, <unsigned long long>srng.py.getrandbits(64))
        self.root_state = cs
        self.work = cs.c_clone()
        self.py_state = state
        self.tree.new_root(cs.c_current_player())
        player = self.me
        legal = state.legal_actions(player)

        def report():
            moves = self._root_moves(legal, lambda a: state.action_to_string(player, a))
            best = moves[0].action
            return Analysis(best, moves, self._pv(best), int(self.iterations),
                            int(self.nodes), int(self.max_depth), budget.elapsed(), seed,
                            player, kind)

        self._loop(state, budget, on_progress, every, report)
        return report()

    cdef void iterate(self, object state) except *:
        cdef _Tree t = self.tree
        cdef CyState s = self.work
        cdef int node = 0, plen = 0, depth = 0, p, k, i, first, ch, untried, best
        cdef int n = self.n
        cdef double logn, u, best_u, cv
        cdef Node* nd
        s.c_copy_from(self.root_state)
        plen = self.push(plen, 0)
        while True:
            nd = &t.nodes[node]
            p = nd.player
            if p == TERMINAL:
                break
            if p == CHANCE:
                if nd.first < 0:
                    k = s.c_chance_outcomes(self.act, self.prob)
                    first = t.alloc(k)
                    nd = &t.nodes[node]
                    nd.first = first
                    nd.nch = nd.cap = k
                    for i in range(k):
                        t.nodes[first + i].action = self.act[i]
                        t.nodes[first + i].prob = self.prob[i]
                k = nd.nch
                for i in range(k):
                    self.prob[i] = t.nodes[nd.first + i].prob
                ch = nd.first + self.pick_outcome(k)
                s.c_apply(t.nodes[ch].action)
                if t.nodes[ch].player == UNSEEN:
                    t.nodes[ch].player = s.c_current_player()
                    self.nodes += 1
                node = ch
                plen = self.push(plen, node)
                depth += 1
                continue
            if nd.first < 0:
                k = s.c_legal_actions(self.act)
                first = t.alloc(k)
                nd = &t.nodes[node]
                nd.first = first
                nd.nch = nd.cap = k
                for i in range(k):
                    t.nodes[first + i].action = self.act[i]
            untried = 0
            for i in range(nd.first, nd.first + nd.nch):
                if t.nodes[i].player == UNSEEN:
                    untried += 1
            if untried:
                k = self.below(untried)
                for i in range(nd.first, nd.first + nd.nch):
                    if t.nodes[i].player == UNSEEN:
                        if k == 0:
                            ch = i
                            break
                        k -= 1
                s.c_apply(t.nodes[ch].action)
                t.nodes[ch].player = s.c_current_player()
                self.nodes += 1
                plen = self.push(plen, ch)
                depth += 1
                break
            # UCB1 over the children, maximising the mover's own component.
            logn = log(<double>nd.visits) if nd.visits > 1 else 0.0
            best = -1
            best_u = -1e300
            for i in range(nd.first, nd.first + nd.nch):
                cv = t.nodes[i].visits
                u = t.vals[i * n + p] / cv + self.c * sqrt(logn / cv)
                if u > best_u:
                    best = i
                    best_u = u
            s.c_apply(t.nodes[best].action)
            node = best
            plen = self.push(plen, node)
            depth += 1
        self.finish(s, plen, depth)

    def _pv(self, int first_action, int limit=64) -> tuple:
        """As ``ratai.search.uct.tree_pv``: the most visited line, labelled on a clone."""
        cdef _Tree t = self.tree
        cdef int node = 0, i, best, p
        s = self.py_state.clone()
        pv = []
        while len(pv) < limit and not s.is_terminal():
            p = s.current_player()
            nd = t.nodes[node]
            if nd.first < 0:
                break
            best = -1
            if node == 0:
                for i in range(nd.first, nd.first + nd.nch):
                    if t.nodes[i].action == first_action:
                        best = i
            if best < 0:
                for i in range(nd.first, nd.first + nd.nch):
                    if best < 0 or (t.nodes[i].visits, t.mean(i, p), -t.nodes[i].action) > \
                            (t.nodes[best].visits, t.mean(best, p), -t.nodes[best].action):
                        best = i
            if best < 0 or t.nodes[best].visits == 0:
                break
            a = t.nodes[best].action
            pv.append(PVStep(int(p), int(a), s.action_to_string(p, a)))
            s.apply_action(a)
            node = best
        return tuple(pv)


cdef class CyISMCTS(_Search):
    """SO-ISMCTS over a Cython state (see :class:`ratai.search.ismcts.ISMCTS` and the module
    docstring).

    Args:
        player: the searching seat.
        exploration: the UCB1 constant ``c``.
        chance_key: ``"infostate"`` (chance children keyed by the searcher's information
            state after the outcome) or ``"action"`` (by outcome id).
    """

    cdef CyState root_state
    cdef bint by_info
    cdef object np_rng
    cdef object label_state
    cdef object root_obs
    cdef object from_obs
    cdef bint c_resample

    def __init__(self, int player, double exploration=0.7, str chance_key="infostate"):
        if chance_key not in ("infostate", "action"):
            raise ValueError(f"bad chance_key {chance_key!r}: allowed one of "
                             f"('infostate', 'action')")
        self.me = player
        self.c = exploration
        self.by_info = chance_key == "infostate"

    def analyze(self, state, budget, srng, on_progress=None, int every=100, seed=None,
                str kind="ismcts"):
        """Search from the seat's information state in ``state``; as ``ISMCTS.analyze``.

        ``state`` is read only through ``c_resample`` (``resample_from_infostate``) and the
        seat's own legal actions; labels come from one extra determinization.
        """
        cdef CyState cs = <CyState?>state
        player = self.me
        legal = state.legal_actions(player)
        self.label_state = state.resample_from_infostate(player, srng.child_seed())
        self.setup(cs, self.me, self.c, <unsigned long long>srng.py.getrandbits(64))
        self.root_state = cs
        self.np_rng = srng.np
        # resample_from_infostate(p, rng) is state_from_observation(p, observation(p), rng)
        # (engines/api.py); the root's observation is fixed, so it is built once. A twin
        # whose c_resample is compiled says so with a true ``fast_c_resample`` attribute.
        self.c_resample = bool(getattr(state, "fast_c_resample", False))
        self.root_obs = state.observation(player)
        self.from_obs = state.get_game()._state_from_observation
        self.tree.new_root(player)
        label_state = self.label_state

        def report():
            moves = self._root_moves(legal, lambda a: label_state.action_to_string(player, a))
            best = moves[0].action
            return Analysis(best, moves, self._pv(best), int(self.iterations),
                            int(self.nodes), int(self.max_depth), budget.elapsed(), seed,
                            player, kind)

        self._loop(state, budget, on_progress, every, report)
        return report()

    cdef void iterate(self, object state) except *:
        cdef _Tree t = self.tree
        cdef CyState s
        if self.c_resample:
            s = self.root_state.c_resample(self.me, self.np_rng)
        else:
            s = <CyState?>self.from_obs(self.me, self.root_obs, self.np_rng)
        cdef int node = 0, plen = 0, depth = 0, p, k, i, j, ch, nu, best, a
        cdef int n = self.n
        cdef unsigned long long key
        cdef double u, best_u, cv
        plen = self.push(plen, 0)
        while True:
            p = s.c_current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                k = s.c_chance_outcomes(self.act, self.prob)
                a = self.act[self.pick_outcome(k)]
                s.c_apply(a)
                if self.by_info:
                    key = TAG_INFO | (s.c_info_hash(self.me) >> 1)
                else:
                    key = TAG_ACTION | <unsigned long long>a
                ch = t.find(node, key)
                if ch < 0:
                    ch = t.add_child(node, key, a, CHANCE)
                    self.nodes += 1
                node = ch
                plen = self.push(plen, node)
                depth += 1
                continue
            t.nodes[node].player = p
            k = s.c_legal_actions(self.act)
            nu = 0
            for j in range(k):
                ch = t.find(node, <unsigned long long>self.act[j])
                self.idx[j] = ch
                if ch < 0:
                    nu += 1
                else:
                    t.nodes[ch].avail += 1
            depth += 1
            if nu:
                i = self.below(nu)
                for j in range(k):
                    if self.idx[j] < 0:
                        if i == 0:
                            a = self.act[j]
                            break
                        i -= 1
                s.c_apply(a)
                ch = t.add_child(node, <unsigned long long>a, a, p)
                self.nodes += 1
                plen = self.push(plen, ch)
                break
            best = -1
            best_u = -1e300
            for j in range(k):
                ch = self.idx[j]
                cv = t.nodes[ch].visits
                u = t.vals[ch * n + p] / cv + self.c * sqrt(log(<double>t.nodes[ch].avail) / cv)
                if u > best_u:
                    best = ch
                    best_u = u
            s.c_apply(t.nodes[best].action)
            node = best
            plen = self.push(plen, node)
        self.finish(s, plen, depth)

    def _pv(self, int first_action, int limit=64) -> tuple:
        """As ``ratai.search.ismcts._pv``: the most visited line through decision nodes,
        labelled on one determinization; stops at a chance node or an illegal move."""
        cdef _Tree t = self.tree
        cdef int node = 0, i, best, p
        s = self.label_state.clone()
        pv = []
        while len(pv) < limit:
            p = s.current_player()
            nd = t.nodes[node]
            if p < 0 or nd.nch == 0:
                break
            legal = set(s.legal_actions())
            best = -1
            for i in range(nd.first, nd.first + nd.nch):
                if t.nodes[i].key >= TAG_ACTION or t.nodes[i].visits == 0 \
                        or t.nodes[i].action not in legal:
                    continue
                if node == 0 and t.nodes[i].action == first_action:
                    best = i
                    break
                if best < 0 or (t.nodes[i].visits, -t.nodes[i].action) > \
                        (t.nodes[best].visits, -t.nodes[best].action):
                    best = i
            if node == 0 and best >= 0 and t.nodes[best].action != first_action:
                # the forced first move, if the root has it (as the Python _pv)
                for i in range(nd.first, nd.first + nd.nch):
                    if t.nodes[i].key == <unsigned long long>first_action:
                        best = i
            if best < 0:
                break
            a = t.nodes[best].action
            pv.append(PVStep(int(p), int(a), s.action_to_string(p, a)))
            s.apply_action(a)
            node = best
        return tuple(pv)
