"""``ratai engine``: a JSON-lines analysis engine over stdin/stdout.

Modelled on KataGo's analysis engine (``docs/Analysis_Engine.md`` of lightvector/KataGo):
a client writes one JSON query per line on stdin; the engine answers with one JSON object
per line on stdout, each repeating the query's ``id``. Many queries run at once on a pool
of worker threads, so answers of different queries interleave (match them by ``id``).
The protocol is specified, with examples, in ``docs/engine.md``.

Query (one line)::

    {"id": "q1", "game": "rat_trap", "params": {"num_players": 3},
     "history": [3, 17, ...],                       # or "observation": {...}, "player": 1
     "bot": "ismcts", "iterations": 2000,           # or "time_limit_s": 0.5 (or both)
     "multi_pv": 5, "root_moves": [12, 40], "report_every_s": 0.2, "seed": 0}

Answer (one line; ``is_during_search`` true for the partial reports of
``report_every_s``)::

    {"id": "q1", "is_during_search": false, "player": 1, "kind": "ismcts",
     "best_action": 12, "best_label": "...",
     "moves": [{"action": 12, "label": "...", "visits": 812, "value": 0.41,
                "values": [0.3, 0.41, 0.29], "prior": 0.25,
                "pv": [{"player": 1, "action": 12, "label": "..."}, ...]}, ...],
     "iterations": 2000, "nodes": 5120, "max_depth": 14, "elapsed_s": 0.83}

Actions: ``{"id": "t", "action": "terminate", "terminate_id": "q1"}`` stops query ``q1``
(it still sends its final answer, marked ``"terminated": true``; a query stopped before it
started answers ``{"id", "terminated": true, "no_results": true}``) and is acknowledged with
``{"id": "t", "action": "terminate", "terminate_id": "q1", "found": true}``;
``{"id": "t", "action": "terminate_all"}`` stops every query in flight;
``{"id": "v", "action": "query_version"}`` answers the ratai version.

A line that cannot be parsed or answered gets ``{"id": <its id or null>, "error": "..."}``
(one message naming the field and what is allowed, e.g. ``missing field 'game'; known:
[...]``, ``not JSON: NaN is not a JSON number``) and the engine keeps reading, whatever the
line holds (``NaN`` / ``Infinity``, integers of 4,300+ digits, nesting too deep for the
parser, a list where a name belongs); an unexpected failure answering it is ``"internal
error: ..."``, never the end of the engine. An ``id`` is a JSON string, integer, or an
array / object of those (matched as canonical JSON, keys sorted). ``params`` are game
parameters except :data:`SERVER_ONLY_PARAMS` (``data_path`` names a file on the engine's
machine; a client must not make it read one). At end of input the engine finishes the
queries in flight, then exits with status 0.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from ratai.engines import CHANCE, game_class, registered_games
from ratai.engines.api import IllegalActionError, UnknownGameError, parse_json

__all__ = ["Engine", "EngineQuery", "QueryError", "parse_query", "run_engine", "QUERY_FIELDS"]

#: Game parameters a query may not set (as the service's ``Limits.server_only_params``).
SERVER_ONLY_PARAMS = ("data_path",)

#: Every field a query may carry (anything else is refused, so a typo is not ignored).
QUERY_FIELDS = ("id", "game", "params", "history", "observation", "player", "bot",
                "iterations", "time_limit_s", "multi_pv", "root_moves", "report_every_s",
                "seed", "backend")
#: The action lines and their fields.
ACTION_FIELDS = {"terminate": ("id", "action", "terminate_id"),
                 "terminate_all": ("id", "action"),
                 "query_version": ("id", "action")}
#: Iterations between two looks at a search in flight (its terminate flag and its report
#: clock): small enough that ``terminate`` acts within milliseconds.
POLL_ITERATIONS = 25


class QueryError(ValueError):
    """A query that cannot be answered; ``str()`` is the one-line ``error`` the client gets."""


@dataclass
class EngineQuery:
    """One parsed, validated query (see the module docstring for the wire format)."""

    id: Any
    game: str
    params: dict
    bot: str
    history: list[int] | None = None
    observation: dict | None = None
    player: int | None = None
    iterations: int | None = None
    time_limit_s: float | None = None
    multi_pv: int | None = None
    root_moves: list[int] | None = None
    report_every_s: float | None = None
    seed: int = 0
    backend: str = "auto"
    stop: threading.Event = field(default_factory=threading.Event, repr=False)
    started: bool = field(default=False, repr=False)


def _int(doc: Mapping, key: str, low: int, default: Any = None) -> Any:
    v = doc.get(key, default)
    if v is default:
        return v
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise QueryError(f"bad {key} {v!r}: allowed an int >= {low}")
    return v


def _seconds(doc: Mapping, key: str) -> float | None:
    v = doc.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not (v > 0 and math.isfinite(v)):
        raise QueryError(f"bad {key} {v!r}: allowed seconds > 0")
    return float(v)


def _int_list(doc: Mapping, key: str) -> list[int] | None:
    v = doc.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or any(isinstance(a, bool) or not isinstance(a, int) for a in v):
        raise QueryError(f"bad {key}: allowed a JSON list of integer action ids, got "
                         f"{json.dumps(v)[:80]}")
    return v


def parse_query(doc: Any) -> EngineQuery:
    """Validate a decoded query line (a JSON object) into an :class:`EngineQuery`.

    Raises:
        QueryError: naming the first bad field and what is allowed.
    """
    if not isinstance(doc, dict):
        raise QueryError(f"a query must be a JSON object, got {type(doc).__name__}")
    unknown = sorted(set(doc) - set(QUERY_FIELDS))
    if unknown:
        raise QueryError(f"unknown field(s) {unknown}; allowed: {list(QUERY_FIELDS)}")
    if "id" not in doc:
        raise QueryError("missing field 'id'")
    _check_id(doc["id"], "id")
    if "game" not in doc:
        raise QueryError(f"missing field 'game'; known: {registered_games()}")
    game = doc["game"]
    if game not in registered_games():
        raise QueryError(f"bad game {_short(game)}; known: {registered_games()}")
    params = doc.get("params", {})
    if not isinstance(params, dict):
        raise QueryError("bad params: allowed a JSON object of game parameters")
    refused = sorted(set(params) & set(SERVER_ONLY_PARAMS))
    if refused:
        raise QueryError(f"bad params: {refused} may not be set by a query (a file on the "
                         f"engine's machine)")
    history, obs = _int_list(doc, "history"), doc.get("observation")
    if (history is None) == (obs is None):
        raise QueryError("give exactly one of 'history' (action ids from the start) or "
                         "'observation' (with 'player')")
    player = None
    if obs is not None:
        if not isinstance(obs, dict):
            raise QueryError("bad observation: allowed a JSON object (State.observation())")
        if "player" not in doc:
            raise QueryError("an 'observation' needs 'player' (the seat it belongs to)")
        player = _int(doc, "player", 0)
    elif "player" in doc:
        player = _int(doc, "player", 0)
    bot = doc.get("bot", "ismcts")
    if not isinstance(bot, str) or not bot:
        raise QueryError(f"bad bot {bot!r}: allowed a bot spec like 'ismcts' or 'mcts:500'")
    backend = doc.get("backend", "auto")
    if backend not in ("auto", "python", "cython"):
        raise QueryError(f"bad backend {backend!r}; allowed: auto, python, cython")
    return EngineQuery(
        id=doc["id"], game=game, params=params, bot=bot, history=history, observation=obs,
        player=player, iterations=_int(doc, "iterations", 1),
        time_limit_s=_seconds(doc, "time_limit_s"), multi_pv=_int(doc, "multi_pv", 1),
        root_moves=_int_list(doc, "root_moves"), report_every_s=_seconds(doc, "report_every_s"),
        seed=_int(doc, "seed", 0, 0), backend=backend)


def _check_id(value: Any, field: str) -> None:
    """Refuse an id that is not a string, an integer, or an array / object of those."""
    def ok(v: Any) -> bool:
        if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
            return True
        if isinstance(v, list):
            return all(ok(x) for x in v)
        if isinstance(v, dict):
            return all(ok(x) for x in v.values())
        return False

    if not ok(value):
        raise QueryError(f"bad {field} {_short(value)}: allowed a string or an integer (or "
                         f"an array / object of those)")


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _id_key(value: Any) -> str:
    """The canonical JSON of an id (object keys sorted): how ids are matched."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _no_constant(name: str) -> Any:
    """``parse_constant`` of the query parser: ``NaN``, ``Infinity`` and ``-Infinity`` are
    Python's extensions, not JSON."""
    raise QueryError(f"not JSON: {name} is not a JSON number")


