"""The app order ``leaderboard.layers`` declares, checked on the source: every module of the site and the
workers has a layer, and an import goes only to its own layer or one below (relative imports and those
under ``TYPE_CHECKING`` or inside functions count too); the imports that still go up are the ones
``layers.UPWARD`` names with their reason, at most one, and the checker catches one that is not."""

from __future__ import annotations

from leaderboard.layers import LAYERS, SITE_PARTS, UPWARD
from tests.architecture.test_architecture import _modules, module_imports

RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}


def layer_of(module: str) -> str | None:
    """The layer of ``module``: ``site`` for an app's URL map or management commands, else the layer of
    the longest prefix that names it; None when none does."""
    parts = module.split(".")
    if module.startswith("leaderboard.") and any(part in SITE_PARTS for part in parts[2:]):
        return "site"
    best: tuple[int, str] | None = None
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), name)
    return best[1] if best else None


def upward(graph: dict[str, set[str]]) -> dict[tuple[str, str], str]:
    """(importer, imported) -> "importer layer -> imported layer" for every import that goes up the order."""
    found = {}
    for module, imported in graph.items():
        low = layer_of(module)
        for other in imported:
            high = layer_of(other)
            if low is not None and high is not None and RANK[high] > RANK[low]:
                found[(module, other)] = f"{low} -> {high}"
    return found


def _site_graph() -> dict[str, set[str]]:
    """The site's and the workers' modules -> the site's and the workers' modules they import (a module
    imported by ``from a import b`` is counted once, as ``a.b`` where that is a module)."""
    modules = {name: path for name, path in _modules().items() if name.split(".")[0] in {"leaderboard", "workers"}}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        names = {found.name for found in module_imports(path)}
        graph[name] = {
            other
            for other in names
            if other in modules
            and other != name
            and not any(more.startswith(other + ".") and more in modules for more in names)
        }
    return graph


def test_every_module_of_the_site_has_a_layer() -> None:
    unplaced = [name for name in _site_graph() if name != "leaderboard" and layer_of(name) is None]
    assert unplaced == []


def test_the_order_checker_catches_an_import_up_the_order() -> None:
    graph = {
        "leaderboard.catalog.services": {"leaderboard.runs.models", "leaderboard.accounts.policy"},
        "leaderboard.runs.services.intake": {"leaderboard.catalog.services"},
        "leaderboard.catalog.urls": {"leaderboard.runs.views"},
        "leaderboard.runs.management.commands.x": {"leaderboard.chains.demo"},
    }
    assert upward(graph) == {("leaderboard.catalog.services", "leaderboard.runs.models"): "catalog -> runs"}


def test_the_apps_import_only_down_the_order() -> None:
    found = upward(_site_graph())
    assert set(found) == set(UPWARD), {
        key: found.get(key, "named in layers.UPWARD but gone") for key in set(found) ^ set(UPWARD)
    }
    assert len(UPWARD) <= 1
