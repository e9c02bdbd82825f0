"""``ratai bench``: speed/depth against time and strength against iterations, table and plot."""

from __future__ import annotations

import io

import pytest

from ratai.cli import main


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


def test_bench_bad_budget_is_a_usage_error():
    with pytest.raises(SystemExit):
        main(["bench", "rat_trap", "--budgets", "ten"], io.StringIO())
