"""Ratapolis: the reference rule engine (rulebook in ``../shared/seeds/ratapolis_rulebook.txt``).

Eight rounds of five phases: (1) hunt cards are dealt, one secret card per seat and the rest
face up; (2) every seat plans two actions (left cell, right cell) in secret; (3) the cells are
resolved left then right, in each cell all attacks at once and then all moves at once;
(4) the cats hunt: one of the round's cards is revealed and that building leaves the city;
(5) property tokens go to the strict majority holder of each orange tile. Cheese per rat
by tile, plus cheese tokens, decides the winner.

Modelling (see ``../shared/RULES_GAPS.md``, RP-1..RP-11; scenario events RP-9, cities
without every building RP-10 and seat colours RP-11 are game parameters):

* Planning is simultaneous (RP-2). The default view models it as sequential commitments:
  seat 0 commits its left cell, then its right cell, then seat 1, ...; a seat's commitments
  are absent from every other seat's observation until the reveal. With the game parameter
  ``simultaneous=True`` the planning step is one joint node instead
  (``current_player() == SIMULTANEOUS``): ``legal_actions(seat)`` lists that seat's whole
  plans (left and right cell in one id) and :meth:`RatapolisState.apply_actions` takes one
  plan per seat. Both views give identical outcomes for the same plans.
* All randomness is chance nodes, drawn lazily: property tokens one at a time, hunt cards
  one at a time as they are dealt, the hunt card when it is revealed.
* Property decisions (Archive look, Hotel +1, Market placement, Radio redraw, Hospital
  move) are decisions of the token holder at the moment they matter; the Bus station and
  the Metro widen the holder's planned moves.

Action ids (``B`` buildings, ``P`` the data's maximum players; ids do not depend on the
player count):

==========================  =================================================
``0``                        idle (a planning cell)
``1 + x*P + c``              attack the rat of colour ``c`` on building ``x``
``MOVE + x*B + y``           move your group from building ``x`` to ``y``
``CARD + x``                 chance: building ``x``'s token / hunt card
``LOOK + j``                 Archive: look at seat ``j``'s hunt card
``PASS``                     decline an optional property
``HOTEL``, ``MARKET``,       use the Hotel's +1, place a rat on the Market,
``RADIO``                    redraw the hunt card with the Radio station
``HOSPITAL + y``             Hospital: move one rat to building ``y``
``EVENT + 2*e + side``       chance (RP-9): event card ``e`` revealed, side A (0) or B (1)
``PLAN + left*C + right``    joint view only: a whole plan (``C`` cell actions)
==========================  =================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..api import (
    CHANCE,
    SIMULTANEOUS,
    TERMINAL,
    Game,
    IllegalActionError,
    Param,
    State,
    check_actor,
    check_player,
    make_rng,
    short_repr,
    unknown_views,
)
from .data import COLOURS, Layout, RatapolisData, load_data, parse_layout

__all__ = ["RatapolisGame", "RatapolisState"]

# Phases (the state's ``phase`` field).
TOKENS = "tokens"        # chance: setup, property tokens drawn one at a time
DEAL = "deal"            # chance: phase 1, hunt cards dealt / laid face up
ARCHIVE = "archive"      # decision: Archive holder may look at one seat's hunt card
PLAN = "plan"            # decisions: phase 2, each seat's left then right cell
HOTEL = "hotel"          # decision: Hotel holder may move one rat over capacity
MARKET = "market"        # decision: Market holder may place a rat from supply on A
HUNT = "hunt"            # chance: phase 4, one of the round's hunt cards revealed
RADIO = "radio"          # decision: Radio holder may redraw once
HOSPITAL = "hospital"    # decision: Hospital holder may move one rat off the hunted tile
EVENT = "event"          # chance: RP-9, a scenario event card revealed at a round's start
END = "end"              # terminal

NO = -1  # "none" in int fields: no card, no holder, no drawn card
#: RP-9: the effects a round may carry (``round_events`` entries).
NORMAL, NO_ATTACK, NOT_PLAYED = "normal", "no_attack", "not_played"
ROUND_EFFECTS = (NORMAL, NO_ATTACK, NOT_PLAYED)
#: How an event effect reads in a label.
EFFECT_TEXT = {NORMAL: "1 attack this round", NO_ATTACK: "no attack this round",
               NOT_PLAYED: "this round is not played"}
#: An IllegalActionError message lists at most this many legal actions (plans run to
#: thousands); the error's ``legal`` attribute keeps them all.
MAX_LISTED = 12


#: RP-10 example: the first-game grid with nine buildings left out (``.`` cells).
SMALL_CITY = "AAA.CC/B.IIG./B..HL./..MMLL/S.MFF./TTT..."


class RatapolisGame(Game):
    """Ratapolis for 2-5 players (rulebook: Setup, Course of the Game, End of the Game).

    Params:
        num_players: 2..5.
        layout: ``"first_game"`` (the data's recommended layout) or a grid of cell letters,
            rows separated by ``/`` (``.`` = park), each building at most once; RP-10: a
            city may leave buildings out (at least 11): only their tokens and hunt cards
            exist, each player starts with a rat on each of them, and the hunt stack is
            refilled from the discards at the start of any round it cannot supply.
        property_tokens: ``"random"`` (rulebook Setup 3: players + 1 drawn at setup as
            chance nodes), a comma-separated list of one or more property letters, e.g.
            ``"A,C,I,S"``, or ``"none"`` (no property tokens: a simplified city for learning
            and tests, not in the rulebook). An empty list is an error.
        simultaneous: joint-action view of planning (see the module docstring).
        round_events: RP-9 scenario events: ``"none"`` (default: every round normal),
            ``"random"`` (the data's event cards shuffled, one revealed as a chance node at
            the start of each of the last ``len(event_cards)`` rounds, side uniform), or one
            entry per round, comma-separated, each ``normal``, ``no_attack`` or
            ``not_played``, at most ``len(event_cards)`` (6) of them not ``normal``.
        colors: the seats' colours in seat order, comma-separated (RP-11; default
            ``"red,blue,yellow,green,orange"``): labels, plan cells in observations and
            renderings name seats by them, e.g. ``"red,yellow,green"`` for the rulebook's
            3-player examples.
        data_path: a replacement data file (``None``: the packaged one).

    Raises:
        ValueError: a bad parameter, naming it and what is allowed.
    """

    name = "ratapolis"
    title = "Ratapolis"
    summary = ("Rats fight for the buildings of a city the cats tear down. Each round all "
               "players secretly plan two actions (attack a rival rat or move a group), the "
               "plans resolve together, then a hunt card removes one building. Eight rounds; "
               "cheese per rat by building decides the winner.")
    perfect_information = False
    hidden_moves = True      # the secret plans (rulebook, phase 2 "Planning actions")
    #: Player counts, one game with all ten property tokens in play (every property), and
    #: scenario play (RP-9) with the rulebook's 3-player colours (RP-11).
    variants = {
        "2p": {"num_players": 2},
        "3p": {"num_players": 3},
        "4p": {"num_players": 4},
        "5p": {"num_players": 5},
        "3p-all-properties": {"num_players": 3, "property_tokens": "A,B,C,F,G,H,I,L,S,T"},
        # RP-9 scenario play: the event cards shuffled and revealed in rounds 3-8
        "3p-scenario-events": {"num_players": 3, "round_events": "random"},
        # RP-9 with a fixed list and RP-11 with the rulebook's 3-player colours
        "3p-rulebook-colours-fixed-events": {
            "num_players": 3, "colors": "red,yellow,green",
            "round_events": "no_attack,normal,not_played,normal,no_attack,normal,not_played,"
                            "normal"},
        # RP-10: a custom city without D, E, N, P, R, O, Q, J, K (11 buildings, 9 of them
        # with a property), so the hunt stack is reshuffled whenever it runs short
        "4p-small-city": {"num_players": 4, "layout": SMALL_CITY},
    }
    param_specs = (
        Param("num_players", 3, int, "number of players", check=lambda v: 2 <= v <= 5,
              allowed="an int from 2 to 5"),
        Param("layout", "first_game", str,
              "'first_game' or rows of cell letters separated by '/' ('.' = park); a custom "
              "city may leave buildings out (RP-10, at least 11)"),
        Param("property_tokens", "random", str,
              "'random' (players + 1 drawn at setup), comma-separated property letters, "
              "or 'none'"),
        Param("simultaneous", False, bool, "joint-action view of the planning phase"),
        Param("round_events", "none", str,
              "RP-9 scenario event cards: 'none', 'random', or one of normal / no_attack / "
              "not_played per round, comma-separated (at most 6 events)"),
        Param("colors", ",".join(COLOURS), str,
              "the seats' rat colours in seat order, comma-separated (RP-11), e.g. "
              "'red,yellow,green' for the rulebook's 3-player examples",
              allowed="distinct comma-separated colours among " + ", ".join(COLOURS)
              + ", at least one per player", cosmetic=True),
        Param("data_path", None, str, "a replacement ratapolis.json (None: packaged data)"),
    )

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        data = load_data(params["data_path"])
        n = params["num_players"]
        if not data.min_players <= n <= data.max_players:
            raise ValueError(f"bad value {short_repr(n)} for parameter 'num_players': allowed "
                             f"{data.min_players}..{data.max_players}")
        if params["layout"] == "first_game":
            rows = data.first_game_layout
        else:
            rows = tuple(params["layout"].split("/"))
        try:
            layout = parse_layout(data, rows, field="layout", partial=True)  # RP-10
        except ValueError as exc:
            raise ValueError(f"bad value {short_repr(params['layout'])} for parameter 'layout': "
                             f"{exc}; allowed 'first_game' or rows separated by '/'") from exc
        letters = [b.letter for b in data.buildings]
        prop_letters = [data.buildings[b].letter for b in layout.tiles
                        if data.buildings[b].property]
        fixed = None
        if params["property_tokens"] == "none":
            fixed = []
        elif params["property_tokens"] != "random":
            fixed = [t.strip() for t in params["property_tokens"].split(",") if t.strip()]
            if (not fixed or len(set(fixed)) != len(fixed)
                    or any(t not in prop_letters for t in fixed)):
                raise ValueError(f"bad value {short_repr(params['property_tokens'])} for parameter "
                                 f"'property_tokens': allowed 'random', 'none' or one or "
                                 f"more distinct comma-separated letters among "
                                 f"{','.join(prop_letters)}")
            fixed = sorted(fixed, key=letters.index)
        colors = tuple(c.strip() for c in params["colors"].split(","))
        if (len(set(colors)) != len(colors) or any(c not in COLOURS for c in colors)
                or len(colors) < n):
            raise ValueError(f"bad value {short_repr(params['colors'])} for parameter 'colors': "
                             f"allowed at least {n} distinct comma-separated colours among "
                             f"{', '.join(COLOURS)} (one per seat, in seat order)")
        #: RP-11: seat ``s`` plays ``colors[s]`` (labels, observations' plan cells, renders).
        self.colors = colors[:n]
        self.events_random, self.events_fixed = _parse_round_events(data,
                                                                    params["round_events"])
        self._init_tables(data, layout, n, prop_letters, fixed)
        return params

    def _init_tables(self, data: RatapolisData, layout: Layout, n: int,
                     prop_letters: list[str], fixed: list[str] | None) -> None:
        """Precompute the constants the rules read (all derived from the data)."""
        self.data = data
        self.layout = layout
        self.n = n
        nb = len(data.buildings)
        self.nb = nb
        self.letters = [b.letter for b in data.buildings]
        #: capacity = players x multiplier (rulebook Game Elements).
        self.capacity = [n * b.capacity_multiplier for b in data.buildings]
        self.cheese_per_rat = [b.cheese_per_rat for b in data.buildings]
        self.neighbours = [list(x) for x in layout.neighbours]
        #: property kind -> letter of its building (only buildings in the city).
        self.property_letter = {data.buildings[b].property: data.buildings[b].letter
                                for b in layout.tiles if data.buildings[b].property}
        self.prop_letters = prop_letters
        self.fixed_tokens = fixed
        self.tokens_to_draw = min(n + 1, len(prop_letters))
        p = data.max_players
        self.P = p
        self.MOVE = 1 + nb * p
        self.C = self.MOVE + nb * nb        # number of cell actions
        self.CARD = self.C
        self.LOOK = self.CARD + nb
        self.PASS = self.LOOK + p
        self.HOTEL = self.PASS + 1
        self.MARKET = self.PASS + 2
        self.RADIO = self.PASS + 3
        self.HOSPITAL = self.PASS + 4
        self.EVENT = self.HOSPITAL + nb
        self.PLAN = self.EVENT + 2 * len(data.event_cards)
        #: RP-9: the random event cards are revealed from this round on (rounds 3-8).
        self.first_event_round = data.rounds - len(data.event_cards) + 1
        self._geo_cache: dict[tuple[int, ...], tuple[list[list[int]], list[list[int]]]] = {}

    # -- constants ------------------------------------------------------------------------
    def _action_seat_blocks(self):
        """Attacks ``1 + x * P + c`` name the seat ``c`` (its colour, RP-11); Archive looks
        ``LOOK + j`` the seat ``j``."""
        return [(1 + x * self.P, 1) for x in range(self.nb)] + [(self.LOOK, 1)]

    def _extend_action_seat_permutation(self, perm):
        """A joint view's plan ``PLAN + left * C + right`` maps both of its cells."""
        if self.num_distinct_actions() > self.PLAN:
            cells = perm[:self.C]
            perm[self.PLAN:] = self.PLAN + (cells[:, None] * self.C + cells[None, :]).ravel()
        return perm

    def num_distinct_actions(self) -> int:
        if self.params["simultaneous"]:
            return self.PLAN + self.C * self.C
        return self.PLAN

    def max_game_length(self) -> int:
        d = self.data
        per_round = (max(d.cards_early, d.cards_late)  # deal
                     + 1                               # archive
                     + 2 * self.n                      # plan cells
                     + 2 + 1                           # hotel x2, market
                     + 2 + 1 + 1)                      # hunt draw x2, radio, hospital
        return len(self.prop_letters) + d.rounds * (per_round + 1)  # + an event card

    def new_initial_state(self) -> RatapolisState:
        return RatapolisState(self)

    # -- geometry -------------------------------------------------------------------------
    def geometry(self, removed: Sequence[int]) -> tuple[list[list[int]], list[list[int]]]:
        """``(metro, bus)`` destinations per building for the city without ``removed``.

        ``metro[x]``: buildings adjacent to an empty area that ``x`` touches (RP-5);
        ``bus[x]``: buildings reached through one intermediate building tile (RP-6).
        Both exclude ``x`` and removed buildings; cached per removed set.
        """
        key = tuple(sorted(removed))
        hit = self._geo_cache.get(key)
        if hit is not None:
            return hit
        gone = set(key)
        nb = self.nb
        # Empty areas: edge-connected groups of the removed tiles' cells (RP-5).
        owner = {cell: b for b in self.layout.tiles for cell in self.layout.cells[b]}
        empty = {cell for b in key for cell in self.layout.cells[b]}
        area_of: dict[tuple[int, int], int] = {}
        areas: list[set[int]] = []
        for start in sorted(empty):
            if start in area_of:
                continue
            aid = len(areas)
            touching: set[int] = set()
            area_of[start] = aid
            todo = [start]
            while todo:
                r, c = todo.pop()
                for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if nxt in empty and nxt not in area_of:
                        area_of[nxt] = aid
                        todo.append(nxt)
                    elif nxt in owner and owner[nxt] not in gone:
                        touching.add(owner[nxt])
            areas.append(touching)
        metro = [[] for _ in range(nb)]
        for touching in areas:
            for x in touching:
                metro[x].extend(y for y in touching if y != x)
        metro = [sorted(set(m)) for m in metro]
        bus = [[] for _ in range(nb)]
        for x in self.layout.tiles:
            if x in gone:
                continue
            reach = set()
            for z in self.neighbours[x]:
                if z not in gone:
                    reach.update(y for y in self.neighbours[z] if y not in gone)
            reach.discard(x)
            bus[x] = sorted(reach)
        if len(self._geo_cache) > 4096:
            self._geo_cache.clear()
        self._geo_cache[key] = (metro, bus)
        return metro, bus

    # -- evaluation -----------------------------------------------------------------------
    def heuristic_value(self, state: State, player: int) -> float:
        """Cheese lead estimate in [0, 1] from ``state.observation(player)`` only.

        Current cheese (rats x tile value + tokens) of ``player`` against the best rival:
        ``0.5 + (mine - best) / (2 * max(mine, best, 1))``; the exact result at the end.
        """
        obs = state.observation(player)
        if obs["phase"] == END:
            return float(state.returns()[player])
        idx = {ch: i for i, ch in enumerate(self.letters)}
        score = list(obs["cheese_tokens"])
        for letter, counts in obs["board"].items():
            v = self.cheese_per_rat[idx[letter]]
            for s, k in enumerate(counts):
                score[s] += v * k
        mine = score[player]
        best = max(s for i, s in enumerate(score) if i != player)
        return min(1.0, max(0.0, 0.5 + (mine - best) / (2 * max(mine, best, 1))))

    # -- determinization ------------------------------------------------------------------
    def _state_from_observation(self, player: int, observation: Mapping[str, Any],
                                rng: Any = None) -> RatapolisState:
        """Rebuild a full state from ``observation(player)``, sampling what the seat cannot see.

        Sampled: the other seats' hunt cards of every round so far (respecting the face-up
        cards, the revealed hunted / Radio-discarded cards, which must have been in somebody's
        hand, and the seat's Archive looks), the stack's contents (drawn lazily later), and
        in planning the other seats' committed cells, uniformly among their legal plans
        (a seat that committed only its left cell: uniformly among its legal left cells);
        their uncommitted cells stay decision nodes. This is the exact posterior when every
        consistent history weighs the product of its chance probabilities (all deals and
        draws are uniform, so every consistent card assignment is equally likely).

        Raises:
            ValueError: a malformed or impossible observation, naming the field.
        """
        return _rebuild(self, player, observation, make_rng(rng))


