# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Ratapolis, Cython twin of the reference engine ``engines/ratapolis`` (same contract, same
behaviour, same action ids) in its default sequential planning view.

The state is one C struct (:c:type:`RPState` in ``ratapolis.pxd``), so ``clone()`` is an
allocation plus a ``memcpy``. The rules are a line-by-line transcription of the reference's
``rules.py``: the lazy draws (property tokens, hunt cards dealt one at a time, the hunt card
revealed), planning committed cell by cell in seat order (RP-2), resolution cell by cell with
all attacks before all moves (RP-3), capacity sharing with the Fire station's priority
(RP-4), the Hotel / Market / Radio station / Hospital decisions of the holder (RP-6), the
Metro's empty areas (RP-5, recomputed when a tile is hunted), the Bus station's pass-through,
the Cheese shop (RP-7) and the RP-8 tie-break. Rulings are cited in the reference where coded.

Hot path (pure C, no Python objects): ``c_current_player``, ``c_legal_actions``,
``c_chance_outcomes``, ``c_apply``, ``c_returns``, ``c_clone``, ``c_info_hash``, and the
search's determinization ``c_resample`` / ``c_resample_into`` (``rp_determinize``, the same
posterior as the reference ``resample_from_infostate``, ``fast_c_resample = True``; checked
in ``tests/speedups/test_cy_ratapolis_resample.py``). Rarely called methods (observation,
labels, describe_action, render, serialization, ``resample_from_infostate`` itself, the
heuristic) convert the C state to the equivalent reference ``RatapolisState`` and run the
reference code, so their results are identical by construction.

The joint-action view (``simultaneous=True``) is not compiled: a twin game with that
parameter makes reference states (``engines/ratapolis/rules.py``), so ``load_game(...,
simultaneous=True)`` behaves exactly as ``backend="python"``.
"""

from libc.string cimport memcpy, memset

import numpy as np

from ratai.engines import api as _api
from ratai.engines.api import keep_views
from ratai.engines.ratapolis import rules as _R
from ratai.engines.ratapolis import view as _V

from .core cimport (cy_fresh_history, cy_mix, cy_obs_add, cy_obs_hot, cy_obs_num, cy_obs_num_at,
                    cy_share_history, CyObsNum, CyState, ratai_splitmix64)
from .core import CyGame, check_bounds
from .tensor_write cimport OSet, tw_set, w_elems, w_len

# ------------------------------------------------------------------------------ constants
cdef enum:
    P_TOKENS = 0
    P_DEAL
    P_ARCHIVE
    P_PLAN
    P_HOTEL
    P_MARKET
    P_HUNT
    P_RADIO
    P_HOSPITAL
    P_END
    P_EVENT
    E_NORMAL = 0      # RP-9 round effects (rules.ROUND_EFFECTS order)
    E_NO_ATTACK = 1
    E_NOT_PLAYED = 2
    _CHANCE = -1      # ratai.engines.api.CHANCE
    _TERMINAL = -4    # ratai.engines.api.TERMINAL
    NO = -1

PHASE_NAMES = (_R.TOKENS, _R.DEAL, _R.ARCHIVE, _R.PLAN, _R.HOTEL, _R.MARKET, _R.HUNT,
               _R.RADIO, _R.HOSPITAL, _R.END, _R.EVENT)
_PHASE_ID = {name: i for i, name in enumerate(PHASE_NAMES)}
#: Size of the C state struct in bytes (a copy stops after the revealed plans in use).
STATE_BYTES = sizeof(RPState)


def _check_constants() -> None:
    """The compiled ids must be the reference's (a stale build fails loudly at import)."""
    if _api.CHANCE != _CHANCE or _api.TERMINAL != _TERMINAL or _R.NO != NO:
        raise ImportError("ratai._speedups.ratapolis is out of date with "
                          "ratai.engines.ratapolis.rules: rebuild it (pip install -e .)")
    if PHASE_NAMES != ("tokens", "deal", "archive", "plan", "hotel", "market", "hunt",
                       "radio", "hospital", "end", "event"):
        raise ImportError("ratai._speedups.ratapolis: the reference's phases changed; rebuild")
    if _R.ROUND_EFFECTS != ("normal", "no_attack", "not_played"):
        raise ImportError("ratai._speedups.ratapolis: the reference's round effects changed")
    check_bounds("Ratapolis", RP_MAXP, max(RP_MAXACT, RP_MAXB))


_check_constants()


# ====================================================================== small C helpers
cdef extern from *:
    """
    static inline int rp_popcount(unsigned int m) {
        m = m - ((m >> 1) & 0x55555555u);
        m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
        return (int)((((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
    }
    static inline int rp_ctz(unsigned int m) { return __builtin_ctz(m); }
    """
    int rp_popcount(unsigned int m) noexcept nogil
    int rp_ctz(unsigned int m) noexcept nogil


cdef inline rp_mask bit(int x) noexcept nogil:
    return (<rp_mask>1) << x


cdef inline void rp_copy(RPState* dst, const RPState* src) noexcept nogil:
    """Copy a state: everything up to the revealed plans in use (the struct's tail)."""
    memcpy(dst, src, <size_t>((<const char*>&src.plog[src.nplog]) - (<const char*>src)))


cdef inline int holder(const RPState* s, int b) noexcept nogil:
    """Seat holding building ``b``'s token, or -1 (the reference's ``holder(kind)``)."""
    cdef int t
    if b < 0:
        return NO
    t = s.tok[b]
    return t if t >= 0 else NO


cdef inline int next_planner(const RPState* s, const RPConst* k) noexcept nogil:
    cdef int q
    for q in range(k.n):
        if s.nplans[q] < 2:
            return q
    return NO


cdef inline int cards_in_round(const RPConst* k, int r) noexcept nogil:
    return k.cards_early if r < k.resh else k.cards_late


cdef inline int private_count(const RPState* s, const RPConst* k) noexcept nogil:
    return k.n if cards_in_round(k, s.round) >= k.n else 0


cdef inline rp_mask round_mask(const RPState* s, const RPConst* k, int i) noexcept nogil:
    """The hunt cards taken in round ``i + 1`` (the reference's ``round_cards``) as a mask."""
    cdef rp_mask m = 0
    cdef int q
    for q in range(k.n):
        if s.hands[i][q] != NO:
            m |= bit(s.hands[i][q])
    for q in range(s.nfu[i]):
        m |= bit(s.fu[i][q])
    return m


cdef inline int tile_rats(const RPState* s, const RPConst* k, int x) noexcept nogil:
    cdef int q, t = 0
    for q in range(k.n):
        t += s.board[x][q]
    return t


cdef inline rp_mask own_mask(const RPState* s, const RPConst* k, int seat) noexcept nogil:
    cdef rp_mask m = 0, live = k.city & ~s.gone
    cdef int x
    while live:
        x = rp_ctz(live)
        live &= live - 1
        if s.board[x][seat] > 0:
            m |= bit(x)
    return m


cdef inline rp_mask bus_mask(const RPState* s, const RPConst* k, int x) noexcept nogil:
    """Buildings reached through one intermediate building (RP-6), without ``x``."""
    cdef rp_mask reach = 0, mid = k.neigh[x] & ~s.gone
    cdef int z
    if s.gone & bit(x):
        return 0
    while mid:
        z = rp_ctz(mid)
        mid &= mid - 1
        reach |= k.neigh[z] & ~s.gone
    return reach & ~bit(x)


cdef int metro_areas(const RPState* s, const RPConst* k, rp_mask* touching) noexcept nogil:
    """The empty areas of the city (RP-5; the reference's ``RatapolisGame.geometry``): for
    each, the buildings still standing that touch it, into ``touching``; returns the count.

    An empty area is an edge-connected group of hunted tiles' cells. Each tile is one
    edge-connected group and two tiles are neighbours exactly when their cells share an
    edge, so the areas are the connected groups of hunted tiles in the neighbour graph,
    and an area touches the standing neighbours of its tiles.
    """
    cdef rp_mask rem = s.gone, comp, grow, t
    cdef int na = 0, x
    while rem:
        comp = rem & (~rem + 1)  # lowest hunted tile
        while True:
            grow = comp
            t = comp
            while t:
                x = rp_ctz(t)
                t &= t - 1
                grow |= k.neigh[x] & s.gone
            if grow == comp:
                break
            comp = grow
        rem &= ~comp
        grow = 0
        t = comp
        while t:
            x = rp_ctz(t)
            t &= t - 1
            grow |= k.neigh[x]
        touching[na] = grow & ~s.gone
        na += 1
    return na


# ====================================================================== legal actions
cdef int cell_actions(const RPState* s, const RPConst* k, int seat, int cell, int left,
                      int* out) noexcept nogil:
    """The reference's ``cell_actions(seat, cell, left)`` (rulebook Phase 2), sorted."""
    # constants in locals: stores through ``out`` may alias ``k`` (both int)
    cdef int np_ = k.n, P = k.P, nb = k.nb, MOVE = k.MOVE
    cdef rp_mask own = own_mask(s, k, seat), targets, m, d, live = ~s.gone
    cdef int n = 0, x, y, c, base, na = 0, i
    cdef bint metro_on, bus_on
    cdef const signed char* row
    cdef rp_mask areas[RP_MAXR]
    if cell == 1 and left >= MOVE:
        y = (left - MOVE) % nb
        if s.board[y][seat] == 0:
            own |= bit(y)
    out[n] = 0
    n += 1
    targets = own
    if holder(s, k.b_shooting) == seat:
        m = own
        while m:
            x = rp_ctz(m)
            m &= m - 1
            targets |= k.neigh[x] & live
    m = targets
    while m:
        x = rp_ctz(m)
        m &= m - 1
        base = 1 + x * P
        row = s.board[x]
        for c in range(np_):
            if c != seat and (cell == 1 or row[c] > 0):
                out[n] = base + c
                n += 1
    metro_on = holder(s, k.b_metro) == seat
    bus_on = holder(s, k.b_bus) == seat
    if metro_on:
        na = metro_areas(s, k, areas)
    m = own
    while m:
        x = rp_ctz(m)
        m &= m - 1
        d = k.neigh[x] & live
        if metro_on:
            for i in range(na):
                if areas[i] & bit(x):
                    d |= areas[i] & ~bit(x)
        if bus_on:
            d |= bus_mask(s, k, x)
        base = MOVE + x * nb
        while d:
            y = rp_ctz(d)
            d &= d - 1
            out[n] = base + y
            n += 1
    return n


