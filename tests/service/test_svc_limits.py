"""Service v2 limits (issue 15): no thread per stream, watch caps, a fair bounded queue,
cancel that frees a worker at once for every kind, input hygiene, safe defaults, the lock."""

from __future__ import annotations

import json
import logging
import pathlib
import sqlite3
import subprocess
import sys
import threading
import time

import grpc
import pytest
from conftest import running_server
from grpc_health.v1 import health_pb2, health_pb2_grpc
from svc_helpers import hosted_human_turn, random_position

from ratai.client import Client
from ratai.engines import load_game
from ratai.service import ratai_pb2 as pb
from ratai.service.config import (
    MAX_WORKERS,
    ConfigError,
    Limits,
    ServerConfig,
    check_config,
    parse_args,
)
from ratai.service.store import Store, StoreLocked

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _err(call, *a, **kw) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(*a, **kw)
    return info.value


def _health_ms(port: int, n: int = 30) -> list[float]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
            out.append((time.perf_counter() - t0) * 1000)
    return sorted(out)


def test_idle_watchers_hold_no_thread_and_are_capped_per_peer(client, server):
    """Finding 1: 120 idle spectator streams (more than the old 32 threads); health and
    ListGames still answer at once; past the per-peer cap RESOURCE_EXHAUSTED."""
    created = client.create_game("rat_trap", ["human"] * 3, seed=4)
    streams = [client.watch_game(created.game_id) for _ in range(120)]
    try:
        for s in streams[:5]:
            assert next(s).kind in (pb.GameEvent.MOVE, pb.GameEvent.TURN)
        deadline = time.monotonic() + 10
        while server.servicer.open_watches() < 120:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        ms = _health_ms(server.port)
        assert ms[len(ms) // 2] < 50, ms
        t0 = time.perf_counter()
        client.list_games(timeout=5)
        assert time.perf_counter() - t0 < 1.0
    finally:
        for s in streams:
            s.cancel()
    with running_server(workers=0, max_watch_per_peer=3) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        gid = c.create_game("rat_trap", ["human"] * 3).game_id
        open_ = [c.watch_game(gid) for _ in range(3)]
        for s in open_:
            next(s)
        err = _err(lambda: next(c.watch_game(gid)))
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "per peer" in err.details()
        open_[0].cancel()
        end = time.monotonic() + 5
        while srv.servicer.open_watches() > 2:
            assert time.monotonic() < end
            time.sleep(0.01)
        assert next(c.watch_game(gid)).kind in (pb.GameEvent.MOVE, pb.GameEvent.TURN)


def test_fair_share_per_client():
    """A client (here: a peer address) holds at most max_queue_per_client queue places;
    another client (a hosted seat's token) still gets one. (The test fills every thread from
    one address, so it may run as many searches as there are threads.)"""
    with running_server(workers=0, max_queue=4, max_queue_per_client=1, max_seconds=20,
                        max_running_per_peer=256) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        state = random_position(load_game("rat_trap"), seat_wanted=0, seed=1)
        pos = c.position("rat_trap", 0, history=state.history())
        long = {"kind": "ismcts", "time_limit": 15}
        running = [c.analyze(position=pos, bot=long, report_every_iterations=1)
                   for _ in range(srv.pool.size)]
        for s in running:
            next(s)
        queued = c.stub.SuggestMove.future(pb.SuggestMoveRequest(
            position=pos, bot=pb.BotSpec(kind="random")), timeout=30)
        end = time.monotonic() + 5
        while srv.pool.busy() < srv.pool.size + 1:
            assert time.monotonic() < end
            time.sleep(0.01)
        err = _err(c.suggest_move, position=pos, bot={"kind": "random"})
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "share" in err.details()
        assert int(dict(err.trailing_metadata())["retry-after-ms"]) >= 50
        gid, tok = hosted_human_turn(c)
        other = c.stub.SuggestMove.future(pb.SuggestMoveRequest(
            hosted=pb.HostedSeat(game_id=gid, seat_token=tok),
            bot=pb.BotSpec(kind="random")), timeout=30)
        for s in running:
            s.cancel()
        assert queued.result().final and other.result().final


@pytest.mark.parametrize("kind,options", [
    ("ismcts", {}), ("pimc", {"determinizations": 64}), ("expectimax", {}),
    ("heuristic", {"determinizations": 64, "chance_samples": 64, "max_evals": 10_000}),
    ("mcts", {"determinize": True}),
])
def test_cancel_frees_the_worker_within_50_ms(kind, options):
    """Findings 3 and 6: for every kind, a cancelled search's worker is free (stopped, or
    killed and replaced by the running spare) within 50 ms of the server seeing the cancel."""
    with running_server(workers=1, max_seconds=20) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        # a planning node with 198 legal cells: the heuristic's 10,000 evaluations take >0.3 s
        state = random_position(load_game("ratapolis"), seat_wanted=0, seed=10, plies=5)
        pos = c.position("ratapolis", 0, history=state.history())
        fut = c.stub.SuggestMove.future(pb.SuggestMoveRequest(
            position=pos, bot=pb.BotSpec(kind=kind, time_limit_s=15,
                                         options=_struct(options))), timeout=30)
        end = time.monotonic() + 10
        while not srv.pool._running:
            assert time.monotonic() < end and not fut.done(), fut.exception() if fut.done() \
                else "search did not start"
            time.sleep(0.005)
        time.sleep(0.2)
        fut.cancel()
        while srv.pool._running:
            assert time.monotonic() < end + 5, "worker still busy after cancel"
            time.sleep(0.002)
        assert srv.pool.last_cancel_free_s is not None and srv.pool.last_cancel_free_s <= 0.05
        t0 = time.monotonic()  # the next search runs at once (a spare took the killed one's place)
        a = c.suggest_move(position=pos, bot={"kind": "random"}, timeout=10)
        assert a.final and time.monotonic() - t0 < 0.5


def _struct(d):
    from google.protobuf import struct_pb2

    s = struct_pb2.Struct()
    s.update(d)
    return s


def test_bad_numbers_and_sizes_are_invalid_argument_naming_the_field(client):
    """Finding 4 and 7: NaN/Infinity/huge values, a 4,300-digit label, deep nesting, a huge
    game id: precise codes, the field named, at most ~200 characters of the input quoted."""
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=3)
    hist = state.history()
    cases = [
        (dict(params={"num_players": float("nan")}), "params.num_players"),
        (dict(bot={"kind": "ismcts", "iterations": 10, "options": {"exploration": float("inf")}}),
         "bot.options.exploration"),
        (dict(bot={"kind": "heuristic", "options": {"determinizations": 1e300}}),
         "bot.options.determinizations"),
        (dict(bot={"kind": "pimc", "iterations": 10, "options": {"determinizations": 1e6}}),
         "bot.options.determinizations"),
        (dict(bot={"kind": "ismcts", "iterations": 10, "options": {"on_purpose": 1}}),
         "bot.options.on_purpose"),
        (dict(bot={"kind": "ismcts", "time_limit": float("nan")}), "time_limit_s"),
    ]
    for kw, field in cases:
        pos = client.position("rat_trap", 0, history=hist, params=kw.get("params"))
        err = _err(client.suggest_move, position=pos, bot=kw.get("bot", {"kind": "random"}))
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (kw, err.details())
        assert field in err.details(), (field, err.details())
    deep = "[" * 100_000 + "]" * 100_000
    for text, what in ((deep, "nested"), ('{"x": NaN}', "NaN"), ('{"x": 1e999}', "observation")):
        req = pb.SuggestMoveRequest(position=pb.Position(game="rat_trap", seat=0,
                                                         observation_json=text))
        err = _err(client.stub.SuggestMove, req, timeout=10)
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and what in err.details()
    created = client.create_game("rat_trap", ["human"] * 3, seed=2)
    tok = {t.seat: t.token for t in created.seat_tokens}
    view = client.get_state(created.game_id, tok[0])
    seat = view.current_player
    err = _err(client.apply_action, created.game_id, tok[seat], "7" * 4300)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "action_label" in err.details()
    assert client.get_state(created.game_id, tok[0]).move_number == view.move_number
    err = _err(client.get_state, "é" * 3000)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and len(err.details()) < 300
    err = _err(client.get_state, "é" * 90)
    assert err.code() == grpc.StatusCode.NOT_FOUND and len(err.details()) < 300
    err = _err(client.create_game, "x" * 90, ["human"])
    assert err.code() == grpc.StatusCode.NOT_FOUND and len(err.details()) < 600


