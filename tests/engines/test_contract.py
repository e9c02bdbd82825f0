"""Conformance suite of the engine contract (engines/api.py), run on every registered game
and each of its variants (the OpenSpiel habit: one suite, every game)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ratai.engines import CHANCE, TERMINAL, IllegalActionError, UnknownGameError, load_game
from ratai.engines.api import canonical_json
from tests.conftest import random_playout, sample_action

GAMES_PER_VARIANT = 3


def check_state(state) -> None:
    """Per-state invariants of the contract."""
    game = state.get_game()
    cp = state.current_player()
    legal = state.legal_actions()
    if cp == TERMINAL:
        assert state.is_terminal() and legal == []
        returns = state.returns()
        assert len(returns) == game.num_players()
        assert all(0.0 <= r <= 1.0 for r in returns) and sum(returns) <= 1.0 + 1e-9
        return
    assert legal, "a non-terminal state has legal actions"
    assert legal == sorted(set(legal))
    assert all(0 <= a < game.num_distinct_actions() for a in legal)
    assert state.returns() == [0.0] * game.num_players()
    if cp == CHANCE:
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == legal
        assert all(p > 0 for _, p in outcomes)
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    else:
        assert 0 <= cp < game.num_players()
        with pytest.raises(ValueError):
            state.chance_outcomes()
        labels = [state.action_to_string(cp, a) for a in legal]
        assert len(set(labels)) == len(labels), f"labels not unique: {labels}"
        for a, label in zip(legal, labels, strict=True):
            assert state.string_to_action(cp, label) == a
        other = (cp + 1) % game.num_players()
        if other != cp:
            assert state.legal_actions(other) == []
    assert len(scores := state.scores()) == game.num_players()
    assert all(isinstance(x, float) for x in scores)


def test_every_state_keeps_the_contract(any_game):
    for seed in range(GAMES_PER_VARIANT):
        final = random_playout(any_game, seed, on_state=check_state)
        assert len(final.history()) <= any_game.max_game_length()


def test_replay_and_serialization_reproduce_the_state(any_game):
    for seed in range(GAMES_PER_VARIANT):
        final = random_playout(any_game, seed)
        replayed = any_game.state_from_history(final.history())
        assert replayed == final
        restored = any_game.deserialize_state(final.serialize())
        assert restored == final and restored.history() == final.history()
        # mid-game too: a restored state continues exactly like the original
        mid = any_game.state_from_history(final.history()[: len(final.history()) // 2])
        copy = any_game.deserialize_state(mid.serialize())
        rng1, rng2 = np.random.default_rng(seed), np.random.default_rng(seed)
        while not mid.is_terminal():
            a = sample_action(mid, rng1)
            assert sample_action(copy, rng2) == a
            mid.apply_action(a)
            copy.apply_action(a)
        assert copy == mid


def plain_json(value) -> bool:
    """Whether ``value`` is plain JSON data (the class contract of ``State``'s fields; tuples
    allowed, as JSON writes them as lists)."""
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) in (list, tuple):
        return all(plain_json(x) for x in value)
    if type(value) is dict:
        return all(type(k) is str and plain_json(x) for k, x in value.items())
    return False


def test_clone_is_independent(any_game):
    state = any_game.new_initial_state()
    rng = np.random.default_rng(7)
    for _ in range(40):
        if state.is_terminal():
            break
        state.apply_action(sample_action(state, rng))
        if not hasattr(state, "to_reference"):  # a reference state: what clone relies on
            bad = [k for k, v in state._fields().items() if not plain_json(v)]
            assert not bad, f"fields that are not plain JSON data: {bad}"
    before = state.serialize()
    clone = state.clone()
    assert clone == state
    while not clone.is_terminal():
        clone.apply_action(sample_action(clone, rng))
    assert state.serialize() == before


def test_clone_and_world_key_of_other_field_types():
    """``State.clone`` copies plain fields in one ``marshal`` round trip and ``_world_key``
    writes ``marshal`` bytes; a field of a type marshal refuses (outside the class contract
    of plain JSON data, which ``test_clone_is_independent`` checks every game keeps) falls
    back to the copy in Python and to ``repr``. Equal states give equal keys however their
    strings were made (interned literals or read from JSON)."""
    game = load_game("rats_to_riches", backend="python", num_players=3)
    state, rng = game.new_initial_state(), np.random.default_rng(2)
    for _ in range(30):
        state.apply_action(sample_action(state, rng))
    rebuilt = game.deserialize_state(state.serialize())  # every string read from JSON
    assert rebuilt == state and rebuilt._world_key() == state._world_key()
    assert isinstance(state._world_key(), bytes)

    class Box:  # not plain data
        def __init__(self, items):
            self.items = items

        def __eq__(self, other):
            return isinstance(other, Box) and other.items == self.items

        def __repr__(self):
            return f"Box({self.items!r})"

    odd = state.clone()
    odd.extra = [3, Box([1, 2])]
    copy = odd.clone()
    assert copy == odd and copy.extra[1] is odd.extra[1]  # copied as before: by _copy_json
    copy.extra.append(4)
    assert len(odd.extra) == 2
    assert isinstance(odd._world_key(), str) and odd._world_key() == odd.clone()._world_key()
    plain = state.clone()
    plain.rows = [[1, 2], [3]]
    twin = plain.clone()
    twin.rows[0].append(9)
    assert plain.rows == [[1, 2], [3]] and twin._world_key() != plain._world_key()


def test_illegal_actions_raise_and_change_nothing(any_game):
    state = any_game.new_initial_state()
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        legal = state.legal_actions()
        before = state.serialize()
        illegal = [a for a in range(any_game.num_distinct_actions()) if a not in legal][:3]
        for bad in illegal + [-1, any_game.num_distinct_actions(), "1", None, True, 1.5]:
            with pytest.raises(IllegalActionError) as info:
                state.apply_action(bad)
            assert str(legal[0]) in str(info.value) and repr(bad) in str(info.value)
            assert state.serialize() == before
        state.apply_action(sample_action(state, rng))
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(0)


def check_resamples(any_game, seeds) -> None:
    """resample_from_infostate: same information state; equal infostates + seed => equal sample;
    state_from_observation round-trips the observation (``observation_string``); every seat,
    every fifth state of the seeded random playouts ``seeds``."""
    n = any_game.num_players()

    def check(state):
        if state.move_number() % 5:
            return
        for p in range(n):
            info = state.information_state_string(p)
            json.loads(info)
            sample = state.resample_from_infostate(p, 11)
            assert sample.information_state_string(p) == info
            assert sample.current_player() == state.current_player()
            assert sample.legal_actions(p) == state.legal_actions(p)
            twin = state.resample_from_infostate(p, 12)  # another world, same infostate
            assert twin.information_state_string(p) == info
            again = twin.resample_from_infostate(p, 11)
            assert again.serialize() == sample.serialize()
            rebuilt = any_game.state_from_observation(p, state.observation(p), 5)
            assert canonical_json(rebuilt.observation(p)) == state.observation_string(p)
            # the current view round-trips; the past (perfect recall) is not in it
            assert rebuilt.observation_string(p) == state.observation_string(p)

    for seed in seeds:
        random_playout(any_game, seed, on_state=check)


@pytest.mark.usefixtures("bounded_beliefs")
def test_resample_keeps_information_state_and_depends_only_on_it(any_game):
    check_resamples(any_game, range(1))


@pytest.mark.slow
def test_resample_keeps_information_state_on_more_games(any_game):
    check_resamples(any_game, range(1, 11))


@pytest.mark.usefixtures("bounded_beliefs")
def test_resampled_states_play_on(any_game):
    """A determinization is a full, playable state: random play from it terminates."""
    state = any_game.new_initial_state()
    rng = np.random.default_rng(1)
    for step in range(400):
        if state.is_terminal():
            break
        if step % 25 == 0:
            for p in range(any_game.num_players()):
                sample = state.resample_from_infostate(p, rng)
                for _ in range(any_game.max_game_length()):
                    if sample.is_terminal():
                        break
                    sample.apply_action(sample_action(sample, rng))
                assert sample.is_terminal()
        state.apply_action(sample_action(state, rng))


def test_observations_are_json(any_game):
    def check(state):
        for p in range(any_game.num_players()):
            assert json.loads(json.dumps(state.observation(p))) == state.observation(p)
    random_playout(any_game, 0, on_state=check)


def test_unknown_game_and_bad_params():
    with pytest.raises(UnknownGameError, match="rat_trap"):
        load_game("no_such_game")
    with pytest.raises(ValueError, match="backend"):
        load_game("rat_trap", backend="fortran")
    with pytest.raises(ValueError, match="unknown parameter"):
        load_game("rat_trap", colour="red")


def test_an_integer_parameter_takes_ascii_digits_only():
    """A command line gives ``num_players=3`` as text, so an int parameter takes a string of
    ASCII digits; a tester's ``"٣"`` (an Arabic-Indic digit, which ``int()`` reads) was taken
    as 3 too. Other digits, floats in text and bools are refused, naming the parameter."""
    assert load_game("rat_trap", num_players=" 3").num_players() == 3
    for bad in ("٣", "3.0", "three", "--3", True, 3.0):
        with pytest.raises(ValueError, match="num_players"):
            load_game("rat_trap", num_players=bad)


@pytest.mark.parametrize("backend", ["python", "cython"])
@pytest.mark.parametrize("name,param", [("rat_trap", "max_turns_per_round"),
                                        ("rats_to_riches", "max_turn_actions")])
def test_safety_valves_are_bounded_on_both_backends(name, param, backend):
    """The safety valves (not rules; RR-10 for Rats to Riches) take 1..SAFETY_VALVE_MAX on both
    backends: a value past the twins' 32-bit counters is a ValueError naming the parameter,
    never an OverflowError from the twin."""
    from ratai.engines.api import SAFETY_VALVE_MAX

    assert load_game(name, backend=backend, **{param: SAFETY_VALVE_MAX}).params[param] == \
        SAFETY_VALVE_MAX
    for bad in (0, SAFETY_VALVE_MAX + 1, 2**31, 2**63):
        with pytest.raises(ValueError, match=f"{param}.*1..{SAFETY_VALVE_MAX}"):
            load_game(name, backend=backend, **{param: bad})


def test_bad_parameter_messages_quote_a_long_value_briefly():
    """An error names the parameter and quotes at most ~100 characters of a long value
    (then its length), so a caller's 5,000-character input is not echoed back."""
    for name, param, value in [("ratapolis", "colors", "A" * 5000),
                               ("ratapolis", "layout", "x" * 3000),
                               ("ratapolis", "round_events", "y" * 3000),
                               ("rat_trap", "tie_break", "z" * 3000),
                               ("first_rat", "num_players", 10**400)]:
        with pytest.raises(ValueError, match=param) as info:
            load_game(name, **{param: value})
        assert len(str(info.value)) < 500 and "characters)" in str(info.value)


