# cython: language_level=3
"""Composite blocks of the Rat Trap and Ratapolis compiled tensor writers, on top of the
shared cells of ``core.pxd`` (``CyObsNum``, ``cy_obs_num`` / ``cy_obs_hot`` / ``cy_obs_add`` /
``cy_obs_len``, which write exactly what ``engines/obs_schema.py``'s encoder writes).

``OSet`` is a multiset over ``0..k-1`` (consecutive cells), ``OList`` a bounded list of
one-hots over ``0..k-1``; the ``tw_*`` builders fill them once per game from a
``tensor_layout.CheckedLayout``.
"""

from libc.string cimport memset

from .core cimport cy_obs_add, cy_obs_hot, cy_obs_len

cdef enum:
    TW_MAXLIST = 16   # list items a writer fills (faces, seats, cards, plan cells)


ctypedef struct OSet:       # a multiset over 0..k-1: out[off + v] += inc per item
    int off
    float inc


ctypedef struct OList:      # a list of one-hots over 0..k-1, then its length slot
    int item[TW_MAXLIST]    # start of each shown item's one-hot
    int shown
    int len_off             # -1: a fixed length (no slot)
    int divisor


cdef inline void w_counts(float* out, const OSet* o, const signed char* counts,
                          int k) noexcept nogil:
    """A multiset given as a count per value."""
    cdef int v, j
    for v in range(k):
        for j in range(counts[v]):
            cy_obs_add(out, o.off + v, o.inc)


cdef inline void w_elems(float* out, const OSet* o, const signed char* vals,
                         int n) noexcept nogil:
    """A multiset given as its items."""
    cdef int i
    for i in range(n):
        cy_obs_add(out, o.off + vals[i], o.inc)


cdef inline void w_len(float* out, int off, int length, int divisor) noexcept nogil:
    """A list's length slot (``off`` -1: a fixed length, no slot)."""
    if off >= 0:
        cy_obs_len(out, off, length, divisor)


cdef inline void w_list(float* out, const OList* o, const signed char* vals,
                        int n) noexcept nogil:
    """A list of one-hots given as its values (the shown ones encoded), and its length."""
    cdef int i
    for i in range(n if n < o.shown else o.shown):
        cy_obs_hot(out, o.item[i] + vals[i])
    w_len(out, o.len_off, n, o.divisor)


# -- builders (Python level, once per game) ----------------------------------------------
cdef inline void tw_set(OSet* d, tuple t):
    """From ``CheckedLayout.multiset(path, values)``."""
    d.off = t[0]
    d.inc = <float>(<double>t[1])


cdef inline void tw_list(OList* d, L, str path, list values, int cap) except *:
    """The list of ``values`` one-hots at ``path``, whose twin holds at most ``cap`` items;
    the layout's further items (which the twin never fills) are claimed and stay 0."""
    cdef int i
    shown = L.items(path)
    memset(d, 0, sizeof(OList))
    d.shown = min(shown, cap, TW_MAXLIST)
    for i in range(d.shown):
        d.item[i] = L.onehot(f"{path}[{i}]", values)[0]
    L.unused(path, d.shown)
    d.len_off, d.divisor = L.length(path)
