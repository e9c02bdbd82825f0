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