def _tampered(name: str, path: tuple | None, value=None, backend: str = "python"):
    """A mid-game 3-player state of ``name`` serialized with ``fields[path] = value``
    (``path`` None: unchanged), and the game on ``backend``."""
    import random

    g = load_game(name, backend="python", num_players=3)
    s, r = g.new_initial_state(), random.Random(1)
    for _ in range(40):
        if s.is_terminal() or s.current_player() < CHANCE:
            break
        if s.is_chance_node():
            outcomes, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(r.choices(outcomes, probs)[0])
        else:
            s.apply_action(r.choice(s.legal_actions()))
    doc = json.loads(s.serialize())
    if path is not None:
        node = doc["fields"]
        for key in path[:-1]:
            node = node[key]
        assert isinstance(node[path[-1]], int)
        node[path[-1]] = value
    return load_game(name, backend=backend, num_players=3), json.dumps(doc)


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_deserialize_refuses_a_field_out_of_range(backend):
    """A serialized state is validated before use: every seat's view of it against the
    observation schema. First Rat's twin read ``light[2] = 1000000`` unchecked and crashed
    the interpreter on the next move (found at stop 46); now it is a ValueError naming it."""
    game, data = _tampered("first_rat", ("light", 2), 10**6, backend)
    with pytest.raises(ValueError, match=r"light\[2\].*1000000"):
        game.deserialize_state(data)
    ok_game, ok_data = _tampered("first_rat", ("light", 2), 3, backend)
    assert ok_game.deserialize_state(ok_data).legal_actions()


