"""``ratai bench``: speed/depth against time and strength against iterations, table and plot."""

from __future__ import annotations

import io

import pytest

from ratai.cli import main
from tests.conftest import load_script


def test_bench_writes_table_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = io.StringIO()
    png, md = tmp_path / "b.png", tmp_path / "b.md"
    code = main(["bench", "rat_trap", "--seconds", "0.08", "--budgets", "3,6", "--games", "2",
                 "--plot", str(png), "--markdown", str(md)], out)
    assert code == 0
    table = md.read_text()
    assert "| rat_trap | ismcts | 0.08 |" in table and "| rat_trap | ismcts | 6 |" in table
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_strength_interval_is_wilson(monkeypatch):
    """A budget that wins all its games gets the Wilson interval of the mean return
    (about [0.72, 1.00] over 10 games), never the point [1.00, 1.00]."""
    from ratai import bench as bench_mod

    def sweep(name, params, bots, games, **kw):
        spec = bots[0]
        return [{"index": i, "seats": [spec, "random"] if i % 2 == 0 else ["random", spec],
                 "returns": [1.0, 0.0] if i % 2 == 0 else [0.0, 1.0],
                 "scores": [9, 1] if i % 2 == 0 else [1, 9]} for i in range(games)]

    monkeypatch.setattr(bench_mod, "run_arena", sweep)
    (row,) = bench_mod.strength("rat_trap", "mcts", [10], 10, params={"num_players": 2})
    assert (row.win_rate, row.games) == (1.0, 10)
    assert row.low == pytest.approx(0.7225, abs=1e-4) and row.high == 1.0
    assert "| 1.00 | [0.72, 1.00] |" in bench_mod.markdown([], [row])


def test_bench_bad_budget_is_a_usage_error():
    with pytest.raises(SystemExit):
        main(["bench", "rat_trap", "--budgets", "ten"], io.StringIO())


def test_bench_plot_without_matplotlib_is_refused_before_measuring(tmp_path, monkeypatch,
                                                                   capsys):
    """--plot without matplotlib: one line, exit 2, before any search or game."""
    import sys

    import ratai.bench

    monkeypatch.setitem(sys.modules, "matplotlib", None)   # find_spec: not installed
    monkeypatch.setattr(ratai.bench, "speed",
                        lambda *a, **k: pytest.fail("measured before refusing"))
    with pytest.raises(SystemExit) as info:
        main(["bench", "rat_trap", "--seconds", "0.05", "--plot", str(tmp_path / "b.png")],
             io.StringIO())
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1
    assert "--plot needs matplotlib" in err
    assert not (tmp_path / "b.png").exists()


def test_progress_hooks_are_called_per_analysis_and_per_game():
    from ratai import bench

    steps, games = [], []
    bench.speed("rat_trap", "ismcts", 0.02, n_positions=2, on_step=lambda: steps.append(1))
    bench.strength("rat_trap", "ismcts", [2, 3], 2, on_record=games.append)
    assert len(steps) == 2 * len(bench.SPEED_FRACTIONS) and len(games) == 4


def test_plot_axes_start_at_zero_with_plain_ticks_and_depth(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from ratai import bench

    speed = [bench.SpeedRow("g", "k", s, 18_600 + 2_400 * i, 3 + i)
             for i, s in enumerate((0.125, 0.25, 0.5, 1.0))]
    strength = [bench.StrengthRow("g", "k", b, 0.5, 0.3, 0.7, 10) for b in (10, 30, 100, 300)]
    figs = []
    monkeypatch.setattr(plt, "close", figs.append)
    bench.plot(speed, strength, str(tmp_path / "p.png"))
    ax_speed, ax_depth, ax_strength = figs[0].axes
    assert ax_speed.get_ylim()[0] == 0 and ax_depth.get_ylim()[0] == 0
    assert ax_depth.get_ylabel().startswith("deepest ply")
    assert [t.get_text() for t in ax_strength.get_xticklabels()] == ["10", "30", "100", "300"]
    assert [t.get_text() for t in ax_speed.get_xticklabels()] == ["0.125", "0.25", "0.5", "1"]


def _az_strength():
    """``bench/az_strength.py`` as a module (bench/ is scripts, not a package)."""
    return load_script("bench/az_strength.py")


def test_az_strength_pools_seeds(capsys):
    """``--seeds``: one row per seed, then one pooled row over all their games, whose mean
    is the games-weighted mean of the seeds' rows."""
    from ratai.arena import wilson_interval
    mod = _az_strength()
    assert mod.main(["--games-list", "rats_to_riches", "--players", "2", "--budgets", "3",
                     "--opponent-iterations", "3", "--games", "2", "--seeds", "1,2"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [r[-1] for r in rows] == ["1", "2", "pooled"] and rows[0][-2] == "seed"
    means = [float(r[4]) for r in rows]
    games = [int(r[-4]) if r[-1] != "pooled" else int(r[-3]) for r in rows]
    assert games == [2, 2, 4]
    assert means[2] == pytest.approx((means[0] + means[1]) / 2, abs=1e-3)
    lo, hi = wilson_interval(means[2] * 4, 4)
    assert rows[2][5] == f"[{lo:.3f}," and rows[2][6] == f"{hi:.3f}]"


def test_az_strength_bad_seeds_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        _az_strength().main(["--seeds", "1,x"])
    assert exc.value.code == 2 and "bad --seeds '1,x'" in capsys.readouterr().err
