"""The compiled observation tensors of the Rat Trap and Ratapolis twins (issue 14, item 1).

``CyState.observation_tensor`` takes the twin's ``c_observation_tensor`` (a nogil writer from
the C struct, offsets read from the game's ``TensorLayout``); it must equal the reference
backend's ``observation_tensor`` (the layout applied to ``observation(player)``) bit for
bit in float32, for every variant and player count, at every step of seeded random games
(decision and chance nodes, every phase, the terminal state), and, reading nothing hidden,
give equal tensors for equal information states. A field the writer does not know turns
it off (the reference encoder is used) instead of writing a wrong tensor.
"""

from __future__ import annotations

import numpy as np
import pytest

from ratai.engines import api, game_class, load_game
from tests.conftest import sample_action

core = pytest.importorskip("ratai._speedups.core")
pytest.importorskip("ratai._speedups.rat_trap")
pytest.importorskip("ratai._speedups.ratapolis")
from ratai._speedups.tensor_layout import CheckedLayout, LayoutMismatch  # noqa: E402

GAMES = ["rat_trap", "ratapolis"]
SEEDS = 3          # random games per variant in the default run (every phase is visited)
SLOW_SEEDS = 60


def compiled_variants(name: str) -> list[tuple[str, dict]]:
    """Every variant of ``name`` the twin compiles (Ratapolis's joint view is not)."""
    return [(v, p) for v, p in game_class(name, "python").variants.items()
            if not p.get("simultaneous")]


def check_games(name: str, params: dict, seeds) -> dict:
    """Play seeded random games on both backends in lockstep; at every state and seat the
    twin's tensor must equal the reference's. Returns what was visited."""
    ref_game = load_game(name, backend="python", **params)
    cy_game = load_game(name, backend="cython", **params)
    n = ref_game.num_players()
    shape = ref_game.observation_tensor_shape()
    assert cy_game.observation_tensor_shape() == shape
    seen = {"phases": set(), "chance": 0, "terminal": 0, "states": 0}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        ref, cy = ref_game.new_initial_state(), cy_game.new_initial_state()
        assert core.has_compiled_observation_tensor(cy), cy_game._consts.obs_error
        step = 0
        while True:
            for p in range(n):
                want = ref.observation_tensor(p)
                got = cy.observation_tensor(p)
                assert got.dtype == np.float32 and got.shape == shape
                if not np.array_equal(got, want):
                    bad = np.flatnonzero(got != want)[:5].tolist()
                    paths = [sl.path for sl in ref_game.observation_tensor_layout()
                             for i in bad if sl.start <= i < sl.start + sl.size]
                    pytest.fail(f"{name} {params} seed {seed} step {step} seat {p}: tensor "
                                f"differs at {bad} ({paths})")
            seen["phases"].add(ref.observation(0)["phase"])
            seen["states"] += 1
            seen["chance"] += ref.is_chance_node()
            if ref.is_terminal():
                seen["terminal"] += 1
                assert cy.is_terminal()
                break
            action = sample_action(ref, rng)
            ref.apply_action(action)
            cy.apply_action(action)
            step += 1
    return seen


@pytest.mark.parametrize("name", GAMES)
def test_tensor_equals_reference_every_variant_and_phase(name):
    seen_phases = set()
    for variant, params in compiled_variants(name):
        seen = check_games(name, params, range(SEEDS))
        assert seen["terminal"] == SEEDS and seen["chance"] > 0, variant
        seen_phases |= seen["phases"]
    phases = set(load_game(name, backend="cython").observation_schema()
                 ["properties"]["phase"]["enum"])
    assert seen_phases == phases, f"phases never visited: {phases - seen_phases}"


def test_player_counts_covered():
    # the variants above hold every player count each title allows (2-5)
    for name in GAMES:
        counts = {p["num_players"] for _, p in compiled_variants(name)}
        assert counts == {2, 3, 4, 5}, name


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_tensor_equals_reference_sweep(name):
    for _, params in compiled_variants(name):
        check_games(name, params, range(100, 100 + SLOW_SEEDS))


