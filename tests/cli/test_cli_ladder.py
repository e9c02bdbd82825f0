"""``ratai ladder`` (issue 14 item 5): the seat-rotated rated round robin, its schedule's
fairness, the table and plot it writes, and its one-line errors."""

from __future__ import annotations

import io
import itertools
import json
import math
import sys
from collections import Counter

import pytest

from ratai.arena import wilson_interval
from ratai.cli import main
from ratai.engines import load_game
from ratai.ladder import (
    ENTRANTS,
    Entrant,
    game_cost,
    head_to_head,
    resolve_entrants,
    run_ladder,
    schedule,
)


@pytest.mark.parametrize("entrants,players,per_table", [
    (5, 2, 2), (5, 2, 3), (4, 3, 3), (6, 3, 4), (5, 4, 4), (4, 4, 1), (2, 3, 2), (3, 5, 6),
])
def test_schedule_is_seat_fair(entrants, players, per_table):
    """Every entrant sits in every seat equally often; at N >= n every n-subset is a table
    played in every cyclic rotation, so every pair meets equally often."""
    games = schedule(entrants, players, per_table)
    seat_counts = Counter((e, s) for g in games for s, e in enumerate(g))
    assert len({seat_counts[(e, s)] for e in range(entrants) for s in range(players)}) == 1
    if entrants >= players:
        rounds = math.ceil(per_table / players)
        assert len(games) == math.comb(entrants, players) * players * rounds
        tables = Counter(frozenset(g) for g in games)
        assert set(tables) == {frozenset(t) for t in
                               itertools.combinations(range(entrants), players)}
        assert set(tables.values()) == {players * rounds}
        pairs = Counter(frozenset(p) for g in games for p in itertools.combinations(g, 2))
        assert len(set(pairs.values())) == 1
        assert len(pairs) == math.comb(entrants, 2)
    else:
        assert len(games) == entrants * math.ceil(per_table / entrants)


def test_schedule_two_players_alternates_seats_in_every_pair():
    games = schedule(3, 2, 4)
    for a, b in itertools.combinations(range(3), 2):
        assert sum(g == [a, b] for g in games) == sum(g == [b, a] for g in games) == 2


def test_schedule_bad_sizes():
    with pytest.raises(ValueError, match="at least 2 entrants"):
        schedule(1, 2, 2)
    with pytest.raises(ValueError, match="games per table"):
        schedule(3, 2, 0)


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(8, 10)  # textbook value: [0.490, 0.943]
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(0, 10)[1] > 0.2
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_entrants_resolve_by_game_and_note_missing_az():
    """{rollout} is mcts on perfect-information titles, ismcts otherwise; az entrants are
    kept with a note when the kind or a packaged model is missing, never silently."""
    from ratai.bots import BOT_KINDS

    fr, rt = load_game("first_rat", num_players=2), load_game("rat_trap", num_players=2)
    assert fr.perfect_information and not rt.perfect_information
    assert [e.spec for e in resolve_entrants(fr, kinds=["rollout"])] == \
        ["mcts:100", "mcts:1000", "mcts:10000"]
    rt_ents = resolve_entrants(rt)
    assert [e.spec for e in rt_ents][:5] == ["random", "heuristic", "ismcts:100",
                                               "ismcts:1000", "ismcts:10000"]
    az = [e for e in rt_ents if e.spec.startswith("az")]
    assert [e.spec for e in az] == ["az:100", "az:1000", "az:10000", "az:0.1s", "az:1s"]
    if "az" not in BOT_KINDS:
        assert all(e.note and "not installed" in e.note for e in az)
    scaled = resolve_entrants(rt, ENTRANTS, kinds=["ismcts", "az"], budget_scale=0.01)
    assert [e.spec for e in scaled][:3] == ["ismcts:1", "ismcts:10", "ismcts:100"]
    assert "az:0.01s" in [e.spec for e in scaled]
    with pytest.raises(ValueError, match=r"unknown bot kind\(s\) \['oracle'\]"):
        resolve_entrants(rt, kinds=["oracle"])
    with pytest.raises(ValueError, match="budget scale"):
        resolve_entrants(rt, budget_scale=0)


