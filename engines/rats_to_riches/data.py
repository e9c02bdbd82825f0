"""Rats to Riches component data: the Rat Pack, the Flush card, prices and effect amounts.

The rulebook (Accentuate Games 2019) prints the rules, the setup ($5 and 3 cheese each, one
Flush card each, Scrappy Sewer above Supreme Sewer, 3 Open Sewer cards), the Flush card
(income $2), cheese at $1 and up to 3 a turn, pipes selling for $n², bundles for $25, the Big
Cheese (+$2 income) and the $100 goal. The card list (names beyond the dozen printed ones,
counts, costs) is the stand-in of ``../shared/data/rats_to_riches.json`` (see
``../shared/RULES_GAPS.md``, section Rats to Riches), packaged here as ``rats_to_riches.json``.
Load another file with ``load_game("rats_to_riches", data_path=...)``.

Card types
----------
Entries of the two decks that are identical in every rule field (name, colour, cost and
effect) are merged into one *card type*; the type keeps per-deck counts. Types are numbered in
order of first appearance (Scrappy Sewer, then Supreme Sewer). Each type has a unique ``key``:
its name, or ``"<name> (<deck>)"`` when two different types share a name (the Scrappy Pipe
costs 2 blue cheese, the Supreme one 3). The Flush card is not a Rat Pack type; rules give it
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

Effect amounts
--------------
The JSON gives each card's effect as text plus a machine field (``income``, ``pipes``,
``action``, ``career``, ``event``, ``bundle``). The numbers inside the action/event/career
texts ("take 2 cheese", "take $5", "up to 5 cheese", ...) are the tables
:data:`ACTION_AMOUNTS`, :data:`EVENT_AMOUNTS` and :data:`CAREER_AMOUNTS` below, read from the
card texts; a data file may override any of them with a top-level ``"effect_amounts"`` object
``{kind: {amount: value}}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..api import read_component_json

#: Cheese colours, in id order (rulebook "Cheese": Green, Blue and Red).
COLOURS = ("green", "blue", "red")
GREEN, BLUE, RED = range(3)
#: Card colours (rulebook "Types of Cards").
CARD_COLOURS = ("green", "blue", "red", "purple", "yellow", "grey")

#: Amounts printed in the active-card texts, by ``action`` kind.
ACTION_AMOUNTS: dict[str, dict[str, int]] = {
    "bonus_bonanza": {},                       # collect your income again
    "snatch": {"cheese": 2},                   # take 2 cheese from any rat
    "sabotage": {"cards": 1},                  # send 1 card from any rat to the Cesspit
    "pickpocket": {"cash": 5},                 # take $5 (or all they have) from any rat
    "cheese_run": {"cheese": 3},               # take 3 cheese from the Cheese Bank
    "hostile_takeover": {"cards": 1},          # take 1 green card from any rat
    "shared_paradise": {"all": 5, "self": 10},  # all rats take $5; you take $10 instead
    "mutual_destruction": {"cards": 2},        # you and it each send 2 own cards
}
#: Amounts printed in the event (Yellow card) texts, by ``event`` kind.
EVENT_AMOUNTS: dict[str, dict[str, int]] = {
    "free_money": {"cash": 5},
    "sewer_flood": {"divisor": 2},             # return half (rounded down)
    "underdog_grant": {"cash": 5},
    "tax_man": {"threshold": 50, "cash": 5},   # more than $50 pays $5
    "cheese_famine": {"per_colour": 1},
}
#: Amounts of the careers (Purple cards) without a cheese colour, by ``career`` kind.
CAREER_AMOUNTS: dict[str, dict[str, int]] = {
    "cheese_baron": {"cheese_limit": 5},       # buy up to 5 cheese in step 3
    "pipe_dream": {"extra_pipes": 1},          # count 1 extra pipe in a sale
}
#: Careers named by a cheese colour: their holder is paid for that colour (RR-7).
COLOUR_CAREERS = COLOURS
#: Bundle requirement keys; ``pipe`` means a Blue card (a Pipe), counted per card.
BUNDLE_KEYS = ("green", "blue", "red", "pipe")
#: The Flush card's printed cost, "The Flush Card (cost 2)" (rulebook "Types of Cards"), read
#: as $2 (see the module docstring); ``flush_card.cost`` in a data file overrides it.
FLUSH_COST: dict[str, int] = {"cash": 2}


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
        income: $ added to the owner's income (passive Green cards), else 0.
        pipes: pipes it counts as when sold (Blue cards), else 0.
        action: active-card kind (a key of :data:`ACTION_AMOUNTS`) or ``""``.
        career: career kind (a cheese colour or a key of :data:`CAREER_AMOUNTS`) or ``""``.
        event: event kind (a key of :data:`EVENT_AMOUNTS`) or ``""``.
        bundle: cards a bundle needs, per colour (``COLOURS`` order); all zero if not a bundle.
        effect: the card text.
        counts: copies per deck, ``(scrappy, supreme)``.
    """

    id: int
    key: str
    name: str
    colour: str
    cost_cheese: tuple[int, int, int]
    cost_cash: int
    income: int
    pipes: int
    action: str
    career: str
    event: str
    bundle: tuple[int, int, int]
    effect: str
    counts: tuple[int, int]

    @property
    def total(self) -> int:
        """Copies of this type in the game."""
        return sum(self.counts)

    @property
    def is_bundle(self) -> bool:
        return any(self.bundle)


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
        bundle_payout: $ for dumping a bundle (25).
        max_rounds: rounds before the safety valve (RR-6): 60.
        action_amounts, event_amounts, career_amounts: effect amounts by kind.
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
    bundle_payout: int
    max_rounds: int
    action_amounts: dict[str, dict[str, int]]
    event_amounts: dict[str, dict[str, int]]
    career_amounts: dict[str, dict[str, int]]
    source: str

    @property
    def total_cards(self) -> int:
        """Rat Pack cards in the game (80 with the stand-in data)."""
        return sum(t.total for t in self.card_types)

    def key_to_id(self) -> dict[str, int]:
        """``{card key: type id}``."""
        return {t.key: t.id for t in self.card_types}


