"""/model: a picker of the provider's models (its /models endpoint, cached); an unlisted name is taken with a
warning naming the closest ones; a provider that cannot list models takes any name."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from pytest import MonkeyPatch
from textual.pilot import Pilot

from agent.config.model_catalog import ModelCatalog, closest_models, load_catalog
from agent.config.settings import Settings
from hermes_tui.app import HermesApp
from hermes_tui.chat.screen import ChatScreen
from hermes_tui.screens.model_picker import ModelPicker
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, run_chat, submit, wait_for
from widgets.transcript.entries.notice import NoticeEntry

MODELS = ["gpt-4o", "gpt-4o-mini", "o3-mini", "claude-sonnet-4.5"]


def _notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


def test_closest_names() -> None:
    assert closest_models("gpt-4o-mnii", MODELS)[0] == "gpt-4o-mini"
    assert "claude-sonnet-4.5" in closest_models("sonnet", MODELS)


def test_the_list_is_cached_per_endpoint_without_the_key(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "model": "scripted", "models": MODELS, "calls": []}) as server:
        settings = chat_settings(server, hermes_home, tmp_path)
        first = load_catalog(settings)
        assert set(MODELS) < set(first.models) and not first.cached
        assert load_catalog(settings).cached
        assert len([r for r in server.requests if r.path.endswith("/models")]) <= 1
    cache = (hermes_home / "tui" / "models.json").read_text()
    assert "gpt-4o-mini" in cache and settings.api_key.get_secret_value() not in cache  # type: ignore[union-attr]
    assert json.loads(cache)


async def test_unlisted_names_are_taken_with_a_warning_and_the_closest(
    hermes_home: Path, tmp_path: Path
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/model gpt-4o-mnii")
        await wait_for(pilot, lambda: any("does not list it" in n for n in _notices(app)))
        assert any("closest listed: gpt-4o-mini" in n for n in _notices(app))
        assert chat(app).settings.model == "gpt-4o-mnii"

    await run_chat({"name": "t", "models": MODELS, "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_a_listed_name_missing_from_a_stale_cache_is_asked_again(
    hermes_home: Path, tmp_path: Path
) -> None:
    """A local server restarted with another model keeps its address: the day-old list is read again."""
    cache = hermes_home / "tui" / "models.json"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        key = f"openai_chat {server.openai_base_url}"
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({key: {"at": time.time(), "models": ["old-model"]}}))
        await submit(pilot, "/model smol")
        await wait_for(pilot, lambda: any("Model switched to smol" in n for n in _notices(app)))
        assert not any("does not list" in n for n in _notices(app))
        assert "smol" in json.loads(cache.read_text())[key]["models"]

    scenario = {"name": "t", "models": ["smol"], "calls": []}
    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


async def test_the_picker_filters_and_picks(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/model")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen)
        await wait_for(pilot, lambda: picker.catalog is not None, what="the list")
        assert set(MODELS) <= set(picker.shown)
        await pilot.press(*"mini")
        await wait_for(pilot, lambda: picker.shown == ["o3-mini", "gpt-4o-mini"], what="filtered")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: any("Model switched to gpt-4o-mini" in n for n in _notices(app)))
        assert chat(app).settings.model == "gpt-4o-mini"

    await run_chat({"name": "t", "models": MODELS, "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_a_provider_without_a_list_takes_any_name(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        settings = chat_settings(server, hermes_home, tmp_path, base_url="http://127.0.0.1:9/v1")
        app = HermesApp(settings)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: any(isinstance(s, ChatScreen) for s in app.screen_stack))
            await submit(pilot, "/model my-local-model")
            await wait_for(pilot, lambda: any("Model switched to my-local-model" in n for n in _notices(app)))
            assert any("not checked" in n for n in _notices(app))
            assert chat(app).settings.model == "my-local-model"


async def test_a_message_sent_right_after_model_name_goes_to_the_new_model(
    hermes_home: Path, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    """`/model NAME` then Enter on a message before the provider's list came back: the message goes to
    NAME (it went to the old model, and the switch was dropped when the list arrived during the turn)."""
    import agent.api

    listing = threading.Event()  # the provider's list is slow to come back, until the turn has been sent
    real = load_catalog

    def slow_catalog(settings: Settings, *, refresh: bool = False) -> ModelCatalog:
        listing.wait(10)
        return real(settings, refresh=refresh)

    monkeypatch.setattr(agent.api, "load_catalog", slow_catalog)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "/model gpt-4o-mini")
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: [r for r in server.requests if r.method == "POST"], what="the request")
        listing.set()
        await wait_for(pilot, lambda: not screen.busy, what="the turn's end")
        (request,) = [r for r in server.requests if r.method == "POST"]
        assert request.body["model"] == "gpt-4o-mini"
        await wait_for(pilot, lambda: any("Model switched to gpt-4o-mini" in n for n in _notices(app)))
        assert screen.settings.model == "gpt-4o-mini"

    scenario = {"name": "t", "models": MODELS, "calls": [{"text": "hi"}]}
    try:
        await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)
    finally:
        listing.set()
