"""``ratai ladder``: a rated round robin of the bot kinds at rising budgets.

Entrants (:data:`ENTRANTS`, plain data): ``random``, ``heuristic``, the rollout search of the
game (``mcts`` on perfect-information titles, ``ismcts`` where there is hidden information:
``{rollout}`` below) at 100 / 1,000 / 10,000 iterations per move, and ``az`` at the same
budgets and at 0.1 s / 1 s per move. An ``az`` entrant when the kind is not installed or the
game has no packaged model for its player count (``ratai.nn.packaged``) is skipped with a
note in the table, never silently; an unknown bot kind (a misspelling) is an error.

A ladder rates entrants against each other within games, so it needs at least 2 seats: a
solo game (First Rat with ``num_players=1``, against Greg) is refused before anything is
played (``ratai arena --players 1`` measures the win rate against the game's automaton).

Schedule (:func:`schedule`), with ``N`` entrants and ``n`` seats:

* ``N >= n``: every ``n``-subset of the entrants is a *table* (at 2 players: every pair).
  Each table plays ``n * ceil(K / n)`` games (``K`` = ``games_per_table``): ``ceil(K / n)``
  rounds, each of the ``n`` cyclic rotations of its seats. So every entrant sits in every
  seat equally often, at every table, and every pair of entrants meets in
  ``C(N-2, n-2) * n * ceil(K / n)`` games. Games are ordered round by round, rotation by
  rotation, table by table, so the sequential rating update sees every table early.
* ``N < n``: one table of all entrants, seats filled by the arena's rotation
  (``ratai.arena.seat_assignment``: seat ``s`` of game ``i`` gets entrant ``(i + s) % N``),
  ``N * ceil(K / N)`` games: every entrant sits in every seat equally often.

Games run on the arena's machinery (``ratai.arena.run_schedule``: seeded per game,
processes or Ray); ratings are the arena's openskill Plackett-Luce ratings
(``ratai.arena.standings``, games in index order), win rates the mean return (a k-way
shared win counts 1/k) with its 95% Wilson interval, seconds per move the bot's search
time over its decisions with more than one legal action.

Outputs in the run directory: ``ladder.md`` (the table), ``ladder.png`` (the plot, with
matplotlib), ``ladder.json`` (standings and settings), ``records.jsonl`` (every game).
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ratai.arena import (
    MAX_GAMES,
    BotSpec,
    Standing,
    run_schedule,
    seat_assignment,
    standings,
)

__all__ = ["ENTRANTS", "ROLLOUT", "Entrant", "LadderResult", "rollout_kind", "resolve_entrants",
           "schedule", "game_cost", "run_ladder", "head_to_head", "markdown", "plot",
           "write_outputs", "significantly_weaker", "calibrate_levels"]

#: Placeholder for the game's rollout search kind in entrant specs.
ROLLOUT = "{rollout}"

#: The default entrants, weakest budget first (``BotSpec`` syntax; ``{rollout}``: see
#: :func:`rollout_kind`).
ENTRANTS: tuple[str, ...] = (
    "random", "heuristic",
    f"{ROLLOUT}:100", f"{ROLLOUT}:1000", f"{ROLLOUT}:10000",
    "az:100", "az:1000", "az:10000", "az:0.1s", "az:1s",
)

#: Assumed search speed (iterations per second) used only to weigh games for the ETA.
_ETA_ITERATIONS_PER_S = 20_000.0
#: Cost of a non-search seat (random, heuristic) in the same units (iterations per move).
_ETA_CHEAP = 30.0


def rollout_kind(game) -> str:
    """``mcts`` for perfect-information games, ``ismcts`` where there is hidden information
    (``Game.perfect_information``)."""
    return "mcts" if game.perfect_information else "ismcts"


@dataclass(frozen=True)
class Entrant:
    """One resolved entrant: its ``spec`` (what plays) and, when it was skipped, ``note``."""

    spec: str
    note: str | None = None


def _az_note(game) -> str | None:
    """Why ``az`` cannot play ``game`` here (None: it can)."""
    from ratai.bots import BOT_KINDS

    if "az" not in BOT_KINDS:
        return "bot kind 'az' is not installed in this ratai"
    try:
        from ratai.nn import packaged
    except ImportError:
        return "ratai.nn (az models) is not installed in this ratai"
    path = packaged(game)
    if path is None:
        return f"no packaged az model for {game.name}"
    try:
        from ratai.nn import Model
    except ImportError:
        return None
    try:
        Model.load(path).check_game(game)
    except ValueError as exc:  # ModelError: e.g. a player count the model does not play
        return f"the packaged az model does not fit: {exc}"
    return None


def _scaled(spec: BotSpec, scale: float) -> BotSpec:
    if scale == 1.0 or spec.level is not None:
        return spec
    it = None if spec.iterations is None else max(1, round(spec.iterations * scale))
    tl = None if spec.time_limit is None else spec.time_limit * scale
    return BotSpec(spec.kind, it, tl, spec.options)


def resolve_entrants(game, specs: Sequence[str] = ENTRANTS, *,
                     kinds: Sequence[str] | None = None,
                     budget_scale: float = 1.0) -> list[Entrant]:
    """The entrants of a ladder on ``game``: ``{rollout}`` replaced by :func:`rollout_kind`,
    filtered by ``kinds`` (bot kinds; ``rollout`` stands for the game's rollout kind,
    ``level`` for ``level:L`` specs), budgets multiplied by ``budget_scale`` (iterations
    rounded, at least 1), duplicates dropped. ``az`` entrants that cannot play are kept
    with a ``note`` (kind not installed; no packaged model that fits the game).

    Raises:
        ValueError: a malformed spec, an unknown bot kind, a ``budget_scale`` that is not
            > 0, or a kind in ``kinds`` that is unknown or matches no entrant (each
            must match one: a misspelt kind is refused, not dropped).
    """
    from ratai.bots import BOT_KINDS

    if not (budget_scale > 0 and math.isfinite(budget_scale)):
        raise ValueError(f"bad budget scale {budget_scale!r}: allowed numbers > 0")
    rk = rollout_kind(game)
    wanted = None if kinds is None else {rk if k == "rollout" else k for k in kinds}
    known = {*BOT_KINDS, "az", "level", "rollout"}
    unknown = [k for k in kinds or () if k not in known]
    if unknown:
        raise ValueError(f"bad --kinds {','.join(kinds or ())}: unknown bot kind(s) "
                         f"{unknown}; known kinds: {sorted(known)}")
    out: dict[str, Entrant] = {}
    for raw in specs:
        spec = _scaled(BotSpec.parse(raw.replace(ROLLOUT, rk)), budget_scale)
        if spec.kind not in ("az", "level") and spec.kind not in BOT_KINDS:
            raise ValueError(f"bad entrant {raw!r}: unknown bot kind {spec.kind!r}; known "
                             f"kinds: {sorted({*BOT_KINDS, 'az'})} (or level:1..10)")
        if wanted is not None and spec.kind not in wanted:
            continue
        note = _az_note(game) if spec.kind == "az" else None
        out.setdefault(spec.label, Entrant(spec.label, note))
    have = sorted({BotSpec.parse(s.replace(ROLLOUT, rk)).kind for s in specs})
    missing = [k for k in kinds or () if (rk if k == "rollout" else k) not in have]
    if missing:
        raise ValueError(f"--kinds {','.join(missing)} match no entrant; the entrants' "
                         f"kinds are {have} (and 'rollout' = {rk})")
    return list(out.values())


def schedule(num_entrants: int, num_players: int, games_per_table: int) -> list[list[int]]:
    """Entrant index per seat for every game of the round robin (see the module docstring).

    Returns ``C(N, n) * n * ceil(K / n)`` seatings when ``N >= n``, else ``N * ceil(K / N)``.

    Raises:
        ValueError: fewer than 2 seats (a solo game has no one to be rated against), fewer
            than 2 entrants, fewer than 1 game per table, or more than
            ``arena.MAX_GAMES`` games in all.
    """
    n, k = num_players, games_per_table
    if n < 2:
        raise ValueError(f"a ladder rates entrants against each other in a game, so it needs "
                         f"at least 2 seats, got {n}; for a solo game use ratai arena "
                         f"--players 1 (win rate against the game's automaton)")
    if num_entrants < 2:
        raise ValueError(f"a ladder needs at least 2 entrants, got {num_entrants}")
    if k < 1:
        raise ValueError(f"bad ladder size: {k} games per table (allowed >= 1)")
    games = math.comb(num_entrants, n) * n * -(-k // n) if num_entrants >= n else \
        num_entrants * -(-k // num_entrants)   # integer ceilings: k may be huge
    if games > MAX_GAMES:
        raise ValueError(f"bad ladder size: {str(k)[:20]}{'...' if len(str(k)) > 20 else ''} "
                         f"games per table make more than {MAX_GAMES:,} games")
    if num_entrants < n:
        return [seat_assignment(num_entrants, n, i) for i in range(games)]
    tables = list(itertools.combinations(range(num_entrants), n))
    out = []
    for _round in range(-(-k // n)):
        for rot in range(n):
            for table in tables:
                out.append([table[(rot + s) % n] for s in range(n)])
    return out


def game_cost(specs: Sequence[str]) -> float:
    """Relative cost of one game between ``specs`` (for the progress bar's ETA): iterations
    per move summed over the seats, a time budget counted at 20,000 iterations per second,
    random and heuristic seats as 30."""
    total = 0.0
    for s in specs:
        b = BotSpec.parse(s)
        cost = _ETA_CHEAP
        if b.iterations is not None:
            cost = max(cost, float(b.iterations))
        if b.time_limit is not None:
            cost = max(cost, b.time_limit * _ETA_ITERATIONS_PER_S)
        if b.level is not None:
            cost = 1000.0
        total += cost
    return total


@dataclass
class LadderResult:
    """A finished ladder: settings, the entrants that played, those skipped (with their
    notes), the game records and the standings (best rating first)."""

    game: str
    params: dict
    num_players: int
    games_per_table: int
    seed: int
    entrants: list[str]
    skipped: list[Entrant]
    records: list[dict]
    rows: list[Standing]
    seconds: float
    budget_scale: float = 1.0
    command: str = ""
    notes: list[str] = field(default_factory=list)
    #: the games scheduled, when the ladder was interrupted before all of them finished
    #: (``records`` holds the finished ones); ``None``: complete
    interrupted_of: int | None = None

    def __post_init__(self) -> None:
        if self.interrupted_of is not None and not any(
                n.startswith("interrupted:") for n in self.notes):
            self.notes.append(f"interrupted: {len(self.records)} of {self.interrupted_of} "
                              f"games finished; the standings rate those only")

    def row(self, spec: str) -> Standing:
        return next(r for r in self.rows if r.bot == spec)

    @classmethod
    def load(cls, run_dir: str | Path) -> LadderResult:
        """A finished ladder read back from its ``ladder.json`` and ``records.jsonl``
        (ratings recomputed from the records, so the same as when it was played).

        Raises:
            ValueError: a missing or malformed file (named).
        """
        d = Path(run_dir)
        try:
            meta = json.loads((d / "ladder.json").read_text())
            records = [json.loads(line) for line in
                       (d / "records.jsonl").read_text().splitlines() if line.strip()]
            entrants = meta.get("entrants") or [row["spec"] for row in meta["standings"]]
            skipped = [Entrant(e["spec"], e["note"]) for e in meta.get("skipped", [])]
            rows = sorted(standings(records, entrants), key=lambda s: (-s.mu, -s.ordinal))
            cut = meta.get("interrupted_of")
            return cls(meta["game"], meta["params"], int(meta["players"]),
                       int(meta["games_per_table"]), int(meta["seed"]), list(entrants),
                       skipped, records, rows, float(meta["seconds"]),
                       float(meta.get("budget_scale", 1.0)), meta.get("command", ""),
                       interrupted_of=None if cut is None else int(cut))
        except OSError as exc:   # name the file: a directory without it read as missing
            name = Path(exc.filename).name + ": " if exc.filename else ""
            raise ValueError(f"bad ladder run {d}: {name}{exc.strerror or exc} (a ladder's "
                             f"--out directory holds ladder.json and records.jsonl)") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"bad ladder run {d}: not a ratai ladder output "
                             f"({type(exc).__name__}: {exc})") from None


def run_ladder(game_name: str, params: dict, entrants: Sequence[Entrant | str], *,
               games_per_table: int = 10, seed: int = 0, workers: int = 1,
               backend: str = "local", budget_scale: float = 1.0, command: str = "",
               on_record: Callable[[dict, float], None] | None = None) -> LadderResult:
    """Play the round robin of the playable ``entrants`` (those without a note).

    Args:
        params: game parameters (``num_players`` among them).
        games_per_table: ``K`` of :func:`schedule`.
        workers, backend: as ``ratai.arena.run_arena``.
        on_record: ``on_record(record, cost)`` after each game (``cost``:
            :func:`game_cost` of its seats; for a progress bar).

    Raises:
        ValueError: fewer than 2 playable entrants, a solo game (fewer than 2 seats: see
            :func:`schedule`), a bad spec or backend, bad params; all before any game.
    """
    from ratai.engines import load_game

    game = load_game(game_name, **params)
    ents = [e if isinstance(e, Entrant) else Entrant(e) for e in entrants]
    playing = [e.spec for e in ents if e.note is None]
    skipped = [e for e in ents if e.note is not None]
    if len(playing) < 2:
        why = "; ".join(f"{e.spec}: {e.note}" for e in skipped)
        raise ValueError(f"a ladder needs at least 2 playable entrants, got {len(playing)}"
                         + (f" ({why})" if why else ""))
    seatings = [[playing[i] for i in seats]
                for seats in schedule(len(playing), game.num_players(), games_per_table)]
    start = time.perf_counter()
    done: list[dict] = []

    def cb(rec: dict) -> None:
        done.append(rec)
        if on_record is not None:
            on_record(rec, game_cost(rec["seats"]))

    def result(records: list[dict], interrupted_of: int | None = None) -> LadderResult:
        rows = sorted(standings(records, playing), key=lambda s: (-s.mu, -s.ordinal))
        return LadderResult(game_name, dict(game.params), game.num_players(), games_per_table,
                            seed, playing, skipped, records, rows,
                            time.perf_counter() - start, budget_scale, command,
                            interrupted_of=interrupted_of)

    try:
        records = run_schedule(game_name, dict(game.params), seatings, seed=seed,
                               workers=workers, backend=backend, on_record=cb)
    except KeyboardInterrupt:
        part = result(sorted(done, key=lambda r: r["index"]), interrupted_of=len(seatings))
        raise LadderInterrupted(part, len(seatings)) from None
    return result(records)


class LadderInterrupted(KeyboardInterrupt):
    """A ladder stopped by Ctrl-C (or SIGTERM): ``result`` holds the games finished so far
    (rated; a note says how many of ``total``), for the caller to keep."""

    def __init__(self, result: LadderResult, total: int):
        super().__init__()
        self.result, self.total = result, total


def head_to_head(records: Sequence[dict], entrants: Sequence[str]) -> dict[tuple[str, str],
                                                                             tuple[float, int]]:
    """``(a, b) -> (score, games)``: in the games where ``a`` and ``b`` both sat, the
    fraction of seat pairs where ``a``'s return beat ``b``'s (a tie counts 1/2)."""
    acc: dict[tuple[str, str], list[float]] = {}
    for rec in records:
        seats, rets = rec["seats"], rec["returns"]
        for i, j in itertools.permutations(range(len(seats)), 2):
            a, b = seats[i], seats[j]
            if a == b:
                continue
            s = acc.setdefault((a, b), [0.0, 0])
            s[0] += 1.0 if rets[i] > rets[j] else 0.5 if rets[i] == rets[j] else 0.0
            s[1] += 1
    return {k: (v[0] / v[1], int(v[1])) for k, v in acc.items() if k[0] in entrants}


def _tables(entrants: int, n: int) -> str:
    """How :func:`schedule` seats ``entrants`` at ``n``-seat tables, in words."""
    if entrants < n:
        return (f"one table of all {entrants} entrants, some in two seats of a game by "
                f"rotation")
    return f"every {'pair' if n == 2 else f'{n}-subset'} of {entrants} entrants"


def markdown(result: LadderResult) -> str:
    """The ladder as Markdown: settings, the standings table, the head-to-head matrix and
    the notes on skipped entrants."""
    r = result
    n = r.num_players
    lines = [f"## Ladder: {r.game}, {n} players",
             "",
             f"{len(r.records)} games (seed {r.seed}; {_tables(len(r.entrants), n)}, seats "
             f"rotated; {r.games_per_table} games per table requested), "
             f"{sum(x['moves'] for x in r.records) / max(1, len(r.records)):.0f} actions per "
             f"game, {r.seconds:.0f} s wall clock. Params: `{json.dumps(r.params)}`."
             + (f" Budgets scaled by {r.budget_scale:g}." if r.budget_scale != 1 else ""),
             ""]
    if r.command:
        lines += [f"Command: `{r.command}`", ""]
    lines += ["| rank | entrant | rating mu | sigma | ordinal (mu-3sigma) | win rate | "
              "95% Wilson | games | s/move |",
              "| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    for rank, s in enumerate(r.rows, 1):
        lo, hi = s.wilson95
        lines.append(f"| {rank} | {s.bot} | {s.mu:.2f} | {s.sigma:.2f} | {s.ordinal:.2f} | "
                     f"{s.win_rate:.3f} | [{lo:.3f}, {hi:.3f}] | {s.games} | "
                     f"{s.seconds_per_move:.4f} |")
    lines += ["", f"Win rate: mean return (a k-way shared win counts 1/k; fair share "
                  f"{1 / n:.3f}). Rating: openskill Plackett-Luce, games in order. s/move: "
                  f"search seconds per decision with more than one legal move (shared "
                  f"machine: timings are noisy).", ""]
    h2h = head_to_head(r.records, r.entrants)
    order = [s.bot for s in r.rows]
    lines += ["Head to head (row finishes ahead of column; ties 1/2; seat pairs counted):", "",
              "| | " + " | ".join(order) + " |",
              "| --- |" + " ---: |" * len(order)]
    for a in order:
        cells = []
        for b in order:
            cells.append("" if a == b or (a, b) not in h2h else f"{h2h[(a, b)][0]:.2f}")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    if r.skipped or r.notes:
        lines += ["", "Notes:", ""]
        lines += [f"- skipped `{e.spec}`: {e.note}" for e in r.skipped]
        lines += [f"- {note}" for note in r.notes]
    return "\n".join(lines) + "\n"


def plot(result: LadderResult, path: str | Path) -> None:
    """A PNG: rating (mu with +-2 sigma) and win rate (95% Wilson) per entrant.

    Raises:
        ValueError: matplotlib is not installed (``pip install -e ".[plot]"``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError('plots need matplotlib: pip install -e ".[plot]"') from None
    rows = list(reversed(result.rows))  # best at the top
    names = [s.bot for s in rows]
    ys = range(len(rows))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 0.45 * len(rows) + 1.8), sharey=True)
    ax1.errorbar([s.mu for s in rows], ys, xerr=[2 * s.sigma for s in rows], fmt="o",
                 capsize=3)
    ax1.set_yticks(list(ys), names)
    ax1.set_xlabel("openskill rating mu (bars: +-2 sigma)")
    ax1.grid(axis="x", alpha=0.3)
    wr = [s.win_rate for s in rows]
    lo = [s.win_rate - s.wilson95[0] for s in rows]
    hi = [s.wilson95[1] - s.win_rate for s in rows]
    ax2.errorbar(wr, ys, xerr=[lo, hi], fmt="s", color="tab:green", capsize=3)
    ax2.axvline(1 / result.num_players, color="grey", ls="--", lw=1, label="fair share")
    ax2.set_xlim(0, 1)
    ax2.set_xlabel("win rate (bars: 95% Wilson)")
    ax2.legend(loc="lower right", fontsize=8)
    ax2.grid(axis="x", alpha=0.3)
    fig.suptitle(f"{result.game}, {result.num_players} players: {len(result.records)} games, "
                 f"seats rotated")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _summary(result: LadderResult) -> dict[str, Any]:
    return {
        "format": 1, "game": result.game, "params": result.params,
        "players": result.num_players, "games": len(result.records),
        "games_per_table": result.games_per_table, "seed": result.seed,
        "budget_scale": result.budget_scale, "seconds": round(result.seconds, 1),
        "command": result.command, "entrants": result.entrants,
        "interrupted_of": result.interrupted_of,
        "skipped": [{"spec": e.spec, "note": e.note} for e in result.skipped],
        "standings": [{"spec": s.bot, "mu": round(s.mu, 3), "sigma": round(s.sigma, 3),
                       "ordinal": round(s.ordinal, 3), "win_rate": round(s.win_rate, 4),
                       "wilson95": [round(x, 4) for x in s.wilson95], "games": s.games,
                       "seconds_per_move": round(s.seconds_per_move, 5)}
                      for s in result.rows],
    }


