"""The ``az`` bot: PUCT over IS-MCTS determinizations guided by a learned network.

See :mod:`ratai.search.az` (the Python reference) and ``CyAZ`` in ``_speedups/search.pyx``
(the compiled search, used on Cython states); the network and its file format are
:mod:`ratai.nn.model`.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from ratai.engines.api import SIMULTANEOUS
from ratai.nn import Model, packaged
from ratai.search.az import AZ
from ratai.search.common import DEFAULT_MAX_MEMORY_MB, check_number

from .search_bots import (
    _REUSE_OPTIONS,
    DEFAULT_PONDER_SECONDS,
    SearchBot,
    _check_backend,
)

__all__ = ["AZBot", "load_model"]

_CACHE: dict[tuple, Model] = {}


def load_model(model: Any, game) -> Model:
    """The :class:`ratai.nn.Model` for ``model`` (a ``Model``, a path, or ``None``: the
    packaged model of ``game``), checked against ``game`` (``Model.check_game``). Files are
    cached by path, size and modification time.

    Raises:
        ValueError: no model is shipped for the game (and none was given), or ``model`` is
            neither a ``Model`` nor a path.
        ModelError: (a ``ValueError``) an unreadable file or one made for another game.
    """
    shipped = model is None
    if shipped:
        path = packaged(game)
        if path is None:
            raise ValueError(f"no model is shipped for game {game.name!r}: pass "
                             f"model=PATH (a file written by 'ratai train') or a ratai.nn.Model")
        model = path
    if isinstance(model, str | os.PathLike):
        path = Path(model)
        try:
            st = path.stat()
            key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
        except OSError:
            key = None
        if key is not None and key in _CACHE:
            model = _CACHE[key]
        else:
            model = Model.load(path)
            if key is not None:
                if len(_CACHE) > 16:
                    _CACHE.clear()
                _CACHE[key] = model
    if not isinstance(model, Model):
        raise ValueError(f"bad model {model!r}: allowed a path, a ratai.nn.Model or None "
                         f"(the packaged model)")
    if shipped:   # messages name it in the package, not by this machine's install path
        model.source = f"ratai/models/{Path(model.source).name}"
    model.check_game(game)
    model.seat_maps(game.num_players(), game)  # a seat-relative network's maps, from game
    return model


class AZBot(SearchBot):
    """AlphaZero-style search: PUCT over single-observer IS-MCTS determinizations with
    priors and leaf values from a network (see :mod:`ratai.search.az`).

    Options: ``model`` (a path, a :class:`ratai.nn.Model`, or ``None``: the packaged model
    of the game; a ``ValueError`` if none is shipped), ``c_puct`` (1.5, in [0, 100]),
    ``dirichlet_alpha`` (0.3, in (0, 100]), ``noise_fraction`` (0: play; 0.25 for
    self-play), ``rollout_mix`` (0: network values only; in [0, 1]), ``fpu_reduction``
    (0.1, in [0, 1]: first-play urgency), ``policy_playout`` (0: the value at the leaf;
    an int in 0..1,000: decisions played from a new leaf by the network's most probable
    move before the value is taken, one evaluation each), ``policy_temperature`` (1: the
    network's priors as they are; in [0.05, 100]: the softmax temperature of the priors,
    ``< 1`` sharper, ``> 1`` flatter; Leela Chess Zero's policy softmax temperature),
    ``temperature`` (0: play the most visited move; > 0: sample a move with probability
    proportional to ``visits ** (1 / temperature)``, seeded; in [0, 100]), ``chance_key``
    (``"infostate"`` or ``"action"``), ``hidden_moves`` (``"uniform"``: another seat's
    hidden moves, Ratapolis' committed plan cells, drawn as the rules' sampler draws them;
    ``"policy"``: redrawn in each determinization from the network's priors at that seat's
    view, the network as the opponent model; see :mod:`ratai.search.az`), ``opponent_key``
    (``"auto"``, ``"infostate"`` or ``"action"``: as for ``ismcts``), ``search_backend``
    (``"auto"``: the compiled ``CyAZ`` on a Cython state, ``"python"``, ``"cython"``),
    ``max_nodes``,
    ``max_memory_mb`` (512), ``threads`` (1; > 1 needs the compiled search),
    ``reuse_tree`` / ``ponder`` / ``ponder_seconds`` (off, off, 10 s; the compiled search
    and ``threads=1``: keep the tree between calls and continue from the node matching the
    seat's new information state, and search it on a background thread while the other
    seats move; as for ``ismcts``, whose docstring says what each one guarantees), and, as
    every search kind, ``iterations``/``time_limit``, ``stop``, ``skip_forced``,
    ``on_progress`` and ``analyze(state, root_moves=[...])``.

    Options the caller does not pass take the model's recommended values first
    (:attr:`ratai.nn.Model.play_options`, ``meta["play"]``: e.g. the shipped Rats to Riches
    network plays with ``rollout_mix=1.0``, its measured best), then the defaults above.

    ``analyze()`` reports every legal root move (or the ``root_moves``) with
    ``MoveStat.prior`` the network prior (at ``policy_temperature``), ``visits`` (the
    self-play policy target) and ``values`` the mean value per seat. With ``temperature >
    0`` ``best_action`` is the sampled move (``moves`` stay sorted by visits).

    Raises:
        ValueError / ModelError: as :func:`load_model`, or a bad option (named, with range).
    """

    kind = "az"
    OPTIONS = ("model", "c_puct", "dirichlet_alpha", "noise_fraction", "rollout_mix",
               "fpu_reduction", "policy_playout", "policy_temperature", "temperature",
               "chance_key", "hidden_moves", "opponent_key", "search_backend", "max_nodes",
               "max_memory_mb", "threads") + _REUSE_OPTIONS
    ROOT_MOVES = True

    def _setup(self, model: Any = None, temperature: float = 0.0,
               search_backend: str = "auto", max_nodes: int | None = None,
               max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB, threads: int = 1,
               reuse_tree: bool = False, ponder: bool = False,
               ponder_seconds: float = DEFAULT_PONDER_SECONDS, **kw: Any) -> None:
        self._setup_tree(max_nodes, max_memory_mb, threads)
        self.search_backend = _check_backend(search_backend)
        self._setup_reuse(reuse_tree, ponder, ponder_seconds)
        self.temperature = check_number("temperature", temperature, 0.0, 100.0)
        self.model = load_model(model, self.game)
        for name, value in self.model.play_options.items():  # the model's measured defaults
            kw.setdefault(name, value)
        self.search = AZ(self.game, self.player, self.model, **kw)
        self._check_compiled(reuse_needs_it=True)

    def _cython(self, state):
        if self.search_backend == "python":
            return None
        try:
            from ratai._speedups import search as cy
        except ImportError:
            cy = None
        if cy is not None and hasattr(cy, "CyAZ") and cy.is_cython_state(state):
            return cy
        if self.search_backend == "cython":
            raise ValueError("search_backend='cython' needs the compiled extension and a "
                             "Cython state (load_game(name, backend='cython'))")
        return None

    def _analyze(self, state, budget, srng, on_progress, allowed=None):
        cy = self._cython(state)
        s = self.search
        if self.reuse_tree and allowed is None and state.current_player() != SIMULTANEOUS:
            if cy is None:
                raise ValueError("reuse_tree and ponder need the compiled search (a Cython "
                                 "state, load_game(name, backend='cython'))")
            return self._analyze_reusing(cy, state, budget, srng, on_progress)
        if cy is not None:
            an = self._cy_search(cy, self.threads).analyze(
                state, budget, srng, on_progress, self.progress_every, self.seed, self.kind,
                allowed)
        else:
            an = s.analyze(state, budget, srng, on_progress, self.progress_every, self.seed,
                           self.kind, allowed, self._python_cap())
        return self._choose(an, srng)

    def _cy_search(self, cy, threads: int):
        s = self.search
        return cy.CyAZ(self.player, self.model, s.c_puct, s.alpha, s.eps, s.mix, s.fpu,
                       s.chance_key, self.max_nodes, self.max_memory_mb, threads,
                       s.policy_playout, s.policy_temperature, s.merge, s.hidden_moves)

    def _analyze_reusing(self, cy, state, budget, srng, on_progress):
        """Tree reuse keyed by the seat's information state, as ``ismcts`` (see
        :meth:`SearchBot._reuse`); ``temperature`` picks the move before the bot ponders
        below it."""
        every = self.progress_every

        def fresh():
            w = self._cy_search(cy, 1)
            return w, self._choose(w.analyze(state, budget, srng, on_progress, every,
                                             self.seed, self.kind, None, True), srng)

        def again(w, keys):
            an = w.reanalyze(state, keys, budget, srng, on_progress, every, self.seed,
                             self.kind)
            return None if an is None else self._choose(an, srng)

        return self._reuse(state, budget, srng, on_progress,
                           keys_of=self._observed_keys(cy.info_hash), fresh=fresh, again=again)

    def _choose(self, an, srng):
        """Apply ``temperature`` to the root visits (0: the search's best move)."""
        if self.temperature == 0.0 or not an.moves:
            return an
        inv = 1.0 / self.temperature
        top = max(m.visits for m in an.moves)
        if top == 0:
            return an
        weights = [(m.visits / top) ** inv if m.visits else 0.0 for m in an.moves]
        u = srng.py.random() * sum(weights)
        pick = an.moves[-1]
        for m, w in zip(an.moves, weights, strict=True):
            u -= w
            if u < 0 and w > 0:
                pick = m
                break
        return dataclasses.replace(an, best_action=pick.action, pv=pick.pv)
