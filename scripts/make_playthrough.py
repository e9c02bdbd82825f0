"""Regenerate the golden playthrough files (run from the project root).

    python scripts/make_playthrough.py            # every game in GOLDENS
    python scripts/make_playthrough.py rat_trap   # one game
"""

from __future__ import annotations

import sys
from pathlib import Path

from ratai.playthrough import GOLDENS, golden_path, playthrough


def main(names: list[str]) -> None:
    for name in names or sorted(GOLDENS):
        params, seed = GOLDENS[name]
        path = Path(golden_path(name))
        path.write_text(playthrough(name, params, seed))
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
