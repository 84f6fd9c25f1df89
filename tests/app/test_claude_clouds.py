"""Claude on AWS Bedrock and Google Vertex through the `anthropic` SDK's own clients, against the scripted
server on loopback: the requests are well formed (the route with the model in the path, `anthropic_version`
in the body, a SigV4 signature that verifies or a bearer token, a Google access token minted from a
service-account file by a token endpoint on loopback), Bedrock's event-stream framing is read, a turn with
a tool call completes, thinking goes back signed, and missing credentials give one line naming what to
set."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from pydantic import SecretStr

from agent.config.settings import Settings, load_settings
from agent.core.events import TurnFinished
from agent.session.session import Session
from agent.store import SessionStore
from scripted import ScriptedServer
from scripted.request import RecordedRequest
from scripted.routes import SCRIPTED_ACCESS_TOKEN
from tests.recording_ui import RecordingUI

pytest.importorskip("boto3")
pytest.importorskip("google.auth")

SDK_API_VERSION = importlib.import_module("anthropic._constants").ANTHROPIC_API_VERSION
"""What the SDK's cloud clients put in the body as `anthropic_version` (the clouds' version of the API)."""
BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
VERTEX_MODEL = "claude-sonnet-4-5@20250929"
ACCESS_KEY = "AKIDSCRIPTEDTEST0001"
SECRET_KEY = "scripted/secret/key/for/sigv4/only/in/tests"
TOOL_TURN = [
    {
        "reasoning": "I should read the file.",
        "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}, "id": "toolu_1"}],
    },
    {"text": "The secret is 42."},
]
_CLOUD_VARS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "ANTHROPIC_BEDROCK_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLOUD_ML_REGION",
    "VERTEX_CREDENTIALS_PATH",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "VERTEX_PROJECT_ID",
    "VERTEX_REGION",
)


@pytest.fixture(autouse=True)
def _no_cloud_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials of the machine's, and no ~/.aws files: every test says what it has."""
    for var in _CLOUD_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # boto3 never asks the instance metadata


def _settings(home: Path, cwd: Path, **values: Any) -> Settings:
    return Settings(hermes_home=home, cwd=cwd, max_retries=0, auto_title=False, **values)


def _run(settings: Settings, prompt: str, home: Path) -> tuple[Any, RecordingUI]:
    ui = RecordingUI()
    agent = Session(settings, ui=ui, store=SessionStore(home / "tui" / "state.db"))
    try:
        return agent.run_conversation(prompt), ui
    finally:
        agent.close()


def _model_requests(server: ScriptedServer) -> list[RecordedRequest]:
    return [r for r in server.requests if r.api != "oauth"]


# -- Bedrock ------------------------------------------------------------------------------------------


