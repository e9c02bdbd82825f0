"""Regenerate the golden playthrough files (run from the project root).

    python scripts/make_playthrough.py            # every game in GOLDENS
    python scripts/make_playthrough.py rat_trap   # one game
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ratai.playthrough import GOLDENS, golden_path, playthrough


@click.command(context_settings={"help_option_names": ["-h", "--help"]},
               help="Regenerate the golden playthrough files (per ply of a seeded game: the "
                    "player, legal actions as ids and labels, and returns) that "
                    "tests/engines compare byte for byte. With no GAME, every game.")
@click.argument("games", nargs=-1, type=click.Choice(sorted(GOLDENS)), metavar="[GAME]...")
def main(games: tuple[str, ...]) -> None:
    for name in games or sorted(GOLDENS):
        params, seed = GOLDENS[name]
        path = Path(golden_path(name))
        path.write_text(playthrough(name, params, seed))
        click.echo(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
