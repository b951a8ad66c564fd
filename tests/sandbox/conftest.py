"""Shared fixtures for the sandbox tests (no Django)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from evaluators.sandbox import Sandbox  # noqa: E402


@pytest.fixture(scope="session")
def sandbox() -> Sandbox:
    return Sandbox()
