"""The type stubs of the extension name exactly what it exports, and the package is marked typed."""

from __future__ import annotations

import ast
from pathlib import Path

import docnav
from docnav import _native

PACKAGE = Path(docnav.__file__).parent


def stub_names() -> dict:
    tree = ast.parse((PACKAGE / "_native.pyi").read_text())
    names: dict = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {
                n.name for n in node.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("__")
            }
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = None
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
    return names


def test_stubs_match_the_extension() -> None:
    stubs = stub_names()
    exported = {n for n in dir(_native) if not n.startswith("_") or n == "__version__"}
    assert set(stubs) == exported
    for name, members in stubs.items():
        if members:
            actual = {m for m in dir(getattr(_native, name)) if not m.startswith("_")}
            assert members == actual, name


def test_the_package_is_typed() -> None:
    assert (PACKAGE / "py.typed").exists()
    assert docnav.__version__ == "0.1.0"
