"""Helpers for Rat Trap rule tests: drive a state with the actions' labels."""

from __future__ import annotations

from ratai.engines import load_game
from ratai.engines.rat_trap.data import CARD_TYPES


def new_game(**params):
    return load_game("rat_trap", backend="python", **params)


def labels(state) -> list[str]:
    cp = state.current_player()
    return [state.action_to_string(cp, a) for a in state.legal_actions()]


def do(state, *steps: str):
    """Apply each step by its label (decisions and chance outcomes alike)."""
    for step in steps:
        cp = state.current_player()
        state.apply_action(state.string_to_action(cp, step))
    return state


def cards(*names: str) -> list[int]:
    return sorted(CARD_TYPES.index(n) for n in names)


def start_turn(state, roll: str, accomplice: int, keep: str, reroll: bool = False):
    """Roll (keep the dice), give them to ``accomplice`` who keeps ``keep``.

    A pair of equal faces leaves no choice, so no keep decision is asked then."""
    do(state, f"roll {roll}", "keep the dice" if not reroll else "reroll both dice")
    do(state, f"choose seat {accomplice} as accomplice")
    a, b = roll.split("+")
    return do(state, f"keep die {keep}") if a != b else state
