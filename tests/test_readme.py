"""The README's Python examples run as written (so the README never lies)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(code):
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
        pytest.importorskip("pettingzoo")
    exec(compile(code, "README.md", "exec"), {})


def test_readme_names_the_two_commands():
    assert 'pip install -e ".[test]" && ratai demo' in README
    assert 'pip install -e ".[test]" && pytest' in README
