"""Find the private Textual/Rich names a tree of our code touches, by reading it (AST), for the boundary
tests: imports of private modules or names, overrides of (and `self.` reads/writes of) names a Textual/Rich
base class defines, and `obj._name` on other objects where `_name` is one of Textual's or Rich's and not
one our own code defines."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import rich
import textual

UPSTREAM = ("textual", "rich")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _names_in(tree: ast.AST) -> set[str]:
    """Private names a class body defines or uses on `self`/`cls`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
            names.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
            and _private(node.attr)
        ):
            names.add(node.attr)
        elif (
            isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _private(node.target.id)
        ):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name) and _private(t.id))
    return names


@cache
def class_private_names(cls: type) -> frozenset[str]:
    """The private names an upstream class defines (methods, class attributes, `self._x` in its code)."""
    names = {name for name in vars(cls) if _private(name)}
    names.update(getattr(cls, "__slots__", ()))
    try:
        names |= _names_in(ast.parse(textwrap.dedent(inspect.getsource(cls))))
    except (OSError, TypeError, SyntaxError):
        pass
    return frozenset(name for name in names if _private(name))


@cache
def upstream_private_names() -> frozenset[str]:
    """Every private name any Textual or Rich class defines or uses on itself."""
    names: set[str] = set()
    for package in (textual, rich):
        for path in Path(package.__file__ or "").parent.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    names |= _names_in(node)
    return frozenset(names)


def _upstream(cls: type) -> bool:
    return cls.__module__.split(".")[0] in UPSTREAM


def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def touches(files: Iterable[Path], root: Path) -> dict[str, set[str]]:
    """{private name: {"path:line what", ...}} for every private Textual/Rich name the files touch."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
    ours: set[str] = set()  # private names our own code defines (so `panel._summary` is ours)
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
                ours.add(node.name)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and _private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                ours.add(node.attr)
    upstream = upstream_private_names()
    hits: dict[str, set[str]] = defaultdict(set)
    for path, tree in trees.items():
        where = str(path.relative_to(root))
        module = importlib.import_module(_module_name(path, root))
        in_class = {
            id(node) for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) for node in ast.walk(cls)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if parts[0] in UPSTREAM:
                    for part in parts[1:]:
                        if _private(part):
                            hits[part].add(f"{where}:{node.lineno} import {node.module}")
                    for alias in node.names:
                        if _private(alias.name):
                            hits[alias.name].add(f"{where}:{node.lineno} import {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] in UPSTREAM and any(_private(part) for part in parts[1:]):
                        hits[alias.name].add(f"{where}:{node.lineno} import")
            elif isinstance(node, ast.ClassDef):
                cls = getattr(module, node.name, None)
                if not inspect.isclass(cls):
                    continue
                inherited: set[str] = set()
                for base in cls.__mro__[1:]:
                    if _upstream(base):
                        inherited |= class_private_names(base)
                for name in _names_in(node) & inherited:
                    hits[name].add(f"{where} {node.name}")
            elif (
                isinstance(node, ast.Attribute)
                and _private(node.attr)
                and node.attr in upstream
                and (node.attr not in ours or id(node) not in in_class)
                and not (
                    id(node) in in_class
                    and isinstance(node.value, ast.Name)
                    and node.value.id in ("self", "cls")
                )
            ):
                hits[node.attr].add(f"{where}:{node.lineno}")
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and len(node.value) > 1
                and node.value in upstream
                and node.value not in ours
            ):
                hits[node.value].add(f"{where}:{node.lineno} by name")
    return dict(hits)
