# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""First Rat, Cython twin of the reference engine ``engines/first_rat`` (same contract, same
behaviour, same action ids, every parameter: 1-5 players with solo Greg, both layouts,
``first_game``, every difficulty and ``greg_best_tie``, a replacement ``data_path``).

The state is one C struct (:c:type:`FRState` in ``first_rat.pxd``), so ``clone()`` is an
allocation plus a ``memcpy``. The rules are a function-by-function transcription of the
reference ``rules.py`` (``_iter_rat_moves``, ``_b_can_follow``, ``_run``, ``_collect``,
``_pay_landing``, ``_greg_run``, ...; rulings FR-1..FR-19 and the JUDGEMENT calls are cited
there): the same turn cursor (``step``), the same lazy draws, the same automatic application
of single-option steps. Lists keep the reference's order (e.g. displays in draw order during
setup, string-sorted after it), so the conversion back is exact.

Hot path (pure C, no Python objects): ``c_current_player``, ``c_legal_actions``,
``c_chance_outcomes``, ``c_apply``, ``c_returns``, ``c_clone``/``c_copy_from``. The rarely
called methods (observation, labels, describe_action, render, serialization,
state_from_observation) convert the C state to the equivalent reference ``FirstRatState`` and
run the reference code, so their results are identical by construction; ``tests/speedups``
checks the twin against the reference at every step of seeded games.

Component effects (comics, bottle caps, Rat Burrow rewards, the light string; data
``effects``) are compiled at load into constant tables of ``FRConst``: per item and quantity a
modifier summary (add, at least, at most), per item its end-of-game scoring effects (count,
times, divide, plus, max, condition), per reward its automatic effects as codes, and the
light string's lit spaces per marker position. The hot path reads only those tables.

