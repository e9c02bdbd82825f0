"""First Rat invariants over seeded random games, observation round trips, bad input.

Issue 6: materials and cheese conserved, no two rats of one seat on one space other than
Start, score markers <= 10, the game ends within max_game_length(). CI runs 300 games per
(player count, layout); the 2,000-game runs are marked slow.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

import numpy as np
import pytest

from ratai.engines import IllegalActionError, load_game
from ratai.engines.first_rat.data import MATERIALS, load
from ratai.search.common import apply_unchecked

CI_GAMES = 300  # per (player count, layout): the CI figure
SLOW_GAMES = 2000
LABELS_EVERY = 5
CASES = [(n, layout) for n in (1, 2, 3, 4, 5) for layout in ("standard", "variable")]


def check_invariants(s, legal: list[int] | None = None, labels: bool = True) -> None:
    """The issue's invariants at ``s``; ``legal`` is ``s.legal_actions()`` if the caller has it;
    ``labels``: also that the legal actions' labels are distinct."""
    g = s.get_game()
    d = load()
    L = g.L
    for m in MATERIALS:  # materials conserved (FR-13)
        held = [p[m] for p in s.mats]
        assert s.supply[m] + sum(held) == d.supply[m], m
        assert s.supply[m] >= 0 and min(held) >= 0, m
    assert sum(s.cheese) == s.cheese_issued and min(s.cheese) >= 0  # cheese ledger
    assert s.supply["moldy_cheese"] + sum(s.moldy) == d.supply["moldy_cheese"]
    assert s.supply["awards"] + sum(s.awards) == d.supply["awards"]
    for p, rats in enumerate(s.rats):
        sharers = s._sharers(p) if s.super_rats[p] else ()  # the Ghost (a Super Rat)
        on_path = [x for r, x in enumerate(rats) if 0 < x < L and r not in sharers]
        assert len(on_path) == len(set(on_path)), (p, rats)
        chosen = [r for r in s.super_rats[p].values() if r >= 0]
        assert len(chosen) == len(set(chosen)), s.super_rats[p]  # FR-19
        assert 0 <= s.light[p] <= d.light_length and s.lights_scored[p] <= 3
    placed = Counter(chain.from_iterable(
        (*slots, *s.track_last[t]) for t, slots in s.track_slots.items() if t != "rattronaut"))
    for owner, count in enumerate(s.markers):
        assert count <= 10 and placed[owner] == count  # markers on the tracks
    items = s.disp_backpacks + [b for p in s.backpacks for b in p]
    assert len(items) == len(set(items))
    caps = s.disp_caps + [c for p in s.caps for c in p]
    assert len(caps) == len(set(caps))
    comics = s.library + [c for p in s.comics for c in p]
    assert len(comics) == len(set(comics))
    if labels and not s.is_terminal():  # labels identify actions (string_to_action)
        cp = s.current_player()
        legal = s.legal_actions() if legal is None else legal
        names = [s.action_to_string(cp, a) for a in legal]
        assert len(names) == len(set(names))


def play(game, seed: int, on_state=None):
    """One seeded random game; ``on_state(s, legal)`` is called before every action and at
    the end (``legal`` is ``s.legal_actions()``, computed once per state)."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    steps, longest = 0, game.max_game_length()
    while not s.is_terminal():
        la = s.legal_actions()
        if on_state is not None:
            on_state(s, la)
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(acts[rng.choice(len(acts), p=np.array(probs) / sum(probs))])
        else:  # from the legal list just computed: the unchecked fast path of the search
            apply_unchecked(s, la[rng.integers(len(la))])
        steps += 1
        assert steps <= longest
    if on_state is not None:
        on_state(s, [])
    return s


def run_games(n: int, layout: str, count: int) -> None:
    """``count`` seeded random games, the invariants at every state; the labels at every
    ``LABELS_EVERY``-th (labelling every legal action cost as much as generating them; the
    contract suite checks the labels at every state of its games, tests/engines/
    test_contract.py)."""
    game = load_game("first_rat", backend="python", num_players=n, layout=layout)

    def check(s, legal):
        check_invariants(s, legal, labels=s.move_number() % LABELS_EVERY == 0)

    for seed in range(count):
        final = play(game, seed, check)
        assert final.end_round is not None and final.round == final.end_round
        assert len(final.returns()) == n and abs(sum(final.returns()) - 1) < 1e-9 or n == 1


@pytest.mark.parametrize("n,layout", CASES)
def test_invariants_random_games(n, layout):
    run_games(n, layout, CI_GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("n,layout", CASES)
def test_invariants_random_games_slow(n, layout):
    run_games(n, layout, SLOW_GAMES)


@pytest.mark.parametrize("n,layout", CASES)
def test_state_from_observation_round_trips(n, layout):
    """observation(p) of the state rebuilt from observation(p) equals it, along random games."""
    game = load_game("first_rat", backend="python", num_players=n, layout=layout)
    count = [0]

    def check(s, legal):
        count[0] += 1
        if count[0] % 5:
            return
        for p in range(n):
            obs = s.observation(p)
            rebuilt = game.state_from_observation(p, obs, rng=count[0])
            assert rebuilt.observation(p) == obs
            assert rebuilt.legal_actions() == legal

    for seed in range(3):
        play(game, 100 + seed, check)


def test_state_from_observation_rejects_bad_fields():
    game = load_game("first_rat", backend="python", num_players=3)
    s = game.new_initial_state()
    obs = s.observation(0)
    bad = dict(obs)
    del bad["cheese"]
    with pytest.raises(ValueError, match="cheese"):
        game.state_from_observation(0, bad)
    bad = dict(obs, rats=[[0, 0, -1, -1]] * 2)
    with pytest.raises(ValueError, match="rats"):
        game.state_from_observation(0, bad)
    bad = dict(obs, phase="dance")
    with pytest.raises(ValueError, match="phase"):
        game.state_from_observation(0, bad)
    bad = dict(obs, round="one")
    with pytest.raises(ValueError, match="round"):
        game.state_from_observation(0, bad)
    with pytest.raises(ValueError, match="player"):
        game.state_from_observation(5, obs)


def test_illegal_action_raises_and_leaves_the_state_unchanged():
    """Issue 6, bad input: IllegalActionError lists the legal actions; the state is kept."""
    game = load_game("first_rat", backend="python", num_players=3)
    rng = np.random.default_rng(7)
    s = game.new_initial_state()
    for _ in range(60):
        if s.is_terminal():
            break
        before = s.clone()
        legal = s.legal_actions()
        illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
        with pytest.raises(IllegalActionError) as err:
            s.apply_action(illegal)
        assert s == before and str(legal[0]) in str(err.value)
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(acts[rng.choice(len(acts), p=probs)])
        else:
            s.apply_action(legal[rng.integers(len(legal))])


def test_heuristic_value_in_unit_interval():
    for n in (1, 3):
        game = load_game("first_rat", backend="python", num_players=n)
        vals: list[float] = []

        def record(s, _legal, game=game, vals=vals):
            vals.append(game.heuristic_value(s, 0))

        play(game, 3, record)
        assert vals and all(0.0 <= v <= 1.0 for v in vals)


def test_render_reads_the_observation():
    for n in (1, 4):
        game = load_game("first_rat", backend="python", num_players=n, layout="variable")
        s = game.new_initial_state()
        text = s.render(0)  # during the variable setup: tiles not placed yet
        assert "tile not placed" in text and "Launchpad" in text
        s = play(game, 1)
        assert "Rattronaut" in s.render(0)
