"""First Rat setup, standard and variable (rulebook "Setup", "Variable Setup"; FR-14), and
the game's parameters and data file."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from fr_helpers import first_outcomes, make

from ratai.engines import CHANCE, load_game
from ratai.engines.first_rat.data import load


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_start_cheese_rats_and_markers(n):
    """Setup: start player 1 Cheese, the next 2 players 2, the fourth and fifth 3; 2 Rats on
    Start and 2 in the Nursery; burrow and light-string markers on their Start spaces."""
    s = make(n)
    assert s.cheese == [1, 2, 2, 3, 3][:n]
    assert all(r == [0, 0, -1, -1] for r in s.rats)
    assert s.light == [0] * n and s.burrow == ["R0"] * n and s.markers == [0] * n


@pytest.mark.parametrize("n,backpacks,drinks", [(2, 5, 3), (3, 6, 4), (4, 7, 5), (5, 9, 6)])
def test_item_displays_by_player_count(n, backpacks, drinks):
    """Setup tables: Energy Drinks 3/4/5/6 and Backpacks 5/6/7/9 for 2/3/4/5 players; 6 of
    the 10 Bottle Caps; 6 Comics."""
    s = make(n)
    assert len(s.disp_backpacks) == backpacks and s.disp_drinks == drinks
    assert len(s.disp_caps) == 6 and len(s.library) == 6
    assert len(set(s.disp_backpacks)) == backpacks


def test_first_game_comics_have_no_super_rats():
    """Setup, Comics, 1st Game: the 6 Comics without Super Rats, no draw."""
    game = load_game("first_rat", backend="python", num_players=2, first_game=True)
    s = game.new_initial_state()
    assert s.library == ["CM1", "CM2", "CM3", "CM4", "CM5", "CM6"]


def test_later_games_draw_6_of_10_comics_as_chance_nodes():
    """Setup, Comics, 2nd game on: 6 of all 10 Comics at random (chance nodes)."""
    s = load_game("first_rat", backend="python", num_players=2).new_initial_state()
    seen = 0
    while s.is_chance_node():
        if s.setup_todo[0] == "comic":
            seen += 1
            assert len(s.chance_outcomes()) == 10 - len(s.library)
        s.apply_action(s.chance_outcomes()[-1][0])
    assert seen == 6 and any(c.startswith("SR") for c in s.library)


def test_setup_supply_counts():
    """Components: 30 Vinegar Bottles, 30 Baking Soda, 20 Tin Cans, 15 Calculators, 12 Moldy
    Cheese, 16 Awards."""
    s = make(2)
    assert s.supply == {"vinegar": 30, "soda": 30, "tin": 20, "calculator": 15,
                        "moldy_cheese": 12, "awards": 16}


def test_variable_layout_shuffles_tiles_within_groups():
    """Variable Path: the 26 tiles in groups A-E, each shuffled into its own slots (6 A tiles
    in the first 6 spaces, then 5 B, 5 C, 5 D, 5 E); booths and shortcuts stay (FR-14)."""
    game = load_game("first_rat", backend="python", num_players=3, layout="variable")
    s = game.new_initial_state()
    assert s.current_player() == CHANCE and s.setup_todo[0] == "tile:1"
    assert len(s.chance_outcomes()) == 6
    rng_pick = -1
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[rng_pick][0])
    d = load()
    for _, slots in d.tile_groups:
        assert sorted(s.tiles[i] for i in slots) == list(slots)
    assert s.tiles[1:7] == [6, 5, 4, 3, 2, 1]
    assert sorted(Counter(len(sl) for _, sl in d.tile_groups).items()) == [(5, 4), (6, 1)]


def test_variable_score_tracks_seven_of_eight():
    """Variable Score Track: 7 of the 8 tracks are drawn; the Rocket track stays (FR-14)."""
    game = load_game("first_rat", backend="python", num_players=2, layout="variable")
    s = game.new_initial_state()
    while s.is_chance_node():
        if s.setup_todo[0].startswith("set:"):
            assert len(s.chance_outcomes()) == 8 - len(s.sets_used)
        s.apply_action(s.chance_outcomes()[0][0])
    d = load()
    assert len(s.sets_used) == 7 and len(set(s.sets_used)) == 7
    assert s.track_values["rocket"] == list(d.track_values["rocket"])
    for t, i in zip(d.variable_tracks, s.sets_used, strict=True):
        assert s.track_values[t] == list(d.variable_value_sets[i])


def test_variable_layout_moves_yields_not_booths():
    game = load_game("first_rat", backend="python", num_players=2, layout="variable")
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[-1][0])
    # slot 7 holds tile 11 (blue, 2 bulbs) but is still Harry Hamster's booth
    assert s.tiles[7] == 11 and s._colour(7) == "blue" and 7 in load().booths


@pytest.mark.parametrize("bad", [{"num_players": 0}, {"num_players": 6},
                                 {"layout": "round"}, {"difficulty": "hard"},
                                 {"greg_best_tie": "random"}])
def test_bad_params_name_the_param(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        load_game("first_rat", backend="python", **bad)


def test_data_path_replaces_the_data(tmp_path):
    """RULES_GAPS: a user who owns the game can replace the data file (data_path)."""
    doc = json.loads(open(_packaged()).read())
    doc["prices"]["backpack"] = 7
    path = tmp_path / "fr.json"
    path.write_text(json.dumps(doc))
    game = load_game("first_rat", backend="python", num_players=2, data_path=str(path))
    assert game.data.prices["backpack"] == 7
    del doc["path"]["launchpad"]
    path = tmp_path / "fr2.json"  # (loaded files are cached by path)
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="launchpad"):
        load_game("first_rat", backend="python", num_players=2, data_path=str(path))
    with pytest.raises(ValueError, match="data_path"):
        load_game("first_rat", backend="python", data_path=str(tmp_path / "missing.json"))


def test_bad_data_fields_are_named(tmp_path):
    doc = json.loads(open(_packaged()).read())
    doc["path"]["spaces"][3]["colour"] = "purple"
    path = tmp_path / "fr.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"path.spaces\[3\].colour"):
        load_game("first_rat", backend="python", data_path=str(path))


def _packaged() -> str:
    from importlib import resources
    return str(resources.files("ratai.engines.first_rat").joinpath("first_rat.json"))


def test_setup_is_reproducible():
    a = load_game("first_rat", backend="python", num_players=4).new_initial_state()
    b = load_game("first_rat", backend="python", num_players=4).new_initial_state()
    first_outcomes(a)
    first_outcomes(b)
    assert a == b