class RatapolisState(State):
    """A Ratapolis position. All fields are plain JSON data (see ``engines/api.py``).

    Fields: ``round`` (1-based), ``phase``, ``board[x][s]`` rats of seat ``s`` on building
    ``x``, ``removed`` (hunted buildings in order), ``supply[s]``, ``cheese[s]`` (cheese
    tokens), ``cheese_bank``, ``tokens`` (letter -> holder seat or -1 on its tile),
    ``tokens_gone``, ``token_pool`` / ``tokens_left`` (random setup), ``stack`` (sorted;
    order is drawn lazily), ``discard``, per round ``hands[r][s]`` / ``face_up[r]`` /
    ``hunted[r]`` / ``radio_discarded[r]`` (0-based round index), ``looks`` ([round,
    viewer, target] Archive looks), ``plans[s]`` (unrevealed cells of this round),
    ``plans_log`` (revealed plans per round), ``hotel`` (pending [from, to, cell] or None),
    ``drawn`` (hunt card on the table in phase 4), ``radio_used``.
    """

    def __init__(self, game: RatapolisGame):
        super().__init__(game)
        g = game
        n = g.n
        self.round = 1
        self.board = [[1 if x in g.layout.tiles else 0] * n for x in range(g.nb)]  # RP-1
        self.removed: list[int] = []
        self.supply = [g.data.rats_per_player - len(g.layout.tiles)] * n
        self.cheese = [0] * n
        self.cheese_bank = g.data.cheese_tokens
        self.tokens: dict[str, int] = {}
        self.tokens_gone: list[str] = []
        self.stack = list(g.layout.tiles)
        self.discard: list[int] = []
        self.hands = [[NO] * n]
        self.face_up: list[list[int]] = [[]]
        self.hunted = [NO]
        self.radio_discarded: list[list[int]] = [[]]
        self.looks: list[list[int]] = []
        self.plans: list[list[int]] = [[] for _ in range(n)]
        self.plans_log: list[list[list[int]]] = []
        self.hotel: list[int] | None = None
        self.drawn = NO
        self.radio_used = False
        # RP-9: each round's effect once known, the revealed event card [card, side] (or
        # None) per round, and the event cards still face down (random events only).
        self.events: list[str] = []
        self.event_cards: list[list[int] | None] = []
        self.event_deck = list(range(len(g.data.event_cards))) if g.events_random else []
        #: Rounds at whose start the discards were shuffled into the stack (public).
        self.reshuffles: list[int] = []
        if g.fixed_tokens is not None:
            self.tokens = {t: NO for t in g.fixed_tokens}
            self.token_pool: list[str] = []
            self.tokens_left = 0
            self.phase = DEAL
            self._start_round()
        else:
            self.token_pool = list(g.prop_letters)
            self.tokens_left = g.tokens_to_draw
            self.phase = TOKENS if self.tokens_left else DEAL
            if not self.tokens_left:
                self._start_round()
        #: Perfect recall: each seat's view of every action so far (``engines/api.py``,
        #: :meth:`_view_codes`: a hidden card dealt or a plan cell committed is ``-1`` to
        #: the other seats, RP-2).
        self.views: list[list] = [[] for _ in range(n)]

    # -- small helpers ----------------------------------------------------------------------
    def holder(self, kind: str) -> int:
        """Seat holding the token of property ``kind`` (e.g. ``"hotel"``), or -1."""
        letter = self._game.property_letter.get(kind)
        return self.tokens.get(letter, NO) if letter else NO

    def event_of(self, r: int) -> str:
        """Round ``r``'s effect (RP-9: ``normal``, ``no_attack`` or ``not_played``; 1-based);
        ``normal`` while its event card is still face down."""
        return self.events[r - 1] if 0 < r <= len(self.events) else NORMAL

    def round_cards(self, r: int | None = None) -> list[int]:
        """Hunt cards taken in round ``r`` (1-based; default: this round), sorted."""
        i = (self.round if r is None else r) - 1
        return sorted([c for c in self.hands[i] if c != NO] + self.face_up[i])

    def _private_count(self) -> int:
        """Secret cards dealt this round: one per seat, or none when the cards do not go
        round (rulebook Phase 1: 5 players, rounds 5-8, all 4 cards face up)."""
        n = self._game.n
        return n if self._game.data.cards_in_round(self.round) >= n else 0

    def _city(self) -> list[int]:
        gone = self.removed
        return [x for x in self._game.layout.tiles if x not in gone]

    # -- the contract -----------------------------------------------------------------------
    def current_player(self) -> int:
        ph = self.phase
        if ph == PLAN:
            if self._game.params["simultaneous"]:
                return SIMULTANEOUS
            for s, cells in enumerate(self.plans):
                if len(cells) < 2:
                    return s
        if ph in (TOKENS, DEAL, HUNT, EVENT):
            return CHANCE
        if ph == ARCHIVE:
            return self.holder("archive")
        if ph == HOTEL:
            return self.holder("hotel")
        if ph == MARKET:
            return self.holder("market")
        if ph == RADIO:
            return self.holder("radio")
        if ph == HOSPITAL:
            return self.holder("hospital")
        return TERMINAL

    def _next_planner(self) -> int:
        for s, cells in enumerate(self.plans):
            if len(cells) < 2:
                return s
        return NO

    def rewind_hidden_moves(self, player: int) -> list[int | None]:
        """RP-2: back to the first planning decision of this round that ``player`` did not
        see (a rival's committed cell); the cells committed since then, in seat order, are
        the moves to replay (``player``'s own by id, a rival's as ``None``). See
        ``State.rewind_hidden_moves`` (engines/api.py); ``[]`` outside the sequential
        planning phase or when no rival has committed a cell."""
        g = self._game
        player = check_player(player, g.n)
        if self.phase != PLAN or g.params["simultaneous"]:
            return []
        hidden = [s for s in range(g.n) if s != player and self.plans[s]]
        if not hidden:
            return []
        script: list[int | None] = []
        for s in range(hidden[0], g.n):
            script += [a if s == player else None for a in self.plans[s]]
            self.plans[s] = []
        self._rewind_logs(len(script))
        return script

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal actions; in the joint view's planning node, per seat.

        In the joint view (``simultaneous=True``) at planning, ``legal_actions(seat)`` lists
        that seat's plan ids (empty once it has committed); without ``player`` it lists the
        plans of the lowest seat still to commit, which ``apply_action`` then commits (so a
        history replays).
        """
        if self.phase == PLAN and self._game.params["simultaneous"]:
            player = check_actor(player, self._game.n)  # (the base class checks the rest)
            if player is None:
                player = self._next_planner()
            elif not 0 <= player < self._game.n or self.plans[player]:
                return []
            return self.plan_ids(player)
        return super().legal_actions(player)

    def _legal_actions(self) -> list[int]:
        g = self._game
        ph = self.phase
        if ph == PLAN:
            s = self._next_planner()
            cells = self.plans[s]
            return self.cell_actions(s, len(cells), cells[0] if cells else None)
        if ph == ARCHIVE:
            h = self.holder("archive")
            hand = self.hands[self.round - 1]
            return [g.LOOK + j for j in range(g.n) if j != h and hand[j] != NO] + [g.PASS]
        if ph == HOTEL:
            return [g.PASS, g.HOTEL]
        if ph == MARKET:
            return [g.PASS, g.MARKET]
        if ph == RADIO:
            return [g.PASS, g.RADIO]
        if ph == HOSPITAL:
            return [g.PASS] + [g.HOSPITAL + y for y in self.hospital_destinations()]
        return []

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        g = self._game
        if self.phase == EVENT:  # RP-9: a face-down event card, side uniform
            p = 0.5 / len(self.event_deck)
            return [(g.EVENT + 2 * c + side, p) for c in self.event_deck for side in (0, 1)]
        if self.phase == TOKENS:
            pool = [g.letters.index(t) for t in self.token_pool]
        elif self.phase == DEAL:
            pool = self.stack
        else:  # HUNT: this round's dealt and face-up cards, shuffled (rulebook Phase 4)
            pool = self.round_cards()
        p = 1.0 / len(pool)
        return [(g.CARD + x, p) for x in sorted(pool)]

    # -- planning: what a seat may write in a cell (rulebook Phase 2) ---------------------
    def cell_actions(self, s: int, cell: int, left: int | None = None,
                     dests: list[list[int]] | None = None) -> list[int]:
        """Sorted cell actions seat ``s`` may plan in ``cell`` (0 left, 1 right); ``dests``
        is :meth:`_destinations` of ``s`` if the caller has it.

        Idle; attacks on a building where ``s`` has a rat (or, holding the Shooting range,
        one adjacent to such a building) against a rival colour; moves of the group on a
        building where ``s`` has a rat to an adjacent building (or across an empty area
        with the Metro, or through one building with the Bus station). For the left cell
        the board is exactly the board its attacks will meet, so an attack also needs a rat
        of the target colour there. For the right cell the destination of the seat's own
        left move also counts as a building where it has rats, and any rival colour may be
        targeted (the left cell may bring rats in); RP-3 checks legality at resolution.
        """
        g = self._game
        n = g.n
        board = self.board
        city = self._city()
        own = [x for x in city if board[x][s] > 0]
        if cell == 1 and left is not None:
            y = self.right_key(s, left)
            if y != NO:
                own = sorted(own + [y])
        acts = [0]
        targets = own
        if self.holder("shooting_range") == s:
            gone = self.removed
            reach = set(own)
            for x in own:
                reach.update(y for y in g.neighbours[x] if y not in gone)
            targets = sorted(reach)
        p = g.P
        for x in targets:
            row = board[x]
            base = 1 + x * p
            for c in range(n):
                if c != s and (cell == 1 or row[c] > 0):
                    acts.append(base + c)
        if dests is None:
            dests = self._destinations(s)
        for x in own:
            base = g.MOVE + x * g.nb
            acts.extend(base + y for y in dests[x])
        return acts

    def _destinations(self, s: int) -> list[list[int]]:
        """Per building, where seat ``s``'s group may move (adjacent; Metro; Bus station)."""
        g = self._game
        gone = self.removed
        metro_on = self.holder("metro") == s
        bus_on = self.holder("bus_station") == s
        if metro_on or bus_on:
            metro, bus = g.geometry(gone)
        out = []
        for x in range(g.nb):
            d = [y for y in g.neighbours[x] if y not in gone]
            if metro_on or bus_on:
                extra = set(d)
                if metro_on:
                    extra.update(metro[x])
                if bus_on:
                    extra.update(bus[x])
                d = sorted(extra)
            out.append(d)
        return out

    def right_key(self, s: int, left: int) -> int:
        """What seat ``s``'s right cell options depend on of its left cell ``left``
        (:meth:`cell_actions`): the building a left move enters where the seat has no rat
        yet, else ``NO`` (every other left cell leaves the same right cells)."""
        g = self._game
        if left >= g.MOVE:
            y = (left - g.MOVE) % g.nb
            if self.board[y][s] == 0:
                return y
        return NO

    def plan_cells(self, s: int) -> list[tuple[int, list[int]]]:
        """Seat ``s``'s plans as ``(left, rights)`` pairs: every left cell it may plan, in
        order, with the right cells :meth:`cell_actions` allows after it. The right cells are
        listed once per :meth:`right_key` (left cells of one key share the list: read only)."""
        dests = self._destinations(s)
        rights: dict[int, list[int]] = {}
        out = []
        for left in self.cell_actions(s, 0, dests=dests):
            key = self.right_key(s, left)
            if key not in rights:
                rights[key] = self.cell_actions(s, 1, left if key != NO else None, dests)
            out.append((left, rights[key]))
        return out

    def plan_ids(self, s: int) -> list[int]:
        """Joint view: all plan ids ``PLAN + left*C + right`` of seat ``s``, sorted
        (:meth:`plan_cells`)."""
        g = self._game
        out = []
        for left, rights in self.plan_cells(s):
            base = g.PLAN + left * g.C
            out.extend([base + r for r in rights])
        return out

    def apply_actions(self, actions: Sequence[int]) -> None:
        """Joint view: commit one plan id per seat (seat order) at the planning node.

        Every plan is checked before any is applied; the history records them in seat
        order (replayable with ``apply_action``).

        Plan ids may be Python or numpy ints, as in ``apply_action``.

        Raises:
            ValueError: not at a joint planning node, not a sequence, or a wrong number
                of actions.
            IllegalActionError: a plan is not legal for its seat (nothing is applied); the
                message gives the count and the first few legal plans, ``legal`` has all.
        """
        g = self._game
        if not (self.phase == PLAN and g.params["simultaneous"]):
            raise ValueError("apply_actions() is only for the joint planning node "
                             "(game parameter simultaneous=True, phase 'plan')")
        if any(self.plans):
            raise ValueError("apply_actions(): some seats have already committed")
        if isinstance(actions, str | bytes) or not isinstance(actions, Sequence | np.ndarray):
            raise ValueError(f"apply_actions() needs a sequence of {g.n} plans (one per "
                             f"seat), got {short_repr(actions)}")
        if len(actions) != g.n:
            raise ValueError(f"apply_actions() needs {g.n} plans (one per seat), "
                             f"got {len(actions)}")
        for s, a in enumerate(actions):
            legal = self.plan_ids(s)
            if isinstance(a, bool) or not isinstance(a, int | np.integer) or int(a) not in legal:
                raise self._illegal(a, legal, s, f"plan of seat {s}",
                                    f"state.legal_actions({s})")
        for a in actions:
            self.apply_action(int(a))

    def apply_action(self, action: int) -> None:
        """``State.apply_action``; an IllegalActionError with many legal actions (a joint
        planning node) summarises them instead of listing thousands."""
        try:
            super().apply_action(action)
        except IllegalActionError as exc:
            if len(exc.legal) <= MAX_LISTED:
                raise
            cp = self.current_player()
            seat = self._next_planner() if cp == SIMULTANEOUS else cp
            raise self._illegal(action, exc.legal, seat, "", "state.legal_actions()") from None

    def _illegal(self, action: Any, legal: list[int], seat: int, reason: str,
                 how: str) -> IllegalActionError:
        """An IllegalActionError whose message shows the count and the first legal actions."""
        shown = ", ".join(f"{a} ({self._action_to_string(seat, a)})"
                          for a in legal[:MAX_LISTED])
        more = f", ... ({len(legal) - MAX_LISTED} more)" if len(legal) > MAX_LISTED else ""
        why = f" ({reason})" if reason else ""
        err = IllegalActionError(action, [], reason=reason)
        err.legal = list(legal)
        err.labels = {}
        err.args = (f"illegal action {action!r}{why}; {len(legal)} legal actions: "
                    f"[{shown}{more}]; list them all with {how}",)
        return err

    # -- applying actions -------------------------------------------------------------------
    def _view_codes(self, action: int) -> list[int]:
        """Each seat's view of ``action`` (the ``views`` log, as :meth:`describe_action`):
        a secret hunt card dealt is seen by its seat only, a plan cell by its planner only
        until the reveal (RP-2); everything else by everybody."""
        n = self._game.n
        if self.phase == DEAL:
            hand = self.hands[self.round - 1]
            if self._private_count() and NO in hand:
                seat = hand.index(NO)
                return [action if q == seat else -1 for q in range(n)]
        elif self.phase == PLAN:
            seat = self._next_planner()
            return [action if q == seat else -1 for q in range(n)]
        return [action] * n

    def _apply_action(self, action: int) -> None:
        self._log_views(action)
        g = self._game
        ph = self.phase
        if ph == TOKENS:
            letter = g.letters[action - g.CARD]
            self.token_pool.remove(letter)
            self.tokens[letter] = NO
            self.tokens = {t: self.tokens[t] for t in sorted(self.tokens, key=g.letters.index)}
            self.tokens_left -= 1
            if self.tokens_left == 0:
                self.token_pool = []
                self._start_round()
        elif ph == EVENT:
            card, side = divmod(action - g.EVENT, 2)
            self.event_deck.remove(card)
            ev = g.data.event_cards[card]
            self._begin_round(ev.side_b if side else ev.side_a, [card, side])
        elif ph == DEAL:
            self._deal(action - g.CARD)
        elif ph == ARCHIVE:
            if action != g.PASS:
                self.looks.append([self.round, self.holder("archive"), action - g.LOOK])
            self.phase = PLAN
        elif ph == PLAN:
            s = self._next_planner()
            if action >= g.PLAN:
                left, right = divmod(action - g.PLAN, g.C)
                self.plans[s] = [left, right]
            else:
                self.plans[s].append(action)
            if self._next_planner() == NO:
                self.plans_log.append(self.plans)  # the reveal (rulebook Phase 3)
                self.plans = [[] for _ in range(g.n)]
                self._resolve_from(0)
        elif ph == HOTEL:
            x, y, cell = self.hotel
            if action == g.HOTEL:
                h = self.holder("hotel")
                self.board[x][h] -= 1
                self.board[y][h] += 1
            self.hotel = None
            self._resolve_from(cell + 1)
        elif ph == MARKET:
            if action == g.MARKET:
                h = self.holder("market")
                self.supply[h] -= 1
                self.board[g.letters.index(g.property_letter["market"])][h] += 1
            self._to_hunt()
        elif ph == HUNT:
            self.drawn = action - g.CARD
            self._after_draw()
        elif ph == RADIO:
            if action == g.RADIO:
                # RP-6: the card is shuffled back among this round's cards and a new card drawn.
                self.radio_discarded[self.round - 1].append(self.drawn)
                self.radio_used = True
                self.drawn = NO
                self.phase = HUNT
            else:
                self._after_final_draw()
        elif ph == HOSPITAL:
            if action != g.PASS:
                h = self.holder("hospital")
                self.board[self.drawn][h] -= 1
                self.board[action - g.HOSPITAL][h] += 1
            self._remove_hunted()

    def _deal(self, x: int) -> None:
        """Phase 1: give the next seat its secret card, else lay ``x`` face up."""
        i = self.round - 1
        self.stack.remove(x)
        hand = self.hands[i]
        if self._private_count() and NO in hand:
            hand[hand.index(NO)] = x
        else:
            self.face_up[i].append(x)
        if len(self.round_cards()) == self._game.data.cards_in_round(self.round):
            self._start_planning()

    def _start_planning(self) -> None:
        h = self.holder("archive")
        hand = self.hands[self.round - 1]
        if h != NO and any(c != NO for j, c in enumerate(hand) if j != h):
            self.phase = ARCHIVE
        else:
            self.phase = PLAN

    # -- phase 3: carrying out actions ------------------------------------------------------
    def _resolve_from(self, cell: int) -> None:
        """Resolve cells ``cell``..1 (left before right), stopping at a Hotel decision."""
        plans = self.plans_log[-1]
        for c in range(cell, 2):
            actions = [p[c] for p in plans]
            resolve_attacks(self, actions)
            pending = resolve_moves(self, actions)
            if pending is not None:
                self.hotel = pending + [c]
                self.phase = HOTEL
                return
        self._end_of_actions()

    def _end_of_actions(self) -> None:
        """End of phase 3: the Market holder may place a rat on a free place (RP-6)."""
        g = self._game
        h = self.holder("market")
        if h != NO and self.supply[h] > 0:
            a = g.letters.index(g.property_letter["market"])
            if sum(self.board[a]) < g.capacity[a]:
                self.phase = MARKET
                return
        self._to_hunt()

    def _to_hunt(self) -> None:
        """Phase 4 begins, unless the round's event says no attack (RP-9): then no tile is
        hunted and the round's hunt cards go to the discard area as usual."""
        if self.event_of(self.round) == NO_ATTACK:
            self.discard = sorted(self.discard + self.round_cards())
            self._end_round()
        else:
            self.phase = HUNT

    # -- phase 4: the cats hunt -------------------------------------------------------------
    def _after_draw(self) -> None:
        if self.holder("radio") != NO and not self.radio_used:
            self.phase = RADIO
        else:
            self._after_final_draw()

    def hospital_destinations(self) -> list[int]:
        """Buildings adjacent to the hunted tile with room for one more rat (RP-6)."""
        g = self._game
        x = self.drawn
        gone = self.removed
        return [y for y in g.neighbours[x]
                if y not in gone and sum(self.board[y]) < g.capacity[y]]

    def _after_final_draw(self) -> None:
        h = self.holder("hospital")
        if h != NO and self.board[self.drawn][h] > 0 and self.hospital_destinations():
            self.phase = HOSPITAL
        else:
            self._remove_hunted()

    def _remove_hunted(self) -> None:
        """Remove the hunted tile: rats go home, its token leaves the game (RP-5)."""
        g = self._game
        x = self.drawn
        i = self.round - 1
        for s in range(g.n):
            self.supply[s] += self.board[x][s]
            self.board[x][s] = 0
        self.removed.append(x)
        letter = g.letters[x]
        if letter in self.tokens:
            del self.tokens[letter]
            self.tokens_gone.append(letter)
        self.hunted[i] = x
        self.discard = sorted(self.discard + [c for c in self.round_cards() if c != x])
        self.drawn = NO
        self._end_round()

    def _end_round(self) -> None:
        """After phase 4: the game ends in the last round, else phase 5 and the next round."""
        g = self._game
        if self.round == g.data.rounds:
            self._pay_cheese_shop()  # RP-7: round 8 included
            self.phase = END
            return
        self._distribute_tokens()
        self._pay_cheese_shop()
        self._next_round()

    def _distribute_tokens(self) -> None:
        """Phase 5: a token goes to the strict majority on its tile, else back to the tile."""
        g = self._game
        for letter in self.tokens:
            counts = self.board[g.letters.index(letter)]
            top = max(counts)
            self.tokens[letter] = counts.index(top) if top and counts.count(top) == 1 else NO

    def _pay_cheese_shop(self) -> None:
        """RP-7: the Cheese shop holder takes 1 cheese token while tokens remain."""
        h = self.holder("cheese_shop")
        if h != NO and self.cheese_bank > 0:
            self.cheese[h] += 1
            self.cheese_bank -= 1

    def _next_round(self) -> None:
        g = self._game
        n = g.n
        self.round += 1
        self.hands.append([NO] * n)
        self.face_up.append([])
        self.hunted.append(NO)
        self.radio_discarded.append([])
        self.radio_used = False
        if (self.round == g.data.reshuffle_round
                or len(self.stack) < g.data.cards_in_round(self.round)):
            # Rulebook Phase 1: the stack has run out; the 16 discards become the new stack.
            # With RP-9 events the stack may still hold cards: they are shuffled in too. In
            # a smaller city (RP-10) the stack runs out earlier: whenever it cannot supply a
            # round, the discards are shuffled into it at the round's start.
            self.stack = sorted(self.stack + self.discard)
            self.discard = []
            self.reshuffles.append(self.round)
        self.phase = DEAL
        self._start_round()

    def _start_round(self) -> None:
        """A round's start: reveal its event card (random events, RP-9) or read its entry of
        ``round_events``, then begin it."""
        g = self._game
        if g.events_random and self.round >= g.first_event_round and self.event_deck:
            self.phase = EVENT
            return
        effect = g.events_fixed[self.round - 1] if g.events_fixed else NORMAL
        self._begin_round(effect, None)

    def _begin_round(self, effect: str, card: list[int] | None) -> None:
        """RP-9: a round that is not played skips its five phases (no hunt card is dealt, no
        plan made, no tile hunted, no token distributed, no Cheese shop income); the game
        still ends after the last round. Its revealed plans are recorded as idle."""
        g = self._game
        self.events.append(effect)
        self.event_cards.append(card)
        if effect != NOT_PLAYED:
            self.phase = DEAL
            return
        self.plans_log.append([[0, 0] for _ in range(g.n)])
        if self.round == g.data.rounds:
            self.phase = END
        else:
            self._next_round()

    # -- results ----------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """Cheese now: rats x the tile's cheese, plus cheese tokens (rulebook End of the Game)."""
        g = self._game
        out = [float(c) for c in self.cheese]
        for x in self._city():
            v = g.cheese_per_rat[x]
            for s, k in enumerate(self.board[x]):
                out[s] += v * k
        return out

    def rats_in_city(self) -> list[int]:
        """Rats of each seat on building tiles (the first tie-breaker, RP-8)."""
        n = self._game.n
        return [sum(self.board[x][s] for x in self._city()) for s in range(n)]

    def _returns(self) -> list[float]:
        """Most cheese wins; tie: more rats in the city; still tied: shared (RP-8)."""
        keys = list(zip(self.scores(), self.rats_in_city(), strict=True))
        best = max(keys)
        winners = [s for s, k in enumerate(keys) if k == best]
        return [1.0 / len(winners) if s in winners else 0.0 for s in range(len(keys))]

    # -- labels -----------------------------------------------------------------------------
    def _valid_id(self, action: int) -> bool:
        """``action`` is an id of this game (in range, and no colour or seat beyond ``n``)."""
        g = self._game
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            return False
        if not 0 <= action < g.num_distinct_actions():
            return False
        if action >= g.PLAN:
            return all(self._valid_id(a) for a in divmod(action - g.PLAN, g.C))
        if 0 < action < g.MOVE:
            return (action - 1) % g.P < g.n  # attack: a colour in play
        if g.LOOK <= action < g.PASS:
            return action - g.LOOK < g.n  # Archive look at a seat
        return True

    def _cell_label(self, a: int) -> str:
        g = self._game
        if a == 0:
            return "idle"
        if a < g.MOVE:
            x, c = divmod(a - 1, g.P)
            return f"attack {g.letters[x]} {g.colors[c]}"
        x, y = divmod(a - g.MOVE, g.nb)
        return f"move {g.letters[x]}>{g.letters[y]}"

    def _action_to_string(self, player: int, action: int) -> str:
        g = self._game
        if not self._valid_id(action):
            return f"invalid action {action}"
        if action < g.C:
            return self._cell_label(action)
        if action >= g.PLAN:
            left, right = divmod(action - g.PLAN, g.C)
            return f"plan {self._cell_label(left)} / {self._cell_label(right)}"
        if action < g.LOOK:
            letter = g.letters[action - g.CARD]
            if self.phase == TOKENS:
                return f"token {letter}"
            if self.phase == DEAL:
                i = self.round - 1
                hand = self.hands[i]
                if self._private_count() and NO in hand:
                    return f"deal {letter} to {g.colors[hand.index(NO)]}"
                return f"face up {letter}"
            return f"hunt {letter}"
        if g.EVENT <= action < g.PLAN:
            card, side = divmod(action - g.EVENT, 2)
            ev = g.data.event_cards[card]
            effect = ev.side_b if side else ev.side_a
            # readable: the card's place in the box's set, not the data file's id
            return f"event card {card + 1} side {'AB'[side]}: {EFFECT_TEXT[effect]}"
        if action < g.PASS:
            return f"archive: look at {g.colors[action - g.LOOK]}'s card"
        if action >= g.HOSPITAL:
            return f"hospital: move a rat to {g.letters[action - g.HOSPITAL]}"
        return {g.PASS: "pass", g.HOTEL: "hotel: +1 rat", g.MARKET: "market: place a rat",
                g.RADIO: "radio: redraw"}[action]

    def describe_action(self, viewer: int | None, action: int) -> str:
        """As ``viewer`` perceives it: secret cards and unrevealed plans are hidden."""
        cp = self.current_player()
        if self.phase == DEAL:
            hand = self.hands[self.round - 1]
            if self._private_count() and NO in hand:
                s = hand.index(NO)
                if viewer != s:
                    return f"deal a hidden card to {self._game.colors[s]}"
            return self._action_to_string(CHANCE, action)
        if self.phase in (TOKENS, HUNT, EVENT):
            return self._action_to_string(CHANCE, action)
        if self.phase == PLAN:
            s = self._next_planner()
            if viewer != s:
                return f"{self._game.colors[s]} commits a hidden plan cell"
            return self._action_to_string(s, action)
        return self._action_to_string(cp, action)  # property decisions are public

    def render(self, player: int) -> str:
        """Seat ``player``'s view as text for a terminal (``view.render``): the city grid
        with rat counts, the buildings, standings, the hunt board and the plans."""
        from .view import render

        return render(self, player)

    # -- observation ------------------------------------------------------------------------
    def observation(self, player: int) -> dict:
        """What seat ``player`` knows (rulebook Phase 1 "Important", Phase 2, Phase 4).

        Public: the board, supplies, cheese tokens, property tokens, every face-up and
        revealed hunt card, stack and discard counts, the rounds that reshuffled the stack,
        who has been dealt a card, who has committed how many cells, revealed plans, Archive
        looks (who looked at whom), each round's event and revealed event card (RP-9) and the
        number of event cards still face down.
        Private: the seat's own hunt cards of every round, the cards it saw with the
        Archive, its own unrevealed cells. Nothing else.

        Raises:
            ValueError: ``player`` is not a seat (an int or numpy int ``0..n-1``).
        """
        g = self._game
        player = check_player(player, g.n)
        L = g.letters
        rounds = []
        for i in range(self.round):
            hand = self.hands[i]
            rounds.append({
                "face_up": [L[c] for c in self.face_up[i]],
                "dealt": [c != NO for c in hand],
                "my_card": L[hand[player]] if hand[player] != NO else None,
                "hunted": L[self.hunted[i]] if self.hunted[i] != NO else None,
                "radio_discarded": [L[c] for c in self.radio_discarded[i]],
                "plans": ([[self._cell_label(a) for a in p] for p in self.plans_log[i]]
                          if i < len(self.plans_log) and self.event_of(i + 1) != NOT_PLAYED
                          else None),
                "event": self.events[i] if i < len(self.events) else None,  # RP-9: public
                "event_card": (None if i >= len(self.event_cards) or not self.event_cards[i]
                               else {"id": g.data.event_cards[self.event_cards[i][0]].id,
                                     "side": "AB"[self.event_cards[i][1]]}),
            })
        looks = []
        for r, v, t in self.looks:
            look = {"round": r, "viewer": v, "target": t}
            if v == player:
                look["card"] = L[self.hands[r - 1][t]]
            looks.append(look)
        return {
            "player": player,
            "num_players": g.n,
            "round": self.round,
            "phase": self.phase,
            "current_player": self.current_player(),
            "board": {L[x]: list(self.board[x]) for x in self._city()},
            "removed": [L[x] for x in self.removed],
            "supply": list(self.supply),
            "cheese_tokens": list(self.cheese),
            "cheese_bank": self.cheese_bank,
            "tokens": dict(self.tokens),
            "tokens_gone": list(self.tokens_gone),
            "token_pool": list(self.token_pool),
            "tokens_left": self.tokens_left,
            "stack_count": len(self.stack),
            "discard_count": len(self.discard),
            "rounds": rounds,
            "archive_looks": looks,
            "committed": [len(p) for p in self.plans],
            "my_plan": [self._cell_label(a) for a in self.plans[player]],
            "hotel": ({"from": L[self.hotel[0]], "to": L[self.hotel[1]], "cell": self.hotel[2]}
                      if self.hotel else None),
            "drawn": L[self.drawn] if self.drawn != NO else None,
            "radio_used": self.radio_used,
            "event_cards_left": len(self.event_deck),
            "reshuffles": list(self.reshuffles),
        }


