"""What a seat sees of a Rat Trap state: observations, action labels, determinization, heuristic.

The observation of seat ``p`` is every public field of the state verbatim (``PUBLIC_FIELDS``:
points, scratches, pile sizes, revealed Traps, dice, the pending turn...) plus what ``p``
privately knows (``PRIVATE_FIELDS``): its cards, its role, what it knows of other players'
cards, what others know of its cards, and the piles it ordered as the Manipulator.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api import (
    CHANCE,
    State,
    _copy_json,
    canonical_json,
    check_player,
    copy_fields,
    unknown_views,
)
from ..belief import BeliefCache
from .data import (
    ALCHEMIST,
    CARD_CHEESE,
    CARD_TYPES,
    CLOVER,
    FACES,
    FOOL,
    MANIPULATOR,
    ROLES,
    TRAP,
)
from .rules import (
    _LEGAL,
    _OUTCOMES,
    DEAL,
    DRAW,
    DRAW_LABELS,
    FACE,
    KEEP_ROLL,
    ORDER,
    PAIRS,
    PASS,
    PILE,
    PILE_MULTISETS,
    REROLL,
    REVEAL,
    REVEAL_BLACK,
    REVEAL_WHITE,
    ROLE,
    ROLL,
    STEAL_CARD,
    TAKE_SCRATCH,
    TARGET,
    TRCARD,
    USE_CLOVER,
    RatTrapState,
)

if TYPE_CHECKING:
    from .rules import RatTrapGame

#: State fields every seat sees as they are.
PUBLIC_FIELDS = (
    "round", "turn", "active", "points", "round_results", "winners", "tiebreak_round",
    "phase", "todo", "ctx", "scratches", "eliminated", "trap_out", "used_clovers",
    "role_public", "role_gone", "not_fool", "manip_piles", "ordering", "tr_used", "round_over",
    "black", "white", "rerolled", "alr_queue", "acc", "acc_white", "acc_black", "returned",
    "kept", "cat_targets", "tr_card", "quiet", "round_steps",
)
#: Fields of the observation that are private to the observing seat.
PRIVATE_FIELDS = ("player", "my_cards", "my_lost", "known", "known_by", "role", "pile_cards",
                  "manip_hand", "fool_piles")
#: Public facts derived from hidden fields (counts only).
DERIVED_FIELDS = ("pile_sizes", "pile_placed", "stored_counts", "lost_counts",
                  "third_rat_cards", "third_rat_lost", "public_roles", "roles_dealt")


def observation(s: RatTrapState, p: int) -> dict:
    """Seat ``p``'s information state (JSON dict). Raises ``ValueError`` for a bad seat."""
    g: RatTrapGame = s._game
    p = check_player(p, g.num_players())
    obs = copy_fields({f: getattr(s, f) for f in PUBLIC_FIELDS})
    tr = g.third_rat
    is_manip = 0 <= p < len(s.roles) and s.roles[p] == MANIPULATOR
    obs.update({
        "pile_sizes": [s._pile_size(i) for i in range(g.num_piles)],
        "pile_placed": [_placed(s, i) for i in range(g.num_piles)],
        "stored_counts": [len(c) for c in s.stored],
        "lost_counts": [len(c) for c in s.lost],
        "third_rat_cards": list(s.stored[tr]) if tr >= 0 else None,  # face up (Third Rat)
        "third_rat_lost": list(s.lost[tr]) if tr >= 0 else None,
        "public_roles": [ROLES[r] if s.role_public[k] else None for k, r in enumerate(s.roles)],
        "roles_dealt": sum(1 for r in s.roles if r >= 0),  # dealt in seat order
        "player": p,
        "my_cards": list(s.stored[p]),
        "my_lost": list(s.lost[p]),
        "known": [list(k) for k in s.known[p]],
        "known_by": [list(s.known[q][p]) for q in range(g.num_players())],
        "role": ROLES[s.roles[p]] if s.roles[p] >= 0 else None,
        "pile_cards": ([None if i not in s.manip_piles else list(s.pile_order[i] or [])
                        for i in range(g.num_piles)] if is_manip else None),
        "manip_hand": list(s.manip_hand) if is_manip else None,
        "fool_piles": list(s.fool_piles) if s.roles[p] == FOOL else None,
    })
    return obs


def _placed(s: RatTrapState, i: int) -> int | None:
    """Cards the Manipulator has placed in pile ``i`` (public: ``pile_placed``), None for a
    pile nobody ordered; a lazy pile of a belief's world (``RatTrapState.observer``) is
    ordered whole."""
    order = s.pile_order[i]
    if order is not None:
        return len(order)
    return s._pile_size(i) if i in lazy_piles(s) else None


# ----------------------------------------------------------------------------- labels
def _who(s: RatTrapState, k: int) -> str:
    return "Third Rat" if k == s._game.third_rat else f"seat {k}"


_TARGET_VERBS = {"accomplice": "choose {} as accomplice", "steal_target": "steal from {}",
                 "cat_target": "send the cat to {}", "hypnotist": "redirect the cat to {}"}
_FIXED_LABELS = {REROLL: "reroll both dice", KEEP_ROLL: "keep the dice",
                 USE_CLOVER: "use a Lucky Clover", TAKE_SCRATCH: "take the scratch",
                 PASS: "pass", REVEAL: "reveal Al Ratone",
                 REVEAL_WHITE: "reveal Al Ratone and take the white dice",
                 REVEAL_BLACK: "reveal Al Ratone and take the black dice"}


