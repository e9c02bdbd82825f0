"""The committed ``ratai_pb2`` modules match ``proto/ratai/v1/ratai.proto``."""

from __future__ import annotations

import pytest

pytest.importorskip("grpc_tools")


def test_generated_modules_are_current():
    """Regenerate with ``python -m ratai.service._codegen`` when this fails."""
    from ratai.service import _codegen, ratai_pb2

    fresh = _codegen.descriptor_set()
    assert _codegen.normalized(ratai_pb2.DESCRIPTOR.serialized_pb) == fresh, \
        "proto changed: run `python -m ratai.service._codegen`"


def test_stub_imports_relative():
    from ratai.service import ratai_pb2_grpc

    assert hasattr(ratai_pb2_grpc, "RatAIStub")


def test_no_module_path_outside_ratai_service():
    """Issue 16 (hygiene): the stubs live in ``ratai.service``; no generated module names a
    ``ratai.v1`` module, so an installed (non-editable) ``ratai`` cannot shadow them, and
    messages pickle by their real module."""
    import pathlib
    import pickle

    from ratai.service import ratai_pb2 as pb

    here = pathlib.Path(pb.__file__).parent
    for name in ("ratai_pb2.py", "ratai_pb2_grpc.py", "ratai_pb2.pyi"):
        text = (here / name).read_text()
        assert "ratai.v1 import" not in text and "'ratai.v1.ratai_pb2'" not in text, name
    assert pb.GameView.__module__ == "ratai.service.ratai_pb2"
    v = pb.GameView(game_id="g", text="board")
    assert pickle.loads(pickle.dumps(v)) == v