def _accepts(fn: Any, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _answer(q: EngineQuery, analysis: Any, during: bool) -> dict:
    """An ``Analysis`` as one answer object (``multi_pv`` best moves)."""
    moves = list(analysis.moves)
    if q.root_moves is not None:  # a bot that restricted its root already: a no-op
        allowed = set(q.root_moves)
        moves = [m for m in moves if m.action in allowed]
        if not moves and not during:
            raise QueryError(f"bot {q.bot!r} reported none of root_moves {q.root_moves}")
    if q.multi_pv is not None:
        moves = moves[:q.multi_pv]
    best_pv = [{"player": int(s.player), "action": int(s.action), "label": s.label}
               for s in analysis.pv]
    out_moves = []
    for i, m in enumerate(moves):
        pv = getattr(m, "pv", ())
        steps = [{"player": int(s.player), "action": int(s.action), "label": s.label}
                 for s in pv]
        if not steps and i == 0 and best_pv and best_pv[0]["action"] == m.action:
            steps = best_pv  # the analysis' own PV is this move's line
        out_moves.append({"action": int(m.action), "label": m.label, "visits": int(m.visits),
                          "value": float(m.value), "values": [float(v) for v in m.values],
                          "prior": float(m.prior), "pv": steps})
    # the bot's own choice, unless it searched moves outside root_moves (then the best of
    # those it was asked about, by the same order the moves are reported in)
    best = next((m for m in analysis.moves if m.action == analysis.best_action), None)
    if q.root_moves is not None and analysis.best_action not in q.root_moves:
        best = moves[0] if moves else None
    return {"id": q.id, "is_during_search": during, "player": int(analysis.player),
            "kind": analysis.kind,
            "best_action": int(best.action if best is not None else analysis.best_action),
            "best_label": best.label if best is not None else "",
            "moves": out_moves, "iterations": int(analysis.iterations),
            "nodes": int(analysis.nodes), "max_depth": int(analysis.max_depth),
            "elapsed_s": round(float(analysis.elapsed_s), 4)}


class Engine:
    """The engine: reads query lines, runs them on ``workers`` threads, writes answer lines.

    Args:
        out: where answers go (one JSON object per line, flushed per line).
        workers: queries searched at once (>= 1; default: the number of cores). Further
            queries wait in order.

    Threads rather than processes: a ``terminate`` and the partial reports need the live
    search, and the compiled searches spend their time in Cython. Use several engine
    processes for more parallel pure-Python search.
    """

    def __init__(self, out: TextIO, workers: int | None = None):
        if workers is None:
            workers = os.cpu_count() or 1
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"bad workers {workers!r}: allowed an int >= 1")
        self.out = out
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ratai-engine")
        self._inflight: dict[str, EngineQuery] = {}
        self._games: dict[str, Any] = {}

    # -- output ---------------------------------------------------------------------------
    def send(self, doc: dict) -> None:
        """Write one answer line (thread-safe)."""
        line = json.dumps(doc, separators=(",", ":"))
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    # -- input ----------------------------------------------------------------------------
    def handle_line(self, line: str) -> None:
        """Parse one input line and act on it (never raises for bad input)."""
        if not line.strip():
            return
        qid = None
        try:
            try:
                doc = parse_json(line, parse_constant=_no_constant)
            except QueryError:  # NaN / Infinity: _no_constant's message says it all
                raise
            except json.JSONDecodeError as exc:
                raise QueryError(f"not JSON: {exc.msg} at column {exc.colno}") from None
            except ValueError as exc:   # 4,300+ digit integers, deep nesting
                raise QueryError(f"not JSON this engine reads: {exc}") from None
            if isinstance(doc, dict) and "id" in doc:
                _check_id(doc["id"], "id")
                qid = doc["id"]
            if isinstance(doc, dict) and "action" in doc:
                self._action(doc)
                return
            q = parse_query(doc)
            key = _id_key(q.id)
            with self._lock:
                if key in self._inflight:
                    raise QueryError(f"a query with id {_short(q.id)} is still in flight")
                self._inflight[key] = q
            self._pool.submit(self._run, q, key)
        except QueryError as exc:
            self.send({"id": qid, "error": str(exc)})
        except Exception as exc:  # noqa: BLE001 - one bad line must not end the engine
            self.send({"id": qid, "error": f"internal error: {type(exc).__name__}: "
                                           f"{str(exc)[:200]}"})

    def _action(self, doc: dict) -> None:
        action = doc["action"]
        if not isinstance(action, str) or action not in ACTION_FIELDS:
            raise QueryError(f"unknown action {_short(action)}; allowed: "
                             f"{sorted(ACTION_FIELDS)}")
        unknown = sorted(set(doc) - set(ACTION_FIELDS[action]))
        if unknown:
            raise QueryError(f"unknown field(s) {unknown} for action {action!r}; allowed: "
                             f"{list(ACTION_FIELDS[action])}")
        if action == "query_version":
            from ratai import __version__

            self.send({"id": doc.get("id"), "action": action, "version": __version__})
            return
        with self._lock:
            if action == "terminate":
                if "terminate_id" not in doc:
                    raise QueryError("terminate needs 'terminate_id' (the id of the query)")
                _check_id(doc["terminate_id"], "terminate_id")
                targets = [q for k, q in self._inflight.items()
                           if k == _id_key(doc["terminate_id"])]
            else:
                targets = list(self._inflight.values())
        for q in targets:
            q.stop.set()
        ack = {"id": doc.get("id"), "action": action}
        if action == "terminate":
            ack.update(terminate_id=doc["terminate_id"], found=bool(targets))
        else:
            ack["terminated"] = [q.id for q in targets]
        self.send(ack)

    def serve(self, inp: TextIO) -> int:
        """Read ``inp`` to its end, then wait for the queries in flight. Returns 0."""
        try:
            for line in inp:
                self.handle_line(line)
        except BaseException:  # Ctrl-C or a broken pipe: stop the searches, do not wait
            self.terminate_all()
            self._pool.shutdown(wait=False, cancel_futures=True)
            raise
        self._pool.shutdown(wait=True)
        return 0

    def terminate_all(self) -> list:
        """Stop every query in flight (they still answer); returns their ids."""
        with self._lock:
            targets = list(self._inflight.values())
        for q in targets:
            q.stop.set()
        return [q.id for q in targets]

    # -- one query -----------------------------------------------------------------------
    def _game(self, q: EngineQuery):
        key = json.dumps([q.game, q.params, q.backend], sort_keys=True)
        game = self._games.get(key)
        if game is None:
            # the class, not load_game(game, backend=, **params): a parameter named
            # "backend" or "name" is then the game's "unknown parameter", not a TypeError
            game = self._games[key] = game_class(q.game, q.backend)(**q.params)
        return game

    def _position(self, q: EngineQuery, game):
        if q.history is not None:
            state = game.state_from_history(q.history)
        else:
            n = game.num_players()
            if q.player >= n:
                raise QueryError(f"bad player {q.player}: allowed 0..{n - 1}")
            state = game.state_from_observation(q.player, q.observation,
                                                np.random.default_rng(q.seed))
        if state.is_terminal():
            raise QueryError(f"the game is over (scores {state.scores()}); nothing to analyse")
        cp = state.current_player()
        if cp == CHANCE:
            raise QueryError("the position is a chance node (dice or cards to draw): append "
                             "the outcome to the history")
        if cp < 0:
            raise QueryError("the position is a simultaneous node; give a seat's view")
        if q.player is not None and q.player != cp:
            raise QueryError(f"it is not seat {q.player}'s turn in that position "
                             f"(to move: {cp})")
        return state, cp

    def _bot(self, q: EngineQuery, game, seat: int, on_progress):
        from ratai.arena import BotSpec
        from ratai.bots import BOT_KINDS, make_bot

        spec = BotSpec.parse(q.bot)
        if spec.level is not None:  # a strength preset: the game's calibrated spec
            from ratai.bots.levels import level_spec

            if q.iterations is not None or q.time_limit_s is not None:
                raise QueryError(f"bot {q.bot!r} sets its own budget: drop iterations and "
                                 f"time_limit_s")
            spec = BotSpec.parse(level_spec(game, spec.level))
        iterations = q.iterations if q.iterations is not None else spec.iterations
        time_limit = q.time_limit_s if q.time_limit_s is not None else spec.time_limit
        cls = BOT_KINDS.get(spec.kind)
        kw: dict[str, Any] = dict(spec.options)   # checked by make_bot (a typo is an error)
        if "progress_every" in kw:
            raise QueryError(f"bot {q.bot!r}: progress_every is set by the engine "
                             f"(report_every_s sets how often it reports)")
        if iterations is not None:
            kw["iterations"] = iterations
        if time_limit is not None:
            kw["time_limit"] = time_limit
        searching = cls is not None and "progress_every" in inspect.signature(cls).parameters
        if searching:
            kw.update(on_progress=on_progress, progress_every=POLL_ITERATIONS)
            if not {"iterations", "time_limit", "max_depth"} & kw.keys():
                kw["iterations"] = 1000  # the CLI's default budget (ratai suggest)
        if q.root_moves is not None and "root_moves" in getattr(cls, "OPTIONS", ()):
            kw["root_moves"] = q.root_moves
        return make_bot(spec.kind, game, seat, seed=q.seed, **kw), searching

    def _run(self, q: EngineQuery, key: str) -> None:
        try:
            if q.stop.is_set():
                self.send({"id": q.id, "is_during_search": False, "terminated": True,
                           "no_results": True})
                return
            self.send(self._search(q))
        except (QueryError, ValueError, LookupError, TypeError) as exc:
            msg = str(exc) if not isinstance(exc, KeyError) else f"missing {exc}"
            if isinstance(exc, UnknownGameError | IllegalActionError):
                msg = str(exc)
            self.send({"id": q.id, "error": msg})
        except Exception as exc:  # noqa: BLE001 - one query's bug must not kill the engine
            self.send({"id": q.id, "error": f"internal error: {type(exc).__name__}: {exc}"})
        finally:
            with self._lock:
                self._inflight.pop(key, None)

    def _search(self, q: EngineQuery) -> dict:
        game = self._game(q)
        state, seat = self._position(q, game)
        if q.root_moves is not None:
            legal = state.legal_actions()
            bad = [a for a in q.root_moves if a not in legal]
            if bad or not q.root_moves:
                raise QueryError(f"bad root_moves {bad or []}: allowed a non-empty subset of the "
                                 f"legal actions {legal}")
        last = [time.perf_counter()]

        def on_progress(analysis) -> bool:
            if q.stop.is_set():
                return False
            now = time.perf_counter()
            if q.report_every_s is not None and now - last[0] >= q.report_every_s:
                last[0] = now
                self.send(_answer(q, analysis, during=True))
            return True

        bot, searching = self._bot(q, game, seat, on_progress)
        kwargs = {}
        if q.root_moves is not None and _accepts(bot.analyze, "root_moves"):
            kwargs["root_moves"] = q.root_moves
        analysis = bot.analyze(state, **kwargs)
        answer = _answer(q, analysis, during=False)
        if q.root_moves is not None and not kwargs and getattr(bot, "root_moves", None) is None:
            # A bot without root_moves searched every move; the answer keeps only the asked
            # ones (best = the best of those by the whole search) and says so.
            answer["root_moves_filtered"] = True
        if q.stop.is_set():
            answer["terminated"] = True
        return answer


def run_engine(inp: TextIO = sys.stdin, out: TextIO = sys.stdout,
               workers: int | None = None) -> int:
    """Run the engine on ``inp``/``out`` until end of input (``ratai engine``). Returns 0."""
    return Engine(out, workers).serve(inp)