@pytest.mark.parametrize("name", GAMES)
def test_same_information_state_same_tensor(name):
    """Determinizations for seat p (compiled and reference samplers) change only what p
    cannot see (its observation is kept): p's tensor stays the same, bit for bit, though
    the samples differ in hidden parts."""
    differs = 0
    for _, params in compiled_variants(name):
        game = load_game(name, backend="cython", **params)
        n = game.num_players()
        rng = np.random.default_rng(7)
        s = game.new_initial_state()
        k = 0
        while not s.is_terminal():
            if k % 5 == 0:
                p = k % n
                want = s.observation_tensor(p)
                for d in (s.resample_c(p, k), s.resample_from_infostate(p, k)):
                    assert d.observation(p) == s.observation(p)   # what the tensor encodes
                    assert core.has_compiled_observation_tensor(d)
                    assert np.array_equal(d.observation_tensor(p), want), (params, k, p)
                    differs += d.serialize() != s.serialize()
            s.apply_action(sample_action(s, rng))
            k += 1
    assert differs > 0  # the property is not vacuous: hidden parts were resampled


@pytest.mark.parametrize("name", GAMES)
def test_out_buffers_and_bad_seat(name):
    game = load_game(name, backend="cython", num_players=3)
    rng = np.random.default_rng(3)
    s = game.new_initial_state()
    for _ in range(40):
        s.apply_action(sample_action(s, rng))
    want = game._obs_spec().encode(s.observation(1))
    buf = np.full(game.observation_tensor_shape(), 9.0, np.float32)
    assert s.observation_tensor(1, out=buf) is buf          # written in place
    assert np.array_equal(buf, want)
    wide = np.full(game.observation_tensor_shape(), 9.0, np.float64)
    assert s.observation_tensor(np.int64(1), out=wide) is wide   # another dtype: as the
    ref_wide = np.zeros(game.observation_tensor_shape(), np.float64)  # reference writes it
    assert np.array_equal(wide, game._obs_spec().encode(s.observation(1), ref_wide))
    for bad in (-1, 3, 1.0, True, "0"):
        with pytest.raises(ValueError, match="bad player"):
            s.observation_tensor(bad)
    assert core.observation_tensor_loop(s, 10, 1) == 10
    with pytest.raises(ValueError, match="bad player"):
        core.observation_tensor_loop(s, 10, 5)


def test_unknown_field_turns_the_writer_off(monkeypatch):
    """A field the writer does not know (say a new public fact of the beliefs work): the
    writer stays off, naming it, and observation_tensor is the reference encoder's."""
    from ratai.engines.obs_schema import boolean
    from ratai.engines.rat_trap import schema

    original = schema.observation_schema

    def extended(game):
        doc = original(game)
        doc["properties"]["new_fact"] = boolean("a field the writer does not know")
        doc["required"].append("new_fact")
        return doc

    monkeypatch.setattr(schema, "observation_schema", extended)
    monkeypatch.setattr(api, "_OBS_SPECS", {})   # layouts of this test only
    monkeypatch.setattr(api, "_TENSOR_LAYOUTS", {})
    game = load_game("rat_trap", backend="cython", num_players=3)
    s = game.new_initial_state()
    assert not core.has_compiled_observation_tensor(s)
    assert "$.new_fact" in game._consts.obs_error
    rng = np.random.default_rng(0)
    for _ in range(30):
        s.apply_action(sample_action(s, rng))
    got = s.observation_tensor(0)
    assert got.shape == game.observation_tensor_shape()
    assert any(sl.path == "$.new_fact" for sl in game.observation_tensor_layout())
    assert np.array_equal(got, game._obs_spec().encode(s.observation(0)))


def test_checked_layout_claims_every_slice():
    game = load_game("rat_trap", backend="python", num_players=2)
    L = CheckedLayout(game)
    assert L.number("$.turn") == (1, 0.0, 1 / 30)
    with pytest.raises(LayoutMismatch, match="no number slice"):
        L.number("$.no_such_field")
    with pytest.raises(LayoutMismatch, match="not a boolean"):
        L.boolean("$.round")
    with pytest.raises(LayoutMismatch, match="the writer expects"):
        L.onehot("$.active", [1, 0, 2])          # values in another order
    assert L.items("$.black") == 2 and L.items("$.points") == 3
    with pytest.raises(LayoutMismatch, match="does not know .*round_results"):
        L.finish()
    for (path, kind), slices in L._at.items():   # claim everything: finish() is quiet
        for i in range(len(slices)):
            L.slice(path, kind, i)
    L.finish()
