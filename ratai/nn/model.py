"""The AlphaZero-style network of the ``az`` bot: file format, checks and numpy inference.

A **model file** is one ``.npz`` archive (``numpy.savez_compressed``) holding

* ``meta``: a 0-d string array, the JSON metadata (below);
* the weights, float32 or float16 (computed in float32), per player count ``n`` of
  ``meta["players"]``. An array is stored as ``name`` (shared by every ``n``) or ``name@n``
  (that ``n`` only); the loader takes ``name@n`` first:

  ========  ==============  =====================================================
  name      shape           meaning
  ========  ==============  =====================================================
  ``w1``    ``(D_n+n, H1)`` input -> hidden 1; input = ``observation_tensor(p)``
                            (``D_n`` floats) then the one-hot of the seat ``p`` (``n``)
  ``b1``    ``(H1,)``       then ReLU
  ``w2``    ``(H1, H2)``    hidden 1 -> hidden 2
  ``b2``    ``(H2,)``       then ReLU
  ``wv``    ``(H2, n)``     value head; sigmoid: the expected return of every seat in
  ``bv``    ``(n,)``        absolute seat order (win 1, loss 0, a k-way share 1/k)
  ``wp``    ``(H2, A_n)``   policy head: logits over ``game.num_distinct_actions()``
  ``bp``    ``(A_n,)``      (masked to the legal actions, then softmax: the priors)
  ========  ==============  =====================================================

Metadata keys (JSON object): ``format`` (int, :data:`FORMAT_VERSION`), ``game`` (registry
name), ``params`` (the game parameters other than ``num_players`` and ``data_path``),
``players`` (sorted list of player counts), ``data_hash`` (sha256 of the component data
file the game was built from: :func:`game_data_hash`), ``layout_version`` (``{"n": hash}``
of ``game.observation_tensor_layout()`` per player count: :func:`layout_version`),
``hidden`` (``[H1, H2]``), ``generation`` (int), ``games_trained`` (int), ``created``
(ISO-8601 UTC), ``notes`` (free text), ``seat_relative`` (format 2 only, below), and
optionally ``play``: the ``az`` search options this network was measured to play best with
(:data:`PLAY_OPTIONS`, e.g. ``{"rollout_mix": 1.0}``), which the bot uses unless the caller
passes them (:meth:`Model.with_meta` sets them; ``ratai/models/*.md`` give the
measurements). Unknown extra keys are kept and ignored.

**Seat-relative networks** (``meta["seat_relative"]: true``, file format 2): the network sees
the position from the mover's chair. Its input is ``observation_tensor(p)[perm_p]`` (then the
seat one-hot, unchanged), where ``perm_p = game.observation_seat_permutation(p)`` renumbers
every per-seat field ``(s - p) mod n`` (the mover first, then the next seats in turn order);
its value head gives seat ``(p + k) mod n`` at output ``k``; its policy head scores action
``game.action_seat_permutation(p)[a]`` for action ``a`` (a target or colour renumbered the
same way). One set of weights thus learns "my points" once instead of once per seat.
:meth:`Model.evaluate` (and the compiled ``CyNet``) return values in absolute seat order and
priors of the absolute actions either way; :meth:`Model.evaluate_batch` is the raw network.
Format 1 files are the absolute networks; this ratai reads both and writes format 2 only for
seat-relative networks (so an older ratai refuses them instead of misreading them). A format 2
file also records ``seat_version`` (``{"n": hash}`` of those maps per player count:
:func:`seat_version`), so a game whose schema marks its seats differently is refused.

A model refuses a game it was not trained for (:meth:`Model.check_game`), naming the
mismatch: game, player count, parameters, component data, tensor layout, and for a
seat-relative network its seat maps.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import zipfile
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ratai.engines.api import canonical_json
from ratai.search.az import PLAY_OPTION_RANGES

__all__ = ["FORMAT_VERSION", "Model", "ModelError", "Net", "SeatMaps", "game_data_hash",
           "layout_version", "seat_version", "model_params", "packaged", "ARRAY_NAMES",
           "PLAY_OPTIONS"]

#: The newest file format this ratai reads and writes (``meta["format"]``): 2, a
#: seat-relative network; 1, an absolute one (both are read).
FORMAT_VERSION = 2
_FORMATS = (1, 2)
#: The weight arrays of one network, in evaluation order.
ARRAY_NAMES = ("w1", "b1", "w2", "b2", "wv", "bv", "wp", "bp")
_REQUIRED_META = ("format", "game", "params", "players", "data_hash", "layout_version",
                  "hidden")
#: ``az`` options a model may recommend in ``meta["play"]``: ``(type, lo, hi)`` (``float``
#: options take any number in the range, ``int`` ones an integer); the bot's own table.
PLAY_OPTIONS = PLAY_OPTION_RANGES
#: Parameters a model does not record as ``params`` (covered by ``players``/``data_hash``).
_NOT_PARAMS = ("num_players", "data_path")


class ModelError(ValueError):
    """A model file that cannot be used: unreadable (corrupt, truncated, not a model, another
    format version) or made for another game (the message names the mismatch). One line."""


@dataclass(frozen=True)
class Net:
    """One player count's network as float32 arrays (shapes in the module docstring)."""

    n: int
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    wv: np.ndarray
    bv: np.ndarray
    wp: np.ndarray
    bp: np.ndarray

    @property
    def input_size(self) -> int:
        """``D_n + n``: the tensor then the seat one-hot."""
        return self.w1.shape[0]

    @property
    def tensor_size(self) -> int:
        """``D_n``: the length of ``observation_tensor``."""
        return self.w1.shape[0] - self.n

    @property
    def num_actions(self) -> int:
        """``A_n``: the policy head's width (``num_distinct_actions()``)."""
        return self.wp.shape[1]


