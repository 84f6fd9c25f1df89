"""The seam itself: the local environment is the tools' old behaviour (files through `os`, the shell under
the supervisor), and a path the model gives means what it means where the tools run (`~` is the home
there)."""

from __future__ import annotations

import threading
from pathlib import Path

from agent.environments.local import LocalEnvironment
from agent.environments.remote import RemoteEnvironment
from agent.toolkit.registry import ToolContext


def _ctx(cwd: Path, environment: object | None) -> ToolContext:
    return ToolContext(
        cwd=cwd,
        session_id="s",
        call_id="c",
        interrupt=threading.Event(),
        hermes_home=cwd,
        environment=environment,  # type: ignore[arg-type]
    )


def test_tilde_is_the_home_where_the_tools_run(tmp_path: Path) -> None:
    remote = RemoteEnvironment(Path("/srv/app"))
    remote.home = Path("/home/far")
    ctx = _ctx(Path("/srv/app"), remote)
    assert ctx.resolve("~/notes.txt") == Path("/home/far/notes.txt")
    assert ctx.resolve("~") == Path("/home/far")
    assert ctx.resolve("src/../a.py") == Path("/srv/app/a.py")
    assert ctx.resolve("~nobody-here/x") == Path("/srv/app/~nobody-here/x")  # not this machine's users
    local = _ctx(tmp_path, None)
    assert local.resolve("~/notes.txt") == Path.home() / "notes.txt"
    assert local.env.is_local and local.env.home == Path.home()


def test_local_files(tmp_path: Path) -> None:
    env = LocalEnvironment(tmp_path)
    assert env.stat(tmp_path / "missing") is None
    assert env.stat(tmp_path / "missing" / "deeper") is None
    target = tmp_path / "real.txt"
    target.write_text("old")
    target.chmod(0o600)
    (tmp_path / "link.txt").symlink_to(target)
    env.write_bytes(tmp_path / "link.txt", b"new")  # through the link: the target is replaced
    assert (tmp_path / "link.txt").is_symlink() and target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o600
    env.write_bytes(tmp_path / "a" / "b" / "c.txt", b"x")
    info = env.stat(tmp_path / "real.txt")
    assert info is not None and (info.kind, info.size, info.mode) == ("file", 3, 0o600)
    assert [(e.name, e.is_dir) for e in env.list_dir(tmp_path)] == [
        ("a", True),
        ("link.txt", False),
        ("real.txt", False),
    ]
    with env.open_read(target) as fh:
        assert fh.read() == b"new"
