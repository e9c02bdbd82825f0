"""Scenario play, custom cities and seat colours: rulings RP-9 (event cards,
``round_events``), RP-10 (cities without every building) and RP-11 (``colors``); rulebook
Components "For scenario play", Setup 1-4 and Phase 1. Every test runs on both backends
(the reference and the Cython twin)."""

from __future__ import annotations

import numpy as np
import pytest
from rp_helpers import idx

from ratai.engines import CHANCE, load_game
from ratai.engines.ratapolis.rules import SMALL_CITY
from tests.conftest import sample_action

BACKENDS = ["python", pytest.param("cython", marks=pytest.mark.skipif(
    pytest.importorskip("ratai.engines").game_class("ratapolis", "cython").__module__
    == "ratai.engines.ratapolis.rules", reason="twin not built"))]
EVENTS = "normal,no_attack,not_played,normal,normal,no_attack,normal,not_played"


def _advance(s, rng, until):
    while not until(s):
        s.apply_action(sample_action(s, rng))
    return s


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


def test_rp9_default_has_no_events(backend):
    """RP-9: scenario events are off by default; every round is a normal round."""
    g = load_game("ratapolis", backend=backend, num_players=3)
    s = _advance(g.new_initial_state(), np.random.default_rng(0), lambda s: s.is_terminal())
    obs = s.observation(0)
    assert [r["event"] for r in obs["rounds"]] == ["normal"] * 8
    assert all(r["event_card"] is None for r in obs["rounds"])
    assert len(s.observation(0)["removed"]) == 8 and obs["event_cards_left"] == 0


def test_rp9_no_attack_round_skips_phase_4_and_discards_the_cards(backend):
    """RP-9 ``no_attack``: phase 4 is skipped (no tile is hunted) and the round's hunt cards
    go to the discard area as usual; phase 5 still distributes the tokens."""
    g = load_game("ratapolis", backend=backend, num_players=3, round_events=EVENTS,
                  property_tokens="A")
    rng = np.random.default_rng(1)
    s = _advance(g.new_initial_state(), rng, lambda s: s.round == 2 and s.phase == "plan")
    before = s.observation(0)
    cards = before["rounds"][1]["face_up"]
    assert before["rounds"][1]["event"] == "no_attack"
    s = _advance(s, rng, lambda s: s.round == 4 or s.phase == "hunt")
    assert s.round == 4, "no hunt phase in round 2, and round 3 is not played"
    obs = s.observation(0)
    assert obs["rounds"][1]["hunted"] is None and len(obs["removed"]) == 1
    ref = s.to_reference() if hasattr(s, "to_reference") else s
    assert set(ref.round_cards(2)) <= set(ref.discard) or s.round >= g.data.reshuffle_round
    assert all(c in [g.letters[x] for x in ref.discard] for c in cards)
    assert obs["discard_count"] == 4 + 5  # round 1 minus its hunted card, all of round 2


def test_rp9_round_not_played_skips_its_five_phases(backend):
    """RP-9 ``not_played``: no hunt card is dealt, nobody plans, no tile is hunted, no token
    changes hands and the Cheese shop pays nothing; the game still ends after round 8."""
    g = load_game("ratapolis", backend=backend, num_players=3, round_events=EVENTS,
                  property_tokens="S")
    rng = np.random.default_rng(2)
    s = _advance(g.new_initial_state(), rng, lambda s: s.round >= 3)
    assert s.round == 4 and s.phase == "deal"  # round 3 skipped entirely
    obs = s.observation(1)
    r3 = obs["rounds"][2]
    assert r3["event"] == "not_played" and r3["plans"] is None and r3["face_up"] == []
    assert r3["dealt"] == [False] * 3 and r3["hunted"] is None
    cheese_before = sum(obs["cheese_tokens"])
    s = _advance(s, rng, lambda s: s.is_terminal())
    obs = s.observation(1)
    # 8 rounds; rounds 2 and 6 (no attack) and 3 and 8 (not played) hunt no tile
    assert obs["round"] == 8 and len(obs["removed"]) == 4
    assert obs["rounds"][7]["event"] == "not_played"
    # the Cheese shop pays once a played round: rounds 4-7 at most, round 8 not played
    assert sum(obs["cheese_tokens"]) - cheese_before <= 4


