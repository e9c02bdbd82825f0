"""Package hygiene (issue 16, item 7): LICENSE, ``py.typed``, every test dependency declared."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

#: module imported (or importorskip'ed) by tests -> the distribution that provides it
DISTRIBUTIONS = {"scipy": "scipy", "pyspiel": "open-spiel", "open_spiel": "open-spiel",
                 "pettingzoo": "pettingzoo", "gymnasium": "gymnasium", "hypothesis": "hypothesis",
                 "matplotlib": "matplotlib", "grpc_tools": "grpcio-tools", "pytest": "pytest"}
#: extras the [test] extra deliberately leaves out (a cluster runtime; its test skips)
NOT_IN_TEST = {"ray"}


def _extra(name: str, seen=None) -> set[str]:
    """Distribution names in an extra, following ``ratai[...]`` self-references."""
    seen = seen or set()
    out = set()
    for req in PYPROJECT["project"]["optional-dependencies"][name]:
        dist = re.split(r"[<>=\[ ;]", req, maxsplit=1)[0].lower()
        if dist == "ratai":
            for sub in re.search(r"\[(.*)\]", req).group(1).split(","):
                if sub not in seen:
                    seen.add(sub)
                    out |= _extra(sub.strip(), seen)
        else:
            out.add(dist)
    return out


def test_license_file_is_the_declared_mit_license():
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_py_typed_marker_is_shipped():
    assert (ROOT / "ratai" / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["ratai"]


def test_every_optional_test_dependency_is_in_the_test_extra():
    declared = _extra("test")
    used = set()
    for path in (ROOT / "tests").rglob("*.py"):
        src = path.read_text()
        used |= set(re.findall(r'importorskip\("([a-z_]+)', src))
        used |= set(re.findall(r"^\s*(?:import|from) ([a-z_]+)", src, re.M))
    missing = sorted({DISTRIBUTIONS[m] for m in used if m in DISTRIBUTIONS} - declared)
    assert not missing, f"add to [project.optional-dependencies] test: {missing}"
    skipped = {m for m in used if m in NOT_IN_TEST}
    assert skipped <= NOT_IN_TEST
