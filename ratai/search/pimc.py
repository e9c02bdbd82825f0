"""Perfect-information Monte Carlo (PIMC) search: determinize, then search each world.

Ginsberg 2001, "GIB: Imperfect Information in a Computationally Challenging Game" (JAIR 14)
plays bridge this way; Long, Sturtevant, Buro & Furtak 2010, "Understanding the Success of
Perfect Information Monte Carlo Sampling in Game Tree Search" (AAAI) analyse when it works
(and its two known flaws, strategy fusion and non-locality). Here: ``determinizations``
worlds are drawn with ``state.resample_from_infostate(player, rng)``, a UCT search
(:class:`ratai.search.uct.UCT`, Kocsis & Szepesvári 2006) runs on each with an equal share
of the budget, and the root moves' votes are aggregated by visit counts (values are the
visit-weighted means over the worlds).
"""

from __future__ import annotations

import time
from typing import Any

from ratai.engines.api import Game, State

from .common import Analysis, Budget
from .uct import UCT, RunResult, root_moves, tree_pv

__all__ = ["PIMC"]


class PIMC:
    """PIMC for seat ``player`` of ``game``.

    Args:
        game, player: the game and the searching seat.
        determinizations: number of worlds ``N`` (each gets ``1/N`` of the budget); 1 for a
            perfect-information game, whose only determinization is the state itself.
        search_cls: the per-world search (:class:`ratai.search.uct.UCT` or its decoupled
            twin :class:`ratai.search.smmcts.SMMCTS`).
        **uct_kw: passed to ``search_cls`` (``exploration``, ``rollout``, ...).

    Raises:
        ValueError: a bad parameter (named).
    """

    def __init__(self, game: Game, player: int, *, determinizations: int = 8,
                 search_cls: type[UCT] = UCT, **uct_kw: Any):
        if isinstance(determinizations, bool) or not isinstance(determinizations, int) \
                or determinizations < 1:
            raise ValueError(f"bad determinizations {determinizations!r}: allowed an int >= 1")
        self.game = game
        self.player = player
        self.n = game.num_players()
        # Every determinization of a perfect-information state is the state itself.
        self.k = 1 if game.perfect_information else determinizations
        self.uct = search_cls(game, player, **uct_kw)

    def analyze(self, state: State, budget: Budget, srng, on_progress=None, every: int = 100,
                seed: Any = None, kind: str = "pimc") -> Analysis:
        """Search ``k`` determinizations of the seat's information state; aggregate by visits."""
        player, n, k = self.player, self.n, self.k
        legal = state.legal_actions(player)
        worlds = [state.resample_from_infostate(player, srng.child_seed()) for _ in range(k)]
        budget.begin()
        done: list[RunResult] = []
        label = worlds[0]

        def report(extra: list[RunResult]) -> Analysis:
            res = done + extra
            moves = root_moves([r.root for r in res], player, legal,
                               lambda a: label.action_to_string(player, a), n)
            best = moves[0].action
            pv = ()
            if res:
                i = max(range(len(res)), key=lambda j: _visits(res[j].root, best))
                pv = tree_pv(res[i].root, worlds[i], best, player)
            return Analysis(best, moves, pv, sum(r.iterations for r in res),
                            sum(r.nodes for r in res), max((r.max_depth for r in res), default=0),
                            budget.elapsed(), seed, player, kind)

        stop = False
        for i, world in enumerate(worlds):
            share = budget.split(k, i)
            if budget.time_limit is not None:
                share.time_limit = max(0.0, budget.deadline - time.perf_counter()) / (k - i)
            if share.iterations == 0 or share.time_limit == 0.0:
                continue
            hook = None
            if on_progress is not None:
                def hook(it: int, res: RunResult) -> bool:
                    return on_progress(report([res])) is not False
            res = self.uct.run(world, share, srng.py, hook, every)
            done.append(res)
            if res.stopped:
                stop = True
            if stop:
                break
        return report([])


def _visits(root, action: int) -> int:
    if root.legal is not None and root.svis is not None:
        return sum(v for la, vis in zip(root.legal, root.svis, strict=False)
                   for a, v in zip(la, vis, strict=False) if a == action)
    ch = root.children.get(action)
    return ch.visits if ch is not None else 0
