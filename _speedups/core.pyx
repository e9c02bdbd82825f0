# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The ``cdef`` engine contract (see ``core.pxd``) and generic C-level helpers.

``random_playouts`` drives any Cython twin through the ``cdef`` interface only, so its figure
is the engine's own speed (the benchmark's "inside Cython" number).
"""

import hashlib

cimport cython
from cpython.object cimport PyObject
from cpython.ref cimport _Py_REFCNT
from libc.limits cimport INT_MAX
from libc.stdlib cimport malloc, free

import numpy as np

from ratai.engines.api import (IllegalActionError, State, canonical_json, check_actor,
                               check_player, keep_views, make_rng, rewound_views)


def check_bounds(str game, int max_players, int max_count) -> None:
    """Check at a twin's import that its most seats and its most decisions or chance outcomes
    at one node fit the shared methods' stack buffers (``CY_MAXP``, ``CY_MAXBUF``).

    Raises:
        RuntimeError: a bound does not fit (raise the constant in ``core.pxd``).
    """
    if max_players > CY_MAXP or max_count > CY_MAXBUF:
        raise RuntimeError(f"{game} twin: {max_players} seats / {max_count} actions at a node "
                           f"exceed core.pxd's CY_MAXP={CY_MAXP} / CY_MAXBUF={CY_MAXBUF}")


@cython.no_gc
cdef class CyState:
    """Base of every Cython twin state; the ``cdef`` methods are the C-level contract.

    The Python-level API (``engines/api.py``'s ``State``) is written here once over those
    methods and a few hooks: ``_attach`` / ``_load`` (binding and loading a state),
    ``to_reference()`` (the equivalent reference state, which serves the rarely called
    methods: observation, labels, render, serialization, equality) and, in each twin,
    ``_legal_actions`` / ``_chance_outcomes`` / ``is_terminal`` / ``scores`` / ``__repr__``.
    """

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

    cdef void c_copy_from(self, CyState other) noexcept nogil:
        pass

    cdef CyState c_clone(self):
        raise NotImplementedError

    cdef CyState c_resample(self, int player, object rng):
        # A twin with a compiled sampler (``c_resample_into``, ``c_blank``). A scratch state
        # held by this root is reused when nobody else holds it (the search drops each
        # iteration's determinization before drawing the next one). The C stream is seeded
        # by one draw from a numpy Generator ``rng``; later calls with the same Generator
        # continue that stream (a seeded search stays reproducible, and the ~1 us draw is not
        # paid per iteration). An int ``rng`` is the seed itself.
        cdef CyState out = None
        if self._scratch is not None and _Py_REFCNT(<PyObject*>self._scratch) == 1:
            out = self._scratch
        if rng is None or rng is not self._rs_rng:
            self._rs_state = cy_seed_of(rng)
            self._rs_rng = rng if isinstance(rng, np.random.Generator) else None
        out = self._determinized(player, rng, out, &self._rs_state)
        self._scratch = out
        return out

    cdef int c_resample_into(self, int player, CyState out, unsigned long long* rng) noexcept nogil:
        return -1

    cdef CyState c_blank(self):
        raise NotImplementedError

    cdef int c_rewind_hidden_moves(self, int player, int* script) noexcept nogil:
        return 0

    def rewind_hidden_moves(self, player):
        """``State.rewind_hidden_moves`` (engines/api.py): the struct by
        ``c_rewind_hidden_moves``, then the history and the views logs."""
        cdef int script[2 * CY_MAXP]
        cdef int i, count
        check_player(player, self.c_num_players())
        count = self.c_rewind_hidden_moves(player, script)
        if count:
            hist = self._history            # (a shared history is copied first)
            del hist[max(0, len(hist) - count):]
            if self._views is not None:
                self._set_views(rewound_views(self._views, count))
        return [None if script[i] < 0 else script[i] for i in range(count)]

    cdef CyState _determinized(self, int player, object rng, CyState out,
                               unsigned long long* stream):
        cdef unsigned long long x
        if stream == NULL:
            x = cy_seed_of(rng)
            stream = &x
        if out is None:
            out = self.c_blank()
            cy_fresh_history(self, out)
        elif out._hist:
            out._hist = []
        out._hist_shared = False
        self._prepare_resample(player)
        if self.c_resample_into(player, out, stream) == 0:
            out._views = None
            return keep_views(self, out, player)
        gen = np.random.default_rng(stream[0]) if isinstance(rng, int) else rng
        return keep_views(self, self._game._sample_infostate(
            player, self.observation(player), self._own_log(player), gen), player)

    def _prepare_resample(self, int player):
        """Build what ``c_resample_into`` needs for seat ``player`` from its information
        state (with the GIL, before a search's nogil loop); a no-op by default. A twin whose
        compiled sampler declines until prepared (Rat Trap's exact belief) overrides it."""

    def _view_code(self, int action, int player):
        """Seat ``player``'s view of ``action`` (not yet applied; ``engines/api.py``)."""
        cdef int codes[CY_MAXP]
        cdef int n = self._view_codes(action, codes)
        return codes[player] if n else action

    def _apply_seen(self, int action, int player):
        """Apply a legal ``action`` and return seat ``player``'s views entries of the step;
        the logs keep only this step (the exact filter's step, ``engines/belief.py``)."""
        self._views = [[] for _ in range(self.c_num_players())]
        self._views_shared = False
        self._apply_logged(action)
        return self._views[player]

    def _hidden_weight(self, int action):
        """The prior of a choice the seat cannot see (``engines/api.py``): 1 by default."""
        return 1.0

    def _own_log(self, int player):
        """Seat ``player``'s ``views`` log (its perfect recall), or None where not kept."""
        return None if self._views is None else self._views[player]

    cdef int c_info_hash_into(self, int player, unsigned long long* out) noexcept nogil:
        return -1

    cdef unsigned long long c_info_hash(self, int player) except? 0:
        digest = hashlib.blake2b(self.information_state_string(player).encode(),
                                 digest_size=8).digest()
        return int.from_bytes(digest, "little")

    cdef int c_observation_tensor(self, int player, float* out) noexcept nogil:
        return -1

    cdef int c_observation_size(self) noexcept nogil:
        return 0

    # ------------------------------------------------------------------ hooks
    cdef int _attach(self, game) except -1:
        self._game = game
        self._consts = game._consts
        self._hist = []
        self._hist_shared = False
        self._views = None if game.perfect_information else \
            [[] for _ in range(game.num_players())]
        self._views_shared = False
        return 0

    cdef int _view_codes(self, int a, int* out) except -1:
        return 0

    cdef int _after_views(self) except -1:
        return 0

    cdef int _on_views(self) except -1:
        return 0

    cdef int _apply_logged(self, int a) except -1:
        cdef int codes[CY_MAXP]
        cdef int n, q
        if self._views is None:
            self.c_apply(a)
            return 0
        n = self._view_codes(a, codes)
        if n:
            self._own_views()
            for q in range(n):
                (<list>self._views[q]).append(codes[q])
        self.c_apply(a)
        self._after_views()
        return 0

    cdef void _own_views(self):
        if self._views_shared:
            self._views = [list(log) for log in self._views]
            self._views_shared = False

    def _get_views(self):
        """The per-seat ``views`` logs (perfect recall, engines/api.py), or None (shared:
        do not mutate)."""
        return self._views

    def _set_views(self, views):
        """Replace the ``views`` logs (a copy of ``views``; None in a perfect-information
        game), e.g. a determinization's (``api.keep_views``)."""
        self._views = None if views is None else [list(log) for log in views]
        self._views_shared = False
        self._on_views()

    cdef void _load(self, r) except *:
        raise NotImplementedError

    def to_reference(self):
        """The equivalent reference state (same fields, same history)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ fast Python API
    def get_game(self):
        return self._game

    def current_player(self) -> int:
        return self.c_current_player()

    def is_chance_node(self) -> bool:
        return self.c_current_player() == -1

    def is_player_node(self) -> bool:
        return self.c_current_player() >= 0

    def legal_actions(self, player=None) -> list:
        """Sorted, unique legal action ids; empty at terminal states (see engines/api.py)."""
        cdef int buf[CY_MAXBUF]
        cdef double prob[CY_MAXBUF]
        cdef int n, cp
        if player is not None:
            player = check_actor(player, self.c_num_players())
        cp = self.c_current_player()
        if cp == -4:
            return []
        if cp == -1:
            if player is not None and player != -1:
                return []
            n = self.c_chance_outcomes(buf, prob)
            return [buf[i] for i in range(n)]
        if player is not None and player != cp:
            return []
        n = self.c_legal_actions(buf)
        return [buf[i] for i in range(n)]

    def chance_outcomes(self) -> list:
        """``[(action, probability), ...]`` at a chance node; ValueError elsewhere."""
        if self.c_current_player() != -1:
            raise ValueError("chance_outcomes() called at a state that is not a chance node")
        return self._chance_outcomes()

    cdef bint _is_legal(self, int a):
        cdef int buf[CY_MAXBUF]
        cdef double prob[CY_MAXBUF]
        cdef int n, i, cp = self.c_current_player()
        if cp == -4:
            return False
        if cp == -1:
            n = self.c_chance_outcomes(buf, prob)
        else:
            n = self.c_legal_actions(buf)
        for i in range(n):
            if buf[i] == a:
                return True
        return False

    cdef void _record(self, int a):
        if self._hist_shared:
            self._hist = list(self._hist)
            self._hist_shared = False
        self._hist.append(a)

    def apply_action(self, action) -> None:
        """Apply a legal action and record it in the history.

        Raises:
            IllegalActionError: ``action`` is not legal here; the state is unchanged.
        """
        if type(action) is int and 0 <= action < INT_MAX and self._is_legal(action):
            self._apply_logged(action)
            self._record(action)
            return
        if (not isinstance(action, bool) and isinstance(action, (int, np.integer))
                and 0 <= int(action) < INT_MAX and self._is_legal(int(action))):
            self._apply_logged(int(action))
            self._record(int(action))
            return
        self._raise_illegal(action)

    def _raise_illegal(self, action):
        """Raise the error for an illegal ``action`` (a twin may raise the reference's)."""
        legal = self.legal_actions()
        reason = "the game is over" if self.is_terminal() else ""
        cp = self.current_player()
        ref = self.to_reference() if legal else None  # one conversion for every label
        labels = {a: ref._action_to_string(cp, a) for a in legal}
        raise IllegalActionError(action, legal, labels, reason)

    def _apply_action(self, int action) -> None:
        """Apply an action known to be legal (unchecked; no history; the ``views`` logs are
        kept)."""
        self._apply_logged(action)

    def _apply_bare(self, int action) -> None:
        """Apply an action known to be legal in C only: no history and no ``views`` logs, so
        the state's information states are no longer kept (for a clone that only labels
        moves, such as a principal variation's: ``ratai.search.common.apply_for_labels``)."""
        self.c_apply(action)

    def apply_action_unchecked(self, int action) -> None:
        """Apply an action known to be legal and record it (no legality check)."""
        self._apply_logged(action)
        self._record(action)

    @property
    def _history(self) -> list:
        """The history list itself (the search appends to it, like the reference)."""
        if self._hist_shared:
            self._hist = list(self._hist)
            self._hist_shared = False
        return self._hist

    def history(self) -> list:
        return list(self._hist)

    def move_number(self) -> int:
        return len(self._hist)

    def automaton_scores(self) -> list:
        """As ``State.automaton_scores``: ``[]`` unless a twin overrides it."""
        return []

    def returns(self) -> list:
        cdef double out[CY_MAXP]
        cdef int n = self.c_returns(out)
        return [out[i] for i in range(n)]

    def _returns(self) -> list:
        return self.returns()

    def clone(self):
        """An independent copy (an allocation plus a memcpy; the history is copy-on-write)."""
        return self.c_clone()

    def __copy__(self):
        return self.c_clone()

    def __deepcopy__(self, memo):
        return self.c_clone()

    def __reduce__(self):
        return (_restore, (self._game, self.serialize()))

    # ------------------------------------------------------------------ slow Python API
    def observation(self, player) -> dict:
        return self.to_reference().observation(player)

    def information_state_string(self, player) -> str:
        if self._views is None:
            return self.observation_string(player)
        obs = self.observation(player)  # checks the seat
        return canonical_json({"observation": obs, "views": self._views[player]})

    def observation_string(self, player) -> str:
        return canonical_json(self.observation(player))

    def _action_to_string(self, player, action) -> str:
        return self.to_reference()._action_to_string(player, action)

    def action_to_string(self, player, action) -> str:
        return self._action_to_string(player, action)

    def string_to_action(self, player, text):
        # one conversion for the whole label search (each _action_to_string converts)
        return self.to_reference().string_to_action(player, text)

    def action_to_dict(self, player, action) -> dict:
        return State.action_to_dict(self, player, action)

    def describe_action(self, viewer, action) -> str:
        return self.to_reference().describe_action(viewer, action)

    def render(self, player) -> str:
        return self.to_reference().render(player)

    def observation_tensor(self, player, out=None):
        """``observation(player)`` as a ``float32`` vector of ``game.observation_tensor_shape()``
        (see ``engines/api.py``): written by the twin's compiled ``c_observation_tensor``
        straight from its struct when it has one (equal to the reference to the bit), else
        encoded from the observation dict.

        Args:
            out: a caller's ``float32`` buffer of that shape to write into, or ``None``.

        Raises:
            ValueError: ``player`` is not a seat; ``out`` is not a writeable float array
                of that shape.
        """
        cdef int size = self.c_observation_size()
        cdef int n = self.c_num_players()
        cdef float[::1] view
        if size > 0:
            p = player if type(player) is int and 0 <= player < n else check_player(player, n)
            if out is None:
                arr = np.empty(size, dtype=np.float32)
            elif (isinstance(out, np.ndarray) and out.dtype == np.float32
                  and out.shape == (size,) and out.flags.c_contiguous
                  and out.flags.writeable):
                arr = out
            else:
                return State.observation_tensor(self, player, out)
            view = arr
            if self.c_observation_tensor(p, &view[0]) == 0:
                return arr
        return State.observation_tensor(self, player, out)

    def legal_actions_mask(self, player=None):
        return State.legal_actions_mask(self, player)

    def resample_from_infostate(self, player, rng=None):
        obs = self.observation(player)  # checks the seat
        sample = self._game._sample_infostate(player, obs, self._own_log(player), rng)
        return keep_views(self, sample, player)

    def apply_actions(self, actions):
        """Joint-action views only (see ``ratai.engines.api.State.apply_actions``): a twin's
        states are sequential, so this always raises ``ValueError``."""
        raise ValueError(f"{self._game.name}: apply_actions needs a SIMULTANEOUS node "
                         f"(current player: {self.current_player()})")

    def serialize(self) -> bytes:
        return self.to_reference().serialize()

    def to_json(self) -> dict:
        return self.to_reference().to_json()

    def _fields(self) -> dict:
        return self.to_reference()._fields()

    def __str__(self):
        return str(self.to_reference())

    def __eq__(self, other):
        if type(other) is not type(self) or other._game != self._game:
            return NotImplemented if not isinstance(other, State) else False
        return self._fields() == other._fields()

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None


State.register(CyState)


def _restore(game, data):
    """Unpickle a twin state (``CyState.__reduce__``; bytes this library wrote)."""
    return game.deserialize_state(data, validate=False)


def _make_game(cls, params):
    """Unpickle a twin game (``CyGame.__reduce__``)."""
    return cls(**params)


class CyGame:
    """Mixin of every twin game, first in its bases: ``class XGame(CyGame, _R.XGame)``.

    A twin sets ``_state_class`` (its :class:`CyState` subclass) and ``_reference_class``
    (the reference game class), and builds ``self._consts`` when its parameters are checked.
    """

    _state_class = CyState
    _reference_class = None

    def new_initial_state(self):
        return self._state_class(self)

    def __reduce__(self):
        return (_make_game, (type(self), dict(self.params)))

    def _from_reference(self, ref):
        """The twin state of reference state ``ref`` (fields and history; unchecked)."""
        cdef CyState st = self._state_class.__new__(self._state_class)
        st._attach(self)
        st._hist = list(ref._history)
        st._load(ref)
        if "views" in ref.__dict__:
            st._set_views(ref.views)
        return st

    def from_reference(self, ref):
        """The twin of a reference state of equal parameters (history kept)."""
        if ref._game.params != self.params:
            raise ValueError(f"state is for {ref._game!r}, not {self!r}")
        return self._from_reference(ref)

    def reference_game(self):
        """The reference game of equal parameters (cached)."""
        ref = self.__dict__.get("_reference")
        if ref is None:
            ref = self.__dict__["_reference"] = self._reference_class(**self.params)
        return ref

    def deserialize_state(self, data, *, validate=True):
        """Inverse of the state's ``serialize``: the reference's format and validation
        (``validate``: see ``engines.api.Game.deserialize_state``), so a malformed or
        out-of-range document is refused before any compiled code reads it.

        Raises:
            ValueError: the bytes are not a serialized state of this game and parameters.
        """
        st = self._from_reference(self.reference_game().deserialize_state(
            data, validate=validate))
        if validate:  # the twin's reading of the fields must be playable too
            self._check_loaded(st, schema=False)
        return st


cdef long c_random_playout(CyState state, unsigned long long* rng, int* act,
                           double* prob) noexcept nogil:
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


def observation_tensor_loop(CyState state, long n, int player=0) -> long:
    """Write ``state``'s ``observation_tensor(player)`` ``n`` times through the ``cdef``
    interface into one buffer without the GIL (the compiled writer's benchmark); returns
    ``n``, or -1 when the twin has no compiled writer.

    Raises:
        ValueError: ``player`` is not a seat.
    """
    cdef int size = state.c_observation_size()
    cdef long i
    cdef int rc = 0
    cdef float* buf
    check_player(player, state.c_num_players())
    if size <= 0:
        return -1
    buf = <float*>malloc(sizeof(float) * size)
    if buf == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(n):
                rc = state.c_observation_tensor(player, buf)
                if rc != 0:
                    break
    finally:
        free(buf)
    return n if rc == 0 else -1


def has_compiled_observation_tensor(CyState state) -> bool:
    """Whether ``state.observation_tensor`` takes the compiled writer
    (``c_observation_tensor``) for this game (its offsets built from the layout)."""
    return state.c_observation_size() > 0


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


cdef unsigned long long cy_seed_of(object rng) except? 0:
    """A 64-bit seed for a compiled determinization's splitmix64 stream from the caller's
    ``rng``: an int is the seed itself, a numpy ``Generator`` gives one raw draw, anything
    else goes through ``make_rng``."""
    if isinstance(rng, int):
        return <unsigned long long>(rng & 0xFFFFFFFFFFFFFFFF)
    if not isinstance(rng, np.random.Generator):
        rng = make_rng(rng)
    return <unsigned long long>rng.bit_generator.random_raw()


class ObsLayout:
    """A game's tensor layout (``game.observation_tensor_layout()``) indexed by JSON path, for
    a twin building its compiled writer's offset tables once per game.

    Every lookup names the path and kind it wanted when the layout has no such slice
    (``ValueError``): a twin whose tables no longer match its game's schema fails loudly.

    Attributes:
        size: the tensor's length.
        slices: the layout's ``TensorSlice`` list (equal to
            ``game.observation_tensor_layout()``).
    """

    def __init__(self, game):
        # The layout of ``game._obs_spec()`` (``observation_tensor_layout()``), without the
        # JSON Schema meta-check that spec runs; built once per process and parameters (a
        # twin builds its tables whenever a game is created, which should stay cheap).
        layout = game._tensor_layout()
        self.game = game.name
        self.size = int(layout.size)
        self.slices = list(layout.slices)
        self._at = layout.by_path
        self._items = layout.list_items

    def slice(self, path: str, kind: str, which: int = 0):
        """The ``which``-th slice (0 first) of ``kind`` at ``path`` (a ``TensorSlice``)."""
        got = self._at.get((path, kind), ())
        if which >= len(got):
            raise ValueError(f"{self.game} tensor layout: no {kind} slice at {path}")
        return got[which]

    def has(self, path: str, kind: str) -> bool:
        return (path, kind) in self._at

    def flag(self, path: str, which: int = 0) -> int:
        """The cell of the "present" flag at ``path``."""
        return self.slice(path, "flag", which).start

    def number(self, path: str, which: int = 0) -> tuple:
        """``(cell, lo, scale)`` of the number (or boolean) at ``path``."""
        sl = self.slice(path, "number", which)
        return sl.start, float(sl.lo), float(sl.scale)

    def hot(self, path: str, value, which: int = 0) -> int:
        """The one-hot cell of ``value`` in the enum at ``path``."""
        sl = self.slice(path, "enum", which)
        return sl.start + self._index(sl, value)

    def count(self, path: str, value) -> int:
        """The cell counting ``value`` in the multiset at ``path``."""
        sl = self.slice(path, "multiset")
        return sl.start + self._index(sl, value)

    def increment(self, path: str) -> float:
        """What one item adds to its cell in the multiset at ``path`` (1 / maxItems)."""
        return float(self.slice(path, "multiset").scale)

    def length(self, path: str) -> tuple:
        """``(cell, divisor)`` of the length slot of the bounded list at ``path``, or
        ``(-1, 1)`` when the list has none (its length never varies)."""
        if not self.has(path + ".length", "length"):
            return -1, 1
        sl = self.slice(path + ".length", "length")
        return sl.start, int(sl.divisor)

    def _index(self, sl, value) -> int:
        for i, v in enumerate(sl.values):
            if v == value and type(v) is type(value):
                return i
        raise ValueError(f"{self.game} tensor layout: {value!r} is not a value of {sl.path}")


cdef int cy_obs_num_at(CyObsNum* f, object layout, str path) except -1:
    off, lo, scale = layout.number(path)
    f.off = off
    f.lo = lo
    f.scale = scale
    return 0
