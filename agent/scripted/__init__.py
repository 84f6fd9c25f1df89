"""The scripted model server: plays scenario files over real HTTP, OpenAI- and Anthropic-shaped.

Used by tests, benchmarks and `hermes-tui --demo`. Standard library + pydantic/pyyaml only.
"""

from .scenario import Fault, ModelCall, Scenario, ScriptedToolCall, ScriptedUsage, load_scenario
from .server import RecordedRequest, ScriptedServer

__all__ = [
    "Fault",
    "ModelCall",
    "RecordedRequest",
    "Scenario",
    "ScriptedServer",
    "ScriptedToolCall",
    "ScriptedUsage",
    "load_scenario",
]
