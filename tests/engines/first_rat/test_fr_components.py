"""First Rat components with numbers in the rulebook ("Components", "Solo Play" setup)."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from fr_helpers import make

from ratai.engines import load_game
from ratai.engines.first_rat.data import RULEBOOK, TRACKS, load


def raw() -> dict:
    return json.loads(resources.files("ratai.engines.first_rat")
                      .joinpath("first_rat.json").read_text())


def test_items():
    """Components: "36 Items: 10 Backpacks, 6 Energy Drinks, 10 Bottle Caps, 10 Comics (4 of
    the Comics show Super Rats)"."""
    d = load()
    assert len(d.backpacks) == 10 and raw()["energy_drink"]["count"] == 6
    assert len(d.bottle_caps) == 10 and len(d.comics) == 10
    assert sum(1 for c in d.comics if c[2]) == 4
    assert max(d.energy_drinks.values()) <= raw()["energy_drink"]["count"]


def test_rats_and_score_markers_per_team():
    """Components: 4 Rats and 10 Score markers per team; Setup: 8 in front, 2 aside."""
    assert RULEBOOK["rats_per_team"] == 4
    assert RULEBOOK["score_markers"] == 10 and RULEBOOK["end_trigger_markers"] == 8


def test_neutral_components_for_two_players():
    """Components, Neutral: 2 Rats and 14 Score markers - exactly the 2-player setup: two
    markers on each of the 7 Score tracks and two Neutral Rats on the Rattronaut track."""
    s = make(2)
    markers = sum(slots.count(-1) for t, slots in s.track_slots.items() if t != "rattronaut")
    assert markers == 14 and s.track_slots["rattronaut"].count(-1) == 2
    assert len(TRACKS) == 8


def test_variable_components():
    """Components: 26 Junkyard path tiles in 5 groups (A to E), 8 Score Tracks."""
    d = load()
    assert [g for g, _ in d.tile_groups] == ["A", "B", "C", "D", "E"]
    assert sum(len(s) for _, s in d.tile_groups) == 26
    assert len(d.variable_value_sets) == 8


def test_solo_cards():
    """Components: 22 Cards for the Solo Game, in stacks A, B, C (one C card); the unplayed
    colour marks 6 tracks: Cockpit, Cargo Bay, Thruster, Stored Food, Provisions and
    Construction Lights (not Rattronaut or Rocket)."""
    d = load()
    assert len(d.cards) == 22
    assert {c.group for c in d.cards} == {"A", "B", "C"}
    assert sum(1 for c in d.cards if c.group == "C") == 1
    assert set(d.greg_tracks) == {"cockpit", "cargo_bay", "thruster", "stored_food",
                                  "provisions", "construction_lights"}


def test_three_burrow_rewards_and_two_nursery_rats():
    """Rat Burrow Details: "3 spaces in the Rat Burrow provide you with a reward"; "You can
    raise a maximum of 2 new Rats during the game" (2 Rats start in the Nursery)."""
    d = load()
    assert sorted(d.burrow_names.values()) == ["Library", "Nursery", "Stored Food"]
    assert sorted(d.burrow_choice.values()) == ["library", "nursery"]
    assert RULEBOOK["rats_in_nursery"] == RULEBOOK["max_nursery_raises"] == 2


def test_path_yields_are_one_to_four():
    """Step 2: yellow 1-4 Cheese, blue 1-4 Lightbulbs, white 1-4 Apple Cores, green and orange
    1 material."""
    d = load()
    for sp in d.tiles.values():
        if sp.colour in ("green", "orange"):
            assert sp.amount == 1
        else:
            assert 1 <= sp.amount <= 4


def _write(tmp_path, mutate) -> str:
    """The packaged data with ``mutate(doc)`` applied, written to a fresh file."""
    doc = raw()
    mutate(doc)
    path = tmp_path / "fr.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _set(*keys_value):
    *keys, value = keys_value

    def mutate(doc):
        target = doc
        for k in keys[:-1]:
            target = target[k]
        target[keys[-1]] = value
    return mutate


BAD_DATA = {
    # Solo Play deck table: one row per difficulty level
    "missing-difficulty": (lambda d: d["solo"]["deck_by_difficulty"].pop("unfair"),
                           r"solo\.deck_by_difficulty\.unfair"),
    # Solo setup: Greg's rats start on path spaces (8, 5, 1, Start), not past the Launchpad
    "greg-start-99": (_set("solo", "greg_start_spaces", [99, 5, 1, 0]),
                      r"solo\.greg_start_spaces\[0\]"),
    "greg-start-negative": (_set("solo", "greg_start_spaces", [8, 5, 1, -1]),
                            r"solo\.greg_start_spaces\[3\]"),
    # Score Tracks: integer values
    "track-value-str": (_set("score_tracks", "values", "cockpit", [8, 6, 5, 4, "x"]),
                        r"score_tracks\.values\.cockpit\[4\]"),
    "track-value-float": (_set("score_tracks", "values", "thruster", [11, 9, 7.5, 6, 5]),
                          r"score_tracks\.values\.thruster\[2\]"),
    # Setup supply, prices and costs are non-negative counts
    "negative-supply": (_set("setup", "supply", "tin", -3), r"setup\.supply\.tin"),
    "negative-price": (_set("prices", "backpack", -1), r"prices\.backpack"),
    "zero-provisions": (_set("provisions_cost", "cheese", 0), r"provisions_cost\.cheese"),
    "negative-part-cost": (_set("rocket_part_costs", "cockpit", "tin", -1),
                           r"rocket_part_costs\.cockpit\.tin"),
    "negative-drinks": (_set("setup", "energy_drinks", "3", -1), r"setup\.energy_drinks\.3"),
    # Rat Burrow: rewards sit on burrow spaces
    "reward-unknown-node": (_set("burrow", "rewards", "R99",
                                 {"name": "Library", "effects": []}),
                            r"burrow\.rewards\.R99"),
    # Light string: a position lights path spaces
    "light-beyond-path": (lambda d: d["light_string"]["positions"][0].__setitem__(
        "lights", [1, 99]), r"light_string\.positions\[0\]\.lights\[1\]"),
    "light-bonus-str": (_set("light_string", "lit_bonus", "1"), r"light_string\.lit_bonus"),
    "greg-track-unknown": (_set("solo", "unplayed_colour_tracks", ["cockpit", "moon"]),
                           r"solo\.unplayed_colour_tracks"),
    "card-move-str": (lambda d: d["solo"]["cards"][0].__setitem__("moves", [3, 2, "1", 0]),
                      r"solo\.cards\[0\]\.moves\[2\]"),
}


@pytest.mark.parametrize("case", sorted(BAD_DATA))
def test_bad_data_is_rejected_at_load_naming_file_and_field(tmp_path, case):
    """data.parse: "Raises ValueError: naming the file and the field that is missing or
    wrong" (COMMON brief: component data validated at load with clear errors). Each case
    breaks one number or id of the packaged data; ``load_game`` itself fails, before any
    state is built."""
    mutate, field = BAD_DATA[case]
    path = _write(tmp_path, mutate)
    with pytest.raises(ValueError, match=field) as err:
        load_game("first_rat", backend="python", num_players=1, data_path=path)
    assert path in str(err.value)
