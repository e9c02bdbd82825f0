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
