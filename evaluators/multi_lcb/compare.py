"""Output comparison for Multi-LCB: decides whether a program's stdout matches a test's expected output.

The rule is the one in docs/benchmarks/multi-lcb.md: strip the whole output, split it into lines,
strip each line; the line counts must agree and every line must match, where two lines match when
they are equal, or equal once ``True``/``true`` and ``False``/``false`` are treated alike, or when
every whitespace-separated token of both lines is a finite number and corresponding numbers agree
within an absolute 1e-5 (integers are compared exactly, so huge integers are never rounded).

For functional (LeetCode-style) tests, whose expected output is one JSON value, ``outputs_match``
additionally accepts output that parses to the same JSON value (so ``[1,2]`` matches ``[1, 2]``);
this only ever accepts more, never less, than the line rule.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

ABSOLUTE_TOLERANCE = 1e-5

_INT_RE = re.compile(r"[+-]?\d+\Z")
_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_BOOL_CANON = {"True": "true", "true": "true", "False": "false", "false": "false"}


def normalize_lines(text: str) -> list[str]:
    """Strip the whole text, split it into lines and strip each line."""
    stripped = text.strip()
    if not stripped:
        return []
    return [line.strip() for line in stripped.splitlines()]


def _canonical_int(token: str) -> str:
    sign = "-" if token.startswith("-") else ""
    digits = token.lstrip("+-").lstrip("0") or "0"
    return ("" if digits == "0" else sign) + digits


def _as_float(token: str) -> float | None:
    """The token's value if it is a plain finite decimal number (no NaN, inf, underscores or hex)."""
    if not _NUMBER_RE.match(token):
        return None
    try:
        value = float(token)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def tokens_match_numerically(actual: list[str], expected: list[str], tolerance: float = ABSOLUTE_TOLERANCE) -> bool:
    """True when both token lists have the same length, all tokens are numbers and they agree."""
    if len(actual) != len(expected) or not expected:
        return False
    for got, want in zip(actual, expected):
        if _INT_RE.match(got) and _INT_RE.match(want):
            if _canonical_int(got) != _canonical_int(want):
                return False
            continue
        a, b = _as_float(got), _as_float(want)
        if a is None or b is None or abs(a - b) > tolerance:
            return False
    return True


def lines_match(actual: str, expected: str) -> bool:
    """Whether one stripped output line matches one stripped expected line."""
    if actual == expected:
        return True
    got, want = actual.split(), expected.split()
    if len(got) == len(want) and got and all(g in _BOOL_CANON for g in got) and all(w in _BOOL_CANON for w in want):
        if [_BOOL_CANON[g] for g in got] == [_BOOL_CANON[w] for w in want]:
            return True
    return tokens_match_numerically(got, want)


def first_mismatch(actual: str, expected: str) -> str | None:
    """None when ``actual`` matches ``expected`` under the line rule, else a short reason."""
    got, want = normalize_lines(actual), normalize_lines(expected)
    if len(got) != len(want):
        return f"expected {len(want)} line(s), got {len(got)}"
    for number, (g, w) in enumerate(zip(got, want), start=1):
        if not lines_match(g, w):
            return f"line {number} differs"
    return None


def _json_equal(a: Any, b: Any, tolerance: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= tolerance
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y, tolerance) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k], tolerance) for k in a)
    return type(a) is type(b) and a == b


def json_values_match(actual: str, expected: str, tolerance: float = ABSOLUTE_TOLERANCE) -> bool:
    """Whether both texts parse as single JSON values that are equal (numbers within tolerance)."""
    try:
        got = json.loads(actual.strip(), parse_constant=_reject_constant)
        want = json.loads(expected.strip(), parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return False
    return _json_equal(got, want, tolerance)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def outputs_match(actual: str, expected: str, *, functional: bool = False) -> bool:
    """The Multi-LCB comparison of a program's stdout with a test's expected output."""
    if first_mismatch(actual, expected) is None:
        return True
    return functional and json_values_match(actual, expected)
