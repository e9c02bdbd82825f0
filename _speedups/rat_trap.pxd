# cython: language_level=3
"""C layout of the Rat Trap twin (see rat_trap.pyx). Every field mirrors one field of the
reference ``engines/rat_trap/rules.py`` ``RatTrapState``; card lists, which the reference
keeps sorted, are counts per card type here."""

from .core cimport CyState

cdef enum:
    RT_MAXP = 5        # participants (seats + the Third Rat)
    RT_MAXPILE = 5
    RT_NT = 4          # card types
    RT_NF = 5          # die faces
    RT_MAXTODO = 40    # task stack depth (the reference's todo list; see _make_consts)
    RT_MAXTR = 8       # Third Rat cards
    RT_MAXRES = 6      # round results (max_rounds + a tie-break round)
    RT_MAXFOOL = 32
    RT_MAXOPT = 8
    RT_MAXCAT = 8
    RT_MAXORDER = 8
    RT_MAXROLL = 16
    RT_MAXAUTO = 16    # automatic log entries in one step (a turn's ordered draws: <= 6;
                       # a lazy manipulation's unseen deal and orders: 12)


ctypedef struct RTResult:
    int round
    int gained[RT_MAXP]
    signed char revealed[RT_MAXP][RT_NT]
    signed char eliminated[RT_MAXP]
    signed char stored_counts[RT_MAXP]
    signed char roles[RT_MAXP]


ctypedef struct RTConst:
    int n, P, third_rat, npiles
    int deck[RT_NT]
    int big_gang, roles, extra_round
    int max_turns, win_points, max_rounds, s2e, bonus
    int ntr
    signed char tr_prio[RT_MAXTR][RT_NF]
    int tr_active[RT_MAXTR]
    int nroll[2]
    int roll_act[2][RT_MAXROLL]
    double roll_p[2][RT_MAXROLL]
    int num_actions
    int cheese[RT_NT]
    # the compiled tensor writer's offsets (``RTObs`` in rat_trap.pyx), built from the game's
    # tensor layout at its first state; NULL when the layout is not the writer's
    const void* obs


ctypedef struct RTState:
    int round
    int turn
    int points[RT_MAXP]
    int nres
    signed char active
    signed char winners[RT_MAXP]
    signed char nwinners
    signed char tiebreak
    signed char phase
    signed char ntodo
    signed char todo[RT_MAXTODO][4]
    # round fields
    signed char scratches[RT_MAXP]
    signed char stored[RT_MAXP][RT_NT]
    signed char lost[RT_MAXP][RT_NT]
    signed char elim[RT_MAXP]
    signed char known[RT_MAXP][RT_MAXP][RT_NT]
    signed char pile_g[RT_MAXPILE]
    signed char pile_r[RT_MAXPILE]
    signed char has_order[RT_MAXPILE]
    signed char ohead[RT_MAXPILE]
    signed char otail[RT_MAXPILE]
    signed char order[RT_MAXPILE][RT_MAXORDER]
    signed char trap_out[RT_MAXPILE]
    signed char quiet[RT_MAXP][RT_MAXPILE]   # cards drawn not revealed as a Trap (public)
    signed char used_clovers
    int round_steps           # views entries since the round began (public)
    signed char pool[RT_NT]
    signed char roles[RT_MAXP]
    signed char role_public[RT_MAXP]
    signed char role_gone[RT_MAXP]
    signed char not_fool[RT_MAXP]
    signed char nnot_fool
    signed char fool_piles[RT_MAXFOOL]
    signed char nfool
    signed char manip_piles[RT_MAXPILE]
    signed char nmanip
    signed char manip_hand[RT_NT]
    signed char ordering
    # -1; in a world of seat q's exact belief, q: another seat's Manipulator leaves its piles
    # lazy (rules.RatTrapState.observer)
    signed char observer
    signed char tr_used[RT_MAXTR]
    signed char ntr_used
    signed char round_over
    # turn fields
    signed char dice[2][2]     # [0] white, [1] black
    signed char ndice[2]
    signed char rerolled
    signed char alr_queue[RT_MAXP]
    signed char nalr
    signed char acc
    signed char acc_white
    signed char acc_black
    signed char returned[4]
    signed char nreturned
    signed char cat_targets[RT_MAXCAT]
    signed char ncat
    signed char kept_who[RT_MAXP]
    signed char kept_face[RT_MAXP]
    signed char nkept
    signed char tr_card
    # ctx of the pending node (its keys follow from the phase)
    signed char ctx_who
    signed char ctx_colour
    signed char ctx_actor
    signed char ctx_draws
    signed char ctx_pile
    signed char ctx_victim
    signed char ctx_seat
    signed char nopt
    signed char opts[RT_MAXOPT]
    # perfect recall: a digest per seat of its ``views`` log (engines/api.py), updated by
    # c_apply; each seat's view of the cards drawn from ordered piles in the last c_apply, which
    # the Python-level log appends after the action's own entry
    unsigned long long vhash[RT_MAXP]
    signed char nauto
    signed char auto_ev[RT_MAXAUTO][RT_MAXP]
    # round results last: a copy stops after the ones in use (see rt_copy)
    RTResult res[RT_MAXRES]


cdef class RatTrapState(CyState):
    cdef RTState s
    cdef const RTConst* k
    # The seat's exact belief for the compiled sampler (``_prepare_resample``): 0 not built,
    # 1 a table of ``_bn`` worlds with cumulative weights (owned by ``_bowner``), 2 the
    # closed form; for seat ``_bplayer``; reset by every apply.
    cdef signed char _bstate
    cdef int _bplayer
    cdef int _bn
    cdef const RTState* _bw
    cdef const double* _bcum
    cdef object _bowner
    cdef int _attach(self, game) except -1
    cdef void _load(self, r) except *
    cdef int _view_codes(self, int a, int* out) except -1
    cdef int _after_views(self) except -1
    cdef int _on_views(self) except -1
