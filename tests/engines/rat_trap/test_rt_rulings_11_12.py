"""Rulings RT-11 (the tie-break round) and RT-12 (the Third Rat's heal threshold from the data),
on both backends (``../shared/RULES_GAPS.md``; rulebook sections cited per test)."""

from __future__ import annotations

import json

import pytest

from ratai.engines import _CYTHON_REGISTRY, load_game
from ratai.engines.rat_trap import data as D
from ratai.engines.rat_trap.data import HEAL, KEY2
from tests.speedups.test_cy_differential import play_both

from .rt_helpers import cards, do, start_turn

TR = 2  # the Third Rat's participant index
BACKENDS = ["python"] + (["cython"] if "rat_trap" in _CYTHON_REGISTRY else [])


def data_file(tmp_path, **changes) -> str:
    """The packaged component file with ``changes`` applied, written under ``tmp_path``."""
    doc, _ = D.read_component_json(D.__package__, "rat_trap.json", None)
    doc.update(changes)
    name = "_".join(f"{k}-{v}" for k, v in sorted(changes.items()))
    path = tmp_path / f"rat_trap_{name}.json"  # one file per content (data.load caches)
    path.write_text(json.dumps(doc))
    return str(path)


def on_backend(ref_state, backend: str):
    """The reference position ``ref_state`` on ``backend`` (the twin imports it)."""
    if backend == "python":
        return ref_state
    return load_game("rat_trap", backend="cython", **ref_state.get_game().params
                     )._from_reference(ref_state)


def third_rat_keeps(backend: str, data_path: str | None, scratches: int) -> int:
    """The face the Third Rat keeps from key2+heal with card TR1 (priority key2 first)."""
    ref = load_game("rat_trap", backend="python", num_players=2,
                    data_path=data_path).new_initial_state()
    ref.scratches[TR] = scratches
    s = on_backend(ref, backend)
    do(s, "roll key2+heal", "keep the dice", "choose Third Rat as accomplice",
       "Third Rat card TR1")
    return s.observation(0)["kept"][str(TR)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rt12_third_rat_heals_one_scratch_below_the_data_limit(backend, tmp_path):
    """RT-12; rulebook "Bonus: The Third Rat": "If the Third Rat has 2 Scratch tokens, it will
    always choose a Heal die if possible" -- two is one fewer than the printed limit of three,
    so the threshold follows ``scratches_to_eliminate`` of the data file, never a literal 2."""
    assert third_rat_keeps(backend, None, 2) == HEAL  # printed game: limit 3, heal at 2
    assert third_rat_keeps(backend, None, 1) == KEY2
    four = data_file(tmp_path, scratches_to_eliminate=4)
    assert third_rat_keeps(backend, four, 3) == HEAL
    assert third_rat_keeps(backend, four, 2) == KEY2  # the literal 2 no longer applies
    two = data_file(tmp_path, scratches_to_eliminate=2)
    assert third_rat_keeps(backend, two, 1) == HEAL


@pytest.mark.skipif("rat_trap" not in _CYTHON_REGISTRY, reason="no compiled twin built")
@pytest.mark.parametrize("limit", [2, 4])
def test_rt12_both_backends_agree_with_another_elimination_limit(limit, tmp_path):
    """RT-12 differential: seeded random 2-player games with another elimination limit play
    identically on the reference and the twin (every step; observations every 10th)."""
    params = {"num_players": 2, "data_path": data_file(tmp_path, scratches_to_eliminate=limit)}
    for seed in range(40):
        play_both("rat_trap", params, seed)


def fresh(**params):
    return load_game("rat_trap", backend="python", num_players=3, **params).new_initial_state()


def end_round_quietly(ref, backend: str = "python", accomplice: int = 1):
    """Exhaust two piles of the reference position ``ref``, move it to ``backend`` and play a
    quiet turn (heal+heal): the round ends (RT-3). Returns the backend's state."""
    for i in (0, 1):
        ref.pile_g[i] = ref.pile_r[i] = 0
    s = on_backend(ref, backend)
    return start_turn(s, "heal+heal", accomplice, "heal")


def to_tiebreak():
    """Round 3 ends with seats 0 and 1 tied on points and cards (5, 5, 2 after the +2 each)."""
    s = fresh(tie_break="extra_round")
    s.round, s.points = 3, [3, 3, 0]
    end_round_quietly(s)
    assert s.tiebreak_round and s.round == 4 and s.points == [5, 5, 2]
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_rt11_every_player_plays_the_tie_break_round(backend):
    """RT-11; rulebook "End of the Game": "a tiebreaker round is played in which all players
    participate": seat 2, out of the tie, starts the round like the others and may be chosen."""
    s = on_backend(to_tiebreak(), backend)
    obs = s.observation(2)
    assert obs["tiebreak_round"] and obs["round"] == 4 and not s.is_terminal()
    assert obs["scratches"] == [0, 0, 0] and obs["stored_counts"] == [0, 0, 0]
    assert obs["eliminated"] == [False] * 3 and obs["pile_sizes"] == [5, 5, 5]
    do(s, "roll key1+cat", "keep the dice")
    active = s.observation(0)["active"]
    assert sorted(s.legal_actions()) == sorted(
        s.string_to_action(active, f"choose seat {k} as accomplice") for k in range(3)
        if k != active)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rt11_tie_break_round_is_scored_like_any_other(backend):
    """RT-11: the tie-break round adds its cheese to the totals, so seat 2 (2 + 4 = 6) beats
    the tied 5 and 5."""
    ref = to_tiebreak()
    ref.stored = [[], [], cards("cheese2", "cheese2")]
    s = end_round_quietly(ref, backend, accomplice=2)
    assert s.is_terminal() and s.scores() == [5.0, 5.0, 6.0] and s.returns() == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rt11_tied_again_after_the_tie_break_round_is_shared(backend):
    """RT-11: tied again (points, then cards stored in the tie-break round, RT-5) -> the tied
    players share the win; there is no second tie-break round. Nobody stores cheese, so the
    "no cheese stored" bonus of any round applies: 7, 7, 4."""
    s = end_round_quietly(to_tiebreak(), backend, accomplice=2)
    assert s.is_terminal() and s.scores() == [7.0, 7.0, 4.0]
    assert s.returns() == [0.5, 0.5, 0.0]
