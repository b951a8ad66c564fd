"""PoliCon's vote, table-driven: exact thresholds, ties, the veto, welfare scores, and the cases where
float arithmetic (PoliCon's released code) flips an outcome and ours does not."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from evaluators.policon.voting import vote

# (seat tenths, votes, veto index) -> (support10, SM, 2/3M, VP, Rawls, Util)
CASES = [
    # exactly half the points: SM passes (u >= 5)
    ((5, 5), (5, 5), 0, (50, True, False, False, 5, Fraction(5))),
    ((5, 5), (9, 1), 0, (50, True, False, True, 1, Fraction(5))),
    # one tenth under: fails
    ((5, 5), (9, 0), 0, (45, False, False, False, 0, Fraction(9, 2))),
    ((1, 9), (4, 5), 1, (49, False, False, False, 4, Fraction(9, 2))),
    # two thirds: 3 x u10 >= 200, so 6.7 passes and 6.6 does not
    ((1, 9), (7, 7), 0, (70, True, True, True, 7, Fraction(7))),
    ((3, 7), (4, 8), 0, (68, True, True, False, 4, Fraction(6))),
    ((4, 6), (6, 7), 0, (66, True, False, True, 6, Fraction(13, 2))),
    ((3, 7), (9, 6), 1, (69, True, True, True, 6, Fraction(15, 2))),
    # the veto party at exactly 6 passes, at 5 does not, whatever the majority
    ((2, 8), (6, 9), 0, (84, True, True, True, 6, Fraction(15, 2))),
    ((2, 8), (5, 9), 0, (82, True, True, False, 5, Fraction(7))),
    ((8, 2), (2, 9), 1, (34, False, False, False, 2, Fraction(11, 2))),  # veto satisfied, no majority
    # four and six parties; a party with no seats still counts for Rawls and Util
    ((3, 5, 1, 1), (9, 2, 5, 8), 0, (50, True, False, True, 2, Fraction(6))),
    ((0, 4, 3, 1, 1, 1), (0, 9, 9, 9, 9, 9), 0, (90, True, True, False, 0, Fraction(15, 2))),
    ((1, 1, 1, 1, 1, 5), (0, 0, 0, 0, 0, 9), 5, (45, False, False, False, 0, Fraction(3, 2))),
]


@pytest.mark.parametrize("seats, votes, veto, expected", CASES)
def test_the_rules_on_constructed_votes(seats, votes, veto, expected):
    outcome = vote(seats, votes, veto)
    assert (outcome.support10, outcome.sm, outcome.two_thirds, outcome.veto, outcome.rawls, outcome.util) == expected
    assert outcome.score("sm") == float(expected[1]) and outcome.score("util") == float(expected[5])


def test_the_float_flip_in_the_released_code_does_not_happen_here():
    """Weights .3/.5/.1/.1 and votes 9/2/5/8: floats give 4.999999999999999, a fail; tenths give 5, a pass."""
    float_support = sum(w * v for w, v in zip((0.3, 0.5, 0.1, 0.1), (9, 2, 5, 8)))
    assert float_support < 5  # what the released code computes
    assert vote((3, 5, 1, 1), (9, 2, 5, 8), 0).sm


def test_exact_arithmetic_agrees_with_fractions_everywhere_floats_disagree():
    """Over every vote of a 4-party table, the integer rule equals the exact rational rule, and the
    float rule flips some outcomes: the deviation the page states."""
    seats = (3, 5, 1, 1)
    flips = 0
    for votes in itertools.product(range(10), repeat=4):
        exact = sum(Fraction(w, 10) * v for w, v in zip(seats, votes))
        outcome = vote(seats, votes, 0)
        assert outcome.sm == (exact >= 5) and outcome.two_thirds == (exact >= Fraction(20, 3))
        flips += (sum(w / 10 * v for w, v in zip(seats, votes)) >= 5) != outcome.sm
    assert flips > 0


@pytest.mark.parametrize(
    "seats, votes, message",
    [
        ((5, 5), (5,), "1 votes for 2 parties"),
        ((5, 4), (5, 5), "sum to 10"),
        ((5, 5), (5, 10), "digits 0..9"),
        ((5, 5), (-1, 5), "digits 0..9"),
    ],
)
def test_impossible_votes_are_refused(seats, votes, message):
    with pytest.raises(ValueError, match=message):
        vote(seats, votes, 0)
