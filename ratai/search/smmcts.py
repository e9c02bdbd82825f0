"""Simultaneous-move MCTS with decoupled UCT (the joint-move view).

Lanctot, Lisý & Winands 2013, "Monte Carlo Tree Search in Simultaneous Move Games with
Applications to Goofspiel" (CGW @ IJCAI) and Tak, Lanctot & Winands 2014, "Monte Carlo Tree
Search Variants for Simultaneous Move Games" (IEEE CIG): at a node where several seats
decide at once (``current_player() == SIMULTANEOUS``), each seat keeps its own UCB1 bandit
over its own legal actions (``state.legal_actions(p)``) and ignores the others' choices
("decoupled UCT", DUCT); the joint action (one id per seat, applied with
``state.apply_actions([...])``, or its verified seat-wise fast path, see
:func:`ratai.search.common.apply_joint`) indexes the child. Sequential and chance nodes are
searched as in UCT (Kocsis & Szepesvári 2006). The root move reported is the searching
seat's most visited action of its own bandit (the robust child of DUCT).

This is the joint view of Ratapolis planning (``simultaneous=True``). For hidden
information (cards behind the screen) the bot searches determinizations like PIMC: one
world per ``determinizations`` drawn with ``resample_from_infostate``.

Speed: a joint view is not compiled (Ratapolis offers 11^4 = 14,641 plans per seat, and
listing them costs milliseconds), so with the random playout (``rollout="random"``, no
cut-off) the playouts run in the game's compiled sequential view when there is one
(``load_game(name, backend="cython", simultaneous=False)`` of equal other parameters): the
tree is built in the joint view, and each leaf's state is copied field for field into the
compiled twin, which plays the game out in C (a uniformly random legal action at every
decision, so a plan is drawn cell by cell rather than uniformly over whole plans).
``search_backend="python"`` keeps the reference playouts through the joint view.
"""

from __future__ import annotations

import random
from typing import Any

from ratai.engines.api import Game, State

from .uct import UCT

__all__ = ["SMMCTS", "CompiledJointRollout"]

SEARCH_BACKENDS = ("auto", "python", "cython")


class CompiledJointRollout:
    """Random playouts of a joint-view state in the game's compiled sequential view.

    Args:
        game: a game with a ``simultaneous`` parameter set to True and a Cython twin.

    Raises:
        ValueError: the game has no compiled sequential view (see :meth:`available`).
    """

    policy = "random"
    cutoff = None

    def __init__(self, game: Game):
        twin = self.twin_game(game)
        if twin is None:
            raise ValueError(f"game {game.name!r} has no compiled sequential view for "
                             f"its joint-view playouts")
        from ratai._speedups import core

        self.twin = twin
        self._playout = core.random_playout_actions

    @staticmethod
    def twin_game(game: Game) -> Game | None:
        """The compiled sequential twin of a joint-view ``game``, or ``None``."""
        params = dict(getattr(game, "params", {}) or {})
        if params.get("simultaneous") is not True:
            return None
        try:
            from ratai.engines import load_game

            twin = load_game(game.name, backend="cython", **{**params, "simultaneous": False})
        except (ImportError, ValueError, TypeError):
            return None
        if not hasattr(twin, "_from_reference"):
            return None
        return twin

    def __call__(self, state: State, rnd: random.Random) -> tuple[list[float], int]:
        """Play ``state`` out (``state`` itself is not changed); ``(returns, plies)``."""
        cy = self.twin._from_reference(state)
        plies = len(self._playout(cy, rnd.getrandbits(64)))
        return list(cy._returns()), plies


class SMMCTS(UCT):
    """Decoupled UCT for seat ``player`` (the arguments of :class:`ratai.search.uct.UCT`).

    Args:
        search_backend: ``"auto"`` (compiled playouts of a joint view when available, see
            the module docstring), ``"python"`` (reference playouts) or ``"cython"``
            (compiled playouts, ``ValueError`` when unavailable).
        **kw: see :class:`ratai.search.uct.UCT`.

    Raises:
        ValueError: a bad parameter (named).
    """

    def __init__(self, game: Game, player: int, *, search_backend: str = "auto", **kw: Any):
        super().__init__(game, player, **kw)
        if search_backend not in SEARCH_BACKENDS:
            raise ValueError(f"bad search_backend {search_backend!r}: allowed one of "
                             f"{SEARCH_BACKENDS}")
        self.search_backend = search_backend
        plain = self.rollout.policy == "random" and self.rollout.cutoff is None
        if search_backend != "python" and plain:
            if CompiledJointRollout.twin_game(game) is not None:
                self.rollout = CompiledJointRollout(game)
            elif search_backend == "cython":
                raise ValueError("search_backend='cython' needs a joint view with a compiled "
                                 "sequential twin (e.g. ratapolis, simultaneous=True)")
        elif search_backend == "cython":
            raise ValueError("search_backend='cython' needs rollout='random' without "
                             "rollout_cutoff")