@pytest.mark.parametrize("who", [-5, 7])
def test_deserialize_refuses_a_state_nobody_can_play(who):
    """A state whose player to move is not a seat is refused: Rat Trap's twin takes the
    player to move from the pending step (``ctx.who``; -5 or 7 of 3 seats), so the check
    runs on the twin's reading of the fields too (the reference reads another field)."""
    game, data = _tampered("rat_trap", ("ctx", "who"), who, "cython")
    with pytest.raises(ValueError, match="not a valid rat_trap state"):
        game.deserialize_state(data)


@pytest.mark.parametrize("name", ["first_rat", "rat_trap", "ratapolis", "rats_to_riches"])
def test_tampered_integers_are_refused_or_playable_on_the_twin(name):
    """Fuzz: each integer field of a serialized mid-game state set to an extreme value is
    either refused with a ValueError or gives a state the twin plays on (no crash)."""
    import random

    game, data = _tampered(name, None, backend="cython")
    doc = json.loads(data)
    assert json.loads(game.deserialize_state(data).serialize()) == doc

    def ints(node, path=()):
        if isinstance(node, bool):
            return
        if isinstance(node, int):
            yield path
        elif isinstance(node, dict):
            for k, v in node.items():
                yield from ints(v, (*path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from ints(v, (*path, i))

    paths = [p for p in ints(doc["fields"]) if p[0] != "views"]
    r = random.Random(5)
    for path in r.sample(paths, min(40, len(paths))):
        for value in (-1, 10**6, 2**40):
            bad = json.loads(data)
            node = bad["fields"]
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
            try:
                state = game.deserialize_state(json.dumps(bad))
            except ValueError:
                continue
            try:
                for _ in range(20):
                    if state.is_terminal():
                        break
                    state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node()
                                       else state.legal_actions()[0])
            except Exception:  # noqa: BLE001 - an odd state may refuse to go on; not crash
                pass


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_seat_arguments_are_checked_alike(backend):
    """``legal_actions(player)`` refuses what is not a seat or a special id (it returned
    ``[]``, which reads as "no legal move"); numpy integer seats work everywhere;
    ``observation_tensor(p, out=...)`` refuses a buffer of another shape or a non-float
    dtype (an IndexError or a silent cast before)."""
    import numpy as np

    g = load_game("rat_trap", backend=backend)
    s = g.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    cp = s.current_player()
    for bad in (99, 3, -7, True, 1.5, "0"):
        with pytest.raises(ValueError, match="bad player"):
            s.legal_actions(bad)
        with pytest.raises(ValueError, match="bad player"):
            s.legal_actions_mask(bad)
    assert s.legal_actions(np.int64(cp)) == s.legal_actions(cp) == s.legal_actions()
    assert s.legal_actions(TERMINAL) == [] and s.legal_actions((cp + 1) % 3) == []
    other = (cp + 1) % 3
    assert s.resample_from_infostate(np.int64(other), 1).information_state_string(other) == \
        s.information_state_string(other)
    rebuilt = g.state_from_observation(np.int64(other), s.observation(other), 1)
    assert rebuilt.observation(other) == s.observation(other)
    size = g.observation_tensor_shape()[0]
    for out in (np.zeros(size, np.int32), np.zeros(size + 1, np.float32),
                np.zeros((size, 1), np.float32), [0.0] * size):
        with pytest.raises(ValueError, match="out"):
            s.observation_tensor(0, out=out)
    buf = np.ones(size, np.float32)
    assert s.observation_tensor(0, out=buf) is buf


def test_deserialize_rejects_malformed_documents(any_game):
    """A serialized state cannot replace the game, add fields, or carry a bad history."""
    state = any_game.new_initial_state()
    doc = json.loads(state.serialize())
    bad_docs = [
        {**doc, "fields": []},
        {**doc, "fields": {**doc["fields"], "_game": 1}},
        {**doc, "fields": {k: v for k, v in list(doc["fields"].items())[1:]}},
        {**doc, "history": ["x"]},
        {**doc, "game": "chess"},
        {k: v for k, v in doc.items() if k != "history"},
        [],
    ]
    for bad in bad_docs:
        with pytest.raises(ValueError):
            any_game.deserialize_state(json.dumps(bad))
    with pytest.raises(ValueError):
        any_game.deserialize_state(b"\xff not json")


def test_seats_accept_numpy_ints_and_reject_other_types(any_game):
    """Seats are ints (numpy ints too, as for actions); bools, floats and strings are refused."""
    state = any_game.new_initial_state()
    obs = state.observation(np.int64(0))
    assert obs == state.observation(0)
    assert json.loads(state.information_state_string(np.int64(0))) == json.loads(
        state.information_state_string(0))
    for bad in (True, 0.0, "0", any_game.num_players(), -1):
        with pytest.raises(ValueError):
            state.observation(bad)


def test_string_to_action_takes_labels_and_ids(any_game):
    state = any_game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    if state.is_terminal():
        return
    cp, a = state.current_player(), state.legal_actions()[0]
    assert state.string_to_action(cp, state.action_to_string(cp, a)) == a
    assert state.string_to_action(cp, str(a)) == a and state.string_to_action(cp, np.int64(a)) == a
    with pytest.raises(IllegalActionError):
        state.string_to_action(cp, "no such move")
    # the id in Arabic-Indic digits (int() reads them) is not an id
    arabic = "".join(chr(0x660 + int(c)) for c in str(a))
    assert int(arabic) == a
    with pytest.raises(IllegalActionError):
        state.string_to_action(cp, arabic)


def test_non_sequences_are_value_errors(any_game):
    """state_from_history(None) / apply_actions(None): ValueError naming the value (a
    TypeError from the loop before), the state unchanged."""
    for bad in (None, 5, "36", {"history": []}):
        with pytest.raises(ValueError, match="history"):
            any_game.state_from_history(bad)
    state = any_game.new_initial_state()
    before = state.serialize()
    with pytest.raises(ValueError):
        state.apply_actions(None)
    assert state.serialize() == before


def test_a_data_path_that_is_no_regular_file_is_refused(any_game, tmp_path):
    """data_path names a file a user gave: a device is refused, never read forever; deep
    nesting and huge integers are "not valid JSON" in one ValueError."""
    if not any(p.name == "data_path" for p in any_game.param_specs):
        pytest.skip("no data_path")
    name = any_game.name
    for path, words in (("/dev/zero", "not a regular file"), (str(tmp_path), "not a regular"),
                        (str(tmp_path / "missing.json"), "No such file")):
        with pytest.raises(ValueError, match=words):
            load_game(name, data_path=path)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        load_game(name, data_path=str(deep))



def test_apply_actions_outside_a_simultaneous_node_is_refused(any_game):
    state = any_game.new_initial_state()
    before = state.serialize()
    with pytest.raises(ValueError):
        state.apply_actions([0] * any_game.num_players())
    assert state.serialize() == before


def test_the_engines_errors_survive_pickling():
    """Stop 50: ``IllegalActionError`` (and the other errors whose constructor takes more
    than a message) could not be unpickled, so one raised in a worker process broke the
    process pool (``ratai arena --workers 2`` hung on it); each now round-trips with its
    message and attributes."""
    import pickle

    from ratai.engines.api import IllegalActionError
    from ratai.engines.effects import EffectError, Problem
    from ratai.engines.obs_schema import ObservationError

    errors = [IllegalActionError(99, [1, 2], {1: "a"}, reason="why"),
              ObservationError("rat_trap", [("$.x", "missing")]),
              EffectError([Problem("cards.json", "$[0].effect", "unknown op 'fly'")])]
    for err in errors:
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert vars(back) == vars(err)
