"""Ratapolis component data: buildings, the first-game layout, the hunt schedule.

The numbers live in ``ratapolis.json`` (a copy of ``../shared/data/ratapolis.json``); this
module reads and validates them and builds the geometry tables the rules use. Printed in
the rulebook: 8 rounds, 20 rats per colour, capacity = players x multiplier, the multipliers
of A (3), I (2) and O (1), the ten property letters, the hunt schedule (5 cards in rounds
1-4, 4 in rounds 5-8, the 16-card reshuffle at round 5) and the 8 cheese tokens. Stand-ins
(see RULES_GAPS.md, Ratapolis): the other names, multipliers, cheese values and the 6x6
first-game layout.

A *layout* is a grid of cell letters, one string per row: a letter repeated in
edge-neighbouring cells is one building tile; ``.`` is a park cell (no building, not an
empty area). Two tiles are adjacent when they share at least one cell edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_PATH",
    "PROPERTY_BY_NAME",
    "COLOURS",
    "Building",
    "EVENT_EFFECTS",
    "EventCard",
    "RatapolisData",
    "Layout",
    "load_data",
    "min_city",
    "parse_layout",
]

#: The packaged data file.
DATA_PATH = Path(__file__).with_name("ratapolis.json")

#: Rulebook "Building Property Tokens": building name -> property kind used by the rules.
PROPERTY_BY_NAME: dict[str, str] = {
    "Market": "market",
    "Archive": "archive",
    "Shooting range": "shooting_range",
    "Hotel": "hotel",
    "Radio station": "radio",
    "Metro": "metro",
    "Fire station": "fire_station",
    "Bus station": "bus_station",
    "Cheese shop": "cheese_shop",
    "Hospital": "hospital",
}

#: Rat colours in the rulebook's component order; seat ``i`` plays ``COLOURS[i]``.
COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "green", "orange")

PARK = "."

#: RP-9: what an event card's side does to its round (the data file's words -> the rules').
#: ``normal``: a usual round ("1 attack"); ``no_attack``: phase 4 is skipped; ``not_played``:
#: the round's five phases are skipped.
EVENT_EFFECTS: dict[str, str] = {"one_attack": "normal", "no_attack": "no_attack",
                                 "closed_round": "not_played"}


@dataclass(frozen=True)
class Building:
    """One building tile (rulebook "Game Elements").

    Attributes:
        letter: the tile letter, e.g. ``"O"``.
        name: e.g. ``"Pharmacy"``.
        capacity_multiplier: capacity = number of players x this (1, 2 or 3).
        cheese_per_rat: cheese each rat on the tile scores at game end.
        property: a key of ``PROPERTY_BY_NAME``'s values, or ``None``.
    """

    letter: str
    name: str
    capacity_multiplier: int
    cheese_per_rat: int
    property: str | None


@dataclass(frozen=True)
class EventCard:
    """One scenario event card (rulebook Components "For scenario play"; RP-9).

    Attributes:
        id: e.g. ``"EV1"``.
        side_a: the attack side's effect, ``"normal"`` (1 attack) or ``"no_attack"``.
        side_b: the other side's effect, ``"not_played"`` (the round is not played).
    """

    id: str
    side_a: str
    side_b: str


@dataclass(frozen=True)
class RatapolisData:
    """Validated contents of a Ratapolis data file.

    Attributes:
        min_players, max_players: allowed ``num_players``.
        rounds: number of rounds (8).
        rats_per_player: rat figures per colour (20).
        buildings: all building tiles, in file order (index = building id).
        first_game_layout: the recommended starting grid (rows of letters).
        adjacency: the file's adjacency pairs for the first-game layout (checked against it).
        cards_early, cards_late: hunt cards taken per round before / from the reshuffle round.
        reshuffle_round: the round whose start reshuffles the discards into a new stack.
        cheese_tokens: cheese tokens that exist (RP-7: at most 8).
        event_cards: the scenario event cards (RP-9), in file order.
    """

    min_players: int
    max_players: int
    rounds: int
    rats_per_player: int
    buildings: tuple[Building, ...]
    first_game_layout: tuple[str, ...]
    adjacency: frozenset[frozenset[str]]
    cards_early: int
    cards_late: int
    reshuffle_round: int
    cheese_tokens: int
    event_cards: tuple[EventCard, ...] = ()

    def index(self, letter: str) -> int:
        """Building id of ``letter``; ``ValueError`` for an unknown letter."""
        for i, b in enumerate(self.buildings):
            if b.letter == letter:
                return i
        raise ValueError(f"unknown building letter {letter!r}; known: "
                         f"{''.join(b.letter for b in self.buildings)}")

    def cards_in_round(self, rnd: int) -> int:
        """Hunt cards taken from the stack in round ``rnd`` (1-based), rulebook Phase 1."""
        return self.cards_early if rnd < self.reshuffle_round else self.cards_late


@dataclass(frozen=True)
class Layout:
    """A city: which buildings are in it and how they touch.

    Attributes:
        grid: the rows of cell letters (``.`` for a park cell).
        tiles: building ids in the city, sorted.
        cells: ``cells[b]`` = list of ``(row, col)`` of building ``b`` (empty if absent).
        neighbours: ``neighbours[b]`` = sorted building ids sharing a cell edge with ``b``.
    """

    grid: tuple[str, ...]
    tiles: tuple[int, ...]
    cells: tuple[tuple[tuple[int, int], ...], ...]
    neighbours: tuple[tuple[int, ...], ...]


def _fail(path: Any, what: str) -> ValueError:
    return ValueError(f"bad Ratapolis data file {path}: {what}")


def _int(doc: dict, key: str, path: Any, lo: int = 0) -> int:
    value = doc.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < lo:
        raise _fail(path, f"field {key!r} must be an integer >= {lo}, got {value!r}")
    return value


@lru_cache(maxsize=8)
def load_data(path: str | None = None) -> RatapolisData:
    """Read and validate a Ratapolis data file (default: the packaged one).

    Raises:
        ValueError: the file is missing, no regular file or too large, not JSON
            (``api.read_component_json``), or a field is missing or inconsistent (the
            message names the field).
    """
    from ..api import read_component_json

    doc, src = read_component_json(__package__, DATA_PATH.name, path or None)
    if not isinstance(doc, dict):
        raise _fail(src, "top level must be an object")
    players = doc.get("players")
    if not isinstance(players, dict):
        raise _fail(src, "field 'players' must be an object with 'min' and 'max'")
    pmin, pmax = _int(players, "min", src, 1), _int(players, "max", src, 1)
    if pmax > len(COLOURS) or pmin > pmax:
        raise _fail(src, f"'players' must satisfy 1 <= min <= max <= {len(COLOURS)}")
    raw = doc.get("buildings")
    if not isinstance(raw, list) or not raw:
        raise _fail(src, "field 'buildings' must be a non-empty list")
    buildings = []
    for i, b in enumerate(raw):
        if not isinstance(b, dict):
            raise _fail(src, f"buildings[{i}] must be an object")
        letter, name = b.get("letter"), b.get("name")
        if not (isinstance(letter, str) and len(letter) == 1 and letter.isalpha()
                and letter.isupper()):
            raise _fail(src, f"buildings[{i}].letter must be one capital letter, got {letter!r}")
        if not isinstance(name, str) or not name:
            raise _fail(src, f"buildings[{i}].name must be a non-empty string")
        mult = _int(b, "capacity_multiplier", f"{src} buildings[{i}]", 1)
        cheese = _int(b, "cheese_per_rat", f"{src} buildings[{i}]", 0)
        has = b.get("has_property")
        if not isinstance(has, bool):
            raise _fail(src, f"buildings[{i}].has_property must be true or false")
        prop = None
        if has:
            if name not in PROPERTY_BY_NAME:
                raise _fail(src, f"buildings[{i}] ({letter}) has_property but its name {name!r} "
                                 f"is none of {sorted(PROPERTY_BY_NAME)}")
            prop = PROPERTY_BY_NAME[name]
        buildings.append(Building(letter, name, mult, cheese, prop))
    letters = [b.letter for b in buildings]
    if len(set(letters)) != len(letters):
        raise _fail(src, "buildings: duplicate letters")
    props = [b.property for b in buildings if b.property]
    if len(set(props)) != len(props):
        raise _fail(src, "buildings: a property appears on two buildings")
    layout = doc.get("first_game_layout")
    grid = layout.get("grid") if isinstance(layout, dict) else None
    if not isinstance(grid, list) or not all(isinstance(r, str) for r in grid):
        raise _fail(src, "field 'first_game_layout.grid' must be a list of strings")
    adj_raw = doc.get("adjacency", [])
    if not isinstance(adj_raw, list) or not all(
            isinstance(a, str) and len(a) == 2 and set(a) <= set(letters) for a in adj_raw):
        raise _fail(src, "field 'adjacency' must be a list of two-letter strings of building "
                         "letters")
    sched = doc.get("hunt_schedule")
    if not isinstance(sched, dict):
        raise _fail(src, "field 'hunt_schedule' must be an object")
    events = []
    for i, ev in enumerate(doc.get("event_cards", [])):
        if not isinstance(ev, dict) or not isinstance(ev.get("id"), str):
            raise _fail(src, f"event_cards[{i}] must be an object with a string 'id'")
        back, front = ev.get("back"), ev.get("front")
        # RP-9: side A (the file's "back") is 1 attack or no attack; side B ("front") closes
        # the round.
        if EVENT_EFFECTS.get(back) not in ("normal", "no_attack"):
            raise _fail(src, f"event_cards[{i}].back must be 'one_attack' or 'no_attack', "
                             f"got {back!r}")
        if EVENT_EFFECTS.get(front) != "not_played":
            raise _fail(src, f"event_cards[{i}].front must be 'closed_round', got {front!r}")
        events.append(EventCard(ev["id"], EVENT_EFFECTS[back], EVENT_EFFECTS[front]))
    if len({e.id for e in events}) != len(events):
        raise _fail(src, "event_cards: duplicate ids")
    data = RatapolisData(
        min_players=pmin, max_players=pmax,
        rounds=_int(doc, "rounds", src, 1),
        rats_per_player=_int(doc, "rats_per_player", src, 1),
        buildings=tuple(buildings),
        first_game_layout=tuple(grid),
        adjacency=frozenset(frozenset(a) for a in adj_raw),
        cards_early=_int(sched, "rounds_1_4", f"{src} hunt_schedule", 1),
        cards_late=_int(sched, "rounds_5_8", f"{src} hunt_schedule", 1),
        reshuffle_round=_int(sched, "reshuffle_at_round", f"{src} hunt_schedule", 2),
        cheese_tokens=_int(doc, "cheese_tokens", src, 0),
        event_cards=tuple(events),
    )
    if data.reshuffle_round > data.rounds:
        raise _fail(src, "hunt_schedule.reshuffle_at_round must be <= rounds")
    if data.cards_early < pmin or data.cards_late < 1:
        raise _fail(src, "hunt_schedule: too few cards per round")
    # The hunt deck is one card per building (rulebook Components: 20 tiles, 20 cards).
    # Rounds before the reshuffle use the whole deck; the reshuffled discards (deck minus
    # one hunted card per round) feed the rest (rulebook Phase 1: 16 cards at round 5).
    deck = len(buildings)
    early_rounds = data.reshuffle_round - 1
    if early_rounds * data.cards_early != deck:
        raise _fail(src, f"hunt_schedule: {early_rounds} rounds x {data.cards_early} cards "
                         f"must use the whole deck of {deck} cards")
    if (data.rounds - early_rounds) * data.cards_late != deck - early_rounds:
        raise _fail(src, f"hunt_schedule: the reshuffled {deck - early_rounds} cards must feed "
                         f"{data.rounds - early_rounds} rounds x {data.cards_late} cards")
    first = parse_layout(data, data.first_game_layout, field="first_game_layout.grid")
    if data.adjacency:
        computed = {frozenset((letters[a], letters[b]))
                    for a in first.tiles for b in first.neighbours[a]}
        if computed != set(data.adjacency):
            diff = sorted("".join(sorted(p)) for p in computed ^ set(data.adjacency))
            raise _fail(src, f"field 'adjacency' disagrees with the first-game grid on {diff}")
    return data


def min_city(data: RatapolisData) -> int:
    """RP-10: the fewest buildings a city needs so that every round can be dealt: at the
    start of round ``r`` at most ``r - 1`` tiles were hunted and a reshuffle returns every
    other card to the stack, so ``max(cards_in_round(r) + r - 1)`` (11 with the data)."""
    return max(data.cards_in_round(r) + r - 1 for r in range(1, data.rounds + 1))


def parse_layout(data: RatapolisData, rows: tuple[str, ...] | list[str],
                 field: str = "layout", partial: bool = False) -> Layout:
    """Build the :class:`Layout` of a grid of cell letters.

    Each building in the grid must be one edge-connected group of cells. With
    ``partial=False`` every building of ``data`` must appear (the first-game layout); with
    ``partial=True`` (RP-10, Setup 3 "the tokens that exist in your city") buildings may be
    left out (their hunt cards and tokens are not used), down to :func:`min_city` buildings.

    Raises:
        ValueError: naming ``field``: ragged rows, unknown letters, a building split in two
            groups, or a building missing.
    """
    rows = tuple(rows)
    if not rows or any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
        raise ValueError(f"bad {field}: rows must be non-empty and of equal length, got {rows!r}")
    letters = [b.letter for b in data.buildings]
    cells: list[list[tuple[int, int]]] = [[] for _ in letters]
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == PARK:
                continue
            if ch not in letters:
                raise ValueError(f"bad {field}: unknown cell letter {ch!r} at row {r}, column {c}; "
                                 f"allowed {''.join(letters)} or '.' for a park")
            cells[letters.index(ch)].append((r, c))
    present = sum(1 for group in cells if group)
    if partial and present < min_city(data):
        raise ValueError(f"bad {field}: {present} buildings; a city needs at least "
                         f"{min_city(data)} so that every round's hunt cards can be dealt "
                         f"(RP-10)")
    for b, group in enumerate(cells):
        if not group:
            if partial:
                continue
            raise ValueError(f"bad {field}: building {letters[b]} is missing (the first-game "
                             f"layout has all {len(letters)})")
        seen, todo = {group[0]}, [group[0]]
        while todo:
            r, c = todo.pop()
            for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nxt in group and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        if len(seen) != len(group):
            raise ValueError(f"bad {field}: the cells of building {letters[b]} are not one "
                             f"edge-connected group")
    owner = {cell: b for b, group in enumerate(cells) for cell in group}
    neighbours: list[set[int]] = [set() for _ in letters]
    for (r, c), b in owner.items():
        for nxt in ((r + 1, c), (r, c + 1)):
            o = owner.get(nxt)
            if o is not None and o != b:
                neighbours[b].add(o)
                neighbours[o].add(b)
    return Layout(grid=rows, tiles=tuple(b for b in range(len(letters)) if cells[b]),
                  cells=tuple(tuple(g) for g in cells),
                  neighbours=tuple(tuple(sorted(n)) for n in neighbours))
