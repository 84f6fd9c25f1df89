"""The startup snapshot: what the first frame of a fast start shows, kept from the last run. A cache: any
file it did not write is ignored, a failed write is silent."""

from __future__ import annotations

import json
from pathlib import Path

from textual.theme import Theme

from hermes_tui.startup_snapshot import StartupSnapshot, read_snapshot, snapshot_path, write_snapshot

THEME = Theme(
    name="daylight", primary="#0055AA", background="#FAFAF7", dark=False, variables={"block-cursor": "red"}
)


def test_a_snapshot_reads_back_as_written(tmp_path: Path) -> None:
    snapshot = StartupSnapshot(theme=THEME, prompt_symbol="λ", model="anthropic/claude-sonnet-4")
    write_snapshot(tmp_path, snapshot)
    assert read_snapshot(tmp_path) == snapshot


def test_an_unchanged_snapshot_is_not_written_again(tmp_path: Path) -> None:
    snapshot = StartupSnapshot(theme=THEME, prompt_symbol="❯", model="m")
    write_snapshot(tmp_path, snapshot)
    path = snapshot_path(tmp_path)
    path.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")  # same bytes, a new mtime
    before = path.stat().st_mtime_ns
    write_snapshot(tmp_path, snapshot)
    assert path.stat().st_mtime_ns == before
    write_snapshot(tmp_path, StartupSnapshot(theme=THEME, prompt_symbol="❯", model="other"))
    assert read_snapshot(tmp_path).model == "other"  # type: ignore[union-attr]


def test_anything_but_what_it_writes_is_no_snapshot(tmp_path: Path) -> None:
    assert read_snapshot(tmp_path) is None  # none yet
    write_snapshot(tmp_path, StartupSnapshot(theme=THEME, prompt_symbol="❯", model="m"))
    good = json.loads(snapshot_path(tmp_path).read_text(encoding="utf-8"))

    def variant(**changes: object) -> dict[str, object]:
        data = json.loads(json.dumps(good))
        for key, value in changes.items():
            if key.startswith("theme_"):
                data["theme"][key.removeprefix("theme_")] = value
            else:
                data[key] = value
        return data

    broken = [
        b"{not json",
        b"\xff\xfe binary",
        json.dumps([1, 2]).encode(),
        json.dumps(variant(version=2)).encode(),
        json.dumps(variant(model=3)).encode(),
        json.dumps(variant(sdk=["openai"])).encode(),
        json.dumps(variant(theme_primary="not a colour")).encode(),
        json.dumps(variant(theme_dark="yes")).encode(),
        json.dumps(variant(theme_variables={"x": 1})).encode(),
        json.dumps({k: v for k, v in good.items() if k != "theme"}).encode(),
    ]
    for data in broken:
        snapshot_path(tmp_path).write_bytes(data)
        assert read_snapshot(tmp_path) is None, data


def test_a_snapshot_that_cannot_be_written_is_silent(tmp_path: Path) -> None:
    (tmp_path / "tui").write_text("a file where the folder should be", encoding="utf-8")
    write_snapshot(tmp_path, StartupSnapshot(theme=THEME, prompt_symbol="❯", model="m"))
    assert read_snapshot(tmp_path) is None


def test_the_default_snapshot_is_the_built_in_default_theme() -> None:
    """A first run's first frame is drawn from `DEFAULT_SNAPSHOT`: the same colours and prompt symbol as the
    built-in `default` theme the configuration then applies (no flash of other colours)."""
    from hermes_tui.startup_snapshot import DEFAULT_SNAPSHOT
    from themes.loader import builtin_themes

    spec = builtin_themes()["default"]
    theme = spec.to_textual_theme()
    assert DEFAULT_SNAPSHOT.theme.to_color_system().generate() == theme.to_color_system().generate()
    assert DEFAULT_SNAPSHOT.prompt_symbol == spec.prompt_symbol
    assert DEFAULT_SNAPSHOT.sdk == "openai"  # most providers': imported with a first run's first frame


def test_the_sdk_the_last_run_used_reads_back_and_an_older_snapshot_without_it_still_reads(
    tmp_path: Path,
) -> None:
    snapshot = StartupSnapshot(theme=THEME, prompt_symbol="❯", model="m", sdk="anthropic")
    write_snapshot(tmp_path, snapshot)
    assert read_snapshot(tmp_path) == snapshot
    data = json.loads(snapshot_path(tmp_path).read_text(encoding="utf-8"))
    del data["sdk"]  # written before the snapshot named the SDK
    snapshot_path(tmp_path).write_text(json.dumps(data), encoding="utf-8")
    older = read_snapshot(tmp_path)
    assert older is not None and older.sdk == "" and older.model == "m"
