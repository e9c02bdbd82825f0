"""The CLI's bad-input table (issue 16): every case exits 2 with one line naming the problem.

Each row is ``(argv, words)``: the command must exit with code 2, write exactly one line
``ratai: ...`` to stderr, and that line must contain every one of ``words`` (the option or
file, and what is allowed).
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from ratai.cli import cli, main
from ratai.engines import load_game
from tests.conftest import popen_sigint, sample_action

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    import numpy as np

    d = tmp_path_factory.mktemp("records")
    game = load_game("rat_trap", num_players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(sample_action(state, rng))
    (d / "finished.json").write_text(json.dumps({"history": state.history()}))
    (d / "float.json").write_text("[36.7]")
    (d / "nohist.json").write_text(json.dumps({"game": "rat_trap", "moves": []}))
    (d / "broken.json").write_text('{"history": [1, 2')
    (d / "string.json").write_text('"hello"')
    (d / "illegal.json").write_text("[99999]")
    (d / "other_game.json").write_text(json.dumps({"game": "first_rat", "history": []}))
    (d / "deep.json").write_text("[" * 100_000)
    (d / "digits.json").write_text("[" + "9" * 5000 + "]")
    (d / "played.json").write_text(json.dumps({
        "game": "rat_trap", "params": {"num_players": 3}, "seed": 9, "history": [],
        "seats": {"0": "human", "1": "heuristic", "2": "ismcts:50"}}))
    (d / "games.jsonl").write_text("".join(
        json.dumps({"game": "rat_trap", "params": {"num_players": 3}, "seed": 0, "index": i,
                    "seats": ["random"] * 3, "history": []}) + "\n" for i in range(3)))
    return d


CASES = [
    (["play", "rat_trap", "--players", "9"], ["num_players"]),
    (["play", "no_such_game"], ["GAME", "rat_trap"]),
    (["play", "rat_trap", "--players", "3", "--seat", "7"], ["--seat", "0..2"]),
    (["play", "rat_trap", "--seat", "-1"], ["--seat", "-1"]),
    (["play", "rat_trap", "--bots", "oracle"], ["--bots", "unknown bot kind", "ismcts"]),
    (["play", "rat_trap", "--bots", "ismcts:lots"], ["--bots", "lots"]),
    (["play", "rat_trap", "--bots", "random,,heuristic"], ["--bots"]),
    (["play", "rat_trap", "--hint", "mcts:0"], ["--hint", "1..1,000,000,000,000"]),
    (["play", "rat_trap", "--param", "big_gang"], ["--param", "NAME=VALUE"]),
    (["play", "rat_trap", "--variant", "nope"], ["--variant", "nope", "known"]),
    (["play", "rat_trap", "--players", "3", "--param", "big_gang=true"], ["big_gang"]),
    (["play", "rat_trap", "--load", "{d}/other_game.json"], ["--load", "first_rat"]),
    (["play", "rat_trap", "--frobnicate"], ["--frobnicate"]),
    # options that were silently ignored or overridden (a newcomer's report)
    (["play", "first_rat", "--players", "1", "--bots", "mcts:100"],
     ["--bots mcts:100", "1-player game has no seat for a bot", "automaton"]),
    (["play", "rat_trap", "--load", "{d}/played.json", "--seed", "8"],
     ["--seed 8", "--load", "played.json", "seed 9"]),
    (["play", "rat_trap", "--load", "{d}/played.json", "--bots", "heuristic"],
     ["--bots heuristic", "--load", "seat 1 heuristic, seat 2 ismcts:50"]),
    (["play", "rat_trap", "--load", "{d}/played.json", "--seat", "1"],
     ["--seat 1", "--load", "seat 0"]),
    (["suggest", "rat_trap", "--history", "{d}/games.jsonl", "--seat", "0"],
     ["--history", "games.jsonl", "holds 3 games", "file of its own"]),
    (["play", "rat_trap", "--load", "{d}/games.jsonl"], ["--load", "holds 3 games"]),
    (["arena", "rat_trap", "--bots", "random", "--games", "0"], ["--games", "0", "1"]),
    (["arena", "rat_trap", "--bots", "random", "--games", "-3"], ["--games", "-3"]),
    (["arena", "rat_trap", "--bots", "random", "--workers", "-2"], ["--workers", "-2"]),
    (["arena", "rat_trap", "--bots", "mcts:lots"], ["--bots", "mcts:lots"]),
    (["arena", "rat_trap", "--bots", "mcts:0.5x"], ["--bots", "0.5x"]),
    (["arena", "rat_trap", "--bots", "random", "--backend", "gpu"], ["--backend", "local"]),
    (["arena", "rat_trap"], ["--bots"]),
    (["bench", "rat_trap", "--budgets", "1,x"], ["--budgets", "'x'"]),
    (["bench", "rat_trap", "--budgets", "0,10"], ["--budgets", "below 1"]),
    (["bench", "rat_trap", "--seconds", "0"], ["--seconds"]),
    (["bench", "rat_trap", "--games", "0"], ["--games"]),
    (["bench", "rat_trap", "--kind", "oracle"], ["--kind", "oracle", "ismcts"]),
    (["demo", "--workers", "0"], ["--workers"]),
    (["engine", "--workers", "0"], ["--workers"]),
    (["suggest", "rat_trap", "--history", "/no/such/file", "--seat", "0"],
     ["--history", "/no/such/file"]),
    (["suggest", "rat_trap", "--history", "{d}/float.json", "--seat", "0"],
     ["--history", "float.json", "'history'", "36.7"]),
    (["suggest", "rat_trap", "--history", "{d}/nohist.json", "--seat", "0"],
     ["--history", "nohist.json", "'history'"]),
    (["suggest", "rat_trap", "--history", "{d}/broken.json", "--seat", "0"],
     ["--history", "broken.json", "not JSON"]),
    (["suggest", "rat_trap", "--history", "{d}/string.json", "--seat", "0"],
     ["--history", "string.json"]),
    (["suggest", "rat_trap", "--history", "{d}/illegal.json", "--seat", "0"],
     ["--history", "illegal.json", "99999"]),
    (["suggest", "rat_trap", "--players", "3", "--history", "{d}/finished.json", "--seat", "0"],
     ["finished.json", "is over", "scores"]),
    (["suggest", "rat_trap", "--history", "{d}/float.json", "--state", "{d}/float.json",
      "--seat", "0"], ["--history", "--state"]),
    (["suggest", "rat_trap", "--history", "{d}/float.json"], ["--seat"]),
    (["suggest", "rat_trap", "--history", "{d}/float.json", "--seat", "0", "--bot", "x:1:2"],
     ["--bot"]),
    (["suggest", "rat_trap", "--state", "{d}/float.json", "--seat", "0"],
     ["--state", "float.json"]),
    (["nonsense"], ["nonsense"]),
    (["arena", "rat_trap", "--bots", "random", "--out", "/no/dir/r.jsonl"],
     ["--out", "/no/dir", "does not exist"]),
    (["bench", "rat_trap", "--plot", "/no/dir/p.png"], ["--plot", "/no/dir"]),
    (["bench", "rat_trap", "--plot", "{d}/p.txt"], ["--plot", ".png"]),   # before the games
    (["ladder", "rat_trap", "--from-run", "{d}"], ["ladder.json", "No such file"]),
    (["play", "rat_trap", "--save", "/no/dir/g.json"], ["--save", "/no/dir"]),
    (["play", "rat_trap", "--save", "{d}/float.json"], ["--save", "exists"]),
    (["arena", "rat_trap", "--bots", "random", "--out", ""], ["--out", "give a file name"]),
    # a tester's 10**12 games built their schedule first (548 MB before the first game)
    (["arena", "rat_trap", "--bots", "random", "--games", "1000000000000", "--out",
      "{d}/float.json"], ["games", "1..1,000,000"]),
    (["ladder", "rat_trap", "--players", "2", "--entrants", "random,heuristic",
      "--games-per-pair", "1000000000000", "--out", "{d}/lad"], ["ladder size", "1,000,000"]),
    (["arena", "rat_trap", "--bots", "ismcts:500:iterations=10"], ["--bots", "give it once"]),
    (["arena", "rat_trap", "--bots", "random", "--seed", "-1"], ["--seed", "-1"]),
    (["play", "rat_trap", "--seed", "-1"], ["--seed", "-1"]),
    (["bench", "rat_trap", "--seed", "-5"], ["--seed", "-5"]),
    (["demo", "--seed", "x"], ["--seed", "'x'"]),
    (["demo", "--scale", "0"], ["--scale"]),
    (["demo", "--scale", "nan"], ["--scale", "not a finite number"]),
    (["demo", "--scale", "1e300"], ["--scale", "0<x<=1000"]),
    (["demo", "--timeout", "inf"], ["--timeout", "0<x<=86400"]),
    (["ladder", "rat_trap", "--budget-scale", "nan"], ["--budget-scale", "finite"]),
    # a device, a directory, nesting deeper than the parser, a 5,000-digit number: one line
    # each (a device used to be read forever, the others gave tracebacks)
    (["suggest", "rat_trap", "--history", "/dev/zero", "--seat", "0"],
     ["--history", "/dev/zero", "not a regular file"]),
    (["suggest", "rat_trap", "--state", "/dev/zero", "--seat", "0"],
     ["--state", "/dev/zero", "not a regular file"]),
    (["play", "rat_trap", "--load", "/dev/zero"], ["--load", "not a regular file"]),
    (["suggest", "rat_trap", "--history", "{d}/deep.json", "--seat", "0"],
     ["--history", "deep.json", "nested too deeply"]),
    (["suggest", "rat_trap", "--state", "{d}/deep.json", "--seat", "0"],
     ["--state", "deep.json", "nested too deeply"]),
    (["suggest", "rat_trap", "--history", "{d}/digits.json", "--seat", "0"],
     ["--history", "digits.json", "digits"]),
    (["play", "rat_trap", "--param", "data_path=/dev/zero"],
     ["data_path", "/dev/zero", "not a regular file"]),
    # the terminal game plays Ratapolis' sequential view (it crashed with KeyError: -2)
    (["play", "ratapolis", "--param", "simultaneous=true"],
     ["sequential view", "simultaneous=true"]),
    (["play", "rat_trap", "--players", "0"], ["--players", "0"]),
    # --players against --param num_players: refused like --players against --variant
    (["arena", "rat_trap", "--bots", "random", "--games", "1", "--param", "num_players=3",
      "--players", "4"], ["--players 4", "contradicts", "--param num_players=3"]),
    (["play", "rat_trap", "--param", "num_players=2", "--players", "3"],
     ["--players 3", "contradicts", "--param num_players=2"]),
    (["suggest", "rat_trap", "--param", "num_players=2", "--players", "3", "--history",
      "{d}/float.json", "--seat", "0"], ["--players 3", "--param num_players=2"]),
    # a time budget above the bots' limit (one day) is refused by the spec parser
    (["arena", "rat_trap", "--bots", "ismcts:100000s", "--games", "1"],
     ["--bots", "100000s", "(0, 86400]"]),
    (["ladder", "rat_trap", "--entrants", "random,ismcts:100000s"],
     ["--entrants", "100000s", "(0, 86400]"]),
    # ladder --out is checked before the games (a file, or a path through a file)
    (["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot", "--kinds",
      "random,heuristic", "--out", "{d}/finished.json/x"],
     ["--out", "finished.json", "not a directory"]),
    (["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot", "--kinds",
      "random,heuristic", "--out", "{d}/finished.json"],
     ["--out", "finished.json", "is a file"]),
    # stop 50 (newcomer): an option the command sets was a TypeError traceback, exit 1
    (["arena", "rat_trap", "--bots", "ismcts:10:seed=1,random", "--games", "2"],
     ["--bots", "'seed' cannot be given in a bot spec"]),
    (["play", "rat_trap", "--bots", "ismcts:10:player=1"], ["--bots", "'player'"]),
    (["suggest", "rat_trap", "--players", "3", "--history", "{d}/finished.json", "--seat",
      "0", "--bot", "mcts:10:game=1"], ["--bot", "'game'"]),
    (["ladder", "rat_trap", "--players", "2", "--quick", "--no-plot", "--entrants",
      "ismcts:10:seed=1,random"], ["--entrants", "'seed'"]),
    # ... extra bots in play were dropped silently; arena forked one process per --workers
    (["play", "rat_trap", "--players", "3", "--bots", "random,random,random"],
     ["--bots", "3 bots", "2 other seats"]),
    (["arena", "rat_trap", "--bots", "random", "--games", "1", "--workers", "100000"],
     ["workers=100000", "per core", "ray"]),
]


@pytest.mark.parametrize("argv,words", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_bad_input_is_one_line_naming_the_problem_exit_2(argv, words, files, capsys):
    argv = [a.replace("{d}", str(files)) for a in argv]
    with pytest.raises(SystemExit) as info:
        main(argv, io.StringIO(), io.StringIO("q\n"))
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ratai: "), err
    for word in words:
        assert word in err[0], (word, err[0])
    assert "Traceback" not in err[0]


def test_a_refused_arena_leaves_its_out_file_as_it_was(tmp_path):
    """``--out`` is opened at the first finished game (each game is appended as it ends), so
    a run refused before any game does not truncate an existing file."""
    path = tmp_path / "keep.jsonl"
    path.write_text("precious\n")
    with pytest.raises(SystemExit):
        main(["arena", "rat_trap", "--bots", "random", "--games", "1000000000000", "--out",
              str(path)], io.StringIO())
    assert path.read_text() == "precious\n"


def test_seconds_options_share_the_bots_limit():
    """--seconds / --timeout take what a bot's time_limit takes (MAX_TIME_LIMIT)."""
    from ratai.cli import POSITIVE_SECONDS
    from ratai.search.common import MAX_TIME_LIMIT

    assert POSITIVE_SECONDS.max == MAX_TIME_LIMIT


