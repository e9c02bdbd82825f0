"""Search bots: ``mcts``, ``ismcts``, ``pimc``, ``expectimax`` and ``smmcts``.

Each wraps one algorithm of :mod:`ratai.search` behind the :class:`ratai.bots.Bot`
interface: it validates the budget and options at construction, derives the call's random
streams from its seed and the seat's information state, and returns an
:class:`ratai.search.Analysis`.
"""

from __future__ import annotations

import threading
from typing import Any

from ratai.engines.api import Game, State
from ratai.engines.belief import belief_deadline
from ratai.search.common import (
    DEFAULT_MAX_MEMORY_MB,
    MAX_THREADS,
    MAX_TIME_LIMIT,
    Analysis,
    Budget,
    ProgressFn,
    SearchRng,
    bounded_playouts,
    check_bool,
    check_callable,
    check_int,
    check_number,
    check_root_moves,
    check_stop,
    decisive_move,
    free_later,
    node_cap,
    paused_gc,
    play_decisive,
)
from ratai.search.expectimax import Expectimax
from ratai.search.ismcts import ISMCTS
from ratai.search.pimc import PIMC
from ratai.search.reuse import observed_path
from ratai.search.smmcts import SMMCTS
from ratai.search.uct import PY_NODE_BYTES, UCT, analyze_uct

from .base import Bot

__all__ = ["SearchBot", "MCTSBot", "ISMCTSBot", "PIMCBot", "ExpectimaxBot", "SMMCTSBot"]

#: Options every search bot accepts besides its kind's own (not passed to the algorithm).
RESERVED_OPTIONS = ("on_progress", "progress_every", "skip_forced", "stop")
_UCT_OPTIONS = ("exploration", "rollout", "rollout_cutoff", "rollout_epsilon")
#: The share of a time limit an exact-belief filter may use (``engines.belief``); a cold
#: filter of a large round would otherwise leave the search no time at all.
BELIEF_SHARE = 0.5

# Tree options of the mcts / ismcts bots (compiled and Python search).
_TREE_OPTIONS = ("max_nodes", "max_memory_mb", "threads")
# Tree reuse and pondering options of the mcts / ismcts bots.
_REUSE_OPTIONS = ("reuse_tree", "ponder", "ponder_seconds")
#: Default bound of one ponder search (seconds): it also stops at the bot's next call.
DEFAULT_PONDER_SECONDS = 10.0
SEARCH_BACKENDS = ("auto", "python", "cython")


def _check_backend(backend: str) -> str:
    if backend not in SEARCH_BACKENDS:
        raise ValueError(f"bad search_backend {backend!r}: allowed one of {SEARCH_BACKENDS}")
    return backend


def _cython_search(backend: str, state: State, search) -> Any:
    """The compiled search module when this call should use it, else ``None``.

    ``"auto"``: on a Cython twin state (``ratai._speedups``) with the random playout the
    compiled loop supports; ``"cython"``: always, raising ``ValueError`` when it cannot;
    ``"python"``: never (see ``_speedups/search.pyx`` for what differs).
    """
    if backend == "python":
        return None
    try:
        from ratai._speedups import search as cy
    except ImportError:
        cy = None
    ok_rollout = search.rollout.policy == "random" and search.rollout.cutoff is None
    if cy is not None and cy.is_cython_state(state) and ok_rollout:
        return cy
    if backend == "cython":
        raise ValueError("search_backend='cython' needs the compiled extension, a Cython state "
                         "(load_game(name, backend='cython')) and rollout='random' without "
                         "rollout_cutoff")
    return None


def _compiled_game(game: Game) -> bool:
    """Can the compiled search run on ``game``'s states (a Cython twin, extension built)?"""
    try:
        from ratai._speedups import search as cy
    except ImportError:
        return False
    return bool(cy.is_cython_state(game.new_initial_state()))


#: mixed into the root tie-break seed for the decisive-move check's determinizations
_DECISIVE_SALT = 0x5EED_DEC1