def _parse_round_events(data: RatapolisData, value: str) -> tuple[bool, list[str] | None]:
    """RP-9: ``(random, fixed)`` from the ``round_events`` parameter (see RatapolisGame).

    Raises:
        ValueError: naming the parameter, the bad entry and what is allowed.
    """
    ncards = len(data.event_cards)
    allowed = (f"allowed 'none', 'random' or {data.rounds} comma-separated entries among "
               f"{', '.join(ROUND_EFFECTS)} with at most {ncards} not 'normal' "
               f"(one event card each)")
    if value == "none":
        return False, None
    if value == "random":
        if not ncards:
            raise ValueError(f"bad value {short_repr(value)} for parameter 'round_events': the "
                             f"data file has no event cards")
        return True, None
    entries = [e.strip() for e in value.split(",")]
    bad = [e for e in entries if e not in ROUND_EFFECTS]
    if bad:
        raise ValueError(f"bad value {short_repr(value)} for parameter 'round_events': unknown "
                         f"entry {short_repr(bad[0])}; {allowed}")
    if len(entries) != data.rounds:
        raise ValueError(f"bad value {short_repr(value)} for parameter 'round_events': "
                         f"{len(entries)} entries, one per round needed; {allowed}")
    events = sum(e != NORMAL for e in entries)
    if events > ncards:
        raise ValueError(f"bad value {short_repr(value)} for parameter 'round_events': {events} "
                         f"events but only {ncards} event cards; {allowed}")
    return False, entries