def _verify_sigv4(request: RecordedRequest, base_url: str, region: str) -> None:
    """Recompute the request's SigV4 signature with botocore from the same secret: it must match."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    auth = request.headers["authorization"]
    assert auth.startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/")
    scope = auth.split("Credential=", 1)[1].split(",", 1)[0].split("/")
    assert scope[2:] == [region, "bedrock", "aws4_request"]
    signed = auth.split("SignedHeaders=", 1)[1].split(",", 1)[0].split(";")
    assert {"host", "x-amz-date"} <= set(signed)
    again = AWSRequest(
        method="POST",
        url=base_url + request.path,
        headers={name: request.headers[name] for name in signed},
        data=request.raw,
    )
    # Signed at the request's own time: `add_auth` would stamp the clock's time, so a second turning
    # between the request and this check made the signatures differ (seen in a full run).
    again.context["timestamp"] = request.headers["x-amz-date"]
    signer = SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), "bedrock", region)
    signature = signer.signature(signer.string_to_sign(again, signer.canonical_request(again)), again)
    assert auth.endswith(f", Signature={signature}")


def test_bedrock_sigv4_turn_with_a_tool_call(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.txt").write_text("the secret is 42\n")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    with ScriptedServer({"name": "bedrock", "calls": TOOL_TURN}) as server:
        settings = _settings(
            hermes_home,
            tmp_path,
            provider="bedrock",
            model=BEDROCK_MODEL,
            base_url=server.base_url,
            bedrock_region="eu-west-3",
            reasoning_effort="high",
        )
        assert settings.is_configured and settings.unsupported_provider is None
        result, _ui = _run(settings, "what is the secret?", hermes_home)
        requests = _model_requests(server)
        base_url = server.base_url
    assert result.exit_reason == "completed" and result.final_text == "The secret is 42."
    assert len(requests) == 2
    for request in requests:
        assert request.api == "bedrock"
        # The model in the path (quoted as the SDK quotes it), the stream in the route, not in the body.
        assert request.path.startswith("/model/") and request.path.endswith("/invoke-with-response-stream")
        assert unquote(request.path.split("/")[2]) == BEDROCK_MODEL
        assert request.body["anthropic_version"] == SDK_API_VERSION
        assert "model" not in request.body and "stream" not in request.body
        assert request.body["max_tokens"] > 0 and request.body["messages"]
        _verify_sigv4(request, base_url, "eu-west-3")
    # The tool turn went back with its thinking signed (Claude itself, on Bedrock).
    second = requests[1].body
    assistant = next(m for m in second["messages"] if m["role"] == "assistant")["content"]
    assert assistant[0]["type"] == "thinking" and assistant[0]["signature"]
    assert assistant[1]["type"] == "tool_use" and assistant[1]["id"] == "toolu_1"
    assert any(b.get("type") == "tool_result" for m in second["messages"] for b in m["content"])
    assert second["thinking"]["type"] == "enabled"  # Sonnet 4.5: a budget, as on Anthropic's API


def test_bedrock_bearer_token(hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-scripted")
    (hermes_home / "config.yaml").write_text(
        f"model:\n  default: {BEDROCK_MODEL}\n  provider: aws\nbedrock:\n  region: ap-south-1\n"
    )
    with ScriptedServer({"name": "bedrock", "calls": ["Hello from Bedrock."]}) as server:
        monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", server.base_url)
        loaded = load_settings(env=None)
        settings = loaded.settings.model_copy(update={"cwd": tmp_path, "auto_title": False})
        assert settings.provider == "bedrock" and settings.bedrock_region == "ap-south-1"
        assert settings.is_configured, settings.unsupported_provider
        result, _ui = _run(settings, "hi", hermes_home)
        [request] = _model_requests(server)
    assert result.final_text == "Hello from Bedrock."
    assert request.headers["authorization"] == "Bearer bedrock-api-key-scripted"
    assert request.path.endswith("/invoke-with-response-stream")
    assert request.body["anthropic_version"] == SDK_API_VERSION


def test_bedrock_stream_exception_frame_is_classified(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An `exception` frame mid-stream (Bedrock's throttling) is raised as the SDK's error, classified."""
    from agent.transports.aws_eventstream import EventStreamDecoder
    from scripted.wire_bedrock import exception_frame

    [event] = EventStreamDecoder().feed(exception_frame("throttlingException", "Too many requests"))
    assert event.event == "error"
    assert json.loads(event.data)["error"] == {"type": "throttlingException", "message": "Too many requests"}


def test_bedrock_missing_credentials_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    settings = _settings(hermes_home, tmp_path, provider="bedrock", model=BEDROCK_MODEL)
    line = settings.unsupported_provider
    assert line is not None and "\n" not in line
    assert "AWS_PROFILE" in line and "AWS_ACCESS_KEY_ID" in line and "AWS_BEARER_TOKEN_BEDROCK" in line
    assert not settings.is_configured