def test_run_ladder_tiny_budget_rates_every_entrant():
    ents = [Entrant("random"), Entrant("heuristic"), Entrant("ismcts:5"),
            Entrant("az:10", note="no model")]
    seen = []
    res = run_ladder("rat_trap", {"num_players": 3}, ents, games_per_table=3, seed=2,
                     on_record=lambda rec, cost: seen.append(cost))
    assert res.entrants == ["random", "heuristic", "ismcts:5"]
    assert [e.spec for e in res.skipped] == ["az:10"]
    assert len(res.records) == 3 and len(seen) == 3  # one 3-subset, 3 rotations
    assert all(c == game_cost(r["seats"]) for c, r in zip(seen, res.records, strict=True))
    assert {r.bot for r in res.rows} == set(res.entrants)
    for row in res.rows:
        assert row.games == 3 and row.wilson95[0] <= row.win_rate <= row.wilson95[1]
    assert sum(r.wins for r in res.rows) == pytest.approx(3.0)
    search = res.row("ismcts:5")
    assert search.decisions > 0 and search.seconds_per_move > 0
    h2h = head_to_head(res.records, res.entrants)
    assert h2h[("random", "heuristic")][0] + h2h[("heuristic", "random")][0] == \
        pytest.approx(1.0)


def test_ladder_cli_writes_table_plot_and_records(tmp_path):
    pytest.importorskip("matplotlib")
    out = io.StringIO()
    d = tmp_path / "lad"
    code = main(["ladder", "ratapolis", "--players", "2", "--quick", "--out", str(d),
                 "--kinds", "random,heuristic,rollout", "--seed", "3"], out)
    assert code == 0
    text = (d / "ladder.md").read_text()
    assert "| rank | entrant | rating mu | sigma |" in text and "95% Wilson" in text
    for spec in ("random", "heuristic", "ismcts:1", "ismcts:10", "ismcts:100"):
        assert f"| {spec} |" in text
    assert "ratai ladder ratapolis --players 2 --quick" in text
    summary = json.loads((d / "ladder.json").read_text())
    assert summary["games"] == 20 and summary["players"] == 2  # 10 pairs x 2 seat orders
    assert len((d / "records.jsonl").read_text().splitlines()) == 20
    assert (d / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv,needle", [
    (["ladder", "chess"], "chess"),
    (["ladder", "rat_trap", "--kinds", "oracle", "--quick"], "unknown bot kind(s) ['oracle']"),
    (["ladder", "rat_trap", "--entrants", "random,ismcts:x"], "budget must be an int"),
    (["ladder", "rat_trap", "--entrants", "random", "--quick"], "at least 2"),
    (["ladder", "rat_trap", "--games-per-pair", "0"], "games-per-pair"),
    (["ladder", "rat_trap", "--players", "9"], "num_players"),
    (["ladder", "rat_trap", "--budget-scale", "0"], "budget-scale"),
    (["ladder", "rat_trap", "--entrants", "level:11,random"], "1..10"),
])
def test_ladder_bad_input_is_one_line_exit_2(argv, needle, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv, io.StringIO())
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("ratai: ") and err.count("\n") == 1 and needle in err


def test_calibrate_levels_refuses_scaled_budgets(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["ladder", "rat_trap", "--quick", "--out", str(tmp_path / "x"),
              "--calibrate-levels", str(tmp_path / "levels.json")], io.StringIO())
    assert info.value.code == 2 and "real budgets" in capsys.readouterr().err
    assert not (tmp_path / "levels.json").exists()


def test_calibrate_levels_keeps_levels_monotone(tmp_path):
    """Searches are walked in budget order; one measured significantly weaker than the
    level below is dropped; the heuristic goes below the first search rated above it; the
    top levels repeat the strongest (with a note)."""
    from ratai.arena import Standing
    from ratai.bots.levels import LEVEL_CANDIDATES
    from ratai.ladder import LadderResult, calibrate_levels

    specs = [c.replace("{rollout}", "ismcts") for c in LEVEL_CANDIDATES]

    def levels(mu_list):
        rows = [Standing(s, games=10, wins=5, returns=[0.5] * 10, mu=m, sigma=2.0)
                for s, m in zip(specs, mu_list, strict=True)]
        res = LadderResult("rat_trap", {"num_players": 2}, 2, 2, 0, specs, [],
                           [{"moves": 1}], rows, 1.0, command="ratai ladder rat_trap")
        return calibrate_levels(res, tmp_path / "levels.json")

    # random, heuristic, ismcts:10, 30, 100, 300, 1000, 3000, 10000
    entry = levels([20, 25, 22, 24, 26, 28, 30, 29, 33])
    assert [r["spec"] for r in entry["levels"]] == [
        "random", "ismcts:10", "ismcts:30", "heuristic", "ismcts:100", "ismcts:300",
        "ismcts:1000", "ismcts:3000", "ismcts:10000", "ismcts:10000"]
    assert "note" in entry["levels"][9] and entry["dropped"] == []
    assert entry["inversions"] == [[7, 8]]  # 30 -> 29: within the noise, kept
    entry = levels([20, 5, 10, 24, 26, 28, 30, 31, 33])  # heuristic and ismcts:10 too weak
    assert [r["spec"] for r in entry["levels"]][:3] == ["random", "ismcts:30", "ismcts:100"]
    assert [d["spec"] for d in entry["dropped"]] == ["ismcts:10", "heuristic"]
    assert [r["spec"] for r in entry["levels"]][7:] == ["ismcts:10000"] * 3
    table = json.loads((tmp_path / "levels.json").read_text())
    assert list(table["games"]) == ["rat_trap"]


