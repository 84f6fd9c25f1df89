"""Plugins: discovery, load errors, hook order and isolation, Block, result rewriting, name collisions."""

from __future__ import annotations

import importlib.metadata
import sys
import textwrap
import threading
import types
from pathlib import Path

import pytest

from agent import plugins as plugins_mod
from agent.core.messages import Message, ToolCall
from agent.plugins import Block, PluginInfo, PluginManager, format_plugin_list
from agent.toolkit.registry import ToolResult
from tests.engine.helpers import install_distribution


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def manager(home: Path, **kw) -> tuple[PluginManager, list[tuple[str, str, str]]]:
    errors: list[tuple[str, str, str]] = []
    mgr = PluginManager(home, entry_points=False, on_error=lambda *a: errors.append(a), **kw)
    mgr.load()
    return mgr, errors


def info(mgr: PluginManager, name: str) -> PluginInfo:
    return next(p for p in mgr.plugins if p.name == name)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_register_and_bare_function_plugins(home: Path) -> None:
    write(
        home / "plugins" / "alpha.py",
        """
        def register(ctx):
            ctx.register_hook("pre_llm_call", lambda **kw: f"alpha sees {kw['user_message']}")
            ctx.register_hook("on_turn_end", lambda result: None)
        """,
    )
    write(
        home / "plugins" / "beta" / "__init__.py",
        """
        from .helper import CONTEXT

        def pre_llm_call(session_id, user_message, history, is_first_turn, model):
            return CONTEXT + f" first={is_first_turn} model={model} n={len(history)}"

        def not_a_hook():
            pass
        """,
    )
    write(home / "plugins" / "beta" / "helper.py", "CONTEXT = 'beta context'\n")
    mgr, errors = manager(home)
    assert [(p.name, p.loaded, p.hooks) for p in mgr.plugins] == [
        ("alpha", True, ["pre_llm_call", "on_turn_end"]),
        ("beta", True, ["pre_llm_call"]),
    ]
    history = [Message(role="user", content="hi")]
    out = mgr.pre_llm_call("s1", "hello", history, True, "m")
    assert out == "alpha sees hello\n\nbeta context first=True model=m n=1"
    mgr.on_turn_end(object())
    assert errors == []


def test_hooks_may_accept_only_some_keyword_arguments(home: Path) -> None:
    write(home / "plugins" / "few.py", "def pre_llm_call(user_message):\n    return user_message.upper()\n")
    write(home / "plugins" / "dict.py", "def pre_llm_call(**kw):\n    return {'context': 'from a dict'}\n")
    mgr, errors = manager(home)
    assert mgr.pre_llm_call("s", "shout", [], False, "m") == "from a dict\n\nSHOUT"
    assert errors == []


def test_import_failures_are_listed_with_their_error_and_skipped(home: Path) -> None:
    write(home / "plugins" / "good.py", "def on_turn_end(result):\n    pass\n")
    syntax = write(home / "plugins" / "syntax.py", "x = 1\ndef broken(:\n    pass\n")
    missing = write(home / "plugins" / "missing.py", "import os\nimport no_such_module_for_hermes_tests\n")
    write(
        home / "plugins" / "raises.py", "def register(ctx):\n    raise RuntimeError('nope\\nsecond line')\n"
    )
    write(home / "plugins" / "empty.py", "VALUE = 1\n")
    write(
        home / "plugins" / "badhook.py", "def register(ctx):\n    ctx.register_hook('on_everything', print)\n"
    )
    mgr, _ = manager(home)

    assert info(mgr, "good").loaded
    s = info(mgr, "syntax")
    assert not s.loaded and s.error is not None
    assert s.error.startswith("SyntaxError: ")
    assert f"{syntax}:2" in s.error
    m = info(mgr, "missing")
    assert not m.loaded
    assert m.error == f"ModuleNotFoundError: No module named 'no_such_module_for_hermes_tests' ({missing}:2)"
    r = info(mgr, "raises")
    assert r.error is not None and r.error.startswith("RuntimeError: nope second line (")
    assert "\n" not in r.error and "raises.py:2" in r.error
    assert "neither register(ctx) nor a hook function" in (info(mgr, "empty").error or "")
    assert "unknown hook 'on_everything'" in (info(mgr, "badhook").error or "")
    # a failed plugin leaves nothing behind in sys.modules
    assert not [k for k in sys.modules if k.startswith("hermes_tui_plugin_missing")]

    text = format_plugin_list(mgr.plugins)
    assert text.splitlines()[0] == "6 plugins: 1 loaded, 5 failed"
    assert "✓ good" in text and "hooks: on_turn_end" in text
    assert "✗ syntax" in text and "error: SyntaxError" in text and str(syntax) in text


