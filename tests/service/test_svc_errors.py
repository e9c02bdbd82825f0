"""Every status code of issue 5 (Behaviour: Errors); a failed call changes nothing."""

from __future__ import annotations

import time

import grpc
import pytest
from conftest import running_server
from svc_helpers import play_to_end, random_position

from ratai.client import Client
from ratai.engines import load_game


def code_of(call, *args, **kw) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kw)
    return info.value.code(), info.value.details()


@pytest.fixture()
def game(client):
    created = client.create_game("rat_trap", ["human", "human", "human"], seed=4)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    view = client.get_state(created.game_id, tokens[0])
    return created.game_id, tokens, view.current_player


def test_not_found_unknown_game_and_id(client):
    code, msg = code_of(client.create_game, "chess", ["human", "human"])
    assert code == grpc.StatusCode.NOT_FOUND and "rat_trap" in msg
    assert code_of(client.get_state, "nope")[0] == grpc.StatusCode.NOT_FOUND
    assert code_of(client.apply_action, "nope", "t", 0)[0] == grpc.StatusCode.NOT_FOUND
    pos = client.position("chess", 0, history=[])
    assert code_of(client.suggest_move, position=pos)[0] == grpc.StatusCode.NOT_FOUND


def test_an_empty_game_id_is_invalid_argument(client):
    """A tester's ``GetState`` / ``WatchGame`` / ``ApplyAction`` naming no game got
    ``NOT_FOUND: no hosted game ''``: a request that names no game is malformed."""
    for call in (lambda: client.get_state(""), lambda: next(client.watch_game("")),
                 lambda: client.apply_action("", "t", 0)):
        code, msg = code_of(call)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "game_id" in msg, (code, msg)


def test_invalid_argument_params_and_seats(client):
    code, msg = code_of(client.create_game, "rat_trap", ["human"] * 9, params={"num_players": 9})
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "num_players" in msg
    code, msg = code_of(client.create_game, "rat_trap", ["human"] * 3,
                        params={"data_path": "/etc/passwd"})
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "server-only" in msg
    code, msg = code_of(client.create_game, "rat_trap", ["human"] * 2)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "seats" in msg
    code, msg = code_of(client.create_game, "rat_trap", ["human", "human", "alphazero"])
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "ismcts" in msg
    code, msg = code_of(client.create_game, "rat_trap",
                        ["human", "human", {"kind": "ismcts", "options": {"bogus": 1}}])
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "bogus" in msg
    # a bot that builds but could never search (it was accepted, then played random moves)
    code, msg = code_of(client.create_game, "rat_trap", ["human", "human", {
        "kind": "ismcts", "iterations": 50,
        "options": {"search_backend": "cython", "rollout": "heuristic"}}])
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "seat 2" in msg, msg
    assert "rollout='heuristic'" in msg


def test_invalid_argument_illegal_action_lists_legal_set(client, game):
    gid, tokens, cp = game
    before = client.get_state(gid, tokens[cp])
    legal = [a.action for a in before.legal_actions]
    bad = max(legal) + 1000
    code, msg = code_of(client.apply_action, gid, tokens[cp], bad)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert str(legal[0]) in msg and "legal actions" in msg
    code, _ = code_of(client.apply_action, gid, tokens[cp], "no such label")
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert client.get_state(gid, tokens[cp]) == before


def test_invalid_argument_malformed_positions(client):
    cases = [client.position("rat_trap", 0, serialized_state=b"garbage"),
             client.position("rat_trap", 0, observation='{"player": 0}'),
             client.position("rat_trap", 0, observation="[1, 2"),
             client.position("rat_trap", 7, history=[]),
             client.position("rat_trap", 0, history=[10**6]),
             client.position("rat_trap", 0)]
    for pos in cases:
        assert code_of(client.suggest_move, position=pos)[0] == grpc.StatusCode.INVALID_ARGUMENT


def test_undecodable_request_bytes_are_invalid_argument_and_logged(server, caplog):
    """Bytes that do not parse as the method's request message (a hostile or broken
    client) are INVALID_ARGUMENT naming the message, unary and streaming, and get a request
    log line; grpc's own deserializer answered UNKNOWN before the service saw them."""
    import logging

    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        with caplog.at_level(logging.INFO):
            for method, payload in (("CreateGame", b"\xff\xff\xff\xff\x0f"),
                                    ("GetState", b"\x0a\x02\xff\xfe")):
                with pytest.raises(grpc.RpcError) as info:
                    channel.unary_unary(f"/ratai.v1.RatAI/{method}")(payload, timeout=10)
                assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, method
                assert "not a valid" in info.value.details() and "Request" in \
                    info.value.details()
            stream = channel.unary_stream("/ratai.v1.RatAI/Analyze")(b"\xff\xff", timeout=10)
            with pytest.raises(grpc.RpcError) as info:
                list(stream)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        lines = [r.getMessage() for r in caplog.records if '"INVALID_ARGUMENT"' in
                 r.getMessage()]
        for method in ("CreateGame", "GetState", "Analyze"):
            assert any(f'"method": "{method}"' in m for m in lines), (method, lines)
    finally:
        channel.close()
    with Client(f"127.0.0.1:{server.port}", timeout=30) as c:   # and it still serves
        assert c.list_games()


