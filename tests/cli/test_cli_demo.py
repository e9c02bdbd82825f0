"""``ratai demo``: every game hosted over gRPC, played to the end, event logs replayed."""

from __future__ import annotations

import io
import time

import pytest

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


def test_demo_timeout_is_one_line_naming_it_and_the_games_exit_2(capsys, monkeypatch):
    """A --timeout too small for the demo is the user's: exit 2 with one line naming the
    timeout and the unfinished games (it said "a game did not finish or did not replay",
    exit 1), and it is honoured promptly: the server's start counts, every call to the
    service is bounded by the time left (it overran a 2 s timeout by 7 s)."""
    from ratai.service.server import RatAIServer

    start, started = RatAIServer.start, []

    def timed_start(self, *args, **kwargs):
        t0 = time.perf_counter()
        port = start(self, *args, **kwargs)
        started.append(time.perf_counter() - t0)
        return port

    monkeypatch.setattr(RatAIServer, "start", timed_start)
    t0 = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        main(["demo", "--timeout", "1.5", "--workers", "1"], io.StringIO())
    elapsed = time.perf_counter() - t0
    assert info.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("ratai: demo timed out: --timeout 1.5 s"), err
    assert "rat_trap (" in err[0] and "unfinished" in err[0]
    assert elapsed < max(1.5, started[0]) + 2.0, (elapsed, started)


def test_demo_workers_are_bounded_one_line_exit_2(capsys):
    """A tester's ``ratai demo --workers 100000`` started 313 search processes (load 240 on
    two cores) before it was stopped: the demo's server takes at most ``MAX_WORKERS``, as
    ``python server.py --workers`` does, and a larger count is one line, exit 2, before any
    process starts."""
    from ratai.service.config import MAX_WORKERS

    with pytest.raises(SystemExit) as info:
        main(["demo", "--workers", str(MAX_WORKERS + 1)], io.StringIO())
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--workers" in err[0] and str(MAX_WORKERS) in err[0], err


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
