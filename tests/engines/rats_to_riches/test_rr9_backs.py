"""RR-9: the backs of the Rat Pack show through (rulebook "Building The Sewer": Scrappy Sewer
above Supreme Sewer; RR-6: a reshuffled Cesspit mixes the backs). Every seat's observation
holds the back of the top card at all times, after reshuffles too; the next card drawn has
that back; determinization keeps it; both backends agree."""

from __future__ import annotations

import numpy as np
import pytest
from rr_helpers import PIPE, card_id, do, make_state

from ratai.engines import load_game
from ratai.engines.api import CHANCE
from ratai.engines.rats_to_riches.data import BACKS


def _mixed_reshuffle(backend: str = "python"):
    """A 2-seat Step 2 whose next buy empties the Rat Pack and reshuffles a Cesspit of both
    decks' Snatch and Flush cards (rulebook "Buying Cards", RR-6)."""
    game, s = make_state(2, cheese=[[0, 2, 0], [0, 0, 0]], sewer=[PIPE, None, None],
                         flush_boxed=1)
    for seg in s.pack:  # everything else lies in front of seat 1
        for t, c in enumerate(seg["counts"][:game.T]):
            s.tableau[1][t] += c
    s.pack = []
    s.top_back = None
    for key in ("Snatch (Scrappy Sewer)", "Snatch (Supreme Sewer)"):
        t = card_id(game, key)
        s.tableau[1][t] -= 1
        s.cesspit[t] += 1
    if backend == "cython":
        cy = load_game("rats_to_riches", backend="cython", num_players=2)
        s = cy._from_reference(s)
    return s


def _backs_seen(state) -> list:
    return [state.observation(p)["top_back"] for p in range(state.get_game().num_players())]


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_rr9_back_shows_right_after_a_reshuffle_and_draws_follow_it(backend):
    """RR-9 with RR-6: right after the reshuffle a chance node shows the top back (by its
    share of the pack), then every seat sees it and only cards with that back are drawn."""
    s = _mixed_reshuffle(backend)
    game = s.get_game()
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    assert s.current_player() == CHANCE
    # 2 Snatch (one of each sewer) and 3 Flush cards (5 in the box, 2 in front, 1 boxed)
    flush_left = s.observation(0)["rat_pack"][0]["counts"]["Flush"]
    total = 2 + flush_left
    assert dict(s.chance_outcomes()) == pytest.approx({
        game.layout.BACK + 0: 1 / total, game.layout.BACK + 1: 1 / total,
        game.layout.BACK + 2: flush_left / total})
    for b, back in enumerate(BACKS):
        t = s.clone()
        t.apply_action(game.layout.BACK + b)
        assert _backs_seen(t) == [back, back]
        outcomes = dict(t.chance_outcomes())
        assert outcomes and all(game.back[a - game.layout.REVEAL] == b for a in outcomes)
        assert sum(outcomes.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rr9_every_observation_holds_the_back_of_the_top_card(seed):
    """RR-9: in random play from a reshuffle of a mixed Cesspit (RR-6), whenever the Rat Pack
    is not empty and no back is being revealed, every seat's ``top_back`` is the back of the
    next card drawn."""
    rng = np.random.default_rng(seed)
    s = _mixed_reshuffle()
    game = s.get_game()
    do(s, f"buy {PIPE} (Open Sewer slot 0)")  # the refill reshuffles the Cesspit
    backs_revealed = draws = 0
    for _ in range(400):
        if s.is_terminal():
            break
        backs = {o["top_back"] for o in (s.observation(p) for p in range(2))}
        assert len(backs) == 1
        back = backs.pop()
        if s.pack and back is None:
            assert s.is_chance_node()
            assert all(a >= game.layout.BACK for a, _ in s.chance_outcomes())
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes(), strict=True)
            a = int(rng.choice(acts, p=np.array(probs) / sum(probs)))
            if a >= game.layout.BACK:
                backs_revealed += 1
            else:  # RR-9: the card drawn has the announced back
                assert BACKS[game.back[a - game.layout.REVEAL]] == back
                draws += 1
            s.apply_action(a)
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
    assert backs_revealed and draws


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_rr9_determinization_keeps_the_back(backend):
    """RR-9: ``resample_from_infostate`` keeps the public back, and the sample's next draw
    has it (the outcomes are the real state's)."""
    s = _mixed_reshuffle(backend)
    game = s.get_game()
    do(s, f"buy {PIPE} (Open Sewer slot 0)")
    s.apply_action(game.layout.BACK + 1)  # the Supreme Sewer Snatch's back shows
    for seed in range(3):
        for p in range(2):
            r = s.resample_from_infostate(p, seed)
            assert r.observation(p)["top_back"] == "Supreme Sewer"
            assert r.chance_outcomes() == s.chance_outcomes() == [
                (game.layout.REVEAL + card_id(game, "Snatch (Supreme Sewer)"), 1.0)]


def assert_same_outcomes(a, b):
    """Same chance outcomes: equal actions, probabilities equal to rounding."""
    assert [x for x, _ in a] == [x for x, _ in b]
    assert [p for _, p in a] == pytest.approx([p for _, p in b])


def test_rr9_both_backends_agree_on_backs():
    """RR-9 on both backends: the same chance outcomes, observations and info digests
    through a reshuffle, for each revealed back."""
    py, cy = _mixed_reshuffle("python"), _mixed_reshuffle("cython")
    for s in (py, cy):
        do(s, f"buy {PIPE} (Open Sewer slot 0)")
    assert_same_outcomes(py.chance_outcomes(), cy.chance_outcomes())
    for a, _ in py.chance_outcomes():
        p2, c2 = py.clone(), cy.clone()
        p2.apply_action(a)
        c2.apply_action(a)
        assert p2.observation(0) == c2.observation(0)
        assert_same_outcomes(p2.chance_outcomes(), c2.chance_outcomes())


def test_rr9_observation_back_is_checked_on_rebuild():
    """RR-9: a rebuilt observation must name a back the top of the Rat Pack can show."""
    game, s = make_state(2)
    obs = s.observation(0)
    assert obs["top_back"] == "Scrappy Sewer"
    bad = dict(obs, top_back="Supreme Sewer")
    with pytest.raises(ValueError, match="top_back"):
        game.state_from_observation(0, bad)
    with pytest.raises(ValueError, match="top_back"):
        game.state_from_observation(0, dict(obs, top_back="Gold"))
