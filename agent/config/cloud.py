"""Claude on AWS Bedrock and Google Vertex AI: the region, the project and the credentials, read as Hermes
reads them, and the one line that says what to set when something is missing.

Why one module: the settings must say before any request whether such a provider can be used (the setup
screen, `-z`, `hermes-tui config`), and the transport factory builds the SDK client from the same answer.

Bedrock (Hermes' `agent/bedrock_adapter.py`, `hermes_cli/runtime_provider.py`): the region from
config.yaml `bedrock.region`, else AWS_REGION, AWS_DEFAULT_REGION, else us-east-1; credentials in Hermes'
order: AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key: the provider's key variable, so it arrives as the
settings' key), AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), AWS_PROFILE, the
container and web-identity roles (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, AWS_WEB_IDENTITY_TOKEN_FILE) and
the shared files (~/.aws/credentials, ~/.aws/config), which boto3's chain reads. Only Claude models
(`anthropic.claude-*`, with an inference-profile prefix such as `us.` or `global.`), as Hermes routes them
to the SDK's Bedrock client. One difference: Hermes sends a bearer token through the Converse API instead,
because the SDK's Bedrock client could not send one then; it can now, so both go the same way.

Vertex (Hermes' `agent/vertex_adapter.py`): a service-account file from VERTEX_CREDENTIALS_PATH or
GOOGLE_APPLICATION_CREDENTIALS, else Application Default Credentials when a project is named; the project
from VERTEX_PROJECT_ID, config.yaml `vertex.project_id`, else the file's own; the region from VERTEX_REGION,
config.yaml `vertex.region`, else `global`. The SDK's own variables (ANTHROPIC_VERTEX_PROJECT_ID,
CLOUD_ML_REGION) count after Hermes'. Only Claude models (`claude-sonnet-4-5@20250929`): Hermes' Vertex
models are Gemini, through an OpenAI-compatible route not supported here.

No secret is kept in a `repr`, and nothing here reaches the network: credentials are only found, not used.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.errors import ProviderSetupError
from agent.core.user_paths import expand_user

__all__ = [
    "BEDROCK_DEFAULT_REGION",
    "VERTEX_DEFAULT_REGION",
    "BedrockAccess",
    "CloudAccess",
    "VertexAccess",
    "bedrock_access",
    "is_bedrock_claude",
    "vertex_access",
]

BEDROCK_DEFAULT_REGION = "us-east-1"
VERTEX_DEFAULT_REGION = "global"
_PROFILE_PREFIXES = ("global.", "us.", "eu.", "apac.", "ap.", "au.", "jp.", "ca.", "sa.", "me.", "af.")
"""Bedrock's cross-region inference-profile prefixes (Hermes' list)."""
_AWS_ROLE_VARS = ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_WEB_IDENTITY_TOKEN_FILE")
BEDROCK_CREDENTIALS_HINT = (
    "set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK "
    "(in the environment or $HERMES_HOME/.env)"
)
VERTEX_CREDENTIALS_HINT = (
    "set VERTEX_CREDENTIALS_PATH (or GOOGLE_APPLICATION_CREDENTIALS) to a service-account JSON file, or "
    "VERTEX_PROJECT_ID to use Application Default Credentials"
)


@dataclass(frozen=True)
class BedrockAccess:
    """How the SDK's Bedrock client signs: a bearer token (the transport's key) or SigV4 from these."""

    region: str
    access_key: str | None = field(default=None, repr=False)
    secret_key: str | None = field(default=None, repr=False)
    session_token: str | None = field(default=None, repr=False)
    profile: str | None = None
    platform: str = "bedrock"


@dataclass(frozen=True)
class VertexAccess:
    """Where the SDK's Vertex client sends, and the service-account file it signs with (None: ADC)."""

    region: str
    project_id: str | None
    credentials_path: str | None
    platform: str = "vertex"


CloudAccess = BedrockAccess | VertexAccess


def _get(env: Mapping[str, str], *names: str) -> str:
    for name in names:
        value = (env.get(name) or "").strip()
        if value:
            return value
    return ""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # the parent package is missing (`google` for `google.auth`)
        return False


def is_bedrock_claude(model: str) -> bool:
    """`anthropic.claude-*`, bare or behind an inference-profile prefix (`us.anthropic.claude-...`)."""
    name = model.strip().lower()
    for prefix in _PROFILE_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    return name.startswith("anthropic.claude")