def test_rp9_reshuffle_keeps_the_cards_a_skipped_round_left_in_the_stack(backend):
    """RP-9 with the rulebook's Phase 1 reshuffle: a round not played in rounds 1-4 leaves
    its 5 cards in the stack; at round 5 they are shuffled with the discards."""
    g = load_game("ratapolis", backend=backend, num_players=3,
                  round_events="normal,normal,not_played,normal,normal,normal,normal,normal")
    s = _advance(g.new_initial_state(), np.random.default_rng(3),
                 lambda s: s.round == 5)
    obs = s.observation(0)
    assert obs["stack_count"] == 20 - 3 and obs["discard_count"] == 0


def test_rp9_random_events_one_card_a_round_from_round_3(backend):
    """RP-9 ``random``: the 6 event cards are shuffled; at the start of each of rounds 3-8
    one is revealed (a chance node: every face-down card and side equally likely); side A
    is normal on 3 cards and no attack on 3, side B not played; revealed cards are public."""
    g = load_game("ratapolis", backend=backend, num_players=3, round_events="random")
    rng = np.random.default_rng(4)
    s = g.new_initial_state()
    seen = []
    while not s.is_terminal():
        if s.phase == "event":
            assert s.current_player() == CHANCE and s.round >= 3
            outs = s.chance_outcomes()
            left = 6 - len(seen)
            assert len(outs) == 2 * left
            assert all(abs(p - 1 / (2 * left)) < 1e-12 for _, p in outs)
            labels = {s.action_to_string(CHANCE, a) for a, _ in outs}
            assert any(lb.endswith("side B: this round is not played") for lb in labels)
            a = sample_action(s, rng)
            seen.append(s.action_to_string(CHANCE, a))
            r = s.round
            s.apply_action(a)
            for p in range(3):  # public at once (a round not played is already over)
                assert s.observation(p)["rounds"][r - 1]["event_card"] is not None
                assert s.observation(p)["event_cards_left"] == 6 - len(seen)
        else:
            s.apply_action(sample_action(s, rng))
    assert len(seen) == 6 and len({x.split()[2] for x in seen}) == 6
    rounds = s.observation(0)["rounds"]
    assert [r["event_card"] is None for r in rounds] == [True, True] + [False] * 6
    sides = {g.data.event_cards[i].id: (c.side_a, c.side_b)
             for i, c in enumerate(g.data.event_cards)}
    assert sorted(v[0] for v in sides.values()) == ["no_attack"] * 3 + ["normal"] * 3
    assert {v[1] for v in sides.values()} == {"not_played"}


def test_rp9_params_are_validated_with_clear_errors(backend):
    """RP-9: ``round_events`` needs one entry per round, known words, at most 6 events."""
    for bad, why in [("normal,normal", "one per round"), ("x," * 7 + "x", "unknown entry"),
                     (",".join(["no_attack"] * 7 + ["normal"]), "only 6 event cards")]:
        with pytest.raises(ValueError, match="round_events") as err:
            load_game("ratapolis", backend=backend, round_events=bad)
        assert why in str(err.value)


def test_rp11_colours_label_the_rulebook_three_player_examples(backend):
    """RP-11 / Setup 1 ("each player chooses one of the 5 colours"): ``colors`` names the
    seats, so the rulebook's 3-player Phase 3 example (red, yellow, green) reads as printed:
    yellow and green escape from the pharmacy O to the fire station I."""
    g = load_game("ratapolis", backend=backend, num_players=3, colors="red,yellow,green",
                  property_tokens="none")
    s = _advance(g.new_initial_state(), np.random.default_rng(0),
                 lambda s: s.phase == "plan")
    labels = [s.action_to_string(0, a) for a in s.legal_actions()]
    assert "attack O yellow" in labels and "attack O green" in labels
    assert not any("blue" in lb for lb in labels)
    assert s.string_to_action(0, "attack O green") == 1 + idx(g, "O") * g.P + 2
    assert s.describe_action(1, s.legal_actions()[0]) == "red commits a hidden plan cell"
    assert "you are yellow" in s.render(1) and "red/yellow/green" in s.render(1)
    s.apply_action(s.string_to_action(0, "idle"))
    s.apply_action(s.string_to_action(0, "idle"))
    s.apply_action(s.string_to_action(1, "move O>I"))
    s.apply_action(s.string_to_action(1, "idle"))
    s.apply_action(s.string_to_action(2, "move O>I"))
    s.apply_action(s.string_to_action(2, "attack I yellow"))
    plans = s.observation(0)["rounds"][0]["plans"]
    assert plans == [["idle", "idle"], ["move O>I", "idle"], ["move O>I", "attack I yellow"]]
    again = g.state_from_observation(0, s.observation(0), 1)
    assert again.observation(0) == s.observation(0)