cdef inline rp_mask hospital_dests(const RPState* s, const RPConst* k) noexcept nogil:
    """Buildings adjacent to the hunted tile with room for one more rat (RP-6)."""
    cdef rp_mask m = k.neigh[s.drawn] & ~s.gone, out = 0
    cdef int y
    while m:
        y = rp_ctz(m)
        m &= m - 1
        if tile_rats(s, k, y) < k.capacity[y]:
            out |= bit(y)
    return out


cdef int legal_actions(const RPState* s, const RPConst* k, int* out) noexcept nogil:
    cdef int ph = s.phase, q, h, n = 0, y
    cdef rp_mask m
    if ph == P_PLAN:
        q = next_planner(s, k)
        if q < 0:
            return 0
        return cell_actions(s, k, q, s.nplans[q], s.plans[q][0] if s.nplans[q] else -1, out)
    if ph == P_ARCHIVE:
        h = holder(s, k.b_archive)
        for q in range(k.n):
            if q != h and s.hands[s.round - 1][q] != NO:
                out[n] = k.LOOK + q
                n += 1
        out[n] = k.PASS
        return n + 1
    if ph == P_HOTEL or ph == P_MARKET or ph == P_RADIO:
        out[0] = k.PASS
        out[1] = k.HOTEL if ph == P_HOTEL else (k.MARKET if ph == P_MARKET else k.RADIO)
        return 2
    if ph == P_HOSPITAL:
        out[0] = k.PASS
        n = 1
        m = hospital_dests(s, k)
        while m:
            y = rp_ctz(m)
            m &= m - 1
            out[n] = k.HOSPITAL + y
            n += 1
        return n
    return 0


cdef int chance_outcomes(const RPState* s, const RPConst* k, int* act,
                         double* prob) noexcept nogil:
    cdef rp_mask pool = 0
    cdef int n = 0, i, x
    cdef double p
    if s.phase == P_EVENT:  # RP-9: a face-down event card, side uniform
        pool = s.ev_deck
        p = 0.5 / <double>rp_popcount(pool)
        while pool:
            x = rp_ctz(pool)
            pool &= pool - 1
            for i in range(2):
                act[n] = k.EVENT + 2 * x + i
                prob[n] = p
                n += 1
        return n
    if s.phase == P_TOKENS:
        for i in range(s.ntp):
            pool |= bit(s.tp[i])
    elif s.phase == P_DEAL:
        pool = s.stack
    elif s.phase == P_HUNT:  # this round's dealt and face-up cards, shuffled (Phase 4)
        pool = round_mask(s, k, s.round - 1)
    else:
        return 0
    if pool == 0:
        return 0
    p = 1.0 / <double>rp_popcount(pool)
    while pool:
        x = rp_ctz(pool)
        pool &= pool - 1
        act[n] = k.CARD + x
        prob[n] = p
        n += 1
    return n


cdef inline int current_player(const RPState* s, const RPConst* k) noexcept nogil:
    cdef int ph = s.phase
    if ph == P_PLAN:
        return next_planner(s, k)
    if ph == P_TOKENS or ph == P_DEAL or ph == P_HUNT or ph == P_EVENT:
        return _CHANCE
    if ph == P_ARCHIVE:
        return holder(s, k.b_archive)
    if ph == P_HOTEL:
        return holder(s, k.b_hotel)
    if ph == P_MARKET:
        return holder(s, k.b_market)
    if ph == P_RADIO:
        return holder(s, k.b_radio)
    if ph == P_HOSPITAL:
        return holder(s, k.b_hospital)
    return _TERMINAL


# ====================================================================== resolution (Phase 3)
cdef inline bint attack_allowed(const RPState* s, const RPConst* k, int seat,
                                int x) noexcept nogil:
    """RP-3: own rat on ``x``, or adjacent with the Shooting range; not on a removed tile."""
    cdef rp_mask m
    cdef int y
    if s.gone & bit(x):
        return False
    if s.board[x][seat] > 0:
        return True
    if holder(s, k.b_shooting) == seat:
        m = k.neigh[x] & ~s.gone
        while m:
            y = rp_ctz(m)
            m &= m - 1
            if s.board[y][seat] > 0:
                return True
    return False


cdef void resolve_attacks(RPState* s, const RPConst* k, int cell) noexcept nogil:
    """All attacks of one cell at once: legality on the board before any applies (RP-3);
    k attacks on one colour remove min(k, its rats)."""
    cdef int q, a, x, c, gone, i
    cdef int hx[RP_MAXP]
    cdef int hc[RP_MAXP]
    cdef int hk[RP_MAXP]
    cdef int nh = 0
    for q in range(k.n):
        a = s.plog[s.nplog - 1][q][cell]
        if 0 < a < k.MOVE:
            x = (a - 1) // k.P
            c = (a - 1) - x * k.P
            if attack_allowed(s, k, q, x):
                for i in range(nh):
                    if hx[i] == x and hc[i] == c:
                        hk[i] += 1
                        break
                else:
                    hx[nh] = x
                    hc[nh] = c
                    hk[nh] = 1
                    nh += 1
    for i in range(nh):
        x = hx[i]
        c = hc[i]
        gone = hk[i] if hk[i] < s.board[x][c] else s.board[x][c]
        s.board[x][c] -= gone
        s.supply[c] += gone


cdef bint resolve_moves(RPState* s, const RPConst* k, int cell, int* pend) noexcept nogil:
    """All moves of one cell at once (RP-4): sizes and free places read at the start; per
    destination the Fire station holder first, the others share (``share_capacity``).
    Returns True with ``pend = [from, to]`` when the Hotel holder may move one more rat."""
    cdef int ms[RP_MAXP]
    cdef int mx[RP_MAXP]
    cdef int my[RP_MAXP]
    cdef int mg[RP_MAXP]
    cdef int moved[RP_MAXP]
    cdef int nm = 0, q, a, x, y, i, start, free, active, arrivals, fire, hotel
    cdef rp_mask dests = 0, dm
    cdef bint pending = False
    for q in range(k.n):
        a = s.plog[s.nplog - 1][q][cell]
        if a >= k.MOVE:
            x = (a - k.MOVE) // k.nb
            y = (a - k.MOVE) - x * k.nb
            if s.board[x][q] > 0 and not (s.gone & bit(x)) and not (s.gone & bit(y)):
                ms[nm] = q
                mx[nm] = x
                my[nm] = y
                mg[nm] = s.board[x][q]
                moved[nm] = 0
                dests |= bit(y)
                nm += 1
    if nm == 0:
        return False
    fire = holder(s, k.b_fire)
    hotel = holder(s, k.b_hotel)
    dm = dests
    while dm:
        y = rp_ctz(dm)
        dm &= dm - 1
        start = tile_rats(s, k, y)
        free = k.capacity[y] - start
        if free < 0:
            free = 0
        for i in range(nm):
            if my[i] == y and ms[i] == fire:
                moved[i] = free if free < mg[i] else mg[i]
                free -= moved[i]
        while True:  # share_capacity over the others, in seat order
            active = 0
            for i in range(nm):
                if my[i] == y and ms[i] != fire and moved[i] < mg[i]:
                    active += 1
            if active == 0 or free < active:
                break
            for i in range(nm):
                if my[i] == y and ms[i] != fire and moved[i] < mg[i]:
                    moved[i] += 1
            free -= active
        arrivals = 0
        for i in range(nm):
            if my[i] == y:
                arrivals += moved[i]
        for i in range(nm):
            if (my[i] == y and ms[i] == hotel and moved[i] < mg[i]
                    and start + arrivals <= k.capacity[y]):
                pend[0] = mx[i]
                pend[1] = y
                pending = True
    for i in range(nm):
        s.board[mx[i]][ms[i]] -= moved[i]
        s.board[my[i]][ms[i]] += moved[i]
    return pending


cdef void end_of_actions(RPState* s, const RPConst* k) noexcept nogil:
    """End of phase 3: the Market holder may place a rat on a free place (RP-6)."""
    cdef int h = holder(s, k.b_market)
    if h != NO and s.supply[h] > 0:
        if tile_rats(s, k, k.b_market) < k.capacity[k.b_market]:
            s.phase = P_MARKET
            return
    to_hunt(s, k)


cdef inline int event_of(const RPState* s, int r) noexcept nogil:
    """Round ``r``'s effect (1-based; normal while its card is face down), RP-9."""
    return s.events[r - 1] if 0 < r <= s.nev else E_NORMAL


cdef void to_hunt(RPState* s, const RPConst* k) noexcept nogil:
    """Phase 4, unless the round's event says no attack (RP-9): its cards are discarded."""
    if event_of(s, s.round) == E_NO_ATTACK:
        s.discard |= round_mask(s, k, s.round - 1)
        end_round(s, k)
    else:
        s.phase = P_HUNT


cdef void resolve_from(RPState* s, const RPConst* k, int cell) noexcept nogil:
    """Resolve cells ``cell``..1 (left before right), stopping at a Hotel decision."""
    cdef int c
    cdef int pend[2]
    for c in range(cell, 2):
        resolve_attacks(s, k, c)
        if resolve_moves(s, k, c, pend):
            s.hotel[0] = pend[0]
            s.hotel[1] = pend[1]
            s.hotel[2] = c
            s.has_hotel = 1
            s.phase = P_HOTEL
            return
    end_of_actions(s, k)


# ====================================================================== phases 1, 4, 5
cdef void start_planning(RPState* s, const RPConst* k) noexcept nogil:
    cdef int h = holder(s, k.b_archive), j
    if h != NO:
        for j in range(k.n):
            if j != h and s.hands[s.round - 1][j] != NO:
                s.phase = P_ARCHIVE
                return
    s.phase = P_PLAN


cdef void deal(RPState* s, const RPConst* k, int x) noexcept nogil:
    """Phase 1: give the next seat its secret card, else lay ``x`` face up."""
    cdef int i = s.round - 1, q, dealt = 0
    cdef bint given = False
    s.stack &= ~bit(x)
    if private_count(s, k):
        for q in range(k.n):
            if s.hands[i][q] == NO:
                s.hands[i][q] = x
                given = True
                break
    if not given:
        s.fu[i][s.nfu[i]] = x
        s.nfu[i] += 1
    for q in range(k.n):
        if s.hands[i][q] != NO:
            dealt += 1
    if dealt + s.nfu[i] == cards_in_round(k, s.round):
        start_planning(s, k)


