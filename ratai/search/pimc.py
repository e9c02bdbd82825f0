"""Perfect-information Monte Carlo (PIMC) search: determinize, then search each world.

Ginsberg 2001, "GIB: Imperfect Information in a Computationally Challenging Game" (JAIR 14)
plays bridge this way; Long, Sturtevant, Buro & Furtak 2010, "Understanding the Success of
Perfect Information Monte Carlo Sampling in Game Tree Search" (AAAI) analyse when it works
(and its two known flaws, strategy fusion and non-locality). Here: ``determinizations``
worlds are drawn with ``state.resample_from_infostate(player, rng)``, a UCT search
(:class:`ratai.search.uct.UCT`, Kocsis & Szepesvári 2006) runs on each with an equal share
of what is left of the budget, and the root moves' votes are aggregated by visit counts
(values are the visit-weighted means over the worlds).

Budget: the clock runs from the bot's call, and each world is drawn only when its turn
comes, inside the budget (drawing a world is part of the work the budget pays for); the
final report's cost (labels, a PV per move) is reserved up front
(:func:`ratai.search.common.root_labels`); the time left is shared evenly among the
worlds not yet searched; the ``stop`` flag of the
budget and ``on_progress`` returning ``False`` end the search at once.
"""

from __future__ import annotations

from typing import Any

from ratai.engines.api import Game, State

from .common import (
    DEFAULT_MAX_MEMORY_MB,
    Analysis,
    Budget,
    check_int,
    free_later,
    node_cap,
    root_labels,
)
from .uct import (
    MAX_REPORTED_MOVES,
    MULTI_PV_LIMIT,
    PY_NODE_BYTES,
    UCT,
    RunResult,
    reported_moves,
    root_moves,
    root_visits,
    tree_pv,
)

__all__ = ["PIMC", "MAX_DETERMINIZATIONS", "MAX_REPORTED_MOVES"]

#: The largest ``determinizations`` accepted.
MAX_DETERMINIZATIONS = 4096


class PIMC:
    """PIMC for seat ``player`` of ``game``.

    Args:
        game, player: the game and the searching seat.
        determinizations: number of worlds ``N`` (an int 1..4096; each gets an equal share
            of the budget left when its turn comes); 1 for a perfect-information game,
            whose only determinization is the state itself.
        search_cls: the per-world search (:class:`ratai.search.uct.UCT` or its decoupled
            twin :class:`ratai.search.smmcts.SMMCTS`).
        max_nodes: a cap on the nodes of all the worlds' trees together (``None``: none).
        max_memory_mb: a cap in MB on the same (default 512; ``None``: none), converted with
            :data:`ratai.search.uct.PY_NODE_BYTES`. Every world's tree is kept until the
            answer, so each gets an equal share of the cap; a tree at its share stops
            growing and its search goes on with playouts within the budget.
        **uct_kw: passed to ``search_cls`` (``exploration``, ``rollout``, ...).

    Raises:
        ValueError: a bad parameter (named).
    """

    def __init__(self, game: Game, player: int, *, determinizations: int = 8,
                 search_cls: type[UCT] = UCT, max_nodes: int | None = None,
                 max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB, **uct_kw: Any):
        check_int("determinizations", determinizations, 1, MAX_DETERMINIZATIONS)
        self.max_nodes = node_cap(max_nodes, max_memory_mb, PY_NODE_BYTES)   # validates
        self.game = game
        self.player = player
        self.n = game.num_players()
        # Every determinization of a perfect-information state is the state itself.
        self.k = 1 if game.perfect_information else determinizations
        self.uct = search_cls(game, player, **uct_kw)

    def analyze(self, state: State, budget: Budget, srng, on_progress=None, every: int = 100,
                seed: Any = None, kind: str = "pimc",
                legal: list[int] | None = None) -> Analysis:
        """Search up to ``k`` determinizations of the seat's information state; aggregate
        the root statistics by visits. Returns within the budget (see the module doc)."""
        player, n, k = self.player, self.n, self.k
        budget.begin()
        if legal is None:  # ``legal``: the seat's legal moves, when the caller has them
            legal = state.legal_actions(player)
        worlds: list[State] = []
        done: list[RunResult] = []
        tie = srng.tiebreak(legal)  # seeded root tie-breaks, never the action id
        # the moves that can be reported, labelled now: this also reserves, inside the
        # budget, the time of the final report (labels and multi-PVs; root_labels), so the
        # answer and not only the search loop ends within time_limit
        labels = root_labels(state, player, legal[:MAX_REPORTED_MOVES], budget,
                             MULTI_PV_LIMIT)

        def label(a: int) -> str:
            text = labels.get(a)
            if text is None:
                text = labels[a] = state.action_to_string(player, a)
            return text

        def report(extra: list[RunResult]) -> Analysis:
            res = done + extra
            shown = legal
            # each world's root visits, once per report (a per-move rescan of every world's
            # root made the report quadratic in the moves: 1-2 ms CPU at 100+ moves)
            per_world = [root_visits(r.root, player, {}) for r in res]
            if len(legal) > MAX_REPORTED_MOVES:
                vis: dict = {}
                for d in per_world:
                    for a, v in d.items():
                        vis[a] = vis.get(a, 0) + v
                shown = reported_moves(legal, vis)

            def pv_of(a: int, limit: int):
                # the move's line in the world whose tree visited it most (multi-PV)
                i = max(range(len(res)), key=lambda j: per_world[j].get(a, 0))
                return tree_pv(res[i].root, worlds[i], a, player, limit)

            moves = root_moves([r.root for r in res], player, shown, label, n, tie,
                               pv_of if res else None, budget.end)
            best = moves[0].action
            return Analysis(best, moves, moves[0].pv, sum(r.iterations for r in res),
                            sum(r.nodes for r in res), max((r.max_depth for r in res), default=0),
                            budget.elapsed(), seed, player, kind)

        res = None
        for i in range(k):
            if budget.expired() or (budget.iterations is not None
                                    and budget.split(k, i).iterations == 0):
                break
            world = state if self.game.perfect_information else \
                state.resample_from_infostate(player, srng.child_seed())
            worlds.append(world)
            share = budget.split(k, i)
            if budget.time_limit is not None:
                share.time_limit = budget.remaining() / (k - i)
                if share.time_limit <= 0.0:
                    worlds.pop()
                    break
            hook = None
            if on_progress is not None:
                def hook(it: int, res: RunResult) -> bool:
                    return on_progress(report([res])) is not False
            res = self.uct.run(world, share, srng.py, hook, every,
                               max_nodes=max(1, self.max_nodes // k))
            done.append(res)
            if res.stopped or budget.stopped():
                break
        out = report([])
        free_later(done)  # the trees are freed off the caller's path
        done = res = None
        return out

