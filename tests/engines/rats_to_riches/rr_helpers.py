"""Helpers for the Rats to Riches tests: build positions by card key and act by label."""

from __future__ import annotations

from ratai.engines import load_game
from ratai.engines.rats_to_riches.rules import RatsToRichesGame, RatsToRichesState

PIPE = "Pipe (Scrappy Sewer)"
PIPE3 = "Pipe (Supreme Sewer)"


def card_id(game: RatsToRichesGame, key: str) -> int:
    """The type id of card ``key``, or of a printed name that two decks share (RR-9 splits
    them by back): the Scrappy Sewer type, the one on top of the Rat Pack."""
    if key in game.key_id:
        return game.key_id[key]
    for t in game.data.card_types:
        if t.name == key:
            return t.id
    raise KeyError(key)


def take_from_pack(state: RatsToRichesState, key: str) -> int:
    """Remove one card ``key`` from the Rat Pack (first segment holding it); its type id.

    A printed name shared by both decks (RR-9) takes the first type with copies left."""
    game = state.get_game()
    ids = [game.key_id[key]] if key in game.key_id else [
        t.id for t in game.data.card_types if t.name == key]
    for t in ids:
        for seg in state.pack:
            if seg["counts"][t]:
                seg["counts"][t] -= 1
                state.pack = [seg for seg in state.pack if sum(seg["counts"])]
                state.top_back = None
                state._fix_back()
                return t
    raise AssertionError(f"no {key} left in the Rat Pack")


def make_state(n: int = 3, *, active: int = 0, phase: str = "step2", cash=None, cheese=None,
               tableau=None, sewer=(None, None, None), flush=None, golden=None,
               round: int = 0, cesspit=None, flush_boxed: int = 0,
               **params) -> tuple[RatsToRichesGame, RatsToRichesState]:
    """A position in ``phase`` for seat ``active`` with the given cards (taken from the pack).

    ``tableau`` is ``{seat: {key: count}}``, ``sewer`` a list of keys or ``None`` (``"Flush"``
    for a Flush card), ``cesspit`` ``{key: count}``; cash and cheese default to $0 and no
    cheese. ``flush`` gives the Flush cards per seat (default one each); of the other Flush
    cards ``flush_boxed`` are out of the game (RR-2) and the rest are in the Cesspit
    (less any placed in the Open Sewer).
    """
    game = load_game("rats_to_riches", backend="python", num_players=n, **params)
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
    flush_id = game.T
    s.sewer = [None if key is None else flush_id if key == "Flush" else take_from_pack(s, key)
               for key in sewer]
    for key, count in (cesspit or {}).items():
        if key != "Flush":
            for _ in range(count):
                s.cesspit[take_from_pack(s, key)] += 1
    if flush is not None:
        s.flush = list(flush)
    s.box = flush_boxed
    s.cesspit[flush_id] = (game.data.flush_count - sum(s.flush) - s.box
                           - s.sewer.count(flush_id))
    assert s.cesspit[flush_id] >= 0, "more Flush cards placed than the game has"
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
    """Resolve the pending chance node with card ``key`` (``"Flush"``: a Flush card)."""
    assert state.is_chance_node(), "not a chance node"
    if key == "Flush":
        return do(state, "reveal Flush card")
    game = state.get_game()
    for t in game.data.card_types:  # a shared printed name: the type on offer (RR-9)
        if t.name == key and key not in game.key_id and \
                game.layout.REVEAL + t.id in state.legal_actions():
            key = t.key
    do(state, f"reveal {key}")


def card_total(state: RatsToRichesState) -> list[int]:
    """Copies of each card id across Rat Pack, Open Sewer, tableaus (Flush cards in front of
    the rats), the Cesspit and the box (Flush cards out of the game); the Flush card last."""
    game = state.get_game()
    out = [0] * game.T + [sum(state.flush) + state.box]
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


def game_cards(game: RatsToRichesGame) -> list[int]:
    """Copies of each card id in the game (``card_total``'s shape): the Rat Pack types, then
    the Flush cards (one per rat of the largest game)."""
    return [t.total for t in game.data.card_types] + [game.data.flush_count]
