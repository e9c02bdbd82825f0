"""Tree reuse keyed by what the searching seat observes (IS-MCTS and UCT).

A bot that plays successive moves can keep its search tree and continue, on its next turn,
from the node that matches its new information state. In a game with hidden information the
node must be reached only through keys the seat can observe — its own actions, other seats'
actions it can tell apart, chance perceptions keyed by its information state — never through
a key the seat cannot see (an opponent's hidden card, a die it did not see). This module
turns the steps played since the kept root into such keys, or says that the path is not
observable (then the search starts afresh).

:func:`observed_path` replays the actions played since the kept root on a clone of the kept
root's state and, for every step, derives the key from the seat's information states only:

* the seat's own decision: its action id (the seat knows what it played);
* a chance outcome with ``chance_key="infostate"``: the seat's information state after it
  (:data:`INFO`, exactly the key the IS-MCTS tree uses);
* another seat's decision in a search that goes on from what the seat observes of it
  (``opponent_key``, ``merge=True``): none while the same seat moves next (its run of moves
  goes on), then the seat's information state after the run (:data:`INFO`), the key of the
  node the tree continues in, whether the moves were hidden or not;
* any other step (another seat's decision in an action-keyed tree; a chance outcome keyed by
  outcome id): the seat's
  information states before (``I``) and after (``I'``) the step are all it has, so the key is
  recovered from them: on a determinization ``r`` drawn from ``I`` only (seeded by the bot's
  seed and ``I``), the actions ``b`` legal in ``r`` with
  ``r + b`` having information state ``I'``; exactly one such ``b`` is the key, none or
  several (the seat cannot tell which move was made, or this world cannot explain it) end
  the walk: the path is not observable and the search starts afresh.

The keys therefore depend on the seat's sequence of information states and the seed alone
— the true hidden actions are never read — so two games with the same observed history give
the same keys (and, for a seeded bot, the same answer). A false "not observable" only costs
the reuse, never soundness.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ratai.engines.api import CHANCE, SIMULTANEOUS, TERMINAL, State, canonical_json
from ratai.search.common import _seed_int

__all__ = ["ACTION", "CHANCE_ACTION", "INFO", "observed_path", "MAX_CANDIDATES"]

#: Key kinds: a decision (the action id), a chance outcome keyed by outcome id, a chance
#: perception keyed by the seat's information state (``(INFO, string, hash64 or None)``).
ACTION, CHANCE_ACTION, INFO = "a", "c", "i"

#: A step whose mover has more legal moves than this in the determinization is not tested
#: (declared not observable): the test costs one clone, apply and information state per move.
MAX_CANDIDATES = 256


def _step_rng(seed: Any, info: str, player: int) -> np.random.Generator:
    """The determinization stream of one observability test: from the seed and the seat's
    information state before the step only."""
    h = int.from_bytes(hashlib.blake2b(info.encode(), digest_size=8).digest(), "little")
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng()
    # any seed a bot accepts (an int, a numpy integer, a str), as the bot reads it
    return np.random.default_rng([_seed_int(seed), h, player, 0x52455553])


def observed_path(kept: State, steps, player: int, *, by_info: bool = True,
                  merge: bool = False, seed: Any = None,
                  info_hash=None) -> list[tuple] | None:
    """The observable keys of ``steps`` played from ``kept``, or ``None`` if one is hidden.

    Args:
        kept: the state of the kept tree's root (not modified; a clone is stepped).
        steps: the actions played since (the suffix of the game's history).
        player: the searching seat.
        by_info: chance outcomes keyed by the seat's information state (IS-MCTS
            ``chance_key="infostate"``); else by outcome id, which must then be observable.
        merge: other seats' decisions keyed by the seat's information state after them
            (``ratai.search.ismcts.merges_moves``); else by action id, which must then be
            observable.
        seed: the bot's seed (the observability test's determinizations depend on it and on
            the seat's information state only).
        info_hash: ``info_hash(state, player) -> int`` (the compiled search's 64-bit chance
            key) to attach to :data:`INFO` keys, or ``None``.

    Returns:
        ``[(ACTION, a) | (CHANCE_ACTION, a) | (INFO, info_string, hash64), ...]`` (one per
        step), or ``None`` when a step is not observable by ``player`` (see the module
        docstring) or the history does not continue ``kept`` legally.
    """
    s = kept.clone()
    keys: list[tuple] = []
    for a in steps:
        p = s.current_player()
        if p == TERMINAL or p == SIMULTANEOUS:
            return None
        if p == player:
            s.apply_action(a)
            keys.append((ACTION, int(a)))
            continue
        before = s.information_state_string(player)
        obs = None if (by_info if p == CHANCE else merge) else s.observation(player)
        s.apply_action(a)
        after = s.information_state_string(player)
        if p != CHANCE and merge and s.current_player() == p:
            continue        # the mover's run goes on: keyed once it ends
        if by_info if p == CHANCE else merge:
            keys.append((INFO, after, info_hash(s, player) if info_hash else None))
            continue
        b = _recover(s.get_game(), obs, before, s.observation_string(player), player, seed, p)
        if b is None:
            return None
        keys.append((CHANCE_ACTION if p == CHANCE else ACTION, b))
    return keys


def _recover(game, obs, before: str, after_view: str, player: int, seed: Any,
             mover: int) -> int | None:
    """The unique action of a determinization of ``obs`` (drawn from the seat's information
    state ``before``) leading to the seat's view ``after_view`` (``observation_string``: a
    state rebuilt from an observation has no past, so views, not perfect-recall information
    states, are compared; a move that changes the seat's log but not its view is then
    declared hidden, which only loses the reuse). ``mover``: who acts, which the seat sees;
    a rebuild that disagrees declines."""
    r = game._state_from_observation(player, obs, _step_rng(seed, before, player))
    if r.observation_string(player) != canonical_json(obs) or r.current_player() != mover:
        return None         # a rebuild that does not reproduce the view: cannot test
    legal = r.legal_actions()
    if len(legal) > MAX_CANDIDATES:
        return None
    found = None
    for b in legal:
        t = r.clone()
        t.apply_action(b)
        if t.observation_string(player) == after_view:
            if found is not None:
                return None  # two moves look alike to the seat: hidden
            found = b
    return found