def _shared_aws_files(env: Mapping[str, str]) -> bool:
    home = Path(env.get("HOME") or Path.home())
    files = [
        Path(env["AWS_SHARED_CREDENTIALS_FILE"]) if env.get("AWS_SHARED_CREDENTIALS_FILE") else None,
        Path(env["AWS_CONFIG_FILE"]) if env.get("AWS_CONFIG_FILE") else None,
        home / ".aws" / "credentials",
        home / ".aws" / "config",
    ]
    return any(f is not None and f.is_file() and f.stat().st_size > 0 for f in files)


def bedrock_access(
    model: str, env: Mapping[str, str], *, region: str = "", bearer_token: bool = False
) -> BedrockAccess:
    """The Bedrock client's region and SigV4 credentials; `bearer_token`: the settings hold
    AWS_BEARER_TOKEN_BEDROCK (or a pooled one), which then wins, as in Hermes. Raises ProviderSetupError
    with the one line to show when the model or the credentials will not do."""
    if model and not is_bedrock_claude(model):
        raise ProviderSetupError(
            "provider 'bedrock' serves Claude models only here (anthropic.claude-..., "
            f"us.anthropic.claude-...): '{model}' needs Bedrock's Converse API, which is not supported yet"
        )
    region = region.strip() or _get(env, "AWS_REGION", "AWS_DEFAULT_REGION") or BEDROCK_DEFAULT_REGION
    if bearer_token:
        return BedrockAccess(region=region)
    access_key, secret_key = _get(env, "AWS_ACCESS_KEY_ID"), _get(env, "AWS_SECRET_ACCESS_KEY")
    profile = _get(env, "AWS_PROFILE")
    keys = bool(access_key and secret_key)
    if not (keys or profile or _get(env, *_AWS_ROLE_VARS) or _shared_aws_files(env)):
        raise ProviderSetupError(
            f"provider 'bedrock' (AWS Bedrock) has no AWS credentials: {BEDROCK_CREDENTIALS_HINT}"
        )
    if not _installed("boto3"):
        raise ProviderSetupError(
            "provider 'bedrock' signs requests with boto3, which is not installed: "
            "pip install 'hermes-tui[bedrock]' (or set AWS_BEARER_TOKEN_BEDROCK)"
        )
    return BedrockAccess(
        region=region,
        access_key=access_key if keys else None,
        secret_key=secret_key if keys else None,
        session_token=(_get(env, "AWS_SESSION_TOKEN") or None) if keys else None,
        profile=None if keys else (profile or None),
    )


def vertex_access(
    model: str, env: Mapping[str, str], *, project_id: str = "", region: str = ""
) -> VertexAccess:
    """The Vertex client's region, project and service-account file (`project_id`, `region`: config.yaml's
    `vertex.*`). Raises ProviderSetupError with the one line to show when something will not do."""
    if model and "claude" not in model.lower():
        raise ProviderSetupError(
            f"provider 'vertex' serves Claude models only here (claude-...@version): '{model}' needs "
            "Vertex's OpenAI-compatible route, which is not supported yet"
        )
    named = [(var, _get(env, var)) for var in ("VERTEX_CREDENTIALS_PATH", "GOOGLE_APPLICATION_CREDENTIALS")]
    files = [str(expand_user(value)) for _, value in named if value and expand_user(value).is_file()]
    path = files[0] if files else ""
    if not path and any(value for _, value in named):
        var, value = next((var, value) for var, value in named if value)
        raise ProviderSetupError(
            f"provider 'vertex' (Google Vertex AI): {var} names {value}, which is not a file"
        )
    project = _get(env, "VERTEX_PROJECT_ID") or project_id.strip() or _get(env, "ANTHROPIC_VERTEX_PROJECT_ID")
    if not path and not project:
        raise ProviderSetupError(
            f"provider 'vertex' (Google Vertex AI) has no Google Cloud credentials: {VERTEX_CREDENTIALS_HINT}"
        )
    if not _installed("google.auth"):
        raise ProviderSetupError(
            "provider 'vertex' signs in with google-auth, which is not installed: "
            "pip install 'hermes-tui[vertex]'"
        )
    region = (
        _get(env, "VERTEX_REGION") or region.strip() or _get(env, "CLOUD_ML_REGION") or VERTEX_DEFAULT_REGION
    )
    return VertexAccess(region=region, project_id=project or None, credentials_path=path or None)
