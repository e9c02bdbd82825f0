"""The engine contract every ratai game follows (both backends, identical behaviour).

The vocabulary is OpenSpiel's (``legal_actions``, ``apply_action``, ``chance_outcomes``,
``information_state_string``, ``returns``, ``resample_from_infostate``), so users of that
library feel at home and its algorithms map one to one. See ``../shared/DESIGN.md``.

Conventions
-----------
* Actions are ``int`` ids in ``range(game.num_distinct_actions())``. Player decisions and
  chance outcomes share that one id space, so a game history is a flat ``list[int]``.
* **All randomness is chance nodes**: at a chance node ``current_player() == CHANCE`` and
  ``chance_outcomes()`` lists ``(action, probability)``. Replaying ``(params, history)``
  reproduces a game exactly.
* A seat's ``observation(player)`` is its *current view*: everything the seat knows now
  under the rules (its own hidden cards, public facts, and what it remembers of others'
  hidden cards). It is a JSON-serialisable ``dict``; ``observation_string`` is its
  canonical JSON.
* ``information_state_string(player)`` is the seat's *information state* in OpenSpiel's
  sense: perfect recall, the seat's whole action-observation history. In a game with hidden
  information (``perfect_information = False``) every state keeps one log per seat, the
  field ``views``: for every action applied (decision or chance outcome) the seat's view of
  it (:meth:`State._view_codes`: the action id where the seat sees it, ``-1`` where it
  does not; a game may add entries for what automatic steps reveal), so the string is the
  canonical JSON of ``{"observation": observation(player), "views": views[player]}``. Two
  states have the same information state for a seat iff the seat cannot tell their
  histories apart (the current observation may conflate histories, e.g. a first roll that
  was re-rolled). A perfect-information game's observation is the whole state, so there
  both strings are the observation's JSON.
* Determinization: ``resample_from_infostate(player, rng)`` is defined as
  ``game._sample_infostate(player, state.observation(player), views[player], rng)`` (by
  default the rebuild behind ``state_from_observation``, without re-checking the seat's own
  observation against the schema; a game whose belief depends on the order of past events
  also reads the seat's log) with the seat's own ``views`` log copied, so by
  construction it reads nothing but the seat's information state — the property
  "bots never peek" rests on this. The other seats' past is unknown to the seat: their
  logs in the sample start with ``None`` ("unknown past"), as in every state rebuilt from
  an observation. Its hidden parts are drawn from the seat's exact posterior given the
  chance probabilities and what it observed; other seats' decisions are treated as
  uninformative beyond their legality (a decision counts only as "it was legal in that
  world", the policy-free convention of PIMC / IS-MCTS determinization; each game
  documents its priors for choices the seat cannot see).
* ``returns()`` is the game-theoretic result: a win 1, a loss 0, a k-way shared win 1/k
  (0 for everybody before the end). ``scores()`` are the rulebook's points;
  ``automaton_scores()`` those of a solo game's automated rivals (First Rat's Greg), whom
  ``returns()`` measures the seat against.

Writing a new game: subclass :class:`Game` and :class:`State`, implement the abstract
methods, and add the game to ``ratai.engines._REGISTRY``. The conformance suite
``tests/engines/test_contract.py`` then runs on it automatically.
"""

from __future__ import annotations

import copy
import json
import marshal
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar

import numpy as np

from .obs_schema import ObservationError

__all__ = [
    "CHANCE",
    "SIMULTANEOUS",
    "INVALID",
    "TERMINAL",
    "IllegalActionError",
    "ObservationError",
    "UnknownGameError",
    "Param",
    "Game",
    "State",
    "make_rng",
    "canonical_json",
    "check_player",
    "check_actor",
    "SPECIAL_PLAYERS",
    "SAFETY_VALVE_MAX",
    "short_repr",
    "read_component_json",
    "read_user_file",
    "parse_json",
    "MAX_DATA_BYTES",
    "sample_chance_outcome",
    "keep_views",
    "rewound_views",
    "unknown_views",
]

#: ``current_player()`` at a chance node (OpenSpiel's kChancePlayerId).
CHANCE = -1
#: ``current_player()`` when several seats decide at once (only in joint-action views).
SIMULTANEOUS = -2
#: Not a player (e.g. the actor of a chance outcome in ``action_to_string``).
INVALID = -3
#: ``current_player()`` once the game is over (OpenSpiel's kTerminalPlayerId).
TERMINAL = -4


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to.

    Attributes:
        action: the rejected action (whatever was passed).
        legal: the legal action ids at that moment (sorted ``list[int]``).
        labels: ``{action: label}`` for the legal actions, for messages.

    The state is left exactly as it was before the call.
    """

    def __init__(self, action: Any, legal: Sequence[int], labels: Mapping[int, str] | None = None,
                 reason: str = ""):
        self.action = action
        self.legal = list(legal)
        self.labels = dict(labels or {})
        self.reason = reason
        shown = ", ".join(
            f"{a} ({self.labels[a]})" if a in self.labels else str(a) for a in self.legal
        )
        why = f" ({reason})" if reason else ""
        super().__init__(f"illegal action {action!r}{why}; legal actions: [{shown}]")

    def __reduce__(self):   # picklable (it crosses process pools), attributes kept
        return type(self), (self.action, self.legal, self.labels, self.reason)


class UnknownGameError(LookupError):
    """``load_game`` was asked for a name that is not registered."""


def make_rng(rng: Any) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from anything ``default_rng`` accepts.

    A ``Generator`` is returned as is (so draws continue its stream); an ``int`` seed or
    ``None`` makes a new one.
    """
    return np.random.default_rng(rng)


