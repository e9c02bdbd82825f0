"""The ``ratai`` command line (click).

    ratai demo                                   every game hosted over gRPC, played by bots
    ratai games                                  list the games and their variants
    ratai play rat_trap --players 3              play in the terminal against bots
    ratai arena rat_trap --bots ismcts:200,heuristic --games 50   a tournament
    ratai suggest rat_trap --history game.json --seat 1          one hint
    ratai engine                                 JSON-lines analysis engine on stdin/stdout
    ratai bench rat_trap --seconds 1 --plot bench.png            search speed and strength
    ratai ladder rat_trap --players 2 --out ladder/              rated round robin of the bots
    ratai train rat_trap --players 2,3 --run runs/rt   self-play training of the az network
    ratai serve --port 50051                     the gRPC service (= python server.py)

Error contract: every bad input is one line ``ratai: <what and what is allowed>`` on stderr
with exit code 2 (never a traceback); Ctrl-C exits with 130.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import signal
import sys
import textwrap
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import click
import numpy as np
from click.core import ParameterSource

from ratai import __version__
from ratai.engines import CHANCE, SIMULTANEOUS, game_class, load_game, registered_games
from ratai.engines.api import sample_chance_outcome
from ratai.search.common import MAX_TIME_LIMIT
from ratai.service.config import MAX_WORKERS

#: The terminal screen of ``ratai play``: every block printed between two prompts fits.
SCREEN_COLUMNS = 100
SCREEN_LINES = 50
EVENT_LINES = 8      # recent events shown (older ones summarised in one line)
BOARD_LINES = 24     # board lines per page ('b' shows the next page)
MOVE_ROWS = 12       # rows of the move list per page ('m' shows the next page)


class UsageError(SystemExit):
    """A bad argument: printed as one line ``ratai: ...`` and exit code 2 (never a traceback)."""

    def __init__(self, message: str):
        super().__init__(2)
        self.message = " ".join(str(message).split())

    def __str__(self) -> str:
        return self.message


# -- parameter types ---------------------------------------------------------------------
class BotSpecType(click.ParamType):
    """``KIND[:ITERATIONS|:SECONDSs]`` or ``level:L`` (``ratai.arena.BotSpec.parse``), kind
    checked."""

    name = "BOT"

    def convert(self, value, param, ctx):
        from ratai.arena import BotSpec
        from ratai.bots import BOT_KINDS

        try:
            spec = BotSpec.parse(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if spec.level is not None:
            return spec.label
        if spec.kind not in BOT_KINDS:
            self.fail(f"unknown bot kind {spec.kind!r}; known kinds: {sorted(BOT_KINDS)} "
                      f"(or level:1..10)", param, ctx)
        problem = _budget_problem(spec)
        if problem:
            self.fail(f"bad bot spec {value!r}: {problem}", param, ctx)
        return spec.label


def _budget_problem(spec) -> str | None:
    """What is wrong with a parsed spec's budget (the bots' own ranges), or None."""
    from ratai.search.common import MAX_ITERATIONS, MAX_TIME_LIMIT

    if spec.iterations is not None and not 1 <= spec.iterations <= MAX_ITERATIONS:
        return f"iterations must be in 1..{MAX_ITERATIONS:,}"
    if spec.time_limit is not None and not (0 < spec.time_limit <= MAX_TIME_LIMIT):
        return f"seconds must be in (0, {MAX_TIME_LIMIT:g}]"
    return None


class BotListType(click.ParamType):
    """Comma-separated bot specs."""

    name = "BOT,..."

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        parts = [p.strip() for p in str(value).split(",")]
        if not parts or any(not p for p in parts):
            self.fail(f"{value!r}: expected comma-separated bot specs like random,ismcts:200",
                      param, ctx)
        return [BotSpecType().convert(p, param, ctx) for p in parts]


class IntListType(click.ParamType):
    """Comma-separated integers, each >= ``low``."""

    name = "N,..."

    def __init__(self, low: int = 1):
        self.low = low

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        out = []
        for part in str(value).split(","):
            try:
                n = int(part.strip())
            except ValueError:
                self.fail(f"{part.strip()!r} in {value!r} is not an integer; expected "
                          f"comma-separated integers >= {self.low}, e.g. 10,30,100", param, ctx)
            if n < self.low:
                self.fail(f"{n} in {value!r} is below {self.low}", param, ctx)
            out.append(n)
        return out


SEED = click.IntRange(min=0)


class FiniteRange(click.FloatRange):
    """A ``click.FloatRange`` that also refuses ``nan`` (which passes every comparison)."""

    def convert(self, value, param, ctx):
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


#: Seconds: > 0, at most the bots' own ``MAX_TIME_LIMIT`` (a day).
POSITIVE_SECONDS = FiniteRange(min=0, min_open=True, max=MAX_TIME_LIMIT)
#: A factor on budgets (``--scale``, ``--budget-scale``): > 0, at most 1,000.
SCALE = FiniteRange(min=0, min_open=True, max=1000)
GAMES = click.Choice(registered_games())


def _game_options(f):
    f = click.option("--param", "param", multiple=True, metavar="NAME=VALUE",
                     help="a game parameter (JSON value), e.g. --param big_gang=true; "
                          "repeatable")(f)
    f = click.option("--variant", default=None,
                     help="a named variant (see `ratai games`)")(f)
    f = click.option("--players", type=click.IntRange(min=1), default=None,
                     help="number of seats  [default: the game's]")(f)
    return click.argument("game", type=GAMES, metavar="GAME")(f)


def _parse_params(pairs: Sequence[str]) -> dict:
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"bad --param {pair!r}: use NAME=VALUE")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def _game_params(game: str, variant: str | None, players: int | None,
                 param: Sequence[str]) -> dict:
    cls = game_class(game)
    if variant and variant not in cls.variants:
        raise UsageError(f"bad --variant {variant!r}; known: {sorted(cls.variants)}")
    params = dict(cls.variants[variant]) if variant else {}
    given = _parse_params(param)
    params.update(given)
    if players is not None:
        if given.get("num_players", players) != players:
            raise UsageError(f"--players {players} contradicts --param "
                             f"num_players={json.dumps(given['num_players'])}")
        if variant and params.get("num_players", players) != players:
            raise UsageError(f"--players {players} contradicts --variant "
                             f"{variant} ({params['num_players']} players)")
        params["num_players"] = players
    return params


def _writable(path: str | None, option: str, directory: bool = False) -> None:
    """Refuse an output file whose directory does not exist, before any work is done.

    ``directory``: ``path`` is an output directory, created with its parents when written;
    refused when it is an existing file, or its nearest existing ancestor is not a writable
    directory.

    Raises:
        UsageError: naming the option, the path and what is wrong.
    """
    if path is None:
        return
    if not str(path).strip():
        raise UsageError(f"bad {option} {path!r}: give a file name")
    if not directory:
        parent = Path(path).expanduser().resolve().parent
        if not parent.is_dir():
            raise UsageError(f"bad {option} {path}: directory {parent} does not exist")
        return
    target = Path(path).expanduser().resolve()
    if target.exists() and not target.is_dir():
        raise UsageError(f"bad {option} {path}: {target} is a file, not a directory")
    ancestor = target
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UsageError(f"bad {option} {path}: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise UsageError(f"bad {option} {path}: directory {ancestor} is not writable")


def _plotting(what: str) -> None:
    """Refuse to start work whose end writes a plot (``what``) when matplotlib is missing,
    rather than finding out after the games.

    Raises:
        UsageError: naming ``what`` and the extra to install.
    """
    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError(f'{what} needs matplotlib: pip install -e ".[plot]" (or "ratai[plot]")')


def _load(game: str, params: dict):
    try:
        return load_game(game, **params)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# -- the group ---------------------------------------------------------------------------
CONTEXT = {"help_option_names": ["-h", "--help"], "show_default": True,
           "max_content_width": SCREEN_COLUMNS}


@click.group(context_settings=CONTEXT, help="Rule engines, search bots and a gRPC service "
             "for four board games about rats (First Rat, Rat Trap, Ratapolis, Rats to "
             "Riches).\n\nStart with `ratai games`, `ratai play rat_trap` or `ratai demo`.")
@click.version_option(__version__, "--version", prog_name="ratai", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> None:
    ctx.ensure_object(dict)


def _out(ctx: click.Context) -> TextIO:
    return ctx.obj.get("out", sys.stdout)


@cli.command(help="Host one game of each title with AI seats over gRPC and play them out.",
             epilog="example: ratai demo --seed 7")
@click.option("--seed", type=SEED, default=1, help="seed of every game and bot")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=2,
              help="search processes of the demo's server")
@click.option("--timeout", type=POSITIVE_SECONDS, default=900.0,
              help="give up after this many seconds, the server's start included (then "
                   "exit 2, naming the unfinished games)")
@click.option("--scale", type=SCALE, default=1.0,
              help="multiply every search budget by this (below 1: a quicker, weaker demo)")
@click.pass_context
def demo(ctx, seed, workers, timeout, scale):
    from ratai.demo import DemoTimeout, run_demo

    out = _out(ctx)
    try:
        code = run_demo(None if out is sys.stdout else out, seed=seed, workers=workers,
                        timeout=timeout, scale=scale)
    except DemoTimeout as exc:
        where = ", ".join(f"{name} ({moves} moves)" for name, moves in exc.unfinished)
        raise UsageError(f"demo timed out: --timeout {timeout:g} s passed with "
                         f"{len(exc.unfinished)} of {exc.games} games unfinished: {where}; "
                         f"the whole demo takes about 20-60 s on 2 cores (raise --timeout, "
                         f"or lower --scale for a quicker, weaker demo)") from None
    ctx.exit(code)


@cli.command(help="List the games, their parameters and variants.")
@click.pass_context
def games(ctx):
    out = _out(ctx)
    for name in registered_games():
        cls = game_class(name)
        out.write(f"{name}: {cls.title}\n  {cls.summary}\n")
        for p in cls.param_specs:
            out.write(f"  --param {p.name}={json.dumps(p.default)}  {p.doc}\n")
        out.write(f"  variants: {', '.join(cls.variants)}\n")


# -- records (ratai play --save / --load, ratai suggest --history) ----------------------
#: The largest record file read (bytes): a game's history takes a few KB, an arena record
#: line (one game) less than a MB.
MAX_RECORD_BYTES = 256 * 2**20

def read_record(path: str, option: str = "--history") -> dict:
    """A game record file: a JSON list of action ids, or a JSON object with ``history`` (a
    ``ratai play --save`` record, or one arena record line). JSON lines of several records
    (``ratai arena --out``) are refused, saying how many games the file holds: which one
    is meant is the user's choice.

    Raises:
        UsageError: naming the file and what is wrong with it.
    """
    from ratai.engines.api import parse_json, read_user_file

    try:
        text = read_user_file(path, option, MAX_RECORD_BYTES).strip()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if text.startswith("{") and "\n" in text:
        try:
            parse_json(text)
        except ValueError:
            lines = [line for line in text.splitlines() if line.strip()]
            try:
                jsonl = all(isinstance(parse_json(line), dict) for line in lines)
            except ValueError:
                jsonl = False
            if jsonl:
                raise UsageError(f"bad {option} {path}: it holds {len(lines)} games (JSON "
                                 f"lines, as `ratai arena --out` writes); {option} reads "
                                 f"one: copy the game's line into a file of its own, e.g. "
                                 f"sed -n 2p {path} > game.json for the second") from None
    try:
        doc = parse_json(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"bad {option} {path}: not JSON ({exc.msg} at line {exc.lineno} "
                         f"column {exc.colno})") from None
    except ValueError as exc:   # 4,300+ digit integers, deep nesting
        raise UsageError(f"bad {option} {path}: not JSON ({exc})") from None
    if isinstance(doc, list):
        doc = {"history": doc}
    if not isinstance(doc, dict):
        raise UsageError(f"bad {option} {path}: expected a JSON list of action ids or an "
                         f"object with a 'history' field")
    if "history" not in doc:
        raise UsageError(f"bad {option} {path}: no 'history' field (a list of action ids)")
    hist = doc["history"]
    if not isinstance(hist, list) or any(isinstance(a, bool) or not isinstance(a, int)
                                         for a in hist):
        bad = next((a for a in hist if isinstance(a, bool) or not isinstance(a, int)), hist) \
            if isinstance(hist, list) else hist
        raise UsageError(f"bad {option} {path}: field 'history' must be a list of integer "
                         f"action ids; found {json.dumps(bad)}")
    return doc


def record_params(record: dict, game: str, params: dict, option: str, path: str) -> dict:
    """The game parameters of a record merged with the command line's (a record names its
    game and params when ``ratai play --save`` or ``ratai arena --out`` wrote it).

    Raises:
        UsageError: the record is of another game, or contradicts a command-line parameter.
    """
    if record.get("game") not in (None, game):
        raise UsageError(f"bad {option} {path}: it records a {record['game']} game, not {game}")
    rec_params = record.get("params") or {}
    if not isinstance(rec_params, dict):
        raise UsageError(f"bad {option} {path}: field 'params' must be an object")
    _same_params(rec_params, params, option, path, "record")
    return {**params, **rec_params}


def _same_params(recorded: dict, given: dict, option: str, path: str, what: str) -> None:
    """Refuse command-line game parameters (``--players``, ``--variant``, ``--param``) that
    differ from those a finished run recorded.

    Raises:
        UsageError: naming the recorded value and the command line's.
    """
    for key, value in given.items():
        if key in recorded and recorded[key] != value:
            if key == "num_players":
                raise UsageError(f"bad {option} {path}: a {recorded[key]}-player {what}, not "
                                 f"--players {value} (num_players={recorded[key]})")
            raise UsageError(f"bad {option} {path}: the {what} has {key}="
                             f"{json.dumps(recorded[key])}, the command line "
                             f"{json.dumps(value)}")


def recorded_seats(record: dict, option: str, path: str) -> tuple[int | None, dict[int, str]]:
    """The human's seat and the bot spec of every other seat of a ``ratai play --save``
    record (``seats``: ``{"0": "human", "1": "ismcts:500", ...}``); ``(None, {})`` for a
    record without one (a list of actions, an arena record).

    Raises:
        UsageError: a ``seats`` field of another shape.
    """
    seats = record.get("seats")
    if not isinstance(seats, dict):
        return None, {}
    try:
        table = {int(k): v for k, v in seats.items()}
    except ValueError:
        table = {}
    humans = [k for k, v in table.items() if v == "human"]
    if (len(table) != len(seats) or len(humans) != 1
            or any(not isinstance(v, str) or not v for v in table.values())):
        raise UsageError(f"bad {option} {path}: field 'seats' must map seat numbers to "
                         f"\"human\" (one seat) or bot specs")
    return humans[0], {k: v for k, v in table.items() if v != "human"}


def write_record(path: str, game, state, seed: int, seats: dict) -> None:
    """Write a ``ratai play`` record: game, params, seed, seats, history, scores, returns."""
    doc = {"game": game.name,
           "params": dict(game.params), "seed": seed, "seats": seats,
           "history": [int(a) for a in state.history()]}
    if state.is_terminal():
        doc.update(scores=state.scores(), returns=state.returns())
    Path(path).write_text(json.dumps(doc) + "\n")


def game_over_line(state) -> str:
    """``Game over: winner seat 1 (42 points); scores: seat 0 30, seat 1 42, seat 2 17``."""
    scores, returns = state.scores(), state.returns()
    best = max(returns)
    winners = [k for k, r in enumerate(returns) if r == best]
    fmt = ", ".join(f"seat {k} {s:g}" for k, s in enumerate(scores))
    if best <= 0:
        who = "no seat wins (every return is 0)"
    elif len(winners) == 1:
        who = f"winner seat {winners[0]} ({scores[winners[0]]:g} points)"
    else:
        who = "shared win: " + " and ".join(f"seat {k}" for k in winners) + \
            f" ({scores[winners[0]]:g} points)"
    return f"Game over: {who}; scores: {fmt}"


# -- terminal play -----------------------------------------------------------------------
def fit_lines(text: str, width: int = SCREEN_COLUMNS) -> list[str]:
    """``text`` wrapped to ``width`` columns; continuation lines keep the indent + 2."""
    out = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip())
        out += textwrap.wrap(line, width, initial_indent="", subsequent_indent=" " * (indent + 2),
                             break_long_words=True, drop_whitespace=True) or [""]
    return out


def move_pages(labels: Sequence[str], rows: int = MOVE_ROWS,
               width: int = SCREEN_COLUMNS) -> list[list[str]]:
    """The numbered move list in columns, paged: each page at most ``rows`` lines."""
    cells = [f"[{i}] {lab}" for i, lab in enumerate(labels)]
    colw = min(width, max(len(c) for c in cells) + 2) if cells else width
    ncols = max(1, (width + 2) // colw)
    per_page = rows * ncols
    pages = []
    for start in range(0, len(cells), per_page):
        chunk = cells[start:start + per_page]
        nrows = math.ceil(len(chunk) / ncols)
        lines = []
        for r in range(nrows):
            row = [chunk[c * nrows + r] for c in range(ncols) if c * nrows + r < len(chunk)]
            line = "".join(cell.ljust(colw) for cell in row).rstrip()
            lines += fit_lines("  " + line if len(line) + 2 <= width else line, width)
        pages.append(lines)
    return pages or [[]]


def event_line(state, me: int, cp: int, action: int) -> str:
    """``who: what`` for one action as seat ``me`` sees it (``chance``, ``you``, ``seat N``)."""
    what = state.describe_action(me, action)
    what = what.removeprefix(f"seat {cp}: ") if cp >= 0 else what
    who = "chance" if cp == CHANCE else ("you" if cp == me else f"seat {cp}")
    return f"{who}: {what}"


def summarize_events(events: Sequence[str]) -> list[str]:
    """Merge runs of similar events into one line each: ``chance: reveal backpack BP-G1: ...``
    then ``chance: reveal backpack BP-W2: ...`` become ``chance: reveal backpack BP-G1: ...;
    BP-W2: ...`` (First Rat's 17 setup reveals take 3 events instead of 17)."""
    out: list[str] = []
    run: list[str] = []  # the words of the run's first event
    for e in events:
        words = e.split(" ")
        common = 0
        while common < min(len(run), len(words)) and run[common] == words[common]:
            common += 1
        if run and common >= 3 and common < len(words):  # "who: verb noun" at least
            out[-1] += "; " + " ".join(words[common:])
        else:
            out.append(e)
            run = words
    return out


class Terminal:
    """Input for ``ratai play``: prompt_toolkit with label completion on a terminal, plain
    ``readline`` otherwise (pipes, tests)."""

    def __init__(self, out: TextIO, inp: TextIO, session: Any = None):
        self.out, self.inp = out, inp
        self.session = session
        if session is not None:
            return
        try:
            tty = inp is sys.stdin and out is sys.stdout and sys.stdin.isatty() \
                and sys.stdout.isatty()
        except (AttributeError, ValueError):
            tty = False
        if tty:
            try:
                from prompt_toolkit import PromptSession

                self.session = PromptSession()
            except Exception:  # noqa: BLE001 - no usable terminal: fall back to plain input
                self.session = None

    def ask(self, prompt: str, words: Sequence[str] = ()) -> str | None:
        """One line (``None`` at end of input)."""
        if self.session is not None:
            from prompt_toolkit.completion import FuzzyWordCompleter

            try:
                return self.session.prompt(prompt, completer=FuzzyWordCompleter(list(words)))
            except EOFError:
                return None
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        return line.rstrip("\n") if line else None


class _HintBot:
    """The bot behind 'h', built on first use."""

    def __init__(self, spec: str, game, seat: int):
        self.spec, self.game, self.seat, self.bot = spec, game, seat, None

    def get(self):
        from ratai.arena import BotSpec

        if self.bot is None:
            self.bot = BotSpec.parse(self.spec).make(self.game, self.seat, 0)
        return self.bot


def _show_hint(state, hint: _HintBot, out: TextIO, top: int = 5) -> None:
    """The hint bot's analysis: its best moves with visits and values (win chance)."""
    try:
        bot = hint.get()
    except ValueError as exc:
        out.write(f"  no hint: {exc}\n")
        return
    analysis = bot.analyze(state)
    best = state.action_to_string(bot.player, analysis.best_action)
    lines = [f"  hint ({analysis.kind}, {analysis.iterations} iterations, "
             f"{analysis.elapsed_s:.2f}s): play {best}"]
    for m in analysis.moves[:top]:
        lines.append(f"    {m.label[:60]:<60} visits {m.visits:>6}  value {m.value:.3f}")
    if analysis.pv:
        lines.append("    line: " + " -> ".join(step.label for step in analysis.pv[:6]))
    out.write("\n".join(fit_lines("\n".join(lines))) + "\n")


class PlaySession:
    """One terminal game: a human seat against bots, with undo, hints, save and paging.

    Chance is drawn from a stream keyed by (seed, ply), so undoing and replaying a decision
    gives the same dice and cards: undo cannot be used to fish for luck.
    """

    def __init__(self, game, me: int, bots: dict, seed: int, hint: _HintBot, term: Terminal,
                 save: str | None, seats: dict):
        self.game, self.me, self.bots, self.seed = game, me, bots, seed
        self.hint, self.term, self.out, self.save, self.seats = hint, term, term.out, save, seats
        self.state = game.new_initial_state()
        self.undo: list = []
        self.events: list[str] = []
        self.header: list[str] = []  # lines printed with the first screen

    def chance(self, state) -> int:
        return sample_chance_outcome(state, np.random.default_rng([self.seed, len(
            state.history())]))

    def replay(self, history: Sequence[int]) -> None:
        """Re-apply a saved history (checked), rebuilding the undo points."""
        for a in history:
            if self.state.is_terminal():
                raise UsageError("bad --load: the history continues after the game's end")
            if self.state.current_player() == self.me:
                self.undo.append(self.state.clone())
            try:
                self.state.apply_action(int(a))
            except ValueError as exc:
                raise UsageError(f"bad --load: {exc}") from None

    def _save(self) -> None:
        if self.save:
            write_record(self.save, self.game, self.state, self.seed, self.seats)

    def screen(self, board_page: int = 0, move_page: int = 0,
               header: Sequence[str] = ()) -> list[str]:
        """The lines shown before a prompt: ``header``, recent events, one page of the board
        and one page of the moves; at most SCREEN_LINES lines of SCREEN_COLUMNS columns."""
        st, me = self.state, self.me
        top: list[str] = list(header)
        shown: list[str] = []
        events = summarize_events(self.events)
        kept = 0
        for e in reversed(events):  # the latest whole events that fit EVENT_LINES
            lines_e = fit_lines(f"  * {e}")
            if len(shown) + len(lines_e) > EVENT_LINES - 1 and kept:
                break
            shown = lines_e[:EVENT_LINES - 1] + shown
            kept += 1
        if kept < len(events):
            top.append(f"  ({len(events) - kept} earlier events; 'l' shows the game log)")
        top += shown
        labels = [st.action_to_string(me, a) for a in st.legal_actions()]
        mpages = move_pages(labels)
        mp = move_page % len(mpages)
        bottom = [f"your moves ({len(labels)}):", *mpages[mp]]
        if len(mpages) > 1:
            bottom.append(f"  (moves page {mp + 1}/{len(mpages)}; 'm' shows the next page)")
        if len(labels) == 1:
            bottom.append("  (your only option: the game still asks, so nobody learns why)")
        board = fit_lines(st.render(me))
        room = max(8, min(BOARD_LINES, SCREEN_LINES - len(top) - len(bottom) - 2))
        pages = max(1, math.ceil(len(board) / room))
        bp = board_page % pages
        middle = [""] + board[bp * room:(bp + 1) * room]
        if pages > 1:
            middle.append(f"  (board page {bp + 1}/{pages}; 'b' shows the next page)")
        return top + middle + bottom

    def log(self, lines: int = SCREEN_LINES - 2) -> list[str]:
        """The game so far as you saw it (the last ``lines`` lines): who did what."""
        replay = self.game.new_initial_state()
        out = []
        for a in self.state.history():
            line = event_line(replay, self.me, replay.current_player(), a)
            out += fit_lines(f"  {replay.move_number():>4} {line}")
            replay.apply_action(a)
        out = out[-(lines - 1):]
        return [f"game log (last {len(out)} lines of {len(self.state.history())} actions):",
                *out]

    def ask_move(self) -> int | str | None:
        st, me = self.state, self.me
        legal = st.legal_actions()
        labels = [st.action_to_string(me, a) for a in legal]
        bp = mp = 0
        self.out.write("\n".join(self.screen(bp, mp, self.header)) + "\n")
        self.header = []
        self.events = []
        while True:
            line = self.term.ask("your move> ", labels + ["hint", "undo", "quit", "board",
                                                           "moves", "log"])
            if line is None or line.strip().lower() in ("q", "quit"):
                return None
            text = line.strip()
            low = text.lower()
            if low in ("u", "undo"):
                return "undo"
            if low in ("h", "hint"):
                _show_hint(st, self.hint, self.out)
                continue
            if low in ("b", "board"):
                bp += 1
                self.out.write("\n".join(self.screen(bp, mp)) + "\n")
                continue
            if low in ("m", "moves"):
                mp += 1
                self.out.write("\n".join(move_pages(labels)[mp % len(move_pages(labels))])
                               + "\n")
                continue
            if low in ("l", "log"):
                self.out.write("\n".join(self.log()) + "\n")
                continue
            if text.isdigit() and int(text) < len(legal):
                return legal[int(text)]
            matches = [a for a, lab in zip(legal, labels, strict=True) if lab.lower() == low]
            if not matches and text:
                matches = [a for a, lab in zip(legal, labels, strict=True)
                           if lab.lower().startswith(low)]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                self.out.write(f"  {len(matches)} moves start with {text!r}; type more or "
                               f"the number\n")
                continue
            self.out.write(f"  not a legal move: {text!r}; type 0..{len(legal) - 1}, a move's "
                           f"label, or h/u/b/m/l/q\n")

    def run(self) -> int:
        me = self.me
        while not self.state.is_terminal():
            st = self.state
            cp = st.current_player()
            if cp == CHANCE:
                action = self.chance(st)
            elif cp == me:
                self._save()
                action = self.ask_move()
                if action is None:
                    self._save()
                    self.out.write("bye" + (f" (saved to {self.save})" if self.save else "")
                                   + "\n")
                    return 0
                if action == "undo":
                    if self.undo:
                        self.state = self.undo.pop()
                        self.events = ["(undone: back to your previous decision; the dice "
                                       "and cards stay the same)"]
                    else:
                        self.out.write("  (nothing to undo)\n")
                    continue
                self.undo.append(st.clone())
            else:
                action = self.bots[cp].step(st)
            self.events.append(event_line(st, me, cp, action))
            st.apply_action(action)
        self._save()
        self.out.write("\n".join(fit_lines(self.state.render(me))[:SCREEN_LINES - 3]) + "\n")
        self.out.write(game_over_line(self.state) + "\n")
        if self.save:
            self.out.write(f"record saved to {self.save}\n")
        return 0


@cli.command(help="Play a game in the terminal against bots. At your turn type a move's "
                  "number or label (Tab completes on a terminal), 'h' for a hint, 'u' to "
                  "undo, 'b'/'m' for the next board/moves page, 'q' to quit.",
             epilog="example: ratai play rat_trap --players 3 --bots ismcts:0.5s,heuristic "
                    "--save game.json")
@_game_options
@click.option("--seat", type=click.IntRange(min=0), default=0,
              help="your seat  [with --load: the recorded one]")
@click.option("--bots", type=BotListType(), default="random",
              help="bot specs for the other seats, comma-separated, e.g. random or "
                   "ismcts:2000,heuristic (the last one repeats); refused in a 1-player game "
                   "(solo First Rat: Greg is the game's automaton, not a bot)  [with --load: "
                   "the recorded ones]")
@click.option("--seed", type=SEED, default=None,
              help="seed for dice, cards and bots  [default: random, printed; with --load: "
                   "the recorded one]")
@click.option("--hint", "hint_spec", type=BotSpecType(), default="ismcts:1000",
              help="the bot that answers 'h'")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="keep the game record in this new JSON file (updated every turn; "
                   "`ratai suggest --history FILE` and `--load FILE` read it; an existing "
                   "file only when it is the --load one)")