def test_calibrate_levels_puts_az_above_in_budget_order(tmp_path):
    """Entrants outside the candidates (az) rated above the last level follow it in budget
    order, under the same rule: within the noise kept (an inversion), significantly weaker
    dropped; level 10 is the largest budget kept."""
    from ratai.arena import Standing
    from ratai.ladder import LadderResult, calibrate_levels

    specs = ["random", "heuristic", "mcts:10", "mcts:30", "mcts:100", "mcts:300", "mcts:1000",
             "az:3000", "az:300", "az:1000", "az:10000"]
    mus = [5, 13, 14, 16, 24, 35, 36, 47, 40, 48, 30]
    rows = [Standing(s, games=32, wins=16, returns=[0.5] * 32, mu=m, sigma=2.0)
            for s, m in zip(specs, mus, strict=True)]
    res = LadderResult("first_rat", {"num_players": 2}, 2, 2, 0, specs, [], [{"moves": 1}],
                       rows, 1.0)
    entry = calibrate_levels(res, tmp_path / "levels.json")
    assert [r["spec"] for r in entry["levels"]] == [
        "random", "heuristic", "mcts:10", "mcts:30", "mcts:100", "mcts:300", "mcts:1000",
        "az:300", "az:1000", "az:3000"]
    assert entry["inversions"] == [[9, 10]]   # 48 -> 47, within the noise
    assert entry["dropped"] == []             # az:10000 (30) is not above mcts:1000 (36)


def test_from_run_re_rates_a_saved_ladder(tmp_path, capsys):
    d = tmp_path / "run"
    assert main(["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot",
                 "--kinds", "random,heuristic", "--out", str(d)], io.StringIO()) == 0
    again = tmp_path / "again"
    assert main(["ladder", "rat_trap", "--from-run", str(d), "--out", str(again),
                 "--no-plot"], io.StringIO()) == 0
    first = json.loads((d / "ladder.json").read_text())
    assert json.loads((again / "ladder.json").read_text())["standings"] == first["standings"]
    assert main(["ladder", "rat_trap", "--players", "2", "--from-run", str(d), "--out",
                 str(again), "--no-plot"], io.StringIO()) == 0  # the run's own count
    for argv, needle in ((["ladder", "ratapolis", "--from-run", str(d)], "a rat_trap ladder"),
                         (["ladder", "rat_trap", "--from-run", str(tmp_path)], "bad ladder run"),
                         # a table of another player count was written from a 2-player run
                         (["ladder", "rat_trap", "--players", "3", "--from-run", str(d)],
                          "a 2-player ladder, not --players 3"),
                         (["ladder", "rat_trap", "--param", "tie_break=extra_round",
                           "--from-run", str(d)], 'tie_break="shared"'),
                         (["ladder", "rat_trap", "--from-run", str(d), "--seed", "4",
                           "--workers", "2"], "plays nothing")):
        with pytest.raises(SystemExit) as info:
            main(argv, io.StringIO())
        err = capsys.readouterr().err
        assert info.value.code == 2 and needle in err and err.count("\n") == 1


