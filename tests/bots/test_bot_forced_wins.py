"""Forced wins found in random games of every registered game.

At a decision node where some move ends the game at once with a win for the mover,
expectimax values it exactly and the UCT-family bot picks a move it found winning.
Hand-made rulebook positions (forced wins, forced losses, long plans) are in
``test_bot_positions.py``."""

from __future__ import annotations

import random
import threading

import pytest

from ratai.bots import make_bot
from ratai.engines import load_game, registered_games


def immediate_wins(game, seeds=range(3), limit=3):
    """(state, winning moves) pairs where a move ends the game with the mover winning alone."""
    found = []
    for seed in seeds:
        rnd = random.Random(seed)
        s = game.new_initial_state()
        while not s.is_terminal() and len(found) < limit:
            p = s.current_player()
            if s.is_chance_node():
                outs = s.chance_outcomes()
                s.apply_action(rnd.choices([a for a, _ in outs], [q for _, q in outs])[0])
                continue
            if p >= 0:
                legal = s.legal_actions()
                wins = []
                for a in legal:
                    c = s.clone()
                    c.apply_action(a)
                    if c.is_terminal() and c.returns()[p] == 1.0:
                        wins.append(a)
                if wins and len(wins) < len(legal):
                    found.append((s.clone(), wins))
            s.apply_action(rnd.choice(s.legal_actions(p) if p >= 0 else s.legal_actions()))
    return found


@pytest.mark.parametrize("name", registered_games())
def test_search_takes_an_immediate_win(name):
    game = load_game(name)
    cases = immediate_wins(game)
    if not cases:
        pytest.skip(f"no immediate-win position met in random {name} games")
    kinds = [("expectimax", {"max_depth": 1, "max_chance_outcomes": 4})]
    kinds.append(("mcts", {"iterations": 300}) if game.perfect_information
                 else ("ismcts", {"iterations": 300}))
    for s, wins in cases:
        p = s.current_player()
        for kind, kw in kinds:
            an = make_bot(kind, game, p, seed=0, **kw).analyze(s)
            if kind == "expectimax":
                # Exact at depth 1: an immediate win is worth 1 and nothing beats it.
                assert an.moves[0].value == 1.0
                assert {m.action for m in an.moves if m.value == 1.0} >= set(wins)
            else:
                # Other moves may win later too (the game can be decided already): the
                # search must at least pick a move it found winning.
                assert an.moves[0].value >= 0.95, (kind, wins, an.moves[:3])


KINDS = [("heuristic", {}), ("mcts", {"iterations": 300}), ("ismcts", {"iterations": 300}),
         ("pimc", {"iterations": 300}), ("expectimax", {"time_limit": 0.1}),
         ("smmcts", {"iterations": 300}), ("az", {"iterations": 100})]


@pytest.mark.parametrize("name", ["first_rat", "rats_to_riches"])
def test_every_kind_plays_a_move_that_wins_at_once(name):
    """Decisive moves (Teytaud & Teytaud 2010): a newcomer saw mcts, ismcts, pimc, smmcts and
    expectimax play "rat 3 space 23 -> space 26" where "-> Launchpad" ended the game with a
    win (every move of the won position was valued 1, so the search had no reason to prefer
    it). A move that wins at once is now played by every kind, first in ``moves`` and the
    head of the PV; the search still reports the others."""
    game = load_game(name, num_players=3)
    cases = immediate_wins(game, seeds=range(8), limit=4)
    assert cases, f"no immediate-win position met in random {name} games"
    for s, wins in cases:
        p = s.current_player()
        for kind, kw in KINDS:
            an = make_bot(kind, game, p, seed=0, **kw).analyze(s)
            assert an.best_action in wins, (kind, wins, an.moves[:3])
            assert an.moves[0].action == an.best_action == an.pv[0].action
            assert len(an.moves) == len(set(m.action for m in an.moves))


@pytest.mark.parametrize("kind,kw", [("heuristic", {"max_evals": 2}),
                                     ("heuristic", {"iterations": 1}),
                                     ("expectimax", {"iterations": 1})])
def test_a_decisive_move_is_reported_won_by_a_capped_search(kind, kw):
    """A heuristic or expectimax capped before it evaluated the winning move listed it first
    with value 0.0 and no per-seat values: a move that wins at once is reported as won."""
    game = load_game("first_rat", num_players=2)
    cases = immediate_wins(game, seeds=range(8), limit=4)
    assert cases
    for s, wins in cases:
        p = s.current_player()
        an = make_bot(kind, game, p, seed=0, **kw).analyze(s)
        top = an.moves[0]
        assert top.action == an.best_action in wins
        assert top.value == 1.0 and top.values[p] == 1.0 and sum(top.values) == 1.0


def test_the_decisive_check_keeps_to_a_small_time_budget(monkeypatch):
    """The check took 23-30 ms on the reference Ratapolis (30-107 legal moves, 4
    determinizations) whatever the time limit: it gives up once it has used a tenth of the
    limit (here a limit already spent: no move is tried) or the budget is stopped."""
    import time

    import ratai.search.common as common
    from ratai.search.common import Budget, decisive_move

    game = load_game("first_rat", num_players=3)
    s, wins = immediate_wins(game, seeds=range(8), limit=1)[0]
    p = s.current_player()
    assert decisive_move(s, p, s.legal_actions(), 7) in wins     # no budget: found
    tried = []
    real = common._wins_at_once
    monkeypatch.setattr(common, "_wins_at_once", lambda *a: tried.append(1) or real(*a))
    spent = Budget(time_limit=0.001)
    spent.begin()
    time.sleep(0.002)
    assert decisive_move(s, p, s.legal_actions(), 7, spent) is None and not tried
    stopped = Budget(time_limit=60.0, stop=threading.Event())
    stopped.begin()
    stopped.stop.set()
    assert decisive_move(s, p, s.legal_actions(), 7, stopped) is None and not tried