def action_label(s: RatTrapState, player: int, a: int) -> str:
    """A short, unique-per-state label of action ``a`` (see the action table in rules.py)."""
    phase = s.phase
    if a in _FIXED_LABELS:
        return _FIXED_LABELS[a]
    if FACE <= a < PILE:
        verb = "keep" if phase == "keep" else "play"
        return f"{verb} die {FACES[a - FACE]}"
    if PILE <= a < TARGET:
        return f"{'look at' if phase == 'manip_pile' else 'draw from'} pile {a - PILE}"
    if TARGET <= a < REROLL:
        return _TARGET_VERBS.get(phase, "choose {}").format(_who(s, a - TARGET))
    if ORDER <= a < DRAW:
        return f"put {CARD_TYPES[a - ORDER]} next"
    if DRAW <= a < STEAL_CARD:
        extra = " (set-aside)" if a == DRAW else ""
        return f"draw {DRAW_LABELS[a - DRAW]}{extra}"
    if STEAL_CARD <= a < ROLL:
        return f"stolen card: {CARD_TYPES[a - STEAL_CARD]}"
    if ROLL <= a < ROLE:
        x, y = PAIRS[a - ROLL]
        return f"roll {FACES[x]}+{FACES[y]}"
    if ROLE <= a < DEAL:
        return f"deal {ROLES[a - ROLE]}"
    if DEAL <= a < TRCARD:
        counts = PILE_MULTISETS[a - DEAL]
        return "pile holds " + ",".join(f"{c}x{CARD_TYPES[t]}" for t, c in enumerate(counts) if c)
    if TRCARD <= a < s._game.num_distinct_actions():
        return f"Third Rat card {s._game.data.third_rat_cards[a - TRCARD].id}"
    return f"invalid action {a}"


def describe_action(s: RatTrapState, viewer: int | None, a: int) -> str:
    """Action ``a`` (about to be applied) as seat ``viewer`` sees it (None: spectator)."""
    phase, ctx = s.phase, s.ctx
    tr = s._game.third_rat
    cp = s.current_player()
    label = action_label(s, cp, a)
    if cp != CHANCE:
        if phase == "manip_order" and viewer != cp:
            return f"{_who(s, cp)} (the Manipulator) orders pile {ctx['pile']}"
        return f"{_who(s, cp)}: {label}"
    if phase == "draw":
        actor = ctx["actor"]
        base = f"{_who(s, actor)} draws from pile {ctx['pile']}"
        fool_hides = a in (DRAW, DRAW + 1) and s._holds(actor, FOOL)
        if viewer == actor or actor == tr or (a in (DRAW, DRAW + 1) and not fool_hides):
            return f"{base}: {DRAW_LABELS[a - DRAW]}"
        return base + ": a card"
    if phase == "steal_card":
        thief, victim = ctx["actor"], ctx["victim"]
        base = f"{_who(s, thief)} steals from {_who(s, victim)}"
        if viewer in (thief, victim) or tr in (thief, victim) or a == STEAL_CARD + TRAP:
            return f"{base}: {CARD_TYPES[a - STEAL_CARD]}"
        return base + ": a card"
    if phase == "deal_role":
        seat = ctx["seat"]
        return f"seat {seat} is dealt " + (ROLES[a - ROLE] if viewer == seat else "a role")
    if phase == "manip_deal":
        m = s.roles.index(MANIPULATOR)
        base = f"the Manipulator looks at pile {ctx['pile']}"
        return f"{base}: {label}" if viewer == m else base
    if phase == "tr_card":  # public: the card and the die the Third Rat keeps with it
        face = s._third_rat_keeps(a - TRCARD, getattr(s, ctx["colour"]))
        return f"{label}: it keeps {FACES[face]}, controlled by seat {s._controller(a - TRCARD)}"
    return label  # dice are public


# ------------------------------------------------------------------------ perfect recall
def view_codes(s: RatTrapState, a: int) -> list[int]:
    """Each seat's view of action ``a`` about to be applied (the ``views`` log, perfect
    recall): ``a`` where the seat sees it, ``-1`` where it does not, as
    :func:`describe_action` tells it. A drawn card is logged by its type (``DRAW+1+t``: the
    set-aside and a dealt Trap look alike); the Manipulator's order of a pile, a role dealt,
    a pile's contents, a quiet draw and a quiet steal are seen only by whom the rules show
    them (RT-4, RT-9, RT-10)."""
    g = s._game
    n, phase, ctx = g.num_players(), s.phase, s.ctx
    if phase == "manip_order":
        return [a if q == ctx["who"] else -1 for q in range(n)]
    if phase == "draw":
        actor = ctx["actor"]
        card = TRAP if a <= DRAW + 1 else a - DRAW - 1
        if ctx["pile"] in s.manip_piles:  # a lazy pile (RatTrapState.observer)
            return [auto_code(s, q, actor, card) for q in range(n)]
        code = DRAW + 1 + card
        if actor == g.third_rat:
            return [code] * n
        shown = code if card == TRAP and not s._holds(actor, FOOL) else -1
        return [code if q == actor else shown for q in range(n)]
    if phase == "steal_card":
        thief, victim = ctx["actor"], ctx["victim"]
        if a == STEAL_CARD + TRAP or g.third_rat in (thief, victim):
            return [a] * n
        return [a if q in (thief, victim) else -1 for q in range(n)]
    if phase == "deal_role":
        return [a if q == ctx["seat"] else -1 for q in range(n)]
    if phase == "manip_deal":
        m = s.roles.index(MANIPULATOR)
        return [a if q == m else -1 for q in range(n)]
    return [a] * n


