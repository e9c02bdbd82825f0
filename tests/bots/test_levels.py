"""``level=1..10`` presets (issue 14 item 5): one calibrated table for every game, level 1
random, the searches monotone in budget, no level measurably weaker than the one below,
used by ``make_bot``, the CLI (``level:L``) and the engine; bad levels are clear errors."""

from __future__ import annotations

import io
import math

import pytest

from ratai.arena import BotSpec
from ratai.bots import BOT_KINDS, make_bot
from ratai.bots.levels import (
    LEVEL_CANDIDATES,
    MAX_LEVEL,
    MIN_LEVEL,
    check_level,
    level_entry,
    level_spec,
    level_table,
)
from ratai.cli import main
from ratai.engines import load_game, registered_games

#: order of the search kinds a level may use (az above the rollout searches)
KIND_ORDER = {"mcts": 0, "ismcts": 0, "az": 1}


@pytest.mark.parametrize("game", registered_games())
def test_every_game_has_levels_1_to_10_monotone_in_budget(game):
    entry = level_table()["games"][game]
    levels = entry["levels"]
    assert [row["level"] for row in levels] == list(range(MIN_LEVEL, MAX_LEVEL + 1))
    g = load_game(game, **entry["params"])
    rollout = "mcts" if g.perfect_information else "ismcts"
    assert entry["players"] == g.num_players() and entry["games"] > 0
    assert entry["command"].startswith(f"ratai ladder {game} ")
    prev = None
    for row in levels:
        spec = BotSpec.parse(row["spec"])
        assert spec.kind in ("random", "heuristic", rollout, "az"), row
        if spec.kind in (rollout, "az"):  # searches: monotone in budget, az above rollouts
            key = (KIND_ORDER[spec.kind], spec.iterations or 0, spec.time_limit or 0)
            assert prev is None or key >= prev, f"{game}: level {row['level']} " \
                                                f"{row['spec']} below a lower level"
            prev = key
        assert row["games"] > 0 and 0 <= row["wilson95"][0] <= row["win_rate"] <= \
            row["wilson95"][1] <= 1
        assert row["mu"] - 3 * row["sigma"] == pytest.approx(row["ordinal"], abs=0.05)
    # the calibration keeps no level measurably weaker (95%) than the one below
    for a, b in zip(levels, levels[1:], strict=False):
        assert a["mu"] - b["mu"] <= 1.96 * math.hypot(a["sigma"], b["sigma"]), (game, a, b)
    # every candidate is a level, was dropped with its measurement, or is listed unmeasured
    specs = {row["spec"] for row in levels} | {d["spec"] for d in entry["dropped"]} | \
        set(entry.get("not_measured", ()))
    assert {BotSpec.parse(c.replace("{rollout}", rollout)).label
            for c in LEVEL_CANDIDATES} <= specs
    assert levels[0]["spec"] == "random"


@pytest.mark.parametrize("game", registered_games())
def test_make_bot_level_builds_the_table_spec(game):
    g = load_game(game, num_players=2)
    for level in (1, 5, 10):
        spec = BotSpec.parse(level_spec(game, level))
        bot = make_bot("level", g, 1, level=level, seed=3)
        assert type(bot) is BOT_KINDS[spec.kind]
        if spec.iterations is not None:
            assert bot.budget.iterations == spec.iterations


def test_level_spec_in_arena_and_bot_spec_syntax():
    spec = BotSpec.parse("level:3")
    assert spec.level == 3 and spec.label == "level:3"
    g = load_game("rat_trap", num_players=2)
    want = BotSpec.parse(level_spec("rat_trap", 3))
    assert type(spec.make(g, 0, 1)) is BOT_KINDS[want.kind]


@pytest.mark.parametrize("bad", [0, 11, -1, "x", 2.5, True, None])
def test_bad_levels_are_value_errors(bad):
    with pytest.raises(ValueError, match=r"1\.\.10"):
        check_level(bad)
    g = load_game("rat_trap")
    with pytest.raises(ValueError):
        make_bot("level", g, 0, level=bad)


