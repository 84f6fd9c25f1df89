"""Claude on a cloud, as the Anthropic transport sees it: which SDK client is built, and how its stream is
framed. Everything else (the request body, thinking, tools, caching, errors) is the Anthropic transport's.

The `anthropic` SDK's own clients do the cloud's part: `AnthropicBedrock` moves the model into the path
(`/model/{model}/invoke-with-response-stream`), puts `anthropic_version` in the body and signs with SigV4
(or sends a Bedrock API key as a bearer token); `AnthropicVertex` posts to
`/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict` with a Google
OAuth token, refreshed by google-auth. A `base_url` (a proxy, a test's loopback server) replaces the
cloud's host. What to sign with comes from `agent.config.cloud`.
"""

from __future__ import annotations

from typing import Any

from agent.config.cloud import BedrockAccess, CloudAccess, VertexAccess
from agent.core.errors import ProviderSetupError
from agent.core.tls import sdk_http_client
from agent.transports.aws_eventstream import EventStreamDecoder
from agent.transports.sse import SSEDecoder

__all__ = ["GOOGLE_SCOPE", "cloud_client", "setup_failure", "stream_decoder"]

GOOGLE_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
"""The OAuth scope a service account asks for (Hermes' and the SDK's)."""


def cloud_client(
    access: CloudAccess, *, base_url: str | None, api_key: str | None, timeout: Any, max_retries: int = 0
) -> Any:
    """The SDK client for `access`. `api_key` on Bedrock is a bearer token (AWS_BEARER_TOKEN_BEDROCK)."""
    import anthropic

    if isinstance(access, BedrockAccess):
        if api_key:
            return anthropic.AnthropicBedrock(
                api_key=api_key,
                aws_region=access.region,
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
                http_client=sdk_http_client(anthropic),
            )
        return anthropic.AnthropicBedrock(
            aws_access_key=access.access_key,
            aws_secret_key=access.secret_key,
            aws_session_token=access.session_token,
            aws_profile=access.profile,
            aws_region=access.region,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            http_client=sdk_http_client(anthropic),
        )
    return _vertex_client(access, base_url=base_url, timeout=timeout, max_retries=max_retries)


def _vertex_client(access: VertexAccess, *, base_url: str | None, timeout: Any, max_retries: int) -> Any:
    import anthropic

    credentials: Any = None
    project = access.project_id
    if access.credentials_path:
        try:
            from google.oauth2 import service_account

            # google-auth's classmethod carries no annotations.
            credentials = service_account.Credentials.from_service_account_file(  # type: ignore[no-untyped-call]
                access.credentials_path, scopes=[GOOGLE_SCOPE]
            )
        except (OSError, ValueError) as exc:
            raise ProviderSetupError(
                f"provider 'vertex': the service-account file {access.credentials_path} cannot be used "
                f"({exc})"
            ) from None
        project = project or getattr(credentials, "project_id", None)
    kwargs: dict[str, Any] = {"project_id": project} if project else {}
    return anthropic.AnthropicVertex(
        region=access.region,
        credentials=credentials,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=sdk_http_client(anthropic),
        **kwargs,
    )


def stream_decoder(access: CloudAccess | None) -> SSEDecoder | EventStreamDecoder:
    """Bedrock streams AWS event-stream frames; Anthropic and Vertex stream SSE."""
    return EventStreamDecoder() if isinstance(access, BedrockAccess) else SSEDecoder()


_CREDENTIAL_ERRORS = frozenset(
    {
        "RefreshError",  # google-auth: the token could not be minted
        "DefaultCredentialsError",  # google-auth: no Application Default Credentials
        "NoCredentialsError",  # botocore
        "PartialCredentialsError",
        "ProfileNotFound",
        "TokenRetrievalError",  # an expired SSO session
        "UnauthorizedSSOTokenError",
    }
)


def setup_failure(access: CloudAccess, exc: BaseException) -> ProviderSetupError | None:
    """A failure of the cloud's credentials before a request left (the SDK signs as it sends): the one
    line naming what to set, or None for anything else."""
    name = type(exc).__name__
    text = str(exc)
    if name not in _CREDENTIAL_ERRORS and not (
        isinstance(exc, RuntimeError | ValueError) and "credential" in text.lower()
    ):
        return None
    from agent.config.cloud import BEDROCK_CREDENTIALS_HINT, VERTEX_CREDENTIALS_HINT

    if isinstance(access, BedrockAccess):
        return ProviderSetupError(
            f"provider 'bedrock': AWS credentials could not be resolved ({text}): {BEDROCK_CREDENTIALS_HINT}"
        )
    return ProviderSetupError(
        f"provider 'vertex': Google Cloud credentials could not be used ({text}): {VERTEX_CREDENTIALS_HINT}"
    )