class SearchBot(Bot):
    """Common machinery of the search bots.

    Args:
        game, player, seed: see :class:`ratai.bots.Bot`.
        iterations: exact number of iterations (the reproducible budget).
        time_limit: wall-clock seconds; with ``iterations`` too, the first exhausted stops.
        max_depth: depth limit in plies (expectimax).
        on_progress: ``on_progress(analysis)`` every ``progress_every`` iterations;
            returning ``False`` stops the search and the best move so far is played.
        progress_every: the ``K`` of ``on_progress`` (an int 1..10**9).
        skip_forced: with a single legal move, return it at once without searching
            (``iterations == 0``, ``Analysis.forced``); default True.
        stop: a cancel flag polled inside the search loops (anything with ``is_set()``,
            e.g. ``threading.Event``); once set, the search returns its best move so far.
            ``analyze(state, stop=...)`` overrides it per call.
        **options: the algorithm's options (listed in each subclass's ``OPTIONS``).

    The clock starts when ``analyze`` is called: setup (determinizations, legal moves)
    counts inside ``time_limit``. ``close()`` (or ``with make_bot(...) as bot:``) stops a
    ponder search and frees a kept tree (``mcts``/``ismcts`` with ``reuse_tree`` or
    ``ponder``); the other kinds keep nothing, so it is a no-op for them.

    Raises:
        ValueError: no budget, a bad budget, an unknown or bad option (named), or a game the
            algorithm cannot play.
    """

    OPTIONS: tuple[str, ...] = ()
    NEEDS = "iterations or time_limit"
    # tree reuse / pondering state (set by ``_setup_reuse`` for mcts / ismcts)
    _kept: Any = None
    _ponder_thread: Any = None
    _ponder_flag: Any = None

    def __init__(self, game: Game, player: int, *, iterations: int | None = None,
                 time_limit: float | None = None, max_depth: int | None = None,
                 seed: Any = None, on_progress: ProgressFn | None = None,
                 progress_every: int = 100, skip_forced: bool = True, stop: Any = None,
                 **options: Any):
        super().__init__(game, player, seed=seed)
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} for bot kind {self.kind!r}; "
                             f"allowed: {sorted(self.OPTIONS)} (and make_bot's "
                             f"{', '.join(RESERVED_OPTIONS)})")
        self.progress_every = check_int("progress_every", progress_every, 1, 10**9)
        self.skip_forced = check_bool("skip_forced", skip_forced)
        self.budget = Budget(iterations, time_limit, max_depth).check(need=self.NEEDS)
        self.on_progress = check_callable("on_progress", on_progress)
        self.stop = check_stop(stop)
        self._setup(**options)

    def _setup(self, **options: Any) -> None:
        raise NotImplementedError

    def analyze(self, state: State, on_progress: ProgressFn | None = None,
                stop: Any = None, *, root_moves=None) -> Analysis:
        """Search ``state`` for the seat and report; ``on_progress`` and ``stop`` override
        the bot's.

        The budget's clock starts here, so setup is paid from ``time_limit``.
        ``root_moves`` (a list of legal action ids; UCI ``searchmoves``, KataGo
        ``allowMoves``) restricts the root: only those moves are searched and reported
        (``mcts`` and ``ismcts``). ``stop`` (a ``threading.Event`` or any object with
        ``is_set()``) stops the search once set; the best move so far is returned.

        Raises:
            ValueError: it is not the seat's turn; a bad ``stop``; a ``root_moves`` action
                that is not legal (named, with the legal set); ``root_moves`` for a kind
                that does not support it.
        """
        check_callable("on_progress", on_progress)
        b = self.budget
        budget = Budget(b.iterations, b.time_limit, b.max_depth,
                        check_stop(stop) if stop is not None else self.stop)
        budget.begin()
        legal = self._check_turn(state)
        allowed = check_root_moves(root_moves, legal)
        if self.skip_forced and len(legal) == 1:  # a real forced move (not a root_moves pick)
            return self._forced(state, legal)
        if allowed is not None and self._ponder_thread is not None:
            self._stop_ponder()   # a restricted search is not reused: it needs the core
        if allowed is not None:
            if not self.ROOT_MOVES:
                from ratai.bots import BOT_KINDS

                ok = ", ".join(repr(k) for k, cls in BOT_KINDS.items() if cls.ROOT_MOVES)
                raise ValueError(f"root_moves is not supported by bot kind {self.kind!r}; "
                                 f"supported: {ok}")
            legal = allowed
        self._legal = legal  # the seat's legal moves, for _analyze (listing can be costly)
        # no full collection of the cyclic gc runs inside the budget, and an exact-belief
        # filter (Rat Trap's determinizations) may take at most BELIEF_SHARE of the time
        # limit and stops on a cancel: past either, this call searches the closed form and
        # the next call resumes the filter
        srng = self._rng(state)
        with belief_deadline(budget.share_end(BELIEF_SHARE), budget.stop), paused_gc(), \
                bounded_playouts(budget):
            # a move that wins at once is played (decisive moves; its check is inside the
            # budget and draws from its own seeded stream, so the search's are unchanged)
            win = decisive_move(state, self.player, legal, srng.tie_seed ^ _DECISIVE_SALT,
                                budget)
            if allowed is not None:
                an = self._analyze(state, budget, srng, on_progress or self.on_progress,
                                   allowed=allowed)
            else:
                an = self._analyze(state, budget, srng, on_progress or self.on_progress)
        if win is not None and win != an.best_action:
            self.close()  # the game ends with this move: no tree to keep or ponder below another
        return play_decisive(an, win, state)

    def _analyze(self, state: State, budget: Budget, srng, on_progress) -> Analysis:
        raise NotImplementedError

    def _setup_tree(self, max_nodes: int | None = None,
                    max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB,
                    threads: int = 1) -> None:
        """Validate the tree options of mcts, ismcts and smmcts: ``max_nodes`` (nodes, ``None``: no
        node cap), ``max_memory_mb`` (MB, ``None``: no memory cap; default 512, which keeps
        a 30 s search of any game under it) and ``threads`` (1..``MAX_THREADS``; > 1 needs
        the compiled search: root-parallel trees, see ``_speedups/search.pyx``)."""
        node_cap(max_nodes, max_memory_mb, 1.0)   # validates both
        threads = check_int("threads", threads, 1, MAX_THREADS)
        self.max_nodes = max_nodes
        self.max_memory_mb = max_memory_mb
        self.threads = threads

    def _python_cap(self) -> int:
        """The Python search's node cap; ``threads > 1`` is refused there (one GIL)."""
        if self.threads > 1:
            raise ValueError(f"threads={self.threads} needs the compiled search (a Cython "
                             f"state, load_game(name, backend='cython'), rollout='random' "
                             f"without rollout_cutoff); the Python search runs one thread")
        return node_cap(self.max_nodes, self.max_memory_mb, PY_NODE_BYTES)

    # -- tree reuse and pondering (mcts / ismcts) ------------------------------------------
    def _setup_reuse(self, reuse_tree: bool, ponder: bool, ponder_seconds: float) -> None:
        """Validate ``reuse_tree`` / ``ponder`` / ``ponder_seconds`` (see the kinds' docs)."""
        check_bool("reuse_tree", reuse_tree)
        check_bool("ponder", ponder)
        self.ponder_seconds = check_number("ponder_seconds", ponder_seconds, 0.0,
                                           MAX_TIME_LIMIT, lo_open=True)
        if (reuse_tree or ponder) and self.threads != 1:
            raise ValueError("reuse_tree and ponder need threads=1 (one kept tree)")
        if ponder and getattr(self, "search_backend", "auto") == "python":
            raise ValueError("ponder needs the compiled search (its loop runs without the "
                             "GIL on another core); search_backend='python' cannot ponder")
        self.reuse_tree = bool(reuse_tree or ponder)   # pondering searches the kept tree
        self.ponder = bool(ponder)
        self._kept = None           # (the tree, the state at its root, that state's history)
        self._ponder_thread = None
        self._ponder_flag = None
        #: Iterations the ponder search before the last call ran (0: none).
        self.pondered_iterations = 0
        self._pondered = 0

    def _check_compiled(self, rollout: Any = None, reuse_needs_it: bool = False) -> None:
        """Refuse at construction options that need the compiled search together with what
        rules it out (else every search would fail: a hosted bot seat then plays random
        moves). Needing it: ``search_backend='cython'``, ``threads > 1``, ``ponder`` (and
        ``reuse_tree`` where ``reuse_needs_it``). Ruling it out: ``search_backend='python'``,
        a ``rollout`` other than ``"random"``, a ``rollout_cutoff``, a game without compiled
        states (``load_game(name, backend='python')``, or no compiled extension).

        Raises:
            ValueError: naming both sides.
        """
        needs = [name for name, on in (
            ("search_backend='cython'", self.search_backend == "cython"),
            (f"threads={self.threads}", self.threads > 1),
            ("ponder", getattr(self, "ponder", False)),
            ("reuse_tree", reuse_needs_it and getattr(self, "reuse_tree", False)
             and not getattr(self, "ponder", False))) if on]
        if not needs:
            return
        out = [name for name, on in (
            ("search_backend='python'", self.search_backend == "python"),
            (f"rollout={getattr(rollout, 'policy', None)!r}",
             rollout is not None and rollout.policy != "random"),
            (f"rollout_cutoff={getattr(rollout, 'cutoff', None)}",
             rollout is not None and rollout.cutoff is not None),
            ("a game without compiled states", not _compiled_game(self.game))) if on]
        if out:
            takes = "a Cython game, load_game(name, backend='cython')" + (
                ", and random playouts" if rollout is not None else "")
            raise ValueError(f"the compiled search is needed by {' and '.join(needs)} but "
                             f"ruled out by {' and '.join(out)} (it takes {takes})")

    def _stop_ponder(self) -> None:
        """Stop the ponder search (if any) and wait for it (it sees the flag within one
        iteration)."""
        th, flag = self._ponder_thread, self._ponder_flag
        self._ponder_thread = self._ponder_flag = None
        if th is not None:
            flag.set()
            if self._kept is not None:
                self._kept[0].halt_now()    # seen by the nogil loop within one iteration
            th.join()
            self.pondered_iterations = self._pondered

    def halt_ponder(self) -> None:
        """Tell the ponder search to stop (any thread; does not wait, unlike the next call
        or :meth:`close`)."""
        flag, kept = self._ponder_flag, self._kept
        if flag is not None:
            flag.set()
            if kept is not None:
                kept[0].halt_now()

    def close(self) -> None:
        """Stop pondering and release the kept tree (idempotent). The bot stays usable:
        its next call searches afresh."""
        self._stop_ponder()
        kept, self._kept = self._kept, None
        if kept is not None:
            _release_kept(kept[0])

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        flag = self._ponder_flag
        if flag is not None:
            flag.set()

    def _reuse(self, state: State, budget: Budget, srng, on_progress, *, keys_of, fresh,
               again):
        """One call of a reusing bot: stop the ponder search, continue the kept tree from
        the node the steps played since lead to (``keys_of(kept_state, steps)``: the keys,
        or ``None`` when a step is not observable), else search afresh (``fresh()``); keep
        the tree, and ponder on it when asked.

        ``again(tree, keys)`` searches a kept tree from ``keys`` and returns the
        ``Analysis`` or ``None`` (a missing node). Returns the ``Analysis``.
        """
        self._stop_ponder()
        hist = state.history()
        kept, self._kept = self._kept, None
        an = None
        if kept is not None:
            tree, old_state, old = kept[0], kept[1], kept[2]
            if _fill(tree) <= KEEP_FILL and hist[:len(old)] == old \
                    and self._continues(old_state, hist[len(old):], state):
                keys = keys_of(old_state, hist[len(old):])
                if keys is not None:
                    an = again(tree, keys)
            if an is None:
                _release_kept(tree)
            else:
                kept = (tree, state.clone(), hist)
        if an is None:
            tree, an = fresh()
            kept = (tree, state.clone(), hist)
        if _fill(kept[0]) > KEEP_FILL:   # too full to continue: nothing kept, no ponder
            _release_kept(kept[0])
            return an
        self._kept = kept
        if self.ponder:
            self._start_ponder(an.best_action)
        return an

    def _observed_keys(self, info_hash=None):
        """``keys_of(kept_state, steps)`` for :meth:`_reuse` in a hidden-information search
        (``ismcts``, ``az``): :func:`ratai.search.reuse.observed_path` for the seat, its
        seed and its search's ``chance_key``; ``info_hash``: the compiled search's chance
        key function, or ``None``."""
        by_info = self.search.chance_key == "infostate"
        merge = self.search.merge

        def keys_of(kept, steps):
            return observed_path(kept, steps, self.player, by_info=by_info, merge=merge,
                                 seed=self.seed, info_hash=info_hash)
        return keys_of

    def _continues(self, old: State, steps: list[int], state: State) -> bool:
        """Whether ``state`` is the kept root ``old`` after ``steps`` as the seat sees it (its
        information state). The history alone cannot tell: a position built from an
        observation (``state_from_observation``) or a determinization has none, so two
        different such positions share the empty history, and neither can it tell games
        with other parameters apart."""
        if old.get_game()._params_key() != state.get_game()._params_key():
            return False
        s = old.clone()
        try:
            for a in steps:
                s.apply_action(a)
        except Exception:  # noqa: BLE001 - not a continuation of the kept root
            return False
        return s.information_state_string(self.player) == \
            state.information_state_string(self.player)

    def _start_ponder(self, action: int) -> None:
        """Search the kept tree below ``action`` (the answer just given) on a background
        thread until the next call, ``close()``, the bot's ``stop`` flag, or
        ``ponder_seconds``. The compiled loop runs without the GIL, so the thread uses
        another core while the other seats think."""
        tree, s0, _ = self._kept
        s1 = s0.clone()
        s1.apply_action(action)
        if s1.is_terminal():
            return
        srng = SearchRng(self.seed, s1, self.player, self.rng)
        flag = _PonderFlag(self.stop)
        budget = Budget(time_limit=self.ponder_seconds, stop=flag)
        budget.begin()

        def run():
            try:
                # an exact-belief filter of a determinization stops with the ponder search
                # (the next call joins this thread: it must not wait for a cold filter)
                with belief_deadline(budget.end, flag):
                    # the root moves below the answer here, off the caller's path (the
                    # sampler's setup may filter a belief); the kept state follows it, and
                    # the next call reads it only after joining this thread (a move the
                    # tree never tried: no pondering, the kept root stays)
                    if flag.is_set() or not tree._reroot(s1, [("a", int(action))], srng):
                        return
                    self._kept = (tree, s1, s1.history())
                    self._pondered = tree.ponder(s1, [], budget, srng)
            except Exception:  # noqa: BLE001 - a ponder failure only loses the ponder
                self._pondered = 0

        self._pondered = 0
        th = threading.Thread(target=run, name=f"ratai-ponder-{self.player}", daemon=True)
        self._ponder_flag, self._ponder_thread = flag, th
        th.start()