def auto_code(s: RatTrapState, q: int, actor: int, card: int) -> int:
    """Seat ``q``'s log entry for ``card`` drawn by ``actor`` from a pile the Manipulator
    ordered (no chance node: the order is known): ``-10 - card`` for the drawer, the
    Manipulator, and everybody for the Third Rat's card or a revealed Trap; ``-2`` ("a
    card") for the others."""
    shown = actor == s._game.third_rat or (card == TRAP and not s._holds(actor, FOOL))
    if shown or q == actor or (MANIPULATOR in s.roles and q == s.roles.index(MANIPULATOR)):
        return -10 - card
    return -2


# ------------------------------------------------------------------------ determinization
def _field(obs: Mapping[str, Any], key: str) -> Any:
    if key not in obs:
        raise ValueError(f"observation field {key!r} is missing")
    return obs[key]


def _int_list(obs: Mapping[str, Any], key: str, length: int | None = None) -> list[int]:
    value = _field(obs, key)
    if not isinstance(value, list) or any(not isinstance(v, int) for v in value) \
            or (length is not None and len(value) != length):
        raise ValueError(f"observation field {key!r} must be a list of {length or ''} ints")
    return list(value)


def _cards(obs: Mapping[str, Any], key: str, value: Any = None) -> list[int]:
    value = _field(obs, key) if value is None else value
    if not isinstance(value, list) or any(v not in range(len(CARD_TYPES)) for v in value):
        raise ValueError(f"observation field {key!r} must be a list of card type ids 0..3")
    return sorted(value)


_ROUND_RESULT_KEYS = {"round", "revealed", "eliminated", "gained", "stored_counts", "roles"}


def _check_public(g: RatTrapGame, obs: Mapping[str, Any], template: RatTrapState) -> None:
    """Validate the public fields of an observation against a fresh state's shapes and ranges.

    Raises:
        ValueError: naming the first field that is missing, of the wrong type or out of range.
    """
    n, P = g.num_players(), g.participants
    fixed = {"points": P, "scratches": P, "eliminated": P, "trap_out": g.num_piles,
             "role_public": n, "role_gone": n}
    ranges = {"active": range(n), "acc": range(-1, P), "acc_white": range(-1, P),
              "acc_black": range(-1, P), "ordering": range(-1, g.num_piles),
              "tr_card": range(-1, len(g.data.third_rat_cards)), "round": range(1, 100),
              "turn": range(0, g.params["max_turns_per_round"] + 1),
              "used_clovers": range(0, sum(g.deck) + 1), "round_steps": range(0, 10**7)}
    elements = {"black": range(len(FACES)), "white": range(len(FACES)),
                "returned": range(len(FACES)), "alr_queue": range(n), "cat_targets": range(P),
                "not_fool": range(n), "manip_piles": range(g.num_piles),
                "tr_used": range(len(g.data.third_rat_cards)), "winners": range(P)}
    for f in PUBLIC_FIELDS:
        value, want = _field(obs, f), getattr(template, f)
        kind = type(want)
        ok = type(value) is kind or (kind is list and isinstance(value, list))
        if ok and kind is list and want and type(want[0]) in (int, bool):
            ok = all(type(v) is type(want[0]) for v in value)
        if ok and f in fixed:
            ok = len(value) == fixed[f]
        if ok and f in ranges:
            ok = value in ranges[f]
        if ok and f in elements:
            ok = all(isinstance(v, int) and v in elements[f] for v in value)
        if not ok:
            raise ValueError(f"observation field {f!r} is malformed: {value!r}")
    phase = obs["phase"]
    if phase not in _LEGAL and phase not in _OUTCOMES and phase != "over":
        raise ValueError(f"observation field 'phase' is unknown: {phase!r}")
    for task in obs["todo"]:
        if not (isinstance(task, list) and task and isinstance(task[0], str)
                and hasattr(RatTrapState, "_t_" + task[0])
                and all(isinstance(x, int | str) for x in task[1:])):
            raise ValueError(f"observation field 'todo' has a malformed task: {task!r}")
    if not all(k in [str(x) for x in range(P)] and v in range(len(FACES))
               for k, v in obs["kept"].items()):
        raise ValueError("observation field 'kept' is malformed")
    if not all(isinstance(r, dict) and set(r) == _ROUND_RESULT_KEYS
               for r in obs["round_results"]):
        raise ValueError("observation field 'round_results' is malformed")
    if phase in _LEGAL and obs["ctx"].get("who") not in range(n):
        raise ValueError("observation field 'ctx' lacks the seat to move ('who')")


