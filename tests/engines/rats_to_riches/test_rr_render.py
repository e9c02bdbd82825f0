"""Rats to Riches terminal rendering (issue 9, ``ratai play``: "Open Sewer, incomes, cash"):
a golden text for a fixed seeded position, the 100-column limit, and that the text depends
only on the seat's observation."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from rr_helpers import PIPE, make_state

from ratai.engines import load_game
from ratai.engines.rats_to_riches.view import WIDTH
from tests.conftest import sample_action

GOLDEN = Path(__file__).with_name("render_rats_to_riches.txt")


def _seeded_state(n: int = 3, seed: int = 3, plies: int = 120):
    game = load_game("rats_to_riches", backend="python", num_players=n)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(sample_action(state, rng))
    return state


def test_render_matches_the_golden_text():
    """A 3-rat game, seed 3, after 120 plies, seen by rat 1 (regenerate the .txt by writing
    ``_seeded_state().render(1) + "\\n"`` and review the diff)."""
    assert _seeded_state().render(1) + "\n" == GOLDEN.read_text()


def test_render_shows_a_flush_card_the_golden_rat_and_a_pending_choice():
    """The Open Sewer shows a Flush card with its $2 cost (data.FLUSH_COST); income counts
    each Flush card and the Golden Rat; a pending sub-decision is named."""
    _, s = make_state(2, cash=[7, 3], golden=1, flush=[2, 1], sewer=["Flush", PIPE, None],
                      tableau={0: {"Mutual Destruction": 1, "Emmental Energy Ltd": 1}})
    text = s.render(0)
    assert ("  [0] Flush - Flush card, costs $2: income +2; dump it: take 1 Open Sewer card "
            "free\n") in text
    assert "  [2] (empty)" in text
    assert ("> rat 0 (you)        $7     $6  0/0/0        2 Flush, Emmental Energy Ltd, Mutual "
            "Destruction\n") in text
    assert "  rat 1 GR           $3     $4" in text
    s.apply_action(s.string_to_action(0, "use Mutual Destruction on rat 1"))
    assert "Now: rat 0 sends 2 own card(s) to the Cesspit (Mutual Destruction)" in s.render(1)


@pytest.mark.parametrize("n", [2, 5])
def test_render_fits_100_columns_and_reads_only_the_observation(n):
    """Every line fits a 100-column terminal; the text is a function of the observation
    (a state rebuilt from it renders the same)."""
    game = load_game("rats_to_riches", backend="python", num_players=n)
    state = game.new_initial_state()
    rng = np.random.default_rng(n)
    while not state.is_terminal():
        if len(state.history()) % 15 == 0:
            text = state.render(n - 1)
            assert max(len(line) for line in text.splitlines()) <= WIDTH
            rebuilt = game.state_from_observation(n - 1, state.observation(n - 1))
            assert rebuilt.render(n - 1) == text
        state.apply_action(sample_action(state, rng))
    assert "Game over: rat" in state.render(0)


_MENTIONS = [
    r"^(?:buy|flush: take) (.+) \(Open Sewer slot \d\)$", r"^reveal (.+)$", r"^sell (.+)$",
    r"^use (.+?)(?: on rat \d.*|: take .*)?$", r"'s (.+)$", r"^send own (.+) to the Cesspit$",
    r"^dump (.+) with (.+)$",
]


def _card_mentions(text: str) -> list[str]:
    if text == "sell the chosen pipes" or ("cheese" in text and not text.startswith("use")):
        return []
    out = []
    for pattern in _MENTIONS:
        m = re.search(pattern, text)
        if m:
            out += [g for g in m.groups() if g]
    return out


def test_action_labels_use_rulebook_card_names_never_internal_ids():
    """Issue #17 "Readable labels everywhere": every label of random games names cards as
    printed (the Flush card as "Flush card"), never an id, a snake_case kind or a number in
    place of a card."""
    game = load_game("rats_to_riches", backend="python", num_players=3)
    names = {t.name for t in game.data.card_types} | {"Flush card"}
    rng = np.random.default_rng(5)
    s = game.new_initial_state()
    seen = 0
    while not s.is_terminal() and seen < 4000:
        for a in s.legal_actions() if not s.is_chance_node() else [o for o, _ in
                                                                    s.chance_outcomes()]:
            text = s.action_to_string(s.current_player(), a)
            seen += 1
            assert not re.search(r"[a-z]+_[a-z]+|\bcard \d|\btype \d|invalid", text), text
            for card in _card_mentions(text):
                card = re.sub(r" \((Scrappy|Supreme) Sewer\)$", "", card)
                assert card in names or card == "empty slot", text
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(outs[rng.choice(len(outs), p=[p for _, p in outs])][0])
        else:
            legal = s.legal_actions()
            s.apply_action(legal[rng.integers(len(legal))])
    assert seen >= 1000
