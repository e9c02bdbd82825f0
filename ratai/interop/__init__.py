"""ratai.interop: ratai's games inside other game-AI libraries.

* :mod:`ratai.interop.openspiel` — ``register()`` makes every registered game loadable with
  ``pyspiel.load_game("ratai_<game>", {...})`` (extra ``ratai[openspiel]``).
* :mod:`ratai.interop.pettingzoo` — ``env(game, **params)``, a PettingZoo AEC environment
  (extra ``ratai[pettingzoo]``).

Both adapters are thin: every rule question is answered by the ratai engine (picked with
``backend="auto"``, so the Cython twin when it is built), and only the vocabulary is
translated. Neither submodule is imported here, so ``import ratai.interop`` never needs the
optional libraries.
"""

from __future__ import annotations

__all__: list[str] = []
