# cython: language_level=3
"""C layout of the Rats to Riches twin (see rats_to_riches.pyx). Every field mirrors one field
of the reference ``engines/rats_to_riches/rules.py`` ``RatsToRichesState``; ``None`` is -1,
lists are arrays with a count, the ``pending`` frames are fixed-size records."""

from .core cimport CyState

cdef enum:
    RR_MAXP = 5          # seats
    RR_MAXT = 48         # card ids: the Rat Pack types plus the Flush card (id T)
    RR_MAXS = 8          # Open Sewer slots
    RR_MAXSEG = 4        # Rat Pack segments (the reference never has more than 2)
    RR_MAXPEND = 8       # pending sub-decisions (at most one per seat, Sewer Flood)
    RR_MAXCOMBO = 300    # cheese multisets (sizes 0..10)
    RR_MAXACT = 2048     # action ids (Layout.size)
    RR_NKIND = 8         # active-card kinds (data.ACTION_AMOUNTS)
    RR_NCOL = 6          # card colours (data.CARD_COLOURS)


ctypedef struct RRFrame:
    signed char kind     # 0 sell, 1 bundle, 2 discard, 3 flood (rules._FRAME_KINDS)
    signed char player
    signed char last     # a card id, -1 (None), or a colour id (flood)
    int amount           # sell: "pipes"; discard / flood: "left"; bundle: unused (0)
    int need[3]          # bundle: cards still needed per colour; else zeros


ctypedef struct RRConst:
    int n, T, S, NC, NS, size, max_turn_actions
    # action bases (rules.Layout)
    int COMBO, BUY, FLUSH, END_STEP2, USE, PICKPOCKET, MUTUAL, SNATCH, CHEESE_RUN
    int SABOTAGE, TAKEOVER, SELL, SELL_NOW, PICK, COLOUR, REVEAL
    int combo[RR_MAXCOMBO][3]
    int combo_sum[RR_MAXCOMBO]
    # data
    int win_cash, start_cash, start_cheese, flush_income, big_cheese_income
    int cheese_price, cheese_per_turn, bundle_payout, max_rounds
    int snatch_cheese, pickpocket_cash, cheese_run_cheese, shared_all, shared_self
    int mutual_cards, baron_limit, pipe_extra
    int ev_free_cash, ev_underdog_cash, ev_tax_threshold, ev_tax_cash, ev_famine
    int ev_flood_divisor
    # per card id (the Flush card is id T)
    int cost_cheese[RR_MAXT][3]
    int cost_cash[RR_MAXT]
    int income[RR_MAXT]
    int pipes[RR_MAXT]
    signed char action[RR_MAXT]     # kind id (K_*) or -1
    signed char career[RR_MAXT]     # career id (0..2 colour, 3 baron, 4 pipe dream) or -1
    signed char event[RR_MAXT]      # event id (E_*) or -1
    signed char plain[RR_MAXT]      # action in rules.PLAIN
    signed char is_bundle[RR_MAXT]
    int bundle[RR_MAXT][3]
    signed char cheese_colour[RR_MAXT]  # 0..2 for green/blue/red cards, else -1
    int ncol[RR_NCOL]
    int col_ids[RR_NCOL][RR_MAXT]
    int nkind[RR_NKIND]
    int kind_ids[RR_NKIND][RR_MAXT]
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


cdef class RatsToRichesState(CyState):
    cdef RRState s
    cdef const RRConst* k
    cdef int _attach(self, game) except -1
    cdef void _load(self, r) except *
