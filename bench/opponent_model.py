"""How well a title's packaged network predicts the moves other seats cannot see.

Usage::

    python bench/opponent_model.py --game ratapolis --players 3 --games 6 --iterations 1000

Plays ``--games`` seeded games of ``az`` (``--iterations`` per move, the packaged network)
in every seat and, at each decision hidden from another seat (a move after which
``rewind_hidden_moves`` undoes something for some other seat: Ratapolis' committed plan
cells), scores the move played under the network's priors at the mover's view against a
uniform draw over the legal moves (what the rules' sampler assumes): the mean
log-likelihood (nats per move) and how often the network's most probable move is the one
played. This is the quality of the opponent model ``az`` uses with
``hidden_moves="policy"`` (docs/az.md); bench/README.md (stop 58) has the figures.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from ratai.bots import make_bot
from ratai.bots.az import load_model
from ratai.engines import CHANCE, load_game
from ratai.engines.api import sample_chance_outcome


def hidden_from_someone(state, action: int) -> bool:
    """Whether ``action`` (legal in ``state``) is a move some other seat does not see."""
    after = state.clone()
    after.apply_action(action)
    mover = state.current_player()
    return any(after.clone().rewind_hidden_moves(q)
               for q in range(state.get_game().num_players()) if q != mover)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="ratapolis")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    game = load_game(args.game, backend="cython", num_players=args.players)
    model = load_model(None, game)
    rng = np.random.default_rng(args.seed)
    moves = top = 0
    ll_net = ll_uniform = top_uniform = 0.0
    for g in range(args.games):
        bots = [make_bot("az", game, p, iterations=args.iterations,
                         seed=args.seed * 1000 + g * 10 + p) for p in range(args.players)]
        s = game.new_initial_state()
        while not s.is_terminal():
            p = s.current_player()
            if p == CHANCE:
                s.apply_action(sample_chance_outcome(s, rng))
                continue
            a = bots[p].analyze(s).best_action
            if hidden_from_someone(s, a):
                legal = s.legal_actions()
                _, priors = model.evaluate(s, p, legal)
                prior = dict(zip(legal, priors.tolist(), strict=True))
                ll_net += math.log(max(prior[a], 1e-12))
                ll_uniform += math.log(1.0 / len(legal))
                top += int(max(prior, key=prior.get) == a)
                top_uniform += 1.0 / len(legal)
                moves += 1
            s.apply_action(a)
    if not moves:
        print(f"{args.game}: no hidden moves in {args.games} games")
        return
    print(f"{args.game} {args.players}p, {args.games} games of az:{args.iterations}: "
          f"{moves} hidden moves; mean log-likelihood network {ll_net / moves:.3f}, "
          f"uniform {ll_uniform / moves:.3f} nats; top-1 network {top / moves:.3f}, "
          f"uniform {top_uniform / moves:.3f}")


if __name__ == "__main__":
    main()