class _PonderFlag:
    """The ponder search's stop flag: set by the bot (its next call, ``close()``) or by the
    bot's own ``stop`` flag (a cancel reaches the ponder search too)."""

    __slots__ = ("event", "other")

    def __init__(self, other: Any):
        self.event = threading.Event()
        self.other = other

    def set(self) -> None:
        self.event.set()

    def is_set(self) -> bool:
        return self.event.is_set() or (self.other is not None and self.other.is_set())


#: A kept tree using more than this share of its cap (memory or nodes) is not continued:
#: its new root would have little room to grow (a full pool left a continued search's root
#: moves with no visits at all; tester, stop 55), so the next call searches afresh.
KEEP_FILL = 0.5


def _fill(tree: Any) -> float:
    """The share of its cap a kept tree uses (``fill()`` of a compiled worker or a Python
    kept root; 0 when uncapped)."""
    fill = getattr(tree, "fill", None)
    return fill() if fill is not None else 0.0


def _release_kept(tree: Any) -> None:
    """Free a kept tree off the caller's path (a compiled worker or a Python root node)."""
    release = getattr(tree, "release", None)
    if release is not None:
        release()
    else:
        free_later(tree)


class MCTSBot(SearchBot):
    """UCT (Kocsis & Szepesvári 2006) with vector returns and sampled chance; see
    :mod:`ratai.search.uct`.

    Options: ``exploration`` (UCB1 ``c``, default 1.0), ``rollout`` (``"random"`` or
    ``"heuristic"``), ``rollout_cutoff`` (plies, ``None``), ``rollout_epsilon`` (0.1),
    ``determinize`` (False), ``search_backend`` (``"auto"``: the compiled search of
    ``_speedups/search.pyx`` on a Cython state, ``"python"``, ``"cython"``), ``max_nodes``
    (``None``), ``max_memory_mb`` (512 MB; at the cap the tree stops growing and the search
    goes on answering within its budget), ``threads`` (1; N root-parallel trees, compiled
    search only), ``reuse_tree`` (False; perfect-information games, compiled search: keep the
    tree between calls and continue from the subtree the public actions played since lead
    to; answers then depend on the bot's earlier calls), ``ponder`` (False; implies
    ``reuse_tree``: after answering, search the kept tree on a background thread while the
    other seats move, see :class:`ISMCTSBot`), ``ponder_seconds`` (10 s). ``analyze(state,
    root_moves=[...])`` restricts the root. UCT needs the
    true state: on a game with hidden information (``game.perfect_information`` False) the
    bot refuses unless ``determinize=True``, in which case it searches one determinization
    drawn with ``resample_from_infostate`` per call (use ``pimc`` for several, ``ismcts`` for
    the sound alternative): its values are then that one world's (expected returns in [0, 1]
    given the sampled hidden cards), not an estimate over the seat's beliefs.
    """

    kind = "mcts"
    OPTIONS = _UCT_OPTIONS + _TREE_OPTIONS + _REUSE_OPTIONS + ("determinize",
                                                               "search_backend")
    ROOT_MOVES = True

    def _setup(self, determinize: bool = False, search_backend: str = "auto",
               max_nodes: int | None = None,
               max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB, threads: int = 1,
               reuse_tree: bool = False, ponder: bool = False,
               ponder_seconds: float = DEFAULT_PONDER_SECONDS, **kw: Any) -> None:
        self._setup_tree(max_nodes, max_memory_mb, threads)
        self.search_backend = _check_backend(search_backend)
        if (reuse_tree or ponder) and (not self.game.perfect_information or threads != 1):
            raise ValueError("reuse_tree needs a perfect-information game and threads=1 (the "
                             "kept subtree is found by the public actions played since); "
                             "use ismcts(reuse_tree=True) with hidden information")
        self._setup_reuse(reuse_tree, ponder, ponder_seconds)
        if not self.game.perfect_information and not determinize:
            raise ValueError(f"mcts needs perfect information, and game {self.game.name!r} has "
                             f"hidden information: use kind 'ismcts' or 'pimc', or pass "
                             f"determinize=True to search one determinization")
        self.determinize = bool(determinize)
        self.search = UCT(self.game, self.player, **kw)
        self._check_compiled(self.search.rollout, reuse_needs_it=True)

    def _analyze(self, state, budget, srng, on_progress, allowed=None):
        root = state
        if not self.game.perfect_information:
            root = state.resample_from_infostate(self.player, srng.child_seed())
        cy = _cython_search(self.search_backend, root, self.search)
        if cy is not None:
            if self.reuse_tree and allowed is None:
                return self._analyze_reusing(cy, root, budget, srng, on_progress)
            return cy.CyUCT(self.player, self.search.c, self.max_nodes,
                            self.max_memory_mb, self.threads).analyze(
                root, budget, srng, on_progress, self.progress_every, self.seed, self.kind,
                allowed)
        if self.reuse_tree:
            raise ValueError("reuse_tree and ponder need the compiled search (a Cython "
                             "state, rollout='random' without rollout_cutoff)")
        cap = self._python_cap()
        return analyze_uct(self.search, root, budget, srng, on_progress, self.progress_every,
                           self.seed, self.kind, allowed, cap)

    def _analyze_reusing(self, cy, state, budget, srng, on_progress):
        """Tree reuse (``reuse_tree=True``): continue the kept tree from the node the
        actions played since its root lead to (all public: perfect information), else
        search afresh; the tree is kept for the next call either way (see
        :meth:`SearchBot._reuse`)."""
        def fresh():
            w = cy.CyUCT(self.player, self.search.c, self.max_nodes, self.max_memory_mb, 1)
            return w, w.analyze(state, budget, srng, on_progress, self.progress_every,
                                self.seed, self.kind, None, True)

        def again(w, path):
            return w.reanalyze(state, path, budget, srng, on_progress, self.progress_every,
                               self.seed, self.kind)

        return self._reuse(state, budget, srng, on_progress,
                           keys_of=lambda kept, steps: list(steps), fresh=fresh, again=again)


