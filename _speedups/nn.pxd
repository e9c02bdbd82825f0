# cython: language_level=3
"""The az network evaluated without the GIL (see nn.pyx)."""

cdef class CyNet:
    cdef readonly int n, d, h1, h2, na
    cdef readonly object arrays      # keeps the float32 arrays alive
    cdef float* w1                   # (d + n, h1)
    cdef float* b1                   # (h1,)
    cdef float* w2                   # (h1, h2)
    cdef float* b2                   # (h2,)
    cdef float* wvt                  # (n, h2): wv transposed
    cdef float* bv                   # (n,)
    cdef float* wpt                  # (na, h2): wp transposed
    cdef float* bp                   # (na,)
    cdef readonly bint relative      # a seat-relative network (ratai.nn.model)
    cdef long* inv                   # relative only: (n, d) w1 row of each absolute input
    cdef long* rot                   # relative only: (n, n) value output of each seat
    cdef long* act                   # relative only: (n, na) policy column of each action

    # Forward pass of tensor ``x`` (``d`` floats, absolute) seen by seat ``player``:
    # ``values`` (n doubles, sigmoid, absolute seat order) and, for the ``k`` actions
    # ``legal``, ``priors`` (k doubles, the softmax of their logits; ``logits`` instead when
    # ``softmax`` is 0). ``scratch`` holds ``h1 + h2`` floats. Returns 0.
    cdef int c_eval(self, const float* x, int player, const int* legal, int k,
                    double* values, double* priors, float* scratch,
                    bint softmax) noexcept nogil
