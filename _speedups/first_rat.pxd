# cython: language_level=3
"""C layout of the First Rat twin (see first_rat.pyx). Every field mirrors one field of the
reference ``engines/first_rat/rules.py`` ``FirstRatState``: lists are fixed arrays plus a
length (their order kept, e.g. the display in draw order during setup), ids are indices
(items in ``FirstRatGame.items`` order, tracks in ``data.TRACKS`` order, burrow nodes in
``data.burrow_edges`` order, colours in ``data.COLOURS`` order), ``None`` is -1 (-2 for an
empty score-track space, whose owner -1 is the neutral marker)."""

from .core cimport CyObsNum, CyState

cdef enum:
    FR_MAXP = 5          # seats
    FR_MAXO = 5          # score-marker owners (seats, or seat 0 + Greg)
    FR_RATS = 4          # rats per team (RULEBOOK, checked at import)
    FR_NT = 8            # score tracks
    FR_NV = 5            # track spaces (RULEBOOK, checked at import)
    FR_MAXL = 48         # launchpad + 1
    FR_MAXLAST = 80      # markers on a track's unlimited 5th space
    FR_MAXITEMS = 64
    FR_MAXKIND = 16      # backpacks / bottle caps / comics of one kind
    FR_MAXSUP = 8        # Super Rat comics
    FR_MAXCARDS = 40
    FR_MAXSETS = 16
    FR_MAXSETUP = 96
    FR_MAXNODES = 24
    FR_MAXDIRS = 4
    FR_MAXR = 64         # routes from one space (route indices fit a 64-bit mask)
    FR_MAXSTEPS = 16     # most steps of one move (g.max_steps, checked per data file)
    FR_MAXMASK = 64
    FR_MAXGT = 8         # Greg's tracks
    FR_MAXLEG = 2048     # legal decisions at one node (checked per data file)
    FR_NQ = 23           # quantities an effect may modify (data.QUANTITIES, checked)
    FR_NCOUNT = 20       # things a scoring effect may count (data.COUNTS, checked)
    FR_MAXEFF = 8        # effects of one kind on one component
    FR_MAXLIGHT = 33     # light-string positions + 1
    FR_QOPEN = 1073741824  # an open modifier bound (+-)


ctypedef struct MatCost:
    # a cost in materials as a sparse list: the ``nz`` materials it costs (``data.MATERIALS``
    # indices) and their amounts
    int nz
    int mat[4]
    int amt[4]


