"""The pieces a `Session` is made of, each alone and without HTTP: the permission mode and its storage,
the environment slot, the learnt context window, the steering box, the session's row.

Each holds one session's state: two of them side by side share nothing (issue 40's several sessions in one
process)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, cast

import pytest

from agent.config.settings import Settings
from agent.core.permission_mode import PermissionMode
from agent.environments import Environment
from agent.environments.base import EnvironmentUnavailable
from agent.session.context_window import WindowLearner
from agent.session.environment_slot import EnvironmentSlot, environment_refusal
from agent.session.permission import SessionMode
from agent.session.session_row import new_session_id, store_title, take_stored
from agent.session.steering import SteerBox
from agent.store import SessionStoreProtocol

LOCAL_SERVER = {"base_url": "http://127.0.0.1:8080/v1", "api_mode": "chat_completions", "model": "small"}


class ModeStore:
    """The one store call a mode makes; `fail` makes it refuse, as a read-only or full store does."""

    def __init__(self, fail: bool = False) -> None:
        self.saved: list[tuple[str, str]] = []
        self.fail = fail

    def set_permission_mode(self, session_id: str, mode: str) -> None:
        if self.fail:
            raise OSError("read-only")
        self.saved.append((session_id, mode))


def _mode(settings: Settings, store: ModeStore | None, session_id: str = "s1") -> SessionMode:
    return SessionMode(settings, cast(SessionStoreProtocol, store), lambda: session_id)


# ----------------------------------------------------------------------------- the permission mode


def test_a_resumed_session_continues_in_the_mode_it_was_left_in() -> None:
    store = ModeStore()
    mode = _mode(Settings(permission_mode="ask"), store)
    mode.restore("plan", Settings(permission_mode="ask"))
    assert mode.current is PermissionMode.PLAN
    assert store.saved == []  # nothing to store: the store has it


def test_a_session_never_given_a_mode_gets_the_configured_one() -> None:
    mode = _mode(Settings(permission_mode="ask"), ModeStore())
    mode.current = PermissionMode.YOLO
    mode.restore(None, Settings(permission_mode="ask"))
    assert mode.current is PermissionMode.ASK


def test_a_mode_chosen_on_the_command_line_wins_and_is_stored() -> None:
    store = ModeStore()
    chosen = Settings(permission_mode="plan", permission_mode_chosen=True)
    mode = _mode(chosen, store)
    mode.restore("yolo", chosen)
    assert mode.current is PermissionMode.PLAN
    assert store.saved == [("s1", "plan")]
    mode.restore("plan", chosen)  # the store has it already
    assert store.saved == [("s1", "plan")]


def test_an_unknown_stored_mode_falls_back_to_the_configured_one(caplog: pytest.LogCaptureFixture) -> None:
    mode = _mode(Settings(), ModeStore())
    with caplog.at_level(logging.WARNING):
        mode.restore("reckless", Settings())
    assert mode.current is PermissionMode.DEFAULT
    assert "reckless" in caplog.text


def test_setting_a_mode_stores_it_and_a_failing_store_does_not_stop_it() -> None:
    store = ModeStore()
    mode = _mode(Settings(), store)
    assert mode.set("plan") is PermissionMode.PLAN
    assert store.saved == [("s1", "plan")]
    failing = _mode(Settings(), ModeStore(fail=True))
    assert failing.set(PermissionMode.ASK) is PermissionMode.ASK


def test_nothing_is_stored_before_the_session_has_an_id_or_without_a_store() -> None:
    store = ModeStore()
    _mode(Settings(), store, session_id="").set("yolo")
    _mode(Settings(), None).set("yolo")
    assert store.saved == []


def test_yolo_on_and_off() -> None:
    mode = _mode(Settings(yolo=True), ModeStore())
    assert mode.current is PermissionMode.YOLO
    assert mode.yolo_target(False) is PermissionMode.DEFAULT
    mode.set(PermissionMode.PLAN)
    assert mode.yolo_target(False) is None  # off from another mode changes nothing
    assert mode.yolo_target(True) is PermissionMode.YOLO


def test_two_sessions_modes_are_their_own() -> None:
    one, two = _mode(Settings(), ModeStore()), _mode(Settings(), ModeStore())
    one.set("yolo")
    assert two.current is PermissionMode.DEFAULT


# ----------------------------------------------------------------------------- the environment slot


class FakeEnvironment:
    backend = "docker"
    label = "docker img"
    is_local = False
    cwd = Path("/work")

    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def _slot(opened: list[FakeEnvironment], given: FakeEnvironment | None = None) -> EnvironmentSlot:
    def opener(settings: Settings) -> Environment:
        environment = FakeEnvironment()
        opened.append(environment)
        return cast(Environment, environment)

    return EnvironmentSlot(Settings, cast(Environment, given), opener)


def test_the_environment_opens_on_first_use_only_and_closes_once() -> None:
    opened: list[FakeEnvironment] = []
    slot = _slot(opened)
    assert slot.opened is None and slot.is_local and slot.label == ""  # the configured one: local
    assert slot.get() is slot.get()
    assert len(opened) == 1 and slot.label == "docker img" and not slot.is_local
    slot.close()
    slot.close()
    assert opened[0].closed == 1 and slot.opened is None
    slot.get()  # a later use opens it again
    assert len(opened) == 2


def test_a_given_environment_is_used_and_never_closed() -> None:
    opened: list[FakeEnvironment] = []
    parents = FakeEnvironment()
    slot = _slot(opened, given=parents)
    assert slot.get() is cast(Environment, parents) and not slot.owned
    slot.close()
    assert parents.closed == 0 and opened == [] and slot.opened is cast(Environment, parents)


def test_a_refused_environment_is_tried_again_and_its_line_is_the_turns_error() -> None:
    attempts: list[int] = []

    def opener(settings: Settings) -> Environment:
        attempts.append(1)
        raise EnvironmentUnavailable("docker: not found; install it or set terminal.backend: local")

    slot = EnvironmentSlot(Settings, None, opener)
    for _ in range(2):
        with pytest.raises(EnvironmentUnavailable) as refused:
            slot.get()
    assert len(attempts) == 2 and slot.opened is None
    error = environment_refusal(refused.value)
    assert not error.retryable and "docker: not found" in error.user_line()


def test_closing_does_not_wait_for_an_environment_still_being_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    import agent.session.environment_slot as slot_module

    monkeypatch.setattr(slot_module, "CLOSE_PATIENCE", 0.0)
    release = threading.Event()
    started = threading.Event()

    def opener(settings: Settings) -> Environment:
        started.set()
        release.wait()
        return cast(Environment, FakeEnvironment())

    slot = EnvironmentSlot(Settings, None, opener)
    opening = threading.Thread(target=slot.get)
    opening.start()
    try:
        assert started.wait(10)
        slot.close()  # returns although the lock is held by the opening
    finally:
        release.set()
        opening.join(10)
    assert slot.opened is not None  # left to the supervisor (and a later close)


# ----------------------------------------------------------------------------- the context window


def test_a_local_servers_window_is_asked_once_per_model_and_forgotten_on_a_switch() -> None:
    asked: list[tuple[str, str, str | None]] = []

    def ask(question: tuple[str, str, str | None]) -> int | None:
        asked.append(question)
        return 4096

    learner = WindowLearner(ask)
    settings = Settings(**LOCAL_SERVER)
    learnt = learner.served(settings)
    assert learnt.context_window == 4096 and learner.learned
    assert learner.served(learnt) is learnt  # a window now given: nothing asked
    forgotten = learner.forget(learnt)
    assert forgotten.context_window is None and not learner.learned
    assert learner.served(forgotten).context_window == 4096
    assert len(asked) == 1  # the same server and model: its answer kept
    learner.served(forgotten.model_copy(update={"model": "other"}))
    assert len(asked) == 2


def test_a_configured_window_is_never_replaced() -> None:
    def ask(question: tuple[str, str, str | None]) -> int | None:
        raise AssertionError("a configured window asks nothing")

    learner = WindowLearner(ask)
    configured = Settings(**LOCAL_SERVER, context_window=8192)
    assert learner.served(configured) is configured
    assert learner.forget(configured) is configured  # not learnt: kept across a switch
    overflow = Exception("This model's maximum context length is 2048 tokens")
    assert learner.stated(configured, overflow) is None


def test_a_server_that_says_nothing_leaves_the_settings_alone() -> None:
    learner = WindowLearner(lambda question: None)
    settings = Settings(**LOCAL_SERVER)
    assert learner.served(settings) is settings and not learner.learned


def test_an_overflow_error_states_the_window() -> None:
    learner = WindowLearner(lambda question: None)
    settings = Settings(**LOCAL_SERVER)
    stated = learner.stated(settings, Exception("This model's maximum context length is 2,048 tokens"))
    assert stated == 2048
    assert learner.use(settings, stated).effective_context_window == 2048 and learner.learned
    assert learner.stated(settings, Exception("connection reset")) is None


# ----------------------------------------------------------------------------- steering and the row


def test_steering_is_delivered_once_in_order_and_blank_is_nothing() -> None:
    box = SteerBox()
    box.add("  ")
    assert box.take() == ""
    box.add(" use tabs ")
    box.add("only the failing one")
    assert box.take() == "use tabs\nonly the failing one"
    assert box.take() == ""


class RowStore:
    def __init__(self, fail_title: bool = False) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.fail_title = fail_title

    def create_session(self, **fields: Any) -> str:
        self.calls.append(("create", fields))
        return "row-1"

    def claim_session(self, session_id: str) -> None:
        self.calls.append(("claim", session_id))

    def set_title(self, session_id: str, title: str) -> None:
        if self.fail_title:
            raise OSError("disk full")
        self.calls.append(("title", title))


def test_a_new_session_is_the_stores_row_claimed_or_a_local_id_without_a_store() -> None:
    store = RowStore()
    settings = Settings(model="m")
    session_id = new_session_id(cast(SessionStoreProtocol, store), settings, "PROMPT", "acp")
    assert session_id == "row-1"
    assert [c[0] for c in store.calls] == ["create", "claim"]
    assert store.calls[0][1]["system_prompt"] == "PROMPT" and store.calls[0][1]["source"] == "acp"
    assert new_session_id(None, settings, "", "tui") != new_session_id(None, settings, "", "tui")


def test_the_first_message_titles_the_session_on_one_line() -> None:
    store = RowStore()
    assert not store_title(cast(SessionStoreProtocol, store), "row-1", "  \n ")  # the next one will
    assert store_title(cast(SessionStoreProtocol, store), "row-1", "fix\nthe   tests" + "x" * 200)
    title = store.calls[-1][1]
    assert title.startswith("fix the tests") and len(title) == 100
    failing = RowStore(fail_title=True)
    assert store_title(cast(SessionStoreProtocol, failing), "row-1", "hello")  # untitled, turn goes on


class ResumeStore:
    """A store whose session `hermes-1` is Hermes' (adopted as `copy-1`) and left by a crash (repaired)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def adopt(self, session_id: str) -> str:
        return "copy-1" if session_id == "hermes-1" else session_id

    def load(self, session_id: str) -> str:
        self.calls.append(f"load {session_id}")
        return f"loaded {session_id} #{self.calls.count(f'load {session_id}')}"

    def take_session(self, session_id: str) -> int:
        self.calls.append(f"take {session_id}")
        return 1  # a crash's leftovers repaired: load again

    def release_session(self, session_id: str) -> None:
        self.calls.append(f"release {session_id}")


def test_resuming_takes_the_stores_copy_reloads_after_a_repair_and_releases_the_one_left() -> None:
    store = ResumeStore()
    loaded = take_stored(cast(SessionStoreProtocol, store), "hermes-1", leaving="old")
    assert loaded == cast(Any, "loaded copy-1 #2")  # the copy, as repaired
    assert store.calls == ["load copy-1", "take copy-1", "load copy-1", "release old"]
    store.calls.clear()
    take_stored(cast(SessionStoreProtocol, store), "copy-1", leaving="copy-1")  # the same: kept
    assert "release copy-1" not in store.calls