def test_safe_defaults_and_port_range(tmp_path):
    """Finding 10: a non-loopback bind needs TLS or an API key (or --insecure); --port is
    0..65535; every refusal is one line with exit code 2."""
    with pytest.raises(ConfigError, match="loopback"):
        check_config(ServerConfig(host="0.0.0.0"))
    check_config(ServerConfig(host="0.0.0.0", api_key="k"))
    check_config(ServerConfig(host="0.0.0.0", insecure=True))
    check_config(ServerConfig(host="::1"))
    # a tester's ``ratai demo --workers 100000`` started 313 processes before it was stopped:
    # the worker count is checked where every front end builds its server
    for bad in (-1, MAX_WORKERS + 1, 100_000, True, 2.0):
        with pytest.raises(ConfigError, match="--workers"):
            check_config(ServerConfig(limits=Limits(workers=bad)))
    check_config(ServerConfig(limits=Limits(workers=MAX_WORKERS)))
    # a newcomer's bad certificate gave four lines of gRPC's log ending in "Failed to bind",
    # and a bad host two: each is one line naming the option, before gRPC is reached
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match=f"--tls-cert {bad} / --tls-key"):
        check_config(ServerConfig(tls_cert=str(bad), tls_key=str(bad)))
    with pytest.raises(ConfigError, match="--tls-cert"):
        check_config(ServerConfig(tls_cert=str(tmp_path / "none.pem"),
                                  tls_key=str(tmp_path / "none.pem")))
    with pytest.raises(ConfigError, match="--host '999.1.1.1'"):
        check_config(ServerConfig(host="999.1.1.1", insecure=True))
    assert parse_args(["--port", "0", "--db", ":memory:"]).port == 0
    for argv, word in ((["--port", "99999"], "--port"), (["--host", "0.0.0.0"], "loopback"),
                       (["--max-seconds", "nan"], "--max-seconds"),
                       (["--workers", "-2"], "--workers")):
        proc = subprocess.run([sys.executable, str(ROOT / "server.py"), *argv, "--db",
                               str(tmp_path / "x.sqlite3")], capture_output=True, text=True,
                              timeout=60)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and word in lines[0], proc.stderr


