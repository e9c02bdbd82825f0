"""``ratai arena``: seat rotation, reproducible records, standings and ratings."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from ratai.arena import BotSpec, format_table, run_arena, seat_assignment, standings
from ratai.cli import main
from ratai.engines import load_game


def test_bot_spec_parsing():
    assert BotSpec.parse("ismcts:2000") == BotSpec("ismcts", iterations=2000)
    assert BotSpec.parse("mcts:0.5s") == BotSpec("mcts", time_limit=0.5)
    assert BotSpec.parse("random").label == "random"
    with pytest.raises(ValueError, match="budget"):
        BotSpec.parse("mcts:lots")
    spec = BotSpec.parse("expectimax:0.2s:determinizations=1:mode=paranoid")
    assert spec == BotSpec("expectimax", time_limit=0.2,
                           options=(("determinizations", 1), ("mode", "paranoid")))
    assert spec.label == 'expectimax:0.2s:determinizations=1:mode="paranoid"'
    with pytest.raises(ValueError, match="determinizations"):
        spec_bad = BotSpec.parse("pimc:0.1s:determinizations=1e300")
        spec_bad.make(load_game("rat_trap", num_players=2), 0, 1)
    with pytest.raises(ValueError, match="before the options"):
        BotSpec.parse("mcts:mode=x:10")
    # a tester's ``ismcts:500:iterations=10`` ran 500 iterations (the option was dropped):
    # a budget given twice, or any option given twice, is refused; seconds besides an
    # iterations= option are two limits, the first reached stops (as make_bot's)
    for bad, word in (("ismcts:500:iterations=10", "iterations= besides the budget"),
                      ("ismcts:0.5s:time_limit=1", "time_limit= besides the budget"),
                      ("ismcts:500:exploration=1:exploration=2", "given twice")):
        with pytest.raises(ValueError, match=word):
            BotSpec.parse(bad)
    assert BotSpec.parse("ismcts:0.5s:iterations=10").make(
        load_game("rat_trap"), 0, 1).budget.iterations == 10


def test_seats_rotate_between_games():
    assert [seat_assignment(3, 3, i) for i in range(3)] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert seat_assignment(2, 3, 1) == [1, 0, 1]


def test_records_replay_and_parallel_equals_serial():
    serial = run_arena("rat_trap", {"num_players": 3}, ["random"], 4, seed=9)
    parallel = run_arena("rat_trap", {"num_players": 3}, ["random"], 4, seed=9, workers=2)
    timing = ("seconds", "seat_seconds")
    strip = [{k: v for k, v in r.items() if k not in timing} for r in serial]
    assert strip == [{k: v for k, v in r.items() if k not in timing} for r in parallel]
    game = load_game("rat_trap", num_players=3)
    for rec in serial:
        state = game.state_from_history(rec["history"])
        assert state.is_terminal() and state.returns() == rec["returns"]


def test_standings_count_shared_wins_and_rate():
    recs = [{"index": 0, "seats": ["a", "b"], "returns": [1.0, 0.0], "scores": [5, 1]},
            {"index": 1, "seats": ["b", "a"], "returns": [0.5, 0.5], "scores": [3, 3]}]
    rows = {s.bot: s for s in standings(recs, ["a", "b"])}
    assert rows["a"].wins == 1.5 and rows["b"].wins == 0.5 and rows["a"].games == 2
    assert rows["a"].mu > rows["b"].mu


def _sweep(games: int = 10) -> list[dict]:
    """``games`` seat-rotated records in which bot ``a`` wins every game against ``b``."""
    return [{"index": i, "seats": ["a", "b"] if i % 2 == 0 else ["b", "a"],
             "returns": [1.0, 0.0] if i % 2 == 0 else [0.0, 1.0],
             "scores": [9, 1] if i % 2 == 0 else [1, 9]} for i in range(games)]


def test_a_clean_sweep_has_a_wilson_interval_not_a_point():
    """10 wins in 10 games is not certainty: the table prints the Wilson interval of the
    mean return, about [0.72, 1.00] (a normal approximation collapsed to [1.000, 1.000])."""
    rows = {s.bot: s for s in standings(_sweep(), ["a", "b"])}
    assert rows["a"].wilson95 == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert rows["b"].wilson95 == pytest.approx((0.0, 0.2775), abs=1e-4)
    table = format_table(list(rows.values()))
    assert "| a | 10 | 1.000 | [0.722, 1.000] |" in table
    assert "| b | 10 | 0.000 | [0.000, 0.278] |" in table


def test_arena_command_prints_table_and_writes_records(tmp_path):
    out = io.StringIO()
    path = tmp_path / "games.jsonl"
    code = main(["arena", "rat_trap", "--players", "3", "--bots", "random", "--games", "3",
                 "--out", str(path)], out)
    assert code == 0 and "| random | 9 |" in out.getvalue()
    assert len([json.loads(line) for line in path.read_text().splitlines()]) == 3


def test_an_interrupted_arena_keeps_the_games_it_finished(tmp_path, monkeypatch, capsys):
    """Stop 50 (newcomer): Ctrl-C in ``ratai arena --out`` lost every finished game. Now
    their records are written (in game order) before the exit with 130."""
    import ratai.arena

    real = ratai.arena.run_arena

    def interrupted(*args, on_record, **kw):
        real(*args[:3], 3, on_record=on_record, **kw)   # three games finish, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(ratai.arena, "run_arena", interrupted)
    path = tmp_path / "games.jsonl"
    with pytest.raises(SystemExit) as exc:
        main(["arena", "rat_trap", "--bots", "random", "--games", "50", "--out", str(path)],
             io.StringIO())
    assert exc.value.code == 130
    assert [json.loads(line)["index"] for line in path.read_text().splitlines()] == [0, 1, 2]
    assert "3 of 50 games finished" in capsys.readouterr().err


def test_sigterm_keeps_the_finished_games_like_ctrl_c(tmp_path):
    """A newcomer's ``timeout -s TERM 10 ratai arena ... --out big.jsonl`` (and a run killed
    by SIGTERM after ten minutes) left no file: records were written at the end or on
    Ctrl-C only. SIGTERM now takes Ctrl-C's path (exit 143, one line)."""
    path = tmp_path / "big.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "ratai.cli", "arena", "rat_trap", "--bots",
                             "random", "--games", "100000", "--out", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 60   # until a game has ended (each is appended as it ends)
    while not (path.exists() and path.read_text().count("\n") >= 2):
        assert time.monotonic() < end and proc.poll() is None
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    lines = err.strip().splitlines()
    assert lines[-1] == "ratai: terminated" and "games finished" in err, err
    assert "Traceback" not in err
    indexes = [json.loads(line)["index"] for line in path.read_text().splitlines()]
    assert indexes and indexes == sorted(indexes)


