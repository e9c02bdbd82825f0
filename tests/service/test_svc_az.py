"""The service's ``az`` bot spec: its options are range-checked and a client cannot name a
model file on the server (only the packaged model is used)."""

from __future__ import annotations

import pytest

from ratai.engines import load_game
from ratai.service.catalog import BotConfig, check_bot
from ratai.service.config import Limits
from ratai.service.errors import InvalidArgument


def test_az_bot_spec_checks(tmp_path, monkeypatch):
    game = load_game("rats_to_riches", num_players=2)
    with pytest.raises(InvalidArgument, match="bot.options.model: not an option"):
        check_bot(game, 0, BotConfig("az", 10, options={"model": "/etc/passwd"}), Limits())
    with pytest.raises(InvalidArgument, match="bot.options.c_puct"):
        check_bot(game, 0, BotConfig("az", 10, options={"c_puct": -1.0}), Limits())
    check_bot(game, 0, BotConfig("az", 10, options={"temperature": 0.5}), Limits())
    import ratai.bots.az as az_bot
    from ratai.nn import Model

    small = Model.init("rats_to_riches", [2, 3], hidden=(8, 8), seed=0).save(
        tmp_path / "rr23.npz")
    monkeypatch.setattr(az_bot, "packaged", lambda game: small)  # a model of 2-3 players
    five = load_game("rats_to_riches", num_players=5)
    with pytest.raises(InvalidArgument, match="not 5"):
        check_bot(five, 0, BotConfig("az", 10, options={"temperature": 0.5}), Limits())


def test_a_fresh_worker_answers_a_short_az_hint_without_being_killed():
    """Workers load the packaged networks while they warm up: a tester's 0.05 s ``az`` hints
    on a fresh server all overran (the network was loaded inside the search's time) and got
    their workers killed, and the warm spare that replaced each one was cold again."""
    from conftest import running_server
    from svc_helpers import random_position

    from ratai.client import Client

    with running_server(workers=1, max_seconds=5) as srv, \
            Client(f"127.0.0.1:{srv.port}") as c:
        for name in ("rat_trap", "first_rat", "rats_to_riches", "ratapolis"):
            state = random_position(load_game(name), seat_wanted=0, seed=3)
            pos = c.position(name, 0, history=state.history())
            hint = c.suggest_move(position=pos, bot={"kind": "az", "time_limit": 0.05},
                                  timeout=10)
            assert hint.final and hint.best_action in state.legal_actions()
        assert srv.pool.kills == 0


def test_warming_a_worker_loads_every_packaged_network():
    """``worker._warm`` leaves each shipped network in the az bot's cache, so a worker's first
    ``az`` search does not pay for it (0.07-0.18 s, more than a 0.05 s hint's grace)."""
    from ratai.bots import az
    from ratai.engines import registered_games
    from ratai.nn import packaged
    from ratai.service.worker import _warm

    az._CACHE.clear()
    _warm()
    cached = {m.game_name for m in az._CACHE.values()}
    assert cached == {g for g in registered_games() if packaged(g) is not None}
