# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled MCTS (UCT) and single-observer IS-MCTS over the ``cdef`` engine contract.

The twins of :mod:`ratai.search.uct` (:class:`CyUCT`) and :mod:`ratai.search.ismcts`
(:class:`CyISMCTS`) for states that subclass ``CyState`` (``core.pxd``). The bots
``make_bot("mcts" | "ismcts", ...)`` use them automatically on a Cython state
(``search_backend="auto"``, see :mod:`ratai.bots.search_bots`); they return the same
:class:`ratai.search.common.Analysis`.

Tree layout: one flat C array of ``Node`` structs (a pool that grows by doubling) and a
parallel array of value sums (``num_players`` doubles per node); no Python object per node.
The two arrays are mapped pages of their own (``mmap``; grown by ``mremap``, which moves
page tables, not bytes; ``malloc`` / ``realloc`` where ``mremap`` does not exist): with
``malloc``, glibc's adaptive mmap threshold rises after the first big tree is freed, later
pools come from the heap, and a doubling near the deadline then copies the whole pool
(10-15 ms at a few hundred thousand nodes) or a freed pool's heap trim stalls the next
search.
A node's children are the index range ``[first, first + nch)``; its block has room for
``cap`` children and moves to the end of the pool when it must grow (IS-MCTS: an action or a
chance perception not seen before), so indices, never pointers, are kept across expansions.
The playout (``core.c_random_playout``: uniform decisions, chance by probability) runs on
a pooled state (``c_copy_from``: a memcpy per iteration, no allocation). Randomness is one
splitmix64 stream per search seeded from the bot's :class:`~ratai.search.common.SearchRng`,
so a seeded bot is reproducible per position exactly as the Python search is.

The loop runs without the GIL (``with nogil``) in chunks of at most ~1 ms: between chunks
it takes the GIL to check ``Budget.stop``, call ``on_progress`` and let other Python
threads run (a search no longer stalls them). Inside a chunk the monotonic clock is read
before every iteration. IS-MCTS takes the GIL inside an iteration only where the twin has
no compiled code: a determinization when ``c_resample_into`` returns -1 and, for
``chance_key="infostate"``, the chance key when ``c_info_hash_into`` returns -1 (then
``c_info_hash``, an ``except?`` method; every twin compiles it, the base class does not).

Semantics are those of the Python search (same rules, same statistics, same budgets):

* UCB1 ``Q + c * sqrt(ln N / n)`` with vector returns; the seat to move at a node maximises
  its own component (max^n). IS-MCTS uses availability counts (``ln avail``). Exact ties
  of the UCB1 value are broken uniformly at random (never by the lower action id).
* An untried move is drawn uniformly among the untried legal moves; a new leaf is scored by
  one random playout; chance outcomes are sampled by probability and the descent continues
  through them (UCT: one child per outcome; IS-MCTS: see below).
* IS-MCTS draws a fresh determinization of the root every iteration from the searcher's
  information state only: ``c_resample_into(player, work, rng)`` for a twin that sets
  ``fast_c_resample = True`` (a compiled determinization with the exact posterior), else
  ``game.state_from_observation(player, obs, rng)`` with the root's
  ``obs = observation(player)`` built once (the definition of ``resample_from_infostate`` in
  ``engines/api.py``). The root is never read otherwise.
  Decision children are keyed by action id. With ``merge`` (the bots' ``opponent_key``,
  ``ratai.search.ismcts``) another seat's run of moves ends in the child of the node it
  began at keyed by the searcher's information-state digest after it (tagged as below),
  so runs it cannot tell apart lead to one node.
  Chance children are keyed, as in the Python
  ``chance_key="infostate"``, by the searcher's information state after the outcome: here by
  its 64-bit digest ``CyState.c_info_hash(player)`` (the base class hashes
  ``information_state_string``; equal information states give equal keys, and distinct ones
  collide with probability about ``2**-64`` per pair). ``chance_key="action"`` keys them by
  outcome id, as in Python.
* ``iterations`` is exact; ``time_limit`` runs from the clock the bot started on entry
  (``Budget.begin``), so setup is paid from it; the first exhausted stops, and so does
  ``Budget.stop``. ``on_progress(analysis)`` runs every ``every`` iterations and returning
  ``False`` stops the search.
* Memory: the pool never grows past ``max_memory_mb`` (MB = 2**20 bytes, counting
  ``sizeof(Node) + 8 * num_players`` bytes per slot, and for ``CyAZ`` 8 bytes per prior
  edge in use) nor past ``max_nodes`` nodes; at the
  cap no node is added (a descent that would expand plays out from the frontier instead),
  so the search keeps answering within its budget. The tree is freed after the answer is
  produced, on a background thread (``ratai.search.common.free_later``), without the GIL.
* Root control: ``allowed`` restricts the root's moves (UCI ``searchmoves``); every
  reported move carries its own PV and per-seat values; moves are sorted by visits, value,
  prior, then a seeded random key (``SearchRng.tiebreak``), never by action id.
