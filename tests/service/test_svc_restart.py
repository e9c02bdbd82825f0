"""Persistence (issue 5, Tests: restart): stop a server mid-game, start a new one on the same
SQLite file, finish the game; bot seats continue and nothing acknowledged is lost."""

from __future__ import annotations

import random

from conftest import running_server
from svc_helpers import play_to_end

from ratai.client import Client
from ratai.engines import load_game


def test_restart_and_continue(tmp_path):
    db = str(tmp_path / "games.sqlite3")
    with running_server(db=db, workers=0) as srv, Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", ["human", {"kind": "ismcts", "iterations": 3},
                                             "random"], seed=5)
        gid, tok = created.game_id, created.seat_tokens[0].token
        rng = random.Random(1)
        for _ in range(10):  # a few human moves, each acknowledged
            view = c.get_state(gid, tok)
            while not view.your_turn and not view.is_terminal:
                view = c.get_state(gid, tok)
            r = c.apply_action(gid, tok, rng.choice(view.legal_actions).action,
                               expected_move_number=view.move_number)
        acknowledged = r.applied_at
        before = srv.store.actions(gid)
    with running_server(db=db, workers=0) as srv2, Client(f"127.0.0.1:{srv2.port}") as c:
        view = c.get_state(gid, tok)  # same id and token after the restart
        after = srv2.store.actions(gid)
        assert after[: len(before)] == before and len(before) > acknowledged
        assert view.move_number >= len(before)
        final = play_to_end(c, gid, {0: tok}, seed=2)
        replay = load_game("rat_trap").state_from_history(srv2.store.actions(gid))
        assert list(final.scores) == replay.scores()
    with running_server(db=db, workers=0) as srv3:
        assert len(srv3.manager) == 0  # finished games are not reloaded


def test_memory_db_and_expiry():
    with running_server(workers=0, idle_expiry_s=3600) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        created = c.create_game("rat_trap", ["human"] * 3)
        s = srv.manager.get(created.game_id)
        assert srv.manager.expire_idle(now=s.last_used + 7200) == [created.game_id]
        try:
            c.get_state(created.game_id)
        except Exception as exc:  # noqa: BLE001
            assert exc.code().name == "NOT_FOUND"
        else:
            raise AssertionError("expired game still served")
