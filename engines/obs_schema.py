"""Observation schemas: one source of truth per game for what ``observation(player)`` holds.

Each game writes one schema (``engines/<game>/schema.py``, built per game instance because
array lengths and card names follow its parameters and data file) with the builders below.
From it come:

* the **JSON Schema** (draft 2020-12) that ``Game.observation_schema()`` returns and the
  service's game catalogue serves, every field described with its rulebook meaning;
* the **validation** of a client's observation in ``Game.state_from_observation``
  (:func:`validate`: every error at once, each with its JSON path);
* the **numeric encoding** ``State.observation_tensor(player)`` (:class:`TensorLayout`), a
  ``float32`` vector of a fixed per-game length for learned evaluators and RL users,
  computed only from the observation dict (so it can hold nothing hidden) and therefore equal
  on both backends;
* the **reference docs** ``docs/observations/<game>.md`` (:func:`markdown`, written by
  ``scripts/make_obs_docs.py``; a test checks they are current).

Tensor encoding (each schema node contributes a fixed slice; the docs list every slice):

============================  =================================================================
schema node                   encoding
============================  =================================================================
integer / number              one value ``(x - a) / (b - a)``: ``[a, b]`` is ``x-scale`` if
                              given, else ``[minimum, maximum]`` (so usually in [0, 1])
boolean                       one value, 0 or 1
``enum``                      one-hot over the listed values (``null`` may be one of them)
nullable (``anyOf`` + null)   one "present" flag, then the inner slice (zeros when null)
fixed array (``prefixItems``)  the items' slices in order
bounded array (``items``)     ``maxItems`` item slices (or the first ``x-tensor-items``;
                              missing items are zeros), then the length / maxItems when
                              the length varies
multiset (``x-tensor``)       an array of enum values with order irrelevant: one count per
                              value, divided by ``maxItems``
object                        its properties' slices in declaration order; an optional
                              property has a "present" flag first
mapping (``propertyNames``)   per key of the enum, in order: a "present" flag (unless every key
                              is required), then the value's slice
``x-tensor: "skip"``          nothing (free text or engine bookkeeping that the rest of the
                              observation already encodes; the docs say so)
============================  =================================================================

Builders return plain ``dict`` fragments, so a schema is ordinary JSON Schema that any
validator or code generator understands; the ``x-tensor`` annotations are ignored by them.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "DIALECT",
    "ObservationError",
    "TensorSlice",
    "TensorLayout",
    "integer",
    "number",
    "boolean",
    "enum",
    "seat",
    "string",
    "nullable",
    "array",
    "fixed",
    "multiset",
    "obj",
    "mapping",
    "skip",
    "document",
    "validate",
    "markdown",
    "ObservationSpec",
]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class ObservationError(ValueError):
    """A malformed or impossible observation.

    Attributes:
        errors: ``[(json_path, message), ...]``, every problem found (``$`` is the root).
    """

    def __init__(self, game: str, errors: Sequence[tuple[str, str]]):
        self.game = game
        self.errors = list(errors)
        shown = "; ".join(f"{p}: {m}" for p, m in self.errors[:20])
        more = f" (and {len(self.errors) - 20} more)" if len(self.errors) > 20 else ""
        super().__init__(f"bad {game} observation, {len(self.errors)} error(s): {shown}{more}")

    def __reduce__(self):   # picklable (it crosses process pools), attributes kept
        return type(self), (self.game, self.errors)


# -- builders ---------------------------------------------------------------------------------
def integer(lo: int, hi: int, description: str, scale: tuple[float, float] | None = None) -> dict:
    """An integer in ``[lo, hi]``. Tensor: ``(x - a) / (b - a)`` with ``(a, b) = scale``
    (default ``(lo, hi)``; a ``scale`` narrower than the valid range, for quantities with a
    generous cap such as cash, lets values pass 1)."""
    node = {"type": "integer", "minimum": int(lo), "maximum": int(hi),
            "description": description}
    if scale is not None:
        node["x-scale"] = [scale[0], scale[1]]
    return node


def number(lo: float, hi: float, description: str,
           scale: tuple[float, float] | None = None) -> dict:
    """A number in ``[lo, hi]`` (tensor as :func:`integer`)."""
    node = {"type": "number", "minimum": lo, "maximum": hi, "description": description}
    if scale is not None:
        node["x-scale"] = [scale[0], scale[1]]
    return node


def boolean(description: str) -> dict:
    return {"type": "boolean", "description": description}


def enum(values: Iterable[Any], description: str) -> dict:
    """One of ``values`` (strings, integers or ``None``; tensor: one-hot)."""
    return {"enum": list(values), "description": description}


def seat(num_players: int, description: str, seats: int | None = None) -> dict:
    """A seat ``0..num_players-1`` (tensor: one-hot). The first ``seats`` values (default
    all) are the players' seats, which a seat-relative encoding renumbers from the observer
    (:meth:`TensorLayout.seat_permutation`); later values (Rat Trap's Third Rat) stay put."""
    return {"enum": list(range(int(num_players))), "description": description,
            "x-seat": int(num_players if seats is None else seats)}


def string(description: str, max_length: int = 200) -> dict:
    """Free text (a label): validated, never in the tensor."""
    return {"type": "string", "maxLength": max_length, "description": description,
            "x-tensor": "skip"}


def nullable(inner: dict, description: str | None = None) -> dict:
    """``inner`` or ``null`` (tensor: a present flag, then ``inner``)."""
    node = {"anyOf": [inner, {"type": "null"}]}
    node["description"] = description if description is not None else inner.get(
        "description", "")
    return node


def array(items: dict, max_items: int, description: str, min_items: int = 0,
          tensor_items: int | None = None) -> dict:
    """A list of at most ``max_items`` (at least ``min_items``) ``items``.

    ``tensor_items``: encode only the first that many (a long queue whose head is what
    matters); the length slot still counts all of them.
    """
    node = {"type": "array", "items": items, "minItems": int(min_items),
            "maxItems": int(max_items), "description": description}
    if tensor_items is not None:
        node["x-tensor-items"] = int(tensor_items)
    return node


def fixed(items: dict | Sequence[dict], description: str, n: int | None = None,
          per_seat: int | None = None) -> dict:
    """A list of exactly ``n`` ``items`` (or the given per-position schemas).

    ``per_seat``: the list is indexed by seat and its first ``per_seat`` items are the
    players' seats (the rest, e.g. Rat Trap's Third Rat, stay put), so a seat-relative
    encoding puts the observer's item first (:meth:`TensorLayout.seat_permutation`)."""
    prefix = [items] * int(n) if isinstance(items, dict) else list(items)
    node = {"type": "array", "prefixItems": prefix, "items": False,
            "minItems": len(prefix), "maxItems": len(prefix), "description": description}
    if per_seat is not None:
        if not 1 <= int(per_seat) <= len(prefix):
            raise ValueError(f"per_seat={per_seat!r}: allowed 1..{len(prefix)}")
        node["x-per-seat"] = int(per_seat)
    return node


def multiset(values: Iterable[Any], max_items: int, description: str,
             seats: int | None = None) -> dict:
    """A list of ``values`` (repeats allowed, order irrelevant; tensor: counts). ``seats``:
    the values are seats and the first ``seats`` of them the players' (renumbered from the
    observer in a seat-relative encoding, as :func:`seat`)."""
    items: dict = {"enum": list(values)}
    if seats is not None:
        items["x-seat"] = int(seats)
    return {"type": "array", "items": items, "maxItems": int(max_items),
            "description": description, "x-tensor": "multiset"}


def obj(properties: Mapping[str, dict], description: str,
        optional: Iterable[str] = (), extra: str | None = None) -> dict:
    """An object with exactly these properties (all required but ``optional``).

    ``extra``: allow further properties (engine bookkeeping of a pending step whose shape
    depends on the step); they are validated by the game's rebuild, not here, and are not in
    the tensor; ``extra`` says what they are (it goes into the docs).
    """
    optional = set(optional)
    unknown = optional - set(properties)
    if unknown:
        raise ValueError(f"optional properties {sorted(unknown)} are not properties")
    node = {"type": "object", "properties": dict(properties),
            "required": [k for k in properties if k not in optional],
            "additionalProperties": extra is not None, "description": description}
    if extra is not None:
        node["x-extra"] = extra
    return node


def mapping(keys: Iterable[str], value: dict, description: str,
            required: bool = False, per_seat: int | None = None) -> dict:
    """An object whose keys are among ``keys`` (all of them when ``required``).
    ``per_seat``: the keys are seats, the first ``per_seat`` the players' (as in
    :func:`fixed`)."""
    keys = [str(k) for k in keys]
    node = {"type": "object", "propertyNames": {"enum": keys},
            "additionalProperties": value, "description": description}
    if required:
        node["required"] = keys
    if per_seat is not None:
        node["x-per-seat"] = int(per_seat)
    return node


def skip(node: dict, why: str) -> dict:
    """``node`` validated but left out of the tensor; ``why`` goes into the docs."""
    return {**node, "x-tensor": "skip", "x-tensor-why": why}


def document(game: str, title: str, root: dict) -> dict:
    """The top-level JSON Schema of ``game``'s ``observation(player)``."""
    return {"$schema": DIALECT, "$id": f"urn:ratai:{game}:observation", "title": title,
            **root}


# -- validation -------------------------------------------------------------------------------
_MAX_DEPTH = 32


def _shape(value: Any, limit: int = _MAX_DEPTH) -> tuple[int, bool]:
    """``(depth, plain)`` of a JSON-like value: its nesting depth (stops past ``limit``) and
    whether it holds only JSON's own types (dicts with string keys, lists, strings, 64-bit
    ints, finite floats, booleans, None), the values on which the fast validator and
    ``jsonschema`` agree by the specification."""
    stack = [(value, 1)]
    deepest = 0
    plain = True
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if d > limit:
            return d, False
        if isinstance(v, dict):
            plain = plain and type(v) is dict and all(type(k) is str for k in v)
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            plain = plain and type(v) is list
            stack.extend((x, d + 1) for x in v)
        elif type(v) is float:
            plain = plain and math.isfinite(v)
        elif type(v) is int:   # jsonschema_rs reads an int past 4,300 digits as 0
            plain = plain and _INT_LO <= v < _INT_HI
        elif type(v) not in _JSON_SCALARS:
            plain = False
    return deepest, plain


_JSON_SCALARS = (str, bool, type(None))
_INT_LO, _INT_HI = -(2 ** 63), 2 ** 64   # the ints jsonschema_rs reads exactly


def fast_validator(document: dict) -> Any:
    """A compiled validator of ``document`` (``jsonschema_rs``, a Rust implementation of the
    same specification, 100-300x faster than ``jsonschema`` on these observations), or None
    when the package is not installed or cannot compile the document."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.validator_for(document)
    except Exception:  # noqa: BLE001 - a document it cannot compile: jsonschema alone
        return None


def validate(game: str, validator: Any, observation: Any, fast: Any = None) -> None:
    """Check ``observation`` with a ``jsonschema`` validator of the game's schema.

    ``fast`` (:func:`fast_validator`, optional) answers first for observations of JSON's own
    types; whatever it does not accept (or cannot read) is checked by ``validator``, so the
    errors and what is refused are ``jsonschema``'s.

    Raises:
        ObservationError: listing every error with its JSON path (the structure is checked
            here; the game's rebuild checks what a schema cannot say, such as card counts
            that must add up).
    """
    if not isinstance(observation, Mapping):
        kind = type(observation).__name__
        raise ObservationError(game, [("$", f"must be an object, got {kind}")])
    depth, plain = _shape(observation)
    if depth > _MAX_DEPTH:
        raise ObservationError(game, [("$", f"nested deeper than {_MAX_DEPTH} levels")])
    if fast is not None and plain:
        try:
            if fast.is_valid(observation):
                return
        except Exception:  # noqa: BLE001 - a value it cannot read: jsonschema decides
            pass
    errors = []
    try:
        for err in validator.iter_errors(observation):
            message = err.message
            if len(message) > 200:
                message = message[:197] + "..."
            errors.append((err.json_path, message))
    except ValueError as exc:   # e.g. an int past Python's 4,300 digits in a message
        raise ObservationError(game, [("$", f"a value cannot be read: {exc}"[:200])]) from None
    if errors:
        errors.sort()
        raise ObservationError(game, errors)


def _integer_node(node: dict) -> bool:
    """Does ``node`` hold integers only (``type`` integer, or an enum of ints)?"""
    kind = node.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind
                             and "number" not in kind):
        return True
    values = node.get("enum")
    return bool(values) and all(type(x) is int for x in values)


def integers(node: dict, value: Any) -> Any:
    """``value`` (valid against the schema ``node``) with every integral float where the
    schema holds integers read as an int, and in containers the schema leaves open (engine
    bookkeeping: its numbers are counts and seats): JSON Schema counts ``1.0`` as an integer,
    and the engines index and count with these. Returns ``value`` itself where nothing
    changes (a copy of each container that does)."""
    for alt in node.get("anyOf", ()):   # nullable fields: the alternative that applies
        new = integers(alt, value)
        if new is not value:
            return new
    if type(value) is float:
        return int(value) if value.is_integer() and _integer_node(node) else value
    kind = node.get("type")
    if (kind == "object" and "properties" not in node and "additionalProperties" not in node
            or kind == "array" and "items" not in node and "prefixItems" not in node):
        node = _OPEN   # left open (engine bookkeeping, Rat Trap's ctx / todo)
    changed: Any = None
    if isinstance(value, dict):
        props, extra = node.get("properties", {}), node.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key, extra)
            new = integers(sub, item) if isinstance(sub, dict) else item
            if new is not item:
                changed = dict(value) if changed is None else changed
                changed[key] = new
    elif isinstance(value, list):
        prefix, rest = node.get("prefixItems", ()), node.get("items")
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else rest
            new = integers(sub, item) if isinstance(sub, dict) else item
            if new is not item:
                changed = list(value) if changed is None else changed
                changed[i] = new
    return value if changed is None else changed


#: How :func:`integers` reads a container the schema leaves open (engine bookkeeping, whose
#: numbers are counts and seats): every item at any depth an integer or such a container.
_OPEN: dict[str, Any] = {"type": "integer"}
_OPEN["additionalProperties"] = _OPEN["items"] = _OPEN


# -- tensor layout ----------------------------------------------------------------------------
@dataclass(frozen=True)
class TensorSlice:
    """One leaf of the tensor: ``tensor[start:start + size]`` encodes ``path`` (a JSON path
    with ``[*]``-free indices) as ``encoding``.

    The numbers of the encoding, for code that writes the same tensor from another source
    (the compiled twins' ``c_observation_tensor``): ``kind`` is ``"flag"`` (1 if present),
    ``"number"`` (``(x - lo) * scale``; a boolean is a number with ``lo`` 0, ``scale`` 1),
    ``"enum"`` (one-hot over ``values``), ``"multiset"`` (``scale`` = 1 / maxItems, rounded
    to float32, added in float32 per item at the index of its value in ``values``) or
    ``"length"`` (the list's length divided by ``divisor``).
    """

    path: str
    start: int
    size: int
    encoding: str
    description: str
    kind: str = ""
    values: tuple = ()
    lo: float = 0.0
    scale: float = 0.0
    divisor: int = 0


def _is_null(node: dict) -> bool:
    return node.get("type") == "null"


class TensorLayout:
    """The fixed-length encoding of a schema (see the module docstring).

    Args:
        schema: a document built with this module's builders.

    Attributes:
        size: the tensor's length (``Game.observation_tensor_shape() == (size,)``).
        slices: every leaf slice in order (what the docs tabulate).

    Raises:
        ValueError: a node the encoding cannot give a fixed size (free text or an unbounded
            list not marked ``skip``), naming its path.
    """

    def __init__(self, schema: dict):
        self.slices: list[TensorSlice] = []
        self.size = 0  # grows as _compile lays the leaves out
        # seat groups ``(starts, size)``: block ``j`` (``tensor[starts[j]:starts[j] + size]``)
        # belongs to seat ``j`` (a per-seat list's item, or a seat enum's one-hot cell); an
        # enclosing group is appended after the groups inside it
        self._seat_groups: list[tuple[tuple[int, ...], int]] = []
        self._write = self._compile(schema, "$")
        self._seat_perms: dict[int, np.ndarray] = {}

    @functools.cached_property
    def by_path(self) -> dict[tuple[str, str], tuple[TensorSlice, ...]]:
        """Every slice by ``(JSON path, kind)``, in layout order (built once; read-only: the
        twins' compiled writers look their offsets up here whenever a game is created)."""
        at: dict[tuple[str, str], list[TensorSlice]] = {}
        for sl in self.slices:
            at.setdefault((sl.path, sl.kind), []).append(sl)
        return {key: tuple(slices) for key, slices in at.items()}

    @functools.cached_property
    def list_items(self) -> dict[str, dict[int, tuple[tuple[str, str], ...]]]:
        """For each list's JSON path ``p``: item ``i`` -> the ``(path, kind)`` keys of
        :attr:`by_path` at or under ``p[i]`` (built once; read-only)."""
        items: dict[str, dict[int, list[tuple[str, str]]]] = {}
        for key in self.by_path:
            path = key[0]
            at = path.find("[")
            while at >= 0:
                end = path.find("]", at)
                if end < 0:
                    break
                index = path[at + 1:end]
                if index.isdigit():
                    items.setdefault(path[:at], {}).setdefault(int(index), []).append(key)
                at = path.find("[", end)
        return {p: {i: tuple(keys) for i, keys in by_i.items()} for p, by_i in items.items()}

    def seat_permutation(self, player: int) -> np.ndarray:
        """The seat-relative tensor of ``player`` as an index map: ``tensor[perm]`` renumbers
        every seat ``s`` of the schema's per-seat lists (``fixed(..., per_seat=k)``) and seat
        enums (``seat(..., seats=k)``) as ``(s - player) mod k``, so the observer's own
        entries come first and the others follow in turn order. Fields that hold a seat as a
        number stay absolute.

        Returns:
            ``int64`` array of shape ``(size,)``, a permutation (identity for seat 0).

        Raises:
            ValueError: ``player`` is negative or not a seat of some per-seat group.
        """
        player = int(player)
        perm = self._seat_perms.get(player)
        if perm is not None:
            return perm
        if player < 0:
            raise ValueError(f"bad player {player!r}: a seat is >= 0")
        perm = np.arange(self.size, dtype=np.int64)
        for starts, size in reversed(self._seat_groups):  # outer groups first
            k = len(starts)
            if player >= k:
                raise ValueError(f"bad player {player!r}: the layout has {k} seats")
            src = np.asarray(starts, dtype=np.int64)
            block = np.full(self.size, -1, dtype=np.int64)
            for j, a in enumerate(starts):
                block[a:a + size] = j
            inside = block[perm] >= 0
            i = perm[inside]
            j = block[i]
            perm[inside] = src[(j + player) % k] + (i - src[j])
        perm.setflags(write=False)
        self._seat_perms[player] = perm
        return perm

    def _seat_group(self, starts: Sequence[int], size: int) -> None:
        if size > 0:
            self._seat_groups.append((tuple(int(a) for a in starts), int(size)))

    def _per_seat(self, node: dict, bounds: Sequence[tuple[int, int]], path: str) -> None:
        """The seat group of a per-seat list or mapping (``x-per-seat``) whose entries took
        the tensor spans ``bounds`` (start, size), in seat order."""
        if "x-per-seat" in node:
            seats = bounds[:int(node["x-per-seat"])]
            if len({size for _, size in seats}) != 1:
                raise ValueError(f"{path}: a per-seat field's entries differ in tensor size")
            self._seat_group([a for a, _ in seats], seats[0][1])

    def _leaf(self, path: str, size: int, encoding: str, node: dict, **numbers: Any) -> int:
        start = self.size
        self.size += size
        self.slices.append(TensorSlice(path, start, size, encoding,
                                       node.get("description", ""), **numbers))
        return start

    def _compile(self, node: dict, path: str) -> Callable[[Any, np.ndarray], None]:
        if node.get("x-tensor") == "skip":
            return _nothing
        if "anyOf" in node:
            inner = [n for n in node["anyOf"] if not _is_null(n)]
            if len(inner) != 1 or len(node["anyOf"]) != 2:
                raise ValueError(f"{path}: only 'X or null' unions are encodable")
            flag = self._leaf(path, 1, "1 if present (not null)", node, kind="flag")
            write_inner = self._compile(inner[0], path)

            def write_nullable(v, out, flag=flag, write_inner=write_inner):
                if v is not None:
                    out[flag] = 1.0
                    write_inner(v, out)
            return write_nullable
        if "enum" in node:
            values = list(node["enum"])
            index = {json.dumps(v): i for i, v in enumerate(values)}
            start = self._leaf(path, len(values), "one-hot over " + ", ".join(
                json.dumps(v) for v in values), node, kind="enum", values=tuple(values))
            if "x-seat" in node:
                seats = int(node["x-seat"])
                if [v for v in values if isinstance(v, int)][:seats] != list(range(seats)):
                    raise ValueError(f"{path}: a seat enum lists its seats 0..{seats - 1} "
                                     f"in order")
                self._seat_group([start + index[json.dumps(v)] for v in range(seats)], 1)

            def write_enum(v, out, start=start, index=index):
                out[start + index[json.dumps(v)]] = 1.0
            return write_enum
        kind = node.get("type")
        if kind in ("integer", "number"):
            lo, hi = node.get("x-scale", (node.get("minimum"), node.get("maximum")))
            if lo is None or hi is None:
                raise ValueError(f"{path}: a number needs minimum and maximum to be encoded")
            scale = 1.0 / (hi - lo) if hi > lo else 0.0
            start = self._leaf(path, 1, f"(x - {lo}) / {hi - lo}" if hi > lo else "0",
                               node, kind="number", lo=lo, scale=scale)

            def write_number(v, out, start=start, lo=lo, scale=scale):
                out[start] = (v - lo) * scale
            return write_number
        if kind == "boolean":
            start = self._leaf(path, 1, "0 or 1", node, kind="number", lo=0, scale=1.0)

            def write_bool(v, out, start=start):
                out[start] = 1.0 if v else 0.0
            return write_bool
        if kind == "array":
            return self._compile_array(node, path)
        if kind == "object":
            return self._compile_object(node, path)
        raise ValueError(f"{path}: cannot encode {node.get('type', node)!r}; mark it skip()")

    def _compile_array(self, node: dict, path: str):
        if node.get("x-tensor") == "multiset":
            values = list(node["items"]["enum"])
            index = {json.dumps(v): i for i, v in enumerate(values)}
            n = max(1, int(node["maxItems"]))
            start = self._leaf(path, len(values), f"count of each of {len(values)} values "
                               f"/ {n}", node, kind="multiset", values=tuple(values),
                               scale=1.0 / n, divisor=n)
            if "x-seat" in node["items"]:
                self._seat_group([start + index[json.dumps(v)]
                                  for v in range(int(node["items"]["x-seat"]))], 1)

            def write_multiset(v, out, start=start, index=index, n=n):
                # 1/n added in the buffer's own precision (float32 for the tensor), the same
                # on every numpy (NumPy 2's rule for a float32 scalar plus a Python float,
                # explicit; the compiled twins add it likewise)
                inc = out.dtype.type(1.0 / n)
                for x in v:
                    out[start + index[json.dumps(x)]] += inc
            return write_multiset
        if "prefixItems" in node:
            writers, bounds = [], []
            for i, item in enumerate(node["prefixItems"]):
                begin = self.size
                writers.append(self._compile(item, f"{path}[{i}]"))
                bounds.append((begin, self.size - begin))
            self._per_seat(node, bounds, path)

            def write_fixed(v, out, writers=writers):
                for w, x in zip(writers, v, strict=True):
                    w(x, out)
            return write_fixed
        if "maxItems" not in node:
            raise ValueError(f"{path}: a list needs maxItems to be encoded")
        n = int(node["maxItems"])
        shown = min(n, int(node.get("x-tensor-items", n)))
        writers = [self._compile(node["items"], f"{path}[{i}]") for i in range(shown)]
        count = None
        if node.get("minItems", 0) != n:
            count = self._leaf(f"{path}.length", 1, f"length / {n}", node, kind="length",
                               divisor=n)

        def write_list(v, out, writers=writers, count=count, n=n):
            for w, x in zip(writers, v, strict=False):
                w(x, out)
            if count is not None:
                out[count] = len(v) / n
        return write_list

    def _compile_object(self, node: dict, path: str):
        if "properties" in node:
            required = set(node.get("required", ()))
            parts = []
            for key, sub in node["properties"].items():
                sub_path = f"{path}.{key}"
                flag = None
                if key not in required and sub.get("x-tensor") != "skip":
                    flag = self._leaf(sub_path, 1, "1 if present", sub, kind="flag")
                parts.append((key, flag, self._compile(sub, sub_path)))

            def write_obj(v, out, parts=parts):
                for key, flag, w in parts:
                    if key in v:
                        if flag is not None:
                            out[flag] = 1.0
                        w(v[key], out)
            return write_obj
        keys = node.get("propertyNames", {}).get("enum")
        if keys is None:
            raise ValueError(f"{path}: a mapping needs propertyNames.enum to be encoded")
        required = set(node.get("required", ()))
        parts, bounds = [], []
        for key in keys:
            sub_path = f"{path}.{key}"
            begin = self.size
            flag = None
            if key not in required:
                flag = self._leaf(sub_path, 1, "1 if present", node["additionalProperties"],
                                  kind="flag")
            parts.append((key, flag, self._compile(node["additionalProperties"], sub_path)))
            bounds.append((begin, self.size - begin))
        self._per_seat(node, bounds, path)

        def write_map(v, out, parts=parts):
            for key, flag, w in parts:
                if key in v:
                    if flag is not None:
                        out[flag] = 1.0
                    w(v[key], out)
        return write_map

    def encode(self, observation: Mapping[str, Any], out: np.ndarray | None = None) -> np.ndarray:
        """The tensor of ``observation`` (a valid observation dict).

        Args:
            out: a caller's buffer of shape ``(size,)`` to write into (zeroed first;
                ``float32``, or another float dtype), or ``None`` for a new ``float32`` array.

        Raises:
            ValueError: ``out`` is not a writeable float array of shape ``(size,)``.
        """
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        elif not (isinstance(out, np.ndarray) and out.dtype.kind == "f"
                  and out.shape == (self.size,) and out.flags.writeable):
            raise ValueError(f"bad out buffer: expected a writeable float numpy array of "
                             f"shape ({self.size},), got "
                             f"{getattr(out, 'dtype', type(out).__name__)} "
                             f"{getattr(out, 'shape', '')}")
        else:
            out[:] = 0.0
        self._write(observation, out)
        return out


def _nothing(v, out) -> None:
    return None


# -- docs -------------------------------------------------------------------------------------
def _type_name(node: dict) -> str:
    mark = f" ({_SEAT_MARK})" if "x-per-seat" in node else ""
    return _bare_type_name(node) + mark


#: how the docs mark a field whose entries are seats (``x-per-seat`` / ``x-seat``)
_SEAT_MARK = "per seat"


def _bare_type_name(node: dict) -> str:
    if "enum" in node:
        seat = "a seat: " if "x-seat" in node else ""
        return seat + "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"][:12]) + (
            ", ..." if len(node["enum"]) > 12 else "")
    if "anyOf" in node:
        inner = [n for n in node["anyOf"] if not _is_null(n)]
        return " or ".join(_type_name(n) for n in inner) + " or `null`"
    kind = node.get("type")
    if kind in ("integer", "number"):
        return f"{kind} {node.get('minimum')}..{node.get('maximum')}"
    if kind == "array":
        if node.get("x-tensor") == "multiset":
            seats = " seats" if "x-seat" in node.get("items", {}) else ""
            return f"list (multiset) of at most {node['maxItems']}{seats}"
        if "prefixItems" in node:
            return f"list of {len(node['prefixItems'])}"
        return f"list of {node.get('minItems', 0)}..{node.get('maxItems', '?')}"
    if kind == "object" and "propertyNames" in node:
        return "object keyed by " + ", ".join(
            f"`{k}`" for k in node["propertyNames"]["enum"][:8]) + (
            ", ..." if len(node["propertyNames"]["enum"]) > 8 else "")
    return str(kind)


def _rows(node: dict, path: str, rows: list) -> None:
    rows.append((path, _type_name(node), node.get("description", ""),
                 node.get("x-tensor-why", "not in the tensor" if node.get("x-tensor") == "skip"
                          else "")))
    if node.get("x-tensor") == "skip":
        return
    if "anyOf" in node:
        for n in node["anyOf"]:
            if not _is_null(n) and n.get("type") in ("object", "array"):
                _rows_children(n, path, rows)
        return
    _rows_children(node, path, rows)


def _rows_children(node: dict, path: str, rows: list) -> None:
    if node.get("type") == "object":
        for key, sub in node.get("properties", {}).items():
            _rows(sub, f"{path}.{key}", rows)
        if "propertyNames" in node:
            sub = node["additionalProperties"]
            if sub.get("type") in ("object", "array") or "anyOf" in sub:
                _rows(sub, f"{path}.<key>", rows)
    elif node.get("type") == "array" and node.get("x-tensor") != "multiset":
        if "prefixItems" in node:
            items = node["prefixItems"]
            if items and all(i == items[0] for i in items):
                _rows(items[0], f"{path}[i]", rows)
            else:
                for i, item in enumerate(items):
                    _rows(item, f"{path}[{i}]", rows)
        elif isinstance(node.get("items"), dict):
            _rows(node["items"], f"{path}[i]", rows)


def markdown(schema: dict, layout: TensorLayout, heading: str) -> str:
    """Reference docs of one game's observation: every field, then the tensor layout."""
    rows: list = []
    _rows(schema, "$", rows)
    spans: dict[str, list[int]] = {}
    for sl in layout.slices:
        cuts = [i for i, ch in enumerate(sl.path) if ch in ".["] + [len(sl.path)]
        for cut in cuts[1:]:
            span = spans.setdefault(sl.path[:cut], [sl.start, sl.start + sl.size])
            span[0] = min(span[0], sl.start)
            span[1] = max(span[1], sl.start + sl.size)
    out = [f"# {heading}", "", schema.get("description", ""), "",
           "Generated from the game's schema (`Game.observation_schema()`) by "
           "`python scripts/make_obs_docs.py`; do not edit by hand.", "",
           "## Fields", "",
           "The tensor column is the field's slice of `observation_tensor(player)` "
           "(or why it is left out). Fields marked *per seat* (one entry per seat) and "
           "values marked *a seat* are the ones a seat-relative tensor "
           "(`observation_tensor(player)[game.observation_seat_permutation(player)]`) "
           "renumbers from the observer: its own entry first, then the next seats in turn "
           "order.", "",
           "| JSON path | type | meaning | tensor |", "| --- | --- | --- | --- |"]
    for path, kind, desc, note in rows[1:]:
        cell = desc.replace("|", "\\|").replace("\n", " ")
        if not note and path in spans:
            note = "{}:{}".format(*spans[path])
        out.append(f"| `{path}` | {kind} | {cell} | {note} |")
    out += ["", "## Tensor layout", "",
            f"`observation_tensor(player)` is a `float32` vector of {layout.size} values.", "",
            "| slice | JSON path | encoding |", "| --- | --- | --- |"]
    for s in layout.slices:
        enc = s.encoding if len(s.encoding) <= 120 else s.encoding[:117] + "..."
        out.append(f"| {s.start}:{s.start + s.size} | `{s.path}` | {enc} |")
    return "\n".join(out) + "\n"


class ObservationSpec:
    """A game's observation schema with its validator and tensor layout (built once per
    process and parameters, ``Game._obs_spec``; ``Game`` methods delegate here).

    Args:
        game: the game's name (for messages).
        document: the schema (:func:`document`).
        layout: its :class:`TensorLayout` when the caller holds it already (None: built).

    Raises:
        jsonschema.SchemaError: ``document`` is not a valid draft 2020-12 schema.
        ValueError: ``document`` has a node the tensor cannot encode (see TensorLayout).
    """

    def __init__(self, game: str, document: dict, layout: TensorLayout | None = None):
        import jsonschema

        jsonschema.Draft202012Validator.check_schema(document)
        self.game = game
        self.document = document
        self.layout = TensorLayout(document) if layout is None else layout
        self._validator = jsonschema.Draft202012Validator(document)
        self._fast = fast_validator(document)

    def validate(self, observation: Any) -> None:
        """Raises :class:`ObservationError` listing every problem of ``observation``."""
        validate(self.game, self._validator, observation, self._fast)

    def integers(self, observation: Any) -> Any:
        """A valid ``observation`` with integral floats at integer fields as ints
        (:func:`integers`; itself when it has none)."""
        return integers(self.document, observation)

    def encode(self, observation: Mapping[str, Any], out: np.ndarray | None = None) -> np.ndarray:
        return self.layout.encode(observation, out)

    def markdown(self, heading: str) -> str:
        return markdown(self.document, self.layout, heading)
