"""The bounded on-disk replay buffer of self-play positions.

A buffer is a directory of ``.npz`` shards (one per generation and player count) plus an
``index.json`` listing them oldest first with their position counts. Adding a shard drops the
oldest positions (whole shards first, then the oldest rows of the oldest remaining shard)
until at most ``capacity`` positions are held. Every file is written atomically (a temporary
file, ``fsync``, ``os.replace``), so a process killed at any instant leaves either the old or
the new buffer, never a torn one.

Shard arrays (``P`` positions of one player count ``n``; ``D_n`` = observation size, ``A_n`` =
``num_distinct_actions()``):

* ``obs`` float32 ``(P, D_n)``: ``observation_tensor(seat)``;
* ``seat`` int8 ``(P,)``: the observer (the network input is ``obs`` followed by the seat's
  one-hot, see :func:`network_input`);
* ``mask`` bool ``(P, A_n)``: the seat's legal actions;
* ``pi`` float32 ``(P, A_n)``: the root visit distribution of the seat's search (the policy
  target; 0 outside the mask);
* ``z`` float32 ``(P, n)``: the game's final returns per seat in absolute seat order (win 1 /
  loss 0 / k-way share 1/k; the value target);
* ``q`` float32 ``(P, n)``: the seat's search's root value per seat, absolute seat order (the
  visit-weighted mean of its root moves' per-seat values: what the search expected at that
  position; mixed into the value target with ``ratai train --value-target-q``). A shard
  written before ``q`` existed lacks it and is read with ``q = z`` (:data:`DEFAULTS`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

FIELDS = ("obs", "seat", "mask", "pi", "z", "q")
#: fields a shard written before they existed may lack, each read as a copy of another
DEFAULTS = {"q": "z"}


def _field(arrays: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """``arrays[name]``, or for a field of :data:`DEFAULTS` that ``arrays`` lacks, the
    array it defaults to."""
    return arrays[name] if name in arrays or name not in DEFAULTS else arrays[DEFAULTS[name]]


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: Path, obj) -> None:
    atomic_write_bytes(path, (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode())


def save_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """``numpy.savez_compressed`` written atomically (the tensors are mostly zeros)."""
    import io

    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    atomic_write_bytes(path, buf.getvalue())


def load_npz(path: Path, fields=FIELDS) -> dict[str, np.ndarray]:
    """Read a shard; raises ``ValueError`` (one line, naming the file) when it is unreadable
    or lacks a field (a field of :data:`DEFAULTS` it lacks is read as its default's copy)."""
    try:
        with np.load(path, allow_pickle=False) as f:
            out = {k: _field(f, k) for k in fields}
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise ValueError(f"corrupt replay shard {path}: {type(exc).__name__}: "
                         f"{' '.join(str(exc).split())}") from None
    sizes = {len(v) for v in out.values()}
    if len(sizes) != 1:
        raise ValueError(f"corrupt replay shard {path}: arrays of different lengths")
    return out


def network_input(obs: np.ndarray, seat: np.ndarray, n: int) -> np.ndarray:
    """``(P, D_n + n)`` float32: each observation followed by the one-hot of its seat
    (AZ.md section 2)."""
    x = np.zeros((len(obs), obs.shape[1] + n), dtype=np.float32)
    x[:, :obs.shape[1]] = obs
    x[np.arange(len(obs)), obs.shape[1] + seat.astype(np.int64)] = 1.0
    return x


class ReplayBuffer:
    """At most ``capacity`` positions (all player counts together) in ``root``.

    ``readonly``: only read (a tool looking at another process's run): nothing is created,
    a file the index does not list (a shard being written) is left alone, and :meth:`add`
    raises ``ValueError``.

    Raises:
        ValueError: ``capacity < 1``; a corrupt ``index.json`` (on open).
    """

    def __init__(self, root: Path, capacity: int, readonly: bool = False):
        if capacity < 1:
            raise ValueError(f"bad buffer capacity {capacity}: allowed >= 1 positions")
        self.root = Path(root)
        self.capacity = int(capacity)
        self.readonly = readonly
        if not readonly:
            self.root.mkdir(parents=True, exist_ok=True)
        self.index_path = self.root / "index.json"
        self.shards: list[dict] = []
        if self.index_path.exists():
            try:
                doc = json.loads(self.index_path.read_text())
                self.shards = [{"file": str(s["file"]), "players": int(s["players"]),
                                "positions": int(s["positions"]),
                                "generation": int(s["generation"])} for s in doc["shards"]]
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"corrupt replay buffer index {self.index_path}: "
                                 f"{type(exc).__name__}") from None
        for s in self.shards:
            if not (self.root / s["file"]).is_file():
                raise ValueError(f"corrupt replay buffer: shard {s['file']} listed in "
                                 f"{self.index_path} is missing")
        if readonly:
            return
        listed = {s["file"] for s in self.shards}
        for leftover in self.root.iterdir():  # written by a process killed before its index
            if leftover.name != "index.json" and leftover.name not in listed:
                leftover.unlink()

    def __len__(self) -> int:
        return sum(s["positions"] for s in self.shards)

    def positions_by_players(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for s in self.shards:
            out[s["players"]] = out.get(s["players"], 0) + s["positions"]
        return out

    def add(self, generation: int, players: int, arrays: Mapping[str, np.ndarray]) -> None:
        """Append one shard (arrays of :data:`FIELDS`; one of :data:`DEFAULTS` it lacks is
        stored as its default's copy), then drop the oldest positions above the capacity.
        Adding a (generation, players) the buffer already holds does nothing (a resumed
        generation re-adds the identical positions it had added before a kill)."""
        if self.readonly:
            raise ValueError(f"replay buffer {self.root} is open read-only")
        count = len(arrays["obs"])
        if count == 0 or any(s["generation"] == generation and s["players"] == players
                             for s in self.shards):
            return
        name = f"gen-{generation:05d}-{players}p.npz"
        save_npz(self.root / name, {k: np.asarray(_field(arrays, k)) for k in FIELDS})
        self.shards.append({"file": name, "players": players, "positions": count,
                            "generation": generation})
        self._trim()

    def _trim(self) -> None:
        drop: list[str] = []
        while len(self) > self.capacity:
            excess = len(self) - self.capacity
            oldest = self.shards[0]
            if oldest["positions"] <= excess:
                drop.append(oldest["file"])
                self.shards.pop(0)
                continue
            data = load_npz(self.root / oldest["file"])
            kept = oldest["positions"] - excess
            # a new name: the index keeps listing the old file until it is replaced
            name = f"gen-{oldest['generation']:05d}-{oldest['players']}p-last{kept}.npz"
            save_npz(self.root / name, {k: v[excess:] for k, v in data.items()})
            drop.append(oldest["file"])
            oldest["file"], oldest["positions"] = name, kept
        atomic_write_json(self.index_path, {"capacity": self.capacity, "shards": self.shards})
        for name in drop:   # only after the index no longer lists them
            (self.root / name).unlink(missing_ok=True)

    def load(self, generation: int | None = None) -> dict[int, Positions]:
        """Every held position, grouped by player count: ``{n: Positions}``; with
        ``generation``, only that generation's (``{}`` when the buffer holds none of it).

        The ``mask`` and ``pi`` rows are held sparse (the legal actions and their visit
        shares), so memory grows with the positions' legal moves, not with the action space
        (First Rat's 8,101 actions would take 2.4 GB dense at 60,000 positions)."""
        parts: dict[int, list[Positions]] = {}
        for s in self.shards:
            if generation is not None and s["generation"] != generation:
                continue
            data = load_npz(self.root / s["file"])
            if len(data["obs"]) != s["positions"]:
                raise ValueError(f"corrupt replay shard {s['file']}: {len(data['obs'])} "
                                 f"positions, the index says {s['positions']}")
            try:
                part = Positions.from_dense(data)
            except ValueError as exc:
                raise ValueError(f"corrupt replay shard {s['file']}: {exc}") from None
            parts.setdefault(s["players"], []).append(part)
        return {n: Positions.concatenate(ps) for n, ps in sorted(parts.items())}


class Positions:
    """``P`` positions of one player count, with the policy rows stored sparse (CSR).

    Attributes: ``obs`` float32 ``(P, D_n)``, ``seat`` int8 ``(P,)``, ``z`` and ``q``
    float32 ``(P, n)``; ``offsets`` int64 ``(P + 1,)``, ``cols`` int32 and ``vals`` float32
    ``(offsets[-1],)``: row ``i``'s legal actions are ``cols[offsets[i]:offsets[i+1]]`` with
    visit shares ``vals[...]``; ``num_actions`` = ``A_n``.

    ``positions["mask"]`` / ``positions["pi"]`` give the dense ``(P, A_n)`` arrays (for small
    buffers and tests); training takes dense rows per batch with :meth:`batch`.
    """

    def __init__(self, obs, seat, z, offsets, cols, vals, num_actions: int, q):
        self.obs, self.seat, self.z, self.q = obs, seat, z, q
        self.offsets, self.cols, self.vals = offsets, cols, vals
        self.num_actions = int(num_actions)

    @classmethod
    def from_dense(cls, data: Mapping[str, np.ndarray]) -> Positions:
        """From a shard's arrays (:data:`FIELDS`; without ``q``, ``q = z``). Raises
        ``ValueError`` when ``pi`` has mass outside ``mask``."""
        mask, pi = np.asarray(data["mask"], bool), np.asarray(data["pi"], np.float32)
        if mask.shape != pi.shape:
            raise ValueError(f"mask {mask.shape} and pi {pi.shape} differ in shape")
        if np.any(pi[~mask] != 0):
            raise ValueError("pi has visit mass outside the legal-action mask")
        rows, cols = np.nonzero(mask)
        offsets = np.zeros(len(mask) + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=len(mask)), out=offsets[1:])
        z = np.asarray(data["z"], np.float32)
        q = np.asarray(_field(data, "q"), np.float32)
        if q.shape != z.shape:
            raise ValueError(f"q {q.shape} and z {z.shape} differ in shape")
        return cls(np.asarray(data["obs"], np.float32), np.asarray(data["seat"], np.int8),
                   z, offsets, cols.astype(np.int32), pi[rows, cols], mask.shape[1], q)

    @classmethod
    def concatenate(cls, parts: list[Positions]) -> Positions:
        if len({p.num_actions for p in parts}) != 1:
            raise ValueError("replay shards of one player count differ in action space")
        offsets = [parts[0].offsets]
        for p in parts[1:]:
            offsets.append(p.offsets[1:] + offsets[-1][-1])
        return cls(np.concatenate([p.obs for p in parts]),
                   np.concatenate([p.seat for p in parts]),
                   np.concatenate([p.z for p in parts]), np.concatenate(offsets),
                   np.concatenate([p.cols for p in parts]),
                   np.concatenate([p.vals for p in parts]), parts[0].num_actions,
                   np.concatenate([p.q for p in parts]))

    def __len__(self) -> int:
        return len(self.obs)

    def dense_rows(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(mask, pi)`` of the rows ``idx``: bool and float32 ``(len(idx), A_n)``."""
        idx = np.asarray(idx, np.int64)
        starts, lengths = self.offsets[idx], self.offsets[idx + 1] - self.offsets[idx]
        rows = np.repeat(np.arange(len(idx)), lengths)
        # entry k of the gathered run: starts[row] + (k - where the row's run begins)
        begins = np.cumsum(lengths) - lengths
        flat = np.repeat(starts - begins, lengths) + np.arange(int(lengths.sum()))
        cols = self.cols[flat]
        mask = np.zeros((len(idx), self.num_actions), bool)
        pi = np.zeros((len(idx), self.num_actions), np.float32)
        mask[rows, cols] = True
        pi[rows, cols] = self.vals[flat]
        return mask, pi

    def batch(self, idx: np.ndarray, n: int, maps=None) -> dict[str, np.ndarray]:
        """The training batch of rows ``idx`` for :func:`ratai.train.net.losses`: ``x``
        (:func:`network_input`), ``mask``, ``pi``, ``z`` and ``q``.

        ``maps``: a seat-relative network's :class:`ratai.nn.model.SeatMaps` (``None``: an
        absolute network): each row's tensor is permuted, its values rotated and its
        actions renumbered from its seat, as ``Model.evaluate`` reads the network."""
        idx = np.asarray(idx, np.int64)
        mask, pi = self.dense_rows(idx)
        obs, seat, z, q = (self.obs[idx], self.seat[idx].astype(np.int64), self.z[idx],
                           self.q[idx])
        if maps is not None:
            rows = np.arange(len(idx))[:, None]
            obs = obs[rows, maps.obs[seat]]
            turn = (seat[:, None] + np.arange(n)[None, :]) % n
            z, q = z[rows, turn], q[rows, turn]
            cols = maps.actions[seat]            # (B, A): the column of each absolute id
            rel_mask = np.zeros_like(mask)
            rel_pi = np.zeros_like(pi)
            np.put_along_axis(rel_mask, cols, mask, axis=1)
            np.put_along_axis(rel_pi, cols, pi, axis=1)
            mask, pi = rel_mask, rel_pi
        return {"x": network_input(obs, seat, n), "mask": mask, "pi": pi, "z": z, "q": q}

    def __getitem__(self, field: str) -> np.ndarray:
        if field in ("obs", "seat", "z", "q"):
            return getattr(self, field)
        if field in ("mask", "pi"):
            mask, pi = self.dense_rows(np.arange(len(self)))
            return pi if field == "pi" else mask
        raise KeyError(field)
