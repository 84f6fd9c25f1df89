"""`tests/rewrite_cache.py` writes pytest's cached rewrite with pytest's private functions: a process that
imports the module afterwards must run that cached code, not a rewrite of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rewrite_cache import cached_rewrite, modules_to_rewrite, rewrite_modules


def test_pytest_runs_the_rewrite_cached_ahead(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    """The module is cached saying one thing, then edited to say another of the same size and mtime: pytest
    trusts its cache on those two, so the failure it reports tells which code ran."""
    module = tmp_path / "test_probe.py"
    module.write_text("def test_probe():\n    assert 'from-cache' == ''\n")
    rewrite_modules(pytestconfig, [module])
    assert cached_rewrite(module).is_file()
    stat = module.stat()
    module.write_text("def test_probe():\n    assert 'from-files' == ''\n")
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    args = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-p", "no:randomly"]
    done = subprocess.run(
        [*args, "-q", "-o", "addopts=", module.name], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "AssertionError: assert 'from-cache' == ''" in done.stdout, done.stdout
    assert "AssertionError: assert 'from-files'" not in done.stdout  # (the source shown is the file's)


def test_the_modules_rewritten_ahead_are_the_test_modules_under_the_paths_given() -> None:
    tests = Path(__file__).parents[1]
    patterns = ["test_*.py", "*_test.py"]
    modules = modules_to_rewrite([tests], patterns)
    assert Path(__file__) in modules and tests / "conftest.py" in modules
    assert tests / "rewrite_cache.py" not in modules  # not a test module: imported as it is
    assert modules_to_rewrite([Path(__file__)], patterns) == [Path(__file__)]
