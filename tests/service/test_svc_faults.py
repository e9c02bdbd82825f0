"""Fault tests (issue 15): ``kill -9`` of a server hosting games with bot seats, at random
points: 0 acknowledged moves lost, the game continues exactly as without the kill, and no
process of the killed server (search workers, their spare) is left.

The default run kills twice; ``-m slow`` runs more kills on more seeds.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from conftest import running_server
from svc_helpers import random_position

from ratai.client import Client, bot_spec
from ratai.engines import load_game
from ratai.service import ratai_pb2 as pb

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEATS = ["human", {"kind": "ismcts", "iterations": 300}, {"kind": "random"}]


def _human(view) -> int:
    """A deterministic human policy (depends only on the position)."""
    legal = [a.action for a in view.legal_actions]
    return legal[(view.move_number * 7919) % len(legal)]


def _play(c: Client, gid: str, tok: str, acked: list, stop_after: float | None = None,
          rng: random.Random | None = None) -> bool:
    """Play the human seat until the game ends (True) or ``stop_after`` seconds pass."""
    end = time.monotonic() + stop_after if stop_after is not None else None
    while end is None or time.monotonic() < end:
        view = c.get_state(gid, tok, timeout=20)
        if view.is_terminal:
            return True
        if not view.your_turn:
            time.sleep(0.002)
            continue
        a = _human(view)
        r = c.apply_action(gid, tok, a, expected_move_number=view.move_number, timeout=20)
        acked.append((r.applied_at, a))
    return False


def _reference(seed: int) -> list[int]:
    with running_server(workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", SEATS, seed=seed)
        assert _play(c, created.game_id, created.seat_tokens[0].token, [])
        return srv.store.actions(created.game_id)


def _start(db: str) -> tuple[subprocess.Popen, int, list[int]]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--port", "0", "--db", db,
                             "--workers", "1"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    while line and '"serving"' not in line:
        line = proc.stderr.readline()
    assert line, "the server did not start"
    info = json.loads(line)
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # drain the request log
    return proc, int(info["address"].rsplit(":", 1)[1]), info["worker_pids"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" not in f.read()
    except FileNotFoundError:
        return False


def _stored(db: str, gid: str) -> list[int]:
    con = sqlite3.connect(db)
    try:
        return [a for (a,) in con.execute(
            "SELECT action FROM events WHERE game_id=? ORDER BY seq", (gid,))]
    finally:
        con.close()


def _kill_and_continue(tmp_path, seed: int, kills: int) -> None:
    reference = _reference(seed)
    db = str(tmp_path / f"kill{seed}.sqlite3")
    rng = random.Random(seed)
    acked: list[tuple[int, int]] = []
    gid = tok = None
    for k in range(kills + 1):
        proc, port, pids = _start(db)
        assert len(pids) == 2  # one worker and its spare
        last = k == kills
        with Client(f"127.0.0.1:{port}") as c:
            if gid is None:
                created = c.create_game("rat_trap", SEATS, seed=seed)
                gid, tok = created.game_id, created.seat_tokens[0].token
            finished = _play(c, gid, tok, acked, None if last else rng.uniform(0.05, 0.3))
        if k < kills:
            proc.send_signal(signal.SIGKILL)   # kill -9 mid-game
            proc.wait(10)
            end = time.monotonic() + 5
            while any(_alive(p) for p in pids):
                assert time.monotonic() < end, f"orphaned workers {[p for p in pids if _alive(p)]}"
                time.sleep(0.02)
            stored = _stored(db, gid)
            print(f"kill {k}: {len(acked)} acknowledged human moves, {len(stored)} stored "
                  f"of {len(reference)}")
            for at, action in acked:          # 0 acknowledged moves lost
                assert at < len(stored) and stored[at] == action, (at, action)
            assert stored == reference[:len(stored)]  # ... and the same game so far
            if finished:  # over before this kill: a finished game is not reloaded
                break
        else:
            assert finished
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0
            assert not any(_alive(p) for p in pids)
    assert _stored(db, gid) == reference     # the game continued identically


def test_kill_9_loses_nothing_and_leaves_no_process(tmp_path):
    _kill_and_continue(tmp_path, seed=11, kills=2)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 5, 8])
def test_kill_9_many_times(tmp_path, seed):
    _kill_and_continue(tmp_path, seed=seed, kills=6)


def test_workers_die_when_the_server_is_killed_while_searching(tmp_path):
    """The kill lands while a worker is inside a long search (not reading its socket)."""
    state = random_position(load_game("ratapolis"), seat_wanted=0, seed=3)
    proc, port, pids = _start(str(tmp_path / "busy.sqlite3"))
    try:
        with Client(f"127.0.0.1:{port}") as c:
            req = pb.SuggestMoveRequest(
                position=c.position("ratapolis", 0, history=state.history()),
                bot=bot_spec({"kind": "ismcts", "time_limit": 20}))
            fut = c.stub.SuggestMove.future(req, timeout=30)
            time.sleep(1.0)
            assert not fut.done()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    end = time.monotonic() + 5
    while any(_alive(p) for p in pids):
        assert time.monotonic() < end, "orphaned workers"
        time.sleep(0.02)
