"""ratai's games as OpenSpiel games (``pip install ratai[openspiel]``).

>>> from ratai.interop import openspiel as ros         # doctest: +SKIP
>>> ros.register()                                      # doctest: +SKIP
>>> import pyspiel                                      # doctest: +SKIP
>>> game = pyspiel.load_game("ratai_rat_trap", {"players": 3})   # doctest: +SKIP
>>> state = game.new_initial_state()                    # doctest: +SKIP

What is mapped
--------------
* **Names**: ratai game ``<game>`` is OpenSpiel game ``ratai_<game>``.
* **GameType**: sequential dynamics, explicit stochastic chance (ratai's chance nodes, with
  the same outcome ids and probabilities), perfect or imperfect information from
  ``Game.perfect_information``, terminal rewards only. Utility is constant-sum (sum 1) when
  every allowed player count is at least 2 (ratai returns are win 1 / loss 0 / shared win
  1/k), else general-sum (a solo game has returns 0 or 1). Information-state and observation
  strings (the observation's canonical JSON) and tensors (``State.observation_tensor``, a
  fixed ``float32`` layout documented in ``docs/observations/<game>.md``) are provided.
* **Parameters**, both ways (:func:`to_openspiel_params`, :func:`from_openspiel_params`):
  ratai's ``num_players`` is OpenSpiel's conventional ``players``; every other parameter
  keeps its name and value. OpenSpiel parameters cannot be ``None``, so a parameter whose
  ratai default is ``None`` (``data_path``) is ``""`` in OpenSpiel and ``""`` means ``None``;
  OpenSpiel game strings cannot hold commas in values, so commas in string values become
  ``;`` (:data:`LIST_SEP`) and back.
  Parameters that select a joint-action (simultaneous) view, listed in
  :data:`EXCLUDED_PARAMS`, are not offered: only the default sequential view is mapped
  (a ratapolis plan is a sequence of hidden commitments there).
* **State**: ``current_player``, ``legal_actions``, ``chance_outcomes``, ``apply_action``
  (checked, unlike OpenSpiel's C++ games: an illegal id raises ratai's
  ``IllegalActionError``, a ``ValueError`` naming the action and the legal set, and leaves
  the state unchanged; a wrong id must never reach the compiled twin's unchecked path, which
  reads its tables at that index), ``action_to_string``, ``returns``,
  ``information_state_string(p)`` (ratai's perfect-recall information state: the seat's
  view of every action and its current observation) and ``observation_string(p)`` (the
  canonical JSON of ratai's ``observation(p)``, the current view),
  ``resample_from_infostate(p, sampler)`` (ratai's determinization, seeded from one draw
  of ``sampler``), ``clone``, ``serialize`` / ``game.deserialize_state``. The ratai state is
  ``state.native``.

Known limits of open-spiel 2.0.2 with Python-implemented games (not of this adapter)
-------------------------------------------------------------------------------------
* ``pyspiel.MCTSBot.step`` crashes (it releases the GIL around Python calls); call
  ``bot.mcts_search(state)`` and read ``root.best_child().action`` instead.
* The C++ ``pyspiel.ISMCTSBot`` cannot call a Python ``resample_from_infostate`` (the Python
  game trampoline does not forward it), so on imperfect-information games it fails with
  "ResampleFromInfostate() not implemented" (and it refuses perfect-information games);
  use the Python ``open_spiel.python.algorithms.ismcts.ISMCTSBot``, which does call it.
  PIMC-style code that calls ``state.resample_from_infostate`` from Python works too.
* OpenSpiel keeps a registered game's creator until process exit, after the interpreter
  is gone; :func:`register` therefore hands it a class (never freed then), not a closure.

Bots
----
:func:`pyspiel_bot` wraps any ratai bot kind as a real ``pyspiel.Bot`` (``step``,
``step_with_policy``, ``restart_at``, ``inform_action``), so ratai's search plays in
``pyspiel.evaluate_bots`` and OpenSpiel's Python loops on the ``ratai_<game>`` games::

    bots = [ros.pyspiel_bot("ismcts", game, p, iterations=300, seed=p) for p in range(3)]
    pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("ratai.interop.openspiel needs open-spiel: "
                      "pip install 'ratai[openspiel]'") from exc

from ratai.engines import game_class, load_game, registered_games
from ratai.engines.api import SIMULTANEOUS, Game, State, canonical_json

__all__ = [
    "PREFIX",
    "EXCLUDED_PARAMS",
    "LIST_SEP",
    "register",
    "short_name",
    "game_type",
    "player_range",
    "to_openspiel_params",
    "from_openspiel_params",
    "RataiGame",
    "RataiState",
    "game_class_for",
    "load",
    "RataiBot",
    "pyspiel_bot",
]

#: OpenSpiel name of ratai game ``g`` is ``PREFIX + g``.
PREFIX = "ratai_"
#: ratai parameters not offered to OpenSpiel: they select a joint-action view (SIMULTANEOUS
#: nodes), while the adapter maps only the default sequential view.
EXCLUDED_PARAMS = ("simultaneous",)
#: OpenSpiel's game strings (``name(key=value,...)``) cannot hold a comma inside a value, so
#: a comma-separated ratai value (ratapolis' ``property_tokens="A,B,C"``) is ``"A;B;C"``.
LIST_SEP = ";"
#: Player counts probed to find a game's allowed range.
_PROBE_PLAYERS = range(1, 11)

_registered: dict[str, str] = {}  # ratai name -> backend it was registered with


def short_name(game: str) -> str:
    """OpenSpiel's name of ratai game ``game`` (``"rat_trap"`` -> ``"ratai_rat_trap"``)."""
    return PREFIX + game


