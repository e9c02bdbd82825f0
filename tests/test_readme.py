"""The README's Python examples run as written (so the README never lies)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
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


def test_relative_links_in_the_docs_resolve():
    """Every relative Markdown link in README, docs/, bench/README and the model reports
    names a file or directory of the repository (anchors and URLs are not checked)."""
    pages = [ROOT / "README.md", ROOT / "bench" / "README.md",
             *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "ratai" / "models").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken
