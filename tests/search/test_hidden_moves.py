"""Hidden moves: ``State.rewind_hidden_moves`` and ``az``'s ``hidden_moves="policy"``.

Ratapolis' plans are committed in secret (rulebook, phase 2 "Planning actions"; RP-2: seats
commit cell by cell in seat order, revealed together in phase 3). The rules' sampler draws a
rival's committed cells uniformly among its legal plans (``_sample_plan``: the exact
posterior when nothing is assumed of how it plays). ``az`` with ``hidden_moves="policy"``
uses its network as the opponent model instead: each determinization is rewound to the first
cell the seat did not see (``rewind_hidden_moves``) and replayed, each rival cell drawn from
the network's priors at that rival's view of the world (``ratai.search.az``). Checked here:

* the rewind, on both backends and every player count: replaying the moves it undid gives
  the state back (fields, history, the seat's perfect recall); the script names the seat's
  own cells and only the rivals' hidden ones as draws; the twin rewinds as the reference; a
  state rebuilt from an observation gets its fields back (its unknown logs restart);
  outside planning and in the other games ``[]``, nothing changed;
* the law of the redrawn cells, compiled and Python: a G-test of the rival's (left, right)
  cells against the network's priors at the rewound view of each sampled world, which the
  rules' uniform draws fail (the test has power); every world keeps the seat's observation;
* the option: validated, deterministic for a seed, inert where nothing is hidden.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ratai.bots import make_bot
from ratai.bots.az import load_model
from ratai.engines import load_game, registered_games
from ratai.search.az import AZ, HIDDEN_MOVES, tempered
from tests.conftest import sample_action
from tests.engines.posterior import g_test, reference_of

ALPHA = 1e-4   # as tests/engines/test_exact_posterior.py


def _plan_position(game, seed: int, seat: int, min_round: int = 2):
    """A seeded random game played to seat ``seat``'s first planning decision of round
    ``min_round`` or later (both backends play the same actions for the same seed)."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    while not s.is_terminal():
        if s.current_player() == seat and s.phase == "plan" and s.round >= min_round:
            return s
        s.apply_action(sample_action(s, rng))
    raise AssertionError("no such decision")


def _same(a, b) -> bool:
    """Equal states of one game, either backend: every field (the views logs too) and the
    history."""
    return (reference_of(a)._fields() == reference_of(b)._fields()
            and a.history() == b.history())


def _states(game, seed: int, limit: int = 400):
    """The states of one seeded random game (at most ``limit``)."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    out = [s.clone()]
    while not s.is_terminal() and len(out) < limit:
        s.apply_action(sample_action(s, rng))
        out.append(s.clone())
    return out


# ---------------------------------------------------------------------- the rewind


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_rewind_then_replay_gives_the_state_back(n):
    """RP-2: the cells committed since the first rival cell ``p`` did not see, in seat
    order; replayed they restore the state, history and ``p``'s information state; the twin
    rewinds exactly as the reference."""
    ref_game = load_game("ratapolis", backend="python", num_players=n)
    cy_game = load_game("ratapolis", backend="cython", num_players=n)
    checked = 0
    for seed in range(2):
        for ref, cy in zip(_states(ref_game, seed), _states(cy_game, seed), strict=True):
            for p in range(n):
                r, c = ref.clone(), cy.clone()
                script = r.rewind_hidden_moves(p)
                assert c.rewind_hidden_moves(p) == script
                assert _same(c, r)
                hidden = [q for q in range(n) if q != p and ref.phase == "plan"
                          and ref.observation(p)["committed"][q]]
                if not hidden:
                    assert script == [] and _same(r, ref)
                    continue
                checked += 1
                tail = ref.history()[len(ref.history()) - len(script):]
                assert len(script) <= 2 * n
                assert r.current_player() == hidden[0] and r.phase == "plan"
                assert r.history() == ref.history()[:len(ref.history()) - len(script)]
                for st in (r, c):
                    for own, a in zip(script, tail, strict=True):
                        assert own is None or own == a
                        assert (own is None) == (st.current_player() != p)
                        st.apply_action(a)
                    assert st.history() == ref.history()
                    assert st.information_state_string(p) == ref.information_state_string(p)
                assert _same(r, ref) and _same(c, ref)
    assert checked > 20


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_rewind_of_a_state_without_its_past(backend):
    """A state rebuilt from the seat's observation has no history and unknown ``views``
    logs: the replay restores its fields; the logs restart unknown, then hold the replay."""
    game = load_game("ratapolis", backend=backend, num_players=3)
    s = _plan_position(game, 6, 2)
    t = game.state_from_observation(2, s.observation(2), rng=np.random.default_rng(0))
    cells = [a for q in range(3) for a in reference_of(t).plans[q]]
    u = t.clone()
    script = u.rewind_hidden_moves(2)
    assert script == [None] * len(cells) and len(cells) == 4
    for a in cells:
        u.apply_action(a)
    assert reference_of(u)._fields() | {"views": None} == \
        reference_of(t)._fields() | {"views": None}
    log = (u.to_reference() if backend == "cython" else u).views[2]
    assert log[0] is None and len(log) == 1 + len(cells)


@pytest.mark.parametrize("name", sorted(registered_games()))
@pytest.mark.parametrize("backend", ["python", "cython"])
def test_no_hidden_moves_nothing_rewound(name, backend):
    """Outside Ratapolis' planning (and in games whose ``hidden_moves`` is false) there is
    nothing to rewind: ``[]`` and the state unchanged; a bad seat is a ValueError."""
    game = load_game(name, backend=backend)
    n = game.num_players()
    states = _states(game, 3, limit=150)
    for s in states[::7]:
        for p in range(n):
            t = s.clone()
            script = t.rewind_hidden_moves(p)
            if not game.hidden_moves:
                assert script == []
            if not script:
                assert _same(t, s)
    with pytest.raises(ValueError, match="player"):
        states[0].clone().rewind_hidden_moves(n)


# ---------------------------------------------------------------------- the law


class _Priors:
    """The network's priors (temperature 1) at seat ``q``'s view, ``{action: prior}``,
    cached by what they depend on (``q``, its observation tensor, its legal moves)."""

    def __init__(self, model):
        self.model, self.cache = model, {}

    def __call__(self, st, q: int) -> dict:
        legal = st.legal_actions()
        key = (q, st.observation_tensor(q).tobytes(), tuple(legal))
        if key not in self.cache:
            _, pr = self.model.evaluate(st, q, legal)
            self.cache[key] = dict(zip(legal, tempered(pr, 1.0).tolist(), strict=True))
        return self.cache[key]


def _cell_laws(world, me: int, priors: _Priors) -> tuple[int, dict, int, dict]:
    """The first hidden rival's cells drawn in ``world`` and the law each was drawn from
    under ``hidden_moves="policy"``: ``(left, its law, right, the right's law given that
    left)``, each law the network's priors at the rival's rewound view."""
    r = world.clone()
    script = r.rewind_hidden_moves(me)
    assert script[:2] == [None, None]
    q = r.current_player()
    left, right = reference_of(world).plans[q]
    law_left = priors(r, q)
    r.apply_action(left)
    return left, law_left, right, priors(r, q)


@pytest.mark.parametrize("backend,samples", [("cython", 10_000), ("python", 1_000)])
def test_policy_draws_follow_the_network(backend, samples):
    """The rival's redrawn cells follow the network's priors at its view of each world
    (G-tests of the left cells against the mean of their laws, and of the right cells
    against the mean of their laws given the drawn left); the rules' uniform draws fail
    them; every world keeps the seat's observation (its own cells, the committed counts)."""
    game = load_game("ratapolis", backend=backend, num_players=3)
    me = 2
    state = _plan_position(game, 11, me)
    model = load_model(None, game)
    priors = _Priors(model)
    obs = state.observation(me)
    pvals = {}
    for mode in HIDDEN_MOVES:
        if backend == "cython":
            from ratai._speedups import search as cy
            search = cy.CyAZ(me, model, merge=True, hidden_moves=mode)
        else:
            search = AZ(game, me, model, hidden_moves=mode)
        worlds = search.determinizations(state, samples, seed=5)
        if mode == "policy":
            assert search.hidden_draws == 4 * samples   # seats 0 and 1, two cells each
            assert 0 < search.hidden_evaluations < search.hidden_draws
        got = [Counter(), Counter()]
        exp = [Counter(), Counter()]
        for w in worlds:
            assert w.observation(me) == obs
            left, law_left, right, law_right = _cell_laws(w, me, priors)
            for i, (cell, law) in enumerate(((left, law_left), (right, law_right))):
                got[i][cell] += 1
                for a, pr in law.items():
                    exp[i][a] += pr / samples
        pvals[mode] = [g_test(exp[i], got[i])[1] for i in range(2)]
    assert min(pvals["policy"]) >= ALPHA, pvals
    assert pvals["uniform"][0] < ALPHA, pvals


