"""Properties every bot keeps (issue 3), on the toy games and on every registered game:

* determinism: same state, same seed, same iteration budget => same action and numbers;
* no peeking: states with equal ``information_state_string(player)`` (built with
  ``resample_from_infostate``) get the same action and analysis for the same seed;
* legality: a legal action at every decision node of random games (fast budgets).

The default run uses a few games per registered game; the 200-games-per-game version is
marked ``slow``.
"""

from __future__ import annotations

import random

import pytest
from ratai_toy_games import ChanceNimGame, GoofspielGame, KuhnGame

from ratai.bots import BOT_KINDS, make_bot
from ratai.engines import load_game, registered_games
from ratai.engines.api import SIMULTANEOUS
from ratai.search import numbers
from ratai.search.common import has_heuristic

ALL_KINDS = tuple(BOT_KINDS)


def fast_kwargs(kind: str, game) -> dict | None:
    """A tiny budget for ``kind`` on ``game`` (``None``: the kind cannot play it)."""
    h = has_heuristic(game)
    uct = {"iterations": 6, "rollout_cutoff": 8 if h else None}
    if kind == "random":
        return {}
    if kind == "heuristic":
        return {"chance_samples": 4, "max_evals": 64} if h else None
    if kind == "mcts":
        return dict(uct, determinize=not game.perfect_information)
    if kind == "ismcts":
        return dict(uct, chance_key="action")
    if kind in ("pimc", "smmcts"):
        return dict(uct, determinizations=2)
    if kind == "expectimax":
        return {"max_depth": 1, "max_chance_outcomes": 3, "determinizations": 1, "rollouts": 2}
    if kind == "az":
        model = tiny_model(game)
        return None if model is None else {"iterations": 6, "model": model}
    raise AssertionError(kind)


_MODELS: dict = {}


def tiny_model(game):
    """A small random ``ratai.nn.Model`` for ``game`` (``None`` for a game without an
    observation tensor: the toys)."""
    from ratai.nn import Model, model_params

    key = (game.name, repr(sorted(game.params.items())))
    if key not in _MODELS:
        try:
            game.observation_tensor_shape()
        except (NotImplementedError, AttributeError):
            _MODELS[key] = None
        else:
            _MODELS[key] = Model.init(game.name, [game.num_players()], hidden=(8, 8), seed=1,
                                      params=model_params(game))
    return _MODELS[key]


def seeded_bot(kind, game, player, seed=7):
    kw = fast_kwargs(kind, game)
    if kw is None:
        pytest.skip(f"{kind} cannot play {game.name}")
    return make_bot(kind, game, player, seed=seed, **kw)


def play_random(game, seed: int, visit=None, max_plies: int | None = None):
    """Play one random game; call ``visit(state)`` at each decision node (before the move)."""
    rnd = random.Random(seed)
    s = game.new_initial_state()
    n = game.num_players()
    plies = 0
    while not s.is_terminal() and (max_plies is None or plies < max_plies):
        cp = s.current_player()
        if cp >= 0 or cp == SIMULTANEOUS:
            if visit is not None:
                visit(s)
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
        elif cp == SIMULTANEOUS:
            s.apply_actions([rnd.choice(s.legal_actions(p)) if s.legal_actions(p) else -3
                             for p in range(n)])
        else:
            s.apply_action(rnd.choice(s.legal_actions()))
        plies += 1
    return s


def decision_states(game, seed: int, count: int, stride: int = 7, joint: bool = False) -> list:
    """About ``count`` decision states from random games (every ``stride``-th decision;
    ``SIMULTANEOUS`` ones too when ``joint``)."""
    out: list = []
    k = [0]

    def visit(s):
        k[0] += 1
        cp = s.current_player()
        if k[0] % stride == 0 and len(out) < count and (cp >= 0 or joint):
            out.append(s.clone())
    g = 0
    while len(out) < count and g < 20:
        play_random(game, seed + g, visit)
        g += 1
    return out


TOYS = {
    "chance_nim": ChanceNimGame(heap=9, gust=True),
    "chance_nim_3p": ChanceNimGame(num_players=3, heap=9),
    "kuhn": KuhnGame(),
    "goofspiel": GoofspielGame(cards=4, random_prizes=True),
}


