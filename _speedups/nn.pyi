"""Type stub of ``ratai._speedups.nn`` (the az network in C; see nn.pyx)."""

from collections.abc import Sequence
from typing import Any

import numpy as np

class CyNet:
    n: int
    d: int
    h1: int
    h2: int
    na: int
    arrays: dict[str, np.ndarray]
    def __init__(self, model: Any, n: int) -> None: ...
    def evaluate(self, tensor: Any, player: int, legal: Sequence[int],
                 softmax: bool = True) -> tuple[np.ndarray, np.ndarray]: ...
    def time_eval(self, tensor: Any, player: int, legal: Sequence[int], reps: int) -> float: ...
    def nonzero_fraction(self, tensor: Any) -> float: ...
