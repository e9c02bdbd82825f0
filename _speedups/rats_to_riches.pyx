# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Rats to Riches, Cython twin of the reference engine ``engines/rats_to_riches`` (same
contract, same behaviour, same action ids).

The state is one C struct (:c:type:`RRState` in ``rats_to_riches.pxd``), so ``clone()`` is an
allocation plus a ``memcpy``. The rules are a line-by-line transcription of the reference's
``rules.py``: the same phases, the same ``pending`` sub-decisions (sale, card picks, cheese
returns; a single legal option applied at once), the same lazily drawn Rat Pack segments (with
the RR-6 Cesspit reshuffle once per refill), the same events (RR-4), Big Cheese (RR-5), win
check (RR-1), careers (RR-7) and Flush (RR-2). Rulings are cited in the reference where coded.

Card effects are data: the game's ``compiled`` tables (``engines/rats_to_riches/program.py``:
effect steps, use programs with their action blocks, passive modifiers) are copied into the
constant struct at load and interpreted by ``run_steps`` in C, exactly as the reference's
``_run`` interprets them; no card has its own code path and no Python is called per action.

Hot path (pure C, no Python objects): ``c_current_player``, ``c_legal_actions``,
``c_chance_outcomes``, ``c_apply``, ``c_returns``, ``c_clone``, ``c_info_hash`` and (the game
has perfect information, so a determinization is the state itself) ``c_resample``. Rarely
called methods (observation, labels, describe_action, render, serialization,
state_from_observation, heuristic) convert the C state to the equivalent reference
``RatsToRichesState`` and run the reference code, so their results are identical by
construction; ``tests/speedups`` checks the conversion and the play step by step.

Limits of the twin (checked when the game is created; ``backend="python"`` has none): at most
47 card types, 8 Open Sewer slots, 255 copies of a card, 300 cheese multisets, 2048 action
ids, 256 compiled effects and 32 active-card programs with a choice.
"""

from libc.string cimport memcpy, memset, memmove

import numpy as np

from ratai.engines import api as _api
from ratai.engines.rats_to_riches import data as _D
from ratai.engines.rats_to_riches import program as _P
from ratai.engines.rats_to_riches import rules as _R
from ratai.engines.rats_to_riches import view as _V

from .core cimport (cy_compare, cy_fresh_history, cy_mix, cy_obs_hot, cy_obs_len, cy_obs_num,
                    cy_obs_num_at, cy_share_history, CyState)
from .core import CyGame, ObsLayout, check_bounds

# ------------------------------------------------------------------------------ constants
cdef enum:
    PH_SETUP = 0
    PH_REVEAL = 1
    PH_STEP2 = 2
    PH_STEP3 = 3
    PH_OVER = 4
    F_SELL = 0
    F_PICK = 1
    F_FLOOD = 2
    # compiled steps (program.py codes)
    OP_GAIN = 0
    OP_PAY = 1
    OP_STEAL = 2
    OP_GAIN_CHOSEN = 3
    OP_STEAL_CHOSEN = 4
    OP_MOVE_CHOSEN = 5
    OP_MOVE_PICK = 6
    OP_PAY_PICK = 7
    OP_TRIGGER_INCOME = 8
    RES_CASH = 3
    SEL_SELF = 0
    SEL_TARGET = 1
    SEL_ALL = 2
    SEL_OTHERS = 3
    CNT_CASH = 3
    CNT_CHEESE = 4
    CNT_CARDS = 5
    CNT_PIPES = 6
    ZONE_CESSPIT = 0
    SHAPE_TARGET = 1
    SHAPE_TARGET_CHEESE = 2
    SHAPE_CHEESE = 3
    SHAPE_TARGET_CARD = 4
    CC_BLUE = 1
    _CHANCE = -1      # ratai.engines.api.CHANCE
    _TERMINAL = -4    # ratai.engines.api.TERMINAL
    D_CESSPIT = 2     # deck id of a reshuffled Cesspit (after the two deck names)

PHASES = ("setup", "reveal", "step2", "step3", "over")
FRAME_KINDS = ("sell", "pick", "flood")
_PHASE_ID = {name: i for i, name in enumerate(PHASES)}
_FRAME_ID = {name: i for i, name in enumerate(FRAME_KINDS)}


def _check_constants() -> None:
    """The compiled ids must be the reference's (a stale build fails loudly at import)."""
    P = _P
    if _api.CHANCE != _CHANCE or _api.TERMINAL != _TERMINAL:
        raise ImportError("ratai._speedups.rats_to_riches: CHANCE/TERMINAL ids changed; rebuild")
    if (tuple(_R._PHASES) != PHASES or tuple(_R._FRAME_KINDS) != FRAME_KINDS
            or (P.OP_GAIN, P.OP_PAY, P.OP_STEAL, P.OP_GAIN_CHOSEN, P.OP_STEAL_CHOSEN,
                P.OP_MOVE_CHOSEN, P.OP_MOVE_PICK, P.OP_PAY_PICK, P.OP_TRIGGER_INCOME)
            != tuple(range(9))
            or (P.RES_CASH, P.SEL_SELF, P.SEL_TARGET, P.SEL_ALL, P.SEL_OTHERS)
            != (RES_CASH, SEL_SELF, SEL_TARGET, SEL_ALL, SEL_OTHERS)
            or (P.CNT_CASH, P.CNT_CHEESE, P.CNT_CARDS, P.CNT_PIPES, P.ZONE_CESSPIT)
            != (CNT_CASH, CNT_CHEESE, CNT_CARDS, CNT_PIPES, ZONE_CESSPIT)
            or (P.SHAPE_TARGET, P.SHAPE_TARGET_CHEESE, P.SHAPE_CHEESE, P.SHAPE_TARGET_CARD)
            != (SHAPE_TARGET, SHAPE_TARGET_CHEESE, SHAPE_CHEESE, SHAPE_TARGET_CARD)
            or P.CMPS != (">", ">=", "==", "!=", "<=", "<", "most", "least")
            or tuple(_D.CARD_COLOURS[:2]) != ("green", "blue")
            or tuple(_D.COLOURS) != ("green", "blue", "red")):
        raise ImportError("ratai._speedups.rats_to_riches is out of date with "
                          "ratai.engines.rats_to_riches: rebuild it (pip install -e .)")
    check_bounds("Rats to Riches", RR_MAXP, max(RR_MAXACT, RR_MAXT))


_check_constants()


# ====================================================================== small C helpers
cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline int imax(int a, int b) noexcept nogil:
    return a if a > b else b


cdef inline int redirects(const RRState* s, const RRConst* k, int p) noexcept nogil:
    """Bit set of the cheese colours whose payments rat ``p`` receives (its careers)."""
    cdef int t, m = 0
    for t in range(k.T):
        if s.tableau[p][t]:
            m |= k.redirect[t]
    return m


cdef inline int pickable(const RRState* s, const RRConst* k, int p, int colour,
                         int* out) noexcept nogil:
    """Rat ``p``'s cards per card id matching ``colour`` (-1: any, Flush at id T); length."""
    cdef int t
    for t in range(k.T):
        out[t] = s.tableau[p][t] if (colour < 0 or k.card_colour[t] == colour) else 0
    if colour < 0:
        out[k.T] = s.flush[p]
        return k.T + 1
    return k.T


cdef int count_of(const RRState* s, const RRConst* k, int of, int colour, int p) noexcept nogil:
    """A count (program.CNT_*) for rat ``p`` (the reference's ``_count``)."""
    cdef int t, total = 0, m
    cdef int owned[RR_MAXT + 1]
    if of < 3:
        return s.cheese[p][of]
    if of == CNT_CASH:
        return s.cash[p]
    if of == CNT_CHEESE:
        return s.cheese[p][0] + s.cheese[p][1] + s.cheese[p][2]
    if of == CNT_CARDS:
        m = pickable(s, k, p, colour, owned)
        for t in range(m):
            total += owned[t]
        return total
    if of == CNT_PIPES:
        for t in range(k.T):
            total += s.tableau[p][t] * k.pipes[t]
        return total
    return 0


cdef int amount_of(const RRState* s, const RRConst* k, const RRStep* st, int subject,
                   int user, int target) noexcept nogil:
    cdef int v, whose
    if st.cnt_of < 0:
        v = st.plus
    else:
        whose = subject if st.cnt_whose == 0 else (user if st.cnt_whose == 1 else target)
        v = count_of(s, k, st.cnt_of, st.cnt_colour, whose) * st.times // st.divide + st.plus
    return v if st.max < 0 else imin(v, st.max)