@dataclass(frozen=True)
class SeatMaps:
    """A seat-relative network's index maps for ``n`` players (module docstring).

    Attributes:
        obs: ``int64 (n, D_n)``; row ``p`` is ``game.observation_seat_permutation(p)``: the
            network sees ``tensor[obs[p]]``.
        actions: ``int64 (n, A_n)``; row ``p`` is ``game.action_seat_permutation(p)``: the
            policy head's column of absolute action ``a`` is ``actions[p, a]``.
        rotate: ``int64 (n, n)``; ``rotate[p, s] = (s - p) mod n``: the value head's output
            of absolute seat ``s``.
    """

    obs: np.ndarray
    actions: np.ndarray
    rotate: np.ndarray

    @classmethod
    def of(cls, game) -> SeatMaps:
        """The maps of ``game`` (its player count ``n``)."""
        n = game.num_players()
        obs = np.stack([game.observation_seat_permutation(p) for p in range(n)])
        actions = np.stack([game.action_seat_permutation(p) for p in range(n)])
        rotate = (np.arange(n)[None, :] - np.arange(n)[:, None]) % n
        return cls(obs, actions, rotate.astype(np.int64))


# -- game identity ------------------------------------------------------------------------
def game_data_hash(game) -> str:
    """sha256 (hex) of the component data ``game`` was built from (its ``data_path``
    parameter, else the packaged ``ratai/engines/<game>/<game>.json``), hashed as canonical
    JSON (sorted keys, no whitespace): a reformatted file keeps its hash, a changed value
    does not."""
    path = game.params.get("data_path")
    if path is not None:
        data = Path(path).read_bytes()
    else:
        data = resources.files(f"ratai.engines.{game.name}").joinpath(
            f"{game.name}.json").read_bytes()
    try:
        text = canonical_json(json.loads(data))
    except ValueError:  # not JSON: the game itself refuses such a file; hash the bytes
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha256(text.encode()).hexdigest()


def _cosmetic(game) -> dict[str, Any]:
    """``game``'s cosmetic parameters (``Param.cosmetic``) with their defaults."""
    return {p.name: p.default for p in game.param_specs if p.cosmetic}


