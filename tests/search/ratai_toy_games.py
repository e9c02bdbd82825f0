"""Small toy games on the engine contract, for testing the search bots.

* :class:`ChanceNimGame` — perfect information with chance: a die adds 0–2 tokens to the
  heap at the start (and, with ``gust=True``, a coin after every move may blow one token
  away); players take 1–3 tokens in turn; whoever takes the last token wins. Forced wins
  are exactly the heaps not divisible by 4 (two players, ``gust=False``).
* :class:`LotteryGame` — one decision between a coin flip (wins 1/2) and a die (wins 4/6):
  chance weighting decides.
* :class:`KuhnGame` — Kuhn poker with win/loss returns: hidden cards and chance deals.
* :class:`NullGame` — every move leads to the same result (a lost position): root ties on
  visits, value and prior, so the seeded tie-break alone picks the move.
* :class:`GoofspielGame` — the joint-move view of a tiny Goofspiel: ``SIMULTANEOUS`` nodes with
  ``legal_actions(p)`` per seat and ``apply_actions([...])``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ratai.engines.api import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    Game,
    IllegalActionError,
    Param,
    State,
    make_rng,
)

# -- Chance Nim ----------------------------------------------------------------------------
TAKE = (0, 1, 2)          # take 1, 2, 3
ROLL = (3, 4, 5)          # die adds 0, 1, 2
GUST = (6, 7)             # coin: nothing / one token blows away


class ChanceNimGame(Game):
    name = "chance_nim"
    title = "Chance Nim"
    perfect_information = True
    param_specs = (
        Param("num_players", 2, int, choices=(2, 3)),
        Param("heap", 7, int, check=lambda v: v >= 1),
        Param("roll", True, bool),
        Param("gust", False, bool),
    )

    def num_distinct_actions(self) -> int:
        return 8

    def max_game_length(self) -> int:
        return 2 * (self.params["heap"] + 3) + 1

    def new_initial_state(self) -> ChanceNimState:
        return ChanceNimState(self)

    def heuristic_value(self, state: State, player: int) -> float:
        obs = state.observation(player)
        if obs["winner"] is not None:
            return 1.0 if obs["winner"] == player else 0.0
        n = self.num_players()
        if n != 2 or obs["phase"] != "take":
            return 1.0 / n
        winning = obs["heap"] % 4 != 0
        mine = obs["to_move"] == player
        return 0.9 if winning == mine else 0.1

    def _state_from_observation(self, player: int, observation: Mapping[str, Any],
                                rng: Any = None) -> ChanceNimState:
        s = ChanceNimState(self)
        for key in ("heap", "to_move", "phase", "winner"):
            if key not in observation:
                raise ValueError(f"observation field {key!r} is missing")
        if not isinstance(observation["heap"], int) or observation["heap"] < 0:
            raise ValueError(f"observation field 'heap' is bad: {observation['heap']!r}")
        s.heap = observation["heap"]
        s.to_move = observation["to_move"]
        s.phase = observation["phase"]
        s.winner = observation["winner"]
        s.last = observation.get("last")
        return s


class ChanceNimState(State):
    def __init__(self, game: ChanceNimGame):
        super().__init__(game)
        self.heap = game.params["heap"]
        self.to_move = 0
        self.phase = "roll" if game.params["roll"] else "take"
        self.winner = None
        self.last = None

    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        if self.phase in ("roll", "gust"):
            return CHANCE
        return self.to_move

    def _legal_actions(self) -> list[int]:
        return [TAKE[k] for k in range(min(3, self.heap))]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == "roll":
            return [(a, 1 / 3) for a in ROLL]
        return [(GUST[0], 0.5), (GUST[1], 0.5)]

    def _apply_action(self, action: int) -> None:
        n = self._game.num_players()
        if action in ROLL:
            self.heap += action - ROLL[0]
            self.phase = "take"
        elif action in GUST:
            if action == GUST[1] and self.heap > 0:
                self.heap -= 1
                if self.heap == 0:  # the wind took the last token: the last taker wins
                    self.winner = self.last
            self.phase = "take"
        else:
            self.heap -= action + 1
            self.last = self.to_move
            if self.heap == 0:
                self.winner = self.to_move
            else:
                self.to_move = (self.to_move + 1) % n
                if self._game.params["gust"]:
                    self.phase = "gust"

    def _action_to_string(self, player: int, action: int) -> str:
        if action in ROLL:
            return f"roll +{action - ROLL[0]}"
        if action in GUST:
            return "calm" if action == GUST[0] else "gust"
        return f"take {action + 1}"

    def scores(self) -> list[float]:
        return self._returns() if self.winner is not None else [0.0] * self._game.num_players()

    def _returns(self) -> list[float]:
        return [1.0 if p == self.winner else 0.0 for p in range(self._game.num_players())]

    def observation(self, player: int) -> dict:
        return {"heap": self.heap, "to_move": self.to_move, "phase": self.phase,
                "winner": self.winner, "last": self.last}


# -- Lottery ---------------------------------------------------------------------------------
COIN, DIE = 0, 1
FLIP = (2, 3)              # tails / heads (heads wins)
FACE = (4, 5, 6, 7, 8, 9)  # faces 1..6 (3..6 win)


class LotteryGame(Game):
    name = "lottery"
    title = "Lottery"
    perfect_information = True
    param_specs = (Param("num_players", 2, int, choices=(2,)),)

    def num_distinct_actions(self) -> int:
        return 10

    def max_game_length(self) -> int:
        return 2

    def new_initial_state(self) -> LotteryState:
        return LotteryState(self)

    def heuristic_value(self, state: State, player: int) -> float:
        return 0.5

    def _state_from_observation(self, player, observation, rng=None):
        s = LotteryState(self)
        s.choice = observation["choice"]
        s.outcome = observation["outcome"]
        return s


class LotteryState(State):
    def __init__(self, game):
        super().__init__(game)
        self.choice = None
        self.outcome = None

    def current_player(self) -> int:
        if self.choice is None:
            return 0
        return CHANCE if self.outcome is None else TERMINAL

    def _legal_actions(self) -> list[int]:
        return [COIN, DIE]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        if self.choice == COIN:
            return [(a, 0.5) for a in FLIP]
        return [(a, 1 / 6) for a in FACE]

    def _apply_action(self, action: int) -> None:
        if self.choice is None:
            self.choice = action
        else:
            self.outcome = action

    def _action_to_string(self, player, action) -> str:
        return ["coin", "die", "tails", "heads", "1", "2", "3", "4", "5", "6"][action]

    def scores(self):
        return self._returns() if self.outcome is not None else [0.0, 0.0]

    def _returns(self):
        won = self.outcome == FLIP[1] or self.outcome in FACE[2:]
        return [1.0, 0.0] if won else [0.0, 1.0]

    def observation(self, player):
        return {"choice": self.choice, "outcome": self.outcome}


# -- Null: every move is as good as any other --------------------------------------------------
class NullGame(Game):
    """Seat 0 picks one of ``moves`` actions, then a fair coin is tossed and seat 1 wins
    whatever happened: every root move has value 0 for seat 0 (issue 13's Rats to Riches
    position where every move loses)."""

    name = "null"
    title = "Null"
    perfect_information = True
    param_specs = (Param("num_players", 2, int, choices=(2,)),
                   Param("moves", 6, int, check=lambda v: v >= 2))

    def num_distinct_actions(self) -> int:
        return self.params["moves"] + 2

    def max_game_length(self) -> int:
        return 2

    def new_initial_state(self) -> NullState:
        return NullState(self)

    def _state_from_observation(self, player, observation, rng=None):
        s = NullState(self)
        s.choice = observation["choice"]
        s.coin = observation["coin"]
        return s


class NullState(State):
    def __init__(self, game):
        super().__init__(game)
        self.choice = None
        self.coin = None

    def current_player(self) -> int:
        if self.choice is None:
            return 0
        return CHANCE if self.coin is None else TERMINAL

    def _legal_actions(self) -> list[int]:
        return list(range(self._game.params["moves"]))

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        k = self._game.params["moves"]
        return [(k, 0.5), (k + 1, 0.5)]

    def _apply_action(self, action: int) -> None:
        if self.choice is None:
            self.choice = action
        else:
            self.coin = action

    def _action_to_string(self, player, action) -> str:
        k = self._game.params["moves"]
        return ("heads" if action == k else "tails") if action >= k else f"move {action}"

    def scores(self):
        return self._returns() if self.coin is not None else [0.0, 0.0]

    def _returns(self):
        return [0.0, 1.0]

    def observation(self, player):
        return {"choice": self.choice, "coin": self.coin}


# -- Kuhn poker --------------------------------------------------------------------------------
PASS, BET = 0, 1
DEAL = (2, 3, 4)           # deal J, Q, K
CARD_NAMES = ("J", "Q", "K")


class KuhnGame(Game):
    """Kuhn poker (Kuhn 1950) with win 1 / loss 0 returns; each player antes 1."""

    name = "kuhn"
    title = "Kuhn poker"
    perfect_information = False
    param_specs = (Param("num_players", 2, int, choices=(2,)),)

    def num_distinct_actions(self) -> int:
        return 5

    def max_game_length(self) -> int:
        return 5

    def new_initial_state(self) -> KuhnState:
        return KuhnState(self)

    def heuristic_value(self, state: State, player: int) -> float:
        obs = state.observation(player)
        if obs["winner"] is not None:
            return 1.0 if obs["winner"] == player else 0.0
        if obs["my_card"] is None:
            return 0.5
        return (0.2, 0.5, 0.8)[obs["my_card"]]

    def _state_from_observation(self, player: int, observation: Mapping[str, Any],
                                rng: Any = None) -> KuhnState:
        for key in ("my_card", "bets", "dealt", "opp_card", "winner"):
            if key not in observation:
                raise ValueError(f"observation field {key!r} is missing")
        dealt = observation["dealt"]
        if dealt not in (0, 1, 2):
            raise ValueError(f"observation field 'dealt' is bad: {dealt!r}")
        rng = make_rng(rng)
        s = KuhnState(self)
        s.bets = list(observation["bets"])
        s.winner = observation["winner"]
        cards: list = [None, None]
        if dealt > player:
            cards[player] = observation["my_card"]
        other = 1 - player
        if dealt > other:
            if observation["opp_card"] is not None:
                cards[other] = observation["opp_card"]
            else:
                unknown = sorted(c for c in range(3) if c != cards[player])
                cards[other] = int(unknown[int(rng.integers(len(unknown)))])
        s.cards = cards
        return s


class KuhnState(State):
    def __init__(self, game):
        super().__init__(game)
        self.cards: list = [None, None]
        self.bets: list[int] = []
        self.winner = None

    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        if self.cards[1] is None:
            return CHANCE
        return len(self.bets) % 2

    def _legal_actions(self) -> list[int]:
        return [PASS, BET]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(3) if c != self.cards[0]]
        return [(DEAL[c], 1 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if action in DEAL:
            self.cards[0 if self.cards[0] is None else 1] = action - DEAL[0]
            return
        self.bets.append(action)
        b = self.bets
        high = 0 if self.cards[0] > self.cards[1] else 1
        if b == [PASS, PASS] or b == [BET, BET] or b == [PASS, BET, BET]:
            self.winner = high
        elif b == [BET, PASS]:
            self.winner = 0
        elif b == [PASS, BET, PASS]:
            self.winner = 1

    def _action_to_string(self, player, action) -> str:
        if action in DEAL:
            return f"deal {CARD_NAMES[action - DEAL[0]]}"
        return "pass" if action == PASS else "bet"

    def scores(self):
        if self.winner is None:
            return [0.0, 0.0]
        pot = 2 + sum(self.bets)
        return [pot / 2 if p == self.winner else -pot / 2 for p in range(2)]

    def _returns(self):
        return [1.0 if p == self.winner else 0.0 for p in range(2)]

    def observation(self, player):
        other = 1 - player
        showdown = self.winner is not None and self.bets not in ([BET, PASS], [PASS, BET, PASS])
        return {"my_card": self.cards[player], "bets": list(self.bets),
                "dealt": sum(c is not None for c in self.cards), "winner": self.winner,
                "opp_card": self.cards[other] if showdown else None}


# -- Goofspiel (joint-move view) -------------------------------------------------------------
class GoofspielGame(Game):
    """Two seats bid one card of 1..``cards`` at once for each prize; the higher bid wins the
    prize's points (ties: nobody). Prizes are revealed by chance (``random_prizes``) or come
    in ascending order. Joint view: ``current_player() == SIMULTANEOUS`` at each bid."""

    name = "goofspiel_toy"
    title = "Goofspiel"
    perfect_information = True
    param_specs = (
        Param("num_players", 2, int, choices=(2,)),
        Param("cards", 3, int, check=lambda v: 1 <= v <= 6),
        Param("random_prizes", False, bool),
    )

    def num_distinct_actions(self) -> int:
        return 2 * self.params["cards"]

    def max_game_length(self) -> int:
        return 2 * self.params["cards"]

    def new_initial_state(self) -> GoofspielState:
        return GoofspielState(self)

    def heuristic_value(self, state, player) -> float:
        obs = state.observation(player)
        total = sum(obs["points"]) or 1
        return 0.5 + 0.5 * (obs["points"][player] - obs["points"][1 - player]) / total

    def _state_from_observation(self, player, observation, rng=None):
        s = GoofspielState(self)
        s._set_fields(observation)
        return s


class GoofspielState(State):
    def __init__(self, game):
        super().__init__(game)
        k = game.params["cards"]
        self.hands = [list(range(1, k + 1)), list(range(1, k + 1))]
        self.prizes = list(range(1, k + 1))
        self.prize = None if game.params["random_prizes"] else 1
        if self.prize is not None:
            self.prizes.remove(1)
        self.points = [0, 0]

    def current_player(self) -> int:
        if not self.hands[0]:
            return TERMINAL
        if self.prize is None:
            return CHANCE
        return SIMULTANEOUS

    def legal_actions(self, player: int | None = None) -> list[int]:
        if self.current_player() == SIMULTANEOUS and player in (0, 1):
            return [c - 1 for c in self.hands[player]]
        return super().legal_actions(player)

    def _legal_actions(self) -> list[int]:
        return []

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        k = self._game.params["cards"]
        return [(k + p - 1, 1 / len(self.prizes)) for p in self.prizes]

    def apply_actions(self, actions: Sequence[int]) -> None:
        if self.current_player() != SIMULTANEOUS:
            raise ValueError("apply_actions needs a SIMULTANEOUS node")
        for p, a in enumerate(actions):
            if a not in self.legal_actions(p):
                raise IllegalActionError(a, self.legal_actions(p))
        bids = [a + 1 for a in actions]
        for p in (0, 1):
            self.hands[p].remove(bids[p])
        if bids[0] != bids[1]:
            self.points[0 if bids[0] > bids[1] else 1] += self.prize
        self.prize = None
        if self.hands[0] and not self._game.params["random_prizes"]:
            self.prize = self.prizes.pop(0)
        self._history.extend(actions)

    def _apply_action(self, action: int) -> None:
        k = self._game.params["cards"]
        self.prize = action - k + 1
        self.prizes.remove(self.prize)

    def _action_to_string(self, player, action) -> str:
        k = self._game.params["cards"]
        if action >= k:
            return f"prize {action - k + 1}"
        return f"bid {action + 1}"

    def scores(self):
        return [float(x) for x in self.points]

    def _returns(self):
        a, b = self.points
        return [1.0, 0.0] if a > b else [0.0, 1.0] if b > a else [0.5, 0.5]

    def observation(self, player):
        return {"hands": [list(h) for h in self.hands], "prizes": list(self.prizes),
                "prize": self.prize, "points": list(self.points)}