@click.option("--load", type=click.Path(dir_okay=False), default=None,
              help="continue the game recorded in this file with its params, seed, seat and "
                   "bots (a different --players, --seed, --seat or --bots is refused); the "
                   "new moves are saved only with --save (which may name the same file)")
@click.pass_context
def play(ctx, game, players, variant, param, seat, bots, seed, hint_spec, save, load):
    out, inp = _out(ctx), ctx.obj.get("inp", sys.stdin)
    _writable(save, "--save")
    if save and Path(save).expanduser().exists() and not (
            load and Path(load).expanduser().resolve() == Path(save).expanduser().resolve()):
        # a tester's `--save games.jsonl` replaced a 10-game arena file with one record
        raise UsageError(f"--save {save} exists: give a new file, or --load {save} --save "
                         f"{save} to continue the game it records (nothing was written)")
    params = _game_params(game, variant, players, param)
    given = {name: ctx.get_parameter_source(name) is not ParameterSource.DEFAULT
             for name in ("seat", "bots")}
    record = None
    rec_bots: dict[int, str] = {}
    if load:
        record = read_record(load, "--load")
        params = record_params(record, game, params, "--load", load)
        rec_seed = record.get("seed")
        if isinstance(rec_seed, int) and not isinstance(rec_seed, bool):
            if seed is not None and seed != rec_seed:
                raise UsageError(f"--seed {seed} contradicts --load {load}: it records seed "
                                 f"{rec_seed} (drop --seed to continue with it)")
            seed = rec_seed
        rec_seat, rec_bots = recorded_seats(record, "--load", load)
        if rec_seat is not None:
            if given["seat"] and seat != rec_seat:
                raise UsageError(f"--seat {seat} contradicts --load {load}: it records you "
                                 f"at seat {rec_seat} (drop --seat to continue there)")
            seat = rec_seat
    g = _load(game, params)
    n = g.num_players()
    if not seat < n:
        raise UsageError(f"bad --seat {seat}: allowed 0..{n - 1}")
    if params.get("simultaneous"):
        raise UsageError("ratai play plays the sequential view (each seat commits its hidden "
                         "plan in turn: the same game); drop simultaneous=true")
    others = [s for s in range(n) if s != seat]
    automaton = bool(g.new_initial_state().automaton_scores())
    if not others and given["bots"]:
        raise UsageError(f"bad --bots {','.join(bots)}: a {n}-player game has no seat for a "
                         f"bot (yours is the only one"
                         + ("; the game's automaton plays against you, see `ratai games`)"
                            if automaton else ")"))
    if others and len(bots) > len(others):
        raise UsageError(f"bad --bots {','.join(bots)}: {len(bots)} bots for the {len(others)} "
                         f"other seat{'s' if len(others) != 1 else ''} of a {n}-player game "
                         f"(the last bot fills any seats left)")
    wanted = {s: bots[min(i, len(bots) - 1)] for i, s in enumerate(others)}
    if rec_bots:
        if set(rec_bots) != set(others):
            raise UsageError(f"bad --load {load}: field 'seats' names bots for seats "
                             f"{sorted(rec_bots)}, the game's other seats are {others}")
        if given["bots"] and wanted != rec_bots:
            recorded = ", ".join(f"seat {s} {spec}" for s, spec in sorted(rec_bots.items()))
            raise UsageError(f"--bots {','.join(bots)} contradicts --load {load}: it records "
                             f"{recorded} (drop --bots to continue with them)")
        wanted = rec_bots
    if seed is None:
        seed = int(np.random.default_rng().integers(2**31))
    from ratai.arena import BotSpec

    rng = np.random.default_rng(seed)
    bot_of, seats = {}, {str(seat): "human"}
    for s in others:
        spec = wanted[s]
        try:
            bot_of[s] = BotSpec.parse(spec).make(g, s, int(rng.integers(2**31)))
        except ValueError as exc:
            where = f"--load {load}: seat {s}'s bot" if rec_bots else "--bots"
            raise UsageError(f"bad {where} {spec!r}: {exc}") from None
        seats[str(s)] = spec
    session = PlaySession(g, seat, bot_of, seed, _HintBot(hint_spec, g, seat),
                          Terminal(out, inp), save, seats)
    if others:
        who = "bots: " + ", ".join(f"seat {s} {seats[str(s)]}" for s in others)
    else:
        who = "bots: none (solo" + (": the game's automaton plays against you)" if automaton
                                    else ")")
    session.header = fit_lines(
        who + "\n"
        f"you are seat {seat} (seed {seed}). Type a move's number or label; 'h' hint, "
        f"'u' undo, 'q' quit.")
    if record is not None:
        session.replay(record["history"])
        session.header.append(f"loaded {len(record['history'])} actions from {load}")
        if not save:
            session.header += fit_lines(
                f"new moves are not saved: add --save FILE to keep them (--save {load} "
                f"updates the loaded record)")
    ctx.exit(session.run())