def test_calibrate_levels_from_a_partial_candidate_set(tmp_path):
    from ratai.arena import Standing
    from ratai.ladder import LadderResult, calibrate_levels

    specs = ["random", "heuristic", "mcts:10"]
    rows = [Standing(s, games=4, wins=2, returns=[0.5] * 4, mu=m, sigma=3.0)
            for s, m in zip(specs, [20, 21, 30], strict=True)]
    res = LadderResult("first_rat", {"num_players": 2}, 2, 2, 0, specs, [], [{"moves": 1}],
                       rows, 1.0)
    entry = calibrate_levels(res, tmp_path / "levels.json")
    assert [r["spec"] for r in entry["levels"]] == ["random", "heuristic"] + ["mcts:10"] * 8
    assert entry["not_measured"] == ["mcts:30", "mcts:100", "mcts:300", "mcts:1000",
                                     "mcts:3000", "mcts:10000"]
    with pytest.raises(ValueError, match="needs random and at least one more"):
        calibrate_levels(LadderResult("first_rat", {"num_players": 2}, 2, 2, 0,
                                      ["heuristic", "mcts:10"], [], [], rows[1:], 1.0),
                         tmp_path / "x.json")


def test_az_entrants_need_the_kind_and_a_fitting_packaged_model(monkeypatch, tmp_path):
    """With the kind installed, an az entrant plays only when ``ratai.nn.packaged(game)``
    ships a model whose ``check_game`` accepts the game (else a note naming why)."""
    import sys
    import types

    from ratai import bots

    fake = types.ModuleType("ratai.nn")
    model_file = tmp_path / "rat_trap.npz"
    model_file.write_bytes(b"x")

    class Model:
        @classmethod
        def load(cls, path):
            return cls()

        def check_game(self, game):
            if game.num_players() != 2:
                raise ValueError(f"player count {game.num_players()} not in players [2]")

    fake.Model = Model
    fake.packaged = lambda game: model_file if game.name == "rat_trap" else None
    monkeypatch.setitem(sys.modules, "ratai.nn", fake)
    monkeypatch.setitem(bots.BOT_KINDS, "az", bots.BOT_KINDS["ismcts"])
    notes = {g: {e.spec: e.note for e in resolve_entrants(load_game(g, num_players=n),
                                                           kinds=["az"])}
             for g, n in (("rat_trap", 2), ("ratapolis", 2))}
    assert set(notes["rat_trap"].values()) == {None}
    assert all("no packaged az model for ratapolis" in v for v in notes["ratapolis"].values())
    three = resolve_entrants(load_game("rat_trap", num_players=3), kinds=["az"])
    assert all("does not fit: player count 3" in e.note for e in three)


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if the ladder starts playing (bad input must be refused first)."""
    import ratai.ladder

    def played(*args, **kwargs):
        pytest.fail("a game was played before the bad input was refused")

    monkeypatch.setattr(ratai.ladder, "run_schedule", played)


def test_schedule_refuses_a_solo_game():
    with pytest.raises(ValueError, match="at least 2 seats"):
        schedule(3, 1, 2)


def test_every_kind_asked_for_must_match_an_entrant():
    """A misspelt kind beside good ones is refused, not dropped (it used to play the ladder
    without it); so is a known kind none of the entrants has."""
    rt = load_game("rat_trap", num_players=2)
    with pytest.raises(ValueError, match=r"unknown bot kind\(s\) \['mtcs'\]"):
        resolve_entrants(rt, kinds=["random", "mtcs"])
    with pytest.raises(ValueError, match="--kinds expectimax match no entrant"):
        resolve_entrants(rt, kinds=["random", "expectimax"])
    assert [e.spec for e in resolve_entrants(rt, ["random", "level:3"], kinds=["level"])] \
        == ["level:3"]


def test_resolve_entrants_refuses_an_unknown_kind_but_notes_az():
    rt = load_game("rat_trap", num_players=2)
    with pytest.raises(ValueError, match="unknown bot kind 'ismtcs'"):
        resolve_entrants(rt, ["random", "heuristic", "ismtcs:100"], budget_scale=0.01)
    with pytest.raises(ValueError, match="unknown bot kind 'ismtcs'"):  # whatever --kinds
        resolve_entrants(rt, ["random", "ismtcs:100"], kinds=["random"])
    ents = resolve_entrants(rt, ["random", "az:100"])
    assert [e.spec for e in ents] == ["random", "az:100"]  # az: kept, with a note or not


@pytest.mark.parametrize("argv,needle", [
    (["ladder", "first_rat", "--players", "1", "--quick"], "at least 2 seats"),
    (["ladder", "first_rat", "--variant", "solo-medium", "--quick"], "at least 2 seats"),
    (["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot", "--entrants",
      "random,heuristic,ismtcs:100"], "unknown bot kind 'ismtcs'"),
    (["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot", "--kinds",
      "random,heuristic", "--out", "{tmp}/file/x"], "not a directory"),
    (["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot", "--kinds",
      "random,heuristc"], "unknown bot kind(s) ['heuristc']"),
    (["ladder", "rat_trap", "--players", "2", "--quick", "--kinds", "random,heuristic",
      "{no-matplotlib}"], "ladder.png (or pass --no-plot) needs matplotlib"),
])
def test_ladder_refuses_before_playing(argv, needle, no_games, tmp_path, capsys, monkeypatch):
    """A solo game, a misspelled entrant or --kinds kind, an unusable --out and a plot
    without matplotlib are one-line errors (exit 2) before any game is played, and nothing
    is written."""
    (tmp_path / "file").write_text("")
    out_dir = tmp_path / "out"
    if "{no-matplotlib}" in argv:
        argv.remove("{no-matplotlib}")
        monkeypatch.setitem(sys.modules, "matplotlib", None)  # find_spec: not installed
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(out_dir)]
    with pytest.raises(SystemExit) as info:
        main(argv, io.StringIO())
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("ratai: ") and err.count("\n") == 1
    assert needle in err, err
    assert not out_dir.exists()


def test_ladder_out_may_be_a_new_nested_directory(tmp_path):
    d = tmp_path / "a" / "b" / "lad"
    assert main(["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot", "--kinds",
                 "random,heuristic", "--out", str(d)], io.StringIO()) == 0
    assert len((d / "records.jsonl").read_text().splitlines()) == 2


def test_the_table_line_says_how_fewer_entrants_than_seats_are_seated():
    """Stop 50 (newcomer): 4 entrants at 5 seats read "every 5-subset of 4 entrants"; the
    schedule is one table where some entrants take two seats of a game by rotation."""
    from ratai.ladder import _tables

    assert _tables(4, 5) == ("one table of all 4 entrants, some in two seats of a game by "
                             "rotation")
    assert _tables(4, 2) == "every pair of 4 entrants"
    assert _tables(6, 3) == "every 3-subset of 6 entrants"


def test_an_interrupted_ladder_keeps_its_finished_games(tmp_path, monkeypatch, capsys):
    """A newcomer's Ctrl-C after 8 s of a long ladder left no output directory at all (the
    arena kept its finished games). The ladder writes the finished games' records and
    standings (a note says how many), which ``--from-run`` re-rates; exit 130."""
    import ratai.ladder

    real = ratai.ladder.run_schedule

    def interrupted(game_name, params, seatings, *, on_record, **kw):
        real(game_name, params, seatings[:3], on_record=on_record, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(ratai.ladder, "run_schedule", interrupted)
    out_dir = tmp_path / "lad"
    with pytest.raises(SystemExit) as exc:
        main(["ladder", "rat_trap", "--players", "2", "--entrants", "random,heuristic",
              "--games-per-pair", "40", "--out", str(out_dir), "--no-plot"], io.StringIO())
    assert exc.value.code == 130
    err = capsys.readouterr().err
    assert "3 of 40 games finished" in err and err.strip().endswith("ratai: interrupted")
    records = (out_dir / "records.jsonl").read_text().splitlines()
    assert [json.loads(r)["index"] for r in records] == [0, 1, 2]
    assert "interrupted: 3 of 40 games" in (out_dir / "ladder.md").read_text()
    monkeypatch.setattr(ratai.ladder, "run_schedule", real)
    text = io.StringIO()
    assert main(["ladder", "rat_trap", "--players", "2", "--from-run", str(out_dir),
                 "--no-plot"], text) == 0
    assert "\n3 games (seed 0;" in text.getvalue()
    # re-rated, it is still marked partial, and no levels are calibrated from it
    assert "interrupted: 3 of 40 games" in text.getvalue()
    assert json.loads((out_dir / "ladder.json").read_text())["interrupted_of"] == 40
    with pytest.raises(SystemExit, match="interrupted after 3 of 40"):
        main(["ladder", "rat_trap", "--players", "2", "--from-run", str(out_dir), "--no-plot",
              "--calibrate-levels", str(tmp_path / "levels.json")], io.StringIO())
