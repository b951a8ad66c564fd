"""Table-driven tests of the Multi-LCB output comparison rule (evaluators/multi_lcb/compare.py)."""
from __future__ import annotations

import pytest

from evaluators.multi_lcb.compare import first_mismatch, outputs_match

CASES: list[tuple[str, str, bool, str]] = [
    # (actual, expected, match, why)
    ("8\n", "8\n", True, "identical"),
    ("8", "8\n", True, "trailing newline ignored"),
    ("  8  \n\n", "8", True, "whole output stripped"),
    ("1 2\r\n3 4\r\n", "1 2\n3 4\n", True, "CRLF lines"),
    ("a b  \n  c", "a b\nc", True, "each line stripped"),
    ("", "", True, "both empty"),
    ("\n\n", "", True, "only whitespace is empty"),
    ("", "0", False, "missing output"),
    ("1\n2", "1 2", False, "line count differs"),
    ("1\n2\n3", "1\n2", False, "extra line"),
    ("1\n\n2", "1\n2", False, "blank line inside counts"),
    ("Yes", "yes", False, "words are case sensitive"),
    ("True", "true", True, "True/true alike"),
    ("false", "False", True, "false/False alike"),
    ("TRUE", "true", False, "only True/true and False/false"),
    ("true", "false", False, "booleans still compared"),
    ("True False", "true false", True, "boolean tokens"),
    ("1.0", "1", True, "numbers: 1.0 == 1"),
    ("0.333333", "0.3333333333", True, "within 1e-5"),
    ("0.33332", "0.33334", False, "difference 2e-5"),
    ("0.3333", "0.33334", False, "difference 4e-5"),
    ("1e-6", "0", True, "exponent notation"),
    ("-0", "0", True, "negative zero"),
    ("007", "7", True, "leading zeros"),
    ("1 2.000001 3", "1 2 3", True, "all tokens numeric"),
    ("1 2 3", "1 2", False, "token count differs"),
    ("nan", "nan", True, "identical text is equal even if not a number"),
    ("nan", "0", False, "NaN is not a number"),
    ("inf", "1e400", False, "no infinities"),
    ("1_000", "1000", False, "no underscores"),
    ("0x10", "16", False, "no hex"),
    ("12345678901234567890123", "12345678901234567890124", False, "big integers exact"),
    ("12345678901234567890123", "12345678901234567890123.0", True, "big int vs float within tolerance"),
    ("3 apples", "3.0 apples", False, "mixed tokens need exact equality"),
    ("2000000000", "2000000000\n", True, "plain integer"),
    ("-5", "-5.000001", True, "negative float tolerance"),
]


@pytest.mark.parametrize("actual,expected,match,why", CASES, ids=[c[3] for c in CASES])
def test_outputs_match(actual: str, expected: str, match: bool, why: str) -> None:
    assert outputs_match(actual, expected) is match, why
    assert (first_mismatch(actual, expected) is None) is match


FUNCTIONAL: list[tuple[str, str, bool]] = [
    ("[1,2,3]", "[1, 2, 3]", True),
    ("[1, 2]", "[1, 2, 3]", False),
    ('"abc"', '"abc"', True),
    ("true", "true", True),
    ("True", "true", True),
    ("1", "true", False),
    ("[0.1000001]", "[0.1]", True),
    ("[[1],[2]]", "[[1], [2]]", True),
    ("not json", "[1]", False),
]


@pytest.mark.parametrize("actual,expected,match", FUNCTIONAL)
def test_functional_json_equivalence(actual: str, expected: str, match: bool) -> None:
    assert outputs_match(actual, expected, functional=True) is match


def test_json_equivalence_only_for_functional_tests() -> None:
    assert not outputs_match("[1,2]", "[1, 2]")
    assert outputs_match("[1,2]", "[1, 2]", functional=True)


def test_mismatch_reason_names_line() -> None:
    assert first_mismatch("1\n5\n3", "1\n2\n3") == "line 2 differs"
    assert first_mismatch("1", "1\n2") == "expected 2 line(s), got 1"
