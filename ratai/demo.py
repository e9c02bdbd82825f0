"""``ratai demo``: the whole product in one command.

Starts the gRPC server in this process on a free loopback port with an in-memory event log,
hosts one game of each title with AI seats of different kinds, follows them to the end over
gRPC with a live table, plays one human seat of Rat Trap by asking the service for hints (the
first hint is printed with its analysis), then prints the results and checks that replaying
each game's event log reproduces the served scores.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table

from ratai.engines import load_game

#: (game, params, seats): a seat is "human" or a bot spec. The search budgets are about
#: 0.1-0.3 s per move on one core of a 2-core machine (rat_trap ismcts ~40k iterations/s,
#: first_rat mcts ~4k/s, ratapolis ismcts ~0.6-2k/s, rats_to_riches az ~10k/s), so the
#: search seats play at a strength that shows, and the demo stays under ~1 minute. Every
#: bot family plays somewhere: the rollout searches, the learned ``az`` (its packaged
#: network), the heuristic and random.
LINEUP: list[tuple[str, dict, list]] = [
    ("rat_trap", {"num_players": 4},
     ["human", {"kind": "ismcts", "iterations": 4000}, {"kind": "heuristic"}, "random"]),
    ("first_rat", {"num_players": 3},
     [{"kind": "heuristic"}, {"kind": "mcts", "iterations": 1000}, "random"]),
    ("ratapolis", {"num_players": 3},
     [{"kind": "ismcts", "iterations": 300}, {"kind": "heuristic"}, "random"]),
    ("rats_to_riches", {"num_players": 3},
     [{"kind": "az", "iterations": 1500}, {"kind": "heuristic"}, "random"]),
]
HINT_BOT = {"kind": "ismcts", "iterations": 2000}


def scaled(seat, scale: float):
    """A lineup seat with its iteration budget multiplied by ``scale`` (at least 1)."""
    if isinstance(seat, dict) and "iterations" in seat:
        return {**seat, "iterations": max(1, round(seat["iterations"] * scale))}
    return seat


@dataclass
class Hosted:
    """One hosted demo game and what the client has seen of it."""

    game: str
    params: dict
    seats: list
    game_id: str = ""
    token: str = ""  # the human seat's token, if any
    human: int = -1
    moves: int = 0
    done: bool = False
    scores: list = field(default_factory=list)
    returns: list = field(default_factory=list)
    started: float = 0.0
    seconds: float = 0.0

    @property
    def bots(self) -> str:
        def name(s):
            if s == "human":
                return "you (hints)"
            if isinstance(s, str):
                return s
            return s["kind"] + (f":{s['iterations']}" if "iterations" in s else "")
        return ", ".join(name(s) for s in self.seats)

    @property
    def winner(self) -> str:
        if not self.returns:
            return "-"
        best = max(self.returns)
        return ", ".join(f"seat {k}" for k, r in enumerate(self.returns) if r == best and r > 0) \
            or "the Third Rat"


def _table(games: list[Hosted], title: str) -> Table:
    t = Table(title=title)
    for col in ("game", "players", "seats (0..n-1)", "winner", "scores", "moves", "seconds"):
        t.add_column(col, no_wrap=True)
    for g in games:
        scores = " ".join(f"{s:g}" for s in g.scores) if g.scores else "..."
        secs = g.seconds if g.done else time.perf_counter() - g.started if g.started else 0.0
        t.add_row(g.game, str(g.params["num_players"]), g.bots,
                  g.winner if g.done else "playing", scores, str(g.moves), f"{secs:.1f}")
    return t


def _print_hint(console: Console, analysis) -> None:
    console.print(f"[bold]Hint for seat {analysis.seat}[/bold] ({analysis.kind}, "
                  f"{analysis.iterations} iterations, {analysis.nodes} nodes, depth "
                  f"{analysis.max_depth}, {analysis.elapsed_s:.2f}s): play "
                  f"[green]{analysis.best_label}[/green]")
    for m in list(analysis.moves)[:5]:
        console.print(f"   {m.label:<36} visits {m.visits:>5}  win chance {m.value:.2f}")
    if analysis.pv:
        console.print("   principal variation: " + " -> ".join(p.label for p in analysis.pv[:6]))


def _search_seat(g: Hosted) -> int:
    """The bot seat with the largest iteration budget (the strongest search seat)."""
    def budget(s):
        return s.get("iterations", 0) if isinstance(s, dict) else 0
    return max(range(len(g.seats)), key=lambda k: budget(g.seats[k]))


def _verdicts(games: list[Hosted]) -> list[str]:
    """One line per game whose strongest search seat did not win: where it finished and why
    one game says little."""
    out = []
    for g in games:
        if not g.done or not g.returns:
            continue
        k = _search_seat(g)
        if g.returns[k] == max(g.returns) and g.returns[k] > 0:
            continue
        place = 1 + sum(1 for s in g.scores if s > g.scores[k])
        name = Hosted(g.game, g.params, [g.seats[k]]).bots
        out.append(f"{g.game}: the search seat {k} ({name}) finished #{place} with "
                   f"{g.scores[k]:g} points; winner {g.winner}.")
    if out:
        out.append("One game per title is a show, not a measurement: dice and card draws decide "
                   "many single games. Win rates with 95% intervals: ratai arena GAME --bots "
                   "ismcts:300,heuristic,random --games 60")
    return out


class DemoTimeout(TimeoutError):
    """The demo's ``timeout`` passed before every game finished.

    Attributes: ``timeout`` (seconds), ``unfinished`` (``(game, moves played)`` per game
    still playing) and ``games`` (how many the demo hosts).
    """

    def __init__(self, timeout: float, unfinished: list[tuple[str, int]], games: int):
        self.timeout, self.unfinished, self.games = timeout, unfinished, games
        where = ", ".join(f"{name} ({moves} moves)" for name, moves in unfinished)
        super().__init__(f"the demo timed out after {timeout:g} s with {len(unfinished)} of "
                         f"{games} games unfinished: {where}")


def run_demo(out: TextIO | None = None, *, seed: int = 1, workers: int = 2,
             timeout: float = 900.0, scale: float = 1.0) -> int:
    """Run the demo; returns 0 if every game finished and its event log replays to the
    served scores, 1 if a log does not replay.

    Args:
        seed: seeds every game's chance and bots (the demo is reproducible).
        workers: search processes of the in-process server.
        timeout: seconds for the whole demo, counted from the call (the server's start
            included); every call to the service is bounded by the time left, so the demo
            stops within about one poll (0.05 s) of it.
        scale: multiplies every search budget of the lineup and the hints (1: the default
            budgets; 0.05 for a quick smoke run).

    Raises:
        DemoTimeout: ``timeout`` passed first (after printing the games' table so far).
    """
    import grpc

    from ratai.client import Client
    from ratai.service.config import Limits, ServerConfig
    from ratai.service.server import RatAIServer

    deadline = time.perf_counter() + timeout

    def left() -> float:
        """Seconds before the deadline (the timeout of each call to the service)."""
        return max(0.001, deadline - time.perf_counter())

    console = Console(file=out) if out is not None else Console()
    if not console.is_terminal:  # piped or captured: wide enough that no name is cut
        console = Console(file=out, width=max(console.width, 120))
    server = RatAIServer(ServerConfig(port=0, db=":memory:", limits=Limits(workers=workers)))
    port = server.start(warm=False)   # workers warm while the games start: --timeout bounds it
    console.print(f"ratai demo: gRPC server on 127.0.0.1:{port} (in-memory event log, "
                  f"{workers} search workers)")
    games = [Hosted(name, params, [scaled(s, scale) for s in seats])
             for name, params, seats in LINEUP]
    hint_bot = scaled(HINT_BOT, scale)
    client = Client(f"127.0.0.1:{port}")
    hinted = False
    try:
        try:
            for i, g in enumerate(games):
                if time.perf_counter() >= deadline:
                    break
                resp = client.create_game(g.game, g.seats, g.params, seed=seed + i,
                                          timeout=left())
                g.game_id, g.started = resp.game_id, time.perf_counter()
                if resp.seat_tokens:
                    g.token, g.human = resp.seat_tokens[0].token, resp.seat_tokens[0].seat
            with Live(_table(games, "playing over gRPC"), console=console,
                      refresh_per_second=4, transient=True) as live:
                while not all(g.done for g in games) and time.perf_counter() < deadline:
                    for g in games:
                        if g.done:
                            continue
                        view = client.get_state(g.game_id, g.token, timeout=left())
                        g.moves = view.move_number
                        if view.is_terminal:
                            g.done, g.seconds = True, time.perf_counter() - g.started
                            g.scores, g.returns = list(view.scores), list(view.returns)
                        elif view.your_turn:  # our human seat: play the service's hint
                            hint = client.suggest_move(game_id=g.game_id, seat_token=g.token,
                                                       bot={**hint_bot, "seed": seed},
                                                       timeout=left())
                            if not hinted:
                                live.console.print(f"[dim]{g.game}, move {view.move_number}:"
                                                   f"[/dim]")
                                _print_hint(live.console, hint)
                                hinted = True
                            client.apply_action(g.game_id, g.token, hint.best_action,
                                                expected_move_number=view.move_number,
                                                timeout=left())
                    live.update(_table(games, "playing over gRPC"))
                    time.sleep(min(0.05, left()))
        except grpc.RpcError as exc:  # a call cut short by the deadline: the timeout
            if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                raise
        if not all(g.done for g in games):
            console.print(_table(games, f"ratai demo: stopped at the timeout ({timeout:g} s)"))
            raise DemoTimeout(timeout, [(g.game, g.moves) for g in games if not g.done],
                              len(games))
        ok = True
        for g in games:  # the event log replays to what the service reported
            state = load_game(g.game, backend="python", **g.params).state_from_history(
                server.store.actions(g.game_id))
            replay_ok = state.is_terminal() and state.scores() == g.scores \
                and state.returns() == g.returns
            ok = ok and replay_ok
            g.game += "" if replay_ok else " (REPLAY MISMATCH)"
        console.print(_table(games, "ratai demo: results"))
        for line in _verdicts(games):
            console.print(line, highlight=False)
        console.print("all games finished; every event log replays to the served scores"
                      if ok else "[red]demo failed: an event log does not replay to the "
                      "served scores[/red]")
        return 0 if ok else 1
    finally:
        client.close()
        server.stop()