def test_suggest_at_a_joint_planning_node_names_the_bot_that_can(tmp_path, capsys):
    """Ratapolis' joint view (simultaneous=true): every seat still to plan is to move, so
    suggest answers for it with a bot that searches a joint node (smmcts) and says which
    kinds do when asked for another (it said "seat -2 is to move")."""
    import random

    game = load_game("ratapolis", num_players=3, simultaneous=True)
    s, rnd = game.new_initial_state(), random.Random(0)
    while s.current_player() != -2:
        s.apply_action(rnd.choice([a for a, _ in s.chance_outcomes()] if s.is_chance_node()
                                  else s.legal_actions()))
    path = tmp_path / "joint.json"
    path.write_text(json.dumps({"game": "ratapolis", "history": s.history(),
                                "params": {"num_players": 3, "simultaneous": True}}))
    out = io.StringIO()
    assert main(["suggest", "ratapolis", "--history", str(path), "--seat", "1", "--bot",
                 "smmcts:30"], out) == 0
    assert out.getvalue().startswith("seat 1: play plan ")
    with pytest.raises(SystemExit) as info:
        main(["suggest", "ratapolis", "--history", str(path), "--seat", "1", "--bot",
              "ismcts:30"], io.StringIO())
    err = capsys.readouterr().err
    assert info.value.code == 2 and "smmcts" in err and err.count("\n") == 1


