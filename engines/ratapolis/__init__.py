"""Ratapolis (Julien Griffon): simultaneous planning, hidden hunt cards. See ``rules.py``."""

from .rules import RatapolisGame, RatapolisState

__all__ = ["RatapolisGame", "RatapolisState"]