@functools.lru_cache(maxsize=4096)
def _posterior_table(n: int, p: int, roles: tuple[int, ...], dealt: int,
                     must_fool: tuple[int, ...], not_fool: tuple[int, ...],
                     quiet: tuple[tuple[int, ...], ...], held: tuple[int, ...],
                     revealed: tuple[int, ...], sizes: tuple[int, ...],
                     open_piles: tuple[int, ...], role_gone: tuple[bool, ...],
                     unknown_traps: int) -> tuple[list, np.ndarray]:
    """The exact posterior of seat ``p`` over the unknown roles and the places of the piles'
    set-aside Traps: ``([(roles, places, cap_f), ...], cumulative weights)``, ``places`` one
    ``(kind, positions)`` per pile and ``cap_f`` the Fool's quiet cards that may be Traps.

    The rulebook shuffles each pile (its set-aside Trap and four dealt cards), so every
    order of the dealt cards and every place of a set-aside Trap in its pile is equally
    likely, and roles are dealt uniformly (RT-9). Given the seat's view, the posterior of a
    (role deal, places) pair is then proportional to the number of complete placements it
    leaves: the product over piles of the positions its set-aside Trap may take (a revealed
    Trap of the pile "r", a quiet card the Fool drew from it "f", an undrawn card "u"; a pile
    the seat ordered is known, "k"), times the ways to put the unseen dealt Traps in the
    slots that may hold one (the Fool's other quiet cards it still holds, the undrawn cards).
    ``held[q]``: seat ``q``'s cards the seat has not seen; ``dealt`` is -1 without roles.
    """
    piles = len(sizes)
    n_open = sum(sizes[i] for i in open_piles)
    if dealt >= 0:
        seats = [q for q in range(dealt) if roles[q] < 0]
        free = [r for r in range(len(ROLES)) if r not in roles]
        if dealt == n:  # the deal is over, so the Manipulator revealed (RT-10): none hidden
            free = [r for r in free if r != MANIPULATOR]
        deals = []
        for perm in itertools.permutations(free, len(seats)):
            assign = dict(zip(seats, perm, strict=True))
            full = tuple(assign.get(q, roles[q]) for q in range(n))  # -1: not dealt yet
            if any(full[q] != FOOL for q in must_fool) or any(
                    assign.get(q) == FOOL for q in not_fool):
                continue
            deals.append(full)
    else:
        deals = [roles]
    table, weights = [], []
    for full in deals:
        f = full.index(FOOL) if FOOL in full else -1
        hidden_fool = f >= 0 and f != p and not role_gone[f]
        fq = [quiet[f][i] if hidden_fool and i in open_piles else 0 for i in range(piles)]
        # any quiet card may hide a dealt Trap, also one from a pile the seat ordered: the
        # Manipulator saw it drawn, but the observation does not keep which card it was
        cap_f = min(sum(quiet[f]), held[f]) if hidden_fool else 0
        choices = []
        for i in range(piles):
            if i not in open_piles:
                choices.append([("k", 1)])
                continue
            choices.append([(k, c) for k, c in (("r", revealed[i]), ("f", fq[i]),
                                                ("u", sizes[i])) if c])
        for combo in itertools.product(*choices):
            z_f = sum(1 for k, _ in combo if k == "f")
            z_u = sum(1 for k, _ in combo if k == "u")
            dealt_traps = unknown_traps - z_f - z_u
            if z_f > cap_f or dealt_traps < 0:
                continue
            w = math.prod(c for _, c in combo) * math.comb(cap_f - z_f + n_open - z_u,
                                                           dealt_traps)
            if w:
                table.append((full, combo, cap_f))
                weights.append(float(w))
    if not table:
        raise ValueError("observation is impossible: no consistent deal of roles and Traps")
    return table, np.cumsum(weights)


