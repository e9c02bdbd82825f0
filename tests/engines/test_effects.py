"""The shared effect vocabulary (engines/effects.py, issue #17: component effects as data)."""

import jsonschema
import pytest

from engines.effects import (
    Amount,
    Condition,
    Count,
    EffectError,
    Vocabulary,
    json_schema,
    parse_effects,
    validate_effects,
)

VOCAB = Vocabulary(
    game="toy", resources=("cash", "green", "blue"), triggers=("use", "reveal", "passive"),
    groups={"cheese": ("green", "blue")}, countables=("cards",), zones=("tableau", "discard"),
    components=("card",), quantities=("hand_limit",), events=("income",),
    attributes={"colour": ("green", "blue")},
)


def test_parse_every_op():
    raw = [
        {"op": "gain", "resource": "cash", "amount": 5, "who": "all"},
        {"op": "pay", "resource": "cash", "amount": 5, "who": "all", "up_to": True,
         "if": {"count": {"of": "cash"}, "cmp": ">", "value": 50}, "when": "reveal"},
        {"op": "steal", "resource": "cheese", "amount": 2},
        {"op": "move", "what": "card", "filter": {"colour": "green"}, "whose": "target",
         "from": "tableau", "to": "tableau", "to_whose": "self"},
        {"op": "score", "amount": {"count": {"of": "cards", "where": {"colour": "blue"}},
                                   "times": 2, "max": 10}},
        {"op": "modify", "quantity": "hand_limit", "at_least": 5, "when": "passive"},
        {"op": "redirect", "resource": "green", "when": "passive"},
        {"op": "trigger", "event": "income"},
    ]
    effects = parse_effects(raw, VOCAB, "toy.json")
    assert [e.op for e in effects] == ["gain", "pay", "steal", "move", "score", "modify",
                                       "redirect", "trigger"]
    assert effects[0].when == "use" and effects[0].who == "all"
    assert effects[1].condition == Condition(Count("cash"), ">", 50) and effects[1].up_to
    assert effects[2].source == "target" and effects[2].up_to and effects[2].targets
    assert effects[3].filter == (("colour", "green"),) and effects[3].targets
    assert effects[4].amount == Amount(0, Count("cards", where=(("colour", "blue"),)), 2, 1, 10)
    assert effects[4].amount.value(7) == 10 and effects[4].amount.value(3) == 6
    assert not effects[0].targets


def test_conditions_most_and_least_include_ties():
    most = Condition(Count("cash"), "most")
    assert most.holds(5, [5, 5, 1]) and not most.holds(1, [5, 5, 1])
    assert Condition(Count("cash"), "least").holds(1, [5, 1, 1])


def test_every_problem_is_reported_with_file_and_json_path():
    raw = [
        {"op": "gain", "resource": "gold", "amount": -1},
        {"op": "teleport"},
        {"op": "pay", "resource": "cash", "who": "everybody", "colour": "red"},
        {"op": "move", "what": "card", "filter": {"colour": "purple"}},
        "gain 5",
    ]
    effects, problems = validate_effects(raw, VOCAB, "my_cards.json", "$.cards[2].effects")
    assert effects == ()
    text = [str(p) for p in problems]
    assert ("my_cards.json: $.cards[2].effects[0].resource: resource 'gold' is not allowed; "
            "allowed: 'cash', 'green', 'blue', 'cheese'") in text
    assert "my_cards.json: $.cards[2].effects[0].amount: must be an integer >= 0, got -1" in text
    assert any(t.startswith("my_cards.json: $.cards[2].effects[1].op: op 'teleport'")
               for t in text)
    assert any(".effects[2].who: player selector 'everybody'" in t for t in text)
    assert any(".effects[2].colour: unknown field" in t for t in text)
    assert any(".effects[3].filter.colour: colour 'purple' is not allowed" in t for t in text)
    assert any(".effects[4]: an effect must be an object" in t for t in text)
    assert len(problems) == 7
    with pytest.raises(EffectError) as err:
        parse_effects(raw, VOCAB, "my_cards.json", "$.cards[2].effects")
    assert str(err.value).startswith("7 problems in the component data:")
    assert len(err.value.problems) == 7


def test_missing_required_field_and_bad_trigger():
    _, problems = validate_effects([{"op": "modify", "when": "midnight"}], VOCAB, "f.json")
    text = [str(p) for p in problems]
    assert "f.json: $[0].quantity: missing; the op 'modify' needs 'quantity'" in text
    assert any("$[0].when: trigger 'midnight' is not allowed; allowed: 'use'" in t for t in text)
    assert any("needs one of 'add', 'at_least', 'at_most'" in t for t in text)


@pytest.mark.parametrize("vocab", [None, VOCAB])
def test_json_schema_is_draft_2020_12_and_agrees(vocab):
    schema = json_schema(vocab)
    jsonschema.Draft202012Validator.check_schema(schema)
    ok = [{"op": "gain", "resource": "cash", "amount": {"count": {"of": "cash"}, "divide": 2}},
          {"op": "trigger", "event": "income"}]
    jsonschema.validate(ok, schema, cls=jsonschema.Draft202012Validator)
    parse_effects(ok, VOCAB, "ok.json")
    bad = [{"op": "gain", "resource": "cash", "bogus": 1}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)
    if vocab is not None:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate([{"op": "gain", "resource": "gold"}], schema,
                                cls=jsonschema.Draft202012Validator)