class ISMCTSBot(SearchBot):
    """Single-observer IS-MCTS (Cowling, Powley & Whitehouse 2012); see
    :mod:`ratai.search.ismcts`.

    Options: ``exploration`` (default 0.7), ``rollout``, ``rollout_cutoff``,
    ``rollout_epsilon``, ``chance_key`` (``"infostate"`` or ``"action"``),
    ``opponent_key`` (``"auto"``, ``"infostate"`` or ``"action"``: after another seat's move
    the tree goes on from what the seat observed of it, or from the move's own child; auto:
    the former where the game has hidden moves, Ratapolis' plans; see
    :mod:`ratai.search.ismcts`), ``search_backend``, ``max_nodes``, ``max_memory_mb``,
    ``threads`` (as for ``mcts``), and:

    * ``reuse_tree`` (False; ``threads=1``): keep the tree between calls and continue, on the
      next call, from the node matching the seat's new information state. The node is
      reached only through keys the seat observes (:func:`ratai.search.reuse.observed_path`:
      its own actions, other seats' actions it can tell apart (with merged moves: its
      information state after them), chance perceptions keyed by its information state);
      when a step is hidden from the seat, or the node was never
      expanded, the search starts afresh. The kept visits add to the new ones. Answers then
      depend on the bot's earlier calls in this game (for a seeded bot: on the seed and the
      seat's observed history only — no peeking). Compiled and Python search.
    * ``ponder`` (False; implies ``reuse_tree``, compiled search only): after answering, the
      bot searches the kept tree below its move on a background thread (the compiled loop
      holds no GIL, so it uses another core) while the other seats move; the next call
      stops it and continues its tree. Bounded by ``ponder_seconds`` (10 s), the memory cap
      (``max_memory_mb``/``max_nodes``) and the bot's ``stop`` flag; ``bot.close()`` (or
      ``with bot:``) stops it and frees the tree. **Pondering makes answers depend on
      timing** (how long the others thought), so seeded games are not reproducible with it;
      it is off by default, and with ``ponder=False`` nothing changes.
    """

    kind = "ismcts"
    OPTIONS = _UCT_OPTIONS + _TREE_OPTIONS + _REUSE_OPTIONS + ("chance_key", "opponent_key",
                                                               "search_backend")
    ROOT_MOVES = True

    def _setup(self, search_backend: str = "auto", max_nodes: int | None = None,
               max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB, threads: int = 1,
               reuse_tree: bool = False, ponder: bool = False,
               ponder_seconds: float = DEFAULT_PONDER_SECONDS, **kw: Any) -> None:
        self._setup_tree(max_nodes, max_memory_mb, threads)
        self.search_backend = _check_backend(search_backend)
        self._setup_reuse(reuse_tree, ponder, ponder_seconds)
        self.search = ISMCTS(self.game, self.player, **kw)
        self._check_compiled(self.search.rollout, reuse_needs_it=False)

    def _analyze(self, state, budget, srng, on_progress, allowed=None):
        cy = _cython_search(self.search_backend, state, self.search)
        if self.reuse_tree and allowed is None:
            if cy is None and self.ponder:
                raise ValueError("ponder needs the compiled search (a Cython state, "
                                 "rollout='random' without rollout_cutoff)")
            return self._analyze_reusing(cy, state, budget, srng, on_progress)
        if cy is not None:
            return cy.CyISMCTS(self.player, self.search.c, self.search.chance_key,
                               self.max_nodes, self.max_memory_mb, self.threads,
                               self.search.merge).analyze(
                state, budget, srng, on_progress, self.progress_every, self.seed, self.kind,
                allowed)
        cap = self._python_cap()
        return self.search.analyze(state, budget, srng, on_progress, self.progress_every,
                                   self.seed, self.kind, allowed, cap)

    def _analyze_reusing(self, cy, state, budget, srng, on_progress):
        """Tree reuse keyed by the seat's information state (see the class docstring and
        :meth:`SearchBot._reuse`)."""
        me, every = self.player, self.progress_every
        keys_of = self._observed_keys(cy.info_hash if cy is not None else None)
        if cy is not None:
            def fresh():
                w = cy.CyISMCTS(me, self.search.c, self.search.chance_key, self.max_nodes,
                                self.max_memory_mb, 1, self.search.merge)
                return w, w.analyze(state, budget, srng, on_progress, every, self.seed,
                                    self.kind, None, True)

            def again(w, keys):
                return w.reanalyze(state, keys, budget, srng, on_progress, every, self.seed,
                                   self.kind)
        else:
            search, cap = self.search, self._python_cap()

            def fresh():
                an = search.analyze(state, budget, srng, on_progress, every, self.seed,
                                    self.kind, None, cap, keep=True)
                return _PyKept(search.last_root, search.last_nodes, cap), an

            def again(kept, keys):
                node = search.walk(kept.root, keys)
                if node is None or not state.legal_actions(me):
                    return None
                an = search.analyze(state, budget, srng, on_progress, every, self.seed,
                                    self.kind, None, cap, root=node, nodes=kept.nodes,
                                    keep=True)
                free_later(kept.root)           # the siblings; the kept node stays referenced
                kept.root, kept.nodes = search.last_root, search.last_nodes
                return an

        return self._reuse(state, budget, srng, on_progress, keys_of=keys_of, fresh=fresh,
                           again=again)


