"""Rat Trap's exact beliefs: how often the round's filter answers, how many worlds it keeps,
and what a cold build costs (``engines/belief.py``, issue 13 item 1).

Usage::

    python bench/beliefs.py --seeds 4 [--backend python] [--variants 3p,5p]

Random games (seeds ``0..--seeds-1`` per variant, uniform random moves), Cython twin (or the
reference with ``--backend python``): at every decision the deciding seat's exact belief is
built from scratch (the belief cache emptied: a cold build). ``filter used`` is the share of
decisions where the filter fit its caps (``belief.MAX_WORLDS`` states,
``belief.MAX_EXPANSIONS`` applied actions, the same on both backends and with or without a
search's deadline; beyond them the closed form answers); ``worlds`` counts the filter's
worlds (a world with lazy piles, another seat's Manipulator's, stands for all their deals and
orders);
``manipulated`` is the share of decisions where another seat's Manipulator has ordered piles
in the round, and ``used there`` the filter's share of those. Times are wall milliseconds of
one cold build (quote ``uptime`` with them).

``--compare N`` instead checks the closed form (``view._rebuild``) against the filter where
another seat's Manipulator ordered piles (the filter's piles stay lazy there; exact against
brute force, ``tests/engines/test_belief.py``): positions of random 3p and 4p roles games
(seeds ``0..N-1``, 30-89 actions), each seat but the Manipulator, 10,000 closed-form samples
projected to (stored cards, roles) against the filter's law: a G-test (``p < 1e-4``) or a
sample the filter rules out counts as a disagreement.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from ratai.engines import game_class, load_game
from ratai.engines.rat_trap import view as V


def measure(variant: str, seeds: int, backend: str = "cython") -> dict:
    params = game_class("rat_trap", "python").variants[variant]
    game = load_game("rat_trap", backend=backend, **params)
    twin = backend == "cython"
    used, worlds, ms, manip, manip_used = [], [], [], 0, 0
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(int(rng.choice(acts, p=probs)))
                continue
            p = s.current_player()
            obs = s.observation(p)
            V._BELIEFS._entries.clear()
            t = time.perf_counter()
            if twin:
                belief = V.exact_belief(game.reference_game(), p, obs, s._own_log(p), game,
                                        s._obs_digest(p))
            else:
                belief = V.exact_belief(game, p, obs, s.views[p])
            ms.append(1000 * (time.perf_counter() - t))
            used.append(belief is not None)
            if belief is not None:
                worlds.append(len(belief.worlds))
            if obs["manip_piles"] and obs["role"] != "manipulator":
                manip += 1
                manip_used += belief is not None
            s.apply_action(int(rng.choice(s.legal_actions())))
    q = np.percentile(ms, [50, 90, 100])
    return {"variant": variant, "decisions": len(used), "used": np.mean(used),
            "worlds": (int(statistics.median(worlds)), max(worlds)) if worlds else (0, 0),
            "ms": q, "manip": manip / len(used), "manip_used": manip_used / manip
            if manip else float("nan")}


def compare(players: int, seeds: int) -> tuple[int, int, float, float]:
    """(positions, disagreements, smallest p, largest share of impossible samples)."""
    from collections import Counter

    from tests.engines.posterior import g_test, random_target

    game = load_game("rat_trap", backend="python", num_players=players, roles=True)

    def project(s):
        return repr((s.stored, s.roles))

    checked, bad, worst_p, worst_imp = 0, 0, 1.0, 0.0
    for seed in range(seeds):
        state, _ = random_target(game, seed, 30 + (7 * seed) % 60)
        if state.is_terminal() or not state.manip_piles or \
                state.phase in ("manip_pile", "manip_deal", "manip_order"):
            continue
        for p in range(players):
            obs = state.observation(p)
            if obs["role"] == "manipulator":
                continue
            belief = V.exact_belief(game, p, obs, state.views[p])
            if belief is None:
                continue
            law: dict = {}
            for w, q in zip(belief.worlds, belief.probabilities(), strict=True):
                law[project(w)] = law.get(project(w), 0.0) + q
            if len(law) < 2:
                continue
            rng = np.random.default_rng(1)
            counts = Counter(project(V._rebuild(game, p, obs, rng)) for _ in range(10_000))
            impossible = sum(c for k, c in counts.items() if k not in law) / 10_000
            pval = g_test(law, Counter({k: c for k, c in counts.items() if k in law}))[1]
            checked += 1
            bad += impossible > 0 or pval < 1e-4
            worst_p, worst_imp = min(worst_p, pval), max(worst_imp, impossible)
    return checked, bad, worst_p, worst_imp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=4, help="games per variant (default 4)")
    ap.add_argument("--variants", default=None, help="comma-separated (default: all)")
    ap.add_argument("--compare", type=int, default=0, metavar="N",
                    help="closed form against the filter on N seeds (see above)")
    ap.add_argument("--backend", default="cython", choices=("cython", "python"),
                    help="the states the filter runs on (default: the Cython twin)")
    args = ap.parse_args()
    if args.compare:
        sys.path.insert(0, ".")  # tests/ (the brute-force helpers) from the checkout
        for players in (3, 4):
            n, bad, p, imp = compare(players, args.compare)
            print(f"{players}p roles: {bad} of {n} positions disagree; smallest p {p:.2g}, "
                  f"impossible samples up to {imp:.0%}", flush=True)
        return
    variants = args.variants.split(",") if args.variants else \
        list(game_class("rat_trap", "python").variants)
    print("| variant | decisions | filter used | manipulated / used there | worlds median / max "
          "| cold build median / p90 / max (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for v in variants:
        r = measure(v, args.seeds, args.backend)
        mu = "-" if r["manip"] == 0 else f"{r['manip']:.0%} / {r['manip_used']:.0%}"
        print(f"| {v} | {r['decisions']} | {r['used']:.0%} | {mu} | {r['worlds'][0]} / "
              f"{r['worlds'][1]} | {r['ms'][0]:.2f} / {r['ms'][1]:.2f} / {r['ms'][2]:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
