"""Observation schemas and tensors (issues 16 item 1 and 14 item 1), on every game, variant
and backend: each observation of random playouts validates against
``Game.observation_schema()``; ``observation_tensor`` has the fixed shape, is equal on both
backends, depends only on the seat's information state and is the documented layout; the
legal-action mask is ``legal_actions``; a malformed observation is refused with every error
and its JSON path; the reference docs are current."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from ratai.engines import load_game, registered_games
from ratai.engines.api import ObservationError
from tests.conftest import VARIANT_IDS, game_variants, load_script, random_playout

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = game_variants(backends=True)


def views(game, seeds=(0, 1), every=7):
    """(state, seat) pairs along random playouts: every ``every``-th state, each seat."""
    out = []
    for seed in seeds:
        states: list = []
        random_playout(game, seed, on_state=lambda s, states=states: states.append(s.clone()))
        for state in states[::every] + [states[-1]]:
            out.extend((state, p) for p in range(game.num_players()))
    return out


@pytest.mark.parametrize(("name", "variant", "params", "backend"), VARIANTS, ids=VARIANT_IDS)
def test_every_observation_validates_and_encodes(name, variant, params, backend):
    game = load_game(name, backend=backend, **params)
    schema = game.observation_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    (size,) = game.observation_tensor_shape()
    for state, p in views(game):
        obs = state.observation(p)
        game.validate_observation(obs)
        tensor = state.observation_tensor(p)
        assert tensor.shape == (size,) and tensor.dtype == np.float32
        assert np.isfinite(tensor).all()
        mask = state.legal_actions_mask(p)
        assert mask.shape == (game.num_distinct_actions(),)
        assert list(np.flatnonzero(mask)) == state.legal_actions(p)


@pytest.mark.parametrize("name", registered_games())
def test_tensors_equal_on_both_backends(name):
    for params in load_game(name).variants.values():
        games = [load_game(name, backend=b, **params) for b in ("python", "cython")]
        assert games[0].observation_tensor_shape() == games[1].observation_tensor_shape()
        history = random_playout(games[0], 3).history()
        states = [g.new_initial_state() for g in games]
        for i, action in enumerate(history):
            if i % 5 == 0:
                for p in range(games[0].num_players()):
                    a, b = (s.observation_tensor(p) for s in states)
                    np.testing.assert_array_equal(a, b)
            for s in states:
                s.apply_action(action)


@pytest.mark.parametrize(("name", "variant", "params", "backend"),
                         [v for v in VARIANTS if not load_game(v[0]).perfect_information],
                         ids=[i for v, i in zip(VARIANTS, VARIANT_IDS, strict=True)
                              if not load_game(v[0]).perfect_information])
@pytest.mark.usefixtures("bounded_beliefs")
def test_tensor_depends_only_on_the_information_state(name, variant, params, backend):
    """Two states a seat cannot tell apart (a determinization) give it the same tensor."""
    game = load_game(name, backend=backend, **params)
    rng = np.random.default_rng(5)
    for state, p in views(game, seeds=(4,), every=11):
        if state.is_terminal():
            continue
        other = state.resample_from_infostate(p, rng)
        assert other.information_state_string(p) == state.information_state_string(p)
        np.testing.assert_array_equal(other.observation_tensor(p), state.observation_tensor(p))


@pytest.mark.parametrize("name", registered_games())
def test_layout_covers_the_tensor_and_writes_into_a_buffer(name):
    game = load_game(name, num_players=3)
    layout = game.observation_tensor_layout()
    (size,) = game.observation_tensor_shape()
    assert layout[0].start == 0 and sum(s.size for s in layout) == size
    assert all(a.start + a.size == b.start for a, b in zip(layout, layout[1:], strict=False))
    state = random_playout(game, 1)
    buf = np.full(size, 7.0, dtype=np.float32)
    out = state.observation_tensor(0, out=buf)
    assert out is buf
    np.testing.assert_array_equal(buf, state.observation_tensor(0))


def test_tensor_encodes_fields_as_documented():
    """Spot checks of the documented encodings on Rats to Riches."""
    game = load_game("rats_to_riches", num_players=3)
    state = game.new_initial_state()
    obs = state.observation(1)
    tensor = state.observation_tensor(1)
    by_path = {s.path: s for s in game.observation_tensor_layout()}
    player = by_path["$.player"]
    assert list(tensor[player.start:player.start + player.size]) == [0, 1, 0]   # one-hot
    cash = by_path["$.cash[0]"]
    assert tensor[cash.start] == pytest.approx(obs["cash"][0] / game.data.win_cash)
    phase = by_path["$.phase"]
    hot = int(np.argmax(tensor[phase.start:phase.start + phase.size]))
    assert game.observation_schema()["properties"]["phase"]["enum"][hot] == obs["phase"]


@pytest.mark.parametrize("name", registered_games())
def test_schema_describes_every_field(name):
    schema = load_game(name, num_players=3).observation_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    missing = [k for k, v in schema["properties"].items() if not v.get("description")]
    assert not missing


@pytest.mark.parametrize("name", registered_games())
def test_malformed_observation_lists_every_error(name):
    game = load_game(name, num_players=3)
    state = random_playout(game, 2)
    obs = copy.deepcopy(state.observation(0))
    keys = sorted(obs)
    del obs[keys[0]]
    obs[keys[1]] = "not a value"
    obs["no_such_field"] = 1
    with pytest.raises(ObservationError) as info:
        game.state_from_observation(0, obs, 0)
    paths = [p for p, _ in info.value.errors]
    assert len(info.value.errors) >= 3
    assert f"$.{keys[1]}" in paths and "$" in paths
    text = str(info.value)
    assert keys[0] in text and "no_such_field" in text
    assert isinstance(info.value, ValueError)


def _deep(levels):
    value = 1
    for _ in range(levels):
        value = [value]
    return {"points": value}


@pytest.mark.parametrize("bad", [None, [], "{}", _deep(40)], ids=["none", "list", "str", "deep"])
def test_non_objects_and_deep_nesting_are_refused(bad):
    game = load_game("rat_trap", num_players=3)
    with pytest.raises(ObservationError):
        game.state_from_observation(0, bad, 0)


def _mutations(obs, rng, count):
    """``count`` copies of ``obs``, each with one leaf or mapping changed at random: a wrong
    type, a number out of range, a missing or an unknown key."""
    leaves, maps = [], []

    def walk(v, path):
        if isinstance(v, dict):
            maps.append(path)
            for k, x in v.items():
                walk(x, path + (k,))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, path + (i,))
            leaves.append(path)
        else:
            leaves.append(path)

    walk(obs, ())
    values = [None, "x", 1.5, True, -1, 10**6, -(10**6), [], {}, [0], 0, False]
    out = []
    for _ in range(count):
        o = copy.deepcopy(obs)
        if maps and rng.random() < 0.25:
            path = maps[rng.integers(len(maps))]
            node = o
            for k in path:
                node = node[k]
            if node and rng.random() < 0.5:
                del node[sorted(node)[rng.integers(len(node))]]
            else:
                node["no_such_field"] = 0
        else:
            path = leaves[rng.integers(len(leaves))]
            if not path:
                continue
            node = o
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = values[rng.integers(len(values))]
        out.append(o)
    return out


@pytest.mark.parametrize("name", registered_games())
def test_the_fast_validator_agrees_with_jsonschema(name):
    """``jsonschema_rs`` (the fast path of validate_observation) accepts exactly what
    ``jsonschema`` accepts: observations along random games of every variant, and each with
    one field broken (wrong types, out-of-range numbers, missing and unknown keys)."""
    pytest.importorskip("jsonschema_rs")
    rng = np.random.default_rng(7)
    refused = 0
    for params in load_game(name).variants.values():
        game = load_game(name, backend="python", **params)
        spec = game._obs_spec()
        assert spec._fast is not None
        for state, p in views(game, seeds=(0,), every=40)[::2]:
            obs = state.observation(p)
            assert spec._fast.is_valid(obs) and spec._validator.is_valid(obs)
            for bad in _mutations(obs, rng, 4):
                valid = spec._validator.is_valid(bad)
                assert spec._fast.is_valid(bad) == valid, bad
                refused += not valid
    assert refused >= 20  # the mutations do break observations


def test_values_of_other_python_types_are_checked_by_jsonschema():
    """A tuple, a numpy number or a NaN is not a JSON value: jsonschema decides (the
    fast validator would read them as arrays and numbers)."""
    game = load_game("rat_trap", num_players=3)
    obs = game.new_initial_state().observation(0)
    for key, value in (("points", tuple(obs["points"])), ("round", np.int64(obs["round"])),
                       ("round", float("nan"))):
        bad = dict(obs, **{key: value})
        with pytest.raises(ObservationError, match=key):
            game.validate_observation(bad)
    game.validate_observation(json.loads(json.dumps(obs)))


def _floats(value):
    """``value`` with every int (not bool) as a float, as a JSON client or a protobuf
    ``Struct`` may send it."""
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return float(value) if type(value) is int else value


@pytest.mark.parametrize(("name", "variant", "params"), game_variants(),
                         ids=[f"{g}-{v}" for g, v, _ in game_variants()])
def test_integral_floats_are_read_as_integers(name, variant, params):
    """JSON Schema counts 1.0 as an integer: an observation whose integers are all floats
    rebuilds the same state as the ints (Rat Trap's rebuild raised a TypeError on them)."""
    game = load_game(name, backend="python", **params)
    for state, p in views(game, seeds=(3,), every=60)[::2]:
        obs = state.observation(p)
        as_floats = _floats(obs)
        rebuilt = game.state_from_observation(p, as_floats, 5)
        assert rebuilt.observation(p) == obs
        assert rebuilt.serialize() == game.state_from_observation(p, obs, 5).serialize()
        assert as_floats == _floats(obs)   # the caller's dict is left as it was


@pytest.mark.parametrize(("name", "field"), [("rat_trap", "lost_counts"),
                                             ("rats_to_riches", "cash")])
def test_integers_too_long_to_read_are_refused(name, field):
    """An int past Python's 4,300 digits (the fast validator read it as 0): refused with an
    ObservationError, as jsonschema refused it before."""
    game = load_game(name, num_players=2)
    obs = game.new_initial_state().observation(0)
    obs[field] = [10 ** 4300] + obs[field][1:]
    with pytest.raises(ObservationError):
        game.state_from_observation(0, obs, 0)


def test_the_tensor_layout_is_built_once_per_parameters():
    """Every game of equal parameters (either backend) shares one layout: a twin's compiled
    writer indexes it whenever a game is created (it was rebuilt each time, 9-16 ms)."""
    ref = load_game("ratapolis", backend="python", num_players=3)
    twin = load_game("ratapolis", backend="cython", num_players=3)
    assert ref._tensor_layout() is twin._tensor_layout() is ref._obs_spec().layout
    other = load_game("ratapolis", num_players=4)._tensor_layout()
    assert other is not ref._tensor_layout() and other.size != ref._tensor_layout().size


def test_another_seats_observation_is_refused():
    game = load_game("ratapolis", num_players=3)
    obs = game.new_initial_state().observation(1)
    with pytest.raises(ValueError, match="player"):
        game.state_from_observation(0, obs, 0)


def test_a_valid_observation_round_trips():
    for name in registered_games():
        game = load_game(name, num_players=3)
        state = random_playout(game, 6)
        obs = state.observation(1)
        rebuilt = game.state_from_observation(1, json.loads(json.dumps(obs)), 3)
        assert rebuilt.observation(1) == obs


def test_reference_docs_are_current():
    module = load_script("scripts/make_obs_docs.py")
    for name in registered_games():
        path = ROOT / "docs" / "observations" / f"{name}.md"
        assert path.read_text() == module.page(name), \
            f"{path} is stale: run python scripts/make_obs_docs.py"