class _PyKept:
    """A kept Python IS-MCTS tree: its root node, node count and node cap."""

    __slots__ = ("root", "nodes", "cap")

    def __init__(self, root, nodes: int, cap: int):
        self.root = root
        self.nodes = nodes
        self.cap = cap

    def fill(self) -> float:
        """The share of the node cap the tree uses."""
        return self.nodes / self.cap

    def release(self) -> None:
        root, self.root = self.root, None
        if root is not None:
            free_later(root)


class PIMCBot(SearchBot):
    """Perfect-information Monte Carlo (Ginsberg 2001; Long et al. 2010): ``determinizations``
    worlds (default 8), a UCT search on each, votes aggregated by visits; see
    :mod:`ratai.search.pimc`. Options: ``determinizations``, the UCT options, and
    ``max_nodes`` (``None``) / ``max_memory_mb`` (512 MB): a cap on all the worlds' trees
    together, an equal share each (``ValueError`` below 1 node / 0 MB).
    """

    kind = "pimc"
    OPTIONS = _UCT_OPTIONS + ("determinizations", "max_nodes", "max_memory_mb")

    def _setup(self, **kw: Any) -> None:
        self.search = PIMC(self.game, self.player, **kw)

    def _analyze(self, state, budget, srng, on_progress):
        return self.search.analyze(state, budget, srng, on_progress, self.progress_every,
                                   self.seed, self.kind, legal=self._legal)


