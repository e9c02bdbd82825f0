"""``ratai suggest`` and the CLI's error contract (one line, exit code 2)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from ratai.cli import main
from ratai.engines import load_game
from tests.conftest import sample_action


@pytest.fixture
def position(tmp_path):
    game = load_game("rat_trap", num_players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.current_player() != 1:
        state.apply_action(sample_action(state, rng))
    (tmp_path / "h.json").write_text(json.dumps(state.history()))
    (tmp_path / "s.bin").write_bytes(state.serialize())
    return tmp_path, state


def test_suggest_from_history_and_from_state_agree(position):
    path, state = position
    a, b = io.StringIO(), io.StringIO()
    args = ["--players", "3", "--seat", "1", "--bot", "ismcts:50", "--json"]
    assert main(["suggest", "rat_trap", "--history", str(path / "h.json"), *args], a) == 0
    assert main(["suggest", "rat_trap", "--state", str(path / "s.bin"), *args], b) == 0
    ja, jb = json.loads(a.getvalue()), json.loads(b.getvalue())
    assert ja["best_action"] == jb["best_action"] and ja["moves"] == jb["moves"]
    assert ja["best_action"] in state.legal_actions()


def test_suggest_text_output(position):
    path, _ = position
    out = io.StringIO()
    main(["suggest", "rat_trap", "--players", "3", "--history", str(path / "h.json"),
          "--seat", "1", "--bot", "heuristic"], out)
    assert out.getvalue().startswith("seat 1: play ")


def test_suggest_wrong_seat_is_a_one_line_error_with_exit_code_2(position):
    path, _ = position
    proc = subprocess.run([sys.executable, "-m", "ratai.cli", "suggest", "rat_trap",
                           "--players", "3", "--history", str(path / "h.json"), "--seat", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "ratai: it is not seat 0's turn in that position (to move: 1)"]


@pytest.mark.parametrize("argv", [
    ["play", "rat_trap", "--players", "9"],
    ["arena", "rat_trap", "--bots", "mcts:lots"],
    ["suggest", "rat_trap", "--history", "/no/such/file", "--seat", "0"],
    ["play", "no_such_game"],
])
def test_bad_arguments_exit_2_without_traceback(argv):
    proc = subprocess.run([sys.executable, "-m", "ratai.cli", *argv], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr
