# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Rats to Riches, Cython twin of the reference engine ``engines/rats_to_riches`` (same
contract, same behaviour, same action ids).

The state is one C struct (:c:type:`RRState` in ``rats_to_riches.pxd``), so ``clone()`` is an
allocation plus a ``memcpy``. The rules are a line-by-line transcription of the reference's
``rules.py``: the same phases, the same ``pending`` sub-decisions (sale, bundle, discard,
flood; a single legal option applied at once), the same lazily drawn Rat Pack segments (with
the RR-6 Cesspit reshuffle once per refill), the same events (RR-4), Big Cheese (RR-5), win
check (RR-1), careers (RR-7) and Flush (RR-2). Rulings are cited in the reference where coded.

Hot path (pure C, no Python objects): ``c_current_player``, ``c_legal_actions``,
``c_chance_outcomes``, ``c_apply``, ``c_returns``, ``c_clone``, ``c_info_hash`` and (the game
has perfect information, so a determinization is the state itself) ``c_resample``. Rarely
called methods (observation, labels, describe_action, render, serialization,
state_from_observation, heuristic) convert the C state to the equivalent reference
``RatsToRichesState`` and run the reference code, so their results are identical by
construction; ``tests/speedups`` checks the conversion and the play step by step.

Limits of the twin (checked when the game is created; ``backend="python"`` has none): at most
47 card types, 8 Open Sewer slots, 255 copies of a card, 300 cheese multisets and 2048 action
ids; a Sewer Flood divisor of at least 1.
"""

from libc.string cimport memcpy, memset, memmove

import numpy as np

from ratai.engines import api as _api
from ratai.engines.rats_to_riches import data as _D
from ratai.engines.rats_to_riches import rules as _R
from ratai.engines.rats_to_riches import view as _V

from .core cimport CyState, cy_fresh_history, cy_share_history
from .core import CyGame, check_bounds

# ------------------------------------------------------------------------------ constants
cdef enum:
    PH_SETUP = 0
    PH_REVEAL = 1
    PH_STEP2 = 2
    PH_STEP3 = 3
    PH_OVER = 4
    F_SELL = 0
    F_BUNDLE = 1
    F_DISCARD = 2
    F_FLOOD = 3
    # active-card kinds (KIND_NAMES order)
    K_BONUS = 0
    K_SNATCH = 1
    K_SABOTAGE = 2
    K_PICKPOCKET = 3
    K_CHEESE_RUN = 4
    K_TAKEOVER = 5
    K_SHARED = 6
    K_MUTUAL = 7
    # events (EVENT_NAMES order)
    E_FREE_MONEY = 0
    E_SEWER_FLOOD = 1
    E_UNDERDOG = 2
    E_TAX_MAN = 3
    E_FAMINE = 4
    # careers (CAREER_NAMES order): the cheese colours first
    CA_BARON = 3
    CA_PIPE_DREAM = 4
    # card colours (data.CARD_COLOURS order)
    CC_GREEN = 0
    CC_BLUE = 1
    CC_RED = 2
    CC_PURPLE = 3
    _CHANCE = -1      # ratai.engines.api.CHANCE
    _TERMINAL = -4    # ratai.engines.api.TERMINAL
    D_CESSPIT = 2     # deck id of a reshuffled Cesspit (after the two deck names)

PHASES = ("setup", "reveal", "step2", "step3", "over")
FRAME_KINDS = ("sell", "bundle", "discard", "flood")
KIND_NAMES = ("bonus_bonanza", "snatch", "sabotage", "pickpocket", "cheese_run",
              "hostile_takeover", "shared_paradise", "mutual_destruction")
EVENT_NAMES = ("free_money", "sewer_flood", "underdog_grant", "tax_man", "cheese_famine")
CAREER_NAMES = ("green", "blue", "red", "cheese_baron", "pipe_dream")
_PHASE_ID = {name: i for i, name in enumerate(PHASES)}
_FRAME_ID = {name: i for i, name in enumerate(FRAME_KINDS)}


def _check_constants() -> None:
    """The compiled ids must be the reference's (a stale build fails loudly at import)."""
    if _api.CHANCE != _CHANCE or _api.TERMINAL != _TERMINAL:
        raise ImportError("ratai._speedups.rats_to_riches: CHANCE/TERMINAL ids changed; rebuild")
    if (tuple(_R._PHASES) != PHASES or tuple(_R._FRAME_KINDS) != FRAME_KINDS
            or set(_D.ACTION_AMOUNTS) != set(KIND_NAMES)
            or set(_D.EVENT_AMOUNTS) != set(EVENT_NAMES)
            or tuple(_D.COLOUR_CAREERS) + tuple(_D.CAREER_AMOUNTS) != CAREER_NAMES
            or tuple(_D.CARD_COLOURS[:4]) != ("green", "blue", "red", "purple")
            or tuple(_D.COLOURS) != ("green", "blue", "red")
            or set(_R.PLAIN) != {"bonus_bonanza", "shared_paradise"}):
        raise ImportError("ratai._speedups.rats_to_riches is out of date with "
                          "ratai.engines.rats_to_riches: rebuild it (pip install -e .)")
    check_bounds("Rats to Riches", RR_MAXP, max(RR_MAXACT, RR_MAXT))


