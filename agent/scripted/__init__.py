"""The scripted model server: plays scenario files over real HTTP, OpenAI- and Anthropic-shaped.

Used by tests, benchmarks and `hermes-tui --demo`. Standard library + pydantic/pyyaml only, plus
`agent.config` for `scripted_settings`, the one way to point the agent at it.
"""

from .scenario import Fault, ModelCall, Scenario, ScriptedToolCall, ScriptedUsage, load_scenario
from .server import RecordedRequest, ScriptedServer
from .settings import DEMO_MODEL, demo_scenario_path, scripted_settings

__all__ = [
    "DEMO_MODEL",
    "Fault",
    "ModelCall",
    "RecordedRequest",
    "Scenario",
    "ScriptedServer",
    "ScriptedToolCall",
    "ScriptedUsage",
    "demo_scenario_path",
    "load_scenario",
    "scripted_settings",
]
