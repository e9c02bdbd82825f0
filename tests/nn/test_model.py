"""ratai.nn.model: the model file format, its refusals (issue 14 item 3) and numpy inference."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import ratai.engines.rat_trap as rat_trap_pkg
from ratai.engines import load_game
from ratai.nn import FORMAT_VERSION, Model, ModelError, layout_version, packaged


@pytest.fixture(scope="module")
def model():
    return Model.init("rat_trap", players=[2, 3], hidden=(16, 8), seed=3)


def _bump_first_number(doc):
    """A copy of ``doc`` with its first integer (depth-first) changed by one."""
    done = []

    def walk(x):
        if isinstance(x, bool) or done:
            return x
        if isinstance(x, int):
            done.append(1)
            return x + 1
        if isinstance(x, list):
            return [walk(v) for v in x]
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        return x

    return walk(doc)


def _write(path, arrays):
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    return path


def _meta_arrays(model, **updates):
    meta = dict(model.meta, **updates)
    arrays = model.arrays()
    arrays["meta"] = np.array(json.dumps(meta))
    return arrays


def test_round_trip_float32_and_float16(model, tmp_path):
    game = load_game("rat_trap", num_players=3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    v0, p0 = model.evaluate(state, state.current_player())
    loaded = Model.load(model.save(tmp_path / "m.npz"))
    assert loaded.meta == model.meta
    v1, p1 = loaded.evaluate(state, state.current_player())
    np.testing.assert_array_equal(v0, v1)
    np.testing.assert_array_equal(p0, p1)
    half = Model.load(model.save(tmp_path / "h.npz", dtype="float16"))
    assert (tmp_path / "h.npz").stat().st_size < (tmp_path / "m.npz").stat().st_size
    v2, p2 = half.evaluate(state, state.current_player())
    np.testing.assert_allclose(v0, v2, atol=1e-2)
    np.testing.assert_allclose(p0, p2, atol=1e-2)
    assert not list(tmp_path.glob("*.tmp"))


def test_evaluate_matches_formula(model):
    game = load_game("rat_trap", num_players=2)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    p = state.current_player()
    legal = state.legal_actions()
    values, priors = model.evaluate(state, p)
    net = model.nets[2]
    x = np.concatenate([state.observation_tensor(p), np.eye(2, dtype=np.float32)[p]])
    h = np.maximum(np.maximum(x @ net.w1 + net.b1, 0) @ net.w2 + net.b2, 0)
    np.testing.assert_allclose(values, 1 / (1 + np.exp(-(h @ net.wv + net.bv))), rtol=1e-6)
    z = (h @ net.wp + net.bp)[legal]
    np.testing.assert_allclose(priors, np.exp(z - z.max()) / np.exp(z - z.max()).sum(),
                               rtol=1e-5)
    assert values.shape == (2,) and priors.shape == (len(legal),)
    # the tensor form: n found from the tensor length
    v2, p2 = model.evaluate(state.observation_tensor(p), p, legal)
    np.testing.assert_array_equal(values, v2)
    np.testing.assert_array_equal(priors, p2)
    vb, lb = model.evaluate_batch(np.stack([x, x]), 2)
    assert vb.shape == (2, 2) and lb.shape == (2, game.num_distinct_actions())
    with pytest.raises(ValueError, match="expected"):
        model.evaluate_batch(x[None, :-1], 2)


def test_check_game_accepts_its_games(model):
    for n in (2, 3):
        model.check_game(load_game("rat_trap", num_players=n))
        model.check_game(load_game("rat_trap", num_players=n, backend="python"))


@pytest.mark.parametrize("game,pattern", [
    (lambda: load_game("rats_to_riches", num_players=2), "for game 'rat_trap', not"),
    (lambda: load_game("rat_trap", num_players=4), "with 2, 3 players, not 4"),
    (lambda: load_game("rat_trap", num_players=3, roles=True), "parameter 'roles' is False"),
    (lambda: load_game("rat_trap", num_players=3, tie_break="extra_round"),
     "parameter 'tie_break'"),
])
def test_check_game_refuses(model, game, pattern):
    with pytest.raises(ModelError, match=pattern) as info:
        model.check_game(game())
    assert "\n" not in str(info.value)


def test_check_game_refuses_other_data_and_layout(model, tmp_path):
    from ratai.nn.model import game_data_hash
    game = load_game("rat_trap", num_players=3)
    other = model.with_arrays({}, data_hash="0" * 64)
    with pytest.raises(ModelError, match="component data differ"):
        other.check_game(game)
    data = tmp_path / "rat_trap.json"
    packaged_json = Path(rat_trap_pkg.__file__).with_name("rat_trap.json")
    doc = json.loads(packaged_json.read_text())
    data.write_text(json.dumps(doc, indent=3))       # reformatted: same data, same hash
    same = load_game("rat_trap", num_players=3, data_path=str(data))
    assert game_data_hash(same) == game_data_hash(game)
    model.check_game(same)
    data.write_text(json.dumps(_bump_first_number(doc)))
    moved = load_game("rat_trap", num_players=3, data_path=str(data))
    assert game_data_hash(moved) != game_data_hash(game)
    with pytest.raises(ModelError, match="component data differ"):
        model.check_game(moved)
    stale = model.with_arrays({}, layout_version={"2": "x", "3": "deadbeef"})
    with pytest.raises(ModelError, match="layout version differs for 3 players"):
        stale.check_game(game)
    assert layout_version(game) == model.meta["layout_version"]["3"]


def test_bad_files(model, tmp_path):
    good = model.save(tmp_path / "good.npz")
    raw = good.read_bytes()
    cases = {
        "empty": (b"", "empty file"),
        "text": (b"hello, not a model\n", "not a model file"),
        "trunc": (raw[: len(raw) // 2], "truncated"),
    }
    for name, (data, pattern) in cases.items():
        path = tmp_path / f"{name}.npz"
        path.write_bytes(data)
        with pytest.raises(ModelError, match=pattern) as info:
            Model.load(path)
        assert "\n" not in str(info.value) and str(path) in str(info.value)
    with pytest.raises(ModelError, match="cannot read"):
        Model.load(tmp_path / "missing.npz")
    # a flipped byte inside a member: the zip CRC check fails
    bad = bytearray(raw)
    with zipfile.ZipFile(good) as zf:
        info = zf.infolist()[0]
    h = info.header_offset
    name_len, extra_len = (int.from_bytes(raw[h + k:h + k + 2], "little") for k in (26, 28))
    offset = h + 30 + name_len + extra_len + info.compress_size // 2
    bad[offset] ^= 0xFF
    (tmp_path / "flip.npz").write_bytes(bytes(bad))
    with pytest.raises(ModelError, match="corrupt"):
        Model.load(tmp_path / "flip.npz")


def test_bad_contents(model, tmp_path):
    arrays = model.arrays()
    with pytest.raises(ModelError, match="no 'meta' entry"):
        Model.load(_write(tmp_path / "nometa.npz", arrays))
    with pytest.raises(ModelError, match=r"format version 3 is not supported .*versions 1 to 2"):
        Model.load(_write(tmp_path / "v3.npz", _meta_arrays(model, format=3)))
    assert FORMAT_VERSION == 2
    a = _meta_arrays(model)
    a["meta"] = np.array("{not json")
    with pytest.raises(ModelError, match="not valid JSON"):
        Model.load(_write(tmp_path / "badjson.npz", a))
    a = _meta_arrays(model)
    del a["w1@3"]
    with pytest.raises(ModelError, match="no array 'w1'"):
        Model.load(_write(tmp_path / "missing.npz", a))
    a = _meta_arrays(model)
    a["w2"] = a["w2"][:, :3]
    with pytest.raises(ModelError, match=r"array 'w2' has shape \(16, 3\)"):
        Model.load(_write(tmp_path / "shape.npz", a))
    a = _meta_arrays(model)
    a["b1"][0] = np.nan
    with pytest.raises(ModelError, match="NaN"):
        Model.load(_write(tmp_path / "nan.npz", a))
    meta = dict(model.meta)
    del meta["data_hash"]
    a = model.arrays()
    a["meta"] = np.array(json.dumps(meta))
    with pytest.raises(ModelError, match="lacks data_hash"):
        Model.load(_write(tmp_path / "lacks.npz", a))
    with pytest.raises(ModelError, match="'players'"):
        Model.load(_write(tmp_path / "players.npz", _meta_arrays(model, players=[])))


def test_name_at_n_overrides_shared(model, tmp_path):
    a = _meta_arrays(model)
    a["bv"] = np.full(3, 5.0, np.float32)      # shared: ignored for 3 (bv@3 wins), used nowhere
    a["bv@3"] = np.full(3, -5.0, np.float32)
    m = Model.load(_write(tmp_path / "o.npz", a))
    assert (m.nets[3].bv == -5.0).all()


def test_init_errors_and_packaged():
    with pytest.raises(ValueError, match="hidden"):
        Model.init("rat_trap", [2], hidden=(0, 4))
    with pytest.raises(ValueError, match="num_players|player"):
        Model.init("rat_trap", [9], hidden=(4, 4))
    assert packaged("no_such_game") is None
    p = packaged("rat_trap")
    assert p is None or Model.load(p).game_name == "rat_trap"


def test_packaged_is_found_beside_a_folder_named_ratai(tmp_path):
    """A script run from the folder that holds a clone named ``ratai`` (an editable install
    then imports ``ratai`` as a namespace package) still finds the shipped network (a
    ``TypeError`` from ``MultiplexedPath.joinpath`` before)."""
    import subprocess
    import sys

    (tmp_path / "ratai").mkdir()
    code = "from ratai.nn import packaged; print(packaged('rat_trap'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(packaged("rat_trap"))


@pytest.mark.parametrize("name", ["first_rat", "rat_trap", "ratapolis", "rats_to_riches"])
def test_shipped_model_fits_its_game_and_size(name):
    """Issue 14: one packaged model per title, <= 2 MB, accepted by ``check_game`` at every
    player count it declares (its layout, data hash and parameters are today's), with its
    training report beside it; the az bot plays a decision with it."""
    from ratai.bots import make_bot

    game = load_game(name)
    path = packaged(game)
    assert path is not None and path.stat().st_size <= 2 * 2**20
    assert path.with_suffix(".md").read_text().startswith("# Shipped model")
    model = Model.load(path)
    for n in model.meta["players"]:
        g = load_game(name, num_players=n)
        model.check_game(g)
    g = load_game(name, num_players=model.meta["players"][0])
    s = g.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    bot = make_bot("az", g, s.current_player(), iterations=20, seed=1)
    assert bot.step(s) in s.legal_actions()


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_a_cosmetic_parameter_keeps_the_model(backend):
    """Ratapolis' ``colors`` (RP-11) renames the seats only (``Param.cosmetic``): the same
    tensors and action ids, so the packaged network plays a game with other colours (it
    was refused by name, and levels fell back to the rollout search); a model made with
    other colours records none (and one recorded before the flag is still accepted)."""
    from ratai.bots import make_bot
    from ratai.bots.levels import level_spec
    from ratai.nn.model import model_params, seat_version

    plain = load_game("ratapolis", backend=backend, num_players=3)
    recoloured = load_game("ratapolis", backend=backend, num_players=3,
                           colors="green,orange,red")
    assert [p.name for p in plain.param_specs if p.cosmetic] == ["colors"]
    assert layout_version(recoloured) == layout_version(plain)
    assert seat_version(recoloured) == seat_version(plain)
    assert "colors" not in model_params(recoloured)
    shipped = Model.load(packaged(plain))
    assert "colors" not in shipped.meta["params"]    # the network of stop 55
    shipped.check_game(recoloured)
    # a model written before colors was cosmetic (stop 38's network) recorded it: accepted
    older = shipped.with_meta(params={**shipped.meta["params"],
                                      "colors": "red,blue,yellow,green,orange"})
    older.check_game(recoloured)
    older.check_game(plain)
    assert level_spec(recoloured, 10) == level_spec(plain, 10) == "az:10000"
    s = recoloured.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    an = make_bot("az", recoloured, s.current_player(), iterations=30, seed=1).analyze(s)
    assert an.best_action in s.legal_actions()
    made = Model.init("ratapolis", players=[3], hidden=(8, 8), seed=1,
                      params={"colors": "green,orange,red"})
    assert "colors" not in made.meta["params"]
    made.check_game(plain)
    other = load_game("ratapolis", backend=backend, num_players=3, layout="first_game",
                      property_tokens="none")
    with pytest.raises(ModelError, match="parameter 'property_tokens'"):
        made.check_game(other)


def test_play_options_round_trip_and_checks(model, tmp_path):
    """``meta["play"]``: the az options a network recommends (docs/az.md), kept by save/load,
    checked on load and in ``with_meta`` (unknown option, value out of range, not an
    object: one-line ``ModelError``), removed with ``None``."""
    assert model.play_options == {}
    tuned = model.with_meta(play={"rollout_mix": 0.5, "c_puct": 2})
    assert tuned.play_options == {"rollout_mix": 0.5, "c_puct": 2}
    assert model.play_options == {}  # a new model; the old one unchanged
    loaded = Model.load(tuned.save(tmp_path / "tuned.npz"))
    assert loaded.play_options == {"rollout_mix": 0.5, "c_puct": 2}
    assert loaded.with_meta(play=None).play_options == {}
    for play, pattern in (({"rollout_mix": 1.5}, r"'rollout_mix' is 1.5; allowed .*\[0, 1\]"),
                          ({"temperature": 1}, "unknown option 'temperature'"),
                          ({"rollout_mix": True}, "'rollout_mix' is True"),
                          ([0.5], "'play' .* is not an object")):
        with pytest.raises(ModelError, match=pattern):
            model.with_meta(play=play)
        with pytest.raises(ModelError, match=pattern):
            Model.load(_write(tmp_path / "bad_play.npz", _meta_arrays(model, play=play)))


def test_az_bot_takes_the_models_play_options_unless_given(model):
    """The az bot's options default to the model's ``play`` values; an explicit option
    wins (ratai.bots.az)."""
    from ratai.bots import make_bot

    game = load_game("rat_trap", num_players=3)
    tuned = model.with_meta(play={"rollout_mix": 0.75, "fpu_reduction": 0.2})
    bot = make_bot("az", game, 0, model=tuned, iterations=10)
    assert (bot.search.mix, bot.search.fpu) == (0.75, 0.2)
    bot = make_bot("az", game, 0, model=tuned, iterations=10, rollout_mix=0.0)
    assert (bot.search.mix, bot.search.fpu) == (0.0, 0.2)
    assert make_bot("az", game, 0, model=model, iterations=10).search.mix == 0.0
