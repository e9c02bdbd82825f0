"""Fixtures for the service tests: real servers on loopback port 0, real channels."""

from __future__ import annotations

import contextlib

import pytest

from ratai.client import Client
from ratai.service.config import Limits, ServerConfig
from ratai.service.server import RatAIServer


@contextlib.contextmanager
def running_server(db: str = ":memory:", api_key: str | None = None,
                   tls_cert: str | None = None, tls_key: str | None = None, **limits):
    """A started server (``limits`` override :class:`Limits`); stopped on exit."""
    limits.setdefault("workers", 1)
    limits.setdefault("max_queue", 8)
    srv = RatAIServer(ServerConfig(host="127.0.0.1", port=0, db=db, api_key=api_key,
                                   tls_cert=tls_cert, tls_key=tls_key, grpc_threads=16,
                                   limits=Limits(**limits)))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop(0)


@pytest.fixture(scope="session")
def server():
    """One shared server (one search process) for the whole service test session."""
    with running_server(max_iterations=5000, max_seconds=10.0) as srv:
        yield srv


@pytest.fixture()
def client(server):
    with Client(f"127.0.0.1:{server.port}", timeout=30) as c:
        yield c