def canonical_game(game):
    """``game`` with every cosmetic parameter (``Param.cosmetic``: it renames things for
    people, e.g. Ratapolis' ``colors``) at its default, on the reference backend where one
    differs: the game whose layout, seat maps and parameters a model records, and whose
    tensors and action ids are ``game``'s own."""
    cosmetic = _cosmetic(game)
    if all(game.params.get(k) == v for k, v in cosmetic.items()):
        return game
    from ratai.engines import load_game

    return load_game(game.name, backend="python", **{**game.params, **cosmetic})


def layout_version(game) -> str:
    """A 16-hex-digit hash of ``game.observation_tensor_layout()`` (every slice's path,
    start, size and encoding; descriptions excluded) of :func:`canonical_game`: equal
    hashes, equal tensor meaning (a slice's encoding names its values, so labels a cosmetic
    parameter renames would otherwise change it)."""
    game = canonical_game(game)
    rows = [[s.path, s.start, s.size, s.encoding] for s in game.observation_tensor_layout()]
    text = json.dumps(rows, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def seat_version(game) -> str:
    """A 16-hex-digit hash of ``game``'s seat maps (every seat's
    ``observation_seat_permutation`` and ``action_seat_permutation``): equal hashes, equal
    reading of a seat-relative network (of :func:`canonical_game`)."""
    game = canonical_game(game)
    h = hashlib.sha256()
    for p in range(game.num_players()):
        h.update(np.asarray(game.observation_seat_permutation(p), "<i8").tobytes())
        h.update(b"|")
        h.update(np.asarray(game.action_seat_permutation(p), "<i8").tobytes())
        h.update(b";")
    return h.hexdigest()[:16]


def model_params(game) -> dict:
    """The parameters of ``game`` a model records: all but ``num_players``, ``data_path``
    and the cosmetic ones (``Param.cosmetic``; a model plays every value of those)."""
    cosmetic = _cosmetic(game)
    return {k: v for k, v in game.params.items() if k not in _NOT_PARAMS and k not in cosmetic}


def _game_for(name: str, n: int, params: Mapping[str, Any]):
    from ratai.engines import load_game

    return load_game(name, backend="python", num_players=n, **dict(params))


def packaged(game) -> Path | None:
    """The model shipped for ``game`` (a ``Game`` or a registry name):
    ``ratai/models/<game>.npz`` in the installed package, or ``None`` if none is shipped."""
    name = game if isinstance(game, str) else game.name
    # Located from this module's own package (``ratai.nn``, a regular package) rather than
    # ``resources.files("ratai")``: with an editable install, a directory named ``ratai``
    # in the working directory (the clone's parent folder) makes ``ratai`` a namespace
    # package whose resources are not the installed ones.
    path = Path(str(resources.files(__package__))).parent / "models" / f"{name}.npz"
    return path if path.is_file() else None


# -- reading ------------------------------------------------------------------------------
def _open_archive(path: Path) -> dict[str, np.ndarray]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"model file {str(path)!r}: cannot read: {exc.strerror or exc}") \
            from None
    where = f"model file {str(path)!r}"
    if not raw:
        raise ModelError(f"{where}: empty file")
    if not raw.startswith(b"PK\x03\x04"):
        raise ModelError(f"{where}: not a model file (not an .npz archive)")
    if b"PK\x05\x06" not in raw[-(65536 + 22):]:
        raise ModelError(f"{where}: truncated (the archive's end record is missing; "
                         f"{len(raw)} bytes)")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, ValueError,
            OSError, KeyError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise ModelError(f"{where}: corrupt ({msg})") from None


