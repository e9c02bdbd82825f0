"""First Rat component data: junkyard path, light string, rat burrow, score tracks, items, solo.

The rulebook (Pegasus Spiele 2022) prints the rules, the setup counts, the rocket-part costs and
the scoring steps; it does not print the board (space colours and yields, shortcuts, the light
string and burrow layout), the score-track values, the item texts or the solo cards. Those are
the stand-ins of ``../shared/data/first_rat.json`` (see ``../shared/RULES_GAPS.md``, section
First Rat), packaged here as ``first_rat.json``. Load another file with
``load_game("first_rat", data_path=...)``.

Numbers printed in the rulebook's rule text (not on components) are the constants of
:data:`RULEBOOK`; each names its rulebook section.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..api import read_component_json

#: Numbers from the rulebook's text (section in the comment).
RULEBOOK: dict[str, int] = {
    "rats_per_team": 4,  # Components: 4 Rats per team
    "rats_on_start": 2,  # Setup: 2 Rats in the Start space
    "rats_in_nursery": 2,  # Setup: 2 Rats in the Nursery
    "option_a_max": 5,  # Step 1, option A: 1 Rat 1 to 5 spaces
    "option_b_min_rats": 2,  # Step 1, option B: 2-4 Rats
    "option_b_max_rats": 4,
    "option_b_max": 3,  # Step 1, option B: 1 to 3 spaces each
    "landing_fee": 1,  # Rules for Movement: give that player 1 Cheese
    "moldy_value": 3,  # Moldy Cheese: each gives you 3 Cheese
    "moldy_penalty": 2,  # End of Game: -2 points per Moldy Cheese
    "award_points": 3,  # The Launchpad: an Award is worth 3 points
    "max_nursery_raises": 2,  # Rat Burrow Details: raise a maximum of 2 new Rats
    "score_markers": 10,  # End of Game note: never more than 10 Score markers
    "end_trigger_markers": 8,  # End of Game B: the 8th Score marker
    "track_spaces": 5,  # Score Tracks: each Score track has 5 spaces
    "leftover_per_point": 4,  # End of Game: 1 point per 4 leftover resources
    "drink_multiplier": 2,  # energy drink: double the yield (data "energy_drink.effect")
}

#: Material names used in yields, costs and the supply (rulebook names in the comment).
MATERIALS = ("vinegar", "soda", "tin", "calculator")  # Vinegar Bottle, Baking Soda, Tin Can, Calc.
#: Yield kinds of a space: cheese, one of MATERIALS, light bulbs, apple cores.
YIELD_KINDS = ("cheese", *MATERIALS, "bulb", "apple")
#: The five space colours (rulebook "Step 2: Collect Resources").
COLOURS = ("yellow", "green", "orange", "blue", "white")
#: Score tracks in a fixed id order.
TRACKS = ("cockpit", "cargo_bay", "thruster", "rocket", "provisions", "construction_lights",
          "stored_food", "rattronaut")
#: Rocket parts (rulebook "Step 4: Build") in id order.
PARTS = ("cockpit", "cargo_bay", "thruster")
#: Item kind sold at each booth (rulebook "Setup": Harry Hamster backpacks, Zippy the Frog
#: energy drinks, the Madcap Crow bottle caps).
BOOTH_ITEMS = {"harry_hamster": "backpack", "zippy_the_frog": "energy_drink",
               "madcap_crow": "bottle_cap"}
#: Bottle-cap count names (data "bottle_caps[].counts").
CAP_COUNTS = ("cockpits_built", "cargo_bays_built", "thrusters_built", "rocket_markers",
              "rattronauts", "provisions_markers", "construction_lights_markers",
              "stored_food_markers", "comics_owned", "backpacks_owned")
#: What one unit of each bottle-cap count is, in words (labels: "4 per rocket marker").
CAP_COUNT_NAMES = {"cockpits_built": "cockpit built", "cargo_bays_built": "cargo bay built",
                   "thrusters_built": "thruster built", "rocket_markers": "rocket marker",
                   "rattronauts": "Rattronaut", "provisions_markers": "provisions marker",
                   "construction_lights_markers": "construction lights marker",
                   "stored_food_markers": "stored food marker", "comics_owned": "comic owned",
                   "backpacks_owned": "backpack owned"}
#: Rulebook names of the score tracks, the booths and the rocket parts.
TRACK_NAMES = {"cockpit": "Cockpit", "cargo_bay": "Cargo Bay", "thruster": "Thruster",
               "rocket": "Rocket", "provisions": "Provisions",
               "construction_lights": "Construction Lights", "stored_food": "Stored Food",
               "rattronaut": "Rattronaut"}
#: Rulebook names of the yield kinds ("Step 2: Collect Resources"), singular and plural.
YIELD_NAMES = {"cheese": ("Cheese", "Cheese"), "vinegar": ("Vinegar Bottle", "Vinegar Bottles"),
               "soda": ("Baking Soda", "Baking Soda"), "tin": ("Tin Can", "Tin Cans"),
               "calculator": ("Calculator", "Calculators"),
               "bulb": ("Lightbulb", "Lightbulbs"), "apple": ("Apple Core", "Apple Cores")}
BOOTH_NAMES = {"harry_hamster": "Harry Hamster's booth",
               "zippy_the_frog": "Zippy the Frog's booth",
               "madcap_crow": "the Madcap Crow's booth"}

#: Comic effects in machine form, keyed by comic id. The amounts restate the data's effect
#: texts (``comics[].effect``); a data file whose comic ids differ must extend this table.
COMIC_EFFECTS: dict[str, dict[str, Any]] = {
    "CM1": {"kind": "free_shortcuts"},
    "CM2": {"kind": "no_landing_fee"},
    "CM3": {"kind": "option_a_extra", "amount": 1},
    "CM4": {"kind": "option_b_extra", "amount": 1},
    "CM5": {"kind": "item_discount", "amount": 2},
    "CM6": {"kind": "extra_bulb", "amount": 1},
    "SR1": {"kind": "super_chameleon"},
    "SR2": {"kind": "super_turbo", "amount": 2},
    "SR3": {"kind": "super_strong", "amount": 1},
    "SR4": {"kind": "super_ghost"},
}


@dataclass(frozen=True)
class Space:
    """A junkyard path tile: colour and yield (``kind`` in YIELD_KINDS, ``amount`` >= 1)."""

    tile: int
    colour: str
    kind: str
    amount: int


@dataclass(frozen=True)
class Shortcut:
    """A pipe from space ``start`` to space ``end`` (one step), paid with ``cost`` (FR-1)."""

    id: str
    start: int
    end: int
    cost: str


@dataclass(frozen=True)
class Card:
    """A solo card: Greg's moves for the rats in 1st..4th position, and its icon or None."""

    id: str
    group: str
    moves: tuple[int, ...]
    icon: str | None


