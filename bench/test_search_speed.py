"""Search speed per game and kind (iterations per second) and time-limit honouring.

Run by hand (not in CI): ``pytest bench/test_search_speed.py --benchmark-enable -s``.
Each benchmark searches an early decision state of a game's default parameters with a
fixed iteration budget; ``extra_info["iterations_per_s"]`` is the headline number. The
time-limit test checks the issue's bound: ``time_limit=t`` returns within ``t + 10% + 20 ms``
on an idle machine.
"""

from __future__ import annotations

import random
import time

import pytest

from ratai.bots import make_bot
from ratai.engines import load_game, registered_games

KINDS = ("mcts", "ismcts", "pimc", "smmcts")
ITERATIONS = 200


def early_state(game, plies: int = 12):
    rnd = random.Random(0)
    s = game.new_initial_state()
    seen = 0
    while True:
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
            continue
        seen += 1
        if seen > plies and len(s.legal_actions()) > 1:
            return s
        s.apply_action(rnd.choice(s.legal_actions()))


def kind_for(kind, game):
    if kind == "mcts" and not game.perfect_information:
        return None
    return kind


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", registered_games())
def test_iterations_per_second(benchmark, name, kind):
    game = load_game(name)
    if kind_for(kind, game) is None:
        pytest.skip("mcts refuses hidden information")
    s = early_state(game)
    bot = make_bot(kind, game, s.current_player(), iterations=ITERATIONS, seed=0)
    an = benchmark.pedantic(bot.analyze, args=(s,), rounds=3, iterations=1)
    rate = an.iterations / max(an.elapsed_s, 1e-9)
    benchmark.extra_info["iterations_per_s"] = rate
    print(f"\n{name:16s} {kind:8s} {rate:9.0f} it/s  nodes={an.nodes}")


@pytest.mark.parametrize("t", [0.1, 0.5])
@pytest.mark.parametrize("kind", KINDS + ("expectimax",))
@pytest.mark.parametrize("name", registered_games())
def test_time_limit_honoured(name, kind, t):
    game = load_game(name)
    if kind_for(kind, game) is None:
        pytest.skip("mcts refuses hidden information")
    s = early_state(game)
    bot = make_bot(kind, game, s.current_player(), time_limit=t, seed=0)
    t0 = time.perf_counter()
    bot.analyze(s)
    took = time.perf_counter() - t0
    assert took <= 1.1 * t + 0.02, f"{kind} on {name}: {took:.3f}s for time_limit={t}"