def test_one_server_per_event_log(tmp_path):
    """Finding 8: the second server on one database refuses to start, naming the file and
    the holder's pid (one line, exit code 2)."""
    db = str(tmp_path / "games.sqlite3")
    first = Store(db)
    try:
        with pytest.raises(StoreLocked, match=r"pid \d+"):
            Store(db)
        proc = subprocess.run([sys.executable, str(ROOT / "server.py"), "--port", "0", "--db",
                               db, "--workers", "0"], capture_output=True, text=True, timeout=60)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert db in lines[0] and "pid" in lines[0]
    finally:
        first.close()
    Store(db).close()  # free again once the first closed


@pytest.mark.parametrize("failure", ["read_only", "full"])
def test_unwritable_event_log_refuses_the_move(tmp_path, failure):
    """A read-only or full database: the move is refused (UNAVAILABLE, saying why), nothing is
    acknowledged and the game is unchanged."""
    with running_server(db=str(tmp_path / "g.sqlite3"), workers=0) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", ["human"] * 3, seed=8)
        gid = created.game_id
        tok = {t.seat: t.token for t in created.seat_tokens}
        view = c.get_state(gid, tok[0])
        seat = view.current_player
        mine = c.get_state(gid, tok[seat])
        db = srv.store._db
        if failure == "read_only":
            db.execute("PRAGMA query_only=ON")
        else:
            class Full:  # what SQLite raises on a full disk (SQLITE_FULL), on every write
                def __getattr__(self, name):
                    return getattr(db, name)

                def execute(self, sql, *args):
                    if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
                        raise sqlite3.OperationalError("database or disk is full")
                    return db.execute(sql, *args)

            srv.store._db = Full()
        before = srv.store.actions(gid)
        err = _err(c.apply_action, gid, tok[seat], mine.legal_actions[0].action,
                   expected_move_number=mine.move_number)
        assert err.code() == grpc.StatusCode.UNAVAILABLE and "not applied" in err.details()
        assert srv.store.actions(gid) == before
        assert c.get_state(gid, tok[seat]).move_number == mine.move_number
        if failure == "read_only":
            db.execute("PRAGMA query_only=OFF")
            r = c.apply_action(gid, tok[seat], mine.legal_actions[0].action,
                               expected_move_number=mine.move_number)
            assert r.applied_at == mine.move_number and not r.duplicate


