"""ratai._speedups: compiled (Cython) twins of the reference engines and the search loops.

Nothing is compiled yet; the Cython core issue adds ``core.pxd``, one ``.pyx`` per game and
``search.pyx``. ``ratai.engines.load_game(backend="auto")`` falls back to the reference.
"""