@cli.command(help="Seat-rotated matches between bots, with win rates and ratings (one "
                  "seat, e.g. solo First Rat: win rates against the game's automaton, no "
                  "ratings).",
             epilog="example: ratai arena rat_trap --players 3 --bots random,heuristic "
                    "--games 30")
@_game_options
@click.option("--bots", type=BotListType(), required=True,
              help="comma-separated bot specs KIND[:ITERATIONS|:SECONDSs]")
@click.option("--games", "n_games", type=click.IntRange(min=1), default=20,
              help="number of games")
@click.option("--workers", type=click.IntRange(min=1), default=1, help="processes")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              help="where the games run")
@click.option("--seed", type=SEED, default=0, help="seed of the whole tournament")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="write every game record (JSON lines) to this file")
@click.pass_context
def arena(ctx, game, players, variant, param, bots, n_games, workers, backend, seed, out_path):
    from ratai.arena import format_table, run_arena, standings, write_records

    out = _out(ctx)
    _writable(out_path, "--out")
    params = _game_params(game, variant, players, param)
    _load(game, params)
    finished: list[dict] = []   # as they end: what Ctrl-C keeps
    # each finished game is also appended to --out at once (in the order games end), so a
    # run killed outright (SIGKILL, out of memory) keeps them; a run that ends, or is
    # interrupted, rewrites the file in game order. Opened at the first finished game, so
    # a run refused before any game leaves an existing file as it was.
    stream: list = []

    def on_record(rec: dict) -> None:
        finished.append(rec)
        if out_path:
            if not stream:
                stream.append(open(out_path, "w"))   # closed below
            stream[0].write(json.dumps(rec) + "\n")
            stream[0].flush()
        progress.advance(task)

    try:
        try:
            with _progress(out) as progress:
                task = progress.add_task(f"{game}: {n_games} games", total=n_games)
                records = run_arena(game, params, bots, n_games, seed=seed, workers=workers,
                                    backend=backend, on_record=on_record)
        finally:
            for f in stream:
                f.close()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except (KeyboardInterrupt, ChildProcessError):   # keep the games already played
        if out_path and finished:
            write_records(sorted(finished, key=lambda r: r["index"]), out_path)
            click.echo(f"ratai: {len(finished)} of {n_games} games finished; their records "
                       f"written to {out_path}", err=True)
        raise
    if out_path:  # first: the games are kept whatever happens next
        write_records(records, out_path)
    rows = standings(records, list(dict.fromkeys(bots)))
    moves = sum(r["moves"] for r in records) / max(1, len(records))
    out.write(f"{game} {json.dumps(records[0]['params'] if records else params)}: "
              f"{len(records)} games, {moves:.0f} actions per game\n\n")
    out.write(format_table(rows) + "\n")
    if records and len(records[0]["seats"]) == 1:
        rivals = [r.get("automaton_scores") or [] for r in records]
        against = ""
        if all(rivals):
            mean = sum(max(x) for x in rivals) / len(rivals)
            against = f" (the automaton's mean score: {mean:.2f})"
        out.write("\nsolo: each game is one seat against the game's automaton (see `ratai "
                  "games`); win rate = share of games won against it, mean score = the "
                  f"seat's points{against}; ratings n/a (a rating needs two entrants in a "
                  "game)\n")
    if out_path:
        out.write(f"\nrecords written to {out_path}\n")


