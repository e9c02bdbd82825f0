"""Exact posteriors over hidden worlds by brute force, for testing determinization samplers.

The belief a seat ``p`` should hold at a position is the distribution of the full state over
the histories it cannot tell from the true one. ``exact_posterior`` computes it from the rules
alone: it walks every history of the target's length from the initial state, keeps a history
only while ``information_state_string(p)`` equals the target's after every step (the infostate
is perfect recall, so this is the seat's whole observation sequence), and weights it by the
product of its chance probabilities. Decisions the seat sees carry weight 1 (the posterior
assumes nothing about how other seats choose, as in OpenSpiel's policy-free resampling: a
decision only filters the worlds where it was legal, e.g. another seat's Lucky Clover use
keeps the worlds where it held one, each with weight 1 however many it held; this is the
definition every sampler documents, ``engines/api.py``); a
decision the seat cannot see (another seat's hidden choice: every legal action leaves the same
information state) is weighted by ``hidden_weight(state, action)``, by default 1 as well (each
consistent history counts once; a game whose sampler documents another prior for such choices,
e.g. Rat Trap's "the Manipulator's order is a uniform shuffle", passes it). Histories reaching the
same state are merged step by step (dynamic programming), so the cost is the number of
distinct states per step, not the number of histories.

``g_test`` compares sampler counts with those probabilities (likelihood-ratio goodness of fit,
cells with an expected count below 5 pooled).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Hashable

import numpy as np
from scipy.special import chdtrc  # chi2's survival function (scipy.stats: 1-2 s to import)

from tests.conftest import sample_action

#: Left out of the key that merges histories reaching the same state: the other seats'
#: ``views`` logs (perfect recall). The seat's own log is equal in every kept history (it is
#: part of the information state compared at every step), and no later step of the seat's
#: view depends on another seat's log, so the merge is exact.
MERGE_DROP = ("views",)


class TooManyWorlds(Exception):
    """The enumeration exceeded its cap (pick a smaller position)."""


def reference_of(state):
    """The reference (pure-Python) state of ``state`` (a twin converts itself)."""
    return state.to_reference() if hasattr(state, "to_reference") else state


def world_key(state, drop: tuple[str, ...] = ()) -> str:
    """The full state (every field, hidden ones included; no history) as canonical JSON,
    without the fields in ``drop``."""
    fields = reference_of(state)._fields()
    return json.dumps({k: v for k, v in fields.items() if k not in drop}, sort_keys=True,
                      separators=(",", ":"))


def random_target(game, seed: int, steps: int):
    """The state after ``steps`` seeded random actions (fewer if the game ends), and the
    action list that led there."""
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    actions = []
    for _ in range(steps):
        if s.is_terminal():
            break
        a = int(sample_action(s, rng))
        s.apply_action(a)
        actions.append(a)
    return s, actions


def exact_posterior(game, actions: list[int], p: int,
                    project: Callable[[object], Hashable], max_worlds: int = 20_000,
                    hidden_weight: Callable[[object, int], float] | None = None
                    ) -> dict[Hashable, float]:
    """``{project(world): probability}`` for seat ``p`` after the history ``actions`` of
    ``game`` (a reference game), by brute force from the initial state (module docstring).

    Raises:
        TooManyWorlds: more than ``max_worlds`` distinct states at some step.
    """
    target = game.new_initial_state()
    infos = [target.information_state_string(p)]
    for a in actions:
        target.apply_action(a)
        infos.append(target.information_state_string(p))
    layer = {world_key(target.get_game().new_initial_state(), MERGE_DROP):
             (game.new_initial_state(), 1.0)}
    for step in range(len(actions)):
        nxt: dict[str, tuple[object, float]] = {}
        for state, w in layer.values():
            chance = state.is_chance_node()
            if chance:
                moves = state.chance_outcomes()
            else:
                moves = [(a, 1.0) for a in state.legal_actions()]
            children = []
            for a, prob in moves:
                child = state.clone()
                child.apply_action(a)
                if child.information_state_string(p) == infos[step + 1]:
                    children.append((a, prob, child))
            if (not chance and hidden_weight is not None and len(children) > 1
                    and len(children) == len(moves)):  # a choice p cannot see
                children = [(a, hidden_weight(state, a), c) for a, _, c in children]
            for _, prob, child in children:
                key = world_key(child, MERGE_DROP)
                old = nxt.get(key)
                nxt[key] = (child, w * prob + (old[1] if old else 0.0))
                if len(nxt) > max_worlds:  # the layer only grows: give up at once
                    raise TooManyWorlds(f"more than {max_worlds} states after step {step + 1}")
        layer = nxt
    total = sum(w for _, w in layer.values())
    out: Counter = Counter()
    for state, w in layer.values():
        out[project(state)] += w / total
    return dict(out)


def g_test(expected: dict[Hashable, float], counts: Counter) -> tuple[float, float]:
    """``(G statistic, p-value)`` of ``counts`` against the probabilities ``expected``.

    Cells whose expected count is below 5 are pooled into one (the usual validity rule).
    A sampled category absent from ``expected`` (probability 0) gives p = 0.
    """
    n = sum(counts.values())
    if any(c not in expected for c in counts):
        return float("inf"), 0.0
    big = [c for c, q in expected.items() if q * n >= 5]
    small = [c for c in expected if c not in big]
    obs = [counts[c] for c in big]
    exp = [expected[c] * n for c in big]
    if small:
        obs.append(sum(counts[c] for c in small))
        exp.append(sum(expected[c] for c in small) * n)
    if len(obs) < 2:
        return 0.0, 1.0
    o, e = np.array(obs, float), np.array(exp, float)
    nz = o > 0
    g = 2.0 * float(np.sum(o[nz] * np.log(o[nz] / e[nz])))
    return g, float(chdtrc(len(obs) - 1, g))
