"""Seat-relative networks: the mover-first view of a position (``ratai/nn/model.py``).

The index maps are checked against an independent definition: renumbering the seats of the
observation *dict* itself (every per-seat list, mapping and seat value the schema marks),
then encoding it. The model, the compiled ``CyNet`` and the training batches must read one
network the same way.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ratai.engines import load_game
from ratai.nn import FORMAT_VERSION, Model, ModelError, seat_version
from ratai.train.buffer import Positions
from tests.conftest import game_variants, random_playout


def _rotate(node: dict, value, p: int):
    """``value`` (an observation fragment of schema ``node``) with every seat ``s`` the schema
    marks renumbered ``(s - p) mod k``."""
    if node.get("x-tensor") == "skip":
        return value
    if "anyOf" in node:
        if value is None:
            return None
        inner = next(n for n in node["anyOf"] if n.get("type") != "null")
        return _rotate(inner, value, p)
    if "enum" in node:
        k = node.get("x-seat")
        if k and isinstance(value, int) and not isinstance(value, bool) and value < k:
            return (value - p) % k
        return value
    kind = node.get("type")
    if kind == "array":
        if node.get("x-tensor") == "multiset":
            return [_rotate(node["items"], x, p) for x in value]
        if "prefixItems" in node:
            items = [_rotate(sub, x, p) for sub, x in zip(node["prefixItems"], value,
                                                           strict=True)]
            k = node.get("x-per-seat")
            if k:
                items[:k] = [items[(j + p) % k] for j in range(k)]
            return items
        return [_rotate(node["items"], x, p) for x in value]
    if kind == "object":
        if "properties" in node:
            props = node["properties"]
            return {key: _rotate(props[key], x, p) if key in props else x
                    for key, x in value.items()}
        sub = node["additionalProperties"]
        out = {key: _rotate(sub, x, p) for key, x in value.items()}
        k = node.get("x-per-seat")
        if k:
            moved = {str(j): out[str((j + p) % k)] for j in range(k) if str((j + p) % k) in out}
            out = {key: x for key, x in out.items() if not (key.isdigit() and int(key) < k)}
            out.update(moved)
        return out
    return value


def _positions(game, seed: int, count: int):
    """About ``count`` positions of one seeded random game, spread over it."""
    states = []
    random_playout(game, seed, on_state=lambda s: states.append(s.clone()))
    step = max(1, len(states) // count)
    return states[::step][:count]


@pytest.mark.parametrize("name,variant,params", game_variants(),
                         ids=[f"{g}-{v}" for g, v, _ in game_variants()])
def test_seat_permutation_equals_renumbering_the_observation(name, variant, params):
    """``observation_tensor(p)[observation_seat_permutation(p)]`` is the tensor of ``p``'s
    observation with every marked seat renumbered from ``p``, at every seat, on positions
    of two random games per variant (both backends write the same tensor, tests/engines)."""
    game = load_game(name, **params)
    schema = game.observation_schema()
    n = game.num_players()
    checked = 0
    for seed in (0, 1):
        for state in _positions(game, seed, 6):
            for p in range(n):
                obs = state.observation(p)
                perm = game.observation_seat_permutation(p)
                want = game._obs_spec().encode(_rotate(schema, obs, p))
                np.testing.assert_array_equal(state.observation_tensor(p)[perm], want)
                checked += 1
    assert checked >= n
    assert np.array_equal(game.observation_seat_permutation(0),
                          np.arange(game.observation_tensor_shape()[0]))
    with pytest.raises(ValueError, match="bad player"):
        game.observation_seat_permutation(n)


#: action labels that name a seat, per game: (regex, how the label names seat ``s``)
_SEAT_LABELS = {
    "rat_trap": (r"^choose seat (\d)$", lambda g, s: str(s)),
    "rats_to_riches": (r"^use .* on rat (\d)", lambda g, s: str(s)),
    "ratapolis": (r"^(?:attack [A-Z] |archive: look at )(\w+)", lambda g, s: g.colors[s]),
}


@pytest.mark.parametrize("name", ["rat_trap", "rats_to_riches", "ratapolis", "first_rat"])
@pytest.mark.parametrize("n", [3, 4])
def test_action_seat_permutation_renumbers_the_named_seat(name, n):
    """``action_seat_permutation(p)[a]`` is ``a`` with the seat its label names renumbered
    ``(s - p) mod n``; every other id stays. First Rat's ids name no seat."""
    game = load_game(name, num_players=n)
    state = game.new_initial_state()
    size = game.num_distinct_actions()
    pattern, label_of = _SEAT_LABELS.get(name, (None, None))
    for p in range(n):
        perm = game.action_seat_permutation(p)
        assert sorted(perm.tolist()) == list(range(size))
        if pattern is None:
            assert np.array_equal(perm, np.arange(size))
            continue
        named = 0
        for a in range(size):
            try:
                label = state.action_to_string(p, a)
            except Exception:   # an id this position cannot label (First Rat's setup)
                continue
            m = re.search(pattern, label)
            seat = next((s for s in range(n) if m and m.group(1) == label_of(game, s)), None)
            if seat is None:
                assert perm[a] == a, label
                continue
            named += 1
            want = label[:m.start(1)] + label_of(game, (seat - p) % n) + label[m.end(1):]
            assert state.action_to_string(p, int(perm[a])) == want
        assert named >= n


