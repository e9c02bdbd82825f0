"""First Rat action labels and ``render``: readable by a human who knows the rulebook.

Labels name what an item does and which rat a choice is about; ``render(player)`` names
things by the rulebook's words and says what is being decided now (contract: api.py
``State.render`` "Readable text of the state as seat ``player`` sees it").
"""

from __future__ import annotations

import re

from fr_helpers import clear_board, do, labels, make, restart


def _to_booth(s, origin: int, booth: int, cheese: int) -> None:
    clear_board(s, {0: [origin]})
    s.cheese[0] = cheese
    s.cheese_issued = sum(s.cheese)
    restart(s)
    do(s, f"A: rat 0 space {origin} -> space {booth}")


def test_bottle_cap_labels_say_what_the_cap_scores():
    """Step 3 Go Shopping at the Madcap Crow (FR-8, FR-12: caps score by the data's counts):
    every buy/steal label says the points per counted thing, the price, or the rat that goes
    back to Start."""
    s = make(2)
    _to_booth(s, 18, 21, 6)  # 6 + 3 from the yellow 3-cheese booth space
    assert s.phase == "shop"
    shop = [x for x in labels(s) if x.startswith(("buy", "steal"))]
    assert "buy bottle cap BC4: 4 per rocket marker (3 Cheese)" in shop
    assert "steal bottle cap BC4: 4 per rocket marker (rat 0 back to Start)" in shop
    assert len(shop) == 12 and all(" per " in x for x in shop)


def test_backpack_and_drink_labels():
    """Step 3: backpacks give +bonus on their colour (FR-6); Zippy's drinks are identical."""
    s = make(2)
    _to_booth(s, 4, 7, 4)
    assert "buy backpack BP-Y1: +2 on yellow spaces (4 Cheese)" in labels(s)
    s = make(2)
    _to_booth(s, 14, 16, 2)
    assert labels(s) == ["do not shop", "buy an energy drink (3 Cheese)",
                         "steal an energy drink (rat 0 back to Start)"]


def test_super_rat_label_names_the_comic_and_the_rat_space():
    """FR-15: choosing the Super Rat among the rats on the path (Start included); the label
    names the comic and where each candidate rat stands."""
    s = make(2)
    clear_board(s, {0: [0, 10]})
    s.library = ["SR1"]
    s.burrow[0] = "R6"  # one apple core: R6 -> R8, the Library reward
    restart(s)
    do(s, "A: rat 0 Start -> space 3")  # white, 1 apple core
    do(s, "Library: take SR1 Super Rat: Chameleon")
    assert s.phase == "super"
    assert labels(s) == ["Super Rat SR1 Chameleon: rat 0 on space 3",
                         "Super Rat SR1 Chameleon: rat 1 on space 10"]


_INTERNAL = re.compile(r"\bphase\b|\bmove_b\b|\bgreg_\w+|\bharry_hamster\b|\bseat \d")


def test_render_says_who_is_shopping_and_what_is_decided():
    """Step 3: "each of these Rats may Go Shopping": the text names the rat and its booth,
    and the turn so far (option B, its colour, the rats moved)."""
    s = make(2)
    clear_board(s, {0: [4, 13]})
    s.cheese[0] = 30
    s.cheese_issued = sum(s.cheese)
    restart(s)
    do(s, "B: rat 0 space 4 -> space 7")
    text = s.render(0)
    assert "Option B: move another rat 1-3 spaces onto yellow, or end option B" in text
    assert "This turn: option B, colour yellow; moved rat 0 (now on space 7)" in text
    do(s, "B: rat 1 space 13 -> space 16")
    assert s.phase == "shop"
    text = s.render(1)
    assert "Round 1: Player 0 to play" in text
    assert "Go Shopping with rat 0 on space 7 (Harry Hamster's booth)" in text
    assert "(1 more rat to shop after)" in text
    assert "Player 1 (you)" in text
    assert not _INTERNAL.search(text), _INTERNAL.search(text)


def test_render_names_burrow_spaces_and_tracks():
    """Rat Burrow Details (rewards on 3 spaces) and Score Tracks: no bare internal ids."""
    s = make(2)
    s.burrow[0] = "R7"
    s.burrow[1] = "R2"
    text = s.render(0)
    assert "Rat Burrow R7 (Nursery)" in text and "R2 (crossroads: left or up)" in text
    assert "Construction Lights" in text and "Stored Food" in text
    assert "Harry Hamster's booth" in text and "the Madcap Crow's booth" in text
    assert not _INTERNAL.search(text)


def test_render_shows_greg_during_his_turn():
    """Solo Play: during Greg's turn the header says so, with his revealed card."""
    s = make(1)
    s.greg_rats = [4, 2, 1, 0]
    s.seat = 1
    s.step = "end"
    s.greg_step = "draw"
    s._greg_run()
    text = s.render(0)
    assert text.startswith("Round 1: Greg the Robo-Rat's turn")
    assert "Greg reveals the top card of his deck" in text
    g = s.get_game()
    s.apply_action(g.CH_CARD + g.card_index["A1"])  # 4 -> 7: Harry Hamster's booth
    assert s.phase == "greg_booth"
    text = s.render(0)
    assert "Greg revealed card A1" in text and "Harry Hamster's booth" in text
    assert "Greg rat 0" in text and not _INTERNAL.search(text)


_ID_LIKE = re.compile(r"\b[a-z]+_[a-z_]+\b|prepare:|remove_comic")


def test_no_label_or_render_shows_an_internal_id():
    """Issue 17, "readable labels everywhere": over seeded random games (solo with every
    Greg decision, and 3 players on the variable layout) no action label and no render
    names a track, booth, icon or resource by its data id ("stored_food", "cargo_bay",
    "prepare:cockpit"); they use the rulebook's names ("Stored Food", "Cargo Bay")."""
    import numpy as np

    from ratai.engines import load_game

    for params in ({"num_players": 1, "difficulty": "unfair", "greg_best_tie": "choose",
                    "layout": "variable"}, {"num_players": 3, "layout": "variable"}):
        s = load_game("first_rat", backend="python", **params).new_initial_state()
        rng = np.random.default_rng(5)
        step = 0
        while not s.is_terminal():
            cp = s.current_player()
            for a in s.legal_actions():
                text = s.action_to_string(cp, a)
                assert not _ID_LIKE.search(text), text
            if step % 25 == 0:
                text = s.render(0)
                assert not _ID_LIKE.search(text), _ID_LIKE.search(text)
            s.apply_action(int(rng.choice(s.legal_actions())))
            step += 1


def test_greg_card_and_choice_labels_use_rulebook_names():
    """Solo Play: card icons read "Greg prepares the Cockpit track", "Greg removes a Comic
    from the Library", "Greg prepares his best Score track"; Step 4 builds read
    "build a Cargo Bay"."""
    s = make(1)
    s.seat = 1
    s.step = "end"
    s.greg_step = "draw"
    s._greg_run()
    texts = labels(s)
    assert "Greg reveals A1: moves [3, 2, 1, 0], Greg prepares the Cockpit track" in texts
    assert "Greg reveals A7: moves [2, 1, 2, 1], Greg removes a Comic from the Library" in texts
    assert "Greg reveals C1: moves [2, 2, 1, 1], Greg prepares his best Score track" in texts
    g = s.get_game()
    assert s.action_to_string(0, g.BUILD + 1) == "build a Cargo Bay"
    assert s.action_to_string(0, g.GREG_BEST + 3) == "Greg prepares the Stored Food track"
