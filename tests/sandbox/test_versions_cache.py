"""Toolchain versions are probed once per toolchain state, not at every command-line call: kept on
disk beside the toolchains under a fingerprint, asked again when a toolchain folder changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluators.sandbox import command, versions


@pytest.fixture
def probes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []
    (tmp_path / "go").mkdir()
    monkeypatch.setattr(command, "TOOLCHAINS", tmp_path)
    monkeypatch.setattr(versions, "Sandbox", lambda: None)
    monkeypatch.setattr(versions, "_probe", lambda sandbox, key: asked.append(key) or f"{key} 1.0")
    monkeypatch.setattr(versions, "_cache", None)
    return asked


def test_a_second_process_reads_the_versions_instead_of_probing(probes: list[str], tmp_path: Path) -> None:
    first = versions.toolchain_versions()
    assert len(probes) == len(versions.LANGUAGES) and first["go"] == "go 1.0"
    versions._cache = None  # as a new process would start
    assert versions.toolchain_versions() == first and len(probes) == len(versions.LANGUAGES)  # no new probe
    assert (tmp_path / versions.CACHE_NAME).is_file()


def test_a_changed_toolchain_is_probed_again(probes: list[str], tmp_path: Path) -> None:
    versions.toolchain_versions()
    stat = (tmp_path / "go").stat()
    os.utime(tmp_path / "go", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # reinstalled
    versions._cache = None
    versions.toolchain_versions()
    assert len(probes) == 2 * len(versions.LANGUAGES)


def test_an_unavailable_toolchain_is_not_kept(
    probes: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(versions, "_probe", lambda sandbox, key: probes.append(key) or "unavailable")
    versions.toolchain_versions()
    assert not (tmp_path / versions.CACHE_NAME).exists()
