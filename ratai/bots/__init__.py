"""ratai.bots: bots that choose actions for one seat, built with :func:`make_bot`.

Every bot sees a state only through that seat's information: it reads
``state.legal_actions()`` at the seat's own decision nodes and, when it needs a full state,
``state.resample_from_infostate(player, rng)``. So two states with the same
``information_state_string(player)`` get the same answer for the same seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratai.engines.api import Game, State, make_rng

__all__ = ["Bot", "RandomBot", "make_bot", "BOT_KINDS"]


class Bot:
    """A bot for seat ``player`` of ``game``.

    Args:
        game: the game it plays.
        player: its seat (``0..num_players-1``).
        seed: anything ``numpy.random.default_rng`` accepts; fixes the bot's choices.

    Raises:
        ValueError: ``player`` is not a seat of ``game``.
    """

    def __init__(self, game: Game, player: int, *, seed: Any = None):
        if not 0 <= player < game.num_players():
            raise ValueError(f"bad player {player!r}: allowed 0..{game.num_players() - 1}")
        self.game = game
        self.player = player
        self.seed = seed
        self.rng: np.random.Generator = make_rng(seed)

    def _check_turn(self, state: State) -> list[int]:
        if state.current_player() != self.player:
            raise ValueError(f"it is not seat {self.player}'s turn "
                             f"(current player: {state.current_player()})")
        return state.legal_actions(self.player)

    def step(self, state: State) -> int:
        """The action this bot plays at ``state`` (its own decision node).

        Raises:
            ValueError: it is not this bot's seat's turn.
        """
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform choice among the legal actions (the weakest baseline)."""

    def step(self, state: State) -> int:
        legal = self._check_turn(state)
        return int(legal[self.rng.integers(len(legal))])


BOT_KINDS: dict[str, type[Bot]] = {"random": RandomBot}


def make_bot(kind: str, game: Game, player: int, *, iterations: int | None = None,
             time_limit: float | None = None, max_depth: int | None = None,
             seed: Any = None, **kw: Any) -> Bot:
    """Create a bot of ``kind`` for seat ``player`` of ``game``.

    Args:
        kind: one of :data:`BOT_KINDS` (``"random"``; search kinds come with the search issue).
        iterations: search budget in iterations (search bots).
        time_limit: search budget in seconds of wall clock (search bots).
        max_depth: depth limit in plies (expectimax).
        seed: fixes the bot's random choices.

    Raises:
        ValueError: unknown ``kind`` (the message lists the known kinds) or a bad argument.
    """
    if kind not in BOT_KINDS:
        raise ValueError(f"unknown bot kind {kind!r}; known kinds: {sorted(BOT_KINDS)}")
    cls = BOT_KINDS[kind]
    if cls is RandomBot:
        if kw:
            raise ValueError(f"unexpected argument(s) {sorted(kw)} for bot kind 'random'")
        return RandomBot(game, player, seed=seed)
    return cls(game, player, iterations=iterations, time_limit=time_limit,
               max_depth=max_depth, seed=seed, **kw)
