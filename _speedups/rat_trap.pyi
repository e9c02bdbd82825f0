"""Type stub of the Rat Trap Cython twin (``rat_trap.pyx``)."""

from collections.abc import Mapping
from typing import Any

import numpy as np

from ratai.engines.rat_trap import rules as _R

from .core import CyGame, CyState

PHASE_NAMES: tuple[str, ...]
TASK_NAMES: tuple[str, ...]
TASK_NARGS: tuple[int, ...]

class RatTrapState(CyState):
    _game: RatTrapGame
    def __init__(self, game: RatTrapGame) -> None: ...
    def get_game(self) -> RatTrapGame: ...
    def is_terminal(self) -> bool: ...
    def to_reference(self) -> _R.RatTrapState: ...
    def resample_c(
        self, player: int, rng: int | np.random.Generator | None = None) -> RatTrapState: ...
    fast_c_resample: bool

def c_determinize(state: RatTrapState, player: int, seed: int) -> RatTrapState | None: ...

class RatTrapGame(CyGame, _R.RatTrapGame):
    def new_initial_state(self) -> RatTrapState: ...  # type: ignore[override]
    def state_from_observation(  # type: ignore[override]
        self, player: int, observation: Mapping[str, Any], rng: Any = None) -> RatTrapState: ...
    def from_reference(self, ref: _R.RatTrapState) -> RatTrapState: ...
    def deserialize_state(self, data: bytes | str) -> RatTrapState: ...  # type: ignore[override]