# -- resolution (rulebook Phase 3), small functions over the state's board ------------------
def attack_allowed(state: RatapolisState, s: int, x: int) -> bool:
    """RP-3: seat ``s`` may attack on building ``x`` now (own rat there, or adjacent with the
    Shooting range); removed buildings cannot be attacked."""
    g = state._game
    if x in state.removed:
        return False
    if state.board[x][s] > 0:
        return True
    if state.holder("shooting_range") == s:
        return any(state.board[y][s] > 0 for y in g.neighbours[x] if y not in state.removed)
    return False


def resolve_attacks(state: RatapolisState, actions: Sequence[int]) -> None:
    """All attacks of one cell at once (rulebook Phase 3): legality is checked on the board
    before any applies (RP-3); each attack removes one rat of its colour, so k attacks on
    one colour remove min(k, its rats)."""
    g = state._game
    hits: dict[tuple[int, int], int] = {}
    for s, a in enumerate(actions):
        if 0 < a < g.MOVE:
            x, c = divmod(a - 1, g.P)
            if attack_allowed(state, s, x):
                hits[(x, c)] = hits.get((x, c), 0) + 1
    for (x, c), k in hits.items():
        gone = min(k, state.board[x][c])
        state.board[x][c] -= gone
        state.supply[c] += gone