# -- parameters -----------------------------------------------------------------------------
def _specs(name: str) -> dict:
    return {p.name: p for p in game_class(name).param_specs if p.name not in EXCLUDED_PARAMS}


def to_openspiel_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """ratai parameters of game ``name`` -> OpenSpiel ``GameParameters`` (a plain dict).

    ``num_players`` becomes ``players``; ``None`` becomes ``""``.

    Raises:
        ValueError: a parameter in :data:`EXCLUDED_PARAMS` set to a non-default value.
    """
    out = {}
    specs = {p.name: p for p in game_class(name).param_specs}
    for key, value in params.items():
        if key in EXCLUDED_PARAMS:
            if specs[key].validate(value) != specs[key].default:
                raise ValueError(f"parameter {key!r} is not mapped to OpenSpiel: only the "
                                 f"default {specs[key].default!r} (sequential view) is")
            continue
        if value is None:
            value = ""
        elif isinstance(value, str):
            value = value.replace(",", LIST_SEP)
        out["players" if key == "num_players" else key] = value
    return out


def from_openspiel_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """OpenSpiel ``GameParameters`` of ``ratai_<name>`` -> ratai parameters.

    ``players`` becomes ``num_players``; ``""`` becomes ``None`` for parameters whose ratai
    default is ``None``.

    Raises:
        ValueError: an unknown parameter, naming it and the known ones.
    """
    specs = _specs(name)
    out = {}
    for key, value in params.items():
        rkey = "num_players" if key == "players" else key
        if rkey not in specs:
            known = sorted("players" if k == "num_players" else k for k in specs)
            raise ValueError(f"unknown parameter {key!r} for {short_name(name)!r}; "
                             f"known: {known}")
        if value == "" and specs[rkey].default is None:
            value = None
        elif isinstance(value, str):
            value = value.replace(LIST_SEP, ",")
        out[rkey] = value
    return out


@functools.cache
def player_range(name: str) -> tuple[int, int]:
    """``(min, max)`` player counts game ``name`` accepts (probed by construction)."""
    ok = []
    for n in _PROBE_PLAYERS:
        try:
            game_class(name)(num_players=n)
        except ValueError:
            continue
        ok.append(n)
    if not ok:
        raise ValueError(f"game {name!r} accepts no num_players in {list(_PROBE_PLAYERS)}")
    return min(ok), max(ok)


@functools.cache
def game_type(name: str) -> pyspiel.GameType:
    """The OpenSpiel ``GameType`` of ratai game ``name`` (see the module docstring)."""
    cls = game_class(name)
    lo, hi = player_range(name)
    info = pyspiel.GameType.Information
    utility = pyspiel.GameType.Utility
    spec = {}
    for p in cls.param_specs:
        if p.name in EXCLUDED_PARAMS:
            continue
        spec.update(to_openspiel_params(name, {p.name: p.default}))
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"ratai {cls.title or name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(info.PERFECT_INFORMATION if cls.perfect_information
                     else info.IMPERFECT_INFORMATION),
        utility=utility.CONSTANT_SUM if lo >= 2 else utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )


