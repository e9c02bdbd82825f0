"""Type stub of ``ratai._speedups.search`` (compiled UCT / IS-MCTS; see search.pyx)."""

from collections.abc import Sequence
from typing import Any

from ratai.search.common import Analysis

NODE_BYTES: int

def is_cython_state(state: Any) -> bool: ...
def info_hash(state: Any, player: int) -> int: ...
def info_hash_nogil(state: Any, player: int) -> int | None: ...
def monotonic() -> float: ...

class CyUCT:
    iterations: int
    nodes: int
    max_depth: int
    depth_sum: int
    capped: bool
    threads: int
    def __init__(self, player: int, exploration: float = 1.0, max_nodes: int | None = None,
                 max_memory_mb: float | None = 512.0, threads: int = 1) -> None: ...
    def analyze(self, state: Any, budget: Any, srng: Any, on_progress: Any = None,
                every: int = 100, seed: Any = None, kind: str = "mcts",
                allowed: Sequence[int] | None = None, keep: bool = False) -> Analysis: ...
    def reanalyze(self, state: Any, path: Sequence[int], budget: Any, srng: Any,
                  on_progress: Any = None, every: int = 100, seed: Any = None,
                  kind: str = "mcts") -> Analysis | None: ...
    def release(self) -> None: ...

class CyISMCTS:
    iterations: int
    nodes: int
    max_depth: int
    depth_sum: int
    capped: bool
    threads: int
    def __init__(self, player: int, exploration: float = 0.7,
                 chance_key: str = "infostate", max_nodes: int | None = None,
                 max_memory_mb: float | None = 512.0, threads: int = 1) -> None: ...
    def analyze(self, state: Any, budget: Any, srng: Any, on_progress: Any = None,
                every: int = 100, seed: Any = None, kind: str = "ismcts",
                allowed: Sequence[int] | None = None) -> Analysis: ...
