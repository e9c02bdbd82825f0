"""The schema of a Rats to Riches ``observation(player)`` (see ``ratai.engines.obs_schema``).

Rats to Riches has perfect information but for the order of the Rat Pack (RR-8), so the
observation is the whole state with the pack as face-down segments of known contents.
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
    nullable,
    obj,
    seat,
)
from .data import BACKS, COLOURS
from .rules import _FRAME_KINDS

__all__ = ["observation_schema"]

#: Generous validation caps; the tensor scales by the game's own figures.
_MAX_CASH = 100_000
_MAX_COUNT = 10_000


def observation_schema(game) -> dict:
    """The JSON Schema document of ``game``'s observations (``Game.observation_schema``)."""
    d = game.data
    n = game.num_players()
    cards = list(game.keys)   # the Rat Pack types, then the Flush card (its key "Flush")
    total = d.total_cards + d.flush_count
    rat = seat(n, "a seat (0 .. players-1, in turn order)")
    cash = integer(0, _MAX_CASH, "Swindle ($) of each rat; $"
                   f"{d.win_cash} wins at once (RR-1)", scale=(0, d.win_cash))
    cheese = mapping(COLOURS, integer(0, _MAX_COUNT, "pieces of this colour",
                                      scale=(0, 20)),
                     "the rat's Cheese by colour (green, blue, red)", required=True)
    counts = mapping(cards, integer(1, total, "copies", scale=(0, 8)),
                     "cards by name with their number of copies (absent: none)")
    segment = obj({
        "deck": enum(list(d.decks) + ["Cesspit"],
                     "which sewer these cards came from (the card backs: Scrappy Sewer, "
                     "Supreme Sewer; a reshuffled Cesspit, RR-6)"),
        "counts": counts,
    }, "a run of face-down Rat Pack cards whose contents are known but not their order")
    frame = obj({
        "kind": enum(list(_FRAME_KINDS),
                     "the sub-decision a card effect waits for (sell Pipes, pick cards for "
                     "an effect, choose a colour)"),
        "player": rat,
    }, "a card effect waiting for a seat's sub-decision (resolved first to last)",
        extra="the effect's progress (cards or colours still to choose), as the engine "
              "keeps it")
    return document("rats_to_riches", "Rats to Riches observation", obj({
        "player": seat(n, "the seat this observation is for"),
        "phase": enum(["setup", "reveal", "step2", "step3", "over"],
                      "setup: rats take their starting Cheese; reveal: setup reveals of "
                      "the Open Sewer; step2: the active rat buys and uses cards; step3: "
                      "the active rat ends its turn (buys Cheese); over: the game ended"),
        "active": rat,
        "round": integer(0, 10_000, "rounds completed (the safety valve ends the game "
                         f"after {d.max_rounds}, RR-6)", scale=(0, d.max_rounds)),
        "cash": fixed(cash, "Swindle ($) per rat", n=n, per_seat=n),
        "cheese": fixed(cheese, "Cheese per rat", n=n, per_seat=n),
        "flush": fixed(integer(0, d.flush_count, "Flush cards"),
                       "Flush cards in front of each rat ($2 income each, RR-2)", n=n,
                       per_seat=n),
        "flush_in_box": integer(0, d.flush_count, "Flush cards out of the game (RR-2)"),
        "tableau": fixed(counts, "cards face up in front of each rat (RR-3)", n=n,
                         per_seat=n),
        "golden_rat": nullable(rat, "holder of the Golden Rat (Big Cheese, RR-5) or null"),
        "open_sewer": fixed(nullable(enum(cards, "a card")),
                            "the Open Sewer slots (card name, or null when empty, RR-6)",
                            n=d.open_sewer_slots),
        "rat_pack": array(segment, len(d.decks) + 1,
                          "the face-down Rat Pack, top segment first"),
        "top_back": nullable(enum(list(BACKS), "a card back"),
                             "RR-9: the backs of the Rat Pack show through: the back of the "
                             "top face-down card (Scrappy Sewer, Supreme Sewer or Flush), at "
                             "all times and after reshuffles too; null when the pack is empty "
                             "or while the chance node showing the new top back is pending"),
        "cesspit": counts,
        "refill": array(integer(0, d.open_sewer_slots - 1, "a slot"),
                        d.open_sewer_slots, "Open Sewer slots waiting to be refilled"),
        "reshuffled": boolean("the current refill already shuffled the Cesspit into the "
                              "Rat Pack (RR-6)"),
        "pending": array(frame, 64, "card effects waiting for sub-decisions, first first",
                         tensor_items=4),
        "turn_actions": integer(0, 10_000, "Step 2 actions taken this turn (RR-10)",
                                scale=(0, 30)),
        "winners": array(rat, n, "the winning rats (RR-1), empty before the end"),
    }, "What one rat knows: the whole table (RR-8) but the Rat Pack's order."))
