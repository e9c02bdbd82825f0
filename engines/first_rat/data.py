"""First Rat component data: junkyard path, light string, rat burrow, score tracks, items, solo.

The rulebook (Pegasus Spiele 2022) prints the rules, the setup counts, the rocket-part costs and
the scoring steps; it does not print the board (space colours and yields, shortcuts, the light
string and burrow layout), the score-track values, the item texts or the solo cards. Those are
the stand-ins of ``../shared/data/first_rat.json`` (see ``../shared/RULES_GAPS.md``, section
First Rat), packaged here as ``first_rat.json``. Load another file with
``load_game("first_rat", data_path=...)``.

Numbers printed in the rulebook's rule text (not on components) are the constants of
:data:`RULEBOOK`; each names its rulebook section.

What components *do* is data too: comics, bottle caps, Rat Burrow reward spaces and
light-string positions carry ``effects`` lists in the shared effect language of
``engines/effects.py``, checked against First Rat's vocabularies (:data:`EFFECTS`: the
quantities a comic may modify, :data:`QUANTITIES`; what a score may count, :data:`COUNTS`).
Both backends interpret the primitives; no component has its own code path. Every problem
of a file is reported at once (``effects.EffectError``: file, JSON path, what is allowed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..api import read_component_json
from ..effects import Effect, Problem, Vocabulary, raise_problems, validate_effects

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
#: Counts of the game state a scoring effect may count (first part of :data:`COUNTS`).
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

#: What one unit of each further count is (bottle caps and other scoring effects).
COUNT_NAMES = {**CAP_COUNT_NAMES, "cheese": "Cheese", "vinegar": "Vinegar Bottle",
               "soda": "Baking Soda", "tin": "Tin Can", "calculator": "Calculator",
               "awards": "Award", "moldy_cheese": "Moldy Cheese",
               "light_string": "light-string step", "energy_drinks": "Energy Drink",
               "bottle_caps_owned": "bottle cap owned"}
#: Everything a scoring count may count (``{"count": {"of": NAME}}``; see :data:`EFFECTS`).
COUNTS = tuple(COUNT_NAMES)

#: Game quantities a comic or bottle cap may ``modify`` while owned, with their base values
#: (rulebook numbers where the rulebook prints them). ``shortcut_cost`` multiplies the
#: material a shortcut takes (0: free), ``landing_fee`` is the Cheese per other player's rat
#: (FR-4), ``item_price`` is added to every booth price (never below 0), ``yield`` /
#: ``yield_on_<colour>`` / ``yield_of_<kind>`` add to what a moved rat collects on a space
#: (all spaces / of that colour / of that yield kind, before an Energy Drink doubles it).
SEAT_QUANTITIES: dict[str, int] = {
    "option_a_steps": RULEBOOK["option_a_max"], "option_b_steps": RULEBOOK["option_b_max"],
    "shortcut_cost": 1, "landing_fee": RULEBOOK["landing_fee"], "item_price": 0, "yield": 0,
    **{f"yield_on_{c}": 0 for c in COLOURS}, **{f"yield_of_{k}": 0 for k in YIELD_KINDS},
}
#: Quantities of a Super Rat comic's own rat (FR-15, FR-19): ``super_rat_steps`` extra steps
#: (options A and B), ``super_rat_yield`` extra yield, and three switches (1 yes, 0 no):
#: ``super_rat_matches_colour`` (option B's same-colour condition binds it),
#: ``super_rat_blocks`` (no other rat of yours may end on its space, nor it on theirs) and
#: ``super_rat_pays_landing`` (its space counts for the landing fee, FR-4).
SUPER_QUANTITIES: dict[str, int] = {
    "super_rat_steps": 0, "super_rat_yield": 0, "super_rat_matches_colour": 1,
    "super_rat_blocks": 1, "super_rat_pays_landing": 1,
}
QUANTITIES = {**SEAT_QUANTITIES, **SUPER_QUANTITIES}


def _vocabulary(triggers: tuple[str, ...], ops: tuple[str, ...]) -> Vocabulary:
    return Vocabulary(
        game="first_rat", resources=("cheese", *MATERIALS, *TRACKS), triggers=triggers,
        countables=tuple(c for c in COUNTS if c not in ("cheese", *MATERIALS)),
        zones=("nursery", "start", "library", "tableau"), components=("rat", "comic"),
        quantities=tuple(QUANTITIES), ops=ops, selectors=("self",))


#: The effect vocabularies of First Rat's components (module ``engines/effects.py``; the
#: first trigger of each is its default ``when``):
#:
#: * ``comics`` and ``bottle_caps``: ``modify`` a quantity of :data:`QUANTITIES` while owned
#:   (``"when": "passive"``), and ``score`` points at the end of the game
#:   (``"when": "game_end"``) by an amount that may count things (:data:`COUNTS`), with an
#:   optional condition (``"if"``).
#: * ``burrow.rewards``: on entering the space (``"enter"``), ``score`` a track (one Score
#:   marker on the track named by ``resource``), ``gain`` Cheese or a material, ``move`` a rat
#:   from the Nursery to Start or a comic from the Library to the tableau (a choice).
#: * ``light_string.positions``: on reaching or passing the position (``"reach"``), the same
#:   as burrow rewards except ``move``.
EFFECTS = {
    "comics": _vocabulary(("passive", "game_end"), ("modify", "score")),
    "bottle_caps": _vocabulary(("game_end", "passive"), ("modify", "score")),
    "burrow": _vocabulary(("enter",), ("score", "gain", "move")),
    "light_string": _vocabulary(("reach",), ("score", "gain")),
}


#: A modifier summary ``(add, at_least, at_most)``; ``None`` bounds are open.
Mod = tuple[int, "int | None", "int | None"]


def modifiers(effects: tuple[Effect, ...]) -> dict[str, Mod]:
    """The ``modify`` effects of one component, summed per quantity: adds add up, the
    tightest bounds win (the same rule combines several components, :func:`resolve`)."""
    out: dict[str, Mod] = {}
    for e in effects:
        if e.op == "modify":
            out[e.quantity] = combine(out.get(e.quantity, (0, None, None)),
                                      (e.add, e.at_least, e.at_most))
    return out


def combine(a: Mod, b: Mod) -> Mod:
    """Two modifier summaries as one (associative and commutative)."""
    lo = a[1] if b[1] is None else b[1] if a[1] is None else max(a[1], b[1])
    hi = a[2] if b[2] is None else b[2] if a[2] is None else min(a[2], b[2])
    return a[0] + b[0], lo, hi


def resolve(base: int, mod: Mod) -> int:
    """A quantity's value: ``base`` plus the adds, raised to ``at_least``, then lowered to
    ``at_most``."""
    v = base + mod[0]
    if mod[1] is not None:
        v = max(v, mod[1])
    if mod[2] is not None:
        v = min(v, mod[2])
    return v


def _amount_text(a: Any) -> str:
    if a.count is None:
        return str(a.plus)
    unit = COUNT_NAMES[a.count.of]
    per = f"{a.times} per {unit}" if a.divide == 1 else f"{a.times} per {a.divide} {unit}"
    if a.plus:
        per += f" plus {a.plus}"
    if a.max is not None:
        per += f" (at most {a.max})"
    return per


def describe(effects: tuple[Effect, ...]) -> str:
    """Effects in words, for labels: an effect's ``text`` if given, else generated, e.g.
    ``4 per rocket marker`` for ``score {"count": {"of": "rocket_markers"}, "times": 4}``."""
    parts = []
    for e in effects:
        if e.text:
            parts.append(e.text)
        elif e.op == "score" and e.when == "game_end":
            what = _amount_text(e.amount)
            if e.condition is not None:
                c = e.condition
                unit = COUNT_NAMES[c.count.of]
                what += (f" if you have the {c.cmp} {unit}s" if c.cmp in ("most", "least")
                         else f" if {unit}s {c.cmp} {c.value}")
            parts.append(what)
        elif e.op == "score":
            parts.append(f"score the {TRACK_NAMES[e.resource]} track")
        elif e.op == "gain":
            parts.append(f"gain {e.amount.plus} {YIELD_NAMES[e.resource][e.amount.plus != 1]}")
        elif e.op == "move":
            parts.append("raise a rat" if e.what == "rat" else "take a Comic")
        else:
            bounds = [f"{e.add:+d}" if e.add else "",
                      f"at least {e.at_least}" if e.at_least is not None else "",
                      f"at most {e.at_most}" if e.at_most is not None else ""]
            parts.append(f"{e.quantity.replace('_', ' ')} {' '.join(b for b in bounds if b)}")
    return "; ".join(parts)


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
    construction_lights: tuple[int, ...]  # light positions (1-based) that have effects
    light_lights: tuple[tuple[int, ...], ...]  # per light position: the path spaces it lights
    light_effects: dict[int, tuple[Effect, ...]]  # light position -> effects on reaching it
    lit_bonus: int
    burrow_start: str
    burrow_edges: dict[str, tuple[str, ...]]
    burrow_choices: dict[str, dict[str, str]]  # intersection -> {direction: next node}
    burrow_rewards: dict[str, tuple[Effect, ...]]  # node -> effects on entering it
    burrow_names: dict[str, str]  # reward node -> its name ("Nursery")
    burrow_choice: dict[str, str]  # reward node -> "nursery" | "library" (its move effect)
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
    bottle_caps: tuple[str, ...]  # ids
    comics: tuple[tuple[str, str, bool], ...]  # (id, name, super_rat)
    item_effects: dict[str, tuple[Effect, ...]]  # comic / bottle cap id -> its effects
    solo_deck: dict[str, dict[str, int]]
    greg_start: tuple[int, ...]
    greg_tracks: tuple[str, ...]
    cards: tuple[Card, ...]
    source: str
    # route_table's memo, {max_steps: table} (not data: out of eq, hash and repr)
    _route_tables: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def lit_spaces(self, position: int) -> frozenset[int]:
        """Path spaces lit for a Light String marker at ``position`` (FR-5): those of the
        positions ``1..position``."""
        return frozenset(x for k in range(min(position, self.light_length))
                         for x in self.light_lights[k])

    def routes(self, origin: int, max_steps: int) -> list[tuple[int, int, int]]:
        """Moves of 1..``max_steps`` steps from ``origin`` (FR-1).

        Returns ``[(dest, shortcut_mask, steps)]`` sorted; bit ``i`` of the mask is
        ``shortcuts[i]``. Each step goes to the next space or through one shortcut; the
        Launchpad ends every route.
        """
        return _routes(self, origin, max_steps)

    def route_table(self, max_steps: int) -> list[list[list[tuple[int, int, int]]]]:
        """``table[origin][k] == routes(origin, k)`` for every space ``origin`` before the
        Launchpad and ``k`` in ``0..max_steps``; built once per data and ``max_steps`` and
        shared by every game using them (read-only)."""
        table = self._route_tables.get(max_steps)
        if table is None:
            table = self._route_tables[max_steps] = [
                [self.routes(o, k) for k in range(max_steps + 1)]
                for o in range(self.launchpad)]
        return table


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


_NATURAL_WHEN = {"modify": "passive", "score": "game_end"}


def _effects(raw: Any, kind: str, source: str, path: str, problems: list[Problem],
             super_rat: bool = False) -> tuple[Effect, ...]:
    """Effects of one component of ``kind`` (a key of :data:`EFFECTS`), checked against its
    vocabulary and First Rat's rules for it; every problem is appended to ``problems``
    (file, JSON path, what is allowed), so one load reports them all."""
    if kind in ("comics", "bottle_caps") and isinstance(raw, list):
        # ``when`` may be omitted: a modify holds while owned, points count at game end
        raw = [{"when": _NATURAL_WHEN[e.get("op")], **e}
               if isinstance(e, dict) and e.get("op") in _NATURAL_WHEN else e for e in raw]
    effects, found = validate_effects(raw, EFFECTS[kind], source, path)
    problems.extend(found)
    if len(effects) != (len(raw) if isinstance(raw, list) else 0):
        return effects
    moves = 0
    for i, e in enumerate(effects):
        at = f"{path}[{i}]"

        def bad(where: str, message: str, at: str = at) -> None:
            problems.append(Problem(source, at + where, message))

        if e.op == "modify":
            if e.when != "passive":
                bad(".when", "a 'modify' holds while the component is owned: 'passive'")
            if e.condition is not None:
                bad(".if", "conditions are allowed on 'score' effects only")
            if e.quantity in SUPER_QUANTITIES and not super_rat:
                bad(".quantity", f"{e.quantity!r} needs a Super Rat comic (super_rat: true); "
                    f"allowed here: {', '.join(SEAT_QUANTITIES)}")
        elif e.op == "score" and e.when in ("game_end", "passive"):
            if e.when != "game_end":
                bad(".when", "points are scored at the end of the game: 'game_end'")
            if e.resource:
                bad(".resource", "points at the end of the game go to no track; omit it")
            for c in (e.amount.count, e.condition.count if e.condition else None):
                if c is not None and c.whose == "target":
                    bad("", "counts are of the owner ('subject' or 'self')")
        else:  # rewards of the Rat Burrow and the light string: fixed amounts, no conditions
            if e.condition is not None or e.amount.count is not None:
                bad("", "rewards have fixed amounts and no conditions")
            if e.op == "score" and e.resource not in TRACKS[:-1]:
                bad(".resource", "a reward scores a Score track (one Score marker); allowed: "
                    + ", ".join(TRACKS[:-1]))
            if e.op == "gain" and e.resource not in ("cheese", *MATERIALS):
                bad(".resource", f"a reward gains one of {', '.join(('cheese', *MATERIALS))}")
            if e.op == "move":
                moves += 1
                route = (e.source, e.to)
                if e.what == "rat" and route != ("nursery", "start") or \
                        e.what == "comic" and route != ("library", "tableau"):
                    bad("", "a reward moves a rat from 'nursery' to 'start' or a comic from "
                        "'library' to 'tableau'")
                if e.amount.fixed != 1:
                    bad(".amount", "a reward moves 1 rat or comic")
                if moves > 1:
                    bad("", "a reward space has at most one 'move' (the owner's choice)")
            if e.op in ("score", "gain") and (e.amount.fixed or 0) < 1:
                bad(".amount", "must be at least 1")
    return effects


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

    problems: list[Problem] = []
    light = doc["light_string"]
    positions = light["positions"]
    if not isinstance(positions, list) or not positions:
        raise _fail(source, "light_string.positions", "must be a non-empty list")
    light_length = len(positions)
    lit_bonus = _int(light["lit_bonus"], source, "light_string.lit_bonus", 0)
    light_lights = []
    light_effects: dict[int, tuple[Effect, ...]] = {}
    for k, pos in enumerate(positions):
        field = f"light_string.positions[{k}]"
        light_lights.append(_ints(pos["lights"], source, field + ".lights", 1, launchpad - 1))
        if "effects" in pos:
            effects = _effects(pos["effects"], "light_string", source,
                               f"$.{field}.effects", problems)
            if effects:
                light_effects[k + 1] = effects
    lights = tuple(sorted(light_effects))

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
    rewards: dict[str, tuple[Effect, ...]] = {}
    reward_names: dict[str, str] = {}
    reward_choice: dict[str, str] = {}
    for node, reward in burrow["rewards"].items():
        if node.startswith("_"):
            continue
        if node not in edges:
            raise _fail(source, f"burrow.rewards.{node}", "reward on an unknown burrow node")
        if not isinstance(reward, dict) or "effects" not in reward:
            raise _fail(source, f"burrow.rewards.{node}",
                        "must be an object {'name': ..., 'effects': [...]}")
        reward_names[node] = str(reward.get("name", node))
        rewards[node] = _effects(reward["effects"], "burrow", source,
                                 f"$.burrow.rewards.{node}.effects", problems)
        for e in rewards[node]:
            if e.op == "move":
                reward_choice[node] = "nursery" if e.what == "rat" else "library"

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
    item_effects: dict[str, tuple[Effect, ...]] = {}
    caps = tuple(str(c["id"]) for c in doc["bottle_caps"])
    for k, c in enumerate(doc["bottle_caps"]):
        item_effects[caps[k]] = _effects(c["effects"], "bottle_caps", source,
                                         f"$.bottle_caps[{k}].effects", problems)
    comics = tuple((str(c["id"]), str(c["name"]), c["super_rat"]) for c in doc["comics"])
    for k, c in enumerate(doc["comics"]):
        if not isinstance(c["super_rat"], bool):
            raise _fail(source, f"comics[{k}].super_rat", "must be true or false")
        item_effects[comics[k][0]] = _effects(c["effects"], "comics", source,
                                              f"$.comics[{k}].effects", problems,
                                              super_rat=c["super_rat"])
    raise_problems(problems)
    ids = [b[0] for b in backpacks] + list(caps) + [c[0] for c in comics]
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
        light_length=light_length, construction_lights=lights,
        light_lights=tuple(light_lights), light_effects=light_effects, lit_bonus=lit_bonus,
        burrow_start=burrow["start"], burrow_edges=edges, burrow_choices=choices,
        burrow_rewards=rewards, burrow_names=reward_names, burrow_choice=reward_choice,
        track_values=values, neutral_markers=neutral,
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
        item_effects=item_effects,
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
