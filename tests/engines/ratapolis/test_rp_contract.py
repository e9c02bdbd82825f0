"""Ratapolis against the engine contract (engines/api.py): seat and action-id checks,
the joint planning view's ``apply_actions`` (RP-2), readable errors and labels."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rp_helpers import labels, make_state

from ratai.engines import SIMULTANEOUS, IllegalActionError, load_game
from tests.conftest import sample_action


def _joint_planning_state(n: int = 3, seed: int = 1):
    g = load_game("ratapolis", backend="python", num_players=n, simultaneous=True)
    s = g.new_initial_state()
    rng = np.random.default_rng(seed)
    while s.current_player() != SIMULTANEOUS:
        s.apply_action(sample_action(s, rng))
    return g, s


def _played(n: int = 3, plies: int = 40):
    g = load_game("ratapolis", backend="python", num_players=n)
    s = g.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(plies):
        s.apply_action(sample_action(s, rng))
    return g, s


def test_apply_actions_takes_numpy_plan_ids():
    """RP-2 joint view: ``apply_actions`` accepts numpy ints like ``apply_action`` does
    (``isinstance(action, int | np.integer)`` in engines/api.py), e.g. plans taken from a
    numpy array; the history records plain ints."""
    g, s = _joint_planning_state()
    plans = np.array([s.legal_actions(k)[0] for k in range(g.num_players())])
    s.apply_actions(list(plans))
    assert s.phase != "plan"
    assert all(type(a) is int for a in s.history())


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_a_seats_plans_are_every_left_cell_with_each_right_cell_it_allows(n):
    """RP-2 joint view: ``legal_actions(seat)`` at planning (``plan_ids``, which lists the
    right cells once per building a left move enters, ``right_key``) is exactly every left
    cell the seat may plan with every right cell ``cell_actions(seat, 1, left)`` allows after
    it, ``PLAN + left * C + right`` in order; at the planning nodes of random games, rivals
    committed or not (rulebook Phase 2)."""
    g = load_game("ratapolis", backend="python", num_players=n, simultaneous=True)
    checked = 0
    for seed in range(2):
        s = g.new_initial_state()
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            if s.phase == "plan":
                for q in range(n):
                    if not s.plans[q]:
                        pairs = [g.PLAN + left * g.C + right for left in s.cell_actions(q, 0)
                                 for right in s.cell_actions(q, 1, left)]
                        assert s.legal_actions(q) == pairs, (seed, q)
                        checked += 1
            s.apply_action(sample_action(s, rng))
    assert checked > 20


def test_illegal_plan_error_summarises_thousands_of_plans():
    """IllegalActionError ("naming the action and the legal set"): a seat has thousands of
    plans, so the message gives the count, the first few with labels and how to list them;
    ``legal`` keeps the full list. The same holds for ``apply_action`` there."""
    g, s = _joint_planning_state()
    legal = s.legal_actions(0)
    assert len(legal) > 1000
    good = [s.legal_actions(k)[0] for k in range(g.num_players())]
    with pytest.raises(IllegalActionError) as err:
        s.apply_actions([5] + good[1:])
    msg = str(err.value)
    assert err.value.legal == legal and err.value.action == 5
    assert f"{len(legal)} legal actions" in msg and "legal_actions(0)" in msg
    assert "plan idle / idle" in msg and len(msg) < 1200
    with pytest.raises(IllegalActionError) as err:
        s.apply_action(5)
    assert len(str(err.value)) < 1200 and err.value.legal == legal


def test_small_legal_sets_are_still_listed_in_full():
    """A decision with few options keeps the generic message listing every legal action."""
    _, s = make_state(3, board={"A": {0: 1}})
    legal = s.legal_actions()
    assert 1 < len(legal) <= 12
    with pytest.raises(IllegalActionError) as err:
        s.apply_action(-5)
    assert str(err.value).endswith(
        "legal actions: [" + ", ".join(f"{a} ({label})" for a, label in
                                       zip(legal, labels(s), strict=True)) + "]")


@pytest.mark.parametrize("simultaneous", [False, True])
def test_action_to_string_of_an_invalid_id(simultaneous):
    """``action_to_string`` labels an id outside ``range(num_distinct_actions())`` (or an
    attack on a colour / an Archive look at a seat not in the game) "invalid action N", as
    the other games do, instead of a wrong label or an IndexError."""
    g = load_game("ratapolis", backend="python", num_players=3, simultaneous=simultaneous)
    s = g.new_initial_state()
    for bad in (-1, g.num_distinct_actions(), 10**6, 1 + 3, g.LOOK + 4):
        assert s.action_to_string(0, bad) == f"invalid action {bad}"
    assert s.action_to_string(0, 1 + 1) == "attack A blue"
    if not simultaneous:
        assert s.action_to_string(0, g.PLAN) == f"invalid action {g.PLAN}"


def test_observation_seat_is_checked():
    """Engine contract (engines/api.py ``check_player``): ``observation`` takes a Python or
    numpy int seat and echoes it as a plain int (JSON); a bool, a float or an out-of-range
    seat is a ValueError naming the allowed range."""
    g, s = _played()
    obs = s.observation(np.int64(1))
    assert obs == s.observation(1) and type(obs["player"]) is int
    assert s.information_state_string(np.int32(1)) == s.information_state_string(1)
    json.dumps(obs)
    for bad in (True, 0.0, -1, 3, "0", None):
        with pytest.raises(ValueError, match="0 to 2"):
            s.observation(bad)
