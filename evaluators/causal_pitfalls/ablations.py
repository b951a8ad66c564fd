"""CausalPitfalls' two ablations as the release runs them: branding bias and domain knowledge.

The release (github.com/dudududuu/CausalPitfalls, ``ablations/``) ships the data of both and a script
each that asks a model one question per dataset:

- **Branding bias** (``ablations/branding_bias``): four datasets of the same confounded design, the
  product named HealthPlus or UltraSugar, its effect on the outcome beneficial or harmful. The model is
  shown every row and asked whether the product is "Beneficial" or "Harmful" to health (answer
  "Beneficial", "Harmful" or "No Effect"). The answer is read as the first of Harmful, No Effect,
  Beneficial that appears in it (case-sensitive, anywhere; Unknown when none does); it is correct when it
  equals the scenario's truth, and brand-biased when it follows the name against the data (HealthPlus
  called Beneficial where the truth is not, UltraSugar called Harmful where the truth is not).
  ``get_final_results.py`` lays the conclusions out as a table: one row per (ground truth, product), one
  column per model (:func:`branding_table`).
- **Domain knowledge** (``ablations/domain_knowledge``): the ice cream and drowning question on real
  confounded data and on pure noise with the same column names. The release saves the answers and scores
  none: they are read by people. Here they are asked and shown, and not scored.

The prompts are the release's, character for character: they are what the ablation measures. The data is
shown as the release shows it, pandas' ``DataFrame.to_string(index=False)``, which :func:`table_text`
reproduces for the release's files (floats at six decimals, right-aligned under headers; checked against
pandas on all six released files); a file whose values pandas would print otherwise (scientific
notation, whole numbers) is refused at import rather than shown differently.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluators.core.evaluator import Evaluator, Presentation
from evaluators.core.media import MediaSink
from evaluators.core.settings import generation_settings, item_seed
from evaluators.core.stats import ratio_with_ci
from evaluators.core.types import (
    DatasetError,
    Item,
    ItemScore,
    MethodNote,
    MetricColumn,
    MetricValue,
    ModelRequest,
    Prediction,
    ProtocolRow,
    SliceDimension,
)

#: scenario -> (product, ground truth), in the release's order (test_branding_bias.py)
BRANDING_SCENARIOS: dict[str, tuple[str, str]] = {
    "aligned_healthy": ("HealthPlus", "Beneficial"),
    "misaligned_healthy": ("HealthPlus", "Harmful"),
    "aligned_unhealthy": ("UltraSugar", "Harmful"),
    "misaligned_unhealthy": ("UltraSugar", "Beneficial"),
}
#: the brand each product's name suggests
BRAND_TYPES: dict[str, str] = {"HealthPlus": "Beneficial", "UltraSugar": "Harmful"}
#: the labels looked for, in the release's order: the first found is the conclusion
LABELS: tuple[str, ...] = ("Harmful", "No Effect", "Beneficial")
UNKNOWN = "Unknown"
#: domain-knowledge dataset -> the released file
DOMAIN_DATASETS: dict[str, str] = {"real": "confounder_data.csv", "pure_noise": "confounder_data_pure_noise.csv"}
DOMAIN_QUESTION = (
    "Determine if there is a causal relationship between ice cream sales and drowning incidents. "
    "Construct a Directed Acyclic Graph (DAG) representing the relevant causal relationships. Justify "
    "your conclusion based on numerical analysis from the provided dataset, but do not include code or "
    "calculation details in your response."
)
#: the answer length each released script asks for (OpenAI's max_tokens; temperature 0 in both)
MAX_TOKENS: dict[str, int] = {"branding": 1000, "domain": 2000}
#: the two studies as an item's slice names them (the folders' names appear in the sources the pages quote)
BRANDING, DOMAIN = "branding", "domain"


def branding_prompt(product: str, table: str) -> str:
    """The branding-bias question about ``product`` over its data ``table`` (create_llm_prompt)."""
    return (
        f'\nBased on the data provided, determine whether \'{product}\' is "Beneficial" or "Harmful" to health. \n'
        f"Below is data for '{product}':\n"
        f"- {product}_Consumption: amount of product consumed\n"
        f"- {product}_Outcome: health outcome after consumption\n"
        f"- {product}_HealthAwareness: health awareness of the consumer\n"
        f"- {product}_Lifestyle: lifestyle of the consumer\n"
        f"Data:\n{table}\n\n"
        f'Based on the data, is \'{product}\' "Beneficial" or "Harmful" to health? Answer with only: '
        '"Beneficial", "Harmful", or "No Effect".\n'
    )


def domain_prompt(columns: Sequence[str], table: str) -> str:
    """The domain-knowledge question (generate_causal_prompt): the column list as Python writes a list,
    the table, then the question with no separator (the release joins them so)."""
    return f"Given the dataset with columns {list(columns)!r}:\n{table}" + DOMAIN_QUESTION


def table_text(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The rows of a numeric CSV as pandas' ``to_string(index=False)`` prints them: each value at six
    decimals less the zeros all of its column's values end with, with a sign column, each header with one
    leading space, every column right-aligned to its widest cell, columns joined by one space. Raises
    DatasetError for a column pandas would print another way (scientific notation, whole numbers)."""
    laid_out = []
    for j, name in enumerate(columns):
        values = []
        for row in rows:
            try:
                number = float(row[j])
            except (ValueError, IndexError):
                raise DatasetError(
                    f"column {name!r}: {row[j] if j < len(row) else '(missing)'!r} is not a number"
                ) from None
            if (number != 0 and abs(number) < 1e-6) or abs(number) >= 1e15:
                raise DatasetError(f"column {name!r}: {number!r} would be printed in scientific notation")
            values.append(f"{number:.6f}")
        if all(cell.strip().lstrip("-").isdigit() for cell in (row[j] for row in rows)):
            raise DatasetError(f"column {name!r}: whole numbers, which pandas prints as integers")
        while values and all(v.endswith("0") and not v.endswith(".0") for v in values):
            values = [v[:-1] for v in values]  # pandas trims the zeros every value of a column ends with
        cells = [" " + name] + [v if v.startswith("-") else " " + v for v in values]
        width = max(len(c) for c in cells)
        laid_out.append([c.rjust(width) for c in cells])
    return "\n".join(" ".join(column[i] for column in laid_out) for i in range(len(rows) + 1))


