"""Rat Trap hidden information: what each seat observes, and determinization."""

from __future__ import annotations

import numpy as np
import pytest

from ratai.engines.rat_trap.data import TRAP
from tests.conftest import old_belief_caps, random_playout

from .rt_helpers import cards, do, new_game, start_turn


def test_a_seat_never_sees_others_stored_cards_or_pile_contents():
    """Drawn cards are looked at secretly; piles are face down."""
    g = new_game(num_players=3)
    a, b = g.new_initial_state(), g.new_initial_state()
    start_turn(a, "key1+heal", 1, "key1")
    start_turn(b, "key1+heal", 1, "key1")
    do(a, "draw from pile 0", "draw cheese2")
    do(b, "draw from pile 0", "draw clover")
    for seat in (0, 2):
        assert a.information_state_string(seat) == b.information_state_string(seat)
    assert a.information_state_string(1) != b.information_state_string(1)
    assert "cheese2" not in a.describe_action(None, 0)


def test_revealed_traps_are_public():
    g = new_game(num_players=3)
    s = g.new_initial_state()
    start_turn(s, "key1+heal", 1, "key1")
    do(s, "draw from pile 0")
    assert s.describe_action(2, s.string_to_action(-1, "draw trap")).endswith("trap")
    assert s.describe_action(2, s.string_to_action(-1, "draw cheese1")).endswith("a card")
    assert s.describe_action(1, s.string_to_action(-1, "draw cheese1")).endswith("cheese1")


def test_resample_redeals_unknown_cards_consistently():
    """Determinization deals the unknown cards among the places the seat cannot see; the
    seat's own cards and public facts stay."""
    g = new_game(num_players=4)
    s = g.new_initial_state()
    s.stored = [cards("cheese1"), cards("cheese2", "clover"), cards("cheese1"), []]
    s.pool = [1, 7 - 2, 4 - 1, 4 - 1]  # keep the deck total consistent
    s.pile_r = [4, 4, 4, 0]  # 4 cards were drawn from pile 3
    seen = set()
    for seed in range(40):
        r = s.resample_from_infostate(0, seed)
        assert r.stored[0] == cards("cheese1")
        assert [len(c) for c in r.stored] == [1, 2, 1, 0]
        total = [0] * 4
        for c in (x for st in r.stored for x in st):
            total[c] += 1
        for t in range(4):
            total[t] += r.pool[t]
        total[TRAP] += sum(r.pile_g)
        assert total == list(g.deck)
        assert TRAP not in r.stored[1] + r.stored[2]  # no Fool without roles
        seen.add(tuple(r.stored[1]))
    assert len(seen) > 3


@pytest.mark.parametrize("caps,seeds", [("shipped", (2,)), ("old", (0, 1, 2))])
def test_resample_never_reads_hidden_fields(caps, seeds, monkeypatch):
    """Two states the seat cannot tell apart give the same sample for the same seed: on the
    exact filter's path (the shipped caps; one game, as the filter runs to the end in every
    position of these 4-player roles games: tens of seconds per game on the reference) and
    on the closed form's past the filter's caps (the caps before stop 48, which send most
    positions of three games there)."""
    if caps == "old":
        old_belief_caps(monkeypatch)
    g = new_game(num_players=4, roles=True)
    for seed in seeds:
        final = random_playout(g, seed)
        history = final.history()
        for cut in range(0, len(history), 17):
            s = g.state_from_history(history[:cut])
            for p in range(4):
                other = s.resample_from_infostate(p, np.random.default_rng(99))
                assert other.information_state_string(p) == s.information_state_string(p)
                x = s.resample_from_infostate(p, 5).serialize()
                y = other.resample_from_infostate(p, 5).serialize()
                assert x == y


def test_fool_traps_constrain_roles_in_samples():
    """A seat that saw a Trap drawn from an ordered pile by another seat knows that seat is the
    Fool: every sample gives that seat the Fool."""
    g = new_game(num_players=3, roles=True)
    s = g.new_initial_state()
    do(s, "deal manipulator", "deal fool", "deal alchemist", "look at pile 0", "look at pile 1",
       "pile holds 1xtrap,4xcheese1", "put trap next", *["put cheese1 next"] * 4,
       "pile holds 1xtrap,1xcheese1,3xcheese2", "put trap next", "put cheese1 next",
       *["put cheese2 next"] * 3, "roll key1+heal", "keep the dice", "pass", "pass",
       "choose seat 1 as accomplice", "keep die key1", "draw from pile 0")
    assert s.stored[1] == [TRAP] and s.observation(0)["known"][1] == [TRAP]
    for seed in range(10):
        r = s.resample_from_infostate(0, seed)
        assert r.roles[1] == 3 and r.stored[1] == [TRAP]  # FOOL
    # seat 2 only saw seat 1 draw a card: seat 1 may or may not be the Fool in its samples
    holders = set()
    for seed in range(30):
        roles = s.resample_from_infostate(2, seed).roles
        holders.add(roles.index(3) if 3 in roles else None)
    assert holders == {1, None}  # seat 1 may be the Fool, or the Fool was not dealt


def test_observation_seat_accepts_numpy_ints_and_rejects_others():
    s = new_game(num_players=3).new_initial_state()
    assert s.observation(np.int64(1))["player"] == 1
    assert type(s.observation(np.int64(1))["player"]) is int
    for bad in (True, 0.0, "0", 3, -1, None):
        with pytest.raises(ValueError, match="bad player"):
            s.observation(bad)


@pytest.mark.parametrize("field,value", [
    ("used_clovers", None), ("phase", "no_such_phase"), ("ctx", None), ("role_public", "x"),
    ("todo", None), ("todo", [["no_such_task"]]), ("points", [0, 0]), ("active", 7),
    ("black", [9]), ("kept", {"0": "x"}),
])
def test_state_from_observation_names_the_malformed_field(field, value):
    """Game.state_from_observation: a malformed observation raises ValueError naming the field."""
    g = new_game(num_players=3)
    s = g.new_initial_state()
    start_turn(s, "key1+cat", 1, "cat")
    obs = s.observation(0)
    obs[field] = value
    with pytest.raises(ValueError, match=field):
        g.state_from_observation(0, obs, 1)


def test_state_from_observation_rejects_an_inconsistent_position():
    g = new_game(num_players=3)
    s = g.new_initial_state()
    start_turn(s, "key1+cat", 1, "cat")
    obs = s.observation(0)
    obs["ctx"] = {"who": 1}  # a cat target decision without its options
    with pytest.raises(ValueError, match="inconsistent"):
        g.state_from_observation(0, obs, 1)
