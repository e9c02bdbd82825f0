"""Rat Trap component data: Doorway deck mixes, die faces, roles and Third Rat cards.

The rulebook (Tiki Editions 2017) prints the rules and setup counts (5 cards per pile, one
Trap set aside per pile, 15/20/25 cards for 3/4/5 players); it does not print the deck mix,
the die faces or the Third Rat cards. Those are the stand-ins of ``../shared/data/rat_trap.json``
(see ``../shared/RULES_GAPS.md``, section Rat Trap), packaged here as ``rat_trap.json``.
Load another file with ``load_game("rat_trap", data_path=...)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..api import read_component_json

#: Card types, in id order. ``trap`` is a Trap card; the others are stored when drawn.
CARD_TYPES = ("trap", "cheese1", "cheese2", "clover")
TRAP, CHEESE1, CHEESE2, CLOVER = range(4)
#: Cheese (points) on each card type at round end (rulebook "Drawing and Storing Cards").
CARD_CHEESE = (0, 1, 2, 0)

#: Die faces (actions), in id order (rulebook "The Actions").
FACES = ("key1", "key2", "steal", "cat", "heal")
KEY1, KEY2, STEAL, CAT, HEAL = range(5)

#: Roles of "Everyone Has a Role to Play", in id order.
ROLES = ("manipulator", "al_ratone", "hypnotist", "fool", "alchemist")
MANIPULATOR, AL_RATONE, HYPNOTIST, FOOL, ALCHEMIST = range(5)


@dataclass(frozen=True)
class ThirdRatCard:
    """A "Third Rat" card: the die faces it keeps, in priority order, and who controls it."""

    id: str
    priority: tuple[int, ...]  # face ids, most wanted first
    controller: str  # "active" or "opponent"


@dataclass(frozen=True)
class RatTrapData:
    """Validated component data.

    Attributes:
        decks: ``{players: counts}`` with ``counts[t]`` the number of cards of type ``t``
            (``CARD_TYPES`` order) in the Doorway deck for that many piles (3, 4, 5).
        black_die, white_die: the six faces of each die colour, as face ids.
        win_points: points that end the game after round 1 or 2 (rulebook: 7).
        max_rounds: rounds in a game (rulebook: 3).
        scratches_to_eliminate: scratches that eliminate (rulebook: 3).
        empty_round_bonus: points to each non-eliminated player when nobody scored (2).
        third_rat_cards: the six Third Rat cards.
    """

    decks: dict[int, tuple[int, ...]]
    black_die: tuple[int, ...]
    white_die: tuple[int, ...]
    win_points: int
    max_rounds: int
    scratches_to_eliminate: int
    empty_round_bonus: int
    roles: tuple[str, ...]
    third_rat_cards: tuple[ThirdRatCard, ...]
    source: str


def _fail(source: str, field: str, problem: str) -> ValueError:
    return ValueError(f"{source}: field {field!r}: {problem}")


def _faces(raw: object, source: str, field: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or not raw or any(f not in FACES for f in raw):
        raise _fail(source, field, f"must be a non-empty list of faces from {FACES}")
    return tuple(FACES.index(f) for f in raw)


def parse(doc: dict, source: str = "<data>") -> RatTrapData:
    """Validate a rat_trap.json document.

    Raises:
        ValueError: naming the file and field that is missing or wrong.
    """
    try:
        raw_decks = doc["doorway_deck"]
        decks = {}
        for key, counts in raw_decks.items():
            if key.startswith("_"):
                continue
            if not key.isdigit() or set(counts) != set(CARD_TYPES):
                raise _fail(source, f"doorway_deck.{key}", f"needs counts for {CARD_TYPES}")
            piles = int(key)
            row = tuple(int(counts[t]) for t in CARD_TYPES)
            if min(row) < 0 or sum(row) != 5 * piles or row[TRAP] < piles:
                raise _fail(source, f"doorway_deck.{key}",
                            f"needs {5 * piles} cards with at least {piles} traps")
            decks[piles] = row
        for piles in (3, 4, 5):
            if piles not in decks:
                raise _fail(source, "doorway_deck", f"missing the deck for {piles} players")
        dice = doc["dice"]
        cards = []
        for i, card in enumerate(doc["third_rat_cards"]):
            prio = _faces(card["priority"], source, f"third_rat_cards[{i}].priority")
            if sorted(prio) != list(range(len(FACES))):
                raise _fail(source, f"third_rat_cards[{i}].priority", "must rank every face once")
            if card["controller"] not in ("active", "opponent"):
                raise _fail(source, f"third_rat_cards[{i}].controller",
                            "must be 'active' or 'opponent'")
            cards.append(ThirdRatCard(str(card["id"]), prio, card["controller"]))
        roles = tuple(doc["roles"])
        if roles != ROLES:
            raise _fail(source, "roles", f"must be {list(ROLES)}")
        data = RatTrapData(
            decks=decks,
            black_die=_faces(dice["black"], source, "dice.black"),
            white_die=_faces(dice["white"], source, "dice.white"),
            win_points=int(doc["win_points"]),
            max_rounds=int(doc["max_rounds"]),
            scratches_to_eliminate=int(doc["scratches_to_eliminate"]),
            empty_round_bonus=int(doc["empty_round_bonus"]),
            roles=roles,
            third_rat_cards=tuple(cards),
            source=source,
        )
    except KeyError as exc:
        raise _fail(source, str(exc.args[0]), "missing") from None
    if not cards:
        raise _fail(source, "third_rat_cards", "must not be empty")
    return data


@lru_cache(maxsize=8)
def load(path: str | None = None) -> RatTrapData:
    """The packaged data (``path=None``) or the JSON file at ``path``, validated and cached.

    Raises:
        ValueError: the file is missing, not JSON, or fails validation.
    """
    doc, source = read_component_json(__package__, "rat_trap.json", path)
    return parse(doc, source)
