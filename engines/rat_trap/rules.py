"""Rat Trap (Tiki Editions 2017): the reference rule engine.

Every section of ``../shared/seeds/rat_trap_rulebook.txt`` is implemented: setup per player
count, round setup (Traps set aside, piles of 5), the roll and the optional re-roll of both
dice, the accomplice and the die it keeps, resolution order, the five actions, Trap reveal,
Lucky Clovers, elimination, round end, scoring (incl. "no cheese stored -> 2 points each"),
game end and tie-breaks; the advanced rules "The Bigger the Gang" (``big_gang``) and
"Everyone Has a Role to Play" (``roles``), and the 2-player "Third Rat" variant
(``num_players=2``). Rulings RT-1..RT-10 of ``../shared/RULES_GAPS.md`` are cited where coded.

Participants
    Seats ``0..n-1`` decide. In the 2-player variant the Third Rat is participant ``2``: it
    keeps dice, draws, stores face-up cards, takes scratches and scores points, but never
    decides (its controller does, RT-8). Per-participant lists have one entry per participant.

Action ids (one id space, :data:`ACTION_BASES`)
    ``FACE+f``     keep (accomplice) or play (active, big gang) the die showing face ``f``
    ``PILE+i``     draw from pile ``i`` / the Manipulator looks at pile ``i``
    ``TARGET+k``   choose participant ``k`` (accomplice, steal victim, cat target, redirect)
    ``REROLL``, ``KEEP_ROLL``      re-roll both dice or keep them
    ``USE_CLOVER``, ``TAKE_SCRATCH``  answer to a scratch (RT-2)
    ``PASS``, ``REVEAL``, ``REVEAL_WHITE``, ``REVEAL_BLACK``  role windows (RT-10)
    ``ORDER+t``    the Manipulator puts a card of type ``t`` next (top to bottom)
    chance: ``DRAW+d`` (the set-aside Trap, or a card type from the dealt cards),
    ``STEAL+t`` (type of the stolen card, RT-4), ``ROLL+k`` (unordered pair of faces),
    ``ROLE+r`` (role dealt, RT-9), ``TRCARD+c`` (Third Rat card), ``DEAL+m`` (the contents of
    a pile the Manipulator looks at, as a multiset).
    Decisions whose legal set is public and has one member are applied automatically; role and
    clover windows are always asked, so ``current_player()`` never reveals a hidden card.

Hidden information and piles
    Piles are dealt lazily (draw-on-reveal): a pile is ``g`` (its set-aside Trap still inside,
    0/1) plus ``r`` cards from the shuffled dealt cards, whose remaining types are the ``pool``
    counts. Drawing is a chance node weighted exactly as a shuffled pile. Piles the Manipulator
    looked at become explicit ordered lists (in a state of the game; in the worlds of another
    seat's exact belief they stay lazy, :attr:`RatTrapState.observer`). A seat's observation
    holds its own cards, what it knows of other players' cards (cards stolen from it, cards
    it saw drawn from a pile it ordered, what stays certain after steals it did not see),
    public facts (scratches, points, pile sizes, revealed Traps, quiet draws per seat and
    pile, used clovers, the Third Rat's cards, revealed roles) and the pending turn. See
    :meth:`RatTrapGame.state_from_observation` for how unknown cards are re-dealt.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

from ..api import (
    CHANCE,
    SAFETY_VALVE_MAX,
    TERMINAL,
    Game,
    Param,
    State,
    _copy_json,
    make_rng,
)
from . import data as D
from .data import (
    AL_RATONE,
    ALCHEMIST,
    CARD_CHEESE,
    CARD_TYPES,
    CAT,
    CLOVER,
    FACES,
    FOOL,
    HEAL,
    HYPNOTIST,
    KEY1,
    KEY2,
    MANIPULATOR,
    ROLES,
    STEAL,
    TRAP,
)

# ----------------------------------------------------------------------------- action ids
MAX_PARTICIPANTS = 5
MAX_PILES = 5
PAIRS = [(a, b) for a in range(len(FACES)) for b in range(a, len(FACES))]  # unordered rolls
PAIR_INDEX = {p: i for i, p in enumerate(PAIRS)}
#: Multisets of 5 cards (counts per card type) a looked-at pile can hold.
PILE_MULTISETS = [c for c in itertools.product(range(6), repeat=4) if sum(c) == 5]
PILE_MULTISET_INDEX = {m: i for i, m in enumerate(PILE_MULTISETS)}
DRAW_LABELS = ("trap", "trap", "cheese1", "cheese2", "clover")  # DRAW+0 is the set-aside Trap

FACE = 0
PILE = FACE + len(FACES)
TARGET = PILE + MAX_PILES
REROLL = TARGET + MAX_PARTICIPANTS
KEEP_ROLL = REROLL + 1
USE_CLOVER = KEEP_ROLL + 1
TAKE_SCRATCH = USE_CLOVER + 1
PASS = TAKE_SCRATCH + 1
REVEAL = PASS + 1
REVEAL_WHITE = REVEAL + 1
REVEAL_BLACK = REVEAL_WHITE + 1
ORDER = REVEAL_BLACK + 1
DRAW = ORDER + len(CARD_TYPES)
STEAL_CARD = DRAW + len(DRAW_LABELS)
ROLL = STEAL_CARD + len(CARD_TYPES)
ROLE = ROLL + len(PAIRS)
DEAL = ROLE + len(ROLES)
TRCARD = DEAL + len(PILE_MULTISETS)

ACTION_BASES = {
    "FACE": FACE, "PILE": PILE, "TARGET": TARGET, "REROLL": REROLL, "KEEP_ROLL": KEEP_ROLL,
    "USE_CLOVER": USE_CLOVER, "TAKE_SCRATCH": TAKE_SCRATCH, "PASS": PASS, "REVEAL": REVEAL,
    "REVEAL_WHITE": REVEAL_WHITE, "REVEAL_BLACK": REVEAL_BLACK, "ORDER": ORDER, "DRAW": DRAW,
    "STEAL_CARD": STEAL_CARD, "ROLL": ROLL, "ROLE": ROLE, "DEAL": DEAL, "TRCARD": TRCARD,
}

#: Upper bound of actions in one turn / one round setup (see ``max_game_length``).
_TURN_BOUND = 64
_SETUP_BOUND = 32


def _pair_probs(die: tuple[int, ...]) -> list[tuple[int, float]]:
    """``(ROLL+k, p)`` for the unordered faces of two dice with these six faces."""
    p = [die.count(f) / len(die) for f in range(len(FACES))]
    out = []
    for k, (a, b) in enumerate(PAIRS):
        prob = p[a] * p[b] * (1 if a == b else 2)
        if prob > 0:
            out.append((ROLL + k, prob))
    return out


class RatTrapGame(Game):
    """Rat Trap with its variants, as parameters.

    Params:
        num_players: 2–5 seats; 2 plays "The Third Rat" variant with the 3-player deck.
        big_gang: "The Bigger the Gang, the Bigger the Mess!" (4–5 players only).
        roles: "Everyone Has a Role to Play" (3–5 players only).
        tie_break: ``"shared"`` (default) or ``"extra_round"`` (RT-5).
        data_path: another component file (``None``: the packaged stand-in data).
        max_turns_per_round: a safety valve, not a rule: a round that reaches this many
            turns ends as if two piles were exhausted (the rulebook's round always ends with
            probability 1; the bound makes ``max_game_length`` finite).
    """

    name = "rat_trap"
    title = "Rat Trap"
    summary = ("Roll two action dice, give both to an accomplice who keeps one; draw cheese "
               "from Doorway piles, steal, send the cat and heal. A third scratch eliminates "
               "you from the round. Most cheese points after 3 rounds (or 7 points) wins.")
    perfect_information = False
    _optional_fields = ("observer",)  # a world of a seat's exact belief (RatTrapState)
    variants = {
        "2p-third-rat": {"num_players": 2},
        "3p": {"num_players": 3},
        "4p": {"num_players": 4},
        "5p": {"num_players": 5},
        "3p-roles": {"num_players": 3, "roles": True},
        "4p-big-gang": {"num_players": 4, "big_gang": True},
        "5p-big-gang-roles": {"num_players": 5, "big_gang": True, "roles": True},
        "4p-roles-extra-round": {"num_players": 4, "roles": True, "tie_break": "extra_round"},
    }
    param_specs = (
        Param("num_players", 3, int, "seats (2 = the Third Rat variant)",
              check=lambda v: 2 <= v <= 5, allowed="an int from 2 to 5"),
        Param("big_gang", False, bool, "The Bigger the Gang, the Bigger the Mess! (4-5 players)"),
        Param("roles", False, bool, "Everyone Has a Role to Play (3-5 players)"),
        Param("tie_break", "shared", str, "RT-5: shared win or one extra round",
              choices=("shared", "extra_round")),
        Param("data_path", None, str, "component data file (None: packaged stand-in)"),
        Param("max_turns_per_round", 200, int, "safety valve on turns per round",
              check=lambda v: 1 <= v <= SAFETY_VALVE_MAX,
              allowed=f"an int in 1..{SAFETY_VALVE_MAX}"),
    )

    @property
    def hidden_moves(self) -> bool:  # type: ignore[override]
        """With roles: the Manipulator reorders the piles it looked at and puts them back
        face down (rulebook, "Everyone Has a Role to Play", THE MANIPULATOR); the other seats
        see which pile it orders, not the order (``Game.hidden_moves``)."""
        return bool(self.params["roles"])

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        n = params["num_players"]
        if params["big_gang"] and n < 4:
            raise ValueError(f"bad value True for parameter 'big_gang': the rule is for 4-5 "
                             f"players, not {n}")
        if params["roles"] and n < 3:
            raise ValueError(f"bad value True for parameter 'roles': the rule is for 3-5 "
                             f"players, not {n}")
        self.data = D.load(params["data_path"])
        #: Participants (seats + the Third Rat in the 2-player variant).
        self.participants = 3 if n == 2 else n
        #: Participant index of the Third Rat, or -1.
        self.third_rat = 2 if n == 2 else -1
        self.num_piles = self.participants
        self.deck = self.data.decks[self.num_piles]
        self.black_roll = _pair_probs(self.data.black_die)
        self.white_roll = _pair_probs(self.data.white_die)
        return params

    def _action_seat_blocks(self):
        """``TARGET + s``: choose seat ``s`` (the Third Rat, the last rat, names no seat)."""
        return [(TARGET, 1)]

    def num_distinct_actions(self) -> int:
        return TRCARD + len(self.data.third_rat_cards)

    def max_game_length(self) -> int:
        rounds = self.data.max_rounds + 1  # + a tie-break round
        per_round = _SETUP_BOUND + self.params["max_turns_per_round"] * _TURN_BOUND
        return rounds * per_round

    def new_initial_state(self) -> RatTrapState:
        return RatTrapState(self)

    def heuristic_value(self, state: State, player: int) -> float:
        return heuristic_value(state, player)

    def _state_from_observation(self, player: int, observation: Mapping[str, Any],
                                rng: Any = None) -> RatTrapState:
        """Rebuild a full state from ``observation(player)``, sampling what the seat cannot see.

        The sample is drawn from the seat's posterior given its current observation (exact where
        the order of past events tells nothing more, see the end): the rulebook shuffles each
        pile (its set-aside Trap and four dealt cards) and deals roles uniformly (RT-9), so
        every complete placement of the unseen cards consistent with the observation is equally
        likely. The unknown roles and the place of each pile's set-aside Trap (a revealed Trap
        of the pile, a quiet card the Fool drew from it, or a card not yet drawn) are drawn
        jointly, weighted by the number of placements of the unseen dealt Traps they leave (a
        Trap lies only in a pile or among the Fool's quiet cards); then the dealt Traps and the
        other unknown cards are placed uniformly. Once the roles are dealt, a Manipulator not
        revealed was not dealt (RT-10). Piles another seat ordered are taken in a uniform order
        (the convention for the one choice a seat cannot see). Other seats' private knowledge is
        reduced to what ``player`` can deduce (what they know of its own cards). The sample's
        ``views`` logs are unknown (``[None]``); ``resample_from_infostate`` then copies the
        seat's own (perfect recall).

        Other seats' decisions are uninformative beyond their legality (the policy-free
        convention of PIMC / IS-MCTS determinization, which cannot know another seat's
        policy): a world is consistent with a seen decision when it was legal there, with
        weight 1 whatever else was legal. So "seat q took the scratch" tells nothing about
        q's clovers (RT-2), while "seat q used a Lucky Clover" tells that q held one then;
        as using one of two clovers is one decision, the exact posterior weighs q's hand of
        that moment by 1 / (the clovers it held). ``tests/engines/posterior.py`` enumerates
        with the same definition.

        This closed form reads the current observation only. It does not model what
        needs the order of past events: (a) that 1 / clovers weight of another seat's clover
        use (its remaining cards are drawn as if none were special); (b) the likelihood
        (h - k) / h that a steal from a possible Fool holding k Traps among h cards took no
        Trap; (c) knowledge that is only probable after a steal the seat did not see (a
        known card of the victim may have gone to the thief: RT-4 keeps what stays
        certain), including a card the seat could follow to its thief. Determinization
        (:meth:`_sample_infostate`) therefore filters the round through the seat's
        ``views`` log first and uses this rebuild only beyond the filter's caps.

        Raises:
            ValueError: a field is missing, malformed, or the counts are impossible.
        """
        return _rebuild(self, player, observation, make_rng(rng))

    def _sample_infostate(self, player: int, observation: Mapping[str, Any],
                          views: list | None, rng: Any = None) -> RatTrapState:
        """Determinization from the seat's information state: the exact belief of the
        round, filtered from the round's start through the seat's ``views`` log
        (``engines/belief.py``; exact, including what the closed form does not model: clover
        uses, steals from a possible Fool, cards followed through unseen steals; proved
        against brute force by ``tests/engines/test_belief.py`` and
        ``tests/engines/test_exact_posterior.py``), where it stays within its caps
        (``belief.caps()``: 10,000 states and 200,000 applied actions, on both backends);
        beyond them, the closed-form
        :meth:`_state_from_observation` with its documented limits."""
        return sample_infostate(self, player, observation, views, make_rng(rng))


class RatTrapState(State):
    """A Rat Trap position. Fields are plain JSON data (see ``engines/api.py``)."""

    #: ``-1`` in a state of the game. In a world of seat ``q``'s exact belief
    #: (``view.exact_belief``, an instance field set on the round's anchor) ``q``: piles
    #: another seat's Manipulator looks at stay *lazy*. Under the documented prior of the
    #: order (a uniform shuffle, :func:`view.order_prior`) the contents and order of such a
    #: pile are, for ``q``, a shuffled pile like any other, so the world skips the deal and
    #: the ordering (their unseen log entries are written as such, :meth:`_t_manip_deal`),
    #: draws from the pile are chance nodes that show ``q`` what an ordered draw shows
    #: (:func:`view.auto_code`), and a sampled world gets a uniform order only then
    #: (:func:`view.realize_lazy_piles`). One world then stands for every deal and order
    #: of the two piles (hundreds to tens of thousands of states), so the filter stays in its
    #: caps.
    observer = -1

    def __init__(self, game: RatTrapGame):
        super().__init__(game)
        P = game.participants
        self.round = 0
        self.turn = 0
        self.active = 0  # rulebook: whoever ate cheese last; seat 0 by convention
        self.points = [0] * P
        self.round_results: list[dict] = []
        self.winners: list[int] = []
        self.tiebreak_round = False
        self._reset_round_fields()
        self.phase = ""
        self.todo: list[list] = [["start_round"]]
        #: Perfect recall: each seat's view of every action so far (``engines/api.py``,
        #: :func:`view.view_codes`), plus what it saw drawn from a pile the Manipulator
        #: ordered (an automatic step, :meth:`_log_auto_draw`).
        self.views: list[list] = [[] for _ in range(game.num_players())]
        self._advance()

    def clone(self) -> RatTrapState:
        """A deep copy (``State.clone``), each field copied at its own depth (the exact
        filter clones once per applied action, ``engines/belief.py``)."""
        new = object.__new__(RatTrapState)
        d = self.__dict__
        new.__dict__ = {k: _CLONE.get(k, _copy_json)(v) if k != "_game" else v
                        for k, v in d.items()}
        return new

    # ----------------------------------------------------------------- round bookkeeping
    def _reset_round_fields(self) -> None:
        g: RatTrapGame = self._game
        P, n = g.participants, g.num_piles
        self.scratches = [0] * P
        self.stored: list[list[int]] = [[] for _ in range(P)]
        self.lost: list[list[int]] = [[] for _ in range(P)]
        self.eliminated = [False] * P
        self.known: list[list[list[int]]] = [[[] for _ in range(P)] for _ in range(P)]
        self.pile_g = [1] * n
        self.pile_r = [4] * n
        self.pile_order: list[list[int] | None] = [None] * n
        self.trap_out = [0] * n  # Traps revealed next to each pile
        self.used_clovers = 0
        deck = list(g.deck)
        deck[TRAP] -= n  # set aside one Trap per pile
        self.pool = deck
        self.roles = [-1] * g.num_players()
        self.role_public = [False] * g.num_players()
        self.role_gone = [False] * g.num_players()
        self.not_fool: list[int] = []
        #: ``quiet[q][i]``: cards seat ``q`` drew from pile ``i`` this round that were not
        #: revealed as a Trap (public: everybody sees who draws where and what is revealed;
        #: a quiet card of the Fool may be a Trap, so the exact belief needs its pile).
        self.quiet = [[0] * n for _ in range(g.num_players())]
        self.fool_piles: list[int] = []
        self.manip_piles: list[int] = []
        self.manip_hand = [0, 0, 0, 0]  # cards of the pile being ordered, not yet placed
        self.ordering = -1  # the pile the Manipulator is ordering, or -1
        self.tr_used: list[int] = []
        self.round_over = False
        #: Entries of every seat's ``views`` log since the round began (public: everybody
        #: sees that each step happens); the exact belief filters the round from there.
        self.round_steps = 0
        self._reset_turn_fields()

    def _reset_turn_fields(self) -> None:
        self.black: list[int] = []
        self.white: list[int] = []
        self.rerolled = False
        self.alr_queue: list[int] = []
        self.acc = -1  # basic game: the accomplice
        self.acc_white = -1
        self.acc_black = -1
        self.returned: list[int] = []
        self.cat_targets: list[int] = []
        self.kept: dict[str, int] = {}  # participant (as str) -> face kept this turn
        self.tr_card = -1
        self.ctx: dict[str, Any] = {}

    # ----------------------------------------------------------------- engine primitives
    def current_player(self) -> int:
        phase = self.phase
        if phase == "over":
            return TERMINAL
        if phase in _CHANCE_PHASES:
            return CHANCE
        return self.ctx["who"]

    def _legal_actions(self) -> list[int]:
        return _LEGAL[self.phase](self)

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return _OUTCOMES[self.phase](self)

    def _apply_action(self, action: int) -> None:
        self._log_views(action)
        self.round_steps += 1
        _APPLY[self.phase](self, action)
        self.phase = "" if self.phase == "_done" else self.phase
        self._advance()

    def observation(self, player: int) -> dict:
        return observation(self, player)

    def _view_codes(self, action: int) -> list[int]:
        return view_codes(self, action)

    def _hidden_weight(self, action: int) -> float:
        return order_prior(self, action)

    def _realize(self, rng: Any) -> RatTrapState:
        """This world of a belief as a state of the game (:func:`view.realize_lazy_piles`:
        its lazy piles dealt and ordered from ``rng``, a ``numpy.random.Generator``)."""
        return realize_lazy_piles(self, rng)

    def _log_auto_draw(self, actor: int, pile: int, card: int) -> None:
        """Perfect recall of a card drawn from a pile the Manipulator ordered (no chance node:
        the order is known). The drawer, the Manipulator and everybody for the Third Rat's
        card or a revealed Trap log ``-10 - card``; the others ``-2`` ("a card")."""
        for q, log in enumerate(self.views):
            log.append(auto_code(self, q, actor, card))
        self.round_steps += 1

    def _action_to_string(self, player: int, action: int) -> str:
        return action_label(self, player, action)

    def describe_action(self, viewer: int | None, action: int) -> str:
        return describe_action(self, viewer, action)

    def render(self, player: int) -> str:
        return render(self, player)

    def scores(self) -> list[float]:
        return [float(p) for p in self.points[: self._game.num_players()]]

    def _returns(self) -> list[float]:
        share = 1.0 / len(self.winners)
        return [share if s in self.winners else 0.0 for s in range(self._game.num_players())]

    # ----------------------------------------------------------------- task machine
    def _advance(self) -> None:
        """Run automatic steps until a decision or chance node (or the end) is reached."""
        while self.phase == "":
            task = self.todo.pop()
            getattr(self, "_t_" + task[0])(*task[1:])

    def _push(self, *tasks: list) -> None:
        """Schedule ``tasks`` to run in the given order (before anything already pending)."""
        self.todo.extend(reversed(tasks))

    def _ask(self, phase: str, who: int, **ctx: Any) -> None:
        self.phase = phase
        self.ctx = {"who": who, **ctx}

    def _done(self) -> None:
        self.phase = "_done"

    # -- round
    def _t_start_round(self) -> None:
        """Round Setup: Traps set aside, piles of 4 dealt cards + 1 Trap (lazily shuffled)."""
        g: RatTrapGame = self._game
        self.round += 1
        self.turn = 0
        self._reset_round_fields()
        tasks: list[list] = []
        if g.params["roles"]:
            tasks += [["deal_role", s] for s in range(g.num_players())] + [["manipulate"]]
        self._push(*tasks, ["turn"])

    def _t_deal_role(self, seat: int) -> None:
        self._ask("deal_role", CHANCE, seat=seat)

    def _t_manipulate(self) -> None:
        """THE MANIPULATOR reveals at round start, looks at two piles and orders them (RT-10)."""
        if MANIPULATOR not in self.roles:
            return
        m = self.roles.index(MANIPULATOR)
        self.role_public[m] = True
        self._push(["manip_pile", m], ["manip_pile", m])

    def _t_manip_pile(self, m: int) -> None:
        options = [i for i in range(self._game.num_piles) if i not in self.manip_piles]
        self._ask("manip_pile", m, options=options)

    def _t_manip_deal(self, pile: int) -> None:
        if self._lazy_manipulation():
            # a world of another seat's belief: the deal (a chance node) and one decision per
            # card (RT-10) are unseen entries of that seat's log, the pile stays shuffled
            unseen = 1 + self._pile_size(pile)
            for log in self.views:
                log.extend([-1] * unseen)
            self.round_steps += unseen
            return
        self._ask("manip_deal", CHANCE, pile=pile)

    def _lazy_manipulation(self) -> bool:
        """The Manipulator's piles stay lazy in this world (:attr:`observer`: another seat
        is its observer). Only asked once a Manipulator was dealt."""
        return 0 <= self.observer != self.roles.index(MANIPULATOR)

    def _t_manip_order(self, pile: int) -> None:
        """One decision per card, top to bottom (RT-10). Asked even when the rest is forced,
        so the number of decisions reveals nothing about the pile."""
        if not any(self.manip_hand):
            self.ordering = -1
            return
        self._ask("manip_order", self.roles.index(MANIPULATOR), pile=pile)

    # -- turn
    def _t_turn(self) -> None:
        """Turn Structure step 1: roll the dice (4 dice once in the Bigger Gang, RT-7)."""
        self.turn += 1
        self._reset_turn_fields()
        if self._game.params["big_gang"]:
            self._ask("roll_white", CHANCE)
        else:
            self._ask("roll", CHANCE)

    def _t_after_roll(self) -> None:
        self._push(["alratone"], ["accomplice"], ["keep"], ["end_turn"])

    def _t_alratone(self) -> None:
        """AL RATONE window after the final roll: each non-active seat with an unrevealed role,
        clockwise, may force being chosen (RT-10). Asked of every such seat so that nobody
        learns who holds the role by being asked."""
        g: RatTrapGame = self._game
        if not g.params["roles"] or self._role_used(AL_RATONE):
            return
        n = g.num_players()
        queue = [(self.active + k) % n for k in range(1, n)]
        self.alr_queue = [s for s in queue if not self.role_public[s]]
        self._t_alr_next()

    def _t_alr_next(self) -> None:
        if self.alr_queue:
            self._ask("alratone", self.alr_queue[0])

    def _t_accomplice(self) -> None:
        """Step 2: choose the accomplice (two in the Bigger Gang: white pair, then black)."""
        g: RatTrapGame = self._game
        if g.params["big_gang"]:
            for colour in ("white", "black"):
                if getattr(self, "acc_" + colour) < 0:
                    self._push(["choose_acc", colour], ["accomplice"])
                    return
        elif self.acc < 0:
            self._push(["choose_acc", "black"])

    def _t_choose_acc(self, colour: str) -> None:
        self._choice("accomplice", self.active, self._accomplice_options(), colour=colour)

    def _accomplice_options(self) -> list[int]:
        g: RatTrapGame = self._game
        taken = {self.acc_white, self.acc_black}
        options = [k for k in range(g.participants) if k != self.active and k not in taken]
        if g.third_rat >= 0 and len(self.tr_used) >= len(g.data.third_rat_cards):
            options.remove(g.third_rat)  # all six Third Rat cards used this round (RT-8)
        return options

    def _t_keep(self) -> None:
        """Step 3: the accomplice keeps one die; step 4 queues the actions (RT-7 order)."""
        g: RatTrapGame = self._game
        if g.params["big_gang"]:
            n = g.num_players()
            pairs = sorted([(self.acc_white, "white"), (self.acc_black, "black")],
                           key=lambda p: (p[0] - self.active) % n)  # clockwise from active
            self._push(*[["keep_die", k, c] for k, c in pairs],
                       *[["resolve_kept", k] for k, _ in pairs], ["play"])
        else:
            self._push(["keep_die", self.acc, "black"], ["resolve_kept", self.acc],
                       ["resolve", self.active, "returned"])

    def _t_keep_die(self, who: int, colour: str) -> None:
        pair = getattr(self, colour)
        if who == self._game.third_rat:
            self._ask("tr_card", CHANCE, colour=colour)
            return
        self._choice("keep", who, sorted(set(pair)), colour=colour)

    def _keep(self, who: int, colour: str, face: int) -> None:
        pair = list(getattr(self, colour))
        pair.remove(face)
        self.ctx = {}
        self.returned.append(pair[0])
        self.kept[str(who)] = face

    def _t_resolve_kept(self, who: int) -> None:
        self._push(["resolve", who, self.kept[str(who)]])

    def _t_play(self) -> None:
        """Bigger Gang: the active player plays last, picking one of the two returned dice."""
        self._choice("play", self.active, sorted(set(self.returned)))

    def _t_resolve(self, actor: int, face: int | str) -> None:
        """Resolve one die action for ``actor`` (rulebook "The Actions"; RT-1 skips)."""
        if face == "returned":
            face = self.returned[0]
        if self.eliminated[actor]:
            return  # an eliminated player no longer acts this round
        g: RatTrapGame = self._game
        chooser = self._controller() if actor == g.third_rat else actor
        if face in (KEY1, KEY2):
            piles = [i for i in range(g.num_piles) if self._pile_size(i)]
            self._choice("pile", chooser, piles, actor=actor, draws=1 if face == KEY1 else 2)
        elif face == STEAL:
            victims = [k for k in range(g.participants)
                       if k != actor and self.stored[k] and not self.eliminated[k]]
            if actor == g.third_rat:  # the controller picks among the two players (RT-8)
                victims = [k for k in victims if k < g.num_players()]
            self._choice("steal_target", chooser, victims, actor=actor)
        elif face == CAT:
            targets = [k for k in range(g.participants) if k != actor
                       and not self.eliminated[k] and k not in self.cat_targets]
            if actor == g.third_rat:  # its cat always scratches the non-controller (RT-8)
                other = 1 - self._controller()
                targets = [other] if other in targets else []
            self._choice("cat_target", chooser, targets, actor=actor)
        elif face == HEAL:
            if self.scratches[actor] > 0:
                self.scratches[actor] -= 1

    def _controller(self, card: int | None = None) -> int:
        """The seat acting for the Third Rat with ``card`` (default: this turn's card)."""
        tr_card = self._game.data.third_rat_cards[self.tr_card if card is None else card]
        return self.active if tr_card.controller == "active" else 1 - self.active

    def _third_rat_keeps(self, card: int, pair: list[int]) -> int:
        """RT-8: the first face of the card's priority that is rolled; Heal first when the
        Third Rat has one scratch fewer than the elimination limit (RT-12: the limit is the
        data file's ``scratches_to_eliminate``, two scratches in the printed game)."""
        g: RatTrapGame = self._game
        heal_at = g.data.scratches_to_eliminate - 1  # RT-12: never a literal 2
        if self.scratches[g.third_rat] == heal_at and HEAL in pair:
            return HEAL
        return next(f for f in g.data.third_rat_cards[card].priority if f in pair)

    def _choice(self, phase: str, who: int, options: list[int], **ctx: Any) -> None:
        """A decision whose options are public: skipped if empty, applied if only one."""
        if not options:
            return
        self._ask(phase, who, options=options, **ctx)
        if len(options) == 1:
            _APPLY[phase](self, self._option_action(options[0]))
            self.phase = "" if self.phase == "_done" else self.phase

    def _option_action(self, option: int) -> int:
        return _OPTION_BASE[self.phase] + option

    # -- drawing
    def _t_draw(self, actor: int, pile: int, n: int) -> None:
        """Draw ``n`` more cards from ``pile`` one at a time ("2 KEYS": consecutively)."""
        if n == 0 or self.eliminated[actor] or not self._pile_size(pile):
            return
        self._push(["draw", actor, pile, n - 1])
        order = self.pile_order[pile]
        if order is not None:
            self._log_auto_draw(actor, pile, order[0])
            self._receive(actor, pile, order.pop(0))
        else:
            self._ask("draw", CHANCE, actor=actor, pile=pile)

    def _pile_size(self, i: int) -> int:
        order = self.pile_order[i]
        if order is None:
            return self.pile_g[i] + self.pile_r[i]
        return len(order) + (sum(self.manip_hand) if i == self.ordering else 0)

    def _receive(self, actor: int, pile: int, card: int) -> None:
        """Drawing and Storing Cards: a Trap is revealed (scratch) unless the Fool draws it."""
        g: RatTrapGame = self._game
        if actor < g.num_players() and (card != TRAP or self._holds(actor, FOOL)):
            self.quiet[actor][pile] += 1
        if card == TRAP:
            if self._holds(actor, FOOL):  # THE FOOL stores it unrevealed, no scratch
                self._store(actor, TRAP)
                self.fool_piles.append(pile)
                self._manipulator_sees(actor, pile, TRAP)
                return
            self.trap_out[pile] += 1
            if actor < g.num_players() and actor not in self.not_fool:
                self.not_fool.append(actor)
            self._push(["scratch", actor])
            return
        self._store(actor, card)
        self._manipulator_sees(actor, pile, card)

    def _manipulator_sees(self, actor: int, pile: int, card: int) -> None:
        """The Manipulator ordered this pile, so knows which card ``actor`` drew from it."""
        if pile in self.manip_piles and actor != self._game.third_rat:
            m = self.roles.index(MANIPULATOR)
            if m != actor:
                _insort(self.known[m][actor], card)

    def _store(self, who: int, card: int) -> None:
        _insort(self.stored[who], card)

    def _holds(self, seat: int, role: int) -> bool:
        return seat < len(self.roles) and self.roles[seat] == role and not self.role_gone[seat]

    def _role_used(self, role: int) -> bool:
        """True once ``role`` was revealed (Al Ratone / the Hypnotist act once a round)."""
        return any(r == role and self.role_public[s] for s, r in enumerate(self.roles))

    # -- scratches
    def _t_scratch(self, who: int) -> None:
        """A scratch would be taken: a Lucky Clover may prevent it (RT-2)."""
        if self.eliminated[who]:
            return
        if who == self._game.third_rat:  # the Third Rat always uses a clover (RT-2, RT-8)
            if CLOVER in self.stored[who]:
                self._use_clover(who)
            else:
                self._take_scratch(who)
            return
        self._ask("scratch", who)

    def _use_clover(self, who: int) -> None:
        self.stored[who].remove(CLOVER)
        self.used_clovers += 1
        for row in self.known:
            if CLOVER in row[who]:
                row[who].remove(CLOVER)

    def _take_scratch(self, who: int) -> None:
        """Take a Scratch token; the third eliminates from the round (stored cards lost)."""
        self.scratches[who] += 1
        if self.scratches[who] >= self._game.data.scratches_to_eliminate:
            self.eliminated[who] = True
            self.lost[who] = self.stored[who]
            self.stored[who] = []
            for row in self.known:
                row[who] = []
            self.round_over = True

    def _t_cat_hit(self, target: int) -> None:
        """THE HYPNOTIST may redirect a cat aimed at them (once a round, RT-10)."""
        g: RatTrapGame = self._game
        if (g.params["roles"] and target < g.num_players() and not self.role_public[target]
                and not self._role_used(HYPNOTIST)):
            self._ask("hypnotist", target)
        else:
            self._push(["scratch", target])

    # -- end of turn / round
    def _t_end_turn(self) -> None:
        """End of Turn / End of Round checks (RT-3: the turn's actions all resolve first)."""
        g: RatTrapGame = self._game
        exhausted = sum(1 for i in range(g.num_piles) if not self._pile_size(i))
        self.ctx = {}
        if self.round_over or exhausted >= 2 or self.turn >= g.params["max_turns_per_round"]:
            self._push(["end_round"])
        else:
            self.active = (self.active + 1) % g.num_players()
            self._push(["turn"])

    def _t_end_round(self) -> None:
        """End of Round scoring, then End of the Game checks (RT-5, RT-6)."""
        g: RatTrapGame = self._game
        d = g.data
        gained = [0] * g.participants
        for k in range(g.participants):
            if not self.eliminated[k]:
                gained[k] = sum(CARD_CHEESE[c] for c in self.stored[k])
                if self._holds(k, ALCHEMIST):  # unused clovers count one cheese each
                    gained[k] += self.stored[k].count(CLOVER)
                    self.role_public[k] = True
        if sum(gained) == 0:  # nobody collected points: 2 to each non-eliminated player
            gained = [0 if e else d.empty_round_bonus for e in self.eliminated]
        for k, pts in enumerate(gained):
            self.points[k] += pts
        self.round_results.append({
            "round": self.round,
            "revealed": [None if self.eliminated[k] else list(self.stored[k])
                         for k in range(g.participants)],
            "eliminated": list(self.eliminated),
            "gained": gained,
            "stored_counts": [len(s) for s in self.stored],
            "roles": [ROLES[r] if r >= 0 and self.role_public[s] else None
                      for s, r in enumerate(self.roles)],
        })
        last_round = self.tiebreak_round or self.round >= d.max_rounds
        if last_round or (self.round < d.max_rounds and max(self.points) >= d.win_points):
            leaders = _leaders(self.points, self.round_results[-1]["stored_counts"])
            if (len(leaders) > 1 and g.params["tie_break"] == "extra_round"
                    and not self.tiebreak_round):
                self.tiebreak_round = True  # one tie-breaker round, everybody plays (RT-5)
            else:
                self.winners = leaders
                self.phase = "over"
                self.ctx = {}
                return
        self.active = (self.active + 1) % g.num_players()  # RT-6
        self._push(["start_round"])


def _rows(v: list) -> list:
    return [r if r is None else r[:] for r in v]


#: How ``RatTrapState.clone`` copies each field (the rest: ``_copy_json``): flat lists of
#: scalars by a slice, lists of such lists row by row, ``known`` two levels deep, the
#: finished rounds' results by the outer list (a result is never changed once appended).
_CLONE: dict = {
    **{f: list.copy for f in (
        "_history", "points", "winners", "scratches", "eliminated", "pile_g", "pile_r",
        "trap_out", "pool", "roles", "role_public", "role_gone", "not_fool", "fool_piles",
        "manip_piles", "manip_hand", "tr_used", "black", "white", "alr_queue", "returned",
        "cat_targets", "round_results")},
    **{f: _rows for f in ("stored", "lost", "quiet", "views", "todo", "pile_order")},
    "known": lambda v: [[c[:] for c in row] for row in v],
    "kept": dict.copy,
}


def _leaders(points: list[int], stored_counts: list[int]) -> list[int]:
    """Most points; ties by most cards stored in the last round; still tied: all (RT-5)."""
    key = [(p, c) for p, c in zip(points, stored_counts, strict=True)]
    best = max(key)
    return [k for k, v in enumerate(key) if v == best]


def _insort(lst: list[int], x: int) -> None:
    i = len(lst)
    while i and lst[i - 1] > x:
        i -= 1
    lst.insert(i, x)


# ============================================================================ phase tables
# Each phase has: who/what decides (current_player), its legal actions or chance outcomes,
# and how an action is applied. Option-based phases store their public options in ctx.

def _options_legal(base: int):
    return lambda s: [base + o for o in s.ctx["options"]]


def _draw_outcomes(s: RatTrapState) -> list[tuple[int, float]]:
    """A lazy pile: the set-aside Trap with prob g/(g+r), else a dealt card by pool counts."""
    i = s.ctx["pile"]
    g, r = s.pile_g[i], s.pile_r[i]
    total = g + r
    pool_total = sum(s.pool)
    out = [(DRAW, g / total)] if g else []
    if r:
        out += [(DRAW + 1 + t, r / total * c / pool_total) for t, c in enumerate(s.pool) if c]
    return out


def _apply_draw(s: RatTrapState, a: int) -> None:
    i, actor = s.ctx["pile"], s.ctx["actor"]
    if a == DRAW:
        s.pile_g[i] = 0
        card = TRAP
    else:
        card = a - DRAW - 1
        s.pile_r[i] -= 1
        s.pool[card] -= 1
    s.ctx = {}
    s._done()
    s._receive(actor, i, card)


def _roll_apply(colour: str, next_phase: str | None):
    def apply(s: RatTrapState, a: int) -> None:
        setattr(s, colour, list(PAIRS[a - ROLL]))
        if next_phase:
            s._ask(next_phase, CHANCE)
            return
        s._done()
        if s._game.params["big_gang"] or s.rerolled:
            s._push(["after_roll"])
        else:
            s._ask("reroll", s.active)
    return apply


def _apply_reroll(s: RatTrapState, a: int) -> None:
    if a == REROLL:  # both dice, and the second result is final
        s.rerolled = True
        s._ask("roll", CHANCE)
    else:
        s._done()
        s._push(["after_roll"])


def _alr_legal(s: RatTrapState) -> list[int]:
    seat = s.ctx["who"]
    if not s._holds(seat, AL_RATONE):
        return [PASS]
    if s._game.params["big_gang"]:
        return [PASS, REVEAL_WHITE, REVEAL_BLACK]
    return [PASS, REVEAL]


def _apply_alr(s: RatTrapState, a: int) -> None:
    seat = s.alr_queue.pop(0)
    s._done()
    if a == PASS:
        s._push(["alr_next"])
        return
    s.role_public[seat] = True
    s.alr_queue = []
    if a == REVEAL:
        s.acc = seat
    elif a == REVEAL_WHITE:
        s.acc_white = seat
    else:
        s.acc_black = seat


def _apply_accomplice(s: RatTrapState, a: int) -> None:
    who = a - TARGET
    colour = s.ctx["colour"]
    if s._game.params["big_gang"]:
        setattr(s, "acc_" + colour, who)
    else:
        s.acc = who
    s._done()


def _apply_keep(s: RatTrapState, a: int) -> None:
    who, colour = s.ctx["who"], s.ctx["colour"]
    s._done()
    s._keep(who, colour, a - FACE)


def _tr_outcomes(s: RatTrapState) -> list[tuple[int, float]]:
    left = [c for c in range(len(s._game.data.third_rat_cards)) if c not in s.tr_used]
    return [(TRCARD + c, 1 / len(left)) for c in left]


def _apply_tr_card(s: RatTrapState, a: int) -> None:
    """Reveal a Third Rat card; the Third Rat keeps a die by it (RT-8)."""
    g: RatTrapGame = s._game
    card = a - TRCARD
    s.tr_card = card
    s.tr_used.append(card)
    colour = s.ctx["colour"]
    face = s._third_rat_keeps(card, getattr(s, colour))
    s._done()
    s._keep(g.third_rat, colour, face)


def _apply_play(s: RatTrapState, a: int) -> None:
    face = a - FACE
    s._done()
    s._push(["resolve", s.active, face])


def _apply_pile(s: RatTrapState, a: int) -> None:
    actor, draws = s.ctx["actor"], s.ctx["draws"]
    s._done()
    s._push(["draw", actor, a - PILE, draws])


def _apply_steal_target(s: RatTrapState, a: int) -> None:
    s._ask("steal_card", CHANCE, actor=s.ctx["actor"], victim=a - TARGET)


def _steal_outcomes(s: RatTrapState) -> list[tuple[int, float]]:
    """RT-4: the stolen card is uniform among the victim's stored cards."""
    cards = s.stored[s.ctx["victim"]]
    return [(STEAL_CARD + t, cards.count(t) / len(cards)) for t in sorted(set(cards))]


def _apply_steal_card(s: RatTrapState, a: int) -> None:
    g: RatTrapGame = s._game
    thief, victim = s.ctx["actor"], s.ctx["victim"]
    card = a - STEAL_CARD
    s._done()
    s.stored[victim].remove(card)
    public = thief == g.third_rat or victim == g.third_rat  # its cards are face up (RT-8)
    for o in range(g.num_players()):  # who learns what (RT-4)
        known = s.known[o][victim]
        if o == thief:
            if card in known:
                known.remove(card)
        elif o == victim or public:
            if card in known:
                known.remove(card)
            if card != TRAP and o != thief:
                _insort(s.known[o][thief], card)
        else:  # a bystander keeps what stays certain (issue 13: a seat keeps what it knows)
            _bystander_learns(s.known[o], victim, card)
    if thief == g.third_rat:
        for o in range(g.num_players()):
            s.known[o][thief] = []  # its cards are public anyway
    if card != TRAP:
        s._store(thief, card)
        return
    # THE FOOL is robbed of a Trap: the thief takes a scratch, the Fool reveals and discards
    # every other stored Trap, one scratch each, then discards the role card.
    others = s.stored[victim].count(TRAP)
    s.stored[victim] = [c for c in s.stored[victim] if c != TRAP]
    for pile in s.fool_piles:  # revealed Traps are laid by the piles they came from
        s.trap_out[pile] += 1
        s.quiet[victim][pile] -= 1  # no longer a quiet card: it is a revealed Trap
    s.fool_piles = []
    s.role_public[victim] = True
    s.role_gone[victim] = True
    for row in s.known:
        row[victim] = [c for c in row[victim] if c != TRAP]
    s._push(["scratch", thief], *[["scratch", victim] for _ in range(others)])


def _bystander_learns(known: list[list[int]], victim: int, card: int) -> None:
    """What a bystander still knows for certain of ``victim``'s cards after a steal it did not
    see (``known`` is its row): any known type may be the one that went, so one fewer of each
    stays certain (the old rule forgot all). A stolen Trap is public (the Fool is robbed):
    what was known of the victim's other cards stays.

    Not kept: a card whose way the bystander could follow to the thief (the victim's whole
    hand known and of one type). The thief's observation shows what others know of its
    cards (``known_by``), and the thief cannot always tell that the bystander knew the
    victim's hand, so that deduction would leak hidden information to it."""
    if card == TRAP:
        return
    cards = known[victim]
    known[victim] = sorted(t for t in set(cards) for _ in range(cards.count(t) - 1))


def _apply_cat_target(s: RatTrapState, a: int) -> None:
    target = a - TARGET
    s.cat_targets.append(target)
    s._done()
    s._push(["cat_hit", target])


def _hyp_legal(s: RatTrapState) -> list[int]:
    seat = s.ctx["who"]
    if not s._holds(seat, HYPNOTIST):
        return [PASS]
    g: RatTrapGame = s._game
    return [TARGET + k for k in range(g.participants)
            if k != seat and not s.eliminated[k] and k not in s.cat_targets] + [PASS]


def _apply_hyp(s: RatTrapState, a: int) -> None:
    seat = s.ctx["who"]
    s._done()
    if a == PASS:
        s._push(["scratch", seat])
        return
    s.role_public[seat] = True
    s.cat_targets.append(a - TARGET)
    s._push(["scratch", a - TARGET])


def _scratch_legal(s: RatTrapState) -> list[int]:
    return [USE_CLOVER, TAKE_SCRATCH] if CLOVER in s.stored[s.ctx["who"]] else [TAKE_SCRATCH]


def _apply_scratch(s: RatTrapState, a: int) -> None:
    who = s.ctx["who"]
    s._done()
    if a == USE_CLOVER:
        s._use_clover(who)
    else:
        s._take_scratch(who)


def _role_outcomes(s: RatTrapState) -> list[tuple[int, float]]:
    left = [r for r in range(len(ROLES)) if r not in s.roles]
    return [(ROLE + r, 1 / len(left)) for r in left]


def _apply_role(s: RatTrapState, a: int) -> None:
    s.roles[s.ctx["seat"]] = a - ROLE
    s._done()


def _apply_manip_pile(s: RatTrapState, a: int) -> None:
    pile = a - PILE
    s.manip_piles.append(pile)
    s._done()
    if len(s.manip_piles) == 2:
        s._push(*[["manip_deal", p] for p in s.manip_piles])


def _deal_outcomes(s: RatTrapState) -> list[tuple[int, float]]:
    """The five cards of a looked-at pile: its Trap plus 4 dealt cards (hypergeometric)."""
    i = s.ctx["pile"]
    r, pool = s.pile_r[i], s.pool
    total = math.comb(sum(pool), r)
    out = []
    for idx, m in enumerate(PILE_MULTISETS):
        dealt = list(m)
        dealt[TRAP] -= s.pile_g[i]
        if min(dealt) < 0 or sum(dealt) != r:
            continue
        ways = math.prod(math.comb(pool[t], dealt[t]) for t in range(4))
        if ways:
            out.append((DEAL + idx, ways / total))
    return out


def _apply_manip_deal(s: RatTrapState, a: int) -> None:
    i = s.ctx["pile"]
    m = list(PILE_MULTISETS[a - DEAL])
    for t in range(4):
        s.pool[t] -= m[t] - (s.pile_g[i] if t == TRAP else 0)
    s.pile_g[i] = s.pile_r[i] = 0
    s.pile_order[i] = []
    s.manip_hand = m
    s.ordering = i
    s._done()
    s._push(["manip_order", i])


def _manip_order_legal(s: RatTrapState) -> list[int]:
    return [ORDER + t for t, c in enumerate(s.manip_hand) if c]


def _apply_manip_order(s: RatTrapState, a: int) -> None:
    i = s.ctx["pile"]
    s.manip_hand[a - ORDER] -= 1
    s.pile_order[i].append(a - ORDER)
    s._done()
    s._push(["manip_order", i])


_CHANCE_PHASES = {"roll", "roll_white", "roll_black", "draw", "steal_card", "deal_role",
                  "manip_deal", "tr_card"}

_OUTCOMES = {
    "roll": lambda s: s._game.black_roll,
    "roll_white": lambda s: s._game.white_roll,
    "roll_black": lambda s: s._game.black_roll,
    "draw": _draw_outcomes,
    "steal_card": _steal_outcomes,
    "deal_role": _role_outcomes,
    "manip_deal": _deal_outcomes,
    "tr_card": _tr_outcomes,
}

_OPTION_BASE = {"accomplice": TARGET, "keep": FACE, "play": FACE, "pile": PILE,
                "steal_target": TARGET, "cat_target": TARGET, "manip_pile": PILE}

_LEGAL = {
    **{phase: _options_legal(base) for phase, base in _OPTION_BASE.items()},
    "reroll": lambda s: [REROLL, KEEP_ROLL],
    "alratone": _alr_legal,
    "hypnotist": _hyp_legal,
    "scratch": _scratch_legal,
    "manip_order": _manip_order_legal,
}

_APPLY = {
    "roll": _roll_apply("black", None),
    "roll_white": _roll_apply("white", "roll_black"),
    "roll_black": _roll_apply("black", None),
    "reroll": _apply_reroll,
    "alratone": _apply_alr,
    "accomplice": _apply_accomplice,
    "keep": _apply_keep,
    "tr_card": _apply_tr_card,
    "play": _apply_play,
    "pile": _apply_pile,
    "draw": _apply_draw,
    "steal_target": _apply_steal_target,
    "steal_card": _apply_steal_card,
    "cat_target": _apply_cat_target,
    "hypnotist": _apply_hyp,
    "scratch": _apply_scratch,
    "deal_role": _apply_role,
    "manip_pile": _apply_manip_pile,
    "manip_deal": _apply_manip_deal,
    "manip_order": _apply_manip_order,
}

# Observation, labels and determinization live in view.py (they only read the state).
from .view import (  # noqa: E402
    _rebuild,
    action_label,
    auto_code,
    describe_action,
    heuristic_value,
    observation,
    order_prior,
    realize_lazy_piles,
    render,
    sample_infostate,
    view_codes,
)
