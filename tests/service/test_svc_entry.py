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
from ratai.service.server import STOP_WATCHDOG_SECONDS

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
        try:  # a stuck stop meets the server's watchdog: every thread's stack on stderr, rc 1
            rc = proc.wait(STOP_WATCHDOG_SECONDS + 15)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        rest = proc.stderr.read()
        assert rc == 0, f"rc {rc} after SIGTERM; the server's stderr:\n{rest[-20_000:]}"
        assert time.monotonic() - t0 < 20, rest[-20_000:]
    events = [json.loads(ln).get("event") for ln in rest.splitlines() if ln.startswith("{")]
    assert events[-2:] == ["stopping", "stopped"]
    assert db.exists()


def test_a_stuck_stop_is_dumped_and_ended_by_the_watchdog(tmp_path):
    """``serve``'s watchdog: when the stop takes longer than allowed (here a server whose
    ``stop`` hangs), every thread's stack goes to stderr and the process exits 1."""
    code = (
        "import sys, time\n"
        "from ratai.service import server\n"
        "server.RatAIServer.stop = lambda self, grace=1.0: time.sleep(600)\n"
        "sys.exit(server.serve(sys.argv[1:], watchdog=1.0))\n")
    proc = subprocess.Popen([sys.executable, "-c", code, "--port", "0", "--db",
                             str(tmp_path / "g.sqlite3"), "--workers", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert json.loads(proc.stderr.readline())["event"] == "serving"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 1
        err = proc.stderr.read()
    finally:
        proc.kill()
    assert "Timeout (0:00:01)!" in err and "in <lambda>" in err


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