@cli.command(help="One hint for a seat, from a game record (--history) or a serialized "
                  "state (--state).",
             epilog="example: ratai suggest rat_trap --players 3 --history game.json --seat 1 "
                    "--bot ismcts:2000 --json")
@_game_options
@click.option("--history", type=click.Path(dir_okay=False), default=None,
              help="JSON list of action ids, a `ratai play --save` record or one arena "
                   "record (a file of one line of `ratai arena --out`)")
@click.option("--state", "state_path", type=click.Path(dir_okay=False), default=None,
              help="a file of State.serialize() bytes")
@click.option("--seat", type=click.IntRange(min=0), required=True, help="the seat to advise")
@click.option("--bot", type=BotSpecType(), default="ismcts:1000", help="bot spec")
@click.option("--seed", type=click.IntRange(min=0), default=0, help="bot seed")
@click.option("--json", "as_json", is_flag=True, help="print the Analysis as JSON")
@click.pass_context
def suggest(ctx, game, players, variant, param, history, state_path, seat, bot, seed, as_json):
    import dataclasses

    from ratai.arena import BotSpec

    out = _out(ctx)
    if (history is None) == (state_path is None):
        raise UsageError("give exactly one of --history FILE or --state FILE")
    params = _game_params(game, variant, players, param)
    doc = read_record(history, "--history") if history is not None else None
    if doc is not None:
        params = record_params(doc, game, params, "--history", history)
    else:
        from ratai.engines.api import parse_json, read_user_file

        try:
            text = read_user_file(state_path, "--state", MAX_RECORD_BYTES)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        try:   # a serialized state names its game and params, as a record does
            stored = parse_json(text)
        except ValueError:
            stored = None   # not JSON: deserialize_state says so below
        if isinstance(stored, dict) and isinstance(stored.get("params"), dict):
            params = record_params(stored, game, params, "--state", state_path)
    g = _load(game, params)
    if seat >= g.num_players():
        raise UsageError(f"bad --seat {seat}: allowed 0..{g.num_players() - 1}")
    if doc is not None:
        try:
            state = g.state_from_history(doc["history"])
        except ValueError as exc:
            raise UsageError(f"bad --history {history}: {exc}") from None
    else:
        try:
            state = g.deserialize_state(text)
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"bad --state {state_path}: {exc}") from None
    if state.is_terminal():
        raise UsageError(f"the game in {history or state_path} is over ("
                         f"{game_over_line(state).removeprefix('Game over: ')}); "
                         f"nothing to suggest")
    cp = state.current_player()
    joint = cp == SIMULTANEOUS and bool(state.legal_actions(seat))  # the seat still plans
    if cp != seat and not joint:
        who = {CHANCE: "chance (dice or cards) is to move",
               SIMULTANEOUS: "a joint move of the other seats"}.get(cp, f"to move: {cp}")
        raise UsageError(f"it is not seat {seat}'s turn in that position ({who})")
    try:
        analysis = BotSpec.parse(bot).make(g, seat, seed).analyze(state)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        if state_path is None:   # a history replayed by the rules: an error is ratai's
            raise
        # the fields of a serialized state are checked as far as each seat can see them and
        # by playability (Game.deserialize_state); a file crafted past that can still break
        # the engine deeper down: one line naming the file, as the service answers
        raise UsageError(f"bad --state {state_path}: the engine could not search this "
                         f"position ({type(exc).__name__}: {exc}); check the file") from None
    if as_json:
        out.write(json.dumps(dataclasses.asdict(analysis), indent=1) + "\n")
        return
    out.write(f"seat {seat}: play {state.action_to_string(seat, analysis.best_action)}"
              f"  ({analysis.kind}, {analysis.iterations} iterations, {analysis.nodes} nodes, "
              f"depth {analysis.max_depth}, {analysis.elapsed_s:.2f}s)\n")
    for m in analysis.moves[:8]:
        out.write(f"  {m.label:<44} visits {m.visits:>6}  value {m.value:.3f}\n")
    if analysis.pv:
        out.write("  principal variation: " + " -> ".join(p.label for p in analysis.pv) + "\n")


