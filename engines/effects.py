"""A shared vocabulary of component effects: what a card, tile or space *does*, written as data.

Owners of the physical games enter their real components (cards, comics, bottle caps, burrow
rewards) in the games' JSON files; this module is the one language those files use for
effects, so no component keeps its own code path. A game declares which names it knows (a
:class:`Vocabulary`: its resources, countable things, zones, triggers, quantities and filter
attributes); :func:`parse_effects` checks a JSON list of effects against it and returns frozen
:class:`Effect` records that the game's rule engines (the pure-Python reference and the Cython
twin) interpret. :func:`json_schema` gives the same vocabulary as a JSON Schema (draft 2020-12)
for editors and other tools.

An effect (a JSON object)
-------------------------
``op`` is one of :data:`OPS`:

``gain``      ``who`` takes ``amount`` of ``resource`` from the supply. ``resource`` may be a
              *group* of the vocabulary (e.g. ``"cheese"``); then ``chooser`` picks the split.
``pay``       ``who`` returns ``amount`` of ``resource`` to the supply (``to``: a player
              selector instead). With ``"up_to": true`` a player with less pays what it has;
              otherwise the effect needs the full amount. A group resource is split by
              ``chooser`` (default: the payer).
``steal``     ``who`` (default ``self``) takes ``amount`` of ``resource`` from ``from`` (default
              ``target``), up to what that player has (``up_to`` defaults to true).
``move``      ``amount`` components of kind ``what`` matching ``filter`` go from the ``from``
              zone of ``whose`` to the ``to`` zone of ``to_whose`` (default: the same player);
              ``chooser`` (default ``whose``) picks which. ``up_to`` as for ``pay``. On a track
              (``what`` a piece, ``amount`` spaces) ``from``/``to`` may be omitted.
``score``     ``who`` scores ``amount`` victory points (``resource`` optional: a named score).
``modify``    while the component is owned, the game quantity ``quantity`` of its owner changes:
              ``add`` (a number), ``at_least`` or ``at_most`` (bounds), each optionally only
              when ``if`` holds.
``redirect``  while owned: what other players pay to the supply for ``resource`` is paid to the
              owner instead, and the owner pays nothing for it.
``trigger``   the game event ``event`` happens again now for ``who`` (e.g. collect income).

Common fields: ``when`` (a trigger of the vocabulary: the named game event on which the effect
happens, e.g. ``"use"``, ``"reveal"``, ``"income"``, ``"passive"``; default the vocabulary's
first trigger), ``if`` (a :class:`Condition`, tested for each concerned player), ``amount``
(an :class:`Amount`, default 1).

Player selectors (``who``, ``from``, ``whose``, ``to_whose``, ``chooser``, ``to``)
    ``self`` the component's owner (or the acting player); ``target`` one other player chosen
    when the effect starts; ``any`` one player chosen, possibly ``self``; ``all`` every player;
    ``others`` every player but ``self``; ``subject`` (``chooser`` only) each concerned player.
    All effects of one component that name ``target`` (or ``any``) mean the same chosen player.
    An effect on several players first decides who is concerned (conditions are read before
    anything changes), then applies to each in turn order from the active player.

Amounts and counts (per-count scoring)
    An amount is an integer, or ``{"count": COUNT, "times": 1, "divide": 1, "plus": 0,
    "max": null}`` = ``min(max, count * times // divide + plus)``. A count is ``{"of": NAME,
    "whose": "subject", "where": {ATTR: VALUE}}``: how many ``NAME`` (a resource, a group or a
    countable thing of the vocabulary) the player has, restricted by ``where`` (attribute
    filters of the vocabulary, e.g. ``{"colour": "green"}``). ``whose`` is ``subject`` (the
    concerned player), ``self`` or ``target``.

Conditions
    ``{"count": COUNT, "cmp": CMP, "value": N}`` with ``CMP`` in :data:`COMPARISONS`;
    ``"most"`` / ``"least"`` (no ``value``) hold for every player tied for the largest /
    smallest count among all players.

Errors
    :func:`validate_effects` returns *every* problem as a :class:`Problem` (source file, JSON
    path such as ``$.scrappy_sewer[3].effects[0].resource``, what is wrong and what is
    allowed); :func:`parse_effects` raises :class:`EffectError` (a ``ValueError``) listing them
    all, one per line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "OPS", "SELECTORS", "COMPARISONS", "Vocabulary", "Count", "Amount", "Condition", "Effect",
    "Problem", "EffectError", "validate_effects", "parse_effects", "json_schema",
    "canonical", "raise_problems",
]

#: Effect operations (see the module docstring).
OPS = ("gain", "pay", "steal", "move", "score", "modify", "redirect", "trigger")
#: Player selectors.
SELECTORS = ("self", "target", "any", "all", "others", "subject")
#: Comparisons of a condition.
COMPARISONS = (">", ">=", "==", "!=", "<=", "<", "most", "least")

_FIELDS: dict[str, tuple[str, ...]] = {
    # op: fields it accepts besides the common ``op``, ``when``, ``if``, ``text``
    "gain": ("resource", "amount", "who", "chooser"),
    "pay": ("resource", "amount", "who", "chooser", "up_to", "to"),
    "steal": ("resource", "amount", "who", "from", "chooser", "up_to"),
    "move": ("what", "filter", "amount", "whose", "from", "to", "to_whose", "chooser",
             "up_to"),
    "score": ("resource", "amount", "who"),
    "modify": ("quantity", "add", "at_least", "at_most"),
    "redirect": ("resource",),
    "trigger": ("event", "who"),
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "gain": ("resource",), "pay": ("resource",), "steal": ("resource",), "move": ("what",),
    "score": (), "modify": ("quantity",), "redirect": ("resource",), "trigger": ("event",),
}
_COMMON = ("op", "when", "if", "text")
_MULTI = ("all", "others")  # selectors naming several players


@dataclass(frozen=True)
class Vocabulary:
    """The names one game's data may use in effects (all tuples of strings).

    Attributes:
        game: the game's name (for messages).
        resources: things a player holds in numbers (``"cash"``, ``"green"``, ...).
        groups: ``{group name: member resources}`` (``{"cheese": ("green", "blue", "red")}``);
            a group may stand wherever a resource may, the chooser picking the split.
        countables: further things a count may count (``"cards"``, ``"pipes"``, ...).
        zones: places components move between (``"tableau"``, ``"discard"``, ...).
        components: kinds of component a ``move`` may move (``"card"``, ``"rat"``, ...).
        triggers: game events an effect may happen on; the first is the default ``when``.
        quantities: game quantities a ``modify`` may change (``"cheese_per_turn"``, ...).
        events: game events a ``trigger`` may repeat (``"income"``, ...).
        attributes: ``{attribute: allowed values}`` for ``filter`` / ``where``.
        ops: the operations this game's engines interpret (default all of :data:`OPS`).
        selectors: the player selectors this game allows (default all of :data:`SELECTORS`).
    """

    game: str
    resources: tuple[str, ...]
    triggers: tuple[str, ...]
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    countables: tuple[str, ...] = ()
    zones: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    quantities: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    attributes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    ops: tuple[str, ...] = OPS
    selectors: tuple[str, ...] = SELECTORS

    @property
    def resource_names(self) -> tuple[str, ...]:
        """Resources and groups."""
        return self.resources + tuple(self.groups)

    @property
    def count_names(self) -> tuple[str, ...]:
        """What a count may count: resources, groups and countables."""
        return self.resource_names + self.countables


@dataclass(frozen=True)
class Count:
    """How many ``of`` the player ``whose`` has, restricted by ``where`` (see the module
    docstring). ``where`` is a tuple of ``(attribute, value)`` pairs, sorted."""

    of: str
    whose: str = "subject"
    where: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Amount:
    """``min(max, count * times // divide + plus)``; without ``count`` just ``plus``."""

    plus: int = 0
    count: Count | None = None
    times: int = 1
    divide: int = 1
    max: int | None = None

    @property
    def fixed(self) -> int | None:
        """The amount if it needs no count, else ``None``."""
        return self.plus if self.count is None else None

    def value(self, counted: int = 0) -> int:
        """The amount given the count's value ``counted`` (ignored without a count)."""
        if self.count is None:
            v = self.plus
        else:
            v = counted * self.times // self.divide + self.plus
        return v if self.max is None else min(v, self.max)


@dataclass(frozen=True)
class Condition:
    """``count cmp value`` for the concerned player (``most``/``least``: tied for the extreme
    among all players; ``value`` unused)."""

    count: Count
    cmp: str
    value: int = 0

    def holds(self, mine: int, everyone: Sequence[int] = ()) -> bool:
        """Whether it holds for a player whose count is ``mine`` (``everyone``: all players'
        counts, needed by ``most`` / ``least``)."""
        c, v = self.cmp, self.value
        if c == "most":
            return mine == max(everyone)
        if c == "least":
            return mine == min(everyone)
        return {">": mine > v, ">=": mine >= v, "==": mine == v, "!=": mine != v,
                "<=": mine <= v, "<": mine < v}[c]


@dataclass(frozen=True)
class Effect:
    """One effect primitive (fields as in the module docstring; unused ones keep defaults).

    ``filter`` is a tuple of sorted ``(attribute, value)`` pairs; ``up_to`` is resolved to its
    per-op default (true for ``steal``, false otherwise).
    """

    op: str
    when: str
    resource: str = ""
    amount: Amount = Amount(1)
    who: str = "self"
    chooser: str = ""
    up_to: bool = False
    to: str = ""
    source: str = ""          # ``from`` in JSON
    what: str = ""
    filter: tuple[tuple[str, str], ...] = ()
    whose: str = "self"
    to_whose: str = ""
    quantity: str = ""
    add: int = 0
    at_least: int | None = None
    at_most: int | None = None
    event: str = ""
    condition: Condition | None = None
    text: str = ""

    @property
    def targets(self) -> bool:
        """Whether the effect names a chosen player (``target`` or ``any``)."""
        names = (self.who, self.source, self.whose, self.to_whose, self.chooser, self.to)
        counts = [self.amount.count, self.condition.count if self.condition else None]
        names += tuple(c.whose for c in counts if c is not None)
        return "target" in names or "any" in names


@dataclass(frozen=True)
class Problem:
    """One problem in a data file: ``source`` (the file), ``path`` (a JSON path) and
    ``message`` (what is wrong and what is allowed)."""

    source: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.path}: {self.message}"


