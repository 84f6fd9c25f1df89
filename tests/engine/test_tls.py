"""The SDK clients of one process share one TLS context (`agent/core/tls.py`), which still verifies."""

from __future__ import annotations

import ssl
import subprocess
import sys
import textwrap
from pathlib import Path

import anthropic
import openai

from agent.core.tls import _shared_context, sdk_http_client

ROOT = Path(__file__).resolve().parents[2]


def test_every_client_of_a_process_loads_the_ca_bundle_once() -> None:
    """A fresh interpreter, so no earlier test built the context: five sessions' clients of each transport
    load the system's certificates once between them (each client loaded them before)."""
    code = textwrap.dedent(
        """
        import ssl
        loads = []
        original = ssl.SSLContext.load_verify_locations
        def counted(self, *args, **kwargs):
            loads.append(args)
            return original(self, *args, **kwargs)
        ssl.SSLContext.load_verify_locations = counted
        from agent.config.settings import Settings
        from agent.transports.factory import make_transport
        kinds = set()
        url = "https://127.0.0.1:9/v1"
        wires = (("custom", ""), ("openai", "codex_responses"), ("custom", "anthropic_messages"))
        for provider, wire in wires:
            settings = Settings(provider=provider, base_url=url, model="m", wire_api=wire)
            for _ in range(5):
                transport = make_transport(settings)
                transport._create_client().close()
                kinds.add(type(transport).__name__)
        print(len(kinds), len(loads))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "1"]  # three transports, one load


def test_the_shared_context_verifies_certificates_and_host_names() -> None:
    context = _shared_context(openai)
    assert context is _shared_context(anthropic)  # both SDKs are made of the same HTTP library
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


def test_the_clients_keep_the_sdks_own_defaults() -> None:
    """`DefaultHttpxClient`: the SDK's redirects, connection limits and timeout, not the HTTP library's."""
    for sdk in (openai, anthropic):
        with sdk_http_client(sdk) as client:
            assert client.follow_redirects
            assert client.timeout.read == sdk.DEFAULT_TIMEOUT.read