def check_player(player: Any, num_players: int) -> int:
    """``player`` as a plain ``int`` seat, accepting Python and numpy integers.

    Raises:
        ValueError: not an integer (bools and floats included) or not in ``0..num_players-1``.
    """
    if isinstance(player, bool) or not isinstance(player, int | np.integer) \
            or not 0 <= int(player) < num_players:
        raise ValueError(f"bad player {player!r}: allowed an int from 0 to {num_players - 1}")
    return int(player)


#: The ids ``legal_actions(player)`` accepts besides seats (it returns ``[]`` for them, or the
#: chance outcomes for ``CHANCE`` at a chance node).
SPECIAL_PLAYERS = (CHANCE, SIMULTANEOUS, INVALID, TERMINAL)


def check_actor(player: Any, num_players: int) -> int | None:
    """``player`` of ``legal_actions(player)``: ``None``, a seat or one of
    :data:`SPECIAL_PLAYERS`, as a plain ``int`` (Python and numpy integers).

    Raises:
        ValueError: anything else (bools, floats, strings, other ints), so a wrong seat is
            an error rather than an empty list that reads as "no legal move".
    """
    if player is None:
        return None
    if isinstance(player, bool) or not isinstance(player, int | np.integer) or not (
            0 <= int(player) < num_players or int(player) in SPECIAL_PLAYERS):
        raise ValueError(f"bad player {player!r}: allowed None, an int from 0 to "
                         f"{num_players - 1}, or one of {list(SPECIAL_PLAYERS)} (chance, "
                         f"simultaneous, invalid, terminal)")
    return int(player)


def parse_json(text: str | bytes, **kw: Any) -> Any:
    """``json.loads(text, **kw)`` where every malformed document is a ``ValueError``:
    JSON's own ``JSONDecodeError``, an integer of more than Python's 4,300 digits, and
    nesting deeper than the parser's recursion (``json`` raises ``RecursionError`` there:
    here "nested too deeply")."""
    try:
        return json.loads(text, **kw)
    except RecursionError:
        raise ValueError("nested too deeply") from None


#: The largest component data file :func:`read_component_json` reads (bytes; the packaged
#: ones take 2-40 KB).
MAX_DATA_BYTES = 16 * 2**20


