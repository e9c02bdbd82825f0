"""The schema of a Rat Trap ``observation(player)`` (see ``ratai.engines.obs_schema``).

Public: points, scratches, pile sizes and the Traps shown beside each pile, the dice, the
turn in progress, revealed roles, the Third Rat's face-up cards, the counts of every rat's
stored and lost cards. Private to the seat: its own cards and role, what it knows of other
rats' cards (from steals), what others know of its cards, the piles it ordered as the
Manipulator and, as the Fool, which piles it drew from silently (RT-4, RT-9, RT-10).
"""

from __future__ import annotations

from ..obs_schema import (
    array,
    boolean,
    document,
    enum,
    fixed,
    integer,
    mapping,
    multiset,
    nullable,
    obj,
    seat,
    skip,
)
from .data import CARD_TYPES, FACES, ROLES

__all__ = ["observation_schema"]

_PHASES = ["accomplice", "keep", "play", "pile", "steal_target", "cat_target", "manip_pile",
           "reroll", "alratone", "hypnotist", "scratch", "manip_order", "roll", "roll_white",
           "roll_black", "draw", "steal_card", "deal_role", "manip_deal", "tr_card", "over"]


def observation_schema(game) -> dict:
    """The JSON Schema document of ``game``'s observations (``Game.observation_schema``)."""
    d = game.data
    n = game.num_players()
    P = game.participants
    piles = game.num_piles
    deck = sum(game.deck)
    rounds = d.max_rounds + 1  # the tie-break round (RT-5, RT-11)
    tr = "; the Third Rat is the last rat in the 2-player game" if game.third_rat >= 0 else ""
    rat = seat(P, "a rat (a seat" + tr + ")", seats=n)
    card = enum(list(range(len(CARD_TYPES))), "a card: " + ", ".join(
        f"{i} {t}" for i, t in enumerate(CARD_TYPES)))
    face = enum(list(range(len(FACES))), "a die face: " + ", ".join(
        f"{i} {f}" for i, f in enumerate(FACES)))
    cards = multiset(list(range(len(CARD_TYPES))), deck, "cards (trap 0, cheese1 1, "
                     "cheese2 2, clover 3)")
    per_rat = "per rat" + tr
    points = integer(0, 1_000, "points", scale=(0, d.win_points))
    result = obj({
        "round": integer(1, rounds, "the round"),
        "revealed": fixed(nullable(cards), "each rat's stored cards shown at the round's "
                          "end (null: eliminated, its cards lost)", n=P, per_seat=n),
        "eliminated": fixed(boolean("eliminated"), "rats eliminated that round", n=P, per_seat=n),
        "gained": fixed(points, "points each rat scored that round", n=P, per_seat=n),
        "stored_counts": fixed(integer(0, deck, "cards"), "cards each rat stored", n=P, per_seat=n),
        "roles": fixed(nullable(enum(list(ROLES), "a role")), "roles revealed at the end "
                       "of that round (roles variant)", n=n, per_seat=n),
    }, "the result of a finished round (rulebook 'End of the round')")
    roles = enum(list(ROLES), "a role card (Everyone Has a Role to Play)")
    return document("rat_trap", "Rat Trap observation", obj({
        "round": integer(0, rounds, "the round (1 first; the tie-break round after the last, "
                         "RT-11)"),
        "turn": integer(0, 100_000, "turns played this round", scale=(0, 30)),
        "active": rat,
        "points": fixed(points, f"points {per_rat} ({d.win_points} to win)", n=P, per_seat=n),
        "round_results": array(result, rounds, "finished rounds, first first"),
        "winners": array(rat, P, "the winning rats (RT-5), empty before the end"),
        "tiebreak_round": boolean("this round is the tie-break round (RT-5, RT-11)"),
        "phase": enum(_PHASES, "the step waiting for a decision or a chance outcome"),
        "todo": skip(array({"type": "array"}, 256, "the turn's remaining steps"),
                     "engine bookkeeping of the turn's remaining steps (phase and the "
                     "fields below say where the turn is)"),
        "ctx": skip({"type": "object", "description": "the current step's context "
                     "(who decides, which pile)"}, "engine bookkeeping of the current step"),
        "scratches": fixed(integer(0, d.scratches_to_eliminate, "scratches"),
                           f"scratches {per_rat} ({d.scratches_to_eliminate} eliminate)",
                           n=P, per_seat=n),
        "eliminated": fixed(boolean("eliminated"), f"eliminated this round {per_rat}", n=P,
                            per_seat=n),
        "trap_out": fixed(integer(0, deck, "Traps"), "Traps revealed beside each pile", n=piles),
        "used_clovers": integer(0, deck, "Lucky Clovers used this round (RT-2)"),
        "role_public": fixed(boolean("revealed"), "roles revealed by use (RT-9)", n=n, per_seat=n),
        "role_gone": fixed(boolean("gone"), "roles used up this round", n=n, per_seat=n),
        "not_fool": multiset(list(range(n)), n, "seats known not to hold the Fool", seats=n),
        "manip_piles": multiset(list(range(piles)), piles, "the piles the Manipulator "
                                "ordered (RT-10)"),
        "ordering": integer(-1, piles - 1, "the pile being ordered by the Manipulator, -1 "
                            "none"),
        "tr_used": multiset(list(range(len(d.third_rat_cards))), len(d.third_rat_cards),
                            "Third Rat cards used this round (RT-8)"),
        "round_over": boolean("the round ends after this turn (RT-3)"),
        "black": array(face, 2, "the black dice rolled this turn"),
        "white": array(face, 2, "the white dice (4 dice in the Bigger the Gang, RT-7)"),
        "rerolled": boolean("the active rat has rerolled"),
        "alr_queue": array(seat(n, "a seat"), n, "seats still to decide on revealing Al "
                           "Ratone (RT-10)"),
        "acc": integer(-1, P - 1, "the accomplice (-1 none)"),
        "acc_white": integer(-1, P - 1, "the accomplice with the white dice (RT-7)"),
        "acc_black": integer(-1, P - 1, "the accomplice with the black dice (RT-7)"),
        "returned": array(face, 2, "dice returned to the active rat"),
        "kept": mapping([str(k) for k in range(P)], face, "the face each rat kept this turn",
                        per_seat=n),
        "cat_targets": array(rat, P, "rats the cat still has to visit"),
        "tr_card": integer(-1, len(d.third_rat_cards) - 1, "the Third Rat card in play, -1 "
                           "none (RT-8)"),
        "quiet": fixed(fixed(integer(0, deck, "cards"), "per pile", n=piles),
                       "cards each seat drew from each pile this round that were not "
                       "revealed as a Trap (public; a Fool's quiet draw may hide a Trap)",
                       n=n, per_seat=n),
        "round_steps": skip(integer(0, 10_000_000, "entries of each seat's views log since "
                                    "the round began"),
                            "bookkeeping of the perfect-recall log (the exact belief "
                            "filters the round from there)"),
        "pile_sizes": fixed(integer(0, deck, "cards"), "cards left in each pile", n=piles),
        "pile_placed": fixed(nullable(integer(0, deck, "cards")), "cards of each ordered "
                             "pile already placed by the Manipulator (null: not ordered)",
                             n=piles),
        "stored_counts": fixed(integer(0, deck, "cards"), f"stored cards {per_rat}", n=P,
                               per_seat=n),
        "lost_counts": fixed(integer(0, deck, "cards"), f"cards lost this round {per_rat}",
                             n=P, per_seat=n),
        "third_rat_cards": nullable(cards, "the Third Rat's stored cards (face up, RT-8)"),
        "third_rat_lost": nullable(cards, "the Third Rat's lost cards"),
        "public_roles": fixed(nullable(roles), "each seat's role if revealed", n=n, per_seat=n),
        "roles_dealt": integer(0, n, "roles dealt so far (in seat order)"),
        "player": seat(n, "the seat this observation is for"),
        "my_cards": cards,
        "my_lost": cards,
        "known": fixed(cards, "cards the seat knows each rat holds (from steals, RT-4)", n=P,
                       per_seat=n),
        "known_by": fixed(cards, "cards of the seat each other seat knows about", n=n,
                          per_seat=n),
        "role": nullable(roles, "the seat's own role (roles variant), or null"),
        "pile_cards": nullable(fixed(nullable(array(card, deck, "cards, top first")),
                                     "the order of each pile the seat ordered", n=piles),
                               "as the Manipulator: the piles it ordered (RT-10)"),
        "manip_hand": nullable(fixed(integer(0, deck, "cards"), "count by card type",
                                     n=len(CARD_TYPES)),
                               "as the Manipulator: the cards of the pile being ordered "
                               "not yet placed"),
        "fool_piles": nullable(multiset(list(range(piles)), deck, "piles"),
                               "as the Fool: piles drawn from silently"),
    }, "What one seat knows in Rat Trap."))
