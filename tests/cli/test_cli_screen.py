"""``ratai play``'s terminal: every screen fits 100 x 50, undo keeps the dice, save/load.

The size limit is checked for every title and player count: each block of output between
two prompts (the screen a player reads before typing) is at most ``SCREEN_LINES`` lines of
at most ``SCREEN_COLUMNS`` columns, including board and move-list paging (``b``, ``m``).
"""

from __future__ import annotations

import io
import json

import pytest

from ratai.cli import SCREEN_COLUMNS, SCREEN_LINES, main, move_pages
from ratai.engines import load_game, registered_games

PROMPT = "your move> "


def _player_counts():
    out = []
    for name in registered_games():
        for n in range(1, 7):
            try:
                load_game(name, num_players=n)
            except ValueError:
                continue
            out.append((name, n))
    return out


def _screens(text: str) -> list[list[str]]:
    return [chunk.split("\n") for chunk in text.split(PROMPT)]


def _play(argv, lines):
    out = io.StringIO()
    code = main(["play", *argv], out, io.StringIO("".join(f"{x}\n" for x in lines)))
    return code, out.getvalue()


@pytest.mark.parametrize("name,players", _player_counts())
def test_every_screen_fits_100_columns_and_50_lines(name, players):
    # 12 moves (first legal), then page the board and the moves, then more moves and quit
    answers = ["0"] * 6 + ["b", "b", "m", "m", "h", "l"] + ["0"] * 6 + ["q"]
    code, text = _play([name, "--players", str(players), "--seed", "4", "--hint", "random"],
                       answers)
    assert code == 0
    screens = _screens(text)
    assert len(screens) > 5
    for screen in screens:
        assert len(screen) <= SCREEN_LINES, (len(screen), "\n".join(screen))
        wide = [ln for ln in screen if len(ln) > SCREEN_COLUMNS]
        assert not wide, wide


