"""The repository is self-contained: nothing in it cites a file a person who clones it does not have.

The design once lived in a document beside the repository, and the guide and nine docstrings cited it. It
is now `docs/architecture.md`. This test fails when a tracked file cites a path outside the repository: a
design document or workspace folder beside it, or a relative Markdown link that climbs out of the root.
Paths inside test data (`../etc/passwd` as a hostile argument) are not citations and are not looked at:
the rules match citations only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_WORKSPACE = "/" + "work"  # spelled apart so this file does not cite it either
_BESIDE = ".." + "/shared"  # the folder beside the repository, spelled apart for the same reason
OUTSIDE = re.compile(
    "|".join(
        [
            r"\.\./shared\b",  # the folder beside the repository where the design used to live
            r"\bshared/design\.md",
            r"\bdesign\.md\b",  # the old design document, cited by name
            r"\bdesign\s+§\s*\d",  # ... or by section (across a line break too)
            re.escape(_WORKSPACE) + r"/(?:main|wt|shared|briefs|base|\.library|\.mirror)\b",
        ]
    )
)
"""Citations of what lies outside the repository."""

_SKIP_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".woff", ".woff2", ".db", ".sqlite", ".gz", ".zip"}


def tracked_files() -> list[Path]:
    """The files git tracks (what a clone has); without git, every file outside hidden and build folders."""
    if shutil.which("git") and (ROOT / ".git").exists():
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True
        ).stdout.decode()
        return [ROOT / name for name in listed.split("\0") if name]
    skip = {"__pycache__", "build", "dist"}
    return [
        path
        for path in ROOT.rglob("*")
        if path.is_file()
        and not any(part.startswith(".") or part in skip or part.endswith(".egg-info") for part in path.parts)
    ]


def _text(path: Path) -> str | None:
    if path.suffix.lower() in _SKIP_SUFFIXES or not path.is_file():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def outside_citations(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of each citation of something outside the repository."""
    lines = text.splitlines()
    for match in OUTSIDE.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        yield number, lines[number - 1].strip()


def links_out_of(path: Path, text: str, root: Path = ROOT) -> Iterator[str]:
    """The relative Markdown links of `path` that lead out of `root`."""
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        resolved = (path.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(root.resolve()):
            yield target


def test_no_tracked_file_cites_a_path_outside_the_repository() -> None:
    this = Path(__file__).resolve()
    found = []
    for path in tracked_files():
        if path.resolve() == this:
            continue
        text = _text(path)
        if text is None:
            continue
        found += [f"{path.relative_to(ROOT)}:{n}: {line[:100]}" for n, line in outside_citations(text)]
        if path.suffix == ".md":
            found += [f"{path.relative_to(ROOT)}: link to {target}" for target in links_out_of(path, text)]
    assert not found, "cite docs/architecture.md (or a file of the repository) instead:\n" + "\n".join(found)


def test_the_rules_see_a_citation_and_leave_test_data_alone(tmp_path: Path) -> None:
    cited = [
        f"The architecture is in `{_BESIDE}/design.md`.",
        "Why (design.md §4, §9): layout cost",
        "falls behind (design §9), so",
        "falls behind (design\n§9), so",
        f"see {_WORKSPACE}/shared/notes.md",
    ]
    for line in cited:
        assert list(outside_citations(line)), line
    data = ['profile_home("../etc", env)', 'cwd="/srv/work/hermes"', 'docs/architecture.md, "The transcript"']
    for line in data:
        assert not list(outside_citations(line)), line
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    links = "[in](other.md) [up](../README.md) [out](../../x.md) [web](https://example.com) [#](#a)"
    assert list(links_out_of(page, links, root=tmp_path)) == ["../../x.md"]