def share_capacity(free: int, groups: Sequence[int]) -> list[int]:
    """RP-4: rats each mover brings in when ``free`` places are shared by ``groups``.

    While free >= movers still moving, each moves one more rat; a remainder smaller than a
    full pass stays unused. Returns the moved counts, same order as ``groups``.
    """
    moved = [0] * len(groups)
    while True:
        active = [i for i, k in enumerate(groups) if moved[i] < k]
        if not active or free < len(active):
            return moved
        for i in active:
            moved[i] += 1
        free -= len(active)


def resolve_moves(state: RatapolisState, actions: Sequence[int]) -> list[int] | None:
    """All moves of one cell at once (rulebook Phase 3, RP-4).

    Group sizes and free places are read from the board at the start of the step
    (departures free no room in the same step). Per destination the Fire station holder
    moves first, alone; the others share with :func:`share_capacity`. Rats that do not fit
    stay. Returns ``[from, to]`` when the Hotel holder may still move one rat over capacity
    (a decision, RP-6), else ``None``.
    """
    g = state._game
    board = state.board
    by_dest: dict[int, list[tuple[int, int, int]]] = {}
    for s, a in enumerate(actions):
        if a >= g.MOVE:
            x, y = divmod(a - g.MOVE, g.nb)
            group = board[x][s]
            if group > 0 and x not in state.removed and y not in state.removed:  # RP-3, RP-5
                by_dest.setdefault(y, []).append((s, x, group))
    fire = state.holder("fire_station")
    hotel = state.holder("hotel")
    transfers: list[tuple[int, int, int, int]] = []
    pending = None
    for y in sorted(by_dest):
        movers = by_dest[y]
        start = sum(board[y])
        free = max(0, g.capacity[y] - start)
        moved = [0] * len(movers)
        others = []
        for i, (s, _x, group) in enumerate(movers):
            if s == fire:
                moved[i] = min(free, group)
                free -= moved[i]
            else:
                others.append(i)
        shared = share_capacity(free, [movers[i][2] for i in others])
        for i, k in zip(others, shared, strict=True):
            moved[i] = k
        arrivals = sum(moved)
        for i, (s, x, group) in enumerate(movers):
            transfers.append((s, x, y, moved[i]))
            # Hotel (RP-6): one rat over capacity, and only one above capacity per tile.
            if s == hotel and moved[i] < group and start + arrivals <= g.capacity[y]:
                pending = [x, y]
    for s, x, y, k in transfers:
        board[x][s] -= k
        board[y][s] += k
    return pending


