"""Hermes profiles: `-p NAME` and the sticky `active_profile` select `<root>/profiles/NAME` as the home."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent.config.home import ProfileError, profile_home


def test_profile_flag_and_sticky_active_profile(tmp_path: Path) -> None:
    root = tmp_path / ".hermes"
    (root / "profiles" / "work").mkdir(parents=True)
    env = {"HERMES_HOME": str(root)}
    assert profile_home("work", env) == root / "profiles" / "work"
    assert profile_home("Work", env) == root / "profiles" / "work"  # names are lower-cased, as Hermes does
    assert profile_home("default", env) == root
    assert profile_home(None, env) is None  # no active_profile: the home as it is
    (root / "active_profile").write_text("work\n")
    assert profile_home(None, env) == root / "profiles" / "work"
    assert profile_home("default", env) == root  # the flag wins over the sticky choice
    # A HERMES_HOME already inside profiles/ is taken as it is; its root is the one above.
    inside = {"HERMES_HOME": str(root / "profiles" / "work")}
    assert profile_home(None, inside) is None
    (root / "profiles" / "home").mkdir()
    assert profile_home("home", inside) == root / "profiles" / "home"
    with pytest.raises(ProfileError, match="profile 'nope' does not exist"):
        profile_home("nope", env)
    with pytest.raises(ProfileError, match="invalid profile name"):
        profile_home("../etc", env)
    (root / "active_profile").write_text("gone\n")
    with pytest.raises(ProfileError, match="active_profile: profile 'gone' does not exist"):
        profile_home(None, env)


def test_the_command_line_uses_the_profile_home(tmp_path: Path) -> None:
    root = tmp_path / ".hermes"
    work = root / "profiles" / "work"
    work.mkdir(parents=True)
    (work / "config.yaml").write_text(
        "model: {default: profile-model, provider: custom, base_url: http://127.0.0.1:9/v1}\n"
    )
    (root / "config.yaml").write_text("model: {default: root-model}\n")
    env = {"HERMES_HOME": str(root), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path.cwd())}

    def config(*flags: str) -> subprocess.CompletedProcess[str]:
        code = "import sys; from hermes_tui.cli import main; sys.exit(main(sys.argv[1:]))"
        argv = [sys.executable, "-c", code, "config", *flags]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)

    assert "profile-model" in config("-p", "work").stdout
    assert "root-model" in config().stdout
    (root / "active_profile").write_text("work\n")
    assert "profile-model" in config().stdout  # the sticky profile, as Hermes uses it
    missing = config("-p", "nope")
    assert missing.returncode == 2 and "profile 'nope' does not exist" in missing.stderr