_check_constants()


# ====================================================================== small C helpers
cdef inline int imin(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline int careers(const RRState* s, const RRConst* k, int p) noexcept nogil:
    """Bit set of the career ids rat ``p`` holds (its Purple cards; ``careers``)."""
    cdef int j, t, m = 0
    for j in range(k.ncol[CC_PURPLE]):
        t = k.col_ids[CC_PURPLE][j]
        if s.tableau[p][t] and k.career[t] >= 0:
            m |= 1 << k.career[t]
    return m


cdef inline int rat_income(const RRState* s, const RRConst* k, int p) noexcept nogil:
    """Step 1: Flush card $2 + Green card incomes + Golden Rat $2."""
    cdef int t, total = k.flush_income * s.flush[p]
    for t in range(k.T):
        if s.tableau[p][t]:
            total += s.tableau[p][t] * k.income[t]
    if s.golden == p:
        total += k.big_cheese_income
    return total


cdef inline int cheese_limit(const RRState* s, const RRConst* k, int p) noexcept nogil:
    if careers(s, k, p) & (1 << CA_BARON):
        return k.baron_limit if k.baron_limit > k.cheese_per_turn else k.cheese_per_turn
    return k.cheese_per_turn


cdef inline int career_holder(const RRState* s, const RRConst* k, int colour,
                              int buyer) noexcept nogil:
    """RR-7: the first holder of the colour's career clockwise from the buyer, or -1."""
    cdef int i, q
    for i in range(1, k.n):
        q = (buyer + i) % k.n
        if careers(s, k, q) & (1 << colour):
            return q
    return -1


cdef inline bint can_afford(const RRState* s, const RRConst* k, int p, int t) noexcept nogil:
    return (s.cash[p] >= k.cost_cash[t] and s.cheese[p][0] >= k.cost_cheese[t][0]
            and s.cheese[p][1] >= k.cost_cheese[t][1] and s.cheese[p][2] >= k.cost_cheese[t][2])


cdef inline int owned_kind(const RRState* s, const RRConst* k, int p, int kind) noexcept nogil:
    """The lowest type id of ``kind`` rat ``p`` owns, or -1."""
    cdef int j, t
    for j in range(k.nkind[kind]):
        t = k.kind_ids[kind][j]
        if s.tableau[p][t]:
            return t
    return -1


cdef inline bint bundle_ok(const RRState* s, const RRConst* k, int p, int t) noexcept nogil:
    cdef int c, j, have
    for c in range(3):
        if k.bundle[t][c]:
            have = 0
            for j in range(k.ncol[c]):
                have += s.tableau[p][k.col_ids[c][j]]
            if have < k.bundle[t][c]:
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


cdef inline void push_frame(RRState* s, int kind, int player, int amount, int last,
                            const int* need) noexcept nogil:
    cdef RRFrame* f
    if s.npend >= RR_MAXPEND:  # cannot happen: at most one frame per seat; memory safety
        return
    f = &s.pending[s.npend]
    s.npend += 1
    f.kind = kind
    f.player = player
    f.amount = amount
    f.last = last
    if need != NULL:
        f.need[0] = need[0]
        f.need[1] = need[1]
        f.need[2] = need[2]
    else:
        f.need[0] = 0
        f.need[1] = 0
        f.need[2] = 0


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
    cdef int n = 0, j, t, p = f.player, c, m, pos, cnt
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
    if f.kind == F_DISCARD:
        for t in range(k.T):
            owned[t] = s.tableau[p][t]
        owned[k.T] = s.flush[p]
        cnt = ordered_picks(owned, k.T + 1, f.last, f.amount, idx)
        for j in range(cnt):
            out[j] = k.PICK + idx[j]
        return cnt
    # bundle: fill green, then blue, then red, each in non-decreasing type order
    c = 0
    while c < 2 and not f.need[c]:
        c += 1
    m = k.ncol[c]
    pos = -1
    for j in range(m):
        owned[j] = s.tableau[p][k.col_ids[c][j]]
        if k.col_ids[c][j] == f.last:
            pos = j
    cnt = ordered_picks(owned, m, pos, f.need[c], idx)
    for j in range(cnt):
        out[j] = k.PICK + k.col_ids[c][idx[j]]
    return cnt


cdef int step2_legal(const RRState* s, const RRConst* k, int* out) noexcept nogil:
    """Step 2 decisions of the active rat, ascending (the reference sorts; the blocks are
    emitted in id order here)."""
    cdef int p = s.active, n = 0, i, q, t, j, take, tot, T = k.T, sab
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
        if s.tableau[p][t] and (k.plain[t] or (k.is_bundle[t] and bundle_ok(s, k, p, t))):
            out[n] = k.USE + t
            n += 1
    if owned_kind(s, k, p, K_PICKPOCKET) >= 0:
        for q in range(k.n):
            if q != p:
                out[n] = k.PICKPOCKET + q
                n += 1
    if owned_kind(s, k, p, K_MUTUAL) >= 0:
        for q in range(k.n):
            if q != p:
                out[n] = k.MUTUAL + q
                n += 1
    if owned_kind(s, k, p, K_SNATCH) >= 0:
        for q in range(k.n):
            if q == p:
                continue
            tot = s.cheese[q][0] + s.cheese[q][1] + s.cheese[q][2]
            take = imin(k.snatch_cheese, tot)
            for i in range(k.NS):
                if (k.combo_sum[i] == take and k.combo[i][0] <= s.cheese[q][0]
                        and k.combo[i][1] <= s.cheese[q][1]
                        and k.combo[i][2] <= s.cheese[q][2]):
                    out[n] = k.SNATCH + q * k.NS + i
                    n += 1
    if owned_kind(s, k, p, K_CHEESE_RUN) >= 0:
        for i in range(k.NC):
            if k.combo_sum[i] == k.cheese_run_cheese:
                out[n] = k.CHEESE_RUN + i
                n += 1
    sab = owned_kind(s, k, p, K_SABOTAGE)
    if sab >= 0:
        for q in range(k.n):  # "from any rat": its own cards too
            for t in range(T):
                if s.tableau[q][t] - (1 if (q == p and t == sab) else 0) > 0:
                    out[n] = k.SABOTAGE + q * (T + 1) + t
                    n += 1
            if s.flush[q]:
                out[n] = k.SABOTAGE + q * (T + 1) + T
                n += 1
    if owned_kind(s, k, p, K_TAKEOVER) >= 0:
        for q in range(k.n):
            if q == p:
                continue
            for j in range(k.ncol[CC_GREEN]):
                t = k.col_ids[CC_GREEN][j]
                if s.tableau[q][t]:
                    out[n] = k.TAKEOVER + q * T + t
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
    free = careers(s, k, p)
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
    """The next card of the top Rat Pack segment, by its counts (draw-on-reveal)."""
    cdef int n = 0, t, c
    cdef double total
    if s.phase == PH_OVER or s.npend or not s.nrefill or not s.nseg:
        return 0
    total = <double>s.seg_total[0]
    for t in range(k.T + 1):
        c = s.pack[0][t]
        if c:
            act[n] = k.REVEAL + t
            prob[n] = <double>c / total
            n += 1
    return n


cdef inline int current_player(const RRState* s) noexcept nogil:
    if s.phase == PH_OVER:
        return _TERMINAL
    if s.npend:
        return s.pending[0].player
    if s.nrefill:
        return _CHANCE
    return s.active


# ====================================================================== applying actions
cdef void frame_apply(RRState* s, const RRConst* k, int action) noexcept nogil:
    """The reference's ``_frame_apply`` on ``pending[0]``."""
    cdef RRFrame* f = &s.pending[0]
    cdef int p = f.player, t, c, pipes
    if f.kind == F_SELL:
        if action < k.SELL_NOW:  # SELL+t: one more pipe into the sale
            t = action - k.SELL
            discard(s, k, p, t)  # sold pipes go to the Cesspit
            f.amount += k.pipes[t]
            f.last = t
            return
        pipes = f.amount
        pop_frame(s)
        if pipes and careers(s, k, p) & (1 << CA_PIPE_DREAM):
            pipes += k.pipe_extra
        s.cash[p] += pipes * pipes  # rulebook "Blue Cards are Pipes": $n²
        check_win(s, k)
    elif f.kind == F_FLOOD:
        c = action - k.COLOUR
        s.cheese[p][c] -= 1
        f.amount -= 1
        f.last = c
        if not f.amount:
            pop_frame(s)
    elif f.kind == F_DISCARD:
        t = action - k.PICK
        discard(s, k, p, t)
        f.amount -= 1
        f.last = t
        if not f.amount:
            pop_frame(s)
    else:  # bundle
        t = action - k.PICK
        discard(s, k, p, t)
        c = k.cheese_colour[t]
        f.need[c] -= 1
        f.last = t if f.need[c] else -1
        if not (f.need[0] or f.need[1] or f.need[2]):
            pop_frame(s)
            s.cash[p] += k.bundle_payout  # "Dump this with 3 ... for $25"
            check_win(s, k)


cdef void do_event(RRState* s, const RRConst* k, int event) noexcept nogil:
    """Yellow cards: "affects ALL rats immediately" (RR-4), in order from the active rat."""
    cdef int i, q, low, c, half
    if event == E_FREE_MONEY:
        for i in range(k.n):
            s.cash[(s.active + i) % k.n] += k.ev_free_cash
    elif event == E_UNDERDOG:
        low = s.cash[0]
        for q in range(1, k.n):
            if s.cash[q] < low:
                low = s.cash[q]
        for i in range(k.n):
            q = (s.active + i) % k.n
            if s.cash[q] == low:
                s.cash[q] += k.ev_underdog_cash
    elif event == E_TAX_MAN:
        for i in range(k.n):
            q = (s.active + i) % k.n
            if s.cash[q] > k.ev_tax_threshold:
                s.cash[q] -= imin(k.ev_tax_cash, s.cash[q])
    elif event == E_FAMINE:
        for q in range(k.n):
            for c in range(3):
                s.cheese[q][c] = s.cheese[q][c] - k.ev_famine
                if s.cheese[q][c] < 0:
                    s.cheese[q][c] = 0
    else:  # sewer_flood: return half (rounded down), own choice of colours
        for i in range(k.n):
            q = (s.active + i) % k.n
            half = (s.cheese[q][0] + s.cheese[q][1] + s.cheese[q][2]) // k.ev_flood_divisor
            if half:
                push_frame(s, F_FLOOD, q, half, 0, NULL)
    check_win(s, k)


cdef void reveal(RRState* s, const RRConst* k, int t) noexcept nogil:
    """A Rat Pack card turns face up in the first slot waiting (RR-4 for events)."""
    s.pack[0][t] -= 1
    s.seg_total[0] -= 1
    if not s.seg_total[0]:
        pop_segment(s)
    if t < k.T and k.event[t] >= 0:
        s.cesspit[t] += 1  # affects all rats, then to the Cesspit; slot waits again
        do_event(s, k, k.event[t])
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


cdef void settle(RRState* s, const RRConst* k) noexcept nogil:
    """Run automatic steps (forced choices, reshuffles, turn starts) until a node."""
    cdef int buf[RR_MAXT + 2]
    cdef int t, total
    while s.phase != PH_OVER:
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
    free = careers(s, k, p)
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
    cdef int p = use_card(s, k, t), q
    if k.action[t] == K_BONUS:  # collect your income again now
        s.cash[p] += rat_income(s, k, p)
    elif k.action[t] == K_SHARED:  # all rats take $5; you take $10 instead
        for q in range(k.n):
            s.cash[q] += k.shared_self if q == p else k.shared_all
    else:  # a bundle: choose its cards, then $25
        push_frame(s, F_BUNDLE, p, 0, -1, k.bundle[t])
        return
    check_win(s, k)


cdef void apply_action(RRState* s, const RRConst* k, int a) noexcept nogil:
    """The reference's ``_apply_action`` (decode, dispatch, settle)."""
    cdef int p, q, t, i, r, left, c, take, tot
    cdef int who[2]
    if a >= k.REVEAL:
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
    elif a < k.PICKPOCKET:
        a_use(s, k, a - k.USE)
    elif a < k.MUTUAL:
        q = a - k.PICKPOCKET
        p = use_card(s, k, owned_kind(s, k, s.active, K_PICKPOCKET))
        take = imin(k.pickpocket_cash, s.cash[q])
        s.cash[q] -= take
        s.cash[p] += take
        check_win(s, k)
    elif a < k.SNATCH:
        # Mutual Destruction: you, then the chosen rat, each send 2 own cards to the Cesspit
        q = a - k.MUTUAL
        p = use_card(s, k, owned_kind(s, k, s.active, K_MUTUAL))
        who[0] = p
        who[1] = q
        for i in range(2):
            r = who[i]
            tot = s.flush[r]
            for t in range(k.T):
                tot += s.tableau[r][t]
            left = imin(k.mutual_cards, tot)
            if left:
                push_frame(s, F_DISCARD, r, left, -1, NULL)
    elif a < k.CHEESE_RUN:
        q = (a - k.SNATCH) // k.NS
        i = (a - k.SNATCH) % k.NS
        p = use_card(s, k, owned_kind(s, k, s.active, K_SNATCH))
        for c in range(3):
            s.cheese[q][c] -= k.combo[i][c]
            s.cheese[p][c] += k.combo[i][c]
    elif a < k.SABOTAGE:
        i = a - k.CHEESE_RUN
        p = use_card(s, k, owned_kind(s, k, s.active, K_CHEESE_RUN))
        for c in range(3):
            s.cheese[p][c] += k.combo[i][c]
    elif a < k.TAKEOVER:
        # Sabotage: any rat's card to the Cesspit (RR-7: a career goes with its card)
        q = (a - k.SABOTAGE) // (k.T + 1)
        t = (a - k.SABOTAGE) % (k.T + 1)
        use_card(s, k, owned_kind(s, k, s.active, K_SABOTAGE))
        discard(s, k, q, t)
    elif a < k.SELL:
        q = (a - k.TAKEOVER) // k.T
        t = (a - k.TAKEOVER) % k.T
        p = use_card(s, k, owned_kind(s, k, s.active, K_TAKEOVER))
        s.tableau[q][t] -= 1
        s.tableau[p][t] += 1
    elif a < k.SELL_NOW:
        # start a sale with one pipe card (rulebook "Blue Cards are Pipes")
        s.turn_actions += 1
        push_frame(s, F_SELL, s.active, 0, -1, NULL)
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


# ====================================================================== information digest
cdef inline unsigned long long mix(unsigned long long h, long long v) noexcept nogil:
    h ^= <unsigned long long>v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2)
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL
    return h ^ (h >> 31)


