"""Helpers for the First Rat tests: deterministic setups, acting by label."""

from __future__ import annotations

from ratai.engines import load_game
from ratai.engines.first_rat.rules import FirstRatState


def first_outcomes(state: FirstRatState) -> None:
    """Resolve chance nodes with their first (lowest-id) outcome until a decision."""
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])


def make(num_players: int = 2, **params) -> FirstRatState:
    """A fresh game after setup (first outcome of every draw), seat 0 to move."""
    state = load_game("first_rat", backend="python", num_players=num_players,
                      **params).new_initial_state()
    first_outcomes(state)
    return state


def restart(state: FirstRatState, seat: int = 0) -> FirstRatState:
    """Begin seat ``seat``'s turn again after a test edited the fields."""
    state._start_turn(seat)
    return state


def labels(state: FirstRatState) -> list[str]:
    cp = state.current_player()
    return [state.action_to_string(cp, a) for a in state.legal_actions()]


def do(state: FirstRatState, label: str) -> None:
    """Apply the legal action whose label is ``label``."""
    state.apply_action(state.string_to_action(state.current_player(), label))


def mover_labels(state: FirstRatState, prefix: str = "") -> set[str]:
    return {x for x in labels(state) if x.startswith(prefix)}


def clear_board(state: FirstRatState, rats: dict[int, list[int]] | None = None) -> None:
    """Put every seat's rats in the Nursery except those given ``{seat: positions}``."""
    n = state.get_game().num_players()
    for p in range(n):
        pos = (rats or {}).get(p, [])
        state.rats[p] = list(pos) + [-1] * (4 - len(pos))


class Both:
    """One position on both backends: the reference ``ref`` (edited by a test) and its Cython
    twin ``cy`` rebuilt from ``ref.observation(0)``; ``do`` acts on both by label and checks
    that they agree (observation, legal actions, current player) after every action.

    Without a compiled twin (not built), ``cy`` is None and only the reference is played.
    """

    def __init__(self, ref: FirstRatState):
        from ratai.engines import _CYTHON_REGISTRY

        self.ref = ref
        self.cy = None
        if "first_rat" in _CYTHON_REGISTRY:
            g = load_game("first_rat", backend="cython", **ref.get_game().params)
            self.cy = g.state_from_observation(0, ref.observation(0))
        self.check()

    def states(self) -> list:
        return [self.ref] if self.cy is None else [self.ref, self.cy]

    def check(self) -> None:
        if self.cy is not None:
            assert self.cy.current_player() == self.ref.current_player()
            assert self.cy.observation(0) == self.ref.observation(0)
            if not self.ref.is_terminal():
                assert self.cy.legal_actions() == self.ref.legal_actions()

    def do(self, label: str) -> None:
        action = self.ref.string_to_action(self.ref.current_player(), label)
        for s in self.states():
            s.apply_action(action)
        self.check()

    def labels(self) -> list[str]:
        return [labels(s) for s in self.states()][-1]

    def obs(self) -> dict:
        return self.ref.observation(0)
