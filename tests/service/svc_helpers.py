"""Helpers shared by the service tests (a uniquely named module, imported by name)."""

from __future__ import annotations

import random
import time

import numpy as np


def play_chance(state, rng: np.random.Generator):
    """Resolve chance nodes of ``state`` with ``rng`` (for building positions locally)."""
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        probs = np.array([p for _, p in outcomes])
        state.apply_action(outcomes[rng.choice(len(outcomes), p=probs / probs.sum())][0])
    return state


def random_position(game, seat_wanted=None, plies: int = 20, seed: int = 0,
                    choice: bool = True):
    """A state reached by ``plies`` random actions, stopped at a decision node (of
    ``seat_wanted`` if given) where, with ``choice``, the seat has at least two legal moves
    (a bot with ``skip_forced`` answers a forced move without searching)."""
    rng = np.random.default_rng(seed)
    state = play_chance(game.new_initial_state(), rng)
    for _ in range(plies):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        play_chance(state, rng)
    for _ in range(500):
        if state.is_terminal():
            break
        if (seat_wanted is None or state.current_player() == seat_wanted) and (
                not choice or len(state.legal_actions()) > 1):
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        play_chance(state, rng)
    return state


def play_to_end(client, game_id: str, tokens: dict[int, str], seed: int,
                timeout: float = 60.0):
    """Move for the human seats at random until the game is over; returns the final view."""
    rng = random.Random(seed)
    any_token = next(iter(tokens.values()))
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = client.get_state(game_id, any_token)
        if view.is_terminal:
            return view
        cp = view.current_player
        if cp in tokens:
            mine = view if cp == view.seat else client.get_state(game_id, tokens[cp])
            if mine.your_turn:
                a = rng.choice(mine.legal_actions).action
                client.apply_action(game_id, tokens[cp], a,
                                    expected_move_number=mine.move_number)
                continue
        time.sleep(0.005)
    raise AssertionError("game did not finish in time")


def hosted_human_turn(client, game: str = "rat_trap", seed: int = 6) -> tuple[str, str]:
    """A hosted game with a human in seat 0 and random bots elsewhere, waited for until it is
    the human's turn; returns ``(game_id, seat_token)``."""
    created = client.create_game(game, ["human", "random", "random"], seed=seed)
    tok = created.seat_tokens[0].token
    view = client.get_state(created.game_id, tok)
    while not view.your_turn:
        time.sleep(0.01)
        view = client.get_state(created.game_id, tok)
    return created.game_id, tok
