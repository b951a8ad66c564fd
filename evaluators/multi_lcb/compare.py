"""Output comparison for Multi-LCB: decides whether a program's stdout matches a test's expected output.

The rule, its reasons and a table of edge cases are in docs/multi-lcb-output-comparison.md (the table
is checked by tests/multi_lcb/test_compare.py). In short, it is Multi-LCB's rule (its harness's
``match_tests_groud_truth``): strip the whole output, split it on newlines, strip each line; the line
counts must agree and every line must match, where two lines match when they are equal, or when each is
exactly ``True``/``true`` (or ``False``/``false``), or when both are the same number of
whitespace-separated tokens that all parse as decimal numbers (Python's ``Decimal`` syntax, NaN
excluded) and agree pairwise within an absolute 1e-5 as ``math.isclose(a, b, abs_tol=1e-5, rel_tol=0)``
decides on them (in binary floating point, so ``2.00001`` is not within 1e-5 of ``2``). One difference,
never in a program's favour: the pair must also be within 1e-5 in exact decimal arithmetic, because
floating point rounds ``1e20`` and ``100000000000000000001`` to the same number.

Functional (LeetCode-style) tests are compared by the same rule: their expected output is the JSON text
of the return value (``[1, 2]``), and the prompt asks for exactly that layout.
"""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, ROUND_UP, Context, Decimal, InvalidOperation

#: the rule in a paragraph, for the leaderboard page (docs/multi-lcb-output-comparison.md has it all)
RULE_SUMMARY = (
    "A test passes when the program exits with status 0 within its limits and its output matches. "
    "Both outputs are stripped, split on newlines and stripped line by line; the line counts must agree, "
    "and two lines match when they are the same text, when each is exactly True/true (or False/false), "
    "or when both are the same number of numeric tokens that agree within an absolute 1e-5 (checked as "
    "Multi-LCB checks it, in floating point, so 2.00001 is not within 1e-5 of 2). Multi-LCB's rule, with one "
    "addition: the numbers must also agree in exact decimal arithmetic, since floating point makes 1e20 equal "
    "to 100000000000000000001. A LeetCode-style answer prints the return value as the JSON text the test "
    "expects, and is compared by the same rule."
)

ABSOLUTE_TOLERANCE = Decimal("1e-5")
#: the tolerance as Multi-LCB's harness passes it to math.isclose (the double nearest 1e-5)
FLOAT_TOLERANCE = 1e-5
#: digits of precision beyond which the difference of two numbers is rounded up (away from zero)
#: instead of computed exactly: only tokens whose magnitudes lie more than 4,096 decimal places apart
#: (such as ``1e9999`` against ``1``) reach it, and rounding up can only turn a match within a
#: 10**-4096 relative hair of the tolerance into a mismatch
EXACT_DIGITS = 4096
_BOOL_ALIASES: tuple[frozenset[str], ...] = (frozenset({"True", "true"}), frozenset({"False", "false"}))


def normalize_lines(text: str) -> list[str]:
    """Strip the whole text, split it on newlines and strip each line (LiveCodeBench's rule: only
    ``\\n`` ends a line, so a form feed or U+2028 inside a line stays part of it)."""
    stripped = text.strip()
    if not stripped:
        return []
    return [line.strip() for line in stripped.split("\n")]


def parse_number(token: str) -> Decimal | None:
    """The token's value if it is a decimal number (``12``, ``-0.5``, ``1e-9``, ``1_000``, ``inf``;
    not NaN, not hex), else None."""
    try:
        value = Decimal(token)
    except (InvalidOperation, ValueError):
        return None
    return None if value.is_nan() else value


def numbers_close(a: Decimal, b: Decimal, tolerance: Decimal = ABSOLUTE_TOLERANCE) -> bool:
    """Whether ``a`` and ``b`` agree within ``tolerance`` both as Multi-LCB's harness decides it
    (``float_close``) and exactly (``exactly_close``)."""
    return float_close(a, b, float(tolerance)) and exactly_close(a, b, tolerance)


def float_close(a: Decimal, b: Decimal, tolerance: float = FLOAT_TOLERANCE) -> bool:
    """Multi-LCB's check, ``math.isclose(a, b, abs_tol=1e-5, rel_tol=0)`` on the two Decimals: both are
    rounded to the nearest double and the double difference is compared with the double nearest 1e-5,
    so the boundary is that of the doubles (``2.00001`` is 1.0000000000065512e-05 from ``2``: too far;
    ``0.10001`` is 9.999999999996123e-06 from ``0.1``: close enough)."""
    return math.isclose(float(a), float(b), rel_tol=0.0, abs_tol=tolerance)


def exactly_close(a: Decimal, b: Decimal, tolerance: Decimal = ABSOLUTE_TOLERANCE) -> bool:
    """Whether ``|a - b| <= tolerance``, computed without rounding (see EXACT_DIGITS)."""
    if a == b:
        return True
    if a.is_infinite() or b.is_infinite():
        return False
    exponent_a, exponent_b = a.as_tuple().exponent, b.as_tuple().exponent
    assert isinstance(exponent_a, int) and isinstance(exponent_b, int)  # finite numbers
    top = max(a.adjusted(), b.adjusted(), tolerance.adjusted())
    bottom = min(exponent_a, exponent_b)
    context = Context(
        prec=max(1, min(top - bottom + 2, EXACT_DIGITS)), rounding=ROUND_UP, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[]
    )
    return context.subtract(a, b).copy_abs() <= tolerance


def tokens_match_numerically(actual: list[str], expected: list[str], tolerance: Decimal = ABSOLUTE_TOLERANCE) -> bool:
    """True when both token lists have the same length, all tokens are numbers and they agree."""
    if len(actual) != len(expected) or not expected:
        return False
    for got, want in zip(actual, expected):
        a, b = parse_number(got), parse_number(want)
        if a is None or b is None or not numbers_close(a, b, tolerance):
            return False
    return True


def lines_match(actual: str, expected: str) -> bool:
    """Whether one stripped output line matches one stripped expected line."""
    if actual == expected:
        return True
    if any(actual in alias and expected in alias for alias in _BOOL_ALIASES):
        return True
    return tokens_match_numerically(actual.split(), expected.split())


def first_mismatch(actual: str, expected: str) -> str | None:
    """None when ``actual`` matches ``expected`` under the line rule, else a short reason."""
    got, want = normalize_lines(actual), normalize_lines(expected)
    if len(got) != len(want):
        return f"expected {len(want)} line(s), got {len(got)}"
    for number, (g, w) in enumerate(zip(got, want), start=1):
        if not lines_match(g, w):
            return f"line {number} differs"
    return None


def outputs_match(actual: str, expected: str) -> bool:
    """The Multi-LCB comparison of a program's stdout with a test's expected output."""
    return first_mismatch(actual, expected) is None