def test_view_has_text_and_labels_and_moves_have_pv(client, server):
    """Issue 16 (service parts): GameView.text is the seat's rendering (from its observation
    only); legal actions carry labels; MoveStat carries values per seat and its own pv."""
    created = client.create_game("rat_trap", ["human"] * 3, seed=3)
    tok = {t.seat: t.token for t in created.seat_tokens}
    seat = client.get_state(created.game_id, tok[0]).current_player
    mine = client.get_state(created.game_id, tok[seat])
    state = load_game("rat_trap").state_from_history(server.store.actions(created.game_id))
    assert mine.text and mine.text == state.render(seat)
    assert mine.legal_actions and all(a.label for a in mine.legal_actions)
    assert client.get_state(created.game_id).text == ""  # spectators get no seat view
    a = client.suggest_move(game_id=created.game_id, seat_token=tok[seat],
                            bot={"kind": "ismcts", "iterations": 200, "seed": 1})
    assert all(len(m.values) in (0, 3) for m in a.moves)
    for m in a.moves:
        if m.pv:
            assert m.pv[0].action == m.action


def test_hint_time_overshoot_is_small(client):
    """Finding 11: a 0.2 s hint answers within a few ms of its budget (idle server; the
    issue's target 5 ms median is measured by bench/load.py, here a loose bound)."""
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=5)
    pos = client.position("rat_trap", 0, history=state.history())
    over = []
    for _ in range(5):
        t0 = time.perf_counter()
        client.suggest_move(position=pos, bot={"kind": "ismcts", "time_limit": 0.2}, timeout=10)
        over.append(time.perf_counter() - t0 - 0.2)
    over.sort()
    assert over[2] < 0.03, over


def test_analyze_slow_reader_gets_coalesced_partials(client, server):
    """Finding 9: a reader that does not read gets the newest partial, not a backlog."""
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=2)
    pos = client.position("rat_trap", 0, history=state.history())
    stream = client.analyze(position=pos, bot={"kind": "ismcts", "time_limit": 1.5},
                            report_every_iterations=1)
    first = next(stream)
    time.sleep(1.6)   # the search finishes while nobody reads
    rest = list(stream)
    assert rest[-1].final and len(rest) <= 1.6 / 0.02 + 10, len(rest)
    assert rest[-1].iterations > first.iterations