cdef void pay_cheese_shop(RPState* s, const RPConst* k) noexcept nogil:
    """RP-7: the Cheese shop holder takes 1 cheese token while tokens remain."""
    cdef int h = holder(s, k.b_cheese)
    if h != NO and s.cheese_bank > 0:
        s.cheese[h] += 1
        s.cheese_bank -= 1


cdef void distribute_tokens(RPState* s, const RPConst* k) noexcept nogil:
    """Phase 5: a token goes to the strict majority on its tile, else back to the tile."""
    cdef int b, q, top, cnt, who
    for b in range(k.nb):
        if s.tok[b] == RP_ABSENT:
            continue
        top = 0
        for q in range(k.n):
            if s.board[b][q] > top:
                top = s.board[b][q]
        cnt = 0
        who = NO
        for q in range(k.n):
            if s.board[b][q] == top:
                if cnt == 0:
                    who = q
                cnt += 1
        s.tok[b] = who if (top and cnt == 1) else NO


cdef void next_round(RPState* s, const RPConst* k) noexcept nogil:
    cdef int i, q
    s.round += 1
    i = s.round - 1
    for q in range(RP_MAXP):
        s.hands[i][q] = NO
    s.nfu[i] = 0
    s.hunted[i] = NO
    s.radio_disc[i] = NO
    s.radio_used = 0
    if s.round == k.resh or rp_popcount(s.stack) < cards_in_round(k, s.round):
        # Rulebook Phase 1: the stack has run out; the discards become the new stack (also
        # whenever the stack cannot supply a round: RP-9 leftovers, RP-10 small cities).
        s.stack |= s.discard
        s.discard = 0
        s.reshuf |= <unsigned short>(1 << s.round)
    s.phase = P_DEAL
    start_round(s, k)


cdef void start_round(RPState* s, const RPConst* k) noexcept nogil:
    """A round's start: its event card (random events) or ``round_events`` entry (RP-9)."""
    if k.ev_random and s.round >= k.ev_first and s.ev_deck:
        s.phase = P_EVENT
        return
    begin_round(s, k, k.ev_fixed[s.round - 1] if k.has_fixed else E_NORMAL, NO, NO)


cdef void begin_round(RPState* s, const RPConst* k, int effect, int card,
                      int side) noexcept nogil:
    """RP-9: a round that is not played skips its five phases; its plans are idle."""
    cdef int i = s.nev, q
    s.events[i] = effect
    s.ev_card[i] = card
    s.ev_side[i] = side
    s.nev += 1
    if effect != E_NOT_PLAYED:
        s.phase = P_DEAL
        return
    for q in range(k.n):
        s.plog[s.nplog][q][0] = 0
        s.plog[s.nplog][q][1] = 0
    s.nplog += 1
    if s.round == k.rounds:
        s.phase = P_END
    else:
        next_round(s, k)


cdef void remove_hunted(RPState* s, const RPConst* k) noexcept nogil:
    """Remove the hunted tile: rats go home, its token leaves the game (RP-5)."""
    cdef int x = s.drawn, i = s.round - 1, q
    for q in range(k.n):
        s.supply[q] += s.board[x][q]
        s.board[x][q] = 0
    s.removed[s.nremoved] = x
    s.nremoved += 1
    s.gone |= bit(x)
    if s.tok[x] != RP_ABSENT:
        s.tok[x] = RP_ABSENT
        s.tg[s.ntg] = x
        s.ntg += 1
    s.hunted[i] = x
    s.discard |= round_mask(s, k, i) & ~bit(x)
    s.drawn = NO
    end_round(s, k)


cdef void end_round(RPState* s, const RPConst* k) noexcept nogil:
    """After phase 4: the game ends in the last round, else phase 5 and the next round."""
    if s.round == k.rounds:
        pay_cheese_shop(s, k)  # RP-7: round 8 included
        s.phase = P_END
        return
    distribute_tokens(s, k)
    pay_cheese_shop(s, k)
    next_round(s, k)


cdef void after_final_draw(RPState* s, const RPConst* k) noexcept nogil:
    cdef int h = holder(s, k.b_hospital)
    if h != NO and s.board[s.drawn][h] > 0 and hospital_dests(s, k):
        s.phase = P_HOSPITAL
    else:
        remove_hunted(s, k)


cdef void after_draw(RPState* s, const RPConst* k) noexcept nogil:
    if holder(s, k.b_radio) != NO and not s.radio_used:
        s.phase = P_RADIO
    else:
        after_final_draw(s, k)


# ====================================================================== applying actions
cdef void apply_action(RPState* s, const RPConst* k, int a) noexcept nogil:
    """The reference's ``_apply_action`` (sequential view)."""
    cdef int ph = s.phase, x, i, j, q, h
    if ph == P_TOKENS:
        x = a - k.CARD
        j = 0
        for i in range(s.ntp):
            if s.tp[i] != x:
                s.tp[j] = s.tp[i]
                j += 1
        s.ntp = j
        s.tok[x] = NO
        s.tokens_left -= 1
        if s.tokens_left == 0:
            s.ntp = 0
            start_round(s, k)
    elif ph == P_EVENT:
        x = (a - k.EVENT) // 2
        i = (a - k.EVENT) - 2 * x
        s.ev_deck &= ~bit(x)
        begin_round(s, k, k.ev_eff[x][i], x, i)
    elif ph == P_DEAL:
        deal(s, k, a - k.CARD)
    elif ph == P_ARCHIVE:
        if a != k.PASS:
            i = s.nlooks
            s.looks[i][0] = s.round
            s.looks[i][1] = holder(s, k.b_archive)
            s.looks[i][2] = a - k.LOOK
            s.nlooks += 1
        s.phase = P_PLAN
    elif ph == P_PLAN:
        q = next_planner(s, k)
        s.plans[q][s.nplans[q]] = a
        s.nplans[q] += 1
        if next_planner(s, k) == NO:  # the reveal (rulebook Phase 3)
            i = s.nplog
            for q in range(k.n):
                s.plog[i][q][0] = s.plans[q][0]
                s.plog[i][q][1] = s.plans[q][1]
                s.nplans[q] = 0
            s.nplog += 1
            resolve_from(s, k, 0)
    elif ph == P_HOTEL:
        if a == k.HOTEL:
            h = holder(s, k.b_hotel)
            s.board[s.hotel[0]][h] -= 1
            s.board[s.hotel[1]][h] += 1
        s.has_hotel = 0
        resolve_from(s, k, s.hotel[2] + 1)
    elif ph == P_MARKET:
        if a == k.MARKET:
            h = holder(s, k.b_market)
            s.supply[h] -= 1
            s.board[k.b_market][h] += 1
        to_hunt(s, k)
    elif ph == P_HUNT:
        s.drawn = a - k.CARD
        after_draw(s, k)
    elif ph == P_RADIO:
        if a == k.RADIO:
            # RP-6: the card is shuffled back among this round's cards and a new card drawn.
            s.radio_disc[s.round - 1] = s.drawn
            s.radio_used = 1
            s.drawn = NO
            s.phase = P_HUNT
        else:
            after_final_draw(s, k)
    elif ph == P_HOSPITAL:
        if a != k.PASS:
            h = holder(s, k.b_hospital)
            s.board[s.drawn][h] -= 1
            s.board[a - k.HOSPITAL][h] += 1
        remove_hunted(s, k)


cdef void init_state(RPState* s, const RPConst* k) noexcept nogil:
    cdef int x, q, i
    memset(s, 0, sizeof(RPState))
    s.round = 1
    for x in range(RP_MAXB):
        s.tok[x] = RP_ABSENT
        for q in range(k.n):
            s.board[x][q] = 1 if (k.city & bit(x)) else 0  # RP-1
    for q in range(k.n):
        s.supply[q] = k.rats - rp_popcount(k.city)
    s.cheese_bank = k.cheese_tokens
    s.stack = k.city
    for i in range(RP_MAXR):
        for q in range(RP_MAXP):
            s.hands[i][q] = NO
        s.hunted[i] = NO
        s.radio_disc[i] = NO
    s.drawn = NO
    s.ev_deck = ((<rp_mask>1) << k.nevc) - 1 if k.ev_random else 0
    if k.nfixed >= 0:
        for i in range(k.nfixed):
            s.tok[k.fixed[i]] = NO
        s.ntp = 0
        s.tokens_left = 0
        start_round(s, k)
    else:
        for i in range(k.nprop):
            s.tp[i] = k.prop[i]
        s.ntp = k.nprop
        s.tokens_left = k.tokens_to_draw
        if s.tokens_left:
            s.phase = P_TOKENS
        else:
            start_round(s, k)


cdef void scores_of(const RPState* s, const RPConst* k, int* score, int* rats) noexcept nogil:
    """Cheese (rats x the tile's cheese + tokens) and rats in the city per seat."""
    cdef rp_mask live = k.city & ~s.gone
    cdef int x, q
    for q in range(k.n):
        score[q] = s.cheese[q]
        rats[q] = 0
    while live:
        x = rp_ctz(live)
        live &= live - 1
        for q in range(k.n):
            score[q] += k.cheese_per_rat[x] * s.board[x][q]
            rats[q] += s.board[x][q]


