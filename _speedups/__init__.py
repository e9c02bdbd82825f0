"""ratai._speedups: compiled (Cython) twins of the reference engines.

``core.pxd``     the ``cdef class CyState`` base: the engine contract as ``cdef`` methods
                 (legal actions / chance outcomes into caller buffers, unchecked apply, copy,
                 clone, returns), most ``noexcept nogil``; ``core.pyx`` adds generic C-level
                 random playouts and the clone/copy loops of the benchmark.
``rat_trap.pyx``, ``first_rat.pyx``, ``ratapolis.pyx``, ``rats_to_riches.pyx``
                 the twins (same API and behaviour as ``engines/<game>``); a twin with
                 ``fast_c_resample`` determinizes in C for the search.
``search.pyx``   compiled UCT and IS-MCTS over the ``cdef`` contract (flat node pool); the
                 ``mcts`` / ``ismcts`` bots use it on a Cython state (``search_backend``).

``pip install -e .`` compiles them (``setup.py``); ``ratai.engines.load_game(backend="auto")``
uses a twin when it is built, ``RATAI_BACKEND=python`` forces the reference engines.
A new twin: subclass ``CyState`` in ``_speedups/<game>.pyx``, register it in
``ratai.engines._CYTHON_REGISTRY``; ``tests/speedups`` then checks it against the reference.
"""