class ExpectimaxBot(SearchBot):
    """Expectimax with max^n or paranoid backup, Star1 pruning, iterative deepening and a
    transposition table (Michie 1966; Ballard 1983); see :mod:`ratai.search.expectimax`.

    Budget: ``max_depth`` (decision plies), ``time_limit`` and/or ``iterations`` (here: a
    node budget); at least one. ``on_progress`` is called after every completed depth.
    Options: ``mode`` (``"maxn"`` or ``"paranoid"``), ``determinizations`` (4, hidden
    information only), ``max_chance_outcomes`` (``None``), ``transposition_table`` (True),
    ``max_nodes`` (200,000: every search is bounded), ``evaluation`` (``"rollout"``, the
    default: random playouts to the end, or ``"heuristic"``), ``rollouts`` (8),
    ``rollout_cutoff`` (``None``: to the end). It always answers: the best
    move of the last completed depth, or of the moves depth 1 scored before the budget ran
    out.
    """

    kind = "expectimax"
    OPTIONS = ("mode", "determinizations", "max_chance_outcomes", "transposition_table",
               "max_nodes", "evaluation", "rollouts", "rollout_cutoff")
    NEEDS = "iterations or time_limit or max_depth"

    def _setup(self, **kw: Any) -> None:
        self.search = Expectimax(self.game, self.player, **kw)

    def _analyze(self, state, budget, srng, on_progress):
        return self.search.analyze(state, budget, srng, on_progress, 1, self.seed, self.kind,
                                   legal=self._legal)


