"""The hosted games' append-only event log in SQLite.

One row per game (game type, params, chance seed, seats with hashed tokens, status) and one
row per applied action (decisions and chance outcomes, in order). A game is rebuilt by
replaying its actions (``Game.state_from_history``). Every write is committed before the
service answers, so nothing acknowledged is lost. Seat tokens are stored only as SHA-256
digests.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass

__all__ = ["Store", "GameRecord"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      TEXT PRIMARY KEY,
    game    TEXT NOT NULL,
    params  TEXT NOT NULL,      -- JSON
    seed    TEXT NOT NULL,      -- decimal (up to 64 bits)
    seats   TEXT NOT NULL,      -- JSON list of {"kind", "display_name", "token_sha256", "bot"}
    status  TEXT NOT NULL,      -- active | finished | expired
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,   -- the move number at which the action was applied
    actor   INTEGER NOT NULL,   -- a seat, or -1 for a chance outcome
    action  INTEGER NOT NULL,
    ts      REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


@dataclass
class GameRecord:
    """One stored game: its header and its actions in order."""

    id: str
    game: str
    params: dict
    seed: int
    seats: list
    status: str
    actions: list[int]
    actors: list[int]


class Store:
    """SQLite event log at ``path`` (``:memory:`` for tests). Thread-safe."""

    def __init__(self, path: str):
        self.path = path
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            if path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)

    def create(self, game_id: str, game: str, params: dict, seed: int, seats: list) -> None:
        now = time.time()
        with self._lock:
            self._db.execute("INSERT INTO games VALUES (?,?,?,?,?,?,?,?)",
                             (game_id, game, json.dumps(params), str(seed), json.dumps(seats),
                              "active", now, now))

    def append(self, game_id: str, seq: int, actor: int, action: int,
               finished: bool = False) -> None:
        """Record one action (and the game's end) in one transaction."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT INTO events VALUES (?,?,?,?,?)",
                                 (game_id, seq, actor, action, now))
                self._db.execute("UPDATE games SET updated=?, status=? WHERE id=?",
                                 (now, "finished" if finished else "active", game_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def set_status(self, game_id: str, status: str) -> None:
        with self._lock:
            self._db.execute("UPDATE games SET status=?, updated=? WHERE id=?",
                             (status, time.time(), game_id))

    def load(self, status: str = "active") -> list[GameRecord]:
        """Every game with ``status``, with its actions in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, params, seed, seats, status FROM games WHERE status=? "
                "ORDER BY created", (status,)).fetchall()
            out = []
            for gid, game, params, seed, seats, st in rows:
                ev = self._db.execute("SELECT seq, actor, action FROM events WHERE game_id=? "
                                      "ORDER BY seq", (gid,)).fetchall()
                out.append(GameRecord(gid, game, json.loads(params), int(seed),
                                      json.loads(seats), st, [a for _, _, a in ev],
                                      [p for _, p, _ in ev]))
        return out

    def actions(self, game_id: str) -> list[int]:
        with self._lock:
            return [a for (a,) in self._db.execute(
                "SELECT action FROM events WHERE game_id=? ORDER BY seq", (game_id,))]

    def close(self) -> None:
        with self._lock:
            self._db.close()
