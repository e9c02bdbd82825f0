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

With ``--per-action``: the like-for-like comparison of search speed *per simulated action*
(the rows above pit ratai's compiled search against OpenSpiel's C++ search calling ratai's
engines through Python, which measures the adapter as much as the search). Two kinds of rows:

* ``os-c++-mcts (native)`` — OpenSpiel's C++ MCTS (``pyspiel.MCTSBot`` with a C++
  ``RandomRolloutEvaluator``, one rollout) on OpenSpiel's *own C++ games*
  (``--os-games``, default :data:`OS_NATIVE_GAMES`): C++ search over C++ engines;
* ``ratai-mcts`` — ratai's compiled ``mcts`` (``_speedups/search.pyx``) on each ratai game
  (its Cython twin): compiled search over compiled engines.

Both use UCT with c = 2 and uniform random rollouts to the end; a simulation applies the tree
actions from the root plus the rollout actions (chance outcomes included), i.e. one
root-to-terminal line. Simulated actions per second = iterations/s x the mean length of a
uniform random playout from the same root (``--playouts`` of them; the same estimator for
both rows, exact for the rollout part, an estimate for the few tree plies). The ns per
simulated action of ratai's row is then set against the median of the OpenSpiel rows.

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


# -- per simulated action: OpenSpiel's C++ MCTS on its C++ games vs ratai's compiled mcts -----
#: OpenSpiel's own C++ games for the like-for-like rows: perfect information, no chance,
#: random-playout lengths from ~20 to ~110 actions (ratai's games: ~60 to ~170).
OS_NATIVE_GAMES = ("connect_four", "othello", "breakthrough", "oware", "hex")


def mean_playout_length(state, playouts: int, rng) -> float:
    """Mean number of actions (decisions and chance outcomes) a uniform random playout applies
    from ``state`` (not changed) to the end. Works on ratai and pyspiel states alike."""
    total = 0
    for _ in range(playouts):
        s = state.clone()
        while not s.is_terminal():
            if s.is_chance_node():
                actions, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(actions[rng.choice(len(actions), p=np.array(probs))])
            else:
                legal = s.legal_actions()
                s.apply_action(legal[rng.integers(len(legal))])
            total += 1
    return total / playouts


def os_native_mcts(state, iters: int, seed: int) -> tuple[int, float]:
    """OpenSpiel's C++ MCTS on a pyspiel state of a C++ game: (iterations, seconds)."""
    bot = pyspiel.MCTSBot(state.get_game(), pyspiel.RandomRolloutEvaluator(1, seed), UCT_C,
                          iters, 1000, False, seed, False)
    t = time.perf_counter()
    root = bot.mcts_search(state)
    return root.explore_count, time.perf_counter() - t


def ratai_native_mcts(state, iters: int, seed: int) -> tuple[int, float]:
    """ratai's compiled ``mcts`` on a ratai state: (iterations, seconds)."""
    game = state.get_game()
    kw = {} if game.perfect_information else {"determinize": True}
    bot = make_bot("mcts", game, state.current_player(), iterations=iters, seed=seed, **kw)
    t = time.perf_counter()
    analysis = bot.analyze(state)
    return analysis.iterations, time.perf_counter() - t


def per_action_row(label: str, game, search, n_pos: int, iters: int, playouts: int,
                   seed: int) -> tuple:
    """(label, iterations/s, actions per simulation, simulated actions/s, ns per action):
    medians over ``n_pos`` seeded positions of ``game``."""
    rng = np.random.default_rng(seed)
    its, lens, rates = [], [], []
    for i, state in enumerate(positions(game, n_pos, seed)):
        length = mean_playout_length(state, playouts, rng)
        done, secs = search(state, iters, seed + i)
        its.append(done / secs)
        lens.append(length)
        rates.append(done * length / secs)
    rate = statistics.median(rates)
    return (label, statistics.median(its), statistics.median(lens), rate, 1e9 / rate)


def per_action_rows(os_games, ratai_games, n_pos: int, iters: int, playouts: int,
                    seed: int) -> list[tuple]:
    rows = [per_action_row(f"os-c++-mcts (native) {g}", pyspiel.load_game(g), os_native_mcts,
                           n_pos, iters, playouts, seed) for g in os_games]
    rows += [per_action_row(f"ratai-mcts {g}", load_game(g), ratai_native_mcts, n_pos, iters,
                            playouts, seed) for g in ratai_games]
    return rows


def print_per_action(rows: list[tuple]) -> None:
    os_ns = [r[4] for r in rows if r[0].startswith("os-")]
    ref = statistics.median(os_ns) if os_ns else float("nan")
    print(f"\nper simulated action (UCT c={UCT_C}, random rollouts; ratio = OpenSpiel's median "
          f"ns per simulated action / the row's, > 1: faster than OpenSpiel's C++ MCTS)")
    print(f"{'searcher and game':36} {'iterations/s':>13} {'actions/sim':>11} "
          f"{'sim. actions/s':>15} {'ns/action':>10} {'ratio':>6}")
    for label, its, length, rate, ns in rows:
        print(f"{label:36} {its:13,.0f} {length:11.1f} {rate:15,.0f} {ns:10.1f} "
              f"{ref / ns:6.2f}")


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
    ap.add_argument("--per-action", action="store_true",
                    help="only the per-simulated-action table (OpenSpiel's C++ MCTS on its "
                         "own C++ games vs ratai's compiled mcts)")
    ap.add_argument("--os-games", nargs="*", default=list(OS_NATIVE_GAMES))
    ap.add_argument("--playouts", type=int, default=100,
                    help="random playouts per position for the actions per simulation")
    args = ap.parse_args(argv)
    if args.per_action:
        print(f"iterations per search: {args.iterations}; positions per game: "
              f"{args.positions}")
        print_per_action(per_action_rows(args.os_games, args.games, args.positions,
                                         args.iterations, args.playouts, args.seed))
        return
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
