"""Table-driven tests of the Multi-LCB output comparison rule (evaluators/multi_lcb/compare.py).

The edge-case table lives in docs/multi-lcb-output-comparison.md, which users read; every row is
checked here against the site's rule and against small models of LiveCodeBench's and Multi-LCB's
published comparisons, so the page's claims about all three stay true.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pytest

from evaluators.multi_lcb.compare import first_mismatch, outputs_match

DOC = Path(__file__).resolve().parents[2] / "docs" / "multi-lcb-output-comparison.md"


def _table() -> list[tuple[str, str, bool, bool, bool, str]]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split("<!-- comparison-table", 1)[1].split("<!-- end comparison-table -->", 1)[0]
    rows = []
    for line in body.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 6 or not cells[0].startswith("`"):
            continue
        output, expected = (json.loads(cell.strip("`")) for cell in cells[:2])
        lcb, mlcb, site = (cell == "yes" for cell in cells[2:5])
        assert all(cell in ("yes", "no") for cell in cells[2:5]), line
        rows.append((output, expected, lcb, mlcb, site, cells[5]))
    return rows


TABLE = _table()


def _lines(text: str) -> list[str]:
    stripped = text.strip()
    return [line.strip() for line in stripped.split("\n")] if stripped else []


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except InvalidOperation:
        return None


def lcb_matches(output: str, expected: str) -> bool:
    """LiveCodeBench's stdio check: equal text, or lists of Decimals exactly equal."""
    got, want = _lines(output), _lines(expected)
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if g == w:
            continue
        a, b = _decimals(g), _decimals(w)
        if a is None or b is None or a != b:
            return False
    return True


def multi_lcb_matches(output: str, expected: str) -> bool:
    """Multi-LCB's check: equal text, the whole-line boolean alias, or Decimal tokens (no NaN) that
    math.isclose accepts with abs_tol=1e-5 and rel_tol=0 (which converts them to floats)."""
    got, want = _lines(output), _lines(expected)
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if (
            g == w
            or (g in ("True", "true") and w in ("True", "true"))
            or (g in ("False", "false") and w in ("False", "false"))
        ):
            continue
        a, b = _decimals(g), _decimals(w)
        if a is None or b is None or len(a) != len(b) or any(x.is_nan() for x in a + b):
            return False
        if not all(math.isclose(x, y, abs_tol=1e-5, rel_tol=0) for x, y in zip(a, b)):
            return False
    return True


def test_the_published_table_has_the_edge_cases() -> None:
    assert len(TABLE) >= 40
    assert ("1e20", "100000000000000000001", False, True, False, "exact here: Multi-LCB rounds to floats") in TABLE


@pytest.mark.parametrize(
    "output,expected,lcb,mlcb,site,note", TABLE, ids=[f"{row[0]!r} vs {row[1]!r}" for row in TABLE]
)
def test_published_table(output: str, expected: str, lcb: bool, mlcb: bool, site: bool, note: str) -> None:
    assert outputs_match(output, expected) is site, note
    assert (first_mismatch(output, expected) is None) is site
    assert lcb_matches(output, expected) is lcb, "the LiveCodeBench column is wrong"
    assert multi_lcb_matches(output, expected) is mlcb, "the Multi-LCB column is wrong"
    if site != mlcb:
        assert note.startswith("exact here"), "a difference from Multi-LCB must say why"


def test_numbers_far_apart_are_cheap_and_never_rounded_into_a_match() -> None:
    assert not outputs_match("1e999999999999", "1")
    assert not outputs_match("1e-999999999999", "0.00002")
    assert outputs_match("1e-999999999999", "0")
    assert outputs_match("1" + "0" * 5000 + ".000001", "1e5000")  # exactly within 1e-5 at 5,001 digits
    assert not outputs_match("1" + "0" * 5000 + ".00002", "1e5000")


def test_the_tolerance_boundary_is_multi_lcbs() -> None:
    # worked by hand from the doubles nearest each number (math.isclose converts the Decimals): the double
    # nearest 2.00001 is 0x1.000053e2d6239p+1 = 2.0000100000000000655..., so the difference from 2 is
    # 1.00000000000006551e-05, above the double nearest 1e-5 (1.0000000000000000818e-05): too far, while
    # exact decimal arithmetic puts the two exactly 1e-5 apart (which passed here before issue 49)
    assert not outputs_match("2.00001", "2")
    assert not outputs_match("2", "2.00001")
    assert not outputs_match("1 2.00001", "1 2")
    # 0.10001 and 0.1 round to 0.10001000000000000111... and 0.10000000000000000555...: 9.999999999996e-06 apart
    assert outputs_match("0.10001", "0.1")


FUNCTIONAL: list[tuple[str, str, bool]] = [
    # LeetCode-style tests: the expected output is the JSON text of the return value in Python's layout,
    # compared by the line rule, as Multi-LCB compares its converted tests (never as JSON values)
    ("[1, 2, 3]", "[1, 2, 3]", True),
    ("[1,2,3]", "[1, 2, 3]", False),
    ("[1.000001, 2]", "[1, 2]", False),
    ("[0.1000001]", "[0.1]", False),
    ('"abc"', '"abc"', True),
    ("true", "true", True),
    ("True", "true", True),
    ("1", "true", False),
    ("5.000001", "5", True),
    ("not json", "[1]", False),
]


@pytest.mark.parametrize("actual,expected,match", FUNCTIONAL)
def test_functional_outputs_by_the_line_rule(actual: str, expected: str, match: bool) -> None:
    assert outputs_match(actual, expected) is match


def test_mismatch_reason_names_line() -> None:
    assert first_mismatch("1\n5\n3", "1\n2\n3") == "line 2 differs"
    assert first_mismatch("1", "1\n2") == "expected 2 line(s), got 1"