cdef unsigned long long info_digest(const RRState* s, const RRConst* k, int p) noexcept nogil:
    """A digest of ``observation(p)`` read from the struct. Every observation is the whole
    state (perfect information) plus ``player``, so this digests every live field."""
    cdef unsigned long long h = 0x5EED
    cdef int q, t, i, T1 = k.T + 1
    cdef const RRFrame* f
    h = mix(h, p)
    h = mix(h, s.phase)
    h = mix(h, s.active)
    h = mix(h, s.round)
    h = mix(h, s.golden)
    h = mix(h, s.box)
    h = mix(h, s.reshuffled)
    h = mix(h, s.turn_actions)
    for q in range(k.n):
        h = mix(h, s.cash[q])
        h = mix(h, s.cheese[q][0] | (s.cheese[q][1] << 16) | (<long long>s.cheese[q][2] << 32))
        h = mix(h, s.flush[q])
        for t in range(k.T):
            if s.tableau[q][t]:
                h = mix(h, (t << 16) | s.tableau[q][t])
        h = mix(h, -2)
    for i in range(k.S):
        h = mix(h, s.sewer[i])
    h = mix(h, 1000 + s.nseg)
    for i in range(s.nseg):
        h = mix(h, s.deck[i])
        for t in range(T1):
            if s.pack[i][t]:
                h = mix(h, (t << 16) | s.pack[i][t])
    h = mix(h, -3)
    for t in range(T1):
        if s.cesspit[t]:
            h = mix(h, (t << 16) | s.cesspit[t])
    h = mix(h, 2000 + s.nrefill)
    for i in range(s.nrefill):
        h = mix(h, s.refill[i])
    h = mix(h, 3000 + s.npend)
    for i in range(s.npend):
        f = &s.pending[i]
        h = mix(h, f.kind)
        h = mix(h, f.player)
        h = mix(h, f.last)
        h = mix(h, f.amount)
        if f.kind == F_BUNDLE:
            h = mix(h, f.need[0])
            h = mix(h, f.need[1])
            h = mix(h, f.need[2])
    h = mix(h, 4000 + s.nwinners)
    for i in range(s.nwinners):
        h = mix(h, s.winners[i])
    return h if h != 0 else 1


