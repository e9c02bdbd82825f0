"""ratai's search vs OpenSpiel's search on the same positions of ratai's games (issue 10).

Usage::

    python bench/vs_openspiel.py                      # every game, short budgets
    python bench/vs_openspiel.py --games rat_trap --iterations 200 --positions 3
    python bench/vs_openspiel.py --match 20           # plus head-to-head games

For each game (its default parameters) the script draws ``--positions`` seeded positions
(a random playout stopped at a decision node) and runs, on each, every searcher with the
same iteration budget, reporting iterations per second (median over positions):

* ``os-c++-mcts``  — OpenSpiel's C++ MCTS (``MCTSBot.mcts_search``; ``step`` crashes on
  Python games in open-spiel 2.0.2) with a random-rollout evaluator, through the adapter
  :mod:`ratai.interop.openspiel`. On hidden-information games it searches the *true* state
  (it does not determinize), so it is a speed reference only there.
* ``os-c++-ismcts`` — OpenSpiel's C++ IS-MCTS. open-spiel 2.0.2 cannot run it on Python
  games (the trampoline does not forward ``resample_from_infostate``, and perfect-information
  games are refused); the row says so instead of a number when that happens.
* ``os-py-mcts`` / ``os-py-ismcts`` — OpenSpiel's Python MCTS / IS-MCTS
  (``open_spiel.python.algorithms``) through the adapter; IS-MCTS only on hidden-information
  games (it asserts imperfect information).
* ``ratai-mcts`` / ``ratai-ismcts`` — ratai's bots (``ratai.bots.make_bot``) on the ratai
  engine (``backend="auto"``: the Cython engine where built); ``mcts`` determinizes once
  per call on hidden-information games.

With ``--match N``: N games per pairing at equal iterations, seats rotated, ratai IS-MCTS
(or MCTS on perfect-information games) against OpenSpiel's Python IS-MCTS (or C++ MCTS),
the other seats played by ratai's random bot; the table gives the ratai bot's mean return
and a 95% Wilson interval of its win rate (a shared win counts as its share).

TODO(cython-search): add the rows ``ratai-cy-mcts`` / ``ratai-cy-ismcts`` and the
equal-time matches once the Cython search lands (issue: Cython core); the ratai rows here
are the Python search over whichever engine backend ``auto`` picks.

Keep budgets small on the 2 shared cores; the defaults run in about a minute.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts as os_ismcts
    from open_spiel.python.algorithms import mcts as os_mcts
except ImportError:  # pragma: no cover
    sys.exit("bench/vs_openspiel.py needs open-spiel: pip install 'ratai[openspiel]'")

from ratai.bots import make_bot
from ratai.engines import load_game, registered_games
from ratai.interop import openspiel as ros

UCT_C = 2.0


def positions(game, count: int, seed: int, depth: int = 8) -> list:
    """``count`` native decision states: seeded random playouts stopped near ``depth``."""
    out = []
    rng = np.random.default_rng(seed)
    while len(out) < count:
        state = game.new_initial_state()
        target = int(rng.integers(1, depth + 1))
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(actions[rng.choice(len(actions), p=np.array(probs))])
                continue
            legal = state.legal_actions()
            if decisions >= target and len(legal) > 1:
                out.append(state)
                break
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
    return out


def wrap(os_game, native):
    """The OpenSpiel state of ``native`` (same history replayed, so equal states)."""
    state = os_game.new_initial_state()
    for a in native.history():
        state.apply_action(a)
    return state


# -- searchers: each returns (iterations run, seconds, action) ------------------------------
def os_cpp_mcts(os_game, native, iters, seed):
    state = wrap(os_game, native)
    bot = pyspiel.MCTSBot(os_game, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, iters,
                          1000, False, seed, False)
    t = time.perf_counter()
    root = bot.mcts_search(state)
    return root.explore_count, time.perf_counter() - t, root.best_child().action


def os_cpp_ismcts(os_game, native, iters, seed):
    state = wrap(os_game, native)
    bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, iters, -1)
    t = time.perf_counter()
    policy = bot.get_policy(state)
    return iters, time.perf_counter() - t, max(policy, key=lambda ap: ap[1])[0]


def os_py_mcts(os_game, native, iters, seed):
    state = wrap(os_game, native)
    rs = np.random.RandomState(seed)
    bot = os_mcts.MCTSBot(os_game, UCT_C, iters, os_mcts.RandomRolloutEvaluator(1, rs),
                          random_state=rs)
    t = time.perf_counter()
    root = bot.mcts_search(state)
    return root.explore_count, time.perf_counter() - t, root.best_child().action


def os_py_ismcts(os_game, native, iters, seed):
    state = wrap(os_game, native)
    rs = np.random.RandomState(seed)
    bot = os_ismcts.ISMCTSBot(os_game, os_mcts.RandomRolloutEvaluator(1, rs), UCT_C, iters,
                              random_state=rs)
    t = time.perf_counter()
    action = bot.step(state)
    return iters, time.perf_counter() - t, int(action)


def ratai_bot(kind):
    def run(os_game, native, iters, seed):
        game = native.get_game()
        kw = {"determinize": True} if kind == "mcts" and not game.perfect_information else {}
        bot = make_bot(kind, game, native.current_player(), iterations=iters, seed=seed, **kw)
        t = time.perf_counter()
        analysis = bot.analyze(native)
        return analysis.iterations, time.perf_counter() - t, analysis.best_action
    return run


SEARCHERS = {
    "os-c++-mcts": os_cpp_mcts,
    "os-c++-ismcts": os_cpp_ismcts,
    "os-py-mcts": os_py_mcts,
    "os-py-ismcts": os_py_ismcts,
    "ratai-mcts": ratai_bot("mcts"),
    "ratai-ismcts": ratai_bot("ismcts"),
}


def applicable(name: str, perfect: bool) -> str:
    """Why searcher ``name`` is not run on a game ('' when it is)."""
    if name == "os-py-ismcts" and perfect:
        return "n/a (asserts imperfect information)"
    return ""


def speed_rows(game_name: str, n_pos: int, iters: int, seed: int) -> list[tuple]:
    native_game = load_game(game_name)
    os_game = ros.load(game_name)
    perfect = native_game.perfect_information
    pos = positions(native_game, n_pos, seed)
    rows = []
    for name, fn in SEARCHERS.items():
        why = applicable(name, perfect)
        if why:
            rows.append((game_name, name, why))
            continue
        rates = []
        try:
            for i, p in enumerate(pos):
                done, secs, _ = fn(os_game, p, iters, seed + i)
                rates.append(done / secs)
        except (pyspiel.SpielError, RuntimeError) as exc:
            msg = str(exc)
            if "ResampleFromInfostate" in msg:
                msg = "no Python resample in C++"
            elif "PerfectInformation" in msg:
                msg = "refuses perfect info"
            rows.append((game_name, name, f"n/a ({msg.splitlines()[-1][:40]})"))
            continue
        rows.append((game_name, name, f"{statistics.median(rates):10.1f}"))
    return rows


# -- matches ----------------------------------------------------------------------------------
def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def match(game_name: str, games: int, iters: int, seed: int) -> tuple:
    native_game = load_game(game_name)
    os_game = ros.load(game_name)
    perfect = native_game.perfect_information
    ours = "ratai-mcts" if perfect else "ratai-ismcts"
    theirs = "os-c++-mcts" if perfect else "os-py-ismcts"
    n = native_game.num_players()
    total = 0.0
    rng = np.random.default_rng(seed)
    for g in range(games):
        seat_ours, seat_theirs = g % n, (g + 1) % n
        state = native_game.new_initial_state()
        while not state.is_terminal():
            cp = state.current_player()
            if cp < 0:
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(actions[rng.choice(len(actions), p=np.array(probs))])
                continue
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            elif cp == seat_ours:
                action = SEARCHERS[ours](os_game, state, iters, int(rng.integers(2**31)))[2]
            elif cp == seat_theirs:
                action = SEARCHERS[theirs](os_game, state, iters, int(rng.integers(2**31)))[2]
            else:
                action = legal[rng.integers(len(legal))]
            state.apply_action(int(action))
        total += state.returns()[seat_ours]
    lo, hi = wilson(total, games)
    return game_name, f"{ours} vs {theirs}", f"{total / games:.2f}", f"[{lo:.2f}, {hi:.2f}]"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="*", default=registered_games())
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--positions", type=int, default=2)
    ap.add_argument("--match", type=int, default=0, help="head-to-head games per game")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    ros.register(args.games)
    print(f"iterations per search: {args.iterations}; positions per game: {args.positions}; "
          f"open-spiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''}")
    print(f"{'game':16} {'searcher':15} {'iterations/s':>14}")
    for game_name in args.games:
        for g, name, value in speed_rows(game_name, args.positions, args.iterations, args.seed):
            print(f"{g:16} {name:15} {value:>14}")
    if args.match:
        print(f"\nhead-to-head at {args.iterations} iterations, {args.match} games per game "
              f"(mean return of the ratai bot, 95% Wilson interval of its win rate)")
        for game_name in args.games:
            print("  ".join(match(game_name, args.match, args.iterations, args.seed)))


if __name__ == "__main__":
    main()