def _rebuild(g: RatTrapGame, p: int, obs: Mapping[str, Any], rng: np.random.Generator
             ) -> RatTrapState:
    """See :meth:`RatTrapGame.state_from_observation`."""
    n, P, piles = g.num_players(), g.participants, g.num_piles
    p = check_player(p, n)
    if not isinstance(obs, Mapping):
        raise ValueError("observation must be a dict")
    if _field(obs, "player") != p:
        raise ValueError(f"observation field 'player' is {obs.get('player')!r}, not {p}")
    s = RatTrapState.__new__(RatTrapState)
    State.__init__(s, g)
    s._reset_round_fields()
    template = g.__dict__.get("_obs_template")  # a fresh state: the fields' shapes
    if template is None:
        template = g.__dict__["_obs_template"] = RatTrapState(g)
    _check_public(g, obs, template)
    for f in PUBLIC_FIELDS:
        setattr(s, f, _copy_json(_field(obs, f)))
    for key, length in (("points", P), ("scratches", P), ("trap_out", piles)):
        _int_list(obs, key, length)
    sizes = _int_list(obs, "pile_sizes", piles)
    placed = _field(obs, "pile_placed")
    stored_counts = _int_list(obs, "stored_counts", P)
    lost_counts = _int_list(obs, "lost_counts", P)
    known = _field(obs, "known")
    known_by = _field(obs, "known_by")
    if not (isinstance(known, list) and len(known) == P and isinstance(known_by, list)
            and len(known_by) == n and isinstance(placed, list) and len(placed) == piles):
        raise ValueError("observation fields 'known', 'known_by' or 'pile_placed' are malformed")
    known = [_cards(obs, "known", k) for k in known]
    tr = g.third_rat

    # --- what the seat knows exactly
    s.stored[p] = _cards(obs, "my_cards")
    s.lost[p] = _cards(obs, "my_lost")
    if tr >= 0:
        s.stored[tr] = _cards(obs, "third_rat_cards")
        s.lost[tr] = _cards(obs, "third_rat_lost")
    role = _field(obs, "role")
    public_roles = _field(obs, "public_roles")
    if g.params["roles"]:
        if (role is not None and role not in ROLES) or not isinstance(public_roles, list) \
                or len(public_roles) != n:
            raise ValueError("observation fields 'role'/'public_roles' are malformed")
    roles = [-1] * n
    for k, r in enumerate(public_roles if g.params["roles"] else []):
        if r is not None:
            roles[k] = ROLES.index(r)
    if role is not None:
        roles[p] = ROLES.index(role)
    pile_cards = _field(obs, "pile_cards") if roles[p] == MANIPULATOR else None
    hand = _field(obs, "manip_hand") if roles[p] == MANIPULATOR else None
    fool_piles = _field(obs, "fool_piles") if roles[p] == FOOL else None

    unknown = list(g.deck)  # the round's deck minus cards whose place the seat knows
    seen = list(s.stored[p]) + s.lost[p] + [c for k in known for c in k]
    if tr >= 0:
        seen += s.stored[tr] + s.lost[tr]
    if pile_cards is not None:
        seen += [c for cards in pile_cards if cards for c in cards]
        seen += [t for t, c in enumerate(hand or []) for _ in range(c)]
    for c in seen:
        unknown[c] -= 1
    unknown[TRAP] -= sum(s.trap_out)
    unknown[CLOVER] -= s.used_clovers
    if min(unknown) < 0:
        raise ValueError("observation is impossible: more cards seen than the deck holds")

    # --- the places of unknown cards (slots). Every card p has not located lies in one:
    # another seat's stored or lost card it has not seen (drawn earlier, so a Trap only with
    # the Fool), or a card still in a pile p does not know (all piles but the ones p ordered).
    quiet = _field(obs, "quiet")
    if not (isinstance(quiet, list) and len(quiet) == n and all(
            isinstance(row, list) and len(row) == piles
            and all(isinstance(v, int) and v >= 0 for v in row) for row in quiet)):
        raise ValueError("observation field 'quiet' is malformed")
    held: dict[int, list[str]] = {}  # seat -> its unknown slots ("stored"/"lost")
    for q in range(n):
        if q == p:
            continue
        extra = stored_counts[q] - len(known[q])
        if extra < 0 or lost_counts[q] < 0:
            raise ValueError(f"observation field 'stored_counts' is below what is known of {q}")
        held[q] = ["stored"] * extra + ["lost"] * lost_counts[q]
    open_piles = [i for i in range(piles) if pile_cards is None or placed[i] is None]
    n_held = sum(len(v) for v in held.values())
    n_open = sum(sizes[i] for i in open_piles)
    if n_held + n_open != sum(unknown):
        raise ValueError("observation is impossible: pile sizes and card counts do not add up")
    # Traps of each pile the seat has seen: revealed ones, and its own if it is the Fool
    own_traps = list(fool_piles or [])
    revealed = [s.trap_out[i] + own_traps.count(i) for i in range(piles)]

    # --- roles and set-aside places: their exact joint posterior (cached per view)
    if g.params["roles"]:
        dealt = _field(obs, "roles_dealt")
        if not isinstance(dealt, int) or not 0 <= dealt <= n or (role is None) != (p >= dealt):
            raise ValueError("observation field 'roles_dealt' is malformed")
        not_fool = tuple(sorted(set(_int_list(obs, "not_fool"))))
    else:
        dealt, not_fool = -1, ()
    table, cum = _posterior_table(
        n, p, tuple(roles), dealt, tuple(q for q in range(n) if q != p and TRAP in known[q]),
        not_fool, tuple(tuple(row) for row in quiet),
        tuple(len(held[q]) if q in held else 0 for q in range(n)), tuple(revealed),
        tuple(sizes), tuple(open_piles), tuple(s.role_gone), unknown[TRAP])
    roles, combo, cap_f = table[int(np.searchsorted(cum, rng.random() * cum[-1], "right"))]
    s.roles = list(roles)
    f = roles.index(FOOL) if FOOL in roles else -1
    hidden_fool = cap_f > 0

    # --- cards. Slots: ("held", seat, "stored"/"lost") then ("pile", i)
    setaside_f = [i for i in range(piles) if combo[i][0] == "f"]
    setaside_u = [i for i in range(piles) if combo[i][0] == "u"]
    slots: list[tuple] = []
    cards: list[int | None] = []
    trap_ok: list[bool] = []
    origin: list[int] = []  # the pile a Fool's quiet card came from (-1: not one)
    for q in sorted(held):
        kinds = held[q]
        origins: list[int] = []
        if q == f and hidden_fool:
            # the Fool's quiet cards it still holds: its set-aside Traps first, then the
            # others' piles (more quiet cards than held ones: the stolen ones were no Traps)
            rest = [i for i in range(piles) for _ in range(quiet[f][i] - (i in setaside_f))]
            keep = cap_f - len(setaside_f)
            if keep < len(rest):
                rest = [rest[j] for j in sorted(rng.choice(len(rest), keep,
                                                           replace=False).tolist())]
            origins = setaside_f + rest
        for k, kind in enumerate(kinds):
            slots.append(("held", q, kind))
            cards.append(TRAP if origins and k < len(setaside_f) else None)
            trap_ok.append(k < len(origins))
            origin.append(origins[k] if k < len(origins) else -1)
    first_pile = len(slots)
    for i in open_piles:
        for _ in range(sizes[i] - (1 if i in setaside_u else 0)):
            slots.append(("pile", i))
            cards.append(None)
            trap_ok.append(True)
            origin.append(-1)
    traps_fool = list(setaside_f)  # piles of the Fool's Traps (its private fool_piles)
    free_ok = [k for k in range(len(slots)) if trap_ok[k] and cards[k] is None]
    dealt_traps = unknown[TRAP] - len(setaside_f) - len(setaside_u)
    for j in (rng.choice(len(free_ok), dealt_traps, replace=False).tolist()
              if dealt_traps else []):
        cards[free_ok[j]] = TRAP
        if origin[free_ok[j]] >= 0:
            traps_fool.append(origin[free_ok[j]])
    others = [t for t in range(1, len(CARD_TYPES)) for _ in range(unknown[t])]
    others = [others[k] for k in rng.permutation(len(others))]
    for k in range(len(slots)):
        if cards[k] is None:
            cards[k] = others.pop()

    # stored / lost
    for q in range(n):
        if q != p:
            s.stored[q] = list(known[q])
    for (_, q, where), c in zip(slots[:first_pile], cards[:first_pile], strict=True):
        getattr(s, where)[q].append(c)
    for q in range(P):
        s.stored[q].sort()
        s.lost[q].sort()
    # piles: lazily dealt ones (set-aside Trap and pool), explicit ones another seat ordered
    pile_content: dict[int, list[int]] = {i: [] for i in range(piles)}
    for (_, i), c in zip(slots[first_pile:], cards[first_pile:], strict=True):
        pile_content[i].append(c)
    pool = [0] * len(CARD_TYPES)
    for i in range(piles):
        if placed[i] is None:
            s.pile_g[i] = 1 if i in setaside_u else 0
            s.pile_r[i] = len(pile_content[i])
            for c in pile_content[i]:
                pool[c] += 1
            continue
        s.pile_g[i] = s.pile_r[i] = 0  # an ordered pile is an explicit list, as in play
        if pile_cards is not None:
            s.pile_order[i] = list(pile_cards[i]) if pile_cards[i] is not None else []
            continue
        content = pile_content[i] + ([TRAP] if i in setaside_u else [])
        content = [content[k] for k in rng.permutation(len(content))]  # a uniform order
        s.pile_order[i] = content[: placed[i]]
        if i == s.ordering:
            s.manip_hand = [content[placed[i]:].count(t) for t in range(len(CARD_TYPES))]
    if pile_cards is not None:
        s.manip_hand = list(hand)
    s.pool = pool
    if f == p:
        s.fool_piles = list(fool_piles)
    elif f >= 0:  # a Trap p saw the Fool draw came from a pile p ordered (Manipulator)
        seen_traps = known[f].count(TRAP) if f != p else 0
        s.fool_piles = sorted(traps_fool + [int(x) for x in rng.choice(
            sorted(s.manip_piles) or [0], seen_traps)] if seen_traps else traps_fool)

    # private knowledge: the seat's own, and what others know of its cards
    s.known = [[[] for _ in range(P)] for _ in range(P)]
    s.known[p] = known
    for q in range(n):
        if q != p:
            s.known[q][p] = _cards(obs, "known_by", known_by[q])
    s.views = unknown_views(n)  # the past is not in an observation (engines/api.py)
    try:  # the public fields passed one by one; do they make a playable position together?
        if s.current_player() == CHANCE:
            s.chance_outcomes()
        else:
            s.legal_actions()
    except (LookupError, TypeError, ValueError, ZeroDivisionError, AttributeError) as exc:
        raise ValueError(f"observation is inconsistent: {type(exc).__name__}: {exc}") from None
    return s