def _worker_dies(*job):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_that_dies_is_an_error_not_a_hang(monkeypatch):
    """Stop 50 (tester of the stop's diff): a worker killed mid-game (OOM killer, a crash in
    compiled code) must end the run with an error at once, never a hang; the CLI says it in
    one line (``ChildProcessError`` is an ``OSError``)."""
    import ratai.arena

    monkeypatch.setattr(ratai.arena, "play_game", _worker_dies)   # the forked workers' too
    t = time.monotonic()
    with pytest.raises(ChildProcessError, match="worker process died"):
        ratai.arena.run_schedule("rat_trap", {"num_players": 2}, [["random", "random"]] * 6,
                                 workers=2)
    assert time.monotonic() - t < 60


def test_arena_bad_bot_is_a_clear_error():
    with pytest.raises(SystemExit, match="bot kind"):
        main(["arena", "rat_trap", "--bots", "oracle", "--games", "1"], io.StringIO())


def test_ray_backend_gives_the_same_records_as_local():
    """``--backend ray``: the same seeded games as local runs (skipped without Ray)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        local = run_arena("rat_trap", {"num_players": 3}, ["random"], 3, seed=4)
        remote = run_arena("rat_trap", {"num_players": 3}, ["random"], 3, seed=4, backend="ray")
    finally:
        ray.shutdown()
    drop = ("seconds", "seat_seconds")
    assert [{k: v for k, v in r.items() if k not in drop} for r in local] == \
        [{k: v for k, v in r.items() if k not in drop} for r in remote]


def test_standings_of_solo_games_count_wins_and_skip_ratings():
    """One seat (First Rat solo against Greg): win rate and score are counted, the rating
    is not (openskill needs two teams); the table says n/a."""
    recs = [{"index": 0, "seats": ["a"], "returns": [1.0], "scores": [40]},
            {"index": 1, "seats": ["a"], "returns": [0.0], "scores": [20]}]
    (row,) = standings(recs, ["a"])
    assert row.games == 2 and row.wins == 1.0 and row.mean_score == 30.0
    assert not row.rated and row.mu == 25.0
    assert "| a | 2 | 0.500 |" in format_table([row]) and "n/a | n/a | n/a |" in \
        format_table([row])
    two = {s.bot: s for s in standings([{"index": 0, "seats": ["a", "b"], "returns": [1, 0],
                                         "scores": [2, 1]}], ["a", "b", "c"])}
    assert two["a"].rated and two["b"].rated and not two["c"].rated  # c never sat


@pytest.mark.parametrize("argv", [["--variant", "solo-medium"], ["--players", "1"]])
def test_arena_solo_first_rat_completes_and_writes_records(argv, tmp_path):
    out = io.StringIO()
    path = tmp_path / "solo.jsonl"
    code = main(["arena", "first_rat", *argv, "--bots", "heuristic,random", "--games", "2",
                 "--out", str(path)], out)
    text = out.getvalue()
    assert code == 0 and "| heuristic | 1 |" in text and "| random | 1 |" in text
    assert "n/a | n/a | n/a |" in text and "automaton" in text
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(recs) == 2 and all(len(r["seats"]) == 1 for r in recs)
    # Greg's points are in each record and the table (the seat wins with more: Solo End)
    assert all(len(r["automaton_scores"]) == 1 for r in recs)
    assert all(r["returns"] == [float(r["scores"][0] > r["automaton_scores"][0])]
               for r in recs)
    mean = sum(r["automaton_scores"][0] for r in recs) / 2
    assert f"the automaton's mean score: {mean:.2f}" in text


def test_arena_writes_records_before_tabulating(tmp_path, monkeypatch, capsys):
    """--out is written as soon as the games are played: a failure after that (here the
    standings) loses no game."""
    import ratai.arena

    def broken(records, bots):
        raise ValueError("standings broke")

    monkeypatch.setattr(ratai.arena, "standings", broken)
    path = tmp_path / "games.jsonl"
    with pytest.raises(SystemExit) as info:
        main(["arena", "rat_trap", "--bots", "random", "--games", "2", "--out", str(path)],
             io.StringIO())
    assert info.value.code == 2 and "standings broke" in capsys.readouterr().err
    assert len(path.read_text().splitlines()) == 2


def test_sigterm_ends_the_worker_processes_games_at_once(tmp_path):
    """A reviewer's ``ratai arena ... --bots ismcts:20s,random --workers 2`` went on for 615 s
    after SIGTERM: the pool's workers were never terminated (their table was read after
    ``shutdown`` had dropped it) and the parent waited for their games."""
    proc = subprocess.Popen([sys.executable, "-m", "ratai.cli", "arena", "rat_trap", "--bots",
                             "ismcts:20s,random", "--games", "4", "--workers", "2", "--out",
                             str(tmp_path / "slow.jsonl")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(5)   # the workers are searching
    t = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143 and time.monotonic() - t < 10, err


def test_a_killed_arena_keeps_the_games_it_finished(tmp_path):
    """SIGKILL (or the out-of-memory killer) leaves no handler to run: each finished game is
    appended to ``--out`` as it ends, so they survive; a run that ends rewrites the file in
    game order (checked by the other arena tests)."""
    path = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "ratai.cli", "arena", "rat_trap", "--bots",
                             "random", "--games", "100000", "--out", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 60
    while not (path.exists() and path.read_text().count("\n") >= 3):
        assert time.monotonic() < end and proc.poll() is None
        time.sleep(0.1)
    proc.kill()
    proc.wait(30)
    lines = path.read_text().splitlines()
    complete = lines if path.read_text().endswith("\n") else lines[:-1]
    assert len(complete) >= 3
    assert all(json.loads(line)["game"] == "rat_trap" for line in complete)