class SMMCTSBot(SearchBot):
    """Decoupled UCT for simultaneous moves (Lanctot et al. 2013; Tak et al. 2014) in a game's
    joint-move view (``current_player() == SIMULTANEOUS``, ``legal_actions(p)`` per seat,
    ``apply_actions([...])``); sequential and chance nodes are searched as in UCT. See
    :mod:`ratai.search.smmcts`.

    Options: the UCT options, ``determinizations`` (default 1): for a game with hidden
    information the bot searches that many determinizations and aggregates them by visits
    (as ``pimc``; with the default 1 its values are one sampled world's, not an estimate over
    the seat's beliefs); with perfect information it searches the state itself; and
    ``search_backend`` (``"auto"``: compiled playouts of a joint view, see
    :mod:`ratai.search.smmcts`; ``"python"``; ``"cython"``), and ``max_nodes`` (``None``) /
    ``max_memory_mb`` (512 MB): a cap on the tree, or on all the determinizations' trees
    together, an equal share each.
    """

    kind = "smmcts"
    OPTIONS = _UCT_OPTIONS + ("determinizations", "search_backend", "max_nodes",
                              "max_memory_mb")

    def _setup(self, determinizations: int = 1, max_nodes: int | None = None,
               max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB, **kw: Any) -> None:
        self._setup_tree(max_nodes, max_memory_mb)   # validates and keeps both
        if self.game.perfect_information:
            self.search = SMMCTS(self.game, self.player, **kw)
        else:
            self.search = PIMC(self.game, self.player, determinizations=determinizations,
                               search_cls=SMMCTS, max_nodes=max_nodes,
                               max_memory_mb=max_memory_mb, **kw)

    def _analyze(self, state, budget, srng, on_progress):
        if isinstance(self.search, PIMC):
            return self.search.analyze(state, budget, srng, on_progress, self.progress_every,
                                       self.seed, self.kind, legal=self._legal)
        return analyze_uct(self.search, state, budget, srng, on_progress, self.progress_every,
                           self.seed, self.kind, max_nodes=self._python_cap())
