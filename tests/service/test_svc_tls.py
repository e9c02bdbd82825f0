"""Optional TLS (issue 5, Deployment beyond loopback: --tls-cert/--tls-key)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import running_server

from ratai.client import Client


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_tls_server_and_client(tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    with running_server(workers=0, tls_cert=str(cert), tls_key=str(key)) as srv:
        with Client(f"localhost:{srv.port}", root_certificates=cert.read_bytes()) as c:
            assert [g.name for g in c.list_games()]
