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
