"""ratai.bots: bots that choose actions for one seat, built with :func:`make_bot`.

Every bot sees a state only through that seat's information: it reads
``state.legal_actions(player)`` at the seat's own decision nodes and, when it needs a full
state of a hidden-information game, ``state.resample_from_infostate(player, rng)``. So two
states with the same ``information_state_string(player)`` get the same answer for the same
seed.

Kinds (see each class): ``random`` (:class:`RandomBot`), ``heuristic``
(:class:`HeuristicBot`), ``mcts`` (:class:`MCTSBot`, UCT — Kocsis & Szepesvári 2006),
``ismcts`` (:class:`ISMCTSBot`, Cowling, Powley & Whitehouse 2012), ``pimc``
(:class:`PIMCBot`, Ginsberg 2001 / Long et al. 2010), ``expectimax``
(:class:`ExpectimaxBot`, Michie 1966 / Ballard 1983), ``smmcts`` (:class:`SMMCTSBot`,
decoupled UCT — Lanctot et al. 2013 / Tak et al. 2014), ``az`` (:class:`AZBot`, PUCT over
IS-MCTS with a learned network — Silver et al. 2018 / Cowling et al. 2012).

Strength presets: ``make_bot("level", game, player, level=L)`` with ``L`` in 1..10 builds
the kind and budget calibrated for that game (:mod:`ratai.bots.levels`, measured by
``ratai ladder``).

>>> from ratai.bots import make_bot
>>> bot = make_bot("ismcts", game, player=1, iterations=1000, seed=7)  # doctest: +SKIP
>>> analysis = bot.analyze(state)                                       # doctest: +SKIP
>>> analysis.best_action, analysis.moves[0].visits, analysis.pv        # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from ratai.engines.api import Game
from ratai.search.common import Analysis, Budget, MoveStat, PVStep

from .az import AZBot
from .base import Bot, RandomBot
from .heuristic import HeuristicBot
from .search_bots import (
    ExpectimaxBot,
    ISMCTSBot,
    MCTSBot,
    PIMCBot,
    SearchBot,
    SMMCTSBot,
)

__all__ = [
    "Bot", "RandomBot", "HeuristicBot", "SearchBot", "MCTSBot", "ISMCTSBot", "PIMCBot",
    "ExpectimaxBot", "SMMCTSBot", "AZBot", "Analysis", "MoveStat", "PVStep", "make_bot",
    "BOT_KINDS",
]

BOT_KINDS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "mcts": MCTSBot,
    "ismcts": ISMCTSBot,
    "pimc": PIMCBot,
    "expectimax": ExpectimaxBot,
    "smmcts": SMMCTSBot,
    "az": AZBot,
}


def make_bot(kind: str, game: Game, player: int, *, iterations: int | None = None,
             time_limit: float | None = None, max_depth: int | None = None,
             seed: Any = None, level: int | None = None, **kw: Any) -> Bot:
    """Create a bot of ``kind`` for seat ``player`` of ``game``.

    Args:
        kind: one of :data:`BOT_KINDS`, or ``"level"`` with ``level``.
        level: with ``kind="level"``: a strength preset 1..10 (1 random, then the heuristic
            and rising rollout search budgets in their measured order), resolved for
            ``game`` from ``ratai/bots/levels.json`` (:func:`ratai.bots.levels.level_spec`);
            it sets kind, budget and options, so none of ``iterations``, ``time_limit``,
            ``max_depth`` or options may be given.
        iterations: search budget in iterations (exact; the reproducible budget). For
            ``expectimax`` a node budget.
        time_limit: search budget in seconds of wall clock. With ``iterations`` too, the
            first exhausted stops the search.
        max_depth: depth limit in plies (``expectimax``).
        seed: fixes the bot's random choices (an ``int``: reproducible per position).
        **kw: the kind's options (see each bot class), plus ``on_progress`` /
            ``progress_every`` / ``skip_forced`` / ``stop`` for every kind but ``random``
            (the heuristic included).

    Raises:
        ValueError: unknown ``kind`` (the message lists the known kinds), a search bot
            without a budget, an unknown or bad option, or a game the kind cannot play
            (``mcts`` on hidden information without ``determinize=True``); for
            ``"level"``: a missing or bad level (allowed 1..10), a game without calibrated
            levels, or a budget or option given besides the level.
    """
    if kind == "level":
        from ratai.arena import BotSpec

        from .levels import level_spec

        if level is None:
            raise ValueError("bot kind 'level' needs level=1..10")
        given = sorted([k for k, v in (("iterations", iterations), ("time_limit", time_limit),
                                       ("max_depth", max_depth)) if v is not None] + list(kw))
        if given:
            raise ValueError(f"bot kind 'level' sets its own budget and options; remove "
                             f"{given}")
        return BotSpec.parse(level_spec(game, level)).make(game, player, seed)
    if level is not None:
        raise ValueError(f"level={level!r} needs bot kind 'level', not {kind!r}")
    if kind not in BOT_KINDS:
        raise ValueError(f"unknown bot kind {kind!r}; known kinds: {sorted(BOT_KINDS)} "
                         f"(or 'level' with level=1..10)")
    cls = BOT_KINDS[kind]
    if cls is RandomBot:
        if kw:
            raise ValueError(f"unexpected argument(s) {sorted(kw)} for bot kind 'random'")
        # it searches nothing, but a budget given must still be a valid one (as every kind's)
        Budget(iterations, time_limit, max_depth).check(need="")
        return RandomBot(game, player, seed=seed)
    return cls(game, player, iterations=iterations, time_limit=time_limit,
               max_depth=max_depth, seed=seed, **kw)