cdef bint holds(const RRState* s, const RRConst* k, const RRStep* st, int subject, int user,
                int target) noexcept nogil:
    cdef int pick, mine, q, c, best
    if st.cmp < 0:
        return True
    pick = subject if st.cond_whose == 0 else (user if st.cond_whose == 1 else target)
    mine = count_of(s, k, st.cond_of, st.cond_colour, pick)
    if st.cmp >= 6:  # most / least over all rats
        best = mine
        for q in range(k.n):
            c = count_of(s, k, st.cond_of, st.cond_colour, q)
            if (st.cmp == 6 and c > best) or (st.cmp == 7 and c < best):
                best = c
        return mine == best
    return cy_compare(st.cmp, mine, st.value)


cdef int rat_income(const RRState* s, const RRConst* k, int p) noexcept nogil:
    """Step 1: Flush card $2 + the cards' ``income`` gains (per copy) + Golden Rat $2."""
    cdef int t, i, per, total = k.flush_income * s.flush[p]
    for t in range(k.T):
        if s.tableau[p][t] and k.inc_a[t] < k.inc_b[t]:
            per = 0
            for i in range(k.inc_a[t], k.inc_b[t]):
                per += amount_of(s, k, &k.steps[i], p, p, -1)
            total += s.tableau[p][t] * per
    if s.golden == p:
        total += k.big_cheese_income
    return total


cdef inline int cheese_limit(const RRState* s, const RRConst* k, int p) noexcept nogil:
    cdef int t, limit = k.cheese_per_turn
    for t in range(k.T):
        limit += s.tableau[p][t] * k.limit_add[t]
    for t in range(k.T):
        if s.tableau[p][t] and k.limit_at_least[t] >= 0:
            limit = imax(limit, k.limit_at_least[t])
    for t in range(k.T):
        if s.tableau[p][t] and k.limit_at_most[t] >= 0:
            limit = imin(limit, k.limit_at_most[t])
    return imax(limit, 0)


cdef inline int career_holder(const RRState* s, const RRConst* k, int colour,
                              int buyer) noexcept nogil:
    """RR-7: the first holder of the colour's career clockwise from the buyer, or -1."""
    cdef int i, q
    for i in range(1, k.n):
        q = (buyer + i) % k.n
        if redirects(s, k, q) & (1 << colour):
            return q
    return -1


cdef inline bint can_afford(const RRState* s, const RRConst* k, int p, int t) noexcept nogil:
    return (s.cash[p] >= k.cost_cash[t] and s.cheese[p][0] >= k.cost_cheese[t][0]
            and s.cheese[p][1] >= k.cost_cheese[t][1] and s.cheese[p][2] >= k.cost_cheese[t][2])


cdef inline int owned_prog(const RRState* s, const RRConst* k, int p, int j) noexcept nogil:
    """The lowest type id of program ``j`` rat ``p`` owns, or -1."""
    cdef int i, t
    for i in range(k.progs[j].ntypes):
        t = k.progs[j].types[i]
        if s.tableau[p][t]:
            return t
    return -1


cdef bint usable(const RRState* s, const RRConst* k, int p, int t) noexcept nogil:
    """The reference's ``_usable``: every pay / own-card move without ``up_to`` can be made
    in full (the card itself already dumped)."""
    cdef int i, j, m, have, x, key, nkeys = 0
    cdef int keys[RR_MAXSTEP]
    cdef int need[RR_MAXSTEP]
    cdef int owned[RR_MAXT + 1]
    cdef const RRStep* st
    for i in range(k.use_a[t], k.use_b[t]):
        st = &k.steps[i]
        if st.up_to or (st.op != OP_PAY and st.op != OP_MOVE_PICK) or st.who != SEL_SELF:
            continue
        if st.op == OP_MOVE_PICK and st.whose != SEL_SELF:
            continue
        # key: pays 0..3 (resource), moves 16 + colour (+1)
        key = st.res if st.op == OP_PAY else 17 + st.colour
        j = 0
        while j < nkeys and keys[j] != key:
            j += 1
        if j == nkeys:
            keys[j] = key
            need[j] = 0
            nkeys += 1
        need[j] += amount_of(s, k, st, p, p, -1)
    for j in range(nkeys):
        key = keys[j]
        if key < 16:
            have = s.cash[p] if key == RES_CASH else s.cheese[p][key]
        else:
            m = pickable(s, k, p, key - 17, owned)
            have = 0
            for x in range(m):
                have += owned[x]
            if owned[t] > 0:
                have -= 1
        if have < need[j]:
            return False
    return True


cdef inline bint check_win(RRState* s, const RRConst* k) noexcept nogil:
    """RR-1: a rat with $100 wins at once; several: most Swindle, then turn order."""
    cdef int q, i, best = 0
    cdef bint rich = False
    for q in range(k.n):
        if s.cash[q] >= k.win_cash:
            if not rich or s.cash[q] > best:
                best = s.cash[q]
            rich = True
    if not rich:
        return False
    for i in range(k.n):
        q = (s.active + i) % k.n
        if s.cash[q] == best:
            s.winners[0] = q
            s.nwinners = 1
            break
    end_game(s)
    return True


cdef inline void end_game(RRState* s) noexcept nogil:
    s.phase = PH_OVER
    s.npend = 0
    s.nrefill = 0


cdef inline void discard(RRState* s, const RRConst* k, int p, int t) noexcept nogil:
    """Card ``t`` of rat ``p`` to the Cesspit (``t == T``: a Flush card)."""
    if t == k.T:
        s.flush[p] -= 1
    else:
        s.tableau[p][t] -= 1
    s.cesspit[t] += 1


cdef inline void pop_frame(RRState* s) noexcept nogil:
    s.npend -= 1
    if s.npend:
        memmove(&s.pending[0], &s.pending[1], sizeof(RRFrame) * s.npend)


cdef inline RRFrame* push_frame(RRState* s, int kind, int player, int amount,
                                int last) noexcept nogil:
    cdef RRFrame* f
    if s.npend >= RR_MAXPEND:  # cannot happen: at most one frame per seat; memory safety
        return NULL
    f = &s.pending[s.npend]
    s.npend += 1
    memset(f, 0, sizeof(RRFrame))
    f.kind = kind
    f.player = player
    f.amount = amount
    f.last = last
    f.colour = -1
    f.card = -1
    return f


cdef inline void pop_refill(RRState* s) noexcept nogil:
    s.nrefill -= 1
    if s.nrefill:
        memmove(&s.refill[0], &s.refill[1], s.nrefill)


cdef inline void pop_segment(RRState* s) noexcept nogil:
    cdef int i
    s.nseg -= 1
    for i in range(s.nseg):
        s.deck[i] = s.deck[i + 1]
        s.seg_total[i] = s.seg_total[i + 1]
        memcpy(s.pack[i], s.pack[i + 1], RR_MAXT)


