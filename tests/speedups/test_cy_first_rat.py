"""First Rat Cython twin (issue 6, "The Cython twin"): the parameters the named variants of
the generic differential test (``test_cy_differential.py``) do not reach, a replacement data
file, a biased policy that reaches the rarer steps more often, and the C-level chance key.

Every game plays the same actions on both backends and must agree at every step (see
``play_both``); the reference ``engines/first_rat`` is the specification.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from ratai.engines import _CYTHON_REGISTRY, load_game
from tests.conftest import sample_action
from tests.speedups.test_cy_differential import play_both

pytestmark = pytest.mark.skipif("first_rat" not in _CYTHON_REGISTRY,
                                reason="no First Rat twin registered")
cy_search = pytest.importorskip("ratai._speedups.search")

GAMES = 25
#: Parameter sets beyond FirstRatGame.variants: every difficulty, both solo tie rules on both
#: layouts, first_game with the variable layout, every player count on the variable layout.
EXTRA = [
    {"num_players": 1, "difficulty": "easy"},
    {"num_players": 1, "difficulty": "difficult", "greg_best_tie": "choose"},
    {"num_players": 1, "difficulty": "unfair"},
    {"num_players": 1, "layout": "variable", "first_game": True},
    {"num_players": 2, "layout": "variable", "first_game": True},
    {"num_players": 3},
    {"num_players": 4, "layout": "variable"},
    {"num_players": 5, "layout": "variable", "first_game": True},
]


@pytest.mark.parametrize("params", EXTRA, ids=lambda p: "-".join(f"{v}" for v in p.values()))
def test_twin_matches_the_reference_for_every_parameter(params):
    for seed in range(GAMES):
        play_both("first_rat", params, seed, obs_every=5)


def test_twin_follows_a_replacement_data_file(tmp_path):
    """``data_path``: the twin reads its tables from the data, like the reference (one
    shortcut fewer changes the action ids; other prices, supplies, cards and markers)."""
    doc = json.loads(resources.files("ratai.engines.first_rat")
                     .joinpath("first_rat.json").read_text())
    doc["path"]["shortcuts"] = doc["path"]["shortcuts"][:3]
    doc["prices"] = {"backpack": 2, "energy_drink": 1, "bottle_cap": 2}
    doc["setup"]["supply"]["awards"] = 3
    doc["setup"]["supply"]["moldy_cheese"] = 2
    doc["setup"]["start_cheese_by_seat"] = [0, 1, 1, 2, 2]
    doc["score_tracks"]["neutral_markers"]["3"] = [1, 3]
    doc["solo"]["cards"][0]["moves"] = [5, 0, 0, 0]
    path = tmp_path / "fr.json"
    path.write_text(json.dumps(doc))
    for n in (1, 3):
        params = {"num_players": n, "data_path": str(path)}
        assert (load_game("first_rat", backend="cython", **params).num_distinct_actions()
                == load_game("first_rat", backend="python", **params).num_distinct_actions())
        for seed in range(10):
            play_both("first_rat", params, seed, obs_every=3)


def _biased(state, rng):
    """Chance by probability; decisions favour the highest id (builds, steals, Super Rats,
    option B, Greg's choices) half of the time, so rarer steps come up more often."""
    if state.is_chance_node() or rng.random() < 0.5:
        return sample_action(state, rng)
    return state.legal_actions()[-1]


@pytest.mark.parametrize("n", [1, 2, 4])
def test_twin_matches_the_reference_under_a_biased_policy(n):
    params = {"num_players": n, "layout": "variable"}
    if n == 1:
        params["greg_best_tie"] = "choose"
    ref_game = load_game("first_rat", backend="python", **params)
    cy_game = load_game("first_rat", backend="cython", **params)
    for seed in range(12):
        rng = np.random.default_rng(seed)
        ref, cy = ref_game.new_initial_state(), cy_game.new_initial_state()
        while not ref.is_terminal():
            assert cy.current_player() == ref.current_player()
            assert cy.legal_actions() == ref.legal_actions()
            assert cy.serialize() == ref.serialize()
            a = _biased(ref, rng)
            ref.apply_action(a)
            cy.apply_action(a)
        assert cy.serialize() == ref.serialize() and cy.returns() == ref.returns()


def test_info_hash_keys_like_the_information_state():
    """IS-MCTS keys chance children by ``c_info_hash``: equal digests exactly when the
    information state strings are equal (First Rat hides nothing: the whole state)."""
    game = load_game("first_rat", backend="cython", num_players=1, layout="variable")
    rng = np.random.default_rng(3)
    s = game.new_initial_state()
    checked = 0
    while not s.is_terminal() and checked < 40:
        if s.is_chance_node():
            after = []
            for a, _ in s.chance_outcomes():
                c = s.clone()
                c.apply_action(a)
                after.append((c.information_state_string(0), cy_search.info_hash(c, 0)))
            for x in after:
                for y in after:
                    assert (x[0] == y[0]) == (x[1] == y[1])
            checked += 1
        s.apply_action(sample_action(s, rng))
    assert checked >= 10


def test_compiled_search_runs_on_the_twin():
    """The compiled IS-MCTS uses the twin's ``c_resample`` (a copy: nothing is hidden) and
    returns a legal move."""
    from ratai.bots import make_bot

    game = load_game("first_rat", backend="cython", num_players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        state.apply_action(sample_action(state, rng))
    assert type(state).fast_c_resample
    for kind in ("ismcts", "mcts"):
        bot = make_bot(kind, game, state.current_player(), iterations=200, seed=1,
                       search_backend="cython")
        assert bot.analyze(state).best_action in state.legal_actions()


#: Seat -> (comics, {Super Rat comic: rat}): movement under every movement effect of the data
#: (shortcut cost, option A / B steps, a chameleon, a Turbo, a Ghost sharing spaces).
MOVERS = [(["CM1", "CM4", "SR1"], {"SR1": 0}), (["CM3", "SR4", "SR2"], {"SR4": 1, "SR2": 2}),
          (["CM2", "SR3"], {"SR3": 0})]


@pytest.mark.parametrize("layout", ["standard", "variable"])
def test_twin_moves_like_the_reference_under_movement_effects(layout):
    """The compiled legal-move generation (route bitsets per step budget, option B's FR-3
    follow check from per-rat destination masks, the shortcut routes paid one by one) lists
    exactly the reference's moves when comics and Super Rats modify movement (FR-1, FR-3,
    FR-15, FR-19) and the seats can pay shortcuts: each seat gets movement comics and
    materials right after setup, the twin is rebuilt from the reference's serialization, and
    both play the same (biased) actions."""
    ref_game = load_game("first_rat", backend="python", num_players=3, layout=layout)
    cy_game = load_game("first_rat", backend="cython", num_players=3, layout=layout)
    moves = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        ref = ref_game.new_initial_state()
        while ref.is_chance_node():
            ref.apply_action(sample_action(ref, rng))
        for p, (comics, supers) in enumerate(MOVERS):
            for c in comics:
                if c in ref.library:
                    ref.library.remove(c)
            ref.comics[p] = list(comics)
            ref.super_rats[p] = dict(supers)
            ref.mats[p] = {m: 3 for m in ref.mats[p]}
            ref.rats[p] = [0, 0, 0, 0]
        cy = cy_game.deserialize_state(ref.serialize())
        while not ref.is_terminal():
            legal = ref.legal_actions()
            assert cy.current_player() == ref.current_player()
            assert cy.legal_actions() == legal, f"seed {seed}"
            moves += ref.phase in ("move", "move_b")
            a = _biased(ref, rng)
            ref.apply_action(a)
            cy.apply_action(a)
        assert cy.serialize() == ref.serialize() and cy.returns() == ref.returns()
    assert moves > 100


def test_a_twin_rebuilt_mid_game_lists_the_same_moves():
    """The twin keeps each seat's movement quantities (``MoveCtx``) in the state until the
    seat's comics, bottle caps or Super Rats change (``items_changed``), and refreshes the
    path spaces its rats hold when they move (``rats_moved``). A twin rebuilt from the
    fields has no such cache: at every decision (option B's second rat included, and the
    movements after a seat gained an item) it must compute the same moves, as must its
    clones."""
    checked = after_items = 0
    for players in (2, 3):
        game = load_game("first_rat", backend="cython", num_players=players)
        for seed in range(3):
            rng = np.random.default_rng(seed)
            s = game.new_initial_state()
            items = [0] * players
            while not s.is_terminal():
                if s.current_player() >= 0:
                    ref = s.to_reference()
                    rebuilt = game.from_reference(ref)
                    assert rebuilt.legal_actions() == s.legal_actions()
                    assert rebuilt.clone().legal_actions() == s.legal_actions()
                    checked += 1
                    p = ref.seat
                    held = len(ref.comics[p]) + len(ref.caps[p]) + len(ref.super_rats[p])
                    if ref.phase in ("move", "move_b") and held > items[p]:
                        items[p] = held
                        after_items += 1
                s.apply_action(sample_action(s, rng))
    assert checked > 500 and after_items > 10, (checked, after_items)
