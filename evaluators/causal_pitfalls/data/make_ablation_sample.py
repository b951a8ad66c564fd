"""Build the sample of CausalPitfalls' ablations: ``sample_ablations/ablations/`` in the released layout.

Written for this project (same licence as the code), with data of our own drawn from a seeded generator:
four branding-bias scenarios (a product's consumption raised by two confounders that lower the outcome,
its own effect +3 or -3; 24 rows each) and the two domain-knowledge datasets (a temperature that drives
ice cream sales and drownings, 30 rows; three independent columns under the same names, 20 rows).
Running it again rewrites byte-identical files.

Usage::

    python evaluators/causal_pitfalls/data/make_ablation_sample.py [--out DIR]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parent / "sample_ablations"
SEED = 20261207
SCENARIOS = {
    "aligned_healthy": ("HealthPlus", 3.0),
    "misaligned_healthy": ("HealthPlus", -3.0),
    "aligned_unhealthy": ("UltraSugar", -3.0),
    "misaligned_unhealthy": ("UltraSugar", 3.0),
}


def _write(path: Path, header: list[str], rows: list[list[float]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [",".join(header)] + [",".join(repr(round(v, 9)) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def branding_rows(rng: random.Random, effect: float, count: int = 24) -> list[list[float]]:
    rows = []
    for _ in range(count):
        awareness, lifestyle = rng.gauss(0, 1), rng.gauss(0, 1)
        consumption = 4 + 3 * awareness + 2 * lifestyle + rng.gauss(0, 1)
        outcome = (
            40 + effect * consumption - abs(effect) * 3 * awareness - abs(effect) * 2 * lifestyle + rng.gauss(0, 1)
        )
        rows.append([consumption, outcome, awareness, lifestyle])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    out = parser.parse_args().out / "ablations"
    rng = random.Random(SEED)
    for scenario, (product, effect) in SCENARIOS.items():
        header = [f"{product}_{name}" for name in ("Consumption", "Outcome", "HealthAwareness", "Lifestyle")]
        _write(out / "branding_bias" / "data" / f"{scenario}.csv", header, branding_rows(rng, effect))
    names = ["temperature", "ice_cream_sales", "drowning_incidents"]
    real = []
    for _ in range(30):
        temperature = rng.gauss(24, 5)
        real.append(
            [temperature, 12 + 0.6 * temperature + rng.gauss(0, 3), max(0.0, 0.4 * temperature + rng.gauss(0, 0.5))]
        )
    noise = [[rng.gauss(24, 4), rng.gauss(30, 6), max(0.0, rng.gauss(2, 0.7))] for _ in range(20)]
    _write(out / "domain_knowledge" / "data" / "confounder_data.csv", names, real)
    _write(out / "domain_knowledge" / "data" / "confounder_data_pure_noise.csv", names, noise)


if __name__ == "__main__":
    main()