ctypedef struct FRConst:
    int n, solo, greg, n_owners, table_n, L, n_colours, n_masks, n_dest, move_size
    int STOP_B, AWARD, RAISE, DRINK_USE, DRINK_SKIP, NURSERY_RAISE, NURSERY_DECLINE
    int LIBRARY_DECLINE, SHOP_PASS, DONATE, END_TURN
    int BURROW, n_dirs, LIBRARY, SUPER, BUY, STEAL, BUILD, GREG_BEST
    int CH_TILE, CH_SET, CH_ITEM, CH_CARD, num_actions
    int n_items, n_bp, drink_item, n_caps, first_cap, first_comic, n_comics, n_shop_items
    signed char item_kind[FR_MAXITEMS]      # 0 backpack, 1 energy drink, 2 cap, 3 comic
    signed char item_rank[FR_MAXITEMS]      # rank of the id string (the reference sorts ids)
    signed char bp_colour[FR_MAXITEMS]
    signed char bp_bonus[FR_MAXITEMS]
    signed char bp_sig[FR_MAXITEMS]         # equal (colour, bonus) -> equal signature
    signed char comic_super[FR_MAXITEMS]
    # effects compiled from the data (data.item_effects): modifier summaries per quantity
    # (add, at_least, at_most; bounds FR_QOPEN when open) and end-of-game scoring effects
    int q_base[FR_NQ]
    unsigned int item_qmask[FR_MAXITEMS]        # bit q: the item modifies quantity q
    unsigned int comic_qmask, cap_qmask         # unions over the comics / bottle caps
    int item_add[FR_MAXITEMS][FR_NQ]
    int item_lo[FR_MAXITEMS][FR_NQ]
    int item_hi[FR_MAXITEMS][FR_NQ]
    signed char n_score[FR_MAXITEMS]
    signed char sc_count[FR_MAXITEMS][FR_MAXEFF]   # data.COUNTS index, -1 a fixed amount
    int sc_times[FR_MAXITEMS][FR_MAXEFF]
    int sc_divide[FR_MAXITEMS][FR_MAXEFF]
    int sc_plus[FR_MAXITEMS][FR_MAXEFF]
    int sc_max[FR_MAXITEMS][FR_MAXEFF]             # -1 none
    signed char sc_ccount[FR_MAXITEMS][FR_MAXEFF]  # condition's count, -1 no condition
    signed char sc_cmp[FR_MAXITEMS][FR_MAXEFF]     # effects.COMPARISONS index
    int sc_cvalue[FR_MAXITEMS][FR_MAXEFF]
    int mask_cost[FR_MAXMASK][4]
    MatCost mask_sparse[FR_MAXMASK]   # the same costs as sparse lists (``affordable``)
    signed char mask_any[FR_MAXMASK]
    int max_steps
    int nroutes[FR_MAXL]
    signed char route_dest[FR_MAXL][FR_MAXR]   # sorted by (mask, dest): ids come out sorted
    signed char route_mask[FR_MAXL][FR_MAXR]
    signed char route_steps[FR_MAXL][FR_MAXR]
    # per origin and step budget (0..max_steps), as bits: the indices of the routes of at
    # most that many steps using a shortcut (mask != 0; ascending index = the (mask, dest)
    # order), and the destinations of all those routes / of those without a shortcut
    unsigned long long sc_route_bits[FR_MAXL][FR_MAXSTEPS + 1]
    unsigned long long all_dests[FR_MAXL][FR_MAXSTEPS + 1]
    unsigned long long free_dests[FR_MAXL][FR_MAXSTEPS + 1]
    int route_code[FR_MAXL][FR_MAXR]         # mask * n_dest + the destination's code (colour 0)
    signed char lp_index[8]                  # colour -> first Launchpad colour index, -1 none
    signed char tile_colour[FR_MAXL]
    signed char tile_kind[FR_MAXL]
    int tile_amount[FR_MAXL]
    signed char booth[FR_MAXL]               # item kind sold there, or -1
    signed char lp_colour[8]
    int light_length, lit_bonus
    signed char lit[FR_MAXLIGHT][FR_MAXL]        # marker position -> path space lit (FR-5)
    signed char n_lrw[FR_MAXLIGHT]               # reward effects on reaching a position
    signed char lrw_op[FR_MAXLIGHT][FR_MAXEFF]   # RO_* codes
    signed char lrw_arg[FR_MAXLIGHT][FR_MAXEFF]
    int lrw_amt[FR_MAXLIGHT][FR_MAXEFF]
    int n_nodes, burrow_start
    int nedges[FR_MAXNODES]
    signed char edge[FR_MAXNODES][FR_MAXDIRS]
    signed char choice[FR_MAXNODES][FR_MAXDIRS]  # direction -> node, -1 none
    signed char reward[FR_MAXNODES]              # its choice: 0 none, 2 nursery, 3 library
    signed char n_rw[FR_MAXNODES]                # automatic reward effects (RO_* codes)
    signed char rw_op[FR_MAXNODES][FR_MAXEFF]
    signed char rw_arg[FR_MAXNODES][FR_MAXEFF]
    int rw_amt[FR_MAXNODES][FR_MAXEFF]
    int track_values0[FR_NT][FR_NV]
    int n_neutral
    int neutral[4]
    int n_vsets
    int vsets[FR_MAXSETS][FR_NV]
    int part_cost[3][4]
    MatCost part_sparse[3]
    int provisions_cost
    int price[3]
    int start_cheese[FR_MAXP]
    int supply0[6]
    int nsetup
    signed char setup_kind[FR_MAXSETUP]      # 0 tile, 1 set, 2 backpack, 3 bottle_cap, 4 comic
    signed char setup_arg[FR_MAXSETUP]
    signed char slot_group[FR_MAXL]
    int ngroup[8]
    signed char group_slots[8][FR_MAXL]
    int variable, first_game
    int n_lib0
    signed char lib0[FR_MAXKIND]
    int disp_drinks0
    int n_cards
    signed char card_group[FR_MAXCARDS]      # 0 A, 1 B, 2 C
    signed char card_moves[FR_MAXCARDS][FR_RATS]
    signed char card_icon[FR_MAXCARDS]       # 0 none, 1 prepare:track, 2 remove_comic, 3 best
    signed char card_track[FR_MAXCARDS]
    signed char greg_start[FR_RATS]
    int n_gtracks
    signed char gtracks[FR_MAXGT]
    int greg_choose
    int deal[2]
    signed char track_rank[FR_NT]
    # RULEBOOK numbers
    int option_a_max, option_b_min_rats, option_b_max_rats, option_b_max, landing_fee
    int moldy_value, moldy_penalty, award_points, max_nursery_raises, score_markers
    int end_trigger_markers, leftover_per_point, drink_multiplier, rats_on_start