def test_hooks_run_in_registration_order(home: Path) -> None:
    write(
        home / "plugins" / "a_first.py",
        """
        ORDER = []
        def register(ctx):
            ctx.register_hook("before_tool", lambda call: ToolCallAppend(call, "a1"))
            ctx.register_hook("before_tool", lambda call: ToolCallAppend(call, "a2"))

        def ToolCallAppend(call, tag):
            call.arguments = call.arguments[:-1] + f',"{tag}":1}}'
            return call
        """,
    )
    write(
        home / "plugins" / "b_second.py",
        """
        import json
        def before_tool(call):
            args = json.loads(call.arguments)
            args["seen"] = list(args)
            call.arguments = json.dumps(args)
            return call
        """,
    )
    mgr, errors = manager(home)
    original = ToolCall(id="c1", name="terminal", arguments='{"command":"ls"}')
    out = mgr.before_tool(original)
    assert isinstance(out, ToolCall)
    assert out.id == "c1"
    assert '"seen": ["command", "a1", "a2"]' in out.arguments
    assert original.arguments == '{"command":"ls"}'  # hooks get copies
    assert errors == []


def test_a_raising_hook_disables_its_plugin_in_one_line_and_never_breaks_the_caller(home: Path) -> None:
    write(
        home / "plugins" / "flaky.py",
        """
        def pre_llm_call(**kw):
            raise ValueError("prefetch down")
        def before_tool(call):
            call.arguments = '{"mutated": true}'
            raise KeyError("x")
        def after_tool(call, result):
            result.content = "mutated"
            raise RuntimeError("after")
        def on_turn_end(result):
            raise RuntimeError("end")
        """,
    )
    write(home / "plugins" / "steady.py", "def pre_llm_call(**kw):\n    return 'steady'\n")
    mgr, errors = manager(home)
    call = ToolCall(id="c", name="read_file", arguments='{"path":"a"}')
    result = ToolResult(content="file text")
    for _ in range(3):
        assert mgr.pre_llm_call("s", "u", [], False, "m") == "steady"
        assert mgr.before_tool(call) == call
        assert mgr.after_tool(call, result) is result
        assert result.content == "file text"
        mgr.on_turn_end({"done": True})
    assert [(p, h) for p, h, _ in errors] == [("flaky", "pre_llm_call")]  # then off: nothing else runs
    message = errors[0][2]
    assert message.startswith("ValueError: prefetch down (") and message.endswith("; plugin disabled")
    assert "flaky.py:3" in message
    flaky = info(mgr, "flaky")
    assert not flaky.loaded and flaky.failed and "pre_llm_call: ValueError" in (flaky.error or "")
    assert not mgr.has_hooks("after_tool") and mgr.has_hooks("pre_llm_call")
    log = (home / "tui" / "logs" / "plugins.log").read_text()
    assert "Traceback" in log and "ValueError: prefetch down" in log  # the traceback is in the log


def test_block_from_before_tool_stops_the_chain(home: Path) -> None:
    write(
        home / "plugins" / "a_guard.py",
        """
        from agent.plugins import Block
        def before_tool(call):
            if "rm -rf" in call.arguments:
                return Block("no recursive deletes")
            return None
        """,
    )
    write(home / "plugins" / "b_later.py", "CALLS = []\ndef before_tool(call):\n    CALLS.append(call.id)\n")
    mgr, errors = manager(home)
    later = next(m for k, m in sys.modules.items() if k.startswith("hermes_tui_plugin_b_later"))
    out = mgr.before_tool(ToolCall(id="x", name="terminal", arguments='{"command": "rm -rf /"}'))
    assert out == Block("no recursive deletes", plugin="a_guard")
    result = out.as_result()
    assert result.status == "denied"
    assert result.content == "Tool call blocked by plugin 'a_guard': no recursive deletes"
    assert later.CALLS == []
    ok = mgr.before_tool(ToolCall(id="y", name="terminal", arguments='{"command": "ls"}'))
    assert isinstance(ok, ToolCall) and later.CALLS == ["y"]
    assert errors == []


