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


def test_suggest_state_takes_the_params_it_records(tmp_path):
    """A newcomer's ``ratai suggest rat_trap --state st4.bin --seat 0`` of a 4-player state
    failed ("... not load_game('rat_trap', num_players=3, ...)") until ``--players 4`` was
    repeated: a serialized state names its params, as a ``--history`` record does; a
    contradicting command line is refused, naming both."""
    from ratai.cli import main
    from ratai.engines import load_game

    g = load_game("rat_trap", num_players=4, roles=True)
    s = g.new_initial_state()
    rng = np.random.default_rng(2)
    while s.is_chance_node() or len(s.legal_actions()) < 2:
        outs = s.chance_outcomes() if s.is_chance_node() else None
        s.apply_action(outs[rng.integers(len(outs))][0] if outs else s.legal_actions()[0])
    path = tmp_path / "st4.json"
    data = s.serialize()
    path.write_text(data if isinstance(data, str) else data.decode())
    out = io.StringIO()
    assert main(["suggest", "rat_trap", "--state", str(path), "--seat",
                 str(s.current_player()), "--bot", "random"], out) == 0
    assert out.getvalue().startswith(f"seat {s.current_player()}: play ")
    with pytest.raises(SystemExit, match="a 4-player record, not --players 3"):
        main(["suggest", "rat_trap", "--players", "3", "--state", str(path), "--seat", "0"],
             io.StringIO())


def test_a_crafted_state_that_breaks_the_engine_is_one_line(tmp_path, monkeypatch, capsys):
    """A newcomer's serialized Rat Trap state with a hidden field changed (the pending
    step's colour ``"zzz"``) passed the reference's checks (each seat's view and
    playability) and ended ``ratai suggest --state`` in a 46-line traceback: it is one line
    naming the file, exit 2, as the service and the engine answer such input."""
    from ratai.cli import main
    from ratai.engines import load_game

    monkeypatch.setenv("RATAI_BACKEND", "python")
    g = load_game("rat_trap")
    s = g.state_from_history([37, 15, 41, 11, 7, 29, 29, 7, 28, 18, 29, 42, 16, 12])
    doc = json.loads(s.serialize())
    doc["fields"]["ctx"]["colour"] = "zzz"
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SystemExit) as exc:
        main(["suggest", "rat_trap", "--state", str(path), "--seat", "2", "--bot",
              "ismcts:50"], io.StringIO())
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "could not search this position" in err[0] \
        and "crafted.json" in err[0], err
