"""Faults and durability (stop 49's fault tester): a full disk between a move and the chance
outcome after it, a restart on a full disk, worker processes that never start, two servers on
one file through links, a damaged event log, a finished game after a restart, a bot seat whose
worker dies mid-search. Each failed on the code before it."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import subprocess
import sys
import time

import grpc
import pytest
from conftest import running_server
from svc_helpers import play_to_end, random_position

from ratai.client import Client
from ratai.engines import load_game
from ratai.service import sessions as sessions_mod
from ratai.service.store import Store, StoreError, StoreLocked

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class FailingWrites:
    """Wraps a store's SQLite connection: after ``allow`` more writes every INSERT/UPDATE fails
    as SQLite does on a full disk (``allow=None``: writes pass)."""

    def __init__(self, db):
        self.db, self.allow = db, None

    def __getattr__(self, name):
        return getattr(self.db, name)

    def execute(self, sql, *args):
        if self.allow is not None and sql.lstrip().upper().startswith("INSERT"):
            if self.allow <= 0:
                raise sqlite3.OperationalError("database or disk is full")
            self.allow -= 1
        return self.db.execute(sql, *args)  # a recorded move's UPDATE (its transaction) too


def _until(pred, timeout: float = 20.0, what: str = "condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _to_move_before_chance(c: Client, srv, gid: str, tokens: dict[int, str], name: str):
    """Play the human seats (lowest legal action) until the seat to move has an action that
    leads to a chance node; returns ``(seat, that action, move number)``."""
    game = load_game(name)
    for _ in range(400):
        view = _until(lambda: (v := c.get_state(gid, tokens[0])).current_player >= 0 and v,
                      what="a decision")
        seat = view.current_player
        mine = c.get_state(gid, tokens[seat])
        st = game.state_from_history(srv.store.actions(gid))
        for a in st.legal_actions():
            nxt = st.clone()
            nxt.apply_action(a)
            if nxt.is_chance_node():
                return seat, a, mine.move_number
        c.apply_action(gid, tokens[seat], mine.legal_actions[0].action,
                       expected_move_number=mine.move_number)
    raise AssertionError("no move before a chance node")


def test_a_recorded_move_stands_when_the_chance_outcome_after_it_cannot_be_recorded(tmp_path):
    """The disk filled between a human move and the chance outcome after it: the call said
    UNAVAILABLE "nothing was recorded" though the move was stored and applied, and the game
    stayed at the chance node until a restart. Now the call succeeds (the move is recorded),
    and the game's driver records the seeded chance outcome once the disk has room again."""
    with running_server(db=str(tmp_path / "g.sqlite3"), workers=0) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", ["human"] * 3, seed=8)
        gid = created.game_id
        tokens = {t.seat: t.token for t in created.seat_tokens}
        seat, action, mv = _to_move_before_chance(c, srv, gid, tokens, "rat_trap")
        wrapped = srv.store._db = FailingWrites(srv.store._db)
        wrapped.allow = 1                      # the move itself, then a full disk
        r = c.apply_action(gid, tokens[seat], action, expected_move_number=mv)
        assert r.applied_at == mv and not r.duplicate
        stored = srv.store.actions(gid)
        assert len(stored) == mv + 1 and stored[mv] == action
        assert c.get_state(gid, tokens[seat]).current_player == -1   # waiting on the disk
        wrapped.allow = None                   # room again: the driver retries (every second)
        view = _until(lambda: (v := c.get_state(gid, tokens[0])).current_player != -1 and v,
                      what="the chance outcome")
        stored = srv.store.actions(gid)
        assert view.move_number == len(stored) > mv + 1
        st = load_game("rat_trap").state_from_history(stored[:mv + 1])
        assert stored[mv + 1] == sessions_mod._sample_chance(st, srv.manager.get(gid).seed,
                                                             mv + 1)


def test_a_server_starts_on_a_full_disk_with_a_chance_outcome_to_record(tmp_path, monkeypatch):
    """A restart while the disk was full and a game waited on a chance node exited with a
    traceback (exit 1), though a restart was the only way out of the stuck game. Now the
    server starts and records the chance outcome once it can."""
    db = str(tmp_path / "g.sqlite3")
    with running_server(db=db, workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", ["human"] * 3, seed=9)
        gid = created.game_id
        tokens = {t.seat: t.token for t in created.seat_tokens}
        seat, action, mv = _to_move_before_chance(c, srv, gid, tokens, "rat_trap")
        srv.store._db = FailingWrites(srv.store._db)
        srv.store._db.allow = 1
        c.apply_action(gid, tokens[seat], action, expected_move_number=mv)
        # the disk stays full until this server has stopped (its driver retries each second)
    full = {"on": True}
    real_append = Store.append

    def append(self, *a, **kw):
        if full["on"]:
            raise StoreError("the event log could not record the move (database or disk is "
                             "full); nothing was recorded")
        return real_append(self, *a, **kw)

    monkeypatch.setattr(Store, "append", append)
    with running_server(db=db, workers=0) as srv2, Client(f"127.0.0.1:{srv2.port}") as c:
        assert c.get_state(gid, tokens[0]).current_player == -1
        full["on"] = False
        _until(lambda: c.get_state(gid, tokens[0]).current_player != -1,
               what="the chance outcome after the restart")
        assert len(srv2.store.actions(gid)) > mv + 1


def test_a_bot_seat_searches_again_when_its_worker_dies(tmp_path, caplog):
    """A bot seat whose search worker was killed played the seeded random fallback 0.03 s
    later. Now the search runs again on the replacement worker."""
    caplog.set_level(logging.INFO, logger="ratai.service")
    with running_server(workers=1) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", ["human", {"kind": "ismcts", "time_limit": 2.0},
                                             "human"], seed=4)
        gid = created.game_id
        tokens = {t.seat: t.token for t in created.seat_tokens}
        pool = srv.pool
        for _ in range(400):  # play the humans until the bot seat searches
            if pool._running:
                break
            v = c.get_state(gid, tokens[0])
            cp = v.current_player
            if cp in tokens:
                mine = c.get_state(gid, tokens[cp])
                if mine.your_turn:
                    c.apply_action(gid, tokens[cp], mine.legal_actions[0].action,
                                   expected_move_number=mine.move_number)
                    continue
            time.sleep(0.01)
        pid = _until(lambda: next((e.worker.pid for e in list(pool._running.values())), None),
                     what="the bot's search")
        mv = c.get_state(gid, tokens[0]).move_number
        os.kill(pid, 9)
        _until(lambda: c.get_state(gid, tokens[0]).move_number > mv, timeout=30,
               what="the bot's move")
        events = [json.loads(r.getMessage()) for r in caplog.records
                  if r.getMessage().startswith("{")]
        failed = [e for e in events if e.get("event") == "bot_search_failed"]
        assert failed and failed[0]["attempt"] == 1
        assert not [e for e in events if e.get("event") == "bot_random_fallback"]


def test_workers_that_cannot_start_are_retried_and_health_says_so(monkeypatch):
    """Worker starts that fail were counted for the server's whole life and after six the
    pool stopped replacing workers (no worker left, hints hanging, health SERVING); a worker
    that hung while starting was promoted and held its slot for ever. Now a start that hangs
    is killed after ``start_timeout_s``, failed starts are retried with a backoff that a good
    start resets, and while starts keep failing with no worker ready the pool is unhealthy
    and hints are refused UNAVAILABLE at once."""
    from ratai.service import pool as pool_mod
    from ratai.service.catalog import BotConfig
    from ratai.service.errors import Unavailable
    from ratai.service.worker import SearchJob

    monkeypatch.setattr(pool_mod, "START_BACKOFF_S", 0.05)
    game = load_game("rat_trap")
    state = random_position(game, seat_wanted=0, seed=1)
    job = SearchJob("rat_trap", json.loads(json.dumps(game.params)), state.serialize(), 0,
                    BotConfig("random"), time_limit=5.0)

    async def wait_for(pred, timeout=30.0):
        end = time.monotonic() + timeout
        while not pred():
            assert time.monotonic() < end, "timed out"
            await asyncio.sleep(0.02)

    async def main():
        pool = pool_mod.SearchPool(1, max_queue=4, start_timeout_s=10.0)
        pool.start(asyncio.get_running_loop())
        await pool.warm()
        try:
            # a replacement that hangs while starting is killed and replaced
            spare = pool._spare
            os.kill(pool._pool[0].pid, 9)                  # the ready spare takes its place
            await wait_for(lambda: pool._pool[0] is spare)
            hung = pool._spare                             # a new spare, starting: stop it
            os.kill(hung.pid, 19)  # SIGSTOP
            assert not hung.ready
            os.kill(spare.pid, 9)                          # the starting spare takes its place
            await wait_for(lambda: spare.dead)             # its death seen: hung in the slot
            # the next spare to be ready takes the slot from the hung start at once (a
            # tester's hint waited 55 s for the start timeout)
            t = time.monotonic()
            assert (await pool.run(job, "a")).analysis is not None
            assert time.monotonic() - t < 8.0 and pool._spare is hung
            await wait_for(lambda: hung.dead)              # start_timeout_s after its start
            await wait_for(lambda: pool._spare is not hung and pool._spare.ready)
            # starts that fail: retried, the pool unhealthy while none is ready
            real_python = pool_mod.sys.executable
            monkeypatch.setattr(pool_mod.sys, "executable", "/bin/false")
            os.kill(pool._pool[0].pid, 9)
            os.kill(pool._spare.pid, 9)
            await wait_for(lambda: not pool.healthy())
            with pytest.raises(Unavailable, match="no search worker could start"):
                await pool.run(job, "a")
            monkeypatch.setattr(pool_mod.sys, "executable", real_python)
            await wait_for(lambda: pool.healthy() and pool._pool[0].ready)
            assert pool._start_failures == 0
            assert (await pool.run(job, "a")).analysis is not None
            # a process that cannot even be spawned (the interpreter removed, no memory):
            # was an exception on the loop and a slot lost for good
            def no_spawn(*a, **kw):
                raise FileNotFoundError(2, "No such file or directory", "python")

            monkeypatch.setattr(pool_mod.subprocess, "Popen", no_spawn)
            os.kill(pool._pool[0].pid, 9)
            os.kill(pool._spare.pid, 9)
            await wait_for(lambda: not pool.healthy())
            with pytest.raises(Unavailable, match="no search worker could start"):
                await pool.run(job, "a")
            monkeypatch.undo()
            await wait_for(lambda: pool.healthy() and pool._pool[0].ready)
            assert (await pool.run(job, "a")).analysis is not None
        finally:
            await pool.shutdown()

    asyncio.run(main())


