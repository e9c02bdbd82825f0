"""Strength of the packaged ``az`` models: against the best rollout bot at equal time per move,
and against random seats (issue 14's targets), one seat-rotated match per row.

Usage (the default is short; the issue's figures want more games)::

    python bench/az_strength.py --seconds 0.05 --games 20 --workers 2
    python bench/az_strength.py --games-list rat_trap --players 3 --vs random --games 60
    python bench/az_strength.py --budgets 30,100,300,1000,3000 --opponent-iterations 1000
    python bench/az_strength.py --games-list rats_to_riches --players 4 --seconds 0.2 \
        --games 40 --seeds 18,19,20,21 --workers 2

For each title (``--games-list``) and player count (``--players``), one ``ratai arena``
match (``ratai.arena.run_arena``, seats rotated, every game seeded from ``--seed``): ``az``
in one seat against the title's rollout search (``mcts`` on perfect information, ``ismcts``
with hidden information) in the others, both at ``--seconds`` per move (``--vs rollout``), or
``az`` at ``--iterations`` against random seats (``--vs random``). With ``--budgets`` (a list
of iteration budgets; issue 14's "strength rises with budget") one row per budget: ``az`` at
that many iterations against the rollout search at ``--opponent-iterations`` (``--vs
rollout``) or against random seats. Prints az's mean return per game (a k-way shared win
counts 1/k) with its 95% Wilson interval, the fair share ``1/n``, the ratio to it, and the
number of games. With ``--seeds`` (a list) each row is played once per seed (``--games``
games each, one printed row per seed) and a ``pooled`` row follows: all those games in one
mean and one interval. A title whose packaged model does not play that player count is
reported as such. The machine's load changes equal-time results: quote ``uptime`` with them.
"""

from __future__ import annotations

import argparse
import sys
import time

from ratai.arena import run_arena, standings
from ratai.engines import load_game
from ratai.nn import Model, ModelError, packaged

TITLES = ("first_rat", "rat_trap", "ratapolis", "rats_to_riches")


def rollout_kind(game) -> str:
    """The title's best rollout search: ``mcts`` on perfect information, else ``ismcts``."""
    return "mcts" if game.perfect_information else "ismcts"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games-list", default=",".join(TITLES), help="titles, comma-separated")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--vs", choices=["rollout", "random"], default="rollout")
    ap.add_argument("--seconds", type=float, default=0.05, help="per move (--vs rollout)")
    ap.add_argument("--iterations", type=int, default=1000, help="az budget (--vs random)")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", default=None,
                    help="seeds, comma-separated: one match of --games games each, then "
                         "their pooled row (overrides --seed)")
    ap.add_argument("--budgets", default=None,
                    help="az iteration budgets, comma-separated: one row each")
    ap.add_argument("--opponent-iterations", type=int, default=1000,
                    help="the rollout search's budget with --budgets")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="an az option (e.g. rollout_mix=1); repeatable")
    a = ap.parse_args(argv)
    try:
        a.seed_list = [int(x) for x in a.seeds.split(",")] if a.seeds else [a.seed]
    except ValueError:
        ap.error(f"bad --seeds {a.seeds!r}: allowed integers, comma-separated")
    opts = "".join(f":{o}" for o in a.option)
    print(f"{'title':15s} {'n':>2s} {'az':>10s} {'opponents':>16s} {'return':>6s} "
          f"{'95% interval':>15s} {'fair':>5s} {'ratio':>5s} {'games':>5s} {'s':>6s}")
    for title in a.games_list.split(","):
        game = load_game(title, num_players=a.players)
        path = packaged(game)
        try:
            if path is None:
                raise ModelError("no packaged model")
            Model.load(path).check_game(game)
        except ModelError as exc:
            print(f"{title:15s} {a.players:2d} skipped: {exc}")
            continue
        if a.budgets:
            rows = [(f"az:{int(b)}{opts}",
                     f"{rollout_kind(game)}:{a.opponent_iterations}" if a.vs == "rollout"
                     else "random") for b in a.budgets.split(",")]
        elif a.vs == "rollout":
            rows = [(f"az:{a.seconds:g}s{opts}", f"{rollout_kind(game)}:{a.seconds:g}s")]
        else:
            rows = [(f"az:{a.iterations}{opts}", "random")]
        for me, other in rows:
            row(title, a, me, other)
    return 0


def row(title: str, a, me: str, other: str) -> None:
    """Seat-rotated matches of ``me`` in one seat against ``other`` in the rest, one per seed
    of ``a.seed_list``; prints a row per match and, with more than one seed, the pooled
    row (``ratai.arena.standings`` over all their records)."""
    bots = [me] + [other] * (a.players - 1)
    pooled: list[dict] = []
    pooled_s = 0.0
    for seed in a.seed_list:
        t0 = time.perf_counter()
        records = run_arena(title, {"num_players": a.players}, bots, a.games, seed=seed,
                            workers=a.workers)
        seconds = time.perf_counter() - t0
        label = f"seed {seed}" if len(a.seed_list) > 1 else ""
        print_row(title, a.players, me, other, records, seconds, label)
        pooled += records
        pooled_s += seconds
    if len(a.seed_list) > 1:
        print_row(title, a.players, me, other, pooled, pooled_s, "pooled")


def print_row(title: str, players: int, me: str, other: str, records: list[dict],
              seconds: float, label: str = "") -> None:
    """One result row for ``records``: ``me``'s mean return per game, its 95% Wilson
    interval, the fair share and the ratio to it, the games and the wall seconds."""
    st = next(s for s in standings(records, [me, other]) if s.bot == me)
    lo, hi = st.wilson95
    fair = 1.0 / players
    print(f"{title:15s} {players:2d} {me:>10s} {other:>16s} {st.win_rate:6.3f} "
          f"[{lo:.3f}, {hi:.3f}] {fair:5.2f} {st.win_rate / fair:5.2f} {st.games:5d} "
          f"{seconds:6.0f} {label}".rstrip())


if __name__ == "__main__":
    sys.exit(main())