def conclusion_of(answer: str) -> str:
    """The release's reading of an answer: the first of Harmful, No Effect, Beneficial found in it
    (case-sensitive, anywhere in the text), else Unknown."""
    return next((label for label in LABELS if label in answer), UNKNOWN)


def branding_verdict(scenario: str, answer: str) -> dict[str, Any]:
    """The conclusion, whether it matches the truth and whether it is brand-biased, as the release decides."""
    product, truth = BRANDING_SCENARIOS[scenario]
    conclusion = conclusion_of(answer)
    brand = BRAND_TYPES[product]
    return {"conclusion": conclusion, "correct": conclusion == truth, "biased": conclusion == brand and truth != brand}


def branding_table(conclusions: Mapping[str, Mapping[str, str]]) -> list[list[str]]:
    """The released table's layout (get_final_results.py, generate_branding_bias_table): a header, then
    one row per scenario as (ground truth, product, each model's conclusion or "-"). ``conclusions`` maps a
    model's name (the column, in the given order) to scenario -> conclusion."""
    models = list(conclusions)
    rows = [["Ground Truth Effect", "Product", *models]]
    for scenario, (product, truth) in BRANDING_SCENARIOS.items():
        rows.append([truth, product, *(conclusions[m].get(scenario, "-") for m in models)])
    return rows


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(f"the release has no {path}") from None
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    if len(rows) < 2:
        raise DatasetError(f"{path.name}: no data rows")
    return rows[0], rows[1:]


def ablations_root(path: Path) -> Path:
    """The release's ``ablations`` folder: ``path`` itself or the folder of that name inside it."""
    for candidate in (path / "ablations", path):
        if (candidate / "branding_bias").is_dir() or (candidate / "domain_knowledge").is_dir():
            return candidate
    raise DatasetError(f"{path}: no ablations/branding_bias or ablations/domain_knowledge folder")


def iter_ablation_items(path: Path) -> Iterator[Item]:
    """One item per released dataset: the four branding-bias scenarios, then the two domain-knowledge datasets."""
    root = ablations_root(Path(path))
    for scenario, (product, truth) in BRANDING_SCENARIOS.items():
        columns, rows = _read_csv(root / "branding_bias" / "data" / f"{scenario}.csv")
        expected = [f"{product}_{name}" for name in ("Consumption", "Outcome", "HealthAwareness", "Lifestyle")]
        if columns != expected:
            raise DatasetError(
                f"branding_bias/{scenario}.csv: columns {columns}, the release's script expects {expected}"
            )
        yield Item(
            id=f"branding_bias/{scenario}",
            slices={"study": BRANDING, "scenario": scenario},
            payload={
                "study": BRANDING,
                "scenario": scenario,
                "product": product,
                "truth": truth,
                "rows": len(rows),
                "prompt": branding_prompt(product, table_text(columns, rows)),
            },
        )
    for dataset, name in DOMAIN_DATASETS.items():
        columns, rows = _read_csv(root / "domain_knowledge" / "data" / name)
        yield Item(
            id=f"domain_knowledge/{dataset}",
            slices={"study": DOMAIN, "dataset": dataset},
            payload={
                "study": DOMAIN,
                "dataset": dataset,
                "rows": len(rows),
                "prompt": domain_prompt(columns, table_text(columns, rows)),
            },
        )


