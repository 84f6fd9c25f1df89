"""Vision configuration, with Hermes' keys: `auxiliary.vision.{provider, model, base_url, api_key, timeout}`
(the model `vision_analyze` asks), `model.supports_vision` (whether the main model takes images) and
`agent.image_input_mode` (`auto` | `native` | `text`: how attached images reach the main model)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError


class VisionSettings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    provider: str = "auto"  # auto | openai | openrouter | anthropic | custom
    model: str = ""  # the auxiliary vision model ("" = none configured)
    base_url: str = ""
    api_key: SecretStr | None = None
    timeout: float = Field(120.0, gt=0, le=900)
    supports_vision: bool | None = None  # model.supports_vision: None = guess from the model's name
    image_input_mode: Literal["auto", "native", "text"] = "auto"

    @property
    def auxiliary_configured(self) -> bool:
        return bool(self.model.strip())

    def __str__(self) -> str:
        aux = self.model or "none"
        seen = {True: "yes", False: "no", None: "guessed from the name"}[self.supports_vision]
        return f"auxiliary: {aux}; main model sees images: {seen}; input: {self.image_input_mode}"


def load_vision_settings(
    hermes: Mapping[str, Any], env: Mapping[str, str]
) -> tuple[VisionSettings, list[tuple[str, str, str]], str]:
    """(settings, problems as (key, value, expected), source) from Hermes' config.yaml data and the env."""
    values: dict[str, tuple[str, Any]] = {}
    aux = (hermes.get("auxiliary") or {}).get("vision") if isinstance(hermes.get("auxiliary"), dict) else None
    if isinstance(aux, dict):
        for key in ("provider", "model", "base_url", "api_key", "timeout"):
            if aux.get(key) not in (None, ""):
                values[key] = (f"auxiliary.vision.{key}", aux[key])
    model = hermes.get("model")
    if isinstance(model, dict) and model.get("supports_vision") is not None:
        values["supports_vision"] = ("model.supports_vision", model["supports_vision"])
    agent = hermes.get("agent")
    if isinstance(agent, dict) and agent.get("image_input_mode"):
        values["image_input_mode"] = ("agent.image_input_mode", str(agent["image_input_mode"]).lower())
    if env.get("AUXILIARY_VISION_MODEL") and "model" not in values:
        values["model"] = ("AUXILIARY_VISION_MODEL", env["AUXILIARY_VISION_MODEL"])
    settings = VisionSettings()
    problems: list[tuple[str, str, str]] = []
    for name, (key, value) in values.items():
        try:
            setattr(settings, name, value)
        except ValidationError as exc:
            message = exc.errors()[0].get("msg", "a valid value") if exc.errors() else "a valid value"
            problems.append((key, "***" if name == "api_key" else str(value)[:80], message))
    return settings, problems, ("config.yaml" if values else "default")