# ------------------------------------------------------------------ exact belief (filter)
#: Filters of the current round per (anchor, seat), extended as the log grows
#: (``engines/belief.py``).
_BELIEFS = BeliefCache(size=8)


def order_prior(s: RatTrapState, a: int) -> float:
    """The prior of the one choice a seat cannot see, the Manipulator's order of a pile
    (``RatTrapState._hidden_weight``): a uniform shuffle, so each remaining card comes next
    with equal chance."""
    if s.phase != "manip_order":
        return 1.0
    hand = s.manip_hand
    return hand[a - ORDER] / sum(hand)


def _first_active(g: RatTrapGame, obs: Mapping[str, Any]) -> int:
    """The round's first active rat: each turn that ended passed the turn on (RT-6)."""
    return (obs["active"] - max(obs["turn"] - 1, 0)) % g.num_players()


def _round_anchor(g: RatTrapGame, obs: Mapping[str, Any]) -> RatTrapState:
    """The state at the start of the observation's round (Round Setup, before any chance
    outcome): public facts only (points, finished rounds, the first active rat: each turn
    that ended passed the turn on, RT-6), so every seat knows it completely. Its worlds
    belong to the observing seat's belief (``RatTrapState.observer``: another seat's
    Manipulator leaves its piles lazy)."""
    s = RatTrapState.__new__(RatTrapState)
    State.__init__(s, g)
    s.round = obs["round"] - 1
    s.turn = 0
    s.active = _first_active(g, obs)
    s.points = list(obs["points"])
    s.round_results = _copy_json(obs["round_results"])
    s.winners = []
    s.tiebreak_round = obs["tiebreak_round"]
    s._reset_round_fields()
    s.phase = ""
    s.todo = [["start_round"]]
    s.views = [[] for _ in range(g.num_players())]
    if g.params["roles"]:  # only a Manipulator makes a world lazy
        s.observer = obs["player"]
    s._advance()
    return s