@dataclass(frozen=True)
class FirstRatData:
    """Validated component data (see the module docstring for what is printed)."""

    launchpad: int
    tiles: dict[int, Space]  # tile id (= standard slot) -> space
    booths: dict[int, str]  # slot -> booth name (printed on the board; FR-14)
    launchpad_colours: tuple[str, ...]
    shortcuts: tuple[Shortcut, ...]
    tile_groups: tuple[tuple[str, tuple[int, ...]], ...]  # (letter, slots) in path order
    light_length: int
    construction_lights: tuple[int, ...]
    lit_per_step: int
    burrow_start: str
    burrow_edges: dict[str, tuple[str, ...]]
    burrow_choices: dict[str, dict[str, str]]  # intersection -> {direction: next node}
    burrow_rewards: dict[str, str]  # node -> stored_food | nursery | library
    track_values: dict[str, tuple[int, ...]]
    neutral_markers: dict[int, tuple[int, ...]]  # players -> 1-based track spaces
    variable_value_sets: tuple[tuple[int, ...], ...]
    variable_tracks: tuple[str, ...]
    part_costs: dict[str, dict[str, int]]
    provisions_cost: int
    prices: dict[str, int]
    backpacks_shown: dict[int, int]
    energy_drinks: dict[int, int]
    bottle_caps_shown: int
    comics_shown: int
    start_cheese: tuple[int, ...]
    supply: dict[str, int]
    backpacks: tuple[tuple[str, str, int], ...]  # (id, colour, bonus)
    bottle_caps: tuple[tuple[str, int, str], ...]  # (id, points_per, counts)
    comics: tuple[tuple[str, str, bool], ...]  # (id, name, super_rat)
    solo_deck: dict[str, dict[str, int]]
    greg_start: tuple[int, ...]
    greg_tracks: tuple[str, ...]
    cards: tuple[Card, ...]
    source: str

    def routes(self, origin: int, max_steps: int) -> list[tuple[int, int, int]]:
        """Moves of 1..``max_steps`` steps from ``origin`` (FR-1).

        Returns ``[(dest, shortcut_mask, steps)]`` sorted; bit ``i`` of the mask is
        ``shortcuts[i]``. Each step goes to the next space or through one shortcut; the
        Launchpad ends every route.
        """
        return _routes(self, origin, max_steps)