@cli.command(help="A JSON-lines analysis engine on stdin/stdout (KataGo-style): one query "
                  "per line, answers by id, terminate/terminate_all; see docs/engine.md.",
             epilog='example: echo \'{"id":"1","game":"rat_trap","history":[44],'
                    '"bot":"ismcts:500"}\' | ratai engine')
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="queries searched at once  [default: the number of cores]")
@click.pass_context
def engine(ctx, workers):
    from ratai.engine import run_engine

    ctx.exit(run_engine(ctx.obj.get("inp", sys.stdin), _out(ctx), workers))


@cli.command(help="Search speed and depth against time, strength against iterations.",
             epilog="example: ratai bench rat_trap --seconds 1 --games 20 --plot bench.png")
@click.argument("game", type=GAMES, required=False, metavar="[GAME]")
@click.option("--players", type=click.IntRange(min=1), default=None,
              help="number of seats  [default: 3]")
@click.option("--kind", default=None,
              help="bot kind  [default: mcts, or ismcts for hidden information]")
@click.option("--seconds", type=POSITIVE_SECONDS, default=1.0,
              help="largest time budget per analysis (seconds)")
@click.option("--budgets", type=IntListType(1), default="10,30,100,300",
              help="iteration budgets for the strength curve")
@click.option("--games", "n_games", type=click.IntRange(min=1), default=12,
              help="games per budget")
