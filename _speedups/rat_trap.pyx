# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Rat Trap, Cython twin of the reference engine ``engines/rat_trap`` (same contract, same
behaviour, same action ids).

The state is one C struct (:c:type:`RTState` in ``rat_trap.pxd``), so ``clone()`` is an
allocation plus a ``memcpy``. The rules are a line-by-line transcription of the reference's
task machine (``rules.py``): the same task stack (``todo``), the same phases, the same lazily
dealt piles (draw-on-reveal), the same automatic application of single-option decisions, and
every variant (the 2-player Third Rat, "The Bigger the Gang", "Everyone Has a Role to Play",
RT-5 tie-breaks). Rulings RT-1..RT-10 are cited in the reference where they are coded.

Hot path (pure C, no Python objects): ``c_current_player``, ``c_legal_actions``,
``c_chance_outcomes``, ``c_apply``, ``c_returns``, ``c_clone``. Rarely called methods
(observation, labels, describe_action, render, serialization, determinization) convert the C
state to the equivalent reference ``RatTrapState`` and run the reference code, so their
results are identical by construction; ``tests/speedups`` checks the conversion field by field.
``resample_from_infostate`` is the reference's too (same samples for the same seed).

The search's determinization is compiled: ``c_resample`` (``fast_c_resample = True``) and
``c_resample_into`` run ``rt_determinize``, the sampling half of ``view._rebuild`` over the
struct (the exact posterior, the same
distribution from the seat's view only, another random stream; ~0.5 us instead of ~120 us).
``tests/speedups/test_cy_resample.py`` checks it against the reference.
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memmove, memset

import numpy as np

from ratai.engines import api as _api
from ratai.engines.api import keep_views
from ratai.engines.rat_trap import rules as _R
from ratai.engines.rat_trap import view as _V
from ratai.engines.rat_trap.data import CARD_CHEESE, CARD_TYPES, ROLES

from .core cimport (cy_fresh_history, cy_mix, cy_mix_arr, cy_obs_num, cy_obs_num_at,
                    cy_share_history, CyObsNum, CyState, ratai_splitmix64, ratai_uniform)
from .core import CyGame, check_bounds
from .tensor_write cimport OList, OSet, tw_list, tw_set, w_counts, w_elems, w_len, w_list

# ------------------------------------------------------------------------------ constants
cdef enum:
    # card types / faces / roles (ratai.engines.rat_trap.data)
    C_TRAP = 0
    C_CHEESE1 = 1
    C_CHEESE2 = 2
    C_CLOVER = 3
    F_KEY1 = 0
    F_KEY2 = 1
    F_STEAL = 2
    F_CAT = 3
    F_HEAL = 4
    R_MANIPULATOR = 0
    R_AL_RATONE = 1
    R_HYPNOTIST = 2
    R_FOOL = 3
    R_ALCHEMIST = 4
    # action bases (ratai.engines.rat_trap.rules.ACTION_BASES; checked at import)
    A_FACE = 0
    A_PILE = 5
    A_TARGET = 10
    A_REROLL = 15
    A_KEEP_ROLL = 16
    A_USE_CLOVER = 17
    A_TAKE_SCRATCH = 18
    A_PASS = 19
    A_REVEAL = 20
    A_REVEAL_WHITE = 21
    A_REVEAL_BLACK = 22
    A_ORDER = 23
    A_DRAW = 27
    A_STEAL_CARD = 32
    A_ROLL = 36
    A_ROLE = 51
    A_DEAL = 56
    A_TRCARD = 112
    N_MULTISETS = 56
    WHITE = 0
    BLACK = 1
    RETURNED = -1
    _CHANCE = -1      # ratai.engines.api.CHANCE
    _TERMINAL = -4    # ratai.engines.api.TERMINAL

# phases (the reference's phase strings, in PHASE_NAMES order)
cdef enum:
    P_NONE = 0
    P_DONE
    P_OVER
    P_ROLL
    P_ROLL_WHITE
    P_ROLL_BLACK
    P_REROLL
    P_ALRATONE
    P_ACCOMPLICE
    P_KEEP
    P_TR_CARD
    P_PLAY
    P_PILE
    P_DRAW
    P_STEAL_TARGET
    P_STEAL_CARD
    P_CAT_TARGET
    P_HYPNOTIST
    P_SCRATCH
    P_DEAL_ROLE
    P_MANIP_PILE
    P_MANIP_DEAL
    P_MANIP_ORDER

PHASE_NAMES = ("", "_done", "over", "roll", "roll_white", "roll_black", "reroll", "alratone",
               "accomplice", "keep", "tr_card", "play", "pile", "draw", "steal_target",
               "steal_card", "cat_target", "hypnotist", "scratch", "deal_role", "manip_pile",
               "manip_deal", "manip_order")
_PHASE_ID = {name: i for i, name in enumerate(PHASE_NAMES)}
#: ctx keys after "who" at a node of each phase, in the reference's insertion order.
_CTX_KEYS = {
    "roll": (), "roll_white": (), "roll_black": (), "reroll": (), "alratone": (),
    "hypnotist": (), "scratch": (), "tr_card": ("colour",),
    "accomplice": ("options", "colour"), "keep": ("options", "colour"),
    "play": ("options",), "manip_pile": ("options",),
    "pile": ("options", "actor", "draws"), "draw": ("actor", "pile"),
    "steal_target": ("options", "actor"), "cat_target": ("options", "actor"),
    "steal_card": ("actor", "victim"), "deal_role": ("seat",),
    "manip_deal": ("pile",), "manip_order": ("pile",),
}

# tasks (the reference's todo entries ["name", args...])
cdef enum:
    T_START_ROUND = 0
    T_DEAL_ROLE
    T_MANIPULATE
    T_MANIP_PILE
    T_MANIP_DEAL
    T_MANIP_ORDER
    T_TURN
    T_AFTER_ROLL
    T_ALRATONE
    T_ALR_NEXT
    T_ACCOMPLICE
    T_CHOOSE_ACC
    T_KEEP
    T_KEEP_DIE
    T_RESOLVE_KEPT
    T_PLAY
    T_RESOLVE
    T_DRAW
    T_SCRATCH
    T_CAT_HIT
    T_END_TURN
    T_END_ROUND

TASK_NAMES = ("start_round", "deal_role", "manipulate", "manip_pile", "manip_deal",
              "manip_order", "turn", "after_roll", "alratone", "alr_next", "accomplice",
              "choose_acc", "keep", "keep_die", "resolve_kept", "play", "resolve", "draw",
              "scratch", "cat_hit", "end_turn", "end_round")
TASK_NARGS = (0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 2, 1, 0, 2, 3, 1, 1, 0, 0)
_TASK_ID = {name: i for i, name in enumerate(TASK_NAMES)}
_COLOURS = ("white", "black")


def _check_constants() -> None:
    """The compiled ids must be the reference's (a stale build fails loudly at import)."""
    expect = {"FACE": A_FACE, "PILE": A_PILE, "TARGET": A_TARGET, "REROLL": A_REROLL,
              "KEEP_ROLL": A_KEEP_ROLL, "USE_CLOVER": A_USE_CLOVER,
              "TAKE_SCRATCH": A_TAKE_SCRATCH, "PASS": A_PASS, "REVEAL": A_REVEAL,
              "REVEAL_WHITE": A_REVEAL_WHITE, "REVEAL_BLACK": A_REVEAL_BLACK,
              "ORDER": A_ORDER, "DRAW": A_DRAW, "STEAL_CARD": A_STEAL_CARD, "ROLL": A_ROLL,
              "ROLE": A_ROLE, "DEAL": A_DEAL, "TRCARD": A_TRCARD}
    if _api.CHANCE != _CHANCE or _api.TERMINAL != _TERMINAL:
        raise ImportError("ratai._speedups.rat_trap: CHANCE/TERMINAL ids changed; rebuild")
    if expect != _R.ACTION_BASES or len(_R.PILE_MULTISETS) != N_MULTISETS \
            or len(_R.PAIRS) != A_ROLE - A_ROLL or tuple(CARD_TYPES) != (
                "trap", "cheese1", "cheese2", "clover") or tuple(ROLES) != (
                "manipulator", "al_ratone", "hypnotist", "fool", "alchemist"):
        raise ImportError("ratai._speedups.rat_trap is out of date with "
                          "ratai.engines.rat_trap.rules: rebuild it (pip install -e .)")
    check_bounds("Rat Trap", RT_MAXP, max(N_MULTISETS, RT_MAXOPT + 8))


_check_constants()

# tables shared by every game: unordered rolls and the multisets of a looked-at pile
cdef signed char PAIR_A[15]
cdef signed char PAIR_B[15]
cdef signed char MSET[N_MULTISETS][4]
cdef long long COMB[40][40]


def _init_tables() -> None:
    cdef int i, j
    for i, (a, b) in enumerate(_R.PAIRS):
        PAIR_A[i] = a
        PAIR_B[i] = b
    for i, m in enumerate(_R.PILE_MULTISETS):
        for j in range(4):
            MSET[i][j] = m[j]
    for i in range(40):
        for j in range(40):
            COMB[i][j] = 0
        COMB[i][0] = 1
        for j in range(1, i + 1):
            COMB[i][j] = COMB[i - 1][j - 1] + COMB[i - 1][j]


_init_tables()


# ====================================================================== small C helpers
cdef inline int csum(const signed char* c) noexcept nogil:
    return c[0] + c[1] + c[2] + c[3]


cdef inline bint contains(const signed char* arr, int n, int x) noexcept nogil:
    cdef int i
    for i in range(n):
        if arr[i] == x:
            return True
    return False


cdef inline void rt_copy(RTState* dst, const RTState* src) noexcept nogil:
    """Copy a state: everything up to the round results in use (the struct's tail)."""
    memcpy(dst, src, <size_t>((<const char*>&src.res[src.nres]) - (<const char*>src)))


cdef inline void push1(RTState* s, int t, int a, int b, int c) noexcept nogil:
    """Push one task (the reference's ``todo.append``)."""
    cdef int i = s.ntodo
    if i >= RT_MAXTODO:  # cannot happen: _make_consts checks the depth bound; memory safety
        return
    s.todo[i][0] = t
    s.todo[i][1] = a
    s.todo[i][2] = b
    s.todo[i][3] = c
    s.ntodo = i + 1


cdef inline void ask(RTState* s, int phase, int who) noexcept nogil:
    s.phase = phase
    s.ctx_who = who


cdef inline void done(RTState* s) noexcept nogil:
    s.phase = P_DONE


cdef inline int pile_size(const RTState* s, int i) noexcept nogil:
    if not s.has_order[i]:
        return s.pile_g[i] + s.pile_r[i]
    return s.otail[i] - s.ohead[i] + (csum(s.manip_hand) if i == s.ordering else 0)


cdef inline bint holds(const RTState* s, const RTConst* k, int seat, int role) noexcept nogil:
    return seat < k.n and s.roles[seat] == role and not s.role_gone[seat]


cdef inline bint role_used(const RTState* s, const RTConst* k, int role) noexcept nogil:
    cdef int q
    for q in range(k.n):
        if s.roles[q] == role and s.role_public[q]:
            return True
    return False


cdef inline int role_index(const RTState* s, const RTConst* k, int role) noexcept nogil:
    cdef int q
    for q in range(k.n):
        if s.roles[q] == role:
            return q
    return -1


cdef inline int controller(const RTState* s, const RTConst* k) noexcept nogil:
    return s.active if k.tr_active[s.tr_card] else 1 - s.active


# ====================================================================== round / turn setup
cdef void reset_turn(RTState* s) noexcept nogil:
    s.ndice[0] = 0
    s.ndice[1] = 0
    s.rerolled = 0
    s.nalr = 0
    s.acc = -1
    s.acc_white = -1
    s.acc_black = -1
    s.nreturned = 0
    s.ncat = 0
    s.nkept = 0
    s.tr_card = -1  # ctx = {} is implied: a node's ctx keys follow from its phase


cdef void reset_round(RTState* s, const RTConst* k) noexcept nogil:
    cdef int i
    memset(s.scratches, 0, sizeof(s.scratches))
    memset(s.stored, 0, sizeof(s.stored))
    memset(s.lost, 0, sizeof(s.lost))
    memset(s.elim, 0, sizeof(s.elim))
    memset(s.known, 0, sizeof(s.known))
    memset(s.quiet, 0, sizeof(s.quiet))
    for i in range(k.npiles):
        s.pile_g[i] = 1
        s.pile_r[i] = 4
        s.has_order[i] = 0
        s.ohead[i] = 0
        s.otail[i] = 0
        s.trap_out[i] = 0
    s.used_clovers = 0
    s.round_steps = 0
    for i in range(4):
        s.pool[i] = k.deck[i]
    s.pool[C_TRAP] -= k.npiles  # set aside one Trap per pile
    for i in range(RT_MAXP):
        s.roles[i] = -1
        s.role_public[i] = 0
        s.role_gone[i] = 0
    s.nnot_fool = 0
    s.nfool = 0
    s.nmanip = 0
    memset(s.manip_hand, 0, sizeof(s.manip_hand))
    s.ordering = -1
    s.ntr_used = 0
    s.round_over = 0
    reset_turn(s)


cdef void init_state(RTState* s, const RTConst* k) noexcept nogil:
    memset(s, 0, sizeof(RTState))
    s.round = 0
    s.turn = 0
    s.active = 0
    s.nres = 0
    s.nwinners = 0
    s.tiebreak = 0
    s.observer = -1
    reset_round(s, k)
    s.phase = P_NONE
    s.ntodo = 0
    push1(s, T_START_ROUND, 0, 0, 0)
    advance(s, k)


# ====================================================================== the task machine
cdef void choice(RTState* s, const RTConst* k, int phase, int who, int base) noexcept nogil:
    """A decision whose options (already in ``s.opts``) are public: skipped if empty, applied
    at once if only one (the reference's ``_choice``)."""
    if s.nopt == 0:
        return
    ask(s, phase, who)
    if s.nopt == 1:
        apply_phase(s, k, base + s.opts[0])
        if s.phase == P_DONE:
            s.phase = P_NONE


cdef void t_start_round(RTState* s, const RTConst* k) noexcept nogil:
    """Round Setup: Traps set aside, piles of 4 dealt cards + 1 Trap (lazily shuffled)."""
    cdef int q
    s.round += 1
    s.turn = 0
    reset_round(s, k)
    push1(s, T_TURN, 0, 0, 0)
    if k.roles:
        push1(s, T_MANIPULATE, 0, 0, 0)
        for q in range(k.n - 1, -1, -1):
            push1(s, T_DEAL_ROLE, q, 0, 0)


cdef void t_manipulate(RTState* s, const RTConst* k) noexcept nogil:
    cdef int m = role_index(s, k, R_MANIPULATOR)
    if m < 0:
        return
    s.role_public[m] = 1
    push1(s, T_MANIP_PILE, m, 0, 0)
    push1(s, T_MANIP_PILE, m, 0, 0)


cdef void t_manip_pile(RTState* s, const RTConst* k, int m) noexcept nogil:
    cdef int i
    s.nopt = 0
    for i in range(k.npiles):
        if not contains(s.manip_piles, s.nmanip, i):
            s.opts[s.nopt] = i
            s.nopt += 1
    ask(s, P_MANIP_PILE, m)


cdef void t_manip_order(RTState* s, const RTConst* k, int pile) noexcept nogil:
    """One decision per card, top to bottom (RT-10), asked even when the rest is forced."""
    if not csum(s.manip_hand):
        s.ordering = -1
        return
    ask(s, P_MANIP_ORDER, role_index(s, k, R_MANIPULATOR))
    s.ctx_pile = pile


cdef void t_turn(RTState* s, const RTConst* k) noexcept nogil:
    s.turn += 1
    reset_turn(s)
    ask(s, P_ROLL_WHITE if k.big_gang else P_ROLL, _CHANCE)


cdef void t_alratone(RTState* s, const RTConst* k) noexcept nogil:
    cdef int j, q
    if not k.roles or role_used(s, k, R_AL_RATONE):
        return
    s.nalr = 0
    for j in range(1, k.n):
        q = (s.active + j) % k.n
        if not s.role_public[q]:
            s.alr_queue[s.nalr] = q
            s.nalr += 1
    if s.nalr:
        ask(s, P_ALRATONE, s.alr_queue[0])


cdef void t_accomplice(RTState* s, const RTConst* k) noexcept nogil:
    if k.big_gang:
        if s.acc_white < 0:
            push1(s, T_ACCOMPLICE, 0, 0, 0)
            push1(s, T_CHOOSE_ACC, WHITE, 0, 0)
        elif s.acc_black < 0:
            push1(s, T_ACCOMPLICE, 0, 0, 0)
            push1(s, T_CHOOSE_ACC, BLACK, 0, 0)
    elif s.acc < 0:
        push1(s, T_CHOOSE_ACC, BLACK, 0, 0)


cdef void t_choose_acc(RTState* s, const RTConst* k, int colour) noexcept nogil:
    cdef int q
    s.nopt = 0
    for q in range(k.P):
        if q != s.active and q != s.acc_white and q != s.acc_black:
            if q == k.third_rat and s.ntr_used >= k.ntr:
                continue  # all Third Rat cards used this round (RT-8)
            s.opts[s.nopt] = q
            s.nopt += 1
    s.ctx_colour = colour
    choice(s, k, P_ACCOMPLICE, s.active, A_TARGET)


cdef inline int posmod(int a, int n) noexcept nogil:
    cdef int r = a % n
    return r + n if r < 0 else r


cdef void t_keep(RTState* s, const RTConst* k) noexcept nogil:
    cdef int w, b, first, second, fc, sc
    if k.big_gang:
        w = s.acc_white
        b = s.acc_black
        # clockwise from the active player; a stable sort keeps white first on ties
        if posmod(b - s.active, k.n) < posmod(w - s.active, k.n):
            first, fc, second, sc = b, BLACK, w, WHITE
        else:
            first, fc, second, sc = w, WHITE, b, BLACK
        push1(s, T_PLAY, 0, 0, 0)
        push1(s, T_RESOLVE_KEPT, second, 0, 0)
        push1(s, T_RESOLVE_KEPT, first, 0, 0)
        push1(s, T_KEEP_DIE, second, sc, 0)
        push1(s, T_KEEP_DIE, first, fc, 0)
    else:
        push1(s, T_RESOLVE, s.active, RETURNED, 0)
        push1(s, T_RESOLVE_KEPT, s.acc, 0, 0)
        push1(s, T_KEEP_DIE, s.acc, BLACK, 0)


cdef void set_sorted_pair_opts(RTState* s, const signed char* pair, int npair) noexcept nogil:
    """``s.opts`` = sorted(set(pair))."""
    s.nopt = 0
    if npair == 0:
        return
    if npair == 1 or pair[0] == pair[1]:
        s.opts[0] = pair[0]
        s.nopt = 1
    elif pair[0] < pair[1]:
        s.opts[0] = pair[0]
        s.opts[1] = pair[1]
        s.nopt = 2
    else:
        s.opts[0] = pair[1]
        s.opts[1] = pair[0]
        s.nopt = 2


cdef void t_keep_die(RTState* s, const RTConst* k, int who, int colour) noexcept nogil:
    if who == k.third_rat:
        ask(s, P_TR_CARD, _CHANCE)
        s.ctx_colour = colour
        return
    set_sorted_pair_opts(s, s.dice[colour], s.ndice[colour])
    s.ctx_colour = colour
    choice(s, k, P_KEEP, who, A_FACE)


cdef void keep(RTState* s, int who, int colour, int face) noexcept nogil:
    """The reference's ``_keep``: the other die of the pair goes back to the active player."""
    cdef int other = s.dice[colour][1] if s.dice[colour][0] == face else s.dice[colour][0]
    cdef int i
    s.returned[s.nreturned] = other
    s.nreturned += 1
    for i in range(s.nkept):
        if s.kept_who[i] == who:
            s.kept_face[i] = face
            return
    s.kept_who[s.nkept] = who
    s.kept_face[s.nkept] = face
    s.nkept += 1


cdef int kept_face(const RTState* s, int who) noexcept nogil:
    cdef int i
    for i in range(s.nkept):
        if s.kept_who[i] == who:
            return s.kept_face[i]
    return -1


cdef void t_play(RTState* s, const RTConst* k) noexcept nogil:
    set_sorted_pair_opts(s, s.returned, s.nreturned)
    choice(s, k, P_PLAY, s.active, A_FACE)


cdef void t_resolve(RTState* s, const RTConst* k, int actor, int face) noexcept nogil:
    """Resolve one die action for ``actor`` (rulebook "The Actions"; RT-1 skips)."""
    cdef int chooser, q, other
    if face == RETURNED:
        face = s.returned[0]
    if s.elim[actor]:
        return
    chooser = controller(s, k) if actor == k.third_rat else actor
    s.nopt = 0
    if face == F_KEY1 or face == F_KEY2:
        for q in range(k.npiles):
            if pile_size(s, q):
                s.opts[s.nopt] = q
                s.nopt += 1
        s.ctx_actor = actor
        s.ctx_draws = 1 if face == F_KEY1 else 2
        choice(s, k, P_PILE, chooser, A_PILE)
    elif face == F_STEAL:
        for q in range(k.P):
            if q != actor and csum(s.stored[q]) and not s.elim[q]:
                if actor == k.third_rat and q >= k.n:
                    continue  # the controller picks among the two players (RT-8)
                s.opts[s.nopt] = q
                s.nopt += 1
        s.ctx_actor = actor
        choice(s, k, P_STEAL_TARGET, chooser, A_TARGET)
    elif face == F_CAT:
        for q in range(k.P):
            if q != actor and not s.elim[q] and not contains(s.cat_targets, s.ncat, q):
                s.opts[s.nopt] = q
                s.nopt += 1
        if actor == k.third_rat:  # its cat always scratches the non-controller (RT-8)
            other = 1 - controller(s, k)
            if contains(s.opts, s.nopt, other):
                s.opts[0] = other
                s.nopt = 1
            else:
                s.nopt = 0
        s.ctx_actor = actor
        choice(s, k, P_CAT_TARGET, chooser, A_TARGET)
    elif face == F_HEAL:
        if s.scratches[actor] > 0:
            s.scratches[actor] -= 1


cdef void t_draw(RTState* s, const RTConst* k, int actor, int pile, int n) noexcept nogil:
    """Draw ``n`` more cards from ``pile`` one at a time ("2 KEYS": consecutively)."""
    cdef int card
    if n == 0 or s.elim[actor] or not pile_size(s, pile):
        return
    push1(s, T_DRAW, actor, pile, n - 1)
    if s.has_order[pile]:
        card = s.order[pile][s.ohead[pile]]
        s.ohead[pile] += 1
        log_auto_draw(s, k, actor, card)
        receive(s, k, actor, pile, card)
    else:
        ask(s, P_DRAW, _CHANCE)
        s.ctx_actor = actor
        s.ctx_pile = pile


cdef void log_auto_draw(RTState* s, const RTConst* k, int actor, int card) noexcept nogil:
    """Perfect recall of a card drawn from an ordered pile (``rules._log_auto_draw``): into
    each seat's digest now, and into ``auto_ev`` for the Python-level log."""
    cdef int q, code
    for q in range(k.n):
        code = auto_code(s, k, q, actor, card)
        s.vhash[q] = cy_mix(s.vhash[q], code)
        if s.nauto < RT_MAXAUTO:
            s.auto_ev[s.nauto][q] = code
    s.nauto += 1
    s.round_steps += 1


cdef inline bint lazy_manipulation(const RTState* s, const RTConst* k) noexcept nogil:
    """The Manipulator's piles stay lazy in this world (``rules.RatTrapState.observer``)."""
    return s.observer >= 0 and s.observer != role_index(s, k, R_MANIPULATOR)


cdef inline bint lazy_pile(const RTState* s, const RTConst* k, int i) noexcept nogil:
    """Pile ``i`` is lazy in this world (``view.lazy_piles``): the Manipulator's, unordered."""
    return not s.has_order[i] and contains(s.manip_piles, s.nmanip, i) \
        and lazy_manipulation(s, k)


cdef void log_unseen(RTState* s, const RTConst* k, int count) noexcept nogil:
    """``count`` log entries no seat of this world sees (``rules._t_manip_deal``: a lazy
    pile's deal and orders), as automatic entries."""
    cdef int e, q
    for e in range(count):
        for q in range(k.n):
            s.vhash[q] = cy_mix(s.vhash[q], -1)
            if s.nauto < RT_MAXAUTO:
                s.auto_ev[s.nauto][q] = -1
        s.nauto += 1
        s.round_steps += 1


cdef inline int placed(const RTState* s, const RTConst* k, int i) noexcept nogil:
    """``view._placed``: cards placed in an ordered pile, -1 (None) for a pile nobody
    ordered; a lazy pile counts whole."""
    if s.has_order[i]:
        return s.otail[i] - s.ohead[i]
    return pile_size(s, i) if lazy_pile(s, k, i) else -1


cdef int auto_code(const RTState* s, const RTConst* k, int q, int actor, int card) noexcept nogil:
    cdef bint shown = actor == k.third_rat or (card == C_TRAP and not holds(s, k, actor, R_FOOL))
    if shown or q == actor or q == role_index(s, k, R_MANIPULATOR):
        return -10 - card
    return -2


cdef int view_code(const RTState* s, const RTConst* k, int q, int a) noexcept nogil:
    """Seat ``q``'s view of action ``a`` about to be applied (``view.view_codes``)."""
    cdef int ph = s.phase, card, code
    if ph == P_MANIP_ORDER:
        return a if q == s.ctx_who else -1
    if ph == P_DRAW:
        card = C_TRAP if a <= A_DRAW + 1 else a - A_DRAW - 1
        if contains(s.manip_piles, s.nmanip, s.ctx_pile):   # a lazy pile
            return auto_code(s, k, q, s.ctx_actor, card)
        code = A_DRAW + 1 + card
        if s.ctx_actor == k.third_rat or q == s.ctx_actor:
            return code
        return code if card == C_TRAP and not holds(s, k, s.ctx_actor, R_FOOL) else -1
    if ph == P_STEAL_CARD:
        if (a == A_STEAL_CARD + C_TRAP or s.ctx_actor == k.third_rat
                or s.ctx_victim == k.third_rat or q == s.ctx_actor or q == s.ctx_victim):
            return a
        return -1
    if ph == P_DEAL_ROLE:
        return a if q == s.ctx_seat else -1
    if ph == P_MANIP_DEAL:
        return a if q == role_index(s, k, R_MANIPULATOR) else -1
    return a


cdef enum:
    VH_SEED = 0x5EC0
    VH_UNKNOWN = -1000003   # a ``None`` entry: the past before a rebuild is unknown


cdef void store(RTState* s, int who, int card) noexcept nogil:
    s.stored[who][card] += 1


cdef void manipulator_sees(RTState* s, const RTConst* k, int actor, int pile,
                           int card) noexcept nogil:
    cdef int m
    if contains(s.manip_piles, s.nmanip, pile) and actor != k.third_rat:
        m = role_index(s, k, R_MANIPULATOR)
        if m != actor and m >= 0:
            s.known[m][actor][card] += 1


cdef void receive(RTState* s, const RTConst* k, int actor, int pile, int card) noexcept nogil:
    """Drawing and Storing Cards: a Trap is revealed (scratch) unless the Fool draws it."""
    if actor < k.n and (card != C_TRAP or holds(s, k, actor, R_FOOL)):
        s.quiet[actor][pile] += 1
    if card == C_TRAP:
        if holds(s, k, actor, R_FOOL):  # THE FOOL stores it unrevealed, no scratch
            store(s, actor, C_TRAP)
            if s.nfool < RT_MAXFOOL:
                s.fool_piles[s.nfool] = pile
                s.nfool += 1
            manipulator_sees(s, k, actor, pile, C_TRAP)
            return
        s.trap_out[pile] += 1
        if actor < k.n and not contains(s.not_fool, s.nnot_fool, actor):
            s.not_fool[s.nnot_fool] = actor
            s.nnot_fool += 1
        push1(s, T_SCRATCH, actor, 0, 0)
        return
    store(s, actor, card)
    manipulator_sees(s, k, actor, pile, card)


cdef void use_clover(RTState* s, const RTConst* k, int who) noexcept nogil:
    cdef int o
    s.stored[who][C_CLOVER] -= 1
    s.used_clovers += 1
    for o in range(k.P):
        if s.known[o][who][C_CLOVER]:
            s.known[o][who][C_CLOVER] -= 1


cdef void take_scratch(RTState* s, const RTConst* k, int who) noexcept nogil:
    """Take a Scratch token; the third eliminates from the round (stored cards lost)."""
    cdef int o
    s.scratches[who] += 1
    if s.scratches[who] >= k.s2e:
        s.elim[who] = 1
        memcpy(s.lost[who], s.stored[who], 4)
        memset(s.stored[who], 0, 4)
        for o in range(k.P):
            memset(s.known[o][who], 0, 4)
        s.round_over = 1


cdef void t_scratch(RTState* s, const RTConst* k, int who) noexcept nogil:
    """A scratch would be taken: a Lucky Clover may prevent it (RT-2)."""
    if s.elim[who]:
        return
    if who == k.third_rat:  # the Third Rat always uses a clover (RT-2, RT-8)
        if s.stored[who][C_CLOVER]:
            use_clover(s, k, who)
        else:
            take_scratch(s, k, who)
        return
    ask(s, P_SCRATCH, who)


cdef void t_cat_hit(RTState* s, const RTConst* k, int target) noexcept nogil:
    """THE HYPNOTIST may redirect a cat aimed at them (once a round, RT-10)."""
    if (k.roles and target < k.n and not s.role_public[target]
            and not role_used(s, k, R_HYPNOTIST)):
        ask(s, P_HYPNOTIST, target)
    else:
        push1(s, T_SCRATCH, target, 0, 0)


cdef void t_end_turn(RTState* s, const RTConst* k) noexcept nogil:
    """End of Turn / End of Round checks (RT-3)."""
    cdef int i, exhausted = 0
    for i in range(k.npiles):
        if not pile_size(s, i):
            exhausted += 1
    if s.round_over or exhausted >= 2 or s.turn >= k.max_turns:
        push1(s, T_END_ROUND, 0, 0, 0)
    else:
        s.active = (s.active + 1) % k.n
        push1(s, T_TURN, 0, 0, 0)


cdef void t_end_round(RTState* s, const RTConst* k) noexcept nogil:
    """End of Round scoring, then End of the Game checks (RT-5, RT-6)."""
    cdef int q, t, total = 0, best_p, best_c, nlead = 0, maxp
    cdef int gained[RT_MAXP]
    cdef RTResult* res
    cdef bint last_round
    for q in range(k.P):
        gained[q] = 0
        if not s.elim[q]:
            gained[q] = 0
            for t in range(4):
                gained[q] += k.cheese[t] * s.stored[q][t]
            if holds(s, k, q, R_ALCHEMIST):  # unused clovers count one cheese each
                gained[q] += s.stored[q][C_CLOVER]
                s.role_public[q] = 1
        total += gained[q]
    if total == 0:  # nobody collected points: 2 to each non-eliminated player
        for q in range(k.P):
            gained[q] = 0 if s.elim[q] else k.bonus
    for q in range(k.P):
        s.points[q] += gained[q]
    if s.nres < RT_MAXRES:
        res = &s.res[s.nres]
        s.nres += 1
        res.round = s.round
        for q in range(k.P):
            memcpy(res.revealed[q], s.stored[q], 4)
            res.eliminated[q] = s.elim[q]
            res.gained[q] = gained[q]
            res.stored_counts[q] = csum(s.stored[q])
        for q in range(k.n):
            res.roles[q] = s.roles[q] if (s.roles[q] >= 0 and s.role_public[q]) else -1
    last_round = s.tiebreak or s.round >= k.max_rounds
    maxp = s.points[0]
    for q in range(1, k.P):
        if s.points[q] > maxp:
            maxp = s.points[q]
    if last_round or (s.round < k.max_rounds and maxp >= k.win_points):
        # most points; ties by most cards stored in the last round; still tied: all (RT-5)
        best_p = -1
        best_c = -1
        for q in range(k.P):
            if s.points[q] > best_p or (s.points[q] == best_p and csum(s.stored[q]) > best_c):
                best_p = s.points[q]
                best_c = csum(s.stored[q])
        for q in range(k.P):
            s.winners[q] = s.points[q] == best_p and csum(s.stored[q]) == best_c
            nlead += s.winners[q]
        if nlead > 1 and k.extra_round and not s.tiebreak:
            s.tiebreak = 1  # one tie-breaker round, everybody plays (RT-5)
            memset(s.winners, 0, sizeof(s.winners))
        else:
            s.nwinners = nlead
            s.phase = P_OVER
            return
    s.active = (s.active + 1) % k.n  # RT-6
    push1(s, T_START_ROUND, 0, 0, 0)


cdef void advance(RTState* s, const RTConst* k) noexcept nogil:
    """Run automatic steps until a decision or chance node (or the end) is reached."""
    cdef signed char* t
    cdef int a, b, c
    while s.phase == P_NONE:
        if s.ntodo == 0:  # cannot happen in a reachable state
            s.phase = P_OVER
            return
        s.ntodo -= 1
        t = s.todo[s.ntodo]
        a = t[1]
        b = t[2]
        c = t[3]
        if t[0] == T_DRAW:
            t_draw(s, k, a, b, c)
        elif t[0] == T_SCRATCH:
            t_scratch(s, k, a)
        elif t[0] == T_RESOLVE:
            t_resolve(s, k, a, b)
        elif t[0] == T_RESOLVE_KEPT:
            push1(s, T_RESOLVE, a, kept_face(s, a), 0)
        elif t[0] == T_KEEP_DIE:
            t_keep_die(s, k, a, b)
        elif t[0] == T_TURN:
            t_turn(s, k)
        elif t[0] == T_AFTER_ROLL:
            push1(s, T_END_TURN, 0, 0, 0)
            push1(s, T_KEEP, 0, 0, 0)
            push1(s, T_ACCOMPLICE, 0, 0, 0)
            push1(s, T_ALRATONE, 0, 0, 0)
        elif t[0] == T_ALRATONE:
            t_alratone(s, k)
        elif t[0] == T_ALR_NEXT:
            if s.nalr:
                ask(s, P_ALRATONE, s.alr_queue[0])
        elif t[0] == T_ACCOMPLICE:
            t_accomplice(s, k)
        elif t[0] == T_CHOOSE_ACC:
            t_choose_acc(s, k, a)
        elif t[0] == T_KEEP:
            t_keep(s, k)
        elif t[0] == T_PLAY:
            t_play(s, k)
        elif t[0] == T_CAT_HIT:
            t_cat_hit(s, k, a)
        elif t[0] == T_END_TURN:
            t_end_turn(s, k)
        elif t[0] == T_END_ROUND:
            t_end_round(s, k)
        elif t[0] == T_START_ROUND:
            t_start_round(s, k)
        elif t[0] == T_DEAL_ROLE:
            ask(s, P_DEAL_ROLE, _CHANCE)
            s.ctx_seat = a
        elif t[0] == T_MANIPULATE:
            t_manipulate(s, k)
        elif t[0] == T_MANIP_PILE:
            t_manip_pile(s, k, a)
        elif t[0] == T_MANIP_DEAL:
            if lazy_manipulation(s, k):
                log_unseen(s, k, 1 + pile_size(s, a))
            else:
                ask(s, P_MANIP_DEAL, _CHANCE)
                s.ctx_pile = a
        elif t[0] == T_MANIP_ORDER:
            t_manip_order(s, k, a)


# ====================================================================== applying actions
cdef void apply_roll(RTState* s, const RTConst* k, int a, int colour, int next_phase) noexcept nogil:
    s.dice[colour][0] = PAIR_A[a - A_ROLL]
    s.dice[colour][1] = PAIR_B[a - A_ROLL]
    s.ndice[colour] = 2
    if next_phase != P_NONE:
        ask(s, next_phase, _CHANCE)
        return
    done(s)
    if k.big_gang or s.rerolled:
        push1(s, T_AFTER_ROLL, 0, 0, 0)
    else:
        ask(s, P_REROLL, s.active)


cdef void bystander_learns(RTState* s, int o, int victim, int card) noexcept nogil:
    """The reference's ``rules._bystander_learns`` on seat ``o``'s row of ``known``."""
    cdef int t
    if card == C_TRAP:
        return
    for t in range(4):
        if s.known[o][victim][t] > 0:
            s.known[o][victim][t] -= 1


cdef void apply_steal_card(RTState* s, const RTConst* k, int a) noexcept nogil:
    cdef int thief = s.ctx_actor, victim = s.ctx_victim, card = a - A_STEAL_CARD
    cdef int o, others, i
    cdef bint public
    done(s)
    s.stored[victim][card] -= 1
    public = thief == k.third_rat or victim == k.third_rat  # its cards are face up (RT-8)
    for o in range(k.n):  # who learns what (RT-4)
        if o == thief:
            if s.known[o][victim][card]:
                s.known[o][victim][card] -= 1
        elif o == victim or public:
            if s.known[o][victim][card]:
                s.known[o][victim][card] -= 1
            if card != C_TRAP:
                s.known[o][thief][card] += 1
        else:  # a bystander keeps what stays certain (reference _bystander_learns)
            bystander_learns(s, o, victim, card)
    if thief == k.third_rat:
        for o in range(k.n):
            memset(s.known[o][thief], 0, 4)  # its cards are public anyway
    if card != C_TRAP:
        store(s, thief, card)
        return
    # THE FOOL is robbed of a Trap: the thief takes a scratch, the Fool reveals and discards
    # every other stored Trap, one scratch each, then discards the role card.
    others = s.stored[victim][C_TRAP]
    s.stored[victim][C_TRAP] = 0
    for i in range(s.nfool):
        s.trap_out[s.fool_piles[i]] += 1
        s.quiet[victim][s.fool_piles[i]] -= 1  # no longer quiet: a revealed Trap
    s.nfool = 0
    s.role_public[victim] = 1
    s.role_gone[victim] = 1
    for o in range(k.P):
        s.known[o][victim][C_TRAP] = 0
    for i in range(others):
        push1(s, T_SCRATCH, victim, 0, 0)
    push1(s, T_SCRATCH, thief, 0, 0)


cdef void apply_phase(RTState* s, const RTConst* k, int a) noexcept nogil:
    """The reference's ``_APPLY[phase]``."""
    cdef int ph = s.phase, i, card, face, seat, pile, j
    if ph == P_DRAW:
        i = s.ctx_pile
        if a == A_DRAW:
            s.pile_g[i] = 0
            card = C_TRAP
        else:
            card = a - A_DRAW - 1
            s.pile_r[i] -= 1
            s.pool[card] -= 1
        done(s)
        receive(s, k, s.ctx_actor, i, card)
    elif ph == P_ROLL or ph == P_ROLL_BLACK:
        apply_roll(s, k, a, BLACK, P_NONE)
    elif ph == P_ROLL_WHITE:
        apply_roll(s, k, a, WHITE, P_ROLL_BLACK)
    elif ph == P_REROLL:
        if a == A_REROLL:  # both dice, and the second result is final
            s.rerolled = 1
            ask(s, P_ROLL, _CHANCE)
        else:
            done(s)
            push1(s, T_AFTER_ROLL, 0, 0, 0)
    elif ph == P_ACCOMPLICE:
        if k.big_gang:
            if s.ctx_colour == WHITE:
                s.acc_white = a - A_TARGET
            else:
                s.acc_black = a - A_TARGET
        else:
            s.acc = a - A_TARGET
        done(s)
    elif ph == P_KEEP:
        done(s)
        keep(s, s.ctx_who, s.ctx_colour, a - A_FACE)
    elif ph == P_TR_CARD:
        card = a - A_TRCARD
        s.tr_card = card
        s.tr_used[s.ntr_used] = card
        s.ntr_used += 1
        # RT-12: Heal first at one scratch fewer than the data file's elimination limit
        if s.scratches[k.third_rat] == k.s2e - 1 and (s.dice[s.ctx_colour][0] == F_HEAL
                                               or s.dice[s.ctx_colour][1] == F_HEAL):
            face = F_HEAL
        else:
            face = -1
            for j in range(RT_NF):
                if (k.tr_prio[card][j] == s.dice[s.ctx_colour][0]
                        or k.tr_prio[card][j] == s.dice[s.ctx_colour][1]):
                    face = k.tr_prio[card][j]
                    break
        done(s)
        keep(s, k.third_rat, s.ctx_colour, face)
    elif ph == P_PLAY:
        done(s)
        push1(s, T_RESOLVE, s.active, a - A_FACE, 0)
    elif ph == P_PILE:
        done(s)
        push1(s, T_DRAW, s.ctx_actor, a - A_PILE, s.ctx_draws)
    elif ph == P_STEAL_TARGET:
        ask(s, P_STEAL_CARD, _CHANCE)
        s.ctx_victim = a - A_TARGET
    elif ph == P_STEAL_CARD:
        apply_steal_card(s, k, a)
    elif ph == P_CAT_TARGET:
        if s.ncat < RT_MAXCAT:
            s.cat_targets[s.ncat] = a - A_TARGET
            s.ncat += 1
        done(s)
        push1(s, T_CAT_HIT, a - A_TARGET, 0, 0)
    elif ph == P_HYPNOTIST:
        seat = s.ctx_who
        done(s)
        if a == A_PASS:
            push1(s, T_SCRATCH, seat, 0, 0)
            return
        s.role_public[seat] = 1
        if s.ncat < RT_MAXCAT:
            s.cat_targets[s.ncat] = a - A_TARGET
            s.ncat += 1
        push1(s, T_SCRATCH, a - A_TARGET, 0, 0)
    elif ph == P_SCRATCH:
        done(s)
        if a == A_USE_CLOVER:
            use_clover(s, k, s.ctx_who)
        else:
            take_scratch(s, k, s.ctx_who)
    elif ph == P_ALRATONE:
        seat = s.alr_queue[0]
        for j in range(1, s.nalr):
            s.alr_queue[j - 1] = s.alr_queue[j]
        s.nalr -= 1
        done(s)
        if a == A_PASS:
            push1(s, T_ALR_NEXT, 0, 0, 0)
            return
        s.role_public[seat] = 1
        s.nalr = 0
        if a == A_REVEAL:
            s.acc = seat
        elif a == A_REVEAL_WHITE:
            s.acc_white = seat
        else:
            s.acc_black = seat
    elif ph == P_DEAL_ROLE:
        s.roles[s.ctx_seat] = a - A_ROLE
        done(s)
    elif ph == P_MANIP_PILE:
        s.manip_piles[s.nmanip] = a - A_PILE
        s.nmanip += 1
        done(s)
        if s.nmanip == 2:
            push1(s, T_MANIP_DEAL, s.manip_piles[1], 0, 0)
            push1(s, T_MANIP_DEAL, s.manip_piles[0], 0, 0)
    elif ph == P_MANIP_DEAL:
        pile = s.ctx_pile
        j = a - A_DEAL
        for i in range(4):
            s.pool[i] -= MSET[j][i] - (s.pile_g[pile] if i == C_TRAP else 0)
            s.manip_hand[i] = MSET[j][i]
        s.pile_g[pile] = 0
        s.pile_r[pile] = 0
        s.has_order[pile] = 1
        s.ohead[pile] = 0
        s.otail[pile] = 0
        s.ordering = pile
        done(s)
        push1(s, T_MANIP_ORDER, pile, 0, 0)
    elif ph == P_MANIP_ORDER:
        pile = s.ctx_pile
        s.manip_hand[a - A_ORDER] -= 1
        s.order[pile][s.otail[pile]] = a - A_ORDER
        s.otail[pile] += 1
        done(s)
        push1(s, T_MANIP_ORDER, pile, 0, 0)


cdef int legal_actions(const RTState* s, const RTConst* k, int* out) noexcept nogil:
    cdef int ph = s.phase, n = 0, i, seat, base = -1
    if ph == P_ACCOMPLICE or ph == P_STEAL_TARGET or ph == P_CAT_TARGET:
        base = A_TARGET
    elif ph == P_KEEP or ph == P_PLAY:
        base = A_FACE
    elif ph == P_PILE or ph == P_MANIP_PILE:
        base = A_PILE
    if base >= 0:
        for i in range(s.nopt):
            out[i] = base + s.opts[i]
        return s.nopt
    if ph == P_SCRATCH:
        if s.stored[s.ctx_who][C_CLOVER]:
            out[0] = A_USE_CLOVER
            out[1] = A_TAKE_SCRATCH
            return 2
        out[0] = A_TAKE_SCRATCH
        return 1
    if ph == P_REROLL:
        out[0] = A_REROLL
        out[1] = A_KEEP_ROLL
        return 2
    if ph == P_ALRATONE:
        out[0] = A_PASS
        if not holds(s, k, s.ctx_who, R_AL_RATONE):
            return 1
        if k.big_gang:
            out[1] = A_REVEAL_WHITE
            out[2] = A_REVEAL_BLACK
            return 3
        out[1] = A_REVEAL
        return 2
    if ph == P_HYPNOTIST:
        seat = s.ctx_who
        if holds(s, k, seat, R_HYPNOTIST):
            for i in range(k.P):
                if i != seat and not s.elim[i] and not contains(s.cat_targets, s.ncat, i):
                    out[n] = A_TARGET + i
                    n += 1
        out[n] = A_PASS
        return n + 1
    if ph == P_MANIP_ORDER:
        for i in range(4):
            if s.manip_hand[i]:
                out[n] = A_ORDER + i
                n += 1
        return n
    return 0


cdef int chance_outcomes(const RTState* s, const RTConst* k, int* act,
                         double* prob) noexcept nogil:
    cdef int ph = s.phase, n = 0, i, t, g, r, total, pool_total, c, colour, j, ok
    cdef long long ways, denom
    cdef signed char dealt[4]
    if ph == P_ROLL or ph == P_ROLL_BLACK or ph == P_ROLL_WHITE:
        colour = WHITE if ph == P_ROLL_WHITE else BLACK
        for i in range(k.nroll[colour]):
            act[i] = k.roll_act[colour][i]
            prob[i] = k.roll_p[colour][i]
        return k.nroll[colour]
    if ph == P_DRAW:
        # a lazy pile: the set-aside Trap with prob g/(g+r), else a dealt card by pool counts
        i = s.ctx_pile
        g = s.pile_g[i]
        r = s.pile_r[i]
        total = g + r
        pool_total = csum(s.pool)
        if g:
            act[n] = A_DRAW
            prob[n] = <double>g / <double>total
            n += 1
        if r:
            for t in range(4):
                c = s.pool[t]
                if c:
                    act[n] = A_DRAW + 1 + t
                    prob[n] = <double>r / <double>total * <double>c / <double>pool_total
                    n += 1
        return n
    if ph == P_STEAL_CARD:  # RT-4: uniform among the victim's stored cards
        total = csum(s.stored[s.ctx_victim])
        for t in range(4):
            c = s.stored[s.ctx_victim][t]
            if c:
                act[n] = A_STEAL_CARD + t
                prob[n] = <double>c / <double>total
                n += 1
        return n
    if ph == P_DEAL_ROLE:
        for t in range(5):
            if not contains(s.roles, k.n, t):
                act[n] = A_ROLE + t
                n += 1
        for i in range(n):
            prob[i] = 1.0 / <double>n
        return n
    if ph == P_TR_CARD:
        for t in range(k.ntr):
            if not contains(s.tr_used, s.ntr_used, t):
                act[n] = A_TRCARD + t
                n += 1
        for i in range(n):
            prob[i] = 1.0 / <double>n
        return n
    if ph == P_MANIP_DEAL:
        # the five cards of a looked-at pile: its Trap plus the dealt cards (hypergeometric)
        i = s.ctx_pile
        r = s.pile_r[i]
        denom = COMB[csum(s.pool)][r]
        for j in range(N_MULTISETS):
            ok = 1
            total = 0
            for t in range(4):
                dealt[t] = MSET[j][t]
            dealt[C_TRAP] -= s.pile_g[i]
            for t in range(4):
                if dealt[t] < 0:
                    ok = 0
                total += dealt[t]
            if not ok or total != r:
                continue
            ways = 1
            for t in range(4):
                ways *= COMB[s.pool[t]][dealt[t]] if dealt[t] <= s.pool[t] else 0
            if ways:
                act[n] = A_DEAL + j
                prob[n] = <double>ways / <double>denom
                n += 1
        return n
    return 0


# ====================================================================== information digest
# ctx keys of a node per phase (``_CTX_KEYS``) as bits: the digest reads only those.
cdef enum:
    K_OPTIONS = 1
    K_COLOUR = 2
    K_ACTOR = 4
    K_DRAWS = 8
    K_PILE = 16
    K_VICTIM = 32
    K_SEAT = 64
cdef int CTX_BITS[32]
cdef int TASK_NARGS_C[32]


def _init_ctx_bits() -> None:
    bit = {"options": K_OPTIONS, "colour": K_COLOUR, "actor": K_ACTOR, "draws": K_DRAWS,
           "pile": K_PILE, "victim": K_VICTIM, "seat": K_SEAT}
    for i, name in enumerate(PHASE_NAMES):
        CTX_BITS[i] = sum(bit[key] for key in _CTX_KEYS.get(name, ()))
    for i, nargs in enumerate(TASK_NARGS):
        TASK_NARGS_C[i] = nargs


_init_ctx_bits()


cdef unsigned long long info_digest(const RTState* s, const RTConst* k, int p) noexcept nogil:
    """A digest of ``view.observation(state, p)`` read from the struct: every public field,
    the derived counts and ``p``'s private fields, nothing else (the IS-MCTS chance key)."""
    cdef unsigned long long h = 0x5EED
    cdef int P = k.P, n = k.n, q, o, i, t, bits, size
    cdef const RTResult* res
    cdef bint manip = s.roles[p] == R_MANIPULATOR
    # public fields
    h = cy_mix(h, s.round)
    h = cy_mix(h, s.turn)
    h = cy_mix(h, s.active)
    for q in range(P):
        h = cy_mix(h, s.points[q])
        h = cy_mix(h, s.scratches[q])
        h = cy_mix(h, s.elim[q])
        h = cy_mix(h, csum(s.stored[q]))   # stored_counts
        h = cy_mix(h, csum(s.lost[q]))     # lost_counts
        h = cy_mix_arr(h, s.known[p][q], RT_NT)
    h = cy_mix(h, s.nres)
    for i in range(s.nres):
        res = &s.res[i]
        h = cy_mix(h, res.round)
        for q in range(P):
            h = cy_mix(h, res.eliminated[q])
            if not res.eliminated[q]:
                h = cy_mix_arr(h, res.revealed[q], RT_NT)
            h = cy_mix(h, res.gained[q])
            h = cy_mix(h, res.stored_counts[q])
        h = cy_mix_arr(h, res.roles, n)
    if s.phase == P_OVER:
        h = cy_mix_arr(h, s.winners, P)
    h = cy_mix(h, s.tiebreak)
    h = cy_mix(h, s.phase)
    h = cy_mix(h, s.ntodo)
    for i in range(s.ntodo):
        h = cy_mix_arr(h, s.todo[i], 1 + TASK_NARGS_C[s.todo[i][0]])
    if s.phase != P_OVER:
        h = cy_mix(h, s.ctx_who)
        bits = CTX_BITS[s.phase]
        if bits & K_OPTIONS:
            h = cy_mix_arr(h, s.opts, s.nopt)
        if bits & K_COLOUR:
            h = cy_mix(h, s.ctx_colour)
        if bits & K_ACTOR:
            h = cy_mix(h, s.ctx_actor)
        if bits & K_DRAWS:
            h = cy_mix(h, s.ctx_draws)
        if bits & K_PILE:
            h = cy_mix(h, s.ctx_pile)
        if bits & K_VICTIM:
            h = cy_mix(h, s.ctx_victim)
        if bits & K_SEAT:
            h = cy_mix(h, s.ctx_seat)
    for i in range(k.npiles):
        h = cy_mix(h, s.trap_out[i])
        for q in range(n):
            h = cy_mix(h, s.quiet[q][i])
        h = cy_mix(h, pile_size(s, i))
        h = cy_mix(h, placed(s, k, i))                                # pile_placed
    h = cy_mix(h, s.used_clovers)
    size = 0
    for q in range(n):
        h = cy_mix(h, s.role_public[q])
        h = cy_mix(h, s.role_gone[q])
        h = cy_mix(h, s.roles[q] if s.role_public[q] else -1)   # public_roles
        size += s.roles[q] >= 0
    h = cy_mix(h, size)                                        # roles_dealt
    h = cy_mix_arr(h, s.not_fool, s.nnot_fool)
    h = cy_mix_arr(h, s.manip_piles, s.nmanip)
    h = cy_mix(h, s.ordering)
    h = cy_mix_arr(h, s.tr_used, s.ntr_used)
    h = cy_mix(h, s.round_over)
    h = cy_mix_arr(h, s.dice[BLACK], s.ndice[BLACK])
    h = cy_mix_arr(h, s.dice[WHITE], s.ndice[WHITE])
    h = cy_mix(h, s.rerolled)
    h = cy_mix_arr(h, s.alr_queue, s.nalr)
    h = cy_mix(h, s.acc)
    h = cy_mix(h, s.acc_white)
    h = cy_mix(h, s.acc_black)
    h = cy_mix_arr(h, s.returned, s.nreturned)
    h = cy_mix_arr(h, s.cat_targets, s.ncat)
    t = 0   # "kept" is a dict: its digest must not depend on the insertion order
    for i in range(s.nkept):
        t += <int>(cy_mix(0, s.kept_who[i] * 16 + s.kept_face[i]) & 0xFFFFFF)
    h = cy_mix(h, s.nkept)
    h = cy_mix(h, t)
    h = cy_mix(h, s.tr_card)
    if k.third_rat >= 0:                                   # its cards lie face up
        h = cy_mix_arr(h, s.stored[k.third_rat], RT_NT)
        h = cy_mix_arr(h, s.lost[k.third_rat], RT_NT)
    # private to p
    h = cy_mix(h, 7000 + p)
    h = cy_mix_arr(h, s.stored[p], RT_NT)
    h = cy_mix_arr(h, s.lost[p], RT_NT)
    for q in range(n):
        h = cy_mix_arr(h, s.known[q][p], RT_NT)                 # known_by
    h = cy_mix(h, s.roles[p])
    if manip:
        for i in range(k.npiles):
            if contains(s.manip_piles, s.nmanip, i):
                h = cy_mix(h, 1)
                if s.has_order[i]:
                    h = cy_mix_arr(h, &s.order[i][s.ohead[i]], s.otail[i] - s.ohead[i])
                else:   # no order yet: an empty list, as the observation shows it
                    h = cy_mix_arr(h, s.order[i], 0)
            else:
                h = cy_mix(h, -1)
        h = cy_mix_arr(h, s.manip_hand, RT_NT)
    if s.roles[p] == R_FOOL:
        h = cy_mix_arr(h, s.fool_piles, s.nfool)
    return h if h != 0 else 1


# ====================================================================== determinization
# The compiled twin of ``view._rebuild``'s sampling half (the search's ``c_resample``): a
# full state seat ``p`` cannot tell from the source, drawn from the same distribution as the
# reference draws, from what ``view.observation(state, p)`` contains only.
cdef enum:
    RS_MAXSLOT = 128   # unknown cards handled in C (more: the reference is used)


cdef inline int rs_below(unsigned long long* rng, int n) noexcept nogil:
    """A uniform int in ``0..n-1`` (``n >= 1``; multiply-shift, bias below 2**-32 * n)."""
    return <int>(((ratai_splitmix64(rng) >> 32) * <unsigned long long>n) >> 32)


cdef inline void rs_shuffle(signed char* a, int n, unsigned long long* rng) noexcept nogil:
    """A uniform order of ``a[0..n-1]`` in place (Fisher-Yates)."""
    cdef int j, at
    cdef signed char t
    for j in range(n - 1, 0, -1):
        at = rs_below(rng, j + 1)
        t = a[j]
        a[j] = a[at]
        a[at] = t


cdef double rs_comb(int a, int b) noexcept nogil:
    """``math.comb(a, b)`` as a double (exact from the table below 40)."""
    cdef double c = 1.0
    cdef int i
    if b < 0 or a < 0 or b > a:
        return 0.0
    if a < 40:
        return <double>COMB[a][b]
    for i in range(b):
        c = c * <double>(a - i) / <double>(i + 1)
    return c


cdef inline bint contains_int(const int* arr, int n, int x) noexcept nogil:
    cdef int i
    for i in range(n):
        if arr[i] == x:
            return True
    return False


cdef int rt_determinize(RTState* d, const RTState* src, const RTConst* k, int p,
                        unsigned long long* rng) noexcept nogil:
    """``rt_sample`` and the sample's views digests: ``p``'s own, the other seats' an
    unknown past (``api.keep_views``)."""
    if rt_sample(d, src, k, p, rng) != 0:
        return -1
    sample_views(d, src, k, p)
    return 0


cdef inline void sample_views(RTState* d, const RTState* src, const RTConst* k,
                              int p) noexcept nogil:
    """A determinization's views digests: ``p``'s own, the other seats' an unknown past."""
    cdef int q
    for q in range(k.n):
        d.vhash[q] = src.vhash[p] if q == p else cy_mix(VH_SEED, VH_UNKNOWN)
    d.nauto = 0


cdef int rt_sample(RTState* d, const RTState* src, const RTConst* k, int p,
                   unsigned long long* rng) noexcept nogil:
    """Write into ``d`` a determinization of ``src`` for seat ``p`` (``view._rebuild``).

    Reads of ``src`` are only what ``view.observation(src, p)`` holds: the derived public
    counts (stored/lost counts, pile sizes and placed cards, roles dealt) computed first, then
    a copy of the struct from which every field ``p`` cannot see is wiped before anything is
    sampled; the rest reads ``d`` only. The hidden parts follow the reference's exact
    posterior (``view._posterior_table``): a (role deal, set-aside places) pair is drawn in
    two passes over the same enumeration (total weight, then the drawn entry), each weighted
    by the positions its set-aside Traps may take (a revealed Trap of the pile, a quiet card
    the Fool drew from it, an undrawn card) times the placements of the unseen dealt Traps
    in the slots that may hold one (the Fool's other quiet cards, the undrawn pile cards);
    then the dealt Traps uniformly into those slots, the other unknown cards uniformly into
    the rest, piles another seat ordered in a uniform order, and the Fool's ``fool_piles``
    from where its Traps came. Returns 0, or -1 when the view is not one the
    C path handles (the caller then runs the reference, which raises for impossible views).
    """
    cdef int n = k.n, P = k.P, tr = k.third_rat, npl = k.npiles
    cdef int q, o, i, j, t, x, r, f, total
    cdef int stored_counts[RT_MAXP]
    cdef int lost_counts[RT_MAXP]
    cdef int sizes[RT_MAXPILE]
    cdef int placed[RT_MAXPILE]
    cdef int unknown[RT_NT]
    cdef int cnt[RT_NT]
    cdef int dealt = 0, S = 0, nslots
    cdef int nseats = 0, nfree = 0, nmust = 0, nallowed, fool
    cdef int seats[RT_MAXP]
    cdef int free_roles[5]
    cdef int must[RT_MAXP]
    cdef double w, wsum, u
    cdef signed char slot_q[RS_MAXSLOT]      # stored slots: owner, and 1 for a lost card
    cdef signed char slot_lost[RS_MAXSLOT]
    cdef signed char slot_pile[RS_MAXSLOT]   # ordered-pile slots: the pile
    cdef signed char card[RS_MAXSLOT]        # the card dealt to each slot
    cdef short idx[RS_MAXSLOT]
    cdef signed char content[RT_MAXORDER + 1]
    cdef int ncontent
    cdef bint manip, fool_p, ok
    cdef int held[RT_MAXP]
    cdef int revealed[RT_MAXPILE]
    cdef int fq[RT_MAXPILE]
    cdef int pick[RT_MAXPILE]
    cdef int nopt_pile[RT_MAXPILE]
    cdef int opt_kind[RT_MAXPILE][3]
    cdef int opt_c[RT_MAXPILE][3]
    cdef bint is_open[RT_MAXPILE]
    cdef int deal[RT_MAXP]
    cdef signed char origin[RS_MAXSLOT]
    cdef int rest[RS_MAXSLOT]
    cdef int fp[RT_MAXFOOL]
    cdef int n_open, rep, nperm, code, used, ncombo, c, z_f, z_u, cap_f = 0, keep, nrest, nfp
    cdef bint found, hidden_fool

    # --- 1. public counts the observation derives from hidden fields
    for q in range(P):
        stored_counts[q] = csum(src.stored[q])
        lost_counts[q] = csum(src.lost[q])
    for i in range(npl):
        sizes[i] = pile_size(src, i)
        placed[i] = src.otail[i] - src.ohead[i] if src.has_order[i] else -1
    for q in range(n):
        if src.roles[q] >= 0:
            dealt += 1

    # --- 2. the seat's view: copy the struct, wipe what p cannot see
    rt_copy(d, src)
    manip = d.roles[p] == R_MANIPULATOR
    fool_p = d.roles[p] == R_FOOL
    for q in range(P):
        if q != p and q != tr:       # the Third Rat's cards lie face up
            memset(d.stored[q], 0, RT_NT)
            memset(d.lost[q], 0, RT_NT)
    for o in range(P):               # p's own knowledge, and what seats know of p's cards
        if o != p:
            for q in range(P):
                if q != p or o >= n:
                    memset(d.known[o][q], 0, RT_NT)
    for q in range(n):
        if q != p and not d.role_public[q]:
            d.roles[q] = -1
    if not fool_p:
        d.nfool = 0
        memset(d.fool_piles, 0, sizeof(d.fool_piles))
    memset(d.pool, 0, sizeof(d.pool))
    for i in range(npl):
        d.pile_g[i] = 0
        d.pile_r[i] = 0
        if d.has_order[i] and manip and contains(d.manip_piles, d.nmanip, i):
            x = d.otail[i] - d.ohead[i]     # the pile p ordered: kept, from its top
            for j in range(x):
                d.order[i][j] = d.order[i][d.ohead[i] + j]
            for j in range(x, RT_MAXORDER):
                d.order[i][j] = 0
            d.ohead[i] = 0
            d.otail[i] = x
        else:
            memset(d.order[i], 0, RT_MAXORDER)
            d.ohead[i] = 0
            d.otail[i] = 0
    if not manip:
        memset(d.manip_hand, 0, sizeof(d.manip_hand))

    # --- 3. the round's deck minus the cards whose place p knows
    for t in range(RT_NT):
        unknown[t] = k.deck[t] - d.stored[p][t] - d.lost[p][t]
        for q in range(P):
            unknown[t] -= d.known[p][q][t]
        if tr >= 0:
            unknown[t] -= d.stored[tr][t] + d.lost[tr][t]
        if manip:
            unknown[t] -= d.manip_hand[t]
    if manip:
        for i in range(npl):
            if d.has_order[i] and contains(d.manip_piles, d.nmanip, i):
                for j in range(d.otail[i]):
                    unknown[d.order[i][j]] -= 1
    for i in range(npl):
        unknown[C_TRAP] -= d.trap_out[i]
    unknown[C_CLOVER] -= d.used_clovers
    total = 0
    for t in range(RT_NT):
        if unknown[t] < 0:
            return -1
        total += unknown[t]
    if total > RS_MAXSLOT:
        return -1

    # --- 4. the places of unknown cards: seats' unseen cards, then the piles p does not know
    for q in range(n):
        if q == p:
            continue
        x = stored_counts[q] - csum(d.known[p][q])
        if x < 0 or lost_counts[q] < 0 or S + x + lost_counts[q] > total:
            return -1
        held[q] = x + lost_counts[q]
        for j in range(x + lost_counts[q]):
            slot_q[S] = q
            slot_lost[S] = j >= x
            S += 1
    n_open = 0
    for i in range(npl):
        is_open[i] = not (manip and placed[i] >= 0)
        if is_open[i]:
            n_open += sizes[i]
        revealed[i] = d.trap_out[i]
        if fool_p:
            for j in range(d.nfool):
                revealed[i] += d.fool_piles[j] == i
    if S + n_open != total:
        return -1

    # --- 5. roles and set-aside places: the exact joint posterior (view._posterior_table),
    # in two passes over the same enumeration: the total weight, then the drawn entry
    if k.roles:
        for q in range(dealt):
            if d.roles[q] < 0:
                seats[nseats] = q
                nseats += 1
        for r in range(5):
            if not contains(d.roles, n, r) and not (r == R_MANIPULATOR and dealt == n):
                free_roles[nfree] = r       # the Manipulator revealed once dealt (RT-10)
                nfree += 1
        for q in range(n):
            if q != p and d.known[p][q][C_TRAP] > 0:
                must[nmust] = q
                nmust += 1
    if nseats > nfree:
        return -1
    wsum = 0.0
    u = -1.0
    for rep in range(2):
        if rep == 1:
            if wsum <= 0.0:
                return -1
            u = ratai_uniform(rng) * wsum
            wsum = 0.0
        nperm = 1
        for i in range(nseats):
            nperm *= nfree
        found = False
        for code in range(nperm):
            # the role deal: digits of ``code`` in base nfree, all different
            x = code
            ok = True
            used = 0
            for i in range(nseats):
                j = x % nfree
                x //= nfree
                if used & (1 << j):
                    ok = False
                    break
                used |= 1 << j
                deal[seats[i]] = free_roles[j]
            if not ok:
                continue
            for q in range(n):
                if not contains_int(seats, nseats, q):
                    deal[q] = d.roles[q]
            f = -1
            for q in range(n):
                if deal[q] == R_FOOL:
                    f = q
            for i in range(nmust):
                if must[i] != f:
                    ok = False
            if f >= 0 and contains_int(seats, nseats, f) and contains(d.not_fool, d.nnot_fool, f):
                ok = False
            if not ok:
                continue
            hidden_fool = f >= 0 and f != p and not d.role_gone[f]
            x = 0                   # the Fool's quiet cards, from every pile (view.py)
            for i in range(npl):
                fq[i] = d.quiet[f][i] if hidden_fool and is_open[i] else 0
                x += d.quiet[f][i] if hidden_fool else 0
            cap_f = (x if x < held[f] else held[f]) if hidden_fool else 0
            # the set-aside places: a mixed-radix count over each pile's options r/f/u
            for i in range(npl):
                nopt_pile[i] = 0
                if not is_open[i]:
                    opt_kind[i][0] = 3
                    opt_c[i][0] = 1
                    nopt_pile[i] = 1
                    continue
                if revealed[i] > 0:
                    opt_kind[i][nopt_pile[i]] = 0
                    opt_c[i][nopt_pile[i]] = revealed[i]
                    nopt_pile[i] += 1
                if fq[i] > 0:
                    opt_kind[i][nopt_pile[i]] = 1
                    opt_c[i][nopt_pile[i]] = fq[i]
                    nopt_pile[i] += 1
                if sizes[i] > 0:
                    opt_kind[i][nopt_pile[i]] = 2
                    opt_c[i][nopt_pile[i]] = sizes[i]
                    nopt_pile[i] += 1
                if nopt_pile[i] == 0:
                    ok = False
            if not ok:
                continue
            ncombo = 1
            for i in range(npl):
                ncombo *= nopt_pile[i]
            for c in range(ncombo):
                x = c
                z_f = 0
                z_u = 0
                w = 1.0
                for i in range(npl):
                    j = x % nopt_pile[i]
                    x //= nopt_pile[i]
                    pick[i] = opt_kind[i][j]
                    w *= opt_c[i][j]
                    z_f += pick[i] == 1
                    z_u += pick[i] == 2
                t = unknown[C_TRAP] - z_f - z_u
                if z_f > cap_f or t < 0:
                    continue
                w *= rs_comb(cap_f - z_f + n_open - z_u, t)
                wsum += w
                if rep == 1 and w > 0.0 and u < wsum:
                    found = True
                    break
            if found:
                break
        if rep == 1 and not found:
            return -1               # rounding at the very top: not expected
    for q in range(n):
        d.roles[q] = deal[q]
    fool = f
    hidden_fool = cap_f > 0

    # --- 6. cards: the set-aside Traps, the unseen dealt Traps into the slots that may hold
    # one (the Fool's remaining quiet cards, the undrawn pile cards), the rest uniformly
    nslots = S
    for i in range(npl):
        if is_open[i]:
            for j in range(sizes[i] - (pick[i] == 2)):
                slot_q[nslots] = -1
                slot_pile[nslots] = i
                nslots += 1
    nallowed = 0
    x = 0                           # the Fool's slots seen so far
    nrest = 0
    if hidden_fool:                 # the piles of the Fool's other quiet cards it holds
        for i in range(npl):
            for j in range(d.quiet[fool][i] - (pick[i] == 1)):
                rest[nrest] = i
                nrest += 1
        keep = cap_f
        for i in range(npl):
            keep -= pick[i] == 1
        for i in range(keep):       # a uniform subset (partial Fisher-Yates)
            j = i + rs_below(rng, nrest - i)
            t = rest[j]
            rest[j] = rest[i]
            rest[i] = t
    nfp = 0
    for i in range(npl):
        if pick[i] == 1:
            fp[nfp] = i             # the Fool's set-aside Traps
            nfp += 1
    z_f = nfp
    for i in range(nslots):
        card[i] = -1
        origin[i] = -1
        if i >= S:
            idx[nallowed] = i
            nallowed += 1
        elif hidden_fool and slot_q[i] == fool:
            if x < z_f:
                card[i] = C_TRAP
            elif x < cap_f:
                origin[i] = rest[x - z_f]
                idx[nallowed] = i
                nallowed += 1
            x += 1
    t = unknown[C_TRAP] - z_f
    for i in range(npl):
        t -= pick[i] == 2
    if t > nallowed or t < 0:
        return -1
    for i in range(t):              # a uniform subset (partial Fisher-Yates)
        j = i + rs_below(rng, nallowed - i)
        x = idx[j]
        idx[j] = idx[i]
        idx[i] = x
        card[x] = C_TRAP
        if origin[x] >= 0 and nfp < RT_MAXFOOL:
            fp[nfp] = origin[x]
            nfp += 1
    x = 0
    for t in range(1, RT_NT):
        cnt[t] = unknown[t]
        x += unknown[t]
    for i in range(nslots):         # a uniform arrangement of the other cards
        if card[i] == C_TRAP:
            continue
        if x <= 0:
            return -1
        j = rs_below(rng, x)
        t = 1
        while j >= cnt[t]:
            j -= cnt[t]
            t += 1
        card[i] = t
        cnt[t] -= 1
        x -= 1

    # stored / lost: what p knows of a seat, plus its slots
    for q in range(n):
        if q != p:
            memcpy(d.stored[q], d.known[p][q], RT_NT)
    for i in range(S):
        if slot_lost[i]:
            d.lost[slot_q[i]][card[i]] += 1
        else:
            d.stored[slot_q[i]][card[i]] += 1
    # piles: lazily dealt ones (set-aside Trap, pool), explicit ones another seat ordered
    for i in range(npl):
        if not is_open[i]:
            continue
        ncontent = 0
        for j in range(S, nslots):
            if slot_pile[j] == i:
                content[ncontent] = card[j]
                ncontent += 1
        if pick[i] == 2 and placed[i] >= 0:
            content[ncontent] = C_TRAP
            ncontent += 1
        if placed[i] < 0:
            d.pile_g[i] = pick[i] == 2
            d.pile_r[i] = ncontent
            for j in range(ncontent):
                d.pool[content[j]] += 1
            continue
        rs_shuffle(content, ncontent, rng)
        if placed[i] > ncontent or placed[i] > RT_MAXORDER:
            return -1
        for j in range(placed[i]):
            d.order[i][j] = content[j]
        d.ohead[i] = 0
        d.otail[i] = placed[i]
        if i == d.ordering:
            for j in range(placed[i], ncontent):
                d.manip_hand[content[j]] += 1
    # the sampled Fool's record of where its Traps came from (a Trap p saw it draw as the
    # Manipulator came from a pile p ordered)
    f = fool
    if f >= 0 and f != p:
        for i in range(d.known[p][f][C_TRAP]):
            if nfp >= RT_MAXFOOL:
                return -1
            fp[nfp] = d.manip_piles[rs_below(rng, d.nmanip)] if d.nmanip else 0
            nfp += 1
        for i in range(nfp):        # sorted (insertion sort)
            t = fp[i]
            j = i
            while j > 0 and d.fool_piles[j - 1] > t:
                d.fool_piles[j] = d.fool_piles[j - 1]
                j -= 1
            d.fool_piles[j] = t
        for i in range(nfp, RT_MAXFOOL):
            d.fool_piles[i] = 0
        d.nfool = nfp
    elif f < 0:
        d.nfool = 0
        memset(d.fool_piles, 0, sizeof(d.fool_piles))
    return 0


# ====================================================================== observation tensor
# The compiled ``State.observation_tensor``: ``view.observation(state, p)`` encoded by the
# game's TensorLayout (engines/obs_schema.py), written from the struct straight into the
# float buffer. Offsets and scalings come from the layout, read once per game instance
# (``_obs_prepare`` with ``ratai._speedups.tensor_layout.CheckedLayout``, which also
# checks that every slice of the layout is claimed: a field this writer does not know disables it,
# and the reference encoder is used). The writer reads the public fields, the derived
# counts and seat ``p``'s private fields of ``view.observation``, nothing else; the float
# arithmetic is the reference encoder's ((x - lo) * scale in double, multiset counts summed
# in float32).
ctypedef struct RTResObs:   # one entry of round_results
    CyObsNum round
    int rev_flag[RT_MAXP]
    OSet rev[RT_MAXP]
    int elim[RT_MAXP]
    CyObsNum gained[RT_MAXP]
    CyObsNum stored[RT_MAXP]
    int role_flag[RT_MAXP]
    int role[RT_MAXP]

ctypedef struct RTObs:
    int size
    CyObsNum round, turn
    int active
    CyObsNum points[RT_MAXP]
    RTResObs res[RT_MAXRES]
    int res_shown, res_len, res_max
    OList winners
    int tiebreak
    int phase
    signed char phase_idx[32]   # twin phase -> its one-hot index, -1: not observable
    CyObsNum scratches[RT_MAXP]
    int elim[RT_MAXP]
    CyObsNum trap_out[RT_MAXPILE]
    CyObsNum used_clovers
    int role_public[RT_MAXP]
    int role_gone[RT_MAXP]
    OSet not_fool, manip_piles, tr_used
    CyObsNum ordering
    int round_over
    OList black, white, returned, alr_queue, cat_targets
    int rerolled
    CyObsNum acc, acc_white, acc_black
    int kept_flag[RT_MAXP]
    int kept[RT_MAXP]
    CyObsNum tr_card
    CyObsNum quiet[RT_MAXP][RT_MAXPILE]
    CyObsNum pile_sizes[RT_MAXPILE]
    int placed_flag[RT_MAXPILE]
    CyObsNum placed[RT_MAXPILE]
    CyObsNum stored_counts[RT_MAXP]
    CyObsNum lost_counts[RT_MAXP]
    int trc_flag, trl_flag
    OSet trc, trl
    int pr_flag[RT_MAXP]
    int pr[RT_MAXP]
    CyObsNum roles_dealt
    int player
    OSet my_cards, my_lost
    OSet known[RT_MAXP]
    OSet known_by[RT_MAXP]
    int role_flag, role
    int pc_flag
    int pcp_flag[RT_MAXPILE]
    OList pcp[RT_MAXPILE]
    int mh_flag
    CyObsNum mh[RT_NT]
    int fp_flag
    OSet fp


cdef int rt_write_obs(const RTState* s, const RTConst* k, int p, float* out) noexcept nogil:
    """``observation_tensor(p)`` into ``out``; -1 (``out`` undefined) without offsets."""
    cdef const RTObs* o = <const RTObs*>k.obs
    cdef int P = k.P, n = k.n, tr = k.third_rat, q, i, t, m, ph, pl
    cdef const RTResObs* ro
    cdef const RTResult* res
    cdef signed char buf[RT_MAXP]
    if o == NULL or p < 0 or p >= n or s.phase < 0 or s.phase >= 32:
        return -1
    ph = o.phase_idx[s.phase]
    if ph < 0 or not 0 <= s.active < P:
        return -1
    memset(out, 0, <size_t>o.size * sizeof(float))
    # public fields (view.PUBLIC_FIELDS, in schema order)
    cy_obs_num(out, &o.round, s.round)
    cy_obs_num(out, &o.turn, s.turn)
    out[o.active + s.active] = 1.0
    for q in range(P):
        cy_obs_num(out, &o.points[q], s.points[q])
    for i in range(s.nres if s.nres < o.res_shown else o.res_shown):
        res = &s.res[i]
        ro = &o.res[i]
        cy_obs_num(out, &ro.round, res.round)
        for q in range(P):
            if not res.eliminated[q]:   # revealed: null for an eliminated rat
                out[ro.rev_flag[q]] = 1.0
                w_counts(out, &ro.rev[q], res.revealed[q], RT_NT)
            out[ro.elim[q]] = 1.0 if res.eliminated[q] else 0.0
            cy_obs_num(out, &ro.gained[q], res.gained[q])
            cy_obs_num(out, &ro.stored[q], res.stored_counts[q])
        for q in range(n):
            if res.roles[q] >= 0:
                out[ro.role_flag[q]] = 1.0
                out[ro.role[q] + res.roles[q]] = 1.0
    w_len(out, o.res_len, s.nres, o.res_max)
    m = 0
    if s.phase == P_OVER:
        for q in range(P):
            if s.winners[q]:
                buf[m] = q
                m += 1
    w_list(out, &o.winners, buf, m)
    out[o.tiebreak] = 1.0 if s.tiebreak else 0.0
    out[o.phase + ph] = 1.0
    for q in range(P):
        cy_obs_num(out, &o.scratches[q], s.scratches[q])
        out[o.elim[q]] = 1.0 if s.elim[q] else 0.0
    for i in range(k.npiles):
        cy_obs_num(out, &o.trap_out[i], s.trap_out[i])
    cy_obs_num(out, &o.used_clovers, s.used_clovers)
    for q in range(n):
        out[o.role_public[q]] = 1.0 if s.role_public[q] else 0.0
        out[o.role_gone[q]] = 1.0 if s.role_gone[q] else 0.0
    w_elems(out, &o.not_fool, s.not_fool, s.nnot_fool)
    w_elems(out, &o.manip_piles, s.manip_piles, s.nmanip)
    cy_obs_num(out, &o.ordering, s.ordering)
    w_elems(out, &o.tr_used, s.tr_used, s.ntr_used)
    out[o.round_over] = 1.0 if s.round_over else 0.0
    w_list(out, &o.black, s.dice[BLACK], s.ndice[BLACK])
    w_list(out, &o.white, s.dice[WHITE], s.ndice[WHITE])
    out[o.rerolled] = 1.0 if s.rerolled else 0.0
    w_list(out, &o.alr_queue, s.alr_queue, s.nalr)
    cy_obs_num(out, &o.acc, s.acc)
    cy_obs_num(out, &o.acc_white, s.acc_white)
    cy_obs_num(out, &o.acc_black, s.acc_black)
    w_list(out, &o.returned, s.returned, s.nreturned)
    for i in range(s.nkept):
        out[o.kept_flag[s.kept_who[i]]] = 1.0
        out[o.kept[s.kept_who[i]] + s.kept_face[i]] = 1.0
    w_list(out, &o.cat_targets, s.cat_targets, s.ncat)
    cy_obs_num(out, &o.tr_card, s.tr_card)
    for q in range(n):
        for i in range(k.npiles):
            cy_obs_num(out, &o.quiet[q][i], s.quiet[q][i])
    # public counts derived from hidden fields (view.DERIVED_FIELDS)
    for i in range(k.npiles):
        cy_obs_num(out, &o.pile_sizes[i], pile_size(s, i))
        pl = placed(s, k, i)
        if pl >= 0:
            out[o.placed_flag[i]] = 1.0
            cy_obs_num(out, &o.placed[i], pl)
    for q in range(P):
        cy_obs_num(out, &o.stored_counts[q], csum(s.stored[q]))
        cy_obs_num(out, &o.lost_counts[q], csum(s.lost[q]))
    if tr >= 0:   # the Third Rat's cards lie face up (RT-8)
        out[o.trc_flag] = 1.0
        w_counts(out, &o.trc, s.stored[tr], RT_NT)
        out[o.trl_flag] = 1.0
        w_counts(out, &o.trl, s.lost[tr], RT_NT)
    m = 0
    for q in range(n):
        if s.role_public[q]:
            out[o.pr_flag[q]] = 1.0
            out[o.pr[q] + (s.roles[q] if s.roles[q] >= 0 else 4)] = 1.0   # ROLES[-1], as view
        m += s.roles[q] >= 0
    cy_obs_num(out, &o.roles_dealt, m)
    # private to p (view.PRIVATE_FIELDS)
    out[o.player + p] = 1.0
    w_counts(out, &o.my_cards, s.stored[p], RT_NT)
    w_counts(out, &o.my_lost, s.lost[p], RT_NT)
    for q in range(P):
        w_counts(out, &o.known[q], s.known[p][q], RT_NT)
    for q in range(n):
        w_counts(out, &o.known_by[q], s.known[q][p], RT_NT)
    if s.roles[p] >= 0:
        out[o.role_flag] = 1.0
        out[o.role + s.roles[p]] = 1.0
    if s.roles[p] == R_MANIPULATOR:   # the piles it ordered (RT-10)
        out[o.pc_flag] = 1.0
        for i in range(k.npiles):
            if contains(s.manip_piles, s.nmanip, i):
                out[o.pcp_flag[i]] = 1.0
                if s.has_order[i]:
                    w_list(out, &o.pcp[i], &s.order[i][s.ohead[i]], s.otail[i] - s.ohead[i])
                else:
                    w_list(out, &o.pcp[i], s.order[i], 0)
        out[o.mh_flag] = 1.0
        for t in range(RT_NT):
            cy_obs_num(out, &o.mh[t], s.manip_hand[t])
    if s.roles[p] == R_FOOL:   # the piles it drew from silently (RT-9)
        out[o.fp_flag] = 1.0
        w_elems(out, &o.fp, s.fool_piles, s.nfool)
    return 0


cdef void _rt_build_obs(RTObs* o, game) except *:
    """Fill ``o`` from ``game``'s tensor layout (LayoutMismatch: not this writer's)."""
    from .tensor_layout import CheckedLayout, LayoutMismatch

    cdef int P = game.participants, n = game.num_players(), piles = game.num_piles
    cdef int q, i, t
    cdef RTResObs* ro
    L = CheckedLayout(game)
    memset(o, 0, sizeof(RTObs))
    o.size = L.size
    rats = list(range(P))
    seats = list(range(n))
    faces = list(range(RT_NF))
    cards = list(range(RT_NT))
    roles = list(ROLES)
    cy_obs_num_at(&o.round, L, "$.round")
    cy_obs_num_at(&o.turn, L, "$.turn")
    o.active = L.onehot("$.active", rats)[0]
    for q in range(P):
        cy_obs_num_at(&o.points[q], L, f"$.points[{q}]")
    shown = L.items("$.round_results")
    if shown > RT_MAXRES:
        raise LayoutMismatch(f"rat_trap: {shown} round results shown, the twin holds "
                             f"{RT_MAXRES}")
    o.res_shown = shown
    for i in range(shown):
        ro = &o.res[i]
        b = f"$.round_results[{i}]"
        cy_obs_num_at(&ro.round, L, f"{b}.round")
        for q in range(P):
            ro.rev_flag[q] = L.flag(f"{b}.revealed[{q}]")
            tw_set(&ro.rev[q], L.multiset(f"{b}.revealed[{q}]", cards))
        for q in range(P):
            ro.elim[q] = L.boolean(f"{b}.eliminated[{q}]")
        for q in range(P):
            cy_obs_num_at(&ro.gained[q], L, f"{b}.gained[{q}]")
        for q in range(P):
            cy_obs_num_at(&ro.stored[q], L, f"{b}.stored_counts[{q}]")
        for q in range(n):
            ro.role_flag[q] = L.flag(f"{b}.roles[{q}]")
            ro.role[q] = L.onehot(f"{b}.roles[{q}]", roles)[0]
    o.res_len, o.res_max = L.length("$.round_results")
    tw_list(&o.winners, L, "$.winners", rats, P)
    o.tiebreak = L.boolean("$.tiebreak_round")
    o.phase, phases = L.onehot("$.phase")
    for i in range(32):
        o.phase_idx[i] = -1
    for i, name in enumerate(PHASE_NAMES):
        if name in phases:
            o.phase_idx[i] = phases.index(name)
    for q in range(P):
        cy_obs_num_at(&o.scratches[q], L, f"$.scratches[{q}]")
    for q in range(P):
        o.elim[q] = L.boolean(f"$.eliminated[{q}]")
    for i in range(piles):
        cy_obs_num_at(&o.trap_out[i], L, f"$.trap_out[{i}]")
    cy_obs_num_at(&o.used_clovers, L, "$.used_clovers")
    for q in range(n):
        o.role_public[q] = L.boolean(f"$.role_public[{q}]")
    for q in range(n):
        o.role_gone[q] = L.boolean(f"$.role_gone[{q}]")
    tw_set(&o.not_fool, L.multiset("$.not_fool", seats))
    tw_set(&o.manip_piles, L.multiset("$.manip_piles", list(range(piles))))
    cy_obs_num_at(&o.ordering, L, "$.ordering")
    tw_set(&o.tr_used, L.multiset("$.tr_used", list(range(len(game.data.third_rat_cards)))))
    o.round_over = L.boolean("$.round_over")
    tw_list(&o.black, L, "$.black", faces, 2)
    tw_list(&o.white, L, "$.white", faces, 2)
    o.rerolled = L.boolean("$.rerolled")
    tw_list(&o.alr_queue, L, "$.alr_queue", seats, RT_MAXP)
    cy_obs_num_at(&o.acc, L, "$.acc")
    cy_obs_num_at(&o.acc_white, L, "$.acc_white")
    cy_obs_num_at(&o.acc_black, L, "$.acc_black")
    tw_list(&o.returned, L, "$.returned", faces, 4)
    for q in range(P):
        o.kept_flag[q] = L.flag(f"$.kept.{q}")
        o.kept[q] = L.onehot(f"$.kept.{q}", faces)[0]
    tw_list(&o.cat_targets, L, "$.cat_targets", rats, RT_MAXCAT)
    cy_obs_num_at(&o.tr_card, L, "$.tr_card")
    for q in range(n):
        for i in range(piles):
            cy_obs_num_at(&o.quiet[q][i], L, f"$.quiet[{q}][{i}]")
    for i in range(piles):
        cy_obs_num_at(&o.pile_sizes[i], L, f"$.pile_sizes[{i}]")
    for i in range(piles):
        o.placed_flag[i] = L.flag(f"$.pile_placed[{i}]")
        cy_obs_num_at(&o.placed[i], L, f"$.pile_placed[{i}]")
    for q in range(P):
        cy_obs_num_at(&o.stored_counts[q], L, f"$.stored_counts[{q}]")
    for q in range(P):
        cy_obs_num_at(&o.lost_counts[q], L, f"$.lost_counts[{q}]")
    o.trc_flag = L.flag("$.third_rat_cards")
    tw_set(&o.trc, L.multiset("$.third_rat_cards", cards))
    o.trl_flag = L.flag("$.third_rat_lost")
    tw_set(&o.trl, L.multiset("$.third_rat_lost", cards))
    for q in range(n):
        o.pr_flag[q] = L.flag(f"$.public_roles[{q}]")
        o.pr[q] = L.onehot(f"$.public_roles[{q}]", roles)[0]
    cy_obs_num_at(&o.roles_dealt, L, "$.roles_dealt")
    o.player = L.onehot("$.player", seats)[0]
    tw_set(&o.my_cards, L.multiset("$.my_cards", cards))
    tw_set(&o.my_lost, L.multiset("$.my_lost", cards))
    for q in range(P):
        tw_set(&o.known[q], L.multiset(f"$.known[{q}]", cards))
    for q in range(n):
        tw_set(&o.known_by[q], L.multiset(f"$.known_by[{q}]", cards))
    o.role_flag = L.flag("$.role")
    o.role = L.onehot("$.role", roles)[0]
    o.pc_flag = L.flag("$.pile_cards")
    for i in range(piles):
        o.pcp_flag[i] = L.flag(f"$.pile_cards[{i}]")
        tw_list(&o.pcp[i], L, f"$.pile_cards[{i}]", cards, RT_MAXORDER)
    o.mh_flag = L.flag("$.manip_hand")
    for t in range(RT_NT):
        cy_obs_num_at(&o.mh[t], L, f"$.manip_hand[{t}]")
    o.fp_flag = L.flag("$.fool_piles")
    tw_set(&o.fp, L.multiset("$.fool_piles", list(range(piles))))
    L.finish()


# ====================================================================== game constants
cdef class _Consts:
    """The game's constants as a C struct (owned by the game, shared by its states)."""
    cdef RTConst c
    cdef RTObs obs            # the tensor writer's offsets (c.obs points here once built)
    cdef bint obs_tried
    cdef public object obs_error  # why the compiled writer is off (a layout mismatch), or None


def _make_consts(game, params) -> _Consts:
    cdef _Consts obj = _Consts()
    cdef RTConst* c = &obj.c
    cdef int i, j
    d = game.data
    n = params["num_players"]
    if len(d.third_rat_cards) > RT_MAXTR:
        raise ValueError(f"{d.source}: the Cython twin supports at most {RT_MAXTR} Third Rat "
                         f"cards; use backend='python'")
    if d.max_rounds + 1 > RT_MAXRES:
        raise ValueError(f"{d.source}: the Cython twin supports at most {RT_MAXRES - 1} "
                         f"rounds; use backend='python'")
    if max(deck[0] for deck in d.decks.values()) + 15 > RT_MAXTODO:  # Fool robbed: 1 + Traps
        raise ValueError(f"{d.source}: too many Traps for the Cython twin's task stack; "
                         f"use backend='python'")
    if d.scratches_to_eliminate > 100:
        raise ValueError(f"{d.source}: scratches_to_eliminate too large for the Cython twin")
    memset(c, 0, sizeof(RTConst))
    c.n = n
    c.P = game.participants
    c.third_rat = game.third_rat
    c.npiles = game.num_piles
    for i in range(4):
        c.deck[i] = game.deck[i]
    c.big_gang = bool(params["big_gang"])
    c.roles = bool(params["roles"])
    c.extra_round = params["tie_break"] == "extra_round"
    c.max_turns = params["max_turns_per_round"]
    c.win_points = d.win_points
    c.max_rounds = d.max_rounds
    c.s2e = d.scratches_to_eliminate
    c.bonus = d.empty_round_bonus
    c.ntr = len(d.third_rat_cards)
    for i, card in enumerate(d.third_rat_cards):
        for j in range(RT_NF):
            c.tr_prio[i][j] = card.priority[j]
        c.tr_active[i] = card.controller == "active"
    for colour, roll in ((WHITE, game.white_roll), (BLACK, game.black_roll)):
        c.nroll[colour] = len(roll)
        for i, (a, p) in enumerate(roll):
            c.roll_act[colour][i] = a
            c.roll_p[colour][i] = p
    c.num_actions = game.num_distinct_actions()
    for i in range(4):
        c.cheese[i] = CARD_CHEESE[i]
    return obj


cdef void _obs_prepare(_Consts c, game) except *:
    """Build the writer's offsets once per game (``c.obs_error``: why it is off, or None;
    a game whose layout cannot be built then raises that error from observation_tensor)."""
    if c.obs_tried:
        return
    c.obs_tried = True
    try:
        _rt_build_obs(&c.obs, game)
    except (ValueError, KeyError, NotImplementedError, ImportError) as exc:
        c.obs_error = str(exc)   # LayoutMismatch among them
        return
    c.c.obs = &c.obs


# ====================================================================== conversion
cdef list _cards(const signed char* counts):
    return [t for t in range(4) for _ in range(counts[t])]


cdef inline list _lst(const signed char* arr, int n):
    return [arr[i] for i in range(n)]


cdef void _set_counts(signed char* out, cards, str field) except *:
    cdef int t
    for t in range(4):
        out[t] = 0
    for c in cards:
        if not 0 <= c < 4:
            raise ValueError(f"field {field!r}: bad card {c!r}")
        out[c] += 1


cdef void _set_arr(signed char* out, values, int cap, str field) except *:
    if len(values) > cap:
        raise ValueError(f"field {field!r}: more than {cap} entries for the Cython twin")
    for i, v in enumerate(values):
        out[i] = v


# ====================================================================== the state
cdef class RatTrapState(CyState):
    """A Rat Trap position in one C struct; the same API as the reference ``RatTrapState``.

    Create states with ``RatTrapGame.new_initial_state()``; see ``engines/api.py`` for the
    contract of each method.
    """

    def __init__(self, game):
        self._attach(game)
        init_state(&self.s, self.k)
        self._on_views()

    cdef int _attach(self, game) except -1:
        CyState._attach(self, game)
        self.k = &(<_Consts>self._consts).c
        if not (<_Consts>self._consts).obs_tried:   # the tensor writer's offsets, once a game
            _obs_prepare(<_Consts>self._consts, game)
        return 0

    # ------------------------------------------------------------------ C-level contract
    cdef int c_current_player(self) noexcept nogil:
        cdef int ph = self.s.phase
        if ph == P_OVER:
            return _TERMINAL
        return self.s.ctx_who

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        if self.s.phase == P_OVER or self.s.ctx_who < 0:
            return 0
        return legal_actions(&self.s, self.k, out)

    cdef int c_chance_outcomes(self, int* actions, double* probs) noexcept nogil:
        if self.s.phase == P_OVER or self.s.ctx_who != _CHANCE:
            return 0
        return chance_outcomes(&self.s, self.k, actions, probs)

    cdef void c_apply(self, int action) noexcept nogil:
        cdef int q
        for q in range(self.k.n):  # perfect recall: each seat's view, before the action
            self.s.vhash[q] = cy_mix(self.s.vhash[q], view_code(&self.s, self.k, q, action))
        self.s.nauto = 0
        self.s.round_steps += 1
        self._bstate = 0
        apply_phase(&self.s, self.k, action)
        if self.s.phase == P_DONE:
            self.s.phase = P_NONE
        advance(&self.s, self.k)

    cdef int c_returns(self, double* out) noexcept nogil:
        cdef int q, n = self.k.n
        cdef double share
        if self.s.phase != P_OVER or self.s.nwinners == 0:
            for q in range(n):
                out[q] = 0.0
            return n
        share = 1.0 / <double>self.s.nwinners
        for q in range(n):
            out[q] = share if self.s.winners[q] else 0.0
        return n

    cdef int c_num_players(self) noexcept nogil:
        return self.k.n

    cdef int c_num_actions(self) noexcept nogil:
        return self.k.num_actions

    cdef void c_copy_from(self, CyState other) noexcept nogil:
        rt_copy(&self.s, &(<RatTrapState>other).s)

    cdef CyState c_clone(self):
        cdef RatTrapState new = RatTrapState.__new__(RatTrapState)
        rt_copy(&new.s, &self.s)
        new.k = self.k
        cy_share_history(self, new)
        return new

    #: The search may call ``c_resample`` per iteration: it is compiled and exact (the
    #: reference's posterior, see rt_determinize and tests/engines/test_exact_posterior.py).
    fast_c_resample = True

    cdef CyState c_blank(self):
        cdef RatTrapState out = RatTrapState.__new__(RatTrapState)
        out.k = self.k
        return out

    cdef int c_resample_into(self, int player, CyState out, unsigned long long* rng) noexcept nogil:
        # The exact belief's worlds where ``_prepare_resample`` built them for this seat,
        # the closed form (rt_determinize) where it found the filter beyond its caps; until
        # prepared, -1 (the caller runs the exact reference path). rt_determinize also
        # declines (non-zero) where only the reference sampler applies.
        if player != self._bplayer or self._bstate == 0:
            return -1
        if self._bstate == 1:
            return rt_pick_world(&(<RatTrapState>out).s, self._bw, self._bcum, self._bn,
                                 &self.s, self.k, player, rng)
        return 0 if rt_determinize(&(<RatTrapState>out).s, &self.s, self.k, player, rng) == 0 else -1

    def _world_key(self):
        """The exact filter's merge key (``engines/belief.py``): the struct's bytes with
        what is not the state's cleared (the views digests and automatic entries, task and
        option slots no longer in use) and each ordered pile shifted to its head. Unequal
        states never share a key; equal ones may not (a stale slot of another counted
        array), which only leaves two copies of a world unmerged."""
        cdef RTState c
        cdef int i, m
        memset(&c, 0, sizeof(RTState))
        rt_copy(&c, &self.s)
        for i in range(RT_MAXPILE):
            m = c.otail[i] - c.ohead[i] if c.has_order[i] else 0
            if m > 0 and c.ohead[i] > 0:
                memmove(&c.order[i][0], &c.order[i][c.ohead[i]], m)
            memset(&c.order[i][m], 0, RT_MAXORDER - m)
            c.ohead[i] = 0
            c.otail[i] = m
        memset(&c.todo[c.ntodo], 0, sizeof(c.todo[0]) * (RT_MAXTODO - c.ntodo))
        memset(&c.opts[c.nopt], 0, RT_MAXOPT - c.nopt)
        memset(c.vhash, 0, sizeof(c.vhash))
        memset(c.auto_ev, 0, sizeof(c.auto_ev))
        c.nauto = 0
        return (<char*>&c)[:sizeof(RTState)]

    def _obs_digest(self, int player):
        """A 64-bit digest of ``observation(player)`` (equal observations, equal digests)."""
        return info_digest(&self.s, self.k, player)

    def _hidden_weight(self, int action):
        """``view.order_prior``: the Manipulator's order is a uniform shuffle."""
        cdef int t, total = 0
        if self.s.phase != P_MANIP_ORDER:
            return 1.0
        for t in range(RT_NT):
            total += self.s.manip_hand[t]
        return self.s.manip_hand[action - A_ORDER] / <double>total

    def _realize(self, rng):
        """``rules.RatTrapState._realize``: this world of a belief as a state of the game,
        its lazy piles dealt and ordered by the reference's code from ``rng`` (so a seed
        gives both backends the same sample). A world without lazy piles (the observer is
        the Manipulator, or none was dealt) only drops ``observer``."""
        cdef int i
        if self.s.observer < 0:
            return self
        for i in range(self.k.npiles):
            if lazy_pile(&self.s, self.k, i):
                return self._game._from_reference(
                    _V.realize_lazy_piles(self.to_reference(), rng))
        self.s.observer = -1
        return self

    def _prepare_resample(self, int player):
        """Build the compiled sampler's view of seat ``player``'s belief: the worlds of the
        exact filter (``view.exact_belief``, cached per round) as C structs, or the closed
        form where the filter is beyond its caps or the seat's log is not kept."""
        cdef _Worlds table
        cdef int i
        if self._bstate != 0 and self._bplayer == player:
            return
        self._bowner = None
        self._bstate, self._bplayer = 2, player
        if self._views is None:
            return
        belief = _V.exact_belief(self._game.reference_game(), player,
                                 self.observation(player), self._views[player], self._game,
                                 self._obs_digest(player))
        if belief is None:
            return
        table = getattr(belief, "table", None)
        if table is None:
            table = _Worlds(len(belief.worlds))
            for i, world in enumerate(belief.worlds):
                rt_copy(&table.w[i], &(<RatTrapState?>world).s)
                table.cum[i] = belief.cum[i]
            belief.table = table
        self._bowner = table
        self._bw, self._bcum, self._bn = table.w, table.cum, table.n
        self._bstate = 1

    cdef unsigned long long c_info_hash(self, int player) except? 0:
        # equal for equal information_state_string(player): the observation's digest and the
        # seat's views digest (tests/speedups/test_cy_search.py checks it)
        return cy_mix(info_digest(&self.s, self.k, player), <long long>self.s.vhash[player])

    cdef int c_info_hash_into(self, int player, unsigned long long* out) noexcept nogil:
        # c_info_hash without the GIL (the IS-MCTS chance key, threads included)
        out[0] = cy_mix(info_digest(&self.s, self.k, player), <long long>self.s.vhash[player])
        return 0

    # ------------------------------------------------------------------ perfect recall
    cdef int _view_codes(self, int a, int* out) except -1:
        cdef int q
        for q in range(self.k.n):
            out[q] = view_code(&self.s, self.k, q, a)
        return self.k.n

    cdef int _after_views(self) except -1:
        cdef int e, q, n = self.k.n
        if self.s.nauto > RT_MAXAUTO:
            raise RuntimeError("Rat Trap twin: too many automatic draws in one step")
        for e in range(self.s.nauto):
            for q in range(n):
                (<list>self._views[q]).append(self.s.auto_ev[e][q])
        return 0

    cdef int _on_views(self) except -1:
        cdef int q
        cdef unsigned long long h
        self._bstate = 0  # a new log: the belief is rebuilt on demand
        for q in range(self.k.n):
            h = VH_SEED
            if self._views is not None:
                for code in self._views[q]:
                    h = cy_mix(h, VH_UNKNOWN if code is None else <long long>code)
            self.s.vhash[q] = h
        return 0

    def _views_copy(self):
        return None if self._views is None else [list(log) for log in self._views]

    cdef int c_observation_tensor(self, int player, float* out) noexcept nogil:
        # -1 when the game's layout is not the writer's (_Consts.obs_error says why)
        return rt_write_obs(&self.s, self.k, player, out)

    cdef int c_observation_size(self) noexcept nogil:
        return 0 if self.k.obs == NULL else (<const RTObs*>self.k.obs).size

    # ------------------------------------------------------------------ fast Python API
    def is_terminal(self) -> bool:
        return self.s.phase == P_OVER

    def _legal_actions(self) -> list:
        cdef int buf[RT_MAXOPT + 8]
        cdef int n = legal_actions(&self.s, self.k, buf)
        return [buf[i] for i in range(n)]

    def _chance_outcomes(self) -> list:
        cdef int act[N_MULTISETS]
        cdef double prob[N_MULTISETS]
        cdef int n = chance_outcomes(&self.s, self.k, act, prob)
        return [(act[i], prob[i]) for i in range(n)]

    def scores(self) -> list:
        return [float(self.s.points[q]) for q in range(self.k.n)]

    # ------------------------------------------------------------------ conversion
    def to_reference(self):
        """The equivalent reference ``RatTrapState`` (same fields, same history)."""
        cdef RTState* s = &self.s
        cdef const RTConst* k = self.k
        cdef int P = k.P, n = k.n, q, o, i, j
        cdef RTResult* res
        cdef signed char* tt
        r = _R.RatTrapState.__new__(_R.RatTrapState)
        d = r.__dict__
        d["_game"] = self._game
        d["_history"] = list(self._hist)
        d["round"] = s.round
        d["turn"] = s.turn
        d["active"] = s.active
        d["points"] = [s.points[q] for q in range(P)]
        results = []
        for i in range(s.nres):
            res = &s.res[i]
            results.append({
                "round": res.round,
                "revealed": [None if res.eliminated[q] else _cards(res.revealed[q])
                             for q in range(P)],
                "eliminated": [bool(res.eliminated[q]) for q in range(P)],
                "gained": [res.gained[q] for q in range(P)],
                "stored_counts": [res.stored_counts[q] for q in range(P)],
                "roles": [ROLES[res.roles[q]] if res.roles[q] >= 0 else None
                          for q in range(n)],
            })
        d["round_results"] = results
        d["winners"] = [q for q in range(P) if s.winners[q]] if s.phase == P_OVER else []
        d["tiebreak_round"] = bool(s.tiebreak)
        d["scratches"] = [s.scratches[q] for q in range(P)]
        d["stored"] = [_cards(s.stored[q]) for q in range(P)]
        d["lost"] = [_cards(s.lost[q]) for q in range(P)]
        d["eliminated"] = [bool(s.elim[q]) for q in range(P)]
        d["known"] = [[_cards(s.known[o][q]) for q in range(P)] for o in range(P)]
        d["pile_g"] = [s.pile_g[i] for i in range(k.npiles)]
        d["pile_r"] = [s.pile_r[i] for i in range(k.npiles)]
        d["pile_order"] = [[s.order[i][j] for j in range(s.ohead[i], s.otail[i])]
                           if s.has_order[i] else None for i in range(k.npiles)]
        d["trap_out"] = [s.trap_out[i] for i in range(k.npiles)]
        d["used_clovers"] = s.used_clovers
        d["pool"] = [s.pool[t] for t in range(4)]
        d["roles"] = [s.roles[q] for q in range(n)]
        d["role_public"] = [bool(s.role_public[q]) for q in range(n)]
        d["role_gone"] = [bool(s.role_gone[q]) for q in range(n)]
        d["not_fool"] = _lst(s.not_fool, s.nnot_fool)
        d["quiet"] = [[s.quiet[q][i] for i in range(k.npiles)] for q in range(n)]
        d["fool_piles"] = _lst(s.fool_piles, s.nfool)
        d["manip_piles"] = _lst(s.manip_piles, s.nmanip)
        d["manip_hand"] = [s.manip_hand[t] for t in range(4)]
        d["ordering"] = s.ordering
        if s.observer >= 0:  # a world of a belief (a class default -1 otherwise)
            d["observer"] = s.observer
        d["tr_used"] = _lst(s.tr_used, s.ntr_used)
        d["round_over"] = bool(s.round_over)
        d["round_steps"] = s.round_steps
        d["black"] = _lst(s.dice[BLACK], s.ndice[BLACK])
        d["white"] = _lst(s.dice[WHITE], s.ndice[WHITE])
        d["rerolled"] = bool(s.rerolled)
        d["alr_queue"] = _lst(s.alr_queue, s.nalr)
        d["acc"] = s.acc
        d["acc_white"] = s.acc_white
        d["acc_black"] = s.acc_black
        d["returned"] = _lst(s.returned, s.nreturned)
        d["cat_targets"] = _lst(s.cat_targets, s.ncat)
        d["kept"] = {str(s.kept_who[i]): s.kept_face[i] for i in range(s.nkept)}
        d["tr_card"] = s.tr_card
        phase = PHASE_NAMES[s.phase]
        ctx = {}
        if s.phase != P_OVER:
            ctx["who"] = s.ctx_who
            for key in _CTX_KEYS[phase]:
                if key == "options":
                    ctx[key] = _lst(s.opts, s.nopt)
                elif key == "colour":
                    ctx[key] = _COLOURS[s.ctx_colour]
                elif key == "actor":
                    ctx[key] = s.ctx_actor
                elif key == "draws":
                    ctx[key] = s.ctx_draws
                elif key == "pile":
                    ctx[key] = s.ctx_pile
                elif key == "victim":
                    ctx[key] = s.ctx_victim
                elif key == "seat":
                    ctx[key] = s.ctx_seat
        d["ctx"] = ctx
        d["phase"] = phase
        todo = []
        for i in range(s.ntodo):
            tt = s.todo[i]
            name = TASK_NAMES[tt[0]]
            args = [tt[1 + j] for j in range(TASK_NARGS[tt[0]])]
            if name in ("choose_acc",):
                args[0] = _COLOURS[args[0]]
            elif name == "keep_die":
                args[1] = _COLOURS[args[1]]
            elif name == "resolve" and args[1] == RETURNED:
                args[1] = "returned"
            todo.append([name, *args])
        d["todo"] = todo
        d["views"] = self._views_copy()
        return r

    cdef void _load(self, r) except *:
        """Fill the C struct from a reference state ``r`` (ValueError naming a bad field)."""
        cdef RTState* s = &self.s
        cdef const RTConst* k = self.k
        cdef int P = k.P, n = k.n, q, o, i, j
        cdef RTResult* res
        memset(s, 0, sizeof(RTState))
        self._bstate = 0
        try:
            s.round = r.round
            s.turn = r.turn
            s.active = r.active
            for q in range(P):
                s.points[q] = r.points[q]
            if len(r.round_results) > RT_MAXRES:
                raise ValueError("field 'round_results': too many rounds for the Cython twin")
            s.nres = len(r.round_results)
            for i, rr in enumerate(r.round_results):
                res = &s.res[i]
                res.round = rr["round"]
                for q in range(P):
                    res.eliminated[q] = rr["eliminated"][q]
                    res.gained[q] = rr["gained"][q]
                    res.stored_counts[q] = rr["stored_counts"][q]
                    if rr["revealed"][q] is not None:
                        _set_counts(res.revealed[q], rr["revealed"][q], "round_results")
                for q in range(RT_MAXP):
                    res.roles[q] = -1
                for q, role in enumerate(rr["roles"]):
                    res.roles[q] = -1 if role is None else ROLES.index(role)
            for q in r.winners:
                s.winners[q] = 1
            s.nwinners = len(r.winners)
            s.tiebreak = r.tiebreak_round
            for q in range(P):
                s.scratches[q] = r.scratches[q]
                _set_counts(s.stored[q], r.stored[q], "stored")
                _set_counts(s.lost[q], r.lost[q], "lost")
                s.elim[q] = r.eliminated[q]
                for o in range(P):
                    _set_counts(s.known[q][o], r.known[q][o], "known")
            for i in range(k.npiles):
                s.pile_g[i] = r.pile_g[i]
                s.pile_r[i] = r.pile_r[i]
                order = r.pile_order[i]
                s.has_order[i] = order is not None
                if order is not None:
                    _set_arr(s.order[i], order, RT_MAXORDER, "pile_order")
                    s.otail[i] = len(order)
                s.trap_out[i] = r.trap_out[i]
                for q in range(n):
                    s.quiet[q][i] = r.quiet[q][i]
            s.used_clovers = r.used_clovers
            s.round_steps = r.round_steps
            for t in range(4):
                s.pool[t] = r.pool[t]
                s.manip_hand[t] = r.manip_hand[t]
            for q in range(RT_MAXP):
                s.roles[q] = -1
            for q in range(n):
                s.roles[q] = r.roles[q]
                s.role_public[q] = r.role_public[q]
                s.role_gone[q] = r.role_gone[q]
            _set_arr(s.not_fool, r.not_fool, RT_MAXP, "not_fool")
            s.nnot_fool = len(r.not_fool)
            _set_arr(s.fool_piles, r.fool_piles, RT_MAXFOOL, "fool_piles")
            s.nfool = len(r.fool_piles)
            _set_arr(s.manip_piles, r.manip_piles, RT_MAXPILE, "manip_piles")
            s.nmanip = len(r.manip_piles)
            s.ordering = r.ordering
            s.observer = r.observer
            _set_arr(s.tr_used, r.tr_used, RT_MAXTR, "tr_used")
            s.ntr_used = len(r.tr_used)
            s.round_over = r.round_over
            _set_arr(s.dice[BLACK], r.black, 2, "black")
            s.ndice[BLACK] = len(r.black)
            _set_arr(s.dice[WHITE], r.white, 2, "white")
            s.ndice[WHITE] = len(r.white)
            s.rerolled = r.rerolled
            _set_arr(s.alr_queue, r.alr_queue, RT_MAXP, "alr_queue")
            s.nalr = len(r.alr_queue)
            s.acc = r.acc
            s.acc_white = r.acc_white
            s.acc_black = r.acc_black
            _set_arr(s.returned, r.returned, 4, "returned")
            s.nreturned = len(r.returned)
            _set_arr(s.cat_targets, r.cat_targets, RT_MAXCAT, "cat_targets")
            s.ncat = len(r.cat_targets)
            if len(r.kept) > RT_MAXP:
                raise ValueError("field 'kept': too many entries")
            for i, (who, face) in enumerate(r.kept.items()):
                s.kept_who[i] = int(who)
                s.kept_face[i] = face
            s.nkept = len(r.kept)
            s.tr_card = r.tr_card
            if r.phase not in _PHASE_ID or r.phase in ("", "_done"):
                raise ValueError(f"field 'phase': {r.phase!r} is not a node's phase")
            s.phase = _PHASE_ID[r.phase]
            ctx = r.ctx
            if s.phase != P_OVER:
                s.ctx_who = ctx["who"]
                if "options" in ctx:
                    _set_arr(s.opts, ctx["options"], RT_MAXOPT, "ctx")
                    s.nopt = len(ctx["options"])
                if "colour" in ctx:
                    s.ctx_colour = _COLOURS.index(ctx["colour"])
                s.ctx_actor = ctx.get("actor", 0)
                s.ctx_draws = ctx.get("draws", 0)
                s.ctx_pile = ctx.get("pile", 0)
                s.ctx_victim = ctx.get("victim", 0)
                s.ctx_seat = ctx.get("seat", 0)
            if len(r.todo) > RT_MAXTODO:
                raise ValueError("field 'todo': too deep for the Cython twin")
            s.ntodo = len(r.todo)
            for i, task in enumerate(r.todo):
                args = list(task[1:])
                if task[0] == "choose_acc":
                    args[0] = _COLOURS.index(args[0])
                elif task[0] == "keep_die":
                    args[1] = _COLOURS.index(args[1])
                elif task[0] == "resolve" and args[1] == "returned":
                    args[1] = RETURNED
                s.todo[i][0] = _TASK_ID[task[0]]
                for j, a in enumerate(args):
                    s.todo[i][1 + j] = a
        except (KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
            raise ValueError(f"not a Rat Trap state: {exc!r}") from exc

    # ------------------------------------------------------------------ slow Python API
    def resample_c(self, player, rng=None):
        """The compiled determinization the search uses (``c_resample``), as a new state.

        Same distribution as :meth:`resample_from_infostate` (the reference ``_rebuild``),
        another random stream: ``rng`` is an int (the splitmix64 seed itself), a numpy
        ``Generator`` (one 64-bit draw seeds the stream) or anything ``make_rng`` accepts.

        Raises:
            ValueError: a bad seat, or an impossible information state (as the reference).
        """
        p = _api.check_player(player, self.k.n)
        return self._determinized(p, rng, None, NULL)

    def __repr__(self):
        return f"<cython RatTrapState round {self.s.round} turn {self.s.turn} " \
               f"phase {PHASE_NAMES[self.s.phase]!r}>"


cdef class _Worlds:
    """A seat's exact belief (``engines/belief.py``) as ``n`` C structs and their cumulative
    weights, for the compiled sampler (``RatTrapState._prepare_resample``)."""
    cdef RTState* w
    cdef double* cum
    cdef int n

    def __cinit__(self, int n):
        self.n = n
        self.w = <RTState*>malloc(sizeof(RTState) * max(n, 1))
        self.cum = <double*>malloc(sizeof(double) * max(n, 1))
        if self.w == NULL or self.cum == NULL:
            raise MemoryError("Rat Trap belief table")

    def __dealloc__(self):
        free(self.w)
        free(self.cum)


cdef int rt_pick_world(RTState* d, const RTState* worlds, const double* cum, int n,
                       const RTState* src, const RTConst* k, int p,
                       unsigned long long* rng) noexcept nogil:
    """A world of the table drawn by its weight (``belief.Belief.pick``: the first whose
    cumulative weight exceeds u * total), with the views digests of a determinization
    (``rt_determinize``)."""
    cdef double u = ratai_uniform(rng) * cum[n - 1]
    cdef int lo = 0, hi = n - 1, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    rt_copy(d, &worlds[lo])
    if d.observer >= 0:  # a world of the belief: no longer lazy once drawn
        rt_realize(d, k, rng)
    sample_views(d, src, k, p)
    return 0


cdef void rt_realize(RTState* d, const RTConst* k, unsigned long long* rng) noexcept nogil:
    """``view.realize_lazy_piles`` in C: each lazy pile's set-aside Trap if still in and
    ``pile_r`` cards dealt from the pool without replacement, in a uniform order (a
    Fisher-Yates shuffle); ``observer`` back to -1. The same law as the reference's, from
    the C stream."""
    cdef int i, j, n, t, u, total
    for i in range(k.npiles):
        if not lazy_pile(d, k, i):
            continue
        n = 0
        for j in range(d.pile_g[i]):
            d.order[i][n] = C_TRAP
            n += 1
        for j in range(d.pile_r[i]):
            total = csum(d.pool)
            u = rs_below(rng, total)
            t = 0
            while u >= d.pool[t]:
                u -= d.pool[t]
                t += 1
            d.pool[t] -= 1
            d.order[i][n] = t
            n += 1
        rs_shuffle(d.order[i], n, rng)
        d.pile_g[i] = 0
        d.pile_r[i] = 0
        d.has_order[i] = 1
        d.ohead[i] = 0
        d.otail[i] = n
    d.observer = -1


def c_determinize(RatTrapState state, int player, unsigned long long seed):
    """``rt_determinize`` alone (for tests): the C sample of ``state`` for seat ``player``
    from the splitmix64 seed ``seed``, or None where the C path declines (then
    ``resample_c`` / ``c_resample`` run the reference)."""
    cdef RatTrapState out
    if not 0 <= player < state.k.n:
        raise ValueError(f"bad player {player!r}: allowed 0..{state.k.n - 1}")
    out = RatTrapState.__new__(RatTrapState)
    out.k = state.k
    cy_fresh_history(state, out)
    if rt_determinize(&out.s, &state.s, state.k, player, &seed) != 0:
        return None
    return keep_views(state, out, player)


# ====================================================================== the game
class RatTrapGame(CyGame, _R.RatTrapGame):
    """Rat Trap (Cython twin): the reference game's parameters, constants and variants,
    with states of :class:`RatTrapState`."""

    _state_class = RatTrapState
    _reference_class = _R.RatTrapGame

    def _check_params(self, params):
        params = super()._check_params(params)
        self._consts = _make_consts(self, params)
        return params

    def _state_from_observation(self, player, observation, rng=None) -> RatTrapState:
        ref = _V._rebuild(self, player, observation, _api.make_rng(rng))
        return self._from_reference(ref)

    def _sample_infostate(self, player, observation, views, rng=None) -> RatTrapState:
        # the reference's sampler (view.sample_infostate) filtering with twin states
        out = _V.sample_infostate(self.reference_game(), player, observation, views,
                                  _api.make_rng(rng), self)
        return out if isinstance(out, RatTrapState) else self._from_reference(out)
