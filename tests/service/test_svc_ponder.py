"""Hosted bot seats that ponder (issue 13, item 6): ``--ponder`` (off by default).

The policy: a worker ponders only while it has no job (every job halts its ponder first),
with at most one process worker per core; thread workers never ponder.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from conftest import running_server
from svc_helpers import play_to_end

from ratai.engines import load_game
from ratai.service import worker as W
from ratai.service.catalog import BotConfig
from ratai.service.config import ConfigError, Limits, ServerConfig, check_config, parse_args


def _job(state, seat, key="g:1", seconds=5.0, iterations=400, kind="ismcts"):
    return W.SearchJob("rat_trap", {}, state.serialize(), seat,
                       BotConfig(kind, iterations=iterations, seed=3),
                       time_limit=5.0, ponder_key=key, ponder_seconds=seconds)


def _advance(state, seat, rng):
    while not state.is_terminal() and (state.current_player() != seat
                                       or len(state.legal_actions()) < 2):
        if state.is_chance_node():
            outs = state.chance_outcomes()
            state.apply_action(outs[rng.choice(len(outs), p=[p for _, p in outs])][0])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("kind", ["ismcts", "az"])
def test_worker_keeps_the_seat_bot_ponders_and_yields_to_every_job(kind):
    game = load_game("rat_trap")
    rng = np.random.default_rng(2)
    s = game.new_initial_state()
    _advance(s, 1, rng)
    try:
        res = W.run_search(_job(s, 1, kind=kind), lambda: False, None)
        conf, bot = W._KEPT["g:1"]
        th = bot._ponder_thread
        assert th is not None and th.is_alive()          # pondering while the worker idles
        other = W.SearchJob("rat_trap", {}, s.serialize(), 1,
                            BotConfig("ismcts", iterations=50, seed=1), time_limit=5.0)
        W.run_search(other, lambda: False, None)          # any job stops it first
        assert not th.is_alive()
        s.apply_action(res.analysis.best_action)
        _advance(s, 1, rng)
        again = W.run_search(_job(s, 1, kind=kind), lambda: False, None)
        assert W._KEPT["g:1"][1] is bot                   # the same bot, its tree reused
        assert again.analysis.iterations == 400
        assert sum(m.visits for m in again.analysis.moves) > 400  # kept and pondered visits
        # a changed configuration gets a new bot
        W.run_search(_job(s, 1, iterations=300, kind=kind), lambda: False, None)
        assert W._KEPT["g:1"][1] is not bot
        # at most MAX_KEPT kept bots per worker
        for k in range(W.MAX_KEPT + 1):
            W.run_search(_job(s, 1, key=f"k{k}", iterations=20), lambda: False, None)
        assert len(W._KEPT) == W.MAX_KEPT
    finally:
        W.halt_ponders()
        for _, b in list(W._KEPT.values()):
            b.close()
        W._KEPT.clear()


def test_ponder_flag_is_off_by_default_and_checked():
    assert Limits().ponder is False
    assert parse_args([]).limits.ponder is False
    cfg = parse_args(["--ponder", "--workers", "1", "--ponder-seconds", "2"])
    assert cfg.limits.ponder and cfg.limits.ponder_seconds == 2.0
    with pytest.raises(ConfigError, match="--ponder needs process workers"):
        check_config(ServerConfig(limits=Limits(ponder=True, workers=0)))
    with pytest.raises(ConfigError, match="--ponder needs process workers"):
        check_config(ServerConfig(limits=Limits(ponder=True, workers=(os.cpu_count() or 1)
                                                + 1)))


def test_hosted_game_with_pondering_bot_seats_plays_to_the_end():
    with running_server(max_seconds=5.0, ponder=True, ponder_seconds=1.0) as srv:
        from ratai.client import Client
        with Client(f"127.0.0.1:{srv.port}", timeout=30) as c:
            created = c.create_game("rat_trap", ["human", {"kind": "ismcts", "time_limit_s": 0.02},
                                                 {"kind": "az", "iterations": 200}], seed=4)
            tokens = {t.seat: t.token for t in created.seat_tokens}
            final = play_to_end(c, created.game_id, tokens, seed=1)
            replay = load_game("rat_trap").state_from_history(srv.store.actions(created.game_id))
            assert replay.is_terminal() and list(final.scores) == replay.scores()