# ====================================================================== information digest
cdef unsigned long long info_digest(const RPState* s, const RPConst* k, int p) noexcept nogil:
    """A digest of ``observation(p)`` read from the struct: every field the observation
    shows (public facts, ``p``'s own cards, Archive looks by ``p``, its own unrevealed
    cells, the others' commitment counts), nothing else (the IS-MCTS chance key)."""
    cdef unsigned long long h = 0xAA7A
    cdef int n = k.n, q, i, x, r, v, t
    cdef rp_mask live = k.city & ~s.gone
    h = cy_mix(h, p)
    h = cy_mix(h, s.round)
    h = cy_mix(h, s.phase)
    h = cy_mix(h, current_player(s, k))
    h = cy_mix(h, <long long>live)
    while live:
        x = rp_ctz(live)
        live &= live - 1
        for q in range(n):
            h = cy_mix(h, s.board[x][q])
    h = cy_mix(h, s.nremoved)
    for i in range(s.nremoved):
        h = cy_mix(h, s.removed[i])
    for q in range(n):
        h = cy_mix(h, s.supply[q])
        h = cy_mix(h, s.cheese[q])
        h = cy_mix(h, s.nplans[q])
    h = cy_mix(h, s.cheese_bank)
    for x in range(k.nb):
        h = cy_mix(h, s.tok[x])
    h = cy_mix(h, 100 + s.ntg)
    for i in range(s.ntg):
        h = cy_mix(h, s.tg[i])
    h = cy_mix(h, 200 + s.ntp)
    for i in range(s.ntp):
        h = cy_mix(h, s.tp[i])
    h = cy_mix(h, s.tokens_left)
    h = cy_mix(h, rp_popcount(s.stack))
    h = cy_mix(h, rp_popcount(s.discard))
    for i in range(s.round):
        h = cy_mix(h, 300 + s.nfu[i])
        for q in range(s.nfu[i]):
            h = cy_mix(h, s.fu[i][q])
        for q in range(n):
            h = cy_mix(h, s.hands[i][q] != NO)
        h = cy_mix(h, s.hands[i][p])
        h = cy_mix(h, s.hunted[i])
        h = cy_mix(h, s.radio_disc[i])
        if i < s.nplog:
            for q in range(n):
                h = cy_mix(h, s.plog[i][q][0])
                h = cy_mix(h, s.plog[i][q][1])
        else:
            h = cy_mix(h, -7)
    h = cy_mix(h, 400 + s.nlooks)
    for i in range(s.nlooks):
        r = s.looks[i][0]
        v = s.looks[i][1]
        t = s.looks[i][2]
        h = cy_mix(h, r)
        h = cy_mix(h, v)
        h = cy_mix(h, t)
        if v == p:
            h = cy_mix(h, s.hands[r - 1][t])
    for i in range(s.nplans[p]):
        h = cy_mix(h, s.plans[p][i])
    h = cy_mix(h, s.has_hotel)
    if s.has_hotel:
        h = cy_mix(h, s.hotel[0])
        h = cy_mix(h, s.hotel[1])
        h = cy_mix(h, s.hotel[2])
    h = cy_mix(h, s.drawn)
    h = cy_mix(h, s.radio_used)
    h = cy_mix(h, 500 + s.nev)  # RP-9: events are public
    for i in range(s.nev):
        h = cy_mix(h, s.events[i])
        h = cy_mix(h, s.ev_card[i])
        h = cy_mix(h, s.ev_side[i])
    h = cy_mix(h, rp_popcount(s.ev_deck))
    h = cy_mix(h, s.reshuf)
    return h if h != 0 else 1


# ====================================================================== determinization
# The compiled twin of ``rules._sample_cards`` / ``rules._sample_plan`` (the search's
# ``c_resample`` and ``c_resample_into``): a full state seat ``p`` cannot tell from the
# source, drawn from the same distribution as the reference, reading only what
# ``observation(p)`` holds.
cdef inline int rs_below(unsigned long long* rng, int n) noexcept nogil:
    """A uniform int in ``0..n-1`` (``n >= 1``; multiply-shift, bias below 2**-32 * n)."""
    return <int>(((ratai_splitmix64(rng) >> 32) * <unsigned long long>n) >> 32)


cdef inline int mask_select(rp_mask m, int j) noexcept nogil:
    """The building id of the ``j``-th (0-based) set bit of ``m`` in increasing order."""
    while j > 0:
        m &= m - 1
        j -= 1
    return rp_ctz(m)


cdef int right_counts(const RPState* s, const RPConst* k, int q, int* per_dest) noexcept nogil:
    """How many right cells seat ``q`` may plan after each left cell, by what matters:
    ``per_dest[y]`` after a move onto building ``y`` where ``q`` has no rat (0 when there is
    no such move), ``per_dest[RP_MAXB]`` after any other left cell. Counted as
    ``cell_actions(..., 1, left)`` would list them: the new tile adds its attack targets
    (every rival colour; with the Shooting range its neighbours too) and its group's
    destinations (adjacent, Metro, Bus station)."""
    cdef int buf[RP_MAXACT]
    cdef rp_mask own = own_mask(s, k, q), live = ~s.gone, targets, m, dm
    cdef rp_mask areas[RP_MAXR]
    cdef int base, y, i, na = 0, rivals = k.n - 1
    cdef bint shooting = holder(s, k.b_shooting) == q
    cdef bint metro_on = holder(s, k.b_metro) == q
    cdef bint bus_on = holder(s, k.b_bus) == q
    base = cell_actions(s, k, q, 1, -1, buf)
    per_dest[RP_MAXB] = base
    targets = own
    if shooting:
        m = own
        while m:
            y = rp_ctz(m)
            m &= m - 1
            targets |= k.neigh[y] & live
    if metro_on:
        na = metro_areas(s, k, areas)
    for y in range(RP_MAXB):
        per_dest[y] = 0
    m = k.city & live & ~own
    while m:
        y = rp_ctz(m)
        m &= m - 1
        dm = bit(y)
        if shooting:
            dm |= k.neigh[y] & live
        per_dest[y] = base + rivals * rp_popcount(dm & ~targets)
        dm = k.neigh[y] & live
        if metro_on:
            for i in range(na):
                if areas[i] & bit(y):
                    dm |= areas[i] & ~bit(y)
        if bus_on:
            dm |= bus_mask(s, k, y)
        per_dest[y] += rp_popcount(dm)
    return base


cdef int rs_plan(RPState* d, const RPConst* k, int q, int count,
                 unsigned long long* rng) noexcept nogil:
    """Seat ``q``'s ``count`` committed cells into ``d.plans[q]`` (``rules._sample_plan``):
    one cell uniform among the legal left cells; two cells uniform among the legal (left,
    right) pairs, the left cell weighted by its number of right cells (counted once per
    move destination where ``q`` has no rat, the only way the left cell changes them)."""
    cdef int lefts[RP_MAXACT]
    cdef int rights[RP_MAXACT]
    cdef int per_dest[RP_MAXB + 1]
    cdef int nl, nr, i, a, key, total = 0, pick, left
    nl = cell_actions(d, k, q, 0, -1, lefts)
    if count == 1:
        d.plans[q][0] = lefts[rs_below(rng, nl)]
        return 0
    right_counts(d, k, q, per_dest)
    # first pass: total weight; second: the pick
    for i in range(nl):
        a = lefts[i]
        key = RP_MAXB
        if a >= k.MOVE:
            key = (a - k.MOVE) % k.nb
            if d.board[key][q] != 0:
                key = RP_MAXB
        total += per_dest[key]
    pick = rs_below(rng, total)
    left = lefts[nl - 1]
    for i in range(nl):
        a = lefts[i]
        key = RP_MAXB
        if a >= k.MOVE:
            key = (a - k.MOVE) % k.nb
            if d.board[key][q] != 0:
                key = RP_MAXB
        if pick < per_dest[key]:
            left = a
            break
        pick -= per_dest[key]
    nr = cell_actions(d, k, q, 1, left, rights)
    d.plans[q][0] = left
    d.plans[q][1] = rights[rs_below(rng, nr)]
    return 0


cdef int rp_determinize(RPState* d, const RPState* src, const RPConst* k, int p,
                        unsigned long long* rng) noexcept nogil:
    """Write into ``d`` a determinization of ``src`` for seat ``p`` (``rules._rebuild``).

    ``d`` starts as a copy of ``src``; every field ``p`` cannot see is then re-drawn from
    public fields and ``p``'s own knowledge only (so equal information states give equal
    samples for one stream): per deck epoch (the rounds from the start or from a reshuffle
    to the next) the unknown hands of each round get, in a uniform order, the round's
    revealed cards (hunted, Radio-discarded, drawn) that ``p`` does not know to be
    elsewhere, then uniform cards of the epoch's unused pool; what is left is the stack;
    the discard follows. In planning, the other seats' committed cells are drawn as in
    ``rs_plan``. Stale bytes that no observation shows are zeroed. Returns 0, or -1 for an
    impossible view (the caller then runs the reference, which raises naming the field).
    """
    cdef int n = k.n, rnd, i, q, r0, r1, ns, nm, j, c, t, nfree
    cdef rp_mask pool, used, must_all, free, known, must, gone_early
    cdef rp_mask known_r[RP_MAXR]
    cdef rp_mask must_r[RP_MAXR]
    cdef int slots[RP_MAXP]
    cdef bint seen
    rp_copy(d, src)
    rnd = d.round
    # canonical stale bytes (none is read before being written again)
    for i in range(d.ntp, RP_MAXPROP):
        d.tp[i] = 0
    for i in range(d.ntg, RP_MAXR):
        d.tg[i] = 0
    for i in range(d.nlooks, RP_MAXR):
        d.looks[i][0] = 0
        d.looks[i][1] = 0
        d.looks[i][2] = 0
    for q in range(RP_MAXP):
        for i in range(2):
            if q >= n or i >= d.nplans[q]:
                d.plans[q][i] = 0
    if not d.has_hotel:
        d.hotel[0] = 0
        d.hotel[1] = 0
        d.hotel[2] = 0
    # what p knows of each round's cards, and the revealed cards it cannot place
    for i in range(rnd):
        known = 0
        for j in range(d.nfu[i]):
            known |= bit(d.fu[i][j])
        if d.hands[i][p] != NO:
            known |= bit(d.hands[i][p])
        for j in range(d.nlooks):
            if d.looks[j][0] == i + 1 and d.looks[j][1] == p:
                known |= bit(d.hands[i][d.looks[j][2]])
        must = 0
        if d.radio_disc[i] != NO:
            must |= bit(d.radio_disc[i])
        if d.hunted[i] != NO:
            must |= bit(d.hunted[i])
        if i == rnd - 1 and d.drawn != NO:
            must |= bit(d.drawn)
        known_r[i] = known
        must_r[i] = must & ~known
    d.discard = 0
    r1 = 0
    while r1 < rnd:  # deck epochs: round indices r0..r1-1, from the start or a reshuffle
        r0 = r1
        r1 = r0 + 1
        while r1 < rnd and not (d.reshuf & (1 << (r1 + 1))):
            r1 += 1
        gone_early = 0  # a reshuffle returns every card not hunted before it
        for i in range(r0):
            if d.hunted[i] != NO:
                gone_early |= bit(d.hunted[i])
        pool = k.city & ~gone_early
        used = 0
        must_all = 0
        for i in range(r0, r1):
            if used & known_r[i] or (used | must_all) & must_r[i]:
                return -1
            used |= known_r[i]
            must_all |= must_r[i]
        if (used & must_all) or ((used | must_all) & ~pool):
            return -1
        free = pool & ~used & ~must_all
        nfree = rp_popcount(free)
        for i in range(r0, r1):
            ns = 0
            for q in range(n):
                if d.hands[i][q] == NO or q == p:
                    continue
                seen = False
                for j in range(d.nlooks):
                    if d.looks[j][0] == i + 1 and d.looks[j][1] == p and d.looks[j][2] == q:
                        seen = True
                if not seen:
                    slots[ns] = q
                    ns += 1
            nm = rp_popcount(must_r[i])
            if nm > ns:
                return -1
            for j in range(ns - 1, 0, -1):  # uniform order of the unknown hands
                t = rs_below(rng, j + 1)
                c = slots[j]
                slots[j] = slots[t]
                slots[t] = c
            must = must_r[i]
            for j in range(ns):
                if must:
                    c = rp_ctz(must)
                    must &= must - 1
                else:
                    if nfree == 0:
                        return -1
                    c = mask_select(free, rs_below(rng, nfree))
                    free &= ~bit(c)
                    nfree -= 1
                d.hands[i][slots[j]] = c
        if r1 == rnd:
            d.stack = free
            for i in range(r0, r1):  # finished rounds (rules._finished)
                if d.hunted[i] != NO:
                    d.discard |= round_mask(d, k, i) & ~bit(d.hunted[i])
                elif event_of(d, i + 1) == E_NO_ATTACK and (i + 1 < rnd or d.phase == P_END):
                    d.discard |= round_mask(d, k, i)
    if d.phase == P_PLAN:
        for q in range(n):
            if q != p and d.nplans[q]:
                rs_plan(d, k, q, d.nplans[q], rng)
    return 0


