"""First Rat: the reference rule engine (standard and variable layout, all items, solo Greg).

Rulebook: ``../shared/seeds/first_rat_rulebook.txt``; component stand-ins and rulings FR-1..FR-19:
``../shared/RULES_GAPS.md``. Board numbers come from :mod:`.data`; rules never hard-code them.
Comics, bottle caps, burrow rewards and the light string act through their data ``effects``
(:meth:`FirstRatState._q` / ``_sq`` read the quantities they modify, ``_item_points`` their
end-of-game scores, ``_reward`` the rewards).

Seats and rounds
----------------
Seats ``0..n-1`` play in order; seat 0 is the start player (1 Cheese, then 2, 2, 3, 3 by seat).
With ``num_players=1`` seat 0 plays solo against Greg the Robo-Rat, whose turns are chance nodes
(his card draws) after seat 0's turn in every round. Greg is not a seat: ``scores()`` and
``returns()`` have one entry; Greg's points are in the observation (``greg_points``).

Action encoding (one id space; a turn is a sequence of small decisions by the same seat)
----------------------------------------------------------------------------------------
``MOVE`` ids ``[0, 2*4*2^S*D)`` (``S`` shortcuts, ``D = launchpad-1 + 5``)::

    id = ((option * 4 + rat) * 2^S + shortcut_mask) * D + dest_code

``option`` 0 = A (this one rat is the whole movement), 1 = B (one rat of an option-B move;
the seat then moves the next rat or stops). ``dest_code`` is ``space-1`` for path spaces
``1..launchpad-1`` and ``launchpad-1+c`` for the Launchpad in colour ``c`` (only option B
by a normal rat picks a colour; otherwise ``c = 0``). The mask names the shortcuts used
(FR-1), so a route is exact. Only routes that can be completed are offered: a first option-B
rat is legal only if a second rat can follow (FR-3). Rats with identical position and role
(two plain rats on Start) are offered once, by the lowest index.

After ``MOVE`` come single ids, in this order: ``STOP_B`` (end option B, with >= 2 rats
moved), ``AWARD`` / ``RAISE`` (Launchpad reward, FR-9), ``DRINK_USE`` / ``DRINK_SKIP``
(energy drink before Collect, FR-6), ``NURSERY_RAISE`` / ``NURSERY_DECLINE``,
``LIBRARY_DECLINE``, ``SHOP_PASS``, ``DONATE``, ``END_TURN``; then ranges ``BURROW + d``
(intersection direction ``d``, FR-7), ``LIBRARY + comic``, ``SUPER + rat`` (FR-15),
``BUY + item`` and ``STEAL + item`` (FR-8), ``BUILD + part`` and ``GREG_BEST + track``
(solo, ``greg_best_tie="choose"``). Chance outcomes: ``CH_TILE + tile-1`` and
``CH_SET + value set`` (variable setup, FR-14), ``CH_ITEM + item`` (items and comics shown
at setup; Greg's booth discards and Library removal), ``CH_CARD + card`` (Greg's draws).
Item ids: backpacks, then the energy drink, then bottle caps, then comics (data order).

Steps with a single possibility are applied automatically (e.g. the build step is skipped
when nothing can be built or donated, a forced Launchpad reward is taken). The turn cursor
``step`` walks: move -> pay -> launch -> drink -> collect -> burrow -> shop -> build -> end.

Information
-----------
Every draw is lazy (draw-on-reveal): the undrawn items and Greg's undealt cards are not in the
state until revealed (Greg's deck is "k unknown A cards, m unknown B cards, these known cards",
the FR-16 reshuffles make revealed cards known). So the state holds no hidden facts and
``observation(p)`` is the whole state; ``state_from_observation`` rebuilds it exactly, after
validating every field against the data and the rules' invariants (:mod:`.validate`).
Seats (``observation``, ``render``, ``heuristic_value``, ``state_from_observation``,
``action_to_string``) go through ``api.check_player``: ints and numpy ints ``0..n-1``.
``render`` (:mod:`.view`) is plain text in the rulebook's words.

Judgement calls not covered by a ruling (also marked ``JUDGEMENT`` in comments)
------------------------------------------------------------------------------
* The Launchpad reward is taken after the whole movement step (after paying for landing), so a
  rat raised by it cannot join this turn's option B.
* The Launchpad yields nothing (no Collect, no backpack bonus); its rat leaves the path (FR-4).
* Shopping rats are served in path order; the Nursery reward is a decision (raise or not).
* FR-19: each Super Rat comic has its own rat, and a rat is at most one Super Rat.
* With the 12 Moldy Cheese all taken, a debt that cannot be covered is not paid.
* Bright Spark (CM6) adds its extra step per blue space collected (not once per turn).
* Greg: his rats' positions rank furthest first (ties by rat index) at the start of his turn;
  only rats that moved pay you cheese ("If Greg's Rats end their move in spaces with your
  Rats"); he takes no Launchpad reward; "prepare the best track" reshuffles the faceup cards
  including the card just revealed.

Rulings applied where the code could be read otherwise
------------------------------------------------------
* FR-6: the energy drink doubles "the whole turn's yield after other bonuses", so Bright
  Spark's extra step (a bonus, like Strongpaws' +1) is doubled too: (1 + 1) * 2.

Rulebook wording followed literally
-----------------------------------
* FR-18, Greg's booth discards (Solo Play): "If one of Greg's Rats ends its turn in a booth space
  ... mix the tiles facedown and return 1 at random to the box." The text says "ends its
  turn" (the cheese sentence just above says "end their move"), so every Greg rat standing on
  a booth space at the end of his turn triggers a discard, whether or not it moved (a 0 on
  his card); two of his rats on one booth discard twice (JUDGEMENT: once per rat).
* ``difficulty`` and ``greg_best_tie`` exist only in the solo game: with 2-5 players a
  non-default value is rejected (``FirstRatGame._check_params``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from ..api import CHANCE, TERMINAL, Game, Param, State, check_player, copy_fields, short_repr
from .data import (
    BOOTH_ITEMS,
    LEVELS,
    MATERIALS,
    PARTS,
    QUANTITIES,
    RULEBOOK,
    SUPER_QUANTITIES,
    TRACK_NAMES,
    TRACKS,
    YIELD_NAMES,
    combine,
    describe,
    load,
    modifiers,
    resolve,
)
from .validate import check_observation
from .view import render

#: Parameters of the solo game only (see ``FirstRatGame._check_params``).
_SOLO_ONLY = ("difficulty", "greg_best_tie")
#: The single actions after the moves, in id order, with their labels.
_SINGLES = {"STOP_B": "end option B", "AWARD": "Launchpad: take an Award",
            "RAISE": "Launchpad: raise a rat", "DRINK_USE": "drink an Energy Drink",
            "DRINK_SKIP": "no Energy Drink", "NURSERY_RAISE": "Nursery: raise a rat",
            "NURSERY_DECLINE": "Nursery: do not raise",
            "LIBRARY_DECLINE": "Library: take no Comic", "SHOP_PASS": "do not shop",
            "DONATE": "donate Cheese (Provisions)", "END_TURN": "end turn"}
_SINGLE_NAMES = tuple(_SINGLES)
NEUTRAL = -1
RATS = RULEBOOK["rats_per_team"]
NURSERY = -1  # rat position: in the Nursery; 0 = Start; launchpad = in the rocket


class FirstRatGame(Game):
    """First Rat for 1-5 players (1 = solo against Greg).

    Params: ``num_players`` 1-5; ``layout`` standard|variable; ``first_game`` (Comics without
    Super Rats); ``difficulty`` (solo deck); ``greg_best_tie`` order|choose (FR-16);
    ``data_path`` (a replacement first_rat.json).
    """

    name = "first_rat"
    title = "First Rat"
    summary = ("Race your rats along the junkyard path, collect materials, light bulbs, apple "
               "cores and cheese, shop for items, build the rocket and fly rats to the Cheese "
               "Moon. Most points wins; solo against Greg the Robo-Rat.")
    perfect_information = True
    variants = {
        "2p": {"num_players": 2},
        "3p-variable": {"num_players": 3, "layout": "variable"},
        "4p-first-game": {"num_players": 4, "first_game": True},
        "5p": {"num_players": 5},
        "solo-medium": {"num_players": 1},
        "solo-unfair-variable": {"num_players": 1, "difficulty": "unfair",
                                 "layout": "variable", "greg_best_tie": "choose"},
    }
    param_specs = (
        Param("num_players", 2, int, "seats (1 = solo against Greg)",
              check=lambda v: 1 <= v <= 5, allowed="an int from 1 to 5"),
        Param("layout", "standard", str, "gameboard side", choices=("standard", "variable")),
        Param("first_game", False, bool, "1st game: Comics without Super Rats"),
        Param("difficulty", "medium", str, "solo: Greg's deck", choices=LEVELS),
        Param("greg_best_tie", "order", str,
              "solo: ties of 'prepare the best track' by fixed order or the player's choice",
              choices=("order", "choose")),
        Param("data_path", None, str, "path of a replacement first_rat.json (None: packaged)"),
    )

    def __init__(self, **params: Any):
        super().__init__(**params)
        d = self.data = load(self.params["data_path"])
        n = self.n = self.params["num_players"]
        self.solo = n == 1
        self.greg = 1 if self.solo else None  # owner id of Greg's score markers
        self.n_owners = n + (1 if self.solo else 0)
        self.table_n = 2 if self.solo else n  # solo: set up as for 2 players
        self.L = L = d.launchpad
        self.n_colours = len(d.launchpad_colours)
        self.n_masks = 1 << len(d.shortcuts)
        self.n_dest = L - 1 + self.n_colours
        self.move_size = 2 * RATS * self.n_masks * self.n_dest
        a = self.move_size
        for name in _SINGLES:
            setattr(self, name, a)
            a += 1
        self.directions = tuple(sorted({k for ch in d.burrow_choices.values() for k in ch}))
        self.items = ([b[0] for b in d.backpacks] + ["energy_drink"]
                      + list(d.bottle_caps) + [c[0] for c in d.comics])
        self.item_index = {it: i for i, it in enumerate(self.items)}
        self.n_shop_items = len(d.backpacks) + 1 + len(d.bottle_caps)
        self.BURROW = a
        a += len(self.directions)
        self.LIBRARY = a
        a += len(d.comics)
        self.SUPER = a
        a += RATS
        self.BUY = a
        a += self.n_shop_items
        self.STEAL = a
        a += self.n_shop_items
        self.BUILD = a
        a += len(PARTS)
        self.GREG_BEST = a
        a += len(d.greg_tracks)
        self.CH_TILE = a
        a += L - 1
        self.CH_SET = a
        a += len(d.variable_value_sets)
        self.CH_ITEM = a
        a += len(self.items)
        self.CH_CARD = a
        a += len(d.cards)
        self._num_actions = a
        # Tables built once.
        self.mask_cost = []
        for mask in range(self.n_masks):
            cost: dict[str, int] = {}
            for i, sc in enumerate(d.shortcuts):
                if mask >> i & 1:
                    cost[sc.cost] = cost.get(sc.cost, 0) + 1
            self.mask_cost.append(cost)
        # Modifier summaries of every comic and bottle cap (data "effects", op "modify").
        self.item_mods = {it: modifiers(e) for it, e in d.item_effects.items()}
        self.max_steps = max_steps(d, self.item_mods)
        self.route_table = d.route_table(self.max_steps)
        self.comic_super = {c[0]: c[2] for c in d.comics}
        self.backpack_info = {b[0]: (b[1], b[2]) for b in d.backpacks}
        self.card_index = {c.id: i for i, c in enumerate(d.cards)}

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Solo-only parameters (rulebook "Solo Play") keep their defaults with 2-5 players.

        ``difficulty`` and ``greg_best_tie`` only exist in the solo game; with 2-5 players a
        value other than the default ("medium", "order") is an error (the default itself is
        accepted, so a caller passing every parameter's default still works).

        Raises:
            ValueError: naming the parameter and the allowed value.
        """
        if params["num_players"] != 1:
            for name in _SOLO_ONLY:
                default = next(p.default for p in self.param_specs if p.name == name)
                if params[name] != default:
                    raise ValueError(
                        f"bad value {short_repr(params[name])} for parameter {name!r}: it is "
                        f"for the solo game (num_players=1) only; with {params['num_players']} "
                        f"players allowed only the default {default!r}")
        return params

    # -- constants ------------------------------------------------------------------------
    def num_distinct_actions(self) -> int:
        return self._num_actions

    def max_game_length(self) -> int:
        """A proven upper bound on actions in a game.

        Each turn moves a rat at least one step forward; the sum of a seat's rat positions is
        at most ``4 * launchpad`` and only falls by stealing (at most one per shown item, each
        at most ``launchpad - 1``). So a seat has at most ``T = 4L + items*(L-1)`` turns before
        its 4th Rattronaut ends the game, i.e. at most ``T + 1`` rounds. A turn has at most
        ``4 + 1`` move decisions, ``4`` Launchpad rewards, 1 drink, one burrow decision per
        apple step plus a reward and a Super Rat choice per step, 4 shops and the builds and
        donations (bounded by materials and cheese, counted generously below).
        """
        d = self.data
        L = self.L
        items = (self.data.backpacks_shown[self.table_n] + d.energy_drinks[self.table_n]
                 + d.bottle_caps_shown)
        turns = RATS * L + items * (L - 1) + 1
        max_yield = 4 * (max(t.amount for t in d.tiles.values()) + 1 + 4 + 1) * 2
        per_turn = 20 + 3 * max_yield + 4 + sum(d.supply[m] for m in MATERIALS) + 100
        greg_turn = 10 if self.solo else 0
        setup = (L - 1) + len(TRACKS) + len(self.items)
        return setup + (turns + 1) * (self.n * per_turn + greg_turn)

    def new_initial_state(self) -> FirstRatState:
        return FirstRatState(self)

    # -- observations ---------------------------------------------------------------------
    def _state_from_observation(self, player: int, observation: Mapping[str, Any],
                                rng: Any = None) -> FirstRatState:
        """Rebuild the state from ``observation(player)``; nothing is hidden (module doc).

        Every field is validated against the data and the rules' invariants first
        (:mod:`.validate`); the rebuilt state must reproduce the observation (``scores`` and
        ``greg_points`` included) and, unless the game is over, have legal actions. ``rng``
        is unused (there is nothing to sample).

        Raises:
            ValueError: ``player`` is not a seat (ints and numpy ints ``0..n-1``), or a
                missing, malformed or impossible field, named.
        """
        player = check_player(player, self.n)
        state = FirstRatState(self)
        fields = check_observation(self, observation, list(state._fields()))
        state._set_fields(fields)
        try:
            if not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    if not outcomes or abs(sum(p for _, p in outcomes) - 1.0) > 1e-9:
                        raise ValueError("bad chance outcomes")
                elif not state.legal_actions():
                    raise ValueError("no legal action")
            again = state.observation(player)
        except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError,
                AssertionError, AttributeError) as exc:
            raise ValueError(f"observation field 'phase': {observation['phase']!r} is "
                             f"impossible in this position ({exc!r})") from None
        diff = sorted(k for k in again if k not in observation or again[k] != observation[k])
        if diff:
            raise ValueError(f"observation field {diff[0]!r}: does not match the position "
                             f"(round trip differs in {diff})")
        return state

    def heuristic_value(self, state: State, player: int) -> float:
        """Score lead plus progress (rats along the path, materials, cheese), squashed to [0,1].

        Reads only ``state.observation(player)``.

        Raises:
            ValueError: ``player`` is not a seat (ints and numpy ints ``0..n-1``).
        """
        player = check_player(player, self.n)
        obs = state.observation(player)
        L = self.L

        def progress(rats: list[int]) -> float:
            return sum(3.0 * r / L for r in rats if r > 0)

        est = []
        for p in range(self.n):
            est.append(obs["scores"][p] + progress(obs["rats"][p])
                       + sum(obs["mats"][p].values()) / 4 + obs["cheese"][p] / 6)
        if self.solo:
            others = [obs["greg_points"] + progress(obs["greg_rats"])]
        else:
            others = [e for q, e in enumerate(est) if q != player]
        return 0.5 + 0.5 * math.tanh((est[player] - max(others)) / 15.0)


