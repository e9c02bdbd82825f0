"""Compiled observation tensors (issue 14, item 1; AZ.md section 1): the First Rat and Rats to
Riches twins write ``observation_tensor(player)`` from their C struct (``c_observation_tensor``)
and must equal the reference backend's tensor, computed from ``observation(player)`` through
the game's ``TensorLayout``, to the bit (float32 equality).

Checked on every state of seeded random playouts (chance nodes, every phase, terminal states)
of every variant and player count, the parameters the variants do not reach, replacement data
files; plus the ``out=`` buffer semantics, bad seats, the nogil loop, and "same information
state => same tensor" (determinizations, rebuilds from the observation, equal information
strings).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratai.engines import _CYTHON_REGISTRY, load_game
from tests.conftest import game_variants, sample_action
from tests.speedups.test_cy_first_rat import EXTRA as FR_EXTRA
from tests.speedups.test_cy_first_rat import _biased

core = pytest.importorskip("ratai._speedups.core")

#: The twins with a compiled writer (this package); the other twins use the fallback.
COMPILED = ("first_rat", "rats_to_riches")
SEEDS = 3
RR_ALT = str(Path(__file__).parents[1] / "engines" / "rats_to_riches"
             / "alt_rats_to_riches.json")

CASES = [(g, v, p) for g, v, p, b in game_variants(backends=True)
         if b == "cython" and g in COMPILED]
CASES += [("first_rat", "extra-" + "-".join(f"{x}" for x in p.values()), p) for p in FR_EXTRA]
CASES += [("rats_to_riches", f"alt-data-{n}p", {"num_players": n, "data_path": RR_ALT})
          for n in (2, 4)]
CASES += [("rats_to_riches", "turn-cap-1", {"num_players": 3, "max_turn_actions": 1})]


def _policy(seed):
    """Uniform play on even seeds; on odd ones a policy that favours the highest action id
    half of the time (builds, steals, option B, Greg's choices: the rarer phases)."""
    return sample_action if seed % 2 == 0 else _biased


def lockstep(name: str, params: dict, seed: int):
    """Yield ``(reference, twin)`` at every state of one seeded game (both backends apply the
    same actions), the terminal state included."""
    ref = load_game(name, backend="python", **params).new_initial_state()
    cy = load_game(name, backend="cython", **params).new_initial_state()
    rng = np.random.default_rng(seed)
    policy = _policy(seed)
    while True:
        yield ref, cy
        if ref.is_terminal():
            return
        action = policy(ref, rng)
        ref.apply_action(action)
        cy.apply_action(action)


def assert_same_tensor(ref_state, cy_state, player: int, where: str) -> np.ndarray:
    want = ref_state.observation_tensor(player)
    got = cy_state.observation_tensor(player)
    assert got.dtype == np.float32 and got.shape == want.shape, where
    if not np.array_equal(got, want):
        layout = ref_state.get_game().observation_tensor_layout()
        bad = int(np.flatnonzero(got != want)[0])
        sl = next(s for s in layout if s.start <= bad < s.start + s.size)
        pytest.fail(f"{where}: cell {bad} ({sl.path}, {sl.kind}) is {got[bad]!r}, the "
                    f"reference {want[bad]!r}")
    return got


@pytest.mark.parametrize(("name", "variant", "params"), CASES,
                         ids=[f"{g}-{v}" for g, v, _ in CASES])
def test_compiled_tensor_equals_the_reference_at_every_state(name, variant, params):
    cy_game = load_game(name, backend="cython", **params)
    start = cy_game.new_initial_state()
    assert core.observation_tensor_loop(start, 1, 0) == 1, "no compiled writer"
    n = cy_game.num_players()
    phases, chance, terminal = set(), 0, 0
    for seed in range(SEEDS):
        for step, (ref, cy) in enumerate(lockstep(name, params, seed)):
            phases.add(ref.phase)
            chance += ref.is_chance_node()
            terminal += ref.is_terminal()
            for p in range(n):
                assert_same_tensor(ref, cy, p, f"{name} {params} seed {seed} step {step} "
                                               f"seat {p}")
    assert terminal == SEEDS and chance > 0
    assert {"over"} < phases


@pytest.mark.parametrize(("name", "variant", "params"), CASES,
                         ids=[f"{g}-{v}" for g, v, _ in CASES])
def test_the_twins_tables_come_from_the_games_layout(name, variant, params):
    """``ObsLayout`` (the twins' table source) is ``game.observation_tensor_layout()``, and
    its lookups name the path they miss."""
    game = load_game(name, backend="cython", **params)
    layout = core.ObsLayout(game)
    assert layout.slices == game.observation_tensor_layout()
    assert layout.size == game.observation_tensor_shape()[0]
    with pytest.raises(ValueError, match=r"no number slice at \$\.nothing"):
        layout.number("$.nothing")
    with pytest.raises(ValueError, match="is not a value of"):
        layout.hot("$.phase", "no such phase")


@pytest.mark.parametrize("name", COMPILED)
def test_every_phase_is_checked(name):
    """Over the variants, the playouts of the test above (same seeds, same policies) reach
    every value of the observation's ``phase`` enum, so every phase's tensor is compared."""
    enum = set(load_game(name).observation_schema()["properties"]["phase"]["enum"])
    seen = set()
    for g, _, params in CASES:
        if g != name or "data_path" in params:
            continue
        for seed in range(SEEDS):
            rng = np.random.default_rng(seed)
            ref = load_game(name, backend="python", **params).new_initial_state()
            while not ref.is_terminal():
                seen.add(ref.phase)
                ref.apply_action(_policy(seed)(ref, rng))
            seen.add(ref.phase)
    assert seen == enum


def test_first_rat_replacement_data_file(tmp_path):
    """``data_path``: the offsets follow the data file's layout (another path, prices,
    supplies), as the reference's schema does."""
    doc = json.loads(resources.files("ratai.engines.first_rat")
                     .joinpath("first_rat.json").read_text())
    doc["path"]["shortcuts"] = doc["path"]["shortcuts"][:3]
    doc["prices"] = {"backpack": 2, "energy_drink": 1, "bottle_cap": 2}
    doc["setup"]["supply"]["awards"] = 3
    doc["solo"]["cards"][0]["moves"] = [5, 0, 0, 0]
    path = tmp_path / "fr.json"
    path.write_text(json.dumps(doc))
    for n in (1, 3):
        params = {"num_players": n, "data_path": str(path)}
        for seed in range(2):
            for step, (ref, cy) in enumerate(lockstep("first_rat", params, seed)):
                for p in range(n):
                    assert_same_tensor(ref, cy, p, f"{params} seed {seed} step {step}")


@pytest.mark.parametrize("name", COMPILED)
def test_out_buffer_and_bad_seats_behave_like_the_reference(name):
    game = load_game(name, backend="cython", num_players=3)
    ref_game = load_game(name, backend="python", num_players=3)
    (size,) = game.observation_tensor_shape()
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(60):
        if state.is_terminal():
            break
        state.apply_action(sample_action(state, rng))
    ref = ref_game.deserialize_state(state.serialize())
    want = ref.observation_tensor(1)
    # a float32 buffer: overwritten entirely (stale values cleared) and returned
    buf = np.full(size, 7.0, dtype=np.float32)
    assert state.observation_tensor(1, out=buf) is buf
    np.testing.assert_array_equal(buf, want)
    # other buffers take the reference path with its semantics (a cast into float64, a
    # strided view written in place)
    wide = np.full(size, 7.0)
    assert state.observation_tensor(1, out=wide) is wide
    np.testing.assert_array_equal(wide, ref.observation_tensor(1, out=np.zeros(size)))
    strided = np.full(2 * size, 7.0, dtype=np.float32)[::2]
    state.observation_tensor(1, out=strided)
    np.testing.assert_array_equal(strided, want)
    for bad in (-1, 3, True, 1.0, "1"):
        with pytest.raises(ValueError, match="bad player"):
            state.observation_tensor(bad)
        with pytest.raises(ValueError, match="bad player"):
            ref.observation_tensor(bad)
    np.testing.assert_array_equal(state.observation_tensor(np.int64(1)), want)
    with pytest.raises(ValueError, match="bad player"):
        core.observation_tensor_loop(state, 1, 3)
    assert core.observation_tensor_loop(state, 50, 2) == 50


@pytest.mark.parametrize("name", sorted(_CYTHON_REGISTRY))
def test_every_twin_reports_its_tensor_size(name):
    """``c_observation_size``: the layout's length when the twin has a compiled writer
    (the nogil loop runs), else 0 and the loop says -1 (callers fall back)."""
    game = load_game(name, backend="cython")
    state = game.new_initial_state()
    ran = core.observation_tensor_loop(state, 3, 0)
    assert ran == 3 if name in COMPILED else ran in (3, -1)
    np.testing.assert_array_equal(
        state.observation_tensor(0),
        load_game(name, backend="python").new_initial_state().observation_tensor(0))


@pytest.mark.parametrize("name", COMPILED)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, 600),
       draw=st.integers(0, 2**31 - 1))
