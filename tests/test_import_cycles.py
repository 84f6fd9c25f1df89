"""No import cycles among the project's modules, lazy (function-level) and type-only imports included.

A cycle through a lazy import still ties two modules together: neither can be understood, tested or moved
without the other, and the day someone hoists the import to the top the app fails to start.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "hermes_tui", "widgets", "themes", "scripted")
pytestmark = pytest.mark.xdist_group("source_scans")  # one worker builds the graph, once


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package `__init__`)."""
    found: dict[str, tuple[Path, bool]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


@cache
def import_graph() -> dict[str, set[str]]:
    """Each project module -> the project modules it imports anywhere in its file (not to be changed: it is
    built once for the module's tests)."""
    modules = _modules()

    def resolve(name: str) -> str | None:
        """The project module `name` refers to (`a.b.c` may be module `a.b` importing its attribute `c`)."""
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        package = module if is_package else module.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(resolve(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join([*base, node.module] if node.module else base)
                else:
                    source = node.module or ""
                targets.add(resolve(source))
                targets.update(resolve(f"{source}.{alias.name}") for alias in node.names)
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: every strongly connected component of the graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_no_import_cycles() -> None:
    cycles = [c for c in strongly_connected(import_graph()) if len(c) > 1]
    assert cycles == [], "modules that import each other (directly or through others): " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The engine's packages (`agent.session`, `agent.toolkit`, ...; a top-level module is its own node) and
    which others each imports."""

    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        if module.split(".")[0] != "agent":
            continue
        packages.setdefault(package(module), set()).update(
            package(t) for t in targets if t.split(".")[0] == "agent" and package(t) != package(module)
        )
    return packages


def test_the_engines_packages_import_each_other_one_way() -> None:
    """Coarser than modules: two packages that need each other are one concept cut in two, or a framework
    importing what should register into it (the tool framework imports no tool, skill or plugin)."""
    cycles = [c for c in strongly_connected(package_graph(import_graph())) if len(c) > 1]
    assert cycles == [], "agent/ packages that import each other: " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_cycle_finder_sees_lazy_imports() -> None:
    graph = import_graph()
    assert "hermes_tui.chat.screen" in graph["hermes_tui.app"]  # imported inside a method
    assert "agent.store" in graph["agent.session.session"]  # imported for type checking only
    cyclic = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in strongly_connected(cyclic) if len(c) > 1] == [["a", "b", "c"]]
