"""The :class:`Bot` base class and the uniform :class:`RandomBot`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ratai.engines.api import SIMULTANEOUS, Game, State, make_rng
from ratai.search.common import (
    Analysis,
    MoveStat,
    PVStep,
    SearchRng,
    _seed_int,
    check_root_moves,
    check_stop,
)

__all__ = ["Bot", "RandomBot"]


def _rules_differ(a: Game, b: Game) -> str:
    """How ``a`` and ``b`` differ in their rules ("" for none): another game, or another
    value of a parameter that is not cosmetic (``Param.cosmetic``: names shown to people);
    two ``data_path`` files with the same component data (by content) are the same rules."""
    if a.name != b.name:
        return f"a {a.name} state, but this bot plays {b.name}"
    cosmetic = {p.name for p in type(a).param_specs if p.cosmetic}
    diff = [k for k in sorted(set(a.params) | set(b.params))
            if k not in cosmetic and a.params.get(k) != b.params.get(k)]
    if diff == ["data_path"]:
        from ratai.nn.model import game_data_hash

        if game_data_hash(a) == game_data_hash(b):
            return ""
    return "; ".join(f"{k}={a.params.get(k)!r} in the state's game, {b.params.get(k)!r} in "
                     f"the bot's" for k in diff)


class Bot:
    """A bot for seat ``player`` of ``game``.

    Args:
        game: the game it plays.
        player: its seat (``0..num_players-1``).
        seed: anything ``numpy.random.default_rng`` accepts; fixes the bot's choices. With an
            ``int`` seed every call draws its random numbers from a stream derived from
            ``(seed, information_state_string(player))``, so the same position gets the same
            answer from ``step`` and ``analyze`` however often it is asked.

    Raises:
        ValueError: ``player`` is not a seat of ``game``.
    """

    #: The ``make_bot`` kind.
    kind = ""
    #: Whether ``analyze(..., root_moves=...)`` restricts the search to those moves.
    ROOT_MOVES = False

    def __init__(self, game: Game, player: int, *, seed: Any = None):
        if isinstance(player, bool) or not isinstance(player, int | np.integer) \
                or not 0 <= player < game.num_players():
            raise ValueError(f"bad player {player!r}: allowed 0..{game.num_players() - 1}")
        self.game = game
        self.player = int(player)
        self.seed = seed
        if seed is not None and not isinstance(seed, np.random.Generator):
            seed = _seed_int(seed)  # a bad seed is a ValueError naming it (and a str hashes)
        self.rng: np.random.Generator = make_rng(seed)

    def _check_turn(self, state: State) -> list[int]:
        """The seat's legal actions; raises ``ValueError`` when it has none to choose from, or
        the state is of another game or rules (``TypeError``: not a state at all).

        A seat may act when it is the current player, or at a ``SIMULTANEOUS`` node of a
        joint-move view where it has legal actions.
        """
        get_game = getattr(state, "get_game", None)
        if not callable(get_game):
            raise TypeError(f"bot kind {self.kind!r} takes a state of {self.game!r}; got "
                            f"{type(state).__name__}")
        game = get_game()
        why = "" if game is self.game else _rules_differ(game, self.game)
        if why:
            raise ValueError(f"the state is not of this {self.kind!r} bot's game ({why}): "
                             f"make the bot for the state's game")
        cp = state.current_player()
        if cp == self.player:
            return state.legal_actions(self.player)
        if cp == SIMULTANEOUS:
            legal = state.legal_actions(self.player)
            if legal:
                return legal
        raise ValueError(f"it is not seat {self.player}'s turn "
                         f"(current player: {cp})")

    def _forced(self, state: State, legal: list[int]) -> Analysis:
        """The answer for a seat with a single legal move: that move, without searching
        (``iterations == 0``, ``forced=True``)."""
        a = int(legal[0])
        label = state.action_to_string(self.player, a)
        pv = (PVStep(self.player, a, label),)
        return Analysis(a, (MoveStat(a, label, 0, 0.0, 1.0, pv=pv),), pv,
                        0, 0, 0, 0.0, self.seed, self.player, self.kind, forced=True)

    def _rng(self, state: State) -> SearchRng:
        """The random streams for one call (see the class docstring)."""
        return SearchRng(self.seed, state, self.player, self.rng)

    def step(self, state: State) -> int:
        """The action this bot plays at ``state`` (its own decision node).

        Raises:
            ValueError: it is not this bot's seat's turn.
        """
        return self.analyze(state).best_action

    def analyze(self, state: State) -> Analysis:
        """The action this bot plays at ``state`` with the evidence (see ``Analysis``).

        Raises:
            ValueError: it is not this bot's seat's turn.
        """
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform choice among the legal actions (the weakest baseline)."""

    kind = "random"
    ROOT_MOVES = True

    def step(self, state: State) -> int:
        legal = self._check_turn(state)
        return int(legal[self._rng(state).py.randrange(len(legal))])

    def analyze(self, state: State, on_progress: Any = None, stop: Any = None, *,
                root_moves: Any = None) -> Analysis:
        """A uniform legal move (among ``root_moves`` when given, checked as every kind
        checks them); ``on_progress`` and ``stop`` are accepted for a uniform call and
        unused (nothing is searched).

        Raises:
            ValueError: not the seat's turn; a ``root_moves`` action that is not legal.
        """
        legal = self._check_turn(state)
        check_stop(stop)
        allowed = check_root_moves(root_moves, legal)
        if allowed is not None:
            legal = allowed
        a = int(legal[self._rng(state).py.randrange(len(legal))])
        label = state.action_to_string(self.player, a)
        moves = tuple(MoveStat(int(b), state.action_to_string(self.player, b), int(b == a),
                               0.0, 1.0 / len(legal)) for b in [a] + [x for x in legal if x != a])
        return Analysis(a, moves, (PVStep(self.player, a, label),), 0, 0, 0, 0.0, self.seed,
                        self.player, self.kind)