@click.option("--workers", type=click.IntRange(min=1), default=1, help="processes for the games")
@click.option("--seed", type=SEED, default=0, help="seed of positions and games")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="write a PNG plot here (needs matplotlib)")
@click.option("--markdown", type=click.Path(dir_okay=False), default=None,
              help="write the Markdown table here")
@click.pass_context
def bench(ctx, game, players, kind, seconds, budgets, n_games, workers, seed, plot, markdown):
    from ratai import bench as bench_mod
    from ratai.bots import BOT_KINDS

    out = _out(ctx)
    _writable(plot, "--plot")
    if plot:
        _plotting("--plot")
        from matplotlib.figure import Figure

        kinds = Figure().canvas.get_supported_filetypes()
        suffix = Path(plot).suffix.lstrip(".").lower()
        if suffix and suffix not in kinds:   # found before the benchmark, not after it
            # (no suffix: matplotlib's default format, png)
            raise UsageError(f"bad --plot {plot}: a plot file ends in one of "
                             f"{', '.join('.' + k for k in sorted(kinds))}")
    _writable(markdown, "--markdown")
    if kind is not None and kind not in BOT_KINDS:
        raise UsageError(f"bad --kind {kind!r}; known kinds: {sorted(BOT_KINDS)}")
    names = [game] if game else registered_games()
    speed_rows, strength_rows = [], []
    try:
        with _progress(out) as progress:
            for name in names:
                k = kind or bench_mod.default_kind(load_game(name))
                params = {"num_players": players} if players else None
                task = progress.add_task(f"{name} {k}: speed", total=len(
                    bench_mod.SPEED_FRACTIONS) * bench_mod.SPEED_POSITIONS)
                speed_rows += bench_mod.speed(name, k, seconds, seed=seed, params=params,
                                              on_step=lambda t=task: progress.advance(t))
                progress.update(task, description=f"{name} {k}: strength", completed=0,
                                total=len(budgets) * n_games)
                strength_rows += bench_mod.strength(
                    name, k, budgets, n_games, seed=seed, workers=workers, params=params,
                    on_record=lambda rec, t=task: progress.advance(t))
                progress.remove_task(task)
                out.write(f"{name}: {k} done\n")
        table = bench_mod.markdown(speed_rows, strength_rows)
        out.write("\n" + table + "\n")
        if markdown:
            Path(markdown).write_text(table + "\n")
        if plot:
            bench_mod.plot(speed_rows, strength_rows, plot)
            out.write(f"plot written to {plot}\n")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


class SpecListType(click.ParamType):
    """Comma-separated bot specs, parsed and budgets checked (kinds may be the ``{rollout}``
    placeholder: ``ratai ladder`` resolves them, refuses unknown ones and notes ``az``
    entrants that cannot play)."""

    name = "SPEC,..."

    def convert(self, value, param, ctx):
        from ratai.arena import BotSpec

        if isinstance(value, list):
            return value
        parts = [p.strip() for p in str(value).split(",")]
        if any(not p for p in parts):
            self.fail(f"{value!r}: expected comma-separated bot specs", param, ctx)
        for p in parts:
            try:
                problem = _budget_problem(BotSpec.parse(p))
            except ValueError as exc:
                self.fail(str(exc), param, ctx)
            if problem:
                self.fail(f"bad bot spec {p!r}: {problem}", param, ctx)
        return parts


@cli.command(help="A rated round robin (openskill, seats rotated) of random, heuristic, the "
                  "rollout search (mcts, or ismcts with hidden information) at 100/1k/10k "
                  "iterations and az (when a model ships) at those budgets and 0.1s/1s per "
                  "move; writes ladder.md, ladder.png, ladder.json and records.jsonl to --out.",
             epilog="example: ratai ladder rat_trap --players 2 --games-per-pair 10 "
                    "--workers 2 --out ladder-rat_trap-2p   (the default at 2 players: about 5-10 "
                    "minutes with --workers 2 on 2 free cores; --quick: seconds)")
@_game_options
@click.option("--games-per-pair", "per_table", type=click.IntRange(min=1), default=10,
              help="games per table (pair at 2 players, n-subset of entrants at n), rounded "
                   "up to a multiple of the seat count so seats rotate fully")
@click.option("--seed", type=SEED, default=0, help="seed of the whole ladder")
@click.option("--workers", type=click.IntRange(min=1), default=1, help="processes")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              help="where the games run")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="output directory  [default: ladder-GAME-Np]")
@click.option("--kinds", type=str, default=None,
              help="only these kinds, comma-separated (random, heuristic, mcts, ismcts, "
                   "rollout = the game's rollout search, az, level)")
@click.option("--entrants", type=SpecListType(), default=None,
              help="entrant specs instead of the default list (e.g. random,heuristic,"
                   "{rollout}:300,level:5); {rollout} is mcts or ismcts by game")
@click.option("--budget-scale", type=SCALE, default=1.0,
              help="multiply every iteration and time budget by this")
@click.option("--quick", is_flag=True,
              help="a smoke run: --budget-scale 0.01 and one seat rotation per table")
@click.option("--no-plot", is_flag=True, help="skip ladder.png (no matplotlib needed)")
@click.option("--calibrate-levels", "levels_path", type=click.Path(dir_okay=False),
              default=None, help="write this game's level=1..10 presets from the result into "
                                 "this levels.json (needs the level candidates as entrants)")
@click.option("--from-run", "from_run", type=click.Path(file_okay=False), default=None,
              help="play nothing: re-rate and re-tabulate the finished ladder in this "
                   "directory (with --calibrate-levels: re-derive the levels from its games); "
                   "--players/--variant/--param must match its games, and options that "
                   "shape the games (--seed, --entrants, ...) are refused")
