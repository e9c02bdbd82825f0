"""``ratai play`` and ``ratai games`` (the README's first command)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from ratai.cli import main


class Always:
    """A stdin that answers every prompt with the same line (first legal move)."""

    def __init__(self, line="0\n"):
        self.line = line

    def readline(self):
        return self.line


@pytest.mark.parametrize("players", [2, 3, 5])
def test_play_a_full_game_against_random_bots(players):
    out = io.StringIO()
    code = main(["play", "rat_trap", "--players", str(players), "--seed", "3"], out, Always())
    text = out.getvalue()
    assert code == 0 and "Game over: " in text
    assert "[0]" in text and "your move>" in text and "Rat Trap - round" in text


def test_the_final_board_shows_no_seat_to_move_and_no_dice():
    """After the last move nobody is to move: the board printed above "Game over" has no
    "active: seat N" and no dice (Rat Trap's render showed the last turn's; both backends
    share the render)."""
    out = io.StringIO()
    assert main(["play", "rat_trap", "--players", "3", "--seed", "3"], out, Always()) == 0
    final = out.getvalue().rsplit("your move> ", 1)[1]
    assert "Rat Trap - round" in final and "Game over: " in final
    assert "active: seat" not in final and "dice:" not in final and "game over" in final


def test_play_by_label_and_quit():
    out = io.StringIO()
    inp = io.StringIO("not a move\nkeep the dice\nq\n")
    code = main(["play", "rat_trap", "--players", "3", "--seed", "1", "--seat", "0"], out, inp)
    text = out.getvalue()
    assert code == 0 and "not a legal move: 'not a move'" in text and text.endswith("bye\n")


def test_play_with_variant_and_params():
    out = io.StringIO()
    code = main(["play", "rat_trap", "--variant", "5p-big-gang-roles", "--seed", "2",
                 "--param", "tie_break=extra_round"], out, Always())
    assert code == 0


def test_bad_arguments_are_clear_errors():
    with pytest.raises(SystemExit, match="big_gang"):
        main(["play", "rat_trap", "--players", "3", "--param", "big_gang=true"],
             io.StringIO(), Always())
    with pytest.raises(SystemExit, match="seat"):
        main(["play", "rat_trap", "--players", "3", "--seat", "7"], io.StringIO(), Always())
    with pytest.raises(SystemExit, match="unknown bot kind"):
        main(["play", "rat_trap", "--bots", "oracle"], io.StringIO(), Always())


def test_solo_play_names_no_bots_and_refuses_them():
    """Solo First Rat: the only seat is yours, Greg is the game's automaton. The header says
    so (it printed "bots: " and dropped --bots silently); --bots is refused."""
    out = io.StringIO()
    assert main(["play", "first_rat", "--players", "1", "--seed", "2"], out,
                io.StringIO("q\n")) == 0
    assert out.getvalue().startswith("bots: none (solo: the game's automaton plays against "
                                      "you)\n")
    with pytest.raises(SystemExit, match="no seat for a bot"):
        main(["play", "first_rat", "--players", "1", "--bots", "mcts:100"], io.StringIO(),
             Always())


def test_games_lists_every_game():
    out = io.StringIO()
    assert main(["games"], out) == 0
    assert "rat_trap: Rat Trap" in out.getvalue() and "variants:" in out.getvalue()


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "ratai.cli", "play", "rat_trap", "--players",
                           "3", "--seed", "5"], input="0\n" * 2000, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "Game over" in proc.stdout


def test_serve_help_is_the_servers():
    proc = subprocess.run([sys.executable, "-m", "ratai.cli", "serve", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--port" in proc.stdout and "--db" in proc.stdout
