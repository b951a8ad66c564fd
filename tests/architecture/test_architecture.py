"""The layering docs/architecture.md describes, checked on the source: imports flow one way (no
cycle, counting imports inside functions, relative imports and those under ``TYPE_CHECKING`` too) and
the engine never imports Django or the site. The app order is checked in test_app_order.py."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("leaderboard", "evaluators", "workers")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts and "data" not in path.relative_to(ROOT / package).parts:
                found[_module_name(path)] = path
    return found


@dataclass(frozen=True)
class Import:
    """One module name an import statement names: ``from a import b`` names ``a`` and ``a.b``; a relative
    import is resolved against the importing module's package."""

    name: str
    line: int
    relative: bool = False
    type_checking: bool = False  # under ``if TYPE_CHECKING:``: not run, but still a dependency of the code


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """The line numbers of the import statements under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        ):
            lines.update(
                inner.lineno
                for stmt in node.body
                for inner in ast.walk(stmt)
                if isinstance(inner, (ast.Import, ast.ImportFrom))
            )
    return lines


def imports_in(source: str, module: str, is_package: bool = False) -> list[Import]:
    """Every import in ``source``, the text of ``module`` (a package's ``__init__`` when ``is_package``)."""
    tree = ast.parse(source)
    guarded = _type_checking_lines(tree)
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, node.lineno, type_checking=node.lineno in guarded) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            flags = {"relative": node.level > 0, "type_checking": node.lineno in guarded}
            if node.module:  # "from . import x" names the sibling x, not the package (its __init__ imports x too)
                found.append(Import(target, node.lineno, **flags))
            found.extend(Import(f"{target}.{alias.name}", node.lineno, **flags) for alias in node.names)
    return found


def module_imports(path: Path) -> list[Import]:
    return imports_in(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")


def _imported(path: Path) -> set[str]:
    """Every absolute module name an import statement anywhere in the file names (``from a import b``
    names ``a`` and ``a.b``; relative imports resolved, those under ``TYPE_CHECKING`` included)."""
    return {found.name for found in module_imports(path)}


def _graph_of(imports: dict[str, list[Import]], *, type_checking: bool = True) -> dict[str, set[str]]:
    """Module -> the modules among ``imports``' keys it imports, from each module's imports
    (``type_checking=False``: leaving out those under ``TYPE_CHECKING``)."""
    return {
        name: {
            found.name
            for found in found_imports
            if found.name in imports and found.name != name and (type_checking or not found.type_checking)
        }
        for name, found_imports in imports.items()
    }


def _graph(*, type_checking: bool = True) -> dict[str, set[str]]:
    """The project's modules -> the modules they import (see ``_graph_of``)."""
    return _graph_of({name: module_imports(path) for name, path in _modules().items()}, type_checking=type_checking)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
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
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_imports_flow_one_way() -> None:
    # no circle at all, not even one closed only by imports under TYPE_CHECKING (the sandbox's children held
    # the whole Sandbox, named for the type checker, until they were given its Host: issue 48 point 3)
    assert _cycles(_graph(type_checking=False)) == []
    assert _cycles(_graph()) == []


def test_a_circle_closed_only_for_the_type_checker_is_caught() -> None:
    # the sandbox's old shape, in small: the Sandbox makes programs, and a program names the Sandbox for the
    # type checker only (nothing fails at import time)
    sources = {
        "pkg.sandbox": "from .programs import Program\nfrom .host import Host\n",
        "pkg.programs": (
            "from typing import TYPE_CHECKING\nfrom .host import Host\n"
            "if TYPE_CHECKING:\n    from .sandbox import Sandbox\n"
        ),
        "pkg.host": "import os\n",
    }
    imports = {name: imports_in(source, name) for name, source in sources.items()}
    assert _cycles(_graph_of(imports)) == [["pkg.programs", "pkg.sandbox"]]
    assert _cycles(_graph_of(imports, type_checking=False)) == []  # the run-time graph alone would miss it


def test_relative_and_type_checking_imports_are_read() -> None:
    source = (
        "from typing import TYPE_CHECKING\nfrom . import sibling\nfrom ..other import thing\n"
        "if TYPE_CHECKING:\n    from pkg.sub.deep import Kind\n"
    )
    found = {(i.name, i.relative, i.type_checking) for i in imports_in(source, "pkg.sub.mod")}
    assert {
        ("pkg.sub.sibling", True, False),
        ("pkg.other", True, False),
        ("pkg.other.thing", True, False),
        ("pkg.sub.deep", False, True),
    } <= found
    # in a package's __init__, "." is the package itself
    assert ("pkg.sub.x", True, False) in {
        (i.name, i.relative, i.type_checking) for i in imports_in("from .x import y", "pkg.sub", True)
    }


def test_relative_and_type_checking_imports_are_counted() -> None:
    # the sandbox's relative imports and the TYPE_CHECKING imports are in the graph the tests above check:
    # a circle closed under TYPE_CHECKING is only seen through them
    found = [i for path in _modules().values() for i in module_imports(path)]
    relative = [i for i in found if i.relative]
    assert relative and all(i.name.startswith("evaluators.sandbox") for i in relative), (
        "relative imports outside the sandbox"
    )
    assert any(i.type_checking for i in found)


def test_the_engine_never_imports_django_or_the_site() -> None:
    offenders = {
        name: sorted(
            i
            for i in _imported(path)
            if i.split(".")[0] in {"django", "rest_framework", "leaderboard", "workers", "celery"}
        )
        for name, path in _modules().items()
        if name.startswith("evaluators")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


#: modules over 500 lines, with their length when listed: most were taken past it by ruff format (one argument
#: or element a line where a call or a literal does not fit), the rest by this session's work on them (the
#: sandbox's session reuse and mount table, the ratings' named parts); a listed module may not grow, and its
#: entry goes when it is split (the test fails on an entry no longer needed)
LONG_MODULES: dict[str, int] = {}  # empty: every module is within the limit


def test_no_module_grows_past_500_lines() -> None:
    # a module that long mixes concerns (the arena's services were 962 lines before they were split, the
    # sandbox's core 1,516); the site and the engine alike, a benchmark's data generators aside
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}
    assert {name: n for name, n in lengths.items() if n > LONG_MODULES.get(name, 500)} == {}
    assert sorted(name for name in LONG_MODULES if lengths.get(name, 0) <= 500) == []


def _hook_probes(source: str) -> list[str]:
    """``getattr(x, "hook")`` / ``hasattr(x, "hook")`` calls in ``source`` whose string names a member of
    the Evaluator base class or of a capability it returns (an optional one must be called, so the type
    checker sees it)."""
    from evaluators.core.evaluator import Conversation, Evaluator, Generation, JudgeUse, Presentation, ScoredByJudge

    members = {
        name
        for cls in (Evaluator, ScoredByJudge, Presentation, Conversation, Generation, JudgeUse)
        for name in dir(cls)
        if not name.startswith("__")
    } | {"role", "judged", "validate", "server", "modality"}
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in members
        ):
            found.append(f"{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


def test_the_probe_finder_finds_a_probe() -> None:
    assert _hook_probes(
        'x = getattr(evaluator, "method_notes", None)\nhasattr(e, "follow_up")\ngetattr(r, "user")'
    ) == ["1: getattr(..., 'method_notes')", "2: hasattr(..., 'follow_up')"]


def test_no_code_probes_an_evaluator_for_a_hook() -> None:
    found = {
        name: probes for name, path in _modules().items() if (probes := _hook_probes(path.read_text(encoding="utf-8")))
    }
    assert found == {}