def _game_info(name: str, game: Game) -> pyspiel.GameInfo:
    constant = game_type(name).utility == pyspiel.GameType.Utility.CONSTANT_SUM
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_distinct_actions(),
        # chance outcomes share ratai's one action id space
        max_chance_outcomes=game.num_distinct_actions(),
        num_players=game.num_players(),
        min_utility=0.0,
        max_utility=1.0,
        utility_sum=1.0 if constant else None,
        max_game_length=game.max_game_length(),
    )


@functools.lru_cache(maxsize=64)
def _cached_game(name: str, backend: str, params_json: str) -> Game:
    return load_game(name, backend=backend, **json.loads(params_json))


# -- the native state holder ------------------------------------------------------------------
class _Native:
    """Holds the ratai state of a :class:`RataiState`.

    OpenSpiel clones a Python state by ``copy.deepcopy`` of its attributes and serializes it
    by pickling them; this holder makes both go through ratai's own ``clone`` and
    ``serialize``. The initial state is built lazily, because ``clone`` first makes a fresh
    initial state and then overwrites it.
    """

    __slots__ = ("game", "backend", "_state")

    def __init__(self, game: Game, backend: str, state: State | None = None):
        self.game = game
        self.backend = backend
        self._state = state

    @property
    def state(self) -> State:
        if self._state is None:
            self._state = self.game.new_initial_state()
        return self._state

    def __deepcopy__(self, memo: dict) -> _Native:
        return _Native(self.game, self.backend, None if self._state is None
                       else self._state.clone())

    def __reduce__(self):
        data = None if self._state is None else self._state.serialize()
        return (_restore_native, (self.game.name, self.backend,
                                  canonical_json(self.game.params), data))


def _restore_native(name: str, backend: str, params_json: str, data: bytes | None) -> _Native:
    game = _cached_game(name, backend, params_json)
    return _Native(game, backend, None if data is None else game.deserialize_state(data))


# -- game and state ---------------------------------------------------------------------------
class RataiGame(pyspiel.Game):
    """A ratai game seen through OpenSpiel's ``pyspiel.Game`` API.

    Built by ``pyspiel.load_game("ratai_<name>", params)`` after :func:`register`, or by
    :func:`load`. Each (game, backend) has its own subclass (:func:`game_class_for`) whose
    constructor takes OpenSpiel parameters only, as OpenSpiel's registry expects. The ratai
    game is ``self.ratai_game``.

    Raises:
        ValueError: an unknown or bad parameter (ratai's message, naming it).
    """

    #: ratai name and backend, set on the per-game subclasses.
    ratai_name: str = ""
    backend: str = "auto"

    def __init__(self, params: Mapping | None = None):
        name = self.ratai_name
        if not name:
            raise TypeError("use game_class_for(name, backend) or load(); RataiGame is abstract")
        os_params = dict(game_type(name).parameter_specification)
        os_params.update(params or {})
        rparams = from_openspiel_params(name, os_params)
        ratai_game = _cached_game(name, self.backend, canonical_json(rparams))
        super().__init__(game_type(name), _game_info(name, ratai_game), os_params)
        self.ratai_game = ratai_game

    def new_initial_state(self, native: State | None = None) -> RataiState:
        """A new OpenSpiel state (wrapping ``native`` when given, else the initial state)."""
        return RataiState(self, native)

    def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
        """The observer behind ``information_state_string`` / ``observation_string``."""
        return _Observer(self, iig_obs_type, params)


@functools.cache
def game_class_for(name: str, backend: str = "auto") -> type[RataiGame]:
    """The :class:`RataiGame` subclass for ratai game ``name`` on ``backend``.

    A class (not a closure) is what :func:`register` hands to OpenSpiel: OpenSpiel keeps
    the creator in a C++ static that is destroyed after the interpreter, and a class object
    is never freed then, while a closure or ``functools.partial`` would be freed without
    the GIL and abort the process at exit.
    """
    game_class(name)  # UnknownGameError early
    cls_name = "RataiGame_" + name
    return type(cls_name, (RataiGame,), {"ratai_name": name, "backend": backend,
                                         "__module__": __name__, "__qualname__": cls_name})


