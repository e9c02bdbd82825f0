"""Fuzzing (issue 5, Tests): random and malformed ApplyAction and stateless SuggestMove input.

The server answers every call with a precise status (never UNKNOWN/INTERNAL), stays up, and a
failed call leaves the hosted game exactly as it was.
"""

from __future__ import annotations

import json

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from svc_helpers import random_position

from ratai.client import Client
from ratai.engines import load_game, registered_games
from ratai.service import ratai_pb2 as pb

EXPECTED = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION,
            grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.ABORTED,
            grpc.StatusCode.NOT_FOUND, grpc.StatusCode.RESOURCE_EXHAUSTED}
FUZZ = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@pytest.fixture(scope="module")
def fuzz_client(server):
    with Client(f"127.0.0.1:{server.port}", timeout=30) as c:
        yield c


@pytest.fixture(scope="module")
def hosted(fuzz_client):
    created = fuzz_client.create_game("rat_trap", ["human"] * 3, seed=13)
    return created.game_id, {t.seat: t.token for t in created.seat_tokens}


def _ok_or_expected(call):
    try:
        return call()
    except grpc.RpcError as exc:
        assert exc.code() in EXPECTED, (exc.code(), exc.details())
        return None


@FUZZ
@given(seat=st.integers(-1, 4),
       action=st.one_of(st.integers(0, 120), st.integers(-2**31, 2**31 - 1), st.text(max_size=30)),
       expected=st.one_of(st.none(), st.integers(-5, 2**40)),
       token_mode=st.sampled_from(["right", "wrong", "empty"]))
def test_fuzz_apply_action(fuzz_client, server, hosted, seat, action, expected, token_mode):
    gid, tokens = hosted
    token = {"right": tokens.get(seat, "x"), "wrong": "forged-token", "empty": ""}[token_mode]
    before = server.manager.get(gid).state.serialize()
    events = len(server.manager.get(gid).events)
    res = _ok_or_expected(lambda: fuzz_client.apply_action(gid, token, action, expected))
    after = server.manager.get(gid).state
    if res is None or res.duplicate:
        assert after.serialize() == before and len(server.manager.get(gid).events) == events
    else:
        assert after.move_number() > res.applied_at


def _mutations(obs: dict):
    keys = sorted(obs)
    return st.one_of(
        st.sampled_from(keys).map(lambda k: {x: v for x, v in obs.items() if x != k}),
        st.tuples(st.sampled_from(keys), st.one_of(
            st.none(), st.integers(-3, 10**6), st.text(max_size=5),
            st.lists(st.integers(-2, 50), max_size=6), st.dictionaries(st.text(max_size=3),
                                                                       st.integers(), max_size=2)))
        .map(lambda kv: {**obs, kv[0]: kv[1]}))