def test_bedrock_non_claude_model_is_one_line(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_PROFILE", "work")
    settings = _settings(hermes_home, tmp_path, provider="bedrock", model="amazon.nova-pro-v1:0")
    line = settings.unsupported_provider or ""
    assert "Claude models only" in line and "Converse" in line


def test_headless_says_what_to_set(
    hermes_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hermes_tui.cli import main

    (hermes_home / "config.yaml").write_text(f"model:\n  default: {BEDROCK_MODEL}\n  provider: bedrock\n")
    code = main(["-z", "hello"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == [
        "hermes-tui: provider 'bedrock' (AWS Bedrock) has no AWS credentials: set AWS_PROFILE, or "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK (in the environment or "
        "$HERMES_HOME/.env)"
    ]


# -- Vertex -------------------------------------------------------------------------------------------


def _service_account(path: Path, token_uri: str, project: str = "scripted-project") -> Path:
    """A service-account file with a fresh RSA key, its token endpoint the scripted server's."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": project,
                "private_key_id": "scripted",
                "private_key": pem,
                "client_email": f"hermes@{project}.iam.gserviceaccount.com",
                "client_id": "1",
                "token_uri": token_uri,
            }
        )
    )
    return path


def test_vertex_turn_with_a_service_account(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.txt").write_text("the secret is 42\n")
    with ScriptedServer({"name": "vertex", "calls": TOOL_TURN}) as server:
        creds = _service_account(tmp_path / "sa.json", f"{server.base_url}/token")
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(creds))
        monkeypatch.setenv("VERTEX_REGION", "us-east5")
        settings = _settings(
            hermes_home,
            tmp_path,
            provider="vertex",
            model=VERTEX_MODEL,
            base_url=f"{server.base_url}/v1",
            reasoning_effort="high",
        )
        assert settings.is_configured, settings.unsupported_provider
        result, _ui = _run(settings, "what is the secret?", hermes_home)
        token_requests = [r for r in server.requests if r.api == "oauth"]
        requests = _model_requests(server)
    assert result.exit_reason == "completed" and result.final_text == "The secret is 42."
    # One token, minted on loopback from the file's key (a signed JWT), used for both calls.
    [token] = token_requests
    assert token.body["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    assert token.body["assertion"].count(".") == 2
    assert len(requests) == 2
    for request in requests:
        assert request.path == (
            f"/v1/projects/scripted-project/locations/us-east5/publishers/anthropic/models/{VERTEX_MODEL}"
            ":streamRawPredict"
        )
        assert request.headers["authorization"] == f"Bearer {SCRIPTED_ACCESS_TOKEN}"
        assert request.body["anthropic_version"] == SDK_API_VERSION
        assert request.body["stream"] is True and "model" not in request.body
    assistant = next(m for m in requests[1].body["messages"] if m["role"] == "assistant")["content"]
    assert assistant[0]["type"] == "thinking" and assistant[0]["signature"]


def test_vertex_project_and_region_from_hermes_config(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedServer({"name": "vertex", "calls": ["Hi."]}) as server:
        creds = _service_account(tmp_path / "sa.json", f"{server.base_url}/token", project="file-project")
        monkeypatch.setenv("VERTEX_CREDENTIALS_PATH", str(creds))
        (hermes_home / "config.yaml").write_text(
            f"model:\n  default: {VERTEX_MODEL}\n  provider: vertex-ai\n  base_url: {server.base_url}/v1\n"
            "vertex:\n  project_id: config-project\n  region: europe-west1\n"
        )
        settings = load_settings(env=None).settings.model_copy(update={"cwd": tmp_path, "auto_title": False})
        result, _ui = _run(settings, "hi", hermes_home)
        [request] = _model_requests(server)
    assert result.final_text == "Hi."
    assert request.path.startswith("/v1/projects/config-project/locations/europe-west1/")


def test_vertex_missing_credentials_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    settings = _settings(hermes_home, tmp_path, provider="vertex", model=VERTEX_MODEL)
    line = settings.unsupported_provider or ""
    assert "\n" not in line
    assert "VERTEX_CREDENTIALS_PATH" in line and "GOOGLE_APPLICATION_CREDENTIALS" in line
    assert "VERTEX_PROJECT_ID" in line


def test_vertex_credentials_file_that_is_not_there(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "gone.json"))
    settings = _settings(hermes_home, tmp_path, provider="vertex", model=VERTEX_MODEL)
    assert settings.unsupported_provider == (
        "provider 'vertex' (Google Vertex AI): GOOGLE_APPLICATION_CREDENTIALS names "
        f"{tmp_path / 'gone.json'}, which is not a file"
    )


def test_a_refused_token_ends_the_turn_with_one_line(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token endpoint refuses the service account: no traceback, one line naming what to check."""
    with ScriptedServer({"name": "vertex", "calls": ["never"]}) as server:
        creds = _service_account(tmp_path / "sa.json", f"{server.base_url}/no-such-token-route")
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(creds))
        settings = _settings(
            hermes_home, tmp_path, provider="vertex", model=VERTEX_MODEL, base_url=f"{server.base_url}/v1"
        )
        result, ui = _run(settings, "hi", hermes_home)
        assert _model_requests(server) == []
    [finished] = ui.of_type(TurnFinished)
    assert finished.error is not None and "\n" not in finished.error
    assert "provider 'vertex'" in finished.error and "GOOGLE_APPLICATION_CREDENTIALS" in finished.error
    assert result.exit_reason == "error:auth"


def test_cloud_providers_keep_their_key_out_of_repr(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    access = _settings(hermes_home, tmp_path, provider="bedrock", model=BEDROCK_MODEL).cloud_access()
    assert access is not None and SECRET_KEY not in repr(access) and ACCESS_KEY not in repr(access)
    assert _settings(hermes_home, tmp_path, api_key=SecretStr("x"), provider="openai").cloud_access() is None
