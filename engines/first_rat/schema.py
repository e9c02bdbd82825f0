"""The schema of a First Rat ``observation(player)`` (see ``ratai.engines.obs_schema``).

First Rat hides nothing (every draw is lazy, ``rules.py``), so the observation is the whole
state — the board, each seat's rats, goods and items, the score tracks, the turn in progress
and, in the solo game, Greg's rats and deck — plus the derived ``scores`` and ``greg_points``.
Board and item numbers are the data file's (FR-1..FR-19 in ``RULES_GAPS.md``).
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
    number,
    obj,
    skip,
    string,
)
from .data import COLOURS, MATERIALS, PARTS, RULEBOOK, TRACKS
from .validate import MAX_BURROW_STEPS, PHASES

__all__ = ["observation_schema"]

_BIG = 100_000


def observation_schema(game) -> dict:
    """The JSON Schema document of ``game``'s observations (``Game.observation_schema``)."""
    d = game.data
    n = game.n
    L = game.L
    rats = RULEBOOK["rats_per_team"]
    spaces = RULEBOOK["track_spaces"]
    owners = game.n_owners
    backpacks = [b[0] for b in d.backpacks]
    caps = [c if isinstance(c, str) else c[0] for c in d.bottle_caps]
    comics = [c[0] for c in d.comics]
    nodes = sorted(d.burrow_edges)
    ncards = len(d.cards)
    per_seat = "per seat (seat 0 first)"
    count = integer(0, _BIG, "a count", scale=(0, 20))
    position = integer(-1, L, f"-1 in the Nursery, 0 on Start, 1-{L - 1} a path space, "
                       f"{L} in the rocket (a Rattronaut)")
    track_row = fixed(integer(0, _BIG, "points", scale=(0, 15)),
                      "points of the track's spaces, left to right", n=spaces)
    owner = nullable(integer(-1, owners - 1, "a seat, Greg (the last index in the solo "
                                               "game), or -1 a neutral marker"))
    return document("first_rat", "First Rat observation", obj({
        "phase": enum(list(PHASES), "where the game is: setup draws, a seat's turn step "
                      "(move, move_b = option B continues, launch, drink, burrow, nursery, "
                      "library, super, shop, build), Greg's turn (solo), or over"),
        "step": enum(["", "move", "pay", "launch", "drink", "collect", "burrow", "shop",
                      "build", "end"], "the turn cursor (move -> pay -> launch -> drink -> "
                      "collect -> burrow -> shop -> build -> end)"),
        "round": integer(1, 1_000, "the round (1 first)", scale=(0, 20)),
        "seat": integer(0, max(n, owners) - 1, "the seat taking its turn (Greg's index in "
                        "his solo turn)"),
        "end_round": nullable(integer(1, 1_000, "round", scale=(0, 20)),
                              "the last round once the end is triggered (FR-11), or null"),
        "tiles": fixed(integer(0, L - 1, "tile"), "the tile on each path space (the "
                       "variable layout shuffles tiles within their groups, FR-14; 0 = "
                       "still to draw)", n=L),
        "track_values": mapping(TRACKS, track_row, "the score tracks' point values (FR-14 "
                                "draws 7 of the 8 sets)", required=True),
        "sets_used": multiset(list(range(len(d.variable_value_sets))),
                              len(d.variable_value_sets), "value sets drawn (FR-14)"),
        "library": multiset(comics, len(comics), "comics in the Library (burrow reward, "
                            "FR-7)"),
        "setup_todo": skip(array(string("a setup draw"), 64, "setup draws still to make"),
                           "the phase says whether setup goes on; the draws are in order"),
        "disp_backpacks": multiset(backpacks, len(backpacks), "backpacks on display at "
                                   "Harry Hamster's booth (FR-6, FR-8)"),
        "disp_caps": multiset(caps, len(caps), "bottle caps at Madcap Crow's booth"),
        "disp_drinks": integer(0, 100, "energy drinks at Zippy the Frog's booth",
                               scale=(0, 5)),
        "track_slots": mapping(TRACKS, fixed(owner, "markers on the single spaces",
                                             n=spaces - 1),
                               "score markers on each track's single spaces (FR-11)",
                               required=True),
        "track_last": mapping(TRACKS, array(integer(0, owners - 1, "a seat or Greg"),
                                            4 * owners, "markers on the last space",
                                            tensor_items=owners),
                              "markers sharing each track's last space", required=True),
        "rats": fixed(fixed(position, "one seat's four rats", n=rats),
                      f"each seat's rats {per_seat}", n=n, per_seat=n),
        "cheese": fixed(count, f"Cheese {per_seat}", n=n, per_seat=n),
        "cheese_issued": integer(0, _BIG, "Cheese held in all", scale=(0, 50)),
        "moldy": fixed(count, f"Moldy Cheese taken (FR-4) {per_seat}", n=n, per_seat=n),
        "awards": fixed(count, f"Awards (FR-9) {per_seat}", n=n, per_seat=n),
        "drinks": fixed(count, f"energy drinks held (FR-6) {per_seat}", n=n, per_seat=n),
        "light": fixed(integer(0, d.light_length, "position"),
                       f"light-string position (FR-5) {per_seat}", n=n, per_seat=n),
        "lights_scored": fixed(integer(0, len(d.construction_lights), "lights"),
                               f"Construction Lights reached (FR-5) {per_seat}", n=n, per_seat=n),
        "markers": fixed(integer(0, RULEBOOK["score_markers"], "markers"),
                         "score markers placed per seat (Greg last in the solo game; FR-11)",
                         n=owners, per_seat=n),
        "raised": fixed(integer(0, RULEBOOK["max_nursery_raises"], "rats"),
                        f"rats raised through the Nursery (FR-7) {per_seat}", n=n, per_seat=n),
        "burrow": fixed(enum(nodes, "a burrow space"),
                        f"the apple-core marker's burrow space (FR-7) {per_seat}", n=n, per_seat=n),
        "mats": fixed(mapping(MATERIALS, count, "materials by kind", required=True),
                      f"vinegar, soda, tin and calculators {per_seat}", n=n, per_seat=n),
        "built": fixed(mapping(PARTS, count, "rocket parts built", required=True),
                       f"cockpits, cargo bays and thrusters built {per_seat}", n=n, per_seat=n),
        "rocket_sets": fixed(count, f"complete rocket sets (FR-10) {per_seat}", n=n, per_seat=n),
        "backpacks": fixed(multiset(backpacks, len(backpacks), "backpacks"),
                           f"backpacks owned (FR-6) {per_seat}", n=n, per_seat=n),
        "caps": fixed(multiset(caps, len(caps), "bottle caps"),
                      f"bottle caps owned (FR-12) {per_seat}", n=n, per_seat=n),
        "comics": fixed(multiset(comics, len(comics), "comics"),
                        f"comics owned {per_seat}", n=n, per_seat=n),
        "super_rats": fixed(mapping(comics, integer(-1, rats - 1, "the rat, or -1 the next "
                                                    "rat raised (FR-15)"),
                                    "Super Rat comics and the rat each made super"),
                            f"Super Rats (FR-15, FR-19) {per_seat}", n=n, per_seat=n),
        "supply": mapping(sorted(d.supply), integer(0, _BIG, "pieces", scale=(0, 30)),
                          "the general supply (finite, FR-13)", required=True),
        "moved": multiset(list(range(rats)), rats, "rats moved this turn"),
        "option": nullable(enum(["A", "B"], "movement option A or B (FR-3)")),
        "b_colour": nullable(enum(list(COLOURS), "the colour option-B rats must end on "
                                  "(FR-3)")),
        "launch_pending": integer(0, rats, "Launchpad rewards still to take (FR-9)"),
        "drink_used": boolean("an energy drink doubles this turn's yield (FR-6)"),
        "burrow_steps": integer(0, MAX_BURROW_STEPS, "apple-core steps still to walk "
                                "(FR-7)", scale=(0, 10)),
        "pending_super": multiset(comics, len(comics), "Super Rat comics waiting for a rat "
                                  "(FR-15)"),
        "shops": multiset(list(range(rats)), rats, "moved rats on booths still to shop "
                          "(FR-8)"),
        "greg_rats": array(integer(0, L, "position"), rats, "Greg's rats (solo; FR-16)"),
        "greg_unknown": mapping(["A", "B"], integer(0, ncards, "cards"),
                                "Greg's deck: the number of still unseen A and B cards"),
        "greg_known": multiset(list(range(ncards)), ncards, "Greg's cards known to be in "
                               "his draw deck"),
        "greg_seen": multiset(list(range(ncards)), ncards, "Greg's cards revealed so far"),
        "greg_discard": multiset(list(range(ncards)), ncards, "Greg's discard pile"),
        "greg_prepared": multiset(list(d.greg_tracks), len(d.greg_tracks),
                                  "tracks Greg has prepared (his best track, FR-16)"),
        "greg_card": nullable(enum(list(range(ncards)), "a card"),
                              "Greg's card revealed this turn, or null"),
        "greg_booths": array(integer(1, L - 1, "a booth space"), rats,
                             "Greg's booth discards still to make (FR-18)"),
        "greg_step": enum(["", "draw", "booths", "icon", "end"], "Greg's turn cursor"),
        "scores": fixed(number(-_BIG, _BIG, "points", scale=(0, 100)),
                        f"points now {per_seat} (rulebook scoring, FR-12)", n=n, per_seat=n),
        "greg_points": number(-_BIG, _BIG, "Greg's points (solo)", scale=(0, 100)),
    }, "What every seat sees in First Rat: the whole table."))
