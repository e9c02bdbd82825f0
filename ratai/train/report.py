"""A training run's report (``report.md``) and plots (``loss.png``, ``strength.png``), made
from ``config.json``, ``state.json`` and ``metrics.jsonl`` of the run directory."""

from __future__ import annotations

import json
from pathlib import Path


def read_metrics(root: Path) -> list[dict]:
    path = Path(root) / "metrics.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _fmt_strength(strength: dict | None) -> str:
    if not strength:
        return "-"
    parts = []
    for n, s in sorted(strength.items(), key=lambda kv: int(kv[0])):
        if not s["games"]:
            parts.append(f"{n}p not evaluated")
            continue
        lo, hi = s["ci95"]
        parts.append(f"{n}p {s['return']:.2f} [{lo:.2f}, {hi:.2f}] ({s['ratio_to_fair']:.2f}x "
                     f"fair, {s['games']} g)")
    return "; ".join(parts)


def _init_lines(root: Path) -> list[str]:
    """A warm-started run's lineage (``meta["init"]`` of generation 0), or nothing."""
    from ratai.nn.model import Model

    init = Model.load(root / "models" / "gen-00000.npz").meta.get("init")
    if not init:
        return []
    return [f"Warm start: generation 0 is `{init['file']}` (sha256 {init['sha256'][:12]}..., "
            f"its generation {init['generation']}, {init['games_trained']} self-play games "
            "behind it); the games and minutes above are this run's only.", ""]


def _budget_lines(cfg, state: dict) -> list[str]:
    """A line when the run's time budget (``--max-minutes``) stopped it short of
    ``--generations`` (``state["stopped_by_budget"]``, set only in the report written at
    that stop)."""
    if cfg.max_minutes is None or state["generation"] >= cfg.generations \
            or not state.get("stopped_by_budget"):
        return []
    return [f"Stopped at its time budget (`--max-minutes {cfg.max_minutes:g}`): generation "
            f"{state['generation'] + 1} of the {cfg.generations} asked would have ended past "
            "it; the same command with a higher budget continues the run.", ""]


def _fmt_mb(mb: float | None) -> str:
    return "-" if mb is None else f"{mb:,.0f}"


def report_markdown(root: Path, cfg, state: dict) -> str:
    """The Markdown report: configuration, seed, games, time and strength per generation."""
    from ratai.train.loop import cli_args

    metrics = read_metrics(root)
    by_gen: dict[int, dict] = {}
    for m in metrics:
        if "generation" in m:
            by_gen.setdefault(m["generation"], {})[m["event"]] = m
    lines = [f"# Training report: {cfg.game}, players {', '.join(map(str, cfg.players))}", "",
             f"Command: `ratai train {' '.join(cli_args(cfg))} --run DIR`", "",
             f"Seed {cfg.seed}; {cfg.iterations} az iterations per self-play move; network "
             f"hidden {cfg.hidden[0]}x{cfg.hidden[1]}"
             f"{' (seat-relative)' if cfg.seat_relative else ''}; "
             f"{state['games_trained']} self-play games "
             f"({state['positions_seen']} positions) over {max(0, state['generation'])} "
             f"generations in {state.get('seconds', 0.0) / 60:.1f} min; best generation "
             f"{state['best']}.", "", *_budget_lines(cfg, state), *_init_lines(root),
             "Strength: the generation's network (az, "
             f"{cfg.eval_iterations or cfg.iterations} iterations, no noise) in one seat "
             "against random seats, seat-rotated: mean return per seat with its 95% interval "
             "(fair share 1/n). Gating: the new network in one seat against the best in the "
             "others; score = R_new / (R_new + R_best).", "",
             "Peak RSS: the sitting's peak resident memory so far (`VmHWM`), this process's "
             "plus each local self-play worker's, in MB.", "",
             "Held-out value MSE: the previous generation's network on this generation's new "
             "positions, before training on them, against the game's result, with the "
             "constant 1/n's error in parentheses: below it the value head generalises, above "
             "it it has memorised its games.", "",
             "| gen | games trained | loss | value loss | policy loss | value MSE | held-out "
             "value MSE (1/n) | gate score (games) | best | strength vs random | minutes "
             "(total) | peak RSS (MB) |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: | ---: |"]
    best = 0
    for entry in state["summary"]:
        g = entry["generation"]
        ev = by_gen.get(g, {})
        tr = ev.get("train")
        gate = entry.get("gate")
        if gate and gate["promoted"]:
            best = g
        loss = (f"{tr['loss']:.4f} | {tr['value_loss']:.4f} | {tr['policy_loss']:.4f} | "
                f"{tr['value_mse']:.4f}") if tr else "- | - | - | -"
        held = (tr or {}).get("heldout") or {}
        held_txt = (f"{held['value_mse']:.4f} ({held['constant_mse']:.4f})"
                    if held.get("positions") else "-")
        gate_txt = "-"
        if gate:
            gate_txt = f"{gate['score']:.3f} ({gate['games']})"
            gate_txt += " promoted" if gate["promoted"] else ""
        lines.append(f"| {g} | {entry['games_trained']} | {loss} | {held_txt} | {gate_txt} | "
                     f"{best} | "
                     f"{_fmt_strength(entry.get('strength'))} | {entry['seconds'] / 60:.1f} | "
                     f"{_fmt_mb(entry.get('peak_rss_mb'))} |")
    lines += ["", "Configuration (config.json):", "", "```json",
              json.dumps(cfg.to_json(), indent=1, sort_keys=True), "```", ""]
    return "\n".join(lines)