def test_server_log_names_worker_pids(tmp_path):
    """The serving line lists the worker pids (the fault tests check they die with it)."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--port", "0", "--db",
                             str(tmp_path / "g.sqlite3"), "--workers", "1"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = json.loads(proc.stderr.readline())
        assert line["event"] == "serving" and len(line["worker_pids"]) == 2  # 1 + the spare
    finally:
        proc.terminate()
        proc.wait(20)
    threading.Event().wait(0.2)


@pytest.mark.parametrize("name", ["rat_trap", "rats_to_riches"])
def test_bot_seat_with_one_legal_action_skips_the_search(name):
    """Hosted bot seats play a forced move (one legal action) without a search: the pool is
    asked exactly once per bot decision with more than one legal action."""
    game = load_game(name)
    with running_server(workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        calls = []
        orig = srv.pool.run

        async def counting(job, client, **kw):
            calls.append(job.seat)
            return await orig(job, client, **kw)

        srv.pool.run = counting
        n = game.num_players()
        gid = c.create_game(name, [{"kind": "random"}] * n, seed=5).game_id
        end = time.monotonic() + 60
        while not c.get_state(gid).is_terminal:
            assert time.monotonic() < end
            time.sleep(0.02)
        state, forced, choices = game.new_initial_state(), 0, 0
        for a in srv.store.actions(gid):
            cp = state.current_player()
            if cp >= 0:
                if len(state.legal_actions(cp)) == 1:
                    forced += 1
                else:
                    choices += 1
            state.apply_action(a)
        assert len(calls) == choices
        if forced == 0:
            pytest.skip(f"no forced move in this {name} game")


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize("kind,options", [
    ("ismcts", {}), ("mcts", {"determinize": True}), ("pimc", {"determinizations": 64}),
    ("expectimax", {}), ("az", {}),
])
def test_a_cancel_stops_the_search_itself(workers, kind, options):
    """A cancelled hint reaches the search's own stop check (the worker's cancel flag is the
    bot's ``stop``). With threads (``workers=0``), where nothing can be killed, cancelling a
    search on every thread then frees them all for the next hint at once (before, each kept
    searching its whole 15 s budget). One test client fills every worker here, so its
    address may run as many searches as there are workers."""
    with running_server(workers=workers, max_seconds=20, max_running_per_peer=256) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        state = random_position(load_game("ratapolis"), seat_wanted=0, seed=10, plies=5)
        pos = c.position("ratapolis", 0, history=state.history())
        futs = [c.stub.SuggestMove.future(pb.SuggestMoveRequest(
            position=pos, bot=pb.BotSpec(kind=kind, time_limit_s=15,
                                         options=_struct(options))), timeout=30)
            for _ in range(srv.pool.size)]
        end = time.monotonic() + 10
        while len(srv.pool._running) < srv.pool.size:
            assert time.monotonic() < end and not any(f.done() for f in futs), \
                "searches did not start"
            time.sleep(0.005)
        time.sleep(0.3)
        for f in futs:
            f.cancel()
        t0 = time.monotonic()
        a = c.suggest_move(position=pos, bot={"kind": "random"}, timeout=10)
        assert a.final and time.monotonic() - t0 < 1.0
        while srv.pool.busy():  # every cancelled search has returned
            assert time.monotonic() < t0 + 2, "a cancelled search still runs"
            time.sleep(0.005)


def test_a_bot_time_limit_below_a_millisecond_is_served(client):
    """A bot's own tiny ``time_limit_s`` (no client deadline) is a search of ~0 iterations
    that answers, not a DEADLINE_EXCEEDED: only a deadline that passed is one."""
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=3)
    pos = client.position("rat_trap", 0, history=state.history())
    for tl in (1e-9, 0.0005, 0.001):
        a = client.suggest_move(position=pos, bot={"kind": "ismcts", "time_limit": tl})
        assert a.final and a.best_action in state.legal_actions()


def test_stop_reason_says_which_clock_ended_the_search(client):
    """``stop_reason`` is "deadline" when the client's deadline (not the bot's budget) ended
    the search, and "budget" when the bot's own budget did."""
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=3)
    pos = client.position("rat_trap", 0, history=state.history())
    for timeout in (0.1, 0.3):
        cut = client.suggest_move(position=pos, bot={"kind": "ismcts", "time_limit": 5},
                                  timeout=timeout)
        assert cut.stop_reason == "deadline" and cut.elapsed_s < timeout
    own = client.suggest_move(position=pos, bot={"kind": "ismcts", "time_limit": 0.05},
                              timeout=10)
    assert own.stop_reason == "budget"
    its = client.suggest_move(position=pos, bot={"kind": "ismcts", "iterations": 50},
                              timeout=10)
    assert its.stop_reason == "budget" and its.iterations == 50


def test_a_cancelled_or_timed_out_hint_is_logged(client, server, caplog):
    """One log line per request, also for a unary call its client cancelled or let time out
    while it waited for a worker (the streaming calls already logged theirs)."""
    import logging

    state = random_position(load_game("ratapolis"), seat_wanted=0, seed=10, plies=5)
    pos = client.position("ratapolis", 0, history=state.history())
    caplog.set_level(logging.INFO, logger="ratai.service")
    busy = client.stub.SuggestMove.future(pb.SuggestMoveRequest(
        position=pos, bot=pb.BotSpec(kind="ismcts", time_limit_s=3)), timeout=30)
    end = time.monotonic() + 10
    while not server.pool._running:  # the search has reached the worker
        assert time.monotonic() < end and not busy.done(), "the search did not start"
        time.sleep(0.005)
    # the shared server's one worker is busy: this hint waits in the queue past its deadline
    err = _err(client.suggest_move, position=pos, bot={"kind": "random"}, timeout=0.3)
    assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    busy.cancel()

    def statuses():
        return [json.loads(r.getMessage()).get("status") for r in caplog.records
                if r.getMessage().startswith("{") and '"SuggestMove"' in r.getMessage()]

    end = time.monotonic() + 5
    while not {"CANCELLED", "DEADLINE_EXCEEDED"} <= set(statuses()):
        assert time.monotonic() < end, statuses()
        time.sleep(0.02)


