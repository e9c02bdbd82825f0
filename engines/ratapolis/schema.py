"""The schema of a Ratapolis ``observation(player)`` (see ``ratai.engines.obs_schema``).

Public: the city, supplies, cheese and property tokens, face-up and revealed hunt cards and
counts, who has been dealt and who has committed; private: the seat's own hunt cards, what
it saw with the Archive, and its own unrevealed plan cells (rulebook Phases 1, 2 and 4, RP-2).
"""

from __future__ import annotations

from ..obs_schema import (
    array,
    boolean,
    document,
    enum,
    fixed,
    integer,
    mapping,
    multiset,
    nullable,
    obj,
    seat,
    skip,
    string,
)

__all__ = ["observation_schema"]

_PHASES = ["tokens", "event", "deal", "archive", "plan", "hotel", "market", "hunt", "radio",
           "hospital", "end"]


def observation_schema(game) -> dict:
    """The JSON Schema document of ``game``'s observations (``Game.observation_schema``)."""
    d = game.data
    n = game.num_players()
    letters = list(game.letters)
    reference = game.reference_game() if hasattr(game, "reference_game") else game  # a twin
    state = reference.new_initial_state()
    cells = [state._cell_label(a) for a in range(game.C) if state._valid_id(a)]
    rounds = d.rounds
    rats = d.rats_per_player
    who = seat(n, "a seat")
    event_ids = [c.id for c in d.event_cards]
    building = enum(letters, "a building (its letter A-T, rulebook Setup)")
    card = enum(letters, "a hunt card (the building it hunts)")
    cell = enum(cells, "a plan cell: idle, 'attack <building> <colour>' or "
                       "'move <from>><to>' (rulebook Phase 2)")
    hunt_round = obj({
        "face_up": multiset(letters, 4, "hunt cards laid face up this round (Phase 1)"),
        "dealt": fixed(boolean("dealt a hunt card"), "which seats hold a hunt card this "
                       "round", n=n, per_seat=n),
        "my_card": nullable(card, "the seat's own hunt card this round, or null"),
        "hunted": nullable(building, "the tile hunted this round (Phase 4), or null before"),
        "radio_discarded": multiset(letters, 4, "hunt cards the Radio station discarded "
                                    "(RP-6)"),
        "plans": skip(nullable(fixed(array(string("a plan cell's label"), 2, "the cells"),
                                     "each seat's revealed plan", n=n)),
                      "past plans are history; the board holds their effect"),
        "event": nullable(enum(["normal", "no_attack", "not_played"], "an event"),
                          "the round's scenario event (RP-9): normal, no_attack (phase 4 is "
                          "skipped) or not_played (the round's phases are skipped); null "
                          "while a random event card is still to be revealed"),
        "event_card": nullable(obj({
            "id": enum(event_ids, "the event card"),
            "side": enum(["A", "B"], "the side revealed (A: normal or no attack, B: round "
                         "not played)"),
        }, "a revealed event card"), "the event card revealed for this round "
            "(round_events='random', RP-9), or null"),
    }, "one round's hunt cards, plans and scenario event, round 1 first")
    look = obj({
        "round": integer(1, rounds, "the round of the look"),
        "viewer": who,
        "target": who,
        "card": card,
    }, "an Archive look (RP-6): who looked at whose hunt card; the card only for the viewer",
        optional=["card"])
    return document("ratapolis", "Ratapolis observation", obj({
        "player": seat(n, "the seat this observation is for"),
        "num_players": integer(n, n, "number of seats"),
        "round": integer(0, rounds, f"the round (1-{rounds}; 0 during setup)"),
        "phase": enum(_PHASES, "tokens: setup draws of property tokens; event: a scenario "
                      "event card is revealed (RP-9); deal: Phase 1; "
                      "archive/plan: Phase 2 (RP-2); hotel/market: Phase 3 options (RP-6); "
                      "hunt/radio/hospital: Phase 4; end: the game is over"),
        "current_player": integer(-4, n - 1, "the seat to act, -1 at a chance node, -4 at "
                                  "the end (engines/api.py)"),
        "board": mapping(letters, fixed(integer(0, n * rats, "rats", scale=(0, 10)),
                                        "rats of each seat on the building", n=n,
                                        per_seat=n),
                         "the buildings still in the city and the rats on each (RP-1)"),
        "removed": multiset(letters, len(letters), "hunted tiles (empty areas, RP-5)"),
        "supply": fixed(integer(0, rats, "rats"), "rats in each seat's supply", n=n, per_seat=n),
        "cheese_tokens": fixed(integer(0, d.cheese_tokens, "tokens"),
                               "cheese tokens of each seat (RP-7)", n=n,
                               per_seat=n),
        "cheese_bank": integer(0, d.cheese_tokens, "cheese tokens left (RP-7)"),
        "tokens": mapping(letters, integer(-1, n - 1, "holder seat, or -1 on its tile"),
                          "property tokens in play and who holds each (Setup 3)"),
        "tokens_gone": multiset(letters, len(letters), "property tokens out of the game "
                                "(their tile was hunted, RP-5)"),
        "token_pool": multiset(letters, len(letters), "property tokens still to be drawn "
                               "at setup"),
        "tokens_left": integer(0, len(letters), "property tokens still to draw at setup"),
        "stack_count": integer(0, 4 * len(letters), "hunt cards in the draw stack"),
        "discard_count": integer(0, 4 * len(letters), "hunt cards in the discard area"),
        "rounds": array(hunt_round, rounds, "hunt cards and plans of each round so far"),
        "archive_looks": array(look, rounds * n, "Archive looks so far, in order"),
        "committed": fixed(integer(0, 2, "cells"), "plan cells each seat has committed "
                           "this round (hidden until the reveal, RP-2)", n=n,
                           per_seat=n),
        "my_plan": array(cell, 2, "the seat's own committed cells this round, left first"),
        "hotel": nullable(obj({"from": building, "to": building,
                               "cell": integer(0, 1, "which plan cell (0 left, 1 right)")},
                              "a pending Hotel move over capacity (RP-6)")),
        "drawn": nullable(card, "the hunt card just drawn in Phase 4 (before a Radio "
                          "redraw), or null"),
        "radio_used": boolean("the Radio station redraw was used this round (RP-6)"),
        "event_cards_left": integer(0, len(event_ids), "event cards still face down "
                                    "(round_events='random', RP-9)"),
        "reshuffles": multiset(list(range(1, rounds + 1)), rounds, "rounds at whose start "
                               "the discards were shuffled into the hunt stack (round 5; a "
                               "smaller city when the stack ran short, RP-10)"),
    }, "What one seat knows in Ratapolis."))
