"""Type stub of the Rats to Riches Cython twin (``rats_to_riches.pyx``)."""

from collections.abc import Mapping
from typing import Any

import numpy as np

from ratai.engines.rats_to_riches import rules as _R

from .core import CyGame, CyState

PHASES: tuple[str, ...]
FRAME_KINDS: tuple[str, ...]

class RatsToRichesState(CyState):
    _game: RatsToRichesGame
    fast_c_resample: bool
    def __init__(self, game: RatsToRichesGame) -> None: ...
    def get_game(self) -> RatsToRichesGame: ...
    def is_terminal(self) -> bool: ...
    def income(self, p: int) -> int: ...
    def to_reference(self) -> _R.RatsToRichesState: ...
    def fast_resample(
        self, player: int, rng: int | np.random.Generator | None = None) -> RatsToRichesState: ...

class RatsToRichesGame(CyGame, _R.RatsToRichesGame):
    def new_initial_state(self) -> RatsToRichesState: ...  # type: ignore[override]
    def state_from_observation(  # type: ignore[override]
        self, player: int, observation: Mapping[str, Any], rng: Any = None
    ) -> RatsToRichesState: ...
    def from_reference(self, ref: _R.RatsToRichesState) -> RatsToRichesState: ...
    def reference_game(self) -> _R.RatsToRichesGame: ...
    def deserialize_state(self, data: bytes | str) -> RatsToRichesState: ...  # type: ignore[override]
