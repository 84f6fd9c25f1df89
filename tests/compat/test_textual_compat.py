"""The boundary with Textual and Rich (docs/architecture.md, "The boundary with Textual"): pins, the manifest,
the guard, the canary.

The canary (`test_every_manifest_name_still_exists_with_its_signature`) is what a Textual upgrade runs
first: every private name the app touches, checked in one place, with the full list of what is gone.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from hermes_tui import textual_compat
from hermes_tui.textual_compat import guard
from hermes_tui.textual_compat.manifest import MANIFEST, VERIFIED, PrivateName
from tests.compat.private_names import touches

ROOT = Path(__file__).resolve().parents[2]
COMPAT = ROOT / "hermes_tui" / "textual_compat"

SCANS = pytest.mark.xdist_group("source_scans")
"""The two scans of our code against Textual's and Rich's private names, on one worker: it reads those
libraries' sources once for both (`private_names.upstream_private_names`)."""

NAME_BUDGET = 15
"""Distinct private names inside textual_compat (issue 28's limit is 16): a ratchet, lowered as workarounds
go. The one-view transcript took it from 46 to 13: it needs none of the widget-per-entry workarounds; the
transcript's component classes restyled in place (`component_nodes`) added two."""


def _product_files(*, compat: bool) -> list[Path]:
    files = [path for folder in ("hermes_tui", "widgets", "themes") for path in (ROOT / folder).rglob("*.py")]
    return [path for path in files if (COMPAT in path.parents) == compat]


def test_textual_and_rich_are_pinned_exactly_to_the_verified_versions() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for name, version in VERIFIED.items():
        assert f"{name}=={version}" in project["dependencies"], f"{name} must be pinned =={version}"


@SCANS
def test_no_module_outside_textual_compat_touches_a_private_textual_or_rich_name() -> None:
    hits = touches(_product_files(compat=False), ROOT)
    assert not hits, "private Textual/Rich names outside hermes_tui/textual_compat/:\n" + "\n".join(
        f"  {name}: {', '.join(sorted(where))}" for name, where in sorted(hits.items())
    )


@SCANS
def test_the_manifest_lists_every_private_name_textual_compat_touches() -> None:
    listed = {entry.name for entry in MANIFEST} | {
        part
        for entry in MANIFEST
        for part in entry.target.partition(":")[0].split(".")
        if part.startswith("_")
    }
    hits = touches(_product_files(compat=True), ROOT)
    unlisted = {name: where for name, where in hits.items() if name not in listed}
    assert not unlisted, f"touched in textual_compat but not in its manifest: {unlisted}"
    stale = sorted(name for name in listed if name.startswith("_") and name not in hits)
    assert not stale, f"in the manifest but no longer touched (remove them): {stale}"
    assert len(hits) <= NAME_BUDGET, f"{len(hits)} private names inside textual_compat (budget {NAME_BUDGET})"


def _instance_attribute_exists(entry: PrivateName) -> bool:
    """An attribute Textual/Rich sets on instances: in a class's `__slots__`, or assigned on `self` in
    the source of a class of its MRO."""
    owner = guard.resolve(entry)
    name = entry.name
    for cls in inspect.getmro(owner):
        if name in getattr(cls, "__slots__", ()):
            return True
        try:
            source = inspect.getsource(cls)
        except (OSError, TypeError):
            continue
        if f"self.{name} =" in source or f"self.{name}:" in source:
            return True
    return False


def test_every_manifest_name_still_exists_with_its_signature() -> None:
    """The canary: run it first after bumping Textual or Rich; it lists everything that changed."""
    problems: list[str] = []
    for entry in MANIFEST:
        try:
            target = guard.resolve(entry)
        except (AttributeError, ImportError) as exc:
            problems.append(f"{entry.target}: gone ({exc})")
            continue
        if entry.instance:
            if not _instance_attribute_exists(entry):
                problems.append(f"{entry.target}: no longer set on instances")
            continue
        if entry.signature is not None:
            found = str(inspect.signature(target))
            if found != entry.signature:
                problems.append(f"{entry.target}: signature {found}, verified {entry.signature}")
    assert not problems, "Textual/Rich changed under textual_compat (re-verify each):\n" + "\n".join(problems)


def test_every_manifest_entry_says_what_it_works_around_and_where_it_is_used() -> None:
    modules = {path.stem for path in COMPAT.glob("*.py")}
    for entry in MANIFEST:
        assert entry.works_around, entry.target
        assert entry.used_by in modules, f"{entry.target}: used_by {entry.used_by!r} is not a compat module"
        if entry.upstream.startswith("docs/upstream/"):
            assert (ROOT / entry.upstream).is_file(), f"{entry.target}: {entry.upstream} is missing"


def test_this_process_runs_on_the_verified_textual_with_every_fix_in() -> None:
    status = textual_compat.status()
    assert status.active, status.line()
    assert set(status.applied) == set(status.fixes)
    assert all(status.applied.values()), status.applied
    assert f"{len(status.fixes)} of {len(status.fixes)} active" in status.line()


_UNVERIFIED = """
import sys
from hermes_tui.textual_compat import manifest
manifest.VERIFIED["textual"] = "0.0.1"  # as if another Textual were installed
from hermes_tui import textual_compat
from hermes_tui.textual_compat import guard
status = textual_compat.install(eager=True)
import codecs, textual._callback as callback
from textual.drivers import linux_driver
from textual._compositor import ChopsUpdate
from widgets.prompt.input import PromptInput
assert not status.active and not status.applied, status
assert linux_driver.getincrementaldecoder is codecs.getincrementaldecoder
assert type(callback.count_parameters).__name__ == "function"
assert type(ChopsUpdate.render_segments).__name__ == "function"
assert "_validate_selection" not in vars(PromptInput)
from hermes_tui.doctor import textual_status_line
print(textual_status_line())
"""


def test_on_an_unverified_textual_no_patch_goes_in_and_one_line_says_which_are_off() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _UNVERIFIED], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    logged = [line for line in done.stderr.splitlines() if "Textual workarounds off" in line]
    assert len(logged) == 1, done.stderr
    assert "found textual 8.2.8" in logged[0] and "verified textual 0.0.1" in logged[0]
    for fix in ("frame-writer", "prompt-tokens", "input-decoder"):
        assert fix in logged[0]
    assert done.stdout.startswith("Textual workarounds off (another version"), done.stdout


def test_doctor_says_which_workarounds_are_active() -> None:
    import io

    from agent.config.settings import load_settings
    from hermes_tui.doctor import run_doctor

    out = io.StringIO()
    run_doctor(load_settings({}), out)
    fixes = len(textual_compat.status().fixes)
    assert (
        f"Textual workarounds: {fixes} of {fixes} active (textual 8.2.8, rich 15.0.0, verified)"
        in out.getvalue()
    )


@pytest.mark.slow
def test_the_chat_streams_scrolls_and_answers_questions_with_every_fix_off(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HERMES_HOME": str(tmp_path / "home")}
    child = Path(__file__).with_name("unverified_chat_child.py")
    done = subprocess.run(
        [sys.executable, str(child), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=110,
    )
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert "Textual workarounds off" in done.stderr
    for step in ("streamed", "answered", "scrolled"):
        assert f"ok: {step}" in done.stdout, done.stdout