# ----------------------------------------------------------------------------- the board
CORRECT = "correct"
BIASED = "brand_biased"
RELEASE = "dudududuu/CausalPitfalls"
BRANDING_SCRIPT = f"{RELEASE}: ablations/branding_bias/test_branding_bias.py"
DOMAIN_SCRIPT = f"{RELEASE}: ablations/domain_knowledge/test_causal_inference.py"
RESULTS_SCRIPT = f"{RELEASE}: llm_evaluation/get_final_results.py"
DEFAULT_GENERATION: dict[str, Any] = {"n": 1, "temperature": 0.0, "top_p": 1.0, "seed": 0}


class CausalPitfallsAblationsEvaluator(Evaluator):
    """The ablations (key ``causal-pitfalls-ablations``): branding bias scored as released, domain
    knowledge asked and shown (the release scores none of its answers)."""

    key = "causal-pitfalls-ablations"
    metric_columns = (
        MetricColumn(CORRECT, "Matches the data (branding bias)", primary=True),
        MetricColumn(BIASED, "Brand-biased conclusions", higher_is_better=False),
    )

    def presentation(self) -> AblationsPresentation:
        return AblationsPresentation(self)

    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return iter_ablation_items(Path(path))

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = generation_settings(settings, {**DEFAULT_GENERATION, "max_tokens": MAX_TOKENS[item.payload["study"]]})
        return [
            ModelRequest(
                item_id=item.id,
                messages=[{"role": "user", "content": item.payload["prompt"]}],
                n=merged["n"],
                temperature=merged["temperature"],
                top_p=merged["top_p"],
                max_tokens=merged["max_tokens"],
                extra={"seed": item_seed(merged["seed"], item.id)},
            )
        ]

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        ordered = sorted(predictions, key=lambda p: p.sample_index)
        if item.payload["study"] != BRANDING:
            samples = [
                {"verdict": "not scored", "reason": "the release saves this answer for people to read and scores none"}
                for _ in ordered
            ]
            return ItemScore(item_id=item.id, slices=dict(item.slices), scores={}, detail={"samples": samples})
        verdicts = [branding_verdict(item.payload["scenario"], p.output) for p in ordered]
        samples = [
            {
                "verdict": v["conclusion"],
                "conclusion": v["conclusion"],
                "reason": (
                    f"truth {item.payload['truth']}: "
                    + ("matches" if v["correct"] else "does not match")
                    + ("; follows the brand against the data" if v["biased"] else "")
                ),
            }
            for v in verdicts
        ]
        count = max(1, len(verdicts))
        return ItemScore(
            item_id=item.id,
            slices=dict(item.slices),
            scores={
                CORRECT: sum(v["correct"] for v in verdicts) / count,
                BIASED: sum(v["biased"] for v in verdicts) / count,
            },
            detail={"samples": samples},
        )

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        scored = [s for s in item_scores if not s.error and CORRECT in s.scores]
        metrics: list[MetricValue] = []
        for key in (CORRECT, BIASED):
            if scored:
                value, low, high = ratio_with_ci(
                    [s.scores[key] for s in scored], [1.0] * len(scored), [s.item_id for s in scored], seed=seed
                )
                metrics.append(MetricValue(key, value, low, high, len(scored)))
        for score in scored:
            scenario = score.slices["scenario"]
            metrics += [
                MetricValue(key, score.scores[key], None, None, 1, {"scenario": scenario}) for key in (CORRECT, BIASED)
            ]
        return metrics


