"""ratai: rule engines, search bots and a gRPC service for four board games about rats.

Games: First Rat, Rat Trap, Ratapolis, Rats to Riches. Start with
``ratai.engines.load_game`` and ``ratai.bots.make_bot``.
"""

__version__ = "0.1.0"
