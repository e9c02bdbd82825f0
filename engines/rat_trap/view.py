"""What a seat sees of a Rat Trap state: observations, action labels, determinization, heuristic.

The observation of seat ``p`` is every public field of the state verbatim (``PUBLIC_FIELDS``:
points, scratches, pile sizes, revealed Traps, dice, the pending turn...) plus what ``p``
privately knows (``PRIVATE_FIELDS``): its cards, its role, what it knows of other players'
cards, what others know of its cards, and the piles it ordered as the Manipulator.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api import CHANCE, State, check_player
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
    "kept", "cat_targets", "tr_card",
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
    obs = {f: copy.deepcopy(getattr(s, f)) for f in PUBLIC_FIELDS}
    tr = g.third_rat
    is_manip = 0 <= p < len(s.roles) and s.roles[p] == MANIPULATOR
    obs.update({
        "pile_sizes": [s._pile_size(i) for i in range(g.num_piles)],
        "pile_placed": [None if o is None else len(o) for o in s.pile_order],
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
              "used_clovers": range(0, sum(g.deck) + 1)}
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


def _rebuild(g: RatTrapGame, p: int, obs: Mapping[str, Any], rng: np.random.Generator
             ) -> RatTrapState:
    """See :meth:`RatTrapGame.state_from_observation`."""
    n, P, piles = g.num_players(), g.participants, g.num_piles
    if not isinstance(p, int) or not 0 <= p < n:
        raise ValueError(f"bad player {p!r}: allowed 0..{n - 1}")
    if not isinstance(obs, Mapping):
        raise ValueError("observation must be a dict")
    if _field(obs, "player") != p:
        raise ValueError(f"observation field 'player' is {obs.get('player')!r}, not {p}")
    s = RatTrapState.__new__(RatTrapState)
    State.__init__(s, g)
    s._reset_round_fields()
    _check_public(g, obs, RatTrapState(g))
    for f in PUBLIC_FIELDS:
        setattr(s, f, copy.deepcopy(_field(obs, f)))
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

    # --- the places of unknown cards (slots), in a canonical order
    trap_seen = [s.trap_out[i] > 0 or i in (fool_piles or []) for i in range(piles)]
    stored_slots: list[tuple[str, int]] = []
    for q in range(n):
        if q == p:
            continue
        extra = stored_counts[q] - len(known[q])
        if extra < 0 or lost_counts[q] < 0:
            raise ValueError(f"observation field 'stored_counts' is below what is known of {q}")
        stored_slots += [("stored", q)] * extra + [("lost", q)] * lost_counts[q]
    pile_slots: list[int] = []   # piles another seat ordered (explicit lists)
    reserved = 0
    lazy = []
    for i in range(piles):
        if placed[i] is not None and pile_cards is None:
            reserve = int(sizes[i] > 0 and not trap_seen[i])
            reserved += reserve
            pile_slots += [i] * (sizes[i] - reserve)
        elif placed[i] is None:
            gi = int(sizes[i] > 0 and not trap_seen[i])
            reserved += gi
            lazy.append((i, gi, sizes[i] - gi))
    pool_size = sum(r for _, _, r in lazy)
    slots = len(stored_slots) + len(pile_slots) + pool_size
    if slots + reserved != sum(unknown) or unknown[TRAP] < reserved:
        raise ValueError("observation is impossible: pile sizes and card counts do not add up")
    traps_left = unknown[TRAP] - reserved

    # --- roles: weight each consistent assignment by its number of card placements
    if g.params["roles"]:
        dealt = _field(obs, "roles_dealt")
        if not isinstance(dealt, int) or not 0 <= dealt <= n or (role is None) != (p >= dealt):
            raise ValueError("observation field 'roles_dealt' is malformed")
        seats = [q for q in range(dealt) if roles[q] < 0]
        free = [r for r in range(len(ROLES)) if r not in roles]
        must_fool = [q for q in range(n) if q != p and TRAP in known[q]]
        not_fool = _int_list(obs, "not_fool")
        options, weights = [], []
        for perm in itertools.permutations(free, len(seats)):
            assign = dict(zip(seats, perm, strict=True))
            full = [assign.get(q, roles[q]) for q in range(n)]  # -1: not dealt yet
            if any(full[q] != FOOL for q in must_fool):
                continue
            if any(assign.get(q) == FOOL for q in not_fool):
                continue
            allowed = len(pile_slots) + pool_size + sum(
                1 for kind, q in stored_slots if full[q] == FOOL and not s.role_gone[q])
            w = math.comb(allowed, traps_left)
            if w:
                options.append(full)
                weights.append(w)
        if not options:
            raise ValueError("observation is impossible: no consistent deal of the roles")
        pick = rng.choice(len(options), p=np.array(weights, float) / sum(weights))
        roles = options[int(pick)]
    s.roles = roles

    # --- cards: Traps into allowed slots, the other unknown cards shuffled into the rest
    def trap_ok(slot: tuple[str, int]) -> bool:
        return roles[slot[1]] == FOOL and not s.role_gone[slot[1]]

    all_slots = ([("s", k) for k in range(len(stored_slots))]
                 + [("p", k) for k in range(len(pile_slots))] + [("pool", k)
                                                                for k in range(pool_size)])
    allowed = [k for k, (kind, j) in enumerate(all_slots)
               if kind != "s" or trap_ok(stored_slots[j])]
    if traps_left > len(allowed):
        raise ValueError("observation is impossible: too many unseen Traps for their places")
    trap_at = set(rng.choice(len(allowed), traps_left, replace=False).tolist()) \
        if traps_left else set()
    trap_slots = {allowed[k] for k in trap_at}
    others = [t for t in range(1, len(CARD_TYPES)) for _ in range(unknown[t])]
    others = [others[k] for k in rng.permutation(len(others))]
    cards = []
    for k in range(len(all_slots)):
        cards.append(TRAP if k in trap_slots else others.pop())

    # stored / lost
    for q in range(n):
        if q != p:
            s.stored[q] = list(known[q])
    for (kind, q), c in zip(stored_slots, cards, strict=False):
        getattr(s, kind)[q].append(c)
    for q in range(P):
        s.stored[q].sort()
        s.lost[q].sort()
    k0 = len(stored_slots)
    # piles another seat ordered (reserved Trap at a random place)
    pile_cards_sampled: dict[int, list[int]] = {i: [] for i in range(piles)}
    for i, c in zip(pile_slots, cards[k0:k0 + len(pile_slots)], strict=True):
        pile_cards_sampled[i].append(c)
    k0 += len(pile_slots)
    for i in range(piles):
        if placed[i] is None:
            continue
        s.pile_g[i] = s.pile_r[i] = 0  # an ordered pile is an explicit list, as in play
        if pile_cards is not None:
            s.pile_order[i] = list(pile_cards[i]) if pile_cards[i] is not None else []
            continue
        content = pile_cards_sampled[i]
        if sizes[i] > 0 and not trap_seen[i]:
            content.insert(int(rng.integers(len(content) + 1)), TRAP)
        s.pile_order[i] = content[: placed[i]]
        if i == s.ordering:
            s.manip_hand = [content[placed[i]:].count(t) for t in range(len(CARD_TYPES))]
    if pile_cards is not None:
        s.manip_hand = list(hand)
    # lazily dealt piles: the set-aside Traps and the pool of dealt cards
    pool = [0] * len(CARD_TYPES)
    for c in cards[k0:]:
        pool[c] += 1
    s.pool = pool
    for i, gi, r in lazy:
        s.pile_g[i], s.pile_r[i] = gi, r

    # private knowledge: the seat's own, and what others know of its cards
    s.known = [[[] for _ in range(P)] for _ in range(P)]
    s.known[p] = known
    for q in range(n):
        if q != p:
            s.known[q][p] = _cards(obs, "known_by", known_by[q])
    if FOOL in roles:
        f = roles.index(FOOL)
        traps = s.stored[f].count(TRAP) + s.lost[f].count(TRAP)
        s.fool_piles = list(fool_piles) if f == p else \
            sorted(int(x) for x in rng.integers(piles, size=traps))
    try:  # the public fields passed one by one; do they make a playable position together?
        if s.current_player() == CHANCE:
            s.chance_outcomes()
        else:
            s.legal_actions()
    except (LookupError, TypeError, ValueError, ZeroDivisionError, AttributeError) as exc:
        raise ValueError(f"observation is inconsistent: {type(exc).__name__}: {exc}") from None
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
    """Seat ``player``'s view as text: points, scratches, piles, its cards, dice and the turn."""
    obs = state.observation(player)
    g = state._game
    lines = [f"Rat Trap - round {obs['round']}, turn {obs['turn']}, "
             f"active: {_who(state, obs['active'])}"]
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
    if dice:
        lines.append(f"  dice: {' '.join(dice)}")
    return "\n".join(lines)
