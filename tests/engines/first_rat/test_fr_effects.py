"""Component effects as data (issue 17): First Rat's comics, bottle caps, Rat Burrow rewards
and light string are written with the shared effect primitives of ``engines/effects.py``
(vocabularies ``engines.first_rat.data.EFFECTS``). Both backends interpret them; an owner's
data file with other effects and counts plays identically on both.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest
from fr_helpers import Both, clear_board, do, make, restart

from ratai.engines import _CYTHON_REGISTRY, load_game
from ratai.engines.effects import EffectError
from tests.conftest import sample_action


def shipped() -> dict:
    return json.loads(resources.files("ratai.engines.first_rat")
                      .joinpath("first_rat.json").read_text())


def _modify(q: str, **kw) -> dict:
    return {"op": "modify", "quantity": q, **kw}


def _per(of: str, times: int = 1, **kw) -> dict:
    return {"op": "score", "when": "game_end", "amount": {"count": {"of": of}, "times": times,
                                                          **kw}}


def alternative() -> dict:
    """A data file unlike the shipped one: 9 comics (3 Super Rats) and 8 bottle caps with
    other effects, other burrow rewards (gains, two tracks), a 10-position light string
    lighting 3 spaces per position with a +2 bonus and rewards at 4 positions."""
    d = shipped()
    comics = [
        ("C1", [_modify("shortcut_cost", add=1), _per("cheese", 1, divide=3, max=4)]),
        ("C2", [_modify("landing_fee", add=1), _modify("yield_on_green", add=1)]),
        ("C3", [_modify("option_a_steps", add=2), _modify("option_b_steps", at_most=2)]),
        ("C4", [_modify("item_price", add=1), _modify("yield", add=1)]),
        ("C5", [_modify("yield_of_cheese", add=2),
                {"op": "score", "amount": 5,
                 "if": {"count": {"of": "rattronauts"}, "cmp": "most"}}]),
        ("C6", [_modify("option_b_steps", add=1), _modify("yield_of_apple", add=1)]),
    ]
    supers = [
        ("S1", [_modify("super_rat_steps", add=3), _modify("super_rat_yield", add=-1),
                _modify("super_rat_pays_landing", at_most=0)]),
        ("S2", [_modify("super_rat_matches_colour", at_most=0),
                _modify("super_rat_blocks", at_most=0)]),
        ("S3", [_modify("super_rat_yield", add=2), _modify("landing_fee", at_most=0)]),
    ]
    d["comics"] = ([{"id": i, "name": f"Comic {i}", "super_rat": False, "effects": e}
                    for i, e in comics]
                   + [{"id": i, "name": f"Super Rat: {i}", "super_rat": True, "effects": e}
                      for i, e in supers])
    d["bottle_caps"] = [
        {"id": "K1", "effects": [_per("cheese", 1, divide=3)]},
        {"id": "K2", "effects": [_per("awards", 3)]},
        {"id": "K3", "effects": [_per("light_string", 1, max=6)]},
        {"id": "K4", "effects": [{"op": "score", "amount": 6,
                                  "if": {"count": {"of": "rattronauts"}, "cmp": "most"}}]},
        {"id": "K5", "effects": [_per("energy_drinks", 2), _per("bottle_caps_owned", 2)]},
        {"id": "K6", "effects": [_per("backpacks_owned", 1, plus=1)]},
        {"id": "K7", "effects": [{"op": "score", "amount": 4,
                                  "if": {"count": {"of": "comics_owned"}, "cmp": ">=",
                                         "value": 2}}]},
        {"id": "K8", "effects": [_per("cockpits_built", 2), _modify("yield_of_bulb", add=1)]},
    ]
    d["setup"]["bottle_caps_shown"] = 5
    d["setup"]["comics_shown"] = 5
    d["burrow"]["rewards"] = {
        "R3": {"name": "Cheese Cellar", "effects": [{"op": "gain", "resource": "cheese",
                                                     "amount": 2}]},
        "R4": {"name": "Stored Food", "effects": [{"op": "score", "resource": "stored_food"},
                                                  {"op": "gain", "resource": "cheese"}]},
        "R5": {"name": "Pantry", "effects": [{"op": "score", "resource": "provisions"}]},
        "R7": {"name": "Nursery", "effects": [{"op": "move", "what": "rat", "from": "nursery",
                                               "to": "start"}]},
        "R8": {"name": "Library", "effects": [
            {"op": "gain", "resource": "tin"},
            {"op": "move", "what": "comic", "from": "library", "to": "tableau"}]},
    }
    lights = [list(range(3 * k + 1, min(3 * k + 4, 27))) for k in range(9)]
    positions = [{"lights": x} for x in lights]
    for k in (2, 5, 8):
        positions[k]["effects"] = [{"op": "score", "resource": "construction_lights"}]
    positions[5]["effects"].append({"op": "gain", "resource": "vinegar"})
    positions.append({"lights": [], "effects": [{"op": "gain", "resource": "cheese",
                                                 "amount": 2}]})
    d["light_string"] = {"lit_bonus": 2, "positions": positions}
    d["prices"] = {"backpack": 3, "energy_drink": 2, "bottle_cap": 2}
    return d


@pytest.fixture(scope="module")
def alt_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("fr") / "first_rat_alt.json"
    path.write_text(json.dumps(alternative()))
    return str(path)


def test_the_alternative_file_loads_with_its_effects(alt_path):
    """The alternative file is read as written: its comics, caps, rewards and lights."""
    g = load_game("first_rat", backend="python", num_players=2, data_path=alt_path)
    d = g.data
    assert len(d.comics) == 9 and len(d.bottle_caps) == 8 and d.light_length == 10
    assert d.construction_lights == (3, 6, 9, 10) and d.lit_bonus == 2
    assert d.lit_spaces(2) == {1, 2, 3, 4, 5, 6}
    assert d.burrow_choice == {"R7": "nursery", "R8": "library"}
    assert g.item_mods["S1"]["super_rat_yield"] == (-1, None, None)
    assert g.max_steps == 5 + 2 + 3


@pytest.mark.skipif("first_rat" not in _CYTHON_REGISTRY, reason="no First Rat twin")
@pytest.mark.parametrize("params", [{"num_players": 2}, {"num_players": 3,
                                                         "layout": "variable"},
                                    {"num_players": 1, "greg_best_tie": "choose"}],
                         ids=["2p", "3p-variable", "solo"])
def test_both_backends_agree_move_for_move_on_the_alternative_file(alt_path, params):
    """Issue 17: seeded games with the alternative data agree on both backends at every
    step (legal actions, chance outcomes, observation, serialization, returns)."""
    from tests.speedups.test_cy_differential import play_both

    params = {**params, "data_path": alt_path}
    for seed in range(6):
        play_both("first_rat", params, seed, obs_every=4)


@pytest.mark.skipif("first_rat" not in _CYTHON_REGISTRY, reason="no First Rat twin")
def test_both_backends_agree_under_a_policy_that_shops_and_builds(alt_path):
    """The rarer steps (buying comics' and caps' effects into play, Super Rats, builds) come
    up more often when decisions favour the highest ids; every step must agree."""
    params = {"num_players": 2, "data_path": alt_path}
    ref_game = load_game("first_rat", backend="python", **params)
    cy_game = load_game("first_rat", backend="cython", **params)
    owned = set()
    for seed in range(6):
        rng = np.random.default_rng(seed)
        ref, cy = ref_game.new_initial_state(), cy_game.new_initial_state()
        while not ref.is_terminal():
            assert cy.legal_actions() == ref.legal_actions()
            if ref.is_chance_node() or rng.random() < 0.5:
                a = sample_action(ref, rng)
            else:
                a = ref.legal_actions()[-1]
            ref.apply_action(a)
            cy.apply_action(a)
        assert cy.serialize() == ref.serialize() and cy.scores() == ref.scores()
        owned |= {c for row in ref.comics + ref.caps for c in row}
    assert len(owned) >= 6  # the effects were in play


def _alt_state(alt_path, n=2):
    s = load_game("first_rat", backend="python", num_players=n,
                  data_path=alt_path).new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    return s


def test_alternative_landing_fee_and_yields(alt_path):
    """C2 (landing fee +1, green yield +1) and C4 (yield +1), on both backends: ending on
    the green space 2 (1 Vinegar Bottle) where Player 1 has a rat pays 1 + 1 Cheese and
    collects 1 + 1 + 1 Vinegar Bottles."""
    s = _alt_state(alt_path)
    clear_board(s, {0: [0], 1: [2]})
    s.comics[0] = ["C2", "C4"]
    s.library = []
    s.cheese = [5, 5]
    s.cheese_issued = 10
    restart(s)
    b = Both(s)
    b.do("A: rat 0 Start -> space 2")  # green, 1 Vinegar Bottle
    obs = b.obs()
    assert obs["cheese"] == [3, 7]
    assert obs["mats"][0]["vinegar"] == 1 + 1 + 1


def test_alternative_super_rat_yield_never_below_zero_and_pays_no_fee(alt_path):
    """S1: +3 steps, yield -1 (a space's yield is never below 0), pays no landing fee."""
    s = _alt_state(alt_path)
    clear_board(s, {0: [0], 1: [8]})
    s.comics[0] = ["S1"]
    s.super_rats[0] = {"S1": 0}
    s.library = []
    restart(s)
    b = Both(s)
    assert "A: rat 0 Start -> space 8" in b.labels()  # 8 steps: 5 + 3
    before = b.obs()
    b.do("A: rat 0 Start -> space 8")  # white, 1 Apple Core - 1 = 0
    obs = b.obs()
    assert obs["cheese"] == before["cheese"] and obs["burrow"] == before["burrow"]


def test_alternative_light_string_and_burrow_rewards(alt_path):
    """The light string's mapping and rewards, and burrow rewards with gains: 2 bulbs take
    the marker from position 1 to 3 (a Construction Light: its track is scored); space 3
    lit by position 1 yields 1 + 2 Apple Cores: R3 Cheese Cellar (+2 Cheese), R4 Stored
    Food (its track, +1 Cheese), R5 Pantry (the Provisions track)."""
    s = _alt_state(alt_path)
    clear_board(s, {0: [8]})
    s.light[0] = 1  # lights spaces 1-3
    restart(s)
    b = Both(s)
    b.do("A: rat 0 space 8 -> space 11")  # blue, 2 bulbs (not lit): 1 -> 3
    obs = b.obs()
    assert obs["light"][0] == 3 and obs["lights_scored"][0] == 1
    assert obs["track_slots"]["construction_lights"].count(0) == 1
    s = _alt_state(alt_path)
    clear_board(s, {0: [1]})
    s.burrow[0] = "R2"
    s.light[0] = 1
    restart(s)
    b = Both(s)
    before = b.obs()
    b.do("A: rat 0 space 1 -> space 3")  # white, 1 Apple Core + 2 lit: R2 -> choose
    b.do("Rat Burrow: go left")  # R3: Cheese Cellar, 2 Cheese
    obs = b.obs()
    assert obs["cheese"][0] == before["cheese"][0] + 2 + 1 and obs["burrow"][0] == "R5"
    assert obs["track_slots"]["stored_food"].count(0) == 1
    assert obs["track_slots"]["provisions"].count(0) == 1


def test_alternative_bottle_caps_score_by_their_counts(alt_path):
    """Bottle caps and comics score by their effects (FR-12 with other data): K1 1 per 3
    Cheese, K3 1 per light step (at most 6), K7 4 if 2+ comics, C5's 5 for most Rattronauts
    (a tie counts), C1 1 per 3 Cheese at most 4."""
    s = _alt_state(alt_path)
    s.caps[0] = ["K1", "K3", "K7"]
    s.disp_caps = []
    s.comics[0] = ["C5", "C1"]
    s.library = []
    s.cheese[0] = 14
    s.cheese_issued = sum(s.cheese)
    s.light[0] = 9
    s.lights_scored[0] = 3
    bd = s.score_breakdown(0)
    assert bd["bottle_caps"] == 14 // 3 + 6 + 4
    assert bd["comics"] == 5 + 4
    b = Both(s)
    assert b.cy is None or b.cy.scores() == s.scores()


def test_every_effect_problem_is_reported_with_file_path_and_what_is_allowed(tmp_path):
    """Validated at load with one clear error per problem: a file with four bad effects
    fails with four lines naming the file, the JSON path and what is allowed."""
    d = shipped()
    d["comics"][0]["effects"] = [{"op": "modify", "quantity": "warp_speed", "add": 1}]
    d["comics"][1]["effects"] = [{"op": "modify", "quantity": "super_rat_steps", "add": 1}]
    d["bottle_caps"][0]["effects"] = [_per("dragons", 2)]
    d["burrow"]["rewards"]["R4"]["effects"] = [{"op": "score", "resource": "rattronaut"}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    with pytest.raises(EffectError) as err:
        load_game("first_rat", backend="python", num_players=2, data_path=str(path))
    lines = str(err.value).splitlines()
    assert lines[0] == "4 problems in the component data:"
    assert all(str(path) in x for x in lines[1:])
    text = str(err.value)
    assert "$.comics[0].effects[0].quantity: quantity 'warp_speed' is not allowed" in text
    assert "$.comics[1].effects[0].quantity: 'super_rat_steps' needs a Super Rat comic" in text
    assert "$.bottle_caps[0].effects[0].amount.count.of: countable 'dragons'" in text
    assert "$.burrow.rewards.R4.effects[0].resource: a reward scores a Score track" in text


def test_shipped_effects_keep_the_shipped_rules():
    """The packaged stand-ins written as effects behave as before (the golden playthrough
    is unchanged): e.g. Haggler (item_price -2) and Pipe Dream (shortcut_cost at most 0)."""
    s = make(2)
    g = s.get_game()
    assert g.item_mods["CM5"] == {"item_price": (-2, None, None)}
    assert g.item_mods["CM1"] == {"shortcut_cost": (0, None, 0)}
    s.comics[0] = ["CM5"]
    s.library = [c for c in s.library if c != "CM5"]
    assert s._price(0, "energy_drink") == 1
    clear_board(s, {0: [2]})
    s.comics[0] = ["CM1"]
    restart(s)
    do(s, "A: rat 0 space 2 -> space 6 via SC1")  # free: no Vinegar Bottle held


def test_shipped_and_alternative_effects_match_the_json_schema():
    """Editors can check an owner's file with the JSON Schema of each component kind's
    vocabulary (``effects.json_schema(EFFECTS[kind])``): every effect list of the shipped
    and of the alternative file is valid, and a misspelt quantity is not."""
    jsonschema = pytest.importorskip("jsonschema")
    from ratai.engines.effects import json_schema
    from ratai.engines.first_rat.data import EFFECTS

    for doc in (shipped(), alternative()):
        lists = {"comics": [c["effects"] for c in doc["comics"]],
                 "bottle_caps": [c["effects"] for c in doc["bottle_caps"]],
                 "burrow": [r["effects"] for r in doc["burrow"]["rewards"].values()
                            if isinstance(r, dict)],
                 "light_string": [p.get("effects", []) for p in
                                  doc["light_string"]["positions"]]}
        for kind, effect_lists in lists.items():
            schema = json_schema(EFFECTS[kind])
            for effects in effect_lists:
                jsonschema.validate(effects, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([{"op": "modify", "quantity": "warp_speed", "add": 1}],
                            json_schema(EFFECTS["comics"]))
