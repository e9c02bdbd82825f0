# cython: language_level=3
"""C-level engine contract shared by every Cython twin (see ``engines/api.py``).

A twin's state subclasses :class:`CyState` and implements these ``cdef`` methods over its
fixed-size C struct. They are the hot path of the compiled search loops: no Python object is
created per call, and all but ``c_clone`` / ``c_resample`` / ``c_info_hash`` run without the GIL.

Buffers: ``out`` / ``actions`` / ``probs`` are caller-owned arrays of at least
``c_num_actions()`` entries; ``returns`` holds ``c_num_players()`` doubles.
"""

cdef enum:
    # Stack buffers of the shared Python-level methods (core.pyx): every twin's most seats
    # and most decisions or chance outcomes at one node must fit (each twin checks its own
    # bounds with ``check_bounds`` at import).
    CY_MAXP = 8
    CY_MAXBUF = 2048


cdef class CyState:
    # The twin's game object, its compiled constants (``game._consts``) and the action history.
    # The history is copy-on-write: a clone shares the list and both set ``_hist_shared``.
    cdef readonly object _game
    cdef object _consts
    cdef list _hist
    cdef bint _hist_shared
    # Perfect recall (engines/api.py ``views``): one log per seat of its view of every action,
    # or None in a perfect-information game; copy-on-write like the history. Kept by the
    # Python-level apply paths; a twin's own C digest covers the compiled search's c_apply.
    cdef list _views
    cdef bint _views_shared
    # The compiled determinization's state (``c_resample``): its reused output, the numpy
    # Generator that seeded its splitmix64 stream, and the stream.
    cdef CyState _scratch
    cdef object _rs_rng
    cdef unsigned long long _rs_state

    # Seat to act (0..n-1), or CHANCE (-1) / TERMINAL (-4) as in engines/api.py.
    cdef int c_current_player(self) noexcept nogil
    # Sorted legal decisions of the current player into ``out``; returns their count
    # (0 at chance and terminal nodes).
    cdef int c_legal_actions(self, int* out) noexcept nogil
    # Chance outcomes sorted by action into ``actions``/``probs``; returns their count
    # (0 at decision and terminal nodes). Probabilities sum to 1.
    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept nogil
    # Apply a legal action (decision or outcome) without checking it; no history is kept.
    cdef void c_apply(self, int action) noexcept nogil
    # Results per seat into ``out`` (win 1, loss 0, k-way shared win 1/k; zeros before the
    # end); returns the number of seats.
    cdef int c_returns(self, double* out) noexcept nogil
    cdef int c_num_players(self) noexcept nogil
    cdef int c_num_actions(self) noexcept nogil
    # Copy ``other`` (same game) into this state: a memcpy, no allocation.
    cdef void c_copy_from(self, CyState other) noexcept nogil
    # A new independent state (an allocation plus a memcpy).
    cdef CyState c_clone(self)
    # Determinization: a full state seat ``player`` cannot tell from this one.
    cdef CyState c_resample(self, int player, object rng)
    # Compiled determinization into a caller-owned state ``out`` of the same game (its
    # history is left alone): a full state seat ``player`` cannot tell from this one, drawn
    # from the splitmix64 stream ``rng`` with the exact posterior of ``resample_from_infostate``.
    # Returns 0, or -1 when the twin has no compiled sampler or declines this position (the
    # search then calls ``c_resample`` with the GIL). Lets a nogil / threaded search
    # determinize without Python objects.
    cdef int c_resample_into(self, int player, CyState out, unsigned long long* rng) noexcept nogil
    # ``State.rewind_hidden_moves`` on the struct (engines/api.py): rewind to just before the
    # first move hidden from ``player`` now and write the moves to replay into ``script``
    # (``player``'s own by id, -1 for another seat's hidden move; at most 2 * CY_MAXP);
    # returns their count, 0 (nothing changed) where none is hidden (the base). Neither the
    # history nor the views logs are touched (the Python-level method does that).
    cdef int c_rewind_hidden_moves(self, int player, int* script) noexcept nogil
    # A new state of this game with its constants attached and nothing else set (the output
    # of a determinization); the base raises NotImplementedError (twins without a compiled
    # sampler).
    cdef CyState c_blank(self)
    # ``c_resample_into`` into ``out`` (None: a new ``c_blank``) drawing from ``stream``
    # (NULL: a stream seeded from ``rng``, ``cy_seed_of``), the seat's views log kept; the
    # reference ``_state_from_observation`` where the compiled sampler declines.
    cdef CyState _determinized(self, int player, object rng, CyState out,
                               unsigned long long* stream)
    # A 64-bit digest of ``information_state_string(player)``: equal information states give
    # equal digests (IS-MCTS keys chance children by it, see search.pyx). The base class
    # hashes the string (exact, slow); a twin may digest its struct directly.
    cdef unsigned long long c_info_hash(self, int player) except? 0
    cdef int c_observation_tensor(self, int player, float* out) noexcept nogil
        # writes observation_tensor(player) (the full flat float32 vector, length
        # c_observation_size()) into out; returns 0, or -1 when the twin has no compiled
        # writer (the base class): callers then use the Python observation_tensor with the GIL.
    cdef int c_observation_size(self) noexcept nogil   # length of the flat tensor, 0 if unknown
    # ``c_info_hash`` without the GIL: writes the digest to ``out`` and returns 0, or -1
    # when the twin has no compiled digest (the base class; callers then take the GIL and
    # call ``c_info_hash``). Same value as ``c_info_hash`` (a nogil / threaded IS-MCTS keys
    # its chance children by it without stalling other threads).
    cdef int c_info_hash_into(self, int player, unsigned long long* out) noexcept nogil

    # Python-level hooks (not the hot path). ``_attach``: bind ``game`` (its ``_consts``) with
    # an empty history; a twin extends it to set its constants pointer. ``_load``: fill the
    # struct from a reference state (ValueError naming the field).
    cdef int _attach(self, game) except -1
    cdef void _load(self, r) except *
    cdef bint _is_legal(self, int a)
    cdef void _record(self, int a)
    # Perfect recall hooks: ``_view_codes`` writes each seat's view of action ``a`` (about to
    # be applied) into ``out`` and returns the number of seats (0: nothing logged, the base);
    # ``_after_views`` appends what the step revealed automatically (after ``c_apply``);
    # ``_on_views`` runs after ``_views`` was replaced (a twin refreshes its C digest).
    # ``_apply_logged`` = log, ``c_apply``, ``_after_views``: every Python-level apply path.
    cdef int _view_codes(self, int a, int* out) except -1
    cdef int _after_views(self) except -1
    cdef int _on_views(self) except -1
    cdef int _apply_logged(self, int a) except -1
    cdef void _own_views(self)


