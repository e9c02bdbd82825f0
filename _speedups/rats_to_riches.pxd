# cython: language_level=3
"""C layout of the Rats to Riches twin (see rats_to_riches.pyx). Every field mirrors one field
of the reference ``engines/rats_to_riches/rules.py`` ``RatsToRichesState``; ``None`` is -1,
lists are arrays with a count, the ``pending`` frames are fixed-size records."""

from .core cimport CyObsNum, CyState

cdef enum:
    RR_MAXP = 5          # seats
    RR_MAXT = 48         # card ids: the Rat Pack types plus the Flush card (id T)
    RR_MAXS = 8          # Open Sewer slots
    RR_MAXSEG = 4        # Rat Pack segments (the reference never has more than 2)
    RR_MAXPEND = 8       # pending sub-decisions (at most one per seat, Sewer Flood)
    RR_MAXCOMBO = 300    # cheese multisets (sizes 0..10)
    RR_MAXACT = 2048     # action ids (Layout.size)
    RR_MAXSTEP = 256     # compiled effect steps (program.Compiled.steps)
    RR_MAXPROG = 32      # use programs with an action block (program.Compiled.programs)
    RR_NCOL = 6          # card colours (data.CARD_COLOURS)


ctypedef struct RRFrame:
    signed char kind     # 0 sell, 1 pick, 2 flood (rules._FRAME_KINDS)
    signed char player
    signed char last     # a card id, -1 (None), or a colour id (flood)
    signed char colour   # pick: card colour filter, -1 any card (Flush too)
    signed char cost     # pick: the card cannot be used without these cards (a bundle)
    signed char card     # pick: the card whose effect opened it; else -1
    signed char has_then # the rest of a run continues when the frame closes ("then")
    int amount           # sell: "pipes"; pick / flood: "left"
    int then_step, then_end, then_user, then_target, then_choice, then_card


ctypedef struct RRStep:
    # one compiled effect (program.Step, same fields and codes)
    int op, res, who, plus, cnt_of, cnt_whose, cnt_colour, times, divide, max
    int cond_of, cond_whose, cond_colour, cmp, value, up_to, whose, colour, to


ctypedef struct RRProg:
    # a use program with an action block (program.Program)
    int shape, any_target, amount, colour, base, width, size, ntypes
    int types[RR_MAXT]


ctypedef struct RRConst:
    int n, T, S, NC, size, max_turn_actions
    # action bases (rules.Layout)
    int COMBO, BUY, FLUSH, END_STEP2, USE, SELL, SELL_NOW, PICK, COLOUR, REVEAL, BACK
    int combo[RR_MAXCOMBO][3]
    int combo_sum[RR_MAXCOMBO]
    # data
    int win_cash, start_cash, start_cheese, flush_income, big_cheese_income
    int cheese_price, cheese_per_turn, max_rounds
    # per card id (the Flush card is id T)
    int cost_cheese[RR_MAXT][3]
    int cost_cash[RR_MAXT]
    int pipes[RR_MAXT]
    signed char card_colour[RR_MAXT]   # data.CARD_COLOURS id (types only)
    signed char is_event[RR_MAXT]
    signed char back[RR_MAXT]          # RR-9: data.BACKS id per card id (Flush: 2)
    int ncol[RR_NCOL]
    int col_ids[RR_NCOL][RR_MAXT]
    # the compiled effects (program.Compiled)
    int nsteps
    RRStep steps[RR_MAXSTEP]
    int use_a[RR_MAXT]
    int use_b[RR_MAXT]
    int rev_a[RR_MAXT]
    int rev_b[RR_MAXT]
    int inc_a[RR_MAXT]
    int inc_b[RR_MAXT]
    signed char plain[RR_MAXT]
    int nprog
    RRProg progs[RR_MAXPROG]
    int limit_add[RR_MAXT]
    int limit_at_least[RR_MAXT]
    int limit_at_most[RR_MAXT]
    int pipes_add[RR_MAXT]
    int pipes_cmp[RR_MAXT]
    int pipes_value[RR_MAXT]
    int redirect[RR_MAXT]
    # the initial Rat Pack
    int nseg0
    signed char deck0[RR_MAXSEG]
    unsigned char counts0[RR_MAXSEG][RR_MAXT]
    int flush_count


ctypedef struct RRState:
    signed char phase          # rules._PHASES order
    signed char active
    signed char golden         # -1: None
    signed char reshuffled
    signed char top_back       # RR-9: data.BACKS id of the top Rat Pack card, -1: None
    signed char nseg
    signed char nrefill
    signed char npend
    signed char nwinners
    int round
    int turn_actions
    int box
    int cash[RR_MAXP]
    int cheese[RR_MAXP][3]
    unsigned char flush[RR_MAXP]
    signed char sewer[RR_MAXS]
    signed char refill[RR_MAXS]
    signed char winners[RR_MAXP]
    signed char deck[RR_MAXSEG]      # deck name ids (RatsToRichesGame twin: _DECKS)
    int seg_total[RR_MAXSEG]         # sum of each segment's counts (cached)
    RRFrame pending[RR_MAXPEND]
    unsigned char cesspit[RR_MAXT]
    unsigned char pack[RR_MAXSEG][RR_MAXT]
    unsigned char tableau[RR_MAXP][RR_MAXT]


# Where each struct field goes in ``observation_tensor(player)`` (rats_to_riches.pyx's
# ``_obs_tables``, from the game's tensor layout).
ctypedef struct RRCounts:
    # a ``{card key: copies}`` mapping: per card id its "present" flag (-1: not a key) and
    # its count
    int flag[RR_MAXT]
    CyObsNum num[RR_MAXT]


ctypedef struct RRObs:
    int size                 # the tensor's length (0 not built, -1 failed)
    int player[RR_MAXP]
    int phase[8]
    int active[RR_MAXP]
    CyObsNum round, box, turn_actions, reshuffled
    CyObsNum cash[RR_MAXP]
    CyObsNum cheese[RR_MAXP][3]
    CyObsNum flush[RR_MAXP]
    RRCounts tableau[RR_MAXP]
    int golden_flag
    int golden[RR_MAXP]
    int sewer_flag[RR_MAXS]
    int sewer[RR_MAXS][RR_MAXT]
    int pack_shown                         # segments in the tensor
    int pack_deck[RR_MAXSEG][RR_MAXSEG]    # segment, deck id -> its one-hot cell
    RRCounts pack[RR_MAXSEG]
    int pack_len, pack_div
    int top_back_flag
    int top_back[4]
    RRCounts cesspit
    CyObsNum refill[RR_MAXS]
    int refill_len, refill_div
    int pend_shown                         # pending frames in the tensor
    int pend_kind[RR_MAXPEND][4]
    int pend_player[RR_MAXPEND][RR_MAXP]
    int pend_len, pend_div
    int winners[RR_MAXP][RR_MAXP]
    int win_len, win_div


cdef class RatsToRichesState(CyState):
    cdef RRState s
    cdef const RRConst* k
    # The game's tensor tables (its _Consts): built on first use, with the GIL (ob.size 0
    # until then; -1 when they cannot be built, and the twin then has no compiled writer).
    cdef RRObs* ob
    cdef bint _obs_ready(self) noexcept nogil
    cdef int _attach(self, game) except -1
    cdef void _load(self, r) except *