ctypedef struct MoveCtx:
    # the quantities of one seat's movement (they change only when its comics, bottle caps
    # or Super Rats do, never during a movement): kept per seat (``FRState.mctx``)
    int sc_mult, sh, base_a, base_b, fee
    int steps[FR_RATS]
    bint cham[FR_RATS]
    # the path spaces its blocking rats hold, and those two of them hold (``path_rats``;
    # they change when its rats move: ``rats_moved`` recomputes them)
    unsigned long long held, twice


ctypedef struct FRState:
    int round
    int seat
    int end_round
    int cheese_issued
    int disp_drinks
    int launch_pending
    int burrow_steps
    int supply[6]
    int greg_unknown[2]
    int cheese[FR_MAXP]
    int moldy[FR_MAXP]
    int awards[FR_MAXP]
    int drinks[FR_MAXP]
    int light[FR_MAXP]
    int lights_scored[FR_MAXP]
    int raised[FR_MAXP]
    int rocket_sets[FR_MAXP]
    int markers[FR_MAXO]
    int mats[FR_MAXP][4]
    int built[FR_MAXP][3]
    int track_values[FR_NT][FR_NV]
    signed char phase
    signed char step
    signed char greg_step
    signed char option
    signed char b_colour
    signed char drink_used
    signed char setup_pos
    signed char nsets
    signed char nlib
    signed char ndisp_bp
    signed char ndisp_caps
    signed char nmoved
    signed char npend
    signed char nshops
    signed char nknown
    signed char nseen
    signed char ndiscard
    signed char nprep
    signed char greg_card
    signed char nbooths
    signed char greg_rats[FR_RATS]
    signed char moved[FR_RATS]
    signed char shops[FR_RATS]
    signed char greg_booths[FR_RATS]
    signed char pending[FR_MAXSUP]
    signed char greg_prepared[FR_MAXGT]
    signed char rats[FR_MAXP][FR_RATS]
    signed char burrow[FR_MAXP]
    signed char nbp[FR_MAXP]
    signed char ncaps[FR_MAXP]
    signed char ncomics[FR_MAXP]
    signed char nsup[FR_MAXP]
    signed char sup_c[FR_MAXP][FR_MAXSUP]
    signed char sup_r[FR_MAXP][FR_MAXSUP]
    signed char bp[FR_MAXP][FR_MAXKIND]
    signed char caps[FR_MAXP][FR_MAXKIND]
    signed char comics[FR_MAXP][FR_MAXKIND]
    signed char sets_used[FR_MAXSETS]
    signed char library[FR_MAXKIND]
    signed char disp_bp[FR_MAXKIND]
    signed char disp_caps[FR_MAXKIND]
    signed char greg_known[FR_MAXCARDS]
    signed char greg_seen[FR_MAXCARDS]
    signed char greg_discard[FR_MAXCARDS]
    signed char tiles[FR_MAXL]
    signed char slots[FR_NT][FR_NV - 1]
    unsigned char nlast[FR_NT]
    signed char last[FR_NT][FR_MAXLAST]
    # a cache, not a field of the game: each seat's MoveCtx, valid for seat p while bit p of
    # ``mctx_ok`` is set (set by ``seat_ctx``; cleared by ``items_changed`` when the seat's
    # comics, bottle caps or Super Rats change, or a rat leaves its Nursery; its held spaces
    # refreshed by ``rats_moved`` when its rats move); a state loaded from fields starts
    # without any
    unsigned char mctx_ok
    MoveCtx mctx[FR_MAXP]
    # derived from ``tiles`` (fixed once the setup has dealt them): the path spaces 1..L-1 of
    # each colour, as bits (``set_colour_bits``, called wherever ``tiles`` is written)
    unsigned long long cbits[8]


