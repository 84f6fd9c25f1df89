"""Keys typed while the app starts are kept, in order: in a real terminal (tmux), as a fast user types."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

pytestmark = needs_tmux


def test_keys_typed_before_and_right_after_the_first_frame_reach_the_prompt_in_order(
    tmp_path: Path, hermes_home: Path
) -> None:
    tmux = Tmux((100, 30), f"{demo_command(tmp_path, real=True)}; sleep 5", app_env(hermes_home))
    try:
        before = tmux.screen()
        tmux.keys("-l", "alpha beta ")  # the interpreter has barely started: no screen yet
        assert "Message Hermes" not in before
        tmux.wait_for("for commands")  # the first frame (the welcome line)
        tmux.keys("-l", "gamma delta")  # while the engine loads behind the first frame
        shown = tmux.wait_for("alpha beta gamma delta")
        assert "Traceback" not in shown
        tmux.keys("Enter")  # and what was typed early is sent like any other message
        tmux.wait_for("Hermes asks", timeout=60)  # the demo's first turn answers with a question
    finally:
        tmux.close()
    # The message itself has scrolled off the 30-line screen by then: the store says what was sent.
    from agent.store import SessionStore

    store = SessionStore(hermes_home / "tui" / "state.db")
    try:
        (session,) = store.list_sessions()
        users = [m.content for m in store.load(session.id).messages if m.role == "user"]
    finally:
        store.close()
    assert users[0] == "alpha beta gamma delta"


def test_keys_typed_around_a_fast_starts_first_frame_reach_the_chat_in_order(
    tmp_path: Path, hermes_home: Path
) -> None:
    """The second launch draws its first frame from the startup snapshot the first one wrote, before the
    configuration is read (`hermes_tui.startup_snapshot`): keys typed before it, and while the chat
    replaces it, still reach the chat's prompt in order."""
    snapshot = hermes_home / "tui" / "startup.json"
    first = Tmux((100, 30), f"{demo_command(tmp_path, real=True)}; sleep 5", app_env(hermes_home))
    try:
        first.wait_for("for commands")
        first.wait_until(lambda _screen: snapshot.exists(), "the startup snapshot")  # just after the frame
        first.keys("C-q")
    finally:
        first.close()
    tmux = Tmux((100, 30), f"{demo_command(tmp_path, real=True)}; sleep 5", app_env(hermes_home))
    try:
        tmux.keys("-l", "one two ")  # before the first frame
        tmux.wait_for("Message Hermes")  # the snapshot's first frame: the prompt, no welcome line yet
        tmux.keys("-l", "three")  # while the configuration is read behind it
        tmux.keys("-l", " four")
        shown = tmux.wait_for("one two three four")
        # The chat took over (its welcome line wraps where the temporary folder's name is long).
        assert "Traceback" not in shown and "for commands" in " ".join(shown.split())
    finally:
        tmux.close()