def test_move_pages_columns_and_paging():
    labels = [f"move {i}" for i in range(300)]
    pages = move_pages(labels, rows=10, width=100)
    assert all(len(p) <= 10 for p in pages)
    shown = " ".join(" ".join(p) for p in pages)
    assert all(f"[{i}] move {i}" in shown for i in range(300))
    assert len(pages) == -(-300 // (10 * (102 // len("[299] move 299  "))))


def test_a_whole_game_ends_with_winners_and_scores():
    code, text = _play(["rat_trap", "--players", "3", "--seed", "3"], ["0"] * 3000)
    assert code == 0
    last = text.strip().splitlines()[-1]
    assert last.startswith("Game over: ") and "scores: seat 0 " in last and "[" not in last
    assert "winner seat" in last or "shared win" in last or "no seat wins" in last


def _dice_after(text: str, marker: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("  * chance:")]


def test_undo_rewinds_the_chance_stream():
    """Undo, then the same move again: the dice and cards that follow are the same."""
    _, once = _play(["rat_trap", "--players", "3", "--seed", "9"], ["0", "0", "0", "q"])
    _, undone = _play(["rat_trap", "--players", "3", "--seed", "9"],
                      ["0", "0", "u", "0", "0", "q"])
    assert "(undone: back to your previous decision" in undone
    chance_once = [ln for ln in once.splitlines() if ln.startswith("  * chance:")]
    chance_undone = [ln for ln in undone.splitlines() if ln.startswith("  * chance:")]
    # the replayed turn drew exactly the same outcomes as the first time
    assert chance_once and set(chance_undone) == set(chance_once)


def test_save_then_suggest_then_load(tmp_path):
    path = tmp_path / "game.json"
    code, _ = _play(["rat_trap", "--players", "3", "--seed", "5", "--save", str(path)],
                    ["0", "1", "0", "q"])
    assert code == 0
    doc = json.loads(path.read_text())
    assert doc["game"] == "rat_trap" and doc["params"]["num_players"] == 3
    assert doc["seed"] == 5 and doc["seats"]["0"] == "human" and doc["history"]
    state = load_game("rat_trap", num_players=3).state_from_history(doc["history"])
    assert state.current_player() == 0  # saved at our own decision
    out = io.StringIO()
    assert main(["suggest", "rat_trap", "--players", "3", "--history", str(path), "--seat",
                 "0", "--bot", "heuristic"], out) == 0
    assert out.getvalue().startswith("seat 0: play ")
    # the record carries its params: no --players needed; a contradiction is refused
    assert main(["suggest", "rat_trap", "--history", str(path), "--seat", "0", "--bot",
                 "heuristic"], io.StringIO()) == 0
    with pytest.raises(SystemExit, match="num_players=3"):
        main(["suggest", "rat_trap", "--players", "4", "--history", str(path), "--seat", "0"],
             io.StringIO())
    # --load continues the same game: same board, same params, same seed
    code, text = _play(["rat_trap", "--load", str(path)], ["q"])
    assert code == 0 and f"loaded {len(doc['history'])} actions" in text
    assert "seed 5" in text and "seat 2 random" in text
    # --save never replaces another file (a tester's replaced a 10-game arena record)
    before = path.read_text()
    with pytest.raises(SystemExit, match="exists"):
        _play(["rat_trap", "--players", "3", "--seed", "5", "--save", str(path)], ["q"])
    assert path.read_text() == before
    # a finished saved game is a clear suggest error
    path = tmp_path / "finished.json"
    code, _ = _play(["rat_trap", "--players", "3", "--seed", "5", "--save", str(path)],
                    ["0"] * 3000)
    doc = json.loads(path.read_text())
    assert "scores" in doc and "returns" in doc
    with pytest.raises(SystemExit, match="is over"):
        main(["suggest", "rat_trap", "--players", "3", "--history", str(path), "--seat", "0"],
             io.StringIO())


def test_load_continues_with_the_recorded_seat_bots_and_seed(tmp_path):
    """--load continues the recorded game as it was: your seat, the bots and the seed come
    from the record (it used to seat you at 0 against --bots' default, random); the same
    values given again are allowed, other ones refused (tests/cli/test_cli_errors.py). New
    moves are saved only with --save, and the screen says so."""
    path = tmp_path / "game.json"
    code, _ = _play(["rat_trap", "--players", "3", "--seat", "1", "--bots", "heuristic,random",
                     "--seed", "4", "--save", str(path)], ["0", "q"])
    assert code == 0
    saved = json.loads(path.read_text())
    assert saved["seats"] == {"1": "human", "0": "heuristic", "2": "random"}
    code, text = _play(["rat_trap", "--load", str(path)], ["q"])
    assert code == 0 and "bots: seat 0 heuristic, seat 2 random" in text
    assert "you are seat 1 (seed 4)" in text
    assert "new moves are not saved: add --save FILE" in text
    code, text = _play(["rat_trap", "--load", str(path), "--seat", "1", "--seed", "4",
                        "--bots", "heuristic,random", "--save", str(path)], ["0", "q"])
    assert code == 0 and "not saved" not in text
    assert len(json.loads(path.read_text())["history"]) > len(saved["history"])


def test_terminal_completes_move_labels_with_prompt_toolkit():
    from prompt_toolkit import PromptSession
    from prompt_toolkit.document import Document
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from ratai.cli import Terminal

    seen = {}
    with create_pipe_input() as pipe:
        session = PromptSession(input=pipe, output=DummyOutput())
        real = session.prompt

        def prompt(message, completer=None):
            seen["completer"] = completer
            return real(message, completer=completer)

        session.prompt = prompt
        pipe.send_text("keep the dice\r")
        term = Terminal(io.StringIO(), io.StringIO(), session=session)
        assert term.ask("your move> ", ["reroll both dice", "keep the dice"]) == "keep the dice"
    done = [c.text for c in seen["completer"].get_completions(Document("kee"), None)]
    assert done and done[0] == "keep the dice"


def test_setup_reveals_are_summarised():
    from ratai.cli import summarize_events

    events = [f"chance: reveal backpack BP-{c}: +1 on {c} spaces" for c in "GWB"] + \
        ["chance: reveal comic CM3 Long Jump", "chance: reveal comic CM1 Pipe Dream",
         "you: A: rat 0 Start -> space 1"]
    assert summarize_events(events) == [
        "chance: reveal backpack BP-G: +1 on G spaces; BP-W: +1 on W spaces; BP-B: +1 on B "
        "spaces", "chance: reveal comic CM3 Long Jump; CM1 Pipe Dream",
        "you: A: rat 0 Start -> space 1"]
    code, text = _play(["first_rat", "--players", "3", "--seed", "2"], ["q"])
    first = _screens(text)[0]
    assert sum("reveal" in ln for ln in first) <= 4  # 17 reveals, summarised
