"""read_file, write_file, patch and search_files against real files in tmp_path."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

import agent.tools.files as files
import agent.tools.search_files as search_module
from agent.environments.local import LocalEnvironment
from agent.toolkit.registry import ToolContext, ToolResult
from agent.tools.files import PatchArgs, ReadFileArgs, WriteFileArgs, patch, read_file, write_file
from agent.tools.search_files import SearchFilesArgs, search_files
from agent.workspace.file_tree import GitIgnore


@dataclass
class Verdict:
    allowed: bool
    decision: str
    message: str


class FakeGate:
    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self.writes: list[tuple[Path, Path, str]] = []

    def review_command(self, command: str, *, tool_name: str) -> Verdict:
        raise AssertionError("file tools must not review commands")

    def review_write(self, path: Path, cwd: Path, *, tool_name: str, diff: object = None) -> Verdict:
        self.writes.append((path, cwd, tool_name))
        if self.allowed:
            return Verdict(True, "once", "")
        return Verdict(False, "deny", "Writing outside the project was denied by the user.")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir()
    return ToolContext(
        cwd=work,
        session_id="s1",
        call_id="c1",
        interrupt=threading.Event(),
        hermes_home=tmp_path / "home",
    )


def read(ctx: ToolContext, path: str, **kw) -> ToolResult:
    return read_file(ReadFileArgs(path=path, **kw), ctx)


# ---------------------------------------------------------------------------------------------- read_file


def test_read_file_numbers_lines(ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("alpha\nbeta\r\ngamma")
    result = read(ctx, "a.txt")
    assert result.status == "ok"
    assert result.content == "     1|alpha\n     2|beta\n     3|gamma"
    assert result.data["total_lines"] == 3


def test_read_file_offset_limit_and_continuation(ctx: ToolContext) -> None:
    (ctx.cwd / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 1201)))
    first = read(ctx, "big.txt")
    lines = first.content.splitlines()
    assert lines[0] == "     1|line 1"
    assert lines[499] == "   500|line 500"
    assert lines[-1] == "[... file continues: use offset=501 to read more; total lines: 1200]"

    page = read(ctx, "big.txt", offset=1190, limit=5)
    assert page.content.splitlines() == [
        "  1190|line 1190",
        "  1191|line 1191",
        "  1192|line 1192",
        "  1193|line 1193",
        "  1194|line 1194",
        "[... file continues: use offset=1195 to read more; total lines: 1200]",
    ]
    tail = read(ctx, "big.txt", offset=1199)
    assert tail.content == "  1199|line 1199\n  1200|line 1200"

    past = read(ctx, "big.txt", offset=5000)
    assert past.status == "error"
    assert "1200 lines" in past.content


def test_read_file_stops_before_the_result_budget(ctx: ToolContext) -> None:
    (ctx.cwd / "wide.txt").write_text(("y" * 300 + "\n") * 1000)
    result = read(ctx, "wide.txt", limit=2000)
    assert len(result.content) < 50_000
    last = result.content.splitlines()[-1]
    assert last.startswith("[... file continues: use offset=") and last.endswith("total lines: 1000]")


def test_read_file_limit_is_capped(ctx: ToolContext) -> None:
    (ctx.cwd / "big.txt").write_text("x\n" * 3000)
    result = read(ctx, "big.txt", limit=10_000)
    assert result.content.splitlines()[-1] == (
        "[... file continues: use offset=2001 to read more; total lines: 3000]"
    )


def test_read_file_long_lines_are_capped(ctx: ToolContext) -> None:
    (ctx.cwd / "long.txt").write_text("a" * 5000 + "\nshort\n" + "b" * 100_000 + "\n")
    result = read(ctx, "long.txt")
    lines = result.content.splitlines()
    assert lines[0] == "     1|" + "a" * 2000 + " [... line truncated: 5000 characters in total]"
    assert lines[1] == "     2|short"
    assert lines[2].startswith("     3|" + "b" * 2000 + " [... line truncated: 100000")


def test_read_file_refuses_binary(ctx: ToolContext) -> None:
    (ctx.cwd / "blob.dat").write_bytes(b"abc\x00def" * 100)
    result = read(ctx, "blob.dat")
    assert result.status == "error"
    assert "binary" in result.content and "blob.dat" in result.content and "700 bytes" in result.content
    (ctx.cwd / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 2000)
    result = read(ctx, "pic.png")
    assert "PNG image" in result.content
    (ctx.cwd / "archive.zip").write_text("not really")  # a known binary extension
    assert "archive" in read(ctx, "archive.zip").content


def test_read_file_non_utf8_is_replaced(ctx: ToolContext) -> None:
    (ctx.cwd / "latin.txt").write_bytes("café\n".encode("latin-1"))
    result = read(ctx, "latin.txt")
    assert result.status == "ok"
    assert result.content == "     1|caf\ufffd"


def test_read_file_missing_directory_and_empty(ctx: ToolContext) -> None:
    (ctx.cwd / "notes.txt").write_text("x")
    missing = read(ctx, "note.txt")
    assert missing.status == "error"
    assert "File not found: note.txt" in missing.content
    assert "notes.txt" in missing.content  # a close match is suggested

    (ctx.cwd / "pkg").mkdir()
    (ctx.cwd / "pkg" / "mod.py").write_text("")
    (ctx.cwd / "pkg" / "sub").mkdir()
    directory = read(ctx, "pkg")
    assert directory.status == "error"
    assert (
        "is a directory" in directory.content
        and "mod.py" in directory.content
        and "sub/" in directory.content
    )

    (ctx.cwd / "empty.txt").write_text("")
    assert "empty" in read(ctx, "empty.txt").content


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_read_file_permission_denied(ctx: ToolContext) -> None:
    secret = ctx.cwd / "secret.txt"
    secret.write_text("x")
    secret.chmod(0)
    result = read(ctx, "secret.txt")
    assert result.status == "error"
    assert "Permission denied" in result.content


def test_read_file_permission_denied_message(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    (ctx.cwd / "secret.txt").write_text("x")

    def denied(*_args: object) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "_sniff", denied)
    result = read(ctx, "secret.txt")
    assert result.status == "error"
    assert result.content == "Error: Permission denied: cannot read secret.txt."


# --------------------------------------------------------------------------------------------- write_file


def test_write_file_creates_parents_and_reports_new_file(ctx: ToolContext) -> None:
    result = write_file(WriteFileArgs(path="deep/er/new.py", content="a = 1\nb = 2\n"), ctx)
    target = ctx.cwd / "deep" / "er" / "new.py"
    assert result.status == "ok"
    assert target.read_text() == "a = 1\nb = 2\n"
    assert "Created new file deep/er/new.py (2 lines" in result.content
    assert result.data["path"] == str(target)
    assert "+a = 1" in result.data["diff"]


def test_write_file_diff_and_mode_preserved(ctx: ToolContext) -> None:
    script = ctx.cwd / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o750)
    result = write_file(WriteFileArgs(path="run.sh", content="#!/bin/sh\necho new\n"), ctx)
    assert result.status == "ok"
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    diff = result.data["diff"]
    assert "--- a/run.sh" in diff and "+++ b/run.sh" in diff
    assert "-echo old" in diff and "+echo new" in diff
    assert "-echo old" in result.content
    # No temp files left behind.
    assert sorted(p.name for p in ctx.cwd.iterdir()) == ["run.sh"]


def test_write_file_is_atomic(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    target = ctx.cwd / "data.txt"
    target.write_text("original\n")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", boom)
    result = write_file(WriteFileArgs(path="data.txt", content="new content\n"), ctx)
    assert result.status == "error"
    assert "No space left" in result.content
    assert target.read_text() == "original\n"
    assert sorted(p.name for p in ctx.cwd.iterdir()) == ["data.txt"]


def test_write_file_new_file_mode_follows_umask(ctx: ToolContext) -> None:
    write_file(WriteFileArgs(path="f.txt", content="x"), ctx)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((ctx.cwd / "f.txt").stat().st_mode) == 0o666 & ~umask


def test_write_file_denied_does_not_touch(ctx: ToolContext) -> None:
    gate = FakeGate(allowed=False)
    ctx.approvals = gate
    result = write_file(WriteFileArgs(path="x.txt", content="data"), ctx)
    assert result.status == "denied"
    assert result.content == "Writing outside the project was denied by the user."
    assert not (ctx.cwd / "x.txt").exists()
    assert gate.writes == [(ctx.cwd / "x.txt", ctx.cwd, "write_file")]


def test_write_file_to_directory_is_an_error(ctx: ToolContext) -> None:
    (ctx.cwd / "d").mkdir()
    assert write_file(WriteFileArgs(path="d", content="x"), ctx).status == "error"


# -------------------------------------------------------------------------------------------------- patch


def test_patch_replaces_exactly_once(ctx: ToolContext) -> None:
    f = ctx.cwd / "m.py"
    f.write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    f.chmod(0o640)
    result = patch(PatchArgs(path="m.py", old_string="    return 1", new_string="    return 10"), ctx)
    assert result.status == "ok"
    assert f.read_text() == "def f():\n    return 10\n\n\ndef g():\n    return 2\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    assert "-    return 1\n" in result.data["diff"] and "+    return 10\n" in result.data["diff"]
    assert "1 replacement" in result.content


def test_patch_zero_matches_shows_closest_lines(ctx: ToolContext) -> None:
    f = ctx.cwd / "m.py"
    f.write_text("def compute_total(items):\n    return sum(items)\n")
    result = patch(PatchArgs(path="m.py", old_string="def compute_totals(items):", new_string="x"), ctx)
    assert result.status == "error"
    assert "0 matches" in result.content
    assert "1|def compute_total(items):" in result.content
    assert f.read_text() == "def compute_total(items):\n    return sum(items)\n"


def test_patch_many_matches_asks_for_context(ctx: ToolContext) -> None:
    f = ctx.cwd / "m.txt"
    f.write_text("x = 1\ny = 2\nx = 1\nx = 1\n")
    result = patch(PatchArgs(path="m.txt", old_string="x = 1", new_string="x = 9"), ctx)
    assert result.status == "error"
    assert "3 times" in result.content and "lines 1, 3, 4" in result.content
    assert "replace_all" in result.content
    assert f.read_text() == "x = 1\ny = 2\nx = 1\nx = 1\n"


def test_patch_replace_all(ctx: ToolContext) -> None:
    f = ctx.cwd / "m.txt"
    f.write_text("x = 1\ny = 2\nx = 1\n")
    result = patch(PatchArgs(path="m.txt", old_string="x = 1", new_string="x = 9", replace_all=True), ctx)
    assert result.status == "ok"
    assert f.read_text() == "x = 9\ny = 2\nx = 9\n"
    assert result.data["replacements"] == 2


def test_patch_crlf_file(ctx: ToolContext) -> None:
    f = ctx.cwd / "win.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = patch(PatchArgs(path="win.txt", old_string="one\ntwo", new_string="uno\ndos"), ctx)
    assert result.status == "ok"
    assert f.read_bytes() == b"uno\r\ndos\r\nthree\r\n"


def test_patch_missing_file_and_denied(ctx: ToolContext) -> None:
    assert "write_file" in patch(PatchArgs(path="nope.txt", old_string="a", new_string="b"), ctx).content
    f = ctx.cwd / "m.txt"
    f.write_text("a\n")
    ctx.approvals = FakeGate(allowed=False)
    result = patch(PatchArgs(path="m.txt", old_string="a", new_string="b"), ctx)
    assert result.status == "denied"
    assert f.read_text() == "a\n"


def test_patch_keeps_non_utf8_bytes(ctx: ToolContext) -> None:
    f = ctx.cwd / "latin.txt"
    f.write_bytes(b"caf\xe9\nold\n")
    result = patch(PatchArgs(path="latin.txt", old_string="old", new_string="new"), ctx)
    assert result.status == "ok"
    assert f.read_bytes() == b"caf\xe9\nnew\n"


# ------------------------------------------------------------------------------------------- search_files


@pytest.fixture
def tree(ctx: ToolContext) -> Path:
    root = ctx.cwd
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("needle in git dir\n")
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\n\ndef needle():\n    return 'needle'\n")
    (root / "src" / "util.py").write_text("# helper\nNEEDLE = 1\nneedle_count = 2\n")
    (root / "src" / "data.bin").write_bytes(b"needle\x00\x01\x02")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("needle built\n")
    (root / "debug.log").write_text("needle logged\n")
    (root / "keep.log").write_text("needle kept\n")
    (root / "README.md").write_text("Find the needle.\n")
    return root


@pytest.fixture(params=["rg", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "rg":
        if shutil.which("rg") is None:
            pytest.skip("ripgrep is not installed")
    else:
        monkeypatch.setattr(LocalEnvironment, "which", lambda self, name: False)
    return request.param


def search(ctx: ToolContext, pattern: str, **kw) -> ToolResult:
    return search_files(SearchFilesArgs(pattern=pattern, **kw), ctx)


def _result_lines(result: ToolResult) -> list[str]:
    return [ln for ln in result.content.splitlines()[1:] if not ln.startswith("[")]


def test_search_content_respects_gitignore_and_skips_git_and_binary(
    ctx: ToolContext, tree: Path, backend: str
) -> None:
    result = search(ctx, "needle")
    assert result.status == "ok", result.content
    assert result.data["backend"] == backend
    assert _result_lines(result) == [
        "README.md:1:Find the needle.",
        "keep.log:1:needle kept",
        "src/app.py:3:def needle():",
        "src/app.py:4:    return 'needle'",
        "src/util.py:3:needle_count = 2",
    ]
    assert result.content.startswith("Found 5 matches in 4 files")


def test_search_content_regex_glob_and_subpath(ctx: ToolContext, tree: Path, backend: str) -> None:
    result = search(ctx, r"^(NEEDLE|def)", file_glob="*.py")
    assert _result_lines(result) == ["src/app.py:3:def needle():", "src/util.py:2:NEEDLE = 1"]
    logs = search(ctx, "needle", file_glob="*.log")  # a glob does not bring back ignored files
    assert _result_lines(logs) == ["keep.log:1:needle kept"]
    nested = search(ctx, "needle", file_glob="src/*.py")
    assert [ln.split(":")[0] for ln in _result_lines(nested)] == ["src/app.py", "src/app.py", "src/util.py"]
    sub = search(ctx, "needle", path="src")
    assert _result_lines(sub)[0] == "app.py:3:def needle():"
    assert "in src:" in sub.content.splitlines()[0]


def test_search_content_limit_offset(ctx: ToolContext, backend: str) -> None:
    (ctx.cwd / "many.txt").write_text("".join(f"hit {i}\n" for i in range(1, 121)))
    first = search(ctx, "hit", limit=50)
    lines = first.content.splitlines()
    assert lines[1] == "many.txt:1:hit 1"
    assert lines[50] == "many.txt:50:hit 50"
    assert lines[-1] == "[70 more results: use offset=50 to see more]"
    assert "showing 1-50" in lines[0]
    last = search(ctx, "hit", limit=50, offset=100)
    assert _result_lines(last)[0] == "many.txt:101:hit 101"
    assert len(_result_lines(last)) == 20
    assert "more results" not in last.content
    past = search(ctx, "hit", offset=500)
    assert "past the end" in past.content


def test_search_content_with_context(ctx: ToolContext, backend: str) -> None:
    (ctx.cwd / "c.txt").write_text("a\nb\nMATCH1\nc\nd\ne\nf\nMATCH2\ng\n")
    result = search(ctx, "MATCH", context=1)
    assert _result_lines(result) == [
        "c.txt-2-b",
        "c.txt:3:MATCH1",
        "c.txt-4-c",
        "--",
        "c.txt-7-f",
        "c.txt:8:MATCH2",
        "c.txt-9-g",
    ]
    second = search(ctx, "MATCH", context=1, offset=1, limit=1)
    assert _result_lines(second) == ["c.txt-7-f", "c.txt:8:MATCH2", "c.txt-9-g"]


def test_search_files_by_name(ctx: ToolContext, tree: Path, backend: str) -> None:
    result = search(ctx, "*.py", target="files")
    assert _result_lines(result) == ["src/app.py", "src/util.py"]
    plain = search(ctx, "util", target="files")
    assert _result_lines(plain) == ["src/util.py"]
    logs = search(ctx, "*.LOG", target="files")  # names match case-insensitively; debug.log is ignored
    assert _result_lines(logs) == ["keep.log"]
    nested = search(ctx, "src/*.py", target="files")
    assert _result_lines(nested) == ["src/app.py", "src/util.py"]
    none = search(ctx, "*.rs", target="files")
    assert none.status == "ok" and "No files matching" in none.content


def test_search_output_stays_within_budget(ctx: ToolContext, backend: str) -> None:
    (ctx.cwd / "wide.txt").write_text("".join(f"hit {i} " + "w" * 600 + "\n" for i in range(1, 301)))
    result = search(ctx, "hit", limit=300)
    assert len(result.content) <= search_module.SEARCH_MAX_CHARS + 500
    shown = result.data["shown"]
    assert 50 < shown < 300
    assert result.content.endswith(f"[{300 - shown} more results: use offset={shown} to see more]")
    # Long lines are clipped.
    assert " more characters]" in _result_lines(result)[0]


def test_search_files_limit_offset(ctx: ToolContext, backend: str) -> None:
    for i in range(12):
        (ctx.cwd / f"f{i:02}.txt").write_text("x")
    result = search(ctx, "*.txt", target="files", limit=5, offset=5)
    assert _result_lines(result) == [f"f{i:02}.txt" for i in range(5, 10)]
    assert "[2 more results: use offset=10 to see more]" in result.content


def test_search_errors(ctx: ToolContext, backend: str) -> None:
    (ctx.cwd / "x.txt").write_text("x\n")
    bad = search(ctx, "(unclosed")
    assert bad.status == "error"
    assert "search failed" in bad.content
    missing = search(ctx, "x", path="nope")
    assert missing.status == "error" and "not found" in missing.content
    nothing = search(ctx, "zzz")
    assert nothing.status == "ok" and "No matches" in nothing.content


def test_search_interrupted(ctx: ToolContext, tree: Path, backend: str) -> None:
    ctx.interrupt.set()
    assert search(ctx, "needle").status == "cancelled"


def test_gitignore_matcher(tmp_path: Path) -> None:
    gitignore = tmp_path / ".gitignore"
    gitignore.write_text("# comment\n*.pyc\n/dist\ndocs/_build/\n**/node_modules\n!important.pyc\n")
    ig = GitIgnore()
    ig.add_file(gitignore, "")
    assert ig.ignored("a/b/c.pyc", False)
    assert not ig.ignored("a/important.pyc", False)
    assert ig.ignored("dist", True)
    assert not ig.ignored("src/dist", True)
    assert ig.ignored("docs/_build", True)
    assert not ig.ignored("docs/_build", False)
    assert ig.ignored("web/node_modules", True)
    assert ig.ignored("node_modules", True)