def _parse_meta(arrays: Mapping[str, np.ndarray], where: str) -> dict:
    if "meta" not in arrays:
        raise ModelError(f"{where}: not a ratai model (no 'meta' entry)")
    meta_arr = arrays["meta"]
    if meta_arr.shape != () or meta_arr.dtype.kind not in "US":
        raise ModelError(f"{where}: corrupt ('meta' is not a JSON string)")
    try:
        meta = json.loads(str(meta_arr[()]))
    except json.JSONDecodeError as exc:
        raise ModelError(f"{where}: corrupt ('meta' is not valid JSON: {exc.msg})") from None
    if not isinstance(meta, dict):
        raise ModelError(f"{where}: corrupt ('meta' is not a JSON object)")
    version = meta.get("format")
    if isinstance(version, bool) or version not in _FORMATS:
        raise ModelError(f"{where}: format version {version!r} is not supported "
                         f"(this ratai reads versions 1 to {FORMAT_VERSION})")
    relative = meta.get("seat_relative", False)
    if not isinstance(relative, bool) or relative != (version == 2):
        raise ModelError(f"{where}: corrupt (metadata 'seat_relative' {relative!r} does not "
                         f"match format version {version}: 2 is seat-relative, 1 is not)")
    if relative and not isinstance(meta.get("seat_version"), dict):
        raise ModelError(f"{where}: corrupt (a seat-relative model's metadata lacks the "
                         f"'seat_version' object)")
    missing = [k for k in _REQUIRED_META if k not in meta]
    if missing:
        raise ModelError(f"{where}: corrupt (metadata lacks {', '.join(missing)})")
    players = meta["players"]
    if (not isinstance(players, list) or not players
            or not all(isinstance(n, int) and n >= 1 for n in players)):
        raise ModelError(f"{where}: corrupt (metadata 'players' {players!r} is not a list of "
                         f"player counts)")
    hidden = meta["hidden"]
    if (not isinstance(hidden, list) or len(hidden) != 2
            or not all(isinstance(h, int) and h >= 1 for h in hidden)):
        raise ModelError(f"{where}: corrupt (metadata 'hidden' {hidden!r} is not [H1, H2])")
    if not isinstance(meta["params"], dict) or not isinstance(meta["layout_version"], dict):
        raise ModelError(f"{where}: corrupt (metadata 'params'/'layout_version' not objects)")
    _check_play(meta.get("play", {}), where)
    return meta


def _check_play(play: Any, where: str) -> None:
    """Raise ``ModelError`` unless ``play`` maps :data:`PLAY_OPTIONS` names to numbers of
    their types in their ranges."""
    if not isinstance(play, dict):
        raise ModelError(f"{where}: corrupt (metadata 'play' {play!r} is not an object)")
    for name, value in play.items():
        if name not in PLAY_OPTIONS:
            raise ModelError(f"{where}: metadata 'play' names unknown option {name!r}; "
                             f"allowed: {', '.join(PLAY_OPTIONS)}")
        kind, lo, hi = PLAY_OPTIONS[name]
        types = (int,) if kind is int else (int, float)
        if isinstance(value, bool) or not isinstance(value, types) or not lo <= value <= hi:
            what = "an integer" if kind is int else "a number"
            raise ModelError(f"{where}: metadata 'play' option {name!r} is {value!r}; "
                             f"allowed {what} in [{lo:g}, {hi:g}]")


def _build_nets(arrays: Mapping[str, np.ndarray], meta: dict, where: str) -> dict[int, Net]:
    h1, h2 = meta["hidden"]
    nets = {}
    for n in meta["players"]:
        got = {}
        for name in ARRAY_NAMES:
            key = f"{name}@{n}" if f"{name}@{n}" in arrays else name
            if key not in arrays:
                raise ModelError(f"{where}: corrupt (no array {name!r} or {name}@{n!r} for "
                                 f"{n} players)")
            arr = arrays[key]
            if arr.dtype.kind != "f":
                raise ModelError(f"{where}: corrupt (array {key!r} has dtype {arr.dtype})")
            arr = np.ascontiguousarray(arr, dtype=np.float32)
            if not np.isfinite(arr).all():
                raise ModelError(f"{where}: corrupt (array {key!r} holds NaN or inf)")
            got[name] = (key, arr)
        d_in = got["w1"][1].shape[0] if got["w1"][1].ndim == 2 else -1
        a_n = got["wp"][1].shape[1] if got["wp"][1].ndim == 2 else -1
        expected = {"w1": (d_in, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,),
                    "wv": (h2, n), "bv": (n,), "wp": (h2, a_n), "bp": (a_n,)}
        for name, shape in expected.items():
            key, arr = got[name]
            if arr.shape != shape or -1 in shape:
                raise ModelError(f"{where}: corrupt (array {key!r} has shape {arr.shape}, "
                                 f"expected {shape} for {n} players, hidden {h1}x{h2})")
        if d_in <= n:
            raise ModelError(f"{where}: corrupt (array {got['w1'][0]!r} has {d_in} input rows, "
                             f"fewer than the {n} seats)")
        nets[n] = Net(n, *(got[name][1] for name in ARRAY_NAMES))
    return nets