def test_same_information_state_gives_the_same_tensor(name, seed, steps, draw):
    """Nothing hidden is read: at a random state, every determinization of seat ``p``
    (``resample_from_infostate``, the compiled ``c_resample``'s path), the state rebuilt
    from ``observation(p)`` alone, and the reference all give seat ``p`` the same tensor."""
    for params in ({"num_players": 2}, {"num_players": 4}):
        cy_game = load_game(name, backend="cython", **params)
        ref_game = load_game(name, backend="python", **params)
        state = cy_game.new_initial_state()
        rng = np.random.default_rng(seed)
        for _ in range(steps):
            if state.is_terminal():
                break
            state.apply_action(sample_action(state, rng))
        for p in range(cy_game.num_players()):
            tensor = state.observation_tensor(p)
            obs = state.observation(p)
            others = [state.resample_from_infostate(p, draw + i) for i in range(2)]
            others.append(cy_game.state_from_observation(p, obs))
            for other in others:
                assert other.observation(p) == obs
                np.testing.assert_array_equal(other.observation_tensor(p), tensor)
            ref = ref_game.state_from_observation(p, obs)
            np.testing.assert_array_equal(ref.observation_tensor(p), tensor)


@pytest.mark.parametrize("name", COMPILED)
def test_equal_information_strings_give_equal_tensors(name):
    """Over the states of many playouts, two states whose ``information_state_string(p)``
    agree have the same compiled tensor for ``p``."""
    game = load_game(name, backend="cython", num_players=3)
    seen: dict[str, bytes] = {}
    for seed in range(4):
        rng = np.random.default_rng(100 + seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            for p in range(3):
                key = state.information_state_string(p)
                tensor = state.observation_tensor(p).tobytes()
                assert seen.setdefault(key, tensor) == tensor
            state.apply_action(sample_action(state, rng))
    assert len(seen) > 100
