"""Seeded structural causal models for CausalPitfalls' sample challenges, written for this project.

Each generator draws one dataset (rows of named columns) from a small structural causal model and
returns it with its answer facts: the variables' roles, the true relationship and the naive and
corrected estimates that a textbook analysis recovers from these very rows (computed here from the
sample, not from the model's parameters, so a key and its data always agree). Pure Python with a
``random.Random`` per dataset: the same seed gives the same rows on every machine.

- ``simpson_paradox``: a confounder raises the chance of treatment and lowers the outcome, so the
  crude difference has the wrong sign; the stratified (adjusted) difference has the true one.
- ``berkson_paradox``: two independent traits, and a selection that needs either; among the selected
  rows they are negatively correlated, in the whole population not at all.
- ``mediation_outcome_confounder``: treatment acts on the outcome directly and through a mediator, and a covariate
  confounds mediator and outcome; the direct and indirect effects come from regressions that adjust
  for it.
- ``population_shift``: a randomised trial in a young population where the effect grows with age;
  the effect transported to an older target population differs from the trial's average.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: the variable names of each dataset, so that the five datasets of a challenge read differently
THEMES: dict[str, list[dict[str, str]]] = {
    "simpson_paradox": [
        {"TREATMENT": "new_drug", "OUTCOME": "recovered", "CONFOUNDER": "severe_case"},
        {"TREATMENT": "tutoring", "OUTCOME": "passed_exam", "CONFOUNDER": "low_prior_grade"},
        {"TREATMENT": "fertilizer", "OUTCOME": "high_yield", "CONFOUNDER": "poor_soil"},
        {"TREATMENT": "training_program", "OUTCOME": "promoted", "CONFOUNDER": "junior_role"},
        {"TREATMENT": "surgery", "OUTCOME": "survived_5y", "CONFOUNDER": "late_stage"},
    ],
    "berkson_paradox": [
        {"VARIABLE_X": "talent", "VARIABLE_Y": "attractiveness", "COLLIDER_VARIABLE": "cast_in_film"},
        {"VARIABLE_X": "test_score", "VARIABLE_Y": "sports_skill", "COLLIDER_VARIABLE": "admitted"},
        {"VARIABLE_X": "disease_a", "VARIABLE_Y": "disease_b", "COLLIDER_VARIABLE": "hospitalised"},
        {"VARIABLE_X": "coding_skill", "VARIABLE_Y": "communication", "COLLIDER_VARIABLE": "hired"},
        {"VARIABLE_X": "food_quality", "VARIABLE_Y": "location_score", "COLLIDER_VARIABLE": "still_open"},
    ],
    "mediation_outcome_confounder": [
        {
            "TREATMENT": "exercise_program",
            "VARIABLE_M": "weight_loss",
            "OUTCOME": "blood_pressure_drop",
            "CONFOUNDER": "age",
        },
        {"TREATMENT": "scholarship", "VARIABLE_M": "study_hours", "OUTCOME": "gpa", "CONFOUNDER": "motivation"},
        {"TREATMENT": "ad_campaign", "VARIABLE_M": "site_visits", "OUTCOME": "sales", "CONFOUNDER": "season_index"},
        {"TREATMENT": "mentoring", "VARIABLE_M": "confidence", "OUTCOME": "job_offers", "CONFOUNDER": "network_size"},
        {"TREATMENT": "irrigation", "VARIABLE_M": "soil_moisture", "OUTCOME": "crop_yield", "CONFOUNDER": "rainfall"},
    ],
    "population_shift": [
        {"TREATMENT": "vaccine", "OUTCOME": "antibody_level", "VARIABLE_U": "age"},
        {"TREATMENT": "reading_app", "OUTCOME": "reading_score", "VARIABLE_U": "grade_level"},
        {"TREATMENT": "price_discount", "OUTCOME": "basket_value", "VARIABLE_U": "household_size"},
        {"TREATMENT": "physio_sessions", "OUTCOME": "mobility_gain", "VARIABLE_U": "age"},
        {"TREATMENT": "sleep_coaching", "OUTCOME": "alertness", "VARIABLE_U": "work_hours"},
    ],
}


@dataclass(frozen=True)
class Generated:
    """One dataset: its columns and rows, and its answer facts (names, directions, estimates)."""

    columns: list[str]
    rows: list[list[Any]]
    facts: dict[str, Any] = field(default_factory=dict)

    def csv(self) -> str:
        lines = [",".join(self.columns)]
        lines += [",".join(_cell(v) for v in row) for row in self.rows]
        return "\n".join(lines) + "\n"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _bern(rng: random.Random, p: float) -> int:
    return 1 if rng.random() < p else 0


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _direction(value: float, tolerance: float) -> str:
    return "positive" if value > tolerance else "negative" if value < -tolerance else "none"


def simpsons_paradox(seed: int, names: dict[str, str], rows: int = 800) -> Generated:
    rng = random.Random(seed)
    effect = 0.08 + 0.04 * rng.random()
    data = []
    for _ in range(rows):
        z = _bern(rng, 0.5)
        t = _bern(rng, 0.8 if z else 0.2)
        y = _bern(rng, 0.75 - 0.45 * z + effect * t)
        data.append([t, z, y])
    naive = _mean([r[2] for r in data if r[0]]) - _mean([r[2] for r in data if not r[0]])
    strata = []
    for z in (0, 1):
        group = [r for r in data if r[1] == z]
        diff = _mean([r[2] for r in group if r[0]]) - _mean([r[2] for r in group if not r[0]])
        strata.append((len(group), diff))
    corrected = sum(n * d for n, d in strata) / sum(n for n, _ in strata)
    return Generated(
        [names["TREATMENT"], names["CONFOUNDER"], names["OUTCOME"]],
        data,
        {
            "TRUE_RELATIONSHIP": "positive",
            "NAIVE_DIRECTION": _direction(naive, 0.0),
            "NAIVE_ESTIMATE": round(naive, 3),
            "CORRECTED_ESTIMATE": round(corrected, 3),
            "TOLERANCE": 0.05,
        },
    )


def berksons_paradox(seed: int, names: dict[str, str], rows: int = 1000) -> Generated:
    rng = random.Random(seed)
    data = []
    for _ in range(rows):
        a, b = rng.gauss(0, 1), rng.gauss(0, 1)
        s = 1 if a + b + rng.gauss(0, 0.3) > 1.0 else 0
        data.append([round(a, 4), round(b, 4), s])
    selected = [r for r in data if r[2]]
    naive = _correlation([r[0] for r in selected], [r[1] for r in selected])
    corrected = _correlation([r[0] for r in data], [r[1] for r in data])
    return Generated(
        [names["VARIABLE_X"], names["VARIABLE_Y"], names["COLLIDER_VARIABLE"]],
        data,
        {
            "TRUE_RELATIONSHIP": "none",
            "NAIVE_DIRECTION": _direction(naive, 0.1),
            "NAIVE_ESTIMATE": round(naive, 3),
            "CORRECTED_ESTIMATE": round(corrected, 3),
            "TOLERANCE": 0.1,
            "SELECTED_ROWS": len(selected),
        },
    )


def mediation(seed: int, names: dict[str, str], rows: int = 600) -> Generated:
    rng = random.Random(seed)
    a = 1.0 + rng.random()  # treatment -> mediator
    b = 0.8 + 0.4 * rng.random()  # mediator -> outcome
    direct = 0.5 + 0.5 * rng.random()
    data = []
    for _ in range(rows):
        c = rng.gauss(0, 1)
        t = _bern(rng, 0.5)
        m = a * t + 0.8 * c + rng.gauss(0, 1)
        y = direct * t + b * m + 1.0 * c + rng.gauss(0, 1)
        data.append([t, round(c, 4), round(m, 4), round(y, 4)])
    _, coef_m = _ols([[r[0], r[1]] for r in data], [r[2] for r in data])  # m ~ t + c
    _, coef_y = _ols([[r[0], r[2], r[1]] for r in data], [r[3] for r in data])  # y ~ t + m + c
    _, naive_y = _ols([[r[0], r[2]] for r in data], [r[3] for r in data])  # y ~ t + m (c left out)
    indirect = coef_m[0] * coef_y[1]
    return Generated(
        [names["TREATMENT"], names["CONFOUNDER"], names["VARIABLE_M"], names["OUTCOME"]],
        data,
        {
            "TRUE_RELATIONSHIP": "positive",
            "CORRECTED_DIRECT": round(coef_y[0], 3),
            "CORRECTED_INDIRECT": round(indirect, 3),
            "NAIVE_DIRECT": round(naive_y[0], 3),
            "TOLERANCE": 0.25,
        },
    )


def population_shift(seed: int, names: dict[str, str], rows: int = 500) -> Generated:
    rng = random.Random(seed)
    base, slope = 0.5 + rng.random(), 0.04 + 0.02 * rng.random()
    target_mean = 60
    data = []
    for _ in range(rows):
        x = round(rng.uniform(20, 40), 1)
        t = _bern(rng, 0.5)
        y = 2.0 + 0.01 * x + (base + slope * (x - 30)) * t + rng.gauss(0, 0.5)
        data.append([t, x, round(y, 4)])
    _, coef = _ols([[r[0], r[1], r[0] * (r[1] - 30)] for r in data], [r[2] for r in data])  # y ~ t + x + t:(x-30)
    naive = _mean([r[2] for r in data if r[0]]) - _mean([r[2] for r in data if not r[0]])
    transported = coef[0] + coef[2] * (target_mean - 30)
    return Generated(
        [names["TREATMENT"], names["VARIABLE_U"], names["OUTCOME"]],
        data,
        {
            "TRUE_RELATIONSHIP": "positive",
            "TARGET_MEAN": target_mean,
            "NAIVE_ESTIMATE": round(naive, 3),
            "CORRECTED_ESTIMATE": round(transported, 3),
            "TOLERANCE": round(max(0.2, 0.15 * abs(transported)), 3),
        },
    )


def _correlation(xs: list[float], ys: list[float]) -> float:
    mx, my = _mean(xs), _mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)


def _ols(features: list[list[float]], target: list[float]) -> tuple[float, list[float]]:
    """Least squares with an intercept by the normal equations (Gauss-Jordan): (intercept, coefficients)."""
    x = [[1.0, *row] for row in features]
    k = len(x[0])
    xtx = [[sum(r[i] * r[j] for r in x) for j in range(k)] for i in range(k)]
    xty = [sum(r[i] * y for r, y in zip(x, target)) for i in range(k)]
    aug = [row + [v] for row, v in zip(xtx, xty)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(aug[r][col]))
        aug[col], aug[pivot] = aug[pivot], aug[col]
        lead = aug[col][col]
        aug[col] = [v / lead for v in aug[col]]
        for r in range(k):
            if r != col:
                factor = aug[r][col]
                aug[r] = [v - factor * p for v, p in zip(aug[r], aug[col])]
    solution = [aug[i][k] for i in range(k)]
    return solution[0], solution[1:]


GENERATORS: dict[str, Callable[[int, dict[str, str]], Generated]] = {
    "simpson_paradox": simpsons_paradox,
    "berkson_paradox": berksons_paradox,
    "mediation_outcome_confounder": mediation,
    "population_shift": population_shift,
}