def read_user_file(path: Any, what: str, max_bytes: int) -> str:
    """The UTF-8 text of a file a user named (a ``data_path``, a saved game, a history).

    Only a regular file is read, and at most ``max_bytes`` bytes: a device (``/dev/zero``),
    a named pipe (opened without blocking) or a directory is refused, never read forever.

    Raises:
        ValueError: naming ``what`` and ``path``: unreadable, not a regular file, larger
            than ``max_bytes``, or not UTF-8.
    """
    bad = f"bad value {short_repr(path)} for {what}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, TypeError, ValueError) as exc:
        raise ValueError(f"{bad}: {exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{bad}: not a regular file")
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise ValueError(f"{bad}: {exc}") from None
    finally:
        os.close(fd)
    if len(raw) > max_bytes:
        raise ValueError(f"{bad}: larger than {max_bytes:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{bad}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_component_json(package: str, filename: str, path: str | None) -> tuple[Any, str]:
    """A game's component data: the packaged ``filename`` of ``package`` (``path=None``) or
    the JSON file at ``path`` (the ``data_path`` parameter). Returns ``(document, source)``,
    ``source`` naming the file for error messages.

    Raises:
        ValueError: the file cannot be read (naming ``data_path``), is not a regular file
            (a device such as ``/dev/zero`` would be read forever), is larger than
            :data:`MAX_DATA_BYTES`, or is not valid JSON.
    """
    if path is None:
        text = resources.files(package).joinpath(filename).read_text()
        source = filename
    else:
        text = read_user_file(path, "parameter 'data_path'", MAX_DATA_BYTES)
        source = str(path)
    try:
        return parse_json(text), source
    except ValueError as exc:
        raise ValueError(f"{source}: not valid JSON: {exc}") from None


def sample_chance_outcome(state: State, rng: np.random.Generator) -> int:
    """A chance outcome of ``state`` (a chance node) drawn by its probability with ``rng``.

    This is how every ratai tool resolves chance nodes (arena, terminal play, playthroughs),
    so a seed reproduces a game everywhere.
    """
    outcomes = state.chance_outcomes()
    probs = np.array([p for _, p in outcomes])
    return int(outcomes[rng.choice(len(outcomes), p=probs / probs.sum())][0])


def canonical_json(obj: Any) -> str:
    """Compact JSON with sorted keys: the canonical text of an observation."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def short_repr(value: Any, limit: int = 100) -> str:
    """``repr(value)`` cut to ``limit`` characters (then ``...`` and the full length), for
    error messages that quote a caller's input."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


#: The largest value of a safety-valve parameter (Rat Trap's ``max_turns_per_round``, Rats to
#: Riches' ``max_turn_actions``): 50 times their defaults, and small enough for the twins'
#: 32-bit counters and for ``max_game_length``.
SAFETY_VALVE_MAX = 10_000


@dataclass(frozen=True)
class Param:
    """One game parameter: its name, default, allowed type and values, and meaning.

    ``choices`` limits the values (``None``: any value of ``type``); ``check`` is an extra
    predicate for ranges. ``validate`` raises ``ValueError`` naming the parameter and what
    is allowed. ``cosmetic``: the parameter changes only names shown to people (labels,
    renders, observation strings), never a rule, an action id or an observation tensor's
    values, so a network trained with its default plays any value (Ratapolis' ``colors``).
    """

    name: str
    default: Any
    type: type
    doc: str = ""
    choices: tuple | None = None
    check: Callable[[Any], bool] | None = field(default=None, compare=False)
    allowed: str = ""
    cosmetic: bool = False

    def validate(self, value: Any) -> Any:
        if self.type is bool:
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
                value = value.lower() in ("true", "1")
            ok = isinstance(value, bool) or value in (0, 1)
            value = bool(value) if ok else value
        elif self.type is int:
            text = value.strip() if isinstance(value, str) else ""
            digits = text[1:] if text.startswith("-") else text
            if digits.isascii() and digits.isdigit():   # "3" from a command line; not "٣"
                value = int(text)
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.type is str and value is None and self.default is None:
            ok = True
        else:
            ok = isinstance(value, self.type)
        if ok and self.choices is not None:
            ok = value in self.choices
        if ok and self.check is not None:
            ok = self.check(value)
        if not ok:
            allowed = self.allowed or (
                "one of " + ", ".join(map(repr, self.choices)) if self.choices
                else f"a {self.type.__name__}")
            raise ValueError(f"bad value {short_repr(value)} for parameter {self.name!r}: "
                             f"allowed {allowed}")
        return value

    def describe(self) -> dict:
        """JSON-able description (for catalogues such as the service's ListGames)."""
        return {"name": self.name, "default": self.default, "type": self.type.__name__,
                "choices": list(self.choices) if self.choices else None,
                "allowed": self.allowed, "doc": self.doc, "cosmetic": self.cosmetic}


class Game(ABC):
    """A game with fixed parameters: a factory of states and the game's constants.

    Subclasses set the class attributes and implement the abstract methods. Instances are
    immutable and compare equal when their name and parameters are equal.

    Raises:
        ValueError: at construction, for an unknown parameter or a bad value, naming it.
    """

    #: Registry name (``load_game`` key), e.g. ``"rat_trap"``.
    name: ClassVar[str] = ""
    #: Human title, e.g. ``"Rat Trap"``.
    title: ClassVar[str] = ""
    #: Short rules summary (a few sentences) for catalogues.
    summary: ClassVar[str] = ""
    #: Parameters with defaults; ``num_players`` is always one of them.
    param_specs: ClassVar[tuple[Param, ...]] = ()
    #: False when some seat may lack information another has (hidden cards, secret plans).
    perfect_information: ClassVar[bool] = False
    #: True when a seat's decision can be hidden from another seat: two of its legal moves
    #: leave that seat the same information state but different states (Ratapolis' secret
    #: plans; Rat Trap's Manipulator's order with roles, a property of the game's params
    #: there). Tree searches then continue after such a move by what the searching seat
    #: observes of it (``ratai.search.ismcts``, ``opponent_key="auto"``).
    hidden_moves: ClassVar[bool] = False
    #: Named parameter sets covering the rulebook's variants and player counts
    #: (``{"name": {param: value}}``); the conformance suite and the CLI use them.
    variants: ClassVar[dict[str, dict[str, Any]]] = {"default": {}}
    #: State fields that only some states carry (instance fields over a class default, e.g.
    #: Rat Trap's ``observer`` of a belief's world); ``deserialize_state`` accepts them.
    _optional_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **params: Any):
        specs = {p.name: p for p in self.param_specs}
        unknown = sorted(set(params) - set(specs))
        if unknown:
            raise ValueError(f"unknown parameter(s) {unknown} for game {self.name!r}; "
                             f"known: {sorted(specs)}")
        values = {name: spec.default for name, spec in specs.items()}
        for name, value in params.items():
            values[name] = specs[name].validate(value)
        self.params: dict[str, Any] = self._check_params(values)

    def _check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Cross-parameter checks (e.g. a variant only for some player counts).

        Returns the (possibly normalised) dict; raises ``ValueError`` naming the parameter.
        """
        return params

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params

    def __hash__(self) -> int:
        return hash((self.name, canonical_json(self.params)))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"load_game({self.name!r}, {args})"

    # -- constants ------------------------------------------------------------------
    def num_players(self) -> int:
        """Number of seats that take decisions (``0..n-1``)."""
        return int(self.params["num_players"])

    @abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the action id space (player decisions and chance outcomes together)."""

    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of actions (decisions + chance outcomes) in a game."""

    @abstractmethod
    def new_initial_state(self) -> State:
        """The state before the first action (often a chance node for the setup)."""

    # -- (de)serialization ---------------------------------------------------------------
    def deserialize_state(self, data: bytes | str, *, validate: bool = True) -> State:
        """Inverse of :meth:`State.serialize`.

        With ``validate`` (the default, for bytes from outside: a file, a client), the loaded
        state must be playable (a seat to move with legal actions, chance outcomes summing
        to 1, or over; on a twin also as the twin reads the fields) and every seat's
        ``observation`` of it must match :meth:`observation_schema` (types and ranges of
        every field some seat can see: all of a perfect-information game's), so an
        out-of-range value is a ``ValueError`` here, not a crash of the compiled twin later.
        Fields no seat sees (a face-down pile's order, the engine's pending steps) are
        checked only through playability. ``validate=False`` skips the checks (10-50 ms)
        for bytes this process or its workers wrote.

        Raises:
            ValueError: the bytes are not a serialized state of this game and parameters,
                or (with ``validate``) the state is not playable or a seat's view of it
                breaks the schema (the field named).
        """
        try:
            doc = parse_json(data)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a serialized {self.name} state: {exc}") from None
        if not isinstance(doc, dict) or set(doc) != {"game", "params", "fields", "history"}:
            raise ValueError(f"not a serialized {self.name} state: expected the keys game, "
                             "params, fields, history")
        if doc["game"] != self.name or doc["params"] != _jsonable(self.params):
            raise ValueError(f"serialized state is for {doc['game']!r} {doc['params']}, "
                             f"not {self!r}")
        state = self.new_initial_state()
        fields, history = doc["fields"], doc["history"]
        if not isinstance(fields, dict) or \
                not set(state._fields()) <= set(fields) <= set(state._fields()) | set(
                    self._optional_fields):
            raise ValueError(f"serialized 'fields' must hold exactly the {self.name} state "
                             f"fields {sorted(state._fields())}" + (
                                 f" (and may hold {sorted(self._optional_fields)})"
                                 if self._optional_fields else ""))
        if not isinstance(history, list) or any(
                isinstance(a, bool) or not isinstance(a, int) for a in history):
            raise ValueError("serialized 'history' must be a list of action ids")
        state._set_fields(fields)
        state._history = list(history)
        if validate:
            self._check_loaded(state)
        return state

    def _check_loaded(self, state: State, schema: bool = True) -> None:
        """A deserialized ``state`` must be playable (a seat, chance, simultaneous or over;
        a decision with legal actions; chance outcomes summing to 1) and, with ``schema``,
        every seat's observation of it must match the schema."""
        try:
            cp = state.current_player()
            if cp == CHANCE:
                ok = abs(sum(p for _, p in state.chance_outcomes()) - 1.0) <= 1e-9
            elif cp == SIMULTANEOUS:
                ok = any(state.legal_actions(p) for p in range(self.num_players()))
            else:
                ok = cp == TERMINAL or (0 <= cp < self.num_players()
                                        and bool(state.legal_actions()))
        except Exception as exc:  # noqa: BLE001 - any failure means a malformed state
            raise ValueError(f"not a valid {self.name} state: {type(exc).__name__}: "
                             f"{str(exc)[:200]}") from None
        if not ok:
            raise ValueError(f"not a valid {self.name} state: current player {cp!r} has no "
                             f"legal move (or the chance outcomes do not sum to 1)")
        for p in range(self.num_players() if schema else 0):
            try:
                obs = state.observation(p)
            except Exception as exc:  # noqa: BLE001 - any failure means a malformed state
                raise ValueError(f"not a valid {self.name} state: seat {p}'s observation "
                                 f"fails ({type(exc).__name__}: {str(exc)[:200]})") from None
            try:
                self.validate_observation(obs)
            except NotImplementedError:
                return
            except ValueError as exc:
                raise ValueError(f"not a valid {self.name} state: seat {p}'s view of it: "
                                 f"{exc}") from None

    def state_from_history(self, history: Sequence[int]) -> State:
        """Replay ``history`` from the initial state.

        Raises:
            IllegalActionError: an action of the history is illegal where it is applied.
            ValueError: ``history`` is not a sequence of action ids (e.g. ``None``).
        """
        if isinstance(history, str | bytes) or not isinstance(history, Sequence | np.ndarray):
            raise ValueError(f"bad history {short_repr(history)}: allowed a sequence of "
                             f"action ids")
        state = self.new_initial_state()
        for action in history:
            state.apply_action(action)
        return state

    def heuristic_value(self, state: State, player: int) -> float:
        """A quick estimate in [0, 1] of how well seat ``player`` stands in ``state``.

        Used by the heuristic bot and as a search cut-off evaluation. It reads only
        ``state.observation(player)`` (never hidden parts), so it cannot peek. Each game
        documents what it rewards.
        """
        raise NotImplementedError(f"{self.name} has no heuristic_value")

    # -- the observation's schema and numeric encoding (engines/obs_schema.py) -------------
    def _observation_schema(self) -> dict:
        """The schema document of ``observation(player)`` for these parameters: by
        convention ``observation_schema(game)`` of the game package's ``schema`` module,
        built with :mod:`ratai.engines.obs_schema`."""
        import importlib

        try:
            module = importlib.import_module(f"ratai.engines.{self.name}.schema")
        except ModuleNotFoundError:
            raise NotImplementedError(f"{self.name} has no observation schema") from None
        return module.observation_schema(self)

    def _params_key(self) -> tuple[str, str]:
        """``(name, canonical JSON of the parameters)``: the key of the per-process caches of
        what the parameters alone decide (schema, tensor layout, seat maps)."""
        return (self.name, canonical_json(_jsonable(self.params)))

    def _obs_spec(self):
        key = self._params_key()
        spec = _OBS_SPECS.get(key)
        if spec is None:
            from .obs_schema import ObservationSpec

            spec = _OBS_SPECS[key] = ObservationSpec(self.name, self._observation_schema(),
                                                     self._tensor_layout())
        return spec

    def _tensor_layout(self):
        """The ``obs_schema.TensorLayout`` of these parameters, built once per process and
        shared (read-only) by every game of equal parameters: the twins' compiled tensor
        writers index it whenever a game is created (``_speedups/core.pyx`` ``ObsLayout``),
        and building it costs several ms."""
        key = self._params_key()
        layout = _TENSOR_LAYOUTS.get(key)
        if layout is None:
            from .obs_schema import TensorLayout

            layout = _TENSOR_LAYOUTS[key] = TensorLayout(self._observation_schema())
        return layout

    def observation_schema(self) -> dict:
        """The JSON Schema (draft 2020-12) of ``State.observation(player)`` for this game and
        these parameters: every field with its rulebook meaning (a new copy per call).
        Reference docs: ``docs/observations/<game>.md``."""
        return copy.deepcopy(self._obs_spec().document)

    def validate_observation(self, observation: Any) -> None:
        """Check an ``observation(player)`` dict from a client against the schema.

        Raises:
            ObservationError: (a ``ValueError``) listing every error with its JSON path.
        """
        self._obs_spec().validate(observation)

    def observation_tensor_shape(self) -> tuple[int, ...]:
        """Shape of ``State.observation_tensor(player)``: ``(size,)``, fixed per game and
        parameters (the layout is in ``docs/observations/<game>.md``)."""
        return (self._obs_spec().layout.size,)

    def observation_tensor_layout(self) -> list:
        """The tensor's slices (``obs_schema.TensorSlice``: path, start, size, encoding)."""
        return list(self._obs_spec().layout.slices)

    # -- seat-relative views (the az network's mover-first input, ratai/nn/model.py) --------
    def observation_seat_permutation(self, player: int) -> np.ndarray:
        """``observation_tensor(player)[perm]`` is the seat-relative tensor of ``player``:
        every per-seat list and seat value of the schema renumbered ``(s - player) mod n``,
        so ``player``'s own entries come first, then the next seats in turn order
        (``obs_schema.TensorLayout.seat_permutation``; fields that hold a seat as a number
        stay absolute).

        Returns:
            read-only ``int64`` array of shape ``observation_tensor_shape()``.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        return self._obs_spec().layout.seat_permutation(check_player(player,
                                                                     self.num_players()))

    def _action_seat_blocks(self) -> Sequence[tuple[int, int]]:
        """The action-id blocks that name a seat, as ``(base, stride)``: id ``base +
        s * stride + o`` (``0 <= o < stride``) names seat ``s`` for every seat ``s <
        num_players()``. Default: no action names a seat."""
        return ()

    def action_seat_permutation(self, player: int) -> np.ndarray:
        """The seat-relative action ids of ``player``: ``perm[a]`` is action ``a`` with the
        seat it names (a target, a colour) renumbered ``(s - player) mod n``; ids that name
        no seat map to themselves. A permutation of ``range(num_distinct_actions())``.

        Returns:
            read-only ``int64`` array of shape ``(num_distinct_actions(),)``.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        player = check_player(player, self.num_players())
        key = (*self._params_key(), int(player))
        perm = _ACTION_PERMS.get(key)
        if perm is None:
            n = self.num_players()
            perm = np.arange(self.num_distinct_actions(), dtype=np.int64)
            for base, stride in self._action_seat_blocks():
                ids = base + np.arange(n * stride).reshape(n, stride)
                perm[ids] = ids[(np.arange(n) - player) % n]
            perm = self._extend_action_seat_permutation(perm)
            perm.setflags(write=False)
            _ACTION_PERMS[key] = perm
        return perm

    def _extend_action_seat_permutation(self, perm: np.ndarray) -> np.ndarray:
        """Hook for ids made of other ids (Ratapolis' joint plans): ``perm`` holds the
        blocks' map, identity elsewhere. Default: unchanged."""
        return perm

    def state_from_observation(self, player: int, observation: Mapping[str, Any],
                               rng: Any = None) -> State:
        """A full state consistent with ``observation`` (an ``observation(player)`` dict).

        Hidden parts are sampled as in ``State.resample_from_infostate``; the result depends
        only on ``observation``, ``player`` and ``rng``. The rebuilt state has an empty
        ``history()`` (its past is not known). This is the entry point for observations
        from outside (a client, a file): the observation is first checked against
        :meth:`observation_schema`, which reports every structural error at once.

        Raises:
            ObservationError: (a ``ValueError``) the observation does not match the schema;
                ``errors`` lists every ``(json_path, message)``.
            ValueError: ``player`` is not a seat, or the observation is impossible (the
                game's rebuild names the field, e.g. card counts that do not add up).
        """
        check_player(player, self.num_players())
        if isinstance(observation, Mapping) and observation.get("player", player) != player:
            raise ValueError(f"observation field 'player': the observation is seat "
                             f"{observation.get('player')!r}'s, not seat {player}'s")
        try:
            self.validate_observation(observation)
            # JSON Schema's integers include 1.0 (a JSON number, a protobuf double): the
            # rebuild reads them as ints
            observation = self._obs_spec().integers(observation)
        except NotImplementedError:
            pass
        return self._state_from_observation(player, observation, rng)

    @abstractmethod
    def _state_from_observation(self, player: int, observation: Mapping[str, Any],
                                rng: Any = None) -> State:
        """:meth:`state_from_observation` without the schema check: the game's rebuild
        (and determinization, which calls it with the seat's own, trusted observation)."""

    def _sample_infostate(self, player: int, observation: Mapping[str, Any],
                          views: list | None, rng: Any = None) -> State:
        """Determinization from seat ``player``'s whole information state: its (trusted)
        ``observation`` and its ``views`` log (perfect recall; None where unknown). The
        default rebuilds from the observation alone (:meth:`_state_from_observation`), exact
        where the current view holds everything the past tells; a game whose belief depends
        on the order of past events reads the log (Rat Trap: ``engines/belief.py``). The
        sample's logs are left to the caller (:func:`keep_views`)."""
        return self._state_from_observation(player, observation, rng)


class State(ABC):
    """A position of a game. Subclasses implement the underscored primitives.

    Mutable fields must be plain JSON data (ints, floats, strings, ``None``, lists and
    dicts with string keys) stored as instance attributes; ``clone``, ``serialize`` and
    ``__eq__`` are built on that (``clone`` and the exact filter's ``_world_key`` through
    ``marshal``, which would write a numpy array, ``bytearray`` or any other buffer as
    ``bytes``: such fields are outside the contract; ``serialize`` refuses them too).
    """

    def __init__(self, game: Game):
        self._game = game
        self._history: list[int] = []

    # -- primitives a game implements -------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act (``0..n-1``), or ``CHANCE``, ``SIMULTANEOUS`` or ``TERMINAL``."""

    @abstractmethod
    def _legal_actions(self) -> list[int]:
        """Sorted legal decisions of the current player (called only at decision nodes)."""

    @abstractmethod
    def _chance_outcomes(self) -> list[tuple[int, float]]:
        """``(action, probability)`` sorted by action (called only at chance nodes)."""

    @abstractmethod
    def _apply_action(self, action: int) -> None:
        """Apply an action known to be legal (the unchecked fast path)."""

    @abstractmethod
    def _action_to_string(self, player: int, action: int) -> str:
        """Label of ``action`` taken by ``player`` (``CHANCE`` for outcomes) in this state."""

    @abstractmethod
    def scores(self) -> list[float]:
        """The rulebook's points for each seat, now (shape ``[num_players]``)."""

    def automaton_scores(self) -> list[float]:
        """Points of the game's automated rivals, now: the non-player opponents of a solo
        game (First Rat's Greg the Robo-Rat, rulebook "Solo Play"), whom a seat must beat
        and whose turns are chance nodes; ``[]`` when the game has none (shape
        ``[rivals]``)."""
        return []

    @abstractmethod
    def _returns(self) -> list[float]:
        """Results at a terminal state (win 1, loss 0, k-way shared win 1/k)."""

    @abstractmethod
    def observation(self, player: int) -> dict:
        """Everything seat ``player`` knows now, as a JSON-serialisable dict."""

    # -- the public contract ------------------------------------------------------------
    def get_game(self) -> Game:
        return self._game

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_player_node(self) -> bool:
        return self.current_player() >= 0

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted, unique legal action ids; empty at terminal states.

        At a chance node these are the outcomes' actions. With ``player`` given, the
        actions of that seat (empty when it is not that seat's turn). At a ``SIMULTANEOUS``
        node (joint-action views only) a game returns each seat's own actions for
        ``legal_actions(seat)``, and the moves are applied together with :meth:`apply_actions`.

        Raises:
            ValueError: ``player`` is not ``None``, a seat or a special id
                (:func:`check_actor`).
        """
        player = check_actor(player, self._game.num_players())
        cp = self.current_player()
        if cp == TERMINAL:
            return []
        if cp == CHANCE:
            return [] if player not in (None, CHANCE) else [a for a, _ in self._chance_outcomes()]
        if player is not None and player != cp:
            return []
        return self._legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(action, probability), ...]`` at a chance node (probabilities sum to 1).

        Raises:
            ValueError: the state is not a chance node.
        """
        if not self.is_chance_node():
            raise ValueError("chance_outcomes() called at a state that is not a chance node")
        return self._chance_outcomes()

    def apply_action(self, action: int) -> None:
        """Apply a legal action (decision or chance outcome) and record it in the history.

        Raises:
            IllegalActionError: ``action`` is not legal here (message lists the legal
                actions with labels); the state is unchanged.
        """
        legal = self.legal_actions()
        if isinstance(action, bool) or not isinstance(action, int | np.integer) \
                or int(action) not in legal:
            reason = "the game is over" if self.is_terminal() else ""
            cp = self.current_player()
            labels = {a: self._action_to_string(cp, a) for a in legal}
            raise IllegalActionError(action, legal, labels, reason)
        action = int(action)
        self._apply_action(action)
        self._history.append(action)

    def apply_actions(self, actions: Sequence[int]) -> None:
        """Apply one action per seat at a ``SIMULTANEOUS`` node (joint-action views).

        Raises:
            IllegalActionError: an action is not legal for its seat (nothing is applied).
            ValueError: this state is not a simultaneous node (the default: the game has no
                joint-action view).
        """
        raise ValueError(f"{self._game.name}: apply_actions needs a SIMULTANEOUS node "
                         f"(current player: {self.current_player()})")

    def history(self) -> list[int]:
        """The actions applied since the initial state (decisions and chance outcomes)."""
        return list(self._history)

    def move_number(self) -> int:
        """Number of actions applied so far (``len(history())``)."""
        return len(self._history)

    def returns(self) -> list[float]:
        """Game results per seat: win 1, loss 0, k-way shared win 1/k; zeros before the end."""
        if not self.is_terminal():
            return [0.0] * self._game.num_players()
        return self._returns()

    def action_to_string(self, player: int, action: int) -> str:
        """Human label of ``action`` taken by ``player`` here (``CHANCE`` for outcomes)."""
        return self._action_to_string(player, action)

    def string_to_action(self, player: int, text: str) -> int:
        """The legal action whose label is ``text`` (or the id as digits).

        Raises:
            IllegalActionError: no legal action has that label.
        """
        legal = self.legal_actions()
        for a in legal:  # labels are unique (the contract), so the first match is the one
            if self._action_to_string(player, a) == text:
                return a
        if isinstance(text, int | np.integer) and not isinstance(text, bool) and text in legal:
            return int(text)
        digits = text.strip() if isinstance(text, str) else ""
        if digits.isascii() and digits.isdigit() and int(digits) in legal:  # not "٣"
            return int(digits)
        labels = {a: self._action_to_string(player, a) for a in legal}
        raise IllegalActionError(text, legal, labels, "no legal action has that label")

    def action_to_dict(self, player: int, action: int) -> dict:
        """JSON description of an action for clients: ``{"action", "label", "player"}``."""
        return {"action": int(action), "label": self._action_to_string(player, action),
                "player": int(player)}

    def describe_action(self, viewer: int | None, action: int) -> str:
        """``action`` (about to be applied here) as seat ``viewer`` perceives it.

        ``viewer=None`` is a spectator who sees only public information. The default shows
        decisions to everyone and hides chance outcomes; games with partly public outcomes
        (a revealed trap, a public die roll) override it.
        """
        cp = self.current_player()
        if cp == CHANCE:
            return "(hidden chance outcome)"
        return self._action_to_string(cp, action)

    def render(self, player: int) -> str:
        """Readable text of the state as seat ``player`` sees it (terminal play, ``ansi`` mode).

        Reads only ``observation(player)``; the default prints it as indented JSON.
        """
        return json.dumps(self.observation(player), indent=1, sort_keys=True)

    def information_state_string(self, player: int) -> str:
        """The seat's information state with perfect recall (OpenSpiel's meaning): equal iff
        the seat cannot tell the two histories apart.

        Hidden-information games: canonical JSON of ``{"observation": observation(player),
        "views": views[player]}`` (the seat's view of every action so far, see the module
        docstring); perfect-information games: :meth:`observation_string`.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        views = self.__dict__.get("views")
        if views is None:
            return self.observation_string(player)
        obs = self.observation(player)  # checks the seat
        return canonical_json({"observation": obs, "views": views[player]})

    def observation_string(self, player: int) -> str:
        """Canonical JSON of ``observation(player)``: the seat's current view (no history).

        Raises:
            ValueError: ``player`` is not a seat.
        """
        return canonical_json(self.observation(player))

    def _view_codes(self, action: int) -> list[int]:
        """Each seat's view of ``action`` (about to be applied here), for the ``views`` log of
        a hidden-information game: the action id where the seat sees it, ``-1`` where it
        does not (a game may use other negative codes for partial views). The default: every
        seat sees every action."""
        return [action] * self._game.num_players()

    def _log_views(self, action: int) -> None:
        """Append each seat's view of ``action`` (not yet applied) to ``views``; a game with
        hidden information calls it first in its ``_apply_action`` (every path applies)."""
        views = self.__dict__.get("views")
        if views is not None:
            for log, code in zip(views, self._view_codes(action), strict=True):
                log.append(code)

    # -- the exact belief's step (engines/belief.py) -------------------------------------
    def _view_code(self, action: int, player: int) -> int:
        """Seat ``player``'s view of ``action`` (not yet applied): ``_view_codes``'s entry."""
        return self._view_codes(action)[player]

    def _apply_seen(self, action: int, player: int) -> list:
        """Apply a legal ``action`` and return seat ``player``'s ``views`` entries of the step
        (its view of the action, then what automatic steps showed it); the logs keep only
        this step (a state of the exact filter, ``engines/belief.py``)."""
        self.views = [[] for _ in self.views]
        self._apply_action(action)
        return self.views[player]

    def _world_key(self) -> bytes | str:
        """The state's identity for merging in the exact filter: every field but the
        ``views`` logs and the history (equal keys iff equal states: ``marshal``'s bytes of
        the plain JSON data the class contract requires, ~6x faster to write than ``repr``,
        which a type marshal refuses falls back to)."""
        fields = [v for k, v in self.__dict__.items() if k not in ("_game", "_history", "views")]
        try:
            return marshal.dumps(fields, _MARSHAL)
        except ValueError:
            return repr(fields)

    def _hidden_weight(self, action: int) -> float:
        """The prior of ``action`` at a decision the seat cannot see (every legal action
        leaves its view the same): 1 each by default (each consistent history counts once);
        a game documents another (Rat Trap: the Manipulator's order is a uniform shuffle)."""
        return 1.0

    def rewind_hidden_moves(self, player: int) -> list[int | None]:
        """Rewind this state to just before the first move of another seat that is hidden
        from ``player`` now (Ratapolis: a rival's committed plan cells of this round, RP-2),
        and return the moves to replay from there, in order: ``player``'s own as action
        ids, ``None`` for a hidden move of another seat (any legal move of the seat to act
        then). Replaying the original moves gives this state back: its fields always; its
        history and ``views`` logs where they hold the rewound moves (a log whose known
        part is shorter, as in a state rebuilt from an observation, whose past is unknown,
        restarts as ``[None]`` and then logs the replayed moves; the history keeps what it
        had). ``[]``, state unchanged, where nothing is hidden from ``player`` or the
        engine does not rewind: the default, every game but Ratapolis (Rat Trap's hidden
        decision, the Manipulator's order, stays with its rules' uniform shuffle,
        ``_hidden_weight``).

        A search that models how other seats play redraws those moves in a determinization
        from its model (``az`` with ``hidden_moves="policy"``, ``ratai.search.az``); the
        rules' sampler (``resample_from_infostate``) draws them with ``_hidden_weight``.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        check_player(player, self._game.num_players())
        return []

    def _rewind_logs(self, count: int) -> None:
        """Drop the last ``count`` actions from the history and the ``views`` logs
        (:meth:`rewind_hidden_moves`; each of those actions logged one entry per seat)."""
        if count and self._history:
            del self._history[max(0, len(self._history) - count):]
        views = self.__dict__.get("views")
        if count and views is not None:
            self.views = rewound_views(views, count)

    def resample_from_infostate(self, player: int, rng: Any = None) -> State:
        """A full state the seat cannot tell from this one, hidden parts sampled (determinization).

        Depends only on ``information_state_string(player)`` and ``rng`` (an int seed or a
        ``numpy.random.Generator``): equal information states give equal samples for equal
        seeds. The sample has an empty history; its ``views`` log for ``player`` is this
        state's (so ``information_state_string(player)`` is equal), the other seats' logs
        start with ``None`` (their past is unknown to ``player``).
        """
        views = self.__dict__.get("views")
        sample = self._game._sample_infostate(player, self.observation(player),
                                              views[player] if views else None, rng)
        return keep_views(self, sample, player)

    # -- copying, equality, serialization ----------------------------------------------
    def observation_tensor(self, player: int, out: np.ndarray | None = None) -> np.ndarray:
        """``observation(player)`` as a ``float32`` vector of ``game.observation_tensor_shape()``.

        Computed from the observation dict alone (so it holds nothing the seat cannot see,
        and both backends give the same tensor); the layout (slice -> field, scaling) is
        ``game.observation_tensor_layout()`` and ``docs/observations/<game>.md``.

        Args:
            out: a caller's ``float32`` buffer of that shape to write into, or ``None``.

        Raises:
            ValueError: ``player`` is not a seat; ``out`` is not a writeable float array
                of that shape.
        """
        return self._game._obs_spec().encode(self.observation(player), out)

    def legal_actions_mask(self, player: int | None = None) -> np.ndarray:
        """``bool`` vector of shape ``(game.num_distinct_actions(),)``: True at
        ``legal_actions(player)`` (the policy head's mask)."""
        mask = np.zeros(self._game.num_distinct_actions(), dtype=bool)
        mask[self.legal_actions(player)] = True
        return mask

    def _fields(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_game", "_history")}

    def _set_fields(self, fields: Mapping[str, Any]) -> None:
        for key, value in fields.items():
            setattr(self, key, copy.deepcopy(value))

    def clone(self) -> State:
        """An independent deep copy (sharing only the immutable ``Game``)."""
        new = object.__new__(type(self))
        d = self.__dict__
        fields = copy_fields({k: v for k, v in d.items() if k != "_game"})
        fields["_game"] = d["_game"]
        new.__dict__ = fields
        return new

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and other._game == self._game
                and other._fields() == self._fields())

    __hash__ = None  # mutable

    def serialize(self) -> bytes:
        """Exact bytes of this state (fields and history); see ``Game.deserialize_state``."""
        return json.dumps({"game": self._game.name, "params": _jsonable(self._game.params),
                           "fields": self._fields(), "history": self._history},
                          separators=(",", ":")).encode()

    def to_json(self) -> dict:
        """A readable dict of the full state (for humans and debugging; includes hidden parts)."""
        return {"game": self._game.name, "params": _jsonable(self._game.params),
                "current_player": self.current_player(), **self._fields()}

    def __str__(self) -> str:
        return json.dumps(self.to_json(), indent=1)


def unknown_views(num_players: int) -> list[list]:
    """The ``views`` log of a state rebuilt from an observation: every seat's past unknown
    (one ``None`` entry, then the views of actions applied afterwards)."""
    return [[None] for _ in range(num_players)]


def rewound_views(views: list, count: int) -> list:
    """``views`` logs without their last ``count`` entries (``State.rewind_hidden_moves``);
    a log whose known part (after its unknown ``None`` start) is shorter than ``count``
    restarts unknown (``[None]``). A new list; ``views`` is not changed."""
    out = []
    for log in views:
        log = list(log)
        start = 1 if log and log[0] is None else 0
        out.append(log[:len(log) - count] if len(log) - start >= count else [None])
    return out


def keep_views(state: Any, sample: Any, player: int) -> Any:
    """``sample`` (a determinization of ``state`` for ``player``) with ``player``'s ``views``
    log copied from ``state`` (both backends: a twin sets it with ``_set_views``)."""
    views = state.__dict__.get("views") if hasattr(state, "__dict__") else None
    if views is None and hasattr(state, "_get_views"):
        views = state._get_views()
    if views is None:
        return sample
    mine = [unknown_views(1)[0] if q != player else list(log) for q, log in enumerate(views)]
    if hasattr(sample, "_set_views"):
        sample._set_views(mine)
    else:
        sample.views = mine
    return sample


#: ``marshal`` format 2: no back-references (format 3 on writes an object met twice as a
#: reference, so equal data could give different bytes), so equal plain data (same types,
#: same dict order) gives equal bytes: the exact filter's world keys rely on it.
_MARSHAL = 2


def copy_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a state's fields (plain JSON data, the ``State`` contract) by one
    ``marshal`` round trip: in C, 2-3x faster than :func:`_copy_json` on the games' states.
    A type marshal refuses (outside the contract) is copied by :func:`_copy_json`, as before."""
    try:
        return marshal.loads(marshal.dumps(fields, _MARSHAL))
    except ValueError:
        return {k: _copy_json(v) for k, v in fields.items()}


def _copy_json(v: Any) -> Any:
    """Fast deep copy of plain JSON-like data (lists, dicts, scalars)."""
    if type(v) is list:
        return [_copy_json(x) if type(x) in (list, dict) else x for x in v]
    if type(v) is dict:
        return {k: (_copy_json(x) if type(x) in (list, dict) else x) for k, x in v.items()}
    return v


#: (game name, canonical params, seat) -> ``Game.action_seat_permutation`` (read-only)
_ACTION_PERMS: dict = {}
#: (game name, canonical params) -> ObservationSpec (kept out of the Game object, which is
#: pickled to worker processes).
_OBS_SPECS: dict[tuple[str, str], Any] = {}
#: (game name, canonical params) -> the observation's ``obs_schema.TensorLayout`` (read-only)
_TENSOR_LAYOUTS: dict[tuple[str, str], Any] = {}


def _jsonable(params: Mapping[str, Any]) -> dict:
    return json.loads(json.dumps(dict(params)))
