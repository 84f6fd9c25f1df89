"""The test modules' asserts rewritten once per run, before the xdist workers start.

Every worker collects every test module, and pytest rewrites a module's asserts when it imports it, caching
the result beside its bytecode. On a clean clone nothing is cached yet, so the workers (four on two cores)
each parse and rewrite all of them at the same moment: about 7 s of CPU per worker, half of a collection's,
spent four times over while no test runs. Here the controller does it once, on every core, and the workers
find it cached: pytest reads a cached rewrite only when the source's size and mtime still match, so a module
edited since is rewritten as before.

Only when workers will run (`-n 0` or a single worker rewrites lazily, as before), and only for the paths
given (a run of one file rewrites that file). The rewrite is pytest's own (`_rewrite_test`, `_write_pyc`,
private: pytest is pinned in constraints.txt, and `tests/compat/test_rewrite_cache.py` fails in one place
if they change), so what a worker finds is what it would have written itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from fnmatch import fnmatch
from multiprocessing import get_context
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

__all__ = ["cached_rewrite", "modules_to_rewrite", "rewrite_ahead", "rewrite_modules"]

_config: pytest.Config | None = None
"""The run's configuration, for the forked rewriters (the rewrite reads its options)."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which starts the workers
def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput") or not config.pluginmanager.has_plugin("dsession"):
        return
    if len(getattr(config.option, "tx", None) or ()) < 2 or rewrite.assertstate_key not in config.stash:
        return  # one process rewrites lazily, as before; `--assert=plain` rewrites nothing
    rewrite_ahead(config, modules_to_rewrite(_run_paths(config), config.getini("python_files")))


def modules_to_rewrite(paths: Iterable[Path], patterns: Iterable[str]) -> list[Path]:
    """The modules pytest rewrites under `paths` (files or directories): its test files (`python_files`'s
    `patterns`) and conftests."""
    names = [*patterns, "conftest.py"]
    found: set[Path] = set()
    for path in paths:
        candidates: Iterable[Path] = path.rglob("*.py") if path.is_dir() else [path]
        found.update(p for p in candidates if p.suffix == ".py" and any(fnmatch(p.name, n) for n in names))
    return sorted(found)


def _run_paths(config: pytest.Config) -> list[Path]:
    """The paths of this run within `testpaths` (absolute, as pytest imports them): those given, or the
    `testpaths` a given directory holds (`pytest .` does not walk the virtualenv)."""
    roots = [Path(os.path.abspath(config.rootpath / p)) for p in config.getini("testpaths")]
    given = [Path(os.path.abspath(config.invocation_params.dir / a.split("::")[0])) for a in config.args]
    paths: set[Path] = set()
    for path in given or roots:
        paths.update(r for r in roots if r.is_relative_to(path))
        paths.update(path for r in roots if path.is_relative_to(r))
    return sorted(paths)


def cached_rewrite(module: Path) -> Path:
    """Where pytest keeps `module`'s rewrite."""
    return rewrite.get_cache_dir(module) / (module.name[:-3] + rewrite.PYC_TAIL)


def rewrite_ahead(config: pytest.Config, modules: Iterable[Path]) -> int:
    """Rewrite and cache the modules whose rewrite is missing or stale, on every core; how many."""
    global _config
    stale = [m for m in modules if rewrite._read_pyc(m, cached_rewrite(m)) is None]
    if not stale:
        return 0
    _config = config
    cores = min(len(os.sched_getaffinity(0)), len(stale))
    with ProcessPoolExecutor(cores, mp_context=get_context("fork")) as pool:
        list(pool.map(_rewrite_each, _chunks(stale, cores)))
    return len(stale)


def _chunks(items: list[Path], count: int) -> Iterator[list[Path]]:
    for start in range(count):
        yield items[start::count]


def _rewrite_each(modules: list[Path]) -> None:
    assert _config is not None
    rewrite_modules(_config, modules)


def rewrite_modules(config: pytest.Config, modules: Iterable[Path]) -> None:
    """Rewrite and cache `modules` here, as pytest's import hook does for a module it imports."""
    state = config.stash[rewrite.assertstate_key]
    for module in modules:
        pyc = cached_rewrite(module)
        if rewrite.try_makedirs(pyc.parent):
            stat, code = rewrite._rewrite_test(module, config)
            rewrite._write_pyc(state, code, stat, pyc)
