"""Ratapolis as text for a terminal (``ratai play``): the city grid with rat counts and the
hunt board.

:func:`render` reads only ``state.observation(player)`` and the game's constants (layout,
building data), and keeps every line within :data:`WIDTH` columns.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from .data import PARK

if TYPE_CHECKING:
    from .rules import RatapolisGame, RatapolisState

#: Maximum line length of the rendering.
WIDTH = 100

_PHASES = {
    "tokens": "setup: drawing the property tokens",
    "deal": "phase 1: dealing the hunt cards",
    "archive": "phase 2: Archive (look at a hunt card?)",
    "plan": "phase 2: planning",
    "hotel": "phase 3: Hotel (+1 rat over capacity?)",
    "market": "phase 3: Market (place a rat?)",
    "hunt": "phase 4: the cats hunt",
    "radio": "phase 4: Radio station (redraw?)",
    "hospital": "phase 4: Hospital (save a rat?)",
    "end": "game over",
}


def _grid(game: RatapolisGame, obs: dict) -> list[str]:
    """The city's cells; a tile's first cell shows its letter and the rats per colour
    (``A 1/0/2``), its other cells the letter; a hunted tile's cells show ``#``."""
    board = obs["board"]
    grid = game.layout.grid
    seen: set[str] = set()
    cells: list[list[str]] = []
    for row in grid:
        line = []
        for ch in row:
            if ch == PARK:
                line.append(".")
            elif ch not in board:
                line.append("#")
            elif ch in seen:
                line.append(ch)
            else:
                seen.add(ch)
                line.append(f"{ch} " + "/".join(map(str, board[ch])))
        cells.append(line)
    width = max(len(c) for line in cells for c in line) + 2
    return ["  " + "".join(f"{c:<{width}}" for c in line).rstrip() for line in cells]


def _buildings(game: RatapolisGame, obs: dict) -> list[str]:
    """Three buildings a line: letter, name, capacity, cheese per rat, property token."""
    colours = game.colors  # RP-11: the seats' colours
    entries = []
    for b in game.data.buildings:
        x = game.letters.index(b.letter)
        if x not in game.layout.tiles:
            continue
        note = ""
        if b.letter in obs["removed"]:
            note = "(hunted)"
        elif b.letter in obs["tokens"]:
            holder = obs["tokens"][b.letter]
            note = "[" + (colours[holder] if holder >= 0 else "-") + "]"
        entries.append(f"{b.letter} {b.name[:14]:<14} {game.capacity[x]:>2} "
                       f"{b.cheese_per_rat} {note}")
    return ["  " + "".join(f"{e:<33}" for e in entries[i:i + 3]).rstrip()
            for i in range(0, len(entries), 3)]


def _scores(game: RatapolisGame, obs: dict) -> tuple[list[int], list[int]]:
    """Cheese now (rats x tile value + tokens) and rats in the city, per seat."""
    n = obs["num_players"]
    cheese = list(obs["cheese_tokens"])
    rats = [0] * n
    for letter, counts in obs["board"].items():
        v = game.cheese_per_rat[game.letters.index(letter)]
        for s, k in enumerate(counts):
            cheese[s] += v * k
            rats[s] += k
    return cheese, rats


def _hunt_board(game: RatapolisGame, obs: dict) -> list[str]:
    colours = game.colors  # RP-11: the seats' colours
    rounds = obs["rounds"]
    hunted = " ".join(f"{i + 1}:{r['hunted']}" for i, r in enumerate(rounds) if r["hunted"])
    out = [f"Hunt board: stack {obs['stack_count']}, discard {obs['discard_count']}; "
           f"hunted by round: {hunted or 'none yet'}"]
    now = rounds[-1]
    dealt = [colours[s] for s, d in enumerate(now["dealt"]) if d]
    parts = [f"face up: {' '.join(now['face_up']) or '-'}"]
    if now["my_card"]:
        parts.append(f"your secret card: {now['my_card']}")
    if dealt:
        parts.append(f"secret cards with: {', '.join(dealt)}")
    if now["radio_discarded"]:
        parts.append(f"redrawn by the Radio: {' '.join(now['radio_discarded'])}")
    if obs["drawn"]:
        parts.append(f"drawn: {obs['drawn']}")
    out.append(f"  round {len(rounds)}: " + "; ".join(parts))
    for look in obs["archive_looks"]:
        if look["round"] == len(rounds):
            seen = f": {look['card']}" if "card" in look else ""
            out.append(f"  Archive: {colours[look['viewer']]} looked at "
                       f"{colours[look['target']]}'s card{seen}")
    return out


def render(state: RatapolisState, player: int) -> str:
    """Seat ``player``'s view: the city grid with rat counts, the buildings (capacity,
    cheese per rat, property tokens), each colour's standing, the hunt board and the plans.

    Raises:
        ValueError: ``player`` is not a seat.
    """
    obs = state.observation(player)
    game: RatapolisGame = state.get_game()
    colours = game.colors  # RP-11: the seats' colours
    n = obs["num_players"]
    me = obs["player"]
    cp = obs["current_player"]
    turn = f" ({colours[cp]} to act)" if 0 <= cp < n and obs["phase"] != "plan" else ""
    if obs["phase"] == "plan" and 0 <= cp < n:
        turn = f" ({colours[cp]} to plan)"
    out = [f"Ratapolis - round {obs['round']} of {game.data.rounds}, "
           f"{_PHASES[obs['phase']]}{turn}; you are {colours[me]}"]
    out.append(f"City (rats {'/'.join(colours)} on each tile; # hunted, . park):")
    out.extend(_grid(game, obs))
    out.append("Buildings (capacity, cheese per rat, [property token holder; - on its tile]):")
    out.extend(_buildings(game, obs))
    cheese, rats = _scores(game, obs)
    for s in range(n):
        held = [t for t, h in obs["tokens"].items() if h == s]
        out.append(f"  {colours[s] + (' (you)' if s == me else ''):<13} cheese now "
                   f"{cheese[s]:>3} (cheese tokens {obs['cheese_tokens'][s]}), {rats[s]:>2} rats "
                   f"in the city, {obs['supply'][s]:>2} in supply; tokens: "
                   f"{' '.join(held) or '-'}")
    out.extend(_hunt_board(game, obs))
    if obs["phase"] == "plan":
        done = ", ".join(f"{colours[s]} {c}/2" for s, c in enumerate(obs["committed"]))
        out.append(f"Plans committed: {done}")
        if obs["my_plan"]:
            out.append(f"  your plan: {' / '.join(obs['my_plan'])}")
    elif obs["rounds"][-1]["plans"]:
        plans = "; ".join(f"{colours[s]}: {' / '.join(p)}"
                          for s, p in enumerate(obs["rounds"][-1]["plans"]))
        out.extend(textwrap.wrap(f"Revealed plans: {plans}", WIDTH, subsequent_indent="  "))
    if obs["hotel"]:
        h = obs["hotel"]
        out.append(f"  Hotel: one more rat could move {h['from']}>{h['to']}")
    return "\n".join(out)
