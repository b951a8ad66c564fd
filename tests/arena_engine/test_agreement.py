"""Agreement between a board and the arena, on rankings made by hand: every expected value is worked out
in the comments from the definitions (Spearman's rho, Kendall's tau-b, and Arena-Hard's separability and
agreement with confidence), not by the module."""

from __future__ import annotations

import pytest

from evaluators.arena.agreement import Figure, agree, agreement_with_confidence, kendall_tau_b, separability, spearman


def test_spearman_of_two_adjacent_swaps():
    # ranks 1..5 against 2,1,4,3,5: d = (-1, 1, -1, 1, 0), sum d^2 = 4; rho = 1 - 6*4 / (5*(25-1)) = 1 - 24/120 = 0.8
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    assert spearman([1, 2, 3, 4, 5], [50, 40, 30, 20, 10]) == pytest.approx(-1.0)


def test_spearman_with_a_tie_uses_average_ranks():
    # x ranks (1, 2.5, 2.5, 4), y ranks (1, 2, 3, 4); centred: x (-1.5, 0, 0, 1.5), y (-1.5, -0.5, 0.5, 1.5)
    # sum xy = 2.25 + 2.25 = 4.5; sum x^2 = 4.5; sum y^2 = 5; rho = 4.5 / sqrt(4.5 * 5) = 4.5 / 4.7434 = 0.948683
    assert spearman([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(4.5 / (4.5 * 5) ** 0.5)


def test_kendall_tau_b_counts_concordant_and_discordant_pairs():
    # 10 pairs; discordant: (1,2) and (3,4) -> 2; tau = (8 - 2) / 10 = 0.6
    assert kendall_tau_b([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.6)
    # x = (1, 2, 2, 3), y = (1, 2, 3, 4): 6 pairs, the tied x pair is neither; concordant 5, discordant 0;
    # tau-b = 5 / sqrt((6 - 1) * 6) = 5 / sqrt(30) = 0.912871
    assert kendall_tau_b([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(5 / 30**0.5)
    assert kendall_tau_b([1, 1, 1], [1, 2, 3]) is None


def _figs(*rows: tuple[str, float, float, float]) -> list[Figure]:
    return [Figure(name, value, low, high) for name, value, low, high in rows]


def test_separability_is_the_share_of_pairs_whose_intervals_do_not_overlap():
    # a [9, 11], b [7, 9.5], c [1, 3]: a-b overlap (9 <= 9.5), a-c and b-c apart -> 2 of 3
    figs = _figs(("a", 10, 9, 11), ("b", 8, 7, 9.5), ("c", 2, 1, 3))
    assert separability(figs) == pytest.approx(2 / 3)
    assert separability(figs[:1]) is None


def test_agreement_with_confidence_scores_the_pairs_people_separate():
    # arena: A [90, 100], B [70, 80], C [40, 60], D [45, 55]: separated pairs A-B, A-C, A-D, B-C, B-D (C-D overlap): 5
    arena = _figs(("A", 95, 90, 100), ("B", 75, 70, 80), ("C", 50, 40, 60), ("D", 50, 45, 55))
    # board: A [0.8, 0.9], B [0.85, 0.95] (overlaps A: 0), C [0.1, 0.2], D [0.96, 0.99] (above A and B: opposite,
    # -1 each)
    # A-B 0, A-C +1, A-D -1, B-C +1, B-D -1 -> 0 / 5 = 0.0
    board = _figs(("A", 0.85, 0.8, 0.9), ("B", 0.9, 0.85, 0.95), ("C", 0.15, 0.1, 0.2), ("D", 0.97, 0.96, 0.99))
    assert agreement_with_confidence(board, arena) == (pytest.approx(0.0), 5)
    # the same board with D at the bottom [0.0, 0.05]: A-B 0, A-C +1, A-D +1, B-C +1, B-D +1 -> 4/5
    board[3] = Figure("D", 0.02, 0.0, 0.05)
    assert agreement_with_confidence(board, arena) == (pytest.approx(0.8), 5)


def test_too_few_shared_models_give_no_figure_and_say_so():
    arena = _figs(*((m, 100.0 - i, 99.0 - i, 101.0 - i) for i, m in enumerate("abcdef")))
    board = _figs(("a", 0.9, 0.8, 1.0), ("b", 0.8, 0.7, 0.9), ("z", 0.1, 0.0, 0.2), ("c", 0.5, 0.4, 0.6))
    result = agree(board, arena)
    assert result.shared == ["a", "b", "c"] and result.spearman is None and result.agreement is None
    assert "3 models ranked on both" in result.reading and "at least 5" in result.reading


def test_a_board_in_peoples_order_agrees_and_its_interval_is_near_one():
    # six models in the same order on both, intervals narrow against the gaps: rho = tau = 1, every pair
    # separated on both (separability 1), agreement 15/15 = 1
    arena = _figs(*((m, 1200.0 - 50 * i, 1190.0 - 50 * i, 1210.0 - 50 * i) for i, m in enumerate("abcdef")))
    board = _figs(*((m, 0.9 - 0.1 * i, 0.88 - 0.1 * i, 0.92 - 0.1 * i) for i, m in enumerate("fedcba"[::-1])))
    result = agree(board, arena, rounds=400, seed=1)
    assert result.spearman == pytest.approx(1.0) and result.kendall == pytest.approx(1.0)
    assert result.separability_board == 1.0 and result.separability_arena == 1.0
    assert result.agreement == 1.0 and result.arena_separated_pairs == 15
    # resampled models repeat (ties), which can only lower rho; with no noise the rounds stay high
    assert result.spearman_ci is not None and 0.8 < result.spearman_ci[0] <= result.spearman_ci[1] <= 1.0 + 1e-12
    assert "strongly agrees" in result.reading


def test_a_board_whose_intervals_are_wide_cannot_rule_out_no_agreement():
    # five models, the board's order a,b,c,d,e with intervals far wider than its gaps: the rounds reorder them
    # at will, so the interval of rho must include zero, and the reading says so
    arena = _figs(*((m, 1200.0 - 50 * i, 1190.0 - 50 * i, 1210.0 - 50 * i) for i, m in enumerate("abcde")))
    board = _figs(*((m, 0.50 - 0.01 * i, 0.0, 1.0) for i, m in enumerate("abcde")))
    result = agree(board, arena, rounds=400, seed=2)
    assert result.spearman == pytest.approx(1.0)
    assert result.spearman_ci is not None and result.spearman_ci[0] < 0 < result.spearman_ci[1]
    assert result.separability_board == 0.0 and result.agreement == 0.0  # nothing separated on the board
    assert "cannot tell" in result.reading
