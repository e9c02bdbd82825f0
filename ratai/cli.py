"""The ``ratai`` command.

    ratai demo                                   every game hosted over gRPC, played by bots
    ratai games                                  list the games and their variants
    ratai play rat_trap --players 3              play in the terminal against bots
    ratai arena rat_trap --bots ismcts:200,heuristic --games 50   a tournament
    ratai suggest rat_trap --history game.json --seat 1          one hint
    ratai bench rat_trap --seconds 1 --plot bench.png            search speed and strength
    ratai serve --port 50051                     the gRPC service (= python server.py)

The full tool set (demo, suggest, arena, bench, serve) is added by later issues.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from ratai.bots import make_bot
from ratai.engines import CHANCE, game_class, load_game, registered_games
from ratai.engines.api import sample_chance_outcome


class UsageError(SystemExit):
    """A bad argument: printed as one line ``ratai: ...`` and exit code 2 (never a traceback)."""

    def __init__(self, message: str):
        super().__init__(2)
        self.message = message

    def __str__(self) -> str:
        return self.message


def _parse_params(pairs: Sequence[str]) -> dict:
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"bad --param {pair!r}: use NAME=VALUE")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    for name in registered_games():
        cls = game_class(name)
        out.write(f"{name}: {cls.title}\n  {cls.summary}\n")
        for p in cls.param_specs:
            out.write(f"  --param {p.name}={json.dumps(p.default)}  {p.doc}\n")
        out.write(f"  variants: {', '.join(cls.variants)}\n")
    return 0


def cmd_play(args: argparse.Namespace, out: TextIO, inp: TextIO) -> int:
    params = _game_params(args)
    try:
        game = load_game(args.game, **params)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    n = game.num_players()
    me = args.seat
    if not 0 <= me < n:
        raise UsageError(f"bad --seat {me}: allowed 0..{n - 1}")
    kinds = [k.strip() for k in args.bots.split(",")] if args.bots else ["random"]
    rng = np.random.default_rng(args.seed)
    bots = {}
    others = [s for s in range(n) if s != me]
    for i, seat in enumerate(others):
        spec = kinds[min(i, len(kinds) - 1)]
        kind, _, budget = spec.partition(":")
        kw = {"iterations": int(budget)} if budget else {}
        try:
            bots[seat] = make_bot(kind, game, seat, seed=int(rng.integers(2**31)), **kw)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        out.write(f"seat {seat}: {spec} bot\n")
    out.write(f"you are seat {me}. Type a move's number (or its label); 'h' hint, "
              f"'u' undo, 'q' quit.\n\n")
    hint = _HintBot(args.hint, game, me)
    state = game.new_initial_state()
    undo: list = []  # states at your earlier decisions
    while not state.is_terminal():
        cp = state.current_player()
        if cp == CHANCE:
            action = sample_chance_outcome(state, rng)
        elif cp == me:
            action = _ask_move(state, me, out, inp, hint)
            if action is None:
                out.write("bye\n")
                return 0
            if action == "undo":
                if undo:
                    state = undo.pop()
                    out.write("  (undone: back to your previous decision)\n")
                else:
                    out.write("  (nothing to undo)\n")
                continue
            undo.append(state.clone())
        else:
            action = bots[cp].step(state)
        out.write(f"  * {state.describe_action(me, action)}\n")
        state.apply_action(action)
    out.write("\n" + state.render(me) + "\n")
    out.write(f"Game over. Scores: {state.scores()}  returns: {state.returns()}\n")
    return 0


class _HintBot:
    """The bot behind 'h', built on first use (so a bad --hint only fails when asked)."""

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
    if not hasattr(bot, "analyze"):
        out.write(f"  hint: {state.action_to_string(bot.player, bot.step(state))}\n")
        return
    analysis = bot.analyze(state)
    best = state.action_to_string(bot.player, analysis.best_action)
    out.write(f"  hint ({analysis.kind}, {analysis.iterations} iterations, "
              f"{analysis.elapsed_s:.2f}s): play {best}\n")
    for m in analysis.moves[:top]:
        out.write(f"    {m.label:<40} visits {m.visits:>6}  value {m.value:.3f}\n")
    if analysis.pv:
        out.write("    line: " + " -> ".join(step.label for step in analysis.pv[:6]) + "\n")


def _ask_move(state, me: int, out: TextIO, inp: TextIO, hint=None) -> int | str | None:
    legal = state.legal_actions()
    out.write("\n" + state.render(me) + "\n")
    for i, a in enumerate(legal):
        out.write(f"  [{i}] {state.action_to_string(me, a)}\n")
    if len(legal) == 1:
        out.write("  (your only option: the game still asks, so nobody learns why)\n")
    while True:
        out.write("your move> ")
        out.flush()
        line = inp.readline()
        if not line or line.strip().lower() in ("q", "quit"):
            return None
        text = line.strip()
        if text.lower() in ("u", "undo"):
            return "undo"
        if text.lower() in ("h", "hint") and hint is not None:
            _show_hint(state, hint, out)
            continue
        if text.isdigit() and int(text) < len(legal):
            return legal[int(text)]
        try:
            return state.string_to_action(me, text)
        except ValueError:
            out.write(f"  not a legal move: {text!r}; type 0..{len(legal) - 1}\n")


def cmd_arena(args: argparse.Namespace, out: TextIO) -> int:
    from rich.progress import Progress

    from ratai.arena import format_table, run_arena, standings, write_records

    params = _game_params(args)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(bots) < 1:
        raise UsageError("--bots needs at least one bot spec")
    with Progress(console=None if out is sys.stdout else _console(out),
                  transient=True) as progress:
        task = progress.add_task(f"{args.game}: {len(bots)} bots", total=args.games)
        try:
            records = run_arena(args.game, params, bots, args.games, seed=args.seed,
                                workers=args.workers, backend=args.backend,
                                on_record=lambda rec: progress.advance(task))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    rows = standings(records, list(dict.fromkeys(bots)))
    moves = sum(r["moves"] for r in records) / max(1, len(records))
    out.write(f"{args.game} {json.dumps(records[0]['params'] if records else params)}: "
              f"{len(records)} games, {moves:.0f} actions per game\n\n")
    out.write(format_table(rows) + "\n")
    if args.out:
        write_records(records, args.out)
        out.write(f"\nrecords written to {args.out}\n")
    return 0


def cmd_suggest(args: argparse.Namespace, out: TextIO) -> int:
    import dataclasses

    from ratai.arena import BotSpec

    try:
        game = load_game(args.game, **_game_params(args))
        if args.history:
            text = Path(args.history).read_text().strip()
            doc = json.loads(text.splitlines()[0] if text.startswith("{") else text)
            history = doc["history"] if isinstance(doc, dict) else doc
            state = game.state_from_history([int(a) for a in history])
        else:
            state = game.deserialize_state(Path(args.state).read_bytes())
        if state.current_player() != args.seat:
            raise ValueError(f"it is not seat {args.seat}'s turn in that position (to move: "
                             f"{state.current_player()})")
        bot = BotSpec.parse(args.bot).make(game, args.seat, args.seed)
        analysis = bot.analyze(state)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        out.write(json.dumps(dataclasses.asdict(analysis), indent=1) + "\n")
        return 0
    out.write(f"seat {args.seat}: play {state.action_to_string(args.seat, analysis.best_action)}"
              f"  ({analysis.kind}, {analysis.iterations} iterations, {analysis.nodes} nodes, "
              f"depth {analysis.max_depth}, {analysis.elapsed_s:.2f}s)\n")
    for m in analysis.moves[:8]:
        out.write(f"  {m.label:<44} visits {m.visits:>6}  value {m.value:.3f}\n")
    if analysis.pv:
        out.write("  principal variation: " + " -> ".join(p.label for p in analysis.pv) + "\n")
    return 0


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    from ratai import bench

    names = [args.game] if args.game else registered_games()
    speed_rows, strength_rows = [], []
    try:
        budgets = [int(b) for b in args.budgets.split(",")]
        for name in names:
            kind = args.kind or bench.default_kind(load_game(name))
            params = {"num_players": args.players} if args.players else None
            out.write(f"{name}: {kind} ...\n")
            out.flush()
            speed_rows += bench.speed(name, kind, args.seconds, seed=args.seed, params=params)
            strength_rows += bench.strength(name, kind, budgets, args.games, seed=args.seed,
                                            workers=args.workers, params=params)
        table = bench.markdown(speed_rows, strength_rows)
        out.write("\n" + table + "\n")
        if args.markdown:
            Path(args.markdown).write_text(table + "\n")
        if args.plot:
            bench.plot(speed_rows, strength_rows, args.plot)
            out.write(f"plot written to {args.plot}\n")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return 0


def _console(out: TextIO):
    from rich.console import Console

    return Console(file=out)


def _game_params(args: argparse.Namespace) -> dict:
    cls = game_class(args.game)
    if args.variant and args.variant not in cls.variants:
        raise UsageError(f"unknown variant {args.variant!r}; known: "
                         f"{sorted(cls.variants)}")
    params = dict(cls.variants[args.variant]) if args.variant else {}
    params.update(_parse_params(args.param))
    if args.players is not None:
        if args.variant and params.get("num_players", args.players) != args.players:
            raise UsageError(f"--players {args.players} contradicts --variant "
                             f"{args.variant} ({params['num_players']} players)")
        params["num_players"] = args.players
    return params


def _add_game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=registered_games())
    p.add_argument("--players", type=int, help="number of seats")
    p.add_argument("--variant", help="a named variant (see `ratai games`)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a game parameter, e.g. --param big_gang=true")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ratai", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo", help="host one game of each title with AI seats over gRPC and play them out",
        epilog="example: ratai demo --seed 7")
    demo.add_argument("--seed", type=int, default=1, help="seed of every game and bot")
    demo.add_argument("--workers", type=int, default=2, help="search processes (default 2)")
    demo.add_argument("--timeout", type=float, default=900.0, help="give up after seconds")
    sub.add_parser("games", help="list the games, their parameters and variants")
    suggest = sub.add_parser(
        "suggest", help="one hint for a seat, from a history or a serialized state",
        epilog="example: ratai suggest rat_trap --players 3 --history game.json --seat 1 "
               "--bot ismcts:2000 --json")
    _add_game_options(suggest)
    src = suggest.add_mutually_exclusive_group(required=True)
    src.add_argument("--history", help="JSON list of action ids (or an arena record line)")
    src.add_argument("--state", help="a file of State.serialize() bytes")
    suggest.add_argument("--seat", type=int, required=True, help="the seat to advise")
    suggest.add_argument("--bot", default="ismcts:1000", help="bot spec (default ismcts:1000)")
    suggest.add_argument("--seed", type=int, default=0, help="bot seed (default 0)")
    suggest.add_argument("--json", action="store_true", help="print the Analysis as JSON")
    bench = sub.add_parser(
        "bench", help="search speed and depth against time, strength against iterations",
        epilog="example: ratai bench rat_trap --seconds 1 --games 20 --plot bench.png")
    bench.add_argument("game", nargs="?", choices=registered_games(),
                       help="one game (default: all)")
    bench.add_argument("--players", type=int, help="number of seats (default 3)")
    bench.add_argument("--kind", help="bot kind (default: mcts, or ismcts for hidden info)")
    bench.add_argument("--seconds", type=float, default=1.0,
                       help="largest time budget per analysis (default 1)")
    bench.add_argument("--budgets", default="10,30,100,300",
                       help="iteration budgets for the strength curve (default 10,30,100,300)")
    bench.add_argument("--games", type=int, default=12, help="games per budget (default 12)")
    bench.add_argument("--workers", type=int, default=1, help="processes for the games")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--plot", help="write a PNG plot here (needs matplotlib)")
    bench.add_argument("--markdown", help="write the Markdown table here")
    sub.add_parser("serve", help="run the gRPC service (same as python server.py; "
                                 "see ratai serve --help)", add_help=False)
    play = sub.add_parser("play", help="play a game in the terminal against bots",
                          epilog="example: ratai play rat_trap --players 3 --bots random")
    _add_game_options(play)
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument("--bots", default="random",
                      help="bot kinds for the other seats, comma-separated, e.g. random or "
                           "ismcts:2000,heuristic (the last one repeats)")
    play.add_argument("--seed", type=int, default=None, help="seed for dice, cards and bots")
    play.add_argument("--hint", default="ismcts:1000",
                      help="the bot that answers 'h' (default ismcts:1000)")
    arena = sub.add_parser(
        "arena", help="seat-rotated matches between bots, with win rates and ratings",
        epilog="example: ratai arena rat_trap --players 3 --bots random,heuristic --games 30")
    _add_game_options(arena)
    arena.add_argument("--bots", required=True,
                       help="comma-separated bot specs KIND[:ITERATIONS|:SECONDSs]")
    arena.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    arena.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    arena.add_argument("--backend", choices=("local", "ray"), default="local")
    arena.add_argument("--seed", type=int, default=0, help="seed of the whole tournament")
    arena.add_argument("--out", help="write every game record (JSON lines) to this file")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout,
         inp: TextIO = sys.stdin) -> int:
    """Run the ``ratai`` command; returns the exit code (bad arguments: ``UsageError``, 2)."""
    try:
        return _main(argv, out, inp)
    except UsageError as exc:
        sys.stderr.write(f"ratai: {exc}\n")
        raise


def _main(argv: Sequence[str] | None, out: TextIO, inp: TextIO) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:  # the server owns its options (same as python server.py)
        from ratai.service import serve

        return serve(argv[1:])
    args = build_parser().parse_args(argv)
    if args.command == "games":
        return cmd_games(args, out)
    if args.command == "arena":
        return cmd_arena(args, out)
    if args.command == "bench":
        return cmd_bench(args, out)
    if args.command == "suggest":
        return cmd_suggest(args, out)
    if args.command == "demo":
        from ratai.demo import run_demo

        return run_demo(None if out is sys.stdout else out, seed=args.seed,
                        workers=args.workers, timeout=args.timeout)
    return cmd_play(args, out, inp)


if __name__ == "__main__":
    sys.exit(main())
