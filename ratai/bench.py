"""``ratai bench``: what search buys at what cost.

Two measurements per game and bot kind:

* **speed and depth against time**: on a few seeded positions (each reached by random play),
  the bot analyses with time budgets ``seconds * (1/8, 1/4, 1/2, 1)``; we report iterations per
  second and the deepest ply reached (medians over the positions);
* **strength against iterations**: seat-rotated arena games of the bot at each iteration budget
  against ``random`` opponents, as a win rate (the mean return) with its 95% Wilson interval
  (:attr:`ratai.arena.Standing.wilson95`; a k-way shared win
  counts 1/k; with n seats a random field wins 1/n).

Results are a Markdown table and, with matplotlib (``pip install -e ".[plot]"``), a PNG.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ratai.arena import run_arena, standings
from ratai.bots import make_bot
from ratai.engines import CHANCE, load_game
from ratai.engines.api import sample_chance_outcome

#: the time budgets of :func:`speed`, as fractions of ``seconds``
SPEED_FRACTIONS = (0.125, 0.25, 0.5, 1.0)
#: positions :func:`speed` measures by default
SPEED_POSITIONS = 3

DEFAULT_PLAYERS = {"rat_trap": 3, "first_rat": 3, "ratapolis": 3, "rats_to_riches": 3}


@dataclass
class SpeedRow:
    game: str
    kind: str
    seconds: float
    iterations_per_s: float
    depth: int


@dataclass
class StrengthRow:
    game: str
    kind: str
    iterations: int
    win_rate: float
    low: float
    high: float
    games: int


def default_kind(game) -> str:
    """``mcts`` for perfect-information games, ``ismcts`` otherwise."""
    return "mcts" if game.perfect_information else "ismcts"


def positions(game, count: int, seed: int) -> list:
    """``count`` seeded decision nodes reached by random play (10..60 plies in)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        target = int(rng.integers(10, 60))
        while not state.is_terminal() and (state.move_number() < target
                                           or state.current_player() < 0):
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance_outcome(state, rng))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            out.append(state)
    return out


def speed(name: str, kind: str, seconds: float, n_positions: int = SPEED_POSITIONS,
          seed: int = 0,
          params: dict | None = None,
          on_step: Callable[[], None] | None = None) -> list[SpeedRow]:
    """Iterations/s and depth for time budgets ``seconds * (1/8, 1/4, 1/2, 1)``.

    ``on_step()`` is called after each analysis (``4 * n_positions`` of them; for progress
    bars).
    """
    game = load_game(name, **(params or {"num_players": DEFAULT_PLAYERS.get(name, 3)}))
    states = positions(game, n_positions, seed)
    rows = []
    for frac in SPEED_FRACTIONS:
        budget = seconds * frac
        rates, depths = [], []
        for st in states:
            bot = make_bot(kind, game, st.current_player(), time_limit=budget, seed=seed)
            a = bot.analyze(st)
            rates.append(a.iterations / max(a.elapsed_s, 1e-9))
            depths.append(a.max_depth)
            if on_step is not None:
                on_step()
        rows.append(SpeedRow(name, kind, budget, statistics.median(rates),
                             int(statistics.median(depths))))
    return rows


def strength(name: str, kind: str, budgets: Sequence[int], games: int, seed: int = 0,
             workers: int = 1, params: dict | None = None,
             on_record: Callable[[dict], None] | None = None) -> list[StrengthRow]:
    """Win rate of ``kind`` at each iteration budget against random opponents.

    ``on_record(record)`` is called after each game (``len(budgets) * games``; for progress
    bars).
    """
    params = params or {"num_players": DEFAULT_PLAYERS.get(name, 3)}
    rows = []
    for b in budgets:
        spec = f"{kind}:{b}"
        recs = run_arena(name, params, [spec, "random"], games, seed=seed, workers=workers,
                         on_record=on_record)
        st = {s.bot: s for s in standings(recs, [spec, "random"])}[spec]
        lo, hi = st.wilson95
        rows.append(StrengthRow(name, kind, b, st.win_rate, lo, hi, st.games))
    return rows


def markdown(speed_rows: Sequence[SpeedRow], strength_rows: Sequence[StrengthRow]) -> str:
    lines = ["| game | bot | time budget (s) | iterations/s | depth (plies) |",
             "| --- | --- | ---: | ---: | ---: |"]
    lines += [f"| {r.game} | {r.kind} | {r.seconds:.3g} | {r.iterations_per_s:,.0f} | {r.depth} |"
              for r in speed_rows]
    lines += ["", "| game | bot | iterations | seats played | win rate vs random | 95% interval |",
              "| --- | --- | ---: | ---: | ---: | --- |"]
    lines += [f"| {r.game} | {r.kind} | {r.iterations} | {r.games} | {r.win_rate:.2f} | "
              f"[{r.low:.2f}, {r.high:.2f}] |" for r in strength_rows]
    return "\n".join(lines)


def plot(speed_rows: Sequence[SpeedRow], strength_rows: Sequence[StrengthRow],
         path: str) -> None:
    """Three panels: iterations/s and search depth (plies) against the time budget, win
    rate against iterations. Linear axes start at zero (a 13% change looks like 13%); the
    log axes carry plain-number ticks (10, 30, 100, ...), not overlapping powers.

    Raises:
        ValueError: matplotlib is not installed (``pip install -e ".[plot]"``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import EngFormatter, FixedLocator, FuncFormatter, NullLocator
    except ImportError:
        raise ValueError('plots need matplotlib: pip install -e ".[plot]"') from None

    def log_ticks(ax, values):
        ticks = sorted({float(v) for v in values})
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))

    fig, (ax1, ax3, ax2) = plt.subplots(1, 3, figsize=(15, 4.2))
    keys = sorted({(r.game, r.kind) for r in speed_rows})
    for key in keys:
        rows = [r for r in speed_rows if (r.game, r.kind) == key]
        ax1.plot([r.seconds for r in rows], [r.iterations_per_s for r in rows], "o-",
                 label=f"{key[0]} {key[1]}")
        ax3.plot([r.seconds for r in rows], [r.depth for r in rows], "o-",
                 label=f"{key[0]} {key[1]}")
    ax1.set(xlabel="time budget (s)", ylabel="iterations / s", title="search speed")
    ax1.yaxis.set_major_formatter(EngFormatter(sep=""))
    ax3.set(xlabel="time budget (s)", ylabel="deepest ply reached", title="search depth")
    for ax in (ax1, ax3):
        if speed_rows:
            log_ticks(ax, [r.seconds for r in speed_rows])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    for key in sorted({(r.game, r.kind) for r in strength_rows}):
        rows = [r for r in strength_rows if (r.game, r.kind) == key]
        ax2.errorbar([r.iterations for r in rows], [r.win_rate for r in rows],
                     yerr=[[r.win_rate - r.low for r in rows], [r.high - r.win_rate for r in rows]],
                     fmt="o-", capsize=3, label=f"{key[0]} {key[1]}")
    if strength_rows:
        log_ticks(ax2, [r.iterations for r in strength_rows])
    ax2.set(xlabel="iterations per move", ylabel="win rate vs random (95% interval)",
            ylim=(0, 1), title="strength")
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