# ====================================================================== observation tensor
# The compiled ``State.observation_tensor``: ``RatapolisState.observation(p)`` encoded by
# the game's TensorLayout (engines/obs_schema.py), written from the struct straight into
# the float buffer (blocks in tensor_write.pxd). Offsets and scalings come from the layout,
# read once per game instance (``_obs_prepare`` with ``tensor_layout.CheckedLayout``, which
# checks that every slice is claimed: a field this writer does not know disables it, and
# the reference encoder is used). The writer reads what the observation holds, nothing
# else: public fields, the counts of the stack, discards and event deck, seat ``p``'s hunt
# cards, its Archive looks and its own plan cells.
ctypedef struct RPRoundObs:   # one entry of ``rounds``
    OSet face_up
    int dealt[RP_MAXP]
    int my_flag, my_card
    int hunted_flag, hunted
    OSet radio
    int event_flag, event
    int ec_flag, ec_id, ec_side

ctypedef struct RPLookObs:    # one entry of ``archive_looks``
    CyObsNum round
    int viewer, target
    int card_flag, card

ctypedef struct RPObs:
    int size
    int player
    CyObsNum num_players, round
    int phase
    signed char phase_idx[16]     # twin phase -> its one-hot index
    CyObsNum current_player
    int board_flag[RP_MAXB]
    CyObsNum board[RP_MAXB][RP_MAXP]
    OSet removed
    CyObsNum supply[RP_MAXP]
    CyObsNum cheese[RP_MAXP]
    CyObsNum cheese_bank
    int tok_flag[RP_MAXB]
    CyObsNum tok[RP_MAXB]
    OSet tokens_gone, token_pool
    CyObsNum tokens_left, stack_count, discard_count
    RPRoundObs rounds[RP_MAXR]
    int rounds_shown, rounds_len, rounds_max
    signed char effect_idx[4]     # ROUND_EFFECTS id -> its one-hot index
    RPLookObs looks[RP_MAXR]
    int looks_shown, looks_len, looks_max
    CyObsNum committed[RP_MAXP]
    int plan_item[2]
    int plan_shown, plan_len, plan_max
    short cell_idx[RP_MAXACT]     # cell action -> its one-hot index in the plan-cell enum
    int hotel_flag, hotel_from, hotel_to
    CyObsNum hotel_cell
    int drawn_flag, drawn
    int radio_used
    CyObsNum event_cards_left
    OSet reshuffles


cdef int rp_write_obs(const RPState* s, const RPConst* k, int p, float* out) noexcept nogil:
    """``observation_tensor(p)`` into ``out``; -1 (``out`` undefined) without offsets."""
    cdef const RPObs* o = <const RPObs*>k.obs
    cdef int n = k.n, q, i, x, r, t, ph, c
    cdef rp_mask city = k.city & ~s.gone
    cdef const RPRoundObs* ro
    cdef const RPLookObs* lo
    if o == NULL or p < 0 or p >= n or s.phase < 0 or s.phase >= 16:
        return -1
    ph = o.phase_idx[s.phase]
    if ph < 0:
        return -1
    memset(out, 0, <size_t>o.size * sizeof(float))
    out[o.player + p] = 1.0
    cy_obs_num(out, &o.num_players, n)
    cy_obs_num(out, &o.round, s.round)
    out[o.phase + ph] = 1.0
    cy_obs_num(out, &o.current_player, current_player(s, k))
    for x in range(k.nb):
        if city & bit(x):   # the buildings still in the city (RP-1)
            out[o.board_flag[x]] = 1.0
            for q in range(n):
                cy_obs_num(out, &o.board[x][q], s.board[x][q])
    w_elems(out, &o.removed, s.removed, s.nremoved)
    for q in range(n):
        cy_obs_num(out, &o.supply[q], s.supply[q])
    for q in range(n):
        cy_obs_num(out, &o.cheese[q], s.cheese[q])
    cy_obs_num(out, &o.cheese_bank, s.cheese_bank)
    for x in range(k.nb):
        if s.tok[x] != RP_ABSENT:
            out[o.tok_flag[x]] = 1.0
            cy_obs_num(out, &o.tok[x], s.tok[x])
    w_elems(out, &o.tokens_gone, s.tg, s.ntg)
    w_elems(out, &o.token_pool, s.tp, s.ntp)
    cy_obs_num(out, &o.tokens_left, s.tokens_left)
    cy_obs_num(out, &o.stack_count, rp_popcount(s.stack))
    cy_obs_num(out, &o.discard_count, rp_popcount(s.discard))
    for i in range(s.round if s.round < o.rounds_shown else o.rounds_shown):
        ro = &o.rounds[i]
        w_elems(out, &ro.face_up, s.fu[i], s.nfu[i])
        for q in range(n):
            out[ro.dealt[q]] = 1.0 if s.hands[i][q] != NO else 0.0
        if s.hands[i][p] != NO:   # the seat's own hunt card only
            out[ro.my_flag] = 1.0
            out[ro.my_card + s.hands[i][p]] = 1.0
        if s.hunted[i] != NO:
            out[ro.hunted_flag] = 1.0
            out[ro.hunted + s.hunted[i]] = 1.0
        if s.radio_disc[i] != NO:
            cy_obs_add(out, ro.radio.off + s.radio_disc[i], ro.radio.inc)
        if i < s.nev:   # RP-9: the round's event and revealed card are public
            out[ro.event_flag] = 1.0
            out[ro.event + o.effect_idx[s.events[i]]] = 1.0
            if s.ev_card[i] != NO:
                out[ro.ec_flag] = 1.0
                out[ro.ec_id + s.ev_card[i]] = 1.0
                out[ro.ec_side + s.ev_side[i]] = 1.0
    w_len(out, o.rounds_len, s.round, o.rounds_max)
    for i in range(s.nlooks if s.nlooks < o.looks_shown else o.looks_shown):
        lo = &o.looks[i]
        r = s.looks[i][0]
        cy_obs_num(out, &lo.round, r)
        out[lo.viewer + s.looks[i][1]] = 1.0
        out[lo.target + s.looks[i][2]] = 1.0
        if s.looks[i][1] == p:   # RP-6: the card only for the viewer
            c = s.hands[r - 1][s.looks[i][2]]
            out[lo.card_flag] = 1.0
            out[lo.card + (c if c >= 0 else k.nb - 1)] = 1.0   # letters[c], as the reference
    w_len(out, o.looks_len, s.nlooks, o.looks_max)
    for q in range(n):
        cy_obs_num(out, &o.committed[q], s.nplans[q])
    t = s.nplans[p]
    for i in range(t if t < o.plan_shown else o.plan_shown):
        out[o.plan_item[i] + o.cell_idx[s.plans[p][i]]] = 1.0
    w_len(out, o.plan_len, t, o.plan_max)
    if s.has_hotel:
        out[o.hotel_flag] = 1.0
        out[o.hotel_from + s.hotel[0]] = 1.0
        out[o.hotel_to + s.hotel[1]] = 1.0
        cy_obs_num(out, &o.hotel_cell, s.hotel[2])
    if s.drawn != NO:
        out[o.drawn_flag] = 1.0
        out[o.drawn + s.drawn] = 1.0
    out[o.radio_used] = 1.0 if s.radio_used else 0.0
    cy_obs_num(out, &o.event_cards_left, rp_popcount(s.ev_deck))
    for r in range(1, RP_MAXR + 1):
        if s.reshuf & (1 << r):
            cy_obs_add(out, o.reshuffles.off + r - 1, o.reshuffles.inc)
    return 0


# ====================================================================== game constants
cdef class _Consts:
    """The game's constants as a C struct (owned by the game, shared by its states)."""
    cdef RPConst c
    cdef RPObs obs            # the tensor writer's offsets (c.obs points here once built)
    cdef bint obs_tried
    cdef public object obs_error  # why the compiled writer is off (a layout mismatch), or None


