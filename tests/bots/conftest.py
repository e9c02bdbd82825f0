"""Makes the toy games of ``tests/search/ratai_toy_games.py`` importable here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "search"))