class RataiState(pyspiel.State):
    """A ratai state seen through OpenSpiel's ``pyspiel.State`` API (see the module doc).

    Built only by :meth:`RataiGame.new_initial_state`. The ratai state is :attr:`native`.
    """

    def __init__(self, game: RataiGame, native: State | None = None):
        super().__init__(game)
        self._native = _Native(game.ratai_game, type(game).backend, native)

    @property
    def native(self) -> State:
        """The wrapped ratai :class:`~ratai.engines.api.State` (shared, not a copy)."""
        return self._native.state

    def current_player(self) -> int:
        cp = self._native.state.current_player()
        if cp == SIMULTANEOUS:
            raise ValueError("a joint-action (SIMULTANEOUS) node is not mapped to OpenSpiel")
        return cp

    def _legal_actions(self, player: int) -> list[int]:
        return self._native.state.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._native.state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        # the engine's checked path: an illegal id is an IllegalActionError naming it and the
        # legal set, the state unchanged (the unchecked path let a twin read past its tables)
        self._native.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self._native.state.action_to_string(player, action)

    def is_terminal(self) -> bool:
        return self._native.state.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self._native.state.returns()]

    def resample_from_infostate(self, player: int, prob_sampler) -> RataiState:
        """A state ``player`` cannot tell from this one, hidden parts sampled.

        ``prob_sampler`` is OpenSpiel's ``() -> float in [0, 1)``; one draw seeds ratai's
        ``resample_from_infostate``. The sample's OpenSpiel history is empty (its past is
        not known), like ratai's.
        """
        seed = int(float(prob_sampler()) * 2**53)
        sample = self._native.state.resample_from_infostate(player, seed)
        return self.get_game().new_initial_state(sample)

    def __str__(self) -> str:
        return canonical_json(self._native.state.to_json())