def test_rp11_colours_are_validated(backend):
    """RP-11: distinct colours among the five of the box, at least one per seat."""
    for bad in ("red,red,blue", "red,purple,blue", "red,blue"):
        with pytest.raises(ValueError, match="colors"):
            load_game("ratapolis", backend=backend, num_players=3, colors=bad)
    assert load_game("ratapolis", backend=backend, num_players=2,
                     colors="green,orange,red").colors == ("green", "orange")


def test_rp10_a_city_without_some_buildings(backend):
    """RP-10 / Setup 3-4: only the buildings in the city exist: one rat per seat on each of
    them (the rest in supply), property tokens drawn among the city's property buildings,
    hunt cards only of the city's buildings."""
    g = load_game("ratapolis", backend=backend, num_players=4, layout=SMALL_CITY)
    city = sorted(set(SMALL_CITY) - {".", "/"})
    assert len(city) == 11
    s = g.new_initial_state()
    props = {g.letters[a - g.CARD] for a, _ in s.chance_outcomes()}
    assert props == {"A", "B", "C", "F", "G", "H", "I", "L", "S", "T"} - {"J"}  # all in city
    s = _advance(s, np.random.default_rng(5), lambda s: s.phase == "deal")
    obs = s.observation(0)
    assert sorted(obs["board"]) == city and all(v == [1] * 4 for v in obs["board"].values())
    assert obs["supply"] == [20 - 11] * 4 and obs["stack_count"] == 11
    assert {g.letters[a - g.CARD] for a, _ in s.chance_outcomes()} == set(city)
    assert set(obs["tokens"]) <= set(city) and len(obs["tokens"]) == 5  # players + 1


def test_rp10_the_stack_is_refilled_whenever_it_cannot_supply_a_round(backend):
    """RP-10 with rulebook Phase 1 ("when the stack of hunt cards runs out, shuffle all
    discarded cards"): 11 cards last two rounds of 5; round 3 starts with 1 card left, so
    the discards are shuffled in (and again at round 5, the rulebook's reshuffle round)."""
    g = load_game("ratapolis", backend=backend, num_players=3, layout=SMALL_CITY,
                  property_tokens="none")
    rng = np.random.default_rng(6)
    s = _advance(g.new_initial_state(), rng, lambda s: s.round == 3)
    obs = s.observation(0)
    assert obs["reshuffles"] == [3]
    assert obs["stack_count"] == 11 - 2 and obs["discard_count"] == 0  # 2 tiles hunted
    s = _advance(s, rng, lambda s: s.is_terminal())
    obs = s.observation(0)
    assert 5 in obs["reshuffles"] and len(obs["removed"]) == 8
    assert all(obs["rounds"][i]["hunted"] for i in range(8))


def test_rp10_cities_too_small_or_malformed_are_refused(backend):
    """RP-10: a city needs 11 buildings (round 8 takes 4 cards after 7 hunts); a building
    split in two is refused; a property token must be of a building in the city."""
    with pytest.raises(ValueError, match="at least 11"):
        load_game("ratapolis", backend=backend, layout="AAJCC/BOIIG")
    with pytest.raises(ValueError, match="edge-connected"):
        load_game("ratapolis", backend=backend, layout=SMALL_CITY.replace("TTT", "T.T"))
    with pytest.raises(ValueError, match="property_tokens"):
        load_game("ratapolis", backend=backend, layout="AAAJCC/.OIIGK/.DDHLK/NEMMLL/SEMFFP/TTTQQR",
                  property_tokens="B")