@pytest.mark.parametrize("name", registered_games())
def test_fuzz_stateless_suggest(fuzz_client, server, name):
    game = load_game(name)
    state = random_position(game, seat_wanted=0, plies=10, seed=1)
    obs = state.observation(0)
    ser = state.serialize()

    @FUZZ
    @given(data=st.data())
    def run(data):
        form = data.draw(st.sampled_from(["valid", "history", "bytes", "obs", "ser_edit",
                                          "params"]))
        seat = data.draw(st.integers(-1, 6)) if data.draw(st.booleans()) else 0
        params = None
        if form == "valid":
            pos = data.draw(st.sampled_from([
                fuzz_client.position(name, 0, history=state.history()),
                fuzz_client.position(name, 0, serialized_state=ser),
                fuzz_client.position(name, 0, observation=obs)]))
        elif form == "history":
            h = state.history()
            cut = data.draw(st.integers(0, len(h)))
            tail = data.draw(st.lists(st.integers(-5, game.num_distinct_actions() + 5),
                                      max_size=4))
            pos = fuzz_client.position(name, seat, history=h[:cut] + tail)
        elif form == "bytes":
            pos = fuzz_client.position(name, seat, serialized_state=data.draw(
                st.binary(max_size=200)))
        elif form == "obs":
            pos = fuzz_client.position(name, seat, observation=json.dumps(
                data.draw(_mutations(obs))))
        elif form == "ser_edit":
            doc = json.loads(ser)
            doc["fields"] = data.draw(_mutations(doc["fields"]))
            pos = fuzz_client.position(name, seat, serialized_state=json.dumps(doc).encode())
        else:
            params = data.draw(st.dictionaries(
                st.sampled_from(["num_players", "bogus", "layout", "data_path"]),
                st.one_of(st.integers(-2, 9), st.text(max_size=4), st.booleans()), max_size=2))
            pos = fuzz_client.position(name, seat, params=params, history=[])
        bot = data.draw(st.sampled_from([{"kind": "random"}, {"kind": "ismcts", "iterations": 2},
                                         {"kind": "random"}, {"kind": "nope"}]))
        res = _ok_or_expected(lambda: fuzz_client.suggest_move(position=pos, bot=bot))
        if res is not None:
            assert res.final and res.moves
            outcomes["ok"] += 1
        else:
            outcomes["refused"] += 1

    outcomes = {"ok": 0, "refused": 0}
    run()
    assert outcomes["ok"] and outcomes["refused"], outcomes  # both paths were exercised
    assert fuzz_client.list_games()  # still up


# ----------------------------------------------------------------------------- every RPC
_FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([1e300, -1e300, 2.0**60, 1e-300, 0.5, 3.0]))
_JSON = st.recursive(st.one_of(st.none(), st.booleans(), _FLOATS, st.text(max_size=20),
                               st.text(min_size=5000, max_size=12_000)),
                     lambda kids: st.one_of(st.lists(kids, max_size=3),
                                            st.dictionaries(st.text(max_size=8), kids,
                                                            max_size=3)), max_leaves=8)
_OPTIONS = st.dictionaries(st.sampled_from(["exploration", "determinizations", "rollout",
                                            "max_evals", "chance_samples", "mode", "bogus",
                                            "on_progress", "rollout_cutoff"]), _JSON, max_size=3)
_TEXT = st.one_of(st.text(max_size=30), st.text(min_size=150, max_size=400),
                  st.just("é" * 3000), st.just("7" * 4300))


def _bot(draw) -> pb.BotSpec:
    from ratai.client import _struct

    b = pb.BotSpec(kind=draw(st.sampled_from(["random", "heuristic", "ismcts", "pimc",
                                              "expectimax", "mcts", "smmcts", "", "x" * 300])))
    b.iterations = draw(st.sampled_from([0, 1, 5, 50, 10**6, 2**31 - 1]))
    b.time_limit_s = draw(st.one_of(st.sampled_from([0.0, 0.01, 0.05]), _FLOATS))
    b.max_depth = draw(st.sampled_from([0, 1, 2, 64, 65, 2**31 - 1]))
    if draw(st.booleans()):
        b.options.CopyFrom(_struct(draw(_OPTIONS)))
    return b


def _snapshot(srv, gid):
    s = srv.manager.get(gid)
    return s.state.serialize(), len(s.events), len(srv.manager)


