"""The layering docs/architecture.md describes, checked on the source: imports flow one way (no
cycle, counting imports inside functions too) and the engine never imports Django or the site."""
from __future__ import annotations

import ast
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


def _imported(path: Path) -> set[str]:
    """Every absolute module name an import statement anywhere in the file names (``from a import b``
    names ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {other for other in _imported(path) if other in modules and other != name} for name, path in modules.items()}


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
    assert _cycles(_graph()) == []


def test_the_engine_never_imports_django_or_the_site() -> None:
    offenders = {name: sorted(i for i in _imported(path) if i.split(".")[0] in {"django", "rest_framework", "leaderboard", "workers", "celery"})
                 for name, path in _modules().items() if name.startswith("evaluators")}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_no_module_grows_past_500_lines() -> None:
    # a module that long mixes concerns (the arena's services were 962 lines before they were split, the
    # sandbox's core 1,516); the site and the engine alike, a benchmark's data generators aside
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}
    assert {name: n for name, n in lengths.items() if n > 500} == {}


def _hook_probes(source: str) -> list[str]:
    """``getattr(x, "hook")`` / ``hasattr(x, "hook")`` calls in ``source`` whose string names a member of
    the Evaluator base class or of a capability it returns (an optional one must be called, so the type
    checker sees it)."""
    from evaluators.core.evaluator import Conversation, Evaluator, Generation, JudgeUse, Presentation, ScoredByJudge

    members = {name for cls in (Evaluator, ScoredByJudge, Presentation, Conversation, Generation, JudgeUse)
               for name in dir(cls) if not name.startswith("__")} | {"role", "judged", "validate", "server", "modality"}
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value in members):
            found.append(f"{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return found


def test_the_probe_finder_finds_a_probe() -> None:
    assert _hook_probes('x = getattr(evaluator, "method_notes", None)\nhasattr(e, "follow_up")\ngetattr(r, "user")') == [
        "1: getattr(..., 'method_notes')", "2: hasattr(..., 'follow_up')"]


def test_no_code_probes_an_evaluator_for_a_hook() -> None:
    found = {name: probes for name, path in _modules().items() if (probes := _hook_probes(path.read_text(encoding="utf-8")))}
    assert found == {}