def _make_consts(game, params) -> _Consts:
    cdef _Consts obj = _Consts()
    cdef RPConst* c = &obj.c
    cdef int i
    d = game.data
    layout = game.layout
    twin_limit = "; use backend='python'"
    if game.nb > RP_MAXB:
        raise ValueError(f"the Cython twin supports at most {RP_MAXB} buildings{twin_limit}")
    if game.P > RP_MAXP:
        raise ValueError(f"the Cython twin supports at most {RP_MAXP} players{twin_limit}")
    if d.rounds > RP_MAXR:
        raise ValueError(f"the Cython twin supports at most {RP_MAXR} rounds{twin_limit}")
    if max(d.cards_early, d.cards_late) > RP_MAXFU:
        raise ValueError(f"the Cython twin supports at most {RP_MAXFU} hunt cards a "
                         f"round{twin_limit}")
    if d.rats_per_player > 100 or d.cheese_tokens > 100:
        raise ValueError(f"the Cython twin supports at most 100 rats per player and 100 "
                         f"cheese tokens{twin_limit}")
    if len(game.prop_letters) > RP_MAXPROP:
        raise ValueError(f"the Cython twin supports at most {RP_MAXPROP} property "
                         f"buildings{twin_limit}")
    if game.PLAN > RP_MAXACT:  # num_distinct_actions() of the sequential view
        raise ValueError(f"the Cython twin supports at most {RP_MAXACT} action ids{twin_limit}")
    memset(c, 0, sizeof(RPConst))
    c.n = game.n
    c.P = game.P
    c.nb = game.nb
    c.rounds = d.rounds
    c.resh = d.reshuffle_round
    c.cards_early = d.cards_early
    c.cards_late = d.cards_late
    c.rats = d.rats_per_player
    c.cheese_tokens = d.cheese_tokens
    c.MOVE = game.MOVE
    c.C = game.C
    c.CARD = game.CARD
    c.LOOK = game.LOOK
    c.PASS = game.PASS
    c.HOTEL = game.HOTEL
    c.MARKET = game.MARKET
    c.RADIO = game.RADIO
    c.HOSPITAL = game.HOSPITAL
    c.PLAN = game.PLAN
    c.num_actions = game.PLAN
    for x in range(game.nb):
        c.capacity[x] = game.capacity[x]
        c.cheese_per_rat[x] = game.cheese_per_rat[x]
        c.neigh[x] = 0
        for y in game.neighbours[x]:
            c.neigh[x] |= bit(y)
    c.city = 0
    for x in layout.tiles:
        c.city |= bit(x)
    kinds = {kind: game.letters.index(letter) for kind, letter in game.property_letter.items()}
    c.b_market = kinds.get("market", -1)
    c.b_archive = kinds.get("archive", -1)
    c.b_shooting = kinds.get("shooting_range", -1)
    c.b_hotel = kinds.get("hotel", -1)
    c.b_radio = kinds.get("radio", -1)
    c.b_metro = kinds.get("metro", -1)
    c.b_fire = kinds.get("fire_station", -1)
    c.b_bus = kinds.get("bus_station", -1)
    c.b_cheese = kinds.get("cheese_shop", -1)
    c.b_hospital = kinds.get("hospital", -1)
    if game.fixed_tokens is None:
        c.nfixed = -1
    else:
        c.nfixed = len(game.fixed_tokens)
        for i, letter in enumerate(game.fixed_tokens):
            c.fixed[i] = game.letters.index(letter)
    c.nprop = len(game.prop_letters)
    for i, letter in enumerate(game.prop_letters):
        c.prop[i] = game.letters.index(letter)
    c.tokens_to_draw = game.tokens_to_draw
    # RP-9 scenario events
    effects = _R.ROUND_EFFECTS
    cards = d.event_cards
    if len(cards) > RP_MAXEV:
        raise ValueError(f"the Cython twin supports at most {RP_MAXEV} event cards{twin_limit}")
    c.EVENT = game.EVENT
    c.nevc = len(cards)
    c.ev_random = game.events_random
    c.ev_first = game.first_event_round
    c.has_fixed = game.events_fixed is not None
    for i, e in enumerate(game.events_fixed or ()):
        c.ev_fixed[i] = effects.index(e)
    for i, card in enumerate(cards):
        c.ev_eff[i][0] = effects.index(card.side_a)
        c.ev_eff[i][1] = effects.index(card.side_b)
    return obj


cdef void _rp_build_obs(RPObs* o, game) except *:
    """Fill ``o`` from ``game``'s tensor layout (LayoutMismatch: not this writer's)."""
    from .tensor_layout import CheckedLayout, LayoutMismatch

    cdef int n = game.n, nb = game.nb, rounds = game.data.rounds, q, i, x, a
    cdef RPRoundObs* ro
    cdef RPLookObs* lo
    L = CheckedLayout(game)
    memset(o, 0, sizeof(RPObs))
    o.size = L.size
    letters = list(game.letters)
    seats = list(range(n))
    o.player = L.onehot("$.player", seats)[0]
    cy_obs_num_at(&o.num_players, L, "$.num_players")
    cy_obs_num_at(&o.round, L, "$.round")
    o.phase, phases = L.onehot("$.phase")
    for i in range(16):
        o.phase_idx[i] = -1
    for i, name in enumerate(PHASE_NAMES):
        if name in phases:
            o.phase_idx[i] = phases.index(name)
    cy_obs_num_at(&o.current_player, L, "$.current_player")
    for x in range(nb):
        o.board_flag[x] = L.flag(f"$.board.{letters[x]}")
        for q in range(n):
            cy_obs_num_at(&o.board[x][q], L, f"$.board.{letters[x]}[{q}]")
    tw_set(&o.removed, L.multiset("$.removed", letters))
    for q in range(n):
        cy_obs_num_at(&o.supply[q], L, f"$.supply[{q}]")
    for q in range(n):
        cy_obs_num_at(&o.cheese[q], L, f"$.cheese_tokens[{q}]")
    cy_obs_num_at(&o.cheese_bank, L, "$.cheese_bank")
    for x in range(nb):
        o.tok_flag[x] = L.flag(f"$.tokens.{letters[x]}")
        cy_obs_num_at(&o.tok[x], L, f"$.tokens.{letters[x]}")
    tw_set(&o.tokens_gone, L.multiset("$.tokens_gone", letters))
    tw_set(&o.token_pool, L.multiset("$.token_pool", letters))
    cy_obs_num_at(&o.tokens_left, L, "$.tokens_left")
    cy_obs_num_at(&o.stack_count, L, "$.stack_count")
    cy_obs_num_at(&o.discard_count, L, "$.discard_count")
    shown = L.items("$.rounds")
    o.rounds_shown = min(shown, RP_MAXR)
    L.unused("$.rounds", o.rounds_shown)
    effects = list(_R.ROUND_EFFECTS)
    event_ids = [c.id for c in game.data.event_cards]
    for i in range(o.rounds_shown):
        ro = &o.rounds[i]
        b = f"$.rounds[{i}]"
        tw_set(&ro.face_up, L.multiset(f"{b}.face_up", letters))
        for q in range(n):
            ro.dealt[q] = L.boolean(f"{b}.dealt[{q}]")
        ro.my_flag = L.flag(f"{b}.my_card")
        ro.my_card = L.onehot(f"{b}.my_card", letters)[0]
        ro.hunted_flag = L.flag(f"{b}.hunted")
        ro.hunted = L.onehot(f"{b}.hunted", letters)[0]
        tw_set(&ro.radio, L.multiset(f"{b}.radio_discarded", letters))
        ro.event_flag = L.flag(f"{b}.event")
        ro.event, values = L.onehot(f"{b}.event")
        for a, name in enumerate(effects):
            if name not in values:
                raise LayoutMismatch(f"ratapolis: {b}.event has no value {name!r}")
            o.effect_idx[a] = values.index(name)
        ro.ec_flag = L.flag(f"{b}.event_card")
        ro.ec_id = L.onehot(f"{b}.event_card.id", event_ids)[0]
        ro.ec_side = L.onehot(f"{b}.event_card.side", ["A", "B"])[0]
    o.rounds_len, o.rounds_max = L.length("$.rounds")
    shown = L.items("$.archive_looks")
    o.looks_shown = min(shown, RP_MAXR)   # one Archive phase a round
    L.unused("$.archive_looks", o.looks_shown)
    for i in range(o.looks_shown):
        lo = &o.looks[i]
        b = f"$.archive_looks[{i}]"
        cy_obs_num_at(&lo.round, L, f"{b}.round")
        lo.viewer = L.onehot(f"{b}.viewer", seats)[0]
        lo.target = L.onehot(f"{b}.target", seats)[0]
        lo.card_flag = L.flag(f"{b}.card")
        lo.card = L.onehot(f"{b}.card", letters)[0]
    o.looks_len, o.looks_max = L.length("$.archive_looks")
    for q in range(n):
        cy_obs_num_at(&o.committed[q], L, f"$.committed[{q}]")
    shown = L.items("$.my_plan")
    o.plan_shown = min(shown, 2)
    L.unused("$.my_plan", o.plan_shown)
    ref = game.reference_game().new_initial_state()
    for i in range(o.plan_shown):
        o.plan_item[i], cells = L.onehot(f"$.my_plan[{i}]")
    if o.plan_shown:
        if game.C > RP_MAXACT:
            raise LayoutMismatch(f"ratapolis: {game.C} plan cells, the writer holds {RP_MAXACT}")
        index = {label: j for j, label in enumerate(cells)}
        for a in range(game.C):
            o.cell_idx[a] = index.get(ref._cell_label(a), 0) if ref._valid_id(a) else 0
    o.plan_len, o.plan_max = L.length("$.my_plan")
    o.hotel_flag = L.flag("$.hotel")
    o.hotel_from = L.onehot("$.hotel.from", letters)[0]
    o.hotel_to = L.onehot("$.hotel.to", letters)[0]
    cy_obs_num_at(&o.hotel_cell, L, "$.hotel.cell")
    o.drawn_flag = L.flag("$.drawn")
    o.drawn = L.onehot("$.drawn", letters)[0]
    o.radio_used = L.boolean("$.radio_used")
    cy_obs_num_at(&o.event_cards_left, L, "$.event_cards_left")
    tw_set(&o.reshuffles, L.multiset("$.reshuffles", list(range(1, rounds + 1))))
    L.finish()


cdef void _obs_prepare(_Consts c, game) except *:
    """Build the writer's offsets once per game (``c.obs_error``: why it is off, or None;
    a game whose layout cannot be built then raises that error from observation_tensor)."""
    if c.obs_tried:
        return
    c.obs_tried = True
    try:
        _rp_build_obs(&c.obs, game)
    except (ValueError, KeyError, NotImplementedError, ImportError) as exc:
        c.obs_error = str(exc)   # LayoutMismatch among them
        return
    c.c.obs = &c.obs


