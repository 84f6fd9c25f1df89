"""Hostile files in the places the app reads on its own (issue 33 item 6): a FIFO, a symlink to a device, a
file too large, a YAML alias bomb. Each is skipped with one line (a problem, an error result or a log line)
and nothing waits: every read here runs in a thread the test abandons after a few seconds, so a reader that
blocks fails the test instead of hanging it."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from agent.config.settings import load_settings, read_dotenv
from agent.config.yaml_files import YamlAliasBomb, load_yaml, read_yaml_mapping
from agent.core.bounded_files import FileRefused, read_bytes, read_head, read_tail, read_text
from agent.prompts.memory_snapshot import memory_snapshot
from agent.prompts.sources import load_soul
from agent.prompts.system import context_sections
from agent.skills import library as skills_library
from agent.skills.library import SkillLibrary, scan_skills
from tests.cli_process import run_cli

T = TypeVar("T")

BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)
"""About 300 bytes: nine levels of nine aliases, a billion strings once expanded."""


def within(seconds: float, fn: Callable[[], T]) -> T:
    """`fn()` in a daemon thread; fails (instead of hanging the suite) when it does not return in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still reading after {seconds} s (blocked on a FIFO or a device?)")
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def zero_link(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to("/dev/zero")
    return path


def tool_context(home: Path, **state: Any) -> Any:
    from agent.toolkit.registry import ToolContext
    from agent.toolkit.state import SessionState

    return ToolContext(
        cwd=home,
        session_id="s",
        call_id="c",
        interrupt=threading.Event(),
        hermes_home=home,
        state=SessionState(**state),
    )


def skill_text(name: str, description: str = "does a thing") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nDo the thing.\n"


def write_skill(root: Path, name: str, text: str | None = None) -> Path:
    folder = root / "skills" / "tools" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text if text is not None else skill_text(name))
    return folder / "SKILL.md"


# ------------------------------------------------------------------------------------------- the reader


def test_the_reader_refuses_a_fifo_a_device_and_a_symlink_to_one(tmp_path: Path) -> None:
    for path, kind in (
        (fifo(tmp_path / "pipe"), "FIFO"),
        (zero_link(tmp_path / "zero"), "character device"),
        (Path("/dev/null"), "character device"),
        (tmp_path, "directory"),
    ):
        for read in (
            lambda p=path: read_bytes(p, limit=100),
            lambda p=path: read_head(p, limit=100),
            lambda p=path: read_tail(p, limit=100),
        ):
            with pytest.raises(FileRefused, match=kind):
                within(5, read)


def test_the_reader_caps_the_size_and_reads_regular_files(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 1000 + "é".encode())
    with pytest.raises(FileRefused, match="too large") as refused:
        read_bytes(path, limit=999)
    assert isinstance(refused.value, OSError)  # every existing `except OSError` skips it
    assert str(refused.value).startswith(f"skipped {path}: too large")
    assert read_text(path, limit=2000).endswith("xé")
    assert read_head(path, limit=10) == (b"x" * 10, True)
    assert read_tail(path, limit=2) == ("é".encode(), 1002)
    with pytest.raises(FileNotFoundError):
        read_bytes(tmp_path / "missing", limit=10)