def exact_belief(g: RatTrapGame, p: int, obs: Mapping[str, Any], log: list | None,
                 twin: Any = None, digest: Any = None):
    """Seat ``p``'s exact belief (``engines.belief.Belief``) by filtering its ``views`` log
    ``log`` through the current round from the round's start (``_round_anchor``), or
    ``None`` where the log is unknown, no history explains it (a position set up by hand)
    or the filter exceeds its caps (``engines/belief.py``: ``caps()``);
    cached per round and seat.

    The information state is the log *and* the current observation (``engines/api.py``):
    a fact an automatic step reveals without a logged action (the Manipulator's role,
    RT-10) is in the observation only, so the filtered worlds are those that also show the
    seat ``obs``. ``twin``: a Cython twin game to filter with (its states are the worlds;
    the same belief, 7-40x faster), whose worlds are compared by their observation digest
    (``_obs_digest``; ``digest``: the seat's, else taken from a closed-form rebuild of
    ``obs``) rather than by observation dicts."""
    steps = obs.get("round_steps")
    if log is None or not isinstance(steps, int) or not 0 <= steps <= len(log) \
            or None in log[len(log) - steps:] or obs.get("phase") == "over":
        return None
    if obs.get("phase") in ("manip_deal", "manip_order") and \
            obs.get("role") != ROLES[MANIPULATOR]:
        # another seat is ordering its piles (RT-10): the filter's worlds keep them lazy and
        # pass the manipulation whole (RatTrapState.observer); nothing else has happened in
        # the round, where the closed form is exact
        return None
    key = (twin is not None, repr(sorted(g.params.items())), obs["round"],
           obs["tiebreak_round"], _first_active(g, obs), repr(obs["points"]),
           repr(obs["round_results"]))

    def anchor():
        a = _round_anchor(g, obs)
        return a if twin is None else twin._from_reference(a)

    belief = _BELIEFS.get(key, anchor, log[len(log) - steps:], p)
    if belief is None:
        return None
    if digest is not None:
        return belief.showing(("digest", digest), lambda w: w._obs_digest(p) == digest)
    if twin is not None:  # the digest of obs: the first world showing obs gives it
        found: list = []

        def same(w) -> bool:
            if found:
                return w._obs_digest(p) == found[0]
            if w.observation(p) == obs:
                found.append(w._obs_digest(p))
                return True
            return False

        return belief.showing(canonical_json(obs), same)
    return belief.showing(canonical_json(obs), lambda w: w.observation(p) == obs)


def sample_infostate(g: RatTrapGame, p: int, obs: Mapping[str, Any], log: list | None,
                     rng: np.random.Generator, twin: Any = None) -> State:
    """A determinization of seat ``p`` from its information state (observation and views
    log): a world of :func:`exact_belief` (a twin's state when filtered with ``twin``) where
    the filter fits its caps, else the closed-form rebuild :func:`_rebuild`
    (``RatTrapGame._state_from_observation``). The caller sets the sample's logs."""
    belief = exact_belief(g, p, obs, log, twin)
    if belief is not None:
        world = belief.worlds[belief.pick(rng.random())].clone()
        return world._realize(rng)
    return _rebuild(g, p, obs, rng)


def lazy_piles(s: RatTrapState) -> list[int]:
    """The lazy piles of a belief's world (``RatTrapState.observer``; a reference state):
    those another seat's Manipulator ordered, unseen by the world's observer, in pile order;
    ``[]`` in a state of the game."""
    if not s.manip_piles or not s._lazy_manipulation():
        return []
    return [i for i in sorted(s.manip_piles) if s.pile_order[i] is None]


def realizations(s: RatTrapState) -> list[tuple[RatTrapState, float]]:
    """The exact law of :func:`realize_lazy_piles` for the world ``s`` (not modified):
    ``[(state, probability)]``, one entry per deal and order of its lazy piles (each card
    from the top: the set-aside Trap with chance g / (g + r), else a dealt card by the
    pool's counts, as a shuffled pile is drawn); ``[(s without observer, 1.0)]`` for a world
    with no lazy pile. For tests and exact analysis: up to 5! orders per pile."""
    piles = lazy_piles(s)
    out: list[tuple[RatTrapState, float]] = []

    def deal(k: int, st: RatTrapState, cards: list[int], prob: float) -> None:
        if k == len(piles):
            done = st.clone()
            done.__dict__.pop("observer", None)
            out.append((done, prob))
            return
        i = piles[k]
        g, r = st.pile_g[i], st.pile_r[i]
        if g + r == 0:
            nxt = st.clone()
            nxt.pile_order[i] = cards
            nxt.pile_g[i] = 0
            deal(k + 1, nxt, [], prob)
            return
        if g:
            nxt = st.clone()
            nxt.pile_g[i] = 0
            deal(k, nxt, cards + [TRAP], prob * g / (g + r))
        total = sum(st.pool)
        for t, c in enumerate(st.pool):
            if r and c:
                nxt = st.clone()
                nxt.pile_r[i] -= 1
                nxt.pool[t] -= 1
                deal(k, nxt, cards + [t], prob * r / (g + r) * c / total)

    deal(0, s, [], 1.0)
    return out


