"""Offsets of a game's observation tensor, for the compiled tensor writers of the twins.

A twin's ``c_observation_tensor`` writes ``State.observation_tensor(player)`` straight from
its C struct. It must follow the game's :class:`ratai.engines.obs_schema.TensorLayout`
exactly, so the offsets and scalings it uses are read from that layout once per game
instance (never hard-coded): :class:`LayoutIndex` walks the layout's slices by JSON path,
checks that each one has the encoding the writer expects, and returns its start (and, for a
number, the ``(x - lo) * scale`` of the reference encoder; for an enum, its values).

Every slice must be claimed exactly once: :meth:`LayoutIndex.finish` raises
:class:`LayoutMismatch` naming the slices no writer claimed, so a field added to a game's
schema (or a changed encoding) disables the compiled writer instead of writing a wrong
tensor (the twin then falls back to the reference encoder, and the tests that require the
compiled path fail, naming the field).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["LayoutIndex", "LayoutMismatch"]

_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")


class LayoutMismatch(ValueError):
    """The game's tensor layout is not the one a compiled writer was written for."""


class LayoutIndex:
    """The slices of ``game``'s observation tensor by JSON path (see the module docstring).

    Args:
        game: a game with an observation schema (``Game._obs_spec()``).

    Attributes:
        size: the tensor's length.

    Each accessor claims the next unclaimed slice of ``path`` (a nullable value or an
    optional property has its "present" flag first, then its value, under one path) and
    raises :class:`LayoutMismatch` when there is none or its encoding is not the one asked.
    """

    def __init__(self, game: Any):
        spec = game._obs_spec()
        self.game = game.name
        self.document = spec.document
        self.size = spec.layout.size
        self._slices: dict[str, list] = {}
        for sl in spec.layout.slices:
            self._slices.setdefault(sl.path, []).append(sl)
        self._claimed: dict[str, int] = {}

    # -- schema nodes -------------------------------------------------------------------
    def node(self, path: str) -> dict:
        """The schema node at ``path`` (a nullable's non-null branch)."""
        node = _unwrap(self.document)
        pos = 1 if path.startswith("$") else 0
        for m in _STEP.finditer(path, pos):
            key, idx = m.group(1), m.group(2)
            if node.get("type") == "object":
                if "properties" in node:
                    if key not in node["properties"]:
                        raise LayoutMismatch(f"{self.game}: no field {path!r} in the schema")
                    node = node["properties"][key]
                else:
                    node = node["additionalProperties"]
            elif node.get("type") == "array":
                if idx is None:
                    raise LayoutMismatch(f"{self.game}: {path!r} indexes an array by name")
                node = (node["prefixItems"][int(idx)] if "prefixItems" in node
                        else node["items"])
            else:
                raise LayoutMismatch(f"{self.game}: {path!r} goes below a leaf")
            node = _unwrap(node)
        return node

    def _take(self, path: str, what: str, size: int | None = None):
        queue = self._slices.get(path, ())
        i = self._claimed.get(path, 0)
        if i >= len(queue):
            raise LayoutMismatch(f"{self.game}: the tensor layout has no (further) slice "
                                 f"{path!r} ({what})")
        sl = queue[i]
        if size is not None and sl.size != size:
            raise LayoutMismatch(f"{self.game}: slice {path!r} has {sl.size} values, the "
                                 f"compiled writer expects {size} ({what})")
        self._claimed[path] = i + 1
        return sl

    # -- accessors ----------------------------------------------------------------------
    def flag(self, path: str) -> int:
        """Start of the "present" flag of a nullable value or optional property."""
        sl = self._take(path, "a present flag", 1)
        if not sl.encoding.startswith("1 if present"):
            raise LayoutMismatch(f"{self.game}: slice {path!r} is {sl.encoding!r}, not a "
                                 f"present flag")
        return sl.start

    def boolean(self, path: str) -> int:
        """Start of a boolean (0 or 1)."""
        if self.node(path).get("type") != "boolean":
            raise LayoutMismatch(f"{self.game}: {path!r} is not a boolean")
        return self._take(path, "a boolean", 1).start

    def number(self, path: str) -> tuple[int, float, float]:
        """``(start, lo, scale)`` of a number: the reference writes ``(x - lo) * scale``."""
        node = self.node(path)
        if node.get("type") not in ("integer", "number") or "enum" in node:
            raise LayoutMismatch(f"{self.game}: {path!r} is not a number")
        lo, hi = node.get("x-scale", (node.get("minimum"), node.get("maximum")))
        start = self._take(path, "a number", 1).start
        return start, float(lo), (1.0 / (hi - lo) if hi > lo else 0.0)

    def onehot(self, path: str, values: Sequence[Any] | None = None) -> tuple[int, list]:
        """``(start, values)`` of an enum's one-hot; with ``values``, the enum must list
        exactly these, in this order (the writer's index is then the value's position)."""
        node = self.node(path)
        if "enum" not in node:
            raise LayoutMismatch(f"{self.game}: {path!r} is not an enum")
        got = list(node["enum"])
        if values is not None and got != list(values):
            raise LayoutMismatch(f"{self.game}: enum {path!r} lists {got}, the compiled "
                                 f"writer expects {list(values)}")
        return self._take(path, "a one-hot", len(got)).start, got

    def multiset(self, path: str, values: Sequence[Any]) -> tuple[int, float]:
        """``(start, step)`` of a multiset over exactly ``values`` (in order): each
        element adds ``step`` (``1 / maxItems``) to its value's count."""
        node = self.node(path)
        if node.get("x-tensor") != "multiset":
            raise LayoutMismatch(f"{self.game}: {path!r} is not a multiset")
        got = list(node["items"]["enum"])
        if got != list(values):
            raise LayoutMismatch(f"{self.game}: multiset {path!r} is over {got}, the "
                                 f"compiled writer expects {list(values)}")
        start = self._take(path, "a multiset", len(got)).start
        return start, 1.0 / max(1, int(node["maxItems"]))

    def items(self, path: str) -> tuple[int, int]:
        """``(shown, max_items)`` of a list: the reference encodes its first ``shown``
        items (under ``path[i]``), then the length slot (see :meth:`length`)."""
        node = self.node(path)
        if node.get("type") != "array" or "prefixItems" in node:
            raise LayoutMismatch(f"{self.game}: {path!r} is not a bounded list")
        n = int(node["maxItems"])
        return min(n, int(node.get("x-tensor-items", n))), n

    def length(self, path: str) -> tuple[int, int]:
        """``(start, max_items)`` of a bounded list's length slot (``len / max_items``),
        or ``(-1, max_items)`` when the list has a fixed length."""
        node = self.node(path)
        n = int(node["maxItems"])
        if node.get("minItems", 0) == n:
            return -1, n
        return self._take(f"{path}.length", "a list length", 1).start, n

    def unused(self, path: str, first: int) -> None:
        """Claim every slice of the items ``path[first]``, ``path[first + 1]``, ... of a
        list, which the writer never fills (the twin's struct holds at most ``first`` items
        there; those slices stay 0)."""
        prefix = f"{path}["
        for sub, queue in self._slices.items():
            if sub.startswith(prefix):
                index = sub[len(prefix):].split("]", 1)[0]
                if index.isdigit() and int(index) >= first:
                    self._claimed[sub] = len(queue)

    def finish(self) -> None:
        """Raises :class:`LayoutMismatch` naming every slice no accessor claimed."""
        left = [sl.path for path, queue in self._slices.items()
                for sl in queue[self._claimed.get(path, 0):]]
        if left:
            more = f" (and {len(left) - 8} more)" if len(left) > 8 else ""
            raise LayoutMismatch(f"{self.game}: the compiled tensor writer does not know "
                                 f"{', '.join(left[:8])}{more}")


def _unwrap(node: dict) -> dict:
    if "anyOf" in node:
        inner = [n for n in node["anyOf"] if n.get("type") != "null"]
        return _unwrap(inner[0])
    return node