def _fail(source: str, field: str, problem: str) -> ValueError:
    return ValueError(f"{source}: field {field!r}: {problem}")


def _int(raw: object, source: str, field: str, lo: int = 0) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < lo:
        raise _fail(source, field, f"must be an integer >= {lo}, got {raw!r}")
    return raw


def _colour_counts(raw: object, keys: tuple[str, ...], source: str, field: str) -> dict:
    if not isinstance(raw, dict) or not raw or any(k not in keys for k in raw):
        raise _fail(source, field, f"must be a non-empty object with keys from {keys}")
    return {k: _int(v, source, f"{field}.{k}", 1) for k, v in raw.items()}


def _parse_card(raw: dict, source: str, field: str) -> tuple[tuple, int]:
    """One deck entry -> (rule-field tuple, count)."""
    if not isinstance(raw, dict):
        raise _fail(source, field, "must be an object")
    try:
        name = raw["name"]
        colour = raw["colour"]
        count = _int(raw["count"], source, f"{field}.count", 1)
    except KeyError as exc:
        raise _fail(source, f"{field}.{exc.args[0]}", "missing") from None
    if not isinstance(name, str) or not name or name == "Flush":
        raise _fail(source, f"{field}.name", "must be a non-empty string other than 'Flush'")
    if colour not in CARD_COLOURS:
        raise _fail(source, f"{field}.colour", f"must be one of {CARD_COLOURS}, got {colour!r}")
    cost = raw.get("cost")
    cheese, cash = (0, 0, 0), 0
    if colour == "yellow":
        if cost is not None:
            raise _fail(source, f"{field}.cost", "a Yellow (event) card has no cost (null)")
    else:
        c = _colour_counts(cost, COLOURS + ("cash",), source, f"{field}.cost")
        cheese = tuple(c.get(k, 0) for k in COLOURS)
        cash = c.get("cash", 0)
    income = pipes = 0
    action = career = event = ""
    bundle = (0, 0, 0)
    if colour == "green":
        if "income" in raw:
            income = _int(raw["income"], source, f"{field}.income", 1)
        elif raw.get("action") == "bonus_bonanza":
            action = "bonus_bonanza"
        else:
            raise _fail(source, field, "a Green card needs 'income' or action 'bonus_bonanza'")
    elif colour == "blue":
        pipes = _int(raw.get("pipes"), source, f"{field}.pipes", 1)
    elif colour == "red":
        action = raw.get("action")
        if action not in ACTION_AMOUNTS or action == "bonus_bonanza":
            raise _fail(source, f"{field}.action",
                        f"must be one of {sorted(set(ACTION_AMOUNTS) - {'bonus_bonanza'})}")
    elif colour == "purple":
        career = raw.get("career")
        if career not in COLOUR_CAREERS + tuple(CAREER_AMOUNTS):
            raise _fail(source, f"{field}.career",
                        f"must be one of {COLOUR_CAREERS + tuple(CAREER_AMOUNTS)}")
    elif colour == "yellow":
        event = raw.get("event")
        if event not in EVENT_AMOUNTS:
            raise _fail(source, f"{field}.event", f"must be one of {tuple(EVENT_AMOUNTS)}")
    else:  # grey
        b = _colour_counts(raw.get("bundle"), BUNDLE_KEYS, source, f"{field}.bundle")
        bundle = (b.get("green", 0), b.get("blue", 0) + b.get("pipe", 0), b.get("red", 0))
    effect = str(raw.get("effect", ""))
    return (name, colour, cheese, cash, income, pipes, action, career, event, bundle,
            effect), count


def _amounts(doc: dict, source: str) -> tuple[dict, dict, dict]:
    over = doc.get("effect_amounts", {})
    if not isinstance(over, dict):
        raise _fail(source, "effect_amounts", "must be an object {kind: {amount: value}}")
    tables = []
    for table in (ACTION_AMOUNTS, EVENT_AMOUNTS, CAREER_AMOUNTS):
        merged = {}
        for kind, amounts in table.items():
            new = dict(amounts)
            given = over.get(kind, {})
            for k, v in given.items():
                if k not in amounts:
                    raise _fail(source, f"effect_amounts.{kind}.{k}",
                                f"unknown amount; known: {sorted(amounts)}")
                new[k] = _int(v, source, f"effect_amounts.{kind}.{k}")
            merged[kind] = new
        tables.append(merged)
    known = set(ACTION_AMOUNTS) | set(EVENT_AMOUNTS) | set(CAREER_AMOUNTS)
    for kind in over:
        if kind not in known:
            raise _fail(source, f"effect_amounts.{kind}", f"unknown kind; known: {sorted(known)}")
    return tables[0], tables[1], tables[2]


def parse(doc: dict, source: str = "<data>") -> RatsToRichesData:
    """Validate a rats_to_riches.json document.

    Raises:
        ValueError: naming the file and the field that is missing or wrong.
    """
    if not isinstance(doc, dict):
        raise _fail(source, "<root>", "must be a JSON object")
    try:
        decks = ("Scrappy Sewer", "Supreme Sewer")
        merged: dict[tuple, list[int]] = {}
        for d, field in enumerate(("scrappy_sewer", "supreme_sewer")):
            entries = doc[field]
            if not isinstance(entries, list) or not entries:
                raise _fail(source, field, "must be a non-empty list of cards")
            for i, raw in enumerate(entries):
                rule, count = _parse_card(raw, source, f"{field}[{i}]")
                merged.setdefault(rule, [0, 0])[d] += count
        names = [rule[0] for rule in merged]
        types = []
        used_keys: set[str] = set()
        for i, (rule, counts) in enumerate(merged.items()):
            name = rule[0]
            key = name
            if names.count(name) > 1:
                key = f"{name} ({decks[0] if counts[0] else decks[1]})"
            while key in used_keys or key == "Flush":
                key = f"{key} #{i}"
            used_keys.add(key)
            types.append(CardType(i, key, *rule, counts=(counts[0], counts[1])))
        players = doc["players"]
        start = doc["start"]
        flush = doc["flush_card"]
        if not isinstance(flush, dict):
            raise _fail(source, "flush_card", "must be an object")
        actions, events, careers = _amounts(doc, source)
        max_players = _int(players["max"], source, "players.max", 2)
        flush_count = _int(flush.get("count", max_players), source, "flush_card.count",
                           max_players)
        flush_cost = _colour_counts(flush.get("cost", FLUSH_COST), COLOURS + ("cash",),
                                    source, "flush_card.cost")
        data = RatsToRichesData(
            card_types=tuple(types),
            decks=decks,
            min_players=_int(players["min"], source, "players.min", 2),
            max_players=max_players,
            win_cash=_int(doc["win_cash"], source, "win_cash", 1),
            start_cash=_int(start["cash"], source, "start.cash"),
            start_cheese=_int(start["cheese"], source, "start.cheese"),
            open_sewer_slots=_int(start["open_sewer_slots"], source, "start.open_sewer_slots", 1),
            flush_income=_int(flush["income"], source, "flush_card.income"),
            flush_count=flush_count,
            flush_cost_cheese=tuple(flush_cost.get(k, 0) for k in COLOURS),
            flush_cost_cash=flush_cost.get("cash", 0),
            big_cheese_income=_int(doc["big_cheese_income"], source, "big_cheese_income"),
            cheese_price=_int(doc["cheese_price"], source, "cheese_price"),
            cheese_per_turn=_int(doc["cheese_per_turn"], source, "cheese_per_turn"),
            bundle_payout=_int(doc["bundle_payout"], source, "bundle_payout"),
            max_rounds=_int(doc["max_rounds_safety"], source, "max_rounds_safety", 1),
            action_amounts=actions,
            event_amounts=events,
            career_amounts=careers,
            source=source,
        )
    except KeyError as exc:
        raise _fail(source, str(exc.args[0]), "missing") from None
    except TypeError as exc:
        raise _fail(source, "<structure>", f"wrong type: {exc}") from None
    if data.min_players > data.max_players:
        raise _fail(source, "players", "min must not exceed max")
    if not any(t.colour != "yellow" for t in data.card_types):
        raise _fail(source, "scrappy_sewer", "the Rat Pack needs at least one non-event card")
    return data


@lru_cache(maxsize=8)
def load(path: str | None = None) -> RatsToRichesData:
    """The packaged data (``path=None``) or the JSON file at ``path``, validated and cached.

    Raises:
        ValueError: the file is missing, not JSON, or fails validation.
    """
    doc, source = read_component_json(__package__, "rats_to_riches.json", path)
    return parse(doc, source)
