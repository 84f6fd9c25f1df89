"""The scripted model server: plays scenario files over real HTTP, OpenAI- and Anthropic-shaped.

Used by tests, benchmarks and `hermes-tui --demo`. Standard library + pydantic/pyyaml only, plus
`agent.config.settings` for `scripted_settings`, the one way to point the agent at it.
"""

from .scenario import (
    Fault,
    ModelCall,
    Scenario,
    ScenarioError,
    ScriptedToolCall,
    ScriptedUsage,
    load_scenario,
    load_scenario_file,
)
from .server import RecordedRequest, ScriptedServer
from .settings import DEMO_MODEL, demo_scenario_path, scripted_settings

__all__ = [
    "DEMO_MODEL",
    "Fault",
    "ModelCall",
    "RecordedRequest",
    "Scenario",
    "ScenarioError",
    "ScriptedServer",
    "ScriptedToolCall",
    "ScriptedUsage",
    "demo_scenario_path",
    "load_scenario",
    "load_scenario_file",
    "scripted_settings",
]
