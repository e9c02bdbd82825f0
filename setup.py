"""Build of the Cython twins (``_speedups/*.pyx`` -> ``ratai._speedups.*``).

Everything else is declared in ``pyproject.toml``. A failed compile fails the install: there
is no silent fallback to a slow build (``load_game(backend="auto")`` still falls back to the
reference engine when the extension is missing, e.g. in a source checkout never built).
"""

import shutil
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent
SOURCES = sorted((HERE / "_speedups").glob("*.pyx"))


def _pxd_include_dir() -> str:
    """The ``.pxd`` files laid out as the package ``ratai._speedups`` (the source tree maps
    ``_speedups/`` to ``ratai._speedups``, which Cython's cimport lookup cannot see)."""
    root = HERE / "build" / "cython_include"
    pkg = root / "ratai" / "_speedups"
    pkg.mkdir(parents=True, exist_ok=True)
    (root / "ratai" / "__init__.pxd").touch()
    (pkg / "__init__.pxd").touch()
    for pxd in (HERE / "_speedups").glob("*.pxd"):
        target = pkg / pxd.name
        if not target.exists() or target.read_bytes() != pxd.read_bytes():
            shutil.copyfile(pxd, target)
    return str(root)

extensions = [
    Extension(f"ratai._speedups.{pyx.stem}", [f"_speedups/{pyx.name}"],
              extra_compile_args=["-O3"])
    for pyx in SOURCES
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=[_pxd_include_dir()],
        compiler_directives={"boundscheck": False, "wraparound": False,
                             "language_level": 3, "cdivision": True},
    ),
)