class EffectError(ValueError):
    """Effects that fail validation; ``problems`` lists every :class:`Problem`, and the message
    has one line per problem."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        n = len(self.problems)
        head = f"{n} problem{'s' if n != 1 else ''} in the component data:"
        super().__init__("\n".join([head] + [f"  {p}" for p in self.problems]))

    def __reduce__(self):   # picklable (it crosses process pools), attributes kept
        return type(self), (self.problems,)


def raise_problems(problems: Sequence[Problem]) -> None:
    """Raise :class:`EffectError` if ``problems`` is not empty."""
    if problems:
        raise EffectError(problems)


class _Checker:
    def __init__(self, vocab: Vocabulary, source: str):
        self.v = vocab
        self.source = source
        self.problems: list[Problem] = []

    def bad(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.source, path, message))

    def name(self, raw: Any, allowed: Sequence[str], path: str, what: str) -> str | None:
        if raw in allowed:
            return raw
        shown = ", ".join(repr(a) for a in allowed) or "none in this game"
        self.bad(path, f"{what} {raw!r} is not allowed; allowed: {shown}")
        return None

    def integer(self, raw: Any, path: str, lo: int = 0) -> int | None:
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < lo:
            self.bad(path, f"must be an integer >= {lo}, got {raw!r}")
            return None
        return raw

    def keys(self, raw: Mapping, allowed: Sequence[str], path: str) -> None:
        for k in raw:
            if k not in allowed:
                self.bad(f"{path}.{k}", f"unknown field; allowed here: {', '.join(allowed)}")

    def filt(self, raw: Any, path: str) -> tuple[tuple[str, str], ...]:
        if raw is None:
            return ()
        if not isinstance(raw, Mapping):
            self.bad(path, "must be an object {attribute: value}")
            return ()
        out = []
        for a, val in raw.items():
            if self.name(a, tuple(self.v.attributes), f"{path}.{a}", "attribute") is None:
                continue
            if self.name(val, self.v.attributes[a], f"{path}.{a}", f"{a}") is not None:
                out.append((a, val))
        return tuple(sorted(out))

    def count(self, raw: Any, path: str) -> Count | None:
        if not isinstance(raw, Mapping):
            self.bad(path, "a count must be an object {'of': NAME, 'whose': ..., 'where': {...}}")
            return None
        self.keys(raw, ("of", "whose", "where"), path)
        of = self.name(raw.get("of"), self.v.count_names, f"{path}.of", "countable")
        whose = self.name(raw.get("whose", "subject"), ("subject", "self", "target"),
                          f"{path}.whose", "player")
        where = self.filt(raw.get("where"), f"{path}.where")
        if of is None or whose is None:
            return None
        return Count(of, whose, where)

    def amount(self, raw: Any, path: str) -> Amount:
        if not isinstance(raw, Mapping):
            v = self.integer(raw, path)
            return Amount(v or 0)
        self.keys(raw, ("count", "times", "divide", "plus", "max"), path)
        count = self.count(raw.get("count"), f"{path}.count") if "count" in raw else None
        times = self.integer(raw.get("times", 1), f"{path}.times")
        divide = self.integer(raw.get("divide", 1), f"{path}.divide", 1)
        plus = self.integer(raw.get("plus", 0), f"{path}.plus")
        mx = raw.get("max")
        if mx is not None:
            mx = self.integer(mx, f"{path}.max")
        return Amount(plus or 0, count, 1 if times is None else times, divide or 1, mx)

    def condition(self, raw: Any, path: str) -> Condition | None:
        if not isinstance(raw, Mapping):
            self.bad(path, "a condition must be an object {'count': ..., 'cmp': ..., 'value': N}")
            return None
        self.keys(raw, ("count", "cmp", "value"), path)
        count = self.count(raw.get("count"), f"{path}.count")
        cmp = self.name(raw.get("cmp"), COMPARISONS, f"{path}.cmp", "comparison")
        value = 0
        if cmp in ("most", "least"):
            if "value" in raw:
                self.bad(f"{path}.value", f"'{cmp}' compares players; it takes no value")
        elif cmp is not None:
            value = self.integer(raw.get("value"), f"{path}.value") or 0
        if count is None or cmp is None:
            return None
        return Condition(count, cmp, value)

    def selector(self, raw: Any, path: str, allowed: Sequence[str]) -> str:
        allowed = [s for s in allowed if s in self.v.selectors]
        return self.name(raw, allowed, path, "player selector") or ""

    def effect(self, raw: Any, path: str) -> Effect | None:
        if not isinstance(raw, Mapping):
            self.bad(path, f"an effect must be an object with an 'op' (one of {', '.join(OPS)})")
            return None
        op = self.name(raw.get("op"), self.v.ops, f"{path}.op", "op")
        if op is None:
            return None
        n0 = len(self.problems)
        self.keys(raw, _COMMON + _FIELDS[op], path)
        for req in _REQUIRED[op]:
            if req not in raw:
                self.bad(f"{path}.{req}", f"missing; the op {op!r} needs {req!r}")
        when = self.name(raw.get("when", self.v.triggers[0]), self.v.triggers, f"{path}.when",
                         "trigger")
        kw: dict[str, Any] = {}
        if "if" in raw:
            kw["condition"] = self.condition(raw["if"], f"{path}.if")
        if "text" in raw:
            kw["text"] = str(raw["text"])
        if "amount" in raw:
            kw["amount"] = self.amount(raw["amount"], f"{path}.amount")
        if "resource" in raw:
            kw["resource"] = self.name(raw["resource"], self.v.resource_names,
                                       f"{path}.resource", "resource") or ""
        single = ("self", "target", "any")
        if "who" in raw:
            kw["who"] = self.selector(raw["who"], f"{path}.who", single + _MULTI)
        if "chooser" in raw:
            kw["chooser"] = self.selector(raw["chooser"], f"{path}.chooser",
                                          single + ("subject",))
        if "to" in raw:
            if op == "move":
                kw["to"] = self.name(raw["to"], self.v.zones, f"{path}.to", "zone") or ""
            else:
                kw["to"] = self.selector(raw["to"], f"{path}.to", single)
        if "from" in raw:
            if op == "move":
                kw["source"] = self.name(raw["from"], self.v.zones, f"{path}.from", "zone") or ""
            else:
                kw["source"] = self.selector(raw["from"], f"{path}.from", single)
        elif op == "steal":
            kw["source"] = "target"
        for sel in ("whose", "to_whose"):
            if sel in raw:
                kw[sel] = self.selector(raw[sel], f"{path}.{sel}", single)
        if "up_to" in raw:
            if not isinstance(raw["up_to"], bool):
                self.bad(f"{path}.up_to", f"must be true or false, got {raw['up_to']!r}")
            else:
                kw["up_to"] = raw["up_to"]
        elif op == "steal":
            kw["up_to"] = True
        if "what" in raw:
            kw["what"] = self.name(raw["what"], self.v.components, f"{path}.what",
                                   "component") or ""
        if "filter" in raw:
            kw["filter"] = self.filt(raw["filter"], f"{path}.filter")
        if "quantity" in raw:
            kw["quantity"] = self.name(raw["quantity"], self.v.quantities, f"{path}.quantity",
                                       "quantity") or ""
        for k in ("add", "at_least", "at_most"):
            if k in raw:
                v = raw[k]
                if isinstance(v, bool) or not isinstance(v, int):
                    self.bad(f"{path}.{k}", f"must be an integer, got {v!r}")
                else:
                    kw[k] = v
        if op == "modify" and not any(k in raw for k in ("add", "at_least", "at_most")):
            self.bad(path, "a 'modify' needs one of 'add', 'at_least', 'at_most'")
        if "event" in raw:
            kw["event"] = self.name(raw["event"], self.v.events, f"{path}.event", "event") or ""
        if len(self.problems) > n0 or when is None:
            return None
        return Effect(op=op, when=when, **kw)


def validate_effects(raw: Any, vocab: Vocabulary, source: str, path: str = "$"
                     ) -> tuple[tuple[Effect, ...], list[Problem]]:
    """Check a JSON list of effects against ``vocab``.

    Args:
        raw: the decoded JSON (a list of effect objects).
        vocab: the game's names.
        source: the file, for messages.
        path: the JSON path of ``raw`` (``"$.cards[3].effects"``).

    Returns:
        ``(effects, problems)``: the effects that parsed (those with a problem are left out)
        and every problem found (empty if all is well).
    """
    ck = _Checker(vocab, source)
    if not isinstance(raw, list):
        ck.bad(path, "must be a list of effects (JSON objects with an 'op')")
        return (), ck.problems
    out = []
    for i, item in enumerate(raw):
        e = ck.effect(item, f"{path}[{i}]")
        if e is not None:
            out.append(e)
    return tuple(out), ck.problems


def parse_effects(raw: Any, vocab: Vocabulary, source: str, path: str = "$"
                  ) -> tuple[Effect, ...]:
    """:func:`validate_effects`, raising :class:`EffectError` (every problem) if any."""
    effects, problems = validate_effects(raw, vocab, source, path)
    raise_problems(problems)
    return effects


def canonical(effects: Sequence[Effect]) -> str:
    """A stable text key of an effect list: equal keys play identically (texts ignored)."""
    rows = []
    for e in effects:
        d = {k: v for k, v in e.__dict__.items() if k != "text"}
        rows.append(repr(sorted(d.items())))
    return json.dumps(rows)


def json_schema(vocab: Vocabulary | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an effect list.

    With ``vocab`` the names are enumerated (resources, triggers, ...); without, any string is
    accepted where a game-defined name goes. The schema checks shapes; :func:`validate_effects`
    additionally gives one readable message per problem.
    """
    def names(values: Sequence[str] | None) -> dict[str, Any]:
        return {"type": "string", "enum": list(values)} if values is not None else {
            "type": "string"}

    v = vocab
    sel = names(SELECTORS if v is None else [s for s in SELECTORS if s in v.selectors])
    attrs: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}
    if v is not None:
        attrs = {"type": "object", "additionalProperties": False,
                 "properties": {a: names(vals) for a, vals in v.attributes.items()}}
    count = {
        "type": "object", "additionalProperties": False, "required": ["of"],
        "properties": {"of": names(None if v is None else v.count_names),
                       "whose": names(["subject", "self", "target"]), "where": attrs},
    }
    nat = {"type": "integer", "minimum": 0}
    amount = {"oneOf": [nat, {
        "type": "object", "additionalProperties": False,
        "properties": {"count": {"$ref": "#/$defs/count"}, "times": nat,
                       "divide": {"type": "integer", "minimum": 1}, "plus": nat, "max": nat},
    }]}
    condition = {
        "type": "object", "additionalProperties": False, "required": ["count", "cmp"],
        "properties": {"count": {"$ref": "#/$defs/count"}, "cmp": names(COMPARISONS),
                       "value": {"type": "integer"}},
    }
    field_schema: dict[str, Any] = {
        "resource": names(None if v is None else v.resource_names),
        "amount": {"$ref": "#/$defs/amount"},
        "who": sel, "chooser": sel, "whose": sel, "to_whose": sel,
        "up_to": {"type": "boolean"},
        "what": names(None if v is None else v.components),
        "filter": attrs,
        "quantity": names(None if v is None else v.quantities),
        "add": {"type": "integer"}, "at_least": {"type": "integer"},
        "at_most": {"type": "integer"},
        "event": names(None if v is None else v.events),
    }
    zone = names(None if v is None else v.zones)
    variants = []
    for op in (OPS if v is None else v.ops):
        props: dict[str, Any] = {
            "op": {"const": op},
            "when": names(None if v is None else v.triggers),
            "if": {"$ref": "#/$defs/condition"},
            "text": {"type": "string"},
        }
        for f in _FIELDS[op]:
            if f in ("from", "to"):
                props[f] = zone if op == "move" else sel
            else:
                props[f] = field_schema[f]
        variants.append({"type": "object", "additionalProperties": False,
                         "required": ["op", *_REQUIRED[op]], "properties": props})
    title = "ratai effect list" + ("" if v is None else f" ({v.game})")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://ratai.invalid/schemas/effects" + ("" if v is None else f"/{v.game}"),
        "title": title,
        "type": "array",
        "items": {"$ref": "#/$defs/effect"},
        "$defs": {"effect": {"oneOf": variants}, "count": count, "amount": amount,
                  "condition": condition},
    }