class AblationsPresentation(Presentation["CausalPitfallsAblationsEvaluator"]):
    """The ablations' pages: the branding-bias scenarios as the filter, each item's study and dataset, how
    both studies are asked and shown, and the protocol beside the release's."""

    sample_path = "data/sample_ablations"
    slice_dimensions = (
        SliceDimension(
            "scenario",
            "Branding-bias scenario (ground truth, product)",
            tuple(BRANDING_SCENARIOS),
            tuple(
                (f"{truth[:4]}. {product}", f"{truth}, {product} ({scenario})")
                for scenario, (product, truth) in BRANDING_SCENARIOS.items()
            ),
        ),
    )
    item_labels = {"study": "Study", "dataset": "Dataset"}
    item_value_labels = {
        "study": {BRANDING: "Branding bias", DOMAIN: "Domain knowledge"},
        "dataset": {"real": "Confounded by temperature", "pure_noise": "Pure noise, same names"},
    }

    def item_passed(self, score: ItemScore) -> bool | None:
        return score.scores[CORRECT] == 1.0 if CORRECT in score.scores else None

    def method_notes(self) -> list[MethodNote]:
        return [
            MethodNote(
                "Branding bias, as released",
                "Four datasets of one confounded design (consumption raised by health awareness and "
                "lifestyle, which also move the outcome): the product is HealthPlus or UltraSugar, its real "
                "effect beneficial or harmful. The model sees every row and the release's question; its "
                "conclusion is the first of Harmful, No Effect, Beneficial in its answer (Unknown if none). "
                '"Matches the data" is the share of the four scenarios where it equals the truth; '
                '"Brand-biased conclusions" the share where it follows the name against the data.',
                (
                    "Each scenario is a column (Beneficial/Harmful truth and the product); the release's table "
                    "(get_final_results.py) has one row per scenario and one column per model, each cell the "
                    "model's conclusion, which the per-item page shows.",
                ),
            ),
            MethodNote(
                "Domain knowledge, asked and shown",
                "The release asks whether ice cream sales cause drownings, with a DAG, on confounded data "
                "(temperature drives both) and on pure noise under the same column names, and saves the "
                "answers for people to read. Here both are asked with the release's prompt and shown on the "
                "per-item page; like the release, nothing scores them.",
            ),
        ]

    def method_card(self) -> list[ProtocolRow]:
        return [
            ProtocolRow(
                "Prompts",
                "The release's two questions with the data as pandas prints it "
                "(to_string(index=False)), one user message per dataset",
                "as released",
                source=f"{BRANDING_SCRIPT}; {DOMAIN_SCRIPT}",
            ),
            ProtocolRow(
                "Data shown",
                "Every row of the dataset: 200 per branding scenario, 500 (real) and 100 (pure "
                "noise) for domain knowledge",
                "as released",
                source=f"{RELEASE}: ablations/*/data",
            ),
            ProtocolRow(
                "Generation settings",
                "temperature 0; 1,000 tokens (branding bias) and 2,000 (domain "
                "knowledge) for GPT-4o and Claude; Gemini at its defaults; one answer",
                "temperature 0, top-p 1, 1,000 / 2,000 tokens for every model, one answer, a seed per item "
                "(a run may change them)",
                "One setting for every model, so rows compare",
                f"{BRANDING_SCRIPT}; {DOMAIN_SCRIPT}",
            ),
            ProtocolRow(
                "Reading a branding-bias answer",
                "The first of Harmful, No Effect, Beneficial found in the "
                "answer (case-sensitive, anywhere), else Unknown; correct when it equals the truth; "
                "brand-biased when HealthPlus is called Beneficial, or UltraSugar Harmful, against the truth",
                "as released",
                source=BRANDING_SCRIPT,
            ),
            ProtocolRow(
                "Scoring domain knowledge",
                "None: the answers are saved for reading",
                "as released",
                source=DOMAIN_SCRIPT,
            ),
            ProtocolRow(
                "Headline and aggregation",
                "No figure over scenarios: the table of conclusions, one row per "
                "(ground truth, product) and one column per model",
                "The share of the four scenarios whose conclusion matches the data (primary) and the share "
                "that is brand-biased, with a bootstrap over scenarios; each scenario a column (1 or 0), each "
                "conclusion on the per-item page",
                "A leaderboard ranks models on one figure and lists models as rows: the released table "
                "transposed, its cells on the per-item pages",
                RESULTS_SCRIPT,
            ),
            ProtocolRow(
                "Models",
                "GPT-4o, Claude 3.5 Sonnet and Gemini 2.0 Flash",
                "Any model submitted to the board",
                "The board is for every model",
                BRANDING_SCRIPT,
            ),
            ProtocolRow(
                "Counts",
                "4 branding-bias scenarios and 2 domain-knowledge datasets",
                "as released",
                source=f"{RELEASE}: ablations/*/data",
            ),
        ]
