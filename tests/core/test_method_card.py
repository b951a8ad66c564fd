"""The method card's row type: a deviation cannot be listed without its reason."""

from __future__ import annotations

import pytest

from evaluators.core import ProtocolRow


def test_a_row_that_differs_needs_a_reason() -> None:
    with pytest.raises(ValueError, match="why"):
        ProtocolRow("Judge prompt", "graded bands 0-3 / 4-6 / 7-9", "one-line band list")


def test_a_row_as_released_needs_none_and_does_not_deviate() -> None:
    row = ProtocolRow("Temperature", "0", "as released")
    assert not row.deviates
    assert row.to_dict() == {
        "element": "Temperature",
        "released": "0",
        "here": "as released",
        "why": "",
        "source": "",
        "deviates": False,
    }


def test_a_row_that_differs_with_its_reason_deviates() -> None:
    row = ProtocolRow("Retries", "up to 10, then 4", "1, then 0", why="cost")
    assert row.deviates


@pytest.mark.parametrize("field", ["element", "released", "here"])
def test_empty_fields_are_refused(field: str) -> None:
    values = {"element": "Prompt", "released": "x", "here": "as released"}
    values[field] = "  "
    with pytest.raises(ValueError, match=field):
        ProtocolRow(**values)
