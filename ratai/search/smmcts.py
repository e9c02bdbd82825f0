"""Simultaneous-move MCTS with decoupled UCT (the joint-move view).

Lanctot, Lisý & Winands 2013, "Monte Carlo Tree Search in Simultaneous Move Games with
Applications to Goofspiel" (CGW @ IJCAI) and Tak, Lanctot & Winands 2014, "Monte Carlo Tree
Search Variants for Simultaneous Move Games" (IEEE CIG): at a node where several seats
decide at once (``current_player() == SIMULTANEOUS``), each seat keeps its own UCB1 bandit
over its own legal actions (``state.legal_actions(p)``) and ignores the others' choices
("decoupled UCT", DUCT); the joint action (one id per seat, applied with
``state.apply_actions([...])``) indexes the child. Sequential and chance nodes are searched
as in UCT (Kocsis & Szepesvári 2006). The root move reported is the searching seat's most
visited action of its own bandit (the robust child of DUCT).

This is the joint view of Ratapolis planning (``simultaneous=True``). For hidden
information (cards behind the screen) the bot searches determinizations like PIMC: one
world per ``determinizations`` drawn with ``resample_from_infostate``.
"""

from __future__ import annotations

from typing import Any

from ratai.engines.api import Game

from .uct import UCT

__all__ = ["SMMCTS"]


class SMMCTS(UCT):
    """Decoupled UCT for seat ``player`` (same arguments as :class:`ratai.search.uct.UCT`).

    Raises:
        ValueError: a bad parameter (named).
    """

    def __init__(self, game: Game, player: int, **kw: Any):
        super().__init__(game, player, **kw)
