"""``python server.py`` is the entry point: structured logs, a real port, clean SIGTERM."""

from __future__ import annotations

import json
import pathlib
import signal
import subprocess
import sys
import time

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