# ====================================================================== conversion
cdef list _mask_list(rp_mask m):
    out = []
    cdef int x
    while m:
        x = rp_ctz(m)
        m &= m - 1
        out.append(x)
    return out


cdef inline list _lst(const signed char* arr, int n):
    return [arr[i] for i in range(n)]


cdef rp_mask _to_mask(values, int nb, str field) except? 0xFFFFFFFF:
    cdef rp_mask m = 0
    prev = -1
    for v in values:
        if not prev < v < nb:
            raise ValueError(f"field {field!r}: expected sorted distinct building ids, "
                             f"got {values!r}")
        m |= bit(v)
        prev = v
    return m


# ====================================================================== the state
cdef class RatapolisState(CyState):
    """A Ratapolis position in one C struct; the same API as the reference
    ``RatapolisState`` (sequential planning view).

    Create states with ``RatapolisGame.new_initial_state()``; see ``engines/api.py`` for the
    contract of each method.
    """

    def __init__(self, game):
        self._attach(game)
        init_state(&self.s, self.k)

    cdef int _attach(self, game) except -1:
        CyState._attach(self, game)
        self.k = &(<_Consts>self._consts).c
        if not (<_Consts>self._consts).obs_tried:   # the tensor writer's offsets, once a game
            _obs_prepare(<_Consts>self._consts, game)
        return 0

    # ------------------------------------------------------------------ perfect recall
    cdef int _view_codes(self, int a, int* out) except -1:
        # the reference's rule (a hidden deal or plan cell is -1 to the other seats); only
        # those two phases need the conversion
        cdef int q, n = self.k.n
        phase = PHASE_NAMES[self.s.phase]
        codes = self.to_reference()._view_codes(a) if phase in (_R.DEAL, _R.PLAN) \
            else [a] * n
        for q in range(n):
            out[q] = codes[q]
        return n

    # ------------------------------------------------------------------ C-level contract
    cdef int c_current_player(self) noexcept nogil:
        return current_player(&self.s, self.k)

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        if current_player(&self.s, self.k) < 0:
            return 0
        return legal_actions(&self.s, self.k, out)

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept nogil:
        return chance_outcomes(&self.s, self.k, actions, probs)

    cdef void c_apply(self, int action) noexcept nogil:
        apply_action(&self.s, self.k, action)

    cdef int c_returns(self, double* out) noexcept nogil:
        cdef int score[RP_MAXP]
        cdef int rats[RP_MAXP]
        cdef int q, n = self.k.n, best_s, best_r, nw = 0
        if self.s.phase != P_END:
            for q in range(n):
                out[q] = 0.0
            return n
        scores_of(&self.s, self.k, score, rats)
        best_s = score[0]
        best_r = rats[0]
        for q in range(1, n):  # most cheese; tie: more rats in the city (RP-8)
            if score[q] > best_s or (score[q] == best_s and rats[q] > best_r):
                best_s = score[q]
                best_r = rats[q]
        for q in range(n):
            if score[q] == best_s and rats[q] == best_r:
                nw += 1
        for q in range(n):
            out[q] = 1.0 / <double>nw if (score[q] == best_s and rats[q] == best_r) else 0.0
        return n

    cdef int c_num_players(self) noexcept nogil:
        return self.k.n

    cdef int c_num_actions(self) noexcept nogil:
        return self.k.num_actions

    cdef void c_copy_from(self, CyState other) noexcept nogil:
        rp_copy(&self.s, &(<RatapolisState>other).s)

    cdef CyState c_clone(self):
        cdef RatapolisState new = RatapolisState.__new__(RatapolisState)
        rp_copy(&new.s, &self.s)
        new.k = self.k
        cy_share_history(self, new)
        return new

    #: The search may call ``c_resample`` per iteration: it is compiled (see rp_determinize).
    fast_c_resample = True

    cdef CyState c_blank(self):
        cdef RatapolisState out = RatapolisState.__new__(RatapolisState)
        out.k = self.k
        return out

    cdef int c_resample_into(self, int player, CyState out, unsigned long long* rng) noexcept nogil:
        # rp_determinize declines (-1) only for a view no game reaches (the reference raises).
        return rp_determinize(&(<RatapolisState>out).s, &self.s, self.k, player, rng)

    cdef int c_rewind_hidden_moves(self, int player, int* script) noexcept nogil:
        # RP-2, the reference's ``rewind_hidden_moves``: from the first rival with a committed
        # cell, every seat's cells of this round in seat order (a rival's as -1) are undone
        cdef int q, q0 = NO, i, count = 0
        if self.s.phase != P_PLAN:
            return 0
        for q in range(self.k.n):
            if q != player and self.s.nplans[q]:
                q0 = q
                break
        if q0 == NO:
            return 0
        for q in range(q0, self.k.n):
            for i in range(self.s.nplans[q]):
                script[count] = self.s.plans[q][i] if q == player else -1
                count += 1
            self.s.nplans[q] = 0
            self.s.plans[q][0] = 0
            self.s.plans[q][1] = 0
        return count

    cdef unsigned long long c_info_hash(self, int player) except? 0:
        # equal for equal observation(player) (tests/speedups/test_cy_ratapolis.py checks it)
        return info_digest(&self.s, self.k, player)

    cdef int c_observation_tensor(self, int player, float* out) noexcept nogil:
        # -1 when the game's layout is not the writer's (_Consts.obs_error says why)
        return rp_write_obs(&self.s, self.k, player, out)

    cdef int c_observation_size(self) noexcept nogil:
        return 0 if self.k.obs == NULL else (<const RPObs*>self.k.obs).size
    cdef int c_info_hash_into(self, int player, unsigned long long* out) noexcept nogil:
        # c_info_hash without the GIL (the threaded IS-MCTS's chance key)
        out[0] = info_digest(&self.s, self.k, player)
        return 0

    # ------------------------------------------------------------------ fast Python API
    @property
    def phase(self) -> str:
        """The reference's ``phase`` field (read-only)."""
        return PHASE_NAMES[self.s.phase]

    @property
    def round(self) -> int:
        """The reference's ``round`` field, 1-based (read-only)."""
        return self.s.round

    def is_terminal(self) -> bool:
        return self.s.phase == P_END

    def _legal_actions(self) -> list:
        cdef int buf[RP_MAXACT]
        cdef int n = legal_actions(&self.s, self.k, buf)
        return [buf[i] for i in range(n)]

    def _chance_outcomes(self) -> list:
        cdef int act[RP_MAXB]
        cdef double prob[RP_MAXB]
        cdef int n = chance_outcomes(&self.s, self.k, act, prob)
        return [(act[i], prob[i]) for i in range(n)]

    def _raise_illegal(self, action):
        """The reference's IllegalActionError for ``action`` (planning nodes list the first
        legal cells and a count)."""
        self.to_reference().apply_action(action)  # raises the reference's error
        raise RuntimeError(f"Cython Ratapolis twin disagrees with the reference on the "
                           f"legality of {action!r}")

    def apply_actions(self, actions) -> None:
        """Joint view only (``simultaneous=True``), which the twin does not compile.

        Raises:
            ValueError: always (this is the sequential view).
        """
        raise ValueError("apply_actions() is only for the joint planning node "
                         "(game parameter simultaneous=True, phase 'plan')")

    def scores(self) -> list:
        """Cheese now: rats x the tile's cheese, plus cheese tokens (End of the Game)."""
        cdef int score[RP_MAXP]
        cdef int rats[RP_MAXP]
        scores_of(&self.s, self.k, score, rats)
        return [float(score[q]) for q in range(self.k.n)]

    def rats_in_city(self) -> list:
        """Rats of each seat on building tiles (the first tie-breaker, RP-8)."""
        cdef int score[RP_MAXP]
        cdef int rats[RP_MAXP]
        scores_of(&self.s, self.k, score, rats)
        return [rats[q] for q in range(self.k.n)]

    # ------------------------------------------------------------------ conversion
    def to_reference(self):
        """The equivalent reference ``RatapolisState`` (same fields, same history)."""
        cdef RPState* s = &self.s
        cdef const RPConst* k = self.k
        cdef int n = k.n, i, q, x
        letters = self._game.letters
        r = _R.RatapolisState.__new__(_R.RatapolisState)
        d = r.__dict__
        # the reference's __init__ order (serialize() writes the fields in this order)
        d["_game"] = self._game
        d["_history"] = list(self._hist)
        d["round"] = s.round
        d["board"] = [[s.board[x][q] for q in range(n)] for x in range(k.nb)]
        d["removed"] = _lst(s.removed, s.nremoved)
        d["supply"] = [s.supply[q] for q in range(n)]
        d["cheese"] = [s.cheese[q] for q in range(n)]
        d["cheese_bank"] = s.cheese_bank
        d["tokens"] = {letters[x]: s.tok[x] for x in range(k.nb) if s.tok[x] != RP_ABSENT}
        d["tokens_gone"] = [letters[s.tg[i]] for i in range(s.ntg)]
        d["stack"] = _mask_list(s.stack)
        d["discard"] = _mask_list(s.discard)
        d["hands"] = [[s.hands[i][q] for q in range(n)] for i in range(s.round)]
        d["face_up"] = [_lst(s.fu[i], s.nfu[i]) for i in range(s.round)]
        d["hunted"] = [s.hunted[i] for i in range(s.round)]
        d["radio_discarded"] = [[s.radio_disc[i]] if s.radio_disc[i] != NO else []
                                for i in range(s.round)]
        d["looks"] = [[s.looks[i][0], s.looks[i][1], s.looks[i][2]] for i in range(s.nlooks)]
        d["plans"] = [[s.plans[q][i] for i in range(s.nplans[q])] for q in range(n)]
        d["plans_log"] = [[[s.plog[i][q][0], s.plog[i][q][1]] for q in range(n)]
                          for i in range(s.nplog)]
        d["hotel"] = [s.hotel[0], s.hotel[1], s.hotel[2]] if s.has_hotel else None
        d["drawn"] = s.drawn
        d["radio_used"] = bool(s.radio_used)
        effects = _R.ROUND_EFFECTS
        d["events"] = [effects[s.events[i]] for i in range(s.nev)]
        d["event_cards"] = [[s.ev_card[i], s.ev_side[i]] if s.ev_card[i] != NO else None
                            for i in range(s.nev)]
        d["event_deck"] = _mask_list(s.ev_deck)
        d["reshuffles"] = [r for r in range(1, RP_MAXR + 1) if s.reshuf & (1 << r)]
        d["token_pool"] = [letters[s.tp[i]] for i in range(s.ntp)]
        d["tokens_left"] = s.tokens_left
        d["phase"] = PHASE_NAMES[s.phase]
        d["views"] = None if self._views is None else [list(log) for log in self._views]
        return r

    cdef void _load(self, r) except *:
        """Fill the C struct from a reference state ``r`` (ValueError naming a bad field)."""
        cdef RPState* s = &self.s
        cdef const RPConst* k = self.k
        cdef int n = k.n, nb = k.nb, i, q, x
        letters = self._game.letters
        memset(s, 0, sizeof(RPState))
        for x in range(RP_MAXB):
            s.tok[x] = RP_ABSENT
        field = "round"
        try:
            s.round = r.round
            rnd = r.round
            if not 1 <= rnd <= k.rounds:
                raise ValueError("out of range")
            field = "phase"
            s.phase = _PHASE_ID[r.phase]
            field = "board"
            if len(r.board) != nb:
                raise ValueError(f"expected {nb} rows")
            for x, row in enumerate(r.board):
                if len(row) != n:
                    raise ValueError(f"expected {n} counts a row")
                for q in range(n):
                    s.board[x][q] = row[q]
            field = "removed"
            if len(r.removed) > RP_MAXR:
                raise ValueError("too many")
            for i, x in enumerate(r.removed):
                if not 0 <= x < nb or s.gone & bit(x):
                    raise ValueError(f"bad building {x!r}")
                s.removed[i] = x
                s.gone |= bit(x)
            s.nremoved = len(r.removed)
            field = "supply"
            for q in range(n):
                s.supply[q] = r.supply[q]
            field = "cheese"
            for q in range(n):
                s.cheese[q] = r.cheese[q]
            field = "cheese_bank"
            s.cheese_bank = r.cheese_bank
            field = "tokens"
            for letter, h in r.tokens.items():
                s.tok[letters.index(letter)] = h
            field = "tokens_gone"
            if len(r.tokens_gone) > RP_MAXR:
                raise ValueError("too many")
            for i, letter in enumerate(r.tokens_gone):
                s.tg[i] = letters.index(letter)
            s.ntg = len(r.tokens_gone)
            field = "token_pool"
            if len(r.token_pool) > RP_MAXPROP:
                raise ValueError("too many")
            for i, letter in enumerate(r.token_pool):
                s.tp[i] = letters.index(letter)
            s.ntp = len(r.token_pool)
            field = "tokens_left"
            s.tokens_left = r.tokens_left
            field = "stack"
            s.stack = _to_mask(r.stack, nb, "stack")
            field = "discard"
            s.discard = _to_mask(r.discard, nb, "discard")
            for i in range(RP_MAXR):
                for q in range(RP_MAXP):
                    s.hands[i][q] = NO
                s.hunted[i] = NO
                s.radio_disc[i] = NO
            field = "hands"
            if len(r.hands) != rnd or any(len(h) != n for h in r.hands):
                raise ValueError(f"expected {rnd} rounds of {n} cards")
            for i, hand in enumerate(r.hands):
                for q in range(n):
                    s.hands[i][q] = hand[q]
            field = "face_up"
            if len(r.face_up) != rnd:
                raise ValueError(f"expected {rnd} rounds")
            for i, fu in enumerate(r.face_up):
                if len(fu) > RP_MAXFU:
                    raise ValueError("too many cards")
                for q, x in enumerate(fu):
                    s.fu[i][q] = x
                s.nfu[i] = len(fu)
            field = "hunted"
            if len(r.hunted) != rnd:
                raise ValueError(f"expected {rnd} rounds")
            for i, x in enumerate(r.hunted):
                s.hunted[i] = x
            field = "radio_discarded"
            if len(r.radio_discarded) != rnd or any(len(v) > 1 for v in r.radio_discarded):
                raise ValueError(f"expected {rnd} rounds of at most one card")
            for i, v in enumerate(r.radio_discarded):
                s.radio_disc[i] = v[0] if v else NO
            field = "looks"
            if len(r.looks) > RP_MAXR:
                raise ValueError("too many")
            for i, look in enumerate(r.looks):
                rr, vv, tt = look
                s.looks[i][0] = rr
                s.looks[i][1] = vv
                s.looks[i][2] = tt
            s.nlooks = len(r.looks)
            field = "plans"
            if len(r.plans) != n or any(len(p) > 2 for p in r.plans):
                raise ValueError(f"expected {n} lists of at most 2 cells")
            for q, p in enumerate(r.plans):
                for i, a in enumerate(p):
                    s.plans[q][i] = a
                s.nplans[q] = len(p)
            field = "plans_log"
            if len(r.plans_log) > rnd:
                raise ValueError("more revealed plans than rounds")
            for i, pl in enumerate(r.plans_log):
                if len(pl) != n:
                    raise ValueError(f"expected {n} plans a round")
                for q, p in enumerate(pl):
                    left, right = p
                    s.plog[i][q][0] = left
                    s.plog[i][q][1] = right
            s.nplog = len(r.plans_log)
            field = "hotel"
            if r.hotel is not None:
                x0, y0, c0 = r.hotel
                s.hotel[0] = x0
                s.hotel[1] = y0
                s.hotel[2] = c0
                s.has_hotel = 1
            field = "drawn"
            s.drawn = r.drawn
            field = "radio_used"
            s.radio_used = bool(r.radio_used)
            field = "events"
            if len(r.events) > rnd or len(r.event_cards) != len(r.events):
                raise ValueError("one effect and one event card entry per round begun")
            for i, e in enumerate(r.events):
                s.events[i] = _R.ROUND_EFFECTS.index(e)
                c = r.event_cards[i]
                s.ev_card[i] = c[0] if c else NO
                s.ev_side[i] = c[1] if c else NO
            s.nev = len(r.events)
            field = "event_deck"
            s.ev_deck = _to_mask(r.event_deck, k.nevc, "event_deck")
            field = "reshuffles"
            s.reshuf = 0
            for rr in r.reshuffles:
                if not 2 <= rr <= rnd:
                    raise ValueError(f"bad round {rr!r}")
                s.reshuf |= <unsigned short>(1 << rr)
        except (KeyError, IndexError, TypeError, AttributeError, OverflowError,
                ValueError) as exc:
            raise ValueError(f"not a Ratapolis state for the Cython twin: field {field!r}: "
                             f"{exc}") from exc

    # ------------------------------------------------------------------ slow Python API
    def holder(self, kind) -> int:
        """Seat holding the token of property ``kind`` (e.g. ``"hotel"``), or -1."""
        return self.to_reference().holder(kind)

    def round_cards(self, r=None) -> list:
        """Hunt cards taken in round ``r`` (1-based; default: this round), sorted."""
        return self.to_reference().round_cards(r)

    def cell_actions(self, s, cell, left=None) -> list:
        """The reference's ``cell_actions`` (what seat ``s`` may plan in ``cell``)."""
        return self.to_reference().cell_actions(s, cell, left)

    def hospital_destinations(self) -> list:
        return self.to_reference().hospital_destinations()

    def _right_counts(self, int seat):
        """Test hook: ``{left: number of right cells}`` for every legal left cell of
        ``seat`` as the compiled sampler weighs them (``right_counts``)."""
        cdef int per_dest[RP_MAXB + 1]
        cdef int lefts[RP_MAXACT]
        cdef int nl, i, a, key
        right_counts(&self.s, self.k, seat, per_dest)
        nl = cell_actions(&self.s, self.k, seat, 0, -1, lefts)
        out = {}
        for i in range(nl):
            a = lefts[i]
            key = RP_MAXB
            if a >= self.k.MOVE:
                key = (a - self.k.MOVE) % self.k.nb
                if self.s.board[key][seat] != 0:
                    key = RP_MAXB
            out[a] = per_dest[key]
        return out

    def resample_c(self, player, rng=None):
        """The compiled determinization the search uses (``c_resample``), as a new state.

        Same distribution as :meth:`resample_from_infostate` (the reference ``_rebuild``),
        another random stream: ``rng`` is an int (the splitmix64 seed itself), a numpy
        ``Generator`` (one 64-bit draw seeds the stream) or anything ``make_rng`` accepts.
        Equal information states of seat ``player`` give equal samples for equal ``rng``.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        p = _api.check_player(player, self.k.n)
        return self._determinized(p, rng, None, NULL)

    def __repr__(self):
        return f"<cython RatapolisState round {self.s.round} phase " \
               f"{PHASE_NAMES[self.s.phase]!r}>"


# ====================================================================== the game
class RatapolisGame(CyGame, _R.RatapolisGame):
    """Ratapolis (Cython twin): the reference game's parameters, constants and data, with
    states of :class:`RatapolisState`.

    With ``simultaneous=True`` (the joint-action view, not compiled) the states are the
    reference's ``RatapolisState``: identical behaviour, reference speed.
    """

    _state_class = RatapolisState
    _reference_class = _R.RatapolisGame

    def _check_params(self, params):
        params = super()._check_params(params)
        self._consts = None if params["simultaneous"] else _make_consts(self, params)
        return params

    def new_initial_state(self):
        if self._consts is None:
            return _R.RatapolisState(self)
        return RatapolisState(self)

    def _state_from_observation(self, player, observation, rng=None):
        ref = _R._rebuild(self, player, observation, _api.make_rng(rng))
        if self._consts is None:
            return ref
        return self._from_reference(ref)

    def from_reference(self, ref):
        """The twin of a reference ``RatapolisState`` of equal parameters (history kept)."""
        if ref._game.params == self.params and self._consts is None:
            raise ValueError("simultaneous=True states are reference states; use them as is")
        return super().from_reference(ref)

    def deserialize_state(self, data, *, validate=True):
        """Inverse of ``RatapolisState.serialize``: the reference's format and validation
        (``validate``: see ``engines.api.Game.deserialize_state``).

        Raises:
            ValueError: the bytes are not a serialized state of this game and parameters.
        """
        if self._consts is None:
            return _R.RatapolisGame.deserialize_state(self, data, validate=validate)
        return super().deserialize_state(data, validate=validate)
