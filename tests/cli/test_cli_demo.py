"""``ratai demo``: every game hosted over gRPC, played to the end, event logs replayed."""

from __future__ import annotations

import io

from ratai.cli import main
from ratai.demo import LINEUP
from ratai.engines import registered_games


def test_demo_plays_every_game_and_replays_its_log():
    out = io.StringIO()
    code = main(["demo", "--seed", "3", "--workers", "1", "--scale", "0.05"], out)
    text = out.getvalue()
    assert code == 0, text
    assert "every event log replays to the served scores" in text
    assert "Hint for seat 0" in text and "win chance" in text
    for game in registered_games():  # captured (not a terminal): names are never cut
        assert f" {game} " in text
    assert "…" not in text


def test_demo_says_why_a_search_seat_lost():
    from ratai.demo import Hosted, _verdicts

    won = Hosted("first_rat", {"num_players": 3},
                 [{"kind": "heuristic"}, {"kind": "mcts", "iterations": 1000}, "random"],
                 done=True, scores=[41, 50, 27], returns=[0, 1, 0])
    lost = Hosted("ratapolis", {"num_players": 3},
                  [{"kind": "ismcts", "iterations": 300}, {"kind": "heuristic"}, "random"],
                  done=True, scores=[30, 33, 27], returns=[0, 1, 0])
    assert _verdicts([won]) == []
    lines = _verdicts([won, lost])
    assert lines[0] == ("ratapolis: the search seat 0 (ismcts:300) finished #2 with 30 points; "
                        "winner seat 1.")
    assert "ratai arena" in lines[-1] and "95% intervals" in lines[-1]


def test_demo_lineup_covers_every_registered_game():
    assert sorted(name for name, _, _ in LINEUP) == registered_games()
