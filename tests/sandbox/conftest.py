"""Shared fixtures for the sandbox tests (no Django)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from evaluators.sandbox import Sandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """One sandbox for the session, closed at its end (its warm compilers and their cgroups)."""
    shared = Sandbox()
    yield shared
    shared.close()
