# cython: language_level=3
"""Building blocks of the twins' compiled observation-tensor writers (``c_observation_tensor``).

A writer fills ``float* out`` with exactly what ``engines/obs_schema.py``'s ``TensorLayout``
writes for ``observation(player)``: the same slices, and the same float arithmetic (a number
is ``(x - lo) * scale`` in double, then rounded to float32; a multiset count is a float32
sum of ``1 / maxItems`` steps, as NumPy adds a Python float to a float32 element; a list's
length is ``len / maxItems`` in double). The offsets come from the game's layout through
``ratai._speedups.tensor_layout.LayoutIndex`` (the ``tw_*`` builders below), once per game.
"""

from libc.string cimport memset

cdef enum:
    TW_MAXLIST = 16   # list items a writer fills (faces, seats, cards, plan cells)


ctypedef struct ONum:       # a number: out[off] = (x - lo) * scale
    int off
    double lo
    double scale


ctypedef struct OSet:       # a multiset over 0..k-1: out[off + v] += step per element
    int off
    float step


ctypedef struct OList:      # a list of one-hots (values 0..k-1), then its length slot
    int item[TW_MAXLIST]    # start of each shown item's one-hot
    int shown
    int len_off             # -1: a fixed length (no slot)
    int max_items


cdef inline void w_num(float* out, const ONum* o, double x) noexcept nogil:
    out[o.off] = <float>((x - o.lo) * o.scale)


cdef inline void w_counts(float* out, const OSet* o, const signed char* counts,
                          int k) noexcept nogil:
    """A multiset given as a count per value."""
    cdef int v, j
    for v in range(k):
        for j in range(counts[v]):
            out[o.off + v] = out[o.off + v] + o.step


cdef inline void w_elems(float* out, const OSet* o, const signed char* vals,
                         int n) noexcept nogil:
    """A multiset given as its elements."""
    cdef int i
    for i in range(n):
        out[o.off + vals[i]] = out[o.off + vals[i]] + o.step


cdef inline void w_list(float* out, const OList* o, const signed char* vals,
                        int n) noexcept nogil:
    """A list of one-hot items given as its values (only the shown ones are encoded)."""
    cdef int i
    for i in range(n if n < o.shown else o.shown):
        out[o.item[i] + vals[i]] = 1.0
    if o.len_off >= 0:
        out[o.len_off] = <float>(<double>n / <double>o.max_items)


cdef inline void w_len(float* out, int off, int n, int max_items) noexcept nogil:
    """A list's length slot (``off`` -1: a fixed length)."""
    if off >= 0:
        out[off] = <float>(<double>n / <double>max_items)


# -- builders (Python level, once per game) ----------------------------------------------
cdef inline void tw_num(ONum* d, tuple t):
    """From ``LayoutIndex.number(path)``."""
    d.off = t[0]
    d.lo = t[1]
    d.scale = t[2]


cdef inline void tw_set(OSet* d, tuple t):
    """From ``LayoutIndex.multiset(path, values)``."""
    d.off = t[0]
    d.step = <float>(<double>t[1])


cdef inline void tw_list(OList* d, L, str path, list values, int cap) except *:
    """A list of ``values`` one-hots at ``path`` whose twin holds at most ``cap`` items;
    the layout's further items (which the twin can never fill) are claimed and stay 0."""
    cdef int i
    shown = L.items(path)[0]
    memset(d, 0, sizeof(OList))
    d.shown = min(shown, cap, TW_MAXLIST)
    for i in range(d.shown):
        d.item[i] = L.onehot(f"{path}[{i}]", values)[0]
    L.unused(path, d.shown)
    d.len_off, d.max_items = L.length(path)