def max_steps(d: Any, item_mods: dict[str, dict]) -> int:
    """An upper bound of the steps one rat may move (options A and B, Super Rats included):
    the route tables are built up to it. Every comic's and bottle cap's positive adds count
    as if all were owned by one seat."""
    def bound(name: str) -> int:
        mods = [m[name] for m in item_mods.values() if name in m]
        v = QUANTITIES[name] + sum(max(0, m[0]) for m in mods)
        return max([v] + [m[1] for m in mods if m[1] is not None])
    return max(0, max(bound("option_a_steps"), bound("option_b_steps"))) \
        + max(0, bound("super_rat_steps"))


def item_text(g: FirstRatGame, item: str) -> str:
    """An item id with what it does (labels and render; see ``FirstRatState._item_text``)."""
    if item in g.backpack_info:
        colour, bonus = g.backpack_info[item]
        return f"backpack {item}: +{bonus} on {colour} spaces"
    if item in g.data.bottle_caps:
        return f"bottle cap {item}: {describe(g.data.item_effects[item])}"
    if item in g.comic_super:
        name = next(c[1] for c in g.data.comics if c[0] == item)
        return f"comic {item} {name}"
    return "an energy drink"


class FirstRatState(State):
    """A First Rat position (all fields public; see the module docstring)."""

    def __init__(self, game: FirstRatGame):
        super().__init__(game)
        g = game
        d = g.data
        n = g.n
        L = g.L
        self.phase = "setup"
        self.step = ""
        self.round = 1
        self.seat = 0
        self.end_round = None
        variable = g.params["layout"] == "variable"
        self.tiles = [0] * L if variable else list(range(L))
        self.track_values = {t: list(d.track_values[t]) for t in TRACKS}
        self.sets_used: list[int] = []
        todo: list[str] = []
        if variable:  # FR-14
            for _, slots in d.tile_groups:
                todo += [f"tile:{s}" for s in slots]
            todo += [f"set:{t}" for t in d.variable_tracks]
        todo += ["backpack"] * d.backpacks_shown[g.table_n]
        todo += ["bottle_cap"] * d.bottle_caps_shown
        if g.params["first_game"]:
            self.library = [c[0] for c in d.comics if not c[2]][:d.comics_shown]
        else:
            self.library = []
            todo += ["comic"] * d.comics_shown
        self.setup_todo = todo
        self.disp_backpacks: list[str] = []
        self.disp_caps: list[str] = []
        self.disp_drinks = d.energy_drinks[g.table_n]
        # Score tracks: 4 single spaces and the unlimited 5th (rulebook "Score Tracks").
        self.track_slots = {t: [None] * (RULEBOOK["track_spaces"] - 1) for t in TRACKS}
        self.track_last: dict[str, list[int]] = {t: [] for t in TRACKS}
        for t in TRACKS:
            for pos in d.neutral_markers[g.table_n]:
                self.track_slots[t][pos - 1] = NEUTRAL
        start = [0] * RULEBOOK["rats_on_start"] + [NURSERY] * RULEBOOK["rats_in_nursery"]
        self.rats = [list(start) for _ in range(n)]
        self.cheese = [d.start_cheese[p] for p in range(n)]
        self.cheese_issued = sum(self.cheese)
        self.moldy = [0] * n
        self.awards = [0] * n
        self.drinks = [0] * n
        self.light = [0] * n
        self.lights_scored = [0] * n
        self.markers = [0] * g.n_owners
        self.raised = [0] * n
        self.burrow = [d.burrow_start] * n
        self.mats = [{m: 0 for m in MATERIALS} for _ in range(n)]
        self.built = [{p: 0 for p in PARTS} for _ in range(n)]
        self.rocket_sets = [0] * n
        self.backpacks: list[list[str]] = [[] for _ in range(n)]
        self.caps: list[list[str]] = [[] for _ in range(n)]
        self.comics: list[list[str]] = [[] for _ in range(n)]
        self.super_rats: list[dict[str, int]] = [{} for _ in range(n)]
        self.supply = dict(d.supply)
        # Turn scratch.
        self.moved: list[int] = []
        self.option = None
        self.b_colour = None
        self.launch_pending = 0
        self.drink_used = False
        self.burrow_steps = 0
        self.pending_super: list[str] = []
        self.shops: list[int] = []
        # Solo (Greg).
        if g.solo:
            self.greg_rats = list(d.greg_start)
            deal = d.solo_deck[g.params["difficulty"]]
            self.greg_unknown = {"A": deal.get("A", 0), "B": deal.get("B", 0)}
            self.greg_known = [i for i, c in enumerate(d.cards) if c.group == "C"]
            self.greg_seen = list(self.greg_known)
            self.greg_discard: list[int] = []
            self.greg_prepared: list[str] = []
            self.greg_card = None
            self.greg_booths: list[int] = []
            self.greg_step = ""
        else:
            self.greg_rats = []
            self.greg_unknown = {}
            self.greg_known = []
            self.greg_seen = []
            self.greg_discard = []
            self.greg_prepared = []
            self.greg_card = None
            self.greg_booths = []
            self.greg_step = ""
        self._advance_setup()

    # ==================================================================================
    # contract primitives
    # ==================================================================================
    def current_player(self) -> int:
        ph = self.phase
        if ph == "over":
            return TERMINAL
        if ph in ("setup", "greg_draw", "greg_booth", "greg_comic"):
            return CHANCE
        if ph == "greg_best":
            return 0
        return self.seat

    def _legal_actions(self) -> list[int]:
        g: FirstRatGame = self._game
        ph = self.phase
        p = self.seat
        if ph == "move":
            acts = self._move_actions(0) + self._move_actions(1)
            return sorted(acts)
        if ph == "move_b":
            acts = self._move_actions(1)
            if len(self.moved) >= RULEBOOK["option_b_min_rats"]:
                acts.append(g.STOP_B)
            return sorted(acts)
        if ph == "launch":
            return [a for a, ok in ((g.AWARD, self._can_award()), (g.RAISE, self._can_raise()))
                    if ok]
        if ph == "drink":
            return [g.DRINK_USE, g.DRINK_SKIP]
        if ph == "burrow":
            ch = g.data.burrow_choices[self.burrow[p]]
            return sorted(g.BURROW + g.directions.index(k) for k in ch)
        if ph == "nursery":
            return [g.NURSERY_RAISE, g.NURSERY_DECLINE]
        if ph == "library":
            return sorted([g.LIBRARY + g.item_index[c] - g.n_shop_items for c in self.library]
                          + [g.LIBRARY_DECLINE])
        if ph == "super":
            return [g.SUPER + r for r in self._super_candidates()]
        if ph == "shop":
            return self._shop_actions()
        if ph == "build":
            return self._build_actions()
        if ph == "greg_best":
            return [g.GREG_BEST + g.data.greg_tracks.index(t) for t in self._greg_best_ties()]
        raise AssertionError(f"no decisions in phase {ph}")

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        g: FirstRatGame = self._game
        ph = self.phase
        if ph == "setup":
            acts = self._setup_candidates()
            return [(a, 1.0 / len(acts)) for a in acts]
        if ph == "greg_draw":
            return self._greg_draw_outcomes()
        if ph == "greg_booth":
            acts = sorted(g.CH_ITEM + g.item_index[i]
                          for i in self._display_all(self.greg_booths[0]))
            return [(a, 1.0 / len(acts)) for a in acts]
        if ph == "greg_comic":
            acts = sorted(g.CH_ITEM + g.item_index[c] for c in self.library)
            return [(a, 1.0 / len(acts)) for a in acts]
        raise AssertionError(f"not a chance node: {ph}")

    def _apply_action(self, action: int) -> None:
        g: FirstRatGame = self._game
        ph = self.phase
        if ph == "setup":
            self._apply_setup(action)
            self._advance_setup()
        elif ph == "greg_draw":
            self._greg_draw(action - g.CH_CARD)
        elif ph == "greg_booth":
            self._remove_display_item(g.items[action - g.CH_ITEM])
            self.greg_booths.pop(0)
            self._greg_run()
        elif ph == "greg_comic":
            self.library.remove(g.items[action - g.CH_ITEM])
            self.greg_step = "end"
            self._greg_run()
        elif ph == "greg_best":
            self._greg_prepare_best(g.data.greg_tracks[action - g.GREG_BEST])
            self.greg_step = "end"
            self._greg_run()
        elif action < g.move_size:
            self._apply_move(action)
        elif action == g.STOP_B:
            self.step = "pay"
            self._run()
        elif action in (g.AWARD, g.RAISE):
            self.launch_pending -= 1
            if action == g.AWARD:
                self.supply["awards"] -= 1
                self.awards[self.seat] += 1
            else:
                self._raise_rat(self.seat)
            self._run()
        elif action in (g.DRINK_USE, g.DRINK_SKIP):
            if action == g.DRINK_USE:
                self.drinks[self.seat] -= 1
                self.drink_used = True
            self.step = "collect"
            self._run()
        elif g.BURROW <= action < g.BURROW + len(g.directions):
            node = g.data.burrow_choices[self.burrow[self.seat]][g.directions[action - g.BURROW]]
            if not self._burrow_enter(node):
                self._run()
        elif action in (g.NURSERY_RAISE, g.NURSERY_DECLINE):
            if action == g.NURSERY_RAISE:
                self._raise_rat(self.seat)
                self.raised[self.seat] += 1
            self._run()
        elif action == g.LIBRARY_DECLINE or g.LIBRARY <= action < g.SUPER:
            if action != g.LIBRARY_DECLINE:
                self._take_comic(g.items[action - g.LIBRARY + g.n_shop_items])
            self._run()
        elif g.SUPER <= action < g.BUY:
            comic = self.pending_super.pop(0)
            self.super_rats[self.seat][comic] = action - g.SUPER
            self._run()
        elif action == g.SHOP_PASS or g.BUY <= action < g.BUILD:
            r = self.shops.pop(0)
            if action != g.SHOP_PASS:
                self._shop(r, action)
            self._run()
        elif g.BUILD <= action < g.GREG_BEST:
            self._build(PARTS[action - g.BUILD])
            self._run()
        elif action == g.DONATE:
            p = self.seat
            cost = g.data.provisions_cost
            self.cheese[p] -= cost
            self.cheese_issued -= cost
            self._place("provisions", p)
            self._run()
        elif action == g.END_TURN:
            self.step = "end"
            self._run()
        else:  # pragma: no cover - guarded by apply_action
            raise AssertionError(f"unhandled action {action}")

    # ==================================================================================
    # labels
    # ==================================================================================
    def _action_to_string(self, player: int, action: int) -> str:
        """Label of ``action`` by ``player`` (a seat, or ``CHANCE`` for chance outcomes).

        Raises:
            ValueError: ``player`` is neither ``CHANCE`` nor a seat (ints and numpy ints).
        """
        g: FirstRatGame = self._game
        d = g.data
        if isinstance(player, int | np.integer) and not isinstance(player, bool) \
                and int(player) == CHANCE:
            player = CHANCE
        else:
            player = check_player(player, g.n)
        if isinstance(action, bool) or not isinstance(action, int | np.integer) \
                or not 0 <= action < g.num_distinct_actions():
            return f"invalid action {action!r}"
        action = int(action)
        if action < g.move_size:
            opt, r, mask, dest, ci = self._decode_move(action)
            mover = self.seat if player == CHANCE else player
            seat_ok = mover < g.n
            where = self._where(self.rats[mover][r]) if seat_ok else "?"
            if dest == g.L:
                to = "Launchpad"
                if opt == 1 and seat_ok and self._sq(mover, r, "super_rat_matches_colour") > 0:
                    to += f" ({d.launchpad_colours[ci]})"
            else:
                to = f"space {dest}"
            via = [sc.id for i, sc in enumerate(d.shortcuts) if mask >> i & 1]
            via_s = f" via {'+'.join(via)}" if via else ""
            return f"{'AB'[opt]}: rat {r} {where} -> {to}{via_s}"
        if g.move_size <= action < g.move_size + len(_SINGLES):
            return _SINGLES[_SINGLE_NAMES[action - g.move_size]]
        if action < g.LIBRARY:
            return f"Rat Burrow: go {g.directions[action - g.BURROW]}"
        if action < g.SUPER:
            cid = g.items[action - g.LIBRARY + g.n_shop_items]
            return f"Library: take {cid} {dict((c[0], c[1]) for c in d.comics)[cid]}"
        if action < g.BUY:
            r = action - g.SUPER
            comic = ""
            if self.phase == "super" and self.pending_super:
                cid = self.pending_super[0]
                name = next(c[1] for c in d.comics if c[0] == cid).split(": ")[-1]
                comic = f" {cid} {name}"
            where = f" on {self._where(self.rats[self.seat][r])}" if self.seat < g.n else ""
            return f"Super Rat{comic}: rat {r}{where}"
        if action < g.STEAL:
            item = g.items[action - g.BUY]
            price = self._price(self.seat, item) if self.seat < g.n else "?"
            return f"buy {self._item_text(item)} ({price} Cheese)"
        if action < g.BUILD:
            rat = f"rat {self.shops[0]}" if self.phase == "shop" and self.shops else "the rat"
            return f"steal {self._item_text(g.items[action - g.STEAL])} ({rat} back to Start)"
        if action < g.GREG_BEST:
            return f"build a {TRACK_NAMES[PARTS[action - g.BUILD]]}"
        if action < g.CH_TILE:
            return f"Greg prepares the {TRACK_NAMES[d.greg_tracks[action - g.GREG_BEST]]} track"
        if action < g.CH_SET:
            t = d.tiles[action - g.CH_TILE + 1]
            slot = self.setup_todo[0][5:] if self.phase == "setup" else "?"
            what = YIELD_NAMES[t.kind][0 if t.amount == 1 else 1]
            return f"space {slot} gets tile {t.tile} ({t.colour}, {t.amount} {what})"
        if action < g.CH_ITEM:
            track = TRACK_NAMES[self.setup_todo[0][4:]] if self.phase == "setup" else "a"
            values = list(d.variable_value_sets[action - g.CH_SET])
            return f"the {track} track gets values {values} (set {action - g.CH_SET})"
        if action < g.CH_CARD:
            item = g.items[action - g.CH_ITEM]
            if self.phase == "greg_booth":
                return f"Greg's booth returns {self._item_text(item)} to the box"
            if self.phase == "greg_comic":
                return f"Greg removes {self._item_text(item)} from the Library"
            return f"reveal {self._item_text(item)}"
        card = d.cards[action - g.CH_CARD]
        icon = f", {self._icon_text(card.icon)}" if card.icon else ""
        return f"Greg reveals {card.id}: moves {list(card.moves)}{icon}"

    def _icon_text(self, icon: str) -> str:
        """A solo card's icon in the rulebook's words ("Solo Play", Sequence of Play)."""
        if icon.startswith("prepare:"):
            return f"Greg prepares the {TRACK_NAMES[icon[8:]]} track"
        if icon == "remove_comic":
            return "Greg removes a Comic from the Library"
        return "Greg prepares his best Score track"

    def _item_text(self, item: str) -> str:
        """An item with what it does, e.g. ``backpack BP-Y1: +2 on yellow spaces``,
        ``bottle cap BC4: 4 per rocket marker``, ``comic SR1 Super Rat: Chameleon``."""
        return item_text(self._game, item)

    def _where(self, pos: int) -> str:
        """A rat position in words: ``Start``, ``space 7``, ``the rocket``, ``the Nursery``."""
        L = self._game.L
        return ("the Nursery" if pos == NURSERY else "Start" if pos == 0
                else "the rocket" if pos >= L else f"space {pos}")

    def describe_action(self, viewer: int | None, action: int) -> str:
        """Every decision and chance outcome of First Rat is public (all draws are reveals)."""
        return self._action_to_string(self.current_player(), action)

    # ==================================================================================
    # scores, results, observation
    # ==================================================================================
    def _track_points(self, owner: int) -> dict[str, int]:
        """Marker owner ``owner``'s points per score track."""
        return self._track_points_by_owner().get(owner) or dict.fromkeys(TRACKS, 0)

    def _track_points_by_owner(self) -> dict[int, dict[str, int]]:
        """Each marker owner's points per score track (the owners with a marker on some
        track; one pass over the tracks: the slots hold all but the last space, whose
        markers stack in ``track_last``)."""
        out: dict[int, dict[str, int]] = {}
        for t in TRACKS:
            vals = self.track_values[t]
            for v, o in zip(vals, self.track_slots[t], strict=False):
                if o is not None:
                    pts = out.get(o) or out.setdefault(o, dict.fromkeys(TRACKS, 0))
                    pts[t] += v
            for o in self.track_last[t]:
                pts = out.get(o) or out.setdefault(o, dict.fromkeys(TRACKS, 0))
                pts[t] += vals[-1]
        return out

    def _markers_on(self, track: str, owner: int) -> int:
        return (sum(1 for o in self.track_slots[track] if o == owner)
                + sum(1 for o in self.track_last[track] if o == owner))

    def rattronauts(self, p: int) -> int:
        """Rats of seat ``p`` in the rocket."""
        L = self._game.L
        return sum(1 for r in self.rats[p] if r == L)

    def count(self, p: int, name: str) -> int:
        """How many ``name`` (:data:`.data.COUNTS`) seat ``p`` has, for scoring effects."""
        if name in self.mats[p]:
            return self.mats[p][name]
        return {
            "cockpits_built": lambda: self.built[p]["cockpit"],
            "cargo_bays_built": lambda: self.built[p]["cargo_bay"],
            "thrusters_built": lambda: self.built[p]["thruster"],
            "rocket_markers": lambda: self._markers_on("rocket", p),
            "rattronauts": lambda: self.rattronauts(p),
            "provisions_markers": lambda: self._markers_on("provisions", p),
            "construction_lights_markers": lambda: self._markers_on("construction_lights", p),
            "stored_food_markers": lambda: self._markers_on("stored_food", p),
            "comics_owned": lambda: len(self.comics[p]),
            "backpacks_owned": lambda: len(self.backpacks[p]),
            "cheese": lambda: self.cheese[p],
            "awards": lambda: self.awards[p],
            "moldy_cheese": lambda: self.moldy[p],
            "light_string": lambda: self.light[p],
            "energy_drinks": lambda: self.drinks[p],
            "bottle_caps_owned": lambda: len(self.caps[p]),
        }[name]()

    def _item_points(self, p: int, item: str) -> int:
        """End-of-game points of seat ``p``'s comic or bottle cap ``item`` (its ``score``
        effects, FR-12): each amount counts the owner's things; a condition is read for the
        owner (``most`` / ``least``: tied for the extreme among all seats)."""
        total = 0
        for e in self._game.data.item_effects[item]:
            if e.op != "score" or e.when != "game_end":
                continue
            c = e.condition
            if c is not None:
                mine = self.count(p, c.count.of)
                every = [self.count(q, c.count.of) for q in range(self._game.n)]
                if not c.holds(mine, every):
                    continue
            a = e.amount
            total += a.value(self.count(p, a.count.of) if a.count is not None else 0)
        return total

    def score_breakdown(self, p: int, tracks: dict | None = None) -> dict[str, int]:
        """Seat ``p``'s points by scorepad line (rulebook "End of Game"; FR-12); ``tracks``
        is :meth:`_track_points_by_owner` if the caller has it."""
        tracks = self._track_points_by_owner() if tracks is None else tracks
        out = dict(tracks.get(p) or dict.fromkeys(TRACKS, 0))
        out["bottle_caps"] = sum(self._item_points(p, c) for c in self.caps[p])
        out["comics"] = sum(self._item_points(p, c) for c in self.comics[p])
        out["awards_moldy"] = (RULEBOOK["award_points"] * self.awards[p]
                               - RULEBOOK["moldy_penalty"] * self.moldy[p])
        left = sum(self.mats[p].values()) + self.cheese[p]
        out["leftovers"] = left // RULEBOOK["leftover_per_point"]
        return out

    def scores(self) -> list[float]:
        return self._points()[0]

    def _points(self) -> tuple[list[float], int]:
        """(:meth:`scores`, :meth:`greg_points`) from one pass over the score tracks."""
        g: FirstRatGame = self._game
        tracks = self._track_points_by_owner()
        scores = [float(sum(self.score_breakdown(p, tracks).values())) for p in range(g.n)]
        return scores, self._greg_from(tracks)

    def greg_points(self) -> int:
        """Greg's points (solo): his score-track markers and Rattronauts."""
        return self._greg_from(self._track_points_by_owner())

    def _greg_from(self, tracks: dict[int, dict[str, int]]) -> int:
        """Greg's points from :meth:`_track_points_by_owner`'s ``tracks`` (0 unless solo)."""
        g: FirstRatGame = self._game
        return sum((tracks.get(g.greg) or {}).values()) if g.solo else 0

    def automaton_scores(self) -> list[float]:
        """``[Greg's points]`` in the solo game (rulebook "Solo Play"), else ``[]``."""
        return [float(self.greg_points())] if self._game.solo else []

    def _returns(self) -> list[float]:
        g: FirstRatGame = self._game
        sc, greg = self._points()
        if g.solo:  # solo "End of the Game": more points than Greg wins
            return [1.0 if sc[0] > greg else 0.0]
        best = max(sc)
        tied = [p for p in range(g.n) if sc[p] == best]
        most = max(self.rattronauts(p) for p in tied)
        winners = [p for p in tied if self.rattronauts(p) == most]
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(g.n)]

    def observation(self, player: int) -> dict:
        """The whole state (nothing is hidden; module docstring) plus derived points.

        Keys: every state field, ``scores`` (as :meth:`scores`) and ``greg_points``.

        Raises:
            ValueError: ``player`` is not a seat (ints and numpy ints ``0..n-1``).
        """
        check_player(player, self._game.n)
        obs = copy_fields(self._fields())
        obs["scores"], obs["greg_points"] = self._points()
        return obs

    def render(self, player: int) -> str:
        """Readable text of the board as seat ``player`` sees it (:func:`.view.render`).

        Raises:
            ValueError: ``player`` is not a seat.
        """
        return render(self, player)

    # ==================================================================================
    # setup (chance)
    # ==================================================================================
    def _setup_candidates(self) -> list[int]:
        g: FirstRatGame = self._game
        d = g.data
        tok = self.setup_todo[0]
        if tok.startswith("tile:"):
            slot = int(tok[5:])
            group = next(slots for _, slots in d.tile_groups if slot in slots)
            placed = set(self.tiles)
            return [g.CH_TILE + t - 1 for t in group if t not in placed]
        if tok.startswith("set:"):
            return [g.CH_SET + i for i in range(len(d.variable_value_sets))
                    if i not in self.sets_used]
        if tok == "backpack":
            pool = [b[0] for b in d.backpacks if b[0] not in self.disp_backpacks]
        elif tok == "bottle_cap":
            pool = [c for c in d.bottle_caps if c not in self.disp_caps]
        else:
            pool = [c[0] for c in d.comics if c[0] not in self.library]
        return sorted(g.CH_ITEM + g.item_index[i] for i in pool)

    def _apply_setup(self, action: int) -> None:
        g: FirstRatGame = self._game
        d = g.data
        tok = self.setup_todo.pop(0)
        if tok.startswith("tile:"):
            self.tiles[int(tok[5:])] = action - g.CH_TILE + 1
        elif tok.startswith("set:"):
            i = action - g.CH_SET
            self.sets_used.append(i)
            self.track_values[tok[4:]] = list(d.variable_value_sets[i])
        else:
            item = g.items[action - g.CH_ITEM]
            {"backpack": self.disp_backpacks, "bottle_cap": self.disp_caps,
             "comic": self.library}[tok].append(item)

    def _advance_setup(self) -> None:
        """Apply forced setup draws; when setup is done, start seat 0's first turn."""
        while self.setup_todo:
            cands = self._setup_candidates()
            if len(cands) > 1:
                return
            self._apply_setup(cands[0])
        self.disp_backpacks.sort()
        self.disp_caps.sort()
        self.library.sort()
        self._start_turn(0)

    # ==================================================================================
    # movement (Step 1)
    # ==================================================================================
    def _decode_move(self, action: int) -> tuple[int, int, int, int, int]:
        g: FirstRatGame = self._game
        dcode = action % g.n_dest
        rest = action // g.n_dest
        mask = rest % g.n_masks
        rest //= g.n_masks
        r = rest % RATS
        opt = rest // RATS
        if dcode < g.L - 1:
            return opt, r, mask, dcode + 1, 0
        return opt, r, mask, g.L, dcode - (g.L - 1)

    def _encode_move(self, opt: int, r: int, mask: int, dest: int, ci: int) -> int:
        g: FirstRatGame = self._game
        dcode = dest - 1 if dest < g.L else g.L - 1 + ci
        return ((opt * RATS + r) * g.n_masks + mask) * g.n_dest + dcode

    def _q(self, p: int, name: str) -> int:
        """Seat ``p``'s value of the quantity ``name`` (:data:`.data.SEAT_QUANTITIES`): its
        base, modified by every comic and bottle cap the seat owns (their ``modify``)."""
        mods = self._game.item_mods
        mod = None
        for items in (self.comics[p], self.caps[p]):
            for it in items:
                m = mods[it].get(name)
                if m is not None:
                    mod = m if mod is None else combine(mod, m)
        return QUANTITIES[name] if mod is None else resolve(QUANTITIES[name], mod)

    def _sq(self, p: int, r: int, name: str) -> int:
        """Rat ``r``'s value of the Super Rat quantity ``name`` (:data:`.data.SUPER_QUANTITIES`):
        its base, modified by the Super Rat comic whose rat it is (FR-15, FR-19)."""
        mods = self._game.item_mods
        mod = None
        for c, rat in self.super_rats[p].items():
            if rat == r and name in mods[c]:
                mod = mods[c][name] if mod is None else combine(mod, mods[c][name])
        return SUPER_QUANTITIES[name] if mod is None else resolve(SUPER_QUANTITIES[name], mod)

    def _colour(self, pos: int) -> str:
        g: FirstRatGame = self._game
        return g.data.tiles[self.tiles[pos]].colour

    def _movable(self, p: int) -> list[int]:
        """Rats that may move: on Start or the path, not yet moved; one per (space, roles)."""
        L = self._game.L
        seen = set()
        out = []
        sup = self.super_rats[p]
        moved = self.moved
        for r, pos in enumerate(self.rats[p]):
            if pos < 0 or pos >= L or r in moved:
                continue
            sig = (pos, tuple(sorted(c for c, rat in sup.items() if rat == r))) if sup else pos
            if sig not in seen:
                seen.add(sig)
                out.append(r)
        return out

    def _move_actions(self, opt: int) -> list[int]:
        """Legal MOVE ids of option ``opt`` (0 = A, 1 = B) for the current seat (FR-1, FR-3)."""
        p = self.seat
        out = []
        if opt == 0 and self.moved:
            return out
        rules = self._move_rules(p, opt)
        follow = opt == 1 and not self.moved
        for r, dest, mask, ci in list(self._iter_rat_moves(p, opt, rules)):
            if follow and not self._b_can_follow(p, r, dest, mask, ci, rules):
                continue
            out.append(self._encode_move(opt, r, mask, dest, ci))
        return out

    def _any_rat_move(self, p: int, opt: int, rules: tuple | None = None) -> bool:
        """Whether seat ``p`` has a candidate single-rat move for option ``opt`` (stops at the
        first one)."""
        return next(self._iter_rat_moves(p, opt, rules), None) is not None

    def _move_rules(self, p: int, opt: int) -> tuple[int, set[int], list[tuple[bool, int]]]:
        """What seat ``p``'s comics, bottle caps and Super Rats make of option ``opt``'s moves:
        the shortcut cost multiplier, the rats sharing spaces (:meth:`_sharers`) and per rat
        ``(chameleon, step cap)``. Moving rats does not change them, so an option's candidates
        and their follow checks (:meth:`_b_can_follow`) share one."""
        g: FirstRatGame = self._game
        base = self._q(p, "option_a_steps" if opt == 0 else "option_b_steps")
        per_rat = [(opt == 1 and self._sq(p, r, "super_rat_matches_colour") <= 0,
                    min(g.max_steps, max(0, base + self._sq(p, r, "super_rat_steps"))))
                   for r in range(len(self.rats[p]))]
        return self._q(p, "shortcut_cost"), self._sharers(p), per_rat

    def _iter_rat_moves(self, p: int, opt: int, rules: tuple | None = None
                        ) -> Iterator[tuple[int, int, int, int]]:
        """Candidate single-rat moves ``(rat, dest, mask, colour_index)`` of seat ``p`` for
        option ``opt``, one by one (the state must not change while it runs); ``rules`` is
        :meth:`_move_rules` if the caller has it."""
        g: FirstRatGame = self._game
        L = g.L
        rats = self.rats[p]
        mats = self.mats[p]
        sc_mult, sharers, per_rat = rules or self._move_rules(p, opt)
        b_ends = {rats[m] for m in self.moved}
        launch_used = opt == 1 and L in b_ends
        for r in self._movable(p):
            pos = rats[r]
            chameleon, maxs = per_rat[r]
            blocked = set() if r in sharers else {
                x for q, x in enumerate(rats) if q != r and q not in sharers and 0 < x < L}
            if opt == 1:
                blocked |= b_ends
            for dest, mask, _steps in g.route_table[pos][maxs]:
                if dest in blocked:
                    continue
                if mask and sc_mult:
                    cost = g.mask_cost[mask]
                    if any(mats[m] < c * sc_mult for m, c in cost.items()):
                        continue
                if dest == L:
                    if launch_used:
                        continue
                    if opt == 0 or chameleon:
                        yield r, dest, mask, 0
                    elif self.b_colour is not None:
                        yield (r, dest, mask,
                               g.data.launchpad_colours.index(self.b_colour))
                    else:
                        yield from ((r, dest, mask, ci) for ci in range(g.n_colours))
                    continue
                if opt == 1 and not chameleon and self.b_colour is not None \
                        and self._colour(dest) != self.b_colour:
                    continue
                yield r, dest, mask, 0

    def _sharers(self, p: int) -> set[int]:
        """Seat ``p``'s Super Rats that share spaces with the seat's other rats
        (``super_rat_blocks`` 0, e.g. the Ghost)."""
        return {rat for c, rat in self.super_rats[p].items()
                if rat >= 0 and self._sq(p, rat, "super_rat_blocks") <= 0}

    def _b_can_follow(self, p: int, r: int, dest: int, mask: int, ci: int,
                      rules: tuple | None = None) -> bool:
        """FR-3: after this first option-B rat, can a second rat complete option B?
        ``rules``: option B's :meth:`_move_rules` if the caller has it."""
        saved = (self.rats[p][r], dict(self.mats[p]), self.b_colour)
        self._move_rat(p, r, dest, mask, ci, 1, commit=False)
        ok = self._any_rat_move(p, 1, rules)
        self.rats[p][r], self.mats[p], self.b_colour = saved
        self.moved.pop()
        return ok

    def _move_rat(self, p: int, r: int, dest: int, mask: int, ci: int, opt: int,
                  commit: bool = True) -> None:
        g: FirstRatGame = self._game
        d = g.data
        sc_mult = self._q(p, "shortcut_cost") if mask else 0
        if sc_mult:  # FR-1: pay each shortcut used
            for m, c in g.mask_cost[mask].items():
                self.mats[p][m] -= c * sc_mult
                if commit:
                    self.supply[m] += c * sc_mult
        self.rats[p][r] = dest
        self.moved.append(r)
        if opt == 1 and self.b_colour is None \
                and self._sq(p, r, "super_rat_matches_colour") > 0:
            self.b_colour = d.launchpad_colours[ci] if dest == g.L else self._colour(dest)
        if commit and dest == g.L:
            self._to_rocket(p)
            self.launch_pending += 1

    def _apply_move(self, action: int) -> None:
        opt, r, mask, dest, ci = self._decode_move(action)
        p = self.seat
        self.option = "AB"[opt]
        self._move_rat(p, r, dest, mask, ci, opt)
        if opt == 0 or len(self.moved) >= RULEBOOK["option_b_max_rats"] \
                or not self._any_rat_move(p, 1):
            self.step = "pay"
            self._run()
        else:
            self.phase = "move_b"

    def _to_rocket(self, owner: int) -> None:
        """A rat reached the Launchpad: Rattronaut track, and end trigger A (FR-11)."""
        self._place("rattronaut", owner, marker=False)
        L = self._game.L
        rats = self.greg_rats if owner == self._game.greg else self.rats[owner]
        if sum(1 for x in rats if x == L) == RATS:
            self._trigger(self.round)

    def _trigger(self, last_round: int) -> None:
        if self.end_round is None or last_round < self.end_round:
            self.end_round = last_round

    def _place(self, track: str, owner: int, marker: bool = True) -> bool:
        """Put ``owner``'s marker (or Rattronaut) in the leftmost free space of ``track``.

        Returns False when the owner has no Score marker left (FR-11: ignored).
        """
        if marker:
            if self.markers[owner] >= RULEBOOK["score_markers"]:
                return False
            self.markers[owner] += 1
            if self.markers[owner] == RULEBOOK["end_trigger_markers"]:
                self._trigger(self.round + 1)  # FR-11: this round, then one more
        slots = self.track_slots[track]
        for i, o in enumerate(slots):
            if o is None:
                slots[i] = owner
                return True
        self.track_last[track].append(owner)
        return True

    # ==================================================================================
    # the turn cursor
    # ==================================================================================
    def _start_turn(self, seat: int) -> None:
        self.seat = seat
        self.moved = []
        self.option = None
        self.b_colour = None
        self.launch_pending = 0
        self.drink_used = False
        self.burrow_steps = 0
        self.pending_super = []
        self.shops = []
        self.phase = "move"
        self.step = "move"
        if not self._move_actions(0):  # only possible with no rat on the path
            self.step = "shop"
            self._run()

    def _run(self) -> None:
        """Carry out automatic steps of the turn until a decision (or the next turn)."""
        g: FirstRatGame = self._game
        d = g.data
        p = self.seat
        L = g.L
        while True:
            st = self.step
            if st == "pay":
                self._pay_landing(p)
                self.step = "launch"
            elif st == "launch":
                if self.pending_super:
                    self.phase = "super"
                    return
                if self.launch_pending > 0:
                    award, raise_ = self._can_award(), self._can_raise()
                    if award and raise_:
                        self.phase = "launch"
                        return
                    self.launch_pending -= 1
                    if award:  # FR-9: the only allowed reward is taken
                        self.supply["awards"] -= 1
                        self.awards[p] += 1
                    elif raise_:
                        self._raise_rat(p)
                    continue
                self.step = "drink"
            elif st == "drink":
                if self.drinks[p] > 0 and any(0 < self.rats[p][r] < L for r in self.moved):
                    self.phase = "drink"
                    return
                self.step = "collect"
            elif st == "collect":
                self._collect(p)
                self.step = "burrow"
            elif st == "burrow":
                if self.pending_super:
                    self.phase = "super"
                    return
                if self.burrow_steps > 0:
                    nexts = d.burrow_edges[self.burrow[p]]
                    if len(nexts) > 1:  # FR-7: choose at the intersection
                        self.phase = "burrow"
                        return
                    if self._burrow_enter(nexts[0]):
                        return
                    continue
                self.step = "shop"
                self.shops = sorted((r for r in self.moved if self.rats[p][r] in d.booths),
                                    key=lambda r: self.rats[p][r])
            elif st == "shop":
                while self.shops and not self._booth_items(self.rats[p][self.shops[0]]):
                    self.shops.pop(0)
                if self.shops:
                    self.phase = "shop"
                    return
                self.step = "build"
            elif st == "build":
                if len(self._build_actions()) > 1:
                    self.phase = "build"
                    return
                self.step = "end"
            elif st == "end":
                self._end_turn()
                return
            else:  # pragma: no cover
                raise AssertionError(f"bad step {st}")

    def _end_turn(self) -> None:
        g: FirstRatGame = self._game
        if g.solo:
            self.seat = g.greg
            self.greg_step = "draw"
            self._greg_run()
            return
        if self.seat + 1 < g.n:
            self._start_turn(self.seat + 1)
        else:
            self._end_round()

    def _end_round(self) -> None:
        """End of a round: the game ends if a trigger's last round is done (FR-11)."""
        if self.end_round is not None and self.round >= self.end_round:
            self.phase = "over"
            self.step = ""
            return
        self.round += 1
        self._start_turn(0)

    # ==================================================================================
    # paying for landing (FR-4), Launchpad reward (FR-9)
    # ==================================================================================
    def _pay_landing(self, p: int) -> None:
        """FR-4: 1 Cheese per other player with a rat on each space where a moved rat ends."""
        g: FirstRatGame = self._game
        L = g.L
        fee = self._q(p, "landing_fee")
        if fee <= 0:
            return
        ends = sorted({self.rats[p][r] for r in self.moved if 0 < self.rats[p][r] < L
                       and self._sq(p, r, "super_rat_pays_landing") > 0})
        debts = [0] * g.n_owners
        for sp in ends:
            for q in range(g.n):
                if q != p and sp in self.rats[q]:
                    debts[q] += fee
            if g.solo and sp in self.greg_rats:
                debts[g.greg] += fee  # paid to the general supply (solo rules)
        total = sum(debts)
        if total > self.cheese[p]:  # Moldy Cheese exactly as needed, keep the change
            value = RULEBOOK["moldy_value"]
            need = -(-(total - self.cheese[p]) // value)
            # JUDGEMENT: with the Moldy Cheese supply (12) exhausted, the rest is not paid.
            need = min(need, self.supply["moldy_cheese"])
            self.supply["moldy_cheese"] -= need
            self.moldy[p] += need
            self.cheese[p] += need * value
            self.cheese_issued += need * value
        order = [(p + k) % g.n_owners for k in range(1, g.n_owners)]
        for q in order:
            amount = min(debts[q], self.cheese[p])
            self.cheese[p] -= amount
            if q == g.greg:
                self.cheese_issued -= amount
            else:
                self.cheese[q] += amount

    def _can_award(self) -> bool:
        """FR-9: an Award only with a rat still on the path or a 4th Rattronaut."""
        p = self.seat
        L = self._game.L
        if self.supply["awards"] <= 0:
            return False
        return any(0 <= r < L for r in self.rats[p]) or self.rattronauts(p) == RATS

    def _can_raise(self) -> bool:
        return NURSERY in self.rats[self.seat]

    def _raise_rat(self, p: int) -> None:
        """Take a rat from the Nursery to Start (it has not moved this turn, FR-2)."""
        r = self.rats[p].index(NURSERY)
        self.rats[p][r] = 0
        for c, rat in self.super_rats[p].items():  # FR-15: the next rat raised
            if rat == -1:
                self.super_rats[p][c] = r
                break  # FR-19: one rat is at most one Super Rat; the next waits on

    # ==================================================================================
    # collect (Step 2), burrow, items
    # ==================================================================================
    def _collect(self, p: int) -> None:
        """Yields of the rats moved this turn (FR-5, FR-6, FR-13).

        FR-17: Collect is not optional. The rulebook's "you may collect" grants the right to
        collect from the spaces where a rat was just moved; the engine collects everything
        the moved rats earn (no decision), and rats that did not move collect nothing.

        Per space: printed amount + lit bonus (FR-5, the light string's ``lit_bonus``) +
        backpacks + the seat's ``yield``, ``yield_on_<colour>`` and ``yield_of_<kind>``
        quantities (e.g. Bright Spark on bulb spaces) + the rat's ``super_rat_yield`` (e.g.
        Strongpaws), never below 0, then doubled by an energy drink ("the whole turn's yield
        after other bonuses", FR-6). Light-string positions reached or passed by this turn's
        bulbs then give their effects (Construction Lights score their track, FR-5).
        """
        g: FirstRatGame = self._game
        d = g.data
        L = g.L
        lit = d.lit_spaces(self.light[p])  # marker where it stood at the start (FR-5)
        mult = RULEBOOK["drink_multiplier"] if self.drink_used else 1
        bonus: dict[str, int] = {}
        for b in self.backpacks[p]:
            colour, amount = g.backpack_info[b]
            bonus[colour] = bonus.get(colour, 0) + amount
        every = self._q(p, "yield")
        bulbs = apples = 0
        for r in self.moved:
            pos = self.rats[p][r]
            if not 0 < pos < L:
                continue
            sp = d.tiles[self.tiles[pos]]
            kind = sp.kind
            amount = sp.amount + (d.lit_bonus if pos in lit else 0) + bonus.get(sp.colour, 0)
            amount += every + self._q(p, f"yield_on_{sp.colour}") + self._q(p, f"yield_of_{kind}")
            amount += self._sq(p, r, "super_rat_yield")  # bonuses, so doubled (FR-6)
            amount = max(0, amount) * mult
            if kind == "cheese":
                self.cheese[p] += amount
                self.cheese_issued += amount
            elif kind == "bulb":
                bulbs += amount
            elif kind == "apple":
                apples += amount
            else:
                take = min(amount, self.supply[kind])  # FR-13
                self.supply[kind] -= take
                self.mats[p][kind] += take
        if bulbs:
            old = self.light[p]
            new = min(d.light_length, old + bulbs)  # FR-5: bulbs past the end are lost
            self.light[p] = new
            for k in range(old + 1, new + 1):
                if k in d.light_effects:
                    self.lights_scored[p] += 1
                    self._reward(p, d.light_effects[k])
        self.burrow_steps = apples

    def _burrow_enter(self, node: str) -> bool:
        """Move the burrow marker one space; True when a reward needs a decision (FR-7)."""
        g: FirstRatGame = self._game
        p = self.seat
        self.burrow[p] = node
        self.burrow_steps -= 1
        effects = g.data.burrow_rewards.get(node, ())
        self._reward(p, effects)
        choice = g.data.burrow_choice.get(node)  # its "move" effect: the seat's choice
        if choice == "nursery":
            if NURSERY in self.rats[p] and self.raised[p] < RULEBOOK["max_nursery_raises"]:
                self.phase = "nursery"
                return True
        elif choice == "library":
            if self.library:
                self.phase = "library"
                return True
        return False

    def _reward(self, p: int, effects: tuple) -> None:
        """The automatic effects of a reward (Rat Burrow space, light-string position), in
        order: ``score`` puts Score markers on a track, ``gain`` takes Cheese or a material
        from the supply (as far as it goes, FR-13). ``move`` effects are choices, offered by
        the caller after these."""
        for e in effects:
            n = e.amount.plus
            if e.op == "score":
                for _ in range(n):
                    self._place(e.resource, p)
            elif e.op == "gain":
                if e.resource == "cheese":
                    self.cheese[p] += n
                    self.cheese_issued += n
                else:
                    take = min(n, self.supply[e.resource])
                    self.supply[e.resource] -= take
                    self.mats[p][e.resource] += take

    def _take_comic(self, comic: str) -> None:
        """Take a Comic from the Library; a Super Rat comic picks its rat (FR-15)."""
        g: FirstRatGame = self._game
        p = self.seat
        self.library.remove(comic)
        self.comics[p].append(comic)
        if g.comic_super[comic]:
            self.super_rats[p][comic] = -1
            cands = self._super_candidates()
            if len(cands) == 1:
                self.super_rats[p][comic] = cands[0]
            elif cands:
                self.pending_super.append(comic)

    def _super_candidates(self) -> list[int]:
        """Rats that may become the Super Rat: on the path, Start included (FR-15), and not
        a Super Rat already (FR-19: the four Super Rats are separate figures); rats on one
        space are offered once, by the lowest index."""
        p = self.seat
        L = self._game.L
        taken = set(self.super_rats[p].values())  # FR-19
        seen = set()
        out = []
        for r, pos in enumerate(self.rats[p]):
            if 0 <= pos < L and r not in taken and pos not in seen:
                seen.add(pos)
                out.append(r)
        return out

    def _booth_items(self, slot: int) -> list[str]:
        """Items on display at the booth on ``slot`` (identical backpacks once)."""
        g: FirstRatGame = self._game
        kind = BOOTH_ITEMS[g.data.booths[slot]]
        if kind == "energy_drink":
            return ["energy_drink"] if self.disp_drinks > 0 else []
        if kind == "bottle_cap":
            return list(self.disp_caps)
        seen = set()
        out = []
        for b in self.disp_backpacks:
            if g.backpack_info[b] not in seen:
                seen.add(g.backpack_info[b])
                out.append(b)
        return out

    def _display_all(self, slot: int) -> list[str]:
        """Every item tile at the booth on ``slot`` (energy drinks: one, they are identical)."""
        g: FirstRatGame = self._game
        kind = BOOTH_ITEMS[g.data.booths[slot]]
        if kind == "energy_drink":
            return ["energy_drink"] if self.disp_drinks > 0 else []
        return list(self.disp_caps if kind == "bottle_cap" else self.disp_backpacks)

    def _price(self, p: int, item: str) -> int:
        g: FirstRatGame = self._game
        kind = ("energy_drink" if item == "energy_drink"
                else "backpack" if item in g.backpack_info else "bottle_cap")
        return max(0, g.data.prices[kind] + self._q(p, "item_price"))

    def _shop_actions(self) -> list[int]:
        g: FirstRatGame = self._game
        p = self.seat
        slot = self.rats[p][self.shops[0]]
        acts = [g.SHOP_PASS]
        for item in self._booth_items(slot):
            i = g.item_index[item]
            if self.cheese[p] >= self._price(p, item):
                acts.append(g.BUY + i)
            acts.append(g.STEAL + i)
        return sorted(acts)

    def _remove_display_item(self, item: str) -> None:
        if item == "energy_drink":
            self.disp_drinks -= 1
        elif item in self.disp_backpacks:
            self.disp_backpacks.remove(item)
        else:
            self.disp_caps.remove(item)

    def _shop(self, r: int, action: int) -> None:
        """FR-8: buy (pay, rat stays) or steal (free, rat back to Start)."""
        g: FirstRatGame = self._game
        p = self.seat
        steal = action >= g.STEAL
        item = g.items[action - (g.STEAL if steal else g.BUY)]
        if steal:
            self.rats[p][r] = 0
        else:
            price = self._price(p, item)
            self.cheese[p] -= price
            self.cheese_issued -= price
        self._remove_display_item(item)
        if item == "energy_drink":
            self.drinks[p] += 1
        elif item in g.backpack_info:
            self.backpacks[p].append(item)
        else:
            self.caps[p].append(item)

    # ==================================================================================
    # build and donate (Step 4)
    # ==================================================================================
    def _build_actions(self) -> list[int]:
        g: FirstRatGame = self._game
        p = self.seat
        acts = [g.BUILD + i for i, part in enumerate(PARTS)
                if all(self.mats[p][m] >= c for m, c in g.data.part_costs[part].items())]
        if self.cheese[p] >= g.data.provisions_cost:
            acts.append(g.DONATE)
        acts.append(g.END_TURN)
        return sorted(acts)

    def _build(self, part: str) -> None:
        """Build a rocket part, score its track and the Rocket track per new set (FR-10)."""
        g: FirstRatGame = self._game
        p = self.seat
        for m, c in g.data.part_costs[part].items():
            self.mats[p][m] -= c
            self.supply[m] += c
        self.built[p][part] += 1
        self._place(part, p)
        sets = min(self.built[p].values())
        while self.rocket_sets[p] < sets:
            self.rocket_sets[p] += 1
            self._place("rocket", p)

    # ==================================================================================
    # solo: Greg (FR-16)
    # ==================================================================================
    def _greg_run(self) -> None:
        """Greg's turn: draw (chance), move, booth discards, icon, end of round."""
        g: FirstRatGame = self._game
        while True:
            st = self.greg_step
            if st == "draw":
                if not self.greg_known and not any(self.greg_unknown.values()):
                    self.greg_known = sorted(self.greg_discard)  # FR-16: reshuffle when empty
                    self.greg_discard = []
                self.phase = "greg_draw"
                return
            if st == "booths":
                while self.greg_booths:  # mix the booth's tiles, return 1 at random to the box
                    items = self._display_all(self.greg_booths[0])
                    if len(items) > 1:
                        self.phase = "greg_booth"
                        return
                    if items:
                        self._remove_display_item(items[0])
                    self.greg_booths.pop(0)
                self.greg_step = "icon"
            elif st == "icon":
                self.greg_step = "end"
                icon = g.data.cards[self.greg_card].icon
                if icon is None:
                    continue
                if icon.startswith("prepare:"):
                    self._greg_prepare(icon[8:])
                elif icon == "remove_comic":
                    if len(self.library) > 1:
                        self.phase = "greg_comic"
                        return
                    self.library = []
                else:  # prepare_best
                    ties = self._greg_best_ties()
                    if len(ties) > 1 and g.params["greg_best_tie"] == "choose":
                        self.phase = "greg_best"
                        return
                    self._greg_prepare_best(ties[0])
            elif st == "end":
                if self.greg_card is not None:
                    self.greg_discard.append(self.greg_card)
                    if g.data.cards[self.greg_card].icon == "prepare_best":
                        # reshuffle the faceup cards back into Greg's deck
                        self.greg_known = sorted(self.greg_known + self.greg_discard)
                        self.greg_discard = []
                self.greg_card = None
                self.greg_step = ""
                self.seat = 0
                self._end_round()
                return
            else:  # pragma: no cover
                raise AssertionError(f"bad greg step {st}")

    def _greg_draw_outcomes(self) -> list[tuple[int, float]]:
        g: FirstRatGame = self._game
        cards = g.data.cards
        total = len(self.greg_known) + sum(self.greg_unknown.values())
        probs: dict[int, float] = {}
        for c in self.greg_known:
            probs[c] = probs.get(c, 0.0) + 1.0 / total
        for group, count in self.greg_unknown.items():
            if not count:
                continue
            pool = [i for i, c in enumerate(cards)
                    if c.group == group and i not in self.greg_seen]
            for i in pool:
                probs[i] = probs.get(i, 0.0) + count / total / len(pool)
        return [(g.CH_CARD + i, probs[i]) for i in sorted(probs)]

    def _greg_draw(self, card: int) -> None:
        g: FirstRatGame = self._game
        d = g.data
        L = g.L
        if card in self.greg_known:
            self.greg_known.remove(card)
        else:
            self.greg_unknown[d.cards[card].group] -= 1
        if card not in self.greg_seen:
            self.greg_seen.append(card)
            self.greg_seen.sort()
        self.greg_card = card
        # Movement: position order = furthest first (JUDGEMENT: ranks fixed at turn start,
        # ties by rat index); rocket rats pass their moves on; a Launchpad arrival forfeits
        # the rest; no shortcuts (FR-16).
        order = sorted(range(RATS), key=lambda r: (-self.greg_rats[r], r))
        carry = 0
        moved = []
        for i, r in enumerate(order):
            m = d.cards[card].moves[i]
            if self.greg_rats[r] >= L:
                carry += m
                continue
            m += carry
            carry = 0
            if m <= 0:
                continue
            self.greg_rats[r] = min(L, self.greg_rats[r] + m)
            moved.append(r)
            if self.greg_rats[r] == L:
                # JUDGEMENT: Greg takes no Launchpad reward (he ignores most rules).
                self._to_rocket(g.greg)
                break
        ends = sorted({self.greg_rats[r] for r in moved if 0 < self.greg_rats[r] < L})
        for sp in ends:  # you gain 1 Cheese from the supply per space with your rats
            if sp in self.rats[0]:
                self.cheese[0] += RULEBOOK["landing_fee"]
                self.cheese_issued += RULEBOOK["landing_fee"]
        # FR-18, rulebook "Solo Play": "If one of Greg's Rats ends its turn in a booth space ...
        # return 1 at random to the box": every rat on a booth at the end of his turn, moved
        # or not (the cheese sentence above says "end their move": only rats that moved pay).
        self.greg_booths = sorted(x for x in self.greg_rats if x in d.booths)
        self.greg_step = "booths"
        self._greg_run()

    def _greg_value(self, track: str) -> int:
        """Points Greg would score on ``track`` now (its leftmost free space)."""
        slots = self.track_slots[track]
        vals = self.track_values[track]
        for i, o in enumerate(slots):
            if o is None:
                return vals[i]
        return vals[-1]

    def _greg_best_ties(self) -> list[str]:
        tracks = self._game.data.greg_tracks
        best = max(self._greg_value(t) for t in tracks)
        return [t for t in tracks if self._greg_value(t) == best]

    def _greg_prepare(self, track: str) -> None:
        """Prepare a track, or score it if already prepared (solo "Prepare a specific track")."""
        if track in self.greg_prepared:
            self.greg_prepared.remove(track)
            self._place(track, self._game.greg)
        else:
            self.greg_prepared.append(track)
            self.greg_prepared.sort()

    def _greg_prepare_best(self, track: str) -> None:
        self._greg_prepare(track)

