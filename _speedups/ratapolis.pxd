# cython: language_level=3
"""C layout of the Ratapolis twin (see ratapolis.pyx). Every field mirrors one field of the
reference ``engines/ratapolis/rules.py`` ``RatapolisState``; sorted card lists (``stack``,
``discard``) are bit masks over building ids, and the property-token dict is one entry per
building (``RP_ABSENT`` when its token is not in play)."""

from .core cimport CyState

cdef enum:
    RP_MAXB = 26       # buildings (one capital letter each; bit masks are 32-bit)
    RP_MAXP = 5        # seats (the data's max_players, at most len(COLOURS))
    RP_MAXR = 10       # rounds
    RP_MAXFU = 8       # face-up hunt cards in one round
    RP_MAXPROP = 16    # property buildings (10 kinds, see data.PROPERTY_BY_NAME)
    RP_MAXACT = 2048   # num_distinct_actions
    RP_ABSENT = -2     # tok[b]: building b's token is not in the ``tokens`` dict
    RP_MAXEV = 12      # scenario event cards (RP-9)


ctypedef unsigned int rp_mask


ctypedef struct RPConst:
    int n, P, nb, rounds, resh, cards_early, cards_late, rats, cheese_tokens
    int MOVE, C, CARD, LOOK, PASS, HOTEL, MARKET, RADIO, HOSPITAL, PLAN, num_actions
    int capacity[RP_MAXB]
    int cheese_per_rat[RP_MAXB]
    rp_mask neigh[RP_MAXB]
    rp_mask city                      # buildings in the layout
    # building of each property kind in the city, -1 if absent
    int b_market, b_archive, b_shooting, b_hotel, b_radio, b_metro, b_fire, b_bus
    int b_cheese, b_hospital
    # setup: fixed tokens (nfixed >= 0) or a random draw of tokens_to_draw from prop
    int nfixed
    signed char fixed[RP_MAXPROP]
    int nprop
    signed char prop[RP_MAXPROP]
    int tokens_to_draw
    # RP-9 scenario events: ev_random (cards revealed from round ev_first) or ev_fixed[r]
    # (an effect per round when has_fixed); ev_eff[card][side] the effect of a card's side
    int EVENT, nevc, ev_random, has_fixed, ev_first
    signed char ev_fixed[RP_MAXR]
    signed char ev_eff[RP_MAXEV][2]
    # the compiled tensor writer's offsets (``RPObs`` in ratapolis.pyx), built from the
    # game's tensor layout at its first state; NULL when the layout is not the writer's
    const void* obs


ctypedef struct RPState:
    signed char round             # 1-based
    signed char phase
    signed char cheese_bank
    signed char tokens_left
    signed char nremoved
    signed char ntg
    signed char ntp
    signed char nlooks
    signed char nplog
    signed char has_hotel
    signed char drawn
    signed char radio_used
    rp_mask gone                  # removed buildings
    rp_mask stack
    rp_mask discard
    signed char board[RP_MAXB][RP_MAXP]
    signed char supply[RP_MAXP]
    signed char cheese[RP_MAXP]
    signed char tok[RP_MAXB]      # token holder: seat, -1 on its tile, RP_ABSENT
    signed char removed[RP_MAXR]  # hunted buildings in order (one a round)
    signed char tg[RP_MAXR]       # tokens_gone, in order (at most one a round)
    signed char tp[RP_MAXPROP]    # token_pool, in order
    signed char hands[RP_MAXR][RP_MAXP]
    signed char nfu[RP_MAXR]
    signed char fu[RP_MAXR][RP_MAXFU]
    signed char hunted[RP_MAXR]
    signed char radio_disc[RP_MAXR]  # at most one per round (radio_used), -1 none
    signed char looks[RP_MAXR][3]   # [round, viewer, target]; one Archive phase a round
    signed char nplans[RP_MAXP]
    short plans[RP_MAXP][2]
    signed char hotel[3]          # [from, to, cell] when has_hotel
    # RP-9: effects of the rounds begun so far, their revealed event card / side (-1: none)
    # and the event cards still face down
    signed char nev
    signed char events[RP_MAXR]
    signed char ev_card[RP_MAXR]
    signed char ev_side[RP_MAXR]
    rp_mask ev_deck
    unsigned short reshuf         # bit r: the discards were reshuffled at round r's start
    # revealed plans last: a copy stops after the rounds in use (see rp_copy)
    short plog[RP_MAXR][RP_MAXP][2]


cdef class RatapolisState(CyState):
    cdef RPState s
    cdef const RPConst* k
    cdef int _attach(self, game) except -1
    cdef void _load(self, r) except *
    cdef int _view_codes(self, int a, int* out) except -1
