"""The OpenSpiel adapter (ratai.interop.openspiel, issue 10) on every registered game and
variant: OpenSpiel's own random-simulation checks, parameters both ways, trajectories equal
to the native engine's, determinization, and OpenSpiel's MCTS / IS-MCTS running on it.

Skipped when open-spiel is not installed (extra ``ratai[openspiel]``)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from ratai.engines import game_class, load_game, registered_games  # noqa: E402
from ratai.interop import openspiel as ros  # noqa: E402
from tests.conftest import game_variants  # noqa: E402

ros.register()

VARIANTS = [(g, v, p) for g, v, p in game_variants()
            if not set(p) & set(ros.EXCLUDED_PARAMS)]
IDS = [f"{g}-{v}" for g, v, _ in VARIANTS]


def os_game(name, params):
    return pyspiel.load_game(ros.short_name(name), ros.to_openspiel_params(name, params))


def sample(state, rng):
    """A chance outcome by probability or a uniform legal action (works on both APIs)."""
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        return int(actions[rng.choice(len(actions), p=np.array(probs) / sum(probs))])
    legal = state.legal_actions()
    return int(legal[rng.integers(len(legal))])


def first_decision(game, seed=0):
    state, rng = game.new_initial_state(), np.random.default_rng(seed)
    while state.is_chance_node():
        state.apply_action(sample(state, rng))
    return state


@pytest.mark.parametrize("name,variant,params", VARIANTS, ids=IDS)
def test_openspiel_random_sim_test(name, variant, params):
    """pyspiel.random_sim_test: legal actions, chance outcomes summing to 1, observation
    strings, clone, serialize/deserialize and returns checked by OpenSpiel's C++ code."""
    pyspiel.random_sim_test(os_game(name, params), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("name,variant,params", VARIANTS, ids=IDS)
def test_parameters_map_both_ways(name, variant, params):
    game = os_game(name, params)
    native = load_game(name, **params)
    back = ros.from_openspiel_params(name, game.get_parameters())
    expected = {k: v for k, v in native.params.items() if k not in ros.EXCLUDED_PARAMS}
    assert back == expected
    assert game.ratai_game == native
    assert game.num_players() == native.num_players()
    assert game.num_distinct_actions() == native.num_distinct_actions()
    assert game.max_game_length() == native.max_game_length()


@pytest.mark.parametrize("name", registered_games())
def test_game_type(name):
    cls = game_class(name)
    gt = pyspiel.load_game(ros.short_name(name)).get_type()
    assert gt.short_name == "ratai_" + name
    assert gt.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    info = pyspiel.GameType.Information
    assert gt.information == (info.PERFECT_INFORMATION if cls.perfect_information
                              else info.IMPERFECT_INFORMATION)
    assert gt.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    lo, hi = gt.min_num_players, gt.max_num_players
    assert (lo, hi) == ros.player_range(name)
    counts = {p.get("num_players", cls().num_players()) for p in cls.variants.values()}
    assert lo <= min(counts) and max(counts) <= hi
    if lo >= 2:
        assert gt.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert gt.provides_information_state_string and gt.provides_observation_string
    assert "players" in gt.parameter_specification
    assert not set(gt.parameter_specification) & set(ros.EXCLUDED_PARAMS)


def test_load_game_with_players_parameter():
    game = pyspiel.load_game("ratai_rat_trap", {"players": 3})
    assert game.num_players() == 3
    assert game.ratai_game == load_game("rat_trap", num_players=3)
    assert pyspiel.load_game("ratai_rat_trap(players=4)").num_players() == 4


def test_bad_parameters_are_refused():
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("ratai_rat_trap", {"players": 9})
    with pytest.raises(Exception, match="nonsense"):
        pyspiel.load_game("ratai_rat_trap", {"nonsense": 1})
    with pytest.raises(ValueError, match="unknown parameter"):
        ros.from_openspiel_params("rat_trap", {"nonsense": 1})


def test_joint_action_view_is_not_offered():
    """Only the sequential view is mapped (ratapolis' simultaneous=True is refused)."""
    for name in registered_games():
        specs = {p.name: p for p in game_class(name).param_specs}
        for key in ros.EXCLUDED_PARAMS:
            if key in specs:
                with pytest.raises(ValueError, match=key):
                    ros.to_openspiel_params(name, {key: True})
                with pytest.raises(Exception, match=key):
                    pyspiel.load_game(ros.short_name(name), {key: True})


@pytest.mark.parametrize("name,variant,params", VARIANTS, ids=IDS)
def test_trajectory_equals_native(name, variant, params):
    """Same actions through pyspiel and through the engine give the same game, step by step."""
    game, native_game = os_game(name, params), load_game(name, **params)
    state, native = game.new_initial_state(), native_game.new_initial_state()
    rng = np.random.default_rng(11)
    n = native_game.num_players()
    while not native.is_terminal():
        cp = native.current_player()
        assert state.current_player() == cp
        assert not state.is_terminal()
        assert list(state.legal_actions()) == native.legal_actions()
        if cp == pyspiel.PlayerId.CHANCE:
            assert [(a, pytest.approx(p)) for a, p in state.chance_outcomes()] == \
                native.chance_outcomes()
        else:
            assert list(state.legal_actions(cp)) == native.legal_actions(cp)
            mask = state.legal_actions_mask(cp)
            assert [i for i, m in enumerate(mask) if m] == native.legal_actions()
        seat = max(cp, 0)
        assert state.information_state_string(seat) == native.information_state_string(seat)
        assert state.observation_string(seat) == native.observation_string(seat)
        action = sample(native, rng)
        assert state.action_to_string(cp, action) == native.action_to_string(cp, action)
        state.apply_action(action)
        native.apply_action(action)
    assert state.is_terminal()
    assert list(state.history()) == native.history()
    assert list(state.returns()) == pytest.approx(native.returns())
    for p in range(n):
        assert state.player_return(p) == pytest.approx(native.returns()[p])
    assert state.native == native and state.native.history() == native.history()


@pytest.mark.parametrize("name", registered_games())
def test_clone_and_serialize(name):
    game = pyspiel.load_game(ros.short_name(name))
    state = first_decision(game, seed=3)
    clone = state.clone()
    restored = game.deserialize_state(state.serialize())
    assert str(clone) == str(state) == str(restored)
    assert restored.history() == state.history()
    clone.apply_action(clone.legal_actions()[0])
    assert str(clone) != str(state)  # independent
    assert state.native == restored.native


@pytest.mark.parametrize("name", registered_games())
def test_an_illegal_action_is_refused_and_changes_nothing(name):
    """apply_action checks legality (the engine's IllegalActionError, a ValueError naming
    the action): an out-of-range or illegal id crashed the interpreter or corrupted the
    state through the twin's unchecked path."""
    from ratai.engines.api import IllegalActionError

    game = pyspiel.load_game(ros.short_name(name))
    state = first_decision(game, seed=3)
    legal = set(state.legal_actions())
    before = (state.serialize(), state.history())
    illegal = [2**31 - 1, 10**6, -1, game.num_distinct_actions()]
    illegal += [a for a in range(game.num_distinct_actions()) if a not in legal][:3]
    for a in illegal:
        # -1 is OpenSpiel's kInvalidAction, refused by OpenSpiel itself (SpielError)
        with pytest.raises(pyspiel.SpielError if a == -1 else IllegalActionError) as info:
            state.apply_action(a)
        assert a == -1 or f"illegal action {a}" in str(info.value), info.value
        assert (state.serialize(), state.history()) == before
    state.apply_action(min(legal))                  # and it plays on
    assert state.history() == before[1] + [min(legal)]


@pytest.mark.parametrize("name", registered_games())
def test_resample_from_infostate(name):
    """resample_from_infostate keeps the seat's information state and is seeded by the sampler."""
    game = pyspiel.load_game(ros.short_name(name))
    state, rng = first_decision(game, seed=5), np.random.default_rng(5)
    for _ in range(10):  # a little into the game
        if state.is_terminal():
            break
        state.apply_action(sample(state, rng))
    while state.is_chance_node():
        state.apply_action(sample(state, rng))
    player = state.current_player()
    a = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    b = state.resample_from_infostate(player, lambda: 0.25)
    c = state.resample_from_infostate(player, lambda: 0.25)
    for sample_state in (a, b, c):
        assert sample_state.information_state_string(player) == \
            state.information_state_string(player)
        assert sample_state.current_player() == player
        assert list(sample_state.legal_actions()) == list(state.legal_actions())
    assert str(b) == str(c)
    if game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        assert b.native.observation(player) == state.native.observation(player)
    b.apply_action(b.legal_actions()[0])  # playable


@pytest.mark.parametrize("name", registered_games())
def test_openspiel_cpp_mcts_search_runs(name):
    """OpenSpiel's C++ MCTS (mcts_search; MCTSBot.step crashes on Python games in 2.0.2)."""
    game = pyspiel.load_game(ros.short_name(name))
    state = first_decision(game)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, 8, 50, False, 1,
                          False)
    root = bot.mcts_search(state)
    assert root.explore_count == 8
    assert root.best_child().action in state.legal_actions()


