"""Dataset import -> changelog: a benchmark's dataset version imported (or made current) by the catalog,
and the board's changelog row for it written in the same transaction (history)."""

from __future__ import annotations

from pathlib import Path

from leaderboard.catalog import services as catalog
from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.history.changelog import changelog_dataset_version


def _added(version: DatasetVersion) -> None:
    changelog_dataset_version(version=version, added=True)


def _made_current(version: DatasetVersion) -> None:
    changelog_dataset_version(version=version, added=False)


def dataset_version_import(
    *, benchmark: Benchmark, release_path: Path, tag: str, make_current: bool = True
) -> DatasetVersion:
    """``catalog.services.dataset_version_import``, with the board's changelog row ("added", and "made
    current" when it is)."""
    return catalog.dataset_version_import(
        benchmark=benchmark, release_path=release_path, tag=tag, make_current=make_current, stored=_added
    )


def dataset_version_make_current(*, version: DatasetVersion) -> DatasetVersion:
    """``catalog.services.dataset_version_make_current``, with the board's changelog row when it changed."""
    return catalog.dataset_version_make_current(version=version, changed=_made_current)
