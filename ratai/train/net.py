"""The ``az`` network in PyTorch: the same arrays as the model file, trained on replay data.

The module holds one ``torch`` parameter per array of :class:`ratai.nn.model.Model`
(``w1@n``, ``b1``, ``w2``, ``b2``, ``wv@n``, ``bv@n``, ``wp@n``, ``bp@n``; shared names are
shared by every player count), so the export is the arrays themselves
(:meth:`AZNet.to_model`) and the forward pass equals ``Model.evaluate_batch``.

Loss of a batch of one player count ``n`` (AlphaZero, Silver et al. 2018, with a value per
seat for ``n`` players as in Petosa & Balch 2019's multiplayer AlphaZero):

* value: binary cross-entropy of the sigmoid value of every seat against the final return
  ``z`` of that seat (returns lie in [0, 1]; averaged over seats);
* policy: cross-entropy ``-sum(pi * log_softmax(logits masked to the legal actions))``;
* L2: ``l2 * sum(w**2)`` over the weight matrices (not the biases), plus ``value_l2 *
  sum(wv**2)`` over the value head's output weights (``ratai train --value-l2``).

Needs the ``[train]`` extra (``pip install 'ratai[train]'``: ``torch==2.13.0``, CPU build).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ratai.nn.model import Model


def import_torch():
    """``torch``, or a ``ValueError`` saying how to install it (one line)."""
    try:
        import torch
    except ImportError:
        raise ValueError("ratai train needs PyTorch: pip install 'ratai[train]' "
                         "(torch==2.13.0; its CPU build from --index-url "
                         "https://download.pytorch.org/whl/cpu, docs/training.md)") from None
    return torch


def build_net(model: Model):
    """An :class:`AZNet` holding ``model``'s arrays (float32)."""
    torch = import_torch()
    nn = torch.nn

    class AZNet(nn.Module):
        """``model``'s network in torch; ``forward(x, n) -> (value_logits (B, n), policy
        logits (B, A_n))``."""

        def __init__(self, template: Model):
            super().__init__()
            self.template = template
            self.players = list(template.players)
            self.params = nn.ParameterDict({
                name: nn.Parameter(torch.from_numpy(arr.copy()))
                for name, arr in sorted(template.arrays().items())})

        def _p(self, name: str, n: int):
            key = f"{name}@{n}"
            return self.params[key] if key in self.params else self.params[name]

        def forward(self, x, n: int):
            h = torch.relu(x @ self._p("w1", n) + self._p("b1", n))
            h = torch.relu(h @ self._p("w2", n) + self._p("b2", n))
            return h @ self._p("wv", n) + self._p("bv", n), h @ self._p("wp", n) + \
                self._p("bp", n)

        def l2(self, prefix: str = "w"):
            """``sum(w**2)`` over the weight arrays whose names start with ``prefix``
            (``"w"``: every weight matrix; ``"wv"``: the value head's)."""
            return sum((p * p).sum() for k, p in self.params.items() if k.startswith(prefix))

        def arrays(self) -> dict[str, np.ndarray]:
            return {k: p.detach().cpu().numpy().astype(np.float32).copy()
                    for k, p in self.params.items()}

        def to_model(self, **meta) -> Model:
            """The model file's object with these weights and ``meta`` updates."""
            return self.template.with_arrays(self.arrays(), **meta)

        def load_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
            with torch.no_grad():
                for k, p in self.params.items():
                    p.copy_(torch.from_numpy(np.asarray(arrays[k], np.float32)))

    return AZNet(model)


def losses(net, batch: Mapping[str, np.ndarray], n: int, l2: float, q_weight: float = 0.0,
           value_l2: float = 0.0):
    """``(total, value, policy, l2, value_mse)`` torch scalars of one batch of ``n``-player
    positions (``x`` (B, D_n+n), ``mask`` (B, A_n) bool, ``pi`` (B, A_n), ``z`` and ``q``
    (B, n)); ``total = value + policy + l2 * sum(w**2) + value_l2 * sum(wv**2)`` (the
    second penalty on the value head's output weights of every player count, ``ratai
    train --value-l2``; the returned ``l2`` is ``sum(w**2)``). The value target is
    ``(1 - q_weight) * z + q_weight * q``: the game's result mixed with the search's root
    value (``q`` may be absent when ``q_weight`` is 0). ``value_mse`` (the mean squared error
    of the sigmoid values against that target) is reported, not optimised."""
    torch = import_torch()
    F = torch.nn.functional
    x = torch.from_numpy(batch["x"])
    mask = torch.from_numpy(batch["mask"])
    pi = torch.from_numpy(batch["pi"])
    z = torch.from_numpy(batch["z"])
    if q_weight:
        z = (1.0 - q_weight) * z + q_weight * torch.from_numpy(batch["q"])
    v_logits, p_logits = net(x, n)
    value = F.binary_cross_entropy_with_logits(v_logits, z)
    masked = p_logits.masked_fill(~mask, float("-inf"))
    logp = torch.log_softmax(masked, dim=1)
    policy = -(pi * torch.where(mask, logp, torch.zeros_like(logp))).sum(dim=1).mean()
    reg = net.l2()
    mse = ((torch.sigmoid(v_logits) - z) ** 2).mean()
    total = value + policy + l2 * reg
    if value_l2:
        total = total + value_l2 * net.l2("wv")
    return total, value, policy, reg, mse


def heldout(net, positions, n: int, maps=None, chunk: int = 1024) -> dict:
    """How ``net`` predicts ``n``-player positions it has not trained on (a
    :class:`ratai.train.buffer.Positions`; ``maps`` as for its ``batch``), in chunks of
    ``chunk`` rows, without gradients:

    * ``value_mse``: mean squared error of its values against the game's result ``z`` (per
      seat; whatever the run's value target, the truth is ``z``);
    * ``constant_mse``: the same error of the constant ``1/n``, the fair share (the mean of
      ``z`` wherever one seat's win is the others' loss): a head below it has learned
      something that generalises, one above it has memorised its games;
    * ``policy_loss``: cross-entropy of its masked policy against the visit shares;
    * ``positions``: how many. Empty ``positions`` give ``{"positions": 0}``."""
    torch = import_torch()
    if len(positions) == 0:
        return {"positions": 0}
    sums = np.zeros(3)
    with torch.no_grad():
        for start in range(0, len(positions), chunk):
            idx = np.arange(start, min(start + chunk, len(positions)))
            batch = positions.batch(idx, n, maps)
            _, _, policy, _, mse = losses(net, batch, n, 0.0)
            const = float(((batch["z"] - 1.0 / n) ** 2).mean())
            sums += len(idx) * np.array([mse.item(), const, policy.item()])
    mean = sums / len(positions)
    return {"positions": len(positions), "value_mse": round(float(mean[0]), 5),
            "constant_mse": round(float(mean[1]), 5), "policy_loss": round(float(mean[2]), 5)}


def pooled(by_players: Mapping[int, dict]) -> dict:
    """:func:`heldout`'s figures of several player counts ``{n: figures}`` pooled, each
    weighted by its positions (``{"positions": 0}`` without any)."""
    parts = [h for h in by_players.values() if h["positions"]]
    total = sum(h["positions"] for h in parts)
    out: dict = {"positions": total}
    for key in ("value_mse", "constant_mse", "policy_loss"):
        if total:
            out[key] = round(sum(h[key] * h["positions"] for h in parts) / total, 5)
    return out