class _Observer:
    """OpenSpiel PyObserver: the seat's observation as a string and as a tensor.

    The default observer (``perfect_recall=False``, OpenSpiel's ``observation_string``)
    gives ratai's ``observation_string(p)``, the seat's current view; a perfect-recall
    observer (``information_state_string``) gives ratai's ``information_state_string(p)``,
    the seat's whole action-observation history. The tensor is
    ``State.observation_tensor(p)`` (``float32``, the current view in the documented fixed
    layout of ``docs/observations/<game>.md``; ``dict["observation"]`` is the same buffer).
    Other observation types (public-only, all players' private
    information) cannot be derived from it on a hidden-information game and are refused.
    """

    def __init__(self, game: RataiGame, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        if iig_obs_type is not None and not game.ratai_game.perfect_information:
            ok = (iig_obs_type.public_info and iig_obs_type.private_info
                  == pyspiel.PrivateInfoType.SINGLE_PLAYER)
            if not ok:
                raise ValueError("ratai games provide only the seat's own information "
                                 "state (public_info=True, private_info=SINGLE_PLAYER)")
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(game.ratai_game.observation_tensor_shape(), np.float32)
        self.dict: dict = {"observation": self.tensor}

    def set_from(self, state: RataiState, player: int) -> None:
        """Fill :attr:`tensor` with seat ``player``'s ``observation_tensor``."""
        state.native.observation_tensor(player, out=self.tensor)

    def string_from(self, state: RataiState, player: int) -> str:
        if self.perfect_recall:
            return state.native.information_state_string(player)
        return state.native.observation_string(player)


# -- registration ---------------------------------------------------------------------------
def register(games: Iterable[str] | None = None, backend: str = "auto") -> list[str]:
    """Register ratai games with OpenSpiel as ``ratai_<game>``; returns the short names.

    Idempotent: a game already registered in this process keeps the backend it was first
    registered with (OpenSpiel's registry cannot forget a game).

    Args:
        games: ratai names (default: every registered game).
        backend: ratai backend for the registered games (``auto``: Cython when built).

    Raises:
        UnknownGameError: an unknown ratai name.
    """
    names = list(registered_games() if games is None else games)
    for name in names:
        game_class(name)  # raises UnknownGameError for an unknown name
        if name in _registered or short_name(name) in pyspiel.registered_names():
            _registered.setdefault(name, backend)
            continue
        pyspiel.register_game(game_type(name), game_class_for(name, backend))
        _registered[name] = backend
    return [short_name(n) for n in names]


def load(name: str, backend: str = "auto", **params: Any) -> RataiGame:
    """``pyspiel``-compatible game for ratai ``name`` with *ratai* parameters.

    Equivalent to ``pyspiel.load_game("ratai_<name>", to_openspiel_params(name, params))``
    but without going through the registry (so ``backend`` is honoured every time).
    """
    return game_class_for(name, backend)(to_openspiel_params(name, params))


# -- bots -----------------------------------------------------------------------------------
class RataiBot(pyspiel.Bot):
    """A ratai bot (:func:`ratai.bots.make_bot`) as a ``pyspiel.Bot``; see :func:`pyspiel_bot`.

    The bot reads a state only through the seat's information (``resample_from_infostate``),
    as every ratai bot does, so ``inform_action`` and ``restart_at`` need to keep nothing:
    each ``step`` analyses the state it is given.

    Attributes:
        bot: the wrapped ratai :class:`~ratai.bots.base.Bot`.
        player: its seat.
    """

    def __init__(self, bot, game: RataiGame):
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self.player = bot.player
        self._game = game

    def _native(self, state) -> State:
        if not isinstance(state, RataiState):
            raise TypeError(f"a ratai bot plays states of the ratai_<game> OpenSpiel games "
                            f"(ratai.interop.openspiel.RataiState); got {type(state).__name__}")
        if state.get_game().get_type().short_name != self._game.get_type().short_name:
            raise ValueError(f"this bot plays {self._game.get_type().short_name}, "
                             f"not {state.get_game().get_type().short_name}")
        return state.native

    def step(self, state) -> int:
        """The action the bot plays at its own decision node ``state``.

        Raises:
            TypeError: ``state`` is not a ``ratai_<game>`` state.
            ValueError: it is not this bot's seat's turn, or another game's state.
        """
        return int(self.bot.step(self._native(state)))

    def provides_policy(self) -> bool:
        return True

    def step_with_policy(self, state) -> tuple[list[tuple[int, float]], int]:
        """``(policy, action)``: the policy is the root visit distribution over every legal
        action (OpenSpiel's convention for MCTS bots; probabilities sum to 1; the heuristic
        and random kinds report their evaluations or a uniform choice the same way)."""
        native = self._native(state)
        analysis = self.bot.analyze(native)
        legal = native.legal_actions(self.player)
        visits = {m.action: float(m.visits) for m in analysis.moves}
        total = sum(visits.get(a, 0.0) for a in legal)
        if total > 0:
            policy = [(a, visits.get(a, 0.0) / total) for a in legal]
        else:  # no statistics (a forced move, a bot that did not search): all on the choice
            policy = [(a, 1.0 if a == analysis.best_action else 0.0) for a in legal]
        return policy, int(analysis.best_action)

    def get_policy(self, state) -> list[tuple[int, float]]:
        return self.step_with_policy(state)[0]

    def restart_at(self, state) -> None:
        """Start of a (new) game at ``state``: a tree kept for reuse is dropped."""
        self._native(state)
        reset = getattr(self.bot, "reset", None)
        if callable(reset):
            reset()

    def restart(self) -> None:
        reset = getattr(self.bot, "reset", None)
        if callable(reset):
            reset()

    def inform_action(self, state, player_id: int, action: int) -> None:
        """Nothing to record: the next ``step`` reads the seat's information state."""

    def inform_actions(self, state, actions) -> None:
        """Nothing to record (see :meth:`inform_action`)."""

    def provides_force_action(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False


def pyspiel_bot(kind: str, game: Any, player: int, **options: Any) -> RataiBot:
    """A ``pyspiel.Bot`` playing seat ``player`` of ``game`` with ratai bot ``kind``.

    Args:
        kind: a :func:`ratai.bots.make_bot` kind (``random``, ``heuristic``, ``mcts``,
            ``ismcts``, ``pimc``, ``expectimax``, ...).
        game: a ``ratai_<game>`` OpenSpiel game (``pyspiel.load_game("ratai_rat_trap", ...)``
            after :func:`register`, or :func:`load`).
        player: the seat (``0..num_players-1``).
        **options: ``make_bot``'s budget and options: ``iterations``, ``time_limit``
            (seconds), ``seed``, ...

    Raises:
        TypeError: ``game`` is not a ratai OpenSpiel game.
        ValueError: what ``make_bot`` refuses (unknown kind or option, bad seat, no budget).
    """
    from ratai.bots import make_bot

    if not isinstance(game, RataiGame):
        raise TypeError(f"pyspiel_bot needs a ratai_<game> OpenSpiel game (register() then "
                        f"pyspiel.load_game); got {type(game).__name__}")
    return RataiBot(make_bot(kind, game.ratai_game, player, **options), game)