* ``threads=N`` (root parallelism, Chaslot, Winands & van den Herik 2008, "Parallel
  Monte-Carlo Tree Search"): N independent trees, each with its own stream, searched at
  once on N threads (the loops hold no GIL); the root statistics are summed and each move's
  PV comes from the tree that visited it most. Iteration budgets are split exactly, so a
  seeded search with an ``iterations`` budget is reproducible for each N (another N is
  another search: its answer may differ); ``threads=1`` is
  the single-tree search. ``on_progress`` runs on the calling thread every ``every``
  iterations of the first tree, with the merged statistics (the other trees pause for it).
* Tree reuse (``analyze(..., keep=True)`` then ``reanalyze(state, keys, ...)``; the bots'
  ``reuse_tree=True``): ``CyUCT`` (perfect information) walks the public actions played
  since; ``CyISMCTS`` and ``CyAZ`` walk the keys the seat observes
  (``ratai.search.reuse.observed_path``: own actions, other seats' observable actions or,
  with ``merge``, the seat's information-state digest after them, chance perceptions by
  information-state digest), never a hidden key (``CyAZ`` gives the
  new root the network's priors at the seat's view). The kept statistics carry over; a
  missing node returns ``None`` (the bot searches afresh). ``ponder(state, keys, budget,
  srng)`` moves the root the same way and searches on until the budget (time and/or stop
  flag) ends: the bots' ``ponder=True`` run it on a background thread between their moves.
  A kept tree keeps its pool (the siblings of the new root stay allocated), so the memory
  cap bounds it.
* ``iterations``, ``nodes`` and ``max_depth`` count what the Python search counts (nodes:
  the root plus every child created; a UCT child exists once it is first tried or sampled).

Where results differ from the Python search for the same seed:

* The random streams differ (splitmix64 here, ``random.Random`` / numpy there), so the
  sampled trees and thus the numbers differ; their distributions are the same.
* Only the ``"random"`` playout without cut-off is compiled: ``rollout="heuristic"`` or a
  ``rollout_cutoff`` runs the Python search (``search_backend="auto"``) or raises
  (``search_backend="cython"``).
* Chance keys are 64-bit digests, not strings (see above).
"""

import contextvars
import threading

import numpy as np

from ratai.engines.api import keep_views

from libc.math cimport log, pow, sqrt
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec


cdef extern from *:
    """
    /* Page-mapped pools for the search tree (see the module docstring): mmap / mremap /
       munmap where the kernel has mremap (Linux), else the C heap. */
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
    static void *ratai_pool_new(size_t nbytes) {
        void *p = mmap(NULL, nbytes ? nbytes : 1, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    static void *ratai_pool_resize(void *p, size_t old, size_t nbytes) {
        void *q = mremap(p, old ? old : 1, nbytes ? nbytes : 1, MREMAP_MAYMOVE);
        return q == MAP_FAILED ? NULL : q;
    }
    static void ratai_pool_free(void *p, size_t nbytes) {
        if (p != NULL) munmap(p, nbytes ? nbytes : 1);
    }
    #else
    static void *ratai_pool_new(size_t nbytes) { return malloc(nbytes ? nbytes : 1); }
    static void *ratai_pool_resize(void *p, size_t old, size_t nbytes) {
        (void)old; return realloc(p, nbytes ? nbytes : 1);
    }
    static void ratai_pool_free(void *p, size_t nbytes) { (void)nbytes; free(p); }
    #endif
    """
    void* ratai_pool_new(size_t nbytes) nogil
    void* ratai_pool_resize(void* p, size_t old, size_t nbytes) nogil
    void ratai_pool_free(void* p, size_t nbytes) nogil

from .core cimport (CY_MAXP, CyState, c_random_playout, cy_mix, cy_mix_arr, ratai_splitmix64,
                    ratai_uniform)
from .nn cimport CyNet

from ratai.search.common import (
    DEFAULT_MAX_MEMORY_MB,
    Analysis,
    MoveStat,
    PVStep,
    SearchRng,
    apply_for_labels,
    free_later,
    root_labels,
    sort_moves,
    start_reaper,
)
from ratai.search.uct import MULTI_PV_LIMIT, with_pvs

__all__ = ["CyUCT", "CyISMCTS", "CyAZ", "is_cython_state", "info_hash", "info_hash_nogil",
           "NODE_BYTES"]

cdef enum:
    CHANCE = -1
    TERMINAL = -4
    UNSEEN = -99       # a UCT child slot not tried yet / player not known yet

# IS-MCTS child keys: decision children by action id (>= 0); chance children tagged.
cdef unsigned long long TAG_INFO = 1ULL << 63
cdef unsigned long long TAG_ACTION = 1ULL << 62

# Wall time of one nogil chunk of iterations (s): the latency of cancel and of other threads.
cdef double CHUNK_S = 0.001
# A ponder search's chunk (s): it takes the GIL between chunks only to poll the bot's
# ``stop`` flag (its own stop is ``halt_now``, seen every iteration), so a thread doing
# Python work meanwhile (the game, the other seats' bots) is not made to hand the GIL over
# every millisecond, and the ponder thread does not wait ~5 ms (the switch interval) for
# it after every chunk.
cdef double PONDER_CHUNK_S = 0.02
# Largest pool (slots): indices are C ints.
cdef long MAX_SLOTS = 1L << 30


ctypedef struct Node:
    unsigned long long key   # IS-MCTS: action id, or a tagged chance key; UCT decision
                             # node: its number of legal moves + 1 (0: not yet known)
    int action               # the action (decision or chance outcome) that led here
    int player               # who acts here: a seat, CHANCE, TERMINAL or UNSEEN
    int first                # children: [first, first + nch), room for cap
    int nch
    int cap
    int visits
    int avail                # IS-MCTS availability count
    int edges                # CyAZ: the node's prior block in the edge pool (-1: none)


ctypedef struct Edge:
    # CyAZ's priors (Leela Zero's edges): a block of ``count`` (action, prior) entries after
    # a header entry whose two 32-bit fields are the block's ``count`` and ``cap``; a move's
    # ``Node`` exists only once the search first selects it.
    int action
    float prior

#: Bytes of one node slot without its value sums (add ``8 * num_players``).
NODE_BYTES = sizeof(Node)


def is_cython_state(state) -> bool:
    """True when ``state`` is a Cython twin state (a ``CyState``)."""
    return isinstance(state, CyState)


def info_hash(state, int player) -> int:
    """``c_info_hash(player)`` of a Cython state: the IS-MCTS chance key (for tests)."""
    return (<CyState?>state).c_info_hash(player)


def info_hash_nogil(state, int player):
    """``c_info_hash_into(player)`` of a Cython state (the digest computed without the GIL),
    or ``None`` when the twin has no compiled digest (for tests)."""
    cdef unsigned long long h = 0
    cdef CyState cs = <CyState?>state
    cdef int rc
    with nogil:
        rc = cs.c_info_hash_into(player, &h)
    return h if rc == 0 else None


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <double>ts.tv_sec + <double>ts.tv_nsec * 1e-9


def monotonic() -> float:
    """The search's clock (``CLOCK_MONOTONIC``, seconds)."""
    return now()


ctypedef struct Tree:
    # The node pool: ``nodes[i]`` and value sums ``vals[i * n : (i + 1) * n]``; it grows by
    # doubling up to ``max_slots`` slots. ``edges``: CyAZ's prior blocks (``esize`` entries
    # used of ``ecap``; grows by doubling), empty for the other searches. Slots and edges in
    # use stay within ``max_bytes`` together (``max_memory_mb``).
    Node* nodes
    double* vals
    int n
    int size
    int cap
    long max_slots
    Edge* edges
    long esize
    long ecap
    double max_bytes


cdef inline long tree_slot_bytes(Tree* t) noexcept nogil:
    """Bytes of one slot: its ``Node`` and its value sums."""
    return <long>(sizeof(Node) + sizeof(double) * t.n)


cdef inline long tree_bytes(Tree* t) noexcept nogil:
    return <long>t.cap * tree_slot_bytes(t) + t.ecap * <long>sizeof(Edge)


cdef inline long tree_used_bytes(Tree* t) noexcept nogil:
    """Bytes of the slots and edges in use (the pages a search has touched)."""
    return <long>t.size * tree_slot_bytes(t) + t.esize * <long>sizeof(Edge)


cdef inline bint tree_fits(Tree* t, long slots, long edges) noexcept nogil:
    """Whether ``slots`` more slots and ``edges`` more edge entries stay within
    ``max_bytes``."""
    return tree_used_bytes(t) + <double>slots * tree_slot_bytes(t) \
        + <double>edges * sizeof(Edge) <= t.max_bytes


cdef inline int* edge_head(Tree* t, long b) noexcept nogil:
    """``[count, cap]`` of the edge block at ``b``."""
    return <int*>&t.edges[b]


cdef long tree_edge_block(Tree* t, int cap) noexcept nogil:
    """A new edge block with room for ``cap`` entries (count 0) at the end of the edge
    pool; its index, or -1 at the byte cap or when out of memory."""
    cdef long newcap = t.ecap if t.ecap > 0 else 256
    cdef void* p
    cdef int* h
    if t.esize + cap + 1 > MAX_SLOTS:    # indices are C ints
        return -1
    if not tree_fits(t, 0, cap + 1):
        return -1
    while t.esize + cap + 1 > newcap:
        newcap *= 2
    if newcap != t.ecap:
        if t.edges == NULL:
            p = ratai_pool_new(sizeof(Edge) * newcap)
        else:
            p = ratai_pool_resize(t.edges, sizeof(Edge) * t.ecap, sizeof(Edge) * newcap)
        if p == NULL:
            return -1
        t.edges = <Edge*>p
        t.ecap = newcap
    cdef long b = t.esize
    t.esize += cap + 1
    h = edge_head(t, b)
    h[0] = 0
    h[1] = cap
    return b


cdef int tree_alloc(Tree* t, int k) noexcept nogil:
    """``k`` zeroed slots at the end of the pool; returns the first index, or -1 when the
    pool is at its cap (or out of memory)."""
    cdef long first = t.size, newcap = t.cap
    cdef void* p
    cdef long i
    if first + k > t.max_slots:
        return -1
    if not tree_fits(t, k, 0):
        return -1
    while first + k > newcap:
        newcap *= 2
    if newcap > t.max_slots:
        newcap = t.max_slots
    if newcap != t.cap:
        p = ratai_pool_resize(t.nodes, sizeof(Node) * t.cap, sizeof(Node) * newcap)
        if p == NULL:
            return -1
        t.nodes = <Node*>p
        p = ratai_pool_resize(t.vals, sizeof(double) * t.cap * t.n,
                              sizeof(double) * newcap * t.n)
        if p == NULL:
            # keep both arrays at one capacity: shrink the nodes back (never fails)
            p = ratai_pool_resize(t.nodes, sizeof(Node) * newcap, sizeof(Node) * t.cap)
            if p != NULL:
                t.nodes = <Node*>p
            return -1
        t.vals = <double*>p
        t.cap = <int>newcap
    memset(&t.nodes[first], 0, sizeof(Node) * k)
    memset(&t.vals[first * t.n], 0, sizeof(double) * k * t.n)
    for i in range(first, first + k):
        t.nodes[i].player = UNSEEN
        t.nodes[i].first = -1
        t.nodes[i].edges = -1
    t.size = <int>(first + k)
    return <int>first


cdef int tree_add_child(Tree* t, int parent, unsigned long long key, int action,
                        int player) noexcept nogil:
    """Append a child to ``parent``'s block (moving the block when it is full); -1 at the
    cap."""
    cdef Node* nd = &t.nodes[parent]
    cdef int newcap, first, c
    if nd.nch == nd.cap:
        newcap = 4 if nd.cap == 0 else nd.cap * 2
        first = tree_alloc(t, newcap)
        if first < 0:
            return -1
        nd = &t.nodes[parent]           # alloc may have moved the pool
        if nd.nch:
            memcpy(&t.nodes[first], &t.nodes[nd.first], sizeof(Node) * nd.nch)
            memcpy(&t.vals[first * t.n], &t.vals[nd.first * t.n],
                   sizeof(double) * nd.nch * t.n)
        nd.first = first
        nd.cap = newcap
    c = nd.first + nd.nch
    nd.nch += 1
    t.nodes[c].key = key
    t.nodes[c].action = action
    t.nodes[c].player = player
    t.nodes[c].avail = 1
    return c


cdef int tree_new_root(Tree* t, int player) noexcept nogil:
    cdef int r = tree_alloc(t, 1)
    if r >= 0:
        t.nodes[r].player = player
        t.nodes[r].avail = 1
    return r


cdef inline int tree_find(Tree* t, int parent, unsigned long long key) noexcept nogil:
    cdef Node* nd = &t.nodes[parent]
    cdef int i
    for i in range(nd.first, nd.first + nd.nch):
        if t.nodes[i].key == key:
            return i
    return -1


cdef inline double tree_mean(Tree* t, int i, int p) noexcept nogil:
    if p < 0 or t.nodes[i].visits == 0:
        return 0.0
    return t.vals[i * t.n + p] / t.nodes[i].visits


cdef inline bint tree_better(Tree* t, int i, int j, int p) noexcept nogil:
    """Whether child ``i`` ranks above child ``j`` in a principal variation for seat ``p``:
    more visits, then a higher mean, then the lower action id (as ``tree_pv``'s key)."""
    cdef double mi, mj
    if t.nodes[i].visits != t.nodes[j].visits:
        return t.nodes[i].visits > t.nodes[j].visits
    mi = tree_mean(t, i, p)
    mj = tree_mean(t, j, p)
    if mi != mj:
        return mi > mj
    return t.nodes[i].action < t.nodes[j].action


cdef struct Argmax:
    int best        # the kept candidate (-1: none offered)
    double u        # its score
    int ties        # candidates offered with exactly that score


cdef inline void argmax_init(Argmax* m) noexcept nogil:
    m.best = -1
    m.u = -1e300
    m.ties = 1


cdef inline void argmax_offer(Argmax* m, int i, double u,
                              unsigned long long* rng) noexcept nogil:
    """Keep candidate ``i`` if its score ``u`` is the highest offered so far; exact ties
    are broken uniformly at random (reservoir sampling: the k-th tied candidate replaces
    the kept one with probability 1/k, one draw from ``rng`` per tie)."""
    if u > m.u:
        m.best = i
        m.u = u
        m.ties = 1
    elif u == m.u:
        m.ties += 1
        if ratai_uniform(rng) * m.ties < 1.0:
            m.best = i


cdef class _TreeMem:
    """Owner of one ``Tree``'s memory; freed without the GIL when the last reference goes
    (``free_later`` drops it on a background thread)."""

    cdef Tree t

    def __cinit__(self, int n, long max_slots, int cap=1024, double max_bytes=1e300):
        self.t.n = n
        self.t.size = 0
        self.t.max_bytes = max_bytes
        self.t.edges = NULL
        self.t.esize = 0
        self.t.ecap = 0
        self.t.max_slots = max(16, min(max_slots, MAX_SLOTS))
        cap = <int>min(<long>cap, self.t.max_slots)
        self.t.cap = cap
        self.t.nodes = <Node*>ratai_pool_new(sizeof(Node) * cap)
        self.t.vals = <double*>ratai_pool_new(sizeof(double) * cap * n)
        if self.t.nodes == NULL or self.t.vals == NULL:
            raise MemoryError()

    def __dealloc__(self):
        cdef Node* a = self.t.nodes
        cdef double* b = self.t.vals
        cdef Edge* e = self.t.edges
        cdef size_t na = sizeof(Node) * self.t.cap, nb = sizeof(double) * self.t.cap * self.t.n
        cdef size_t ne = sizeof(Edge) * self.t.ecap
        self.t.nodes = NULL
        self.t.vals = NULL
        self.t.edges = NULL
        with nogil:
            ratai_pool_free(a, na)
            ratai_pool_free(b, nb)
            if e != NULL:
                ratai_pool_free(e, ne)


cdef class _Search:
    """Shared state of one compiled search (one tree): buffers, RNG, budget and statistics.

    Args (of the subclasses): ``max_nodes`` (nodes, ``None``: no node cap) and
    ``max_memory_mb`` (MB of the pool, ``None``: no memory cap; default 512), ``threads``
    (root-parallel trees, >= 1).
    """

    cdef int n, me, na
    cdef double c
    cdef _TreeMem mem
    cdef Tree* tr
    cdef CyState work
    cdef CyState root_state
    cdef unsigned long long rng
    cdef int* act
    cdef double* prob
    cdef int* idx
    cdef double* ret
    cdef int* path
    cdef unsigned char* allow
    cdef int path_cap
    cdef long max_nodes
    cdef int root                # index of the root node (0, or a kept subtree's root)
    cdef object max_memory_mb
    cdef public int threads
    cdef object error
    # statistics of the last search (depth_sum: tree plies summed over iterations)
    cdef public long iterations, nodes, max_depth, depth_sum
    cdef public bint capped
    # IS-MCTS: iterations of the last search that took the GIL for a determinization / a
    # chance key (the twin had no compiled code there); 0 in a fully nogil search.
    cdef public long gil_resamples, gil_hashes
    # ``halt``: set by :meth:`halt_now` from another thread, read by the nogil loop before
    # every iteration (a ponder search stops within one iteration, without the GIL).
    # ``chunk_s``: wall time of one nogil chunk (the GIL is taken between chunks).
    cdef int halt
    cdef double chunk_s

    def __cinit__(self, *args, **kwargs):
        self.halt = 0
        self.chunk_s = CHUNK_S
        self.act = NULL
        self.prob = NULL
        self.idx = NULL
        self.ret = NULL
        self.path = NULL
        self.allow = NULL

    def __dealloc__(self):
        free(self.act)
        free(self.prob)
        free(self.idx)
        free(self.ret)
        free(self.path)
        free(self.allow)

    def _limits(self, max_nodes, max_memory_mb, threads):
        if max_nodes is not None and (isinstance(max_nodes, bool) or int(max_nodes) < 1):
            raise ValueError(f"bad max_nodes {max_nodes!r}: allowed an int >= 1 or None")
        if max_memory_mb is not None and (isinstance(max_memory_mb, bool)
                                          or not float(max_memory_mb) > 0):
            raise ValueError(f"bad max_memory_mb {max_memory_mb!r}: allowed MB > 0 or None")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"bad threads {threads!r}: allowed an int >= 1")
        self.max_nodes = (1L << 62) if max_nodes is None else int(max_nodes)
        self.max_memory_mb = max_memory_mb
        self.threads = threads

    def _share_nodes(self):
        """One root-parallel worker's share of ``max_nodes`` (``None``: no cap)."""
        return None if self.max_nodes >= (1L << 62) else max(1, self.max_nodes // self.threads)

    def _share_mb(self):
        """One worker's share of ``max_memory_mb`` (``None``: no cap)."""
        return None if self.max_memory_mb is None else self.max_memory_mb / self.threads

    def _set_limits(self, max_nodes, max_memory_mb):
        self.max_nodes = (1L << 62) if max_nodes is None else int(max_nodes)
        self.max_memory_mb = max_memory_mb

    def _drop_tree(self):
        """Detach the tree (its ``_TreeMem``, returned: freed where the caller drops it)."""
        m, self.mem = self.mem, None
        self.tr = NULL
        self.work = None
        return m

    cdef void setup(self, CyState state, unsigned long long seed, allowed) except *:
        cdef long slots = MAX_SLOTS
        cdef double max_bytes = 1e300, floor
        self.n = state.c_num_players()
        self.na = state.c_num_actions()
        self.rng = seed
        if self.max_memory_mb is not None:
            # at least the root and one edge block for its moves (az's priors): the one-node
            # floor of the Python search, so a tiny cap searches from the root alone rather
            # than raising MemoryError
            floor = <double>(sizeof(Node) + sizeof(double) * self.n) \
                + <double>(self.na + 2) * sizeof(Edge)
            max_bytes = max(float(self.max_memory_mb) * 1048576.0, floor)
            # clamped as a double: a huge cap (1e15 MB) cast to long overflowed, and the tree
            # stopped at 7 nodes
            slots = max(1, <long>min(max_bytes / (sizeof(Node) + sizeof(double) * self.n),
                                     <double>MAX_SLOTS))
        self.mem = _TreeMem(self.n, slots, 1024, max_bytes)
        self.tr = &self.mem.t
        self.root_state = state
        self.work = state.c_clone()
        free(self.act)
        free(self.prob)
        free(self.idx)
        free(self.ret)
        free(self.path)
        free(self.allow)
        self.allow = NULL
        self.act = <int*>malloc(sizeof(int) * (self.na + 1))
        self.prob = <double*>malloc(sizeof(double) * (self.na + 1))
        self.idx = <int*>malloc(sizeof(int) * (self.na + 1))
        self.ret = <double*>malloc(sizeof(double) * (self.n + 1))
        self.path_cap = 256
        self.path = <int*>malloc(sizeof(int) * self.path_cap)
        if self.act == NULL or self.prob == NULL or self.idx == NULL or self.ret == NULL \
                or self.path == NULL:
            raise MemoryError()
        if allowed is not None:
            self.allow = <unsigned char*>malloc(self.na + 1)
            if self.allow == NULL:
                raise MemoryError()
            memset(self.allow, 0, self.na + 1)
            for a in allowed:
                self.allow[<int>a] = 1
        self.root = 0
        self.iterations = 0
        self.gil_resamples = 0
        self.gil_hashes = 0
        self.nodes = 1
        self.max_depth = 0
        self.depth_sum = 0
        self.capped = False
        self.error = None

    cdef void rebase(self, CyState cs, srng) except *:
        """Continue a kept tree (``self.root`` already moved) from the position ``cs``: an
        unrestricted search (reuse is for those only), a fresh stream and fresh statistics."""
        free(self.allow)
        self.allow = NULL
        self.root_state = cs
        self.work = cs.c_clone()
        self.rng = <unsigned long long>srng.py.getrandbits(64)
        self.iterations = 0
        self.gil_resamples = 0
        self.gil_hashes = 0
        self.max_depth = 0
        self.depth_sum = 0
        self.capped = False
        self.halt = 0
        self.chunk_s = CHUNK_S

    cdef inline int push(self, int plen, int node) noexcept nogil:
        cdef void* p
        if plen == self.path_cap:
            p = realloc(self.path, sizeof(int) * self.path_cap * 2)
            if p == NULL:
                return -1
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

    cdef inline bint can_grow(self) noexcept nogil:
        if self.nodes >= self.max_nodes:
            self.capped = True
            return False
        return True

    cdef void finish(self, int plen, int depth) noexcept nogil:
        """Play out from ``self.work`` (mutated) and back the returns up the path."""
        cdef int i, j, nd, n = self.n
        cdef double* v
        self.depth_sum += depth
        if depth > self.max_depth:
            self.max_depth = depth
        if self.work.c_current_player() != TERMINAL:
            c_random_playout(self.work, &self.rng, self.act, self.prob)
        self.work.c_returns(self.ret)
        for i in range(plen):
            nd = self.path[i]
            self.tr.nodes[nd].visits += 1
            v = &self.tr.vals[nd * n]
            for j in range(n):
                v[j] += self.ret[j]

    cdef int iterate(self) noexcept nogil:
        return -1

    cdef long chunk(self, long todo, double deadline) noexcept nogil:
        """Up to ``todo`` iterations, stopping at ``deadline`` (< 0: none) or after
        ``CHUNK_S``; returns the count, or -1 on an error (``self.error``)."""
        cdef double t_end = now() + self.chunk_s
        cdef long i = 0
        if deadline >= 0 and deadline < t_end:
            t_end = deadline
        while i < todo:
            if now() >= t_end or self.halt:
                break
            if self.iterate() < 0:
                return -1
            i += 1
        return i

    def halt_now(self):
        """Stop the running loop (any thread) within one iteration; it stays stopped until
        the next :meth:`ponder` / ``reanalyze`` re-roots the tree."""
        self.halt = 1

    def _loop(self, long limit, double deadline, stop, lock, progress, int every):
        """Run iterations until ``limit`` (< 0: none), the monotonic ``deadline`` (< 0: none),
        ``stop`` (an Event) or ``progress()`` returning False (every ``every``)."""
        cdef long todo, k
        while True:
            if limit >= 0 and self.iterations >= limit:
                return
            if deadline >= 0 and now() >= deadline:
                return
            if (stop is not None and stop.is_set()) or self.halt:
                return
            todo = (limit - self.iterations) if limit >= 0 else (1L << 62)
            if progress is not None and every:
                todo = min(todo, every - self.iterations % every)
            if lock is not None:
                lock.acquire()
            try:
                with nogil:
                    k = self.chunk(todo, deadline)
            finally:
                if lock is not None:
                    lock.release()
            if k < 0:
                err, self.error = self.error, None
                raise err if err is not None else MemoryError("search tree")
            self.iterations += k
            if progress is not None and every and k and self.iterations % every == 0 \
                    and progress() is False:
                if stop is not None:
                    stop.set()
                return

    # -- reports --------------------------------------------------------------------------
    def _root_stats(self) -> dict:
        """``{action: (visits, sums per seat)}`` of the root's visited decision children."""
        cdef Tree* t = self.tr
        cdef int i, j, n = self.n
        cdef Node* root = &t.nodes[self.root]
        out = {}
        for i in range(root.first, root.first + root.nch):
            if t.nodes[i].key < TAG_ACTION and t.nodes[i].visits > 0:
                out[t.nodes[i].action] = (t.nodes[i].visits,
                                          [t.vals[i * n + j] for j in range(n)])
        return out

    def _tree_bytes(self) -> int:
        return tree_bytes(self.tr) if self.mem is not None else 0

    def _slots(self) -> int:
        return self.tr.size if self.mem is not None else 0

    def _used_bytes(self) -> int:
        """Bytes of the slots and edges in use (what ``max_memory_mb`` bounds)."""
        return tree_used_bytes(self.tr) if self.mem is not None else 0

    def fill(self) -> float:
        """The share of its caps the tree uses: the larger of the bytes in use over
        ``max_memory_mb`` and ``nodes`` over ``max_nodes`` (0 without a tree or caps). A
        bot does not continue a kept tree past half of it (``search_bots.KEEP_FILL``)."""
        cdef double f = 0.0
        if self.mem is None:
            return 0.0
        if self.max_memory_mb is not None:
            f = tree_used_bytes(self.tr) / (float(self.max_memory_mb) * 1048576.0)
        if self.max_nodes < (1L << 62):
            f = max(f, self.nodes / <double>self.max_nodes)
        return f


def _report(workers, legal, label, tie, int player, int n, budget, seed, str kind,
            priors=None):
    """The merged ``Analysis`` of one or more trees (root parallelism sums them); ``priors``
    (``{action: prior}``, az: the network's) or uniform."""
    visits = {a: 0 for a in legal}
    sums = {a: [0.0] * n for a in legal}
    owner = {}
    for w in workers:
        for a, (v, vals) in w._root_stats().items():
            if a in visits:
                visits[a] += v
                acc = sums[a]
                for j in range(n):
                    acc[j] += vals[j]
                if a not in owner or v > owner[a][0]:
                    owner[a] = (v, w)
    prior = 1.0 / len(legal) if legal else 0.0
    moves = []
    for a in legal:
        v = visits[a]
        vals = tuple((x / v) if v else 0.0 for x in sums[a])
        moves.append(MoveStat(int(a), label(a), int(v), vals[player],
                              prior if priors is None else float(priors[a]), vals))
    moves = with_pvs(sort_moves(moves, tie), player,
                     lambda a, lim: owner[a][1]._pv(a, lim, label(a)) if a in owner else (),
                     budget.end)
    return Analysis(moves[0].action, moves, moves[0].pv,
                    int(sum(w.iterations for w in workers)),
                    int(sum(w.nodes for w in workers)),
                    int(max(w.max_depth for w in workers)), budget.elapsed(), seed, player,
                    kind)


def _run(workers, budget, on_progress, int every, report):
    """Search with every worker at once (worker 0 on the calling thread) within ``budget``."""
    cdef int k = len(workers), i
    budget.begin()
    deadline = -1.0
    if budget.time_limit is not None:
        deadline = now() + budget.remaining()
    shares = [budget.split(k, i).iterations if budget.iterations is not None else -1
              for i in range(k)]
    stop = threading.Event()
    cancel = budget.stop
    locks = [threading.Lock() for _ in range(k)] if k > 1 else [None]
    if k > 1 and on_progress is not None:
        def progress():
            for lk in locks[1:]:
                lk.acquire()
            try:
                return on_progress(report())
            finally:
                for lk in locks[1:]:
                    lk.release()
    elif on_progress is not None:
        def progress():
            return on_progress(report())
    else:
        progress = None
    watch = stop
    if cancel is not None:
        # one Event the loops check: set by a progress stop or by the caller's cancel
        watch = _Either(stop, cancel)
    threads = []
    errors = []

    def work(w, share, lock):
        try:
            w._loop(share, deadline, watch, lock, None, 0)
        except BaseException as e:       # re-raised on the calling thread
            errors.append(e)
            stop.set()

    for i in range(1, k):
        # each worker runs in a copy of the caller's context, so the exact-belief filter's
        # deadline, cancel flag and caps (``belief_deadline``) hold on every thread
        th = threading.Thread(target=contextvars.copy_context().run,
                              args=(work, workers[i], shares[i], locks[i]), daemon=True,
                              name=f"ratai-search-{i}")
        th.start()
        threads.append(th)
    try:
        workers[0]._loop(shares[0], deadline, watch, None, progress, every)
    except BaseException:
        stop.set()
        raise
    finally:
        for th in threads:
            th.join()
    if errors:
        raise errors[0]


class _Either:
    """``is_set()`` of either of two Events."""

    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def is_set(self):
        return self.a.is_set() or self.b.is_set()

    def set(self):
        self.a.set()


def _seeds(srng, int k):
    """The splitmix64 seeds of ``k`` trees: the first is the single-tree search's seed."""
    return [<unsigned long long>srng.py.getrandbits(64) for _ in range(k)]


def _release(workers):
    for w in workers:
        free_later(w._drop_tree())


cdef class CyUCT(_Search):
    """UCT over a Cython state (see :class:`ratai.search.uct.UCT` and the module docstring).

    Args:
        player: the searching seat.
        exploration: the UCB1 constant ``c``.
        max_nodes: node cap (``None``: none).
        max_memory_mb: pool cap in MB (2**20 bytes; ``None``: none); split among threads.
        threads: root-parallel trees searched at once (>= 1).

    Raises:
        ValueError: a bad cap or thread count (named).
    """

    cdef object py_state
    cdef unsigned int* mark
    cdef unsigned int stamp

    def __cinit__(self, *args, **kwargs):
        self.mark = NULL

    def __dealloc__(self):
        free(self.mark)

    def __init__(self, int player, double exploration=1.0, max_nodes=None,
                 max_memory_mb=DEFAULT_MAX_MEMORY_MB, int threads=1):
        self.me = player
        self.c = exploration
        self._limits(max_nodes, max_memory_mb, threads)

    def _prepare(self, state, unsigned long long seed, allowed):
        cdef CyState cs = <CyState?>state
        self.setup(cs, seed, allowed)
        self.py_state = state
        free(self.mark)
        self.mark = <unsigned int*>malloc(sizeof(unsigned int) * (self.na + 1))
        if self.mark == NULL:
            raise MemoryError()
        memset(self.mark, 0, sizeof(unsigned int) * (self.na + 1))
        self.stamp = 0
        if tree_new_root(self.tr, cs.c_current_player()) < 0:
            raise MemoryError("search tree")

    def analyze(self, state, budget, srng, on_progress=None, int every=100, seed=None,
                str kind="mcts", allowed=None, bint keep=False):
        """Search ``state`` (not modified) and report an ``Analysis`` as ``analyze_uct``.

        ``allowed``: the root moves to search (validated by the caller; ``None``: all).
        ``keep``: keep the tree for :meth:`reanalyze` (tree reuse; one thread only) instead
        of releasing it.
        """
        budget.begin()
        player = self.me
        legal = state.legal_actions(player) if allowed is None else list(allowed)
        tie = srng.tiebreak(legal)
        start_reaper()
        labels = root_labels(state, player, legal, budget, MULTI_PV_LIMIT)
        k = self.threads
        shares = self._share_nodes(), self._share_mb()   # before ``self`` takes its share
        workers = [self] + [CyUCT(self.me, self.c, *shares, 1) for _ in range(k - 1)]
        for w, sd in zip(workers, _seeds(srng, k)):
            if k > 1:
                w._set_limits(*shares)
            w._prepare(state, sd, allowed)

        def report():
            return _report(workers, legal, labels.__getitem__, tie, player, self.n, budget,
                           seed, kind)

        _run(workers, budget, on_progress, every, report)
        out = report()
        if not (keep and k == 1):
            _release(workers)
        return out

    def reanalyze(self, state, path, budget, srng, on_progress=None, int every=100,
                  seed=None, str kind="mcts"):
        """Tree reuse: search ``state`` from the kept subtree reached by ``path`` (the
        actions, decisions and chance outcomes, played since the last search's root) and
        report as :meth:`analyze`. Returns ``None`` (nothing searched) when the tree was
        released or the subtree is missing (a move or outcome the tree never tried).

        Valid for the perfect-information search only, where every action on the path is
        public: the kept node is keyed by what the seat sees. The new statistics add to the
        kept ones (``visits`` include the earlier searches'); ``nodes`` counts the kept
        pool; the pool's cap still holds.
        """
        budget.begin()
        player = self.me
        legal = state.legal_actions(player)
        if not legal or not self._reroot(state, path, srng):
            return None
        tie = srng.tiebreak(legal)
        labels = root_labels(state, player, legal, budget, MULTI_PV_LIMIT)
        workers = [self]

        def report():
            return _report(workers, legal, labels.__getitem__, tie, player, self.n, budget,
                           seed, kind)

        _run(workers, budget, on_progress, every, report)
        return report()

    def _walk(self, path) -> int:
        """The node the actions ``path`` (ints, or ``(kind, action)`` keys of
        ``ratai.search.reuse.observed_path``) lead to from the root, or -1."""
        cdef int node = self.root, i, found, a
        for step in path:
            a = step[1] if isinstance(step, tuple) else step
            if isinstance(step, tuple) and step[0] not in ("a", "c"):
                return -1
            found = -1
            for i in range(self.tr.nodes[node].first,
                           self.tr.nodes[node].first + self.tr.nodes[node].nch):
                if self.tr.nodes[i].action == a:
                    found = i
                    break
            if found < 0:
                return -1
            node = found
        return node

    def _reroot(self, state, path, srng) -> bool:
        cdef CyState cs = <CyState?>state
        cdef int node
        if self.mem is None or self.threads != 1:
            return False
        node = self._walk(path)
        if node < 0 or self.tr.nodes[node].player != cs.c_current_player():
            return False
        self.root = node
        self.rebase(cs, srng)
        self.py_state = state
        return True

    def ponder(self, state, path, budget, srng) -> int:
        """Pondering: search on from the kept node ``path`` leads to (typically the seat's
        own move just played) until ``budget`` (a time limit and/or its ``stop`` flag) runs
        out. Returns the iterations run (0: the node is missing, nothing searched)."""
        budget.begin()
        if not self._reroot(state, path, srng):
            return 0
        self.chunk_s = PONDER_CHUNK_S
        _run([self], budget, None, 0, None)
        return self.iterations

    def kept_visits(self) -> int:
        """Visits of the current root (the kept statistics; 0 when released)."""
        return self.tr.nodes[self.root].visits if self.mem is not None else 0

    def release(self):
        """Hand the tree to the background reaper (a kept tree no longer wanted)."""
        if self.mem is not None:
            _release([self])

    cdef int legal_here(self, int node) noexcept nogil:
        """The legal moves at ``node`` into ``self.act`` (the root's filtered by ``allow``);
        returns their count."""
        cdef int k = self.work.c_legal_actions(self.act), i, j = 0
        if node == self.root and self.allow != NULL:
            for i in range(k):
                if self.allow[self.act[i]]:
                    self.act[j] = self.act[i]
                    j += 1
            k = j
        return k

    cdef int iterate(self) noexcept nogil:
        cdef int node = self.root, plen = 0, depth = 0, p, k, i, j, ch = -1, untried, best, a
        cdef int n = self.n
        cdef double logn, cv
        cdef Argmax am
        cdef Node* nd
        self.work.c_copy_from(self.root_state)
        plen = self.push(plen, node)
        while True:
            nd = &self.tr.nodes[node]
            p = nd.player
            if p == TERMINAL:
                break
            if p == CHANCE:
                # an outcome drawn by probability; its child is created when first drawn
                k = self.work.c_chance_outcomes(self.act, self.prob)
                a = self.act[self.pick_outcome(k)]
                self.work.c_apply(a)
                depth += 1
                ch = -1
                for i in range(nd.first, nd.first + nd.nch):
                    if self.tr.nodes[i].action == a:
                        ch = i
                        break
                if ch < 0:
                    if not self.can_grow():
                        break
                    ch = tree_add_child(self.tr, node, 0, a, self.work.c_current_player())
                    if ch < 0:
                        self.capped = True
                        break
                    self.nodes += 1
                node = ch
                plen = self.push(plen, node)
                if plen < 0:
                    return -1
                continue
            # Children are created one at a time as they are tried (a block that grows, as
            # in IS-MCTS), so an untried move costs no slot; ``key`` holds the number of
            # legal moves + 1 once known (0: not yet).
            if nd.key == 0:
                k = self.legal_here(node)
                nd = &self.tr.nodes[node]
                nd.key = <unsigned long long>(k + 1)
            untried = <int>(nd.key - 1) - nd.nch
            if untried > 0 and not self.can_grow():
                if nd.nch == 0:
                    break       # no child tried and the node cap reached: play out
                untried = 0     # select among the tried children
            if untried > 0:
                k = self.legal_here(node)
                self.stamp += 1
                nd = &self.tr.nodes[node]
                for i in range(nd.first, nd.first + nd.nch):
                    self.mark[self.tr.nodes[i].action] = self.stamp
                j = self.below(untried)
                a = -1
                for i in range(k):
                    if self.mark[self.act[i]] != self.stamp:
                        if j == 0:
                            a = self.act[i]
                            break
                        j -= 1
                ch = tree_add_child(self.tr, node, 0, a, UNSEEN)
                if ch >= 0:
                    self.work.c_apply(a)
                    self.tr.nodes[ch].player = self.work.c_current_player()
                    self.nodes += 1
                    plen = self.push(plen, ch)
                    if plen < 0:
                        return -1
                    depth += 1
                    break
                self.capped = True  # the pool cap
                nd = &self.tr.nodes[node]
                if nd.nch == 0:
                    break
            # UCB1 over the (tried) children, maximising the mover's own component; exact
            # ties broken uniformly (reservoir sampling).
            logn = log(<double>nd.visits) if nd.visits > 1 else 0.0
            argmax_init(&am)
            for i in range(nd.first, nd.first + nd.nch):
                cv = self.tr.nodes[i].visits
                if cv == 0:
                    continue    # untried under the cap
                argmax_offer(&am, i, self.tr.vals[i * n + p] / cv + self.c * sqrt(logn / cv),
                             &self.rng)
            best = am.best
            if best < 0:
                break
            self.work.c_apply(self.tr.nodes[best].action)
            node = best
            plen = self.push(plen, node)
            if plen < 0:
                return -1
            depth += 1
        self.finish(plen, depth)
        return 0

    def _pv(self, int first_action, int limit=64, first_label=None) -> tuple:
        """As ``ratai.search.uct.tree_pv``: ``first_action``, then the most visited line,
        labelled on a clone (``first_label``: the root move's label, when known)."""
        cdef Tree* t = self.tr
        cdef int node = self.root, i, best, p
        s = self.py_state.clone()
        pv = []
        while len(pv) < limit and not s.is_terminal():
            p = s.current_player()
            nd = t.nodes[node]
            if nd.first < 0:
                break
            best = -1
            if node == self.root:
                for i in range(nd.first, nd.first + nd.nch):
                    if t.nodes[i].action == first_action:
                        best = i
                if best < 0:
                    break
            else:
                for i in range(nd.first, nd.first + nd.nch):
                    if best < 0 or tree_better(t, i, best, p):
                        best = i
            if best < 0 or t.nodes[best].visits == 0:
                break
            a = t.nodes[best].action
            pv.append(PVStep(int(p), int(a), first_label if node == self.root
                             and first_label is not None else s.action_to_string(p, a)))
            apply_for_labels(s, a)
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
        max_nodes, max_memory_mb, threads: as :class:`CyUCT`.
        merge: after another seat's move, go on from the node's child keyed by the
            searcher's information state (the move's own child keeps the mover's
            statistics); ``ratai.search.ismcts.merges_moves`` of the bot's
            ``opponent_key``. False: the move's child is the continuation.
    """

    cdef bint by_info
    cdef public bint merge
    cdef object np_rng
    cdef object label_state
    cdef object root_obs
    cdef object from_obs
    cdef bint fast

    def __init__(self, int player, double exploration=0.7, str chance_key="infostate",
                 max_nodes=None, max_memory_mb=DEFAULT_MAX_MEMORY_MB, int threads=1,
                 bint merge=False):
        if chance_key not in ("infostate", "action"):
            raise ValueError(f"bad chance_key {chance_key!r}: allowed one of "
                             f"('infostate', 'action')")
        self.me = player
        self.c = exploration
        self.by_info = chance_key == "infostate"
        self.merge = merge
        self._limits(max_nodes, max_memory_mb, threads)

    def _sampler(self, state):
        """The root's determinization (``resample_from_infostate``, engines/api.py):
        ``c_resample_into`` where the twin's compiled sampler is exact (``fast_c_resample``;
        ``_prepare_resample`` first builds what it needs from the seat's information state,
        e.g. Rat Trap's exact belief as C structs), else ``game._sample_infostate`` from the
        root's observation (fixed, so built once) and the seat's views log, with that log
        kept in the sample (``api.keep_views``), as the compiled one."""
        self.fast = bool(getattr(state, "fast_c_resample", False))
        prepare = getattr(state, "_prepare_resample", None)
        if self.fast and prepare is not None:
            prepare(self.me)
        self.root_obs = state.observation(self.me)
        game = state.get_game()
        root = state
        me = self.me
        views = state._get_views()
        log = views[me] if views is not None else None
        self.from_obs = lambda p, obs, rng: keep_views(root, game._sample_infostate(
            p, obs, log, rng), me)

    def _prepare(self, state, unsigned long long seed, allowed, label_state, np_rng):
        cdef CyState cs = <CyState?>state
        self.setup(cs, seed, allowed)
        self.label_state = label_state
        self.np_rng = np_rng
        self._sampler(state)
        if tree_new_root(self.tr, self.me) < 0:
            raise MemoryError("search tree")

    def analyze(self, state, budget, srng, on_progress=None, int every=100, seed=None,
                str kind="ismcts", allowed=None, bint keep=False):
        """Search from the seat's information state in ``state``; as ``ISMCTS.analyze``.

        ``state`` is read only through the seat's determinizations (``c_resample_into`` /
        ``resample_from_infostate``) and the seat's own legal actions; labels come from one
        extra determinization. ``allowed``: the root moves to search (``None``: all).
        ``keep``: keep the tree for :meth:`reanalyze` / :meth:`ponder` (one thread only)
        instead of releasing it.

        Raises:
            ValueError: a root this kind does not search (:meth:`_rootable`: az at a
                SIMULTANEOUS node).
        """
        budget.begin()
        player = self.me
        if not self._rootable(state):
            raise ValueError(f"{kind} does not search a SIMULTANEOUS root; use the "
                             "sequential view of the game")
        legal = state.legal_actions(player) if allowed is None else list(allowed)
        tie = srng.tiebreak(legal)
        label_state = state.resample_from_infostate(player, srng.child_seed())
        start_reaper()
        labels = root_labels(label_state, player, legal, budget, MULTI_PV_LIMIT)
        root, priors = self._root_setup(state, legal, srng)
        k = self.threads
        shares = self._share_nodes(), self._share_mb()   # before ``self`` takes its share
        workers = [self] + [self._twin(shares) for _ in range(k - 1)]
        seeds = _seeds(srng, k)
        for i, w in enumerate(workers):
            if k > 1:
                w._set_limits(*shares)
            np_rng = srng.np if i == 0 else np.random.default_rng(seeds[i])
            w._prepare_worker(state, seeds[i], allowed, label_state, np_rng, root)

        def report():
            return _report(workers, legal, labels.__getitem__, tie, player, self.n, budget,
                           seed, kind, priors)

        _run(workers, budget, on_progress, every, report)
        out = report()
        if not (keep and k == 1):
            _release(workers)
        return out

    def determinizations(self, state, int count, seed=0):
        """The worlds a search from ``state`` iterates on, for tests and inspection: a list
        of ``count`` new states of the game (empty histories), each drawn as one
        :meth:`analyze` iteration draws its determinization (``determinize``: the seat's
        compiled sampler and, in ``az`` with ``hidden_moves="policy"``, the other seats'
        hidden moves redrawn). ``seed``: as :meth:`analyze`'s (an int or None)."""
        cdef CyState w
        srng = SearchRng(seed, state, self.me)
        legal = state.legal_actions(self.me)
        label_state = state.resample_from_infostate(self.me, srng.child_seed())
        root, _ = self._root_setup(state, legal, srng)
        self._prepare_worker(state, _seeds(srng, 1)[0], None, label_state, srng.np, root)
        out = []
        try:
            for _ in range(count):
                if self.determinize() < 0:
                    raise self.error
                w = self.work.c_clone()
                w._hist = []
                w._hist_shared = False
                w._views = None
                out.append(w)
        finally:
            _release([self])
        return out

    def _root_setup(self, state, legal, srng):
        """What every worker's root needs, computed once per :meth:`analyze`, and the
        reported priors (``{action: prior}``; ``None``: uniform)."""
        return None, None

    def _twin(self, shares):
        """Another worker with this search's settings (``threads > 1``); ``shares``: its
        node and memory limits."""
        return CyISMCTS(self.me, self.c, "infostate" if self.by_info else "action", *shares,
                        1, self.merge)

    def _prepare_worker(self, state, unsigned long long seed, allowed, label_state, np_rng,
                        root):
        """Set up one worker's tree; ``root``: :meth:`_root_setup`'s first value."""
        self._prepare(state, seed, allowed, label_state, np_rng)

    def _walk(self, keys) -> int:
        """The node the observed ``keys`` (``ratai.search.reuse.observed_path``) lead to
        from the root, or -1 (a key this tree never saw, or one of a kind it does not use)."""
        cdef int node = self.root
        cdef unsigned long long want
        for key in keys:
            kind = key[0]
            if kind == "a":
                want = <unsigned long long>key[1]
            elif kind == "c" and not self.by_info:
                want = TAG_ACTION | <unsigned long long>key[1]
            elif kind == "i" and (self.by_info or self.merge) and key[2] is not None:
                want = TAG_INFO | (<unsigned long long>key[2] >> 1)
            else:
                return -1
            node = tree_find(self.tr, node, want)
            if node < 0:
                return -1
        return node

    def _reroot(self, state, keys, srng) -> bool:
        """Move the root to the node ``keys`` lead to, searching from ``state`` (the
        seat's information state there) next; False when the tree is gone or the node
        missing."""
        cdef CyState cs = <CyState?>state
        cdef int node
        if self.mem is None or self.threads != 1:
            return False
        node = self._walk(keys)
        if node < 0:
            return False
        self.root = node
        self.rebase(cs, srng)
        self._sampler(state)
        self.np_rng = srng.np
        return True

    def reanalyze(self, state, keys, budget, srng, on_progress=None, int every=100,
                  seed=None, str kind="ismcts"):
        """Tree reuse: search the seat's information state in ``state`` from the kept node
        the observed ``keys`` lead to (``ratai.search.reuse.observed_path``: own actions,
        other seats' observable actions, or with ``merge`` the seat's information state
        after them, chance perceptions keyed by the seat's information state; never a hidden
        key) and report as :meth:`analyze`. Returns ``None`` (nothing
        searched) when the tree was released or the node is missing.

        The kept statistics carry over (``visits`` include the earlier searches'); ``nodes``
        counts the kept pool, whose cap still holds. The tree is kept for the next call.
        """
        budget.begin()
        player = self.me
        legal = state.legal_actions(player)
        if not legal or not self._rootable(state) or not self._reroot(state, keys, srng):
            return None
        tie = srng.tiebreak(legal)
        label_state = state.resample_from_infostate(player, srng.child_seed())
        labels = root_labels(label_state, player, legal, budget, MULTI_PV_LIMIT)
        self.label_state = label_state
        priors = self._continued_root(state, legal, srng)
        workers = [self]

        def report():
            return _report(workers, legal, labels.__getitem__, tie, player, self.n, budget,
                           seed, kind, priors)

        _run(workers, budget, on_progress, every, report)
        return report()

    def _rootable(self, state) -> bool:
        """Whether :meth:`reanalyze` may continue at ``state`` (checked before the root
        moves)."""
        return True

    def _continued_root(self, state, legal, srng):
        """Set up the continued root (after :meth:`_reroot`); the reported priors
        (``{action: prior}``), ``None``: uniform."""
        return None

    def ponder(self, state, keys, budget, srng) -> int:
        """Pondering: search on from the kept node ``keys`` lead to (typically the seat's
        own move just played) while other seats think, until ``budget`` (a time limit and/or
        its ``stop`` flag) runs out; the root is ``state``'s information state for the seat.
        Returns the iterations run (0: the node is missing, nothing searched). Releases no
        GIL-holding work: the loop runs in nogil chunks (see the module docstring)."""
        budget.begin()
        if not self._reroot(state, keys, srng):
            return 0
        self.chunk_s = PONDER_CHUNK_S
        _run([self], budget, None, 0, None)
        return self.iterations

    def release(self):
        """Hand the tree to the background reaper (a kept tree no longer wanted)."""
        if self.mem is not None:
            _release([self])

    def kept_visits(self) -> int:
        """Visits of the current root (the kept statistics; 0 when released)."""
        return self.tr.nodes[self.root].visits if self.mem is not None else 0

    cdef int determinize(self) noexcept nogil:
        """Draw the iteration's determinization into ``self.work``; 0, or -1 on an error."""
        if self.fast and self.root_state.c_resample_into(self.me, self.work, &self.rng) == 0:
            return 0
        with gil:
            self.gil_resamples += 1
            try:
                self.work.c_copy_from(<CyState?>self.from_obs(self.me, self.root_obs,
                                                              self.np_rng))
            except BaseException as e:
                self.error = e
                return -1
        return 0

    cdef int chance_child(self, int node, int* plen) noexcept nogil:
        """Sample a chance outcome by probability, apply it to ``self.work`` and return the
        child of ``node`` keyed by the seat's perception of it (created if new) pushed on the
        path; -2 when the tree is full (the caller plays out from here), -1 on an error."""
        cdef int k = self.work.c_chance_outcomes(self.act, self.prob)
        cdef int a = self.act[self.pick_outcome(k)]
        cdef unsigned long long key
        self.work.c_apply(a)
        key = self.chance_key(a)
        if key == 0:
            return -1
        return self.keyed_child(node, key, a, CHANCE, plen)

    cdef int keyed_child(self, int node, unsigned long long key, int a, int player,
                         int* plen) noexcept nogil:
        """``node``'s child keyed ``key`` (created for move ``a`` with ``player`` if new),
        pushed on the path; -2 when the tree is full, -1 on an error."""
        cdef int ch = tree_find(self.tr, node, key)
        if ch < 0:
            if not self.can_grow():
                return -2
            ch = tree_add_child(self.tr, node, key, a, player)
            if ch < 0:
                self.capped = True
                return -2
            self.nodes += 1
        plen[0] = self.push(plen[0], ch)
        if plen[0] < 0:
            return -1
        return ch

    cdef int merged_next(self, int node, int a, int p, int* plen, int* run) noexcept nogil:
        """After another seat ``p``'s move ``a`` at ``node`` (applied to ``self.work``;
        ``merge``, see ``ratai.search.ismcts.merged_next``): the node the descent goes on
        from, pushed on the path with the move's own child (the mover's statistics), or -2
        when the tree is full (the move's child pushed), -1 on an error. While ``p`` moves
        again its run goes on in the move's child (returned), and ``run`` remembers the path
        position of the run's first move child (``run[0]``, -1: no run), the node the run
        began at (``run[1]``; nothing is added to its parent meanwhile, so its index holds)
        and the first move (``run[2]``); when the run ends, the child of the node the run
        began at keyed by the searcher's
        information state (created if new). Adding that child may move the block holding
        the run's first move child, so that one is found again (on the path, and as
        ``node`` when the run had two moves), and the move's child is found after it."""
        cdef unsigned long long key
        cdef int ch, m, base, first = -1
        if self.work.c_current_player() == p:
            m = tree_find(self.tr, node, <unsigned long long>a)
            plen[0] = self.push(plen[0], m)
            if plen[0] < 0:
                return -1
            if run[0] < 0:
                run[0] = plen[0] - 1
                run[1] = node
                run[2] = a
            return m
        key = self.info_key()
        if key == 0:
            return -1
        base = node if run[0] < 0 else run[1]
        ch = self.keyed_child(base, key, a, UNSEEN, plen)
        if ch == -1:
            return -1
        if run[0] >= 0:
            first = tree_find(self.tr, base, <unsigned long long>run[2])
            if node == self.path[run[0]]:
                node = first
            self.path[run[0]] = first
            run[0] = -1
        m = tree_find(self.tr, node, <unsigned long long>a)
        plen[0] = self.push(plen[0], m)
        if plen[0] < 0:
            return -1
        return ch

    cdef unsigned long long chance_key(self, int a) noexcept nogil:
        if not self.by_info:
            return TAG_ACTION | <unsigned long long>a
        return self.info_key()

    cdef unsigned long long info_key(self) noexcept nogil:
        """The searcher's information state in ``self.work`` as a child key (0: an error)."""
        cdef unsigned long long h
        if self.work.c_info_hash_into(self.me, &h) == 0:
            return TAG_INFO | (h >> 1)
        with gil:
            self.gil_hashes += 1
            try:
                h = self.work.c_info_hash(self.me)
            except BaseException as e:
                self.error = e
                return 0
        return TAG_INFO | (h >> 1)

    cdef int iterate(self) noexcept nogil:
        cdef int node = self.root, plen = 0, depth = 0, p, k, i, j, ch, nu, best, a = -1
        cdef int n = self.n
        cdef int run[3]                 # another seat's run of moves (see merged_next)
        cdef bint added
        cdef unsigned long long key
        cdef double cv
        cdef Argmax am
        run[0] = -1
        if self.determinize() < 0:
            return -1
        plen = self.push(plen, node)
        while True:
            p = self.work.c_current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                depth += 1
                ch = self.chance_child(node, &plen)
                if ch == -1:
                    return -1
                if ch == -2:
                    break
                node = ch
                continue
            self.tr.nodes[node].player = p
            k = self.work.c_legal_actions(self.act)
            if node == self.root and self.allow != NULL:
                j = 0
                for i in range(k):
                    if self.allow[self.act[i]]:
                        self.act[j] = self.act[i]
                        j += 1
                k = j
            nu = 0
            for j in range(k):
                ch = tree_find(self.tr, node, <unsigned long long>self.act[j])
                self.idx[j] = ch
                if ch < 0:
                    nu += 1
                else:
                    self.tr.nodes[ch].avail += 1
            depth += 1
            added = False
            if nu and self.can_grow():
                i = self.below(nu)
                for j in range(k):
                    if self.idx[j] < 0:
                        if i == 0:
                            a = self.act[j]
                            break
                        i -= 1
                ch = tree_add_child(self.tr, node, <unsigned long long>a, a, p)
                if ch >= 0:
                    added = True
                    self.nodes += 1
                else:
                    self.capped = True
            if not added:
                # UCB1 with availability over the tried children; exact ties broken
                # uniformly.
                argmax_init(&am)
                for j in range(k):
                    ch = self.idx[j]
                    if ch < 0:
                        continue    # untried under the cap
                    cv = self.tr.nodes[ch].visits
                    argmax_offer(&am, ch, self.tr.vals[ch * n + p] / cv
                                 + self.c * sqrt(log(<double>self.tr.nodes[ch].avail) / cv),
                                 &self.rng)
                best = am.best
                if best < 0:
                    depth -= 1
                    break           # a frontier node at the cap: play out from here
                ch = best
                a = self.tr.nodes[ch].action
            self.work.c_apply(a)
            if self.merge and p != self.me:
                # another seat's move: its statistics are kept; once its run ends the
                # descent goes on from what the seat saw, ending at a new node (or the cap)
                ch = self.merged_next(node, a, p, &plen, run)
                if ch == -1:
                    return -1
                if ch == -2 or self.tr.nodes[ch].visits == 0:
                    break
                node = ch
                continue
            plen = self.push(plen, ch)
            if plen < 0:
                return -1
            if added:
                break           # play out from the new node
            node = ch
        self.finish(plen, depth)
        return 0

    def _pv(self, int first_action, int limit=64, first_label=None) -> tuple:
        """As ``ratai.search.ismcts._pv``: ``first_action``, then the most visited line
        through decision nodes, labelled on one determinization; stops at a chance node or
        an illegal move. ``first_label``: the root move's label, when known. The root move
        is one of the seat's own legal moves, the same in every determinization (the
        seat's information), so only the moves below it are checked against the
        labelling determinization."""
        cdef Tree* t = self.tr
        cdef int node = self.root, i, best, p, run = -1
        s = self.label_state.clone()
        pv = []
        while len(pv) < limit:
            p = s.current_player()
            nd = t.nodes[node]
            if p < 0 or nd.nch == 0:
                break
            best = -1
            if node == self.root:
                for i in range(nd.first, nd.first + nd.nch):
                    if t.nodes[i].key < TAG_ACTION and t.nodes[i].visits > 0 \
                            and t.nodes[i].action == first_action:
                        best = i
                        break
            else:
                legal = set(s.legal_actions())
                for i in range(nd.first, nd.first + nd.nch):
                    if t.nodes[i].key >= TAG_ACTION or t.nodes[i].visits == 0 \
                            or t.nodes[i].action not in legal:
                        continue
                    if best < 0 or t.nodes[i].visits > t.nodes[best].visits or (
                            t.nodes[i].visits == t.nodes[best].visits
                            and t.nodes[i].action < t.nodes[best].action):
                        best = i
            if best < 0:
                break
            a = t.nodes[best].action
            pv.append(PVStep(int(p), int(a), first_label if node == self.root
                             and first_label is not None else s.action_to_string(p, a)))
            apply_for_labels(s, a)
            if self.merge and p != self.me:
                if s.current_player() == p:     # the mover's run goes on
                    if run < 0:
                        run = node
                else:                           # on from what the seat observed of it
                    best = tree_find(t, node if run < 0 else run, TAG_INFO | (
                        <unsigned long long>info_hash(s, self.me) >> 1))
                    run = -1
                    if best < 0:
                        break
            node = best
        return tuple(pv)


# -- AlphaZero-style PUCT over IS-MCTS (the az bot) ------------------------------------------
cdef enum:
    SIMULTANEOUS_NODE = -2
    # ``hidden_moves="policy"``'s cache per search and thread (CyAZ.hidden_policy): views
    # (a power of two; filled to 3/4) and priors, ~1.1 MB in all
    HIDDEN_SLOTS = 4096
    HIDDEN_POOL = 131072


cdef class CyAZ(CyISMCTS):
    """PUCT over SO-ISMCTS determinizations with a network (the twin of
    :class:`ratai.search.az.AZ`; same selection, first-play urgency, root noise, expansion
    and leaf values, see that module).

    Compiled specifics: the network runs in C (``nn.CyNet.c_eval``, no GIL); the observation
    tensor of the determinized state comes from ``CyState.c_observation_tensor`` and, where
    a twin has no compiled writer (it returns -1), from ``observation_tensor`` with the GIL.
    Determinization and chance keys are those of :class:`CyISMCTS`. When a node is first
    evaluated, its priors go into an edge block (Leela Zero's edges: 8 bytes per legal
    move, in the tree's edge pool); a move's node (a slot with its value sums) is created
    only when the search first selects it, as in the Python search, so ``nodes`` counts
    what the Python search counts. With ``rollout_mix=1`` and no policy playout a leaf's
    first visit is its playout alone (its priors come when the search first descends
    through it; ``lazy``), as in the Python search. A move legal only in a later
    determinization gets its prior from one more evaluation there (appended to the
    block). ``max_memory_mb`` counts the slots and the edges in use. Random streams differ from the Python search
    (splitmix64), so the trees differ for the same seed; the distributions are the same.

    Args:
        player: the searching seat.
        model: a ``ratai.nn.Model`` (checked against the game by the bot).
        c_puct, dirichlet_alpha, noise_fraction, rollout_mix, fpu_reduction, chance_key,
        policy_playout, policy_temperature: as :class:`ratai.search.az.AZ` (validated by it
        / the bot).
        max_nodes, max_memory_mb, threads: as :class:`CyUCT`.
        merge: as :class:`CyISMCTS` (a new node the descent goes on from is a leaf).
        hidden_moves: ``"uniform"`` or ``"policy"``, as :class:`ratai.search.az.AZ`: with
            ``"policy"`` each determinization is rewound (``c_rewind_hidden_moves``) and
            the other seats' hidden moves redrawn from the network's priors at their views
            (``determinize``), through a per-thread cache of those priors (``hidden_policy``,
            ~1.1 MB, not counted in ``max_memory_mb``).
    """

    cdef object model
    cdef CyNet net
    cdef double c_puct, alpha, eps, mix, fpu, ptemp
    cdef int policy_playout
    cdef public bint lazy               # the network's value unused: priors on 2nd visit
    cdef int dsize
    cdef float* epr                     # the prior of each legal move at the current node
    cdef float* apr                     # scratch: the prior of each action at one node
    cdef object xarr
    cdef float* xbuf
    cdef float* scratch
    cdef double* pbuf
    cdef double* vbuf
    cdef int* slot
    cdef unsigned int* mark
    cdef unsigned int stamp
    cdef public long evaluations
    cdef public long py_tensors
    cdef public bint model_hidden       # hidden_moves="policy": rivals' hidden moves redrawn
    cdef public long hidden_draws       # hidden moves redrawn from the policy (this tree's)
    cdef public long hidden_evaluations  # evaluations for them (the rest from the cache)
    cdef unsigned long long* hkey       # the cache: a view's digest per slot (0: free)
    cdef int* hoff                      # its priors' offset in hpool
    cdef int* hlen                      # and their count
    cdef double* hpool
    cdef int hslots, hpool_used

    def __cinit__(self, *args, **kwargs):
        self.hkey = NULL
        self.hoff = NULL
        self.hlen = NULL
        self.hpool = NULL
        self.scratch = NULL
        self.pbuf = NULL
        self.vbuf = NULL
        self.slot = NULL
        self.mark = NULL
        self.epr = NULL
        self.apr = NULL

    def __dealloc__(self):
        free(self.scratch)
        free(self.pbuf)
        free(self.vbuf)
        free(self.slot)
        free(self.mark)
        free(self.epr)
        free(self.apr)
        self._free_hidden()

    cdef void _free_hidden(self):
        free(self.hkey)
        free(self.hoff)
        free(self.hlen)
        free(self.hpool)
        self.hkey = NULL
        self.hoff = NULL
        self.hlen = NULL
        self.hpool = NULL

    def __init__(self, int player, model, double c_puct=1.5, double dirichlet_alpha=0.3,
                 double noise_fraction=0.0, double rollout_mix=0.0, double fpu_reduction=0.1,
                 str chance_key="infostate", max_nodes=None,
                 max_memory_mb=DEFAULT_MAX_MEMORY_MB, int threads=1, int policy_playout=0,
                 double policy_temperature=1.0, bint merge=False,
                 str hidden_moves="uniform"):
        if chance_key not in ("infostate", "action"):
            raise ValueError(f"bad chance_key {chance_key!r}: allowed one of "
                             f"('infostate', 'action')")
        from ratai.search.az import HIDDEN_MOVES
        if hidden_moves not in HIDDEN_MOVES:
            raise ValueError(f"bad hidden_moves {hidden_moves!r}: allowed one of "
                             f"{HIDDEN_MOVES}")
        self.model_hidden = hidden_moves == "policy"
        self.me = player
        self.c = 0.0
        self.by_info = chance_key == "infostate"
        self.merge = merge
        self.model = model
        self.c_puct = c_puct
        self.alpha = dirichlet_alpha
        self.eps = noise_fraction
        self.mix = rollout_mix
        self.fpu = fpu_reduction
        self.policy_playout = policy_playout
        self.ptemp = policy_temperature
        self.lazy = rollout_mix == 1.0 and policy_playout == 0
        self._limits(max_nodes, max_memory_mb, threads)

    def _prepare_az(self, state, unsigned long long seed, allowed, label_state, np_rng,
                    net, root_priors, root_values):
        """Set up one tree: the pool (value sums per slot, an edge pool for the priors) and
        the root's edge block with ``root_priors`` (``{action: prior}``, noise included)."""
        cdef int j, r
        self._prepare(state, seed, allowed, label_state, np_rng)
        self.net = net
        self.dsize = net.d
        self.xarr = np.zeros(max(1, self.dsize), np.float32)
        cdef float[::1] xv = self.xarr
        self.xbuf = &xv[0]
        free(self.scratch)
        free(self.pbuf)
        free(self.vbuf)
        free(self.slot)
        free(self.mark)
        free(self.epr)
        free(self.apr)
        self.scratch = <float*>malloc(sizeof(float) * (net.h1 + net.h2 + 1))
        self.pbuf = <double*>malloc(sizeof(double) * (self.na + 1))
        self.vbuf = <double*>malloc(sizeof(double) * (self.n + 1))
        self.slot = <int*>malloc(sizeof(int) * (self.na + 1))
        self.mark = <unsigned int*>malloc(sizeof(unsigned int) * (self.na + 1))
        self.epr = <float*>malloc(sizeof(float) * (self.na + 1))
        self.apr = <float*>malloc(sizeof(float) * (self.na + 1))
        if self.scratch == NULL or self.pbuf == NULL or self.vbuf == NULL \
                or self.slot == NULL or self.mark == NULL or self.epr == NULL \
                or self.apr == NULL:
            raise MemoryError()
        memset(self.mark, 0, sizeof(unsigned int) * (self.na + 1))
        self.stamp = 0
        self.evaluations = 0
        self.py_tensors = 0
        self._prepare_hidden()
        r = self.root                   # the root made by ``_prepare``: expanded here
        self.tr.nodes[r].visits = 1
        for j in range(self.n):
            self.tr.vals[r * self.n + j] = root_values[j]
        if not self._root_edges(root_priors):
            raise MemoryError("search tree (max_memory_mb below the root's moves)")

    def _root_edges(self, root_priors) -> bool:
        """A new edge block for the root with ``root_priors`` (``{action: prior}``); its
        children, found by action, keep their statistics. False (nothing changed) when the
        memory cap leaves no room."""
        cdef int j, r = self.root, k = len(root_priors)
        cdef long b = tree_edge_block(self.tr, k)
        if b < 0:
            return False
        self.tr.nodes[r].edges = <int>b
        j = 0
        for a, q in root_priors.items():
            self.tr.edges[b + 1 + j].action = a
            self.tr.edges[b + 1 + j].prior = q
            j += 1
        edge_head(self.tr, b)[0] = k
        return True

    def _root_net(self, state, legal, srng):
        """The network at the seat's view of ``state``: ``(net, values, prior_of, used_of)``,
        ``prior_of`` the priors of ``legal`` at ``policy_temperature`` and ``used_of``
        those with the root noise (``noise_fraction``), each ``{action: prior}``."""
        from ratai.search.az import dirichlet_noise, tempered
        n = state.get_game().num_players()
        # one CyNet per model and player count (it holds transposed copies of the heads)
        cache = getattr(self.model, "_cynets", None)
        if cache is None:
            cache = {}
            try:
                self.model._cynets = cache
            except AttributeError:
                pass
        net = cache.get(n)
        if net is None:
            net = cache[n] = CyNet(self.model, n, state.get_game())
        values, priors = net.evaluate(state.observation_tensor(self.me), self.me, legal)
        priors = tempered(priors, self.ptemp)
        used = dirichlet_noise(priors, self.alpha, self.eps, srng.np)
        return (net, [float(v) for v in values],
                {int(a): float(q) for a, q in zip(legal, priors)},
                {int(a): float(q) for a, q in zip(legal, used)})

    def analyze(self, state, budget, srng, on_progress=None, int every=100, seed=None,
                str kind="az", allowed=None, bint keep=False):
        """Search from the seat's information state in ``state``; as ``AZ.analyze``
        (:meth:`CyISMCTS.analyze` with the network's priors and values at the root).
        ``keep``: keep the tree for :meth:`reanalyze` / :meth:`ponder` (one thread only)
        instead of releasing it.

        Raises:
            ValueError: ``state`` is a SIMULTANEOUS node.
        """
        return CyISMCTS.analyze(self, state, budget, srng, on_progress, every, seed, kind,
                                allowed, keep)

    def _root_setup(self, state, legal, srng):
        net, values, prior_of, used_of = self._root_net(state, legal, srng)
        return (net, used_of, values), prior_of

    def _twin(self, shares):
        w = CyAZ(self.me, self.model, self.c_puct, self.alpha, self.eps, self.mix, self.fpu,
                 "infostate" if self.by_info else "action", *shares, 1, self.policy_playout,
                 self.ptemp, self.merge, "policy" if self.model_hidden else "uniform")
        w.lazy = self.lazy
        return w

    def _prepare_worker(self, state, unsigned long long seed, allowed, label_state, np_rng,
                        root):
        self._prepare_az(state, seed, allowed, label_state, np_rng, *root)

    def reanalyze(self, state, keys, budget, srng, on_progress=None, int every=100,
                  seed=None, str kind="az"):
        """Tree reuse, as :meth:`CyISMCTS.reanalyze` (``None``: the tree was released, the
        node is missing or ``state`` is a SIMULTANEOUS node). The kept node's statistics
        carry over; its priors are the network's at ``state`` (with the root noise, as
        :meth:`analyze`), in a new edge block (at the memory cap the kept priors stay,
        without new noise)."""
        return CyISMCTS.reanalyze(self, state, keys, budget, srng, on_progress, every, seed,
                                  kind)

    def _rootable(self, state) -> bool:
        return state.current_player() != SIMULTANEOUS_NODE

    def _continued_root(self, state, legal, srng):
        _, values, prior_of, used_of = self._root_net(state, legal, srng)
        if self.tr.nodes[self.root].visits == 0:   # never so when kept; as a fresh root
            self.tr.nodes[self.root].visits = 1
            for j in range(self.n):
                self.tr.vals[self.root * self.n + j] = values[j]
        self._root_edges(used_of)
        return prior_of

    cdef int tensor(self, int p) noexcept nogil:
        """Seat ``p``'s observation tensor of ``self.work`` into ``xbuf``; 0 or -1."""
        if self.work.c_observation_tensor(p, self.xbuf) == 0:
            return 0
        with gil:
            try:
                self.work.observation_tensor(p, out=self.xarr)
                self.py_tensors += 1
            except BaseException as e:
                self.error = e
                return -1
        return 0

    cdef int evaluate(self, int p, int k) noexcept nogil:
        """Network at seat ``p``'s view of ``self.work``: the value per seat into ``vbuf``,
        the priors of ``act[:k]`` into ``pbuf`` (at ``policy_temperature``: ``tempered``).
        0 or -1."""
        if self.tensor(p) < 0:
            return -1
        self.eval_tensor(p, k)
        return 0

    cdef void eval_tensor(self, int p, int k) noexcept nogil:
        """``evaluate`` given seat ``p``'s tensor in ``xbuf``."""
        cdef int i
        cdef double e, tot = 0.0
        self.net.c_eval(self.xbuf, p, self.act, k, self.vbuf, self.pbuf, self.scratch, True)
        self.evaluations += 1
        if self.ptemp != 1.0 and k:
            e = 1.0 / self.ptemp
            for i in range(k):
                self.pbuf[i] = pow(self.pbuf[i], e)
                tot += self.pbuf[i]
            for i in range(k):
                self.pbuf[i] /= tot

    def _prepare_hidden(self):
        """An empty cache for ``hidden_policy`` (with ``hidden_moves="policy"``)."""
        self.hidden_draws = 0
        self.hidden_evaluations = 0
        self.hpool_used = 0
        self.hslots = 0
        if not self.model_hidden:
            return
        if self.hkey == NULL:
            self.hkey = <unsigned long long*>malloc(sizeof(unsigned long long) * HIDDEN_SLOTS)
            self.hoff = <int*>malloc(sizeof(int) * HIDDEN_SLOTS)
            self.hlen = <int*>malloc(sizeof(int) * HIDDEN_SLOTS)
            self.hpool = <double*>malloc(sizeof(double) * HIDDEN_POOL)
            if self.hkey == NULL or self.hoff == NULL or self.hlen == NULL \
                    or self.hpool == NULL:
                self._free_hidden()
                raise MemoryError()
        memset(self.hkey, 0, sizeof(unsigned long long) * HIDDEN_SLOTS)

    cdef int hidden_policy(self, int q, int k) noexcept nogil:
        """The priors of seat ``q``'s moves ``act[:k]`` in ``self.work`` into ``pbuf``, as
        ``evaluate(q, k)`` gives them, through a cache keyed by a digest of ``q``, its
        information state (``c_info_hash_into``; else its tensor) and its moves (the
        priors depend on the observation and the moves only); an evaluation on a miss.
        At most ``HIDDEN_SLOTS * 3 / 4`` views or ``HIDDEN_POOL`` priors are kept per
        search; past that every miss is evaluated. 0 or -1."""
        cdef unsigned long long h = 0
        cdef bint have_tensor = False
        cdef int i
        if self.work.c_info_hash_into(q, &h) < 0:
            if self.tensor(q) < 0:
                return -1
            have_tensor = True
            h = cy_mix_arr(<unsigned long long>0, <const int*>self.xbuf, self.dsize)
        h = cy_mix(cy_mix_arr(cy_mix(h, q), self.act, k), have_tensor)
        if h == 0:
            h = 1
        i = <int>(h & (HIDDEN_SLOTS - 1))
        while self.hkey[i] != 0:
            if self.hkey[i] == h and self.hlen[i] == k:
                memcpy(self.pbuf, &self.hpool[self.hoff[i]], sizeof(double) * k)
                return 0
            i = (i + 1) & (HIDDEN_SLOTS - 1)
        if not have_tensor and self.tensor(q) < 0:
            return -1
        self.eval_tensor(q, k)
        self.hidden_evaluations += 1
        if 4 * (self.hslots + 1) <= 3 * HIDDEN_SLOTS and self.hpool_used + k <= HIDDEN_POOL:
            self.hkey[i] = h
            self.hoff[i] = self.hpool_used
            self.hlen[i] = k
            memcpy(&self.hpool[self.hpool_used], self.pbuf, sizeof(double) * k)
            self.hpool_used += k
            self.hslots += 1
        return 0

    cdef int determinize(self) noexcept nogil:
        """:meth:`CyISMCTS.determinize`, then with ``hidden_moves="policy"`` the other
        seats' hidden moves redrawn (``CyState.c_rewind_hidden_moves``, replayed with each
        such move drawn from the network's priors at its seat's view, ``hidden_policy``;
        the seat's own moves as they were). 0 or -1."""
        cdef int script[2 * CY_MAXP]
        cdef int count, i, j, k
        if CyISMCTS.determinize(self) < 0:
            return -1
        if not self.model_hidden:
            return 0
        count = self.work.c_rewind_hidden_moves(self.me, script)
        for i in range(count):
            if script[i] >= 0:
                self.work.c_apply(script[i])
                continue
            k = self.work.c_legal_actions(self.act)
            if self.hidden_policy(self.work.c_current_player(), k) < 0:
                return -1
            for j in range(k):
                self.prob[j] = self.pbuf[j]
            self.work.c_apply(self.act[self.pick_outcome(k)])
            self.hidden_draws += 1
        return 0

    cdef inline void playout(self) noexcept nogil:
        """One random playout of ``self.work`` to the end; its returns into ``ret``."""
        if self.work.c_current_player() != TERMINAL:
            c_random_playout(self.work, &self.rng, self.idx, self.prob)
        self.work.c_returns(self.ret)

    cdef int leaf(self, int p, int k, int node) noexcept nogil:
        """The value per seat of the leaf ``self.work`` (seat ``p`` to move, ``act[:k]`` its
        moves) into ``ret``: with ``lazy`` its random playout alone (no evaluation);
        otherwise ``evaluate``, the priors into ``node``'s edge block (when ``node >= 0``)
        and ``leaf_value``. Mutates ``self.work``. 0 or -1."""
        if self.lazy:
            self.playout()
            return 0
        if self.evaluate(p, k) < 0:
            return -1
        if node >= 0:
            self.add_edges(node, k, False)
        return self.leaf_value(p, k)

    cdef int leaf_value(self, int p, int k) noexcept nogil:
        """The value per seat backed up from the leaf ``self.work`` into ``ret``, given
        ``evaluate(p, k)`` there (``AZ._value``): after ``policy_playout`` decisions of the
        network's most probable move (exact ties uniformly at random; chance sampled),
        mixed with a random playout when ``rollout_mix > 0``. Mutates ``self.work``, ``act``
        and ``pbuf``. 0 or -1."""
        cdef int step, j, q
        cdef Argmax am
        for step in range(self.policy_playout):
            if k <= 0:
                break
            argmax_init(&am)
            for j in range(k):
                argmax_offer(&am, j, self.pbuf[j], &self.rng)
            self.work.c_apply(self.act[am.best])
            q = self.work.c_current_player()
            while q == CHANCE:
                self.work.c_apply(self.act[self.pick_outcome(
                    self.work.c_chance_outcomes(self.act, self.prob))])
                q = self.work.c_current_player()
            if q == TERMINAL:
                self.work.c_returns(self.ret)
                return 0
            if q == SIMULTANEOUS_NODE:
                q = self.me
                k = 0
            else:
                k = self.work.c_legal_actions(self.act)
            if self.evaluate(q, k) < 0:
                return -1
        if self.mix > 0.0:
            self.playout()
            for j in range(self.n):
                self.ret[j] = (1.0 - self.mix) * self.vbuf[j] + self.mix * self.ret[j]
        else:
            for j in range(self.n):
                self.ret[j] = self.vbuf[j]
        return 0

    cdef inline bint room(self, long edges) noexcept nogil:
        """Whether one more node and ``edges`` more edge entries fit ``max_nodes`` and
        ``max_memory_mb`` (sets ``capped`` when not)."""
        if not self.can_grow():
            return False
        if not tree_fits(self.tr, 1, edges + 1):
            self.capped = True
            return False
        return True

    cdef int map_moves(self, int node, int k) noexcept nogil:
        """For each legal move ``act[j]`` at ``node``: its prior into ``epr[j]`` and its
        child slot into ``idx[j]`` (-1: not created yet; -2: no prior yet, a move no
        earlier world allowed). O(edges + children + k) through a stamped action map;
        returns how many have no prior."""
        cdef int i, j, a, nu = 0
        cdef Node* nd = &self.tr.nodes[node]
        cdef long b = nd.edges
        cdef Edge* e
        self.stamp += 1
        if self.stamp == 0:             # wrapped: clear the stamps
            memset(self.mark, 0, sizeof(unsigned int) * (self.na + 1))
            self.stamp = 1
        for i in range(edge_head(self.tr, b)[0] if b >= 0 else 0):
            e = &self.tr.edges[b + 1 + i]
            self.mark[e.action] = self.stamp
            self.apr[e.action] = e.prior
            self.slot[e.action] = -1
        for i in range(nd.first, nd.first + nd.nch):
            if self.tr.nodes[i].key < TAG_ACTION:
                self.slot[self.tr.nodes[i].action] = i
        for j in range(k):
            a = self.act[j]
            if self.mark[a] == self.stamp:
                self.idx[j] = self.slot[a]
                self.epr[j] = self.apr[a]
            else:
                self.idx[j] = -2
                nu += 1
        return nu

    cdef void add_edges(self, int node, int k, bint only_missing) noexcept nogil:
        """Priors ``pbuf[:k]`` of ``act[:k]`` into ``node``'s edge block (only the moves
        ``map_moves`` found without one when ``only_missing``), moving the block to the end
        of the pool when it is full (doubling). At the memory cap (or out of memory) nothing
        is added and ``capped`` is set."""
        cdef int j, m = 0, cnt = 0, cap = 0
        cdef long b = self.tr.nodes[node].edges, nb
        for j in range(k):
            if not only_missing or self.idx[j] == -2:
                m += 1
        if m == 0:
            return
        if b >= 0:
            cnt = edge_head(self.tr, b)[0]
            cap = edge_head(self.tr, b)[1]
        if cnt + m > cap:
            if not self.room(cnt + m if cnt == 0 else 2 * cap + m):
                return
            nb = tree_edge_block(self.tr, cnt + m if cnt == 0 else max(2 * cap, cnt + m))
            if nb < 0:                  # the memory cap (or the edge pool's index range)
                self.capped = True
                return
            if cnt:
                memcpy(&self.tr.edges[nb + 1], &self.tr.edges[b + 1], sizeof(Edge) * cnt)
            self.tr.nodes[node].edges = <int>nb
            b = nb
        for j in range(k):
            if not only_missing or self.idx[j] == -2:
                self.tr.edges[b + 1 + cnt].action = self.act[j]
                self.tr.edges[b + 1 + cnt].prior = <float>self.pbuf[j]
                self.epr[j] = <float>self.pbuf[j]
                self.idx[j] = -1
                cnt += 1
        edge_head(self.tr, b)[0] = cnt

    cdef int iterate(self) noexcept nogil:
        cdef int node = self.root, plen = 0, depth = 0, p, k, i, j, ch, nu, best, a
        cdef int n = self.n, total
        cdef int run[3]                 # another seat's run of moves (see merged_next)
        cdef unsigned long long key
        cdef double u, cv, sq, fpu_q
        cdef Argmax am
        cdef Node* nd
        cdef bint have_value = False
        run[0] = -1
        if self.determinize() < 0:
            return -1
        plen = self.push(plen, node)
        while True:
            p = self.work.c_current_player()
            if p == TERMINAL:
                self.work.c_returns(self.ret)
                have_value = True
                break
            if p == CHANCE:
                depth += 1
                ch = self.chance_child(node, &plen)
                if ch == -1:
                    return -1
                if ch == -2:
                    break
                node = ch
                continue
            if p == SIMULTANEOUS_NODE:
                if self.leaf(self.me, 0, -1) < 0:
                    return -1
                have_value = True
                break
            k = self.work.c_legal_actions(self.act)
            if node == self.root and self.allow != NULL:
                j = 0
                for i in range(k):
                    if self.allow[self.act[i]]:
                        self.act[j] = self.act[i]
                        j += 1
                k = j
            nd = &self.tr.nodes[node]
            if nd.edges < 0:                         # no priors yet
                nd.player = p                        # (also one below a chance node)
                if nd.visits == 0 or not self.lazy:  # a new leaf: evaluate and expand
                    if self.leaf(p, k, node) < 0:
                        return -1
                    have_value = True
                    break
                if self.evaluate(p, k) < 0:          # lazy: its priors now, then descend
                    return -1
                self.add_edges(node, k, False)
            nu = self.map_moves(node, k)
            if nu and self.room(nu):                 # moves no earlier world allowed
                if self.evaluate(p, k) < 0:
                    return -1
                self.add_edges(node, k, True)
            # PUCT: Q + c P sqrt(N) / (1 + n), N = 1 + visits of the legal moves;
            # unvisited: Q = parent mean - fpu_reduction; exact ties broken uniformly.
            nd = &self.tr.nodes[node]
            total = 1
            for j in range(k):
                if self.idx[j] >= 0:
                    total += self.tr.nodes[self.idx[j]].visits
            sq = sqrt(<double>total)
            fpu_q = (self.tr.vals[node * n + p] / nd.visits - self.fpu) if nd.visits else 0.0
            argmax_init(&am)
            for j in range(k):
                ch = self.idx[j]
                if ch == -2:
                    continue                         # no prior under the memory cap
                cv = self.tr.nodes[ch].visits if ch >= 0 else 0
                if cv == 0:
                    u = fpu_q + self.c_puct * self.epr[j] * sq
                else:
                    u = self.tr.vals[ch * n + p] / cv \
                        + self.c_puct * self.epr[j] * sq / (1.0 + cv)
                argmax_offer(&am, j, u, &self.rng)
            best = am.best
            if best < 0:
                break                                # the cap: value the position here
            ch = self.idx[best]
            if ch < 0:                               # first selected: its node now
                if not self.room(0):
                    break
                ch = tree_add_child(self.tr, node, <unsigned long long>self.act[best],
                                    self.act[best], UNSEEN)
                if ch < 0:
                    self.capped = True
                    break
                self.nodes += 1
            best = ch
            a = self.tr.nodes[best].action
            self.work.c_apply(a)
            depth += 1
            if self.merge and p != self.me:
                ch = self.merged_next(node, a, p, &plen, run)
                if ch == -1:
                    return -1
                if ch == -2:
                    break                            # the cap: value the position here
                node = ch                            # new: a leaf, evaluated next
                continue
            node = best
            plen = self.push(plen, node)
            if plen < 0:
                return -1
        if not have_value:
            p = self.work.c_current_player()
            if p == TERMINAL:
                self.work.c_returns(self.ret)
            else:
                k = self.work.c_legal_actions(self.act) if p >= 0 else 0
                if self.leaf(p if p >= 0 else self.me, k, -1) < 0:
                    return -1
        self.depth_sum += depth
        if depth > self.max_depth:
            self.max_depth = depth
        for i in range(plen):
            nd = &self.tr.nodes[self.path[i]]
            nd.visits += 1
            for j in range(n):
                self.tr.vals[self.path[i] * n + j] += self.ret[j]
        return 0