@click.pass_context
def ladder(ctx, game, players, variant, param, per_table, seed, workers, backend, out_dir,
           kinds, entrants, budget_scale, quick, no_plot, levels_path, from_run):
    import shlex

    from ratai import ladder as lad
    from ratai.bots.levels import LEVEL_CANDIDATES

    out = _out(ctx)
    _writable(levels_path, "--calibrate-levels")
    if not no_plot:
        _plotting("ladder.png (or pass --no-plot)")
    if from_run is not None:
        playing_only = [p.opts[0] for p in ctx.command.params
                        if p.name in _LADDER_PLAY_OPTIONS
                        and ctx.get_parameter_source(p.name) is not ParameterSource.DEFAULT]
        if playing_only:
            raise UsageError(f"--from-run plays nothing (it re-rates the games in {from_run}): "
                             f"drop {', '.join(playing_only)}")
        try:
            result = lad.LadderResult.load(from_run)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if result.game != game:
            raise UsageError(f"bad --from-run {from_run}: a {result.game} ladder, not {game}")
        _same_params(result.params, _game_params(game, variant, players, param), "--from-run",
                     from_run, "ladder")
        derived = "ratai " + " ".join(shlex.quote(a) for a in ctx.obj.get("argv", []))
        _writable(out_dir, "--out", directory=True)
        _finish_ladder(out, lad, result, out_dir or from_run, no_plot, levels_path, derived)
        return
    params = _game_params(game, variant, players, param)
    g = _load(game, params)
    n = g.num_players()
    if quick:
        budget_scale, per_table = budget_scale * 0.01, n
    if levels_path and budget_scale != 1.0:
        raise UsageError("--calibrate-levels measures the real budgets: drop --budget-scale "
                         "and --quick")
    if levels_path and entrants is None:
        entrants = list(LEVEL_CANDIDATES)
    kind_list = None
    if kinds is not None:
        kind_list = [k.strip() for k in kinds.split(",")]
        if any(not k for k in kind_list):
            raise UsageError(f"bad --kinds {kinds!r}: expected comma-separated bot kinds")
    try:
        ents = lad.resolve_entrants(g, entrants or lad.ENTRANTS, kinds=kind_list,
                                    budget_scale=budget_scale)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    out_dir = out_dir or f"ladder-{game}-{n}p"
    _writable(out_dir, "--out", directory=True)
    playing = [e.spec for e in ents if e.note is None]
    for e in ents:
        if e.note is not None:
            out.write(f"skipping {e.spec}: {e.note}\n")
    command = "ratai " + " ".join(shlex.quote(a) for a in ctx.obj.get("argv", []))
    try:
        seatings = lad.schedule(len(playing), n, per_table)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    total = sum(lad.game_cost([playing[i] for i in s]) for s in seatings)
    with _progress(out, eta=True) as progress:
        task = progress.add_task(f"{game} {n}p: {len(seatings)} games", total=total)
        count = [0]

        def advance(rec, cost, t=task):
            count[0] += 1
            progress.update(t, advance=cost,
                            description=f"{game} {n}p: {count[0]}/{len(seatings)} games")
        try:
            result = lad.run_ladder(game, params, ents, games_per_table=per_table, seed=seed,
                                    workers=workers, backend=backend,
                                    budget_scale=budget_scale, command=command,
                                    on_record=advance)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        except lad.LadderInterrupted as stop:   # keep the games already played
            if stop.result.records:
                lad.write_outputs(stop.result, out_dir, with_plot=False)
                click.echo(f"ratai: {len(stop.result.records)} of {stop.total} games "
                           f"finished; their records and standings written to {out_dir} "
                           f"(`ratai ladder {game} --from-run {out_dir}` re-rates them)",
                           err=True)
            raise
    _finish_ladder(out, lad, result, out_dir, no_plot, levels_path)


#: ``ratai ladder`` options that only shape the games played (refused with --from-run).
_LADDER_PLAY_OPTIONS = ("per_table", "seed", "workers", "backend", "kinds", "entrants",
                        "budget_scale", "quick")


def _finish_ladder(out, lad, result, out_dir, no_plot, levels_path, derived="") -> None:
    """Calibrate the levels (if asked), write the ladder's files and print its table."""
    if levels_path:
        try:
            entry = lad.calibrate_levels(result, levels_path, derived)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if entry["dropped"]:
            result.notes.append("level candidates dropped (measured significantly weaker "
                                "than the level below): "
                                + ", ".join(d["spec"] for d in entry["dropped"]))
        if entry["inversions"]:
            result.notes.append(f"adjacent levels whose measured mu decreases (within the "
                                f"noise): {entry['inversions']}")
        result.notes.append("levels: " + ", ".join(f"{row['level']}={row['spec']}"
                                                   for row in entry["levels"]))
    paths = lad.write_outputs(result, out_dir, with_plot=not no_plot)
    out.write(lad.markdown(result))
    out.write("\nwritten: " + ", ".join(str(p) for p in paths)
              + (f", {levels_path}" if levels_path else "") + "\n")
@cli.command(help="Train the az bot's network by self-play (AlphaZero): generations of "
             "self-play, training (PyTorch, the [train] extra), gating and evaluation in a "
             "run directory; the same command resumes a stopped or killed run.",
             epilog="example: ratai train rat_trap --players 2,3 --run runs/rat_trap "
                    "--generations 8 --games-per-gen 40 --iterations 64 --workers 2")
@click.argument("game", type=GAMES, metavar="GAME")
@click.option("--players", type=IntListType(1), required=True,
              help="player counts one network learns, e.g. 2,3,4")
@click.option("--param", "param", multiple=True, metavar="NAME=VALUE",
              help="a game parameter (JSON value); repeatable")
@click.option("--run", "run_dir", type=click.Path(file_okay=False), required=True,
              help="run directory (created; an existing run of the same config resumes)")
@click.option("--generations", type=click.IntRange(min=1), default=10,
              help="generations to reach (a resumed run may raise it)")
@click.option("--max-minutes", type=click.FloatRange(min=0, min_open=True), default=None,
              help="time budget in minutes of run time, all sittings: a generation starts "
                   "only if it would end within it, as long as the last one took (a resumed "
                   "run may raise it)  [default: none]")
@click.option("--games-per-gen", type=click.IntRange(min=1), default=40,
              help="self-play games per generation (player counts in turn)")
@click.option("--iterations", type=click.IntRange(min=1), default=100,
              help="az search iterations per self-play move")
@click.option("--workers", type=click.IntRange(min=1), default=1,
              help="self-play processes (results do not depend on it)")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              help="where the games run (ray: pip install 'ratai[ray]')")
@click.option("--seed", type=SEED, default=0, help="seed of the whole run")
@click.option("--buffer-positions", type=click.IntRange(min=1), default=100_000,
              help="replay buffer capacity in positions (oldest dropped)")
@click.option("--hidden", type=IntListType(1), default="128,64", help="hidden sizes H1,H2")
@click.option("--train-steps", type=click.IntRange(min=0), default=200,
              help="optimizer steps per generation")
@click.option("--batch-size", type=click.IntRange(min=1), default=256, help="positions")
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=1e-3,
              help="Adam learning rate")
@click.option("--l2", type=click.FloatRange(min=0), default=1e-4, help="L2 weight penalty")
@click.option("--temperature-moves", type=click.IntRange(min=0), default=12,
              help="decisions per game played at temperature 1 (then the most visited)")
@click.option("--dirichlet-alpha", type=click.FloatRange(min=0, min_open=True), default=0.3,
              help="root Dirichlet noise concentration")
@click.option("--noise-fraction", type=click.FloatRange(0, 1), default=0.25,
              help="weight of the root noise in self-play")
@click.option("--c-puct", type=click.FloatRange(min=0, min_open=True), default=None,
              help="PUCT exploration constant  [default: the az bot's]")
@click.option("--rollout-mix", type=click.FloatRange(0, 1), default=0.0,
              help="weight of a random playout in every az leaf value of the run: 0 "
                   "AlphaZero (network values), 1 Expert Iteration (a rollout-valued "
                   "search the network learns to imitate); recorded as the models' play "
                   "option")
