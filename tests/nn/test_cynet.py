"""``_speedups/nn.pyx``: the compiled network equals the numpy reference within 1e-5."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ratai.engines import load_game
from ratai.engines.api import CHANCE, sample_chance_outcome
from ratai.nn import Model

nn = pytest.importorskip("ratai._speedups.nn")

GAMES = [("rat_trap", 3), ("rats_to_riches", 2), ("first_rat", 2), ("ratapolis", 4)]


def positions(name, n, count=4, seed=0):
    game = load_game(name, num_players=n, backend="python")
    rng, rnd = np.random.default_rng(seed), random.Random(seed)
    s = game.new_initial_state()
    out = []
    while len(out) < count and not s.is_terminal():
        if s.current_player() == CHANCE:
            s.apply_action(sample_chance_outcome(s, rng))
            continue
        if rnd.random() < 0.3:
            out.append(s.clone())
        s.apply_action(rnd.choice(s.legal_actions()))
    return out


@pytest.mark.parametrize("name,n", GAMES)
def test_cynet_equals_numpy(name, n):
    model = Model.init(name, [n], hidden=(32, 16), seed=7)
    # larger weights than the init so the heads are far from uniform
    model = model.with_arrays({k: v * 4 for k, v in model.arrays().items()
                               if k.startswith(("wv", "wp", "bv", "bp"))})
    net = nn.CyNet(model, n)
    assert (net.n, net.d) == (n, model.nets[n].tensor_size)
    states = positions(name, n)
    assert states
    for s in states:
        p = s.current_player()
        legal = s.legal_actions()
        tensor = s.observation_tensor(p)
        v_ref, p_ref = model.evaluate(s, p)
        v, pri = net.evaluate(tensor, p, legal)
        np.testing.assert_allclose(v, v_ref, atol=1e-5, rtol=0)
        np.testing.assert_allclose(pri, p_ref, atol=1e-5, rtol=0)
        _, logits = model.evaluate_batch(model.encode_input(tensor, p, n)[None], n)
        _, lg = net.evaluate(tensor, p, legal, softmax=False)
        np.testing.assert_allclose(lg, logits[0, legal], atol=1e-5, rtol=1e-5)
        for q in range(n):   # another seat's view of the same tensor: the one-hot row
            v_ref, _ = model.evaluate(tensor, q, legal, num_players=n)
            v, _ = net.evaluate(tensor, q, legal)
            np.testing.assert_allclose(v, v_ref, atol=1e-5, rtol=0)


def test_cynet_bad_input():
    model = Model.init("rat_trap", [2], hidden=(8, 8))
    net = nn.CyNet(model, 2)
    with pytest.raises(ValueError, match="tensor of length 3"):
        net.evaluate(np.zeros(3, np.float32), 0, [0])
    with pytest.raises(ValueError, match="bad player"):
        net.evaluate(np.zeros(net.d, np.float32), 2, [0])
    with pytest.raises(ValueError, match="outside"):
        net.evaluate(np.zeros(net.d, np.float32), 0, [10**6])
    with pytest.raises(ValueError, match="no network for 3 players"):
        nn.CyNet(model, 3)
