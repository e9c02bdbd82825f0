"""Client-supplied positions for stateless hints: checked, and reduced to one seat's view.

Untrusted serialized states and observations are parsed by the pure-Python reference engine
(``backend="python"``), which is memory-safe, never by a compiled twin.

A position is ``(game, seat)`` plus one of: the action history from the initial state, a
serialized state (``State.serialize()``), or just the seat's observation JSON. Histories are
replayed with the checked ``apply_action``. Serialized states and observations are not trusted:
both are reduced to the seat's observation and rebuilt with ``Game.state_from_observation``,
which validates every field; so the search sees only what the seat may know, and a malformed
input is an ``InvalidArgument`` naming what is wrong instead of a crash inside a search.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from ratai.engines import Game, IllegalActionError, State, game_class
from ratai.engines.api import CHANCE, TERMINAL, keep_views

from .errors import FailedPrecondition, InvalidArgument

__all__ = ["position_state", "check_turn", "reference_game", "parse_observation"]


def _seed_of(data: bytes) -> int:
    """A fixed sampling seed derived from the input (equal inputs, equal samples)."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little") >> 1


def _check_seat(game: Game, seat: Any) -> int:
    n = game.num_players()
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise InvalidArgument(f"bad seat {seat!r}: allowed 0..{n - 1}")
    return seat


def _from_observation(game: Game, seat: int, obs: Any) -> State:
    if not isinstance(obs, dict):
        raise InvalidArgument("observation_json must be a JSON object (State.observation(seat))")
    try:
        seed = _seed_of(json.dumps(obs, sort_keys=True).encode())
        return game.state_from_observation(seat, obs, seed)
    except ValueError as exc:
        raise InvalidArgument(f"malformed observation: {exc}") from None
    except RecursionError:
        raise InvalidArgument("malformed observation: nested too deeply") from None
    except Exception as exc:  # engines validate with ValueError; anything else is malformed too
        raise InvalidArgument(f"malformed observation ({type(exc).__name__}: {exc})") from None


def _keep_own_log(game: Game, seat: int, full: State, state: State) -> State:
    """``state`` (rebuilt from the seat's observation of a client's ``full`` state) with the
    seat's own ``views`` log of ``full`` (its perfect recall: the seat's information, not
    the hidden parts, so a determinization may read it, e.g. Rat Trap's exact belief); a
    log of the wrong shape is left out (the observation alone then decides)."""
    views = full.__dict__.get("views")
    mine = views[seat] if isinstance(views, list) and len(views) == game.num_players() else None
    if isinstance(mine, list) and len(mine) <= 16 * game.max_game_length() \
            and all(x is None or type(x) is int for x in mine):
        keep_views(full, state, seat)
    return state


def position_state(game: Game, seat: Any, *, history: Sequence[int] | None = None,
                   serialized: bytes | None = None, observation_json: str | None = None) -> State:
    """The state to search for ``seat``, built from exactly one of the three forms.

    Raises:
        InvalidArgument: a bad seat, none or several forms, an illegal history (the message
            names the index and lists the legal actions), a serialized state or observation
            that is malformed.
    """
    seat = _check_seat(game, seat)
    if serialized is not None or observation_json is not None:
        game = reference_game(game)
    given = [x is not None for x in (history, serialized, observation_json)]
    if sum(given) != 1:
        raise InvalidArgument("give exactly one of history, serialized_state, observation_json")
    if history is not None:
        if len(history) > game.max_game_length():
            raise InvalidArgument(f"history has {len(history)} actions, more than the game's "
                                  f"max_game_length {game.max_game_length()}")
        state = game.new_initial_state()
        for i, action in enumerate(history):
            try:
                state.apply_action(int(action))
            except IllegalActionError as exc:
                raise InvalidArgument(f"history[{i}]: {exc}") from None
        return state
    if serialized is not None:
        try:
            # validated (every seat's view) before the compiled twin reads a field of it
            full = game.deserialize_state(serialized)
            fresh = game.new_initial_state()
            extra = sorted(set(full._fields()) - set(fresh._fields()))
            missing = sorted(set(fresh._fields()) - set(full._fields()))
            if extra or missing:
                raise ValueError(f"unexpected fields {extra}, missing fields {missing}")
            obs = full.observation(seat)
        except InvalidArgument:
            raise
        except Exception as exc:
            raise InvalidArgument(f"malformed serialized_state: {exc}") from None
        return _keep_own_log(game, seat, full, _from_observation(game, seat, obs))
    return _from_observation(game, seat, parse_observation(observation_json))


def _no_constant(name: str):
    raise ValueError(f"{name} is not allowed (finite numbers only)")


def parse_observation(text: str) -> Any:
    """Parse client observation JSON with the service's input limits.

    Raises:
        InvalidArgument: not JSON, ``NaN``/``Infinity``, nesting deeper than
            ``convert.MAX_DEPTH``, a number beyond ±2**53, an over-long string (the message
            names the JSON path, e.g. ``observation_json.players[2].cash``).
    """
    from .convert import check_json_tree

    try:
        obs = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise InvalidArgument("observation_json: nested too deeply") from None
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(f"observation_json is not valid JSON: {str(exc)[:200]}") from None
    return check_json_tree(obs, "observation_json")


def reference_game(game: Game) -> Game:
    """The pure-Python reference engine of ``game`` with the same params."""
    cls = game_class(game.name, "python")
    return game if type(game) is cls else cls(**game.params)


def check_turn(state: State, seat: int) -> list[int]:
    """The seat's legal actions; ``FailedPrecondition`` when it is not the seat's turn."""
    try:
        cp = state.current_player()
        legal = state.legal_actions(seat) if cp == seat else []
    except Exception as exc:
        raise InvalidArgument(f"malformed state ({type(exc).__name__}: {exc})") from None
    if cp == TERMINAL:
        raise FailedPrecondition("the game is over")
    if cp == CHANCE:
        raise FailedPrecondition(f"it is not seat {seat}'s turn: the position is a chance node "
                                 f"(dice or cards to draw); give the position after its "
                                 f"outcome")
    if cp != seat or not legal:
        raise FailedPrecondition(f"it is not seat {seat}'s turn (current player: {cp})")
    return legal