@click.option("--value-target-q", type=click.FloatRange(0, 1), default=0.0,
              help="weight of the search's root value q in the value target, the rest the "
                   "game's result z: (1-w)*z + w*q (0: AlphaZero's z)")
@click.option("--value-l2", type=click.FloatRange(min=0), default=0.0,
              help="extra L2 penalty on the value head's output weights alone, against "
                   "memorising games' results (see the held-out value MSE in report.md)")
@click.option("--seat-relative", is_flag=True, default=False,
              help="train a seat-relative network: it sees every position from the mover's "
                   "chair (own fields first; values and seat-naming actions renumbered)")
@click.option("--gate-games", type=click.IntRange(min=0), default=20,
              help="arena games new vs best per generation (0: always promote)")
@click.option("--gate-threshold", type=click.FloatRange(0, 1), default=0.55,
              help="score the new network needs to become the best")
@click.option("--eval-games", type=click.IntRange(min=0), default=10,
              help="games per player count against random seats per generation")
@click.option("--init", "init", type=click.Path(dir_okay=False), default=None,
              help="warm start: a model file (e.g. a shipped one) as generation 0; same "
                   "game, players and hidden sizes")
@click.pass_context
def train(ctx, game, players, param, run_dir, generations, max_minutes, games_per_gen,
          iterations, workers, backend, seed, buffer_positions, hidden, train_steps,
          batch_size, lr, l2, temperature_moves, dirichlet_alpha, noise_fraction, c_puct,
          rollout_mix, value_target_q, value_l2, seat_relative, gate_games, gate_threshold,
          eval_games, init):
    out = _out(ctx)
    params = _parse_params(param)
    if "num_players" in params:
        raise UsageError("--param num_players: use --players")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise UsageError("--backend ray needs Ray: pip install 'ratai[ray]'") from None
    try:
        from ratai.train import TrainConfig, TrainingRun

        cfg = TrainConfig(game, players, params, generations=generations,
                          max_minutes=max_minutes, games_per_gen=games_per_gen,
                          iterations=iterations, c_puct=c_puct, rollout_mix=rollout_mix,
                          dirichlet_alpha=dirichlet_alpha, noise_fraction=noise_fraction,
                          temperature_moves=temperature_moves,
                          buffer_positions=buffer_positions, hidden=hidden,
                          batch_size=batch_size, train_steps=train_steps, lr=lr, l2=l2,
                          gate_games=gate_games, gate_threshold=gate_threshold,
                          eval_games=eval_games, seed=seed, workers=workers, backend=backend,
                          init=init, seat_relative=seat_relative,
                          value_target_q=value_target_q, value_l2=value_l2)
        run = TrainingRun(run_dir, cfg)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    resumed = run.state is not None
    with _TrainProgress(out) as progress:
        state = run.run(progress)
    best = Path(run_dir) / "best.npz"
    out.write(f"{'resumed; ' if resumed else ''}{game} players {','.join(map(str, cfg.players))}"
              f": generation {state['generation']}, best {state['best']}, "
              f"{state['games_trained']} self-play games, {state['seconds'] / 60:.1f} min\n")
    if state["generation"] < cfg.generations:
        out.write(f"stopped at the time budget (--max-minutes {max_minutes:g}): generation "
                  f"{state['generation'] + 1} of {cfg.generations} would have ended past it; "
                  "raise it to continue\n")
    last = state["summary"][-1] if state["summary"] else {}
    for n, s in sorted((last.get("strength") or {}).items()):
        if not s["games"]:
            out.write(f"  {n}p vs random: not evaluated (--eval-games 0)\n")
            continue
        out.write(f"  {n}p vs random: return {s['return']:.3f} [{s['ci95'][0]:.3f}, "
                  f"{s['ci95'][1]:.3f}] = {s['ratio_to_fair']:.2f}x fair share "
                  f"({s['games']} games)\n")
    out.write(f"best model: {best}\nreport: {Path(run_dir) / 'report.md'}\n")


class _TrainProgress:
    """Rich progress bars with ETA, one per phase of a generation (``TrainingRun.run``)."""

    def __init__(self, out: TextIO):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(file=sys.stderr) if out is sys.stdout else Console(file=out)
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                            TimeRemainingColumn(), console=console, transient=True,
                            disable=not console.is_terminal)

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)

    def phase(self, description: str, total: int):
        task = self.bar.add_task(description, total=total)
        return (lambda: self.bar.advance(task)), (lambda: self.bar.remove_task(task))


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                               "help_option_names": []},
             add_help_option=False,
             help="Run the gRPC service (same as python server.py; see ratai serve --help).")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def serve(args):
    from ratai.service import serve as _serve

    sys.exit(_serve(list(args)))


def _progress(out: TextIO, eta: bool = False):
    """A rich progress bar on ``out`` (stderr when ``out`` is stdout; transient). Disabled
    when that stream is no terminal: then it writes nothing at all, so an error raised
    inside it stays one line. ``eta``: the bar counts work units (the task's own total) and
    shows the percentage and the estimated time remaining instead of ``done/total``."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(file=sys.stderr) if out is sys.stdout else Console(file=out)
    columns = [TaskProgressColumn(), TimeElapsedColumn(), TextColumn("ETA"),
               TimeRemainingColumn()] if eta else [MofNCompleteColumn(), TimeElapsedColumn()]
    return Progress(TextColumn("{task.description}"), BarColumn(), *columns,
                    console=console, transient=True, disable=not console.is_terminal)


def _one_line(exc: click.ClickException) -> str:
    msg = exc.format_message()
    if isinstance(exc, click.NoSuchOption | click.BadOptionUsage | click.MissingParameter) \
            and exc.ctx is not None:
        msg += f" (see `{exc.ctx.command_path} --help`)"
    return msg


class _Terminate:
    """``SIGTERM`` as Ctrl-C in this process (a command keeps what it finished: arena and
    ladder records), exit code 143; a forked worker process inheriting the handler dies
    as by default. Installed by :func:`main` in the main thread only, and restored."""

    def __init__(self) -> None:
        self.pid, self.seen, self.old = os.getpid(), False, None

    def __call__(self, signum, frame) -> None:
        if os.getpid() != self.pid:   # a forked worker: the default action
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        self.seen = True
        raise KeyboardInterrupt

    def __enter__(self) -> _Terminate:
        if threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGTERM, self)
        return self

    def __exit__(self, *exc) -> None:
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout,
         inp: TextIO = sys.stdin) -> int:
    """Run the ``ratai`` command; returns the exit code.

    Raises:
        UsageError: a bad argument (``SystemExit`` with code 2; its one-line message is
            also written to stderr as ``ratai: <message>``). Ctrl-C and ``SIGTERM`` are
            ``SystemExit`` 130 and 143 after what was finished is kept.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    with _Terminate() as term:
        return _main(argv, out, inp, term)


def _main(argv: list[str], out: TextIO, inp: TextIO, term: _Terminate) -> int:
    try:
        try:
            rv = cli.main(args=argv, prog_name="ratai", standalone_mode=False,
                          obj={"out": out, "inp": inp, "argv": argv})
        except click.exceptions.Exit as exc:
            return exc.exit_code
        except click.exceptions.Abort:
            raise KeyboardInterrupt from None
        except click.exceptions.NoArgsIsHelpError as exc:  # bare `ratai`: the help, exit 2
            sys.stderr.write(exc.ctx.get_help() + "\n")
            return 2
        except click.ClickException as exc:
            raise UsageError(_one_line(exc)) from None
        except (ValueError, OSError) as exc:  # bad input found deep down: still one line
            raise UsageError(str(exc) or type(exc).__name__) from None
        return rv if isinstance(rv, int) else 0
    except UsageError as exc:
        sys.stderr.write(f"ratai: {exc}\n")
        raise
    except KeyboardInterrupt:
        sys.stderr.write("\nratai: terminated\n" if term.seen else "\nratai: interrupted\n")
        raise SystemExit(143 if term.seen else 130) from None
    except BrokenPipeError:
        raise SystemExit(0) from None


if __name__ == "__main__":
    sys.exit(main())
