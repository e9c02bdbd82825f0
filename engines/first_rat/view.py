"""Human-readable text of a First Rat position (``FirstRatState.render``).

Reads only ``state.observation(player)`` and the component data. The text names everything by
the rulebook's words: seats are "Player 0".."Player 4" (the viewer is marked "you"), a rat is
"P1 rat 2" (Player 1's rat 2; Greg's rats are "Greg rat 0"), booths by their keeper, Rat
Burrow spaces by their reward, and the header says what is being decided now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..api import check_player
from .data import BOOTH_NAMES, MATERIALS, PARTS, RULEBOOK, TRACK_NAMES, TRACKS, YIELD_NAMES

if TYPE_CHECKING:  # pragma: no cover
    from .rules import FirstRatState

NURSERY = -1
NEUTRAL = -1


def render(state: FirstRatState, player: int) -> str:
    """Readable text of the board as seat ``player`` sees it.

    Raises:
        ValueError: ``player`` is not a seat (ints and numpy ints ``0..n-1``).
    """
    g = state.get_game()
    player = check_player(player, g.n)
    obs = state.observation(player)
    lines = [_header(state, obs, player), *_turn(state, obs), ""]
    lines += _board(state, obs)
    lines.append("")
    lines += _players(state, obs, player)
    lines.append(_shops(state, obs))
    lines.append("")
    lines += _tracks(state, obs)
    if g.solo:
        lines.append("")
        lines += _greg(state, obs)
    return "\n".join(lines)


def _who(state: FirstRatState, seat: int, viewer: int) -> str:
    return f"Player {seat}" + (" (you)" if seat == viewer else "")


def _where(state: FirstRatState, pos: int) -> str:
    L = state.get_game().L
    return ("the Nursery" if pos == NURSERY else "Start" if pos == 0
            else "the rocket" if pos >= L else f"space {pos}")


def _burrow(state: FirstRatState, node: str) -> str:
    """A Rat Burrow space with its meaning, e.g. ``R7 (Nursery)``."""
    d = state.get_game().data
    if node in d.burrow_names:
        return f"{node} ({d.burrow_names[node]})"
    if node in d.burrow_choices:
        return f"{node} (crossroads: {' or '.join(sorted(d.burrow_choices[node]))})"
    if node == d.burrow_start:
        return f"{node} (entrance)"
    return f"{node} (next {', '.join(d.burrow_edges[node])})"


def _header(state: FirstRatState, obs: dict, viewer: int) -> str:
    g = state.get_game()
    phase = obs["phase"]
    end = (f"; the game ends after round {obs['end_round']}"
           if obs["end_round"] is not None and phase != "over" else "")
    if phase == "setup":
        return f"First Rat: setting up the board ({len(obs['setup_todo'])} random draws left)"
    if phase == "over":
        sc = obs["scores"]
        if g.solo:
            verdict = "you beat Greg" if sc[0] > obs["greg_points"] else "Greg wins"
            return (f"Game over after round {obs['round']}: you {sc[0]:.0f} points, Greg "
                    f"{obs['greg_points']} points: {verdict}")
        ret = state.returns()
        winners = [f"Player {p}" for p in range(g.n) if ret[p] > 0]
        return f"Game over after round {obs['round']}: won by {', '.join(winners)}"
    if phase.startswith("greg"):
        return f"Round {obs['round']}: Greg the Robo-Rat's turn{end}"
    return f"Round {obs['round']}: {_who(state, obs['seat'], viewer)} to play{end}"


def _turn(state: FirstRatState, obs: dict) -> list[str]:
    """What is being decided now, and this turn so far."""
    g = state.get_game()
    d = g.data
    phase = obs["phase"]
    seat = obs["seat"]
    if phase in ("setup", "over"):
        return []
    if phase.startswith("greg"):
        card = obs["greg_card"]
        shown = f"Greg revealed card {d.cards[card].id} {list(d.cards[card].moves)}; " \
            if card is not None else ""
        if phase == "greg_draw":
            text = "Greg reveals the top card of his deck (chance)."
        elif phase == "greg_booth":
            slot = obs["greg_booths"][0]
            text = (f"{shown}his rat on space {slot} ({BOOTH_NAMES[d.booths[slot]]}) returns "
                    "one tile of that booth to the box at random (chance).")
        elif phase == "greg_comic":
            text = f"{shown}Greg removes one Comic from the Library at random (chance)."
        else:
            text = (f"{shown}Greg prepares his best Score track: Player 0 chooses among the "
                    "tied tracks.")
        return ["Now: " + text]
    rats = obs["rats"][seat]
    out = []
    moved = [f"rat {r} (now on {_where(state, rats[r])})" for r in obs["moved"]]
    if obs["option"] is not None:
        colour = (f", colour {obs['b_colour']}"
                  if obs["option"] == "B" and obs["b_colour"] else "")
        out.append(f"This turn: option {obs['option']}{colour}; moved "
                   f"{', '.join(moved) if moved else 'nothing'}"
                   + ("; energy drink used" if obs["drink_used"] else ""))
    a_max = RULEBOOK["option_a_max"]
    b_max = RULEBOOK["option_b_max"]
    now = {
        "move": (f"Move: option A (1 rat 1-{a_max} spaces) or option B (2-4 rats 1-{b_max} "
                 "spaces each, all ending on one colour)."),
        "move_b": (f"Option B: move another rat 1-{b_max} spaces onto "
                   f"{obs['b_colour'] or 'the chosen colour'}, or end option B."),
        "launch": "A rat reached the Launchpad: take an Award or raise a rat from the Nursery.",
        "drink": "Drink an Energy Drink to double this turn's yield, or not.",
        "burrow": (f"Rat Burrow: the marker is on {_burrow(state, obs['burrow'][seat])}; "
                   f"choose the way ({obs['burrow_steps']} apple-core steps left)."),
        "nursery": "Rat Burrow reached the Nursery: raise a rat to Start, or not.",
        "library": "Rat Burrow reached the Library: take a Comic, or not.",
        "super": ("Choose the rat (on the path or Start) that becomes the Super Rat of "
                  + (state._item_text(obs["pending_super"][0]) if obs["pending_super"]
                     else "the new comic") + "."),
        "shop": _shop_now(state, obs),
        "build": "Build rocket parts or donate Cheese (Provisions), then end the turn.",
    }[phase]
    out.append("Now: " + now)
    return out


def _shop_now(state: FirstRatState, obs: dict) -> str:
    d = state.get_game().data
    if not obs["shops"]:
        return "Go Shopping."
    r = obs["shops"][0]
    pos = obs["rats"][obs["seat"]][r]
    booth = BOOTH_NAMES.get(d.booths.get(pos, ""), "a booth")
    rest = len(obs["shops"]) - 1
    more = f" ({rest} more rat{'s' if rest > 1 else ''} to shop after)" if rest else ""
    return (f"Go Shopping with rat {r} on space {pos} ({booth}): buy (rat stays) or steal "
            f"(rat back to Start) 1 item, or do not shop{more}.")


def _board(state: FirstRatState, obs: dict) -> list[str]:
    g = state.get_game()
    d = g.data
    L = g.L
    lit = [d.lit_spaces(obs["light"][p]) for p in range(g.n)]
    occupants: dict[int, list[str]] = {}
    for p, rats in enumerate(obs["rats"]):
        for r, pos in enumerate(rats):
            occupants.setdefault(pos, []).append(f"P{p} rat {r}")
    for r, pos in enumerate(obs["greg_rats"]):
        occupants.setdefault(pos, []).append(f"Greg rat {r}")
    out = ["Junkyard path (space: colour, yield [booth] [shortcut]: rats; "
           "P1 rat 2 = Player 1's rat 2):",
           f" Start: {', '.join(occupants.get(0, [])) or '-'}"]
    for slot in range(1, L):
        t = d.tiles[obs["tiles"][slot]] if obs["tiles"][slot] else None
        desc = f"{t.colour}, {t.amount} {_kind(t.kind, t.amount)}" if t else "(tile not placed)"
        booth = f" [{BOOTH_NAMES[d.booths[slot]]}]" if slot in d.booths else ""
        sc = "".join(f" [shortcut {c.id} to space {c.end}, pays 1 {_material(c.cost)}]"
                     for c in d.shortcuts if c.start == slot)
        lit_by = [f"P{p}" for p in range(g.n) if slot in lit[p]]
        lit_s = f" (lit +{d.lit_bonus} for {', '.join(lit_by)})" if lit_by else ""
        rats = ", ".join(occupants.get(slot, [])) or "-"
        out.append(f"{slot:3d}: {desc}{booth}{sc}{lit_s}: {rats}")
    out.append(f" Launchpad and rocket: {', '.join(occupants.get(L, [])) or '-'}")
    return out


def _kind(kind: str, amount: int) -> str:
    return YIELD_NAMES[kind][0 if amount == 1 else 1]


def _material(m: str) -> str:
    return YIELD_NAMES[m][0]


def _players(state: FirstRatState, obs: dict, viewer: int) -> list[str]:
    g = state.get_game()
    d = g.data
    out = []
    for p in range(g.n):
        mats = ", ".join(f"{obs['mats'][p][m]} {_kind(m, 2)}" for m in MATERIALS)
        built = ", ".join(f"{obs['built'][p][x]} {TRACK_NAMES[x]}" for x in PARTS)
        sup = obs["super_rats"][p]
        supers = "; Super Rats: " + ", ".join(
            f"{c} on {'the next rat raised' if r < 0 else f'rat {r}'}"
            for c, r in sorted(sup.items())) if sup else ""
        items = [state._item_text(x) for x in
                 obs["backpacks"][p] + obs["caps"][p] + obs["comics"][p]]
        drinks = obs["drinks"][p]
        if drinks:
            items.append(f"{drinks} energy drink{'s' if drinks > 1 else ''}")
        out += [
            f"{_who(state, p, viewer)}: {obs['scores'][p]:.0f} points; {obs['cheese'][p]} "
            f"Cheese, {mats}",
            f"   light string {obs['light'][p]}/{d.light_length}, Rat Burrow "
            f"{_burrow(state, obs['burrow'][p])}, {obs['rats'][p].count(NURSERY)} rat(s) in "
            f"the Nursery, {obs['moldy'][p]} Moldy Cheese, {obs['awards'][p]} Awards, "
            f"{obs['markers'][p]}/{RULEBOOK['score_markers']} score markers used",
            f"   built {built}; items: {'; '.join(items) or 'none'}{supers}",
        ]
    return out


def _shops(state: FirstRatState, obs: dict) -> str:
    d = state.get_game().data
    b = "; ".join(state._item_text(x)[9:] for x in obs["disp_backpacks"]) or "empty"
    c = "; ".join(state._item_text(x)[11:] for x in obs["disp_caps"]) or "empty"
    lib = "; ".join(state._item_text(x)[6:] for x in obs["library"]) or "empty"
    return (f"Booths: Harry Hamster's backpacks ({d.prices['backpack']} Cheese): {b}\n"
            f"        Zippy the Frog: {obs['disp_drinks']} energy drinks "
            f"({d.prices['energy_drink']} Cheese)\n"
            f"        the Madcap Crow's bottle caps ({d.prices['bottle_cap']} Cheese): {c}\n"
            f"Library comics: {lib}")


def _tracks(state: FirstRatState, obs: dict) -> list[str]:
    g = state.get_game()
    names = {NEUTRAL: "neutral", **{p: f"P{p}" for p in range(g.n)}}
    if g.solo:
        names[g.greg] = "Greg"
    out = ["Score tracks (points: marker; the last space takes any number):"]
    for t in TRACKS:
        vals = obs["track_values"][t]
        cells = [f"{v}: {names[o] if o is not None else '-'}"
                 for v, o in zip(vals, obs["track_slots"][t], strict=False)]
        last = ", ".join(names[o] for o in obs["track_last"][t]) or "-"
        cells.append(f"{vals[-1]}: {last}")
        out.append(f"  {TRACK_NAMES[t]:<19} " + " | ".join(cells))
    return out


def _greg(state: FirstRatState, obs: dict) -> list[str]:
    d = state.get_game().data
    unknown = obs["greg_unknown"]
    known = [d.cards[c].id for c in obs["greg_known"]]
    faceup = [d.cards[c].id for c in obs["greg_discard"]]
    prepared = ", ".join(TRACK_NAMES[t] for t in obs["greg_prepared"]) or "none"
    return [f"Greg the Robo-Rat: {obs['greg_points']} points; prepared tracks: {prepared}",
            f"   deck: {unknown.get('A', 0)} unseen A cards, {unknown.get('B', 0)} unseen B "
            f"cards, and {', '.join(known) or 'no'} known cards; faceup: "
            f"{', '.join(faceup) or 'none'}"]