# ---------------------------------------------------------------------- the option


def test_option_is_checked():
    """A bad value is a ValueError naming the option and its values, in the bot and the
    compiled search; the service offers the option with the same values."""
    from ratai._speedups import search as cy
    from ratai.service.catalog import check_option
    from ratai.service.errors import InvalidArgument

    game = load_game("ratapolis", num_players=3)
    for bad in ("Policy", 1, None):
        with pytest.raises(ValueError, match="hidden_moves.*'uniform', 'policy'"):
            make_bot("az", game, 0, iterations=10, hidden_moves=bad)
    with pytest.raises(ValueError, match="hidden_moves"):
        cy.CyAZ(0, load_model(None, game), hidden_moves="nope")
    state = _plan_position(load_game("ratapolis", backend="cython", num_players=3), 4, 1)
    bot = make_bot("az", state.get_game(), 1, iterations=20, hidden_moves=np.str_("policy"),
                   chance_key=np.str_("infostate"))   # str subclasses reach the compiled search
    assert bot.analyze(state).iterations == 20
    for mode in HIDDEN_MOVES:
        assert check_option("az", "hidden_moves", mode) == mode
    with pytest.raises(InvalidArgument, match="bot.options.hidden_moves"):
        check_option("az", "hidden_moves", "nope")


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_seeded_and_inert_without_hidden_moves(backend):
    """Same seed and information state, same answer (two threads too); in a game where
    nothing is hidden (Rats to Riches) ``"policy"`` searches exactly as ``"uniform"``."""
    its = 300 if backend == "cython" else 60
    game = load_game("ratapolis", backend=backend, num_players=3)
    state = _plan_position(game, 4, 1)
    answers = [make_bot("az", game, 1, iterations=its, seed=9,
                        hidden_moves="policy").analyze(state) for _ in range(2)]
    assert answers[0].moves == answers[1].moves
    if backend == "cython":   # root-parallel: each thread its own cache and stream
        two = [make_bot("az", game, 1, iterations=its, seed=9, threads=2,
                        hidden_moves="policy").analyze(state) for _ in range(2)]
        assert two[0].moves == two[1].moves
    other = load_game("rats_to_riches", backend=backend, num_players=3)
    s = _states(other, 2, limit=30)[-1]
    p = s.current_player()
    assert p >= 0
    a, b = (make_bot("az", other, p, iterations=its, seed=9, hidden_moves=h).analyze(s)
            for h in HIDDEN_MOVES)
    assert a.moves == b.moves
