"""ratai's games as PettingZoo AEC environments (``pip install ratai[pettingzoo]``).

>>> from ratai.interop.pettingzoo import env                         # doctest: +SKIP
>>> e = env("rat_trap", num_players=3, render_mode="ansi")          # doctest: +SKIP
>>> e.reset(seed=1)                                                  # doctest: +SKIP
>>> obs, reward, term, trunc, info = e.last()                       # doctest: +SKIP
>>> obs["observation"].shape, obs["action_mask"].sum()              # doctest: +SKIP

Agents are ``"player_0" .. "player_{n-1}"`` (seat ``i`` of the ratai game). Actions are
ratai's action ids: ``action_space(agent)`` is ``Discrete(game.num_distinct_actions())``
and ``obs["action_mask"]`` (``int8``, shape ``[num_distinct_actions]``) marks the legal
ones (ids used only by chance outcomes are never legal for a player). Chance nodes are
resolved inside the env by its own random generator, seeded by ``reset(seed=...)``, with
ratai's outcome probabilities, so an agent only ever sees its own decision points.
Rewards are ratai's ``returns()`` (win 1, loss 0, k-way shared win 1/k), all given at the
end; every agent is then terminated (there is no truncation: every ratai game ends).

Observations
------------
``observation_type="tensor"`` (the default, for RL): ``obs["observation"]`` is the seat's
``State.observation_tensor(seat)``, a ``float32`` vector of the game's fixed
``observation_tensor_shape()`` (the documented layout of ``docs/observations/<game>.md``:
one-hot enums and seats, counts and points scaled, flags), in
``Box(-inf, inf, shape, float32)``. It is computed from the seat's observation only.

``observation_type="json"``: the canonical JSON text of ``observation(seat)`` as bytes in a
fixed-length ``uint8`` vector padded with zeros, ``Box(0, 255, (max_obs_bytes,), uint8)``,
lossless; :func:`decode_observation` turns it back into the dict. ``max_obs_bytes`` is
twice the longest observation string met in a few seeded random games of that game and
parameters (rounded up to 256), or the value you pass. An observation that would not fit
raises ``ValueError`` naming ``max_obs_bytes`` instead of being cut.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np

try:
    import gymnasium
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("ratai.interop.pettingzoo needs pettingzoo and gymnasium: "
                      "pip install 'ratai[pettingzoo]'") from exc

from ratai.engines import load_game
from ratai.engines.api import CHANCE, SIMULTANEOUS, Game, State

__all__ = ["env", "raw_env", "RataiAECEnv", "decode_observation", "agent_name",
           "observation_bytes_bound"]

#: Seeded random games explored to size the observation vector.
PROBE_GAMES = 6


def agent_name(seat: int) -> str:
    """PettingZoo agent name of ratai seat ``seat`` (``"player_<seat>"``)."""
    return f"player_{seat}"


def decode_observation(vector: np.ndarray) -> dict:
    """The ratai observation dict encoded in ``obs["observation"]`` (zero-padded JSON bytes).

    Raises:
        ValueError: the vector is not such an encoding.
    """
    raw = bytes(np.asarray(vector, dtype=np.uint8)).rstrip(b"\0")
    try:
        return json.loads(raw.decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not an encoded ratai observation: {exc}") from exc


def _sample(state: State, rng: np.random.Generator) -> int:
    if state.current_player() == CHANCE:
        outcomes = state.chance_outcomes()
        probs = np.array([p for _, p in outcomes], dtype=float)
        return outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]
    legal = state.legal_actions()
    return legal[int(rng.integers(len(legal)))]


@functools.lru_cache(maxsize=64)
def _bound(game: Game) -> int:
    longest = 0
    for seed in range(PROBE_GAMES):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        while True:
            for p in range(game.num_players()):
                longest = max(longest, len(state.observation_string(p)))
            if state.is_terminal():
                break
            state.apply_action(_sample(state, rng))
    return -(-2 * longest // 256) * 256


def observation_bytes_bound(game: Game) -> int:
    """Default ``max_obs_bytes`` for ``game``: 2 x the longest observation string met in
    :data:`PROBE_GAMES` seeded random games, rounded up to a multiple of 256."""
    return _bound(game)


class RataiAECEnv(AECEnv):
    """A ratai game as a PettingZoo AEC environment (see the module docstring).

    Args:
        game: ratai game name (``ratai.engines.registered_games()``) or a ``Game``.
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the acting seat's view,
            ``State.render``).
        backend: ratai backend (``auto``: Cython when built).
        observation_type: ``"tensor"`` (``float32`` ``observation_tensor``, default) or
            ``"json"`` (the observation's JSON bytes; see the module docstring).
        max_obs_bytes: length of the JSON observation vector (default
            :func:`observation_bytes_bound`; ``observation_type="json"`` only).
        **params: ratai game parameters (e.g. ``num_players=3``).

    Raises:
        ValueError: bad game parameters, a bad ``render_mode``, a game whose states have
            joint-action nodes (``simultaneous=True`` is not mapped), or (in ``step``/
            ``observe``) an observation longer than ``max_obs_bytes``.
    """

    metadata = {"render_modes": ["ansi"], "name": "ratai_v0", "is_parallelizable": False}

    def __init__(self, game: str | Game, render_mode: str | None = None, backend: str = "auto",
                 observation_type: str = "tensor", max_obs_bytes: int | None = None,
                 **params: Any):
        super().__init__()
        if isinstance(game, Game):
            if params:
                raise ValueError("pass parameters either in the Game or as keywords, not both")
            self.game = game
        else:
            self.game = load_game(game, backend=backend, **params)
        if self.game.params.get("simultaneous"):
            raise ValueError("simultaneous=True (joint-action view) is not mapped to "
                             "PettingZoo AEC: use the default sequential view")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"bad render_mode {render_mode!r}: allowed None or 'ansi'")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"ratai_{self.game.name}_v0"}
        if observation_type not in ("tensor", "json"):
            raise ValueError(f"bad observation_type {observation_type!r}: allowed 'tensor' "
                             f"or 'json'")
        if max_obs_bytes is not None and observation_type != "json":
            raise ValueError("max_obs_bytes applies only to observation_type='json'")
        self.observation_type = observation_type
        n, nda = self.game.num_players(), self.game.num_distinct_actions()
        if observation_type == "json":
            self.max_obs_bytes = int(max_obs_bytes or observation_bytes_bound(self.game))
            box = gymnasium.spaces.Box(0, 255, (self.max_obs_bytes,), np.uint8)
        else:
            self.max_obs_bytes = None
            box = gymnasium.spaces.Box(-np.inf, np.inf, self.game.observation_tensor_shape(),
                                       np.float32)
        self.possible_agents = [agent_name(i) for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: gymnasium.spaces.Discrete(nda) for a in self.possible_agents}
        self.observation_spaces = {
            a: gymnasium.spaces.Dict({
                "observation": box,
                "action_mask": gymnasium.spaces.Box(0, 1, (nda,), np.int8),
            }) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.state: State | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # -- episode ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``seed`` reseeds the env's chance generator."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self.game.new_initial_state()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._advance()

    def _advance(self) -> None:
        """Resolve chance nodes, then select the seat to act (or end the game)."""
        state = self.state
        while state.current_player() == CHANCE:
            state.apply_action(_sample(state, self._rng))
        cp = state.current_player()
        if cp == SIMULTANEOUS:
            raise ValueError("a joint-action (SIMULTANEOUS) node is not mapped to PettingZoo AEC")
        if state.is_terminal():
            returns = state.returns()
            for a in self.agents:
                self.rewards[a] = float(returns[self._seat[a]])
                self.terminations[a] = True
            # everybody is done; PettingZoo then steps each agent with ``None`` to remove it
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
        else:
            self.agent_selection = agent_name(cp)

    def step(self, action: int | None) -> None:
        """Apply the selected agent's ``action`` (a legal action id).

        Raises:
            IllegalActionError: ``action`` is not legal for the selected agent now.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        self._advance()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict:
        """``{"observation": float32 tensor (or uint8 JSON bytes), "action_mask": int8}``
        for ``agent``."""
        seat = self._seat[agent]
        mask = self.state.legal_actions_mask(seat).astype(np.int8)
        if self.observation_type == "tensor":
            return {"observation": self.state.observation_tensor(seat), "action_mask": mask}
        text = self.state.observation_string(seat).encode("ascii")
        if len(text) > self.max_obs_bytes:
            raise ValueError(f"observation of {len(text)} bytes does not fit max_obs_bytes="
                             f"{self.max_obs_bytes}; create the env with a larger "
                             f"max_obs_bytes")
        vec = np.zeros(self.max_obs_bytes, dtype=np.uint8)
        vec[:len(text)] = np.frombuffer(text, dtype=np.uint8)
        return {"observation": vec, "action_mask": mask}

    def render(self) -> str | None:
        """The acting seat's view as text (``render_mode="ansi"``), else ``None``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; "
                                  "create the env with render_mode='ansi'")
            return None
        seat = self._seat.get(self.agent_selection, 0)
        return self.state.render(seat)

    def close(self) -> None:
        """Nothing to release."""


def raw_env(game: str | Game, **kwargs: Any) -> RataiAECEnv:
    """The unwrapped :class:`RataiAECEnv`."""
    return RataiAECEnv(game, **kwargs)


def env(game: str | Game, **kwargs: Any) -> AECEnv:
    """PettingZoo AEC env of ratai ``game``, wrapped like PettingZoo's classic envs
    (action bounds checked, call order enforced). ``kwargs`` as :class:`RataiAECEnv`."""
    e = raw_env(game, **kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)