def test_ratapolis_joint_plans_map_both_cells():
    game = load_game("ratapolis", num_players=3, simultaneous=True)
    perm = game.action_seat_permutation(2)
    cells = perm[:game.C]
    for left, right in [(1, 2), (3, 0), (game.C - 1, 1)]:
        assert perm[game.PLAN + left * game.C + right] == \
            game.PLAN + cells[left] * game.C + cells[right]


def _noisy(model: Model, seed: int = 0) -> Model:
    rng = np.random.default_rng(seed)
    return model.with_arrays({k: v + rng.standard_normal(v.shape).astype(np.float32) * 0.3
                              for k, v in model.arrays().items()})


@pytest.fixture(scope="module")
def relative():
    return _noisy(Model.init("rats_to_riches", [2, 3], hidden=(16, 8), seed=2,
                             seat_relative=True))


def _midgame(game, seed=5):
    return _positions(game, seed, 5)[2]


def test_evaluate_reads_the_mover_first_network_in_absolute_seats(relative):
    """``evaluate(state, p)``: the raw network on ``tensor[perm_p]`` (+ the seat one-hot),
    its value output ``k`` read as seat ``(p + k) mod n`` and action ``a``'s logit from
    column ``action_seat_permutation(p)[a]``."""
    game = load_game("rats_to_riches", num_players=3)
    state = _midgame(game)
    for p in range(3):
        tensor = state.observation_tensor(p)
        x = np.concatenate([tensor[game.observation_seat_permutation(p)],
                            np.eye(3, dtype=np.float32)[p]])
        raw_v, raw_logits = relative.evaluate_batch(x[None], 3)
        legal = list(range(game.num_distinct_actions()))
        values, priors = relative.evaluate(state, p, legal)
        np.testing.assert_allclose(values, [raw_v[0, (s - p) % 3] for s in range(3)],
                                   rtol=1e-6)
        z = raw_logits[0, game.action_seat_permutation(p)]
        z = np.exp(z - z.max())
        np.testing.assert_allclose(priors, z / z.sum(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["rat_trap", "ratapolis", "rats_to_riches", "first_rat"])
def test_compiled_network_equals_the_reference(name):
    """``CyNet`` reads a seat-relative network through the same maps (absolute tensor in,
    absolute values and priors out), on the compiled twin's tensors, at every seat."""
    from ratai._speedups.nn import CyNet

    model = _noisy(Model.init(name, [3], hidden=(16, 8), seed=4, seat_relative=True))
    game = load_game(name, backend="cython", num_players=3)
    net = CyNet(model, 3, game)
    assert net.relative
    for state in _positions(game, 7, 4):
        cp = state.current_player()
        for p in range(3):
            legal = state.legal_actions(p) if cp == p else list(range(0, 40, 3))
            v, q = model.evaluate(state, p, legal)
            v2, q2 = net.evaluate(state.observation_tensor(p), p, legal)
            np.testing.assert_allclose(v2, v, atol=1e-5)
            np.testing.assert_allclose(q2, q, atol=1e-5)


def test_training_batches_are_what_inference_reads(relative):
    """A batch of a seat-relative network (``Positions.batch(..., maps)``): row ``x`` equals
    ``encode_input``, the visit share of absolute action ``a`` sits in the policy column
    ``evaluate`` reads for ``a``, and ``z`` is rotated mover-first."""
    game = load_game("rats_to_riches", num_players=3)
    states = [s for s in _positions(game, 9, 12) if s.current_player() >= 0][:6]
    a_n = game.num_distinct_actions()
    obs, seats, masks, pis = [], [], [], []
    rng = np.random.default_rng(0)
    for s in states:
        p = s.current_player()
        legal = s.legal_actions(p)
        obs.append(s.observation_tensor(p))
        seats.append(p)
        mask = np.zeros(a_n, bool)
        mask[legal] = True
        pi = np.zeros(a_n, np.float32)
        pi[legal] = rng.dirichlet(np.ones(len(legal)))
        masks.append(mask)
        pis.append(pi)
    z = rng.random((len(states), 3)).astype(np.float32)
    data = Positions.from_dense({"obs": np.array(obs), "seat": np.array(seats, np.int8),
                                 "mask": np.array(masks), "pi": np.array(pis), "z": z})
    maps = relative.seat_maps(3, game)
    batch = data.batch(np.arange(len(states)), 3, maps)
    for i, p in enumerate(seats):
        np.testing.assert_array_equal(batch["x"][i], relative.encode_input(obs[i], p, 3))
        cols = maps.actions[p]
        np.testing.assert_array_equal(batch["pi"][i, cols], pis[i])
        np.testing.assert_array_equal(batch["mask"][i, cols], masks[i])
        assert batch["z"][i].tolist() == [z[i, (p + k) % 3] for k in range(3)]
    plain = data.batch(np.arange(len(states)), 3)   # an absolute network's batch is as stored
    np.testing.assert_array_equal(plain["pi"], np.array(pis))
    np.testing.assert_array_equal(plain["z"], z)


def test_format_two_is_the_seat_relative_network(relative, tmp_path):
    """A seat-relative network is written as format 2 and read back as one; format 1 is an
    absolute network. A file whose flag contradicts its version is refused, one line."""
    assert FORMAT_VERSION == 2
    path = relative.save(tmp_path / "rel.npz")
    back = Model.load(path)
    assert back.seat_relative and back.meta["format"] == 2
    assert not Model.init("rats_to_riches", [2], hidden=(4, 4)).seat_relative
    assert Model.init("rats_to_riches", [2], hidden=(4, 4)).meta["format"] == 1
    arrays = {k: v for k, v in relative.arrays().items()}
    import json
    for meta in ({**relative.meta, "format": 1},
                 {k: v for k, v in relative.meta.items() if k != "seat_relative"},
                 {**relative.meta, "seat_relative": "yes"},
                 {k: v for k, v in relative.meta.items() if k != "seat_version"}):
        bad = tmp_path / "bad.npz"
        np.savez(bad, meta=np.array(json.dumps(meta)), **arrays)
        with pytest.raises(ModelError, match="seat_relative|seat_version") as info:
            Model.load(bad)
        assert "\n" not in str(info.value)


def test_a_game_whose_seat_maps_differ_is_refused(relative):
    """``seat_version`` records the maps the network was trained with; a game that marks
    its seats otherwise (the same tensor layout) is refused, naming the mismatch."""
    game = load_game("rats_to_riches", num_players=3)
    relative.check_game(game)
    assert relative.meta["seat_version"]["3"] == seat_version(game)
    other = relative.with_meta(seat_version={**relative.meta["seat_version"], "3": "0" * 16})
    with pytest.raises(ModelError, match="seat maps differ for 3 players"):
        other.check_game(game)