def test_failed_precondition_not_your_turn_and_game_over(client, server, game):
    gid, tokens, cp = game
    other = (cp + 1) % 3
    before = client.get_state(gid, tokens[other])
    code, msg = code_of(client.apply_action, gid, tokens[other], 0)
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "turn" in msg
    assert client.get_state(gid, tokens[other]) == before
    code, _ = code_of(client.suggest_move, game_id=gid, seat_token=tokens[other])
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    # a finished game: no more moves, no hints
    created = client.create_game("rat_trap", ["human", "random", "random"], seed=2)
    tok = created.seat_tokens[0].token
    final = play_to_end(client, created.game_id, {0: tok}, seed=1)
    code, msg = code_of(client.apply_action, created.game_id, tok, 0)
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "over" in msg
    assert client.get_state(created.game_id, tok) == final
    history = server.store.actions(created.game_id)
    pos = client.position("rat_trap", 0, history=history)
    assert code_of(client.suggest_move, position=pos)[0] == grpc.StatusCode.FAILED_PRECONDITION
    # a position at a chance node says so (a newcomer read "current player: -1")
    code, msg = code_of(client.suggest_move, position=client.position("rat_trap", 0, history=[]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "chance node" in msg


def test_permission_denied_wrong_token(client, game):
    gid, tokens, cp = game
    before = client.get_state(gid, tokens[cp])
    code, _ = code_of(client.apply_action, gid, "not-a-token", before.legal_actions[0].action)
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert code_of(client.apply_action, gid, "", 0)[0] == grpc.StatusCode.PERMISSION_DENIED
    assert code_of(client.get_state, gid, "forged")[0] == grpc.StatusCode.PERMISSION_DENIED
    assert client.get_state(gid, tokens[cp]) == before


def test_aborted_stale_move_number(client, game):
    gid, tokens, cp = game
    view = client.get_state(gid, tokens[cp])
    code, msg = code_of(client.apply_action, gid, tokens[cp], view.legal_actions[0].action,
                        expected_move_number=view.move_number - 1)
    assert code == grpc.StatusCode.ABORTED and str(view.move_number) in msg
    assert client.get_state(gid, tokens[cp]) == view


def test_resource_exhausted_budget_over_limit(client):
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=1)
    pos = client.position("rat_trap", 0, history=state.history())
    code, msg = code_of(client.suggest_move, position=pos,
                        bot={"kind": "ismcts", "iterations": 10**9})
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "limit" in msg
    code, _ = code_of(client.suggest_move, position=pos,
                      bot={"kind": "ismcts", "time_limit": 10**6})
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_resource_exhausted_queue_full_and_game_limit():
    """workers=0 (threads, one per core), queue 0: a search past the threads is refused with
    a retry-after hint in the trailing metadata."""
    with running_server(workers=0, max_queue=0, max_games=1, max_seconds=20,
                        max_running_per_peer=256) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        state = random_position(load_game("rat_trap"), seat_wanted=0, seed=1)
        pos = c.position("rat_trap", 0, history=state.history())
        streams = [c.analyze(position=pos, bot={"kind": "ismcts", "time_limit": 15},
                             report_every_iterations=1) for _ in range(srv.pool.size)]
        for stream in streams:
            assert not next(stream).final
        with pytest.raises(grpc.RpcError) as info:
            c.suggest_move(position=pos, bot={"kind": "random"})
        err = info.value
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "queue" in err.details()
        meta = dict(err.trailing_metadata())
        assert int(meta["retry-after-ms"]) >= 50 and meta["grpc-retry-pushback-ms"]
        for stream in streams:
            stream.cancel()
        end = time.monotonic() + 5
        while srv.pool.busy():
            assert time.monotonic() < end, "cancel did not free the worker"
            time.sleep(0.01)
        assert c.suggest_move(position=pos, bot={"kind": "random"}).final
        c.create_game("rat_trap", ["human"] * 3)
        code, _ = code_of(c.create_game, "rat_trap", ["human"] * 3)
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_unauthenticated_without_api_key():
    with running_server(workers=0, api_key="s3cret") as srv:
        with Client(f"127.0.0.1:{srv.port}") as c:
            assert code_of(c.list_games)[0] == grpc.StatusCode.UNAUTHENTICATED
            code, _ = code_of(lambda: list(c.watch_game("x")))
            assert code == grpc.StatusCode.UNAUTHENTICATED
        with Client(f"127.0.0.1:{srv.port}", api_key="wrong") as c:
            assert code_of(c.list_games)[0] == grpc.StatusCode.UNAUTHENTICATED
        with Client(f"127.0.0.1:{srv.port}", api_key="s3cret") as c:
            assert c.list_games()


def test_deadline_returns_best_move_so_far(client):
    """A search budget longer than the client's deadline stops early with stop_reason deadline."""
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=3)
    pos = client.position("rat_trap", 0, history=state.history())
    t0 = time.monotonic()
    a = client.suggest_move(position=pos, bot={"kind": "ismcts", "time_limit": 8}, timeout=1.0)
    assert time.monotonic() - t0 < 1.0
    assert a.final and a.stop_reason == "deadline" and a.iterations > 0
    assert a.best_action in state.legal_actions()
