"""Validation of First Rat observations for ``FirstRatGame.state_from_observation``.

An observation is the whole state (nothing is hidden, see ``rules.py``) plus the derived
``scores`` and ``greg_points``. :func:`check_observation` checks every field's type, length and
range against the game's data and the rules' invariants (materials, Moldy Cheese and Awards
conserved, items unique, score markers counted, Greg's deck complete, the phase consistent
with the turn scratch) before anything is built. ``state_from_observation`` then rebuilds the
state and checks the round trip and that a non-terminal state has legal actions.

Every error is a ``ValueError`` whose message names the field, e.g.
``observation field 'rats[0][2]': must be an int``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .data import COLOURS, LEVELS, MATERIALS, PARTS, RULEBOOK, SUPER_QUANTITIES, TRACKS, resolve

if TYPE_CHECKING:  # pragma: no cover
    from .rules import FirstRatGame

RATS = RULEBOOK["rats_per_team"]
NURSERY = -1
NEUTRAL = -1
PLAYER_PHASES = ("move", "move_b", "launch", "drink", "burrow", "nursery", "library", "super",
                 "shop", "build")
GREG_PHASES = ("greg_draw", "greg_booth", "greg_comic", "greg_best")
PHASES = ("setup", *PLAYER_PHASES, *GREG_PHASES, "over")
#: The turn cursor values each phase can be reached with (``rules.FirstRatState._run``).
PHASE_STEPS = {"setup": ("",), "move": ("move",), "move_b": ("move",), "launch": ("launch",),
               "super": ("launch", "burrow"), "drink": ("drink",), "burrow": ("burrow",),
               "nursery": ("burrow",), "library": ("burrow",), "shop": ("shop",),
               "build": ("build",), "greg_draw": ("end",), "greg_booth": ("end",),
               "greg_comic": ("end",), "greg_best": ("end",), "over": ("",)}
GREG_STEPS = {"greg_draw": "draw", "greg_booth": "booths", "greg_comic": "end",
              "greg_best": "end"}
#: Upper bound of the apple-core steps still to walk in one turn (4 rats, doubled yields).
MAX_BURROW_STEPS = 1000


def bad(field: str, what: str) -> ValueError:
    """The ValueError for observation field ``field``."""
    return ValueError(f"observation field {field!r}: {what}")


def _int(v: Any, field: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise bad(field, f"must be an int, not {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise bad(field, f"must be in {'' if lo is None else lo}..{'' if hi is None else hi}, "
                  f"not {v}")
    return v


def _opt_int(v: Any, field: str, lo: int | None = None, hi: int | None = None) -> int | None:
    return None if v is None else _int(v, field, lo, hi)


def _str(v: Any, field: str, allowed: tuple | list | set | None = None) -> str:
    if not isinstance(v, str):
        raise bad(field, f"must be a str, not {v!r}")
    if allowed is not None and v not in allowed:
        raise bad(field, f"must be one of {sorted(allowed)}, not {v!r}")
    return v


def _list(v: Any, field: str, length: int | None = None) -> list:
    if not isinstance(v, list):
        raise bad(field, f"must be a list, not {type(v).__name__}")
    if length is not None and len(v) != length:
        raise bad(field, f"must have {length} entries, not {len(v)}")
    return v


def _ints(v: Any, field: str, length: int | None, lo: int | None = None,
          hi: int | None = None) -> list[int]:
    return [_int(x, f"{field}[{i}]", lo, hi) for i, x in enumerate(_list(v, field, length))]


def _ids(v: Any, field: str, allowed: Any, *, ordered: bool = False) -> list[str]:
    """A list of distinct ids from ``allowed`` (sorted when ``ordered``)."""
    out = [_str(x, f"{field}[{i}]", allowed) for i, x in enumerate(_list(v, field))]
    if len(set(out)) != len(out):
        raise bad(field, "entries must be distinct")
    if ordered and out != sorted(out):
        raise bad(field, "must be sorted")
    return out


def _dict(v: Any, field: str, keys: Any = None) -> dict:
    if not isinstance(v, dict):
        raise bad(field, f"must be a dict, not {type(v).__name__}")
    if keys is not None and set(v) != set(keys):
        raise bad(field, f"must have the keys {sorted(keys)}")
    return v


def setup_plan(game: FirstRatGame) -> list[str]:
    """The setup draws in order (``FirstRatState.setup_todo`` before any is made; FR-14)."""
    d = game.data
    todo: list[str] = []
    if game.params["layout"] == "variable":
        for _, slots in d.tile_groups:
            todo += [f"tile:{s}" for s in slots]
        todo += [f"set:{t}" for t in d.variable_tracks]
    todo += ["backpack"] * d.backpacks_shown[game.table_n]
    todo += ["bottle_cap"] * d.bottle_caps_shown
    if not game.params["first_game"]:
        todo += ["comic"] * d.comics_shown
    return todo


def check_observation(game: FirstRatGame, obs: Mapping[str, Any],
                      fields: list[str]) -> dict[str, Any]:
    """Validate ``obs`` (an ``observation(p)`` dict) and return its state fields.

    ``fields`` are the state's field names (the observation adds ``scores`` and
    ``greg_points``, checked by the caller's round trip).

    Raises:
        ValueError: naming the first field that is missing, of the wrong type or length,
            out of range, or inconsistent with the data or the other fields.
    """
    if not isinstance(obs, Mapping):
        raise ValueError("observation must be a dict")
    for key in fields:
        if key not in obs:
            raise bad(key, "is missing")
    extra = sorted(set(obs) - set(fields) - {"greg_points", "scores"})
    if extra:
        raise ValueError(f"observation has unknown field(s) {extra}")
    o = {k: obs[k] for k in fields}
    _check_progress(game, o)
    _check_board(game, o)
    _check_seats(game, o)
    _check_items(game, o)
    _check_tracks(game, o)
    _check_greg(game, o)
    _check_turn(game, o)
    return o


def _check_progress(game: FirstRatGame, o: dict) -> None:
    """phase, step, round, seat, end_round, setup_todo."""
    phase = _str(o["phase"], "phase", PHASES)
    _str(o["step"], "step", ("", "move", "pay", "launch", "drink", "collect", "burrow",
                             "shop", "build", "end"))
    rnd = _int(o["round"], "round", 1)
    end = _opt_int(o["end_round"], "end_round", rnd, rnd + 1)
    if phase == "over" and end != rnd:
        raise bad("end_round", "the game is over only at the end of the last round")
    if phase in GREG_PHASES:
        if not game.solo:
            raise bad("phase", f"{phase!r} exists only in the solo game")
        _int(o["seat"], "seat", game.greg, game.greg)
    else:
        _int(o["seat"], "seat", 0, game.n - 1)
    if phase == "greg_best" and game.params["greg_best_tie"] != "choose":
        raise bad("phase", "'greg_best' needs greg_best_tie='choose'")
    if o["step"] not in PHASE_STEPS[phase]:
        raise bad("step", f"must be one of {list(PHASE_STEPS[phase])} in phase {phase!r}")
    plan = setup_plan(game)
    todo = [_str(x, f"setup_todo[{i}]") for i, x in enumerate(_list(o["setup_todo"],
                                                                   "setup_todo"))]
    if todo and todo != plan[len(plan) - len(todo):] or len(todo) > len(plan):
        raise bad("setup_todo", "must be the remaining setup draws in order")
    if (phase == "setup") != bool(todo):
        raise bad("setup_todo", "setup draws remain exactly in phase 'setup'")


def _check_board(game: FirstRatGame, o: dict) -> None:
    """tiles, track_values, sets_used (FR-14)."""
    d = game.data
    L = game.L
    todo = o["setup_todo"]
    tiles = _ints(o["tiles"], "tiles", L, 0, L - 1)
    if game.params["layout"] == "standard":
        if tiles != list(range(L)):
            raise bad("tiles", "the standard layout has tile k on space k")
    else:
        if tiles[0] != 0:
            raise bad("tiles", "entry 0 (Start) must be 0")
        group_of = {s: slots for _, slots in d.tile_groups for s in slots}
        for slot in range(1, L):
            t = tiles[slot]
            if (t == 0) != (f"tile:{slot}" in todo):
                raise bad(f"tiles[{slot}]", "0 exactly while its tile is still to be drawn")
            if t and t not in group_of[slot]:
                raise bad(f"tiles[{slot}]", f"tile {t} is not of this space's group")
        placed = [t for t in tiles if t]
        if len(placed) != len(set(placed)):
            raise bad("tiles", "a tile is placed twice")
    values = _dict(o["track_values"], "track_values", TRACKS)
    for t in TRACKS:
        _ints(values[t], f"track_values.{t}", RULEBOOK["track_spaces"], 0)
    used = _ints(o["sets_used"], "sets_used", None, 0, len(d.variable_value_sets) - 1)
    if len(set(used)) != len(used):
        raise bad("sets_used", "entries must be distinct")
    variable = game.params["layout"] == "variable"
    assigned = [t for t in d.variable_tracks if variable and f"set:{t}" not in todo]
    if len(used) != len(assigned):
        raise bad("sets_used", f"must name the value sets of {assigned}")
    for t in TRACKS:
        want = (list(d.variable_value_sets[used[assigned.index(t)]]) if t in assigned
                else list(d.track_values[t]))
        if values[t] != want:
            raise bad(f"track_values.{t}", f"must be {want}")


def _check_seats(game: FirstRatGame, o: dict) -> None:
    """Per-seat fields, the supply and the conservation laws (FR-13)."""
    d = game.data
    n = game.n
    L = game.L
    rats = _list(o["rats"], "rats", n)
    for p in range(n):
        _ints(rats[p], f"rats[{p}]", RATS, NURSERY, L)
    cheese = _ints(o["cheese"], "cheese", n, 0)
    if _int(o["cheese_issued"], "cheese_issued") != sum(cheese):
        raise bad("cheese_issued", "must be the cheese the seats hold")
    supply = _dict(o["supply"], "supply", d.supply)
    for k, full in d.supply.items():
        _int(supply[k], f"supply.{k}", 0, full)
    moldy = _ints(o["moldy"], "moldy", n, 0)
    if sum(moldy) + supply["moldy_cheese"] != d.supply["moldy_cheese"]:
        raise bad("moldy", "Moldy Cheese taken and in the supply must add up")
    awards = _ints(o["awards"], "awards", n, 0)
    if sum(awards) + supply["awards"] != d.supply["awards"]:
        raise bad("awards", "Awards taken and in the supply must add up")
    _ints(o["drinks"], "drinks", n, 0)
    light = _ints(o["light"], "light", n, 0, d.light_length)
    scored = _ints(o["lights_scored"], "lights_scored", n, 0, len(d.construction_lights))
    for p in range(n):
        if scored[p] != sum(1 for c in d.construction_lights if c <= light[p]):
            raise bad(f"lights_scored[{p}]", "must count the Construction Lights reached")
    _ints(o["raised"], "raised", n, 0, RULEBOOK["max_nursery_raises"])
    for p, node in enumerate(_list(o["burrow"], "burrow", n)):
        _str(node, f"burrow[{p}]", d.burrow_edges)
    mats = _list(o["mats"], "mats", n)
    for p in range(n):
        _dict(mats[p], f"mats[{p}]", MATERIALS)
        for m in MATERIALS:
            _int(mats[p][m], f"mats[{p}].{m}", 0)
    for m in MATERIALS:
        if supply[m] + sum(x[m] for x in mats) != d.supply[m]:
            raise bad(f"supply.{m}", "materials held and in the supply must add up (FR-13)")
    built = _list(o["built"], "built", n)
    sets = _ints(o["rocket_sets"], "rocket_sets", n, 0)
    for p in range(n):
        _dict(built[p], f"built[{p}]", PARTS)
        for part in PARTS:
            _int(built[p][part], f"built[{p}].{part}", 0)
        if sets[p] != min(built[p].values()):
            raise bad(f"rocket_sets[{p}]", "must be the complete rocket sets built (FR-10)")


def _check_items(game: FirstRatGame, o: dict) -> None:
    """Displays, items owned, comics and Super Rats (FR-8, FR-15)."""
    d = game.data
    n = game.n
    setup = o["phase"] == "setup"
    todo = o["setup_todo"]
    backpack_ids = [b[0] for b in d.backpacks]
    cap_ids = list(d.bottle_caps)
    comic_ids = [c[0] for c in d.comics]
    disp_b = _ids(o["disp_backpacks"], "disp_backpacks", backpack_ids, ordered=not setup)
    disp_c = _ids(o["disp_caps"], "disp_caps", cap_ids, ordered=not setup)
    library = _ids(o["library"], "library", comic_ids, ordered=not setup)
    if game.params["first_game"]:
        first = [c[0] for c in d.comics if not c[2]][:d.comics_shown]
        if any(c not in first for c in library):
            raise bad("library", f"the first game uses only the comics {first}")
    own_b = _list(o["backpacks"], "backpacks", n)
    own_c = _list(o["caps"], "caps", n)
    own_m = _list(o["comics"], "comics", n)
    for p in range(n):
        _ids(own_b[p], f"backpacks[{p}]", backpack_ids)
        _ids(own_c[p], f"caps[{p}]", cap_ids)
        _ids(own_m[p], f"comics[{p}]", comic_ids)
    for name, disp, owned, shown, token in (
            ("backpacks", disp_b, own_b, d.backpacks_shown[game.table_n], "backpack"),
            ("caps", disp_c, own_c, d.bottle_caps_shown, "bottle_cap"),
            ("comics", library, own_m, d.comics_shown, "comic")):
        every = disp + [x for row in owned for x in row]
        if len(every) != len(set(every)):
            raise bad(name, "an item is on display or owned twice")
        if len(every) + todo.count(token) > shown:
            raise bad(name, f"more than the {shown} shown at setup")
        if setup and len(disp) + todo.count(token) != shown:
            raise bad(name, f"setup shows {shown}")
    drinks_total = d.energy_drinks[game.table_n]
    disp_d = _int(o["disp_drinks"], "disp_drinks", 0, drinks_total)
    if disp_d + sum(o["drinks"]) > drinks_total:
        raise bad("drinks", f"more than the {drinks_total} energy drinks of this game")
    sup = _list(o["super_rats"], "super_rats", n)
    for p in range(n):
        _dict(sup[p], f"super_rats[{p}]", [c for c in own_m[p] if game.comic_super[c]])
        for c, r in sup[p].items():
            _int(r, f"super_rats[{p}].{c}", -1, RATS - 1)
        chosen = [r for r in sup[p].values() if r >= 0]
        if len(chosen) != len(set(chosen)):
            raise bad(f"super_rats[{p}]", "a rat is at most one Super Rat (FR-19)")


def _check_tracks(game: FirstRatGame, o: dict) -> None:
    """Score tracks: neutral markers, leftmost placement, marker counts (FR-11)."""
    d = game.data
    owners = game.n_owners
    slots = _dict(o["track_slots"], "track_slots", TRACKS)
    last = _dict(o["track_last"], "track_last", TRACKS)
    markers = _ints(o["markers"], "markers", owners, 0, RULEBOOK["score_markers"])
    neutral = {pos - 1 for pos in d.neutral_markers[game.table_n]}
    placed = [0] * owners
    crew = [0] * owners
    for t in TRACKS:
        row = _list(slots[t], f"track_slots.{t}", RULEBOOK["track_spaces"] - 1)
        free_seen = False
        for i, x in enumerate(row):
            field = f"track_slots.{t}[{i}]"
            if i in neutral:
                _int(x, field, NEUTRAL, NEUTRAL)  # neutral markers sit on the setup spaces
                continue
            if x is None:
                free_seen = True
                continue
            _int(x, field, 0, owners - 1)
            if free_seen:
                raise bad(field, "markers fill the leftmost free spaces first")
        tail = _ints(last[t], f"track_last.{t}", None, 0, owners - 1)
        if tail and free_seen:
            raise bad(f"track_last.{t}", "the last space fills after the single spaces")
        for x in [*row, *tail]:
            if x is not None and x >= 0:
                if t == "rattronaut":
                    crew[x] += 1
                else:
                    placed[x] += 1
    for q in range(owners):
        if placed[q] != markers[q]:
            raise bad(f"markers[{q}]", "must count the score markers on the tracks")
    L = game.L
    for p in range(game.n):
        if crew[p] != o["rats"][p].count(L):
            raise bad("track_last.rattronaut", f"seat {p}'s Rattronauts must be on the track")
    if game.solo:
        greg = _ints(o["greg_rats"], "greg_rats", RATS, 0, L)
        if crew[game.greg] != greg.count(L):
            raise bad("track_last.rattronaut", "Greg's Rattronauts must be on the track")


def _check_greg(game: FirstRatGame, o: dict) -> None:
    """Greg's rats, deck and prepared tracks (rulebook "Solo Play", FR-16)."""
    d = game.data
    phase = o["phase"]
    if not game.solo:
        for key, empty in (("greg_rats", []), ("greg_unknown", {}), ("greg_known", []),
                           ("greg_seen", []), ("greg_discard", []), ("greg_prepared", []),
                           ("greg_card", None), ("greg_booths", []), ("greg_step", "")):
            if o[key] != empty or type(o[key]) is not type(empty):
                raise bad(key, f"must be {empty!r} without Greg (solo only)")
        return
    ncards = len(d.cards)
    _ints(o["greg_rats"], "greg_rats", RATS, 0, game.L)
    unknown = _dict(o["greg_unknown"], "greg_unknown", ("A", "B"))
    level = _str(game.params["difficulty"], "difficulty", LEVELS)
    deal = d.solo_deck[level]
    known = _ints(o["greg_known"], "greg_known", None, 0, ncards - 1)
    if known != sorted(set(known)):
        raise bad("greg_known", "must be sorted and distinct")
    discard = _ints(o["greg_discard"], "greg_discard", None, 0, ncards - 1)
    seen = _ints(o["greg_seen"], "greg_seen", None, 0, ncards - 1)
    card = _opt_int(o["greg_card"], "greg_card", 0, ncards - 1)
    cycle = known + discard + ([] if card is None else [card])
    if len(set(cycle)) != len(cycle):
        raise bad("greg_discard", "a card is in two places")
    if seen != sorted(set(cycle)):
        raise bad("greg_seen", "must be the revealed cards of Greg's deck, sorted")
    for g in ("A", "B", "C"):
        have = sum(1 for c in cycle if d.cards[c].group == g)
        want = deal.get(g, 0) if g != "C" else sum(1 for c in d.cards if c.group == "C")
        if g == "C":
            if have != want:
                raise bad("greg_known", "Greg's deck holds every C card")
            continue
        hidden = _int(unknown[g], f"greg_unknown.{g}", 0)
        pool = sum(1 for c in d.cards if c.group == g) - have
        if have + hidden != want or hidden > pool:
            raise bad(f"greg_unknown.{g}", f"Greg's deck holds {want} {g} cards")
    _ids(o["greg_prepared"], "greg_prepared", d.greg_tracks, ordered=True)
    booths = _ints(o["greg_booths"], "greg_booths", None, 1, game.L - 1)
    if any(b not in d.booths for b in booths):
        raise bad("greg_booths", "must be booth spaces")
    step = _str(o["greg_step"], "greg_step", ("", "draw", "booths", "icon", "end"))
    if step != GREG_STEPS.get(phase, ""):
        raise bad("greg_step", f"must be {GREG_STEPS.get(phase, '')!r} in phase {phase!r}")
    if (card is not None) != (phase in ("greg_booth", "greg_comic", "greg_best")):
        raise bad("greg_card", "Greg's revealed card is set only during his turn")
    if bool(booths) != (phase == "greg_booth"):
        raise bad("greg_booths", "booth discards wait only in phase 'greg_booth'")
    if phase == "greg_comic" and len(o["library"]) < 2:
        raise bad("library", "Greg removes a comic at random from at least 2")