def plots(root: Path, cfg, state: dict) -> None:
    """``loss.png`` (losses per training step, all generations; below, the value head's
    error per generation on held-out and training positions) and ``strength.png``
    (strength against random per player count and gating score, per generation). Skipped
    without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:   # pragma: no cover - matplotlib is in the [train] extra
        return
    metrics = read_metrics(root)
    trains = [m for m in metrics if m["event"] == "train"]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(7, 7))
    for col, name in ((1, "loss"), (2, "value loss (BCE)"), (3, "policy loss (CE)")):
        xs, ys, offset = [], [], 0
        for m in trains:
            for row in m["curve"]:
                xs.append(offset + row[0])
                ys.append(row[col])
            offset += m["steps"]
        ax.plot(xs, ys, label=name)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss")
    ax.set_title(f"{cfg.game} {','.join(map(str, cfg.players))}p: training loss")
    ax.legend()
    held = [(m["generation"], m["heldout"]) for m in trains
            if (m.get("heldout") or {}).get("positions")]
    if held:
        gens = [g for g, _ in held]
        ax2.plot(gens, [h["value_mse"] for _, h in held], marker=".",
                 label="held out: new positions, before training")
        ax2.plot(gens, [h["constant_mse"] for _, h in held], "k--", label="constant 1/n")
    ax2.plot([m["generation"] for m in trains], [m["value_mse"] for m in trains],
             marker=".", label="training batches (its value target)")
    ax2.set_xlabel("generation")
    ax2.set_ylabel("value MSE per seat")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(Path(root) / "loss.png", dpi=90)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    summary = state["summary"]
    for n in cfg.players:
        pts = [(e["generation"], e["strength"][str(n)]) for e in summary
               if e.get("strength") and str(n) in e["strength"]]
        if pts:
            g = [p[0] for p in pts]
            y = [p[1]["ratio_to_fair"] for p in pts]
            err = [[(p[1]["return"] - p[1]["ci95"][0]) * n for p in pts],
                   [(p[1]["ci95"][1] - p[1]["return"]) * n for p in pts]]
            ax.errorbar(g, y, yerr=err, marker="o", capsize=3,
                        label=f"{n}p vs random (return / fair share)")
    gates = [(e["generation"], e["gate"]["score"]) for e in summary if e.get("gate")]
    if gates:
        ax.plot([x for x, _ in gates], [2 * y for _, y in gates], "k--", marker="s",
                label="gate score x2 (1 = even)")
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.set_xlabel("generation")
    ax.set_ylabel("multiple of the fair share")
    ax.set_title(f"{cfg.game}: strength per generation")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(Path(root) / "strength.png", dpi=90)
    plt.close(fig)