# -- determinization -------------------------------------------------------------------------
def _fail(field: str, what: str) -> ValueError:
    return ValueError(f"bad observation field {field!r}: {what}")


def _get(obs: Mapping[str, Any], key: str, typ: type | tuple[type, ...], field: str = "") -> Any:
    if key not in obs:
        raise _fail(field + key, "missing")
    value = obs[key]
    if isinstance(value, bool) and typ is int:
        raise _fail(field + key, f"expected an integer, got {value!r}")
    if not isinstance(value, typ):
        raise _fail(field + key, f"expected {typ}, got {value!r}")
    return value


def _letter(g: RatapolisGame, value: Any, field: str) -> int:
    if not isinstance(value, str) or value not in g.letters:
        raise _fail(field, f"expected a building letter, got {value!r}")
    return g.letters.index(value)


def _cell_from_label(g: RatapolisGame, label: Any, field: str) -> int:
    if label == "idle":
        return 0
    if isinstance(label, str) and label.startswith("attack "):
        parts = label.split()
        if len(parts) == 3 and parts[2] in g.colors:
            return 1 + _letter(g, parts[1], field) * g.P + g.colors.index(parts[2])
    if isinstance(label, str) and label.startswith("move ") and len(label) == 8 \
            and label[6] == ">":
        return g.MOVE + _letter(g, label[5], field) * g.nb + _letter(g, label[7], field)
    raise _fail(field, f"not a plan cell label: {label!r}")