# ``dst`` (a new state of ``src``'s game) takes ``src``'s game and its history, shared
# copy-on-write (c_clone), or an empty history (a determinization).
cdef inline void cy_share_history(CyState src, CyState dst) noexcept:
    dst._game = src._game
    dst._consts = src._consts
    dst._hist = src._hist
    dst._hist_shared = True
    src._hist_shared = True
    dst._views = src._views
    dst._views_shared = True
    src._views_shared = True


cdef inline int cy_fresh_history(CyState src, CyState dst) except -1:
    dst._game = src._game
    dst._consts = src._consts
    dst._hist = []
    dst._hist_shared = False
    dst._views = None  # the caller sets the sample's logs (``_set_views``)
    dst._views_shared = False
    return 0


cdef extern from *:
    """
    static inline unsigned long long ratai_splitmix64(unsigned long long *x) {
        unsigned long long z = (*x += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    static inline double ratai_uniform(unsigned long long *x) {
        return (double)(ratai_splitmix64(x) >> 11) * (1.0 / 9007199254740992.0);
    }
    """
    unsigned long long ratai_splitmix64(unsigned long long* x) noexcept nogil
    double ratai_uniform(unsigned long long* x) noexcept nogil


# Play ``state`` (mutated) to the end with uniform decisions and chance by probability;
# returns the number of actions applied. ``act``/``prob`` are scratch buffers.
cdef long c_random_playout(CyState state, unsigned long long* rng, int* act,
                           double* prob) noexcept nogil


# A 64-bit seed for a compiled determinization's splitmix64 stream from ``rng`` (an int is the
# seed itself; a numpy Generator gives one raw draw; anything else goes through make_rng).
cdef unsigned long long cy_seed_of(object rng) except? 0


# ---------------------------------------------------------------- compiled observation tensors
# The pieces a twin's ``c_observation_tensor`` writes with, so that it equals the reference
# ``TensorLayout.encode`` (engines/obs_schema.py) to the bit. Offsets and scales come from
# the game's tensor layout through ``ObsLayout`` (core.pyx), once per game, on first use.

# One numeric leaf: ``out[off] = (x - lo) * scale`` rounded once to float32, as the reference
# assigns a Python float into its float32 array.
ctypedef struct CyObsNum:
    int off
    double lo
    double scale


# ``a COMPARISONS[cmp] b`` for the fixed comparisons of the effects vocabulary
# (``engines.effects.COMPARISONS[:6]``: >, >=, ==, !=, <=, <).
cdef inline bint cy_compare(int cmp, int a, int b) noexcept nogil:
    if cmp == 0:
        return a > b
    if cmp == 1:
        return a >= b
    if cmp == 2:
        return a == b
    if cmp == 3:
        return a != b
    if cmp == 4:
        return a <= b
    return a < b


# Information digests (each twin's ``info_digest``): a 64-bit mix of one value into ``h``
# (boost's hash_combine, then splitmix64's finaliser), and of a counted array.
cdef inline unsigned long long cy_mix(unsigned long long h, long long v) noexcept nogil:
    h ^= <unsigned long long>v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2)
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL
    return h ^ (h >> 31)


ctypedef fused cy_elem:
    signed char
    int


# ``n`` elements of ``a`` (a length tag first: 1000 + n for signed char, 2000 + n for int)
cdef inline unsigned long long cy_mix_arr(unsigned long long h, const cy_elem* a,
                                          int n) noexcept nogil:
    cdef int i
    h = cy_mix(h, (1000 if sizeof(cy_elem) == 1 else 2000) + n)
    for i in range(n):
        h = cy_mix(h, a[i])
    return h


cdef inline void cy_obs_num(float* out, const CyObsNum* f, double x) noexcept nogil:
    out[f.off] = <float>((x - f.lo) * f.scale)


# A one-hot cell or a "present" flag.
cdef inline void cy_obs_hot(float* out, int off) noexcept nogil:
    out[off] = 1.0


# One item of a multiset: the reference adds ``float32(1 / maxItems)`` to a float32 cell in
# float32 arithmetic (obs_schema's write_multiset), so ``inc`` is a float and so is the sum.
cdef inline void cy_obs_add(float* out, int off, float inc) noexcept nogil:
    out[off] = out[off] + inc


# A bounded list's length slot: ``length / maxItems`` (a double division, then float32).
cdef inline void cy_obs_len(float* out, int off, int length, int divisor) noexcept nogil:
    out[off] = <float>(<double>length / divisor)


# Fill ``f`` from the number slice at ``path`` of ``layout`` (an ``ObsLayout``).
# Raises ValueError naming the path when the layout has no such number.
cdef int cy_obs_num_at(CyObsNum* f, object layout, str path) except -1