def test_the_table_through_the_console_script(files):
    """The same contract from a real process (exit status, stderr, no traceback)."""
    proc = subprocess.run([sys.executable, "-m", "ratai.cli", "arena", "rat_trap", "--bots",
                           "random", "--games", "0"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "--games" in proc.stderr and "Traceback" not in proc.stderr


def test_progress_bar_writes_nothing_to_stderr_when_it_is_no_terminal():
    """Success: stderr stays empty (no stray blank line from the transient bar); an error
    raised while the bar runs is exactly one line."""
    cmd = [sys.executable, "-m", "ratai.cli", "arena", "rat_trap", "--bots", "random",
           "--games", "1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", repr(proc.stderr)
    if Path("/dev/full").exists():
        proc = subprocess.run(cmd + ["--out", "/dev/full"], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 2
        assert proc.stderr.startswith("ratai: ") and proc.stderr.count("\n") == 1, \
            repr(proc.stderr)


def test_play_parses_time_budgets_like_every_other_command():
    out = io.StringIO()
    code = main(["play", "rat_trap", "--players", "3", "--seed", "1", "--bots",
                 "ismcts:0.02s,heuristic"], out, io.StringIO("0\n" * 3 + "q\n"))
    assert code == 0 and "seat 1 ismcts:0.02s" in out.getvalue()


def test_version_and_top_level_help(capsys):
    from ratai import __version__

    assert main(["--version"], io.StringIO()) == 0
    assert capsys.readouterr().out.strip() == f"ratai {__version__}"
    assert main(["--help"], io.StringIO()) == 0
    text = capsys.readouterr().out
    assert "``" not in text and "The ``ratai`` command" not in text
    for command in ("demo", "games", "play", "arena", "suggest", "engine", "bench", "serve"):
        assert command in text


def _commands():
    return [(name, cmd) for name, cmd in cli.commands.items() if name != "serve"]


@pytest.mark.parametrize("name,cmd", _commands(), ids=[n for n, _ in _commands()])
def test_every_option_has_help_and_shows_its_default(name, cmd, capsys):
    assert cmd.help and not cmd.help.startswith("The ")
    for p in cmd.params:
        if isinstance(p, click.Option) and p.name != "help":
            assert p.help, f"{name} {p.opts} has no help"
            has_default = p.default is not None and not p.is_flag and not p.required
            if has_default:
                assert p.show_default is not False
    assert main([name, "--help"], io.StringIO()) == 0
    text = capsys.readouterr().out
    for p in cmd.params:
        # a flag is off unless given (click 8.5 no longer reports a flag's False default)
        if isinstance(p, click.Option) and p.default not in (None, False) and not p.multiple \
                and not p.required and not p.is_flag:
            assert "[default:" in text.split(p.opts[0], 1)[1].split("\n  -", 1)[0], p.opts


def test_ctrl_c_exits_130_without_traceback():
    proc = popen_sigint([sys.executable, "-m", "ratai.cli", "play", "rat_trap", "--seed", "1"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    try:
        deadline = time.monotonic() + 60
        buf = ""
        while "your move>" not in buf and time.monotonic() < deadline:
            buf += os.read(proc.stdout.fileno(), 4096).decode()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip() == "ratai: interrupted"


def test_make_playthrough_help_works():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_playthrough.py"),
                           "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Usage:" in proc.stdout and "GAME" in proc.stdout
