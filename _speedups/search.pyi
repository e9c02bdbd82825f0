"""Type stub of ``ratai._speedups.search`` (compiled UCT / IS-MCTS / az PUCT; see search.pyx)."""

from collections.abc import Sequence
from typing import Any

from ratai.search.common import Analysis

NODE_BYTES: int

def is_cython_state(state: Any) -> bool: ...
def info_hash(state: Any, player: int) -> int: ...
def info_hash_nogil(state: Any, player: int) -> int | None: ...
def monotonic() -> float: ...

class _Search:
    iterations: int
    nodes: int
    max_depth: int
    depth_sum: int
    capped: bool
    threads: int
    gil_resamples: int
    gil_hashes: int
    def halt_now(self) -> None: ...
    def release(self) -> None: ...
    def fill(self) -> float: ...
    def kept_visits(self) -> int: ...

class CyUCT(_Search):
    def __init__(self, player: int, exploration: float = 1.0, max_nodes: int | None = None,
                 max_memory_mb: float | None = 512.0, threads: int = 1) -> None: ...
    def analyze(self, state: Any, budget: Any, srng: Any, on_progress: Any = None,
                every: int = 100, seed: Any = None, kind: str = "mcts",
                allowed: Sequence[int] | None = None, keep: bool = False) -> Analysis: ...
    def reanalyze(self, state: Any, path: Sequence[Any], budget: Any, srng: Any,
                  on_progress: Any = None, every: int = 100, seed: Any = None,
                  kind: str = "mcts") -> Analysis | None: ...
    def ponder(self, state: Any, path: Sequence[Any], budget: Any, srng: Any) -> int: ...

class CyISMCTS(_Search):
    def __init__(self, player: int, exploration: float = 0.7,
                 chance_key: str = "infostate", max_nodes: int | None = None,
                 max_memory_mb: float | None = 512.0, threads: int = 1,
                 merge: bool = False) -> None: ...
    def analyze(self, state: Any, budget: Any, srng: Any, on_progress: Any = None,
                every: int = 100, seed: Any = None, kind: str = "ismcts",
                allowed: Sequence[int] | None = None, keep: bool = False) -> Analysis: ...
    def reanalyze(self, state: Any, keys: Sequence[tuple], budget: Any, srng: Any,
                  on_progress: Any = None, every: int = 100, seed: Any = None,
                  kind: str = "ismcts") -> Analysis | None: ...
    def ponder(self, state: Any, keys: Sequence[tuple], budget: Any, srng: Any) -> int: ...

class CyAZ(CyISMCTS):
    evaluations: int
    py_tensors: int
    def __init__(self, player: int, model: Any, c_puct: float = 1.5,
                 dirichlet_alpha: float = 0.3, noise_fraction: float = 0.0,
                 rollout_mix: float = 0.0, fpu_reduction: float = 0.1,
                 chance_key: str = "infostate", max_nodes: int | None = None,
                 max_memory_mb: float | None = 512.0, threads: int = 1,
                 policy_playout: int = 0, policy_temperature: float = 1.0,
                 merge: bool = False) -> None: ...
    def analyze(self, state: Any, budget: Any, srng: Any, on_progress: Any = None,
                every: int = 100, seed: Any = None, kind: str = "az",
                allowed: Sequence[int] | None = None, keep: bool = False) -> Analysis: ...
    def reanalyze(self, state: Any, keys: Sequence[tuple], budget: Any, srng: Any,
                  on_progress: Any = None, every: int = 100, seed: Any = None,
                  kind: str = "az") -> Analysis | None: ...
