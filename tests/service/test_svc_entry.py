"""``python server.py`` is the entry point: structured logs, a real port, clean SIGTERM."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from ratai.client import Client

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_server_py_serves_and_logs_json_lines(tmp_path):
    db = tmp_path / "g.sqlite3"
    proc = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--port", "0", "--db",
                             str(db), "--workers", "1"], stderr=subprocess.PIPE, text=True)
    try:
        line = json.loads(proc.stderr.readline())
        assert line["event"] == "serving" and line["address"].startswith("127.0.0.1:")
        port = int(line["address"].rsplit(":", 1)[1])
        with Client(f"127.0.0.1:{port}", timeout=20) as c:
            created = c.create_game("rat_trap", ["human", "random", "random"])
        req = json.loads(proc.stderr.readline())
        while req.get("method") != "CreateGame":
            req = json.loads(proc.stderr.readline())
        assert req["status"] == "OK" and req["game"] == "rat_trap"
        assert req["game_id"] == created.game_id and "duration_ms" in req
    finally:
        proc.send_signal(signal.SIGTERM)
        t0 = time.monotonic()
        assert proc.wait(20) == 0
        assert time.monotonic() - t0 < 20
    assert db.exists()


def _main_thread_only():
    import threading

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be set in the main thread")


def test_signal_pipe_records_a_signal_and_restores_the_handler():
    # serve() waits for SIGINT/SIGTERM through this pipe; its handler must take no lock (an
    # Event.set there deadlocked once in ~1,000 runs: the main thread held the Event's lock)
    _main_thread_only()
    from ratai.service.server import _signal_pipe

    before = signal.getsignal(signal.SIGUSR1)
    with _signal_pipe(signal.SIGUSR1) as wait:
        for _ in range(70_000):  # more than a pipe holds (64 KiB): the handler never blocks
            os.kill(os.getpid(), signal.SIGUSR1)
        assert wait() == signal.SIGUSR1  # sent before the wait: recorded, not lost
    assert signal.getsignal(signal.SIGUSR1) is before


def test_signal_pipe_wakes_a_blocked_wait():
    _main_thread_only()
    import threading

    from ratai.service.server import _signal_pipe

    with _signal_pipe(signal.SIGUSR1, signal.SIGUSR2) as wait:
        timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGUSR2))
        timer.start()
        t0 = time.monotonic()
        assert wait() == signal.SIGUSR2
        assert time.monotonic() - t0 < 10
        timer.join()


def test_a_port_in_use_is_one_line_exit_2(tmp_path):
    """Stop 50 (newcomer): with its port taken, ``python server.py`` printed gRPC's own
    error line before its own; now one line naming the address, exit 2."""
    import socket

    with socket.socket() as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        res = subprocess.run([sys.executable, str(ROOT / "server.py"), "--host", "127.0.0.1",
                              "--port", str(port), "--db", str(tmp_path / "g.db"),
                              "--workers", "1"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [f"ratai serve: error: could not bind 127.0.0.1:{port}: "
                                       f"the address is already in use"]
