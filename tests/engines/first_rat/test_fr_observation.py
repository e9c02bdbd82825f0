"""First Rat observations and seats: ``state_from_observation`` rejects malformed or impossible
observations, and every method taking a seat accepts numpy ints and rejects the rest.

Contract (engines/api.py): ``Game.state_from_observation`` "Raises: ValueError: the observation
is malformed or impossible, naming the field"; ``check_player``: seats are ints or numpy ints
``0..n-1`` (bools and floats rejected).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from fr_helpers import clear_board, do, make, restart

from ratai.engines import CHANCE


def _set(path, value):
    def mutate(obs):
        target = obs
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
    return mutate


def _drop(key):
    return lambda obs: obs.pop(key)


#: case -> (mutation of a fresh 2-player observation, field named in the error)
MALFORMED = {
    "rats-entry-str": (_set(["rats", 0, 2], "x"), "rats"),
    "rats-entry-float": (_set(["rats", 0, 2], 1.5), "rats"),
    "rats-entry-bool": (_set(["rats", 0, 2], True), "rats"),
    "rats-beyond-launchpad": (_set(["rats", 1, 0], 28), "rats"),
    "rats-two-on-one-space": (_set(["rats", 0], [5, 5, -1, -1]), "rats"),
    "seat-99": (_set(["seat"], 99), "seat"),
    "tiles-99": (_set(["tiles", 3], 99), "tiles"),
    "tiles-swapped-in-standard": (_set(["tiles", 3], 4), "tiles"),
    "comics-unknown": (_set(["comics", 0], ["ZZ"]), "comics"),
    "library-unknown": (_set(["library"], ["ZZ"]), "library"),
    "library-owned-twice": (lambda o: o["comics"][0].append(o["library"][0]), "comics"),
    "mats-str": (_set(["mats", 0, "tin"], "a"), "mats"),
    "mats-not-conserved": (_set(["mats", 0, "tin"], 3), "supply"),
    "cheese-negative": (_set(["cheese", 0], -1), "cheese"),
    "track-owner-7": (_set(["track_slots", "cockpit", 0], 7), "track_slots"),
    "track-neutral-moved": (_set(["track_slots", "cockpit", 1], None), "track_slots"),
    "track-values-empty": (_set(["track_values", "cockpit"], []), "track_values"),
    "track-values-changed": (_set(["track_values", "cockpit"], [9, 9, 9, 9, 9]),
                             "track_values"),
    "markers-miscounted": (_set(["markers", 0], 3), "markers"),
    "light-past-the-string": (_set(["light", 0], 14), "light"),
    "burrow-unknown": (_set(["burrow", 0], "R99"), "burrow"),
    "phase-unknown": (_set(["phase"], "dance"), "phase"),
    "phase-greg_draw-in-2p": (_set(["phase"], "greg_draw"), "phase"),
    "phase-shop-without-shops": (_set(["phase"], "shop"), "step"),
    "phase-burrow-at-R0": (_set(["phase"], "burrow"), "step"),
    "moved-rat-7": (_set(["moved"], [7]), "moved"),
    "greg-rats-in-2p": (_set(["greg_rats"], [8, 5, 1, 0]), "greg_rats"),
    "round-str": (_set(["round"], "one"), "round"),
    "scores-tampered": (_set(["scores"], [999.0, 0.0]), "scores"),
    "scores-missing": (_drop("scores"), "scores"),
    "cheese-missing": (_drop("cheese"), "cheese"),
    "unknown-field": (_set(["colour"], "red"), "colour"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_state_from_observation_rejects_malformed_fields(case):
    """Contract: ValueError naming the field, for each malformed or impossible observation
    (types, lengths, ranges against the data, conservation of materials and markers, a
    phase that the position cannot be in, a tampered score)."""
    s = make(2)
    game = s.get_game()
    bad = copy.deepcopy(s.observation(0))
    mutate, field = MALFORMED[case]
    mutate(bad)
    with pytest.raises(ValueError, match=field):
        game.state_from_observation(0, bad, 0)


def _mid_turn_states():
    """A few positions inside a turn: option B, shopping, a Super Rat choice, solo Greg."""
    s = make(2)
    clear_board(s, {0: [4, 13, 18]})
    s.cheese[0] = 30
    s.cheese_issued = sum(s.cheese)  # keep the cheese ledger consistent
    restart(s)
    do(s, "B: rat 0 space 4 -> space 7")
    yield s.clone()  # move_b
    do(s, "B: rat 1 space 13 -> space 16")
    do(s, "end option B")
    yield s.clone()  # shop
    s = make(1, greg_best_tie="choose")
    s.seat = 1
    s.step = "end"  # seat 0's turn is over
    s.greg_step = "draw"
    s._greg_run()
    yield s.clone()  # greg_draw


def test_state_from_observation_rejects_impossible_turn_scratch():
    """Contract: "malformed or impossible". Inside a turn the scratch fields must agree with
    the phase: a shopping rat that did not move, an option-B turn with no rat moved, Greg's
    deck missing a card."""
    move_b, shop, greg = _mid_turn_states()
    game = shop.get_game()
    obs = shop.observation(0)
    assert obs["phase"] == "shop"
    bad = dict(obs, shops=[3])
    with pytest.raises(ValueError, match="shops"):
        game.state_from_observation(0, bad)
    obs = move_b.observation(0)
    with pytest.raises(ValueError, match="moved"):
        game.state_from_observation(0, dict(obs, moved=[]))
    game = greg.get_game()
    obs = greg.observation(0)
    assert obs["phase"] == "greg_draw"
    with pytest.raises(ValueError, match="greg_unknown"):
        game.state_from_observation(0, dict(obs, greg_unknown={"A": 5, "B": 4}))
    with pytest.raises(ValueError, match="greg_seen|greg_known"):
        game.state_from_observation(0, dict(obs, greg_known=[]))


def test_mid_turn_observations_round_trip():
    """Round trip (COMMON brief): state_from_observation(p, obs).observation(p) == obs, and the
    rebuilt state offers the same actions."""
    for s in _mid_turn_states():
        game = s.get_game()
        obs = s.observation(0)
        rebuilt = game.state_from_observation(0, obs, 3)
        assert rebuilt.observation(0) == obs
        assert rebuilt.legal_actions() == s.legal_actions()


@pytest.mark.parametrize("seat", [np.int64(1), np.int32(1), np.uint8(1)])
def test_numpy_seats_are_accepted(seat):
    """api.check_player: seats from numpy arrays (bots, arena) are ints too."""
    s = make(2)
    game = s.get_game()
    assert s.observation(seat) == s.observation(1)
    assert s.resample_from_infostate(seat, 1).observation(1) == s.observation(1)
    assert game.state_from_observation(seat, s.observation(1)) == \
        game.state_from_observation(1, s.observation(1))
    assert game.heuristic_value(s, seat) == game.heuristic_value(s, 1)
    assert s.render(seat) == s.render(1)
    a = s.legal_actions()[0]
    assert s.action_to_string(seat, a) == s.action_to_string(1, a)


@pytest.mark.parametrize("seat", [True, 1.0, 2, -2, 9, "0", None])
def test_bad_seats_are_rejected_everywhere(seat):
    """api.check_player: bools, floats, strings and out-of-range seats raise ValueError in
    observation, resample_from_infostate, state_from_observation, heuristic_value, render
    and action_to_string (which also accepts CHANCE for chance outcomes)."""
    s = make(2)
    game = s.get_game()
    obs = s.observation(0)
    a = s.legal_actions()[0]
    for call in (lambda: s.observation(seat), lambda: s.resample_from_infostate(seat, 1),
                 lambda: game.state_from_observation(seat, obs),
                 lambda: game.heuristic_value(s, seat), lambda: s.render(seat),
                 lambda: s.action_to_string(seat, a)):
        with pytest.raises(ValueError, match="player"):
            call()
    assert s.action_to_string(CHANCE, a)  # chance labels stay available
