"""ratai.train: AlphaZero-style self-play training of the ``az`` bot's network
(``ratai train``; needs the ``[train]`` extra, ``torch==2.13.0``).

>>> from ratai.train import TrainConfig, TrainingRun                   # doctest: +SKIP
>>> cfg = TrainConfig("rat_trap", players=[2, 3], generations=5, games_per_gen=40)
>>> TrainingRun("runs/rat_trap", cfg).run()                            # doctest: +SKIP

See :mod:`ratai.train.loop` (the run directory and the loop), :mod:`ratai.train.selfplay`
(the games), :mod:`ratai.train.buffer` (the replay buffer), :mod:`ratai.train.net` (the
torch network and the loss), :mod:`ratai.train.report` (report and plots).
"""

from ratai.train.loop import RunError, TrainConfig, TrainingRun

__all__ = ["RunError", "TrainConfig", "TrainingRun"]
