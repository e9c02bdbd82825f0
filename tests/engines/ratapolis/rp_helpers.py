"""Helpers for the Ratapolis tests: build positions by building letter, act by label."""

from __future__ import annotations

from ratai.engines import load_game
from ratai.engines.ratapolis.rules import RatapolisGame, RatapolisState

RED, BLUE, YELLOW, GREEN, ORANGE = range(5)
COLOUR_OF = {"red": RED, "blue": BLUE, "yellow": YELLOW, "green": GREEN, "orange": ORANGE}


def idx(game: RatapolisGame, letter: str) -> int:
    return game.letters.index(letter)


def deal_round(state: RatapolisState, cards: str | None = None) -> None:
    """Apply the phase 1 chance outcomes: the letters in ``cards`` in deal order (secret
    cards seat by seat, then face-up), or the lowest card of the stack each time."""
    g = state.get_game()
    k = 0
    while state.phase == "deal":
        if cards is not None:
            state.apply_action(g.CARD + idx(g, cards[k]))
            k += 1
        else:
            state.apply_action(state.chance_outcomes()[0][0])


def make_state(n: int = 3, *, board: dict[str, dict[int, int]] | None = None,
               tokens: str = "none", holders: dict[str, int] | None = None,
               cards: str | None = None, **params) -> tuple[RatapolisGame, RatapolisState]:
    """A round-1 planning position with only the given rats on the board.

    ``board`` is ``{letter: {seat: rats}}`` (every other building empty; supplies hold the
    rest); ``tokens`` the property letters in play ("none": no tokens); ``holders``
    ``{letter: seat}``.
    """
    game = load_game("ratapolis", backend="python", num_players=n,
                     property_tokens=tokens or "none", **params)
    s = game.new_initial_state()
    deal_round(s, cards)
    set_board(s, board or {})
    for letter, seat in (holders or {}).items():
        s.tokens[letter] = seat
    s.phase = "plan"
    return game, s


def set_board(s: RatapolisState, board: dict[str, dict[int, int]]) -> None:
    g = s.get_game()
    s.board = [[0] * g.n for _ in range(g.nb)]
    for letter, rats in board.items():
        for seat, k in rats.items():
            s.board[idx(g, letter)][seat] = k
    per = g.data.rats_per_player
    s.supply = [per - sum(row[p] for row in s.board) for p in range(g.n)]


def count(s: RatapolisState, letter: str, seat: int) -> int:
    return s.board[idx(s.get_game(), letter)][seat]


def do(s: RatapolisState, label: str) -> None:
    """Apply the legal action labelled ``label`` for the current player."""
    s.apply_action(s.string_to_action(s.current_player(), label))


def plan(s: RatapolisState, plans: dict[int, tuple[str, str]]) -> None:
    """Every seat commits (left, right) cells in seat order; missing seats idle."""
    for seat in range(s.get_game().n):
        left, right = plans.get(seat, ("idle", "idle"))
        assert s.current_player() == seat
        do(s, left)
        do(s, right)


def labels(s: RatapolisState) -> list[str]:
    return [s.action_to_string(s.current_player(), a) for a in s.legal_actions()]


def hunt(s: RatapolisState, letter: str) -> None:
    """Reveal ``letter`` as the hunt card (phase 4 chance node)."""
    g = s.get_game()
    assert s.phase == "hunt", s.phase
    s.apply_action(g.CARD + idx(g, letter))
