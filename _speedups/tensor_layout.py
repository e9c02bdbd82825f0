"""A game's tensor layout for a compiled writer that must cover all of it (Rat Trap, Ratapolis).

:class:`CheckedLayout` is :class:`ratai._speedups.core.ObsLayout` (the layout indexed by JSON
path, once per game) that also records every slice a writer's table builder looks up:
:meth:`CheckedLayout.finish` raises :class:`LayoutMismatch` naming the slices nobody claimed.
So a field added to a game's schema (say a new public fact of Rat Trap's observation), or a
changed encoding, turns the compiled writer off instead of letting it write a tensor that
leaves the field at 0: the twin then encodes ``observation(player)`` with the reference
encoder, and ``tests/speedups/test_cy_obs_tensor.py`` (which requires the compiled path)
fails, naming the field to add to the writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .core import ObsLayout

__all__ = ["CheckedLayout", "LayoutMismatch"]


class LayoutMismatch(ValueError):
    """The game's tensor layout is not the one a compiled writer was written for."""


class CheckedLayout(ObsLayout):
    """``ObsLayout`` with a record of the slices looked up (see the module docstring).

    The accessors of ``ObsLayout`` (``flag``, ``number``, ``hot``, ``length``, ...) claim the
    slice they read; the ones below add checks a writer over fixed C indices needs.
    Every lookup error is a :class:`LayoutMismatch` (a ``ValueError``) naming the path.
    """

    def __init__(self, game: Any):
        super().__init__(game)
        self._claimed: set[tuple[str, str, int]] = set()

    def slice(self, path: str, kind: str, which: int = 0):
        try:
            sl = super().slice(path, kind, which)
        except ValueError as exc:
            raise LayoutMismatch(str(exc)) from None
        self._claimed.add((path, kind, which))
        return sl

    def boolean(self, path: str) -> int:
        """The cell of the boolean at ``path`` (a number with ``lo`` 0 and ``scale`` 1)."""
        sl = self.slice(path, "number")
        if (sl.lo, sl.scale) != (0, 1.0) or sl.encoding != "0 or 1":
            raise LayoutMismatch(f"{self.game} tensor layout: {path} is not a boolean")
        return sl.start

    def onehot(self, path: str, values: Sequence[Any] | None = None) -> tuple[int, list]:
        """``(start, values)`` of the enum at ``path``; with ``values``, the enum must list
        exactly these in this order (a writer's index is then the value's position)."""
        sl = self.slice(path, "enum")
        if values is not None and list(sl.values) != list(values):
            raise LayoutMismatch(f"{self.game} tensor layout: enum {path} lists "
                                 f"{list(sl.values)}, the writer expects {list(values)}")
        return sl.start, list(sl.values)

    def multiset(self, path: str, values: Sequence[Any]) -> tuple[int, float]:
        """``(start, increment)`` of the multiset over exactly ``values`` (in order) at
        ``path``: one item adds ``increment`` to the cell of its value's position."""
        sl = self.slice(path, "multiset")
        if list(sl.values) != list(values):
            raise LayoutMismatch(f"{self.game} tensor layout: multiset {path} is over "
                                 f"{list(sl.values)}, the writer expects {list(values)}")
        return sl.start, float(sl.scale)

    def items(self, path: str) -> int:
        """How many items of the list at ``path`` the layout encodes (``path[0]``...)."""
        return max(self._items.get(path, ()), default=-1) + 1

    def unused(self, path: str, first: int) -> None:
        """Claim every slice of the items ``path[first]``, ``path[first + 1]``... of a list
        that the writer never fills (its twin holds at most ``first`` items there; those
        cells stay 0, as in the reference)."""
        for index, keys in self._items.get(path, {}).items():
            if index >= first:
                for sub, kind in keys:
                    self._claimed.update((sub, kind, i) for i in range(len(self._at[sub, kind])))

    def finish(self) -> None:
        """Raises :class:`LayoutMismatch` naming every slice no lookup claimed."""
        left = [sl.path for (path, kind), slices in self._at.items()
                for i, sl in enumerate(slices) if (path, kind, i) not in self._claimed]
        if left:
            more = f" (and {len(left) - 8} more)" if len(left) > 8 else ""
            raise LayoutMismatch(f"{self.game}: the compiled tensor writer does not know "
                                 f"{', '.join(left[:8])}{more}")