# ====================================================================== game constants
cdef class _Consts:
    """The game's constants as a C struct (owned by the game, shared by its states)."""
    cdef RRConst c
    cdef public tuple decks


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
    if d.event_amounts["sewer_flood"]["divisor"] < 1:
        raise refuse("a Sewer Flood divisor below 1")
    if len(d.decks) != 2:
        raise refuse("a Rat Pack not made of two decks")
    memset(c, 0, sizeof(RRConst))
    c.n = n
    c.T = T
    c.S = d.open_sewer_slots
    c.NC = len(L.combos)
    c.NS = L.snatch_combos
    c.size = L.size
    c.max_turn_actions = params["max_turn_actions"]
    c.COMBO = L.COMBO
    c.BUY = L.BUY
    c.FLUSH = L.FLUSH
    c.END_STEP2 = L.END_STEP2
    c.USE = L.USE
    c.PICKPOCKET = L.PICKPOCKET
    c.MUTUAL = L.MUTUAL
    c.SNATCH = L.SNATCH
    c.CHEESE_RUN = L.CHEESE_RUN
    c.SABOTAGE = L.SABOTAGE
    c.TAKEOVER = L.TAKEOVER
    c.SELL = L.SELL
    c.SELL_NOW = L.SELL_NOW
    c.PICK = L.PICK
    c.COLOUR = L.COLOUR
    c.REVEAL = L.REVEAL
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
    c.bundle_payout = d.bundle_payout
    c.max_rounds = d.max_rounds
    c.flush_count = d.flush_count
    act, ev, car = d.action_amounts, d.event_amounts, d.career_amounts
    c.snatch_cheese = act["snatch"]["cheese"]
    c.pickpocket_cash = act["pickpocket"]["cash"]
    c.cheese_run_cheese = act["cheese_run"]["cheese"]
    c.shared_all = act["shared_paradise"]["all"]
    c.shared_self = act["shared_paradise"]["self"]
    c.mutual_cards = act["mutual_destruction"]["cards"]
    c.baron_limit = car["cheese_baron"]["cheese_limit"]
    c.pipe_extra = car["pipe_dream"]["extra_pipes"]
    c.ev_free_cash = ev["free_money"]["cash"]
    c.ev_underdog_cash = ev["underdog_grant"]["cash"]
    c.ev_tax_threshold = ev["tax_man"]["threshold"]
    c.ev_tax_cash = ev["tax_man"]["cash"]
    c.ev_famine = ev["cheese_famine"]["per_colour"]
    c.ev_flood_divisor = ev["sewer_flood"]["divisor"]
    for t in range(T + 1):
        for j in range(3):
            c.cost_cheese[t][j] = game.cost_cheese[t][j]
        c.cost_cash[t] = game.cost_cash[t]
        c.action[t] = -1
        c.career[t] = -1
        c.event[t] = -1
        c.cheese_colour[t] = -1
    for ct in d.card_types:
        t = ct.id
        c.income[t] = ct.income
        c.pipes[t] = ct.pipes
        if ct.action:
            c.action[t] = KIND_NAMES.index(ct.action)
            c.plain[t] = ct.action in _R.PLAIN
        if ct.career:
            c.career[t] = CAREER_NAMES.index(ct.career)
        if ct.event:
            c.event[t] = EVENT_NAMES.index(ct.event)
        c.is_bundle[t] = ct.is_bundle
        for j in range(3):
            c.bundle[t][j] = ct.bundle[j]
        if ct.colour in _D.COLOURS:
            c.cheese_colour[t] = _D.COLOURS.index(ct.colour)
    for i, colour in enumerate(_D.CARD_COLOURS):
        ids = game.of_colour[colour]
        c.ncol[i] = len(ids)
        for j, t in enumerate(ids):
            c.col_ids[i][j] = t
    for i, kind in enumerate(KIND_NAMES):
        ids = game.of_action[kind]
        c.nkind[i] = len(ids)
        for j, t in enumerate(ids):
            c.kind_ids[i][j] = t
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
        return 0

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
        cy_share_history(self, new)
        return new

    cdef CyState c_resample(self, int player, object rng):
        # Perfect information: state_from_observation(player, observation(player), rng)
        # rebuilds exactly this state (rng unused), with an empty history.
        cdef RatsToRichesState new = RatsToRichesState.__new__(RatsToRichesState)
        memcpy(&new.s, &self.s, sizeof(RRState))
        new.k = self.k
        cy_fresh_history(self, new)
        return new

    cdef int c_resample_into(self, int player, CyState out, unsigned long long* rng) noexcept nogil:
        # Perfect information: the determinization is the state itself (as c_resample).
        memcpy(&(<RatsToRichesState>out).s, &self.s, sizeof(RRState))
        return 0

    cdef unsigned long long c_info_hash(self, int player) except? 0:
        # equal for equal observation(player) (tests/speedups checks it)
        return info_digest(&self.s, self.k, player)

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
        pending = []
        for i in range(s.npend):
            f = &s.pending[i]
            kind = FRAME_KINDS[f.kind]
            if f.kind == F_SELL:
                pending.append({"kind": kind, "player": f.player, "pipes": f.amount,
                                "last": f.last})
            elif f.kind == F_BUNDLE:
                pending.append({"kind": kind, "player": f.player,
                                "need": [f.need[0], f.need[1], f.need[2]], "last": f.last})
            else:
                pending.append({"kind": kind, "player": f.player, "left": f.amount,
                                "last": f.last})
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
                if f.kind == F_SELL:
                    f.amount = fr["pipes"]
                elif f.kind == F_BUNDLE:
                    for q in range(3):
                        f.need[q] = fr["need"][q]
                else:
                    f.amount = fr["left"]
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
