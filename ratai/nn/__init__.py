"""ratai.nn: the network of the ``az`` bot (file format, checks, numpy inference).

>>> from ratai.nn import Model
>>> model = Model.init("rat_trap", players=[2, 3], hidden=(32, 16))   # doctest: +SKIP
>>> values, priors = model.evaluate(state, player=0)                  # doctest: +SKIP

See :mod:`ratai.nn.model` for the file format.
"""

from .model import (
    FORMAT_VERSION,
    Model,
    ModelError,
    Net,
    SeatMaps,
    game_data_hash,
    layout_version,
    model_params,
    packaged,
    seat_version,
)

__all__ = ["FORMAT_VERSION", "Model", "ModelError", "Net", "SeatMaps", "game_data_hash",
           "layout_version", "model_params", "packaged", "seat_version"]