def test_after_tool_rewrites_the_result_in_order(home: Path) -> None:
    write(
        home / "plugins" / "a_redact.py",
        """
        def after_tool(call, result):
            result.content = result.content.replace("secret", "******")
            return result
        """,
    )
    write(
        home / "plugins" / "b_tag.py",
        """
        from agent.toolkit.registry import ToolResult
        def after_tool(call, result):
            content = f"[{call.name}] " + result.content
            return ToolResult(content=content, status=result.status, data={"tagged": True})
        """,
    )
    mgr, errors = manager(home)
    original = ToolResult(content="the secret is out", data={"exit_code": 0})
    out = mgr.after_tool(ToolCall(id="c", name="terminal"), original)
    assert out.content == "[terminal] the ****** is out"
    assert out.data == {"tagged": True}
    assert original.content == "the secret is out"  # the caller's object is untouched
    assert errors == []


def test_wrong_return_types_are_ignored_and_reported_once(home: Path) -> None:
    write(
        home / "plugins" / "wrong.py",
        """
        def pre_llm_call(**kw):
            return 42
        def before_tool(call):
            return {"name": "terminal"}
        def after_tool(call, result):
            return "a string, not a ToolResult"
        """,
    )
    mgr, errors = manager(home)
    call = ToolCall(id="c", name="read_file", arguments="{}")
    result = ToolResult(content="ok")
    for _ in range(2):
        assert mgr.pre_llm_call("s", "u", [], True, "m") == ""
        assert mgr.before_tool(call) == call
        assert mgr.after_tool(call, result) is result
    assert len(errors) == 3
    by_hook = {h: m for _, h, m in errors}
    assert by_hook["pre_llm_call"] == "returned int, expected str or None (ignored)"
    assert by_hook["before_tool"] == "returned dict, expected ToolCall, Block or None (ignored)"
    assert by_hook["after_tool"] == "returned str, expected ToolResult or None (ignored)"


def test_same_file_name_in_two_locations_does_not_collide(tmp_path: Path) -> None:
    home_a, home_b = tmp_path / "a", tmp_path / "b"
    write(home_a / "plugins" / "tool_audit.py", "def pre_llm_call(**kw):\n    return 'from A'\n")
    write(home_b / "plugins" / "tool_audit.py", "def pre_llm_call(**kw):\n    return 'from B'\n")
    write(
        home_a / "plugins" / "pkg" / "__init__.py",
        "from .inner import WHO\ndef pre_llm_call(**kw):\n    return WHO\n",
    )
    write(home_a / "plugins" / "pkg" / "inner.py", "WHO = 'pkg A'\n")
    write(
        home_b / "plugins" / "pkg" / "__init__.py",
        "from .inner import WHO\ndef pre_llm_call(**kw):\n    return WHO\n",
    )
    write(home_b / "plugins" / "pkg" / "inner.py", "WHO = 'pkg B'\n")
    mgr_a, _ = manager(home_a)
    mgr_b, _ = manager(home_b)
    assert mgr_a.pre_llm_call("s", "u", [], True, "m") == "pkg A\n\nfrom A"
    assert mgr_b.pre_llm_call("s", "u", [], True, "m") == "pkg B\n\nfrom B"
    names = [k for k in sys.modules if k.startswith("hermes_tui_plugin_tool_audit")]
    assert len(names) == 2
    assert "tool_audit" not in sys.modules


def test_reload_picks_up_changes_and_reports_again(home: Path) -> None:
    path = write(home / "plugins" / "p.py", "def pre_llm_call(**kw):\n    return 'v1'\n")
    mgr, _ = manager(home)
    assert mgr.pre_llm_call("s", "u", [], True, "m") == "v1"
    path.write_text("def pre_llm_call(**kw):\n    return 'v2'\n", encoding="utf-8")
    mgr.load()
    assert mgr.pre_llm_call("s", "u", [], True, "m") == "v2"
    assert len(mgr.plugins) == 1


