"""Config and scenario files of any bytes (issue 20 item 10): one line naming the file and the problem, the
defaults used for config, never a traceback. The fuzz is seeded: a failure names its case and repeats."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent.approval import load_allowlist, save_allowlist_rule
from agent.config.settings import load_settings
from agent.skills.settings_file import save_disabled_skills
from scripted import ScenarioError, load_scenario_file

VALID_CONFIG = b"model:\n  default: gpt-4o\napprovals:\n  mode: manual\ncommand_allowlist:\n  - ls\n"
VALID_SCENARIO = (
    b"name: s\ncalls:\n  - text: hello\n  - tool_calls: [{name: terminal, arguments: {command: ls}}]\n"
)

# Shapes a broken file takes: each case is a function of a seeded random source.
SHAPES = [
    lambda r: r.randbytes(r.randint(1, 4000)),  # binary
    lambda r: b"model: \xff\xfe" + r.randbytes(20),  # not UTF-8
    lambda r: b"\x00" * r.randint(1, 50),  # NUL bytes
    lambda r: b"[" * 5000 + b"]" * 5000,  # nested too deeply
    lambda r: b"a: !!python/object/apply:os.system ['echo hi']\n",  # unsafe tags
    lambda r: b"when: 2020-13-45\n",  # a date PyYAML cannot construct
    lambda r: b"- just\n- a list\n",  # not a mapping
    lambda r: b"1: 2\n[a]: b\n",  # keys that are not names
    lambda r: b"model: {default: [1, {x: }]]]\n",  # invalid YAML
    lambda r: b"key: &a [*a]\n",  # an alias to itself
    lambda r: b"approvals: 7\nmodel: [1,2]\ncommand_allowlist: {a: b}\nskin: 3.5\n",  # wrong types
    lambda r: b"\xef\xbb\xbf" + b"\t- x:\n\t\t" + r.randbytes(8),  # BOM and tabs
]


def _mutated(r: random.Random, valid: bytes) -> bytes:
    """A valid file with a few bytes changed, cut or repeated: the near misses an editor crash leaves."""
    data = bytearray(valid)
    for _ in range(r.randint(1, 6)):
        op = r.randrange(3)
        at = r.randrange(len(data)) if data else 0
        if op == 0 and data:
            data[at] = r.randrange(256)
        elif op == 1:
            del data[at : at + r.randint(1, 10)]
        else:
            data[at:at] = data[at : at + r.randint(1, 20)] * r.randint(1, 4)
    return bytes(data)


def _cases(valid: bytes, count: int = 50) -> list[tuple[str, bytes]]:
    r = random.Random(20)
    cases = [(f"shape{i}", shape(r)) for i, shape in enumerate(SHAPES)]
    while len(cases) < count:
        cases.append((f"mutation{len(cases)}", _mutated(r, valid)))
    return cases


@pytest.mark.parametrize("which", ["config.yaml", "tui/config.yaml"])
def test_any_bytes_in_a_config_file_give_one_line_and_defaults(hermes_home: Path, which: str) -> None:
    path = hermes_home / which
    path.parent.mkdir(parents=True, exist_ok=True)
    defaults = load_settings({}).settings
    for name, data in _cases(VALID_CONFIG):
        path.write_bytes(data)
        loaded = load_settings({})  # never raises
        for problem in loaded.problems:
            line = str(problem)
            assert str(path) in line and "\n" not in line, (name, line)
        assert loaded.settings.hermes_home == defaults.hermes_home, name
        assert isinstance(load_allowlist(path), list), name
        tui_config = hermes_home / "tui" / "config.yaml"
        assert isinstance(save_allowlist_rule(tui_config, "ls -la"), bool), name
        saved = save_disabled_skills(hermes_home / "config.yaml", ["x"])
        assert saved is None or (str(hermes_home) in saved and "\n" not in saved), (name, saved)
        path.write_bytes(data)  # the savers may have rewritten it: the next case starts clean


def test_broken_config_is_reported_with_defaults_used(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_bytes(b"model: \xff\n")
    loaded = load_settings({})
    assert [str(p) for p in loaded.problems] == [
        f"{hermes_home / 'config.yaml'}: line 1 = '': expected UTF-8 text (byte 0xff is not)"
    ]
    assert loaded.settings.model == load_settings({"model": None}).settings.model


def test_any_bytes_in_a_scenario_file_give_one_line(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    for name, data in _cases(VALID_SCENARIO):
        path.write_bytes(data)
        try:
            load_scenario_file(path)
        except ScenarioError as exc:
            line = str(exc)
            assert line.startswith(f"{path}: ") and "\n" not in line, (name, line)
