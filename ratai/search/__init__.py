"""ratai.search: the search algorithms behind the bots of :mod:`ratai.bots`.

* :mod:`.uct` — UCT (Kocsis & Szepesvári 2006) with vector returns, sampled chance and
  decoupled selection at simultaneous nodes.
* :mod:`.ismcts` — single-observer IS-MCTS (Cowling, Powley & Whitehouse 2012).
* :mod:`.pimc` — perfect-information Monte Carlo (Ginsberg 2001; Long et al. 2010).
* :mod:`.expectimax` — expectimax / max^n / paranoid with Star1 (Michie 1966; Ballard 1983).
* :mod:`.smmcts` — decoupled UCT for simultaneous moves (Lanctot et al. 2013; Tak et al. 2014).
* :mod:`.common` — the :class:`Analysis` report, budgets, seeding and playout policies.
"""

from .common import Analysis, Budget, MoveStat, PVStep, Rollout, SearchRng, numbers
from .expectimax import Expectimax
from .ismcts import ISMCTS
from .pimc import PIMC
from .smmcts import SMMCTS
from .uct import UCT, analyze_uct

__all__ = [
    "Analysis", "Budget", "MoveStat", "PVStep", "Rollout", "SearchRng", "numbers",
    "UCT", "analyze_uct", "ISMCTS", "PIMC", "Expectimax", "SMMCTS",
]
