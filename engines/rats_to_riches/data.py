"""Rats to Riches component data: the Rat Pack with each card's effects, the Flush card, prices.

The rulebook (Accentuate Games 2019) prints the rules, the setup ($5 and 3 cheese each, one
Flush card each, Scrappy Sewer above Supreme Sewer, 3 Open Sewer cards), the Flush card
(income $2), cheese at $1 and up to 3 a turn, pipes selling for $n², bundles for $25, the Big
Cheese (+$2 income) and the $100 goal. The card list (names beyond the dozen printed ones,
counts, costs) is the stand-in of ``../shared/data/rats_to_riches.json`` (see
``../shared/RULES_GAPS.md``, section Rats to Riches), packaged here as ``rats_to_riches.json``
with every effect written in the shared vocabulary (section Effects). Load another file with
``load_game("rats_to_riches", data_path=...)``; :func:`json_schema` is its JSON Schema.

Card types
----------
Entries of one deck that are identical in every rule field (name, colour, cost and effect)
are merged into one *card type*; the type keeps its count. The back of a card (its deck) is a
rule field too, because the backs of the Rat Pack show through (RR-9): identical cards of the
two decks (Bonus Bonanza, Sabotage, Snatch, ...) are two types, so every copy keeps its back
after a reshuffle (RR-6). Types are numbered in order of first appearance (Scrappy Sewer, then
Supreme Sewer). Each type has a unique ``key``: its name, or ``"<name> (<deck>)"`` when two
types share a name (the Scrappy Pipe costs 2 blue cheese, the Supreme one 3; the two Bonus
Bonanza types differ only by their backs). The Flush card is not a Rat Pack type; rules give it
the id ``len(card_types)`` where a card id may name it (Sabotage, Mutual Destruction, the
Cesspit and a reshuffled Rat Pack, an Open Sewer slot).

The Flush card
--------------
The rulebook prints its income ($2), its text and "The Flush Card (cost 2)"; the box holds one
per rat of the largest game (``players.max``, 5). Spares start in the Cesspit ("Building The
Sewer > Cards"), so a reshuffled Cesspit (RR-6) can bring a Flush card into the Open Sewer,
where it is bought like any card. The rulebook does not say what the "2" is paid in; the
Flush card has no cheese colour, so (like the colourless Grey cards, "$5, not Cheese") it is
paid in Swindle: :data:`FLUSH_COST` = $2 (a judgement call, not a RULES_GAPS ruling). A data
file may set ``flush_card.cost`` (a cost object like a card's) and ``flush_card.count``.

Effects
-------
Each card lists its ``effects`` in the shared vocabulary of :mod:`engines.effects`
(``RR_VOCABULARY`` names the resources, triggers, zones and quantities of this game); the
engines (both backends) interpret them, so no card has its own code path. ``text`` is the
printed card text (shown by the renderer). What the Rats to Riches engines support of the
vocabulary is checked at load (``_check_supported``), with one message per problem naming
the file and the JSON path; see ``docs/components.md`` for a worked example.

Triggers: ``use`` (an active card: used in Step 2, then dumped to the Cesspit), ``reveal``
(an event, RR-4: resolves when revealed, for all rats), ``income`` (Step 1, and again when a
``trigger income`` effect repeats it), ``passive`` (while the card lies in front of its owner:
``modify cheese_per_turn`` / ``modify pipes_sold``, ``redirect`` a cheese colour = a career,
RR-7).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dc_field
from functools import lru_cache
from typing import Any

from ..api import read_component_json
from ..effects import Effect, Problem, Vocabulary, raise_problems, validate_effects

#: Cheese colours, in id order (rulebook "Cheese": Green, Blue and Red).
COLOURS = ("green", "blue", "red")
GREEN, BLUE, RED = range(3)
#: Card colours (rulebook "Types of Cards").
CARD_COLOURS = ("green", "blue", "red", "purple", "yellow", "grey")
#: The Flush card's printed cost, "The Flush Card (cost 2)" (rulebook "Types of Cards"), read
#: as $2 (see the module docstring); ``flush_card.cost`` in a data file overrides it.
FLUSH_COST: dict[str, int] = {"cash": 2}
#: The kinds of card back (RR-9): the two decks, then the Flush card's own back.
BACKS = ("Scrappy Sewer", "Supreme Sewer", "Flush")
FLUSH_BACK = 2

#: The names Rats to Riches effects may use (see :mod:`engines.effects`).
RR_VOCABULARY = Vocabulary(
    game="rats_to_riches",
    resources=("cash",) + COLOURS,
    groups={"cheese": COLOURS},
    countables=("cards", "pipes", "pipes_sold"),
    zones=("tableau", "cesspit"),
    components=("card",),
    triggers=("use", "reveal", "income", "passive"),
    quantities=("cheese_per_turn", "pipes_sold"),
    events=("income",),
    attributes={"colour": CARD_COLOURS},
    ops=("gain", "pay", "steal", "move", "modify", "redirect", "trigger"),
)


@dataclass(frozen=True)
class CardType:
    """One kind of Rat Pack card (identical copies share a type).

    Attributes:
        id: index in ``RatsToRichesData.card_types``.
        key: unique label (the name, plus the deck when names clash).
        name: the printed name.
        colour: one of :data:`CARD_COLOURS`.
        cost_cheese: cheese paid to buy it, per colour (``COLOURS`` order); zeros if none.
        cost_cash: $ paid to buy it (Grey cards: $5).
        pipes: pipes it counts as when sold (Blue cards), else 0.
        effects: its effects (:class:`engines.effects.Effect`, in order).
        text: the card text.
        counts: copies per deck, ``(scrappy, supreme)``: one of them is 0 (a type belongs
            to one deck, RR-9).
    """

    id: int
    key: str
    name: str
    colour: str
    cost_cheese: tuple[int, int, int]
    cost_cash: int
    pipes: int
    effects: tuple[Effect, ...]
    text: str
    counts: tuple[int, int]

    @property
    def back(self) -> int:
        """Its back (RR-9): an index into :data:`BACKS` (0 Scrappy Sewer, 1 Supreme Sewer)."""
        return 0 if self.counts[0] else 1

    @property
    def total(self) -> int:
        """Copies of this type in the game."""
        return sum(self.counts)

    def on(self, trigger: str) -> tuple[Effect, ...]:
        """Its effects with ``when == trigger``, in order."""
        return tuple(e for e in self.effects if e.when == trigger)

    @property
    def is_event(self) -> bool:
        """A Yellow card: it has ``reveal`` effects (RR-4)."""
        return bool(self.on("reveal"))

    @property
    def usable(self) -> bool:
        """An active card: it has ``use`` effects."""
        return bool(self.on("use"))

    @property
    def income(self) -> int:
        """$ of its fixed-amount ``income`` gains (for displays and heuristics)."""
        return sum(e.amount.fixed or 0 for e in self.on("income"))


@dataclass(frozen=True)
class RatsToRichesData:
    """Validated component data (see the module docstring).

    Attributes:
        card_types: all Rat Pack card types, ids in order.
        decks: the deck names, top deck first (``("Scrappy Sewer", "Supreme Sewer")``).
        min_players, max_players: seat range (2–5).
        flush_count: Flush cards in the game (default ``max_players``: one per rat).
        flush_cost_cheese, flush_cost_cash: the Flush card's cost when bought from the Open
            Sewer (default :data:`FLUSH_COST`, $2).
        win_cash: Swindle that wins (RR-1): 100.
        start_cash, start_cheese: each rat's starting $ and cheese (5, 3).
        open_sewer_slots: cards face up in the Open Sewer (3).
        flush_income: the Flush card's income ($2).
        big_cheese_income: the Golden Rat's income ($2).
        cheese_price: $ per cheese in step 3 (1).
        cheese_per_turn: cheese a rat may buy in step 3 (3).
        max_rounds: rounds before the safety valve (RR-6): 60.
        source: where the data came from.
    """

    card_types: tuple[CardType, ...]
    decks: tuple[str, str]
    min_players: int
    max_players: int
    win_cash: int
    start_cash: int
    start_cheese: int
    open_sewer_slots: int
    flush_income: int
    flush_count: int
    flush_cost_cheese: tuple[int, int, int]
    flush_cost_cash: int
    big_cheese_income: int
    cheese_price: int
    cheese_per_turn: int
    max_rounds: int
    source: str
    #: What the rules derive from this data alone, per player count, built once and shared
    #: read-only by every game using them (``rules.compiled_layout``).
    _derived: dict = dc_field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def total_cards(self) -> int:
        """Rat Pack cards in the game (80 with the stand-in data)."""
        return sum(t.total for t in self.card_types)

    def key_to_id(self) -> dict[str, int]:
        """``{card key: type id}``."""
        return {t.key: t.id for t in self.card_types}


class _Doc:
    """Collects every problem of one document (file, JSON path, what is allowed)."""

    def __init__(self, source: str):
        self.source = source
        self.problems: list[Problem] = []

    def bad(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.source, path, message))

    def get(self, obj: Any, key: str, path: str) -> Any:
        if not isinstance(obj, dict):
            return None
        if key not in obj:
            self.bad(f"{path}.{key}", "missing")
            return None
        return obj[key]

    def int(self, raw: Any, path: str, lo: int = 0, default: int = 0) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < lo:
            if raw is not None or path not in {p.path for p in self.problems}:
                self.bad(path, f"must be an integer >= {lo}, got {raw!r}")
            return default
        return raw

    def counts(self, raw: Any, keys: tuple[str, ...], path: str) -> dict[str, int]:
        if not isinstance(raw, dict) or not raw:
            self.bad(path, f"must be a non-empty object with keys from {', '.join(keys)}")
            return {}
        out = {}
        for k, v in raw.items():
            if k not in keys:
                self.bad(f"{path}.{k}", f"unknown key; allowed: {', '.join(keys)}")
            else:
                out[k] = self.int(v, f"{path}.{k}", 1)
        return out


_CARD_FIELDS = ("name", "colour", "cost", "count", "text", "pipes", "effects")


def _parse_card(doc: _Doc, raw: Any, path: str) -> tuple[tuple, int] | None:
    """One deck entry -> (rule-field tuple, count), or ``None`` after recording problems."""
    if not isinstance(raw, dict):
        doc.bad(path, "a card must be an object")
        return None
    n0 = len(doc.problems)
    for k in raw:
        if k not in _CARD_FIELDS:
            doc.bad(f"{path}.{k}", f"unknown field; a card has: {', '.join(_CARD_FIELDS)}")
    name = doc.get(raw, "name", path)
    colour = doc.get(raw, "colour", path)
    count = doc.int(doc.get(raw, "count", path), f"{path}.count", 1)
    if name is not None and (not isinstance(name, str) or not name or name == "Flush"):
        doc.bad(f"{path}.name", "must be a non-empty string other than 'Flush'")
    if colour is not None and colour not in CARD_COLOURS:
        doc.bad(f"{path}.colour", f"colour {colour!r} is not allowed; allowed: "
                f"{', '.join(CARD_COLOURS)}")
    cost = raw.get("cost")
    cheese, cash = (0, 0, 0), 0
    if colour == "yellow":
        if cost is not None:
            doc.bad(f"{path}.cost", "a Yellow (event) card has no cost (null)")
    else:
        c = doc.counts(cost, COLOURS + ("cash",), f"{path}.cost")
        cheese = tuple(c.get(k, 0) for k in COLOURS)
        cash = c.get("cash", 0)
    pipes = 0
    if "pipes" in raw:
        pipes = doc.int(raw["pipes"], f"{path}.pipes", 1)
        if colour != "blue":
            doc.bad(f"{path}.pipes", "only Blue cards (Pipes) count pipes")
    elif colour == "blue":
        doc.bad(f"{path}.pipes", "missing: a Blue card (a Pipe) needs 'pipes' >= 1")
    effects, problems = validate_effects(raw.get("effects", []), RR_VOCABULARY, doc.source,
                                         f"{path}.effects")
    doc.problems += problems
    if not problems:
        _check_supported(doc, effects, colour, f"{path}.effects")
    if len(doc.problems) > n0:
        return None
    return (name, colour, cheese, cash, pipes, effects, str(raw.get("text", ""))), count


def _check_supported(doc: _Doc, effects: tuple[Effect, ...], colour: Any, path: str) -> None:
    """What the Rats to Riches engines interpret of the vocabulary (one problem per effect).

    Rules (the positions are the effect indices):
      * ``reveal`` effects only on Yellow cards, and a Yellow card needs one; they are
        ``gain`` / ``pay`` of cash or one cheese colour (a ``pay`` of other rats with
        ``up_to``), or a ``pay`` of ``cheese`` chosen by each ``subject``.
      * ``income``: ``gain`` of ``cash`` by ``self``.
      * ``passive``: ``modify`` (``cheese_per_turn``: ``add``/``at_least``/``at_most``;
        ``pipes_sold``: ``add``, optionally ``if`` on ``pipes_sold``) or ``redirect`` of one
        cheese colour (a career, RR-7).
      * ``use``: ``gain``, ``pay`` (by ``self``), ``steal``, ``move`` of cards from a
        ``tableau`` to the ``cesspit`` or to the user's tableau, ``trigger income``; at most one
        choice made with the action (a ``cheese`` gain or steal with a fixed amount, or one card
        of another rat chosen by ``self``); all chosen players are ``target`` or all ``any``.
    """
    def bad(i: int, message: str) -> None:
        doc.bad(f"{path}[{i}]", message)

    ev = [i for i, e in enumerate(effects) if e.when == "reveal"]
    if colour == "yellow" and not ev:
        doc.bad(path, "a Yellow (event) card needs at least one effect with when 'reveal'")
    choices, targets, gain_choice = 0, set(), False
    for i, e in enumerate(effects):
        group = e.resource == "cheese"
        if e.when == "reveal":
            if colour != "yellow":
                bad(i, "only a Yellow (event) card has 'reveal' effects")
            elif e.op not in ("gain", "pay") or e.targets:
                bad(i, "a 'reveal' effect is a 'gain' or 'pay' for self/all/others")
            elif e.to:
                bad(i, "a 'pay' to a player is not supported; it goes to the Slush Fund")
            elif group and (e.op != "pay" or e.chooser != "subject"):
                bad(i, "cheese of the rat's choice on a reveal: a 'pay' with chooser 'subject'")
            elif e.op == "pay" and not group and not e.up_to:
                bad(i, "a 'pay' on a reveal needs 'up_to': true (a rat pays what it has)")
        elif e.when == "income":
            if e.op != "gain" or e.resource != "cash" or e.who != "self" or e.condition:
                bad(i, "an 'income' effect is a 'gain' of 'cash' by 'self' (no 'if')")
        elif e.when == "passive":
            if e.op == "redirect":
                if e.resource not in COLOURS:
                    bad(i, f"a 'redirect' (career) names one cheese colour: {', '.join(COLOURS)}")
            elif e.op != "modify":
                bad(i, "a 'passive' effect is a 'modify' or a 'redirect'")
            elif e.quantity == "pipes_sold" and (e.at_least is not None or e.at_most is not None
                                                 or (e.condition and e.condition.count.of
                                                     != "pipes_sold")):
                bad(i, "'modify pipes_sold' takes 'add' and an optional 'if' on 'pipes_sold'")
            elif e.quantity == "cheese_per_turn" and e.condition:
                bad(i, "'modify cheese_per_turn' takes no 'if'")
        else:  # use
            if colour == "yellow":
                bad(i, "a Yellow (event) card is never used; its effects are 'reveal'")
                continue
            sel = {"target", "any"} & {e.who, e.source, e.whose, e.to_whose, e.chooser}
            targets |= sel
            if e.op == "trigger":
                if e.who != "self":
                    bad(i, "'trigger income' repeats the user's own income ('who': 'self')")
            elif e.op in ("gain", "pay"):
                if e.to:
                    bad(i, "a 'pay' to a player is not supported; it goes to the Slush Fund")
                if e.op == "pay" and (e.who != "self" or group):
                    bad(i, "a 'pay' on use is paid by 'self' in cash or one cheese colour")
                if group:
                    choices += 1
                    gain_choice = gain_choice or e.op == "gain"
                    if e.who != "self" or e.chooser not in ("", "self") or e.amount.fixed is None:
                        bad(i, "cheese of the user's choice: 'who' and 'chooser' 'self', "
                            "a fixed amount")
            elif e.op == "steal":
                if e.who != "self" or e.source not in ("target", "any"):
                    bad(i, "a 'steal' takes for 'self' from 'target' (or 'any')")
                if group:
                    choices += 1
                    if e.chooser not in ("", "self") or e.amount.fixed is None:
                        bad(i, "a cheese steal: 'chooser' 'self' and a fixed amount")
            elif e.op == "move":
                if e.source != "tableau" or e.to not in ("cesspit", "tableau"):
                    bad(i, "a 'move' of cards goes from a 'tableau' to the 'cesspit' or to "
                        "the tableau of 'self'")
                if e.to == "tableau" and e.to_whose not in ("self",):
                    bad(i, "a card moved to a tableau goes to 'to_whose': 'self'")
                by_action = e.chooser == "self" and e.whose != "self"
                if by_action:
                    choices += 1
                    if e.amount.fixed != 1:
                        bad(i, "a card the user picks from another rat: 'amount' 1")
                elif e.chooser not in ("", e.whose):
                    bad(i, "a rat's own cards are picked by that rat ('chooser' = 'whose')")
                if not e.up_to and e.whose != "self" and not by_action:
                    bad(i, "a 'move' from another rat's tableau needs 'up_to': true")
                if e.to == "tableau" and not by_action:
                    bad(i, "a card moved to the user's tableau is picked by the user")
            elif e.op in ("modify", "redirect"):
                bad(i, f"a {e.op!r} needs 'when': 'passive' (it lasts while the card lies in "
                    "front of its owner)")
            else:
                bad(i, f"the op {e.op!r} is not used on a Rats to Riches card; on 'use': "
                    "gain, pay, steal, move, trigger")
            if e.condition is not None:
                bad(i, "an 'if' on a 'use' effect is not supported")
    if choices > 1:
        doc.bad(path, "at most one choice is made with the action (a cheese gain or steal, "
                "or a card of another rat)")
    if len(targets) > 1:
        doc.bad(path, "all chosen players of a card are 'target' or all are 'any'")
    if gain_choice and targets:
        doc.bad(path, "cheese of the user's choice from the Cheese Bank cannot be combined "
                "with a chosen rat on one card")


def parse(raw: Any, source: str = "<data>") -> RatsToRichesData:
    """Validate a rats_to_riches.json document.

    Raises:
        engines.effects.EffectError: (a ``ValueError``) listing every problem, each naming
            the file, the JSON path (``$.scrappy_sewer[4].effects[0].op``) and what is
            allowed.
    """
    doc = _Doc(source)
    if not isinstance(raw, dict):
        doc.bad("$", "must be a JSON object")
        raise_problems(doc.problems)
    decks = ("Scrappy Sewer", "Supreme Sewer")
    merged: dict[tuple, list[int]] = {}
    for d, field in enumerate(("scrappy_sewer", "supreme_sewer")):
        entries = doc.get(raw, field, "$")
        if entries is None:
            continue
        if not isinstance(entries, list) or not entries:
            doc.bad(f"$.{field}", "must be a non-empty list of cards")
            continue
        for i, card in enumerate(entries):
            parsed = _parse_card(doc, card, f"$.{field}[{i}]")
            if parsed is not None:
                rule, count = parsed
                # RR-9: the deck (the card's back) is a rule field: one type per deck
                merged.setdefault((rule, d), [0, 0])[d] += count
    names = [rule[0] for rule, _d in merged]
    types = []
    used_keys: set[str] = set()
    for i, ((rule, _d), counts) in enumerate(merged.items()):
        name = rule[0]
        key = name
        if names.count(name) > 1:
            key = f"{name} ({decks[0] if counts[0] else decks[1]})"
        while key in used_keys or key == "Flush":
            key = f"{key} #{i}"
        used_keys.add(key)
        types.append(CardType(i, key, *rule, counts=(counts[0], counts[1])))
    players = doc.get(raw, "players", "$")
    start = doc.get(raw, "start", "$")
    flush = doc.get(raw, "flush_card", "$")
    for obj, name in ((players, "players"), (start, "start"), (flush, "flush_card")):
        if obj is not None and not isinstance(obj, dict):
            doc.bad(f"$.{name}", "must be an object")
    if "effect_amounts" in raw:
        doc.bad("$.effect_amounts", "no longer read: the amounts are in each card's 'effects'")
    if "bundle_payout" in raw:
        doc.bad("$.bundle_payout", "no longer read: a bundle's payout is a 'gain' in its "
                "'effects'")
    max_players = doc.int(doc.get(players, "max", "$.players"), "$.players.max", 2, 5)
    flush = flush if isinstance(flush, dict) else {}
    flush_count = doc.int(flush.get("count", max_players), "$.flush_card.count", max_players,
                          max_players)
    flush_cost = doc.counts(flush.get("cost", FLUSH_COST), COLOURS + ("cash",),
                            "$.flush_card.cost")

    def num(obj: Any, key: str, path: str, lo: int = 0, default: int = 0) -> int:
        return doc.int(doc.get(obj, key, path), f"{path}.{key}", lo, default)

    data = RatsToRichesData(
        card_types=tuple(types),
        decks=decks,
        min_players=num(players, "min", "$.players", 2, 2),
        max_players=max_players,
        win_cash=num(raw, "win_cash", "$", 1, 1),
        start_cash=num(start, "cash", "$.start"),
        start_cheese=num(start, "cheese", "$.start"),
        open_sewer_slots=num(start, "open_sewer_slots", "$.start", 1, 1),
        flush_income=num(flush, "income", "$.flush_card") if flush else 0,
        flush_count=flush_count,
        flush_cost_cheese=tuple(flush_cost.get(k, 0) for k in COLOURS),
        flush_cost_cash=flush_cost.get("cash", 0),
        big_cheese_income=num(raw, "big_cheese_income", "$"),
        cheese_price=num(raw, "cheese_price", "$"),
        cheese_per_turn=num(raw, "cheese_per_turn", "$"),
        max_rounds=num(raw, "max_rounds_safety", "$", 1, 1),
        source=source,
    )
    if data.min_players > data.max_players:
        doc.bad("$.players", "min must not exceed max")
    if types and not any(not t.is_event for t in data.card_types):
        doc.bad("$.scrappy_sewer", "the Rat Pack needs at least one non-event card")
    raise_problems(doc.problems)
    return data


@lru_cache(maxsize=8)
def load(path: str | None = None) -> RatsToRichesData:
    """The packaged data (``path=None``) or the JSON file at ``path``, validated and cached.

    Raises:
        ValueError: the file is missing, not JSON, or fails validation (every problem).
    """
    doc, source = read_component_json(__package__, "rats_to_riches.json", path)
    return parse(doc, source)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a ``rats_to_riches.json`` data file: the shapes of
    the top-level fields and cards, with each card's ``effects`` in the shared vocabulary
    (:func:`engines.effects.json_schema` over :data:`RR_VOCABULARY`). :func:`parse` checks
    the same and more (what the engines support), with one message per problem.
    """
    from ..effects import json_schema as effects_schema

    eff = effects_schema(RR_VOCABULARY)
    nat = {"type": "integer", "minimum": 0}
    cost = {"type": "object", "minProperties": 1, "additionalProperties": False,
            "properties": {k: {"type": "integer", "minimum": 1} for k in COLOURS + ("cash",)}}
    card = {
        "type": "object", "additionalProperties": False,
        "required": ["name", "colour", "count"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "not": {"const": "Flush"}},
            "colour": {"enum": list(CARD_COLOURS)},
            "cost": {"oneOf": [cost, {"type": "null"}]},
            "count": {"type": "integer", "minimum": 1},
            "text": {"type": "string"},
            "pipes": {"type": "integer", "minimum": 1},
            "effects": {"type": "array", "items": {"$ref": "#/$defs/effect"}},
        },
    }
    deck = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/card"}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://ratai.invalid/schemas/rats_to_riches",
        "title": "Rats to Riches component data (ratai)",
        "type": "object",
        "required": ["players", "win_cash", "start", "flush_card", "big_cheese_income",
                     "cheese_price", "cheese_per_turn", "scrappy_sewer", "supreme_sewer",
                     "max_rounds_safety"],
        "properties": {
            "players": {"type": "object", "required": ["min", "max"],
                        "properties": {"min": {"type": "integer", "minimum": 2},
                                       "max": {"type": "integer", "minimum": 2,
                                               "maximum": 5}}},
            "win_cash": {"type": "integer", "minimum": 1},
            "start": {"type": "object", "required": ["cash", "cheese", "open_sewer_slots"],
                      "properties": {"cash": nat, "cheese": nat,
                                     "open_sewer_slots": {"type": "integer", "minimum": 1}}},
            "flush_card": {"type": "object", "required": ["income"],
                           "properties": {"income": nat, "cost": cost,
                                          "count": {"type": "integer", "minimum": 2}}},
            "big_cheese_income": nat, "cheese_price": nat, "cheese_per_turn": nat,
            "max_rounds_safety": {"type": "integer", "minimum": 1},
            "scrappy_sewer": deck, "supreme_sewer": deck,
        },
        "$defs": {**eff["$defs"], "card": card},
    }