def _rebuild(g: RatapolisGame, p: int, obs: Mapping[str, Any], rng: Any) -> RatapolisState:
    """See :meth:`RatapolisGame.state_from_observation`."""
    if not isinstance(obs, Mapping):
        raise _fail("observation", "expected a dict")
    n = g.n
    if _get(obs, "player", int) != p:
        raise _fail("player", f"observation is for seat {obs['player']}, not {p}")
    if _get(obs, "num_players", int) != n:
        raise _fail("num_players", f"expected {n}")
    st = RatapolisState(g)
    rnd = _get(obs, "round", int)
    if not 1 <= rnd <= g.data.rounds:
        raise _fail("round", f"expected 1..{g.data.rounds}")
    st.round = rnd
    phase = _get(obs, "phase", str)
    if phase not in (TOKENS, EVENT, DEAL, ARCHIVE, PLAN, HOTEL, MARKET, HUNT, RADIO, HOSPITAL,
                     END):
        raise _fail("phase", f"unknown phase {phase!r}")
    st.phase = phase
    # Board, removed tiles, supplies.
    st.removed = [_letter(g, v, "removed") for v in _get(obs, "removed", list)]
    if len(set(st.removed)) != len(st.removed):
        raise _fail("removed", "a building is listed twice")
    board = _get(obs, "board", dict)
    city = [x for x in g.layout.tiles if x not in st.removed]
    if sorted(_letter(g, k, "board") for k in board) != city:
        raise _fail("board", "keys must be exactly the buildings still in the city")
    st.board = [[0] * n for _ in range(g.nb)]
    for k, counts in board.items():
        if (not isinstance(counts, list) or len(counts) != n
                or any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in counts)):
            raise _fail(f"board.{k}", f"expected {n} non-negative integers")
        st.board[g.letters.index(k)] = list(counts)
    for key in ("supply", "cheese_tokens"):
        v = _get(obs, key, list)
        if len(v) != n or any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in v):
            raise _fail(key, f"expected {n} non-negative integers")
    st.supply = list(obs["supply"])
    st.cheese = list(obs["cheese_tokens"])
    for s in range(n):
        if sum(st.board[x][s] for x in city) + st.supply[s] != g.data.rats_per_player:
            raise _fail("supply", f"seat {s}: rats on the board + supply != "
                                  f"{g.data.rats_per_player}")
    st.cheese_bank = _get(obs, "cheese_bank", int)
    if st.cheese_bank < 0 or st.cheese_bank + sum(st.cheese) != g.data.cheese_tokens:
        raise _fail("cheese_bank", f"bank + players' tokens must be {g.data.cheese_tokens}")
    # Property tokens.
    tokens = _get(obs, "tokens", dict)
    for k, v in tokens.items():
        if k not in g.prop_letters or not isinstance(v, int) or isinstance(v, bool) \
                or not NO <= v < n:
            raise _fail(f"tokens.{k}", "expected a property letter mapped to a seat or -1")
    st.tokens = {k: tokens[k] for k in sorted(tokens, key=g.letters.index)}
    st.tokens_gone = list(_get(obs, "tokens_gone", list))
    st.token_pool = list(_get(obs, "token_pool", list))
    st.tokens_left = _get(obs, "tokens_left", int)
    for t in st.tokens_gone + st.token_pool:
        if t not in g.prop_letters:
            raise _fail("tokens_gone/token_pool", f"{t!r} is not a property letter")
    if phase == TOKENS and not 0 < st.tokens_left <= len(st.token_pool):
        raise _fail("tokens_left", "must be 1..len(token_pool) during setup")
    # Rounds: public hunt history, own cards, revealed plans.
    rounds = _get(obs, "rounds", list)
    if len(rounds) != rnd:
        raise _fail("rounds", f"expected {rnd} entries (one per round so far)")
    st.face_up, st.hunted, st.radio_discarded, st.plans_log = [], [], [], []
    st.events, st.event_cards = [], []
    dealt, mine = [], []
    for i, ro in enumerate(rounds):
        f = f"rounds[{i}]."
        if not isinstance(ro, Mapping):
            raise _fail(f"rounds[{i}]", "expected a dict")
        _read_event(g, st, i, ro, f, phase in (TOKENS, EVENT) and i == rnd - 1)
        st.face_up.append([_letter(g, c, f + "face_up") for c in _get(ro, "face_up", list, f)])
        d = _get(ro, "dealt", list, f)
        if len(d) != n or any(not isinstance(b, bool) for b in d):
            raise _fail(f + "dealt", f"expected {n} booleans")
        dealt.append(d)
        my = ro.get("my_card")
        mine.append(NO if my is None else _letter(g, my, f + "my_card"))
        if (mine[-1] != NO) != d[p]:
            raise _fail(f + "my_card", "must be given exactly when this seat was dealt a card")
        h = ro.get("hunted")
        st.hunted.append(NO if h is None else _letter(g, h, f + "hunted"))
        st.radio_discarded.append([_letter(g, c, f + "radio_discarded")
                                   for c in _get(ro, "radio_discarded", list, f)])
        plans = ro.get("plans")
        if st.events[i:] and st.events[i] == NOT_PLAYED:
            if plans is not None or any(d) or st.face_up[i] or st.hunted[i] != NO:
                raise _fail(f"rounds[{i}]", "a round that is not played has no cards or plans")
            st.plans_log.append([[0, 0] for _ in range(n)])
        elif plans is not None:
            if not isinstance(plans, list) or len(plans) != n or any(
                    not isinstance(c, list) or len(c) != 2 for c in plans):
                raise _fail(f + "plans", f"expected {n} pairs of cell labels")
            st.plans_log.append([[_cell_from_label(g, a, f + "plans") for a in c]
                                 for c in plans])
        elif i < rnd - 1:
            raise _fail(f + "plans", "a finished round must show its revealed plans")
    if st.removed != [x for x in st.hunted if x != NO]:
        raise _fail("removed", "must list the hunted buildings in round order")
    # Archive looks.
    st.looks = []
    seen: dict[tuple[int, int], int] = {}
    for j, lk in enumerate(_get(obs, "archive_looks", list)):
        f = f"archive_looks[{j}]."
        if not isinstance(lk, Mapping):
            raise _fail(f"archive_looks[{j}]", "expected a dict")
        r, v, t = (_get(lk, k, int, f) for k in ("round", "viewer", "target"))
        if not (1 <= r <= rnd and 0 <= v < n and 0 <= t < n and v != t and dealt[r - 1][t]):
            raise _fail(f"archive_looks[{j}]", "impossible look")
        if v == p:
            seen[(r, t)] = _letter(g, _get(lk, "card", str, f), f + "card")
        st.looks.append([r, v, t])
    # Pending resolution / hunt details.
    hotel = obs.get("hotel")
    if hotel is not None:
        if not isinstance(hotel, Mapping):
            raise _fail("hotel", "expected a dict or None")
        st.hotel = [_letter(g, hotel.get("from"), "hotel.from"),
                    _letter(g, hotel.get("to"), "hotel.to"), _get(hotel, "cell", int, "hotel.")]
    if (hotel is not None) != (phase == HOTEL):
        raise _fail("hotel", "given exactly in the 'hotel' phase")
    drawn = obs.get("drawn")
    st.drawn = NO if drawn is None else _letter(g, drawn, "drawn")
    if (st.drawn != NO) != (phase in (RADIO, HOSPITAL)):
        raise _fail("drawn", "given exactly in the 'radio' and 'hospital' phases")
    st.radio_used = _get(obs, "radio_used", bool)
    st.reshuffles = list(_get(obs, "reshuffles", list))
    if (any(isinstance(r, bool) or not isinstance(r, int) for r in st.reshuffles)
            or st.reshuffles != sorted(set(st.reshuffles))
            or not all(2 <= r <= rnd for r in st.reshuffles)
            or (rnd >= g.data.reshuffle_round
                and g.data.reshuffle_round not in st.reshuffles)):
        raise _fail("reshuffles", f"expected increasing rounds in 2..{rnd}, with "
                                  f"{g.data.reshuffle_round} from that round on")
    st.event_deck = sorted(set(range(len(g.data.event_cards))) - {c[0] for c in st.event_cards
                                                                  if c}) \
        if g.events_random else []
    if _get(obs, "event_cards_left", int) != len(st.event_deck):
        raise _fail("event_cards_left", f"expected {len(st.event_deck)}")
    if phase == EVENT and not (g.events_random and rnd >= g.first_event_round
                               and st.event_deck and len(st.events) == rnd - 1):
        raise _fail("phase", "no event card is revealed now")
    _sample_cards(g, st, p, dealt, mine, seen, _get(obs, "stack_count", int),
                  _get(obs, "discard_count", int), rng)
    # Plans of this round.
    committed = _get(obs, "committed", list)
    if len(committed) != n or any(c not in (0, 1, 2) or isinstance(c, bool) for c in committed):
        raise _fail("committed", f"expected {n} counts in 0..2")
    if phase != PLAN and any(committed):
        raise _fail("committed", "cells are committed only during planning")
    my_plan = [_cell_from_label(g, a, "my_plan") for a in _get(obs, "my_plan", list)]
    if len(my_plan) != committed[p]:
        raise _fail("my_plan", "length must equal committed[player]")
    st.plans = [[] for _ in range(n)]
    st.plans[p] = my_plan
    if phase == PLAN:
        for s in range(n):
            if s != p and committed[s]:
                st.plans[s] = _sample_plan(st, s, committed[s], rng)
        k = next((s for s in range(n) if committed[s] < 2), n)
        if k == n or any(committed[k + 1:]):
            raise _fail("committed", "seats commit in seat order and someone must still plan")
    if phase in (HOTEL, MARKET, HUNT, RADIO, HOSPITAL, END):
        if len(st.plans_log) != rnd:
            raise _fail("rounds", "this round's plans must be revealed after planning")
    elif len(st.plans_log) != rnd - 1:
        raise _fail("rounds", "this round's plans are not revealed before phase 3")
    if _get(obs, "current_player", int) != st.current_player():
        raise _fail("current_player", f"inconsistent with the rest (expected "
                                      f"{st.current_player()})")
    st.views = unknown_views(n)  # the past is not in an observation (engines/api.py)
    return st


