"""Helpers for the Rats to Riches tests: build positions by card key and act by label."""

from __future__ import annotations

from ratai.engines import load_game
from ratai.engines.rats_to_riches.rules import RatsToRichesGame, RatsToRichesState

PIPE = "Pipe (Scrappy Sewer)"
PIPE3 = "Pipe (Supreme Sewer)"


def take_from_pack(state: RatsToRichesState, key: str) -> int:
    """Remove one card ``key`` from the Rat Pack (first segment holding it); its type id."""
    t = state.get_game().key_id[key]
    for seg in state.pack:
        if seg["counts"][t]:
            seg["counts"][t] -= 1
            break
    else:
        raise AssertionError(f"no {key} left in the Rat Pack")
    state.pack = [seg for seg in state.pack if sum(seg["counts"])]
    return t


def make_state(n: int = 3, *, active: int = 0, phase: str = "step2", cash=None, cheese=None,
               tableau=None, sewer=(None, None, None), flush=None, golden=None,
               round: int = 0, cesspit=None, **params) -> tuple[RatsToRichesGame,
                                                                RatsToRichesState]:
    """A position in ``phase`` for seat ``active`` with the given cards (taken from the pack).

    ``tableau`` is ``{seat: {key: count}}``, ``sewer`` a list of keys or ``None``,
    ``cesspit`` ``{key: count}``; cash and cheese default to $0 and no cheese.
    """
    game = load_game("rats_to_riches", num_players=n, **params)
    s = game.new_initial_state()
    s.phase = phase
    s.active = active
    s.round = round
    s.cash = list(cash) if cash is not None else [0] * n
    s.cheese = [list(c) for c in cheese] if cheese is not None else [[0, 0, 0] for _ in range(n)]
    for p, cards in (tableau or {}).items():
        for key, count in cards.items():
            for _ in range(count):
                s.tableau[p][take_from_pack(s, key)] += 1
    s.sewer = [None if key is None else take_from_pack(s, key) for key in sewer]
    for key, count in (cesspit or {}).items():
        for _ in range(count):
            s.cesspit[take_from_pack(s, key)] += 1
    if flush is not None:
        s.flush = list(flush)
        s.box = game.data.max_players - sum(flush)
    s.golden = golden
    return game, s


def do(state: RatsToRichesState, label: str) -> None:
    """Apply the legal action whose label is ``label`` (fails if it is not legal)."""
    state.apply_action(state.string_to_action(state.current_player(), label))


def labels(state: RatsToRichesState) -> list[str]:
    """Labels of the legal actions."""
    cp = state.current_player()
    return [state.action_to_string(cp, a) for a in state.legal_actions()]


def reveal(state: RatsToRichesState, key: str) -> None:
    """Resolve the pending chance node with card ``key``."""
    assert state.is_chance_node(), "not a chance node"
    do(state, f"reveal {key}")


def card_total(state: RatsToRichesState) -> list[int]:
    """Copies of each card type across Rat Pack, Open Sewer, tableaus and Cesspit."""
    game = state.get_game()
    out = [0] * game.T
    for seg in state.pack:
        for t, c in enumerate(seg["counts"]):
            out[t] += c
    for t in state.sewer:
        if t is not None:
            out[t] += 1
    for row in state.tableau:
        for t, c in enumerate(row):
            out[t] += c
    for t, c in enumerate(state.cesspit):
        out[t] += c
    return out