def test_no_plugin_dir_and_empty_list(tmp_path: Path) -> None:
    mgr, errors = manager(tmp_path / "nowhere")
    assert mgr.plugins == []
    assert mgr.pre_llm_call("s", "u", [], True, "m") == ""
    call = ToolCall(id="c", name="x")
    assert mgr.before_tool(call) is call
    assert not mgr.has_hooks("before_tool")
    assert format_plugin_list([], plugin_dir=tmp_path / "plugins").startswith("No plugins.")
    assert errors == []


def test_entry_point_plugins(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "site"
    write(
        pkg / "hermes_ep_plugin_ok.py",
        "def register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: 'ep ' + ctx.name)\n",
    )
    write(pkg / "hermes_ep_plugin_bad.py", "raise ImportError('needs a missing extra')\n")
    install_distribution(
        pkg,
        "hermes-ep-plugins",
        {
            plugins_mod.ENTRY_POINT_GROUP: {
                "zeta": "hermes_ep_plugin_ok:register",
                "bad": "hermes_ep_plugin_bad",
            }
        },
    )
    monkeypatch.syspath_prepend(str(pkg))
    write(home / "plugins" / "local.py", "def pre_llm_call(**kw):\n    return 'local'\n")
    mgr = PluginManager(home)
    mgr.load()
    assert [(p.name, p.loaded) for p in mgr.plugins] == [("local", True), ("bad", False), ("zeta", True)]
    assert mgr.pre_llm_call("s", "u", [], True, "m") == "local\n\nep zeta"
    bad = info(mgr, "bad")
    assert bad.source == "entry point hermes_ep_plugin_bad"
    assert bad.error is not None and bad.error.startswith("ImportError: needs a missing extra (")
    assert "hermes_ep_plugin_bad.py:1" in bad.error


def test_entry_points_are_read_once_until_something_is_installed(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every session discovers plugins, and reading every installed distribution's metadata costs ~20 ms:
    it is read once, and again only when a distribution appears on the path (a `pip install` while the app
    runs is seen by the next session)."""
    site = tmp_path / "site"
    write(site / "hermes_ep_later.py", "def register(ctx):\n    pass\n")
    monkeypatch.syspath_prepend(str(site))
    reads: list[int] = []
    real = importlib.metadata.entry_points

    def counted() -> importlib.metadata.EntryPoints:
        reads.append(1)
        return real()

    monkeypatch.setattr(importlib.metadata, "entry_points", counted)

    def names() -> list[str]:
        mgr = PluginManager(home)
        mgr.load()
        found = [p.name for p in mgr.plugins]
        mgr.close()
        return found

    assert "later" not in names()
    assert "later" not in names()
    assert len(reads) == 1, "nothing was installed, yet the metadata was read again"
    install_distribution(
        site, "hermes-ep-later", {plugins_mod.ENTRY_POINT_GROUP: {"later": "hermes_ep_later"}}
    )
    assert "later" in names()
    assert len(reads) == 2


def test_forgetting_a_plugins_modules_while_another_thread_imports() -> None:
    """A plugin is loaded while other threads import (the app prewarms the SDKs in one); a series run's
    `/plugins` showed "dictionary changed size during iteration" for a plugin that should have loaded."""
    from agent.plugins.discovery import forget_module

    stop = threading.Event()

    def importing() -> None:
        n = 0
        while not stop.is_set():
            name = f"_hermes_test_churn_{n % 50}"
            sys.modules[name] = types.ModuleType(name)
            sys.modules.pop(f"_hermes_test_churn_{(n + 25) % 50}", None)
            n += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # the threads take turns often, so a short loop meets the race
    churn = threading.Thread(target=importing, daemon=True)
    churn.start()
    try:
        for _ in range(1500):
            forget_module("hermes_tui_plugin_gone")
    finally:
        stop.set()
        churn.join()
        sys.setswitchinterval(interval)
        for n in range(50):
            sys.modules.pop(f"_hermes_test_churn_{n}", None)