# Where each struct field goes in ``observation_tensor(player)`` (first_rat.pyx's
# ``_obs_tables``, from the game's tensor layout): one-hot cells per code, numeric leaves
# (CyObsNum), multiset cells per value (item tables indexed by item id, -1 not a value) with
# their increment, and bounded lists' length slots with their divisor.
ctypedef struct FRObs:
    int size                 # the tensor's length (0 not built, -1 failed)
    int phase[16]
    int step[16]
    int greg_step[8]
    CyObsNum round, seat, end_round, disp_drinks, cheese_issued, launch_pending
    CyObsNum drink_used, burrow_steps, greg_points
    int end_round_flag
    CyObsNum tiles[FR_MAXL]
    CyObsNum track_values[FR_NT][FR_NV]
    int sets_used[FR_MAXSETS]
    int library[FR_MAXITEMS]
    int disp_bp[FR_MAXITEMS]
    int disp_caps[FR_MAXITEMS]
    float sets_inc, library_inc, disp_bp_inc, disp_caps_inc
    int slot_flag[FR_NT][FR_NV - 1]
    CyObsNum slot[FR_NT][FR_NV - 1]
    int last_shown
    CyObsNum last[FR_NT][FR_MAXO]
    int last_len[FR_NT]
    int last_div
    CyObsNum rats[FR_MAXP][FR_RATS]
    CyObsNum cheese[FR_MAXP]
    CyObsNum moldy[FR_MAXP]
    CyObsNum awards[FR_MAXP]
    CyObsNum drinks[FR_MAXP]
    CyObsNum light[FR_MAXP]
    CyObsNum lights_scored[FR_MAXP]
    CyObsNum raised[FR_MAXP]
    CyObsNum rocket_sets[FR_MAXP]
    CyObsNum scores[FR_MAXP]
    CyObsNum markers[FR_MAXO]
    int burrow[FR_MAXP][FR_MAXNODES]
    CyObsNum mats[FR_MAXP][4]
    CyObsNum built[FR_MAXP][3]
    int bp[FR_MAXP][FR_MAXITEMS]
    int caps[FR_MAXP][FR_MAXITEMS]
    int comics[FR_MAXP][FR_MAXITEMS]
    float bp_inc, caps_inc, comics_inc
    int sup_flag[FR_MAXP][FR_MAXITEMS]
    CyObsNum sup[FR_MAXP][FR_MAXITEMS]
    CyObsNum supply[6]
    int moved[FR_RATS]
    int shops[FR_RATS]
    float moved_inc, shops_inc
    int option_flag, b_colour_flag
    int option[2]
    int b_colour[8]
    int pending[FR_MAXITEMS]
    float pending_inc
    CyObsNum greg_rats[FR_RATS]
    int greg_rats_len, greg_rats_div
    int gu_flag[2]
    CyObsNum gu[2]
    int known[FR_MAXCARDS]
    int seen[FR_MAXCARDS]
    int discard[FR_MAXCARDS]
    float known_inc, seen_inc, discard_inc
    int prepared[FR_NT]
    float prepared_inc
    int greg_card_flag
    int greg_card[FR_MAXCARDS]
    CyObsNum greg_booths[FR_RATS]
    int booths_len, booths_div


cdef class FirstRatState(CyState):
    cdef FRState s
    cdef const FRConst* k
    # The game's tensor tables (its _Consts): built on first use, with the GIL (ob.size 0
    # until then; -1 when they cannot be built, and the twin then has no compiled writer).
    cdef FRObs* ob
    cdef bint _obs_ready(self) noexcept nogil
    cdef int _attach(self, game) except -1
    cdef void _load(self, r) except *