def real_games() -> list[str]:
    """Registered games by default parameters, plus ``name@simultaneous`` for a game that
    offers the joint-move view (Ratapolis planning)."""
    names = []
    for name in registered_games():
        names.append(name)
        if any(p.name == "simultaneous" for p in type(load_game(name)).param_specs):
            names.append(f"{name}@simultaneous")
    return names


def get_game(name):
    if name in TOYS:
        return TOYS[name]
    if name.endswith("@simultaneous"):
        return load_game(name.split("@")[0], simultaneous=True)
    return load_game(name)


GAME_IDS = list(TOYS) + real_games()
REAL_IDS = [n for n in GAME_IDS if n not in TOYS]


# -- determinism ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize("name", GAME_IDS)
def test_same_seed_same_analysis(name, kind):
    game = get_game(name)
    if kind in ("expectimax",) and name == "goofspiel":
        pytest.skip("expectimax does not search SIMULTANEOUS nodes")
    if kind in ("ismcts", "az") and name == "goofspiel":
        pytest.skip(f"{kind} does not search SIMULTANEOUS nodes")
    if name.endswith("@simultaneous"):
        pytest.skip("joint views: see test_joint_view_planning_node (engine steps are slow)")
    elif name == "goofspiel":
        states = _goof_states(game)
    else:
        states = decision_states(game, 1, 2, joint=True)
    assert states, "no decision state found"
    for s in states:
        p = s.current_player() if s.current_player() >= 0 else 0
        a1 = seeded_bot(kind, game, p).analyze(s)
        bot = seeded_bot(kind, game, p)
        a2 = bot.analyze(s.clone())
        a3 = bot.analyze(s)
        assert numbers(a1) == numbers(a2) == numbers(a3)
        assert bot.step(s) == a1.best_action
        assert a1.best_action in s.legal_actions(p)


def _goof_states(game):
    s = game.new_initial_state()
    s.apply_action(s.legal_actions()[0])
    return [s]


# -- no peeking -------------------------------------------------------------------------------
HIDDEN = ["kuhn"] + [n for n in REAL_IDS if not get_game(n).perfect_information]
PEEK_KINDS = [k for k in ALL_KINDS if k != "mcts"] + ["mcts"]


def peek_pairs(game, count: int):
    """(state, resampled twin, resampled twin) triples with equal information states."""
    out = []
    for s in decision_states(game, 11, count, stride=3):
        p = s.current_player()
        twins = [s.resample_from_infostate(p, seed) for seed in (1, 2)]
        info = s.information_state_string(p)
        for t in twins:
            assert t.information_state_string(p) == info, \
                f"{game.name}: resample_from_infostate changed the information state"
        out.append((p, [s] + twins))
    return out


@pytest.mark.parametrize("kind", PEEK_KINDS)
@pytest.mark.parametrize("name", HIDDEN)
def test_no_peeking(name, kind):
    game = get_game(name)
    triples = peek_pairs(game, 3 if name == "kuhn" else 2)
    assert triples
    differs = False
    for p, states in triples:
        differs |= any(t.to_json() != states[0].to_json() for t in states[1:])
        results = [numbers(seeded_bot(kind, game, p).analyze(t)) for t in states]
        assert results[0] == results[1] == results[2]
    if name == "kuhn":
        assert differs, "the twins never differed in hidden parts: the test proves nothing"


def test_kuhn_twins_really_differ():
    """Sanity for the no-peeking test: P1 holding Q cannot tell P0's J from K."""
    s = KuhnGame().new_initial_state()
    s.apply_action(2)   # P0: J
    s.apply_action(3)   # P1: Q
    s.apply_action(1)   # P0 bets
    cards = {s.resample_from_infostate(1, seed).cards[0] for seed in range(20)}
    assert cards == {0, 2}
    for kind in ("heuristic", "ismcts", "pimc", "expectimax"):
        kw = fast_kwargs(kind, KuhnGame())
        got = {numbers(make_bot(kind, KuhnGame(), 1, seed=3, **kw).analyze(
            s.resample_from_infostate(1, seed))) for seed in range(6)}
        assert len(got) == 1