def _check_turn(game: FirstRatGame, o: dict) -> None:
    """The turn scratch against the phase (``rules.FirstRatState._run``)."""
    d = game.data
    L = game.L
    phase = o["phase"]
    seat = o["seat"]
    moved = _ints(o["moved"], "moved", None, 0, RATS - 1)
    if len(set(moved)) != len(moved):
        raise bad("moved", "entries must be distinct")
    option = o["option"]
    if option is not None:
        _str(option, "option", ("A", "B"))
    if o["b_colour"] is not None:
        _str(o["b_colour"], "b_colour", COLOURS)
    pending = _int(o["launch_pending"], "launch_pending", 0, RATS)
    if not isinstance(o["drink_used"], bool):
        raise bad("drink_used", "must be a bool")
    steps = _int(o["burrow_steps"], "burrow_steps", 0, MAX_BURROW_STEPS)
    comics = o["comics"][seat] if seat < game.n else []
    waiting = _ids(o["pending_super"], "pending_super", comics)
    shops = _ints(o["shops"], "shops", None, 0, RATS - 1)
    for p in range(game.n):
        sharers = {r for c, r in o["super_rats"][p].items()  # e.g. the Ghost
                   if r >= 0 and resolve(SUPER_QUANTITIES["super_rat_blocks"],
                                         game.item_mods[c].get("super_rat_blocks",
                                                               (0, None, None))) <= 0}
        on_path = [x for r, x in enumerate(o["rats"][p]) if 0 < x < L and r not in sharers]
        if len(on_path) != len(set(on_path)):
            raise bad(f"rats[{p}]", "two rats of a seat share a path space")
    if moved and option is None:
        raise bad("option", "moved rats need the option they moved by")
    if phase not in PLAYER_PHASES:
        if waiting or shops:
            raise bad("phase", "Super Rat choices and shopping happen in a seat's turn")
        return
    rats = o["rats"][seat]
    for c in waiting:
        if o["super_rats"][seat].get(c) != -1:
            raise bad("pending_super", f"comic {c} must still wait for its rat")
    if (phase == "super") != bool(waiting):
        raise bad("pending_super", "Super Rat choices wait exactly in phase 'super'")
    if (phase == "shop") != bool(shops):
        raise bad("shops", "shopping rats wait exactly in phase 'shop'")
    if len(set(shops)) != len(shops) or any(r not in moved or rats[r] not in d.booths
                                            for r in shops):
        raise bad("shops", "must be distinct moved rats on booth spaces")
    if phase == "move" and (moved or option is not None):
        raise bad("moved", "no rat has moved before the movement")
    if phase == "move_b" and (option != "B" or not moved
                              or len(moved) >= RULEBOOK["option_b_max_rats"]):
        raise bad("moved", "option B continues after 1-3 moved rats")
    if phase != "move" and not moved and option is not None:
        raise bad("option", "an option is chosen by moving a rat")
    if phase == "launch" and not pending:
        raise bad("launch_pending", "a Launchpad reward must be pending")
    if phase == "drink" and not o["drinks"][seat]:
        raise bad("drinks", "the seat has no energy drink")
    if phase == "burrow" and (not steps or o["burrow"][seat] not in d.burrow_choices):
        raise bad("burrow", "phase 'burrow' is a choice at an intersection with steps left")
    node = o["burrow"][seat]
    if phase in ("nursery", "library") and d.burrow_choice.get(node) != phase:
        raise bad("burrow", f"phase {phase!r} needs the burrow marker on its space")
    if phase == "nursery" and (NURSERY not in rats
                               or o["raised"][seat] >= RULEBOOK["max_nursery_raises"]):
        raise bad("rats", "the Nursery reward needs a rat left to raise")
    if phase == "library" and not o["library"]:
        raise bad("library", "the Library reward needs a comic")
