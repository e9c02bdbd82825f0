# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The az network (``ratai.nn.model``) evaluated in C without the GIL.

:class:`CyNet` holds one player count's float32 weights (``Model.nets[n]``) and evaluates a
position in ``c_eval`` (``nogil``, no allocation):

* first layer **sparse**: ``h1 = b1 + sum over the nonzero inputs x_i of x_i * w1[i]`` plus
  the seat one-hot's row ``w1[d + player]`` (observation tensors are mostly one-hot/zero);
* ReLU, a dense second layer that skips the zero (ReLU'd) units, ReLU;
* value head: ``sigmoid(h2 @ wv + bv)`` per seat; policy head: the logits of the **legal
  actions only** (``h2 . wp[:, a] + bp[a]``, with ``wp`` stored transposed so each is one
  contiguous dot product), then their softmax.

A seat-relative network (``Model.seat_relative``) reads the same absolute tensor through its
maps (``Model.seat_maps``): input ``i`` uses the weight row of its relative position, seat
``s``'s value comes from output ``(s - player) mod n`` and action ``a``'s logit from column
``actions[player, a]``; so the search passes absolute tensors, seats and actions either way.

Sums are float32 as in the numpy reference (``Model.evaluate_batch``); the sigmoid and the
softmax run in double. Results equal the reference within 1e-5 (``tests/nn``).
"""

import numpy as np

from libc.math cimport exp

__all__ = ["CyNet"]


cdef class CyNet:
    """One player count's network of a ``ratai.nn.Model``.

    Args:
        model: a ``ratai.nn.Model``.
        n: the player count (one of ``model.players``).
        game: the ``n``-player game whose seat maps a seat-relative network uses
            (``Model.seat_maps``; ``None``: the model's registry game).

    Raises:
        ModelError: the model has no network for ``n`` players.
    """

    def __init__(self, model, int n, game=None):
        net = model.net(n)
        self.n = n
        self.d = net.tensor_size
        self.h1 = net.w1.shape[1]
        self.h2 = net.w2.shape[1]
        self.na = net.num_actions
        arrs = {
            "w1": np.ascontiguousarray(net.w1, np.float32),
            "b1": np.ascontiguousarray(net.b1, np.float32),
            "w2": np.ascontiguousarray(net.w2, np.float32),
            "b2": np.ascontiguousarray(net.b2, np.float32),
            "wvt": np.ascontiguousarray(net.wv.T, np.float32),
            "bv": np.ascontiguousarray(net.bv, np.float32),
            "wpt": np.ascontiguousarray(net.wp.T, np.float32),
            "bp": np.ascontiguousarray(net.bp, np.float32),
        }
        maps = model.seat_maps(n, game)
        self.relative = maps is not None
        if self.relative:
            inv = np.empty_like(maps.obs)
            rows = np.arange(self.d)
            for p in range(n):
                inv[p, maps.obs[p]] = rows
            arrs["inv"] = np.ascontiguousarray(inv, np.int64)
            arrs["rot"] = np.ascontiguousarray(maps.rotate, np.int64)
            arrs["act"] = np.ascontiguousarray(maps.actions, np.int64)
            self.inv = _lptr(arrs["inv"])
            self.rot = _lptr(arrs["rot"])
            self.act = _lptr(arrs["act"])
        self.arrays = arrs
        self.w1 = _ptr(arrs["w1"])
        self.b1 = _ptr(arrs["b1"])
        self.w2 = _ptr(arrs["w2"])
        self.b2 = _ptr(arrs["b2"])
        self.wvt = _ptr(arrs["wvt"])
        self.bv = _ptr(arrs["bv"])
        self.wpt = _ptr(arrs["wpt"])
        self.bp = _ptr(arrs["bp"])

    cdef int c_eval(self, const float* x, int player, const int* legal, int k,
                    double* values, double* priors, float* scratch,
                    bint softmax) noexcept nogil:
        cdef int i, j, h1 = self.h1, h2 = self.h2
        cdef long a, o
        cdef float xi, hi, acc
        cdef float* h = scratch
        cdef float* g = scratch + h1
        cdef const float* row
        cdef double z, zmax, tot
        for j in range(h1):
            h[j] = self.b1[j]
        for i in range(self.d):
            xi = x[i]
            if xi != 0.0:
                if self.relative:
                    row = self.w1 + self.inv[<long>player * self.d + i] * h1
                else:
                    row = self.w1 + <long>i * h1
                for j in range(h1):
                    h[j] += xi * row[j]
        row = self.w1 + <long>(self.d + player) * h1
        for j in range(h1):
            h[j] += row[j]
        for j in range(h2):
            g[j] = self.b2[j]
        for i in range(h1):
            hi = h[i]
            if hi > 0.0:
                row = self.w2 + <long>i * h2
                for j in range(h2):
                    g[j] += hi * row[j]
        for j in range(h2):
            if g[j] < 0.0:
                g[j] = 0.0
        for i in range(self.n):
            o = self.rot[player * self.n + i] if self.relative else i
            row = self.wvt + o * h2
            acc = self.bv[o]
            for j in range(h2):
                acc += g[j] * row[j]
            values[i] = 1.0 / (1.0 + exp(-<double>acc))
        zmax = -1e300
        for i in range(k):
            a = legal[i]
            if self.relative:
                a = self.act[<long>player * self.na + a]
            row = self.wpt + <long>a * h2
            acc = self.bp[a]
            for j in range(h2):
                acc += g[j] * row[j]
            priors[i] = acc
            if acc > zmax:
                zmax = acc
        if softmax and k:
            tot = 0.0
            for i in range(k):
                z = exp(priors[i] - zmax)
                priors[i] = z
                tot += z
            for i in range(k):
                priors[i] /= tot
        return 0

    def _check(self, tensor, int player, legal):
        x = np.ascontiguousarray(tensor, np.float32).ravel()
        if x.size != self.d:
            raise ValueError(f"tensor of length {x.size}: the network of {self.n} players "
                             f"takes {self.d}")
        if not 0 <= player < self.n:
            raise ValueError(f"bad player {player!r}: allowed an int from 0 to {self.n - 1}")
        la = np.ascontiguousarray(list(legal), np.intc)
        if la.size and (la.min() < 0 or la.max() >= self.na):
            raise ValueError(f"legal actions {la.tolist()} outside 0..{self.na - 1}")
        return x, la

    def _run(self, tensor, int player, legal, bint softmax, long reps):
        """``reps`` evaluations of one position (nogil): ``(values, priors, seconds)``."""
        import time
        x, la = self._check(tensor, player, legal)
        cdef float[::1] xv = x
        cdef int[::1] lv = la
        values = np.zeros(self.n, np.float64)
        priors = np.zeros(max(1, la.size), np.float64)
        scratch = np.zeros(self.h1 + self.h2, np.float32)
        cdef double[::1] vv = values
        cdef double[::1] pv = priors
        cdef float[::1] sv = scratch
        cdef int k = la.size
        cdef long r
        t0 = time.perf_counter()
        with nogil:
            for r in range(reps):
                self.c_eval(&xv[0], player, &lv[0] if k else NULL, k, &vv[0], &pv[0],
                            &sv[0], softmax)
        return values, priors[:k], time.perf_counter() - t0

    def evaluate(self, tensor, int player, legal, bint softmax=True):
        """``(values (n,), priors (len(legal),))`` as ``Model.evaluate`` (float64);
        ``softmax=False`` gives the legal actions' logits instead of priors."""
        values, priors, _ = self._run(tensor, player, legal, softmax, 1)
        return values, priors

    def time_eval(self, tensor, int player, legal, long reps):
        """Seconds of CPU-bound wall time for ``reps`` evaluations of one position (nogil):
        the network's cost alone, tensor excluded (``bench/az.py``)."""
        return self._run(tensor, player, legal, True, reps)[2]

    def nonzero_fraction(self, tensor) -> float:
        """Share of nonzero inputs of ``tensor`` (what the sparse first layer pays for)."""
        x = np.asarray(tensor, np.float32)
        return float(np.count_nonzero(x)) / max(1, x.size)


cdef float* _ptr(object arr):
    """The data pointer of a C-contiguous float32 array (kept alive by ``self.arrays``)."""
    cdef float[::1] v = arr.reshape(-1)
    return &v[0]


cdef long* _lptr(object arr):
    """The data pointer of a C-contiguous int64 array (kept alive by ``self.arrays``)."""
    cdef long[::1] v = arr.reshape(-1)
    return &v[0]
