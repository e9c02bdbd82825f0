"""The hosted games' append-only event log in SQLite.

One row per game (game type, params, chance seed, seats with hashed tokens, status) and one
row per applied action (decisions and chance outcomes, in order). A game is rebuilt by
replaying its actions (``Game.state_from_history``). Every write is committed before the
service answers, so nothing acknowledged is lost; a write that fails (a read-only or full
database) raises :class:`StoreError` and the service refuses the move. Seat tokens are stored
only as SHA-256 digests.

One server per file: :class:`Store` holds an exclusive ``flock`` on ``<path>.lock`` (which
records the holder's pid; ``path`` with its symbolic links resolved) and on the database file
itself (so a hard link or another spelling of the same file is refused too) for as long as it
is open; a second one raises :class:`StoreLocked` naming the file and that pid. A file that is
not an SQLite database, or a damaged one, raises :class:`StoreError` when opened; a game row
that does not parse is loaded with ``error`` set (the service marks that game broken and
restores the others).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass

__all__ = ["Store", "GameRecord", "StoreError", "StoreLocked"]


class StoreError(Exception):
    """A write to the event log failed (read-only, full or broken database)."""


class StoreLocked(RuntimeError):
    """Another server holds the event log."""


def _lock(path: str) -> list:
    """Hold exclusive locks on ``path + '.lock'`` and on the database file ``path`` itself
    (created empty if missing: SQLite takes an empty file as a new database); returns the
    open files, to close when the store closes. ``path`` is a real path (links resolved); the
    database file's own lock (an ``flock``, which SQLite's POSIX record locks do not touch)
    also refuses a hard link to the same file under another name."""
    lock_path = path + ".lock"
    try:  # never through a link: the lock file is truncated and written
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError:
        if os.path.islink(lock_path):
            raise OSError(f"the lock file {lock_path} is a symbolic link: remove it") from None
        raise
    f = open(fd, "r+", encoding="utf-8", errors="replace")  # noqa: SIM115 - held for life
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return [f]
    held = [f]
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        # a read-only handle, kept open until SQLite has closed (closing another handle to
        # the file earlier would drop SQLite's own POSIX locks on it)
        db = open(os.open(path, os.O_RDONLY | os.O_CREAT, 0o644), "rb")  # noqa: SIM115
        held.append(db)
        fcntl.flock(db.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "unknown (the file is reached through another name)"
        for x in held:
            x.close()
        raise StoreLocked(f"the event log {path} is in use by another ratai server (pid "
                          f"{holder}); stop it or give --db another file") from None
    except OSError:
        for x in held:
            x.close()
        raise
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    return held


@contextlib.contextmanager
def _writing(what: str):
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"the event log could not record {what} ({exc}); nothing was "
                         f"recorded") from None

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      TEXT PRIMARY KEY,
    game    TEXT NOT NULL,
    params  TEXT NOT NULL,      -- JSON
    seed    TEXT NOT NULL,      -- decimal (up to 64 bits)
    seats   TEXT NOT NULL,      -- JSON list of {"kind", "display_name", "token_sha256", "bot"}
    status  TEXT NOT NULL,      -- active | finished | expired
    created REAL NOT NULL,
    updated REAL NOT NULL,
    owner   TEXT                -- the creating client's queue key ("peer:<host>"), or NULL
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
    #: why the row could not be read (a malformed header); None when it was
    error: str | None = None
    #: the creating client's queue key (``"peer:<host>"``); None if not recorded (a game
    #: created by a server before this column, or by a caller that named no owner)
    owner: str | None = None


class Store:
    """SQLite event log at ``path`` (``:memory:`` for tests). Thread-safe."""

    def __init__(self, path: str):
        self.path = path
        self._held: list = []
        if path != ":memory:":
            path = self.path = os.path.realpath(path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self._held = _lock(path)
        self._lock = threading.Lock()
        self._db = None
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            with self._lock:
                if path != ":memory:":
                    self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.executescript(_SCHEMA)
                cols = {r[1] for r in self._db.execute("PRAGMA table_info(games)")}
                if "owner" not in cols:   # an event log written before the column
                    self._db.execute("ALTER TABLE games ADD COLUMN owner TEXT")
                self._db.execute("SELECT count(*) FROM games").fetchone()
        except sqlite3.Error as exc:
            if self._db is not None:
                self._db.close()
            for x in self._held:
                x.close()
            why = ("no permission to write it or its directory" if "readonly" in str(exc)
                   else "not a ratai event log, or damaged")
            raise StoreError(f"cannot open the event log {path}: {exc} ({why}; give --db "
                             f"another file)") from None

    def create(self, game_id: str, game: str, params: dict, seed: int, seats: list,
               owner: str | None = None) -> None:
        """Record a new game (``owner``: the creating client's queue key, kept so a restart
        charges its bot seats and counts it against the same client's shares)."""
        now = time.time()
        with self._lock, _writing("the new game"):
            self._db.execute("INSERT INTO games (id, game, params, seed, seats, status, "
                             "created, updated, owner) VALUES (?,?,?,?,?,?,?,?,?)",
                             (game_id, game, json.dumps(params), str(seed), json.dumps(seats),
                              "active", now, now, owner))

    def append(self, game_id: str, seq: int, actor: int, action: int,
               finished: bool = False) -> None:
        """Record one action (and the game's end) in one transaction."""
        now = time.time()
        with self._lock, _writing("the move"):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT INTO events VALUES (?,?,?,?,?)",
                                 (game_id, seq, actor, action, now))
                self._db.execute("UPDATE games SET updated=?, status=? WHERE id=?",
                                 (now, "finished" if finished else "active", game_id))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def set_status(self, game_id: str, status: str) -> None:
        with self._lock, _writing("the game's status"):
            self._db.execute("UPDATE games SET status=?, updated=? WHERE id=?",
                             (status, time.time(), game_id))

    def load(self, status: str = "active", game_id: str | None = None) -> list[GameRecord]:
        """Every game with ``status`` (only ``game_id`` if given), with its actions in order.

        A row whose header does not parse comes back with ``error`` set (and empty fields),
        so one damaged game does not hide the others."""
        query = "SELECT id, game, params, seed, seats, status, owner FROM games WHERE status=?"
        args: tuple = (status,)
        if game_id is not None:
            query, args = query + " AND id=?", (status, game_id)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY created", args).fetchall()
            out = []
            for gid, game, params, seed, seats, st, owner in rows:
                ev = self._db.execute("SELECT seq, actor, action FROM events WHERE game_id=? "
                                      "ORDER BY seq", (gid,)).fetchall()
                try:
                    rec = GameRecord(gid, str(game), json.loads(params), int(seed),
                                     json.loads(seats), st, [int(a) for _, _, a in ev],
                                     [int(p) for _, p, _ in ev],
                                     owner=owner if isinstance(owner, str) else None)
                except (TypeError, ValueError) as exc:
                    rec = GameRecord(gid, str(game), {}, 0, [], st, [], [],
                                     error=f"malformed row: {type(exc).__name__}: {exc}")
                out.append(rec)
        return out

    def actions(self, game_id: str) -> list[int]:
        with self._lock:
            return [a for (a,) in self._db.execute(
                "SELECT action FROM events WHERE game_id=? ORDER BY seq", (game_id,))]

    def close(self) -> None:
        with self._lock:
            self._db.close()
            for x in self._held:  # after SQLite: releases the flocks
                x.close()
            self._held = []