def realize_lazy_piles(s: RatTrapState, rng: np.random.Generator) -> RatTrapState:
    """The world ``s`` of a belief (a reference state, modified) as a state of the game:
    each lazy pile gets its set-aside Trap if still in (``pile_g``) and ``pile_r`` cards
    dealt from the unseen ``pool`` without replacement, in a uniform order (the world's
    conditional law of what the Manipulator knows: the deal is hypergeometric, the order a
    uniform shuffle, ``order_prior``; :func:`realizations` is that law); ``observer`` goes
    back to -1. Returns ``s``."""
    if s.observer < 0:
        return s
    for i in lazy_piles(s):
        cards = [TRAP] * s.pile_g[i]
        for _ in range(s.pile_r[i]):
            t = int(np.searchsorted(np.cumsum(s.pool), rng.random() * sum(s.pool), "right"))
            s.pool[t] -= 1
            cards.append(t)
        s.pile_g[i] = s.pile_r[i] = 0
        s.pile_order[i] = [cards[j] for j in rng.permutation(len(cards))]
    del s.observer
    return s


# -------------------------------------------------------------------------------- heuristic
def heuristic_value(state: RatTrapState, player: int) -> float:
    """Estimate in [0, 1] of ``player``'s standing, from its observation only.

    Rewards points, plus the cheese on its own stored cards (clovers count one for the
    Alchemist) and an average of 0.8 per card for other players' unseen cards; a round's
    cards are worth half when two scratches threaten elimination, nothing once eliminated.
    Returns a logistic of (own estimate - best rival estimate) / 2 points; the exact
    ``returns`` at terminal states.
    """
    if state.is_terminal():
        return state.returns()[player]
    obs = state.observation(player)
    est = []
    for k, pts in enumerate(obs["points"]):
        if k == player:
            cards = obs["my_cards"]
            value = sum(CARD_CHEESE[c] for c in cards)
            if obs["role"] == ROLES[ALCHEMIST]:
                value += cards.count(CLOVER)
        elif k == state._game.third_rat:
            value = sum(CARD_CHEESE[c] for c in obs["third_rat_cards"])
        else:
            value = 0.8 * obs["stored_counts"][k]
        if obs["eliminated"][k]:
            value = 0
        elif obs["scratches"][k] >= 2:
            value *= 0.5
        est.append(pts + value)
    rival = max(v for k, v in enumerate(est) if k != player)
    return 1.0 / (1.0 + math.exp(-(est[player] - rival) / 2.0))


# ------------------------------------------------------------------------------ rendering
def _card_list(cs: list[int]) -> str:
    return ", ".join(CARD_TYPES[c] for c in cs) or "none"


def render(state: RatTrapState, player: int) -> str:
    """Seat ``player``'s view as text: points, scratches, piles, its cards, dice and the turn
    (a finished game: "game over", no seat to move and no dice)."""
    obs = state.observation(player)
    g = state._game
    over = state.is_terminal()
    turn = "game over" if over else f"active: {_who(state, obs['active'])}"
    lines = [f"Rat Trap - round {obs['round']}, turn {obs['turn']}, {turn}"]
    lines.append("  player          points  scratches  stored")
    for k in range(g.participants):
        name = _who(state, k) + (" (you)" if k == player else "")
        status = " ELIMINATED" if obs["eliminated"][k] else ""
        role = obs["public_roles"][k] if k < len(obs["public_roles"]) else None
        status += f" [{role}]" if role else ""
        lines.append(f"  {name:<14} {obs['points'][k]:>6}  {obs['scratches'][k]:>9}  "
                     f"{obs['stored_counts'][k]:>6}{status}")
    piles = "  ".join(f"#{i}: {n} card(s)" + (f", {t} trap(s) out" if t else "")
                      for i, (n, t) in enumerate(zip(obs["pile_sizes"], obs["trap_out"],
                                                     strict=True)))
    lines.append(f"  piles: {piles}")
    lines.append(f"  your cards: {_card_list(obs['my_cards'])}")
    if obs["role"]:
        lines.append(f"  your role: {obs['role']}")
    if obs["third_rat_cards"] is not None:
        lines.append(f"  Third Rat's cards (face up): {_card_list(obs['third_rat_cards'])}")
    for k, known in enumerate(obs["known"]):
        if known and k != player:
            lines.append(f"  you know {_who(state, k)} holds: {_card_list(known)}")
    if obs["pile_cards"]:
        for i, cs in enumerate(obs["pile_cards"]):
            if cs is not None:
                lines.append(f"  pile #{i} from the top (you ordered it): {_card_list(cs)}")
    if obs["round_results"]:
        last = obs["round_results"][-1]
        gained = ", ".join(f"{_who(state, k)} +{x}" for k, x in enumerate(last["gained"]))
        lines.append(f"  round {last['round']} scored: {gained}")
    dice = [FACES[f] for f in obs["black"]] + [FACES[f] + "(white)" for f in obs["white"]]
    if dice and not over:
        lines.append(f"  dice: {' '.join(dice)}")
    return "\n".join(lines)