def _finished(st: RatapolisState, r: int) -> bool:
    """Round ``r``'s hunt cards are in the discard area: it hunted a tile, or it was a
    no-attack round (RP-9) past its phase 4 (a later round, or the end)."""
    if st.hunted[r - 1] != NO:
        return True
    return (st.events[r - 1:] != [] and st.events[r - 1] == NO_ATTACK
            and (r < st.round or st.phase == END))


def _read_event(g: RatapolisGame, st: RatapolisState, i: int, ro: Mapping[str, Any], f: str,
                pending: bool) -> None:
    """RP-9: round ``i``'s public ``event`` / ``event_card`` into ``st`` (checked against the
    game's ``round_events``); nothing for a round whose card is still to be revealed."""
    effect, card = ro.get("event"), ro.get("event_card")
    if pending:
        if effect is not None or card is not None:
            raise _fail(f + "event", "the round's event card is not revealed yet")
        return
    if effect not in ROUND_EFFECTS:
        raise _fail(f + "event", f"expected one of {ROUND_EFFECTS}, got {effect!r}")
    ids = [e.id for e in g.data.event_cards]
    if card is None:
        entry = None
        if g.events_random and i + 1 >= g.first_event_round:
            raise _fail(f + "event_card", "an event card was revealed in this round")
        want = g.events_fixed[i] if g.events_fixed else NORMAL
    else:
        if not (isinstance(card, Mapping) and card.get("id") in ids
                and card.get("side") in ("A", "B")) or not g.events_random:
            raise _fail(f + "event_card", f"expected None or {{'id': one of {ids}, "
                                          f"'side': 'A' or 'B'}}")
        entry = [ids.index(card["id"]), "AB".index(card["side"])]
        if any(c and c[0] == entry[0] for c in st.event_cards):
            raise _fail(f + "event_card", f"{card['id']} was revealed before")
        ev = g.data.event_cards[entry[0]]
        want = ev.side_b if entry[1] else ev.side_a
    if effect != want:
        raise _fail(f + "event", f"expected {want!r}")
    st.events.append(effect)
    st.event_cards.append(entry)


def _sample_plan(st: RatapolisState, s: int, count: int, rng: Any) -> list[int]:
    """Seat ``s``'s committed cells (RP-2), drawn from the exact posterior of the seat's view.

    Each consistent history weighs the product of its chance probabilities; a seat's own
    decisions weigh 1 (nothing is assumed about how a rival plans). So with both cells
    committed the pair is uniform over all legal (left, right) pairs, and with only the left
    cell committed the left cell is uniform over the legal left cells. (Before this ruling the
    left cell alone was drawn from the pairs' marginal, which over-weighted left cells that
    allow many right cells.)
    """
    if count == 1:
        lefts = st.cell_actions(s, 0)
        return [lefts[int(rng.integers(len(lefts)))]]
    plans = st.plan_cells(s)  # each left cell weighs its number of right cells
    weights = [len(rights) for _, rights in plans]
    pick = int(rng.integers(sum(weights)))
    k = 0
    while pick >= weights[k]:
        pick -= weights[k]
        k += 1
    left, rights = plans[k]
    return [left, rights[int(rng.integers(len(rights)))]]


def _sample_cards(g: RatapolisGame, st: RatapolisState, p: int, dealt: list[list[bool]],
                  mine: list[int], seen: dict[tuple[int, int], int], stack_count: int,
                  discard_count: int, rng: Any) -> None:
    """Deal the unknown hunt cards: other seats' cards of every round, the stack, discards.

    Per deck epoch (the rounds from the start or from a reshuffle to the next; a reshuffle
    returns every card not hunted before it to the stack): the cards seat ``p`` knows to be
    used (face up, its own, Archive looks, revealed ones) leave the pool; a revealed
    card (hunted, Radio-discarded, on the table) that is not face up nor known to be in a
    known hand was in one of the unknown hands of its round; the rest of the unknown hands
    are filled from the pool, shuffled after sorting. What remains is the stack.
    """
    n = g.n
    rnd = st.round
    starts = [1] + [r for r in st.reshuffles if r <= rnd]
    epochs = [list(range(a, b)) for a, b in zip(starts, starts[1:] + [rnd + 1], strict=True)]
    st.hands = [[NO] * n for _ in range(rnd)]
    for e, rounds in enumerate(epochs):
        # a reshuffle puts every card not hunted before it into the new stack
        pool = set(g.layout.tiles) - {st.hunted[r - 1] for r in range(1, rounds[0])}
        used: list[int] = []
        must: dict[int, list[int]] = {}
        slots: dict[int, list[int]] = {}
        for r in rounds:
            i = r - 1
            d = dealt[i]
            private = n if g.data.cards_in_round(r) >= n else 0
            if not private and any(d):
                raise _fail(f"rounds[{i}].dealt", "no secret cards are dealt in this round")
            if any(d[j] and not d[j - 1] for j in range(1, n)):
                raise _fail(f"rounds[{i}].dealt", "cards are dealt in seat order")
            if st.face_up[i] and not all(d) and private:
                raise _fail(f"rounds[{i}].face_up", "face-up cards come after the secret ones")
            known = list(st.face_up[i])
            hand = st.hands[i]
            if mine[i] != NO:
                hand[p] = mine[i]
                known.append(mine[i])
            for (sr, t), c in seen.items():
                if sr == r:
                    if not d[t]:
                        raise _fail("archive_looks", "looked at a seat without a card")
                    hand[t] = c
                    known.append(c)
            revealed = list(st.radio_discarded[i])
            if st.hunted[i] != NO:
                revealed.append(st.hunted[i])
            if r == rnd and st.drawn != NO:
                revealed.append(st.drawn)
            must[r] = sorted({c for c in revealed if c not in known})
            slots[r] = [s for s in range(n) if d[s] and hand[s] == NO]
            if len(must[r]) > len(slots[r]):
                raise _fail(f"rounds[{i}]", "revealed cards that nobody could have held")
            n_cards = len(known) + len(slots[r])
            done = r < rnd or st.phase not in (TOKENS, EVENT, DEAL)
            want = 0 if st.events[i:] and st.events[i] == NOT_PLAYED else g.data.cards_in_round(r)
            if n_cards > want or (done and n_cards != want):
                raise _fail(f"rounds[{i}]", f"expected {want} hunt cards")
            used.extend(known)
        flat = used + [c for r in rounds for c in must[r]]
        if len(set(flat)) != len(flat) or not set(flat) <= pool:
            raise _fail("rounds", "a hunt card is used twice or is not in the stack")
        free = sorted(pool - set(flat))
        free = [free[k] for k in rng.permutation(len(free))]
        for r in rounds:
            hand = st.hands[r - 1]
            order = [slots[r][k] for k in rng.permutation(len(slots[r]))]
            for c, s in zip(must[r], order, strict=False):
                hand[s] = c
            for s in order[len(must[r]):]:
                hand[s] = free.pop()
        if e == len(epochs) - 1:
            st.stack = sorted(free)
            # finished rounds' cards but the hunted one (all of a no-attack round's, RP-9)
            st.discard = sorted(c for r in rounds if _finished(st, r)
                                for c in st.round_cards(r) if c != st.hunted[r - 1])
    if len(st.stack) != stack_count:
        raise _fail("stack_count", f"expected {len(st.stack)}")
    if len(st.discard) != discard_count:
        raise _fail("discard_count", f"expected {len(st.discard)}")
