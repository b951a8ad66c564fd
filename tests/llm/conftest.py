"""Fixtures for the model engine's tests: a tiny model created once per session (reusable by any
test that needs real weights: depend on ``tiny_model_dir``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.llm.tiny import create_tiny_model


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-layer Llama model with its tokenizer and chat template, made here (no hub)."""
    return create_tiny_model(tmp_path_factory.mktemp("models") / "tiny-llama")
