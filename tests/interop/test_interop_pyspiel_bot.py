"""ratai bots as ``pyspiel.Bot`` (issue 16 item 3): ``pyspiel_bot`` plays in OpenSpiel's
C++ ``pyspiel.evaluate_bots`` and its Python loop on every ``ratai_<game>``, beside
OpenSpiel's own bots, with a policy, ``restart_at`` and ``inform_action``.

Skipped when open-spiel is not installed (extra ``ratai[openspiel]``)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots as os_evaluate  # noqa: E402

from ratai.engines import registered_games  # noqa: E402
from ratai.interop import openspiel as ros  # noqa: E402

ros.register()

#: a search kind that plays each game (mcts needs perfect information).
KIND = {"rat_trap": "ismcts", "ratapolis": "ismcts", "first_rat": "mcts",
        "rats_to_riches": "mcts"}


def os_game(name, players):
    return pyspiel.load_game(ros.short_name(name), {"players": players})


@pytest.mark.parametrize("name", sorted(registered_games()))
def test_cpp_evaluate_bots_plays_a_whole_game(name):
    # 3 seats: in Rat Trap's 2-player game the Third Rat may win (returns sum to 0).
    game = os_game(name, 3)
    bots = [ros.pyspiel_bot(KIND[name], game, 0, iterations=10, seed=1),
            pyspiel.make_uniform_random_bot(1, 5), pyspiel.make_uniform_random_bot(2, 6)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert len(returns) == 3 and sum(returns) == pytest.approx(1.0)


@pytest.mark.parametrize("name", sorted(registered_games()))
def test_python_evaluate_bots_is_reproducible(name):
    game = os_game(name, 3)

    def play():
        bots = [ros.pyspiel_bot(kind, game, p, iterations=8, seed=10 + p)
                for p, kind in enumerate([KIND[name], "heuristic", "random"])]
        return os_evaluate.evaluate_bots(game.new_initial_state(), bots,
                                         np.random.RandomState(4))

    first = play()
    assert sum(first) == pytest.approx(1.0)
    assert play() == first


def first_decision(game, seed=0):
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(actions[rng.choice(len(actions), p=probs)]))
    return state


def test_step_with_policy_is_the_visit_distribution():
    game = os_game("rat_trap", 3)
    state = first_decision(game)
    bot = ros.pyspiel_bot("ismcts", game, state.current_player(), iterations=200, seed=2)
    assert bot.provides_policy()
    policy, action = bot.step_with_policy(state)
    assert [a for a, _ in policy] == state.legal_actions()
    assert sum(p for _, p in policy) == pytest.approx(1.0)
    analysis = bot.bot.analyze(state.native)
    visits = {m.action: m.visits for m in analysis.moves}
    total = sum(visits.values())
    assert dict(policy) == pytest.approx({a: visits.get(a, 0) / total
                                          for a in state.legal_actions()})
    assert action == analysis.best_action == bot.step(state)


def test_restart_and_inform_accept_openspiel_calls():
    game = os_game("rats_to_riches", 2)
    state = first_decision(game)
    bot = ros.pyspiel_bot("mcts", game, state.current_player(), iterations=5, seed=0)
    bot.restart_at(state)
    bot.inform_action(state, state.current_player(), state.legal_actions()[0])
    bot.restart()
    assert bot.step(state) in state.legal_actions()


def test_foreign_states_and_games_are_refused():
    game = os_game("rat_trap", 3)
    bot = ros.pyspiel_bot("random", game, 0, seed=0)
    with pytest.raises(TypeError, match="RataiState"):
        bot.step(pyspiel.load_game("tic_tac_toe").new_initial_state())
    with pytest.raises(ValueError, match="ratai_rat_trap"):
        bot.step(first_decision(os_game("first_rat", 2)))
    with pytest.raises(TypeError, match="ratai_<game>"):
        ros.pyspiel_bot("random", pyspiel.load_game("tic_tac_toe"), 0)
    with pytest.raises(ValueError, match="unknown bot kind"):
        ros.pyspiel_bot("alphabeta", game, 0)