cdef int ordered_picks(const int* owned, int m, int last, int left, int* out) noexcept nogil:
    """The reference's ``_ordered_picks``: indices ``i >= last`` with ``owned[i] > 0`` from
    which ``left`` picks in non-decreasing order can still be completed (ascending)."""
    cdef int i, n = 0, suffix = 0, lo = last if last > 0 else 0, tmp
    i = m - 1
    while i >= lo:
        suffix += owned[i]
        if owned[i] and suffix >= left:
            out[n] = i
            n += 1
        i -= 1
    for i in range(n // 2):
        tmp = out[i]
        out[i] = out[n - 1 - i]
        out[n - 1 - i] = tmp
    return n


# ====================================================================== legal actions
cdef int frame_legal(const RRState* s, const RRConst* k, const RRFrame* f,
                     int* out) noexcept nogil:
    cdef int n = 0, j, t, p = f.player, c, m, cnt
    cdef int owned[RR_MAXT + 1]
    cdef int idx[RR_MAXT + 1]
    if f.kind == F_SELL:
        for j in range(k.ncol[CC_BLUE]):
            t = k.col_ids[CC_BLUE][j]
            if t >= f.last and s.tableau[p][t]:
                out[n] = k.SELL + t
                n += 1
        out[n] = k.SELL_NOW
        return n + 1
    if f.kind == F_FLOOD:
        for c in range(3):
            owned[c] = s.cheese[p][c]
        cnt = ordered_picks(owned, 3, f.last, f.amount, idx)
        for j in range(cnt):
            out[j] = k.COLOUR + idx[j]
        return cnt
    m = pickable(s, k, p, f.colour, owned)
    cnt = ordered_picks(owned, m, f.last, f.amount, idx)
    for j in range(cnt):
        out[j] = k.PICK + idx[j]
    return cnt


cdef int step2_legal(const RRState* s, const RRConst* k, int* out) noexcept nogil:
    """Step 2 decisions of the active rat, ascending (the reference sorts; the blocks are
    emitted in id order here)."""
    cdef int p = s.active, n = 0, i, q, t, j, u, take, tot, m, T = k.T
    cdef int owned[RR_MAXT + 1]
    cdef const RRProg* g
    # RR-10: a safety valve, not a rule; its default never binds in ordinary play.
    if s.turn_actions >= k.max_turn_actions:
        out[0] = k.END_STEP2
        return 1
    for i in range(k.S):
        t = s.sewer[i]
        if t >= 0 and can_afford(s, k, p, t):
            out[n] = k.BUY + i
            n += 1
    if s.flush[p]:
        for i in range(k.S):
            if s.sewer[i] >= 0:
                out[n] = k.FLUSH + i
                n += 1
    out[n] = k.END_STEP2
    n += 1
    for t in range(T):
        if s.tableau[p][t] and k.plain[t] and usable(s, k, p, t):
            out[n] = k.USE + t
            n += 1
    for j in range(k.nprog):
        g = &k.progs[j]
        u = owned_prog(s, k, p, j)
        if u < 0 or not usable(s, k, p, u):
            continue
        for q in range(k.n):
            if q == p and not g.any_target and g.shape != SHAPE_CHEESE:
                continue
            if g.shape == SHAPE_TARGET:
                out[n] = g.base + q
                n += 1
            elif g.shape == SHAPE_TARGET_CHEESE:
                tot = s.cheese[q][0] + s.cheese[q][1] + s.cheese[q][2]
                take = imin(g.amount, tot)
                for i in range(g.width):
                    if (k.combo_sum[i] == take and k.combo[i][0] <= s.cheese[q][0]
                            and k.combo[i][1] <= s.cheese[q][1]
                            and k.combo[i][2] <= s.cheese[q][2]):
                        out[n] = g.base + q * g.width + i
                        n += 1
            elif g.shape == SHAPE_CHEESE:
                for i in range(k.NC):
                    if k.combo_sum[i] == g.amount:
                        out[n] = g.base + i
                        n += 1
                break  # no rat is chosen
            else:  # TARGET_CARD: "from any rat" may include the user's own cards
                m = pickable(s, k, q, g.colour, owned)
                for t in range(g.width):
                    if owned[t] - (1 if (q == p and t == u) else 0) > 0:
                        out[n] = g.base + q * g.width + t
                        n += 1
    for t in range(T):
        if s.tableau[p][t] and k.pipes[t]:
            out[n] = k.SELL + t
            n += 1
    return n


cdef int legal_actions(const RRState* s, const RRConst* k, int* out) noexcept nogil:
    cdef int n = 0, i, p, limit, c, cost, free
    if s.phase == PH_OVER:
        return 0
    if s.npend:
        return frame_legal(s, k, &s.pending[0], out)
    if s.nrefill:
        return 0  # a chance node
    if s.phase == PH_STEP2:
        return step2_legal(s, k, out)
    if s.phase == PH_SETUP:
        for i in range(k.NC):
            if k.combo_sum[i] == k.start_cheese:
                out[n] = k.COMBO + i
                n += 1
        return n
    if s.phase != PH_STEP3:
        return 0
    p = s.active
    limit = cheese_limit(s, k, p)
    free = redirects(s, k, p)
    for i in range(k.NC):
        if k.combo_sum[i] > limit:
            continue
        cost = 0
        for c in range(3):
            if not free & (1 << c):
                cost += k.combo[i][c] * k.cheese_price
        if cost <= s.cash[p]:
            out[n] = k.COMBO + i
            n += 1
    return n


cdef int chance_outcomes(const RRState* s, const RRConst* k, int* act,
                         double* prob) noexcept nogil:
    """The next card of the top Rat Pack segment, by its counts (draw-on-reveal), among
    those with the announced back; or, while it is unknown, the top card's back (RR-9)."""
    cdef int n = 0, t, c, b
    cdef int per[3]
    cdef double total = 0.0
    if s.phase == PH_OVER or not s.nseg:
        return 0
    if s.top_back < 0:  # RR-9: which back shows, by its share of the top segment
        per[0] = per[1] = per[2] = 0
        for t in range(k.T + 1):
            per[k.back[t]] += s.pack[0][t]
        for b in range(3):
            if per[b]:
                act[n] = k.BACK + b
                prob[n] = <double>per[b] / <double>s.seg_total[0]
                n += 1
        return n
    if s.npend or not s.nrefill:
        return 0
    for t in range(k.T + 1):
        if k.back[t] == s.top_back:
            total += s.pack[0][t]
    for t in range(k.T + 1):
        c = s.pack[0][t]
        if c and k.back[t] == s.top_back:  # RR-9: the next card has the announced back
            act[n] = k.REVEAL + t
            prob[n] = <double>c / total
            n += 1
    return n


cdef inline int current_player(const RRState* s) noexcept nogil:
    if s.phase == PH_OVER:
        return _TERMINAL
    if s.nseg and s.top_back < 0:
        return _CHANCE  # RR-9: the new top card's back shows at once
    if s.npend:
        return s.pending[0].player
    if s.nrefill:
        return _CHANCE
    return s.active


# ====================================================================== applying actions
cdef bint run_steps(RRState* s, const RRConst* k, int start, int end, int user, int target,
                    int choice, int card) noexcept nogil:
    """The reference's ``_run``: apply compiled steps ``start..end-1``; a step that opens
    frames stops the run and its last frame carries the rest. Returns whether it finished."""
    cdef int i = start, j, q, c, r, left, take, x, m, nsub, opened, amount, a
    cdef int subj[RR_MAXP]
    cdef int amt[RR_MAXP]
    cdef int owned[RR_MAXT + 1]
    cdef const RRStep* st
    cdef RRFrame* f
    while i < end:
        st = &k.steps[i]
        i += 1
        nsub = 0
        for j in range(k.n):
            if st.who == SEL_SELF:
                q = user
            elif st.who == SEL_TARGET:
                q = target
            else:
                q = (s.active + j) % k.n
                if st.who == SEL_OTHERS and q == user:
                    continue
            if holds(s, k, st, q, user, target):
                subj[nsub] = q
                amt[nsub] = amount_of(s, k, st, q, user, target)
                nsub += 1
            if st.who == SEL_SELF or st.who == SEL_TARGET:
                break
        opened = s.npend
        for j in range(nsub):
            q = subj[j]
            amount = amt[j]
            if st.op == OP_GAIN:
                if st.res == RES_CASH:
                    s.cash[q] += amount
                else:
                    s.cheese[q][st.res] += amount
            elif st.op == OP_PAY:
                if st.res == RES_CASH:
                    s.cash[q] -= imin(amount, s.cash[q])
                else:
                    s.cheese[q][st.res] -= imin(amount, s.cheese[q][st.res])
            elif st.op == OP_STEAL:
                if st.res == RES_CASH:
                    take = imin(amount, s.cash[target])
                    s.cash[target] -= take
                    s.cash[q] += take
                else:
                    take = imin(amount, s.cheese[target][st.res])
                    s.cheese[target][st.res] -= take
                    s.cheese[q][st.res] += take
            elif st.op == OP_GAIN_CHOSEN or st.op == OP_STEAL_CHOSEN:
                for c in range(3):
                    a = k.combo[choice][c]
                    if st.op == OP_STEAL_CHOSEN:
                        s.cheese[target][c] -= a
                    s.cheese[q][c] += a
            elif st.op == OP_MOVE_CHOSEN:
                # Sabotage: any rat's card to the Cesspit (RR-7: a career goes with it)
                if st.to == ZONE_CESSPIT:
                    discard(s, k, target, choice)
                elif choice == k.T:
                    s.flush[target] -= 1
                    s.flush[user] += 1
                else:
                    s.tableau[target][choice] -= 1
                    s.tableau[user][choice] += 1
            elif st.op == OP_MOVE_PICK:
                r = user if st.whose == SEL_SELF else target
                left = amount
                if st.up_to:
                    m = pickable(s, k, r, st.colour, owned)
                    x = 0
                    for c in range(m):
                        x += owned[c]
                    left = imin(left, x)
                if left:
                    f = push_frame(s, F_PICK, r, left, -1)
                    if f != NULL:
                        f.colour = st.colour
                        f.cost = 0 if st.up_to else 1
                        f.card = card
            elif st.op == OP_PAY_PICK:
                left = imin(amount, s.cheese[q][0] + s.cheese[q][1] + s.cheese[q][2])
                if left:
                    push_frame(s, F_FLOOD, q, left, 0)
            else:  # OP_TRIGGER_INCOME: "collect your income again now"
                s.cash[q] += rat_income(s, k, q)
        if s.npend > opened:
            f = &s.pending[s.npend - 1]
            f.has_then = 1
            f.then_step = i
            f.then_end = end
            f.then_user = user
            f.then_target = target
            f.then_choice = choice
            f.then_card = card
            return False
    return True


cdef int sale_pipes(const RRState* s, const RRConst* k, int p, int pipes) noexcept nogil:
    """The reference's ``_sale_pipes`` (Pipe Dream: +1 if at least 1)."""
    cdef int t, total = pipes
    for t in range(k.T):
        if s.tableau[p][t] and k.pipes_add[t] and (
                k.pipes_cmp[t] < 0 or cy_compare(k.pipes_cmp[t], pipes, k.pipes_value[t])):
            total += s.tableau[p][t] * k.pipes_add[t]
    return total


cdef void frame_apply(RRState* s, const RRConst* k, int action) noexcept nogil:
    """The reference's ``_frame_apply`` on ``pending[0]``."""
    cdef RRFrame* f = &s.pending[0]
    cdef RRFrame done
    cdef int p = f.player, t, pipes
    if f.kind == F_SELL:
        if action < k.SELL_NOW:  # SELL+t: one more pipe into the sale
            t = action - k.SELL
            discard(s, k, p, t)  # sold pipes go to the Cesspit
            f.amount += k.pipes[t]
            f.last = t
            return
        pipes = sale_pipes(s, k, p, f.amount)
        pop_frame(s)
        s.cash[p] += pipes * pipes  # rulebook "Blue Cards are Pipes": $n²
        check_win(s, k)
        return
    if f.kind == F_FLOOD:
        t = action - k.COLOUR
        s.cheese[p][t] -= 1
    else:
        t = action - k.PICK
        discard(s, k, p, t)
    f.amount -= 1
    f.last = t
    if f.amount:
        return
    done = f[0]
    pop_frame(s)
    if done.has_then and run_steps(s, k, done.then_step, done.then_end, done.then_user,
                                   done.then_target, done.then_choice, done.then_card):
        check_win(s, k)


cdef void reveal(RRState* s, const RRConst* k, int t) noexcept nogil:
    """A Rat Pack card turns face up in the first slot waiting (RR-4 for events)."""
    s.pack[0][t] -= 1
    s.seg_total[0] -= 1
    if not s.seg_total[0]:
        pop_segment(s)
    s.top_back = -1  # RR-9: the next card's back shows (settle)
    if t < k.T and k.is_event[t]:
        s.cesspit[t] += 1  # affects all rats, then to the Cesspit; slot waits again
        if run_steps(s, k, k.rev_a[t], k.rev_b[t], s.active, -1, -1, t):
            check_win(s, k)
        return
    s.sewer[s.refill[0]] = t
    pop_refill(s)
    s.reshuffled = 0


cdef void start_turn(RRState* s, const RRConst* k) noexcept nogil:
    """Step 1: collect income."""
    s.phase = PH_STEP2
    s.turn_actions = 0
    s.cash[s.active] += rat_income(s, k, s.active)
    check_win(s, k)


cdef void crown_big_cheese(RRState* s, const RRConst* k) noexcept nogil:
    """RR-5: strictly most Swindle takes the Golden Rat; a tied holder keeps it."""
    cdef int q, best = s.cash[0], ntied = 0, first = -1
    cdef bint holder_tied = False
    for q in range(1, k.n):
        if s.cash[q] > best:
            best = s.cash[q]
    for q in range(k.n):
        if s.cash[q] == best:
            if first < 0:
                first = q
            ntied += 1
            if q == s.golden:
                holder_tied = True
    if ntied == 1:
        s.golden = first
    elif not holder_tied:
        s.golden = -1


cdef void end_turn(RRState* s, const RRConst* k) noexcept nogil:
    cdef int q, best
    if s.active == k.n - 1:  # round end
        crown_big_cheese(s, k)
        s.round += 1
        if s.round >= k.max_rounds:  # RR-6 safety valve: most Swindle wins
            best = s.cash[0]
            for q in range(1, k.n):
                if s.cash[q] > best:
                    best = s.cash[q]
            s.nwinners = 0
            for q in range(k.n):
                if s.cash[q] == best:
                    s.winners[s.nwinners] = q
                    s.nwinners += 1
            end_game(s)
            return
    s.active = (s.active + 1) % k.n
    start_turn(s, k)


cdef void fix_back(RRState* s, const RRConst* k) noexcept nogil:
    """RR-9: the top card's back is known without a draw when the top segment holds one back
    only (a deck); else it stays -1 for the ``BACK`` chance node."""
    cdef int t, b = -1
    if not s.nseg or s.top_back >= 0:
        return
    for t in range(k.T + 1):
        if s.pack[0][t]:
            if b < 0:
                b = k.back[t]
            elif b != k.back[t]:
                return
    s.top_back = b


cdef void settle(RRState* s, const RRConst* k) noexcept nogil:
    """Run automatic steps (forced choices, reshuffles, turn starts) until a node."""
    cdef int buf[RR_MAXT + 2]
    cdef int t, total
    while s.phase != PH_OVER:
        if s.nseg and s.top_back < 0:
            fix_back(s, k)
            if s.top_back < 0:
                return  # chance node: the back shows (RR-9)
        if s.npend:
            if frame_legal(s, k, &s.pending[0], buf) != 1:
                return
            frame_apply(s, k, buf[0])
            continue
        if s.nrefill:
            if s.nseg:
                return  # chance node: reveal
            total = 0
            for t in range(k.T + 1):
                total += s.cesspit[t]
            if not s.reshuffled and total:
                # RR-6: shuffle the Cesspit into a new Rat Pack (once per refill).
                s.nseg = 1
                s.deck[0] = D_CESSPIT
                s.seg_total[0] = total
                memcpy(s.pack[0], s.cesspit, RR_MAXT)
                memset(s.cesspit, 0, RR_MAXT)
                s.reshuffled = 1
                s.top_back = -1  # RR-9: the backs show through the new pack
            else:  # RR-6: both empty, the slot stays empty
                pop_refill(s)
                s.reshuffled = 0
            continue
        if s.phase == PH_REVEAL:
            start_turn(s, k)
            continue
        return


cdef inline int use_card(RRState* s, const RRConst* k, int t) noexcept nogil:
    """Rulebook "Use Cards": the used card goes to the Cesspit; counts a Step 2 action."""
    discard(s, k, s.active, t)
    s.turn_actions += 1
    return s.active


cdef void a_combo(RRState* s, const RRConst* k, int i) noexcept nogil:
    cdef int p = s.active, c, kc, free, holder, j
    if s.phase == PH_SETUP:  # "Each rat then takes 3 pieces of any Cheese"
        for c in range(3):
            s.cheese[p][c] = k.combo[i][c]
        s.active += 1
        if s.active == k.n:  # RR-4: setup events after cash and cheese
            s.phase = PH_REVEAL
            s.active = 0
            s.nrefill = k.S
            for j in range(k.S):
                s.refill[j] = j
        return
    # Step 3: buy cheese at $1, paid to the Slush Fund or the career holder (RR-7).
    free = redirects(s, k, p)
    for c in range(3):
        kc = k.combo[i][c]
        if not kc:
            continue
        s.cheese[p][c] += kc
        if free & (1 << c):
            continue
        s.cash[p] -= kc * k.cheese_price
        holder = career_holder(s, k, c, p)
        if holder >= 0:
            s.cash[holder] += kc * k.cheese_price
    if check_win(s, k):
        return
    end_turn(s, k)


cdef void a_buy(RRState* s, const RRConst* k, int slot) noexcept nogil:
    """Rulebook "Buying Cards": pay, keep it face up (RR-3), refill the slot at once."""
    cdef int p = s.active, t = s.sewer[slot], c
    s.cash[p] -= k.cost_cash[t]
    for c in range(3):
        s.cheese[p][c] -= k.cost_cheese[t][c]
    if t == k.T:
        s.flush[p] += 1
    else:
        s.tableau[p][t] += 1
    s.sewer[slot] = -1
    s.refill[s.nrefill] = slot
    s.nrefill += 1
    s.turn_actions += 1


cdef void a_flush(RRState* s, const RRConst* k, int slot) noexcept nogil:
    """RR-2: a Flush card leaves the game; take slot ``slot`` free, the rest to the Cesspit."""
    cdef int p = s.active, i, t
    s.flush[p] -= 1
    s.box += 1
    for i in range(k.S):
        t = s.sewer[i]
        if t < 0:
            continue
        if i == slot:
            if t == k.T:
                s.flush[p] += 1
            else:
                s.tableau[p][t] += 1
        else:
            s.cesspit[t] += 1
        s.sewer[i] = -1
    s.nrefill = k.S
    for i in range(k.S):
        s.refill[i] = i
    s.turn_actions += 1


cdef void a_use(RRState* s, const RRConst* k, int t) noexcept nogil:
    cdef int p = use_card(s, k, t)
    if run_steps(s, k, k.use_a[t], k.use_b[t], p, -1, -1, t):
        check_win(s, k)


cdef void a_prog(RRState* s, const RRConst* k, int j, int off) noexcept nogil:
    """A program block: the chosen rat (and cheese or card) from the offset."""
    cdef const RRProg* g = &k.progs[j]
    cdef int q = -1, choice = off, t, p
    if g.shape != SHAPE_CHEESE:
        q = off // g.width
        choice = off % g.width
    t = owned_prog(s, k, s.active, j)
    p = use_card(s, k, t)
    if run_steps(s, k, k.use_a[t], k.use_b[t], p, q, choice, t):
        check_win(s, k)


cdef void apply_action(RRState* s, const RRConst* k, int a) noexcept nogil:
    """The reference's ``_apply_action`` (decode, dispatch, settle)."""
    cdef int j
    if a >= k.BACK:
        s.top_back = a - k.BACK  # RR-9
    elif a >= k.REVEAL:
        reveal(s, k, a - k.REVEAL)
    elif s.npend:
        frame_apply(s, k, a)
    elif a < k.BUY:
        a_combo(s, k, a - k.COMBO)
    elif a < k.FLUSH:
        a_buy(s, k, a - k.BUY)
    elif a < k.END_STEP2:
        a_flush(s, k, a - k.FLUSH)
    elif a < k.USE:
        s.phase = PH_STEP3
    elif a < k.USE + k.T:
        a_use(s, k, a - k.USE)
    elif a < k.SELL:
        for j in range(k.nprog):
            if k.progs[j].base <= a < k.progs[j].base + k.progs[j].size:
                a_prog(s, k, j, a - k.progs[j].base)
                break
    elif a < k.SELL_NOW:
        # start a sale with one pipe card (rulebook "Blue Cards are Pipes")
        s.turn_actions += 1
        push_frame(s, F_SELL, s.active, 0, -1)
        frame_apply(s, k, a)
    settle(s, k)


cdef void init_state(RRState* s, const RRConst* k) noexcept nogil:
    cdef int q, i
    memset(s, 0, sizeof(RRState))
    s.phase = PH_SETUP
    s.golden = -1
    for q in range(k.n):
        s.cash[q] = k.start_cash
        s.flush[q] = 1  # "give one Flush Card face-up to each rat"
    for i in range(RR_MAXS):
        s.sewer[i] = -1
    # Scrappy Sewer on top of Supreme Sewer, each shuffled: drawn lazily.
    s.nseg = k.nseg0
    for i in range(k.nseg0):
        s.deck[i] = k.deck0[i]
        memcpy(s.pack[i], k.counts0[i], RR_MAXT)
        s.seg_total[i] = 0
        for q in range(k.T + 1):
            s.seg_total[i] += k.counts0[i][q]
    # "Put any spares in a discard pile on the board, called The Cesspit."
    s.cesspit[k.T] = k.flush_count - k.n
    s.top_back = -1
    fix_back(s, k)  # RR-9: the Scrappy Sewer back is on top


# ====================================================================== information digest
cdef unsigned long long info_digest(const RRState* s, const RRConst* k, int p) noexcept nogil:
    """A digest of ``observation(p)`` read from the struct. Every observation is the whole
    state (perfect information) plus ``player``, so this digests every live field."""
    cdef unsigned long long h = 0x5EED
    cdef int q, t, i, T1 = k.T + 1
    cdef const RRFrame* f
    h = cy_mix(h, p)
    h = cy_mix(h, s.phase)
    h = cy_mix(h, s.active)
    h = cy_mix(h, s.round)
    h = cy_mix(h, s.golden)
    h = cy_mix(h, s.box)
    h = cy_mix(h, s.reshuffled)
    h = cy_mix(h, s.top_back)  # RR-9
    h = cy_mix(h, s.turn_actions)
    for q in range(k.n):
        h = cy_mix(h, s.cash[q])
        h = cy_mix(h, s.cheese[q][0] | (s.cheese[q][1] << 16) | (<long long>s.cheese[q][2] << 32))
        h = cy_mix(h, s.flush[q])
        for t in range(k.T):
            if s.tableau[q][t]:
                h = cy_mix(h, (t << 16) | s.tableau[q][t])
        h = cy_mix(h, -2)
    for i in range(k.S):
        h = cy_mix(h, s.sewer[i])
    h = cy_mix(h, 1000 + s.nseg)
    for i in range(s.nseg):
        h = cy_mix(h, s.deck[i])
        for t in range(T1):
            if s.pack[i][t]:
                h = cy_mix(h, (t << 16) | s.pack[i][t])
    h = cy_mix(h, -3)
    for t in range(T1):
        if s.cesspit[t]:
            h = cy_mix(h, (t << 16) | s.cesspit[t])
    h = cy_mix(h, 2000 + s.nrefill)
    for i in range(s.nrefill):
        h = cy_mix(h, s.refill[i])
    h = cy_mix(h, 3000 + s.npend)
    for i in range(s.npend):
        f = &s.pending[i]
        h = cy_mix(h, f.kind)
        h = cy_mix(h, f.player)
        h = cy_mix(h, f.last)
        h = cy_mix(h, f.amount)
        if f.kind != F_SELL:
            h = cy_mix(h, f.colour | (f.cost << 8) | (<long long>f.card << 16))
            h = cy_mix(h, f.has_then)
            if f.has_then:
                h = cy_mix(h, f.then_step | (<long long>f.then_end << 20))
                h = cy_mix(h, f.then_user | (f.then_target << 8) | (<long long>f.then_card << 16))
                h = cy_mix(h, f.then_choice)
    h = cy_mix(h, 4000 + s.nwinners)
    for i in range(s.nwinners):
        h = cy_mix(h, s.winners[i])
    return h if h != 0 else 1


# ====================================================================== game constants
cdef class _Consts:
    """The game's constants as a C struct (owned by the game, shared by its states)."""
    cdef RRConst c
    cdef RRObs ob                  # the compiled tensor writer's tables (_obs_tables)
    cdef public object ob_error
    cdef public tuple decks

    cdef void build_obs(self, game) noexcept:
        """Build the tensor tables (_obs_tables) once; on failure ``ob.size`` is -1 and
        ``ob_error`` holds the error (the states then encode the observation dict)."""
        if self.ob.size != 0:
            return
        try:
            _obs_tables(&self.ob, &self.c, game, self.decks)
        except Exception as exc:   # noexcept: kept for the report, the twin falls back
            self.ob_error = exc
            self.ob.size = -1


# ====================================================================== observation tensor
def _limit(cond, what):
    if not cond:
        raise ValueError(f"rats_to_riches data: {what} exceed the Cython twin's tensor "
                         f"tables")


cdef void _counts_cells(RRCounts* c, layout, str path, keys, int ncards) except *:
    """The cells of the ``{card key: copies}`` mapping at ``path`` for card ids
    ``0..ncards-1`` (a key the layout lacks is left out, as the reference encoder does)."""
    cdef int t
    for t in range(RR_MAXT):
        c.flag[t] = -1
    for t in range(ncards):
        sub = f"{path}.{keys[t]}"
        if layout.has(sub, "flag"):
            c.flag[t] = layout.flag(sub)
            cy_obs_num_at(&c.num[t], layout, sub)


cdef int _shown(layout, str path, str kind, int cap) except -1:
    """How many items of the bounded list whose item ``i`` has ``path.format(i)`` of
    ``kind`` are in the tensor (at most ``cap``, the struct's room)."""
    cdef int i = 0
    while i < cap and layout.has(path.format(i), kind):
        i += 1
    return i


cdef void _obs_tables(RRObs* o, const RRConst* k, game, decks) except *:
    """Fill ``o`` from ``game``'s tensor layout (``ObsLayout``): every offset, scale and
    one-hot index the writer needs, looked up by the JSON path of the schema
    (``engines/rats_to_riches/schema.py``); a path the layout lacks raises ``ValueError``."""
    cdef int n = k.n, T = k.T, q, i, j, t
    memset(o, 0, sizeof(RRObs))
    lay = ObsLayout(game)
    keys = game.keys
    _limit(T + 1 <= RR_MAXT and len(keys) == T + 1, "the card keys")
    for q in range(n):
        o.player[q] = lay.hot("$.player", q)
        o.active[q] = lay.hot("$.active", q)
        o.golden[q] = lay.hot("$.golden_rat", q)
        cy_obs_num_at(&o.cash[q], lay, f"$.cash[{q}]")
        for i, colour in enumerate(_D.COLOURS):
            cy_obs_num_at(&o.cheese[q][i], lay, f"$.cheese[{q}].{colour}")
        cy_obs_num_at(&o.flush[q], lay, f"$.flush[{q}]")
        _counts_cells(&o.tableau[q], lay, f"$.tableau[{q}]", keys, T)
    for i, name in enumerate(PHASES):
        o.phase[i] = lay.hot("$.phase", name)
    cy_obs_num_at(&o.round, lay, "$.round")
    cy_obs_num_at(&o.box, lay, "$.flush_in_box")
    cy_obs_num_at(&o.turn_actions, lay, "$.turn_actions")
    cy_obs_num_at(&o.reshuffled, lay, "$.reshuffled")
    o.golden_flag = lay.flag("$.golden_rat")
    for i in range(k.S):
        o.sewer_flag[i] = lay.flag(f"$.open_sewer[{i}]")
        for t in range(T + 1):
            o.sewer[i][t] = lay.hot(f"$.open_sewer[{i}]", keys[t])
        cy_obs_num_at(&o.refill[i], lay, f"$.refill[{i}]")
    o.refill_len, o.refill_div = lay.length("$.refill")
    _limit(len(decks) <= RR_MAXSEG, "the decks")
    o.pack_shown = _shown(lay, "$.rat_pack[{}].deck", "enum", RR_MAXSEG)
    for i in range(o.pack_shown):
        for j, deck in enumerate(decks):
            o.pack_deck[i][j] = lay.hot(f"$.rat_pack[{i}].deck", deck)
        _counts_cells(&o.pack[i], lay, f"$.rat_pack[{i}].counts", keys, T + 1)
    o.pack_len, o.pack_div = lay.length("$.rat_pack")
    o.top_back_flag = lay.flag("$.top_back")
    _limit(len(_D.BACKS) <= 4, "the card backs")
    for i, back in enumerate(_D.BACKS):
        o.top_back[i] = lay.hot("$.top_back", back)
    _counts_cells(&o.cesspit, lay, "$.cesspit", keys, T + 1)
    o.pend_shown = _shown(lay, "$.pending[{}].kind", "enum", RR_MAXPEND)
    for i in range(o.pend_shown):
        for j, kind in enumerate(FRAME_KINDS):
            o.pend_kind[i][j] = lay.hot(f"$.pending[{i}].kind", kind)
        for q in range(n):
            o.pend_player[i][q] = lay.hot(f"$.pending[{i}].player", q)
    o.pend_len, o.pend_div = lay.length("$.pending")
    for i in range(n):
        for q in range(n):
            o.winners[i][q] = lay.hot(f"$.winners[{i}]", q)
    o.win_len, o.win_div = lay.length("$.winners")
    o.size = lay.size   # last: a state reads the tables once size is set (_obs_ready)


cdef inline void _obs_counts(float* out, const RRCounts* c, const unsigned char* row,
                             int ncards) noexcept nogil:
    cdef int t
    for t in range(ncards):
        if row[t] and c.flag[t] >= 0:
            cy_obs_hot(out, c.flag[t])
            cy_obs_num(out, &c.num[t], row[t])


cdef void obs_write(const RRState* s, const RRConst* k, const RRObs* o, int player,
                    float* out) noexcept nogil:
    """``observation_tensor(player)`` from the struct: the reference ``TensorLayout.encode``
    of ``observation(player)`` field by field, with the tables of ``_obs_tables``. The
    struct holds the Rat Pack as segments of known contents (its order is never drawn
    before a card is revealed, RR-8), so nothing hidden is there to read."""
    cdef int n = k.n, T = k.T, q, i, m
    cdef const RRFrame* f
    memset(out, 0, o.size * sizeof(float))
    cy_obs_hot(out, o.player[player])
    cy_obs_hot(out, o.phase[s.phase])
    cy_obs_hot(out, o.active[s.active])
    cy_obs_num(out, &o.round, s.round)
    for q in range(n):
        cy_obs_num(out, &o.cash[q], s.cash[q])
        for i in range(3):
            cy_obs_num(out, &o.cheese[q][i], s.cheese[q][i])
        cy_obs_num(out, &o.flush[q], s.flush[q])
        _obs_counts(out, &o.tableau[q], s.tableau[q], T)
    cy_obs_num(out, &o.box, s.box)
    if s.golden >= 0:
        cy_obs_hot(out, o.golden_flag)
        cy_obs_hot(out, o.golden[s.golden])
    for i in range(k.S):
        if s.sewer[i] >= 0:
            cy_obs_hot(out, o.sewer_flag[i])
            cy_obs_hot(out, o.sewer[i][s.sewer[i]])
    m = s.nseg if s.nseg < o.pack_shown else o.pack_shown
    for i in range(m):
        cy_obs_hot(out, o.pack_deck[i][s.deck[i]])
        _obs_counts(out, &o.pack[i], s.pack[i], T + 1)
    if o.pack_len >= 0:
        cy_obs_len(out, o.pack_len, s.nseg, o.pack_div)
    if s.top_back >= 0:   # RR-9
        cy_obs_hot(out, o.top_back_flag)
        cy_obs_hot(out, o.top_back[s.top_back])
    _obs_counts(out, &o.cesspit, s.cesspit, T + 1)
    for i in range(s.nrefill):
        cy_obs_num(out, &o.refill[i], s.refill[i])
    if o.refill_len >= 0:
        cy_obs_len(out, o.refill_len, s.nrefill, o.refill_div)
    cy_obs_num(out, &o.reshuffled, 1 if s.reshuffled else 0)
    m = s.npend if s.npend < o.pend_shown else o.pend_shown
    for i in range(m):
        f = &s.pending[i]
        cy_obs_hot(out, o.pend_kind[i][f.kind])
        cy_obs_hot(out, o.pend_player[i][f.player])
    if o.pend_len >= 0:
        cy_obs_len(out, o.pend_len, s.npend, o.pend_div)
    cy_obs_num(out, &o.turn_actions, s.turn_actions)
    for i in range(s.nwinners):
        cy_obs_hot(out, o.winners[i][s.winners[i]])
    if o.win_len >= 0:
        cy_obs_len(out, o.win_len, s.nwinners, o.win_div)


def _make_consts(game, params) -> _Consts:
    cdef _Consts obj = _Consts()
    cdef RRConst* c = &obj.c
    cdef int i, j, t
    d = game.data
    L = game.layout
    n = params["num_players"]
    T = game.T

    def refuse(what):
        return ValueError(f"{d.source}: {what} for the Cython twin of rats_to_riches; "
                          f"use backend='python'")

    if T + 1 > RR_MAXT:
        raise refuse(f"more than {RR_MAXT - 1} card types")
    if d.open_sewer_slots > RR_MAXS:
        raise refuse(f"more than {RR_MAXS} Open Sewer slots")
    if len(L.combos) > RR_MAXCOMBO:
        raise refuse("too many cheese multisets (effect amounts too large)")
    if L.size > RR_MAXACT:
        raise refuse(f"more than {RR_MAXACT} action ids")
    if max([ct.total for ct in d.card_types] + [d.flush_count]) > 255:
        raise refuse("more than 255 copies of a card")
    cp = game.compiled
    if len(cp.steps) > RR_MAXSTEP:
        raise refuse(f"more than {RR_MAXSTEP} card effects")
    if len(L.programs) > RR_MAXPROG:
        raise refuse(f"more than {RR_MAXPROG} active-card programs with a choice")
    if len(d.decks) != 2:
        raise refuse("a Rat Pack not made of two decks")
    memset(c, 0, sizeof(RRConst))
    c.n = n
    c.T = T
    c.S = d.open_sewer_slots
    c.NC = len(L.combos)
    c.size = L.size
    c.max_turn_actions = params["max_turn_actions"]
    c.COMBO = L.COMBO
    c.BUY = L.BUY
    c.FLUSH = L.FLUSH
    c.END_STEP2 = L.END_STEP2
    c.USE = L.USE
    c.SELL = L.SELL
    c.SELL_NOW = L.SELL_NOW
    c.PICK = L.PICK
    c.COLOUR = L.COLOUR
    c.REVEAL = L.REVEAL
    c.BACK = L.BACK
    for i, combo in enumerate(L.combos):
        for j in range(3):
            c.combo[i][j] = combo[j]
        c.combo_sum[i] = sum(combo)
    c.win_cash = d.win_cash
    c.start_cash = d.start_cash
    c.start_cheese = d.start_cheese
    c.flush_income = d.flush_income
    c.big_cheese_income = d.big_cheese_income
    c.cheese_price = d.cheese_price
    c.cheese_per_turn = d.cheese_per_turn
    c.max_rounds = d.max_rounds
    c.flush_count = d.flush_count
    for t in range(T + 1):
        for j in range(3):
            c.cost_cheese[t][j] = game.cost_cheese[t][j]
        c.cost_cash[t] = game.cost_cash[t]
        c.card_colour[t] = -1
        c.back[t] = game.back[t]  # RR-9
    # the compiled effects: the same tables the reference interprets (program.Compiled)
    c.nsteps = len(cp.steps)
    for i, st in enumerate(cp.steps):
        (c.steps[i].op, c.steps[i].res, c.steps[i].who, c.steps[i].plus, c.steps[i].cnt_of,
         c.steps[i].cnt_whose, c.steps[i].cnt_colour, c.steps[i].times, c.steps[i].divide,
         c.steps[i].max, c.steps[i].cond_of, c.steps[i].cond_whose, c.steps[i].cond_colour,
         c.steps[i].cmp, c.steps[i].value, c.steps[i].up_to, c.steps[i].whose,
         c.steps[i].colour, c.steps[i].to) = st
    for ct in d.card_types:
        t = ct.id
        c.pipes[t] = ct.pipes
        c.card_colour[t] = game.card_colour[t]
        c.is_event[t] = ct.is_event
        c.use_a[t], c.use_b[t] = cp.use_range[t]
        c.rev_a[t], c.rev_b[t] = cp.reveal_range[t]
        c.inc_a[t], c.inc_b[t] = cp.income_range[t]
        c.plain[t] = cp.plain[t]
        c.limit_add[t] = cp.limit_add[t]
        c.limit_at_least[t] = cp.limit_at_least[t]
        c.limit_at_most[t] = cp.limit_at_most[t]
        c.pipes_add[t] = cp.pipes_add[t]
        c.pipes_cmp[t] = cp.pipes_cmp[t]
        c.pipes_value[t] = cp.pipes_value[t]
        c.redirect[t] = cp.redirect[t]
    c.nprog = len(L.programs)
    for j, prog in enumerate(L.programs):
        c.progs[j].shape = prog.shape
        c.progs[j].any_target = prog.any_target
        c.progs[j].amount = prog.amount
        c.progs[j].colour = prog.colour
        c.progs[j].base = prog.base
        c.progs[j].width = prog.width
        c.progs[j].size = prog.size
        c.progs[j].ntypes = len(prog.types)
        for i, t in enumerate(prog.types):
            c.progs[j].types[i] = t
    for i, colour in enumerate(_D.CARD_COLOURS):
        ids = game.of_colour[colour]
        c.ncol[i] = len(ids)
        for j, t in enumerate(ids):
            c.col_ids[i][j] = t
    c.nseg0 = 0
    for i, name in enumerate(d.decks):
        counts = [ct.counts[i] for ct in d.card_types] + [0]
        if sum(counts):
            c.deck0[c.nseg0] = i
            for t in range(T + 1):
                c.counts0[c.nseg0][t] = counts[t]
            c.nseg0 += 1
    obj.decks = tuple(d.decks) + ("Cesspit",)
    return obj


# ====================================================================== conversion
cdef inline list _row(const unsigned char* a, int n):
    return [a[i] for i in range(n)]


cdef void _set_row(unsigned char* out, values, int n, str field) except *:
    if len(values) != n:
        raise ValueError(f"field {field!r}: must have {n} entries")
    for i, v in enumerate(values):
        if not 0 <= v <= 255:
            raise ValueError(f"field {field!r}: count {v!r} out of range for the Cython twin")
        out[i] = v


# ====================================================================== the state
cdef class RatsToRichesState(CyState):
    """A Rats to Riches position in one C struct; the same API as the reference
    ``RatsToRichesState``.

    Create states with ``RatsToRichesGame.new_initial_state()``; see ``engines/api.py`` for
    the contract of each method.
    """

    #: ``c_resample`` is compiled (a copy: every observation is the whole state), so the
    #: Cython IS-MCTS calls it instead of ``state_from_observation`` (see search.pyx).
    fast_c_resample = True

    def __init__(self, game):
        self._attach(game)
        init_state(&self.s, self.k)

    cdef int _attach(self, game) except -1:
        CyState._attach(self, game)
        self.k = &(<_Consts>self._consts).c
        self.ob = &(<_Consts>self._consts).ob
        return 0

    cdef int c_observation_tensor(self, int player, float* out) noexcept nogil:
        if player < 0 or player >= self.k.n:
            return -1
        if not self._obs_ready():
            return -1
        obs_write(&self.s, self.k, self.ob, player, out)
        return 0

    cdef int c_observation_size(self) noexcept nogil:
        return self.ob.size if self._obs_ready() else 0

    cdef bint _obs_ready(self) noexcept nogil:
        if self.ob.size == 0:
            with gil:
                (<_Consts>self._consts).build_obs(self._game)
        return self.ob.size > 0

    # ------------------------------------------------------------------ C-level contract
    cdef int c_current_player(self) noexcept nogil:
        return current_player(&self.s)

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return legal_actions(&self.s, self.k, out)

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept nogil:
        return chance_outcomes(&self.s, self.k, actions, probs)

    cdef void c_apply(self, int action) noexcept nogil:
        apply_action(&self.s, self.k, action)

    cdef int c_returns(self, double* out) noexcept nogil:
        cdef int q, i, n = self.k.n
        cdef double share
        for q in range(n):
            out[q] = 0.0
        if self.s.phase != PH_OVER or self.s.nwinners == 0:
            return n
        share = 1.0 / <double>self.s.nwinners
        for i in range(self.s.nwinners):
            out[self.s.winners[i]] = share
        return n

    cdef int c_num_players(self) noexcept nogil:
        return self.k.n

    cdef int c_num_actions(self) noexcept nogil:
        return self.k.size

    cdef void c_copy_from(self, CyState other) noexcept nogil:
        memcpy(&self.s, &(<RatsToRichesState>other).s, sizeof(RRState))

    cdef CyState c_clone(self):
        cdef RatsToRichesState new = RatsToRichesState.__new__(RatsToRichesState)
        memcpy(&new.s, &self.s, sizeof(RRState))
        new.k = self.k
        new.ob = self.ob
        cy_share_history(self, new)
        return new

    cdef CyState c_resample(self, int player, object rng):
        # Perfect information: state_from_observation(player, observation(player), rng)
        # rebuilds exactly this state (rng unused), with an empty history.
        cdef RatsToRichesState new = RatsToRichesState.__new__(RatsToRichesState)
        memcpy(&new.s, &self.s, sizeof(RRState))
        new.k = self.k
        new.ob = self.ob
        cy_fresh_history(self, new)
        return new

    cdef int c_resample_into(self, int player, CyState out, unsigned long long* rng) noexcept nogil:
        # Perfect information: the determinization is the state itself (as c_resample).
        memcpy(&(<RatsToRichesState>out).s, &self.s, sizeof(RRState))
        return 0

    cdef unsigned long long c_info_hash(self, int player) except? 0:
        # equal for equal observation(player) (tests/speedups checks it)
        return info_digest(&self.s, self.k, player)

    cdef int c_info_hash_into(self, int player, unsigned long long* out) noexcept nogil:
        # c_info_hash without the GIL (the threaded IS-MCTS's chance key)
        out[0] = info_digest(&self.s, self.k, player)
        return 0

    # ------------------------------------------------------------------ fast Python API
    def is_terminal(self) -> bool:
        return self.s.phase == PH_OVER

    def _legal_actions(self) -> list:
        cdef int buf[RR_MAXACT]
        cdef int n = legal_actions(&self.s, self.k, buf)
        return [buf[i] for i in range(n)]

    def _chance_outcomes(self) -> list:
        cdef int act[RR_MAXT]
        cdef double prob[RR_MAXT]
        cdef int n = chance_outcomes(&self.s, self.k, act, prob)
        return [(act[i], prob[i]) for i in range(n)]

    def scores(self) -> list:
        """Swindle ($) per rat."""
        return [float(self.s.cash[q]) for q in range(self.k.n)]

    # ------------------------------------------------------------------ conversion
    def to_reference(self):
        """The equivalent reference ``RatsToRichesState`` (same fields, same history)."""
        cdef RRState* s = &self.s
        cdef const RRConst* k = self.k
        cdef int n = k.n, T = k.T, q, i
        cdef RRFrame* f
        decks = (<_Consts>self._consts).decks
        r = _R.RatsToRichesState.__new__(_R.RatsToRichesState)
        d = r.__dict__
        d["_game"] = self._game
        d["_history"] = list(self._hist)
        d["phase"] = PHASES[s.phase]
        d["active"] = s.active
        d["round"] = s.round
        d["cash"] = [s.cash[q] for q in range(n)]
        d["cheese"] = [[s.cheese[q][0], s.cheese[q][1], s.cheese[q][2]] for q in range(n)]
        d["tableau"] = [_row(s.tableau[q], T) for q in range(n)]
        d["flush"] = [s.flush[q] for q in range(n)]
        d["box"] = s.box
        d["golden"] = None if s.golden < 0 else s.golden
        d["sewer"] = [None if s.sewer[i] < 0 else s.sewer[i] for i in range(k.S)]
        d["pack"] = [{"deck": decks[s.deck[i]], "counts": _row(s.pack[i], T + 1)}
                     for i in range(s.nseg)]
        d["cesspit"] = _row(s.cesspit, T + 1)
        d["refill"] = [s.refill[i] for i in range(s.nrefill)]
        d["reshuffled"] = bool(s.reshuffled)
        d["top_back"] = None if s.top_back < 0 else s.top_back
        pending = []
        for i in range(s.npend):
            f = &s.pending[i]
            kind = FRAME_KINDS[f.kind]
            if f.kind == F_SELL:
                pending.append({"kind": kind, "player": f.player, "pipes": f.amount,
                                "last": f.last})
                continue
            then = ([f.then_step, f.then_end, f.then_user, f.then_target, f.then_choice,
                     f.then_card] if f.has_then else None)
            if f.kind == F_PICK:
                pending.append({"kind": kind, "player": f.player, "left": f.amount,
                                "last": f.last, "colour": f.colour, "cost": bool(f.cost),
                                "card": f.card, "then": then})
            else:
                pending.append({"kind": kind, "player": f.player, "left": f.amount,
                                "last": f.last, "then": then})
        d["pending"] = pending
        d["turn_actions"] = s.turn_actions
        d["winners"] = [s.winners[i] for i in range(s.nwinners)]
        return r

    cdef void _load(self, r) except *:
        """Fill the C struct from a reference state ``r`` (ValueError naming a bad field)."""
        cdef RRState* s = &self.s
        cdef const RRConst* k = self.k
        cdef int n = k.n, T = k.T, q, i
        cdef RRFrame* f
        decks = (<_Consts>self._consts).decks
        memset(s, 0, sizeof(RRState))
        field = "phase"
        try:
            if r.phase not in _PHASE_ID:
                raise ValueError(f"field 'phase': {r.phase!r} is not one of {PHASES}")
            s.phase = _PHASE_ID[r.phase]
            field = "active"
            if not 0 <= r.active < n:
                raise ValueError(f"field 'active': {r.active!r} is not a seat")
            s.active = r.active
            field = "round"
            s.round = r.round
            field = "cash"
            if len(r.cash) != n:
                raise ValueError("field 'cash': one entry per seat")
            for q in range(n):
                s.cash[q] = r.cash[q]
            field = "cheese"
            if len(r.cheese) != n:
                raise ValueError("field 'cheese': one entry per seat")
            for q in range(n):
                if len(r.cheese[q]) != 3:
                    raise ValueError("field 'cheese': three colours per seat")
                for i in range(3):
                    s.cheese[q][i] = r.cheese[q][i]
            field = "tableau"
            if len(r.tableau) != n:
                raise ValueError("field 'tableau': one entry per seat")
            for q in range(n):
                _set_row(s.tableau[q], r.tableau[q], T, "tableau")
            field = "flush"
            if len(r.flush) != n:
                raise ValueError("field 'flush': one entry per seat")
            for q in range(n):
                if not 0 <= r.flush[q] <= 255:
                    raise ValueError("field 'flush': count out of range")
                s.flush[q] = r.flush[q]
            field = "box"
            s.box = r.box
            field = "golden"
            if r.golden is not None and not 0 <= r.golden < n:
                raise ValueError(f"field 'golden': {r.golden!r} is not a seat")
            s.golden = -1 if r.golden is None else r.golden
            field = "sewer"
            if len(r.sewer) != k.S:
                raise ValueError(f"field 'sewer': must have {k.S} slots")
            for i, t in enumerate(r.sewer):
                if t is not None and not 0 <= t <= T:
                    raise ValueError(f"field 'sewer': bad card id {t!r}")
                s.sewer[i] = -1 if t is None else t
            field = "pack"
            if len(r.pack) > RR_MAXSEG:
                raise ValueError(f"field 'pack': more than {RR_MAXSEG} segments for the "
                                 f"Cython twin")
            s.nseg = len(r.pack)
            for i, seg in enumerate(r.pack):
                if seg["deck"] not in decks:
                    raise ValueError(f"field 'pack': deck {seg['deck']!r} is not one of "
                                     f"{decks} (Cython twin)")
                s.deck[i] = decks.index(seg["deck"])
                _set_row(s.pack[i], seg["counts"], T + 1, "pack")
                s.seg_total[i] = sum(seg["counts"])
            field = "cesspit"
            _set_row(s.cesspit, r.cesspit, T + 1, "cesspit")
            field = "refill"
            if len(r.refill) > k.S:
                raise ValueError("field 'refill': more entries than slots")
            s.nrefill = len(r.refill)
            for i, v in enumerate(r.refill):
                if not 0 <= v < k.S:
                    raise ValueError(f"field 'refill': bad slot {v!r}")
                s.refill[i] = v
            field = "reshuffled"
            s.reshuffled = bool(r.reshuffled)
            field = "top_back"
            if r.top_back is not None and not 0 <= r.top_back < 3:
                raise ValueError(f"field 'top_back': {r.top_back!r} is not a back id")
            s.top_back = -1 if r.top_back is None else r.top_back
            field = "pending"
            if len(r.pending) > RR_MAXPEND:
                raise ValueError(f"field 'pending': more than {RR_MAXPEND} frames for the "
                                 f"Cython twin")
            s.npend = len(r.pending)
            for i, fr in enumerate(r.pending):
                f = &s.pending[i]
                f.kind = _FRAME_ID[fr["kind"]]
                if not 0 <= fr["player"] < n:
                    raise ValueError(f"field 'pending': bad player {fr['player']!r}")
                f.player = fr["player"]
                f.last = fr["last"]
                f.colour = -1
                f.card = -1
                if f.kind == F_SELL:
                    f.amount = fr["pipes"]
                else:
                    f.amount = fr["left"]
                    if f.kind == F_PICK:
                        f.colour = fr["colour"]
                        f.cost = bool(fr["cost"])
                        f.card = fr["card"]
                    then = fr["then"]
                    f.has_then = then is not None
                    if then is not None:
                        (f.then_step, f.then_end, f.then_user, f.then_target, f.then_choice,
                         f.then_card) = then
            field = "turn_actions"
            s.turn_actions = r.turn_actions
            field = "winners"
            if len(r.winners) > n:
                raise ValueError("field 'winners': more winners than seats")
            s.nwinners = len(r.winners)
            for i, w in enumerate(r.winners):
                if not 0 <= w < n:
                    raise ValueError(f"field 'winners': {w!r} is not a seat")
                s.winners[i] = w
        except (KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
            raise ValueError(f"field {field!r}: not a Rats to Riches state ({exc!r})") from exc

    # ------------------------------------------------------------------ slow Python API
    def fast_resample(self, int player, rng=None):
        """``c_resample`` from Python (for tests): equal to ``resample_from_infostate``."""
        return self.c_resample(player, rng)

    def __repr__(self):
        return f"<cython RatsToRichesState round {self.s.round} active {self.s.active} " \
               f"phase {PHASES[self.s.phase]!r}>"

    # ------------------------------------------------------------------ rule helpers
    def income(self, int p) -> int:
        """Step 1 income of rat ``p`` (as the reference's ``income``)."""
        return rat_income(&self.s, self.k, p)


# ====================================================================== the game
class RatsToRichesGame(CyGame, _R.RatsToRichesGame):
    """Rats to Riches (Cython twin): the reference game's parameters, data and constants,
    with states of :class:`RatsToRichesState`."""

    _state_class = RatsToRichesState
    _reference_class = _R.RatsToRichesGame

    def _check_params(self, params):
        params = super()._check_params(params)
        self._consts = _make_consts(self, params)
        return params

    def _state_from_observation(self, player, observation, rng=None) -> RatsToRichesState:
        """The reference's rebuild (exact: perfect information), as a twin state.

        Raises:
            ValueError: a field is missing, malformed or impossible (naming it).
        """
        _api.make_rng(rng)
        ref = _R._from_observation(self.reference_game(), player, observation)
        return self._from_reference(ref)
