"""Regenerate the observation reference docs ``docs/observations/<game>.md`` (run from the
project root) from each game's schema (``Game.observation_schema()``).

    python scripts/make_obs_docs.py               # every game
    python scripts/make_obs_docs.py rat_trap      # one game
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ratai.engines import load_game, registered_games

#: The parameters each reference page is generated for (array lengths follow the player
#: count, card lists follow the data file: the page says which).
DOC_PARAMS = {
    "first_rat": {"num_players": 3},
    "rat_trap": {"num_players": 3, "roles": True},
    "ratapolis": {"num_players": 3},
    "rats_to_riches": {"num_players": 3},
}
ROOT = Path(__file__).resolve().parent.parent / "docs" / "observations"


def page(name: str) -> str:
    """The Markdown page of game ``name``."""
    params = DOC_PARAMS[name]
    game = load_game(name, backend="python", **params)
    args = ", ".join(f"{k}={v!r}" for k, v in params.items())
    heading = f"{game.title if hasattr(game, 'title') else name}: the observation"
    text = game._obs_spec().markdown(heading)
    note = (f"\nThis page is for `load_game({name!r}, {args})`: lists sized per seat or per "
            "pile follow the parameters, and card and item names follow the data file; "
            "`game.observation_schema()` and `game.observation_tensor_layout()` give the "
            "exact schema and layout of any game.\n")
    head, rest = text.split("\n## Fields", 1)
    return head + note + "\n## Fields" + rest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate docs/observations/<game>.md "
                                     "from the games' observation schemas.")
    parser.add_argument("games", nargs="*", metavar="GAME",
                        help=f"games to regenerate (default: all of {registered_games()})")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.games) - set(registered_games()))
    if unknown:
        parser.error(f"unknown game(s) {unknown}; known: {registered_games()}")
    ROOT.mkdir(parents=True, exist_ok=True)
    for name in args.games or registered_games():
        path = ROOT / f"{name}.md"
        path.write_text(page(name))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