def _routes(d: FirstRatData, origin: int, max_steps: int) -> list[tuple[int, int, int]]:
    found: dict[tuple[int, int], int] = {}
    frontier = [(origin, 0)]
    for steps in range(1, max_steps + 1):
        nxt = []
        for pos, mask in frontier:
            if pos >= d.launchpad:
                continue
            options = [(pos + 1, mask)]
            for i, sc in enumerate(d.shortcuts):
                if sc.start == pos:
                    options.append((sc.end, mask | (1 << i)))
            for key in options:
                if key not in found:
                    found[key] = steps
                    nxt.append(key)
        frontier = nxt
    return sorted((dest, mask, steps) for (dest, mask), steps in found.items())


def _fail(source: str, field: str, problem: str) -> ValueError:
    return ValueError(f"{source}: field {field!r}: {problem}")


def _int(value: Any, source: str, field: str, lo: int | None = None,
         hi: int | None = None) -> int:
    """``value`` as an int (JSON integer, not a bool or a string) in ``lo..hi``.

    Raises:
        ValueError: naming the file and the field.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(source, field, f"must be an integer, not {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"{'' if lo is None else lo}..{'' if hi is None else hi}"
        raise _fail(source, field, f"must be in {span}, not {value}")
    return value


def _ints(values: Any, source: str, field: str, lo: int | None = None,
          hi: int | None = None) -> tuple[int, ...]:
    if not isinstance(values, list):
        raise _fail(source, field, "must be a list of integers")
    return tuple(_int(v, source, f"{field}[{k}]", lo, hi) for k, v in enumerate(values))


def _int_keys(raw: dict, source: str, field: str) -> dict[int, Any]:
    if not isinstance(raw, dict):
        raise _fail(source, field, "must be an object keyed by player count")
    out = {}
    for key, value in raw.items():
        if key.startswith("_"):
            continue
        if not key.isdigit():
            raise _fail(source, f"{field}.{key}", "keys must be player counts")
        out[int(key)] = value
    return out


#: Solo difficulty levels (rulebook "Solo Play" deck table); each needs a deck row.
LEVELS = ("easy", "medium", "difficult", "unfair")


def parse(doc: dict, source: str = "<data>") -> FirstRatData:
    """Validate a first_rat.json document.

    Every number must be a JSON integer in its range (counts, supplies, prices and costs
    non-negative; spaces on the path; Construction Lights on the light string), every id a
    known one (burrow rewards on burrow nodes, Greg's tracks score tracks, one deck row per
    difficulty level of :data:`LEVELS`).

    Raises:
        ValueError: naming the file and the field that is missing or wrong.
    """
    try:
        return _parse(doc, source)
    except KeyError as exc:
        raise _fail(source, str(exc.args[0]), "missing") from None
    except (TypeError, AttributeError) as exc:
        raise ValueError(f"{source}: malformed data: {exc}") from None


def _parse(doc: dict, source: str) -> FirstRatData:
    path = doc["path"]
    launchpad = _int(path["launchpad"], source, "path.launchpad", 2)
    if _int(path["start"], source, "path.start") != 0:
        raise _fail(source, "path.start", "must be 0")
    tiles: dict[int, Space] = {}
    booths: dict[int, str] = {}
    for k, sp in enumerate(path["spaces"]):
        field = f"path.spaces[{k}]"
        i = _int(sp["i"], source, field + ".i")
        if i != k + 1:
            raise _fail(source, field, f"spaces must be numbered 1..{launchpad - 1} in order")
        if sp["colour"] not in COLOURS:
            raise _fail(source, field + ".colour", f"must be one of {COLOURS}")
        if not isinstance(sp["yield"], dict) or len(sp["yield"]) != 1:
            raise _fail(source, field + ".yield", "must have exactly one kind")
        (kind, amount), = sp["yield"].items()
        if kind not in YIELD_KINDS:
            raise _fail(source, field + ".yield", f"kind must be one of {YIELD_KINDS}")
        tiles[i] = Space(i, sp["colour"], kind, _int(amount, source, f"{field}.yield.{kind}", 1))
        if "booth" in sp:
            if sp["booth"] not in BOOTH_ITEMS:
                raise _fail(source, field + ".booth", f"must be one of {sorted(BOOTH_ITEMS)}")
            booths[i] = sp["booth"]
    if sorted(tiles) != list(range(1, launchpad)):
        raise _fail(source, "path.spaces", f"must list spaces 1..{launchpad - 1}")
    lp_colours = tuple(path["launchpad_colours"])
    if sorted(lp_colours) != sorted(COLOURS):
        raise _fail(source, "path.launchpad_colours", f"must be the 5 colours {COLOURS}")
    shortcuts = []
    for k, sc in enumerate(path["shortcuts"]):
        field = f"path.shortcuts[{k}]"
        s = Shortcut(str(sc["id"]), _int(sc["from"], source, field + ".from"),
                     _int(sc["to"], source, field + ".to"), sc["cost"])
        if not 0 < s.start < s.end <= launchpad or s.cost not in MATERIALS:
            raise _fail(source, field, "needs 0 < from < to <= launchpad "
                        f"and a cost in {MATERIALS}")
        shortcuts.append(s)
    groups = tuple((g, _ints(slots, source, f"path.variable_tile_groups.{g}"))
                   for g, slots in sorted(path["variable_tile_groups"].items()))
    covered = sorted(x for _, slots in groups for x in slots)
    if covered != list(range(1, launchpad)):
        raise _fail(source, "path.variable_tile_groups", "must partition the path spaces")

    light = doc["light_string"]
    light_length = _int(light["length"], source, "light_string.length", 1)
    lights = _ints(light["construction_lights"], source, "light_string.construction_lights",
                   1, light_length)
    if list(lights) != sorted(set(lights)):
        raise _fail(source, "light_string.construction_lights",
                    "must be increasing positions on the light string")
    lit_per_step = _int(light["lit_path_spaces_per_step"], source,
                        "light_string.lit_path_spaces_per_step", 0)

    burrow = doc["burrow"]
    edges = {k: tuple(v) for k, v in burrow["edges"].items()}
    choices = {k: dict(v) for k, v in burrow["intersections"].items()}
    for node, nexts in edges.items():
        if not nexts or any(n not in edges for n in nexts):
            raise _fail(source, f"burrow.edges.{node}", "must lead to known nodes")
        if len(nexts) > 1 and (node not in choices
                               or sorted(choices[node].values()) != sorted(nexts)):
            raise _fail(source, f"burrow.intersections.{node}", "must name each branch")
    for node in choices:
        if len(edges.get(node, ())) < 2:
            raise _fail(source, f"burrow.intersections.{node}",
                        "must be a node with several edges")
    if burrow["start"] not in edges:
        raise _fail(source, "burrow.start", "unknown node")
    rewards = dict(burrow["rewards"])
    for node, reward in rewards.items():
        if node not in edges:
            raise _fail(source, f"burrow.rewards.{node}", "reward on an unknown burrow node")
        if reward not in ("stored_food", "nursery", "library"):
            raise _fail(source, f"burrow.rewards.{node}",
                        "rewards are stored_food, nursery, library")

    st = doc["score_tracks"]
    values = {t: _ints(st["values"][t], source, f"score_tracks.values.{t}", 0)
              for t in TRACKS}
    for t, v in values.items():
        if len(v) != RULEBOOK["track_spaces"]:
            raise _fail(source, f"score_tracks.values.{t}", "needs 5 values")
    neutral = {n: _ints(v, source, f"score_tracks.neutral_markers.{n}",
                        1, RULEBOOK["track_spaces"] - 1)
               for n, v in _int_keys(st["neutral_markers"], source,
                                     "score_tracks.neutral_markers").items()}
    for n in (2, 3, 4, 5):
        if n not in neutral or len(set(neutral[n])) != len(neutral[n]):
            raise _fail(source, "score_tracks.neutral_markers",
                        f"needs distinct spaces 1..4 for {n} players")
    value_sets = tuple(_ints(s, source, f"score_tracks.variable_value_sets[{k}]", 0)
                       for k, s in enumerate(st["variable_value_sets"]))
    variable_tracks = tuple(t for t in TRACKS if t != "rocket")
    if len(value_sets) < len(variable_tracks) or any(len(s) != 5 for s in value_sets):
        raise _fail(source, "score_tracks.variable_value_sets",
                    f"needs at least {len(variable_tracks)} sets of 5 values")

    costs = {p: {m: _int(c, source, f"rocket_part_costs.{p}.{m}", 1)
                 for m, c in doc["rocket_part_costs"][p].items()} for p in PARTS}
    for p, cost in costs.items():
        if not cost or any(m not in MATERIALS for m in cost):
            raise _fail(source, f"rocket_part_costs.{p}", f"materials are {MATERIALS}")
    provisions_cost = _int(doc["provisions_cost"]["cheese"], source,
                           "provisions_cost.cheese", 1)
    prices = {k: _int(doc["prices"][k], source, f"prices.{k}", 0)
              for k in ("backpack", "energy_drink", "bottle_cap")}
    setup = doc["setup"]
    supply = {k: _int(setup["supply"][k], source, f"setup.supply.{k}", 0)
              for k in (*MATERIALS, "moldy_cheese", "awards")}
    backpacks = tuple((str(b["id"]), b["colour"],
                       _int(b["bonus"], source, f"backpacks[{k}].bonus", 0))
                      for k, b in enumerate(doc["backpacks"]))
    if any(c not in COLOURS for _, c, _ in backpacks):
        raise _fail(source, "backpacks", f"colours are {COLOURS}")
    caps = tuple((str(c["id"]), _int(c["points_per"], source, f"bottle_caps[{k}].points_per"),
                  c["counts"]) for k, c in enumerate(doc["bottle_caps"]))
    if any(c not in CAP_COUNTS for _, _, c in caps):
        raise _fail(source, "bottle_caps", f"counts are {CAP_COUNTS}")
    comics = tuple((str(c["id"]), str(c["name"]), bool(c["super_rat"]))
                   for c in doc["comics"])
    for cid, _, _ in comics:
        if cid not in COMIC_EFFECTS:
            raise _fail(source, "comics", f"comic {cid!r} has no entry in COMIC_EFFECTS")
    ids = [b[0] for b in backpacks] + [c[0] for c in caps] + [c[0] for c in comics]
    if len(set(ids)) != len(ids) or "energy_drink" in ids:
        raise _fail(source, "backpacks/bottle_caps/comics", "item ids must be unique")

    solo = doc["solo"]
    cards = tuple(Card(str(c["id"]), str(c["id"])[:1],
                       _ints(c["moves"], source, f"solo.cards[{k}].moves", 0), c["icon"])
                  for k, c in enumerate(solo["cards"]))
    greg_tracks = tuple(solo["unplayed_colour_tracks"])
    if not greg_tracks or any(t not in TRACKS for t in greg_tracks) \
            or len(set(greg_tracks)) != len(greg_tracks):
        raise _fail(source, "solo.unplayed_colour_tracks", f"distinct tracks of {TRACKS}")
    for k, c in enumerate(cards):
        if len(c.moves) != RULEBOOK["rats_per_team"] or c.group not in ("A", "B", "C"):
            raise _fail(source, f"solo.cards[{k}]", "needs 4 moves and an id A*/B*/C*")
        if c.icon is not None and not isinstance(c.icon, str) or c.icon not in (
                None, "remove_comic", "prepare_best") and not (
                c.icon.startswith("prepare:") and c.icon[8:] in greg_tracks):
            raise _fail(source, f"solo.cards[{k}].icon", "unknown icon")
    if len({c.id for c in cards}) != len(cards):
        raise _fail(source, "solo.cards", "card ids must be unique")
    raw_deck = solo["deck_by_difficulty"]
    deck = {}
    for level in LEVELS:
        if level not in raw_deck:
            raise _fail(source, f"solo.deck_by_difficulty.{level}",
                        f"missing: one row per difficulty level {LEVELS}")
        row = raw_deck[level]
        if not isinstance(row, dict) or any(g not in ("A", "B") for g in row):
            raise _fail(source, f"solo.deck_by_difficulty.{level}", "counts of A and B cards")
        deck[level] = {g: _int(n, source, f"solo.deck_by_difficulty.{level}.{g}", 0)
                       for g, n in row.items()}
    if not any(c.group == "C" for c in cards):
        raise _fail(source, "solo.cards", "needs a C card")
    greg_start = _ints(solo["greg_start_spaces"], source, "solo.greg_start_spaces",
                       0, launchpad - 1)
    data = FirstRatData(
        launchpad=launchpad, tiles=tiles, booths=booths, launchpad_colours=lp_colours,
        shortcuts=tuple(shortcuts), tile_groups=groups,
        light_length=light_length, construction_lights=lights, lit_per_step=lit_per_step,
        burrow_start=burrow["start"], burrow_edges=edges, burrow_choices=choices,
        burrow_rewards=rewards, track_values=values, neutral_markers=neutral,
        variable_value_sets=value_sets, variable_tracks=variable_tracks,
        part_costs=costs, provisions_cost=provisions_cost, prices=prices,
        backpacks_shown={n: _int(v, source, f"setup.backpacks_shown.{n}", 0) for n, v in
                         _int_keys(setup["backpacks_shown"], source,
                                   "setup.backpacks_shown").items()},
        energy_drinks={n: _int(v, source, f"setup.energy_drinks.{n}", 0) for n, v in
                       _int_keys(setup["energy_drinks"], source,
                                 "setup.energy_drinks").items()},
        bottle_caps_shown=_int(setup["bottle_caps_shown"], source,
                               "setup.bottle_caps_shown", 0),
        comics_shown=_int(setup["comics_shown"], source, "setup.comics_shown", 0),
        start_cheese=_ints(setup["start_cheese_by_seat"], source,
                           "setup.start_cheese_by_seat", 0),
        supply=supply, backpacks=backpacks, bottle_caps=caps, comics=comics,
        solo_deck=deck, greg_start=greg_start, greg_tracks=greg_tracks, cards=cards,
        source=source,
    )
    if len(data.start_cheese) < 5:
        raise _fail(source, "setup.start_cheese_by_seat", "needs 5 seats")
    for n in (2, 3, 4, 5):
        if n not in data.backpacks_shown or data.backpacks_shown[n] > len(backpacks):
            raise _fail(source, "setup.backpacks_shown", f"bad count for {n} players")
        if n not in data.energy_drinks:
            raise _fail(source, "setup.energy_drinks", f"missing {n} players")
    if data.bottle_caps_shown > len(caps):
        raise _fail(source, "setup.bottle_caps_shown", "more bottle caps shown than exist")
    if data.comics_shown > len(comics):
        raise _fail(source, "setup.comics_shown", "more comics shown than exist")
    if sum(1 for _, _, s in comics if not s) < data.comics_shown:
        raise _fail(source, "comics", "the first game needs enough comics without Super Rats")
    for level, row in deck.items():
        for g, n in row.items():
            if n > sum(1 for c in cards if c.group == g):
                raise _fail(source, f"solo.deck_by_difficulty.{level}", f"too many {g} cards")
    if len(data.greg_start) != RULEBOOK["rats_per_team"]:
        raise _fail(source, "solo.greg_start_spaces", "needs 4 spaces")
    return data


@lru_cache(maxsize=8)
def load(path: str | None = None) -> FirstRatData:
    """The packaged data (``path=None``) or the JSON file at ``path``, validated and cached.

    Raises:
        ValueError: the file is missing, not JSON, or fails validation.
    """
    doc, source = read_component_json(__package__, "first_rat.json", path)
    return parse(doc, source)