@pytest.mark.parametrize("name", registered_games())
def test_openspiel_python_mcts_and_ismcts_run(name):
    """OpenSpiel's Python MCTS on every game; its IS-MCTS on the hidden-information ones
    (it calls our resample_from_infostate)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(ros.short_name(name))
    state = first_decision(game)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=np.random.RandomState(1))
    assert bot.step(state) in state.legal_actions()
    if game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION:
        isbot = ismcts.ISMCTSBot(game, evaluator, 2.0, 8,
                                 random_state=np.random.RandomState(2))
        assert isbot.step(state) in state.legal_actions()


def test_interpreter_exits_cleanly_after_register():
    """Regression: a closure creator made the process abort at exit (GIL at finalization)."""
    code = ("from ratai.interop import openspiel as o; o.register(); import pyspiel; "
            "g = pyspiel.load_game('ratai_rat_trap', {'players': 3}); "
            "s = g.new_initial_state(); s.apply_action(s.legal_actions()[0]); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("name", sorted(registered_games()))
def test_observation_and_information_state_tensors(name):
    """Both tensors are ratai's ``observation_tensor`` (issue 14 item 1)."""
    game = os_game(name, {"num_players": 3})
    native = load_game(name, num_players=3)
    assert game.observation_tensor_shape() == list(native.observation_tensor_shape())
    assert game.information_state_tensor_shape() == list(native.observation_tensor_shape())
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    for _ in range(40):
        if state.is_terminal():
            break
        if not state.is_chance_node():
            p = state.current_player()
            want = state.native.observation_tensor(p)
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), want)
            np.testing.assert_array_equal(np.asarray(state.information_state_tensor(p)), want)
        state.apply_action(sample(state, rng))
