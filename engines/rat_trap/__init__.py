"""Rat Trap (Tiki Editions 2017): reference rules (``rules.py``), data tables (``data.py``)
and what a seat sees (``view.py``). Load it with ``ratai.engines.load_game("rat_trap")``."""

from .rules import RatTrapGame, RatTrapState
from .view import heuristic_value

__all__ = ["RatTrapGame", "RatTrapState", "heuristic_value"]