@pytest.fixture(scope="module")
def rpc_server():
    from conftest import running_server

    with running_server(workers=0, max_iterations=200, default_iterations=50,
                        max_seconds=0.3) as srv, \
            Client(f"127.0.0.1:{srv.port}", timeout=20) as c:
        created = c.create_game("rat_trap", ["human"] * 3, seed=21)
        yield srv, c, created.game_id, {t.seat: t.token for t in created.seat_tokens}


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_every_rpc_never_internal_never_changes_on_refusal(rpc_server, data):
    """Issue 15: a well-formed message with NaN/Infinity, huge numbers, long strings or deep
    values is never INTERNAL (or UNKNOWN), and a refused call changes nothing."""
    from ratai.client import _struct

    srv, c, gid, tokens = rpc_server
    rpc = data.draw(st.sampled_from(["ListGames", "CreateGame", "GetState", "ApplyAction",
                                     "WatchGame", "SuggestMove", "Analyze"]))
    game_id = data.draw(st.one_of(st.just(gid), _TEXT))
    token = data.draw(st.one_of(st.sampled_from(list(tokens.values()) + [""]), _TEXT))
    game = data.draw(st.one_of(st.sampled_from(registered_games()), _TEXT))
    params = _struct(data.draw(st.dictionaries(st.sampled_from(["num_players", "layout", "x"]),
                                               _JSON, max_size=2)))
    history = data.draw(st.lists(st.integers(-2**31, 2**31 - 1), max_size=4))
    before = _snapshot(srv, gid)
    stub = c.stub
    if rpc == "ListGames":
        call = lambda: stub.ListGames(pb.ListGamesRequest(), timeout=20)  # noqa: E731
    elif rpc == "CreateGame":
        seats = [pb.SeatSpec(human=pb.HumanSeat(display_name=data.draw(_TEXT)))
                 if data.draw(st.booleans()) else pb.SeatSpec(bot=_bot(data.draw))
                 for _ in range(data.draw(st.integers(0, 4)))]
        req = pb.CreateGameRequest(game=game, params=params, seats=seats)
        if data.draw(st.booleans()):
            req.seed = data.draw(st.integers(0, 2**64 - 1))
        call = lambda: stub.CreateGame(req, timeout=20)  # noqa: E731
    elif rpc == "GetState":
        call = lambda: stub.GetState(pb.GetStateRequest(game_id=game_id,  # noqa: E731
                                                        seat_token=token), timeout=20)
    elif rpc == "ApplyAction":
        req = pb.ApplyActionRequest(game_id=game_id, seat_token=token)
        if data.draw(st.booleans()):
            req.action = data.draw(st.integers(-2**31, 2**31 - 1))
        else:
            req.action_label = data.draw(_TEXT)
        if data.draw(st.booleans()):
            req.expected_move_number = data.draw(st.integers(-2**63, 2**63 - 1))
        call = lambda: stub.ApplyAction(req, timeout=20)  # noqa: E731
    elif rpc == "WatchGame":
        req = pb.WatchGameRequest(game_id=game_id, seat_token=token,
                                  since_move_number=data.draw(st.integers(-2**63, 2**63 - 1)))
        call = lambda: next(iter(stub.WatchGame(req, timeout=20)))  # noqa: E731
    else:
        hosted = data.draw(st.booleans())
        kw = {"bot": _bot(data.draw)}
        if hosted:
            kw["hosted"] = pb.HostedSeat(game_id=game_id, seat_token=token)
        else:
            p = pb.Position(game=game, seat=data.draw(st.integers(-2**31, 2**31 - 1)),
                            params=params)
            form = data.draw(st.sampled_from(["history", "obs", "ser"]))
            if form == "history":
                p.history.actions.extend(history)
            elif form == "obs":
                p.observation_json = json.dumps(data.draw(_JSON))
            else:
                p.serialized_state = data.draw(st.binary(max_size=64))
            kw["position"] = p
        if rpc == "SuggestMove":
            req = pb.SuggestMoveRequest(**kw)
            call = lambda: stub.SuggestMove(req, timeout=20)  # noqa: E731
        else:
            req = pb.AnalyzeRequest(**kw, report_every_iterations=data.draw(
                st.integers(-2**31, 2**31 - 1)), report_interval_ms=data.draw(
                st.integers(-2**31, 2**31 - 1)))
            call = lambda: list(stub.Analyze(req, timeout=20))  # noqa: E731
    try:
        call()
        refused = False
    except grpc.RpcError as exc:
        assert exc.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), \
            (rpc, exc.code(), exc.details())
        assert len(exc.details()) <= 2100
        refused = True
    if refused or rpc not in ("ApplyAction", "CreateGame"):
        assert _snapshot(srv, gid) == before, rpc
