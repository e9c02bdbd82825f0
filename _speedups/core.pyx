# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The ``cdef`` engine contract (see ``core.pxd``) and generic C-level helpers.

``random_playouts`` drives any Cython twin through the ``cdef`` interface only, so its figure
is the engine's own speed (the benchmark's "inside Cython" number).
"""

import hashlib

from libc.stdlib cimport malloc, free


cdef class CyState:
    """Base of every Cython twin state; the ``cdef`` methods are the C-level contract."""

    cdef int c_current_player(self) noexcept nogil:
        return -4

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return 0

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept nogil:
        return 0

    cdef void c_apply(self, int action) noexcept nogil:
        pass

    cdef int c_returns(self, double* out) noexcept nogil:
        return 0

    cdef int c_num_players(self) noexcept nogil:
        return 0

    cdef int c_num_actions(self) noexcept nogil:
        return 0

    cdef void c_copy_from(self, CyState other) noexcept:
        pass

    cdef CyState c_clone(self):
        raise NotImplementedError

    cdef CyState c_resample(self, int player, object rng):
        raise NotImplementedError

    cdef unsigned long long c_info_hash(self, int player) except? 0:
        digest = hashlib.blake2b(self.information_state_string(player).encode(),
                                 digest_size=8).digest()
        return int.from_bytes(digest, "little")


cdef long c_random_playout(CyState state, unsigned long long* rng, int* act,
                           double* prob) noexcept:
    cdef long steps = 0
    cdef int cp, n, i
    cdef double u
    while True:
        cp = state.c_current_player()
        if cp == -4:
            return steps
        if cp == -1:
            n = state.c_chance_outcomes(act, prob)
            u = ratai_uniform(rng)
            i = 0
            while i < n - 1:
                u -= prob[i]
                if u < 0:
                    break
                i += 1
        else:
            n = state.c_legal_actions(act)
            i = <int>(ratai_uniform(rng) * n)
            if i >= n:
                i = n - 1
        state.c_apply(act[i])
        steps += 1


def random_playouts(CyState state, long games, unsigned long long seed=0):
    """Play ``games`` random games from clones of ``state`` in C; returns total actions.

    Decisions are uniform over the legal actions, chance outcomes drawn by probability
    (a splitmix64 stream from ``seed``). ``state`` itself is not changed.
    """
    cdef int na = state.c_num_actions()
    cdef int* act = <int*>malloc(sizeof(int) * (na + 1))
    cdef double* prob = <double*>malloc(sizeof(double) * (na + 1))
    cdef unsigned long long rng = seed
    cdef long total = 0, g
    cdef CyState work = state.c_clone()
    if act == NULL or prob == NULL:
        free(act)
        free(prob)
        raise MemoryError()
    try:
        for g in range(games):
            work.c_copy_from(state)
            total += c_random_playout(work, &rng, act, prob)
    finally:
        free(act)
        free(prob)
    return total


def clone_loop(CyState state, long n):
    """Clone ``state`` ``n`` times through the ``cdef`` interface (for the clone benchmark)."""
    cdef long i
    cdef CyState c
    for i in range(n):
        c = state.c_clone()
    return n


def copy_loop(CyState state, long n):
    """Copy ``state`` ``n`` times into one preallocated state (the search's node reuse)."""
    cdef long i
    cdef CyState c = state.c_clone()
    for i in range(n):
        c.c_copy_from(state)
    return n


def random_playout_actions(CyState state, unsigned long long seed=0) -> list:
    """Play ``state`` (mutated) to the end in C as :func:`random_playouts` does; returns the
    actions applied (for checking the C-level path against the reference engine)."""
    cdef int na = state.c_num_actions()
    cdef int* act = <int*>malloc(sizeof(int) * (na + 1))
    cdef double* prob = <double*>malloc(sizeof(double) * (na + 1))
    cdef unsigned long long rng = seed
    cdef int cp, n, i
    cdef double u
    out = []
    if act == NULL or prob == NULL:
        free(act)
        free(prob)
        raise MemoryError()
    try:
        while True:
            cp = state.c_current_player()
            if cp == -4:
                return out
            if cp == -1:
                n = state.c_chance_outcomes(act, prob)
                u = ratai_uniform(&rng)
                i = 0
                while i < n - 1:
                    u -= prob[i]
                    if u < 0:
                        break
                    i += 1
            else:
                n = state.c_legal_actions(act)
                i = <int>(ratai_uniform(&rng) * n)
                if i >= n:
                    i = n - 1
            out.append(act[i])
            state.c_apply(act[i])
    finally:
        free(act)
        free(prob)
