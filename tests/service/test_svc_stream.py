"""Streaming (issue 5, Tests: streaming): Analyze sends partial analyses and a final one;
cancelling returns promptly and frees the worker; WatchGame follows a live game."""

from __future__ import annotations

import threading
import time

import pytest
from svc_helpers import hosted_human_turn, random_position

from ratai.engines import load_game, registered_games


@pytest.mark.parametrize("name", registered_games())
def test_analyze_partials_then_final(client, name):
    game = load_game(name)
    state = random_position(game, seat_wanted=0, seed=2)
    if state.current_player() != 0:
        pytest.skip("no position with seat 0 to move")
    pos = client.position(name, 0, history=state.history())
    msgs = list(client.analyze(position=pos, bot={"kind": "ismcts", "time_limit": 0.45,
                                                  "seed": 1},
                               report_every_iterations=10, timeout=30))
    assert len(msgs) >= 3  # at most one partial per 100 ms (the server's minimum interval)
    assert all(not m.final for m in msgs[:-1]) and msgs[-1].final
    its = [m.iterations for m in msgs]
    assert its == sorted(its)
    assert msgs[-1].best_action in state.legal_actions()
    msgs = list(client.analyze(position=pos, bot={"kind": "ismcts", "iterations": 40, "seed": 1},
                               report_every_iterations=10, timeout=30))
    assert msgs[-1].final and msgs[-1].stop_reason == "budget" and msgs[-1].iterations == 40
    hint = client.suggest_move(position=pos, bot={"kind": "ismcts", "iterations": 40, "seed": 1})
    assert hint.best_action == msgs[-1].best_action and hint.moves == msgs[-1].moves


def test_analyze_cancel_is_prompt_and_frees_the_worker(client, server):
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=2)
    pos = client.position("rat_trap", 0, history=state.history())
    stream = client.analyze(position=pos, bot={"kind": "ismcts", "time_limit": 9},
                            report_every_iterations=5)
    assert not next(stream).final
    t0 = time.monotonic()
    stream.cancel()
    while server.pool.busy():
        assert time.monotonic() - t0 < 2.0, "worker still busy after cancel"
        time.sleep(0.01)
    assert time.monotonic() - t0 < 2.0


def test_analyze_hosted_seat(client):
    gid, tok = hosted_human_turn(client)
    view = client.get_state(gid, tok)
    msgs = list(client.analyze(game_id=gid, seat_token=tok,
                               bot={"kind": "ismcts", "iterations": 20}, timeout=30))
    assert msgs[-1].final and msgs[-1].best_action in [a.action for a in view.legal_actions]


def test_watch_follows_a_live_game(client):
    created = client.create_game("rat_trap", ["human", "random", "random"], seed=9)
    tok = created.seat_tokens[0].token
    events = []
    stream = client.watch_game(created.game_id, tok)

    def collect():
        for e in stream:
            events.append(e)

    t = threading.Thread(target=collect)
    t.start()
    from svc_helpers import play_to_end
    play_to_end(client, created.game_id, {0: tok}, seed=3)
    t.join(10)
    assert not t.is_alive()
    assert events[-1].kind == events[-1].GAME_OVER
    turns = [e for e in events if e.kind == e.TURN and e.your_turn]
    assert turns and all(e.player == 0 for e in turns)
    own = [e for e in events if e.kind == e.MOVE and e.player == 0]
    assert own and all(e.action >= 0 for e in own)


def test_watch_streams_end_unavailable_when_the_server_stops():
    """A tester: on SIGTERM open WatchGame streams ended with OK and no GAME_OVER, so a
    client could not tell a stopping server from a finished game. They end UNAVAILABLE
    (watch again after the restart; the game is kept)."""
    import grpc
    from conftest import running_server

    from ratai.client import Client

    with running_server(workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        g = c.create_game("rat_trap", ["human"] * 3)
        stream = c.watch_game(g.game_id)
        next(stream)
        threading.Timer(0.2, lambda: srv.stop(5)).start()
        with pytest.raises(grpc.RpcError) as info:
            for _ in stream:   # the turn's events, then the end
                pass
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "shutting down" in info.value.details()
