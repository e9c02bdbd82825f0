"""Rats to Riches cards as data (issue #17 "Component effects as data"): an owner's card in the
shared vocabulary (engines/effects.py; the worked example of docs/components.md), the
errors a wrong card gives, and the vocabulary's rules on the alternative card list
``alt_rats_to_riches.json`` (per-count income, conditions, continuations after picks)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rr_helpers import do, labels, make_state, reveal

from ratai.engines import load_game
from ratai.engines.api import read_component_json
from ratai.engines.effects import EffectError
from ratai.engines.rats_to_riches import data as D

ALT = str(Path(__file__).with_name("alt_rats_to_riches.json"))

#: The worked example of docs/components.md ("Entering your own card").
LOAN_SHARK = {
    "name": "Loan Shark", "colour": "red", "cost": {"red": 2}, "count": 2,
    "text": "take $3 from any rat, and 1 red cheese from the Cheese Bank",
    "effects": [
        {"op": "steal", "resource": "cash", "amount": 3, "from": "target"},
        {"op": "gain", "resource": "red", "amount": 1},
    ],
}


def with_card(tmp_path, card: dict) -> str:
    doc, _ = read_component_json(D.__package__, "rats_to_riches.json", None)
    doc["supreme_sewer"].append(card)
    path = tmp_path / "my_rats_to_riches.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("backend", ["python", "cython"])
def test_an_owners_card_plays_from_the_data_file(tmp_path, backend):
    """The docs' worked example: the new card gets its own action block (a chosen rat) and
    plays as written on both backends."""
    pytest.importorskip("ratai._speedups.rats_to_riches")
    path = with_card(tmp_path, LOAN_SHARK)
    ref, s = make_state(3, cash=[0, 5, 2], tableau={0: {"Loan Shark": 1}}, data_path=path)
    assert ref.data.total_cards == 82
    assert labels(s)[-2:] == ["use Loan Shark on rat 1", "use Loan Shark on rat 2"]
    if backend == "cython":
        s = load_game("rats_to_riches", backend="cython", num_players=3,
                      data_path=path).from_reference(s)
    do(s, "use Loan Shark on rat 2")  # takes what it has, $2 (steal is up to)
    assert s.scores() == [2.0, 5.0, 0.0]
    obs = s.observation(0)
    assert obs["cheese"][0]["red"] == 1 and obs["cesspit"] == {"Loan Shark": 1, "Flush": 2}


def test_compiled_cards_and_layout_are_shared_per_data_and_player_count(tmp_path):
    """Games of one data file and player count share the compiled cards and the action
    layout (built once); another player count or data file gets its own, and creating it
    leaves the first game's action ids as they were (a program's block depends on n)."""
    three = load_game("rats_to_riches", num_players=3)
    labels3 = [three.new_initial_state().action_to_string(0, a)
               for a in range(three.num_distinct_actions())]
    again = load_game("rats_to_riches", backend="python", num_players=3)
    assert again.layout is three.layout and again.compiled is three.compiled
    five = load_game("rats_to_riches", num_players=5)
    assert five.layout is not three.layout and five.compiled is not three.compiled
    assert five.num_distinct_actions() > three.num_distinct_actions()
    assert [three.new_initial_state().action_to_string(0, a)
            for a in range(three.num_distinct_actions())] == labels3
    other = load_game("rats_to_riches", num_players=3, data_path=with_card(tmp_path, LOAN_SHARK))
    assert other.layout is not three.layout
    assert other.num_distinct_actions() > three.num_distinct_actions()  # a new card type


def test_every_problem_of_a_wrong_card_is_reported_with_file_and_json_path(tmp_path):
    """Validation: one message per problem (file, JSON path, what is allowed), all at once."""
    card = dict(LOAN_SHARK, colour="orange", effects=[
        {"op": "steal", "resource": "money", "amount": 3, "from": "anyone"},
        {"op": "gain", "resource": "red", "amount": -1, "colour": "red"},
        {"op": "score", "amount": 2},
    ])
    path = with_card(tmp_path, card)
    with pytest.raises(EffectError) as err:
        load_game("rats_to_riches", data_path=path)
    where = f"{path}: $.supreme_sewer[18]"
    assert [str(p) for p in err.value.problems] == [
        f"{where}.colour: colour 'orange' is not allowed; allowed: green, blue, red, purple, "
        "yellow, grey",
        f"{where}.effects[0].resource: resource 'money' is not allowed; allowed: 'cash', "
        "'green', 'blue', 'red', 'cheese'",
        f"{where}.effects[0].from: player selector 'anyone' is not allowed; allowed: 'self', "
        "'target', 'any'",
        f"{where}.effects[1].colour: unknown field; allowed here: op, when, if, text, "
        "resource, amount, who, chooser",
        f"{where}.effects[1].amount: must be an integer >= 0, got -1",
        f"{where}.effects[2].op: op 'score' is not allowed; allowed: 'gain', 'pay', 'steal', "
        "'move', 'modify', 'redirect', 'trigger'",
    ]
    assert str(err.value).startswith("6 problems in the component data:\n  ")


@pytest.mark.parametrize("effects,message", [
    ([{"op": "gain", "resource": "cash", "amount": 2, "when": "reveal"}],
     "only a Yellow (event) card has 'reveal' effects"),
    ([{"op": "steal", "resource": "cash", "from": "target"},
      {"op": "gain", "resource": "cheese", "amount": 2, "chooser": "self"}],
     "cannot be combined with a chosen rat"),
    ([{"op": "steal", "resource": "cash", "from": "target"},
      {"op": "move", "what": "card", "whose": "any", "from": "tableau", "to": "cesspit",
       "chooser": "self"}], "all chosen players of a card are 'target' or all are 'any'"),
    ([{"op": "modify", "quantity": "cheese_per_turn", "add": 1}],
     "a 'modify' needs 'when': 'passive'"),
])
def test_what_the_engines_do_not_interpret_is_refused_clearly(tmp_path, effects, message):
    """A card the vocabulary allows but the Rats to Riches engines cannot play is refused at
    load naming the card and what is supported (data._check_supported)."""
    path = with_card(tmp_path, dict(LOAN_SHARK, effects=effects))
    with pytest.raises(EffectError, match=re.escape(message)):
        load_game("rats_to_riches", data_path=path)


# ------------------------------------------------------------- the alternative card list
def test_income_counted_per_green_card():
    """``amount: {count: cards where colour green}`` on ``income``: $1 per green card, per
    copy (3 Cheddar Chains and a Brie Bank: 3 x 4 + 4, plus the Flush card's $1)."""
    _, s = make_state(2, tableau={0: {"Cheddar Chain": 3, "Brie Bank": 1}}, data_path=ALT)
    assert s.income(0) == 1 + 3 * 4 + 4


def test_pay_without_up_to_makes_the_card_need_the_money():
    """Rat Race "pay $2: ..." (a ``pay`` without ``up_to``) is usable only with $2; it may
    target the user itself (``any``)."""
    _, s = make_state(2, cash=[1, 9], tableau={0: {"Rat Race": 1}}, data_path=ALT)
    assert not any(x.startswith("use Rat Race") for x in labels(s))
    _, s = make_state(2, cash=[2, 9], tableau={0: {"Rat Race": 1}}, data_path=ALT)
    assert "use Rat Race on rat 0" in labels(s)
    do(s, "use Rat Race on rat 1")
    assert s.cash == [3, 6] and s.cheese[0] == [0, 0, 2]


def test_continuations_run_after_the_picks():
    """Mutual Aid: the user, then the chosen rat, each dump 1 own card (their own choice);
    only then both take $3 (the rest of the card waits for the picks)."""
    game, s = make_state(2, tableau={0: {"Mutual Aid": 1, "Brie Bank": 1, "Rat Race": 1},
                                     1: {"Brie Bank": 2}}, flush=[1, 0], data_path=ALT)
    do(s, "use Mutual Aid on rat 1")
    assert s.current_player() == 0 and s.cash == [0, 0]
    do(s, "send own Brie Bank to the Cesspit")
    # rat 1's pick is forced (only Brie Banks): applied at once, then both take $3
    assert s.cash == [3, 3] and s.tableau[1][game.key_id["Brie Bank"]] == 1
    assert not s.pending and s.current_player() == 0


def test_event_conditions_read_before_anything_changes():
    """Windfall: rats with a green card take 1 green cheese; the poorest (ties included,
    decided before anyone is paid) take $3."""
    _, s = make_state(3, cash=[1, 1, 5], tableau={2: {"Brie Bank": 1}}, data_path=ALT,
                      sewer=[None, None, None, None])
    s.refill = [0]
    reveal(s, "Windfall")
    assert s.cash == [4, 4, 5] and [c[0] for c in s.cheese] == [0, 0, 1]


def test_event_picks_then_the_rest_of_the_event():
    """Rainy Day: every rat returns a third of its cheese (its own choice), then all take
    $2; Red Tape: the richest pay a tenth (rounded down)."""
    _, s = make_state(2, cash=[30, 9], cheese=[[3, 0, 3], [1, 1, 0]], data_path=ALT,
                      sewer=[None, None, None, None])
    s.refill = [0]
    reveal(s, "Rainy Day")
    assert s.current_player() == 0 and s.pending[0]["left"] == 2
    do(s, "return 1 green cheese")
    do(s, "return 1 red cheese")
    assert s.cash == [32, 11] and s.cheese == [[2, 0, 2], [1, 1, 0]]
    s.cesspit = [a + b for a, b in zip(s.cesspit, s.pack.pop(0)["counts"], strict=True)]
    s.refill = [0]  # the Scrappy Sewer is used up: the Supreme Sewer is on top
    s.top_back = None
    s._fix_back()  # RR-9
    reveal(s, "Red Tape")
    assert s.cash == [29, 11]


def test_sale_bonus_with_a_condition_and_a_cheese_limit_bound():
    """Pipe Fitter (+2 pipes when selling at least 2) and Cheese Lord (buy up to 6 cheese);
    Union Rep adds 1 cheese per copy and takes the payments for red cheese (RR-7)."""
    game, s = make_state(2, tableau={0: {"Pipe Fitter": 1, "Pipe (Scrappy Sewer)": 2,
                                         "Cheese Lord": 1}}, data_path=ALT)
    assert s.cheese_limit(0) == 6
    do(s, "sell Pipe (Scrappy Sewer)")
    do(s, "sell Pipe (Scrappy Sewer)")  # no pipe left: the sale is forced
    assert s.cash[0] == (2 + 2) ** 2
    _, s = make_state(2, tableau={1: {"Union Rep": 2}}, data_path=ALT)
    assert s.cheese_limit(1) == 2 + 2 and s.career_holder(2, 0) == 1


@pytest.mark.parametrize("path", [None, ALT])
def test_the_data_files_follow_the_json_schema(path):
    """``data.json_schema()`` (draft 2020-12; the effects from engines/effects.py) accepts the
    packaged and the alternative card lists and rejects a misspelt field."""
    jsonschema = pytest.importorskip("jsonschema")
    doc, _ = read_component_json(D.__package__, "rats_to_riches.json", path)
    schema = D.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    doc["scrappy_sewer"][0]["effects"][0]["amout"] = 2
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)


def test_a_card_taken_from_a_rat_may_be_its_flush_card():
    """Pied Piper: a ``move`` without a colour filter to the user's tableau may take another
    rat's Flush card (its $1 income moves with it); Pipe Bomb's blue filter offers only
    blue cards."""
    game, s = make_state(2, tableau={0: {"Pied Piper": 1, "Pipe Bomb": 1},
                                     1: {"Brie Bank": 1, "Pipe (Supreme Sewer)": 1}},
                         data_path=ALT)
    offered = [x for x in labels(s) if x.startswith("use Pipe Bomb")]
    assert offered == ["use Pipe Bomb on rat 1's Pipe (Supreme Sewer)"]
    do(s, "use Pied Piper on rat 1's Flush card")
    assert s.flush == [2, 0] and s.income(0) == 2 and s.income(1) == 4