def test_one_clients_bot_games_share_one_turn_of_the_queue():
    """The bot seats of every game one client created are charged to that client: another
    client (here a hosted seat's token) waits for at most about one bot search, not one per
    game (the queue is round-robin by client)."""
    with running_server(workers=1, max_seconds=5) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        bot = {"kind": "ismcts", "time_limit": 0.4}
        games = [c.create_game("rat_trap", [bot, bot, bot], seed=i) for i in range(5)]
        assert all(srv.manager.get(g.game_id).owner == "peer:127.0.0.1" for g in games)
        gid, tok = hosted_human_turn(c)
        end = time.monotonic() + 10
        while srv.pool.busy() < 5:  # the bot games are searching and queued
            assert time.monotonic() < end
            time.sleep(0.01)
        waits = []
        for _ in range(3):
            t0 = time.monotonic()
            a = c.suggest_move(game_id=gid, seat_token=tok,
                               bot={"kind": "ismcts", "time_limit": 0.05}, timeout=10)
            waits.append(time.monotonic() - t0)
            assert a.final
        # one running bot search (<= 0.4 s + grace) and its own 0.05 s; five games charged
        # to five clients would make it wait behind ~five 0.4 s searches
        assert min(waits) < 1.0, waits


def test_a_field_holds_at_most_max_items_values_in_all():
    """A Struct (params, bot options) or observation JSON may hold ``MAX_ITEMS`` values in
    all, however they are nested: a tester's 4 MB ``params`` of 9,000 lists of 40 numbers
    (each list under the old per-container limit) took ~0.9 s to convert on the event loop,
    and four such requests held the health check 2.3 s."""
    from google.protobuf import struct_pb2

    from ratai.service.convert import MAX_ITEMS, check_json_tree, struct_to_dict
    from ratai.service.errors import InvalidArgument

    wide = {"zzz": [[1.5] * 40 for _ in range(9000)]}
    s = struct_pb2.Struct()
    s.update(wide)
    t = time.perf_counter()
    with pytest.raises(InvalidArgument, match=r"params.zzz\[\d+\]: more than 10000 values"):
        struct_to_dict(s)
    with pytest.raises(InvalidArgument, match="values in all"):
        check_json_tree(wide, "observation")
    assert time.perf_counter() - t < 0.5
    ok = {"a": [[1.0] * 10 for _ in range((MAX_ITEMS - 1) // 11)]}
    s = struct_pb2.Struct()
    s.update(ok)
    assert struct_to_dict(s) == ok and check_json_tree(ok, "observation") == ok


def _pool_job(tl: float):
    from ratai.service.catalog import BotConfig
    from ratai.service.worker import SearchJob

    game = load_game("rat_trap")
    state = random_position(game, seat_wanted=0, seed=1)
    return SearchJob("rat_trap", json.loads(json.dumps(game.params)), state.serialize(), 0,
                     BotConfig("ismcts", time_limit=tl), time_limit=30.0)


async def _other_peer_starts_at_once(pool, hog) -> None:
    """Another peer's 0.1 s hint answers within 1.5 s while ``hog`` (one peer's searches)
    runs; then ``hog`` is cancelled."""
    import asyncio

    t = time.monotonic()
    res = await pool.run(_pool_job(0.1), "peer:b")
    assert time.monotonic() - t < 1.5 and res.analysis is not None
    for f in hog:
        f.cancel()
    await asyncio.gather(*hog, return_exceptions=True)


def test_one_peer_leaves_a_worker_and_queue_places_to_the_others():
    """A tester's two 30 s hints from one peer held both workers, so another client's 0.2 s
    hint took 29.7 s; and one peer's many seat tokens (each its own round-robin client) filled
    the whole queue. A peer now runs at most every worker but one with searches longer than
    a second and holds at most half the queue over all its tokens; the others' searches start
    at once. Short searches (a worker free again within a second) use every worker."""
    import asyncio

    from ratai.service.errors import ResourceExhausted
    from ratai.service.pool import SearchPool

    async def main():
        pool = SearchPool(2, max_queue=8)
        assert (pool.max_running_per_peer, pool.max_queue_per_peer) == (1, 4)
        pool.start(asyncio.get_running_loop())
        await pool.warm()
        try:
            hog = [asyncio.ensure_future(pool.run(_pool_job(5.0), f"seat:{i}",
                                                  group="peer:a")) for i in range(5)]
            await asyncio.sleep(0.3)
            assert len(pool._running) == 1 and pool.busy() == 5  # a worker stays free
            with pytest.raises(ResourceExhausted, match="this address already has 4"):
                await pool.run(_pool_job(5.0), "seat:9", group="peer:a")
            await _other_peer_starts_at_once(pool, hog)
            while pool._running:
                await asyncio.sleep(0.01)
            short = [asyncio.ensure_future(pool.run(_pool_job(0.6), "peer:a"))
                     for _ in range(2)]
            await asyncio.sleep(0.3)
            assert len(pool._running) == 2
            await asyncio.gather(*short)
        finally:
            await pool.shutdown()

    asyncio.run(main())


def test_an_iteration_budget_does_not_make_a_search_short():
    """A tester held both workers from one address with ``ismcts`` hints of 200 iterations
    and heuristic rollouts on Ratapolis (~6 iterations a second: each ran the server's whole
    30 s), which the pool counted as short by their iteration budget; another address's 0.1 s
    hint waited 5 s. Only the time bound makes a search short now: such a search counts
    against ``max_running_per_peer`` and the other peer's hint starts at once."""
    import asyncio

    from ratai.service.catalog import BotConfig
    from ratai.service.pool import SearchPool
    from ratai.service.worker import SearchJob

    game = load_game("ratapolis")
    state = random_position(game, seat_wanted=0, seed=3, plies=5)
    heavy = SearchJob("ratapolis", json.loads(json.dumps(game.params)), state.serialize(), 0,
                      BotConfig("ismcts", iterations=200, options={"rollout": "heuristic"}),
                      time_limit=20.0)

    async def main():
        pool = SearchPool(2, max_queue=8)
        pool.start(asyncio.get_running_loop())
        await pool.warm()
        try:
            hog = [asyncio.ensure_future(pool.run(heavy, f"seat:{i}", group="peer:a"))
                   for i in range(2)]
            await asyncio.sleep(0.3)
            assert len(pool._running) == 1 and pool.busy() == 2  # a worker stays free
            await _other_peer_starts_at_once(pool, hog)
        finally:
            await pool.shutdown()

    asyncio.run(main())


def test_an_iteration_budget_measured_fast_is_short():
    """A reviewer: with only the time bound deciding, one peer's iteration-budget searches
    (the server's default of 1,000 iterations, hosted bot seats such as ``ismcts:3000``) ran
    one at a time on 2 workers. Once the pool has measured a kind's rate (per game, params,
    kind and options; the slowest seen), a budget it runs in at most half a second is short
    again and uses every worker; an unmeasured one is not."""
    import asyncio

    from ratai.service.catalog import BotConfig
    from ratai.service.pool import SearchPool
    from ratai.service.worker import SearchJob

    game = load_game("rat_trap")
    state = random_position(game, seat_wanted=0, seed=1)

    def job(its: int, **options):
        return SearchJob("rat_trap", json.loads(json.dumps(game.params)), state.serialize(), 0,
                         BotConfig("ismcts", iterations=its, options=options), time_limit=20.0)

    async def main():
        pool = SearchPool(2, max_queue=8)
        pool.start(asyncio.get_running_loop())
        await pool.warm()
        try:
            assert pool._long(_entry(job(5000)))        # not measured yet
            await pool.run(job(5000), "peer:a")                    # measured now
            assert not pool._long(_entry(job(5000)))
            assert pool._long(_entry(job(5000, exploration=0.5)))  # other options
            quick = [asyncio.ensure_future(pool.run(job(5000), f"seat:{i}", group="peer:a"))
                     for i in range(2)]
            await asyncio.sleep(0.02)
            assert len(pool._running) == 2    # one peer's short searches use both workers
            await asyncio.gather(*quick)
        finally:
            await pool.shutdown()

    asyncio.run(main())


def _entry(job):
    from ratai.service.pool import _Entry

    return _Entry(job, "c", None, 30.0, 0.1, None, None, False)


def test_one_peer_holds_at_most_its_share_of_the_hosted_games():
    """A tester's loop of CreateGame filled the server's 1,000 games in 8 s, and nobody could
    create a game for the week the unplayed games take to expire: a peer may have at most
    ``max_games_per_peer`` unfinished games (default a quarter of ``max_games``)."""
    with running_server(workers=0, max_games=8) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        assert srv.manager.games_per_peer() == 2
        for _ in range(2):
            c.create_game("rat_trap", ["human"] * 3)
        err = _err(c.create_game, "rat_trap", ["human"] * 3)
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "share" in err.details()
    with running_server(workers=0, max_games=8, max_games_per_peer=3) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        for _ in range(3):
            c.create_game("rat_trap", ["human"] * 3)


def test_a_burst_of_creates_stays_within_the_share():
    """A tester's 300 concurrent ``CreateGame`` calls from one address made 251-255 games
    against a share of 250: the share was checked before the insert, on several threads at
    once. The check and the insert are one step now."""
    from concurrent.futures import ThreadPoolExecutor

    with running_server(workers=0, max_games=40, max_games_per_peer=5) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        def create(_):
            try:
                c.create_game("rat_trap", ["human"] * 3)
                return "ok"
            except grpc.RpcError as exc:
                return exc.code().name
        with ThreadPoolExecutor(16) as ex:
            got = list(ex.map(create, range(40)))
        assert got.count("ok") == 5 and got.count("RESOURCE_EXHAUSTED") == 35, got
        assert len(srv.manager) == 5


def test_serve_help_names_each_default_once():
    """A newcomer: ``ratai serve --help`` printed ``(default ...) (default: None)`` for --db
    and --api-key, whose help already says what their absence means."""
    from ratai.service.config import build_parser

    text = " ".join(build_parser().format_help().split())
    assert "(default: None)" not in text
    assert "(default: 50051)" in text and "(default: 127.0.0.1)" in text


@pytest.mark.parametrize("killed", [True, False])
def test_a_killed_workers_closed_pipe_is_not_logged_as_a_bad_message(killed, caplog):
    """A tester's cancels killed workers, and each kill logged ``ERROR bad message from search
    worker`` with a traceback: closing the pipe under the reader thread's ``recv`` raises a
    ``TypeError`` there. A worker the pool killed is not reported; any other worker's
    unreadable message still is."""
    from ratai.service.pool import _ProcWorker

    class Conn:
        def recv(self):
            raise TypeError("'NoneType' object cannot be interpreted as an integer")

    died = []

    class Loop:
        def call_soon_threadsafe(self, fn, *args):
            died.append(fn)

    class Pool:
        loop = Loop()

        def _died(self, w):
            pass

    w = object.__new__(_ProcWorker)
    w.pool, w.conn, w.pid, w.dead = Pool(), Conn(), 4242, killed
    with caplog.at_level(logging.ERROR, logger="ratai.service"):
        w._read()
    assert len(died) == 1   # the pool hears of the worker's end either way
    assert any("bad message" in r.getMessage() for r in caplog.records) is not killed


def test_a_lingering_cancelled_search_is_killed_only_when_a_ready_spare_takes_its_slot():
    """A tester's cancels in a row (Ratapolis ``pimc`` / ``smmcts`` stopping a few ms past
    the 30 ms grace on a loaded machine) killed three workers in 2 s, each kill handing the
    slot to a spare still starting, and another client's 0.1 s hint waited 3 s. A lingering
    search's worker is killed only when a ready spare can take the slot at once; until then
    it is looked at again every grace."""
    from ratai.service.pool import SearchPool, _Entry

    pool = SearchPool(1, max_queue=8)
    later, killed = [], []

    class Loop:
        def call_later(self, delay, fn, *args):
            later.append((delay, fn, args))
            return type("T", (), {"cancel": lambda self: None})()

    class Spare:
        ready, dead = False, False

    pool.loop, pool._spare = Loop(), Spare()
    pool._kill = lambda e, why: killed.append(why)
    e = _Entry(None, "c", None, 30.0, 0.1, None, None, False, id=7)
    e.timers.append("the handle that fired")
    pool._running[7] = e
    pool._linger(e)
    pool._linger(e)
    assert len(e.timers) == 1   # replaced, not piled up (a 30 s search: ~1,000 handles)
    assert killed == [] and later[-1][1] == pool._linger and later[-1][0] == pool.cancel_grace_s
    pool._spare.ready = True
    pool._linger(e)
    assert killed == ["cancel"]
    pool._running.clear()          # it stopped by itself: nothing to do
    pool._linger(e)
    assert killed == ["cancel"]