def test_level_with_budget_or_other_kind_or_unknown_game():
    g = load_game("rat_trap")
    with pytest.raises(ValueError, match="sets its own budget"):
        make_bot("level", g, 0, level=3, iterations=50)
    with pytest.raises(ValueError, match="needs bot kind 'level'"):
        make_bot("ismcts", g, 0, level=3, iterations=50)
    with pytest.raises(ValueError, match="no calibrated levels for game 'chess'"):
        level_entry("chess", 3)
    with pytest.raises(ValueError, match="level:L"):
        BotSpec.parse("level:3:500")


@pytest.mark.parametrize("spec", ["level:0", "level:11", "level:x", "level"])
def test_cli_bad_level_is_one_line_exit_2(spec, capsys):
    with pytest.raises(SystemExit) as info:
        main(["arena", "rat_trap", "--bots", f"random,{spec}", "--games", "1"], io.StringIO())
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("ratai: ") and err.count("\n") == 1 and "1..10" in err


def test_cli_arena_plays_levels():
    out = io.StringIO()
    assert main(["arena", "ratapolis", "--players", "2", "--bots", "level:1,level:3",
                 "--games", "2"], out) == 0
    assert "| level:3 |" in out.getvalue() and "| level:1 |" in out.getvalue()


def _decision_history(game, seed: int = 0) -> list[int]:
    import numpy as np

    from ratai.engines.api import sample_chance_outcome

    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.current_player() < 0 or len(state.legal_actions()) < 2:
        if state.current_player() < 0:
            state.apply_action(sample_chance_outcome(state, rng))
        else:
            state.apply_action(state.legal_actions()[0])
    return [int(a) for a in state.history()]


def test_engine_query_accepts_a_level():
    import json

    from ratai.engine import run_engine

    hist = _decision_history(load_game("rat_trap"))
    inp = io.StringIO(json.dumps({"id": "a", "game": "rat_trap", "history": hist,
                                  "bot": "level:4"}) + "\n" +
                      json.dumps({"id": "b", "game": "rat_trap", "history": hist,
                                  "bot": "level:4", "iterations": 10}) + "\n")
    out = io.StringIO()
    run_engine(inp, out, 1)
    answers = {d["id"]: d for d in map(json.loads, out.getvalue().splitlines())
               if not d.get("is_during_search")}
    assert "error" in answers["b"] and "own budget" in answers["b"]["error"]
    assert "error" not in answers["a"]
    want = BotSpec.parse(level_spec("rat_trap", 4))
    assert answers["a"]["kind"] == want.kind


@pytest.mark.parametrize("game,variant", [
    (g, v) for g in registered_games() for v in sorted(load_game(g).variants)])
def test_every_level_plays_every_named_variant(game, variant):
    """Levels were calibrated on default parameters; on a variant an ``az`` level whose
    packaged network does not fit falls back to the rollout search at the same budget, so
    ``make_bot("level", ...)`` builds for every level and variant (it raised ModelError on
    11 of the 24 variants before stop 46) and the bot answers."""
    g = load_game(game, **load_game(game).variants[variant])
    state = g.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for level in range(MIN_LEVEL, MAX_LEVEL + 1):
        spec = BotSpec.parse(level_spec(g, level))
        table = BotSpec.parse(level_spec(game, level))
        assert spec.iterations == table.iterations
        if spec.kind != table.kind:
            assert (table.kind, spec.kind) in (("az", "mcts"), ("az", "ismcts"))
        bot = make_bot("level", g, max(state.current_player(), 0), level=level, seed=1)
        assert type(bot) is BOT_KINDS[spec.kind]


def test_levels_on_the_joint_view_use_smmcts():
    """On Ratapolis' joint view (``simultaneous=True``) a tree-search level becomes
    ``smmcts`` at the same budget (ismcts cannot search a SIMULTANEOUS root)."""
    g = load_game("ratapolis", simultaneous=True)
    for level in range(MIN_LEVEL, MAX_LEVEL + 1):
        table = BotSpec.parse(level_spec("ratapolis", level))
        spec = BotSpec.parse(level_spec(g, level))
        want = "smmcts" if table.kind in ("mcts", "ismcts", "az", "pimc") else table.kind
        assert spec.kind == want and spec.iterations == table.iterations
