"""``BotSpec.level`` (issue 14 item 5): the service's strength presets resolve to the
game's calibrated kind and budget; a level outside 1..10, a level with a kind, budget or
options is ``INVALID_ARGUMENT``."""

from __future__ import annotations

import grpc
import pytest
from svc_helpers import random_position

from ratai.arena import BotSpec
from ratai.bots.levels import level_spec
from ratai.engines import load_game
from ratai.service import ratai_pb2 as pb
from ratai.service.catalog import BotConfig, check_bot
from ratai.service.config import Limits
from ratai.service.convert import bot_from_pb
from ratai.service.errors import InvalidArgument


def code_of(call, *args, **kw) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kw)
    return info.value.code(), info.value.details()


@pytest.mark.parametrize("level", [-1, 11, 1000])
def test_level_out_of_range_is_invalid_argument(level):
    with pytest.raises(InvalidArgument, match=r"bot.level .* \(1\.\.10; 0: not set\)"):
        bot_from_pb(pb.BotSpec(level=level), "ismcts")


def test_level_with_kind_budget_or_options_is_invalid_argument():
    with pytest.raises(InvalidArgument, match="sets the kind"):
        bot_from_pb(pb.BotSpec(kind="ismcts", level=3), "ismcts")
    with pytest.raises(InvalidArgument, match=r"bot.level 0 is not allowed"):
        bot_from_pb(pb.BotSpec(kind="level"), "ismcts")
    game = load_game("rat_trap")
    cfg = bot_from_pb(pb.BotSpec(level=3, iterations=50), "ismcts")
    with pytest.raises(InvalidArgument, match="iterations"):
        check_bot(game, 0, cfg, Limits(workers=0))
    cfg = BotConfig("level", level=3, options={"exploration": 1.0})
    with pytest.raises(InvalidArgument, match="options"):
        check_bot(game, 0, cfg, Limits(workers=0))


@pytest.mark.parametrize("level", [1, 2, 5, 9, 10])
def test_level_resolves_to_the_calibrated_spec(level):
    game = load_game("ratapolis")
    cfg = check_bot(game, 1, bot_from_pb(pb.BotSpec(level=level, seed=4), "ismcts"),
                    Limits(workers=0))
    want = BotSpec.parse(level_spec("ratapolis", level))
    assert (cfg.kind, cfg.iterations, cfg.time_limit, cfg.seed, cfg.level) == \
        (want.kind, want.iterations, want.time_limit, 4, level)
    assert cfg.describe()["level"] == level


def test_grpc_level_suggest_and_hosted_seat(client):
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=1)
    pos = client.position("rat_trap", 0, history=state.history())
    ok = client.suggest_move(position=pos, bot="level:3")
    assert ok.kind == BotSpec.parse(level_spec("rat_trap", 3)).kind
    assert ok.best_action in state.legal_actions()
    for bad in ({"level": 11}, {"kind": "level", "level": 0}, {"kind": "mcts", "level": 2},
                {"level": 4, "iterations": 10}):
        code, msg = code_of(client.suggest_move, position=pos, bot=bad)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "level" in msg, (bad, msg)
    created = client.create_game("rat_trap", ["human", {"level": 2}, {"level": 1}], seed=3)
    assert created.game_id
    code, msg = code_of(client.create_game, "rat_trap", ["human", {"level": 11}, "random"])
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "1..10" in msg


def test_client_reads_bot_spec_strings_as_everywhere_else():
    """README: a bot spec is ``KIND[:ITERATIONS|:SECONDSs]`` everywhere; the Python client
    sent ``"ismcts:500"`` as an unknown kind before."""
    from ratai.client import bot_spec

    assert bot_spec("ismcts") == pb.BotSpec(kind="ismcts")
    assert bot_spec("ismcts:500") == pb.BotSpec(kind="ismcts", iterations=500)
    assert bot_spec("mcts:0.25s") == pb.BotSpec(kind="mcts", time_limit_s=0.25)
    spec = bot_spec("mcts:40:exploration=0.7:rollout=random")
    assert (spec.kind, spec.iterations) == ("mcts", 40)
    assert dict(spec.options) == {"exploration": 0.7, "rollout": "random"}
    assert bot_spec("level:5") == pb.BotSpec(kind="level", level=5)
    for bad in ("ismcts:x", "level:11", ":5", "mcts:5:7"):
        with pytest.raises(ValueError, match="bot spec|level"):
            bot_spec(bad)


def test_grpc_suggest_with_a_budget_string(client):
    state = random_position(load_game("rat_trap"), seat_wanted=0, seed=2)
    pos = client.position("rat_trap", 0, history=state.history())
    hint = client.suggest_move(position=pos, bot="ismcts:40")
    assert hint.kind == "ismcts" and hint.iterations == 40
    assert hint.best_action in state.legal_actions()
