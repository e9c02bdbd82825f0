"""``ratai demo``: every game hosted over gRPC, played to the end, event logs replayed."""

from __future__ import annotations

import io

from ratai.cli import main
from ratai.demo import LINEUP
from ratai.engines import registered_games


def test_demo_plays_every_game_and_replays_its_log():
    out = io.StringIO()
    code = main(["demo", "--seed", "3", "--workers", "1"], out)
    text = out.getvalue()
    assert code == 0, text
    assert "every event log replays to the served scores" in text
    assert "Hint for seat 0" in text and "win chance" in text
    for game in registered_games():
        assert game[:10] in text


def test_demo_lineup_covers_every_registered_game():
    assert sorted(name for name, _, _ in LINEUP) == registered_games()
