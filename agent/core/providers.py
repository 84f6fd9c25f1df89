"""Model providers by the names Hermes Agent gives them: one table of wire protocol, default base URL, key
variables and price-table id.

Why one table: the configuration infers a provider from a key, the loop builds a transport and the fallback
chain picks a key, the setup screen explains what is missing, and the cost of a call is looked up by
provider. Each used to carry its own little dict; now they all read `PROVIDERS`.

The reference is Hermes 0.19's provider registry (`hermes_cli/auth.py`, `plugins/model-providers/*`): the same
names and aliases, default URLs and key variables, in Hermes' priority order. A provider that needs another
protocol or sign-in (an OAuth login, Copilot's token exchange) is listed too, with the reason, so a Hermes
config naming it gets one clear line ("provider 'copilot' is not supported yet: ...") instead of a silent
setup screen.

Claude on a cloud (`bedrock`, `vertex`) speaks the Anthropic protocol through the `anthropic` SDK's own
clients (`platform`): the cloud's credentials instead of a key (`agent/config/cloud.py`), the model in the
URL. Hermes sends Bedrock's other models through its Converse API and Vertex's Gemini through an
OpenAI-compatible route; those are not supported here (one line says so).

One deliberate difference from Hermes: `gemini` goes through Google's OpenAI-compatible endpoint (Hermes has
its own native client). `xai` and api.openai.com use the Responses API, as in Hermes: `Settings.api_mode`
chooses it over the `protocol` listed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "PROVIDERS",
    "Platform",
    "Protocol",
    "ProviderSpec",
    "base_url_for",
    "canonical",
    "key_env_vars",
    "key_from_env",
    "lookup",
    "unsupported_reason",
]

Protocol = Literal["openai_chat", "anthropic"]
Platform = Literal["", "bedrock", "vertex"]
"""Where a Claude endpoint runs: "" for an Anthropic-protocol URL, else the cloud whose SDK client signs
the request (AWS SigV4 or a bearer token for Bedrock, a Google OAuth token for Vertex)."""


@dataclass(frozen=True)
class ProviderSpec:
    """One provider. `protocol` None means we cannot talk to it yet; `unsupported` says why."""

    name: str
    label: str
    protocol: Protocol | None
    base_url: str = ""  # "" = the user gives it (custom, Azure Foundry)
    key_env: tuple[str, ...] = ()  # in priority order; the first one set is used
    base_url_env: str = ""  # overrides base_url when set, as in Hermes
    aliases: tuple[str, ...] = ()
    prices_id: str = ""  # the provider's id in genai-prices ("" = look the model up by base URL)
    unsupported: str = ""
    needs_key: bool = True  # local servers answer without one; a cloud's credentials are not a key
    platform: Platform = ""

    @property
    def supported(self) -> bool:
        return self.protocol is not None


def _p(
    name: str,
    label: str,
    base_url: str,
    key_env: tuple[str, ...],
    *,
    protocol: Protocol | None = "openai_chat",
    base_url_env: str = "",
    aliases: tuple[str, ...] = (),
    prices_id: str = "",
    unsupported: str = "",
    needs_key: bool = True,
    platform: Platform = "",
) -> ProviderSpec:
    return ProviderSpec(
        name,
        label,
        protocol,
        base_url,
        key_env,
        base_url_env,
        aliases,
        prices_id,
        unsupported,
        needs_key,
        platform,
    )


# fmt: off
_TABLE: tuple[ProviderSpec, ...] = (
    _p("openai", "OpenAI", "https://api.openai.com/v1", ("OPENAI_API_KEY",), base_url_env="OPENAI_BASE_URL",
       aliases=("openai-api",), prices_id="openai"),
    _p("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), aliases=("or",),
       prices_id="openrouter"),
    _p("anthropic", "Anthropic", "https://api.anthropic.com",
       ("ANTHROPIC_API_KEY", "ANTHROPIC_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"), protocol="anthropic",
       base_url_env="ANTHROPIC_BASE_URL", aliases=("claude", "claude-code"), prices_id="anthropic"),
    _p("nous", "Nous Portal", "https://inference-api.nousresearch.com/v1", ("NOUS_API_KEY",),
       aliases=("nous-portal", "nousresearch")),
    _p("gemini", "Google AI Studio", "https://generativelanguage.googleapis.com/v1beta/openai",
       ("GOOGLE_API_KEY", "GEMINI_API_KEY"), base_url_env="GEMINI_BASE_URL",
       aliases=("google", "google-gemini", "google-ai-studio"), prices_id="google"),
    _p("deepseek", "DeepSeek", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",),
       base_url_env="DEEPSEEK_BASE_URL", aliases=("deepseek-chat",), prices_id="deepseek"),
    _p("xai", "xAI", "https://api.x.ai/v1", ("XAI_API_KEY",), base_url_env="XAI_BASE_URL",
       aliases=("grok", "x-ai", "x.ai"), prices_id="x-ai"),
    _p("zai", "Z.AI / GLM", "https://api.z.ai/api/paas/v4", ("GLM_API_KEY", "ZAI_API_KEY", "Z_AI_API_KEY"),
       base_url_env="GLM_BASE_URL", aliases=("glm", "z-ai", "z.ai", "zhipu"), prices_id="zai"),
    _p("kimi-coding", "Kimi / Moonshot", "https://api.moonshot.ai/v1",
       ("KIMI_API_KEY", "KIMI_CODING_API_KEY"),
       base_url_env="KIMI_BASE_URL", aliases=("kimi", "moonshot", "kimi-for-coding"), prices_id="moonshotai"),
    _p("kimi-coding-cn", "Kimi / Moonshot (China)", "https://api.moonshot.cn/v1", ("KIMI_CN_API_KEY",),
       aliases=("kimi-cn", "moonshot-cn"), prices_id="moonshotai"),
    _p("minimax", "MiniMax", "https://api.minimax.io/anthropic", ("MINIMAX_API_KEY",), protocol="anthropic",
       base_url_env="MINIMAX_BASE_URL", aliases=("mini-max",), prices_id="minimax"),
    _p("minimax-cn", "MiniMax (China)", "https://api.minimaxi.com/anthropic", ("MINIMAX_CN_API_KEY",),
       protocol="anthropic", base_url_env="MINIMAX_CN_BASE_URL", aliases=("minimax-china", "minimax_cn"),
       prices_id="minimax"),
    _p("alibaba", "Qwen Cloud", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
       ("DASHSCOPE_API_KEY",),
       base_url_env="DASHSCOPE_BASE_URL", aliases=("dashscope", "alibaba-cloud", "qwen-dashscope")),
    _p("alibaba-coding-plan", "Alibaba Cloud (Coding Plan)", "https://coding-intl.dashscope.aliyuncs.com/v1",
       ("ALIBABA_CODING_PLAN_API_KEY", "DASHSCOPE_API_KEY"), base_url_env="ALIBABA_CODING_PLAN_BASE_URL",
       aliases=("alibaba_coding", "alibaba-coding", "alibaba_coding_plan", "dashscope-coding")),
    _p("stepfun", "StepFun Step Plan", "https://api.stepfun.ai/step_plan/v1", ("STEPFUN_API_KEY",),
       base_url_env="STEPFUN_BASE_URL", aliases=("step", "stepfun-coding-plan")),
    _p("arcee", "Arcee AI", "https://api.arcee.ai/api/v1", ("ARCEEAI_API_KEY",),
       base_url_env="ARCEE_BASE_URL",
       aliases=("arcee-ai", "arceeai"), prices_id="arcee"),
    _p("gmi", "GMI Cloud", "https://api.gmi-serving.com/v1", ("GMI_API_KEY",), base_url_env="GMI_BASE_URL",
       aliases=("gmi-cloud", "gmicloud")),
    _p("nvidia", "NVIDIA NIM", "https://integrate.api.nvidia.com/v1", ("NVIDIA_API_KEY",),
       base_url_env="NVIDIA_BASE_URL", aliases=("nvidia-nim",)),
    _p("opencode-zen", "OpenCode Zen", "https://opencode.ai/zen/v1", ("OPENCODE_ZEN_API_KEY",),
       base_url_env="OPENCODE_ZEN_BASE_URL", aliases=("opencode", "opencode_zen", "zen")),
    _p("opencode-go", "OpenCode Go", "https://opencode.ai/zen/go/v1", ("OPENCODE_GO_API_KEY",),
       base_url_env="OPENCODE_GO_BASE_URL", aliases=("opencode_go", "go", "opencode-go-sub")),
    _p("kilocode", "Kilo Code", "https://api.kilo.ai/api/gateway", ("KILOCODE_API_KEY",),
       base_url_env="KILOCODE_BASE_URL", aliases=("kilo-code", "kilo", "kilo-gateway")),
    _p("huggingface", "Hugging Face", "https://router.huggingface.co/v1", ("HF_TOKEN",),
       base_url_env="HF_BASE_URL", aliases=("hf", "hugging-face", "huggingface-hub")),
    _p("xiaomi", "Xiaomi MiMo", "https://api.xiaomimimo.com/v1", ("XIAOMI_API_KEY",),
       base_url_env="XIAOMI_BASE_URL", aliases=("mimo", "xiaomi-mimo")),
    _p("tencent-tokenhub", "Tencent TokenHub", "https://tokenhub.tencentmaas.com/v1", ("TOKENHUB_API_KEY",),
       base_url_env="TOKENHUB_BASE_URL", aliases=("tencent", "tokenhub", "tencent-cloud", "tencentmaas")),
    _p("ollama-cloud", "Ollama Cloud", "https://ollama.com/v1", ("OLLAMA_API_KEY",),
       base_url_env="OLLAMA_BASE_URL", aliases=("ollama_cloud",)),
    _p("deepinfra", "DeepInfra", "https://api.deepinfra.com/v1/openai", ("DEEPINFRA_API_KEY",),
       base_url_env="DEEPINFRA_BASE_URL", aliases=("deep-infra", "deepinfra-ai")),
    _p("fireworks", "Fireworks AI", "https://api.fireworks.ai/inference/v1", ("FIREWORKS_API_KEY",),
       aliases=("fireworks-ai", "fw"), prices_id="fireworks"),
    _p("novita", "NovitaAI", "https://api.novita.ai/openai/v1", ("NOVITA_API_KEY",),
       base_url_env="NOVITA_BASE_URL", aliases=("novita-ai", "novitaai"), prices_id="novita"),
    _p("upstage", "Upstage Solar", "https://api.upstage.ai/v1", ("UPSTAGE_API_KEY",),
       base_url_env="UPSTAGE_BASE_URL", aliases=("solar",)),
    _p("azure-foundry", "Azure Foundry", "", ("AZURE_FOUNDRY_API_KEY",),
       base_url_env="AZURE_FOUNDRY_BASE_URL",
       aliases=("azure", "azure-ai-foundry", "azure-ai"), prices_id="azure"),
    _p("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1", ("LM_API_KEY",), base_url_env="LM_BASE_URL",
       aliases=("lm-studio", "lm_studio"), needs_key=False),
    _p("custom", "Custom OpenAI-compatible endpoint", "", (),
       aliases=("ollama", "vllm", "llamacpp", "llama.cpp", "llama-cpp", "local"), needs_key=False),
    # Known to Hermes, but another protocol or sign-in: a clear line rather than a silent setup screen.
    _p("openai-codex", "OpenAI Codex", "https://chatgpt.com/backend-api/codex", (), protocol=None,
       aliases=("codex", "openai_codex"),
       unsupported="it signs in with a ChatGPT account (OAuth); provider openai with OPENAI_API_KEY "
                   "speaks the same Responses API"),
    _p("xai-oauth", "xAI Grok OAuth", "https://api.x.ai/v1", (), protocol=None,
       aliases=("x-ai-oauth", "grok-oauth", "xai-grok-oauth"),
       unsupported="it signs in with OAuth and speaks the Responses protocol "
                   "(provider xai with XAI_API_KEY works)"),
    _p("qwen-oauth", "Qwen OAuth", "https://portal.qwen.ai/v1", (), protocol=None,
       aliases=("qwen", "qwen-portal", "qwen-cli"), unsupported="it signs in with an OAuth device login"),
    _p("minimax-oauth", "MiniMax OAuth", "", (), protocol=None,
       aliases=("minimax-portal", "minimax-global", "minimax_oauth"),
       unsupported="it signs in with OAuth (provider minimax with MINIMAX_API_KEY works)"),
    _p("copilot", "GitHub Copilot", "https://api.githubcopilot.com",
       ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"), protocol=None,
       aliases=("github-copilot", "github-models", "github-model", "github"),
       unsupported="it needs GitHub Copilot's token exchange and editor headers"),
    _p("copilot-acp", "GitHub Copilot ACP", "", (), protocol=None,
       aliases=("github-copilot-acp", "copilot-acp-agent"),
       unsupported="it runs Copilot as an ACP subprocess"),
    # Claude on a cloud: the base URL is the SDK's own (from the region) unless one is set.
    _p("bedrock", "AWS Bedrock", "", ("AWS_BEARER_TOKEN_BEDROCK",), protocol="anthropic",
       base_url_env="ANTHROPIC_BEDROCK_BASE_URL", aliases=("aws", "aws-bedrock", "amazon-bedrock", "amazon"),
       prices_id="aws", needs_key=False, platform="bedrock"),
    _p("vertex", "Google Vertex AI", "", (), protocol="anthropic", base_url_env="ANTHROPIC_VERTEX_BASE_URL",
       aliases=("google-vertex", "vertex-ai", "gcp-vertex"), prices_id="anthropic", needs_key=False,
       platform="vertex"),
)
# fmt: on

PROVIDERS: Mapping[str, ProviderSpec] = {spec.name: spec for spec in _TABLE}
_BY_ALIAS: dict[str, ProviderSpec] = {key: spec for spec in _TABLE for key in (spec.name, *spec.aliases)}


def lookup(name: str | None) -> ProviderSpec | None:
    """The provider a config value names (Hermes' names and aliases, any case), or None."""
    if not name:
        return None
    return _BY_ALIAS.get(name.strip().lower())


def canonical(name: str) -> str:
    """Hermes' canonical name for a provider value (`claude` -> `anthropic`); unknown names unchanged."""
    spec = lookup(name)
    return spec.name if spec is not None else name


def key_env_vars(name: str | None) -> tuple[str, ...]:
    spec = lookup(name)
    return spec.key_env if spec is not None else ()


def base_url_for(name: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The provider's base URL: its `*_BASE_URL` variable when set in `env`, else its default (None when
    the user must give one)."""
    spec = lookup(name)
    if spec is None:
        return None
    if env is not None and spec.base_url_env and env.get(spec.base_url_env):
        return env[spec.base_url_env]
    return spec.base_url or None


def unsupported_reason(name: str | None) -> str | None:
    """One line when the named provider is known but cannot be used yet; None otherwise."""
    spec = lookup(name)
    if spec is None or spec.supported:
        return None
    return f"provider '{spec.name}' ({spec.label}) is not supported yet: {spec.unsupported}"


def key_from_env(name: str | None, env: Mapping[str, str], key_env: str | None = None) -> str | None:
    """The API key for a provider from `env`: `key_env` when given (a fallback entry's own variable), else
    the first of the provider's key variables that is set."""
    for var in (key_env,) if key_env else key_env_vars(name):
        if var and env.get(var):
            return env[var]
    return None