def write_outputs(result: LadderResult, out_dir: str | Path, *,
                  with_plot: bool = True) -> list[Path]:
    """Write ``ladder.md``, ``ladder.json``, ``records.jsonl`` and (``with_plot``)
    ``ladder.png`` into ``out_dir`` (created). Returns the paths written.

    Raises:
        ValueError: ``with_plot`` without matplotlib.
    """
    from ratai.arena import write_records

    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    paths = [d / "ladder.md", d / "ladder.json", d / "records.jsonl"]
    paths[0].write_text(markdown(result))
    paths[1].write_text(json.dumps(_summary(result), indent=1) + "\n")
    write_records(result.records, str(paths[2]))
    if with_plot:
        plot(result, d / "ladder.png")
        paths.append(d / "ladder.png")
    return paths


def significantly_weaker(b: Standing, a: Standing, z: float = 1.96) -> bool:
    """True when ``b``'s rating is below ``a``'s by more than ``z`` standard errors of the
    difference (``mu_a - mu_b > z * sqrt(sigma_a^2 + sigma_b^2)``; 1.96: 95%)."""
    return a.mu - b.mu > z * math.hypot(a.sigma, b.sigma)


def calibrate_levels(result: LadderResult, path: str | Path,
                     derived_by: str = "") -> dict[str, Any]:
    """Write the levels of ``result.game`` into the table at ``path`` (other games kept).

    ``result`` must be a ladder of :data:`ratai.bots.levels.LEVEL_CANDIDATES` (unscaled
    budgets; candidates it did not play are listed under ``not_measured``). Level 1 is
    ``random``; the rollout searches follow weakest budget first, each the next level
    unless it measured significantly weaker (:func:`significantly_weaker`, 95%) than the
    level below, in which case it is dropped (listed under ``dropped``); the heuristic,
    which has no budget, goes just below the first search level rated above it.
    So the levels are monotone in budget and never measurably decrease in strength.
    Entrants outside the candidates rated above the last level (``az``) come next, in
    budget order under the same rule (dropped when significantly weaker than the level
    below). Level 10
    is the strongest entrant kept; levels left over repeat the strongest one, with a note
    (they become ``az`` once a packaged model plays the game). Each level keeps its
    measured rating, win rate with 95% Wilson interval, games and seconds per move;
    ``inversions`` lists adjacent levels whose measured mu decreases within the noise.

    ``derived_by``: the command that derived the levels from a saved run (``--from-run``),
    recorded next to the command that played it.

    Returns the game's entry.

    Raises:
        ValueError: the ladder did not play ``random`` and another candidate, its
            budgets were scaled, or it was interrupted (a partial round robin).
    """
    from ratai.bots.levels import LEVEL_CANDIDATES, MAX_LEVEL
    from ratai.engines import load_game

    if result.budget_scale != 1.0:
        raise ValueError("levels are calibrated at the real budgets (no --budget-scale/--quick)")
    if result.interrupted_of is not None:
        raise ValueError(f"levels are calibrated on a whole round robin: this ladder was "
                         f"interrupted after {len(result.records)} of "
                         f"{result.interrupted_of} games")
    rk = rollout_kind(load_game(result.game, **result.params))
    cands = [BotSpec.parse(c.replace(ROLLOUT, rk)).label for c in LEVEL_CANDIDATES]
    if cands[0] not in result.entrants or len([c for c in cands if c in result.entrants]) < 2:
        raise ValueError(f"--calibrate-levels needs {cands[0]} and at least one more level "
                         f"candidate ({', '.join(cands[1:])}) among the entrants")
    not_measured = [c for c in cands if c not in result.entrants]
    cands = [c for c in cands if c in result.entrants]
    kept = [result.row(cands[0])]  # level 1: random, the anchor
    dropped = []

    def drop(s: Standing, below: Standing) -> None:
        dropped.append({"spec": s.bot, "mu": round(s.mu, 2), "sigma": round(s.sigma, 2),
                        "reason": f"measured significantly weaker than {below.bot}"})

    def climb(rows) -> None:
        """Each of ``rows`` (weakest budget first) becomes the next level unless it measured
        significantly weaker than the level below."""
        for s in rows:
            if significantly_weaker(s, kept[-1]):
                drop(s, kept[-1])
            else:
                kept.append(s)

    budgeted = [c for c in cands[1:] if BotSpec.parse(c).iterations or
                BotSpec.parse(c).time_limit]
    climb(result.row(spec) for spec in budgeted)  # the searches, weakest budget first
    for spec in (c for c in cands[1:] if c not in budgeted):  # heuristic: placed by rating
        s = result.row(spec)
        if significantly_weaker(s, kept[0]):
            drop(s, kept[0])
            continue
        pos = next((i for i in range(1, len(kept)) if kept[i].mu > s.mu), len(kept))
        kept.insert(pos, s)

    def budget(r: Standing) -> tuple[float, float, float]:
        spec = BotSpec.parse(r.bot)
        return (spec.iterations or math.inf, spec.time_limit or 0.0, r.mu)

    # the other entrants rated above the last level (az), as the rollout searches
    climb(sorted((r for r in result.rows if r.bot not in cands and r.mu > kept[-1].mu),
                 key=budget))
    if len(kept) > MAX_LEVEL:
        kept = kept[:MAX_LEVEL - 1] + [kept[-1]]

    def row(s: Standing, level: int, note: str | None = None) -> dict[str, Any]:
        out = {"level": level, "spec": s.bot, "mu": round(s.mu, 2), "sigma": round(s.sigma, 2),
               "ordinal": round(s.ordinal, 2), "win_rate": round(s.win_rate, 3),
               "wilson95": [round(x, 3) for x in s.wilson95], "games": s.games,
               "seconds_per_move": round(s.seconds_per_move, 4)}
        if note:
            out["note"] = note
        return out

    levels = [row(s, i + 1) for i, s in enumerate(kept)]
    top = len(kept)
    for lv in range(top + 1, MAX_LEVEL + 1):
        levels.append(row(kept[-1], lv, note=f"no stronger bot measured: same as level {top}"
                          + ("" if any(BotSpec.parse(x.bot).kind == "az" for x in kept) else
                             " (to become az once a packaged az model plays this game)")))
    inversions = [[a["level"], b["level"]] for a, b in zip(levels, levels[1:], strict=False)
                  if b["mu"] < a["mu"]]
    entry = {"players": result.num_players, "params": result.params,
             "games": len(result.records), "games_per_table": result.games_per_table,
             "seed": result.seed, "seconds": round(result.seconds, 1),
             "command": result.command, **({"derived_by": derived_by} if derived_by else {}),
             "measured": time.strftime("%Y-%m-%d"),
             "inversions": inversions, "dropped": dropped, "not_measured": not_measured,
             "levels": levels}
    p = Path(path)
    table = json.loads(p.read_text()) if p.exists() else {"format": 1, "games": {}}
    table.setdefault("games", {})[result.game] = entry
    table["games"] = dict(sorted(table["games"].items()))
    p.write_text(json.dumps(table, indent=1) + "\n")
    return entry
