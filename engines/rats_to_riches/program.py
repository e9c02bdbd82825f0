"""Rats to Riches card effects compiled into integer tables, read by both backends.

:func:`compile_cards` turns each card type's :class:`engines.effects.Effect` list into
:class:`Step` records (plain integers) plus per-card tables for the passive effects; the
reference engine (``rules.py``) interprets the steps, and the Cython twin copies the same
tables into its constant struct at load and interprets them in C. So both backends run one
compiled form of the data: no card has a code path of its own.

Use programs and action blocks
    Card types whose ``use`` effects are equal (``engines.effects.canonical``) form one
    *program*. A program that chooses a player or makes a choice with the action gets an
    action block (:class:`Program`, shapes below); the card used is the lowest type id of the
    program the user owns (copies play identically). Blocks come after ``USE`` in the shape
    order :data:`BLOCK_SHAPES`, programs of one shape in order of first appearance:

    ``TARGET``        ``base + q``: the chosen rat ``q``.
    ``TARGET_CHEESE`` ``base + q * ns + k``: rat ``q``, the cheese ``combos[k]`` stolen
                      (``ns`` = multisets up to the steal's amount).
    ``CHEESE``        ``base + k``: the cheese ``combos[k]`` gained.
    ``TARGET_CARD``   ``base + q * width + t``: rat ``q``'s card ``t`` (``width`` = ``T + 1``
                      when the move has no colour filter, so a Flush card can be chosen,
                      else ``T``).

    A program without a choice (``PLAIN``) is used with ``USE + t``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..effects import COMPARISONS, Count, Effect, canonical
from .data import CARD_COLOURS, COLOURS, RatsToRichesData

# op codes of a compiled step
OP_GAIN, OP_PAY, OP_STEAL, OP_GAIN_CHOSEN, OP_STEAL_CHOSEN, OP_MOVE_CHOSEN, OP_MOVE_PICK, \
    OP_PAY_PICK, OP_TRIGGER_INCOME = range(9)
# resources: the cheese colour ids, then cash, then the cheese group
RES_CASH, RES_CHEESE = 3, 4
# player selectors
SEL_SELF, SEL_TARGET, SEL_ALL, SEL_OTHERS = range(4)
# what a count counts (-1: no count)
CNT_CASH, CNT_CHEESE, CNT_CARDS, CNT_PIPES, CNT_PIPES_SOLD = 3, 4, 5, 6, 7
# whose count: the concerned player, the user, the chosen rat
CW_SUBJECT, CW_SELF, CW_TARGET = range(3)
#: comparison codes: the effects vocabulary's (``engines.effects.COMPARISONS``)
CMPS = COMPARISONS
ZONE_CESSPIT, ZONE_TABLEAU = range(2)
SHAPE_PLAIN, SHAPE_TARGET, SHAPE_TARGET_CHEESE, SHAPE_CHEESE, SHAPE_TARGET_CARD = range(5)
#: block shapes in layout order (``PLAIN`` programs use ``USE + t``)
BLOCK_SHAPES = (SHAPE_TARGET, SHAPE_TARGET_CHEESE, SHAPE_CHEESE, SHAPE_TARGET_CARD)
SHAPE_NAMES = ("PLAIN", "TARGET", "TARGET_CHEESE", "CHEESE", "TARGET_CARD")
#: trigger codes of a continuation
TRIGGERS = ("use", "reveal")

_RES = {c: i for i, c in enumerate(COLOURS)} | {"cash": RES_CASH, "cheese": RES_CHEESE}
_CNT = _RES | {"cards": CNT_CARDS, "pipes": CNT_PIPES, "pipes_sold": CNT_PIPES_SOLD}
_SEL = {"self": SEL_SELF, "target": SEL_TARGET, "any": SEL_TARGET, "all": SEL_ALL,
        "others": SEL_OTHERS, "": SEL_SELF}
_CW = {"subject": CW_SUBJECT, "self": CW_SELF, "target": CW_TARGET}


class Step(NamedTuple):
    """One compiled effect (all ints; -1 = none). Amount = ``min(max, count * times //
    divide + plus)`` with the count ``cnt_of`` of player ``cnt_whose`` over cards of colour
    ``cnt_colour``; condition ``cond_of``/``cond_whose``/``cond_colour`` ``cmp`` ``value``;
    ``whose`` the player whose cards move, ``colour`` the card filter, ``to`` the zone."""

    op: int
    res: int
    who: int
    plus: int
    cnt_of: int
    cnt_whose: int
    cnt_colour: int
    times: int
    divide: int
    max: int
    cond_of: int
    cond_whose: int
    cond_colour: int
    cmp: int
    value: int
    up_to: int
    whose: int
    colour: int
    to: int


@dataclass
class Program:
    """A use program with an action block (see the module docstring)."""

    shape: int
    types: list[int]            # card types with this program, ascending
    name: str                   # the first type's printed name (labels)
    any_target: bool            # the chosen rat may be the user (``any``)
    amount: int = 0             # cheese gained / stolen by the choice
    colour: int = -1            # card-choice colour filter (-1: any card, Flush too)
    base: int = 0
    width: int = 0              # ids per rat (TARGET_CHEESE: ns; TARGET_CARD: T or T+1)
    size: int = 0               # ids in the block


def _count(c: Count | None) -> tuple[int, int, int]:
    if c is None:
        return -1, 0, -1
    colour = dict(c.where).get("colour")
    return _CNT[c.of], _CW[c.whose], -1 if colour is None else CARD_COLOURS.index(colour)


def compile_effect(e: Effect) -> Step:
    """One validated effect (``data._check_supported``) as a :class:`Step`."""
    a = e.amount
    cnt_of, cnt_whose, cnt_colour = _count(a.count)
    cond = e.condition
    cond_of, cond_whose, cond_colour = _count(cond.count if cond else None)
    colour = dict(e.filter).get("colour")
    group = e.resource == "cheese"
    if e.op == "gain":
        op = OP_GAIN_CHOSEN if group else OP_GAIN
    elif e.op == "pay":
        op = OP_PAY_PICK if group else OP_PAY
    elif e.op == "steal":
        op = OP_STEAL_CHOSEN if group else OP_STEAL
    elif e.op == "move":
        op = OP_MOVE_CHOSEN if e.chooser == "self" and e.whose != "self" else OP_MOVE_PICK
    else:
        op = OP_TRIGGER_INCOME
    return Step(op, _RES.get(e.resource, -1), _SEL[e.who], a.plus, cnt_of, cnt_whose,
                cnt_colour, a.times, a.divide, -1 if a.max is None else a.max, cond_of,
                cond_whose, cond_colour, CMPS.index(cond.cmp) if cond else -1,
                cond.value if cond else 0, int(e.up_to), _SEL[e.whose],
                -1 if colour is None else CARD_COLOURS.index(colour),
                ZONE_TABLEAU if e.op == "move" and e.to == "tableau" else ZONE_CESSPIT)


class Compiled:
    """The compiled cards of ``data`` (tables indexed by card type id ``t``).

    Attributes:
        steps: every :class:`Step`; a card's steps of one trigger are contiguous.
        use_range, reveal_range, income_range: ``(start, end)`` into ``steps`` per type.
        prog_of: per type, its program index in ``programs`` (-1: not an active card).
        plain: per type, 1 if its program is ``PLAIN`` (used with ``USE + t``).
        programs: the use programs with action blocks, in layout order (bases unset until
            :meth:`place`).
        limit_add, limit_at_least, limit_at_most: passive ``modify cheese_per_turn`` (per copy
            add; bounds, -1 none).
        pipes_add, pipes_cmp, pipes_value: passive ``modify pipes_sold`` (per copy; its
            condition on the pipes put into the sale, cmp -1 none).
        redirect: per type, a bit set of cheese colours it redirects (careers, RR-7).
        max_choice: the largest cheese amount chosen with an action.
        limit_bound: the largest Step 3 cheese limit any rat can reach.
    """

    def __init__(self, data: RatsToRichesData):
        self.steps: list[Step] = []
        T = len(data.card_types)
        self.use_range = [(0, 0)] * T
        self.reveal_range = [(0, 0)] * T
        self.income_range = [(0, 0)] * T
        self.prog_of = [-1] * T
        self.plain = [0] * T
        self.limit_add = [0] * T
        self.limit_at_least = [-1] * T
        self.limit_at_most = [-1] * T
        self.pipes_add = [0] * T
        self.pipes_cmp = [-1] * T
        self.pipes_value = [0] * T
        self.redirect = [0] * T
        by_key: dict[str, int] = {}
        progs: list[Program] = []
        plain_progs: list[int] = []
        for ct in data.card_types:
            t = ct.id
            for trig, table in (("use", self.use_range), ("reveal", self.reveal_range),
                                ("income", self.income_range)):
                start = len(self.steps)
                self.steps += [compile_effect(e) for e in ct.on(trig)]
                table[t] = (start, len(self.steps))
            for e in ct.on("passive"):
                if e.op == "redirect":
                    self.redirect[t] |= 1 << COLOURS.index(e.resource)
                elif e.quantity == "cheese_per_turn":
                    self.limit_add[t] += e.add
                    if e.at_least is not None:
                        self.limit_at_least[t] = max(self.limit_at_least[t], e.at_least)
                    if e.at_most is not None:
                        self.limit_at_most[t] = e.at_most
                else:  # pipes_sold
                    self.pipes_add[t] += e.add
                    if e.condition is not None:
                        self.pipes_cmp[t] = CMPS.index(e.condition.cmp)
                        self.pipes_value[t] = e.condition.value
            use = ct.on("use")
            if not use:
                continue
            key = canonical(use)
            if key not in by_key:
                by_key[key] = len(progs)
                progs.append(self._program(use, ct.name))
            j = by_key[key]
            progs[j].types.append(t)
            self.prog_of[t] = j
            if progs[j].shape == SHAPE_PLAIN:
                self.plain[t] = 1
                plain_progs.append(j)
        order = sorted((j for j, p in enumerate(progs) if p.shape != SHAPE_PLAIN),
                       key=lambda j: (BLOCK_SHAPES.index(progs[j].shape), j))
        remap = {j: i for i, j in enumerate(order)}
        self.programs = [progs[j] for j in order]
        self.prog_of = [remap.get(j, -1) for j in self.prog_of]
        self.max_choice = max([p.amount for p in self.programs] + [0])
        self.limit_bound = max([data.cheese_per_turn + sum(
            max(a, 0) * ct.total for a, ct in zip(self.limit_add, data.card_types, strict=True))]
            + self.limit_at_least)

    @staticmethod
    def _program(use: tuple[Effect, ...], name: str) -> Program:
        any_target = any(e.targets and "any" in (e.who, e.source, e.whose, e.chooser)
                         for e in use)
        prog = Program(SHAPE_TARGET if any(e.targets for e in use) else SHAPE_PLAIN, [], name,
                       any_target)
        for e in use:
            step = compile_effect(e)
            if step.op == OP_STEAL_CHOSEN:
                prog.shape, prog.amount = SHAPE_TARGET_CHEESE, e.amount.plus
            elif step.op == OP_GAIN_CHOSEN:
                prog.shape, prog.amount = SHAPE_CHEESE, e.amount.plus
            elif step.op == OP_MOVE_CHOSEN:
                prog.shape, prog.colour = SHAPE_TARGET_CARD, step.colour
        return prog

    def place(self, base: int, n: int, T: int, combos_upto: dict[int, int], nc: int) -> int:
        """Give each program its block from id ``base`` for ``n`` seats; returns the end.

        ``combos_upto[k]`` is the number of cheese multisets of size up to ``k``; ``nc`` all
        multisets."""
        for p in self.programs:
            p.base = base
            if p.shape == SHAPE_TARGET:
                p.width, p.size = 1, n
            elif p.shape == SHAPE_TARGET_CHEESE:
                p.width = combos_upto[p.amount]
                p.size = n * p.width
            elif p.shape == SHAPE_CHEESE:
                p.width, p.size = nc, nc
            else:
                p.width = T + 1 if p.colour < 0 else T
                p.size = n * p.width
            base += p.size
        return base
