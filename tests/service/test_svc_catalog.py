"""ListGames, health and reflection (issue 5: catalogue, grpc.health.v1, reflection)."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from ratai.engines import game_class, load_game, registered_games


def test_list_games_covers_every_registered_game(client):
    games = {g.name: g for g in client.list_games()}
    assert sorted(games) == registered_games()
    for name, g in games.items():
        cls = game_class(name)
        assert g.title == cls.title and g.summary == cls.summary
        assert g.num_distinct_actions == load_game(name).num_distinct_actions()
        assert 1 <= g.min_players <= g.max_players
        assert {p.name for p in g.params} == {p.name for p in cls.param_specs}
        assert set(g.variants) == set(cls.variants)
        spec = {p.name: p for p in cls.param_specs}
        for p in g.params:
            default = spec[p.name].default
            kind = p.default_value.WhichOneof("kind")
            if default is None:
                assert kind == "null_value"
            elif isinstance(default, bool):
                assert p.default_value.bool_value == default
            elif isinstance(default, int | float):
                assert p.default_value.number_value == default
            else:
                assert p.default_value.string_value == default
        assert all(p.server_only for p in g.params if p.name == "data_path")


def test_catalogue_serves_the_observation_schema(client):
    """Issue 16 item 1: each game's observation schema and tensor shape are in ListGames, and
    a seat's GameView observation validates against it."""
    import json

    import jsonschema

    games = {g.name: g for g in client.list_games()}
    for name, g in games.items():
        schema = json.loads(g.observation_schema_json)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema == load_game(name).observation_schema()
        assert list(g.observation_tensor_shape) == list(load_game(name).observation_tensor_shape())
    created = client.create_game("rat_trap", seats=["human"] * 3)
    view = client.get_state(created.game_id, created.seat_tokens[0].token)
    jsonschema.validate(json.loads(view.observation_json),
                        json.loads(games["rat_trap"].observation_schema_json))


def test_health_serving(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        for svc in ("", "ratai.v1.RatAI"):
            resp = stub.Check(health_pb2.HealthCheckRequest(service=svc), timeout=5)
            assert resp.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_services(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        stub = reflection_pb2_grpc.ServerReflectionStub(ch)
        req = reflection_pb2.ServerReflectionRequest(list_services="")
        resp = next(stub.ServerReflectionInfo(iter([req]), timeout=5))
        names = {s.name for s in resp.list_services_response.service}
        assert {"ratai.v1.RatAI", "grpc.health.v1.Health"} <= names
        req = reflection_pb2.ServerReflectionRequest(file_containing_symbol="ratai.v1.RatAI")
        resp = next(stub.ServerReflectionInfo(iter([req]), timeout=5))
        assert resp.file_descriptor_response.file_descriptor_proto