# -- legality in random games -----------------------------------------------------------------
def check_legal_everywhere(game, seeds, kinds=ALL_KINDS, stride: int = 1):
    n = game.num_players()
    bots = {}
    for kind in kinds:
        kw = fast_kwargs(kind, game)
        if kw is None:
            continue
        bots[kind] = [make_bot(kind, game, p, seed=p, **kw) for p in range(n)]
    k = [0]

    def visit(s):
        k[0] += 1
        if k[0] % stride:
            return
        cp = s.current_player()
        seats = [cp] if cp >= 0 else [p for p in range(n) if s.legal_actions(p)]
        for kind, seat_bots in bots.items():
            if cp == SIMULTANEOUS and kind in ("ismcts", "expectimax", "az"):
                continue
            for p in seats:
                a = seat_bots[p].step(s)
                assert a in s.legal_actions(p), (kind, p, a, s.legal_actions(p))
    for seed in seeds:
        play_random(game, seed, visit)
    return k[0]


@pytest.mark.parametrize("name", list(TOYS))
def test_legal_action_everywhere_toys(name):
    assert check_legal_everywhere(TOYS[name], range(3)) > 0


# Default run: a couple of games per registered game with every kind at a sparse stride.
@pytest.mark.parametrize("name", [n for n in REAL_IDS if not n.endswith("@simultaneous")])
def test_legal_action_everywhere_registered(name):
    game = get_game(name)
    assert check_legal_everywhere(game, range(2), stride=9) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", GAME_IDS)
def test_legal_action_everywhere_200_games(name):
    """The issue's property: every bot, every decision node, 200 random games per game and
    player count (fast budgets)."""
    if name in TOYS:
        check_legal_everywhere(TOYS[name], range(200))
        return
    base = name.split("@")[0]
    extra = {"simultaneous": True} if name.endswith("@simultaneous") else {}
    for params in getattr(type(get_game(name)), "variants", {"default": {}}).values():
        check_legal_everywhere(load_game(base, **{**params, **extra}), range(200))


@pytest.mark.parametrize("name", REAL_IDS)
def test_mcts_refusal_matches_information(name):
    game = get_game(name)
    if game.perfect_information:
        assert make_bot("mcts", game, 0, iterations=1)
    else:
        with pytest.raises(ValueError, match="perfect information"):
            make_bot("mcts", game, 0, iterations=1)


@pytest.mark.parametrize("kind", ["ismcts", "expectimax"])
def test_joint_view_root_is_refused_clearly(kind):
    s = TOYS["goofspiel"].new_initial_state()
    s.apply_action(s.legal_actions()[0])
    kw = {"max_depth": 2} if kind == "expectimax" else {"iterations": 5}
    with pytest.raises(ValueError, match="smmcts"):
        make_bot(kind, TOYS["goofspiel"], 0, **kw).step(s)


JOINT = [n for n in REAL_IDS if n.endswith("@simultaneous")]


def first_joint_node(game):
    s = game.new_initial_state()
    rnd = random.Random(0)
    while s.current_player() != SIMULTANEOUS:
        assert not s.is_terminal()
        if s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(rnd.choices([a for a, _ in outs], [p for _, p in outs])[0])
        else:
            s.apply_action(rnd.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("name", JOINT)
def test_joint_view_planning_node(name):
    """The joint-move view (Ratapolis planning, ``simultaneous=True``): the kinds that handle
    ``SIMULTANEOUS`` nodes return a legal plan for every seat, reproducibly, and do not peek."""
    game = get_game(name)
    s = first_joint_node(game)
    for kind in ("random", "heuristic", "smmcts"):
        kw = fast_kwargs(kind, game)
        if kind == "smmcts":
            kw = dict(kw, iterations=2, determinizations=1)
        if kind == "heuristic":
            kw = dict(kw, max_evals=2)  # each joint step of the engine is slow
        for p in (0, game.num_players() - 1):
            a1 = make_bot(kind, game, p, seed=4, **kw).analyze(s)
            assert a1.best_action in s.legal_actions(p)
        a1 = make_bot(kind, game, 0, seed=4, **kw).analyze(s)
        twin = s.resample_from_infostate(0, 9) if not game.perfect_information else s.clone()
        a2 = make_bot(kind, game, 0, seed=4, **kw).analyze(twin)
        assert numbers(a1) == numbers(a2)