Movement (Step 1) is generated from bit sets compiled from the route table: per path space and
step budget the route indices (ascending = the (mask, destination) order, so ids come out
sorted), those with a shortcut, and the destinations of all of them / of those without a
shortcut. Existence checks (``any_move``: turn start, option B's continuation) and option B's
FR-3 "a second rat can follow" (``b_follows``) are mask operations on those sets.

The reference turn driver recurses (``_run`` -> ``_end_turn`` -> ``_start_turn`` -> ``_run``);
here it is one loop (``run``) whose helpers return "the new turn needs running", which visits
the same steps in the same order.
"""

from libc.string cimport memcpy, memset

import numpy as np

from ratai.engines import api as _api
from ratai.engines.effects import COMPARISONS as _COMPARISONS
from ratai.engines.first_rat import rules as _R
from ratai.engines.first_rat.data import (
    BOOTH_ITEMS,
    COLOURS,
    COUNTS,
    MATERIALS,
    QUANTITIES,
    PARTS,
    RULEBOOK,
    TRACKS,
    YIELD_KINDS,
)

from .core cimport (cy_compare, cy_fresh_history, cy_mix, cy_mix_arr, cy_obs_add,
                    cy_obs_hot, cy_obs_len, cy_obs_num, cy_obs_num_at, cy_share_history,
                    CyState)
from .core import CyGame, ObsLayout, check_bounds

# ------------------------------------------------------------------------------ constants
cdef enum:
    _CHANCE = -1      # ratai.engines.api.CHANCE
    _TERMINAL = -4    # ratai.engines.api.TERMINAL
    NURSERY = -1
    NEUTRAL = -1
    EMPTY = -2        # a free score-track space (None)
    # phases (PHASE_NAMES order)
    PH_SETUP = 0
    PH_MOVE
    PH_MOVE_B
    PH_LAUNCH
    PH_DRINK
    PH_BURROW
    PH_NURSERY
    PH_LIBRARY
    PH_SUPER
    PH_SHOP
    PH_BUILD
    PH_GREG_DRAW
    PH_GREG_BOOTH
    PH_GREG_COMIC
    PH_GREG_BEST
    PH_OVER

cdef enum:
    # turn cursor (STEP_NAMES order)
    ST_NONE = 0
    ST_MOVE
    ST_PAY
    ST_LAUNCH
    ST_DRINK
    ST_COLLECT
    ST_BURROW
    ST_SHOP
    ST_BUILD
    ST_END

cdef enum:
    # Greg's cursor (GREG_STEP_NAMES order)
    GS_NONE = 0
    GS_DRAW
    GS_BOOTHS
    GS_ICON
    GS_END

cdef enum:
    # quantities an effect may modify (data.QUANTITIES order, checked at import)
    Q_A_STEPS = 0
    Q_B_STEPS
    Q_SHORTCUT
    Q_FEE
    Q_PRICE
    Q_YIELD
    Q_YIELD_ON = 6    # + colour (data.COLOURS order)
    Q_YIELD_OF = 11   # + yield kind (data.YIELD_KINDS order)
    Q_SUP_STEPS = 18
    Q_SUP_YIELD
    Q_SUP_COLOUR
    Q_SUP_BLOCKS
    Q_SUP_PAYS

cdef enum:
    # reward effect codes (Rat Burrow spaces, light-string positions)
    RO_SCORE = 1      # arg: track
    RO_CHEESE = 2
    RO_MAT = 3        # arg: material

cdef enum:
    # yield kinds (data.YIELD_KINDS order); materials are 1..4 (supply index kind - 1)
    Y_CHEESE = 0
    Y_BULB = 5
    Y_APPLE = 6
    # tracks (data.TRACKS order)
    T_ROCKET = 3
    T_PROVISIONS = 4
    T_CLIGHTS = 5
    T_STORED = 6
    T_RATTRONAUT = 7
    # supply (data supply order: materials, moldy_cheese, awards)
    S_MOLDY = 4
    S_AWARDS = 5
    # item kinds
    IK_BP = 0
    IK_DRINK = 1
    IK_CAP = 2
    IK_COMIC = 3
    # setup tokens
    SU_TILE = 0
    SU_SET = 1
    SU_BP = 2
    SU_CAP = 3
    SU_COMIC = 4
    # card icons
    IC_NONE = 0
    IC_PREPARE = 1
    IC_REMOVE = 2
    IC_BEST = 3
    # burrow choices (a reward's "move" effect)
    RW_NONE = 0
    RW_NURSERY = 2
    RW_LIBRARY = 3

PHASE_NAMES = ("setup", "move", "move_b", "launch", "drink", "burrow", "nursery", "library",
               "super", "shop", "build", "greg_draw", "greg_booth", "greg_comic", "greg_best",
               "over")
STEP_NAMES = ("", "move", "pay", "launch", "drink", "collect", "burrow", "shop", "build", "end")
GREG_STEP_NAMES = ("", "draw", "booths", "icon", "end")
_PHASE_ID = {name: i for i, name in enumerate(PHASE_NAMES)}
_STEP_ID = {name: i for i, name in enumerate(STEP_NAMES)}
_GREG_STEP_ID = {name: i for i, name in enumerate(GREG_STEP_NAMES)}
_SUPPLY_KEYS = (*MATERIALS, "moldy_cheese", "awards")
_FIELDS = ("phase", "step", "round", "seat", "end_round", "tiles", "track_values", "sets_used",
           "library", "setup_todo", "disp_backpacks", "disp_caps", "disp_drinks",
           "track_slots", "track_last", "rats", "cheese", "cheese_issued", "moldy", "awards",
           "drinks", "light", "lights_scored", "markers", "raised", "burrow", "mats", "built",
           "rocket_sets", "backpacks", "caps", "comics", "super_rats", "supply", "moved",
           "option", "b_colour", "launch_pending", "drink_used", "burrow_steps",
           "pending_super", "shops", "greg_rats", "greg_unknown", "greg_known", "greg_seen",
           "greg_discard", "greg_prepared", "greg_card", "greg_booths", "greg_step")


def _check_constants() -> None:
    """The compiled layout must match the reference's tables (a stale build fails loudly)."""
    ok = (_api.CHANCE == _CHANCE and _api.TERMINAL == _TERMINAL
          and RULEBOOK["rats_per_team"] == FR_RATS and RULEBOOK["track_spaces"] == FR_NV
          and RULEBOOK["rats_on_start"] + RULEBOOK["rats_in_nursery"] == FR_RATS
          and _R.NURSERY == NURSERY and _R.NEUTRAL == NEUTRAL
          and tuple(YIELD_KINDS) == ("cheese", *MATERIALS, "bulb", "apple")
          and len(MATERIALS) == 4 and len(PARTS) == 3 and len(TRACKS) == FR_NT
          and tuple(TRACKS[:3]) == tuple(PARTS)
          and (TRACKS[T_ROCKET], TRACKS[T_PROVISIONS], TRACKS[T_CLIGHTS], TRACKS[T_STORED],
               TRACKS[T_RATTRONAUT]) == ("rocket", "provisions", "construction_lights",
                                         "stored_food", "rattronaut")
          and set(BOOTH_ITEMS.values()) == {"backpack", "energy_drink", "bottle_cap"}
          and len(QUANTITIES) == FR_NQ and len(COUNTS) == FR_NCOUNT
          and tuple(QUANTITIES)[Q_YIELD_ON:Q_YIELD_OF] == tuple(f"yield_on_{c}" for c in COLOURS)
          and tuple(QUANTITIES)[Q_YIELD_OF:Q_SUP_STEPS] == tuple(
              f"yield_of_{y}" for y in YIELD_KINDS)
          and tuple(QUANTITIES)[:Q_YIELD_ON] == ("option_a_steps", "option_b_steps",
                                                 "shortcut_cost", "landing_fee", "item_price",
                                                 "yield")
          and tuple(QUANTITIES)[Q_SUP_STEPS:] == (
              "super_rat_steps", "super_rat_yield", "super_rat_matches_colour",
              "super_rat_blocks", "super_rat_pays_landing")
          and COUNTS[:4] == ("cockpits_built", "cargo_bays_built", "thrusters_built",
                             "rocket_markers")
          and COUNTS[4:10] == ("rattronauts", "provisions_markers",
                               "construction_lights_markers", "stored_food_markers",
                               "comics_owned", "backpacks_owned")
          and COUNTS[10:] == ("cheese", *MATERIALS, "awards", "moldy_cheese", "light_string",
                              "energy_drinks", "bottle_caps_owned")
          and _COMPARISONS == (">", ">=", "==", "!=", "<=", "<", "most", "least"))
    if not ok:
        raise ImportError("ratai._speedups.first_rat is out of date with "
                          "ratai.engines.first_rat: rebuild it (pip install -e .)")
    check_bounds("First Rat", FR_MAXP, max(FR_MAXLEG, FR_MAXITEMS + FR_MAXL))


_check_constants()


# ====================================================================== small C helpers
cdef inline void fr_copy(FRState* dst, const FRState* src) noexcept nogil:
    memcpy(dst, src, sizeof(FRState))


cdef inline void isort(int* a, int n) noexcept nogil:
    cdef int i, j, x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef inline void sort_by_rank(signed char* a, int n, const signed char* rank) noexcept nogil:
    """Sort item (or track) ids by the rank of their id strings (the reference sorts strings)."""
    cdef int i, j
    cdef signed char x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and rank[a[j]] > rank[x]:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef extern from *:
    """
    static inline int ratai_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int ratai_ctz64(unsigned long long x) noexcept nogil   # x != 0


cdef inline bint sc_in(const signed char* a, int n, int x) noexcept nogil:
    cdef int i
    for i in range(n):
        if a[i] == x:
            return True
    return False


cdef inline unsigned long long sc_bits(const signed char* a, int n) noexcept nogil:
    """The values 0..63 of ``a[:n]`` as bits (``sc_in`` for many ``x`` at once)."""
    cdef int i
    cdef unsigned long long m = 0
    for i in range(n):
        if 0 <= a[i] < 64:
            m |= 1ULL << a[i]
    return m


cdef inline int sc_remove(signed char* a, int n, int x) noexcept nogil:
    """``list.remove(x)`` (first occurrence, order kept); returns the new length."""
    cdef int i, j
    for i in range(n):
        if a[i] == x:
            for j in range(i + 1, n):
                a[j - 1] = a[j]
            return n - 1
    return n


cdef inline void sc_pop0(signed char* a, signed char* n) noexcept nogil:
    cdef int j
    for j in range(1, n[0]):
        a[j - 1] = a[j]
    n[0] -= 1


cdef inline void q_apply(const FRConst* k, int item, int q, int* add, int* lo,
                         int* hi) noexcept nogil:
    """Fold ``item``'s modifier of quantity ``q`` into (add, lo, hi) (``data.combine``)."""
    if (k.item_qmask[item] >> q) & 1U:
        add[0] += k.item_add[item][q]
        if k.item_lo[item][q] > lo[0]:
            lo[0] = k.item_lo[item][q]
        if k.item_hi[item][q] < hi[0]:
            hi[0] = k.item_hi[item][q]


cdef inline int q_value(int base, int add, int lo, int hi) noexcept nogil:
    """``data.resolve``: base plus the adds, raised to ``lo``, lowered to ``hi``."""
    cdef int v = base + add
    if v < lo:
        v = lo
    if v > hi:
        v = hi
    return v


cdef inline unsigned int owned_qmask(const FRState* s, const FRConst* k, int p) noexcept nogil:
    """The quantities seat ``p``'s comics and bottle caps modify, as bits."""
    cdef int i
    cdef unsigned int m = 0
    for i in range(s.ncomics[p]):
        m |= k.item_qmask[s.comics[p][i]]
    for i in range(s.ncaps[p]):
        m |= k.item_qmask[s.caps[p][i]]
    return m


cdef int seat_q(const FRState* s, const FRConst* k, int p, int q) noexcept nogil:
    """``_q``: seat ``p``'s quantity ``q`` as modified by its comics and bottle caps."""
    cdef int i, add = 0, lo = -FR_QOPEN, hi = FR_QOPEN
    if (k.comic_qmask >> q) & 1U:   # fast path: no comic of the data modifies q
        for i in range(s.ncomics[p]):
            q_apply(k, s.comics[p][i], q, &add, &lo, &hi)
    if (k.cap_qmask >> q) & 1U:
        for i in range(s.ncaps[p]):
            q_apply(k, s.caps[p][i], q, &add, &lo, &hi)
    return q_value(k.q_base[q], add, lo, hi)


cdef int super_q(const FRState* s, const FRConst* k, int p, int r, int q) noexcept nogil:
    """``_sq``: rat ``r``'s Super Rat quantity ``q`` (its Super Rat comic's modifiers)."""
    cdef int i, add = 0, lo = -FR_QOPEN, hi = FR_QOPEN
    if not (k.comic_qmask >> q) & 1U:
        return k.q_base[q]
    for i in range(s.nsup[p]):
        if s.sup_r[p][i] == r:
            q_apply(k, s.sup_c[p][i], q, &add, &lo, &hi)
    return q_value(k.q_base[q], add, lo, hi)


cdef inline unsigned long long super_sig(const FRState* s, const FRConst* k, int p,
                                         int r) noexcept nogil:
    """The set of Super Rat comics on rat ``r`` (the reference's sorted tuple) as bits."""
    cdef int i
    cdef unsigned long long sig = 0
    for i in range(s.nsup[p]):
        if s.sup_r[p][i] == r:
            sig |= 1ULL << (s.sup_c[p][i] - k.first_comic)
    return sig


cdef inline int colour_of(const FRState* s, const FRConst* k, int pos) noexcept nogil:
    return k.tile_colour[s.tiles[pos]]


cdef inline void set_colour_bits(FRState* s, const FRConst* k) noexcept nogil:
    """``cbits`` from ``tiles``: the path spaces 1..L-1 of each colour, as bits."""
    cdef int pos
    memset(s.cbits, 0, sizeof(s.cbits))
    for pos in range(1, k.L):
        s.cbits[colour_of(s, k, pos)] |= 1ULL << pos


cdef inline int rattronauts(const FRState* s, const FRConst* k, int p) noexcept nogil:
    cdef int i, c = 0
    for i in range(FR_RATS):
        if s.rats[p][i] == k.L:
            c += 1
    return c


cdef inline void decode_move(const FRConst* k, int a, int* opt, int* r, int* mask, int* dest,
                             int* ci) noexcept nogil:
    cdef int dcode = a % k.n_dest
    cdef int rest = a // k.n_dest
    mask[0] = rest % k.n_masks
    rest = rest // k.n_masks
    r[0] = rest % FR_RATS
    opt[0] = rest // FR_RATS
    if dcode < k.L - 1:
        dest[0] = dcode + 1
        ci[0] = 0
    else:
        dest[0] = k.L
        ci[0] = dcode - (k.L - 1)


# ====================================================================== score tracks
cdef inline void trigger(FRState* s, int last_round) noexcept nogil:
    if s.end_round < 0 or last_round < s.end_round:
        s.end_round = last_round


cdef bint place(FRState* s, const FRConst* k, int track, int owner, bint marker) noexcept nogil:
    """``_place``: the owner's marker (or Rattronaut) on the leftmost free space (FR-11)."""
    cdef int i
    if marker:
        if s.markers[owner] >= k.score_markers:
            return False
        s.markers[owner] += 1
        if s.markers[owner] == k.end_trigger_markers:
            trigger(s, s.round + 1)
    for i in range(FR_NV - 1):
        if s.slots[track][i] == EMPTY:
            s.slots[track][i] = owner
            return True
    if s.nlast[track] < FR_MAXLAST:   # bounded by the owners' markers and rats
        s.last[track][s.nlast[track]] = owner
        s.nlast[track] += 1
    return True


cdef void to_rocket(FRState* s, const FRConst* k, int owner) noexcept nogil:
    """A rat reached the Launchpad: Rattronaut track, and end trigger A (FR-11)."""
    cdef int i, c = 0
    place(s, k, T_RATTRONAUT, owner, False)
    for i in range(FR_RATS):
        if owner == k.greg:
            c += s.greg_rats[i] == k.L
        else:
            c += s.rats[owner][i] == k.L
    if c == FR_RATS:
        trigger(s, s.round)


cdef int track_points(const FRState* s, const FRConst* k, int owner) noexcept nogil:
    cdef int t, i, pts = 0
    for t in range(FR_NT):
        for i in range(FR_NV - 1):
            if s.slots[t][i] == owner:
                pts += s.track_values[t][i]
        for i in range(s.nlast[t]):
            if s.last[t][i] == owner:
                pts += s.track_values[t][FR_NV - 1]
    return pts


cdef inline int markers_on(const FRState* s, int track, int owner) noexcept nogil:
    cdef int i, c = 0
    for i in range(FR_NV - 1):
        c += s.slots[track][i] == owner
    for i in range(s.nlast[track]):
        c += s.last[track][i] == owner
    return c


cdef void counts_of(const FRState* s, const FRConst* k, int p, int* out) noexcept nogil:
    """``FirstRatState.count`` for every name of ``data.COUNTS``, in that order."""
    cdef int i
    out[0] = s.built[p][0]
    out[1] = s.built[p][1]
    out[2] = s.built[p][2]
    out[3] = markers_on(s, T_ROCKET, p)
    out[4] = rattronauts(s, k, p)
    out[5] = markers_on(s, T_PROVISIONS, p)
    out[6] = markers_on(s, T_CLIGHTS, p)
    out[7] = markers_on(s, T_STORED, p)
    out[8] = s.ncomics[p]
    out[9] = s.nbp[p]
    out[10] = s.cheese[p]
    for i in range(4):
        out[11 + i] = s.mats[p][i]
    out[15] = s.awards[p]
    out[16] = s.moldy[p]
    out[17] = s.light[p]
    out[18] = s.drinks[p]
    out[19] = s.ncaps[p]


cdef bint cond_holds(const FRState* s, const FRConst* k, int p, int item, int e,
                     const int* mine) noexcept nogil:
    """``effects.Condition.holds`` of scoring effect ``e`` of ``item`` for seat ``p``."""
    cdef int c = k.sc_ccount[item][e], cmp = k.sc_cmp[item][e], v = k.sc_cvalue[item][e]
    cdef int q, m = mine[c], best, other[FR_NCOUNT]
    if c < 0:
        return True
    if cmp >= 6:   # most / least: tied for the extreme among all seats
        best = m
        for q in range(k.n):
            counts_of(s, k, q, other)
            if (cmp == 6 and other[c] > best) or (cmp == 7 and other[c] < best):
                best = other[c]
        return m == best
    return cy_compare(cmp, m, v)


cdef int item_points(const FRState* s, const FRConst* k, int p, int item,
                     const int* mine) noexcept nogil:
    """``_item_points``: the end-of-game points of seat ``p``'s comic or bottle cap."""
    cdef int e, v, total = 0
    for e in range(k.n_score[item]):
        if not cond_holds(s, k, p, item, e, mine):
            continue
        if k.sc_count[item][e] < 0:
            v = k.sc_plus[item][e]
        else:
            v = mine[k.sc_count[item][e]] * k.sc_times[item][e] // k.sc_divide[item][e] \
                + k.sc_plus[item][e]
        if k.sc_max[item][e] >= 0 and v > k.sc_max[item][e]:
            v = k.sc_max[item][e]
        total += v
    return total


cdef int score(const FRState* s, const FRConst* k, int p) noexcept nogil:
    """``sum(score_breakdown(p).values())`` (rulebook "End of Game"; FR-12)."""
    cdef int mine[FR_NCOUNT]
    cdef int total = track_points(s, k, p), i, left = 0
    counts_of(s, k, p, mine)
    for i in range(s.ncaps[p]):
        total += item_points(s, k, p, s.caps[p][i], mine)
    for i in range(s.ncomics[p]):
        total += item_points(s, k, p, s.comics[p][i], mine)
    total += k.award_points * s.awards[p] - k.moldy_penalty * s.moldy[p]
    for i in range(4):
        left += s.mats[p][i]
    left += s.cheese[p]
    total += left // k.leftover_per_point
    return total


# ====================================================================== movement (Step 1)
cdef inline int moved_bits(const FRState* s) noexcept nogil:
    """The rats moved this turn (``moved``) as bits."""
    cdef int i, m = 0
    for i in range(s.nmoved):
        m |= 1 << s.moved[i]
    return m


cdef int movable(const FRState* s, const FRConst* k, int p, int* out) noexcept nogil:
    """``_movable``: rats on Start or the path, not yet moved; one per (space, Super Rats)."""
    cdef int r, pos, i, n = 0, dup, moved = moved_bits(s)
    cdef int seen_pos[FR_RATS]
    cdef unsigned long long seen_sig[FR_RATS]
    cdef unsigned long long sig = 0
    cdef bint supers = s.nsup[p] != 0
    for r in range(FR_RATS):
        pos = s.rats[p][r]
        if pos < 0 or pos >= k.L or (moved >> r) & 1:
            continue
        if supers:   # no Super Rat: every signature is the empty set
            sig = super_sig(s, k, p, r)
        dup = 0
        for i in range(n):
            if seen_pos[i] == pos and seen_sig[i] == sig:
                dup = 1
                break
        if not dup:
            seen_pos[n] = pos
            seen_sig[n] = sig
            out[n] = r
            n += 1
    return n


cdef void move_ctx(const FRState* s, const FRConst* k, int p, MoveCtx* c) noexcept nogil:
    """Seat ``p``'s movement quantities (``_move_rules``' ``_q`` / ``_sq`` reads)."""
    cdef int r
    cdef unsigned int om = owned_qmask(s, k, p)
    c.sc_mult = seat_q(s, k, p, Q_SHORTCUT) if (om >> Q_SHORTCUT) & 1U else k.q_base[Q_SHORTCUT]
    c.base_a = seat_q(s, k, p, Q_A_STEPS) if (om >> Q_A_STEPS) & 1U else k.q_base[Q_A_STEPS]
    c.base_b = seat_q(s, k, p, Q_B_STEPS) if (om >> Q_B_STEPS) & 1U else k.q_base[Q_B_STEPS]
    c.fee = seat_q(s, k, p, Q_FEE) if (om >> Q_FEE) & 1U else k.q_base[Q_FEE]
    if s.nsup[p] == 0:   # no Super Rat: every rat has the base values
        c.sh = 0
        for r in range(FR_RATS):
            c.steps[r] = k.q_base[Q_SUP_STEPS]
            c.cham[r] = k.q_base[Q_SUP_COLOUR] <= 0
        return
    # one pass over the seat's Super Rat comics: per rat the modifiers of its steps, its
    # colour matching and its blocking (``_sq`` of each, ``_sharers``)
    cdef int i, item, j, q
    cdef int add[FR_RATS][3]
    cdef int lo[FR_RATS][3]
    cdef int hi[FR_RATS][3]
    cdef int qs[3]
    cdef int has = 0
    qs[0] = Q_SUP_STEPS
    qs[1] = Q_SUP_COLOUR
    qs[2] = Q_SUP_BLOCKS
    for r in range(FR_RATS):
        for j in range(3):
            add[r][j] = 0
            lo[r][j] = -FR_QOPEN
            hi[r][j] = FR_QOPEN
    for i in range(s.nsup[p]):
        r = s.sup_r[p][i]
        if r < 0:
            continue
        has |= 1 << r
        item = s.sup_c[p][i]
        for j in range(3):
            q = qs[j]
            if (k.comic_qmask >> q) & 1U:
                q_apply(k, item, q, &add[r][j], &lo[r][j], &hi[r][j])
    c.sh = 0
    for r in range(FR_RATS):
        c.steps[r] = q_value(k.q_base[Q_SUP_STEPS], add[r][0], lo[r][0], hi[r][0])
        c.cham[r] = q_value(k.q_base[Q_SUP_COLOUR], add[r][1], lo[r][1], hi[r][1]) <= 0
        if (has >> r) & 1 and q_value(k.q_base[Q_SUP_BLOCKS], add[r][2], lo[r][2],
                                      hi[r][2]) <= 0:
            c.sh |= 1 << r


cdef inline const MoveCtx* seat_ctx(FRState* s, const FRConst* k, int p) noexcept nogil:
    """Seat ``p``'s :c:func:`move_ctx`, computed on first use and kept in the state per
    seat (its quantities come from the seat's comics, bottle caps and Super Rats
    only: :c:func:`items_changed` drops it when they change; :c:func:`rats_moved` refreshes
    its held spaces when the seat's rats move)."""
    cdef MoveCtx* c = &s.mctx[p]
    if not (s.mctx_ok >> p) & 1:
        move_ctx(s, k, p, c)
        path_rats(s, k, p, c.sh, &c.held, &c.twice)
        s.mctx_ok |= 1 << p
    return c


cdef inline void rats_moved(FRState* s, const FRConst* k, int p) noexcept nogil:
    """Seat ``p``'s rats moved: refresh the held spaces of its cached :c:func:`seat_ctx`."""
    cdef MoveCtx* c = &s.mctx[p]
    if (s.mctx_ok >> p) & 1:
        path_rats(s, k, p, c.sh, &c.held, &c.twice)


cdef inline void items_changed(FRState* s, int p) noexcept nogil:
    """Seat ``p``'s comics, bottle caps or Super Rats changed: drop its cached context."""
    s.mctx_ok &= ~(1 << p)


cdef inline int step_budget(const FRConst* k, int base, const MoveCtx* c, int r) noexcept nogil:
    """Rat ``r``'s most steps: ``min(max_steps, max(0, base + super_rat_steps))``."""
    cdef int maxs = base + c.steps[r]
    if maxs < 0:
        return 0
    return maxs if maxs < k.max_steps else k.max_steps


cdef inline void path_rats(const FRState* s, const FRConst* k, int p, int sh,
                           unsigned long long* held, unsigned long long* twice) noexcept nogil:
    """The path spaces of seat ``p``'s rats that block (every rat but the sharers ``sh``, such
    as the Ghost), as bits; ``twice``: the spaces two of them hold."""
    cdef int q, x, L = k.L
    cdef unsigned long long b
    held[0] = twice[0] = 0
    for q in range(FR_RATS):
        x = s.rats[p][q]
        if not (sh >> q) & 1 and 0 < x < L:
            b = 1ULL << x
            twice[0] |= held[0] & b
            held[0] |= b


cdef inline unsigned long long blockers(const FRConst* k, int r, int pos, int sh,
                                        unsigned long long held,
                                        unsigned long long twice) noexcept nogil:
    """The path spaces rat ``r`` (on ``pos``) may not end on because of the seat's other rats
    (:c:func:`path_rats`), as bits: none for a sharer, and sharers block nobody."""
    cdef unsigned long long b
    if (sh >> r) & 1:
        return 0
    if 0 < pos < k.L:   # its own space, unless another rat holds it too
        b = 1ULL << pos
        return (held & ~b) | (twice & b)
    return held


cdef inline bint pays(const int* mats, const MatCost* cost, int times) noexcept nogil:
    """Do materials ``mats`` cover ``times`` the ``cost`` (only the materials it names are
    compared)?"""
    cdef int j
    for j in range(cost.nz):
        if mats[cost.mat[j]] < cost.amt[j] * times:
            return False
    return True


cdef inline bint affordable(const int* mats, const FRConst* k, int mask,
                            int sc_mult) noexcept nogil:
    """FR-1: can materials ``mats`` pay the shortcuts of ``mask``, ``sc_mult`` times their
    cost?"""
    return pays(mats, &k.mask_sparse[mask], sc_mult)


cdef inline bint launch_ok(const FRConst* k, int opt, bint cham, bint launch_used,
                           int bc) noexcept nogil:
    """Does an open route to the Launchpad give at least one move (``bc``: option B's colour,
    -1 not fixed yet)?"""
    if launch_used:
        return False
    if opt == 0 or cham:
        return True
    if bc >= 0:
        return k.lp_index[bc] >= 0
    return k.n_colours > 0


ctypedef struct Movers:
    # what both options' generations share (seat ``p`` in one position): the movable rats
    # (:c:func:`movable`) and which shortcut masks the seat can pay, learnt on first ask
    # (``aff_known`` / ``aff_ok``, bits per mask, :c:func:`can_pay`)
    int nm
    int rs[FR_RATS]
    unsigned long long aff_known, aff_ok


cdef inline void movers(const FRState* s, const FRConst* k, int p, const MoveCtx* c,
                        Movers* m) noexcept nogil:
    m.nm = movable(s, k, p, m.rs)
    m.aff_known = m.aff_ok = 0


cdef inline bint can_pay(const FRState* s, const FRConst* k, int p, int mask, int sc_mult,
                         Movers* m) noexcept nogil:
    """FR-1: :c:func:`affordable`, computed once per mask and position."""
    cdef unsigned long long b = 1ULL << mask
    if not m.aff_known & b:
        m.aff_known |= b
        if affordable(s.mats[p], k, mask, sc_mult):
            m.aff_ok |= b
    return (m.aff_ok & b) != 0


cdef bint any_move(const FRState* s, const FRConst* k, int p, int opt,
                   const MoveCtx* c) noexcept nogil:
    """``self._any_rat_move(p, opt)`` without listing the moves: per rat, the destinations
    of its routes (``all_dests`` / ``free_dests``) minus the blocked spaces, as bits, then the
    colour test on those few spaces; routes with a shortcut one by one when shortcuts cost
    something.
    Every rat is tried (``movable`` keeps one rat per (space, Super Rats); a rat it drops has
    the moves of the one it keeps), so the answer is :c:func:`rat_moves`'s ``n > 0``."""
    cdef int L = k.L, i, j, r, pos, maxs, dest, x, base, moved = 0, bc = s.b_colour
    cdef int sc_mult = c.sc_mult, sh = c.sh
    cdef bint launch_used = False, cham
    cdef unsigned long long ends = 0, others, d, bits, lbit = 1ULL << L
    cdef unsigned long long held = c.held, twice = c.twice
    for i in range(s.nmoved):
        r = s.moved[i]
        moved |= 1 << r
        if opt == 1:
            x = s.rats[p][r]
            if x == L:
                launch_used = True
            if x >= 0:
                ends |= 1ULL << x
    base = c.base_a if opt == 0 else c.base_b
    for r in range(FR_RATS):
        pos = s.rats[p][r]
        if pos < 0 or pos >= L or (moved >> r) & 1:
            continue
        cham = opt == 1 and c.cham[r]
        maxs = step_budget(k, base, c, r)
        others = blockers(k, r, pos, sh, held, twice) | ends
        d = (k.free_dests[pos][maxs] if sc_mult else k.all_dests[pos][maxs]) & ~others
        if d & lbit:
            if launch_ok(k, opt, cham, launch_used, bc):
                return True
            d &= ~lbit
        if d and (opt == 0 or cham or bc < 0 or d & s.cbits[bc]):
            return True
        if not sc_mult:
            continue
        bits = k.sc_route_bits[pos][maxs]
        while bits:
            j = ratai_ctz64(bits)
            bits &= bits - 1
            dest = k.route_dest[pos][j]
            if (others >> dest) & 1ULL or not affordable(s.mats[p], k, k.route_mask[pos][j],
                                                         sc_mult):
                continue
            if dest == L:
                if launch_ok(k, opt, cham, launch_used, bc):
                    return True
                continue
            if opt == 0 or cham or bc < 0 or (s.cbits[bc] >> dest) & 1ULL:
                return True
    return False


cdef inline void emit_launch(const FRState* s, const FRConst* k, int p, int r, int mask,
                             int code, int opt, bint cham, bint follow, const MoveCtx* c,
                             FollowCtx* f, int* out, int* n) noexcept nogil:
    """A route to the Launchpad: one move per Launchpad space it may take (option B's colour
    fixes it), ``code`` its colour-0 id."""
    cdef int ci = 0, ci_end = 1, L = k.L
    if opt == 1 and not cham:
        if s.b_colour >= 0:   # the Launchpad space of option B's colour
            ci = k.lp_index[s.b_colour]
            if ci < 0:
                return
            ci_end = ci + 1
        else:
            ci_end = k.n_colours
    while ci < ci_end:
        if not follow or b_follows(s, k, p, r, L, mask, ci, c, f):
            out[n[0]] = code + ci
            n[0] += 1
        ci += 1


cdef int rat_moves(const FRState* s, const FRConst* k, int p, int opt, int* out,
                   const MoveCtx* c, Movers* mv, bint follow) noexcept nogil:
    """``_iter_rat_moves`` as encoded MOVE ids, sorted: a rat's routes are stored by (mask, dest),
    so its routes without a shortcut come first, in the order of their destinations (taken
    as bits from ``free_dests``, the Launchpad last), then those with a shortcut through
    ``sc_route_bits``; ``c`` is seat ``p``'s :c:func:`move_ctx`, ``mv`` its
    :c:func:`movers` in this position. ``follow`` (option B's first
    rat): keep only the moves after which a second rat can complete option B (FR-3,
    :c:func:`b_follows`)."""
    cdef int L = k.L, n = 0, nm, i, j, r, pos, dest, mask, maxs, base, x, code, bc
    cdef int sc_mult = c.sc_mult, sh = c.sh, rbase, stride = k.n_masks * k.n_dest
    cdef bint cham, launch_used = False, colour_fixed
    cdef unsigned long long ends = 0, others, bits, d, open_
    cdef unsigned long long lbit = 1ULL << L, held = c.held, twice = c.twice
    cdef FollowCtx f
    if follow:
        follow_prepare(s, k, p, c, mv, &f)
    if opt == 1:
        for i in range(s.nmoved):
            x = s.rats[p][s.moved[i]]
            if x == L:
                launch_used = True
            if x >= 0:
                ends |= 1ULL << x
    base = c.base_a if opt == 0 else c.base_b
    bc = s.b_colour
    nm = mv.nm
    for i in range(nm):
        r = mv.rs[i]
        pos = s.rats[p][r]
        cham = opt == 1 and c.cham[r]
        colour_fixed = opt == 1 and not cham and bc >= 0
        maxs = step_budget(k, base, c, r)
        # blocked: the other rats' path spaces, and in option B the spaces where moved rats
        # ended
        others = blockers(k, r, pos, sh, held, twice) | ends
        # ((opt * FR_RATS + r) * n_masks + mask) * n_dest + the destination's code
        rbase = (opt * FR_RATS + r) * stride
        if follow:
            follow_for(s, k, c, &f, r)
        d = k.free_dests[pos][maxs] & ~others
        bits = d & ~lbit
        if colour_fixed:
            bits &= s.cbits[bc]
        if follow and bits:   # b_follows for the moves without a paid shortcut, as sets
            x = bc if bc >= 0 or cham else -2
            open_ = open_dests(s, k, bits, x, f.launch_used, &f.free)
            if f.sc and open_ != bits:
                open_ |= open_dests(s, k, bits & ~open_, x, f.launch_used, &f.afford)
            bits = open_
        while bits:
            dest = ratai_ctz64(bits)
            bits &= bits - 1
            out[n] = rbase + dest - 1
            n += 1
        if d & lbit and not launch_used:
            emit_launch(s, k, p, r, 0, rbase + L - 1, opt, cham, follow, c, &f, out, &n)
        bits = k.sc_route_bits[pos][maxs]
        while bits:
            j = ratai_ctz64(bits)
            bits &= bits - 1
            dest = k.route_dest[pos][j]
            if (others >> dest) & 1ULL:
                continue
            mask = k.route_mask[pos][j]
            if sc_mult and not can_pay(s, k, p, mask, sc_mult, mv):   # FR-1
                continue
            code = rbase + k.route_code[pos][j]
            if dest == L:
                if not launch_used:
                    emit_launch(s, k, p, r, mask, code, opt, cham, follow, c, &f, out, &n)
                continue
            if colour_fixed and not (s.cbits[bc] >> dest) & 1ULL:
                continue
            if not follow or b_follows(s, k, p, r, dest, mask, 0, c, &f):
                out[n] = code
                n += 1
    return n


cdef void move_rat(FRState* s, const FRConst* k, int p, int r, int dest, int mask, int ci,
                   int opt, bint commit) noexcept nogil:
    """``_move_rat``: pay the shortcuts (FR-1), move, fix option B's colour, launch. The
    cached :c:func:`seat_ctx` (seat ``p``'s, the mover's) keeps its quantities, which come
    from the seat's items and Super Rats only; its held path spaces are recomputed."""
    cdef int m, sc_mult = seat_ctx(s, k, p).sc_mult if mask else 0
    if sc_mult:   # FR-1: pay each shortcut used
        for m in range(4):
            s.mats[p][m] -= k.mask_cost[mask][m] * sc_mult
            if commit:
                s.supply[m] += k.mask_cost[mask][m] * sc_mult
    s.rats[p][r] = dest
    s.moved[s.nmoved] = r
    s.nmoved += 1
    if opt == 1 and s.b_colour < 0 and (s.nsup[p] == 0 or super_q(s, k, p, r, Q_SUP_COLOUR) > 0):
        s.b_colour = k.lp_colour[ci] if dest == k.L else colour_of(s, k, dest)
    rats_moved(s, k, p)
    if commit and dest == k.L:
        to_rocket(s, k, p)
        s.launch_pending += 1


ctypedef struct OpenSet:
    # destinations a second rat can end on (bits): of the candidates that match any colour
    # (Super Rat ``super_rat_matches_colour`` 0) and of the others
    unsigned long long cham, plain


ctypedef struct FollowCtx:
    # option B's second rat (FR-3), fixed during one generation. A candidate second rat q is
    # not moved yet (``ok``, bits per rat) and on Start or the path (``pos``, ``maxs`` its step
    # budget); its destinations are those of its routes without a paid shortcut (``dests``;
    # all of them when shortcuts cost nothing) and those of its routes with a paid shortcut
    # the seat can afford now (``paid``; ``scq``: the candidates with paid-shortcut routes),
    # minus the spaces blocked whatever the first rat does: the rats other than q and the
    # first (``block``; none for a sharer) and the moved rats' ends (``ends``). Per first rat
    # r (:c:func:`follow_for`): ``free`` / ``afford`` the open sets of those destinations,
    # ``sc`` the candidates of ``scq``, ``others[q]`` the spaces blocked for q.
    int ok, scq, r, sc
    int pos[FR_RATS]
    int maxs[FR_RATS]
    unsigned long long dests[FR_RATS]
    unsigned long long paid[FR_RATS]
    unsigned long long block[FR_RATS]
    unsigned long long others[FR_RATS]
    unsigned long long ends
    OpenSet free, afford
    bint launch_used


cdef void follow_prepare(const FRState* s, const FRConst* k, int p, const MoveCtx* c,
                         Movers* mv, FollowCtx* f) noexcept nogil:
    """Fill ``f`` for seat ``p``'s option-B moves (:c:func:`b_follows`)."""
    cdef int L = k.L, q, pos, maxs, i, j, x, moved = moved_bits(s)
    cdef unsigned long long bits
    f.ok = 0
    f.scq = 0
    f.r = -1
    f.ends = 0
    f.launch_used = False
    for i in range(s.nmoved):
        x = s.rats[p][s.moved[i]]
        if x == L:
            f.launch_used = True
        if x >= 0:
            f.ends |= 1ULL << x
    for q in range(FR_RATS):
        pos = s.rats[p][q]
        f.block[q] = 1ULL << pos if 0 < pos < L and not (c.sh >> q) & 1 else 0
        f.paid[q] = 0
        if pos < 0 or pos >= L or (moved >> q) & 1:
            continue
        f.ok |= 1 << q
        maxs = step_budget(k, c.base_b, c, q)
        f.pos[q] = pos
        f.maxs[q] = maxs
        if not c.sc_mult:
            f.dests[q] = k.all_dests[pos][maxs]
            continue
        f.dests[q] = k.free_dests[pos][maxs]
        bits = k.sc_route_bits[pos][maxs]
        if bits:
            f.scq |= 1 << q
        while bits:   # FR-1: the paid-shortcut routes the seat can afford now
            j = ratai_ctz64(bits)
            bits &= bits - 1
            if can_pay(s, k, p, k.route_mask[pos][j], c.sc_mult, mv):
                f.paid[q] |= 1ULL << k.route_dest[pos][j]


cdef void follow_for(const FRState* s, const FRConst* k, const MoveCtx* c, FollowCtx* f,
                     int r) noexcept nogil:
    """The per-first-rat part of ``f`` for rat ``r`` (once per rat and generation)."""
    cdef int q, t
    cdef unsigned long long o
    if f.r == r:
        return
    f.r = r
    f.free.cham = f.free.plain = f.afford.cham = f.afford.plain = 0
    f.sc = f.scq & f.ok & ~(1 << r)
    for q in range(FR_RATS):
        if q == r or not (f.ok >> q) & 1:
            continue
        o = f.ends
        if not (c.sh >> q) & 1:
            for t in range(FR_RATS):
                if t != q and t != r:
                    o |= f.block[t]
        f.others[q] = o
        if c.cham[q]:
            f.free.cham |= f.dests[q] & ~o
            f.afford.cham |= f.paid[q] & ~o
        else:
            f.free.plain |= f.dests[q] & ~o
            f.afford.plain |= f.paid[q] & ~o


cdef inline bint b_open(const FRState* s, const FRConst* k, int dest, int bc, bint lu,
                        const OpenSet* o) noexcept nogil:
    """Can a second rat end on a destination of ``o`` once the first rat ended on ``dest``
    (option B's colour ``bc``, -1 free; ``lu``: the Launchpad is used)? A colour-free
    follower (``cham``) needs any space but ``dest``; the others a space of ``bc`` or the
    Launchpad."""
    cdef int L = k.L
    cdef unsigned long long gone = ~(1ULL << dest), lbit = 1ULL << L, d
    d = o.cham & gone
    if d & ~lbit or (d and not lu):
        return True
    d = o.plain & gone
    if d & lbit and launch_ok(k, 1, False, lu, bc):
        return True
    d &= ~lbit
    if not d:
        return False
    return bc < 0 or (d & s.cbits[bc]) != 0


cdef inline unsigned long long but_one(unsigned long long S,
                                       unsigned long long D) noexcept nogil:
    """The spaces ``dest`` of ``D`` for which ``S`` minus ``dest`` is not empty."""
    if S & (S - 1):   # two or more
        return D
    return D & ~S if S else 0


cdef unsigned long long open_dests(const FRState* s, const FRConst* k, unsigned long long D,
                                   int bc, bint lu, const OpenSet* o) noexcept nogil:
    """:c:func:`b_open` on every path space of ``D`` at once: the ``dest`` of ``D`` (no
    Launchpad) for which ``b_open(dest, x, lu, o)`` holds, where ``x`` is ``bc`` when
    ``bc >= -1`` and the colour of ``dest`` when ``bc == -2`` (the first rat fixes it)."""
    cdef int t
    cdef unsigned long long lbit = 1ULL << k.L, C = o.cham & ~lbit, P = o.plain & ~lbit
    cdef unsigned long long ok, Dt, rest
    if o.cham & lbit and not lu:   # a colour-free follower takes the Launchpad
        return D
    ok = but_one(C, D)             # ... or a path space other than ``dest``
    if ok == D:
        return D
    if bc >= -1:   # one colour (or none) for every destination
        if o.plain & lbit and launch_ok(k, 1, False, lu, bc):
            return D
        return ok | but_one(P if bc < 0 else P & s.cbits[bc], D)
    rest = D & ~ok
    while rest:   # each destination fixes its own colour: the colours of ``rest`` in turn
        t = colour_of(s, k, ratai_ctz64(rest))
        Dt = rest & s.cbits[t]
        rest &= ~Dt
        if o.plain & lbit and launch_ok(k, 1, False, lu, t):
            ok |= Dt
        else:
            ok |= but_one(P & s.cbits[t], Dt)
    return ok


cdef bint b_follows(const FRState* s, const FRConst* k, int p, int r, int dest, int mask,
                    int ci, const MoveCtx* c, FollowCtx* f) noexcept nogil:
    """``_b_can_follow`` (FR-3): after option B's first rat ``r`` moves to ``dest`` (paying the
    shortcuts of ``mask``; Launchpad colour index ``ci``), can a second rat complete option B?
    That is ``_any_rat_move(p, 1)`` in the moved position, from the tables of
    :c:func:`follow_prepare` / :c:func:`follow_for`: the first rat's end blocks ``dest`` and
    may fix the colour (:c:func:`b_open`) on the destinations without a paid shortcut, then
    on those the seat can afford; when the first rat paid shortcuts itself, the candidates'
    paid routes are checked one by one against the materials it left."""
    cdef int L = k.L, q, m, j, pos, dest2, bc = s.b_colour, cand
    cdef int sc_mult = c.sc_mult
    cdef bint lu = f.launch_used or dest == L, cham
    cdef unsigned long long bits, others
    cdef int mats[4]
    if bc < 0 and not c.cham[r]:   # the colour the first rat fixes
        bc = k.lp_colour[ci] if dest == L else colour_of(s, k, dest)
    follow_for(s, k, c, f, r)
    if b_open(s, k, dest, bc, lu, &f.free):
        return True
    cand = f.sc
    if not cand:
        return False
    if not mask or not sc_mult:   # the materials are the seat's: ``afford`` holds the answer
        return b_open(s, k, dest, bc, lu, &f.afford)
    for m in range(4):   # FR-1: what the first rat's shortcuts left
        mats[m] = s.mats[p][m] - k.mask_cost[mask][m] * sc_mult
    for q in range(FR_RATS):
        if not (cand >> q) & 1:
            continue
        pos = f.pos[q]
        cham = c.cham[q]
        others = f.others[q] | (1ULL << dest)
        bits = k.sc_route_bits[pos][f.maxs[q]]
        while bits:
            j = ratai_ctz64(bits)
            bits &= bits - 1
            dest2 = k.route_dest[pos][j]
            if (others >> dest2) & 1ULL:
                continue
            if not affordable(mats, k, k.route_mask[pos][j], sc_mult):
                continue
            if dest2 == L:
                if launch_ok(k, 1, cham, lu, bc):
                    return True
                continue
            if cham or bc < 0 or (s.cbits[bc] >> dest2) & 1ULL:
                return True
    return False


cdef int move_actions(const FRState* s, const FRConst* k, int opt, int* out,
                      const MoveCtx* c, Movers* mv) noexcept nogil:
    """``_move_actions``: legal MOVE ids of option ``opt`` (FR-1, FR-3), sorted; ``c`` is the
    seat's :c:func:`move_ctx`, ``mv`` its :c:func:`movers`."""
    if opt == 0 and s.nmoved:
        return 0
    return rat_moves(s, k, s.seat, opt, out, c, mv, opt == 1 and s.nmoved == 0)

# ====================================================================== items
cdef int booth_items(const FRState* s, const FRConst* k, int slot, int* out) noexcept nogil:
    """``_booth_items``: items on display at the booth on ``slot`` (identical backpacks once)."""
    cdef int kind = k.booth[slot], n = 0, i, j, b, dup
    if kind == IK_DRINK:
        if s.disp_drinks > 0:
            out[0] = k.drink_item
            return 1
        return 0
    if kind == IK_CAP:
        for i in range(s.ndisp_caps):
            out[i] = s.disp_caps[i]
        return s.ndisp_caps
    for i in range(s.ndisp_bp):
        b = s.disp_bp[i]
        dup = 0
        for j in range(n):
            if k.bp_sig[out[j]] == k.bp_sig[b]:
                dup = 1
                break
        if not dup:
            out[n] = b
            n += 1
    return n


cdef int display_all(const FRState* s, const FRConst* k, int slot, int* out) noexcept nogil:
    """``_display_all``: every item tile at the booth on ``slot`` (one energy drink)."""
    cdef int kind = k.booth[slot], i
    if kind == IK_DRINK:
        if s.disp_drinks > 0:
            out[0] = k.drink_item
            return 1
        return 0
    if kind == IK_CAP:
        for i in range(s.ndisp_caps):
            out[i] = s.disp_caps[i]
        return s.ndisp_caps
    for i in range(s.ndisp_bp):
        out[i] = s.disp_bp[i]
    return s.ndisp_bp


cdef inline int price(const FRState* s, const FRConst* k, int p, int item) noexcept nogil:
    cdef int kind = k.item_kind[item]
    cdef int v = k.price[1 if kind == IK_DRINK else (0 if kind == IK_BP else 2)] \
        + seat_q(s, k, p, Q_PRICE)
    return v if v > 0 else 0


cdef void remove_display_item(FRState* s, const FRConst* k, int item) noexcept nogil:
    if item == k.drink_item:
        s.disp_drinks -= 1
    elif sc_in(s.disp_bp, s.ndisp_bp, item):
        s.ndisp_bp = sc_remove(s.disp_bp, s.ndisp_bp, item)
    else:
        s.ndisp_caps = sc_remove(s.disp_caps, s.ndisp_caps, item)


cdef int shop_actions(const FRState* s, const FRConst* k, int* out) noexcept nogil:
    cdef int p = s.seat, n = 1, i, m, item
    cdef int items[FR_MAXKIND + 1]
    out[0] = k.SHOP_PASS
    m = booth_items(s, k, s.rats[p][s.shops[0]], items)
    for i in range(m):
        item = items[i]
        if s.cheese[p] >= price(s, k, p, item):
            out[n] = k.BUY + item
            n += 1
        out[n] = k.STEAL + item
        n += 1
    isort(out, n)
    return n


cdef void do_shop(FRState* s, const FRConst* k, int r, int action) noexcept nogil:
    """FR-8: buy (pay, rat stays) or steal (free, rat back to Start)."""
    cdef int p = s.seat, item, pr
    cdef bint steal = action >= k.STEAL
    item = action - (k.STEAL if steal else k.BUY)
    if steal:
        s.rats[p][r] = 0
        rats_moved(s, k, p)
    else:
        pr = price(s, k, p, item)
        s.cheese[p] -= pr
        s.cheese_issued -= pr
    remove_display_item(s, k, item)
    if item == k.drink_item:
        s.drinks[p] += 1
    elif k.item_kind[item] == IK_BP:
        if s.nbp[p] < FR_MAXKIND:
            s.bp[p][s.nbp[p]] = item
            s.nbp[p] += 1
    else:
        if s.ncaps[p] < FR_MAXKIND:
            s.caps[p][s.ncaps[p]] = item
            s.ncaps[p] += 1
            items_changed(s, p)


# ====================================================================== build (Step 4)
cdef int build_actions(const FRState* s, const FRConst* k, int* out) noexcept nogil:
    cdef int p = s.seat, n = 0, i
    if s.cheese[p] >= k.provisions_cost:
        out[n] = k.DONATE
        n += 1
    out[n] = k.END_TURN
    n += 1
    for i in range(3):
        if pays(s.mats[p], &k.part_sparse[i], 1):
            out[n] = k.BUILD + i
            n += 1
    return n


cdef void build(FRState* s, const FRConst* k, int part) noexcept nogil:
    """Build a rocket part, score its track and the Rocket track per new set (FR-10)."""
    cdef int p = s.seat, m, sets
    for m in range(4):
        s.mats[p][m] -= k.part_cost[part][m]
        s.supply[m] += k.part_cost[part][m]
    s.built[p][part] += 1
    place(s, k, part, p, True)
    sets = s.built[p][0]
    for m in range(1, 3):
        if s.built[p][m] < sets:
            sets = s.built[p][m]
    while s.rocket_sets[p] < sets:
        s.rocket_sets[p] += 1
        place(s, k, T_ROCKET, p, True)


# ====================================================================== landing, Launchpad
cdef void pay_landing(FRState* s, const FRConst* k, int p) noexcept nogil:
    """FR-4: 1 Cheese per other player with a rat on each space where a moved rat ends."""
    cdef int L = k.L, i, j, q, x, sp, total = 0, value, need, amount, ne = 0, fee
    cdef int debts[FR_MAXO]
    cdef int ends[FR_RATS]
    fee = seat_ctx(s, k, p).fee
    if fee <= 0:
        return
    for i in range(s.nmoved):
        if s.nsup[p] and super_q(s, k, p, s.moved[i], Q_SUP_PAYS) <= 0:
            continue
        x = s.rats[p][s.moved[i]]
        if 0 < x < L:
            for j in range(ne):
                if ends[j] == x:
                    break
            else:
                ends[ne] = x
                ne += 1
    for q in range(FR_MAXO):
        debts[q] = 0
    for j in range(ne):
        sp = ends[j]
        for q in range(k.n):
            if q != p:
                for i in range(FR_RATS):
                    if s.rats[q][i] == sp:
                        debts[q] += fee
                        break
        if k.solo:
            for i in range(FR_RATS):
                if s.greg_rats[i] == sp:
                    debts[k.greg] += fee
                    break
    for q in range(k.n_owners):
        total += debts[q]
    if total > s.cheese[p]:  # Moldy Cheese exactly as needed, keep the change
        value = k.moldy_value
        need = (total - s.cheese[p] + value - 1) // value
        if need > s.supply[S_MOLDY]:
            need = s.supply[S_MOLDY]
        s.supply[S_MOLDY] -= need
        s.moldy[p] += need
        s.cheese[p] += need * value
        s.cheese_issued += need * value
    for i in range(1, k.n_owners):
        q = (p + i) % k.n_owners
        amount = debts[q] if debts[q] < s.cheese[p] else s.cheese[p]
        s.cheese[p] -= amount
        if q == k.greg:
            s.cheese_issued -= amount
        else:
            s.cheese[q] += amount


cdef bint can_award(const FRState* s, const FRConst* k) noexcept nogil:
    """FR-9: an Award only with a rat still on the path or a 4th Rattronaut."""
    cdef int p = s.seat, i
    if s.supply[S_AWARDS] <= 0:
        return False
    for i in range(FR_RATS):
        if 0 <= s.rats[p][i] < k.L:
            return True
    return rattronauts(s, k, p) == FR_RATS


cdef inline bint can_raise(const FRState* s) noexcept nogil:
    return sc_in(s.rats[s.seat], FR_RATS, NURSERY)


cdef void raise_rat(FRState* s, int p) noexcept nogil:
    """Take a rat from the Nursery to Start (FR-2); a waiting Super Rat comic takes it (FR-15)."""
    cdef int r, i
    for r in range(FR_RATS):
        if s.rats[p][r] == NURSERY:
            break
    else:
        return
    s.rats[p][r] = 0
    items_changed(s, p)   # its rats, maybe its Super Rats
    for i in range(s.nsup[p]):
        if s.sup_r[p][i] == -1:
            s.sup_r[p][i] = r
            break   # FR-19: one rat is at most one Super Rat; the next waits on


# ====================================================================== collect, burrow
cdef void give_reward(FRState* s, const FRConst* k, int p, int n, const signed char* op,
                      const signed char* arg, const int* amt) noexcept nogil:
    """``_reward``: a reward's automatic effects in order (score a track, gain Cheese or a
    material as far as the supply goes, FR-13)."""
    cdef int i, j, m, take
    for i in range(n):
        if op[i] == RO_SCORE:
            for j in range(amt[i]):
                place(s, k, arg[i], p, True)
        elif op[i] == RO_CHEESE:
            s.cheese[p] += amt[i]
            s.cheese_issued += amt[i]
        elif op[i] == RO_MAT:
            m = arg[i]
            take = amt[i] if amt[i] < s.supply[m] else s.supply[m]
            s.supply[m] -= take
            s.mats[p][m] += take


cdef void collect(FRState* s, const FRConst* k, int p) noexcept nogil:
    """Yields of the rats moved this turn (FR-5, FR-6, FR-13); see ``_collect``. FR-17: no
    decision, everything the moved rats earn is collected; unmoved rats collect nothing."""
    cdef int L = k.L, lit, mult, i, r, pos, tile, amount, kind, m, take, old, new, c
    cdef int every, bulbs = 0, apples = 0
    cdef unsigned int om
    cdef int bonus[8]
    cdef int on_colour[8]
    cdef int of_kind[8]
    lit = s.light[p]   # the marker where it stood at the start of Collect (FR-5)
    mult = k.drink_multiplier if s.drink_used else 1
    for i in range(8):
        bonus[i] = 0
    for i in range(s.nbp[p]):
        bonus[k.bp_colour[s.bp[p][i]]] += k.bp_bonus[s.bp[p][i]]
    om = owned_qmask(s, k, p)
    every = seat_q(s, k, p, Q_YIELD) if (om >> Q_YIELD) & 1U else k.q_base[Q_YIELD]
    for i in range(5):
        on_colour[i] = seat_q(s, k, p, Q_YIELD_ON + i) if (om >> (Q_YIELD_ON + i)) & 1U \
            else k.q_base[Q_YIELD_ON + i]
    for i in range(7):
        of_kind[i] = seat_q(s, k, p, Q_YIELD_OF + i) if (om >> (Q_YIELD_OF + i)) & 1U \
            else k.q_base[Q_YIELD_OF + i]
    for i in range(s.nmoved):
        r = s.moved[i]
        pos = s.rats[p][r]
        if not 0 < pos < L:
            continue
        tile = s.tiles[pos]
        kind = k.tile_kind[tile]
        amount = k.tile_amount[tile] + (k.lit_bonus if k.lit[lit][pos] else 0) \
            + bonus[k.tile_colour[tile]]
        amount += every + on_colour[k.tile_colour[tile]] + of_kind[kind]
        if s.nsup[p]:
            amount += super_q(s, k, p, r, Q_SUP_YIELD)
        if amount < 0:
            amount = 0
        amount *= mult
        if kind == Y_CHEESE:
            s.cheese[p] += amount
            s.cheese_issued += amount
        elif kind == Y_BULB:
            bulbs += amount
        elif kind == Y_APPLE:
            apples += amount
        else:
            m = kind - 1
            take = amount if amount < s.supply[m] else s.supply[m]
            s.supply[m] -= take
            s.mats[p][m] += take
    if bulbs:
        old = s.light[p]
        new = old + bulbs
        if new > k.light_length:
            new = k.light_length
        s.light[p] = new
        for c in range(old + 1, new + 1):
            if k.n_lrw[c]:
                s.lights_scored[p] += 1
                give_reward(s, k, p, k.n_lrw[c], k.lrw_op[c], k.lrw_arg[c], k.lrw_amt[c])
    s.burrow_steps = apples


cdef bint burrow_enter(FRState* s, const FRConst* k, int node) noexcept nogil:
    """Move the burrow marker one space; True when a reward needs a decision (FR-7)."""
    cdef int p = s.seat, reward
    s.burrow[p] = node
    s.burrow_steps -= 1
    give_reward(s, k, p, k.n_rw[node], k.rw_op[node], k.rw_arg[node], k.rw_amt[node])
    reward = k.reward[node]
    if reward == RW_NURSERY:
        if sc_in(s.rats[p], FR_RATS, NURSERY) and s.raised[p] < k.max_nursery_raises:
            s.phase = PH_NURSERY
            return True
    elif reward == RW_LIBRARY:
        if s.nlib:
            s.phase = PH_LIBRARY
            return True
    return False


cdef int super_candidates(const FRState* s, const FRConst* k, int* out) noexcept nogil:
    """``_super_candidates``: rats on the path, Start included (FR-15), that are not a Super
    Rat already (FR-19); rats on one space once, by the lowest index."""
    cdef int p = s.seat, r, pos, i, n = 0, dup
    cdef int seen_pos[FR_RATS]
    for r in range(FR_RATS):
        pos = s.rats[p][r]
        if 0 <= pos < k.L and super_sig(s, k, p, r) == 0:   # FR-19
            dup = 0
            for i in range(n):
                if seen_pos[i] == pos:
                    dup = 1
                    break
            if not dup:
                seen_pos[n] = pos
                out[n] = r
                n += 1
    return n


cdef void take_comic(FRState* s, const FRConst* k, int comic) noexcept nogil:
    """Take a Comic from the Library; a Super Rat comic picks its rat (FR-15)."""
    cdef int p = s.seat, nc, i
    cdef int cands[FR_RATS]
    s.nlib = sc_remove(s.library, s.nlib, comic)
    items_changed(s, p)
    if s.ncomics[p] < FR_MAXKIND:
        s.comics[p][s.ncomics[p]] = comic
        s.ncomics[p] += 1
    if k.comic_super[comic]:
        i = s.nsup[p]
        if i >= FR_MAXSUP:
            return
        s.sup_c[p][i] = comic
        s.sup_r[p][i] = -1
        s.nsup[p] += 1
        nc = super_candidates(s, k, cands)
        if nc == 1:
            s.sup_r[p][i] = cands[0]
        elif nc and s.npend < FR_MAXSUP:
            s.pending[s.npend] = comic
            s.npend += 1


# ====================================================================== the turn cursor
cdef int start_turn(FRState* s, const FRConst* k, int seat) noexcept nogil:
    """``_start_turn``; returns 1 when the turn has no movement and must be run now."""
    s.seat = seat
    s.nmoved = 0
    s.option = -1
    s.b_colour = -1
    s.launch_pending = 0
    s.drink_used = 0
    s.burrow_steps = 0
    s.npend = 0
    s.nshops = 0
    s.phase = PH_MOVE
    s.step = ST_MOVE
    if not any_move(s, k, seat, 0, seat_ctx(s, k, s.seat)):  # only with no rat on the path
        s.step = ST_SHOP
        return 1
    return 0


cdef int end_round(FRState* s, const FRConst* k) noexcept nogil:
    """End of a round: the game ends if a trigger's last round is done (FR-11)."""
    if s.end_round >= 0 and s.round >= s.end_round:
        s.phase = PH_OVER
        s.step = ST_NONE
        return 0
    s.round += 1
    return start_turn(s, k, 0)


cdef int end_turn(FRState* s, const FRConst* k) noexcept nogil:
    if k.solo:
        s.seat = k.greg
        s.greg_step = GS_DRAW
        return greg_run(s, k)
    if s.seat + 1 < k.n:
        return start_turn(s, k, s.seat + 1)
    return end_round(s, k)


cdef void run(FRState* s, const FRConst* k) noexcept nogil:
    """``_run``: carry out automatic steps until a decision (or the next turn's)."""
    cdef int p, st, node, i, j, x, n, guard = 0
    cdef bint aw, ra, any_path
    cdef int buf[FR_MAXKIND + 8]
    while True:
        p = s.seat
        st = s.step
        if st == ST_PAY:
            pay_landing(s, k, p)
            s.step = ST_LAUNCH
        elif st == ST_LAUNCH:
            if s.npend:
                s.phase = PH_SUPER
                return
            if s.launch_pending > 0:
                aw = can_award(s, k)
                ra = can_raise(s)
                if aw and ra:
                    s.phase = PH_LAUNCH
                    return
                s.launch_pending -= 1
                if aw:  # FR-9: the only allowed reward is taken
                    s.supply[S_AWARDS] -= 1
                    s.awards[p] += 1
                elif ra:
                    raise_rat(s, p)
                continue
            s.step = ST_DRINK
        elif st == ST_DRINK:
            if s.drinks[p] > 0:
                any_path = False
                for i in range(s.nmoved):
                    if 0 < s.rats[p][s.moved[i]] < k.L:
                        any_path = True
                        break
                if any_path:
                    s.phase = PH_DRINK
                    return
            s.step = ST_COLLECT
        elif st == ST_COLLECT:
            collect(s, k, p)
            s.step = ST_BURROW
        elif st == ST_BURROW:
            if s.npend:
                s.phase = PH_SUPER
                return
            if s.burrow_steps > 0:
                node = s.burrow[p]
                if k.nedges[node] > 1:  # FR-7: choose at the intersection
                    s.phase = PH_BURROW
                    return
                if burrow_enter(s, k, k.edge[node][0]):
                    return
                continue
            s.step = ST_SHOP
            # moved rats on booths, stably sorted by position
            s.nshops = 0
            for i in range(s.nmoved):
                x = s.rats[p][s.moved[i]]
                if 0 <= x < k.L and k.booth[x] >= 0:
                    j = s.nshops
                    while j > 0 and s.rats[p][s.shops[j - 1]] > x:
                        s.shops[j] = s.shops[j - 1]
                        j -= 1
                    s.shops[j] = s.moved[i]
                    s.nshops += 1
        elif st == ST_SHOP:
            while s.nshops and not booth_items(s, k, s.rats[p][s.shops[0]], buf):
                sc_pop0(s.shops, &s.nshops)
            if s.nshops:
                s.phase = PH_SHOP
                return
            s.step = ST_BUILD
        elif st == ST_BUILD:
            if build_actions(s, k, buf) > 1:
                s.phase = PH_BUILD
                return
            s.step = ST_END
        elif st == ST_END:
            if end_turn(s, k):
                guard += 1
                if guard > 100000:  # nobody can ever move again (the reference recurses)
                    return
                continue
            return
        else:
            return


# ====================================================================== setup (chance)
cdef int setup_candidates(const FRState* s, const FRConst* k, int* out) noexcept nogil:
    """The setup entry's candidates (a tile of its group, a value set, an item of its kind)
    that are not placed yet, as CH_* ids, ascending."""
    cdef int e = s.setup_pos, kind = k.setup_kind[e], arg = k.setup_arg[e], n = 0, g, i, t
    cdef int lo, hi, base
    cdef unsigned long long used
    if kind == SU_TILE:
        g = k.slot_group[arg]
        used = sc_bits(s.tiles, k.L)
        for i in range(k.ngroup[g]):
            t = k.group_slots[g][i]
            if not (used >> t) & 1ULL:
                out[n] = k.CH_TILE + t - 1
                n += 1
        return n
    if kind == SU_SET:
        used, lo, hi, base = sc_bits(s.sets_used, s.nsets), 0, k.n_vsets, k.CH_SET
    elif kind == SU_BP:
        used, lo, hi, base = sc_bits(s.disp_bp, s.ndisp_bp), 0, k.n_bp, k.CH_ITEM
    elif kind == SU_CAP:
        used, lo, hi = sc_bits(s.disp_caps, s.ndisp_caps), k.first_cap, k.first_cap + k.n_caps
        base = k.CH_ITEM
    else:
        used, lo, hi = sc_bits(s.library, s.nlib), k.first_comic, k.first_comic + k.n_comics
        base = k.CH_ITEM
    for i in range(lo, hi):
        if not (used >> i) & 1ULL:
            out[n] = base + i
            n += 1
    return n


cdef void apply_setup(FRState* s, const FRConst* k, int a) noexcept nogil:
    cdef int e = s.setup_pos, kind = k.setup_kind[e], arg = k.setup_arg[e], i, v, item
    s.setup_pos += 1
    if kind == SU_TILE:
        s.tiles[arg] = a - k.CH_TILE + 1
        set_colour_bits(s, k)
    elif kind == SU_SET:
        i = a - k.CH_SET
        s.sets_used[s.nsets] = i
        s.nsets += 1
        for v in range(FR_NV):
            s.track_values[arg][v] = k.vsets[i][v]
    else:
        item = a - k.CH_ITEM
        if kind == SU_BP:
            s.disp_bp[s.ndisp_bp] = item
            s.ndisp_bp += 1
        elif kind == SU_CAP:
            s.disp_caps[s.ndisp_caps] = item
            s.ndisp_caps += 1
        else:
            s.library[s.nlib] = item
            s.nlib += 1


cdef int advance_setup(FRState* s, const FRConst* k) noexcept nogil:
    """Apply forced setup draws; when setup is done, start seat 0's first turn."""
    cdef int out[FR_MAXITEMS + FR_MAXL]
    cdef int n
    while s.setup_pos < k.nsetup:
        n = setup_candidates(s, k, out)
        if n != 1:
            return 0
        apply_setup(s, k, out[0])
    sort_by_rank(s.disp_bp, s.ndisp_bp, k.item_rank)
    sort_by_rank(s.disp_caps, s.ndisp_caps, k.item_rank)
    sort_by_rank(s.library, s.nlib, k.item_rank)
    return start_turn(s, k, 0)


# ====================================================================== solo: Greg (FR-16)
cdef int greg_value(const FRState* s, int track) noexcept nogil:
    cdef int i
    for i in range(FR_NV - 1):
        if s.slots[track][i] == EMPTY:
            return s.track_values[track][i]
    return s.track_values[track][FR_NV - 1]


cdef int greg_best_ties(const FRState* s, const FRConst* k, int* out) noexcept nogil:
    cdef int i, v, best = -2147483647, n = 0
    for i in range(k.n_gtracks):
        v = greg_value(s, k.gtracks[i])
        if v > best:
            best = v
    for i in range(k.n_gtracks):
        if greg_value(s, k.gtracks[i]) == best:
            out[n] = k.gtracks[i]
            n += 1
    return n


cdef void greg_prepare(FRState* s, const FRConst* k, int track) noexcept nogil:
    """Prepare a track, or score it if already prepared (solo "Prepare a specific track")."""
    if sc_in(s.greg_prepared, s.nprep, track):
        s.nprep = sc_remove(s.greg_prepared, s.nprep, track)
        place(s, k, track, k.greg, True)
    else:
        s.greg_prepared[s.nprep] = track
        s.nprep += 1
        sort_by_rank(s.greg_prepared, s.nprep, k.track_rank)


cdef void sort_cards(signed char* a, int n) noexcept nogil:
    cdef int i, j
    cdef signed char x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef int greg_run(FRState* s, const FRConst* k) noexcept nogil:
    """``_greg_run``: draw (chance), booth discards, icon, end of round. Returns 1 when the
    next round's first turn must be run now."""
    cdef int st, icon, n, i
    cdef int items[FR_MAXKIND + 1]
    cdef int ties[FR_MAXGT]
    while True:
        st = s.greg_step
        if st == GS_DRAW:
            if s.nknown == 0 and s.greg_unknown[0] == 0 and s.greg_unknown[1] == 0:
                for i in range(s.ndiscard):   # FR-16: reshuffle when empty
                    s.greg_known[i] = s.greg_discard[i]
                s.nknown = s.ndiscard
                sort_cards(s.greg_known, s.nknown)
                s.ndiscard = 0
            s.phase = PH_GREG_DRAW
            return 0
        elif st == GS_BOOTHS:
            while s.nbooths:
                n = display_all(s, k, s.greg_booths[0], items)
                if n > 1:
                    s.phase = PH_GREG_BOOTH
                    return 0
                if n:
                    remove_display_item(s, k, items[0])
                sc_pop0(s.greg_booths, &s.nbooths)
            s.greg_step = GS_ICON
        elif st == GS_ICON:
            s.greg_step = GS_END
            icon = k.card_icon[s.greg_card]
            if icon == IC_NONE:
                continue
            if icon == IC_PREPARE:
                greg_prepare(s, k, k.card_track[s.greg_card])
            elif icon == IC_REMOVE:
                if s.nlib > 1:
                    s.phase = PH_GREG_COMIC
                    return 0
                s.nlib = 0
            else:  # prepare_best
                n = greg_best_ties(s, k, ties)
                if n > 1 and k.greg_choose:
                    s.phase = PH_GREG_BEST
                    return 0
                greg_prepare(s, k, ties[0])
        elif st == GS_END:
            if s.greg_card >= 0:
                s.greg_discard[s.ndiscard] = s.greg_card
                s.ndiscard += 1
                if k.card_icon[s.greg_card] == IC_BEST:
                    # reshuffle the faceup cards back into Greg's deck
                    for i in range(s.ndiscard):
                        s.greg_known[s.nknown + i] = s.greg_discard[i]
                    s.nknown += s.ndiscard
                    sort_cards(s.greg_known, s.nknown)
                    s.ndiscard = 0
            s.greg_card = -1
            s.greg_step = GS_NONE
            s.seat = 0
            return end_round(s, k)
        else:
            return 0


cdef int greg_draw_outcomes(const FRState* s, const FRConst* k, int* act,
                            double* prob) noexcept nogil:
    cdef double probs[FR_MAXCARDS]
    cdef char present[FR_MAXCARDS]
    cdef int total = s.nknown + s.greg_unknown[0] + s.greg_unknown[1], i, g, count, npool, n
    for i in range(k.n_cards):
        probs[i] = 0.0
        present[i] = 0
    for i in range(s.nknown):
        probs[s.greg_known[i]] += 1.0 / <double>total
        present[s.greg_known[i]] = 1
    for g in range(2):
        count = s.greg_unknown[g]
        if not count:
            continue
        npool = 0
        for i in range(k.n_cards):
            if k.card_group[i] == g and not sc_in(s.greg_seen, s.nseen, i):
                npool += 1
        for i in range(k.n_cards):
            if k.card_group[i] == g and not sc_in(s.greg_seen, s.nseen, i):
                probs[i] += <double>count / <double>total / <double>npool
                present[i] = 1
    n = 0
    for i in range(k.n_cards):
        if present[i]:
            act[n] = k.CH_CARD + i
            prob[n] = probs[i]
            n += 1
    return n


cdef int greg_draw(FRState* s, const FRConst* k, int card) noexcept nogil:
    """Greg reveals ``card`` and moves (FR-16; JUDGEMENT calls in the reference)."""
    cdef int L = k.L, i, j, r, m, carry = 0, nmv = 0, x, ne = 0, pos
    cdef int order[FR_RATS]
    cdef int mv[FR_RATS]
    cdef int ends[FR_RATS]
    if sc_in(s.greg_known, s.nknown, card):
        s.nknown = sc_remove(s.greg_known, s.nknown, card)
    elif k.card_group[card] < 2:
        s.greg_unknown[k.card_group[card]] -= 1
    if not sc_in(s.greg_seen, s.nseen, card):
        s.greg_seen[s.nseen] = card
        s.nseen += 1
        sort_cards(s.greg_seen, s.nseen)
    s.greg_card = card
    # position order: furthest first, ties by rat index (stable)
    for i in range(FR_RATS):
        j = i
        while j > 0 and s.greg_rats[order[j - 1]] < s.greg_rats[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    for i in range(FR_RATS):
        r = order[i]
        m = k.card_moves[card][i]
        if s.greg_rats[r] >= L:
            carry += m
            continue
        m += carry
        carry = 0
        if m <= 0:
            continue
        pos = s.greg_rats[r] + m
        s.greg_rats[r] = pos if pos < L else L
        mv[nmv] = r
        nmv += 1
        if s.greg_rats[r] == L:
            to_rocket(s, k, k.greg)
            break
    for i in range(nmv):
        x = s.greg_rats[mv[i]]
        if 0 < x < L:
            for j in range(ne):
                if ends[j] == x:
                    break
            else:
                ends[ne] = x
                ne += 1
    for j in range(ne):
        if sc_in(s.rats[0], FR_RATS, ends[j]):
            s.cheese[0] += k.landing_fee
            s.cheese_issued += k.landing_fee
    s.nbooths = 0
    for i in range(FR_RATS):   # FR-18: every Greg rat ending his turn on a booth, moved or not
        x = s.greg_rats[i]
        if 0 <= x < FR_MAXL and k.booth[x] >= 0:
            j = s.nbooths
            while j > 0 and s.greg_booths[j - 1] > x:
                s.greg_booths[j] = s.greg_booths[j - 1]
                j -= 1
            s.greg_booths[j] = x
            s.nbooths += 1
    s.greg_step = GS_BOOTHS
    return greg_run(s, k)


# ====================================================================== the contract in C
cdef void init_state(FRState* s, const FRConst* k) noexcept nogil:
    cdef int t, i, p, v, total = 0
    memset(s, 0, sizeof(FRState))
    s.phase = PH_SETUP
    s.step = ST_NONE
    s.round = 1
    s.seat = 0
    s.end_round = -1
    for i in range(k.L):
        s.tiles[i] = 0 if k.variable else i
    set_colour_bits(s, k)
    for t in range(FR_NT):
        for v in range(FR_NV):
            s.track_values[t][v] = k.track_values0[t][v]
        for i in range(FR_NV - 1):
            s.slots[t][i] = EMPTY
        for i in range(k.n_neutral):
            s.slots[t][k.neutral[i] - 1] = NEUTRAL
    s.nlib = k.n_lib0
    for i in range(k.n_lib0):
        s.library[i] = k.lib0[i]
    s.setup_pos = 0
    s.disp_drinks = k.disp_drinks0
    for p in range(k.n):
        for i in range(FR_RATS):
            s.rats[p][i] = 0 if i < k.rats_on_start else NURSERY
        s.cheese[p] = k.start_cheese[p]
        total += s.cheese[p]
        s.burrow[p] = k.burrow_start
    s.cheese_issued = total
    for i in range(6):
        s.supply[i] = k.supply0[i]
    s.option = -1
    s.b_colour = -1
    s.greg_card = -1
    s.greg_step = GS_NONE
    if k.solo:
        for i in range(FR_RATS):
            s.greg_rats[i] = k.greg_start[i]
        s.greg_unknown[0] = k.deal[0]
        s.greg_unknown[1] = k.deal[1]
        for i in range(k.n_cards):
            if k.card_group[i] == 2:
                s.greg_known[s.nknown] = i
                s.nknown += 1
                s.greg_seen[s.nseen] = i
                s.nseen += 1
    if advance_setup(s, k):
        run(s, k)


cdef void apply_move(FRState* s, const FRConst* k, int action) noexcept nogil:
    cdef int opt, r, mask, dest, ci, p = s.seat
    decode_move(k, action, &opt, &r, &mask, &dest, &ci)
    s.option = opt
    move_rat(s, k, p, r, dest, mask, ci, opt, True)
    if opt == 0 or s.nmoved >= k.option_b_max_rats or not any_move(s, k, p, 1,
                                                                   seat_ctx(s, k, s.seat)):
        s.step = ST_PAY
        run(s, k)
    else:
        s.phase = PH_MOVE_B


cdef void apply_action(FRState* s, const FRConst* k, int a) noexcept nogil:
    """``_apply_action`` (unchecked)."""
    cdef int ph = s.phase, p = s.seat, i, node, comic
    if ph == PH_SETUP:
        apply_setup(s, k, a)
        if advance_setup(s, k):
            run(s, k)
    elif ph == PH_GREG_DRAW:
        if greg_draw(s, k, a - k.CH_CARD):
            run(s, k)
    elif ph == PH_GREG_BOOTH:
        remove_display_item(s, k, a - k.CH_ITEM)
        sc_pop0(s.greg_booths, &s.nbooths)
        if greg_run(s, k):
            run(s, k)
    elif ph == PH_GREG_COMIC:
        s.nlib = sc_remove(s.library, s.nlib, a - k.CH_ITEM)
        s.greg_step = GS_END
        if greg_run(s, k):
            run(s, k)
    elif ph == PH_GREG_BEST:
        greg_prepare(s, k, k.gtracks[a - k.GREG_BEST])
        s.greg_step = GS_END
        if greg_run(s, k):
            run(s, k)
    elif a < k.move_size:
        apply_move(s, k, a)
    elif a == k.STOP_B:
        s.step = ST_PAY
        run(s, k)
    elif a == k.AWARD or a == k.RAISE:
        s.launch_pending -= 1
        if a == k.AWARD:
            s.supply[S_AWARDS] -= 1
            s.awards[p] += 1
        else:
            raise_rat(s, p)
        run(s, k)
    elif a == k.DRINK_USE or a == k.DRINK_SKIP:
        if a == k.DRINK_USE:
            s.drinks[p] -= 1
            s.drink_used = 1
        s.step = ST_COLLECT
        run(s, k)
    elif k.BURROW <= a < k.BURROW + k.n_dirs:
        node = k.choice[s.burrow[p]][a - k.BURROW]
        if not burrow_enter(s, k, node):
            run(s, k)
    elif a == k.NURSERY_RAISE or a == k.NURSERY_DECLINE:
        if a == k.NURSERY_RAISE:
            raise_rat(s, p)
            s.raised[p] += 1
        run(s, k)
    elif a == k.LIBRARY_DECLINE or k.LIBRARY <= a < k.SUPER:
        if a != k.LIBRARY_DECLINE:
            take_comic(s, k, a - k.LIBRARY + k.n_shop_items)
        run(s, k)
    elif k.SUPER <= a < k.BUY:
        comic = s.pending[0]
        sc_pop0(s.pending, &s.npend)
        items_changed(s, p)
        for i in range(s.nsup[p]):
            if s.sup_c[p][i] == comic:
                s.sup_r[p][i] = a - k.SUPER
                break
        else:
            if s.nsup[p] < FR_MAXSUP:
                s.sup_c[p][s.nsup[p]] = comic
                s.sup_r[p][s.nsup[p]] = a - k.SUPER
                s.nsup[p] += 1
        run(s, k)
    elif a == k.SHOP_PASS or k.BUY <= a < k.BUILD:
        i = s.shops[0]
        sc_pop0(s.shops, &s.nshops)
        if a != k.SHOP_PASS:
            do_shop(s, k, i, a)
        run(s, k)
    elif k.BUILD <= a < k.GREG_BEST:
        build(s, k, a - k.BUILD)
        run(s, k)
    elif a == k.DONATE:
        s.cheese[p] -= k.provisions_cost
        s.cheese_issued -= k.provisions_cost
        place(s, k, T_PROVISIONS, p, True)
        run(s, k)
    elif a == k.END_TURN:
        s.step = ST_END
        run(s, k)


cdef int legal_actions(FRState* s, const FRConst* k, int* out) noexcept nogil:
    """``_legal_actions`` (sorted) into ``out``; 0 at chance and terminal nodes."""
    cdef int ph = s.phase, n = 0, i, node
    cdef const MoveCtx* c
    cdef Movers mv
    if ph == PH_MOVE:
        c = seat_ctx(s, k, s.seat)
        movers(s, k, s.seat, c, &mv)
        n = move_actions(s, k, 0, out, c, &mv)
        return n + move_actions(s, k, 1, out + n, c, &mv)
    if ph == PH_MOVE_B:
        c = seat_ctx(s, k, s.seat)
        movers(s, k, s.seat, c, &mv)
        n = move_actions(s, k, 1, out, c, &mv)
        if s.nmoved >= k.option_b_min_rats:
            out[n] = k.STOP_B
            n += 1
        return n
    if ph == PH_LAUNCH:
        if can_award(s, k):
            out[n] = k.AWARD
            n += 1
        if can_raise(s):
            out[n] = k.RAISE
            n += 1
        return n
    if ph == PH_DRINK:
        out[0] = k.DRINK_USE
        out[1] = k.DRINK_SKIP
        return 2
    if ph == PH_BURROW:
        node = s.burrow[s.seat]
        for i in range(k.n_dirs):
            if k.choice[node][i] >= 0:
                out[n] = k.BURROW + i
                n += 1
        return n
    if ph == PH_NURSERY:
        out[0] = k.NURSERY_RAISE
        out[1] = k.NURSERY_DECLINE
        return 2
    if ph == PH_LIBRARY:
        for i in range(s.nlib):
            out[i] = k.LIBRARY + s.library[i] - k.n_shop_items
        out[s.nlib] = k.LIBRARY_DECLINE
        n = s.nlib + 1
        isort(out, n)
        return n
    if ph == PH_SUPER:
        n = super_candidates(s, k, out)
        for i in range(n):
            out[i] += k.SUPER
        return n
    if ph == PH_SHOP:
        return shop_actions(s, k, out)
    if ph == PH_BUILD:
        return build_actions(s, k, out)
    if ph == PH_GREG_BEST:
        n = greg_best_ties(s, k, out)
        for i in range(n):
            for node in range(k.n_gtracks):
                if k.gtracks[node] == out[i]:
                    out[i] = k.GREG_BEST + node
                    break
        return n
    return 0


cdef int chance_outcomes(const FRState* s, const FRConst* k, int* act,
                         double* prob) noexcept nogil:
    cdef int ph = s.phase, n = 0, i
    if ph == PH_SETUP:
        n = setup_candidates(s, k, act)
    elif ph == PH_GREG_DRAW:
        return greg_draw_outcomes(s, k, act, prob)
    elif ph == PH_GREG_BOOTH:
        n = display_all(s, k, s.greg_booths[0], act)
        for i in range(n):
            act[i] += k.CH_ITEM
        isort(act, n)
    elif ph == PH_GREG_COMIC:
        n = s.nlib
        for i in range(n):
            act[i] = k.CH_ITEM + s.library[i]
        isort(act, n)
    else:
        return 0
    for i in range(n):
        prob[i] = 1.0 / <double>n
    return n


cdef inline int current_player(const FRState* s) noexcept nogil:
    cdef int ph = s.phase
    if ph == PH_OVER:
        return _TERMINAL
    if ph == PH_SETUP or ph == PH_GREG_DRAW or ph == PH_GREG_BOOTH or ph == PH_GREG_COMIC:
        return _CHANCE
    if ph == PH_GREG_BEST:
        return 0
    return s.seat


cdef int returns(const FRState* s, const FRConst* k, double* out) noexcept nogil:
    cdef int q, n = k.n, best, most, nw = 0
    cdef int sc[FR_MAXP]
    cdef bint win[FR_MAXP]
    if s.phase != PH_OVER:
        for q in range(n):
            out[q] = 0.0
        return n
    for q in range(n):
        sc[q] = score(s, k, q)
    if k.solo:  # solo "End of the Game": more points than Greg wins
        out[0] = 1.0 if sc[0] > track_points(s, k, k.greg) else 0.0
        return 1
    best = sc[0]
    for q in range(1, n):
        if sc[q] > best:
            best = sc[q]
    most = -1
    for q in range(n):
        if sc[q] == best and rattronauts(s, k, q) > most:
            most = rattronauts(s, k, q)
    for q in range(n):
        win[q] = sc[q] == best and rattronauts(s, k, q) == most
        nw += win[q]
    for q in range(n):
        out[q] = 1.0 / <double>nw if win[q] else 0.0
    return n


# ====================================================================== information digest
cdef unsigned long long info_digest(const FRState* s, const FRConst* k) noexcept nogil:
    """A digest of every field in use: First Rat hides nothing (``observation`` is the whole
    state), so equal digests for equal observations of any seat."""
    cdef unsigned long long h = 0xF1257
    cdef int p, t
    h = cy_mix(h, s.phase)
    h = cy_mix(h, s.step)
    h = cy_mix(h, s.round)
    h = cy_mix(h, s.seat)
    h = cy_mix(h, s.end_round)
    h = cy_mix_arr(h, s.tiles, k.L)
    for t in range(FR_NT):
        h = cy_mix_arr(h, s.track_values[t], FR_NV)
        h = cy_mix_arr(h, s.slots[t], FR_NV - 1)
        h = cy_mix_arr(h, s.last[t], s.nlast[t])
    h = cy_mix_arr(h, s.sets_used, s.nsets)
    h = cy_mix_arr(h, s.library, s.nlib)
    h = cy_mix(h, s.setup_pos)
    h = cy_mix_arr(h, s.disp_bp, s.ndisp_bp)
    h = cy_mix_arr(h, s.disp_caps, s.ndisp_caps)
    h = cy_mix(h, s.disp_drinks)
    h = cy_mix(h, s.cheese_issued)
    h = cy_mix_arr(h, s.markers, k.n_owners)
    for p in range(k.n):
        h = cy_mix_arr(h, s.rats[p], FR_RATS)
        h = cy_mix(h, s.cheese[p])
        h = cy_mix(h, s.moldy[p])
        h = cy_mix(h, s.awards[p])
        h = cy_mix(h, s.drinks[p])
        h = cy_mix(h, s.light[p])
        h = cy_mix(h, s.lights_scored[p])
        h = cy_mix(h, s.raised[p])
        h = cy_mix(h, s.burrow[p])
        h = cy_mix_arr(h, s.mats[p], 4)
        h = cy_mix_arr(h, s.built[p], 3)
        h = cy_mix(h, s.rocket_sets[p])
        h = cy_mix_arr(h, s.bp[p], s.nbp[p])
        h = cy_mix_arr(h, s.caps[p], s.ncaps[p])
        h = cy_mix_arr(h, s.comics[p], s.ncomics[p])
        h = cy_mix_arr(h, s.sup_c[p], s.nsup[p])
        h = cy_mix_arr(h, s.sup_r[p], s.nsup[p])
    h = cy_mix_arr(h, s.supply, 6)
    h = cy_mix_arr(h, s.moved, s.nmoved)
    h = cy_mix(h, s.option)
    h = cy_mix(h, s.b_colour)
    h = cy_mix(h, s.launch_pending)
    h = cy_mix(h, s.drink_used)
    h = cy_mix(h, s.burrow_steps)
    h = cy_mix_arr(h, s.pending, s.npend)
    h = cy_mix_arr(h, s.shops, s.nshops)
    if k.solo:
        h = cy_mix_arr(h, s.greg_rats, FR_RATS)
        h = cy_mix_arr(h, s.greg_unknown, 2)
        h = cy_mix_arr(h, s.greg_known, s.nknown)
        h = cy_mix_arr(h, s.greg_seen, s.nseen)
        h = cy_mix_arr(h, s.greg_discard, s.ndiscard)
        h = cy_mix_arr(h, s.greg_prepared, s.nprep)
        h = cy_mix(h, s.greg_card)
        h = cy_mix_arr(h, s.greg_booths, s.nbooths)
        h = cy_mix(h, s.greg_step)
    return h if h != 0 else 1


# ====================================================================== game constants
cdef class _Consts:
    """The game's constants as a C struct (owned by the game, shared by its states)."""
    cdef FRConst c
    cdef FRObs ob                  # the compiled tensor writer's tables (_obs_tables)
    cdef public object ob_error
    cdef public object tokens      # setup_todo strings of the full setup, in order
    cdef public object node_names  # burrow node names by id

    cdef void build_obs(self, game) noexcept:
        """Build the tensor tables (_obs_tables) once; on failure ``ob.size`` is -1 and
        ``ob_error`` holds the error (the states then encode the observation dict)."""
        if self.ob.size != 0:
            return
        try:
            _obs_tables(&self.ob, &self.c, game, self.node_names)
        except Exception as exc:   # noexcept: kept for the report, the twin falls back
            self.ob_error = exc
            self.ob.size = -1


# ====================================================================== observation tensor
cdef void _item_cells(int* cells, float* inc, layout, str path, dict index) except *:
    """``cells[item id]``: the cell of that item in the multiset at ``path`` (-1: none)."""
    cdef int i
    for i in range(FR_MAXITEMS):
        cells[i] = -1
    for v in layout.slice(path, "multiset").values:
        cells[index[v]] = layout.count(path, v)
    inc[0] = layout.increment(path)


cdef void _int_cells(int* cells, int cap, float* inc, layout, str path) except *:
    """``cells[v]``: the cell of the integer ``v`` in the multiset at ``path`` (-1: none)."""
    cdef int i
    for i in range(cap):
        cells[i] = -1
    for v in layout.slice(path, "multiset").values:
        _limit(0 <= v < cap, f"the values of {path}")
        cells[v] = layout.count(path, v)
    inc[0] = layout.increment(path)


cdef void _obs_tables(FRObs* o, const FRConst* k, game, node_names) except *:
    """Fill ``o`` from ``game``'s tensor layout (``ObsLayout``): every offset, scale and
    one-hot index the writer needs, looked up by the JSON path of the schema
    (``engines/first_rat/schema.py``); a path the layout lacks raises ``ValueError``."""
    cdef int p, t, i, m
    memset(o, 0, sizeof(FRObs))
    lay = ObsLayout(game)
    idx = game.item_index
    items = game.items
    for i, name in enumerate(PHASE_NAMES):
        o.phase[i] = lay.hot("$.phase", name)
    for i, name in enumerate(STEP_NAMES):
        o.step[i] = lay.hot("$.step", name)
    for i, name in enumerate(GREG_STEP_NAMES):
        o.greg_step[i] = lay.hot("$.greg_step", name)
    cy_obs_num_at(&o.round, lay, "$.round")
    cy_obs_num_at(&o.seat, lay, "$.seat")
    o.end_round_flag = lay.flag("$.end_round")
    cy_obs_num_at(&o.end_round, lay, "$.end_round")
    for i in range(k.L):
        cy_obs_num_at(&o.tiles[i], lay, f"$.tiles[{i}]")
    for t, track in enumerate(TRACKS):
        for i in range(FR_NV):
            cy_obs_num_at(&o.track_values[t][i], lay, f"$.track_values.{track}[{i}]")
        for i in range(FR_NV - 1):
            o.slot_flag[t][i] = lay.flag(f"$.track_slots.{track}[{i}]")
            cy_obs_num_at(&o.slot[t][i], lay, f"$.track_slots.{track}[{i}]")
        i = 0
        while i < FR_MAXO and lay.has(f"$.track_last.{track}[{i}]", "number"):
            cy_obs_num_at(&o.last[t][i], lay, f"$.track_last.{track}[{i}]")
            i += 1
        o.last_shown = i
        o.last_len[t], o.last_div = lay.length(f"$.track_last.{track}")
    _int_cells(o.sets_used, FR_MAXSETS, &o.sets_inc, lay, "$.sets_used")
    _item_cells(o.library, &o.library_inc, lay, "$.library", idx)
    _item_cells(o.disp_bp, &o.disp_bp_inc, lay, "$.disp_backpacks", idx)
    _item_cells(o.disp_caps, &o.disp_caps_inc, lay, "$.disp_caps", idx)
    cy_obs_num_at(&o.disp_drinks, lay, "$.disp_drinks")
    cy_obs_num_at(&o.cheese_issued, lay, "$.cheese_issued")
    for p in range(k.n):
        for i in range(FR_RATS):
            cy_obs_num_at(&o.rats[p][i], lay, f"$.rats[{p}][{i}]")
        cy_obs_num_at(&o.cheese[p], lay, f"$.cheese[{p}]")
        cy_obs_num_at(&o.moldy[p], lay, f"$.moldy[{p}]")
        cy_obs_num_at(&o.awards[p], lay, f"$.awards[{p}]")
        cy_obs_num_at(&o.drinks[p], lay, f"$.drinks[{p}]")
        cy_obs_num_at(&o.light[p], lay, f"$.light[{p}]")
        cy_obs_num_at(&o.lights_scored[p], lay, f"$.lights_scored[{p}]")
        cy_obs_num_at(&o.raised[p], lay, f"$.raised[{p}]")
        cy_obs_num_at(&o.rocket_sets[p], lay, f"$.rocket_sets[{p}]")
        cy_obs_num_at(&o.scores[p], lay, f"$.scores[{p}]")
        for i in range(k.n_nodes):
            o.burrow[p][i] = lay.hot(f"$.burrow[{p}]", node_names[i])
        for i, m_name in enumerate(MATERIALS):
            cy_obs_num_at(&o.mats[p][i], lay, f"$.mats[{p}].{m_name}")
        for i, part in enumerate(PARTS):
            cy_obs_num_at(&o.built[p][i], lay, f"$.built[{p}].{part}")
        _item_cells(o.bp[p], &o.bp_inc, lay, f"$.backpacks[{p}]", idx)
        _item_cells(o.caps[p], &o.caps_inc, lay, f"$.caps[{p}]", idx)
        _item_cells(o.comics[p], &o.comics_inc, lay, f"$.comics[{p}]", idx)
        for i in range(k.n_items):
            o.sup_flag[p][i] = -1
            path = f"$.super_rats[{p}].{items[i]}"
            if k.item_kind[i] == IK_COMIC and lay.has(path, "flag"):
                o.sup_flag[p][i] = lay.flag(path)
                cy_obs_num_at(&o.sup[p][i], lay, path)
    for i in range(k.n_owners):
        cy_obs_num_at(&o.markers[i], lay, f"$.markers[{i}]")
    for i, key in enumerate(_SUPPLY_KEYS):
        cy_obs_num_at(&o.supply[i], lay, f"$.supply.{key}")
    _int_cells(o.moved, FR_RATS, &o.moved_inc, lay, "$.moved")
    _int_cells(o.shops, FR_RATS, &o.shops_inc, lay, "$.shops")
    o.option_flag = lay.flag("$.option")
    for i in range(2):
        o.option[i] = lay.hot("$.option", "AB"[i])
    o.b_colour_flag = lay.flag("$.b_colour")
    for i, colour in enumerate(COLOURS):
        o.b_colour[i] = lay.hot("$.b_colour", colour)
    cy_obs_num_at(&o.launch_pending, lay, "$.launch_pending")
    cy_obs_num_at(&o.drink_used, lay, "$.drink_used")
    cy_obs_num_at(&o.burrow_steps, lay, "$.burrow_steps")
    _item_cells(o.pending, &o.pending_inc, lay, "$.pending_super", idx)
    for i in range(FR_RATS):
        cy_obs_num_at(&o.greg_rats[i], lay, f"$.greg_rats[{i}]")
        cy_obs_num_at(&o.greg_booths[i], lay, f"$.greg_booths[{i}]")
    o.greg_rats_len, o.greg_rats_div = lay.length("$.greg_rats")
    o.booths_len, o.booths_div = lay.length("$.greg_booths")
    for i, half in enumerate("AB"):
        o.gu_flag[i] = lay.flag(f"$.greg_unknown.{half}")
        cy_obs_num_at(&o.gu[i], lay, f"$.greg_unknown.{half}")
    _int_cells(o.known, FR_MAXCARDS, &o.known_inc, lay, "$.greg_known")
    _int_cells(o.seen, FR_MAXCARDS, &o.seen_inc, lay, "$.greg_seen")
    _int_cells(o.discard, FR_MAXCARDS, &o.discard_inc, lay, "$.greg_discard")
    prepared = lay.slice("$.greg_prepared", "multiset").values
    for t, track in enumerate(TRACKS):
        o.prepared[t] = lay.count("$.greg_prepared", track) if track in prepared else -1
    o.prepared_inc = lay.increment("$.greg_prepared")
    o.greg_card_flag = lay.flag("$.greg_card")
    for i in range(k.n_cards):
        o.greg_card[i] = lay.hot("$.greg_card", i)
    cy_obs_num_at(&o.greg_points, lay, "$.greg_points")
    o.size = lay.size   # last: a state reads the tables once size is set (_obs_ready)


cdef inline void _obs_items(float* out, const int* cells, float inc, const signed char* a,
                            int n) noexcept nogil:
    cdef int i, c
    for i in range(n):
        c = cells[a[i]]
        if c >= 0:
            cy_obs_add(out, c, inc)


cdef void obs_write(const FRState* s, const FRConst* k, const FRObs* o,
                    float* out) noexcept nogil:
    """``observation_tensor(player)`` from the struct (nothing is hidden in First Rat, so
    every seat's tensor is the same): the reference ``TensorLayout.encode`` of
    ``observation(player)`` field by field, with the tables of ``_obs_tables``."""
    cdef int n = k.n, p, t, i, v, m
    memset(out, 0, o.size * sizeof(float))
    cy_obs_hot(out, o.phase[s.phase])
    cy_obs_hot(out, o.step[s.step])
    cy_obs_hot(out, o.greg_step[s.greg_step])
    cy_obs_num(out, &o.round, s.round)
    cy_obs_num(out, &o.seat, s.seat)
    if s.end_round >= 0:
        cy_obs_hot(out, o.end_round_flag)
        cy_obs_num(out, &o.end_round, s.end_round)
    for i in range(k.L):
        cy_obs_num(out, &o.tiles[i], s.tiles[i])
    for t in range(FR_NT):
        for i in range(FR_NV):
            cy_obs_num(out, &o.track_values[t][i], s.track_values[t][i])
        for i in range(FR_NV - 1):
            v = s.slots[t][i]
            if v != EMPTY:
                cy_obs_hot(out, o.slot_flag[t][i])
                cy_obs_num(out, &o.slot[t][i], v)
        m = s.nlast[t] if s.nlast[t] < o.last_shown else o.last_shown
        for i in range(m):
            cy_obs_num(out, &o.last[t][i], s.last[t][i])
        if o.last_len[t] >= 0:
            cy_obs_len(out, o.last_len[t], s.nlast[t], o.last_div)
    for i in range(s.nsets):
        v = o.sets_used[s.sets_used[i]]
        if v >= 0:
            cy_obs_add(out, v, o.sets_inc)
    _obs_items(out, o.library, o.library_inc, s.library, s.nlib)
    _obs_items(out, o.disp_bp, o.disp_bp_inc, s.disp_bp, s.ndisp_bp)
    _obs_items(out, o.disp_caps, o.disp_caps_inc, s.disp_caps, s.ndisp_caps)
    cy_obs_num(out, &o.disp_drinks, s.disp_drinks)
    cy_obs_num(out, &o.cheese_issued, s.cheese_issued)
    for p in range(n):
        for i in range(FR_RATS):
            cy_obs_num(out, &o.rats[p][i], s.rats[p][i])
        cy_obs_num(out, &o.cheese[p], s.cheese[p])
        cy_obs_num(out, &o.moldy[p], s.moldy[p])
        cy_obs_num(out, &o.awards[p], s.awards[p])
        cy_obs_num(out, &o.drinks[p], s.drinks[p])
        cy_obs_num(out, &o.light[p], s.light[p])
        cy_obs_num(out, &o.lights_scored[p], s.lights_scored[p])
        cy_obs_num(out, &o.raised[p], s.raised[p])
        cy_obs_num(out, &o.rocket_sets[p], s.rocket_sets[p])
        cy_obs_num(out, &o.scores[p], score(s, k, p))
        cy_obs_hot(out, o.burrow[p][s.burrow[p]])
        for i in range(4):
            cy_obs_num(out, &o.mats[p][i], s.mats[p][i])
        for i in range(3):
            cy_obs_num(out, &o.built[p][i], s.built[p][i])
        _obs_items(out, o.bp[p], o.bp_inc, s.bp[p], s.nbp[p])
        _obs_items(out, o.caps[p], o.caps_inc, s.caps[p], s.ncaps[p])
        _obs_items(out, o.comics[p], o.comics_inc, s.comics[p], s.ncomics[p])
        for i in range(s.nsup[p]):
            v = s.sup_c[p][i]
            if o.sup_flag[p][v] >= 0:
                cy_obs_hot(out, o.sup_flag[p][v])
                cy_obs_num(out, &o.sup[p][v], s.sup_r[p][i])
    for i in range(k.n_owners):
        cy_obs_num(out, &o.markers[i], s.markers[i])
    for i in range(6):
        cy_obs_num(out, &o.supply[i], s.supply[i])
    for i in range(s.nmoved):
        v = o.moved[s.moved[i]]
        if v >= 0:
            cy_obs_add(out, v, o.moved_inc)
    for i in range(s.nshops):
        v = o.shops[s.shops[i]]
        if v >= 0:
            cy_obs_add(out, v, o.shops_inc)
    if s.option >= 0:
        cy_obs_hot(out, o.option_flag)
        cy_obs_hot(out, o.option[s.option])
    if s.b_colour >= 0:
        cy_obs_hot(out, o.b_colour_flag)
        cy_obs_hot(out, o.b_colour[s.b_colour])
    cy_obs_num(out, &o.launch_pending, s.launch_pending)
    cy_obs_num(out, &o.drink_used, 1 if s.drink_used else 0)
    cy_obs_num(out, &o.burrow_steps, s.burrow_steps)
    _obs_items(out, o.pending, o.pending_inc, s.pending, s.npend)
    if k.solo:
        for i in range(FR_RATS):
            cy_obs_num(out, &o.greg_rats[i], s.greg_rats[i])
        if o.greg_rats_len >= 0:
            cy_obs_len(out, o.greg_rats_len, FR_RATS, o.greg_rats_div)
        for i in range(2):
            cy_obs_hot(out, o.gu_flag[i])
            cy_obs_num(out, &o.gu[i], s.greg_unknown[i])
    for i in range(s.nknown):
        v = o.known[s.greg_known[i]]
        if v >= 0:
            cy_obs_add(out, v, o.known_inc)
    for i in range(s.nseen):
        v = o.seen[s.greg_seen[i]]
        if v >= 0:
            cy_obs_add(out, v, o.seen_inc)
    for i in range(s.ndiscard):
        v = o.discard[s.greg_discard[i]]
        if v >= 0:
            cy_obs_add(out, v, o.discard_inc)
    for i in range(s.nprep):
        v = o.prepared[s.greg_prepared[i]]
        if v >= 0:
            cy_obs_add(out, v, o.prepared_inc)
    if s.greg_card >= 0:
        cy_obs_hot(out, o.greg_card_flag)
        cy_obs_hot(out, o.greg_card[s.greg_card])
    for i in range(s.nbooths):
        cy_obs_num(out, &o.greg_booths[i], s.greg_booths[i])
    if o.booths_len >= 0:
        cy_obs_len(out, o.booths_len, s.nbooths, o.booths_div)
    cy_obs_num(out, &o.greg_points, track_points(s, k, k.greg) if k.solo else 0)


cdef void _sparse(MatCost* out, const int* cost):
    """``out``: the materials ``cost`` (four amounts) names, as a sparse list."""
    cdef int j
    out.nz = 0
    for j in range(4):
        if cost[j]:
            out.mat[out.nz] = j
            out.amt[out.nz] = cost[j]
            out.nz += 1


def _limit(cond, what):
    if not cond:
        raise ValueError(f"first_rat data: {what} exceeds the Cython twin's fixed sizes; "
                         f"use backend='python'")


cdef void _compile_item(FRConst* c, int i, str item, g) except *:
    """An item's effects into the constant tables: its ``modify`` summaries per quantity
    (``FirstRatGame.item_mods``) and its end-of-game ``score`` effects."""
    cdef int q, e = 0
    for q, name in enumerate(QUANTITIES):
        c.item_lo[i][q] = -FR_QOPEN
        c.item_hi[i][q] = FR_QOPEN
        if name in g.item_mods[item]:
            add, lo, hi = g.item_mods[item][name]
            c.item_qmask[i] |= 1U << q
            if i >= c.first_comic:
                c.comic_qmask |= 1U << q
            else:
                c.cap_qmask |= 1U << q
            c.item_add[i][q] = add
            c.item_lo[i][q] = -FR_QOPEN if lo is None else max(lo, -FR_QOPEN)
            c.item_hi[i][q] = FR_QOPEN if hi is None else min(hi, FR_QOPEN)
    for eff in g.data.item_effects[item]:
        if eff.op != "score" or eff.when != "game_end":
            continue
        _limit(e < FR_MAXEFF, "the scoring effects of one item")
        a = eff.amount
        c.sc_count[i][e] = -1 if a.count is None else COUNTS.index(a.count.of)
        c.sc_times[i][e] = a.times
        c.sc_divide[i][e] = a.divide
        c.sc_plus[i][e] = a.plus
        c.sc_max[i][e] = -1 if a.max is None else a.max
        cond = eff.condition
        c.sc_ccount[i][e] = -1 if cond is None else COUNTS.index(cond.count.of)
        c.sc_cmp[i][e] = 0 if cond is None else _COMPARISONS.index(cond.cmp)
        c.sc_cvalue[i][e] = 0 if cond is None else cond.value
        e += 1
    c.n_score[i] = e


cdef int _compile_reward(effects, signed char* op, signed char* arg, int* amt) except -1:
    """A reward's automatic effects (``_reward``) as RO_* codes; returns how many."""
    cdef int n = 0
    for eff in effects:
        if eff.op == "move":
            continue   # the choice: FRConst.reward
        _limit(n < FR_MAXEFF, "the effects of one reward")
        if eff.op == "score":
            op[n], arg[n] = RO_SCORE, TRACKS.index(eff.resource)
        elif eff.resource == "cheese":
            op[n], arg[n] = RO_CHEESE, 0
        else:
            op[n], arg[n] = RO_MAT, MATERIALS.index(eff.resource)
        amt[n] = eff.amount.plus
        n += 1
    return n


def _make_consts(game, params) -> _Consts:
    cdef _Consts obj = _Consts()
    cdef FRConst* c = &obj.c
    cdef int i, j, o, t, m
    cdef unsigned long long sc, alld, free, one = 1
    g = game
    d = g.data
    L = g.L
    memset(c, 0, sizeof(FRConst))
    _limit(L + 1 <= FR_MAXL and L < 64, "the path length")
    _limit(len(g.items) <= FR_MAXITEMS, "the number of items")
    _limit(max(len(d.backpacks), len(d.bottle_caps), len(d.comics)) <= FR_MAXKIND,
           "the items of one kind")
    _limit(sum(1 for x in d.comics if x[2]) <= FR_MAXSUP, "the Super Rat comics")
    _limit(len(d.cards) <= FR_MAXCARDS, "the solo cards")
    _limit(len(d.burrow_edges) <= FR_MAXNODES, "the burrow nodes")
    _limit(len(g.directions) <= FR_MAXDIRS
           and max(len(v) for v in d.burrow_edges.values()) <= FR_MAXDIRS, "the burrow edges")
    _limit(g.n_masks <= FR_MAXMASK, "the shortcuts")
    _limit(len(d.variable_value_sets) <= FR_MAXSETS, "the value sets")
    _limit(len(d.greg_tracks) <= FR_MAXGT, "Greg's tracks")
    _limit(len(d.tile_groups) <= 8, "the tile groups")
    _limit(g.n_colours <= 8 and len(d.neutral_markers[g.table_n]) <= 4, "the colours")
    _limit(len(d.start_cheese) >= FR_MAXP or g.n <= len(d.start_cheese), "the seats")
    c.n = g.n
    c.solo = g.solo
    c.greg = g.greg if g.solo else -1
    c.n_owners = g.n_owners
    c.table_n = g.table_n
    c.L = L
    c.n_colours = g.n_colours
    c.n_masks = g.n_masks
    c.n_dest = g.n_dest
    c.move_size = g.move_size
    c.STOP_B, c.AWARD, c.RAISE = g.STOP_B, g.AWARD, g.RAISE
    c.DRINK_USE, c.DRINK_SKIP = g.DRINK_USE, g.DRINK_SKIP
    c.NURSERY_RAISE, c.NURSERY_DECLINE = g.NURSERY_RAISE, g.NURSERY_DECLINE
    c.LIBRARY_DECLINE, c.SHOP_PASS, c.DONATE, c.END_TURN = (
        g.LIBRARY_DECLINE, g.SHOP_PASS, g.DONATE, g.END_TURN)
    c.BURROW = g.BURROW
    c.n_dirs = len(g.directions)
    c.LIBRARY, c.SUPER, c.BUY, c.STEAL, c.BUILD = g.LIBRARY, g.SUPER, g.BUY, g.STEAL, g.BUILD
    c.GREG_BEST, c.CH_TILE, c.CH_SET = g.GREG_BEST, g.CH_TILE, g.CH_SET
    c.CH_ITEM, c.CH_CARD = g.CH_ITEM, g.CH_CARD
    c.num_actions = g.num_distinct_actions()
    # items: backpacks, the energy drink, bottle caps, comics (FirstRatGame.items)
    c.n_items = len(g.items)
    c.n_bp = len(d.backpacks)
    c.drink_item = c.n_bp
    c.first_cap = c.n_bp + 1
    c.n_caps = len(d.bottle_caps)
    c.first_comic = c.first_cap + c.n_caps
    c.n_comics = len(d.comics)
    c.n_shop_items = g.n_shop_items
    ranks = {item: i for i, item in enumerate(sorted(g.items))}
    sigs = {}
    for i, item in enumerate(g.items):
        c.item_rank[i] = ranks[item]
        if i < c.n_bp:
            c.item_kind[i] = IK_BP
            colour, bonus = g.backpack_info[item]
            c.bp_colour[i] = COLOURS.index(colour)
            c.bp_bonus[i] = bonus
            c.bp_sig[i] = sigs.setdefault((colour, bonus), len(sigs))
        elif i == c.drink_item:
            c.item_kind[i] = IK_DRINK
        elif i < c.first_comic:
            c.item_kind[i] = IK_CAP
            _compile_item(c, i, item, g)
        else:
            c.item_kind[i] = IK_COMIC
            c.comic_super[i] = bool(g.comic_super[item])
            _compile_item(c, i, item, g)
    for m in range(g.n_masks):
        cost = g.mask_cost[m]
        c.mask_any[m] = bool(cost)
        for j, mat in enumerate(MATERIALS):
            c.mask_cost[m][j] = cost.get(mat, 0)
        _sparse(&c.mask_sparse[m], c.mask_cost[m])
    c.max_steps = g.max_steps
    for o in range(L):
        routes = sorted(g.route_table[o][g.max_steps], key=lambda x: (x[1], x[0]))
        _limit(len(routes) <= FR_MAXR, "the routes from one space")
        c.nroutes[o] = len(routes)
        for j, (dest, mask, steps) in enumerate(routes):
            c.route_dest[o][j] = dest
            c.route_mask[o][j] = mask
            c.route_steps[o][j] = steps
            c.route_code[o][j] = mask * c.n_dest + (dest - 1 if dest < L else L - 1)
    _limit(g.max_steps <= FR_MAXSTEPS, "the steps of one move")
    for o in range(L):
        for t in range(g.max_steps + 1):
            sc = alld = free = 0
            for j in range(c.nroutes[o]):
                if c.route_steps[o][j] <= t:
                    alld |= one << c.route_dest[o][j]
                    if c.route_mask[o][j]:
                        sc |= one << j
                    else:
                        free |= one << c.route_dest[o][j]
            c.sc_route_bits[o][t] = sc
            c.all_dests[o][t] = alld
            c.free_dests[o][t] = free
    # one option's moves: per rat its routes, a Launchpad route once per colour
    bound = 2 * FR_RATS * max(
        sum(g.n_colours if dest == L else 1 for dest, _, _ in g.route_table[o][g.max_steps])
        for o in range(L)) + 64
    _limit(bound <= FR_MAXLEG, "the legal moves of one position")
    for t in range(FR_MAXL):
        c.booth[t] = -1
    for t, sp in d.tiles.items():
        c.tile_colour[t] = COLOURS.index(sp.colour)
        c.tile_kind[t] = YIELD_KINDS.index(sp.kind)
        c.tile_amount[t] = sp.amount
    kinds = {"backpack": IK_BP, "energy_drink": IK_DRINK, "bottle_cap": IK_CAP}
    for slot, booth in d.booths.items():
        c.booth[slot] = kinds[BOOTH_ITEMS[booth]]
    for i, colour in enumerate(d.launchpad_colours):
        c.lp_colour[i] = COLOURS.index(colour)
    for i in range(8):
        c.lp_index[i] = -1
    for i in range(g.n_colours - 1, -1, -1):
        c.lp_index[c.lp_colour[i]] = i
    _limit(d.light_length < FR_MAXLIGHT, "the light string")
    c.light_length = d.light_length
    c.lit_bonus = d.lit_bonus
    for t in range(d.light_length + 1):
        for x in d.lit_spaces(t):
            c.lit[t][x] = 1
    for t, effects in d.light_effects.items():
        c.n_lrw[t] = _compile_reward(effects, c.lrw_op[t], c.lrw_arg[t], c.lrw_amt[t])
    nodes = list(d.burrow_edges)
    obj.node_names = tuple(nodes)
    c.n_nodes = len(nodes)
    c.burrow_start = nodes.index(d.burrow_start)
    rewards = {"nursery": RW_NURSERY, "library": RW_LIBRARY}
    for i, node in enumerate(nodes):
        c.nedges[i] = len(d.burrow_edges[node])
        for j, nxt in enumerate(d.burrow_edges[node]):
            c.edge[i][j] = nodes.index(nxt)
        for j in range(FR_MAXDIRS):
            c.choice[i][j] = -1
        for dname, nxt in d.burrow_choices.get(node, {}).items():
            c.choice[i][g.directions.index(dname)] = nodes.index(nxt)
        c.reward[i] = rewards.get(d.burrow_choice.get(node), RW_NONE)
        c.n_rw[i] = _compile_reward(d.burrow_rewards.get(node, ()), c.rw_op[i], c.rw_arg[i],
                                    c.rw_amt[i])
    for t, name in enumerate(TRACKS):
        for j in range(FR_NV):
            c.track_values0[t][j] = d.track_values[name][j]
    neutral = d.neutral_markers[g.table_n]
    c.n_neutral = len(neutral)
    for i, x in enumerate(neutral):
        c.neutral[i] = x
    c.n_vsets = len(d.variable_value_sets)
    for i, vs in enumerate(d.variable_value_sets):
        for j in range(FR_NV):
            c.vsets[i][j] = vs[j]
    for i, part in enumerate(PARTS):
        for j, mat in enumerate(MATERIALS):
            c.part_cost[i][j] = d.part_costs[part].get(mat, 0)
        _sparse(&c.part_sparse[i], c.part_cost[i])
    c.provisions_cost = d.provisions_cost
    c.price[0] = d.prices["backpack"]
    c.price[1] = d.prices["energy_drink"]
    c.price[2] = d.prices["bottle_cap"]
    for i in range(min(FR_MAXP, len(d.start_cheese))):
        c.start_cheese[i] = d.start_cheese[i]
    if tuple(d.supply) != _SUPPLY_KEYS:
        raise ValueError("first_rat data: unexpected supply keys for the Cython twin")
    for i, key in enumerate(_SUPPLY_KEYS):
        c.supply0[i] = d.supply[key]
    # setup draws (FirstRatState.__init__)
    c.variable = params["layout"] == "variable"
    c.first_game = bool(params["first_game"])
    tokens = []
    codes = []
    if c.variable:
        for _, slots in d.tile_groups:
            tokens += [f"tile:{s}" for s in slots]
            codes += [(SU_TILE, s) for s in slots]
        tokens += [f"set:{tname}" for tname in d.variable_tracks]
        codes += [(SU_SET, TRACKS.index(tname)) for tname in d.variable_tracks]
    tokens += ["backpack"] * d.backpacks_shown[g.table_n]
    codes += [(SU_BP, 0)] * d.backpacks_shown[g.table_n]
    tokens += ["bottle_cap"] * d.bottle_caps_shown
    codes += [(SU_CAP, 0)] * d.bottle_caps_shown
    lib0 = []
    if c.first_game:
        lib0 = [x[0] for x in d.comics if not x[2]][:d.comics_shown]
    else:
        tokens += ["comic"] * d.comics_shown
        codes += [(SU_COMIC, 0)] * d.comics_shown
    _limit(len(codes) <= FR_MAXSETUP and len(codes) < 127, "the setup draws")
    obj.tokens = tuple(tokens)
    c.nsetup = len(codes)
    for i, (kind, arg) in enumerate(codes):
        c.setup_kind[i] = kind
        c.setup_arg[i] = arg
    for i, (_, slots) in enumerate(d.tile_groups):
        c.ngroup[i] = len(slots)
        for j, x in enumerate(slots):
            c.group_slots[i][j] = x
            c.slot_group[x] = i
    c.n_lib0 = len(lib0)
    for i, x in enumerate(lib0):
        c.lib0[i] = g.item_index[x]
    c.disp_drinks0 = d.energy_drinks[g.table_n]
    # solo
    c.n_cards = len(d.cards)
    for i, card in enumerate(d.cards):
        c.card_group[i] = "ABC".index(card.group)
        for j in range(FR_RATS):
            c.card_moves[i][j] = card.moves[j]
        icon = card.icon
        c.card_track[i] = -1
        if icon is None:
            c.card_icon[i] = IC_NONE
        elif icon.startswith("prepare:"):
            c.card_icon[i] = IC_PREPARE
            c.card_track[i] = TRACKS.index(icon[8:])
        elif icon == "remove_comic":
            c.card_icon[i] = IC_REMOVE
        else:
            c.card_icon[i] = IC_BEST
    for j in range(FR_RATS):
        c.greg_start[j] = d.greg_start[j]
    c.n_gtracks = len(d.greg_tracks)
    for i, tname in enumerate(d.greg_tracks):
        c.gtracks[i] = TRACKS.index(tname)
    c.greg_choose = params["greg_best_tie"] == "choose"
    deal = d.solo_deck[params["difficulty"]]
    c.deal[0] = deal.get("A", 0)
    c.deal[1] = deal.get("B", 0)
    trank = {tname: j for j, tname in enumerate(sorted(TRACKS))}
    for t, name in enumerate(TRACKS):
        c.track_rank[t] = trank[name]
    for t, qv in enumerate(QUANTITIES.values()):
        c.q_base[t] = qv
    R = RULEBOOK
    c.option_a_max = R["option_a_max"]
    c.option_b_min_rats = R["option_b_min_rats"]
    c.option_b_max_rats = R["option_b_max_rats"]
    c.option_b_max = R["option_b_max"]
    c.landing_fee = R["landing_fee"]
    c.moldy_value = R["moldy_value"]
    c.moldy_penalty = R["moldy_penalty"]
    c.award_points = R["award_points"]
    c.max_nursery_raises = R["max_nursery_raises"]
    c.score_markers = R["score_markers"]
    c.end_trigger_markers = R["end_trigger_markers"]
    c.leftover_per_point = R["leftover_per_point"]
    c.drink_multiplier = R["drink_multiplier"]
    c.rats_on_start = R["rats_on_start"]
    _limit(c.score_markers * 5 + 5 * FR_RATS <= FR_MAXLAST, "the score markers")
    return obj


# ====================================================================== conversion
def _bad(field, exc=None):
    return ValueError(f"field {field!r}: not a First Rat state the Cython twin can hold"
                      + (f" ({exc!r})" if exc is not None else ""))


cdef void _set_sc(signed char* out, values, int cap, str field) except *:
    if len(values) > cap:
        raise _bad(field)
    for i, v in enumerate(values):
        out[i] = v


cdef inline list _lst(const signed char* arr, int n):
    return [arr[i] for i in range(n)]


# ====================================================================== the state
cdef class FirstRatState(CyState):
    """A First Rat position in one C struct; the same API as the reference ``FirstRatState``.

    Create states with ``FirstRatGame.new_initial_state()``; see ``engines/api.py`` for the
    contract of each method.
    """

    def __init__(self, game):
        self._attach(game)
        init_state(&self.s, self.k)

    cdef int _attach(self, game) except -1:
        CyState._attach(self, game)
        self.k = &(<_Consts>self._consts).c
        self.ob = &(<_Consts>self._consts).ob
        return 0

    # ------------------------------------------------------------------ C-level contract
    cdef int c_current_player(self) noexcept nogil:
        return current_player(&self.s)

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        cdef int cp = current_player(&self.s)
        if cp < 0:
            return 0
        return legal_actions(&self.s, self.k, out)

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept nogil:
        if current_player(&self.s) != _CHANCE:
            return 0
        return chance_outcomes(&self.s, self.k, actions, probs)

    cdef void c_apply(self, int action) noexcept nogil:
        apply_action(&self.s, self.k, action)

    cdef int c_returns(self, double* out) noexcept nogil:
        return returns(&self.s, self.k, out)

    cdef int c_num_players(self) noexcept nogil:
        return self.k.n

    cdef int c_num_actions(self) noexcept nogil:
        return self.k.num_actions

    cdef void c_copy_from(self, CyState other) noexcept nogil:
        fr_copy(&self.s, &(<FirstRatState>other).s)

    cdef CyState c_clone(self):
        cdef FirstRatState new = FirstRatState.__new__(FirstRatState)
        fr_copy(&new.s, &self.s)
        new.k = self.k
        new.ob = self.ob
        cy_share_history(self, new)
        return new

    #: The search may call ``c_resample`` per iteration: it is compiled (a copy, see below).
    fast_c_resample = True

    cdef CyState c_resample(self, int player, object rng):
        # Nothing is hidden (every draw is a lazy reveal), so the determinization is the
        # state itself with an empty history: what the reference's state_from_observation
        # rebuilds (it validates and ignores ``rng``); resample_from_infostate goes that way.
        cdef FirstRatState new = FirstRatState.__new__(FirstRatState)
        fr_copy(&new.s, &self.s)
        new.k = self.k
        new.ob = self.ob
        cy_fresh_history(self, new)
        return new

    cdef int c_resample_into(self, int player, CyState out, unsigned long long* rng) noexcept nogil:
        # Nothing is hidden: the determinization is the state itself (as c_resample).
        fr_copy(&(<FirstRatState>out).s, &self.s)
        return 0

    cdef unsigned long long c_info_hash(self, int player) except? 0:
        # nothing is hidden: the digest of the whole state (equal for equal observations)
        return info_digest(&self.s, self.k)

    cdef int c_observation_tensor(self, int player, float* out) noexcept nogil:
        # nothing is hidden: every seat's tensor is the whole state's (obs_write)
        if player < 0 or player >= self.k.n:
            return -1
        if not self._obs_ready():
            return -1
        obs_write(&self.s, self.k, self.ob, out)
        return 0

    cdef int c_observation_size(self) noexcept nogil:
        return self.ob.size if self._obs_ready() else 0

    cdef bint _obs_ready(self) noexcept nogil:
        if self.ob.size == 0:
            with gil:
                (<_Consts>self._consts).build_obs(self._game)
        return self.ob.size > 0

    cdef int c_info_hash_into(self, int player, unsigned long long* out) noexcept nogil:
        # c_info_hash without the GIL (the threaded IS-MCTS's chance key)
        out[0] = info_digest(&self.s, self.k)
        return 0

    # ------------------------------------------------------------------ fast Python API
    def is_terminal(self) -> bool:
        return self.s.phase == PH_OVER

    def _legal_actions(self) -> list:
        cdef int buf[FR_MAXLEG]
        cdef int n = 0
        if current_player(&self.s) >= 0:
            n = legal_actions(&self.s, self.k, buf)
        return [buf[i] for i in range(n)]

    def _chance_outcomes(self) -> list:
        cdef int act[FR_MAXITEMS + FR_MAXL]
        cdef double prob[FR_MAXITEMS + FR_MAXL]
        cdef int n = chance_outcomes(&self.s, self.k, act, prob)
        return [(act[i], prob[i]) for i in range(n)]

    def scores(self) -> list:
        return [float(score(&self.s, self.k, q)) for q in range(self.k.n)]

    def greg_points(self) -> int:
        """Greg's points (solo): his score-track markers and Rattronauts."""
        return track_points(&self.s, self.k, self.k.greg) if self.k.solo else 0

    def automaton_scores(self) -> list:
        """``[Greg's points]`` in the solo game (rulebook "Solo Play"), else ``[]``."""
        return [float(self.greg_points())] if self.k.solo else []

    def rattronauts(self, p) -> int:
        """Rats of seat ``p`` in the rocket."""
        return rattronauts(&self.s, self.k, p)

    # ------------------------------------------------------------------ conversion
    def to_reference(self):
        """The equivalent reference ``FirstRatState`` (same fields, same history)."""
        cdef FRState* s = &self.s
        cdef const FRConst* k = self.k
        cdef int n = k.n, p, t, i
        cdef _Consts consts = <_Consts>self._consts
        g = self._game
        items = g.items
        nodes = consts.node_names
        r = _R.FirstRatState.__new__(_R.FirstRatState)
        d = r.__dict__
        d["_game"] = g
        d["_history"] = list(self._hist)
        d["phase"] = PHASE_NAMES[s.phase]
        d["step"] = STEP_NAMES[s.step]
        d["round"] = s.round
        d["seat"] = s.seat
        d["end_round"] = None if s.end_round < 0 else s.end_round
        d["tiles"] = [s.tiles[i] for i in range(k.L)]
        d["track_values"] = {TRACKS[t]: [s.track_values[t][i] for i in range(FR_NV)]
                             for t in range(FR_NT)}
        d["sets_used"] = _lst(s.sets_used, s.nsets)
        d["library"] = [items[s.library[i]] for i in range(s.nlib)]
        d["setup_todo"] = list(consts.tokens[s.setup_pos:])
        d["disp_backpacks"] = [items[s.disp_bp[i]] for i in range(s.ndisp_bp)]
        d["disp_caps"] = [items[s.disp_caps[i]] for i in range(s.ndisp_caps)]
        d["disp_drinks"] = s.disp_drinks
        d["track_slots"] = {TRACKS[t]: [None if s.slots[t][i] == EMPTY else s.slots[t][i]
                                        for i in range(FR_NV - 1)] for t in range(FR_NT)}
        d["track_last"] = {TRACKS[t]: [s.last[t][i] for i in range(s.nlast[t])]
                           for t in range(FR_NT)}
        d["rats"] = [[s.rats[p][i] for i in range(FR_RATS)] for p in range(n)]
        d["cheese"] = [s.cheese[p] for p in range(n)]
        d["cheese_issued"] = s.cheese_issued
        d["moldy"] = [s.moldy[p] for p in range(n)]
        d["awards"] = [s.awards[p] for p in range(n)]
        d["drinks"] = [s.drinks[p] for p in range(n)]
        d["light"] = [s.light[p] for p in range(n)]
        d["lights_scored"] = [s.lights_scored[p] for p in range(n)]
        d["markers"] = [s.markers[p] for p in range(k.n_owners)]
        d["raised"] = [s.raised[p] for p in range(n)]
        d["burrow"] = [nodes[s.burrow[p]] for p in range(n)]
        d["mats"] = [{m: s.mats[p][i] for i, m in enumerate(MATERIALS)} for p in range(n)]
        d["built"] = [{x: s.built[p][i] for i, x in enumerate(PARTS)} for p in range(n)]
        d["rocket_sets"] = [s.rocket_sets[p] for p in range(n)]
        d["backpacks"] = [[items[s.bp[p][i]] for i in range(s.nbp[p])] for p in range(n)]
        d["caps"] = [[items[s.caps[p][i]] for i in range(s.ncaps[p])] for p in range(n)]
        d["comics"] = [[items[s.comics[p][i]] for i in range(s.ncomics[p])] for p in range(n)]
        d["super_rats"] = [{items[s.sup_c[p][i]]: s.sup_r[p][i] for i in range(s.nsup[p])}
                           for p in range(n)]
        d["supply"] = {key: s.supply[i] for i, key in enumerate(_SUPPLY_KEYS)}
        d["moved"] = _lst(s.moved, s.nmoved)
        d["option"] = None if s.option < 0 else "AB"[s.option]
        d["b_colour"] = None if s.b_colour < 0 else COLOURS[s.b_colour]
        d["launch_pending"] = s.launch_pending
        d["drink_used"] = bool(s.drink_used)
        d["burrow_steps"] = s.burrow_steps
        d["pending_super"] = [items[s.pending[i]] for i in range(s.npend)]
        d["shops"] = _lst(s.shops, s.nshops)
        if k.solo:
            d["greg_rats"] = _lst(s.greg_rats, FR_RATS)
            d["greg_unknown"] = {"A": s.greg_unknown[0], "B": s.greg_unknown[1]}
        else:
            d["greg_rats"] = []
            d["greg_unknown"] = {}
        d["greg_known"] = _lst(s.greg_known, s.nknown)
        d["greg_seen"] = _lst(s.greg_seen, s.nseen)
        d["greg_discard"] = _lst(s.greg_discard, s.ndiscard)
        d["greg_prepared"] = [TRACKS[s.greg_prepared[i]] for i in range(s.nprep)]
        d["greg_card"] = None if s.greg_card < 0 else s.greg_card
        d["greg_booths"] = _lst(s.greg_booths, s.nbooths)
        d["greg_step"] = GREG_STEP_NAMES[s.greg_step]
        return r

    cdef void _load(self, r) except *:
        """Fill the C struct from a reference state ``r`` (ValueError naming a bad field)."""
        cdef FRState* s = &self.s
        cdef const FRConst* k = self.k
        cdef _Consts consts = <_Consts>self._consts
        cdef int n = k.n, p, t, i
        g = self._game
        idx = g.item_index
        memset(s, 0, sizeof(FRState))
        field = "phase"
        try:
            if set(r._fields()) != set(_FIELDS):
                raise _bad("fields")
            s.phase = _PHASE_ID[r.phase]
            field = "step"
            s.step = _STEP_ID[r.step]
            field = "round"
            s.round = r.round
            s.seat = r.seat
            s.end_round = -1 if r.end_round is None else r.end_round
            field = "tiles"
            if len(r.tiles) != k.L:
                raise _bad(field)
            _set_sc(s.tiles, r.tiles, FR_MAXL, field)
            set_colour_bits(s, k)
            field = "track_values"
            for t in range(FR_NT):
                for i in range(FR_NV):
                    s.track_values[t][i] = r.track_values[TRACKS[t]][i]
            field = "sets_used"
            _set_sc(s.sets_used, r.sets_used, FR_MAXSETS, field)
            s.nsets = len(r.sets_used)
            field = "library"
            _set_sc(s.library, [idx[x] for x in r.library], FR_MAXKIND, field)
            s.nlib = len(r.library)
            field = "setup_todo"
            todo = list(r.setup_todo)
            pos = len(consts.tokens) - len(todo)
            if pos < 0 or list(consts.tokens[pos:]) != todo:
                raise _bad(field)
            s.setup_pos = pos
            field = "disp_backpacks"
            _set_sc(s.disp_bp, [idx[x] for x in r.disp_backpacks], FR_MAXKIND, field)
            s.ndisp_bp = len(r.disp_backpacks)
            field = "disp_caps"
            _set_sc(s.disp_caps, [idx[x] for x in r.disp_caps], FR_MAXKIND, field)
            s.ndisp_caps = len(r.disp_caps)
            s.disp_drinks = r.disp_drinks
            field = "track_slots"
            for t in range(FR_NT):
                for i in range(FR_NV - 1):
                    v = r.track_slots[TRACKS[t]][i]
                    s.slots[t][i] = EMPTY if v is None else v
                last = r.track_last[TRACKS[t]]
                _set_sc(s.last[t], last, FR_MAXLAST, "track_last")
                s.nlast[t] = len(last)
            field = "rats"
            for p in range(n):
                _set_sc(s.rats[p], r.rats[p], FR_RATS, field)
                s.cheese[p] = r.cheese[p]
                s.moldy[p] = r.moldy[p]
                s.awards[p] = r.awards[p]
                s.drinks[p] = r.drinks[p]
                s.light[p] = r.light[p]
                s.lights_scored[p] = r.lights_scored[p]
                s.raised[p] = r.raised[p]
                s.burrow[p] = consts.node_names.index(r.burrow[p])
                for i, m in enumerate(MATERIALS):
                    s.mats[p][i] = r.mats[p][m]
                for i, x in enumerate(PARTS):
                    s.built[p][i] = r.built[p][x]
                s.rocket_sets[p] = r.rocket_sets[p]
                field = "backpacks"
                _set_sc(s.bp[p], [idx[x] for x in r.backpacks[p]], FR_MAXKIND, field)
                s.nbp[p] = len(r.backpacks[p])
                field = "caps"
                _set_sc(s.caps[p], [idx[x] for x in r.caps[p]], FR_MAXKIND, field)
                s.ncaps[p] = len(r.caps[p])
                field = "comics"
                _set_sc(s.comics[p], [idx[x] for x in r.comics[p]], FR_MAXKIND, field)
                s.ncomics[p] = len(r.comics[p])
                field = "super_rats"
                sup = r.super_rats[p]
                _set_sc(s.sup_c[p], [idx[x] for x in sup], FR_MAXSUP, field)
                _set_sc(s.sup_r[p], list(sup.values()), FR_MAXSUP, field)
                s.nsup[p] = len(sup)
                field = "rats"
            field = "cheese_issued"
            s.cheese_issued = r.cheese_issued
            field = "markers"
            if len(r.markers) != k.n_owners:
                raise _bad(field)
            for p in range(k.n_owners):
                s.markers[p] = r.markers[p]
            field = "supply"
            for i, key in enumerate(_SUPPLY_KEYS):
                s.supply[i] = r.supply[key]
            field = "moved"
            _set_sc(s.moved, r.moved, FR_RATS, field)
            s.nmoved = len(r.moved)
            s.option = -1 if r.option is None else "AB".index(r.option)
            s.b_colour = -1 if r.b_colour is None else COLOURS.index(r.b_colour)
            s.launch_pending = r.launch_pending
            s.drink_used = bool(r.drink_used)
            s.burrow_steps = r.burrow_steps
            field = "pending_super"
            _set_sc(s.pending, [idx[x] for x in r.pending_super], FR_MAXSUP, field)
            s.npend = len(r.pending_super)
            field = "shops"
            _set_sc(s.shops, r.shops, FR_RATS, field)
            s.nshops = len(r.shops)
            field = "greg_rats"
            if k.solo:
                _set_sc(s.greg_rats, r.greg_rats, FR_RATS, field)
                s.greg_unknown[0] = r.greg_unknown["A"]
                s.greg_unknown[1] = r.greg_unknown["B"]
            field = "greg_known"
            _set_sc(s.greg_known, r.greg_known, FR_MAXCARDS, field)
            s.nknown = len(r.greg_known)
            field = "greg_seen"
            _set_sc(s.greg_seen, r.greg_seen, FR_MAXCARDS, field)
            s.nseen = len(r.greg_seen)
            field = "greg_discard"
            _set_sc(s.greg_discard, r.greg_discard, FR_MAXCARDS, field)
            s.ndiscard = len(r.greg_discard)
            field = "greg_prepared"
            _set_sc(s.greg_prepared, [TRACKS.index(x) for x in r.greg_prepared], FR_MAXGT,
                    field)
            s.nprep = len(r.greg_prepared)
            field = "greg_card"
            s.greg_card = -1 if r.greg_card is None else r.greg_card
            field = "greg_booths"
            _set_sc(s.greg_booths, r.greg_booths, FR_RATS, field)
            s.nbooths = len(r.greg_booths)
            field = "greg_step"
            s.greg_step = _GREG_STEP_ID[r.greg_step]
        except ValueError as exc:
            if str(exc).startswith("field "):
                raise
            raise _bad(field, exc) from exc
        except (KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
            raise _bad(field, exc) from exc

    # ------------------------------------------------------------------ slow Python API
    def _item_text(self, item) -> str:
        return _R.item_text(self._game, item)

    def score_breakdown(self, p) -> dict:
        return self.to_reference().score_breakdown(p)

    def __repr__(self):
        return f"<cython FirstRatState round {self.s.round} seat {self.s.seat} " \
               f"phase {PHASE_NAMES[self.s.phase]!r}>"


# ====================================================================== the game
class FirstRatGame(CyGame, _R.FirstRatGame):
    """First Rat (Cython twin): the reference game's parameters, constants and variants,
    with states of :class:`FirstRatState`."""

    _state_class = FirstRatState
    _reference_class = _R.FirstRatGame

    def __init__(self, **params):
        super().__init__(**params)
        self._consts = _make_consts(self, self.params)

    def _state_from_observation(self, player, observation, rng=None) -> FirstRatState:
        """The reference's rebuild and validation (nothing is hidden), as a twin state."""
        ref = self.reference_game()._state_from_observation(player, observation, rng)
        return self._from_reference(ref)
