"""Rats to Riches (Accentuate Games 2019): the reference rule engine.

``rules.RatsToRichesGame`` is registered as ``rats_to_riches``; ``data`` holds the cards.
"""