# -- the model ----------------------------------------------------------------------------
def _sigmoid(z: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-z))).astype(np.float32)


class Model:
    """A loaded (or freshly initialised) network for one game and its player counts.

    Build with :meth:`load` or :meth:`init`; ``meta`` is the metadata dict (module
    docstring); ``nets[n]`` the float32 :class:`Net` of ``n`` players. Treat the weights as
    immutable (the compiled search keeps its own copies per model): make a new model with
    :meth:`with_arrays` instead of editing arrays in place.
    """

    def __init__(self, meta: dict, arrays: Mapping[str, np.ndarray], source: str = "<memory>"):
        self.meta = dict(meta)
        self.source = source
        self._arrays = {k: v for k, v in arrays.items() if k != "meta"}
        self.nets: dict[int, Net] = _build_nets(self._arrays, self.meta, f"model {source}")
        self._seat_maps: dict[int, SeatMaps] = {}

    # metadata accessors
    @property
    def game_name(self) -> str:
        return self.meta["game"]

    @property
    def players(self) -> list[int]:
        return list(self.meta["players"])

    @property
    def hidden(self) -> tuple[int, int]:
        return tuple(self.meta["hidden"])

    @property
    def seat_relative(self) -> bool:
        """The network sees positions from the mover's chair (module docstring)."""
        return bool(self.meta.get("seat_relative", False))

    def seat_maps(self, n: int, game=None) -> SeatMaps | None:
        """The index maps of the ``n``-player network (:class:`SeatMaps`), ``None`` for an
        absolute network. Taken from ``game`` when given (a game :meth:`check_game`
        accepts), else from the registry game with the model's parameters; kept per ``n``."""
        if not self.seat_relative:
            return None
        maps = self._seat_maps.get(n)
        if maps is None:
            self.net(n)
            if game is None:
                game = _game_for(self.game_name, n, self.meta["params"])
            maps = self._seat_maps[n] = SeatMaps.of(game)
        return maps

    @property
    def play_options(self) -> dict[str, float]:
        """The ``az`` options this network plays best with (``meta["play"]``; may be empty)."""
        return dict(self.meta.get("play", {}))

    @property
    def generation(self) -> int:
        return int(self.meta.get("generation", 0))

    def num_parameters(self, n: int | None = None) -> int:
        """Number of weights of the network of ``n`` players (all stored arrays if None)."""
        if n is None:
            return int(sum(a.size for a in self._arrays.values()))
        return int(sum(getattr(self.nets[n], name).size for name in ARRAY_NAMES))

    def __repr__(self) -> str:
        return (f"Model(game={self.game_name!r}, players={self.players}, hidden={self.hidden}, "
                f"generation={self.generation}, source={self.source!r})")

    # file IO
    @classmethod
    def load(cls, path: str | os.PathLike) -> Model:
        """Read a model file.

        Raises:
            ModelError: the file cannot be read, is empty, truncated, corrupt (bad archive,
                missing/ill-shaped/non-finite arrays, bad metadata), not a ratai model, or
                of another format version. One line, naming the file.
        """
        path = Path(path)
        arrays = _open_archive(path)
        where = f"model file {str(path)!r}"
        meta = _parse_meta(arrays, where)
        self = cls.__new__(cls)
        self.meta = meta
        self.source = str(path)
        self._arrays = {k: v for k, v in arrays.items() if k != "meta"}
        self.nets = _build_nets(self._arrays, meta, where)
        self._seat_maps = {}
        return self

    def save(self, path: str | os.PathLike, dtype: str = "float32") -> Path:
        """Write the model to ``path`` (an ``.npz``; written to a temporary file and renamed,
        so an existing file is replaced whole or not at all). ``dtype="float16"`` halves the
        size (weights are computed in float32 after loading). Returns the path."""
        if dtype not in ("float32", "float16"):
            raise ValueError(f"bad dtype {dtype!r}: allowed 'float32' or 'float16'")
        path = Path(path)
        payload = {k: np.asarray(v, dtype=dtype) for k, v in self._arrays.items()}
        payload["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **payload)
        os.replace(tmp, path)
        self.source = str(path)
        return path

    @classmethod
    def init(cls, game_name: str, players: Iterable[int], hidden: Sequence[int] = (128, 64),
             seed: int = 0, params: Mapping[str, Any] | None = None, notes: str = "",
             data_path: str | None = None, seat_relative: bool = False) -> Model:
        """A randomly initialised network (He-normal trunk, small heads, zero biases) for
        ``game_name`` at each player count of ``players``, with game ``params`` (not
        ``num_players``). Generation 0, for tests and the first self-play generation.
        ``seat_relative``: a seat-relative network (format 2, module docstring).

        Raises:
            ValueError: an unknown game, a bad parameter or player count (from the game),
                or bad ``hidden`` sizes.
        """
        players = sorted({int(n) for n in players})
        if not players:
            raise ValueError("players: give at least one player count")
        hidden = [int(h) for h in hidden]
        if len(hidden) != 2 or min(hidden) < 1:
            raise ValueError(f"bad hidden {hidden!r}: allowed two positive sizes (H1, H2)")
        h1, h2 = hidden
        params = dict(params or {})
        params.pop("num_players", None)
        if data_path is not None:
            params["data_path"] = data_path
        rng = np.random.default_rng(seed)
        arrays: dict[str, np.ndarray] = {
            "b1": np.zeros(h1, np.float32),
            "w2": (rng.standard_normal((h1, h2)) * np.sqrt(2.0 / h1)).astype(np.float32),
            "b2": np.zeros(h2, np.float32),
        }
        layouts, seats, data_hash, recorded = {}, {}, None, None
        games = {n: _game_for(game_name, n, params) for n in players}
        # one policy head for every player count when they share the action space (First
        # Rat's 8,101 actions: per-count heads would not fit a 2 MB model), else one per count
        shared_policy = len({g.num_distinct_actions() for g in games.values()}) == 1
        for n in players:
            game = games[n]
            d = game.observation_tensor_shape()[0] + n
            a = game.num_distinct_actions()
            arrays[f"w1@{n}"] = (rng.standard_normal((d, h1)) * np.sqrt(2.0 / d)).astype(
                np.float32)
            arrays[f"wv@{n}"] = (rng.standard_normal((h2, n)) * 0.01).astype(np.float32)
            arrays[f"bv@{n}"] = np.zeros(n, np.float32)
            suffix = "" if shared_policy else f"@{n}"
            if f"wp{suffix}" not in arrays:
                arrays[f"wp{suffix}"] = (rng.standard_normal((h2, a)) * 0.01).astype(
                    np.float32)
                arrays[f"bp{suffix}"] = np.zeros(a, np.float32)
            canon = canonical_game(game)   # built once for both hashes
            layouts[str(n)] = layout_version(canon)
            if seat_relative:
                seats[str(n)] = seat_version(canon)
            data_hash = game_data_hash(game)
            recorded = model_params(game)
        meta = {
            "format": 2 if seat_relative else 1, "game": game_name, "params": recorded,
            "players": players, "data_hash": data_hash, "layout_version": layouts,
            "hidden": hidden, "generation": 0, "games_trained": 0,
            "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "notes": notes, "seed": int(seed),
        }
        if seat_relative:
            meta["seat_relative"] = True
            meta["seat_version"] = seats
        return cls(meta, arrays)

    def with_arrays(self, arrays: Mapping[str, np.ndarray], **meta_updates: Any) -> Model:
        """A new model with the same metadata (updated by ``meta_updates``, e.g.
        ``generation=3``) and ``arrays`` (names as in the file) replacing this one's."""
        merged = dict(self._arrays)
        merged.update({k: np.asarray(v, np.float32) for k, v in arrays.items()})
        meta = dict(self.meta)
        meta.update(meta_updates)
        return Model(meta, merged, self.source)

    def with_meta(self, **meta_updates: Any) -> Model:
        """A new model with the same weights and the metadata updated by ``meta_updates``
        (e.g. ``play={"rollout_mix": 1.0}``; ``None`` removes a key).

        Raises:
            ModelError: a bad ``play`` (unknown option or value out of range).
        """
        meta = dict(self.meta)
        for k, v in meta_updates.items():
            if v is None:
                meta.pop(k, None)
            else:
                meta[k] = v
        _check_play(meta.get("play", {}), "with_meta")
        return Model(meta, self._arrays, self.source)

    def arrays(self) -> dict[str, np.ndarray]:
        """The stored arrays by file name (``w1@3``, ``w2``, ...), float32 copies."""
        return {k: np.array(v, np.float32) for k, v in self._arrays.items()}

    # game checks
    def check_game(self, game) -> None:
        """Refuse a game this model was not made for.

        Raises:
            ModelError: naming the first mismatch: game name, player count not in
                ``players``, a parameter (cosmetic ones are not compared:
                ``Param.cosmetic``), the component data hash, the tensor layout
                version, a seat-relative network's seat maps, or the tensor/action sizes.
        """
        where = f"model {self.source!r}"
        if game.name != self.game_name:
            raise ModelError(f"{where} is for game {self.game_name!r}, not {game.name!r}")
        n = game.num_players()
        if n not in self.nets:
            raise ModelError(f"{where} plays {self.game_name} with "
                             f"{', '.join(map(str, self.players))} players, not {n}")
        # (models written before a parameter was cosmetic recorded it: not compared either)
        cosmetic = _cosmetic(game)
        mine = {k: v for k, v in self.meta["params"].items() if k not in cosmetic}
        theirs = model_params(game)
        for key in sorted(set(mine) | set(theirs)):
            if key in mine and key in theirs and mine[key] != theirs[key]:
                raise ModelError(f"{where}: parameter {key!r} is {mine[key]!r} in the model, "
                                 f"{theirs[key]!r} in the game")
            if (key in mine) != (key in theirs):
                side = "model" if key in mine else "game"
                raise ModelError(f"{where}: parameter {key!r} is only in the {side}")
        data_hash = game_data_hash(game)
        if data_hash != self.meta["data_hash"]:
            raise ModelError(f"{where}: component data differ (model data_hash "
                             f"{str(self.meta['data_hash'])[:12]}..., game {data_hash[:12]}...)")
        canon = canonical_game(game)   # built once for both hashes
        version = layout_version(canon)
        recorded = self.meta["layout_version"].get(str(n))
        if version != recorded:
            raise ModelError(f"{where}: observation layout version differs for {n} players "
                             f"(model {recorded}, game {version})")
        if self.seat_relative:
            mine, theirs = self.meta["seat_version"].get(str(n)), seat_version(canon)
            if mine != theirs:
                raise ModelError(f"{where}: seat maps differ for {n} players (model "
                                 f"seat_version {mine}, game {theirs}): the game's schema "
                                 f"marks its seats otherwise")
        net = self.nets[n]
        d, a = game.observation_tensor_shape()[0], game.num_distinct_actions()
        if net.tensor_size != d or net.num_actions != a:
            raise ModelError(f"{where}: network of {n} players takes {net.tensor_size} inputs "
                             f"and {net.num_actions} actions; the game has {d} and {a}")

    # inference (the reference)
    def net(self, n: int) -> Net:
        """The network of ``n`` players; ModelError if the model has none."""
        try:
            return self.nets[n]
        except KeyError:
            raise ModelError(f"model {self.source!r} has no network for {n} players "
                             f"(it plays {self.players})") from None

    def encode_input(self, tensor: np.ndarray, player: int, n: int) -> np.ndarray:
        """The network input: ``tensor`` (``D_n`` floats; a seat-relative network takes it
        permuted, ``tensor[seat_maps(n).obs[player]]``) then the one-hot of ``player`` among
        ``n`` seats, float32 of shape ``(D_n + n,)``."""
        x = np.zeros(self.net(n).input_size, np.float32)
        tensor = np.asarray(tensor, np.float32).ravel()
        if tensor.size != x.size - n:
            raise ValueError(f"tensor of length {tensor.size}: the network of {n} players "
                             f"takes {x.size - n}")
        if not 0 <= player < n:
            raise ValueError(f"bad player {player!r}: allowed an int from 0 to {n - 1}")
        maps = self.seat_maps(n)
        x[:-n] = tensor if maps is None else tensor[maps.obs[player]]
        x[x.size - n + player] = 1.0
        return x

    def evaluate_batch(self, x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Forward pass of a batch. ``x``: ``(B, D_n + n)`` inputs (:meth:`encode_input`).
        Returns ``(values (B, n), logits (B, A_n))``: sigmoid values per seat (expected
        return; absolute seat order, or mover-first for a seat-relative network) and
        unmasked policy logits (of the seat-relative action ids for such a network),
        float32: the raw network, without the maps :meth:`evaluate` applies."""
        net = self.net(n)
        x = np.asarray(x, np.float32)
        if x.ndim != 2 or x.shape[1] != net.input_size:
            raise ValueError(f"x of shape {x.shape}: expected (B, {net.input_size})")
        h = np.maximum(x @ net.w1 + net.b1, 0.0)
        h = np.maximum(h @ net.w2 + net.b2, 0.0)
        values = _sigmoid(h @ net.wv + net.bv)
        logits = (h @ net.wp + net.bp).astype(np.float32)
        return values, logits

    def evaluate(self, state_or_tensor, player: int, legal: Sequence[int] | None = None,
                 num_players: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Values and priors of one position as seen by seat ``player``.

        Args:
            state_or_tensor: a ``State`` (its ``observation_tensor(player)`` is used;
                ``legal`` defaults to its legal actions) or a tensor of ``D_n`` floats.
            legal: the action ids to give priors to (non-empty when a tensor is passed).
            num_players: ``n`` for a tensor when several player counts share its length.

        Returns:
            ``(values (n,), priors (len(legal),))``: sigmoid value per seat (absolute seat
            order) and the softmax of the policy logits over ``legal`` (float32), for a
            seat-relative network too.
        """
        if hasattr(state_or_tensor, "observation_tensor"):
            state = state_or_tensor
            game = state.get_game()
            n = game.num_players()
            tensor = state.observation_tensor(player)
            if legal is None:
                legal = state.legal_actions(player) if state.is_player_node() else []
        else:
            game = None   # a seat-relative network then uses its registry game's maps
            tensor = np.asarray(state_or_tensor, np.float32).ravel()
            if num_players is None:
                fits = [k for k, net in self.nets.items() if net.tensor_size == tensor.size]
                if len(fits) != 1:
                    sizes = {k: net.tensor_size for k, net in self.nets.items()}
                    raise ValueError(f"tensor of length {tensor.size}: pass num_players "
                                     f"(tensor sizes by player count: {sizes})")
                n = fits[0]
            else:
                n = int(num_players)
            if legal is None:
                raise ValueError("legal: give the legal action ids with a tensor")
        maps = self.seat_maps(n, game)   # first call per n: from the state's own game
        values, logits = self.evaluate_batch(self.encode_input(tensor, player, n)[None], n)
        legal = np.asarray(list(legal), dtype=np.int64)
        if legal.size and (legal.min() < 0 or legal.max() >= logits.shape[1]):
            raise ValueError(f"legal actions {legal.tolist()} outside 0..{logits.shape[1] - 1}")
        if maps is not None:  # back to absolute seats and action ids
            values = values[:, maps.rotate[player]]
            legal = maps.actions[player, legal]
        z = logits[0, legal]
        if z.size:
            z = np.exp(z - z.max())
            z /= z.sum()
        return values[0], z.astype(np.float32)