def test_links_to_one_event_log_are_one_event_log(tmp_path):
    """A second server on the same file through a symbolic or hard link came up too (the lock
    was named by the path as spelt): both served the same games."""
    db = tmp_path / "games.sqlite3"
    first = Store(str(db))
    try:
        (tmp_path / "sym.sqlite3").symlink_to(db)
        os.link(db, tmp_path / "hard.sqlite3")
        for other in ("sym.sqlite3", "hard.sqlite3"):
            with pytest.raises(StoreLocked, match="in use by another ratai server"):
                Store(str(tmp_path / other))
    finally:
        first.close()
    Store(str(tmp_path / "hard.sqlite3")).close()


def test_a_damaged_event_log_is_one_line_and_a_bad_row_breaks_only_its_game(tmp_path):
    """A file that is not SQLite: exit 1 with a traceback (now one line, exit 2). A game row
    whose seed or params do not parse stopped the whole server (now that game is marked
    broken and the others are restored)."""
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open the event log"):
        Store(str(bad))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "server.py"), "--port", "0",
                           "--db", str(bad), "--workers", "0"],
                          capture_output=True, text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and str(bad) in lines[0], proc.stderr

    db = str(tmp_path / "g.sqlite3")
    with running_server(db=db, workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        ids = [c.create_game("rat_trap", ["human"] * 3, seed=i).game_id for i in range(3)]
    con = sqlite3.connect(db)
    con.execute("UPDATE games SET seed='x' WHERE id=?", (ids[0],))
    con.execute("UPDATE games SET params='{' WHERE id=?", (ids[1],))
    con.commit()
    con.close()
    with running_server(db=db, workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        assert c.get_state(ids[2]).move_number >= 0
        for gid in ids[:2]:
            with pytest.raises(grpc.RpcError) as info:
                c.get_state(gid)
            assert info.value.code() == grpc.StatusCode.NOT_FOUND
        statuses = dict(srv.store._db.execute("SELECT id, status FROM games"))
    assert [statuses[g] for g in ids] == ["broken", "broken", "active"]


def test_a_finished_game_can_be_read_after_a_restart(tmp_path):
    """A game that ended before a restart was NOT_FOUND after it (GetState and WatchGame),
    though the store keeps it: a client reconnecting after a crash could not read the result."""
    db = str(tmp_path / "g.sqlite3")
    with running_server(db=db, workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", ["human", "random", "random"], seed=3)
        gid, tok = created.game_id, created.seat_tokens[0].token
        final = play_to_end(c, gid, {0: tok}, seed=1)
    with running_server(db=db, workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        assert len(srv.manager) == 0          # not reloaded until asked for
        view = c.get_state(gid, tok)
        assert view.is_terminal and list(view.scores) == list(final.scores)
        events = list(c.watch_game(gid, tok, timeout=30))
        moves = [e for e in events if e.kind == e.MOVE]
        assert events[-1].kind == events[-1].GAME_OVER
        assert list(events[-1].scores) == list(final.scores)
        assert len(moves) == len(srv.store.actions(gid)) == view.move_number
        with pytest.raises(grpc.RpcError) as info:
            c.get_state("0" * 16)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_bot_move_the_log_cannot_record_is_kept_not_searched_again(caplog):
    """With the event log failing, a bot seat ran its whole search again before every retry
    of the write (62% of a core for moves that could not be recorded), and every game logged
    one line a second. Now the chosen move is retried (one search) and the retries of one
    game are logged once a minute."""
    from ratai.service.errors import Unavailable

    caplog.set_level(logging.INFO, logger="ratai.service")
    with running_server(workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        calls = {"run": 0, "move": 0}
        run, move = srv.pool.run, srv.manager._bot_move

        async def counted_run(*a, **kw):
            calls["run"] += 1
            return await run(*a, **kw)

        def failing_move(*a):
            calls["move"] += 1
            calls.setdefault("runs_then", {})[calls["move"]] = calls["run"]
            if calls["move"] <= 3:
                raise Unavailable("the move was not applied: the event log could not record "
                                  "the move (database or disk is full)")
            return move(*a)

        srv.pool.run, srv.manager._bot_move = counted_run, failing_move
        created = c.create_game("rat_trap", [{"kind": "ismcts", "iterations": 200}, "human",
                                             "human"], seed=2)
        _until(lambda: calls["move"] >= 4, what="the bot's move")
        # one search (none for a forced move), then only writes of its move
        assert calls["runs_then"][1] == calls["runs_then"][4] <= 1, calls
        lines = [r for r in caplog.records if "bot_move_not_recorded" in r.getMessage()]
        assert len(lines) == 1 and created.game_id in lines[0].getMessage()


def test_a_game_whose_expiry_cannot_be_recorded_stays_hosted(monkeypatch):
    """The expiry dropped a game from memory though the log could not mark it expired: it
    was NOT_FOUND, then playable again after a restart. Now it stays until the log says so."""
    from ratai.service.store import Store

    with running_server(workers=0, idle_expiry_s=3600) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        gid = c.create_game("rat_trap", ["human"] * 3, seed=1).game_id
        s = srv.manager.get(gid)

        def full(self, *a, **kw):
            raise StoreError("the event log could not record the game's status (database or "
                             "disk is full); nothing was recorded")

        monkeypatch.setattr(Store, "set_status", full)
        assert srv.manager.expire_idle(now=s.last_used + 7200) == []
        assert c.get_state(gid).game_id == gid
        monkeypatch.undo()
        assert srv.manager.expire_idle(now=s.last_used + 7200) == [gid]


def test_the_lock_file_is_never_followed_through_a_link(tmp_path):
    """A ``.lock`` that was a symbolic link to the database was opened through the link (the
    lock file is truncated and written: the database itself was at risk); a read-only
    database was reported as damaged."""
    db = tmp_path / "g.sqlite3"
    Store(str(db)).close()
    os.remove(str(db) + ".lock")
    os.symlink(db, str(db) + ".lock")
    before = db.read_bytes()
    with pytest.raises(OSError, match="is a symbolic link"):
        Store(str(db))
    assert db.read_bytes() == before


def test_a_restored_game_keeps_its_creator(tmp_path):
    """A tester's restart dropped each hosted game's creator (its queue key): every restored
    game became its own client, so one address's restored bot games escaped its
    ``max_running_per_peer`` and ``max_games_per_peer`` (a 0.1 s hint from it waited ~3 s
    behind them). The creator is kept in the event log and restored with the game."""
    db = str(tmp_path / "owner.sqlite3")
    with running_server(db=db, workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        gid = c.create_game("rat_trap", ["human"] * 3).game_id
        assert srv.manager.get(gid).owner == "peer:127.0.0.1"
    with running_server(db=db, workers=0, max_games=8, max_games_per_peer=1) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        assert srv.manager.get(gid).owner == "peer:127.0.0.1"
        with pytest.raises(grpc.RpcError) as err:   # the restored game counts as its share
            c.create_game("rat_trap", ["human"] * 3)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_an_event_log_written_before_owners_opens_and_restores(tmp_path):
    """A log whose ``games`` table has no ``owner`` column (written by an older server) gets
    the column on open; its games restore with no owner (their own queue key)."""
    db = tmp_path / "old.sqlite3"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, params TEXT NOT NULL,
            seed TEXT NOT NULL, seats TEXT NOT NULL, status TEXT NOT NULL,
            created REAL NOT NULL, updated REAL NOT NULL);
        CREATE TABLE events (game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
            actor INTEGER NOT NULL, action INTEGER NOT NULL, ts REAL NOT NULL,
            PRIMARY KEY (game_id, seq));""")
    game = load_game("rat_trap")
    seats = [{"kind": "human", "display_name": "", "token_sha256": "0" * 64, "bot": None}] * 3
    con.execute("INSERT INTO games VALUES (?,?,?,?,?,?,?,?)",
                ("abc", "rat_trap", json.dumps(game.params), "7", json.dumps(seats), "active",
                 0.0, 0.0))
    con.commit()
    con.close()
    store = Store(str(db))
    try:
        (rec,) = store.load("active")
        assert rec.id == "abc" and rec.owner is None and rec.error is None
        store.create("def", "rat_trap", game.params, 1, seats, owner="peer:10.0.0.1")
        assert {r.id: r.owner for r in store.load("active")} == {"abc": None,
                                                                 "def": "peer:10.0.0.1"}
    finally:
        store.close()
