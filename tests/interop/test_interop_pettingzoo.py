"""The PettingZoo adapter (ratai.interop.pettingzoo, issue 10) on every registered game and
variant: PettingZoo's api_test, seeded chance, trajectories equal to the native engine's,
the tensor and the lossless JSON observation encodings and the ansi renderer.

Skipped when pettingzoo is not installed (extra ``ratai[pettingzoo]``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test  # noqa: E402

from ratai.engines import game_class, load_game, registered_games  # noqa: E402
from ratai.interop.pettingzoo import (  # noqa: E402
    agent_name,
    decode_observation,
    env,
    raw_env,
)
from tests.conftest import game_variants  # noqa: E402

VARIANTS = game_variants()
VARIANT_IDS = [f"{g}-{v}" for g, v, _ in VARIANTS]


def play(e, seed, policy_seed):
    """Reset with ``seed`` and play random legal actions to the end; returns the log."""
    e.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    log = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            log.append((agent, None, reward))
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        log.append((agent, action, reward))
        e.step(action)
    return log


@pytest.mark.parametrize("name,variant,params", VARIANTS, ids=VARIANT_IDS)
def test_pettingzoo_api_test(name, variant, params):
    e = env(name, render_mode="ansi", **params)
    with warnings.catch_warnings():
        # Dict observations with an action mask are PettingZoo's classic-game pattern;
        # api_test warns about them for any env it does not know by name.
        warnings.simplefilter("ignore")
        api_test(e, num_cycles=60)


@pytest.mark.parametrize("name,variant,params", VARIANTS, ids=VARIANT_IDS)
def test_trajectory_equals_native_and_rewards_are_returns(name, variant, params):
    e = raw_env(name, **params)
    log = play(e, seed=4, policy_seed=9)
    state = e.state
    assert state.is_terminal()
    native = load_game(name, **params).state_from_history(state.history())
    assert native == state
    final = {agent: reward for agent, action, reward in log if action is None}
    assert final == {agent_name(i): r for i, r in enumerate(native.returns())}
    assert e.agents == []


@pytest.mark.parametrize("name", registered_games())
def test_chance_is_resolved_by_the_seeded_env_rng(name):
    a, b = raw_env(name), raw_env(name)
    assert play(a, seed=1, policy_seed=2) == play(b, seed=1, policy_seed=2)
    assert a.state.history() == b.state.history()
    c = raw_env(name)
    play(c, seed=2, policy_seed=2)
    assert c.state.history() != a.state.history()


@pytest.mark.parametrize("name", registered_games())
def test_tensor_observation_is_the_seats_observation_tensor(name):
    e = raw_env(name)
    e.reset(seed=0)
    assert e.observation_space(e.agents[0])["observation"].shape == \
        e.game.observation_tensor_shape()
    for agent in e.agents:
        seat = int(agent.split("_")[1])
        obs = e.observe(agent)
        assert e.observation_space(agent).contains(obs)
        np.testing.assert_array_equal(obs["observation"], e.state.observation_tensor(seat))
        assert list(np.flatnonzero(obs["action_mask"])) == e.state.legal_actions(seat)


@pytest.mark.parametrize("name", registered_games())
def test_json_observation_is_the_seats_information_state(name):
    e = raw_env(name, observation_type="json")
    e.reset(seed=0)
    for agent in e.agents:
        seat = int(agent.split("_")[1])
        obs = e.observe(agent)
        assert e.observation_space(agent).contains(obs)
        assert decode_observation(obs["observation"]) == e.state.observation(seat)
        legal = e.state.legal_actions(seat)
        assert list(np.flatnonzero(obs["action_mask"])) == legal
    assert e.state.current_player() >= 0  # chance resolved before the first decision


@pytest.mark.parametrize("name", registered_games())
def test_render_ansi_is_the_acting_seats_view(name):
    e = raw_env(name, render_mode="ansi")
    e.reset(seed=0)
    seat = e.state.current_player()
    assert e.agent_selection == agent_name(seat)
    text = e.render()
    assert isinstance(text, str) and text == e.state.render(seat)
    with pytest.warns(UserWarning, match="render_mode"):
        assert raw_env(name).render() is None
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(name, render_mode="human")


def test_observation_options_are_checked():
    with pytest.raises(ValueError, match="observation_type"):
        raw_env("rat_trap", observation_type="pixels")
    with pytest.raises(ValueError, match="max_obs_bytes"):
        raw_env("rat_trap", max_obs_bytes=512)


def test_observation_that_does_not_fit_raises():
    e = raw_env("rat_trap", observation_type="json", max_obs_bytes=16)
    with pytest.raises(ValueError, match="max_obs_bytes"):
        e.reset(seed=0)
        e.observe(e.agent_selection)


def test_illegal_action_is_refused():
    from ratai.engines import IllegalActionError

    e = raw_env("rat_trap")
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError):
        e.step(int(np.flatnonzero(mask == 0)[0]))


def test_joint_action_view_is_refused():
    for name in registered_games():
        if "simultaneous" in {p.name for p in game_class(name).param_specs}:
            with pytest.raises(ValueError, match="simultaneous"):
                raw_env(name, simultaneous=True)
