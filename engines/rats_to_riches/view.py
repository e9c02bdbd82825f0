"""Rats to Riches as text for a terminal (``ratai play``): the Open Sewer, incomes and cash.

:func:`render` reads only ``state.observation(player)`` and the game's component data, and
keeps every line within :data:`WIDTH` columns.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from .data import COLOURS

if TYPE_CHECKING:
    from .rules import RatsToRichesGame, RatsToRichesState

#: Maximum line length of the rendering.
WIDTH = 100

_STEPS = {"setup": "setup: rat {a} takes its 3 cheese",
          "reveal": "setup: turning over the Open Sewer",
          "step2": "step 2 (buy and/or use cards) of rat {a}'s turn",
          "step3": "step 3 (buy cheese) of rat {a}'s turn",
          "over": "game over"}


def _cost(game: RatsToRichesGame, t: int) -> str:
    """A card's cost as text: "2 blue cheese", "$5", "1 green + 1 blue + 1 red cheese"."""
    cheese = [f"{k} {c}" for k, c in zip(game.cost_cheese[t], COLOURS, strict=True) if k]
    parts = [" + ".join(cheese) + " cheese"] if cheese else []
    if game.cost_cash[t]:
        parts.append(f"${game.cost_cash[t]}")
    return " and ".join(parts) or "free"


def _card_text(game: RatsToRichesGame, key: str) -> str:
    """``"colour, costs X: effect"`` of a card key (the Flush card included)."""
    t = game.key_id[key]
    if t == game.T:
        colour = "Flush card"
        effect = f"income +{game.data.flush_income}; dump it: take 1 Open Sewer card free"
    else:
        ct = game.data.card_types[t]
        colour, effect = ct.colour, ct.text
    return f"{colour}, costs {_cost(game, t)}: {effect}"


def _cards(tableau: dict[str, int], flush: int) -> str:
    items = ([f"{flush} Flush" if flush > 1 else "Flush"] if flush else []) + [
        f"{c} {k}" if c > 1 else k for k, c in tableau.items()]
    return ", ".join(items) or "-"


def _pending(frame: dict) -> str:
    who = f"rat {frame['player']}"
    kind = frame["kind"]
    if kind == "sell":
        return f"{who} is selling pipes ({frame['pipes']} pipe(s) in the sale so far)"
    if kind == "pick":
        if frame["cost"]:
            return f"{who} picks {frame['left']} more card(s) to dump with {frame['card']}"
        return f"{who} sends {frame['left']} own card(s) to the Cesspit ({frame['card']})"
    card = f" ({frame['then']['card']})" if frame.get("then") else ""
    return f"{who} returns {frame['left']} cheese to the Cheese Bank{card}"


def render(state: RatsToRichesState, player: int) -> str:
    """Seat ``player``'s view: turn, Open Sewer (cost and effect), piles, and per rat its
    cash, income, cheese, Flush cards and cards in front of it.

    Raises:
        ValueError: ``player`` is not a seat.
    """
    obs = state.observation(player)
    game: RatsToRichesGame = state.get_game()
    d = game.data
    n = game.num_players()
    out = [f"Rats to Riches - round {obs['round'] + 1}, "
           + _STEPS[obs["phase"]].format(a=obs["active"])
           + f"; you are rat {obs['player']}"]
    out.append("Open Sewer:")
    for i, key in enumerate(obs["open_sewer"]):
        line = "(empty)" if key is None else f"{key} - {_card_text(game, key)}"
        out.append(f"  [{i}] " + textwrap.shorten(line, WIDTH - 6, placeholder="..."))
    pack = " on top of ".join(
        f"{sum(seg['counts'].values())} "
        + ("reshuffled Cesspit" if seg["deck"] == "Cesspit" else seg["deck"]) + " cards"
        for seg in obs["rat_pack"]) or "empty"
    pit = obs["cesspit"]
    flush_pit = f" ({pit['Flush']} Flush)" if pit.get("Flush") else ""
    out.extend(textwrap.wrap(
        f"Rat Pack: {pack}. Cesspit: {sum(pit.values())} card(s){flush_pit}. Flush cards "
        f"out of the game: {obs['flush_in_box']}.", WIDTH, subsequent_indent="  "))
    out.append(f"  {'rat':<16}{'cash':>5}{'income':>7}  {'cheese g/b/r':<13}cards in front")
    indent = " " * 45
    for p in range(n):
        tab = obs["tableau"][p]
        income = d.flush_income * obs["flush"][p] + sum(
            game.incomes[game.key_id[k]] * c for k, c in tab.items())
        mark = ">" if p == obs["active"] and obs["phase"] != "over" else " "
        name = f"rat {p}" + (" (you)" if p == obs["player"] else "")
        if obs["golden_rat"] == p:
            income += d.big_cheese_income
            name += " GR"
        cheese = "/".join(str(obs["cheese"][p][c]) for c in COLOURS)
        head = f"{mark} {name:<16}{'$' + str(obs['cash'][p]):>5}{'$' + str(income):>7}  " \
               f"{cheese:<13}"
        out.extend(textwrap.wrap(_cards(tab, obs["flush"][p]), WIDTH, initial_indent=head,
                                 subsequent_indent=indent, break_on_hyphens=False))
    out.append(f"  (> to move; GR: the Golden Rat, +${d.big_cheese_income} income; first to "
               f"${d.win_cash} wins)")
    for frame in obs["pending"]:
        out.append("Now: " + _pending(frame))
    if obs["winners"]:
        out.append("Game over: " + " and ".join(f"rat {w}" for w in obs["winners"])
                   + (" win" if len(obs["winners"]) > 1 else " wins"))
    return "\n".join(out)
