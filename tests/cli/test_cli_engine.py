"""``ratai engine``: the JSON-lines analysis protocol, through a real subprocess.

Covers the issue's protocol cases: interleaved queries answered by id, partial reports
(``report_every_s``), ``terminate`` / ``terminate_all``, a bad line answered with an error
while the engine keeps running, and end of input finishing the queries in flight (exit 0).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ratai.engine import QueryError, parse_query
from ratai.engines import CHANCE, load_game
from ratai.engines.api import sample_chance_outcome
from tests.conftest import popen_sigint


def _decision_history(name: str, seed: int = 0, **params) -> tuple[list[int], object]:
    state = load_game(name, **params).new_initial_state()
    rng = np.random.default_rng(seed)
    while state.current_player() == CHANCE:
        state.apply_action(sample_chance_outcome(state, rng))
    return state.history(), state


class EngineProc:
    def __init__(self, *args: str):
        self.proc = popen_sigint([sys.executable, "-m", "ratai.cli", "engine", *args],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, obj) -> None:
        self.proc.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 60.0):
        return self.lines.get(timeout=timeout)

    def until(self, pred, timeout: float = 60.0) -> list:
        got, deadline = [], time.monotonic() + timeout
        while True:
            msg = self.read(max(0.1, deadline - time.monotonic()))
            assert msg is not None, f"engine exited early; got {got}"
            got.append(msg)
            if pred(msg):
                return got

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def engine():
    e = EngineProc("--workers", "2")
    yield e
    e.kill()


def test_interleaved_queries_partial_reports_and_eof(engine):
    hist, _ = _decision_history("rat_trap", num_players=3)
    long_q = {"id": "long", "game": "rat_trap", "params": {"num_players": 3}, "history": hist,
              "bot": "ismcts", "time_limit_s": 1.5, "report_every_s": 0.1, "multi_pv": 2}
    short_q = {"id": 7, "game": "rat_trap", "params": {"num_players": 3}, "history": hist,
               "bot": "ismcts:40", "seed": 3}
    engine.send(long_q)
    engine.send(short_q)
    got = engine.until(lambda m: m["id"] == 7 and not m["is_during_search"])
    # the short query finished while the long one was still reporting
    assert not any(m["id"] == "long" and not m["is_during_search"] for m in got)
    assert engine.close() == 0  # EOF: the in-flight long query still answers, then exit 0
    rest = []
    while (m := engine.read()) is not None:
        rest.append(m)
    during = [m for m in got + rest if m["id"] == "long" and m["is_during_search"]]
    final = [m for m in got + rest if m["id"] == "long" and not m["is_during_search"]]
    assert len(during) >= 3 and len(final) == 1
    fin = final[0]
    assert fin["iterations"] >= during[-1]["iterations"] >= during[0]["iterations"] > 0
    assert len(fin["moves"]) <= 2 and fin["best_action"] in {m["action"] for m in fin["moves"]}
    m = fin["moves"][0]
    assert set(m) == {"action", "label", "visits", "value", "values", "prior", "pv"}
    assert len(m["values"]) == 3 and 0 <= m["value"] <= 1 and m["pv"][0]["action"] == m["action"]
    short = [x for x in got if x["id"] == 7][-1]
    assert short["iterations"] == 40 and short["kind"] == "ismcts"


def test_same_query_same_seed_same_answer(engine):
    hist, _ = _decision_history("rats_to_riches", seed=2)
    q = {"game": "rats_to_riches", "history": hist, "bot": "ismcts:60", "seed": 5}
    engine.send({**q, "id": "a"})
    a = engine.until(lambda m: m["id"] == "a")[-1]
    engine.send({**q, "id": "b"})
    b = engine.until(lambda m: m["id"] == "b")[-1]
    strip = ("id", "elapsed_s")
    assert {k: v for k, v in a.items() if k not in strip} == \
        {k: v for k, v in b.items() if k not in strip}


def test_terminate_and_terminate_all(engine):
    hist, _ = _decision_history("rat_trap", num_players=3)
    q = {"game": "rat_trap", "params": {"num_players": 3}, "history": hist, "bot": "ismcts",
         "iterations": 10**9, "time_limit_s": 60}
    engine.send({**q, "id": "x"})
    time.sleep(0.3)
    t0 = time.monotonic()
    engine.send({"id": "t1", "action": "terminate", "terminate_id": "x"})
    got = engine.until(lambda m: m["id"] == "x" and not m.get("is_during_search"), timeout=20)
    assert time.monotonic() - t0 < 10
    ack = [m for m in got if m["id"] == "t1"]
    assert ack == [{"id": "t1", "action": "terminate", "terminate_id": "x", "found": True}]
    final = got[-1]
    assert final["terminated"] is True and final["iterations"] > 0 and final["moves"]
    engine.send({"id": "t2", "action": "terminate", "terminate_id": "nobody"})
    assert engine.until(lambda m: m["id"] == "t2")[-1]["found"] is False
    engine.send({**q, "id": "y1"})
    engine.send({**q, "id": "y2"})
    time.sleep(0.3)
    engine.send({"id": "all", "action": "terminate_all"})
    got = engine.until(lambda m: m["id"] == "all")
    got += engine.until(lambda m: m["id"] in ("y1", "y2") and m.get("terminated"))
    got += engine.until(lambda m: m["id"] in ("y1", "y2") and m.get("terminated"))
    assert sorted(next(m for m in got if m["id"] == "all")["terminated"]) == ["y1", "y2"]
    assert engine.close() == 0


def test_hostile_lines_get_errors_and_the_engine_keeps_running(engine):
    """Lines that used to end the engine (a traceback, exit 1) or make it read a device:
    a list or object where the action's name belongs, nesting deeper than the parser's
    recursion, a 5,000-digit integer, NaN, a client's data_path, a parameter named like
    load_game's own arguments, a float id. Each gets one error line naming the problem; the
    engine then still answers. Object ids match whatever the order of their keys."""
    hist, _ = _decision_history("rat_trap", num_players=3)
    q = {"game": "rat_trap", "params": {"num_players": 3}, "history": hist}
    engine.send({"id": "h1", "action": ["terminate"]})
    engine.send({"id": "h2", "action": {"a": 1}})
    engine.send("[" * 100_000)
    engine.send('{"id": "h4", "game": "rat_trap", "history": [' + "9" * 5000 + "]}")
    engine.send('{"id": NaN, "game": "rat_trap", "history": []}')
    engine.send({"id": "h6", "game": "rat_trap", "params": {"data_path": "/dev/zero"},
                 "history": []})
    engine.send({**q, "id": "h7", "params": {"num_players": 3, "backend": "python"}})
    engine.send({**q, "id": "h8", "params": {"num_players": 3, "name": "x"}})
    engine.send({**q, "id": 1.5})
    engine.send({**q, "id": {"a": 1, "b": [2, "x"]}, "bot": "ismcts", "iterations": 10**9,
                 "time_limit_s": 60})
    engine.send({"id": "t", "action": "terminate", "terminate_id": {"b": [2, "x"], "a": 1}})
    got = engine.until(lambda m: m.get("id") == {"a": 1, "b": [2, "x"]}
                       and not m.get("is_during_search"), timeout=30)
    engine.send({"id": "v", "action": "query_version"})
    got += engine.until(lambda m: m["id"] == "v")
    # h7 and h8 are refused by the query's worker thread when it builds the game, so their
    # errors may come after the other answers (on a busy machine)
    while not {'"h7"', '"h8"'} <= {json.dumps(m["id"]) for m in got if "error" in m}:
        got += engine.until(lambda m: "error" in m, timeout=30)
    errors = [m for m in got if "error" in m]
    by_id = {json.dumps(m["id"]): m["error"] for m in errors if m["id"] is not None}
    anonymous = [m["error"] for m in errors if m["id"] is None]
    assert "unknown action" in by_id['"h1"'] and "unknown action" in by_id['"h2"']
    assert any("nested too deeply" in e for e in anonymous), anonymous
    assert any("digits" in e for e in anonymous), anonymous
    assert any("NaN is not a JSON number" in e for e in anonymous), anonymous
    assert "data_path" in by_id['"h6"'] and "may not be set" in by_id['"h6"']
    for k, name in (('"h7"', "backend"), ('"h8"', "name")):
        assert name in by_id[k] and "multiple values" not in by_id[k], by_id[k]
    assert any("bad id 1.5" in e for e in anonymous), anonymous
    assert not any(e.startswith("internal error") for e in by_id.values())
    ack = next(m for m in got if m["id"] == "t")
    assert ack["found"] is True
    assert next(m for m in got if m["id"] == "v")["version"]


def test_bad_lines_get_errors_and_the_engine_keeps_running(engine):
    hist, state = _decision_history("rat_trap", num_players=3)
    legal = state.legal_actions()
    engine.send("this is not json")
    engine.send({"id": "u", "game": "rat_trap", "history": hist, "itrations": 5})
    engine.send({"id": "g", "game": "chess", "history": []})
    engine.send({"id": "c", "game": "rat_trap", "history": []})  # a chance node
    engine.send({"id": "r", "game": "rat_trap", "params": {"num_players": 3}, "history": hist,
                 "bot": "ismcts:10", "root_moves": [99999]})
    engine.send({"id": "i", "game": "rat_trap", "history": [99999]})
    engine.send({"id": "k", "game": "rat_trap", "history": hist, "bot": "oracle"})
    engine.send({"id": "a", "action": "dance"})
    engine.send({"id": "ok", "game": "rat_trap", "params": {"num_players": 3}, "history": hist,
                 "bot": "heuristic"})
    got = {m["id"]: m for m in engine.until(lambda m: m["id"] == "ok")}
    got.update({m["id"]: m for m in engine.until(lambda m: len(got) >= 9, timeout=5)}
               if len(got) < 9 else {})
    assert got[None]["error"].startswith("not JSON")
    assert "itrations" in got["u"]["error"] and "iterations" in got["u"]["error"]
    assert "chess" in got["g"]["error"] and "rat_trap" in got["g"]["error"]
    assert "chance node" in got["c"]["error"]
    assert "99999" in got["r"]["error"] and str(legal) in got["r"]["error"]
    assert "99999" in got["i"]["error"]
    assert "oracle" in got["k"]["error"]
    assert "dance" in got["a"]["error"]
    assert got["ok"]["moves"] and "error" not in got["ok"]
    assert engine.close() == 0


def test_root_moves_and_observation_queries(engine):
    hist, state = _decision_history("rats_to_riches", seed=1)
    legal = state.legal_actions()
    allowed = legal[1:3]
    engine.send({"id": "r", "game": "rats_to_riches", "history": hist, "bot": "ismcts:80",
                 "root_moves": allowed})
    r = engine.until(lambda m: m["id"] == "r")[-1]
    assert "error" not in r and r["moves"]
    assert {m["action"] for m in r["moves"]} <= set(allowed) and r["best_action"] in allowed
    seat = state.current_player()
    engine.send({"id": "o", "game": "rats_to_riches", "observation": state.observation(seat),
                 "player": seat, "bot": "ismcts:30"})
    o = engine.until(lambda m: m["id"] == "o")[-1]
    assert "error" not in o and o["player"] == seat and o["best_action"] in legal
    engine.send({"id": "v", "action": "query_version"})
    assert "version" in engine.until(lambda m: m["id"] == "v")[-1]
    assert engine.close() == 0


@pytest.mark.parametrize("doc,words", [
    ({"game": "rat_trap", "history": []}, ["'id'"]),
    ({"id": 1, "history": []}, ["missing field 'game'", "rat_trap"]),  # was "bad game None"
    ({"id": 1, "game": None, "history": []}, ["bad game null", "rat_trap"]),
    ({"id": 1, "game": "rat_trap"}, ["history", "observation"]),
    ({"id": 1, "game": "rat_trap", "history": [], "observation": {}}, ["exactly one"]),
    ({"id": 1, "game": "rat_trap", "observation": {}}, ["player"]),
    ({"id": 1, "game": "rat_trap", "history": [1.5]}, ["history", "integer"]),
    ({"id": 1, "game": "rat_trap", "history": [], "iterations": 0}, ["iterations", ">= 1"]),
    ({"id": 1, "game": "rat_trap", "history": [], "time_limit_s": -1}, ["time_limit_s"]),
    ({"id": 1, "game": "rat_trap", "history": [], "multi_pv": True}, ["multi_pv"]),
    ({"id": 1, "game": "rat_trap", "history": [], "report_every_s": 0}, ["report_every_s"]),
    ([1, 2], ["JSON object"]),
])
def test_parse_query_names_the_bad_field(doc, words):
    with pytest.raises(QueryError) as info:
        parse_query(doc)
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize("line,error", [
    ('{"id": NaN, "game": "rat_trap", "history": []}', "not JSON: NaN is not a JSON number"),
    ('{"id": 1, "game": "rat_trap", "history": [Infinity]}',
     "not JSON: Infinity is not a JSON number"),
    ("this is not json", "not JSON: Expecting value at column 1"),
])
def test_a_line_that_is_not_json_is_said_once(line, error):
    """The error says what is wrong once (NaN said "not JSON this engine reads: not JSON:
    NaN is not a JSON number")."""
    import io

    from ratai.engine import Engine

    out = io.StringIO()
    Engine(out, workers=1).handle_line(line)
    assert json.loads(out.getvalue()) == {"id": None, "error": error}


def test_ctrl_c_stops_searches_and_exits_130(engine):
    import signal

    hist, _ = _decision_history("rat_trap", num_players=3)
    engine.send({"id": "x", "game": "rat_trap", "params": {"num_players": 3}, "history": hist,
                 "bot": "ismcts", "time_limit_s": 60, "report_every_s": 0.05})
    engine.until(lambda m: m["id"] == "x")  # searching
    t0 = time.monotonic()
    engine.proc.send_signal(signal.SIGINT)
    assert engine.proc.wait(timeout=20) == 130 and time.monotonic() - t0 < 10
    assert "Traceback" not in engine.proc.stderr.read()


def test_the_answer_is_the_bots_own_analysis():
    """In process: the engine reports exactly what ``make_bot(...).analyze`` finds."""
    import io

    from ratai.bots import make_bot
    from ratai.engine import Engine

    hist, state = _decision_history("rats_to_riches", seed=4)
    out = io.StringIO()
    Engine(out, workers=1).serve(io.StringIO(json.dumps(
        {"id": 1, "game": "rats_to_riches", "history": hist, "bot": "ismcts:120",
         "seed": 11}) + "\n"))
    answer = json.loads(out.getvalue())
    seat = state.current_player()
    direct = make_bot("ismcts", state.get_game(), seat, iterations=120, seed=11).analyze(state)
    assert answer["best_action"] == direct.best_action
    assert [(m["action"], m["visits"]) for m in answer["moves"]] == \
        [(m.action, m.visits) for m in direct.moves]
    assert answer["iterations"] == direct.iterations == 120


def test_a_bot_specs_options_reach_the_search():
    """Stop 50 (newcomer): ``"bot": "ismcts:500:foo=1"`` (or ``exploration=50``, or a level
    preset's options) searched with the defaults: the spec's options were dropped. Now they
    reach ``make_bot``: applied as the CLI applies them, a bad one an error line."""
    import io

    from ratai.bots import make_bot
    from ratai.engine import Engine

    hist, state = _decision_history("rats_to_riches", seed=4)
    seat = state.current_player()
    queries = [{"id": i, "game": "rats_to_riches", "history": hist, "seed": 11, "bot": bot}
               for i, bot in enumerate(["ismcts:200:exploration=50", "ismcts:200:foo=1",
                                        "ismcts:200:exploration=abc"])]
    out = io.StringIO()
    Engine(out, workers=1).serve(io.StringIO("".join(json.dumps(q) + "\n" for q in queries)))
    answers = {a["id"]: a for a in map(json.loads, out.getvalue().splitlines())}
    direct = make_bot("ismcts", state.get_game(), seat, iterations=200, seed=11,
                      exploration=50).analyze(state)
    assert [(m["action"], m["visits"]) for m in answers[0]["moves"]] == \
        [(m.action, m.visits) for m in direct.moves]
    assert "foo" in answers[1]["error"] and "exploration" in answers[1]["error"]
    assert "exploration" in answers[2]["error"]
    # a budget given as an option is the budget (the engine's default replaced it)
    out = io.StringIO()
    Engine(out, workers=1).serve(io.StringIO(json.dumps(
        {"id": 9, "game": "rats_to_riches", "history": hist, "bot": "ismcts:iterations=7"})
        + "\n"))
    assert json.loads(out.getvalue())["iterations"] == 7
