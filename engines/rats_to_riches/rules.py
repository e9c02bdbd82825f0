"""Rats to Riches (Accentuate Games 2019): the reference rule engine.

Implements ``../shared/seeds/rats_to_riches_rulebook.txt`` with the component data of
``data.py`` and rulings RR-1..RR-10 of ``../shared/RULES_GAPS.md`` (cited where coded). Card
effects are data (``engines/effects.py`` vocabulary), compiled by ``program.py`` into steps
that :meth:`RatsToRichesState._run` interprets (the Cython twin runs the same tables).

Flow
    Setup ("Building The Sewer"): each rat gets a Flush card and $5, the spare Flush cards go
    to the Cesspit ("Put any spares in a discard pile on the board, called The Cesspit");
    each seat in turn takes its 3 cheese (a decision), then the 3 Open Sewer slots are
    revealed one by one (chance); a Yellow card
    resolves at once, goes to the Cesspit and its slot is revealed again (RR-4). Then seat 0
    starts. A turn: Step 1 income is collected automatically (Flush $2 + Green incomes +
    Golden Rat $2); Step 2 is any sequence of buying an Open Sewer card (the slot is refilled
    at once by a chance node, so the new card can be bought in the same turn), using a card,
    Flushing, selling pipes, until ``END_STEP2``; Step 3 is one decision that buys 0–3 cheese
    (5 with the Cheese Baron) and ends the turn. After the last seat's turn the round ends
    and the Big Cheese is crowned (RR-5). A rat with $100 wins at once (RR-1); after 60
    rounds the most Swindle wins (RR-6).

Action ids (one id space; bases in :class:`Layout`, ``n`` seats, ``T`` card types, the Flush
card has card id ``T`` where a card id may name it, ``S`` Open Sewer slots)
    ``COMBO+k``         a multiset of cheese (``Layout.combos[k]`` = (green, blue, red)):
                        setup: take it; Step 3: buy it and end the turn.
    ``BUY+s``           buy the card in Open Sewer slot ``s`` (a Flush card too).
    ``FLUSH+s``         dump a Flush card, take slot ``s``'s card free (RR-2).
    ``END_STEP2``       finish Step 2, go to Step 3.
    ``USE+t``           use own card of type ``t`` whose effects need no choice made with the
                        action (Bonus Bonanza, Shared Paradise, a bundle; a bundle then asks
                        for its cards).
    program blocks      one per active-card program that chooses a rat or makes a choice
                        with the action (``program.py``): in the stand-in data, in order,
                        Pickpocket ``+q``, Mutual Destruction ``+q``, Snatch ``+q*NS+k``
                        (``combos[k]`` stolen), Cheese Run ``+k``, Sabotage ``+q*(T+1)+t``
                        (``t == T``: its Flush), Hostile Takeover ``+q*T+t``.
    ``SELL+t``          put a pipe of type ``t`` into a sale (starts one in Step 2).
    ``SELL_NOW``        sell the pipes put into the sale.
    ``PICK+t``          choose own card ``t`` (a ``move`` its owner picks: bundle contents,
                        Mutual Destruction discards).
    ``COLOUR+c``        Sewer Flood: return one cheese of colour ``c``.
    ``REVEAL+t``        chance: the next Rat Pack card is of type ``t`` (``t == T``: a Flush
                        card, from a reshuffled Cesspit); only types with the announced
                        back ``top_back`` can come (RR-9).
    ``BACK+b``          chance (RR-9): the new top card of a mixed Rat Pack shows back ``b``
                        (``data.BACKS``: Scrappy Sewer, Supreme Sewer, Flush), with
                        probability its share of the pack; resolved at once after each draw
                        and each reshuffle, before any other decision.
    Cards with the same effects (e.g. the Scrappy and Supreme Sabotage) play identically, so
    the lowest owned type id of that program is the one used (for a plain card the user
    picks the type, so the back it sends to the Cesspit). Multi-card choices (sale contents,
    bundle contents, discards, returned cheese) are made one card at a time in
    non-decreasing id order, so each set is reached once. A choice with a single legal
    option is applied automatically.

Hidden information
    None that matters: the Rat Pack is drawn lazily (draw-on-reveal): its state is the list of
    face-down segments (Scrappy Sewer above Supreme Sewer; later the reshuffled Cesspit) with
    the counts of each card type left, which every rat can work out from the cards seen. So
    every observation is the whole state (``perfect_information = True``: a perfect-
    information game with chance, like backgammon); ``state_from_observation`` rebuilds it
    exactly and needs no sampling. RR-9: the backs of the Rat Pack show through, so the back
    of the top card (``top_back``) is public at all times, after reshuffles too: each card
    type belongs to one deck (``data.py``), a chance node ``BACK`` reveals the new top back
    whenever the top segment mixes backs (a reshuffled Cesspit), and each reveal draws only
    among the cards with that back. The rebuild keeps the back.

Flush cards
    A Flush card is in front of a rat (its $2 income, counted per card: "Income is the sum
    of all values"), in the Cesspit (the spares at setup; one removed by Sabotage or Mutual
    Destruction, "Send 1 Card ... to The Cesspit"), in a reshuffled Rat Pack or the Open
    Sewer (RR-6), or out of the game (the box) once dumped to Flush The Sewer (RR-2). One
    revealed in the Open Sewer is bought like any card for its printed cost 2, paid in $
    (``data.FLUSH_COST``, a judgement call: the card has no cheese colour); a rat holding
    several Flush cards collects $2 for each and may dump each one to flush.

Safety valves (not rules)
    ``max_turn_actions`` (RR-10): at most this many Step 2 actions (buys, uses, Flushes,
    sales) per turn; then only ``END_STEP2`` is legal. Cheese Runs recycled through the
    Cesspit could otherwise make a turn unbounded. The default (200) never binds in ordinary
    play: random playouts reach at most 30, IS-MCTS self-play 17 (docs/components.md).
    A slot refill shuffles the Cesspit into the Rat Pack at most once (a Cesspit holding only
    events would otherwise cycle forever); if the new pack also runs out during that refill,
    the slot stays empty as in RR-6.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import (
    CHANCE,
    SAFETY_VALVE_MAX,
    TERMINAL,
    Game,
    Param,
    State,
    check_player,
    make_rng,
)
from . import data as D
from . import program as P
from .data import BLUE, COLOURS, GREEN, RED, RatsToRichesData

__all__ = ["RatsToRichesGame", "RatsToRichesState", "Layout"]

#: Default of the ``max_turn_actions`` safety valve (RR-10).
MAX_TURN_ACTIONS = 200

_PHASES = ("setup", "reveal", "step2", "step3", "over")
_FRAME_KINDS = ("sell", "pick", "flood")


def cheese_combos(k_max: int) -> list[tuple[int, int, int]]:
    """All cheese multisets ``(green, blue, red)`` of size 0..``k_max``, by size then green."""
    out = []
    for k in range(k_max + 1):
        for g in range(k, -1, -1):
            for b in range(k - g, -1, -1):
                out.append((g, b, k - g - b))
    return out


def pipe_sale_value(pipes: int) -> int:
    """Rulebook "Blue Cards are Pipes": selling ``pipes`` pipes pays ``pipes**2`` $."""
    return pipes * pipes


def compiled_layout(data: RatsToRichesData, n: int) -> tuple[P.Compiled, Layout]:
    """The compiled cards of ``data`` and the action layout for ``n`` seats, built once per
    data and player count and shared read-only by every game using them (compiling the
    cards took ~1.9 ms of a game's ~2.1 ms creation; the layout gives the programs their
    ``n``-seat action blocks, so one ``Compiled`` per player count)."""
    got = data._derived.get(("layout", n))
    if got is None:
        compiled = P.Compiled(data)
        got = data._derived[("layout", n)] = (compiled, Layout(n, data, compiled))
    return got


class Layout:
    """The action id layout for ``n`` seats and the compiled cards of ``data``.

    Attributes: one ``int`` base per action block (see the module docstring), ``programs``
    the use programs with blocks (``program.Program``, bases set), ``combos`` the cheese
    multisets and ``combo_index`` the reverse map, ``size`` the number of ids.
    """

    def __init__(self, n: int, data: RatsToRichesData, compiled: P.Compiled):
        T = len(data.card_types)
        S = data.open_sewer_slots
        k_max = max(data.start_cheese, data.cheese_per_turn, compiled.limit_bound,
                    compiled.max_choice)
        self.combos = cheese_combos(k_max)
        self.combo_index = {c: i for i, c in enumerate(self.combos)}
        NC = len(self.combos)
        self.COMBO = 0
        self.BUY = self.COMBO + NC
        self.FLUSH = self.BUY + S
        self.END_STEP2 = self.FLUSH + S
        self.USE = self.END_STEP2 + 1
        upto = {p.amount: len(cheese_combos(p.amount)) for p in compiled.programs}
        self.SELL = compiled.place(self.USE + T, n, T, upto, NC)
        self.programs = compiled.programs
        self.SELL_NOW = self.SELL + T
        self.PICK = self.SELL_NOW + 1
        self.COLOUR = self.PICK + T + 1
        self.REVEAL = self.COLOUR + len(COLOURS)
        self.BACK = self.REVEAL + T + 1  # the Flush card can be revealed too
        self.size = self.BACK + len(D.BACKS)  # RR-9: the top card's back
        self.bases = [(getattr(self, name), name, -1) for name in (
            "COMBO", "BUY", "FLUSH", "END_STEP2", "USE")]
        self.bases += [(prog.base, "PROG", j) for j, prog in enumerate(self.programs)
                       if prog.size]
        self.bases += [(getattr(self, name), name, -1) for name in (
            "SELL", "SELL_NOW", "PICK", "COLOUR", "REVEAL", "BACK")]

    def decode(self, action: int) -> tuple[str, int, int]:
        """``(block name, offset, program index or -1)`` of an action id (block ``"PROG"``:
        a program block).

        Raises:
            ValueError: ``action`` is outside ``range(size)``.
        """
        if not 0 <= action < self.size:
            raise ValueError(f"action {action!r} outside 0..{self.size - 1}")
        found = self.bases[0]
        for entry in self.bases:
            if entry[0] <= action:
                found = entry
        return found[1], action - found[0], found[2]


class RatsToRichesGame(Game):
    """Rats to Riches: the race to $100 Swindle.

    Params:
        num_players: 2–5 rats.
        data_path: another card list (``None``: the packaged stand-in data).
        max_turn_actions: safety valve, not a rule (RR-10): Step 2 actions (buys, uses,
            Flushes, sales) allowed per turn before only ``END_STEP2`` remains (bounds the
            game). Default :data:`MAX_TURN_ACTIONS` = 200, far above ordinary play: the most
            measured was 30 (one 2-player turn in 8,000 random playouts, 383,673 turns) and
            17 in IS-MCTS self-play (``docs/components.md``).
    """

    name = "rats_to_riches"
    title = "Rats to Riches"
    summary = ("Filthy scheming rats race to $100 Swindle: collect income, buy Open Sewer "
               "cards with cheese, sell pipe sets for $n², sabotage rivals, tax cheese "
               "through careers; random events hit everyone. First to $100 wins.")
    perfect_information = True
    variants = {f"{n}p": {"num_players": n} for n in range(2, 6)}
    param_specs = (
        Param("num_players", 3, int, "rats (seats)", check=lambda v: 2 <= v <= 5,
              allowed="an int from 2 to 5"),
        Param("data_path", None, str, "component data file (None: packaged stand-in)"),
        # RR-10: a safety valve, not a rule; the default is far above any turn measured
        # (random playouts: at most 30 Step 2 actions in 383,673 turns; IS-MCTS: at most 17).
        Param("max_turn_actions", MAX_TURN_ACTIONS, int,
              "safety valve on Step 2 actions per turn (RR-10; never binds in ordinary play)",
              check=lambda v: 1 <= v <= SAFETY_VALVE_MAX,
              allowed=f"an int in 1..{SAFETY_VALVE_MAX}"),
    )

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        self.data: RatsToRichesData = D.load(params["data_path"])
        n = params["num_players"]
        if not self.data.min_players <= n <= self.data.max_players:
            raise ValueError(f"bad value {n!r} for parameter 'num_players': the data "
                             f"{self.data.source} allows {self.data.min_players} to "
                             f"{self.data.max_players}")
        #: The cards' effects compiled into steps (``program.py``), read by both backends;
        #: the action layout for ``n`` seats (both shared by the games of this data and ``n``).
        self.compiled, self.layout = compiled_layout(self.data, n)
        types = self.data.card_types
        self.T = len(types)
        #: Card colour id per type (``data.CARD_COLOURS``).
        self.card_colour = [D.CARD_COLOURS.index(t.colour) for t in types]
        #: Type ids per card colour name (Flush excluded).
        self.of_colour = {c: [t.id for t in types if t.colour == c] for c in D.CARD_COLOURS}
        self.incomes = [t.income for t in types]
        #: Buying costs per card id, the Flush card (id ``T``) last.
        self.cost_cheese = [t.cost_cheese for t in types] + [self.data.flush_cost_cheese]
        self.cost_cash = [t.cost_cash for t in types] + [self.data.flush_cost_cash]
        self.pipes = [t.pipes for t in types]
        self.keys = [t.key for t in types] + ["Flush"]
        #: The back of each card id (``data.BACKS`` index; the Flush card, id ``T``, last), RR-9.
        self.back = [t.back for t in types] + [D.FLUSH_BACK]
        self.key_id = {k: i for i, k in enumerate(self.keys)}
        return params

    def _action_seat_blocks(self):
        """The program blocks that choose a rat ``q`` (``base + q * width + k``)."""
        return [(p.base, p.width) for p in self.layout.programs
                if p.size and p.shape in (P.SHAPE_TARGET, P.SHAPE_TARGET_CHEESE,
                                          P.SHAPE_TARGET_CARD)]

    def num_distinct_actions(self) -> int:
        return self.layout.size

    def max_game_length(self) -> int:
        """An upper bound on actions, from the safety valves (loose but finite).

        Counted over the whole game: cheese choices at setup (``n``); per turn at most
        ``max_turn_actions`` Step 2 actions plus ``END_STEP2`` and Step 3; card picks (sale,
        bundle, discard), each moving a card that entered a tableau by a buy or a Flush (or a
        Flush card); reveals, at most ``2 × total_cards`` per slot refill (one reshuffle per
        refill) and at most ``S`` refills per Step 2 action plus ``S`` at setup; RR-9 back
        reveals, at most one per reveal plus one per reshuffle (one per refill); Sewer Flood
        choices, each returning one cheese of the at most ``C`` ever gained (start cheese
        plus, per turn, Step 3 cheese and the largest fixed cheese gain per Step 2 action).
        """
        d, n = self.data, self.num_players()
        turns, cap = d.max_rounds * n, self.params["max_turn_actions"]
        limit = self.compiled.limit_bound
        run = max([self.compiled.max_choice] + [
            st.plus for st in self.compiled.steps
            if st.res in (GREEN, BLUE, RED, P.RES_CHEESE) and st.op == P.OP_GAIN])
        cheese = n * d.start_cheese + turns * (limit + cap * run)
        refills = d.open_sewer_slots * (1 + turns * cap)
        picks = turns * cap + n
        cards = d.total_cards + d.flush_count
        return n + turns * (cap + 2) + picks + refills * (4 * cards + 1) + cheese

    def new_initial_state(self) -> RatsToRichesState:
        return RatsToRichesState(self)

    def heuristic_value(self, state: State, player: int) -> float:
        """0.5 + (own worth − best rival's worth) / (2 × $100), clipped to [0, 1].

        Worth = Swindle + 3 × income + the sale value of the rat's pipes (rulebook "Blue
        Cards are Pipes": N pipes sold at once pay N²), counting the pipes already put into
        a sale it has open with those it holds (the sale pays for all of them if it goes
        on), so starting or growing a sale does not lower its worth; a finished game gives
        the result (1, 0 or 1/k). Reads only ``state.observation(player)``.
        """
        obs = state.observation(player)
        if obs["winners"]:
            return 1.0 / len(obs["winners"]) if player in obs["winners"] else 0.0
        worth = []
        for p in range(self.num_players()):
            tab = obs["tableau"][p]
            income = self.data.flush_income * obs["flush"][p] + sum(
                self.incomes[self.key_id[k]] * c for k, c in tab.items() if k != "Flush")
            if obs["golden_rat"] == p:
                income += self.data.big_cheese_income
            pipes = sum(self.pipes[self.key_id[k]] * c for k, c in tab.items() if k != "Flush")
            pipes += sum(f["pipes"] for f in obs["pending"]
                         if f["kind"] == "sell" and f["player"] == p)
            worth.append(obs["cash"][p] + 3 * income + pipe_sale_value(pipes))
        best_rival = max(w for p, w in enumerate(worth) if p != player)
        v = 0.5 + (worth[player] - best_rival) / (2.0 * self.data.win_cash)
        return min(1.0, max(0.0, v))

    def _state_from_observation(self, player: int, observation: Mapping[str, Any],
                                rng: Any = None) -> RatsToRichesState:
        """Rebuild the state from ``observation(player)``.

        Every observation is the whole state (see the module docstring), so the result is
        exact and ``rng`` is not drawn from (it is accepted for the contract).

        Raises:
            ValueError: a field is missing, malformed, or the card counts are impossible
                (the message names the field).
        """
        make_rng(rng)
        return _from_observation(self, player, observation)


class RatsToRichesState(State):
    """A Rats to Riches position. Fields are plain JSON data (see ``engines/api.py``).

    Fields:
        phase: ``"setup"`` (seat ``active`` takes its cheese), ``"reveal"`` (setup reveals),
            ``"step2"``, ``"step3"``, ``"over"``.
        active: the active rat (in setup: the seat choosing cheese).
        round: rounds completed.
        cash: $ per rat; cheese: ``[green, blue, red]`` per rat.
        tableau: per rat, the count of each card type in front of it.
        flush: per rat, the Flush cards in front of it; box: Flush cards out of the game
            (dumped to Flush The Sewer, RR-2).
        golden: holder of the Golden Rat (Big Cheese) or ``None``.
        sewer: the Open Sewer slots (card id or ``None``; ``T`` is a Flush card).
        pack: face-down Rat Pack segments, top first: ``{"deck", "counts"}`` (counts per
            card id, ``T + 1`` long).
        cesspit: count of each card id in the Cesspit (``T + 1`` long, Flush last).
        refill: Open Sewer slots waiting to be refilled, in order; reshuffled: the current
            refill already shuffled the Cesspit into the pack.
        top_back: the back of the top Rat Pack card (``data.BACKS`` index, RR-9), ``None``
            when the pack is empty or while the ``BACK`` chance node reveals it.
        pending: sub-decisions in order (``{"kind": "sell"|"bundle"|"discard"|"flood",
            "player", ...}``).
        turn_actions: Step 2 actions taken this turn; winners: seats that won (or ``[]``).
    """

    def __init__(self, game: RatsToRichesGame):
        super().__init__(game)
        d, n, T = game.data, game.num_players(), game.T
        self.phase = "setup"
        self.active = 0
        self.round = 0
        self.cash = [d.start_cash] * n
        self.cheese = [[0, 0, 0] for _ in range(n)]
        self.tableau = [[0] * T for _ in range(n)]
        self.flush = [1] * n  # "give one Flush Card face-up to each rat"
        self.box = 0  # Flush cards dumped to Flush The Sewer (RR-2)
        self.golden = None
        self.sewer: list[int | None] = [None] * d.open_sewer_slots
        # Scrappy Sewer on top of Supreme Sewer, each shuffled: drawn lazily.
        self.pack = [{"deck": name, "counts": [t.counts[i] for t in d.card_types] + [0]}
                     for i, name in enumerate(d.decks)]
        self.pack = [seg for seg in self.pack if sum(seg["counts"])]
        # "Put any spares in a discard pile on the board, called The Cesspit."
        self.cesspit = [0] * T + [d.flush_count - n]
        self.refill: list[int] = []
        self.reshuffled = False
        self.top_back: int | None = None
        self._fix_back()  # RR-9: the Scrappy Sewer back is on top
        self.pending: list[dict] = []
        self.turn_actions = 0
        self.winners: list[int] = []

    # ----------------------------------------------------------------- contract primitives
    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.pack and self.top_back is None:
            return CHANCE  # RR-9: the new top card's back shows at once
        if self.pending:
            return self.pending[0]["player"]
        if self.refill:
            return CHANCE
        return self.active

    def _legal_actions(self) -> list[int]:
        if self.pending:
            return self._frame_legal(self.pending[0])
        if self.phase == "step2":
            return self._step2_legal()
        g: RatsToRichesGame = self._game
        L = g.layout
        if self.phase == "setup":
            k = g.data.start_cheese
            return [L.COMBO + i for i, c in enumerate(L.combos) if sum(c) == k]
        # step3
        p = self.active
        limit = self.cheese_limit(p)
        free = self._free_colours(p)
        out = []
        for i, c in enumerate(L.combos):
            if sum(c) <= limit and self.cheese_cost(c, free) <= self.cash[p]:
                out.append(L.COMBO + i)
        return out

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        g: RatsToRichesGame = self._game
        counts = self.pack[0]["counts"]
        if self.top_back is None:  # RR-9: which back shows, by its share of the top segment
            per = [0] * len(D.BACKS)
            for t, c in enumerate(counts):
                per[g.back[t]] += c
            total = sum(per)
            return [(g.layout.BACK + b, c / total) for b, c in enumerate(per) if c]
        # RR-9: the next card has the announced back
        mine = [c if g.back[t] == self.top_back else 0 for t, c in enumerate(counts)]
        total = sum(mine)
        return [(g.layout.REVEAL + t, c / total) for t, c in enumerate(mine) if c]

    def _apply_action(self, action: int) -> None:
        g: RatsToRichesGame = self._game
        block, k, j = g.layout.decode(action)
        if block == "REVEAL":
            self._reveal(k)
        elif block == "BACK":
            self.top_back = k  # RR-9
        elif self.pending:
            self._frame_apply(block, k)
        elif block == "PROG":
            self._a_prog(j, k)
        else:
            getattr(self, "_a_" + block.lower())(k)
        self._settle()

    def _action_to_string(self, player: int, action: int) -> str:
        return _label(self, action)

    def describe_action(self, viewer: int | None, action: int) -> str:
        """Every action is public: Rat Pack reveals are turned face up for all (RR-8)."""
        return _label(self, action)

    def scores(self) -> list[float]:
        """Swindle ($) per rat."""
        return [float(c) for c in self.cash]

    def _returns(self) -> list[float]:
        share = 1.0 / len(self.winners)
        return [share if p in self.winners else 0.0 for p in range(len(self.cash))]

    def observation(self, player: int) -> dict:
        """The whole state as readable JSON (cards by key); see the module docstring.

        Keys: ``player``, ``phase``, ``active``, ``round``, ``cash``, ``cheese`` (per rat
        ``{"green", "blue", "red"}``), ``flush`` (Flush cards per rat), ``flush_in_box``
        (Flush cards out of the game, RR-2), ``tableau`` (per rat ``{card key: count}``),
        ``golden_rat``, ``open_sewer`` (keys or ``None``), ``rat_pack`` (segments top first
        ``{"deck", "counts": {key: count}}``), ``top_back`` (the back of the top Rat Pack
        card, one of ``data.BACKS``, RR-9; ``None`` when the pack is empty or while the
        ``BACK`` chance node reveals it), ``cesspit``, ``refill``, ``reshuffled``,
        ``pending`` (frames with card keys and colour names), ``turn_actions``, ``winners``.
        The Flush card's key is ``"Flush"``.

        Raises:
            ValueError: ``player`` is not a seat (an int or numpy int ``0..n-1``).
        """
        g: RatsToRichesGame = self._game
        player = check_player(player, g.num_players())
        keys = g.keys
        return {
            "player": player,
            "phase": self.phase,
            "active": self.active,
            "round": self.round,
            "cash": list(self.cash),
            "cheese": [dict(zip(COLOURS, c, strict=True)) for c in self.cheese],
            "flush": list(self.flush),
            "flush_in_box": self.box,
            "tableau": [_by_key(keys, row) for row in self.tableau],
            "golden_rat": self.golden,
            "open_sewer": [None if t is None else keys[t] for t in self.sewer],
            "rat_pack": [{"deck": s["deck"], "counts": _by_key(keys, s["counts"])}
                         for s in self.pack],
            "top_back": None if self.top_back is None else D.BACKS[self.top_back],  # RR-9
            "cesspit": _by_key(keys, self.cesspit),
            "refill": list(self.refill),
            "reshuffled": self.reshuffled,
            "pending": [_frame_to_obs(g, f) for f in self.pending],
            "turn_actions": self.turn_actions,
            "winners": list(self.winners),
        }

    def render(self, player: int) -> str:
        """Seat ``player``'s view as text for a terminal (``view.render``): Open Sewer,
        incomes, cash, cheese and the cards in front of each rat."""
        from .view import render

        return render(self, player)

    # ----------------------------------------------------------------- rule helpers
    def income(self, p: int) -> int:
        """Step 1: Flush card $2 + the ``income`` gains of the cards in front of rat ``p`` (per
        copy) + Golden Rat $2 (rulebook "Meeples")."""
        g: RatsToRichesGame = self._game
        d, steps = g.data, g.compiled.steps
        total = d.flush_income * self.flush[p]
        for t, c in enumerate(self.tableau[p]):
            a, b = g.compiled.income_range[t]
            if c and a < b:
                total += c * sum(self._amount(steps[i], p, p, -1) for i in range(a, b))
        if self.golden == p:
            total += d.big_cheese_income
        return total

    def redirects(self, p: int) -> int:
        """Bit set of the cheese colours whose payments rat ``p`` receives (its careers)."""
        red = self._game.compiled.redirect
        m = 0
        for t, c in enumerate(self.tableau[p]):
            if c:
                m |= red[t]
        return m

    def _free_colours(self, p: int) -> list[bool]:
        """RR-7: a career holder buying cheese of its colour pays nobody (it is free)."""
        mine = self.redirects(p)
        return [bool(mine >> c & 1) for c in range(3)]

    def cheese_cost(self, combo: tuple | list, free: list[bool]) -> int:
        """$ a rat pays in Step 3 for ``combo`` (colours in ``free`` cost nothing)."""
        price = self._game.data.cheese_price
        return sum(k * price for k, f in zip(combo, free, strict=True) if not f)

    def cheese_limit(self, p: int) -> int:
        """Cheese rat ``p`` may buy in Step 3: ``cheese_per_turn`` plus its cards' ``modify
        cheese_per_turn`` adds (per copy), then their bounds (the Cheese Baron: at least 5)."""
        g: RatsToRichesGame = self._game
        cp = g.compiled
        limit = g.data.cheese_per_turn
        for t, c in enumerate(self.tableau[p]):
            limit += c * cp.limit_add[t]
        for t, c in enumerate(self.tableau[p]):
            if c and cp.limit_at_least[t] >= 0:
                limit = max(limit, cp.limit_at_least[t])
        for t, c in enumerate(self.tableau[p]):
            if c and cp.limit_at_most[t] >= 0:
                limit = min(limit, cp.limit_at_most[t])
        return max(limit, 0)

    def career_holder(self, colour: int, buyer: int) -> int | None:
        """Who is paid for cheese of ``colour`` (RR-7): first holder clockwise from the buyer."""
        n = len(self.cash)
        for i in range(1, n):
            q = (buyer + i) % n
            if self.redirects(q) >> colour & 1:
                return q
        return None

    def can_afford(self, p: int, t: int) -> bool:
        """Rulebook "Buying Cards": the card's cost in coloured cheese or $ (Grey, Flush)."""
        g: RatsToRichesGame = self._game
        return (self.cash[p] >= g.cost_cash[t]
                and all(h >= c for h, c in zip(self.cheese[p], g.cost_cheese[t], strict=True)))

    def _owned_prog(self, p: int, j: int) -> int | None:
        """The lowest type id of program ``j`` rat ``p`` owns, or ``None``."""
        for t in self._game.layout.programs[j].types:
            if self.tableau[p][t]:
                return t
        return None

    def _pickable(self, p: int, colour: int) -> list[int]:
        """Rat ``p``'s cards per card id matching a colour filter (``-1``: any card, its Flush
        cards last at id ``T``)."""
        g: RatsToRichesGame = self._game
        if colour < 0:
            return self.tableau[p] + [self.flush[p]]
        return [c if g.card_colour[t] == colour else 0 for t, c in enumerate(self.tableau[p])]

    def _usable(self, p: int, t: int) -> bool:
        """Whether rat ``p`` can use its card ``t``: every ``pay`` and own-card ``move`` of the
        card without ``up_to`` can be made in full (the card itself already dumped)."""
        g: RatsToRichesGame = self._game
        a, b = g.compiled.use_range[t]
        need: dict[tuple[int, int], int] = {}
        for i in range(a, b):
            st = g.compiled.steps[i]
            if st.up_to or st.op not in (P.OP_PAY, P.OP_MOVE_PICK) or st.who != P.SEL_SELF:
                continue
            if st.op == P.OP_MOVE_PICK and st.whose != P.SEL_SELF:
                continue
            key = (st.op, st.colour if st.op == P.OP_MOVE_PICK else st.res)
            need[key] = need.get(key, 0) + self._amount(st, p, p, -1)
        for (op, what), k in need.items():
            if op == P.OP_PAY:
                have = self.cash[p] if what == P.RES_CASH else self.cheese[p][what]
            else:
                owned = self._pickable(p, what)
                have = sum(owned) - (owned[t] > 0)
            if have < k:
                return False
        return True

    def _count(self, of: int, colour: int, p: int) -> int:
        """A count (``program.CNT_*``) for rat ``p`` (cards: of ``colour``, -1 any)."""
        g: RatsToRichesGame = self._game
        if of < 3:
            return self.cheese[p][of]
        if of == P.CNT_CASH:
            return self.cash[p]
        if of == P.CNT_CHEESE:
            return sum(self.cheese[p])
        if of == P.CNT_CARDS:
            return sum(self._pickable(p, colour))
        if of == P.CNT_PIPES:
            return sum(c * g.pipes[t] for t, c in enumerate(self.tableau[p]))
        return 0  # pipes_sold outside a sale

    def _amount(self, st: P.Step, subject: int, user: int, target: int) -> int:
        if st.cnt_of < 0:
            v = st.plus
        else:
            whose = (subject, user, target)[st.cnt_whose]
            v = self._count(st.cnt_of, st.cnt_colour, whose) * st.times // st.divide + st.plus
        return v if st.max < 0 else min(v, st.max)

    def _holds(self, st: P.Step, subject: int, user: int, target: int) -> bool:
        if st.cmp < 0:
            return True
        pick = (subject, user, target)[st.cond_whose]
        mine = self._count(st.cond_of, st.cond_colour, pick)
        if st.cmp >= 6:  # most / least: compared over all rats
            every = [self._count(st.cond_of, st.cond_colour, q) for q in range(len(self.cash))]
            return mine == (max(every) if st.cmp == 6 else min(every))
        return _compare(st.cmp, mine, st.value)

    def _gain(self, p: int, amount: int) -> None:
        self.cash[p] += amount

    def _check_win(self) -> bool:
        """RR-1: a rat with $100 wins at once; several: most Swindle, then turn order."""
        g: RatsToRichesGame = self._game
        n, target = len(self.cash), g.data.win_cash
        rich = [p for p in range(n) if self.cash[p] >= target]
        if not rich:
            return False
        best = max(self.cash[p] for p in rich)
        order = [(self.active + i) % n for i in range(n)]
        self.winners = [next(p for p in order if self.cash[p] == best)]
        self._end_game()
        return True

    def _end_game(self) -> None:
        self.phase = "over"
        self.pending = []
        self.refill = []

    def _discard(self, p: int, t: int) -> None:
        """Card ``t`` of rat ``p`` goes to the Cesspit (``t == T``: a Flush card; "Send 1 Card
        from any rat to The Cesspit" applies to it too, only RR-2 flushing boxes one)."""
        if t == self._game.T:
            self.flush[p] -= 1
        else:
            self.tableau[p][t] -= 1
        self.cesspit[t] += 1

    # ----------------------------------------------------------------- Step 2
    def _step2_legal(self) -> list[int]:
        g: RatsToRichesGame = self._game
        L = g.layout
        p, n = self.active, len(self.cash)
        out = [L.END_STEP2]
        # RR-10: a safety valve, not a rule; its default never binds in ordinary play.
        if self.turn_actions >= g.params["max_turn_actions"]:
            return out
        for s, t in enumerate(self.sewer):
            if t is not None:
                if self.can_afford(p, t):
                    out.append(L.BUY + s)
                if self.flush[p]:
                    out.append(L.FLUSH + s)
        tab = self.tableau[p]
        for t, c in enumerate(tab):
            if not c:
                continue
            if g.compiled.plain[t] and self._usable(p, t):
                out.append(L.USE + t)
            if g.pipes[t]:
                out.append(L.SELL + t)
        for j, prog in enumerate(L.programs):
            u = self._owned_prog(p, j)
            if u is None or not self._usable(p, u):
                continue
            targets = [q for q in range(n) if prog.any_target or q != p]
            if prog.shape == P.SHAPE_TARGET:
                out += [prog.base + q for q in targets]
            elif prog.shape == P.SHAPE_TARGET_CHEESE:
                for q in targets:
                    take = min(prog.amount, sum(self.cheese[q]))
                    for i in range(prog.width):
                        combo = L.combos[i]
                        if sum(combo) == take and all(
                                a <= h for a, h in zip(combo, self.cheese[q], strict=True)):
                            out.append(prog.base + q * prog.width + i)
            elif prog.shape == P.SHAPE_CHEESE:
                out += [prog.base + i for i, c in enumerate(L.combos) if sum(c) == prog.amount]
            else:  # TARGET_CARD: "from any rat" may include the user's own cards
                for q in targets:
                    owned = self._pickable(q, prog.colour)
                    for t in range(prog.width):
                        if owned[t] - (q == p and t == u) > 0:
                            out.append(prog.base + q * prog.width + t)
        out.sort()
        return out

    def _a_combo(self, k: int) -> None:
        g: RatsToRichesGame = self._game
        combo = g.layout.combos[k]
        p = self.active
        if self.phase == "setup":  # "Each rat then takes 3 pieces of any Cheese"
            self.cheese[p] = list(combo)
            self.active += 1
            if self.active == len(self.cash):  # RR-4: setup events after cash and cheese
                self.phase = "reveal"
                self.active = 0
                self.refill = list(range(g.data.open_sewer_slots))
            return
        # Step 3: buy cheese at $1, paid to the Slush Fund or the career holder (RR-7).
        free = self._free_colours(p)
        price = g.data.cheese_price
        for c, k_c in enumerate(combo):
            if not k_c:
                continue
            self.cheese[p][c] += k_c
            if free[c]:
                continue
            self.cash[p] -= k_c * price
            holder = self.career_holder(c, p)
            if holder is not None:
                self._gain(holder, k_c * price)
        if self._check_win():
            return
        self._end_turn()

    def _a_buy(self, s: int) -> None:
        """Rulebook "Buying Cards": pay, keep it face up (RR-3), refill the slot at once.

        A Flush card (``t == T``, from a reshuffled Cesspit) costs its printed 2, in $."""
        g: RatsToRichesGame = self._game
        p, t = self.active, self.sewer[s]
        self.cash[p] -= g.cost_cash[t]
        for c in range(3):
            self.cheese[p][c] -= g.cost_cheese[t][c]
        if t == g.T:
            self.flush[p] += 1
        else:
            self.tableau[p][t] += 1
        self.sewer[s] = None
        self.refill.append(s)
        self.turn_actions += 1

    def _a_flush(self, s: int) -> None:
        """RR-2: a Flush card leaves the game; take slot ``s`` free, the rest to the Cesspit."""
        g: RatsToRichesGame = self._game
        p = self.active
        self.flush[p] -= 1
        self.box += 1
        for i, t in enumerate(self.sewer):
            if t is None:
                continue
            if i == s:
                if t == g.T:  # a Flush card taken from the Open Sewer
                    self.flush[p] += 1
                else:
                    self.tableau[p][t] += 1
            else:
                self.cesspit[t] += 1
        self.sewer = [None] * len(self.sewer)
        self.refill = list(range(len(self.sewer)))
        self.turn_actions += 1

    def _a_end_step2(self, _k: int) -> None:
        self.phase = "step3"

    def _use(self, t: int) -> int:
        """Rulebook "Use Cards": the used card goes to the Cesspit; counts a Step 2 action."""
        self._discard(self.active, t)
        self.turn_actions += 1
        return self.active

    def _a_use(self, t: int) -> None:
        p = self._use(t)
        a, b = self._game.compiled.use_range[t]
        if self._run(a, b, p, -1, -1, t):
            self._check_win()

    def _a_prog(self, j: int, k: int) -> None:
        """A program block: the chosen rat (and cheese or card) from the offset ``k``."""
        g: RatsToRichesGame = self._game
        prog = g.layout.programs[j]
        q, choice = divmod(k, prog.width) if prog.shape != P.SHAPE_CHEESE else (-1, k)
        t = self._owned_prog(self.active, j)
        p = self._use(t)
        a, b = g.compiled.use_range[t]
        if self._run(a, b, p, q, choice, t):
            self._check_win()

    def _subjects(self, st: P.Step, user: int, target: int) -> list[int]:
        n = len(self.cash)
        if st.who == P.SEL_SELF:
            return [user]
        if st.who == P.SEL_TARGET:
            return [target]
        order = [(self.active + i) % n for i in range(n)]
        return order if st.who == P.SEL_ALL else [q for q in order if q != user]

    def _run(self, start: int, end: int, user: int, target: int, choice: int,
             card: int) -> bool:
        """Apply compiled steps ``start..end-1`` of ``card`` for ``user`` (``target``: the
        chosen rat, ``choice``: the cheese multiset or card chosen with the action).

        An effect on several rats first decides who is concerned and how much (read before
        anything changes), then applies to each in turn order from the active rat. A step
        that opens sub-decisions (cards or cheese its owner picks) stops the run; the last
        frame it opened carries the rest (``then``). Returns whether the run finished.
        """
        g: RatsToRichesGame = self._game
        L, steps = g.layout, g.compiled.steps
        i = start
        while i < end:
            st = steps[i]
            i += 1
            todo = [(q, self._amount(st, q, user, target))
                    for q in self._subjects(st, user, target) if self._holds(st, q, user, target)]
            opened = len(self.pending)
            for q, amount in todo:
                op = st.op
                if op == P.OP_GAIN:
                    if st.res == P.RES_CASH:
                        self._gain(q, amount)
                    else:
                        self.cheese[q][st.res] += amount
                elif op == P.OP_PAY:
                    if st.res == P.RES_CASH:
                        self.cash[q] -= min(amount, self.cash[q])
                    else:
                        self.cheese[q][st.res] -= min(amount, self.cheese[q][st.res])
                elif op == P.OP_STEAL:
                    if st.res == P.RES_CASH:
                        take = min(amount, self.cash[target])
                        self.cash[target] -= take
                        self._gain(q, take)
                    else:
                        take = min(amount, self.cheese[target][st.res])
                        self.cheese[target][st.res] -= take
                        self.cheese[q][st.res] += take
                elif op in (P.OP_GAIN_CHOSEN, P.OP_STEAL_CHOSEN):
                    for c, a in enumerate(L.combos[choice]):
                        if op == P.OP_STEAL_CHOSEN:
                            self.cheese[target][c] -= a
                        self.cheese[q][c] += a
                elif op == P.OP_MOVE_CHOSEN:
                    # Sabotage: any rat's card to the Cesspit (RR-7: a career goes with it)
                    if st.to == P.ZONE_CESSPIT:
                        self._discard(target, choice)
                    elif choice == g.T:
                        self.flush[target] -= 1
                        self.flush[user] += 1
                    else:
                        self.tableau[target][choice] -= 1
                        self.tableau[user][choice] += 1
                elif op == P.OP_MOVE_PICK:
                    r = user if st.whose == P.SEL_SELF else target
                    left = amount
                    if st.up_to:
                        left = min(left, sum(self._pickable(r, st.colour)))
                    if left:
                        self.pending.append({"kind": "pick", "player": r, "left": left,
                                             "last": -1, "colour": st.colour,
                                             "cost": not st.up_to, "card": card,
                                             "then": None})
                elif op == P.OP_PAY_PICK:
                    left = min(amount, sum(self.cheese[q]))
                    if left:
                        self.pending.append({"kind": "flood", "player": q, "left": left,
                                             "last": 0, "then": None})
                else:  # OP_TRIGGER_INCOME: "collect your income again now"
                    self._gain(q, self.income(q))
            if len(self.pending) > opened:
                self.pending[-1]["then"] = [i, end, user, target, choice, card]
                return False
        return True

    def _a_sell(self, t: int) -> None:
        """Start a sale with one pipe card (rulebook "Blue Cards are Pipes")."""
        p = self.active
        self.turn_actions += 1
        self.pending.append({"kind": "sell", "player": p, "pipes": 0, "last": -1})
        self._frame_apply("SELL", t)

    def _sale_pipes(self, p: int, pipes: int) -> int:
        """Pipes counted in a sale of ``pipes``: plus each ``modify pipes_sold`` of rat
        ``p``'s cards (per copy) whose condition holds (Pipe Dream: +1 if at least 1)."""
        cp = self._game.compiled
        total = pipes
        for t, c in enumerate(self.tableau[p]):
            if c and cp.pipes_add[t] and (cp.pipes_cmp[t] < 0 or _compare(
                    cp.pipes_cmp[t], pipes, cp.pipes_value[t])):
                total += c * cp.pipes_add[t]
        return total

    # ----------------------------------------------------------------- sub-decisions
    def _frame_legal(self, f: dict) -> list[int]:
        g: RatsToRichesGame = self._game
        L = g.layout
        kind, p, last = f["kind"], f["player"], f["last"]
        if kind == "sell":
            return [L.SELL + t for t in g.of_colour["blue"]
                    if t >= last and self.tableau[p][t]] + [L.SELL_NOW]
        if kind == "flood":
            return [L.COLOUR + c for c in _ordered_picks(self.cheese[p], last, f["left"])]
        owned = self._pickable(p, f["colour"])
        return [L.PICK + t for t in _ordered_picks(owned, last, f["left"])]

    def _frame_apply(self, block: str, k: int, _j: int = -1) -> None:
        f = self.pending[0]
        kind, p = f["kind"], f["player"]
        if kind == "sell":
            if block == "SELL":
                self._discard(p, k)  # sold pipes go to the Cesspit
                f["pipes"] += self._game.pipes[k]
                f["last"] = k
                return
            self.pending.pop(0)
            self._gain(p, pipe_sale_value(self._sale_pipes(p, f["pipes"])))
            self._check_win()
            return
        if kind == "flood":
            self.cheese[p][k] -= 1
        else:
            self._discard(p, k)
        f["left"] -= 1
        f["last"] = k
        if f["left"]:
            return
        self.pending.pop(0)
        if f["then"] is not None and self._run(*f["then"]):
            self._check_win()

    # ----------------------------------------------------------------- reveals and events
    def _reveal(self, t: int) -> None:
        """A Rat Pack card turns face up in the first slot waiting (RR-4 for events)."""
        g: RatsToRichesGame = self._game
        seg = self.pack[0]
        seg["counts"][t] -= 1
        if not sum(seg["counts"]):
            self.pack.pop(0)
        self.top_back = None  # RR-9: the next card's back shows (_settle)
        if t < g.T and g.data.card_types[t].is_event:
            self.cesspit[t] += 1  # affects all rats, then to the Cesspit; slot waits again
            # Yellow cards: "affects ALL rats immediately" (RR-4), from the active rat.
            a, b = g.compiled.reveal_range[t]
            if self._run(a, b, self.active, -1, -1, t):
                self._check_win()
            return
        self.sewer[self.refill.pop(0)] = t
        self.reshuffled = False

    def _fix_back(self) -> None:
        """RR-9: the top card's back is known without a draw when the top segment holds one
        back only (a deck); else it stays ``None`` for the ``BACK`` chance node."""
        if not self.pack or self.top_back is not None:
            return
        backs = {self._game.back[t] for t, c in enumerate(self.pack[0]["counts"]) if c}
        if len(backs) == 1:
            self.top_back = backs.pop()

    # ----------------------------------------------------------------- turn machine
    def _settle(self) -> None:
        """Run automatic steps (forced choices, reshuffles, turn starts) until a node."""
        g: RatsToRichesGame = self._game
        while self.phase != "over":
            if self.pack and self.top_back is None:
                self._fix_back()
                if self.top_back is None:
                    return  # chance node: the back shows (RR-9)
            if self.pending:
                legal = self._frame_legal(self.pending[0])
                if len(legal) != 1:
                    return
                self._frame_apply(*g.layout.decode(legal[0]))
                continue
            if self.refill:
                if self.pack:
                    return  # chance node: reveal
                if not self.reshuffled and sum(self.cesspit):
                    # RR-6: shuffle the Cesspit into a new Rat Pack (once per refill).
                    self.pack = [{"deck": "Cesspit", "counts": self.cesspit}]
                    self.cesspit = [0] * (g.T + 1)
                    self.top_back = None  # RR-9: the backs show through the new pack
                    self.reshuffled = True
                else:  # RR-6: both empty, the slot stays empty
                    self.refill.pop(0)
                    self.reshuffled = False
                continue
            if self.phase == "reveal":
                self._start_turn()
                continue
            return

    def _start_turn(self) -> None:
        """Step 1: collect income."""
        self.phase = "step2"
        self.turn_actions = 0
        self._gain(self.active, self.income(self.active))
        self._check_win()

    def _end_turn(self) -> None:
        g: RatsToRichesGame = self._game
        n = len(self.cash)
        if self.active == n - 1:  # round end
            self._crown_big_cheese()
            self.round += 1
            if self.round >= g.data.max_rounds:  # RR-6 safety valve: most Swindle wins
                best = max(self.cash)
                self.winners = [p for p in range(n) if self.cash[p] == best]
                self._end_game()
                return
        self.active = (self.active + 1) % n
        self._start_turn()

    def _crown_big_cheese(self) -> None:
        """RR-5: strictly most Swindle takes the Golden Rat; a tied holder keeps it."""
        best = max(self.cash)
        tied = [p for p, c in enumerate(self.cash) if c == best]
        if len(tied) == 1:
            self.golden = tied[0]
        elif self.golden not in tied:
            self.golden = None


_COMPARE = (
    lambda a, b: a > b, lambda a, b: a >= b, lambda a, b: a == b, lambda a, b: a != b,
    lambda a, b: a <= b, lambda a, b: a < b,
)


def _compare(cmp: int, mine: int, value: int) -> bool:
    """``mine CMPS[cmp] value`` for the fixed comparisons (``program.CMPS[:6]``)."""
    return _COMPARE[cmp](mine, value)


def _ordered_picks(owned: list[int], last: int, left: int) -> list[int]:
    """Indices ``i >= last`` with ``owned[i] > 0`` such that ``left`` picks in non-decreasing
    index order can still be completed (at least ``left`` items at indices ``>= i``)."""
    out = []
    suffix = 0
    for i in range(len(owned) - 1, max(last, 0) - 1, -1):
        suffix += owned[i]
        if owned[i] and suffix >= left:
            out.append(i)
    out.reverse()
    return out


# ----------------------------------------------------------------------------- labels
def _combo_text(combo: tuple | list) -> str:
    parts = [f"{k} {c}" for k, c in zip(combo, COLOURS, strict=True) if k]
    return ", ".join(parts) if parts else "no"


def _label(state: RatsToRichesState, action: int) -> str:
    g: RatsToRichesGame = state._game
    L = g.layout
    # readable labels: rulebook card names (the deck added only where two differ), and
    # "Flush card" for the Flush card (rulebook "The Flush Card"), never internal ids
    keys = g.keys[:-1] + ["Flush card"]
    try:
        block, k, j = L.decode(action)
    except ValueError:
        return f"invalid action {action}"
    if block == "COMBO":
        text = _combo_text(L.combos[k])
        if state.phase == "setup":
            return f"take {text} cheese"
        return f"buy {text} cheese, end turn"
    if block in ("BUY", "FLUSH"):
        t = state.sewer[k] if k < len(state.sewer) else None
        card = "empty slot" if t is None else keys[t]
        verb = "buy" if block == "BUY" else "flush: take"
        return f"{verb} {card} (Open Sewer slot {k})"
    if block == "END_STEP2":
        return "end step 2"
    if block == "USE":
        return f"use {keys[k]}"
    if block == "PROG":
        prog = L.programs[j]
        u = state._owned_prog(state.active, j) if state.phase == "step2" else None
        name = prog.name if u is None else g.data.card_types[u].name
        if prog.shape == P.SHAPE_CHEESE:
            return f"use {name}: take {_combo_text(L.combos[k])} cheese"
        q, i = divmod(k, prog.width)
        if prog.shape == P.SHAPE_TARGET:
            return f"use {name} on rat {q}"
        if prog.shape == P.SHAPE_TARGET_CHEESE:
            return f"use {name} on rat {q}: take {_combo_text(L.combos[i])} cheese"
        return f"use {name} on rat {q}'s {keys[i]}"
    if block == "SELL":
        return f"sell {keys[k]}"
    if block == "SELL_NOW":
        return "sell the chosen pipes"
    if block == "PICK":
        f = state.pending[0] if state.pending else None
        if f is not None and f["kind"] == "pick" and f["cost"]:
            return f"dump {keys[k]} with {g.data.card_types[f['card']].name}"
        return f"send own {keys[k]} to the Cesspit"
    if block == "COLOUR":
        return f"return 1 {COLOURS[k]} cheese"
    if block == "BACK":
        return f"the top Rat Pack card shows a {D.BACKS[k]} back"  # RR-9
    return f"reveal {keys[k]}"  # REVEAL


# ----------------------------------------------------------------------------- observations
def _by_key(keys: list[str], counts: list[int]) -> dict[str, int]:
    return {keys[t]: c for t, c in enumerate(counts) if c}


def _then_to_obs(game: RatsToRichesGame, then: list | None) -> dict | None:
    """A continuation ``[step, end, user, target, choice, card]`` as readable JSON: the card
    (key), the trigger of its effects, the index of the next effect in that list."""
    if then is None:
        return None
    step, _end, user, target, choice, card = then
    a, b = game.compiled.use_range[card]
    trigger, start = ("use", a) if a <= step <= b and a < b else (
        "reveal", game.compiled.reveal_range[card][0])
    return {"card": game.keys[card], "trigger": trigger, "next": step - start, "user": user,
            "target": None if target < 0 else target, "choice": choice}


def _frame_to_obs(game: RatsToRichesGame, f: dict) -> dict:
    keys = game.keys
    out = dict(f)
    if f["kind"] == "flood":
        out["last"] = COLOURS[f["last"]]
    else:
        out["last"] = None if f["last"] < 0 else keys[f["last"]]
    if f["kind"] == "pick":
        out["colour"] = None if f["colour"] < 0 else D.CARD_COLOURS[f["colour"]]
        out["card"] = keys[f["card"]]
    if f["kind"] != "sell":
        out["then"] = _then_to_obs(game, f["then"])
    return out


class _Reader:
    """Checked access to an observation dict; errors name the field."""

    def __init__(self, game: RatsToRichesGame, obs: Mapping[str, Any]):
        if not isinstance(obs, Mapping):
            raise ValueError("observation must be a dict")
        self.game = game
        self.obs = obs
        self.n = game.num_players()

    def fail(self, field: str, problem: str) -> ValueError:
        return ValueError(f"observation field {field!r}: {problem}")

    def get(self, field: str) -> Any:
        if field not in self.obs:
            raise self.fail(field, "missing")
        return self.obs[field]

    def int(self, value: Any, field: str, lo: int = 0, hi: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < lo or (
                hi is not None and value > hi):
            rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise self.fail(field, f"must be an int {rng}, got {value!r}")
        return value

    def seat(self, value: Any, field: str, allow_none: bool = False) -> int | None:
        if value is None and allow_none:
            return None
        return self.int(value, field, 0, self.n - 1)

    def list(self, field: str, length: int | None = None, value: Any = None) -> list:
        v = self.get(field) if value is None else value
        if not isinstance(v, list) or (length is not None and len(v) != length):
            raise self.fail(field, f"must be a list of length {length}")
        return v

    def card(self, value: Any, field: str, flush: bool = False) -> int:
        keys = self.game.keys if flush else self.game.keys[:-1]
        if value not in keys:
            raise self.fail(field, f"unknown card {value!r}")
        return self.game.key_id[value]

    def counts(self, value: Any, field: str, flush: bool = False) -> list[int]:
        """``{card key: count}`` -> counts per card id (``T + 1`` long with ``flush``)."""
        if not isinstance(value, Mapping):
            raise self.fail(field, "must be a dict {card key: count}")
        out = [0] * (self.game.T + flush)
        for key, c in value.items():
            out[self.card(key, field, flush)] = self.int(c, f"{field}.{key}", 1)
        return out

    def cheese(self, value: Any, field: str) -> list[int]:
        if not isinstance(value, Mapping) or set(value) != set(COLOURS):
            raise self.fail(field, f"must be a dict with keys {COLOURS}")
        return [self.int(value[c], f"{field}.{c}") for c in COLOURS]


def _from_observation(game: RatsToRichesGame, player: int,
                      obs: Mapping[str, Any]) -> RatsToRichesState:
    r = _Reader(game, obs)
    n, d = r.n, game.data
    if r.get("player") != player:
        raise r.fail("player", f"is {obs.get('player')!r}, not the seat {player!r} asked for")
    s = RatsToRichesState(game)
    phase = r.get("phase")
    if phase not in _PHASES:
        raise r.fail("phase", f"must be one of {_PHASES}, got {phase!r}")
    s.phase = phase
    s.active = r.int(r.get("active"), "active", 0, n - 1)
    s.round = r.int(r.get("round"), "round", 0, d.max_rounds)
    s.cash = [r.int(v, f"cash[{i}]") for i, v in enumerate(r.list("cash", n))]
    s.cheese = [r.cheese(v, f"cheese[{i}]") for i, v in enumerate(r.list("cheese", n))]
    s.flush = [r.int(f, f"flush[{i}]") for i, f in enumerate(r.list("flush", n))]
    s.box = r.int(r.get("flush_in_box"), "flush_in_box", 0, d.flush_count)
    s.tableau = [r.counts(v, f"tableau[{i}]") for i, v in enumerate(r.list("tableau", n))]
    s.golden = r.seat(r.get("golden_rat"), "golden_rat", allow_none=True)
    sewer = r.list("open_sewer", d.open_sewer_slots)
    s.sewer = [None if v is None else r.card(v, f"open_sewer[{i}]", flush=True)
               for i, v in enumerate(sewer)]
    for i, t in enumerate(s.sewer):
        if t is not None and t < game.T and d.card_types[t].is_event:
            raise r.fail(f"open_sewer[{i}]", "an event never stays in the Open Sewer (RR-4)")
    s.pack = []
    for i, seg in enumerate(r.list("rat_pack")):
        if not isinstance(seg, Mapping) or not isinstance(seg.get("deck"), str):
            raise r.fail(f"rat_pack[{i}]", "must be {'deck': str, 'counts': {...}}")
        counts = r.counts(seg.get("counts"), f"rat_pack[{i}].counts", flush=True)
        if not sum(counts):
            raise r.fail(f"rat_pack[{i}].counts", "an empty segment is not listed")
        s.pack.append({"deck": seg["deck"], "counts": counts})
    s.cesspit = r.counts(r.get("cesspit"), "cesspit", flush=True)
    held = [sum(row[t] for row in s.tableau) for t in range(game.T)] + [sum(s.flush) + s.box]
    totals = [ct.total for ct in d.card_types] + [d.flush_count]
    for t, total in enumerate(totals):
        seen = (sum(seg["counts"][t] for seg in s.pack) + s.sewer.count(t) + held[t]
                + s.cesspit[t])
        if seen != total:
            where = "flush/flush_in_box/" if t == game.T else "tableau/"
            raise r.fail(f"rat_pack/open_sewer/{where}cesspit",
                         f"card {game.keys[t]!r}: {seen} copies placed, the game has {total}")
    s.refill = [r.int(v, "refill", 0, d.open_sewer_slots - 1) for v in r.list("refill")]
    for slot in s.refill:
        if s.sewer[slot] is not None:
            raise r.fail("refill", f"slot {slot} waits for a card but holds one")
    if not isinstance(r.get("reshuffled"), bool):
        raise r.fail("reshuffled", "must be a bool")
    s.reshuffled = obs["reshuffled"]
    # RR-9: the top card's back is public; the rebuild keeps it
    back = r.get("top_back")
    if back is not None:
        if back not in D.BACKS:
            raise r.fail("top_back", f"must be null or one of {D.BACKS}, got {back!r}")
        b = D.BACKS.index(back)
        if not s.pack or not any(c and game.back[t] == b
                                 for t, c in enumerate(s.pack[0]["counts"])):
            raise r.fail("top_back", f"no {back!r} card is on top of the Rat Pack")
    s.top_back = None if back is None else D.BACKS.index(back)
    s.turn_actions = r.int(r.get("turn_actions"), "turn_actions")
    s.pending = [_frame_from_obs(r, f, f"pending[{i}]")
                 for i, f in enumerate(r.list("pending"))]
    winners = r.list("winners")
    s.winners = [r.seat(w, "winners") for w in winners]
    if (phase == "over") != bool(s.winners):
        raise r.fail("winners", "must be non-empty exactly when the phase is 'over'")
    s._settle()  # no-op for an observation of a real state
    return s


def _then_from_obs(r: _Reader, raw: Any, field: str) -> list | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise r.fail(field, "must be null or {'card', 'trigger', 'next', 'user', 'target', "
                     "'choice'}")
    game = r.game
    card = r.card(raw.get("card"), f"{field}.card")
    trigger = raw.get("trigger")
    if trigger not in P.TRIGGERS:
        raise r.fail(f"{field}.trigger", f"must be one of {P.TRIGGERS}")
    a, b = (game.compiled.use_range if trigger == "use" else game.compiled.reveal_range)[card]
    step = a + r.int(raw.get("next"), f"{field}.next", 0, b - a)
    target = r.seat(raw.get("target"), f"{field}.target", allow_none=True)
    choice = raw.get("choice")
    if isinstance(choice, bool) or not isinstance(choice, int) or choice < -1:
        raise r.fail(f"{field}.choice", f"must be an int >= -1, got {choice!r}")
    return [step, b, r.seat(raw.get("user"), f"{field}.user"),
            -1 if target is None else target, choice, card]


def _frame_from_obs(r: _Reader, f: Any, field: str) -> dict:
    if not isinstance(f, Mapping) or f.get("kind") not in _FRAME_KINDS:
        raise r.fail(f"{field}.kind", f"must be one of {_FRAME_KINDS}")
    kind = f["kind"]
    out: dict[str, Any] = {"kind": kind, "player": r.seat(f.get("player"), f"{field}.player")}
    last = f.get("last")
    if kind == "flood":
        if last not in COLOURS:
            raise r.fail(f"{field}.last", f"must be one of {COLOURS}")
        out["left"] = r.int(f.get("left"), f"{field}.left", 1)
        out["last"] = COLOURS.index(last)
        out["then"] = _then_from_obs(r, f.get("then"), f"{field}.then")
        return out
    out["last"] = -1 if last is None else r.card(last, f"{field}.last", flush=True)
    if kind == "sell":
        out["pipes"] = r.int(f.get("pipes"), f"{field}.pipes")
        return out
    out["left"] = r.int(f.get("left"), f"{field}.left", 1)
    colour = f.get("colour")
    if colour is not None and colour not in D.CARD_COLOURS:
        raise r.fail(f"{field}.colour", f"must be null or one of {D.CARD_COLOURS}")
    out["colour"] = -1 if colour is None else D.CARD_COLOURS.index(colour)
    if not isinstance(f.get("cost"), bool):
        raise r.fail(f"{field}.cost", "must be a bool")
    out["cost"] = f["cost"]
    out["card"] = r.card(f.get("card"), f"{field}.card")
    out["then"] = _then_from_obs(r, f.get("then"), f"{field}.then")
    return out


# keep the colour ids importable from here for tests
__all__ += ["GREEN", "BLUE", "RED", "cheese_combos", "pipe_sale_value"]
