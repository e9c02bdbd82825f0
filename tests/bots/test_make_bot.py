"""``make_bot``: kinds, budgets and options are validated with clear errors."""

from __future__ import annotations

import pytest
from ratai_toy_games import ChanceNimGame, KuhnGame

from ratai.bots import BOT_KINDS, Bot, RandomBot, make_bot
from ratai.search import Analysis


def test_kinds():
    assert set(BOT_KINDS) == {"random", "heuristic", "mcts", "ismcts", "pimc", "expectimax",
                              "smmcts", "az"}
    assert all(issubclass(c, Bot) for c in BOT_KINDS.values())
    assert isinstance(make_bot("random", ChanceNimGame(), 0, seed=1), RandomBot)


def test_unknown_kind_lists_known():
    with pytest.raises(ValueError, match="known kinds"):
        make_bot("alphazero", ChanceNimGame(), 0)


@pytest.mark.parametrize("kind", ["mcts", "ismcts", "pimc", "smmcts", "expectimax"])
def test_search_bots_need_a_budget(kind):
    with pytest.raises(ValueError, match="needs a budget"):
        make_bot(kind, ChanceNimGame(), 0)


@pytest.mark.parametrize("kw,match", [
    ({"iterations": 0}, "iterations"), ({"iterations": 2.5}, "iterations"),
    ({"time_limit": -1}, "time_limit"), ({"iterations": 5, "max_depth": 0}, "max_depth"),
    ({"iterations": 5, "exploration": -1}, "exploration"),
    ({"iterations": 5, "rollout": "smart"}, "rollout"),
    ({"iterations": 5, "rollout_cutoff": -2}, "rollout_cutoff"),
    ({"iterations": 5, "frobnicate": 1}, "unknown option"),
    ({"iterations": 5, "progress_every": 0}, "progress_every"),
])
def test_bad_options_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        make_bot("mcts", ChanceNimGame(), 0, **kw)


def test_bad_seat_and_wrong_turn():
    with pytest.raises(ValueError, match="bad player"):
        make_bot("mcts", ChanceNimGame(), 2, iterations=5)
    s = ChanceNimGame(roll=False).new_initial_state()
    with pytest.raises(ValueError, match="not seat 1's turn"):
        make_bot("mcts", ChanceNimGame(roll=False), 1, iterations=5).step(s)


def test_expectimax_options():
    with pytest.raises(ValueError, match="mode"):
        make_bot("expectimax", ChanceNimGame(), 0, max_depth=2, mode="minimax")
    with pytest.raises(ValueError, match="unknown option"):
        make_bot("expectimax", ChanceNimGame(), 0, max_depth=2, rollout="random")


def test_heuristic_options_and_random_rejects_options():
    with pytest.raises(ValueError, match="unknown option"):
        make_bot("heuristic", ChanceNimGame(), 0, iterations=3, depth=2)
    with pytest.raises(ValueError, match="unexpected"):
        make_bot("random", ChanceNimGame(), 0, exploration=3)


def test_analysis_is_frozen_and_complete():
    s = ChanceNimGame(roll=False, heap=9).new_initial_state()
    an = make_bot("mcts", ChanceNimGame(roll=False, heap=9), 0, iterations=50, seed=1).analyze(s)
    assert isinstance(an, Analysis)
    with pytest.raises(AttributeError):
        an.best_action = 2
    assert an.best_action == an.moves[0].action == an.pv[0].action
    assert sum(m.visits for m in an.moves) == 50
    assert an.moves[0].label == "take 1"
    assert an.seed == 1 and an.player == 0 and an.kind == "mcts"
    assert an.nodes >= 1 and an.max_depth >= 1 and an.elapsed_s >= 0


def test_skip_forced_single_move():
    game = ChanceNimGame(roll=False, heap=1)
    an = make_bot("mcts", game, 0, iterations=50, skip_forced=True).analyze(
        game.new_initial_state())
    assert an.best_action == 0 and an.iterations == 0


def test_ismcts_on_hidden_info_accepts_and_mcts_refuses():
    assert make_bot("ismcts", KuhnGame(), 0, iterations=5)
    with pytest.raises(ValueError, match="determinize=True"):
        make_bot("mcts", KuhnGame(), 0, iterations=5)


def test_bad_seeds_and_huge_budgets_are_value_errors_naming_them():
    """A bad seed is the library's own ValueError (numpy's TypeError before), and an
    iteration budget past ``MAX_ITERATIONS`` is refused up front (the compiled loop raised
    OverflowError mid-search)."""
    from ratai.engines import load_game
    from ratai.search.common import MAX_ITERATIONS

    g = load_game("rat_trap")
    for seed in (1.5, -1, True, [1]):
        with pytest.raises(ValueError, match="bad seed"):
            make_bot("ismcts", g, 0, iterations=10, seed=seed)
    assert make_bot("ismcts", g, 0, iterations=10, seed="abc").rng is not None
    for it in (MAX_ITERATIONS + 1, 2**63, 10**20):
        with pytest.raises(ValueError, match="iterations"):
            make_bot("ismcts", g, 0, iterations=it)
    assert make_bot("mcts", load_game("first_rat"), 0,
                    iterations=MAX_ITERATIONS).budget.iterations == MAX_ITERATIONS


@pytest.mark.parametrize("kind", sorted(BOT_KINDS))
def test_every_kind_takes_root_moves_or_says_it_cannot(kind):
    """``analyze(state, root_moves=...)`` is one call for every kind: the kind restricts its
    root to those moves or refuses with a ValueError naming the kinds that can (random
    raised a TypeError); an illegal move is refused by every kind."""
    from ratai.engines import load_game

    game = load_game("rat_trap", num_players=2)
    s = game.state_from_history([46])
    p, legal = s.current_player(), s.legal_actions()
    kw = {} if kind == "random" else {"iterations": 20}
    if kind == "mcts":
        kw["determinize"] = True
    bot = make_bot(kind, game, p, seed=1, **kw)
    try:
        an = bot.analyze(s, root_moves=legal[-1:])
    except ValueError as exc:
        assert "root_moves is not supported" in str(exc)
    else:
        assert an.best_action == legal[-1]
        assert {m.action for m in an.moves} == {legal[-1]}
    with pytest.raises(ValueError, match="not legal"):
        bot.analyze(s, root_moves=[99999])
