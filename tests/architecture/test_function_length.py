"""No production function (the site, the engine, the workers; not the tests, not the migrations) grows past
80 lines: one that long does several things, and each part reads better under its own name. A function
still being split is named below with its length, and the list only shrinks."""

from __future__ import annotations

import ast
import textwrap

from tests.architecture.test_architecture import ROOT, _modules

LIMIT = 80

#: the functions over the limit still being split (issue 48), each with its length when listed: a listed
#: function may not grow, and its entry goes when it is split (the test fails on an entry no longer needed)
STILL_OVER: dict[str, int] = {}  # empty: every production function is within the limit


def _function_lengths(source: str, where: str) -> dict[str, int]:
    """``where:Qualified.name`` -> lines from ``def`` to the function's last line (its docstring and
    nested functions included, its decorators not), for every function and method in ``source``."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                lengths[f"{where}:{name}"] = (child.end_lineno or child.lineno) - child.lineno + 1
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return lengths


def _too_long(source: str, where: str) -> dict[str, int]:
    return {name: n for name, n in _function_lengths(source, where).items() if n > LIMIT}


def _function(name: str, lines: int) -> str:
    """A function of ``lines`` lines: its ``def``, assignments, and a return."""
    return f"def {name}():\n" + "".join(f"    x{i} = {i}\n" for i in range(lines - 2)) + "    return 0\n\n\n"


def test_the_length_check_finds_a_long_function() -> None:
    method = textwrap.indent(_function("render", LIMIT + 5), "    ")
    source = _function("short", 2) + _function("long", LIMIT + 1) + _function("edge", LIMIT) + "class Page:\n" + method
    assert _too_long(source, "m.py") == {"m.py:long": LIMIT + 1, "m.py:Page.render": LIMIT + 5}
    assert _function_lengths(source, "m.py")["m.py:short"] == 2


def test_no_production_function_grows_past_80_lines() -> None:
    found: dict[str, int] = {}
    for path in _modules().values():
        found.update(_too_long(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()))
    assert {name: n for name, n in found.items() if n > STILL_OVER.get(name, LIMIT)} == {}
    # a split function leaves the list (its entry would otherwise excuse the next long version of it)
    assert sorted(name for name in STILL_OVER if name not in found) == []