def test_a_fifo_swapped_in_after_the_check_cannot_block_the_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check is os.stat; between it and the open the file may become a FIFO: the open is O_NONBLOCK
    and the descriptor is checked again."""
    pipe = fifo(tmp_path / "pipe")
    regular = os.stat(__file__)
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: regular if Path(p) == pipe else real_stat(p, *a, **k))
    with pytest.raises(FileRefused, match="FIFO"):
        within(5, lambda: read_bytes(pipe, limit=100))


def test_a_refusal_is_logged_once_per_file(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pipe = fifo(tmp_path / "once")
    with caplog.at_level(logging.WARNING, logger="agent.core.bounded_files"):
        for _ in range(3):
            with pytest.raises(FileRefused):
                read_bytes(pipe, limit=10)
    lines = [r.getMessage() for r in caplog.records if "once" in r.getMessage()]
    assert lines == [f"skipped {pipe}: a FIFO (named pipe), not a regular file"]


# --------------------------------------------------------------------------------------------- YAML


def test_an_alias_bomb_is_refused_fast_and_ordinary_aliases_load() -> None:
    assert len(BOMB) < 1024
    started = time.monotonic()
    with pytest.raises(YamlAliasBomb, match="alias"):
        load_yaml(BOMB)
    assert time.monotonic() - started < 2  # refused before anything is constructed (it took 3.3 GB)
    assert load_yaml("base: &b {x: 1}\none: *b\ntwo: *b\n") == {
        "base": {"x": 1},
        "one": {"x": 1},
        "two": {"x": 1},
    }
    many = "\n".join(f"k{i}: [{', '.join(['1'] * 50)}]" for i in range(2000))  # 100,000 plain nodes
    assert len(load_yaml(many)) == 2000


def test_an_alias_bomb_config_yaml_is_one_problem(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(BOMB)
    read = read_yaml_mapping(hermes_home / "config.yaml")
    assert not read.ok and "alias" in read.problem
    loaded = within(10, lambda: load_settings(env={"HERMES_HOME": str(hermes_home)}))
    assert any("alias" in p.expected for p in loaded.problems)


def test_config_yaml_and_env_that_are_fifos_are_skipped(hermes_home: Path) -> None:
    fifo(hermes_home / "config.yaml")
    fifo(hermes_home / ".env")
    loaded = within(10, lambda: load_settings(env={"HERMES_HOME": str(hermes_home)}))
    assert any("FIFO" in p.expected for p in loaded.problems)
    assert within(5, lambda: read_dotenv(hermes_home / ".env")) == {}


def test_env_that_is_a_link_to_dev_zero_is_skipped(tmp_path: Path) -> None:
    assert within(5, lambda: read_dotenv(zero_link(tmp_path / ".env"))) == {}


# ------------------------------------------------------------------------------------------- skills


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda p: p.write_text(f"---\nname: bomb\ndescription: x\nmeta:\n{BOMB}---\nbody\n"), "alias"),
        (lambda p: p.write_text("---\n" + BOMB.replace("\n", "\n", 1) + "---\nbody\n"), "alias"),
        (fifo, "FIFO"),
        (zero_link, "character device"),
        (lambda p: p.write_text(skill_text("huge", "x" * 300_000)), "too large"),
    ],
    ids=["bomb-in-metadata", "bomb-front-matter", "fifo", "dev-zero", "too-large"],
)
def test_a_hostile_skill_is_one_problem_and_the_others_load(
    hermes_home: Path, make: Callable[[Path], object], reason: str
) -> None:
    write_skill(hermes_home, "good")
    hostile = hermes_home / "skills" / "tools" / "hostile" / "SKILL.md"
    hostile.parent.mkdir(parents=True)
    make(hostile)
    scan = within(10, lambda: scan_skills(hermes_home / "skills"))
    assert [s.name for s in scan.skills] == ["good"]
    assert len(scan.problems) == 1 and scan.problems[0].path == hostile
    assert reason in scan.problems[0].reason


def test_a_skill_support_file_that_is_a_fifo_is_an_error_for_the_model(hermes_home: Path) -> None:
    from agent.skills.tools import SkillViewArgs, skill_view

    write_skill(hermes_home, "piped")
    fifo(hermes_home / "skills" / "tools" / "piped" / "references" / "notes.md")
    ctx = tool_context(hermes_home, skills=SkillLibrary(hermes_home))
    result = within(10, lambda: skill_view(SkillViewArgs(name="piped", file_path="references/notes.md"), ctx))
    assert result.status == "error" and "FIFO" in result.content


def test_ten_thousand_skills_are_cut_at_the_limit_with_one_line(
    hermes_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = hermes_home / "skills"
    for i in range(10_000):
        folder = root / f"c{i // 500}" / f"s{i:05d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(skill_text(f"s{i:05d}"))
    opened: list[Path] = []
    real_load = skills_library._load_skill
    monkeypatch.setattr(skills_library, "_load_skill", lambda p, r: opened.append(p) or real_load(p, r))
    scan = within(60, lambda: scan_skills(root))
    assert len(scan.skills) == skills_library.MAX_SKILLS == len(opened)  # the other 8,000 never opened
    assert [p.reason for p in scan.problems] == [
        "stopped after 2,000 skills (the limit); the rest of the folder was not read"
    ]
    library = SkillLibrary(hermes_home)
    assert len(within(60, library.commands)) == 2_000


def test_the_skill_scan_stops_at_its_time_limit(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("one", "two", "three"):
        write_skill(hermes_home, name)
    monkeypatch.setattr(skills_library, "SCAN_SECONDS", -1.0)  # already past: a slow file system
    scan = scan_skills(hermes_home / "skills")
    assert scan.skills == () and "stopped after" in scan.problems[0].reason


# ---------------------------------------------------------------------- memory, SOUL.md, context files


@pytest.mark.parametrize("make", [fifo, zero_link], ids=["fifo", "dev-zero"])
def test_a_hostile_memory_file_costs_only_its_own_entries(
    hermes_home: Path, make: Callable[[Path], Path]
) -> None:
    memories = hermes_home / "memories"
    memories.mkdir()
    make(memories / "MEMORY.md")
    (memories / "USER.md").write_text("User likes tea.\n")
    snapshot = within(10, lambda: memory_snapshot(hermes_home))
    assert "User likes tea." in snapshot


def test_the_memory_tool_refuses_a_fifo_and_leaves_it_alone(hermes_home: Path) -> None:
    from agent.tools.memory import MemoryArgs, memory

    pipe = fifo(hermes_home / "memories" / "MEMORY.md")
    ctx = tool_context(hermes_home)
    result = within(10, lambda: memory(MemoryArgs(action="add", target="memory", content="x"), ctx))
    assert result.status == "error" and "FIFO" in result.content
    assert pipe.is_fifo()


def test_an_oversized_memory_file_is_skipped(hermes_home: Path) -> None:
    (hermes_home / "memories").mkdir()
    (hermes_home / "memories" / "MEMORY.md").write_text("x" * 1_100_000)
    (hermes_home / "memories" / "USER.md").write_text("User likes tea.\n")
    snapshot = memory_snapshot(hermes_home)
    assert "User likes tea." in snapshot and "xxxx" not in snapshot


@pytest.mark.parametrize("make", [fifo, zero_link], ids=["fifo", "dev-zero"])
def test_soul_and_agents_md_that_are_hostile_are_skipped(
    tmp_path: Path, make: Callable[[Path], Path]
) -> None:
    make(tmp_path / "SOUL.md")
    assert within(5, lambda: load_soul(tmp_path)) is None
    project = tmp_path / "project"
    project.mkdir()
    make(project / "AGENTS.md")
    assert within(5, lambda: context_sections(project)) == []


def test_a_huge_agents_md_is_read_only_as_far_as_the_cap(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("a" * 5_000_000)
    [section] = context_sections(tmp_path)
    assert "truncated at 20000 characters" in section and len(section) < 21_000


# ------------------------------------------------------------------------- other files read on their own


def test_cron_jobs_json_that_is_a_fifo_is_an_error(hermes_home: Path) -> None:
    from agent.cron.jobs import CronJobs, CronStoreError

    jobs = CronJobs(hermes_home)
    fifo(jobs.path)
    with pytest.raises(CronStoreError, match="FIFO"):
        within(10, jobs.list_jobs)


def test_a_plugin_manifest_that_is_a_bomb_or_a_fifo_is_a_problem(hermes_home: Path) -> None:
    from agent.plugins.discovery import _hermes_found

    bomb = hermes_home / "plugins" / "bomb"
    bomb.mkdir(parents=True)
    (bomb / "plugin.yaml").write_text(BOMB)
    piped = hermes_home / "plugins" / "piped"
    piped.mkdir()
    fifo(piped / "plugin.yaml")
    fifo(piped / "__init__.py")
    for folder, reason in ((bomb, "alias"), (piped, "FIFO")):
        found = within(10, lambda f=folder: _hermes_found(f, f / "plugin.yaml", "user", ""))
        with pytest.raises(ValueError, match=reason):
            found.load()


def test_a_theme_that_is_a_bomb_or_a_fifo_is_a_theme_error(tmp_path: Path) -> None:
    from themes.loader import ThemeError, load_theme_file

    (tmp_path / "bomb.yaml").write_text(BOMB)
    fifo(tmp_path / "piped.yaml")
    for name, reason in (("bomb.yaml", "alias"), ("piped.yaml", "FIFO")):
        with pytest.raises(ThemeError, match=reason):
            within(10, lambda n=name: load_theme_file(tmp_path / n))


def test_prompt_history_and_startup_snapshot_that_are_fifos(tmp_path: Path) -> None:
    from hermes_tui.prompt_history import FILE_NAME, load_prompt_history
    from hermes_tui.startup_snapshot import DEFAULT_SNAPSHOT, snapshot_or_default, snapshot_path

    class Where:
        state_db = tmp_path / "tui" / "state.db"
        cwd = tmp_path

    pipe = fifo(tmp_path / "tui" / FILE_NAME)
    history = within(5, lambda: load_prompt_history(Where()))
    assert list(history) == []
    within(5, lambda: history.append("hello"))  # the FIFO has no reader: not written, never waited on
    assert pipe.is_fifo()
    fifo(snapshot_path(tmp_path))
    assert within(5, lambda: snapshot_or_default(tmp_path)) is DEFAULT_SNAPSHOT


def test_active_profile_and_gitignore_that_are_fifos(tmp_path: Path) -> None:
    from agent.config.home import profile_home
    from agent.workspace.file_tree import GitIgnore

    fifo(tmp_path / "root" / "active_profile")
    assert (
        within(5, lambda: profile_home(None, {"HOME": str(tmp_path), "HERMES_HOME": str(tmp_path / "root")}))
        is None
    )
    ignore = GitIgnore()
    within(5, lambda: ignore.add_file(fifo(tmp_path / "proj" / ".gitignore"), ""))
    assert ignore.rules == []


# ------------------------------------------------------------------------------------ a whole turn


def test_a_turn_in_a_hostile_home_answers(hermes_home: Path, tmp_path: Path) -> None:
    """`-z` in a home whose MEMORY.md, USER.md, SOUL.md and .env are FIFOs, with an alias-bomb skill, a
    skill that is a link to /dev/zero and 2,500 skills: the turn answers (it used to wait forever on the
    first FIFO) and nothing prints a traceback."""

    for name in ("MEMORY.md", "USER.md"):
        fifo(hermes_home / "memories" / name)
    fifo(hermes_home / "SOUL.md")
    fifo(hermes_home / ".env")
    write_skill(hermes_home, "bomb", f"---\nname: bomb\ndescription: x\nmeta:\n{BOMB}---\nbody\n")
    zero_link(hermes_home / "skills" / "tools" / "zero" / "SKILL.md")
    for i in range(2_500):
        write_skill(hermes_home, f"s{i:04d}")
    (tmp_path / "AGENTS.md").symlink_to("/dev/zero")
    scenario = tmp_path / "hi.yaml"
    scenario.write_text("name: hi\ncalls:\n  - text: Hello from a hostile home.\n")
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(root)})
    proc = run_cli(["-z", "hi", "--scenario", str(scenario)], cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Hello from a hostile home." in proc.stdout
    assert "Traceback" not in proc.stderr
