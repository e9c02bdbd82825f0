"""Type stub of ``ratai._speedups.search`` (compiled UCT / IS-MCTS; see search.pyx)."""

from typing import Any

from ratai.search.common import Analysis

def is_cython_state(state: Any) -> bool: ...
def info_hash(state: Any, player: int) -> int: ...

class CyUCT:
    iterations: int
    nodes: int
    max_depth: int
    depth_sum: int
    def __init__(self, player: int, exploration: float = 1.0) -> None: ...
    def analyze(self, state: Any, budget: Any, srng: Any, on_progress: Any = None,
                every: int = 100, seed: Any = None, kind: str = "mcts") -> Analysis: ...

class CyISMCTS:
    iterations: int
    nodes: int
    max_depth: int
    depth_sum: int
    def __init__(self, player: int, exploration: float = 0.7,
                 chance_key: str = "infostate") -> None: ...
    def analyze(self, state: Any, budget: Any, srng: Any, on_progress: Any = None,
                every: int = 100, seed: Any = None, kind: str = "ismcts") -> Analysis: ...
