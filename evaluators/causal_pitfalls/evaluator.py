"""The CausalPitfalls evaluators: direct (``causal-pitfalls``) and code-assisted (``causal-pitfalls-code``).

Items come from the released challenges (``release``), one per challenge, dataset and difficulty, with
every placeholder a question shows filled from the answer key (setting ``placeholders``: "filled", the
default, or "as_released", the question as the authors' code sent it, placeholders unfilled). The
direct protocol asks the question with 100 rows of the data and no code. The code-assisted one asks for
a Python program given the file's path, columns and 10 rows; its ``follow_up`` runs the first fenced
Python block in the data sandbox (``evaluators.sandbox.analysis``, the released harness's imports run
first) on the dataset mounted at /data, then asks a fresh prompt holding the question, the code and its
output (or the error, or that no block was found); an item whose program is missing or fails still gets
its final prompt and counts toward the sandbox-failure rate. Two leaderboards, because a setting would
overwrite a model's row.

Scoring asks the judge once per answer for ``{"scores": [0|1, ...]}`` over the rubric's criteria
(filled from the answer key, shown to the judge only); a list of the wrong length or with other values
is asked again, then scored 0 as a fallback. Item score = sum / criteria; the headline "causal
reliability" is the mean of the category means (each the plain mean of its items), with a bootstrap that
resamples the challenges' datasets within each category; per difficulty, category and challenge the
plain item mean, as the released scorer (``reliability``). The code-assisted board also has the sandbox-failure rate and
the paper's error rate (a final answer matching ``error|exception|failed|traceback``, any case). What
differs from the release is the method card (``card``).
"""

from __future__ import annotations

import copy
import json
import re
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from evaluators.causal_pitfalls import validation
from evaluators.causal_pitfalls.baselines import BASELINE_ANSWERS
from evaluators.causal_pitfalls.card import ERROR_RATE, PLACEHOLDER_MODES, dataset_notes, method_card, method_notes
from evaluators.causal_pitfalls.prompts import (
    JUDGE_PROMPT,
    PREAMBLE,
    code_messages,
    direct_messages,
    final_prompt,
    judge_variables,
    scores_schema,
)
from evaluators.causal_pitfalls.release import (
    CATEGORIES,
    CATEGORY_LABELS,
    CHALLENGE_LABELS,
    DIFFICULTIES,
    DIFFICULTY_LABELS,
    DIRECT_ROWS,
    SAMPLE_ROWS,
    iter_items,
)
from evaluators.causal_pitfalls.reliability import RELIABILITY, dataset_of, item_means, reliability_with_ci
from evaluators.core.evaluator import (
    Aggregation,
    Conversation,
    Generation,
    KeptScores,
    Presentation,
    ScoredByJudge,
    one_choice,
)
from evaluators.core.media import MediaSink
from evaluators.core.settings import generation_settings, item_seed
from evaluators.core.stats import ratio_with_ci
from evaluators.core.types import (
    FollowUp,
    Item,
    ItemScore,
    MethodNote,
    MetricColumn,
    MetricValue,
    ModelRequest,
    Prediction,
    ProtocolRow,
    SliceDimension,
    Stage,
)
from evaluators.llm.judges import FALLBACK_METRIC, judge_fallbacks, judge_fallbacks_kept
from evaluators.llm.validation import KnownAnswerValidation, validate_known_answers

DEFAULT_GENERATION: dict[str, Any] = {"n": 1, "temperature": 0.0, "top_p": 1.0, "max_tokens": 2048, "seed": 0}
CODE_FAILURE = "code_failure_rate"
JUDGE_MAX_TOKENS = 200
#: the paper's error rate: a graded answer in which this matches (the released get_final_results.py)
ERROR_WORDS = re.compile(r"error|exception|failed|traceback", re.IGNORECASE)
#: a fenced block labelled as Python (or not labelled at all): the program the code-assisted turn runs
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)


def data_seed(item: Item) -> int:
    """The shuffle of an item's rows: one per dataset, the same at every difficulty and in both protocols."""
    return item_seed(0, f"{item.payload['challenge']}/{item.payload['dataset']}")


def extract_code(answer: str) -> str | None:
    """The first fenced Python (or unlabelled) block of an answer, or None."""
    for match in _FENCE.finditer(answer):
        label = (match.group(1) or "").lower()
        if label in ("", "python", "python3", "py") and match.group(2).strip():
            return match.group(2).strip("\n")
    return None


def scores_problem(count: int) -> Any:
    """The check of a judge's parsed answer: exactly ``count`` scores, each 0 or 1."""

    def check(value: Any) -> str | None:
        scores = value.get("scores") if isinstance(value, dict) else None
        if not isinstance(scores, list):
            return "no list of scores"
        if len(scores) != count:
            return f"{len(scores)} scores for {count} criteria"
        if any(s not in (0, 1) or isinstance(s, bool) for s in scores):
            return "a score is not 0 or 1"
        return None

    return check


class CausalPitfallsEvaluator(ScoredByJudge):
    """The direct protocol (key ``causal-pitfalls``): the question and 100 rows, answered without code."""

    key = "causal-pitfalls"
    protocol = "direct"
    metric_columns: tuple[MetricColumn, ...] = (
        MetricColumn(RELIABILITY, "Causal reliability", primary=True),
        MetricColumn(FALLBACK_METRIC, "Judge fallbacks", higher_is_better=False),
    )
    judge_role = "causal-pitfalls"

    def __init__(self, placeholders: str = "filled") -> None:
        #: "filled" (every placeholder a question shows, from the answer key) or "as_released" (unfilled)
        self.placeholders = placeholders

    def configured(self, settings: Mapping[str, Any]) -> Self:
        """A copy with the run's settings: ``placeholders`` ("filled" or "as_released") and nothing else."""
        mode = one_choice(settings, "placeholders", tuple(PLACEHOLDER_MODES), "filled")
        configured = copy.copy(self)
        configured.placeholders = mode
        return configured

    def question(self, item: Item) -> str:
        """The item's question as this configuration sends it."""
        return str(item.payload["question_as_released" if self.placeholders == "as_released" else "question"])

    # ----------------------------------------------------------------------------- dataset
    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return iter_items(Path(path))

    def first_messages(self, item: Item) -> list[dict[str, str]]:
        return direct_messages(item.payload, self.question(item), data_seed(item))

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = generation_settings(settings, DEFAULT_GENERATION)
        return [
            ModelRequest(
                item_id=item.id,
                messages=self.first_messages(item),
                n=merged["n"],
                temperature=merged["temperature"],
                top_p=merged["top_p"],
                max_tokens=merged["max_tokens"],
                extra={"seed": item_seed(merged["seed"], item.id)},
            )
        ]

    # ----------------------------------------------------------------------------- scoring
    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        judge = self.require_judge()
        criteria = item.payload["criteria"]
        samples: list[dict[str, Any]] = []
        batches: list[dict[str, Any]] = []
        values: list[float] = []
        failures: list[float] = []
        errors: list[float] = []
        for prediction in sorted(predictions, key=lambda p: p.sample_index):
            sample: dict[str, Any] = {"sample_index": prediction.sample_index}
            if self.protocol == "code":
                status = _code_status(prediction.transcript)
                sample["code_status"] = status
                failures.append(0.0 if status == "ok" else 1.0)
                errors.append(1.0 if ERROR_WORDS.search(prediction.output) else 0.0)
            if not prediction.output.strip():
                kind = prediction.error_kind or "empty"
                sample.update(verdict="no answer", reason=f"no answer to grade ({kind}); scored 0", score=0.0)
                samples.append(sample)
                values.append(0.0)
                continue
            batch = judge.ask_many(
                JUDGE_PROMPT.name,
                shared={},
                each=[judge_variables(criteria, prediction.output)],
                json_schema=scores_schema(len(criteria)),
                check=scores_problem(len(criteria)),
                max_tokens=JUDGE_MAX_TOKENS,
                seed=item_seed(prediction.sample_index, item.id),
                prompt_version=JUDGE_PROMPT.version,
            )
            call = batch.calls[0]
            marks = [0] * len(criteria) if call.fallback else [int(s) for s in call.parsed["scores"]]
            value = sum(marks) / len(criteria)
            met = [c["id"] for c, m in zip(criteria, marks) if m]
            sample.update(
                verdict="fallback" if call.fallback else "scored",
                score=value,
                reason=(
                    f"judge answer unusable ({call.error_kind}); scored 0"
                    if call.fallback
                    else f"{sum(marks)} of {len(criteria)} criteria met" + (f": {', '.join(met)}" if met else "")
                ),
            )
            if prediction.error_kind:
                sample["reason"] += f" (the answer was {prediction.error_kind.replace('_', ' ')})"
            samples.append(sample)
            batches.append(batch.to_dict())
            values.append(value)
        scores = {RELIABILITY: sum(values) / len(values) if values else 0.0}
        if self.protocol == "code":
            scores[CODE_FAILURE] = sum(failures) / len(failures) if failures else 1.0
            scores[ERROR_RATE] = sum(errors) / len(errors) if errors else 0.0
        return ItemScore(
            item_id=item.id,
            slices=dict(item.slices),
            scores=scores,
            detail={"samples": samples, "judgements": batches, "criteria": [c["id"] for c in criteria]},
        )

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        usable = [s for s in item_scores if not s.error and RELIABILITY in s.scores]
        if not usable:
            return []
        value, low, high = reliability_with_ci(usable, seed=seed)
        metrics = [MetricValue(RELIABILITY, value, low, high, len(usable))]
        rates = (CODE_FAILURE, ERROR_RATE) if self.protocol == "code" else ()
        for metric in rates:
            metrics += item_means(
                metric, [s for s in usable if metric in s.scores], seed=seed, slices=metric == ERROR_RATE
            )
        for dimension in ("category", "difficulty", "challenge"):
            for key in sorted({s.slices.get(dimension, "") for s in usable}):
                subset = [s for s in usable if s.slices.get(dimension) == key]
                metrics += item_means(RELIABILITY, subset, seed=seed, where={dimension: key})
        counts = [judge_fallbacks(s.detail) for s in usable]
        if any(calls for _, calls in counts):
            v, lo, hi = ratio_with_ci(
                [f for f, _ in counts], [c for _, c in counts], [dataset_of(s) for s in usable], seed=seed
            )
            metrics.append(MetricValue(FALLBACK_METRIC, v, lo, hi, sum(c for _, c in counts)))
        return metrics

    def aggregation(self, *, seed: int = 0, order: Sequence[str] | None = None) -> Aggregation:
        """Each judge call's fallback kept, never the samples or the judge's texts."""
        return KeptScores(self, seed=seed, order=order, keep_detail=judge_fallbacks_kept)

    # ----------------------------------------------------------------------------- pages
    def presentation(self) -> CausalPitfallsPresentation:
        return CausalPitfallsPresentation(self)

    def baseline_line(self, item: Item, answer: str) -> dict[str, Any]:
        """A predictions line answering ``item`` with ``answer`` (the code-assisted board adds its transcript)."""
        return {"item_id": item.id, "output": answer}

    def validate_judge(
        self, items: Sequence[Item], limit: int | None = None, progress: Callable[[int, int], None] | None = None
    ) -> KnownAnswerValidation:
        """The known-answer check (``validation``): rubric-meeting answers against constant, off-topic and
        question-restating ones."""
        answers = validation.known_set(self.question, items, limit)
        return validate_known_answers(self, answers, lambda score: score.scores[RELIABILITY], progress)

    def environment(self) -> dict[str, str]:
        return {
            "judge_prompt": f"{JUDGE_PROMPT.name}@{JUDGE_PROMPT.version}",
            "protocol": self.protocol,
            "placeholders": self.placeholders,
            "rows_shown": str(DIRECT_ROWS if self.protocol == "direct" else SAMPLE_ROWS),
        }


class CausalPitfallsCodeEvaluator(CausalPitfallsEvaluator):
    """The code-assisted protocol (key ``causal-pitfalls-code``): two turns around a sandboxed program."""

    key = "causal-pitfalls-code"
    protocol = "code"
    metric_columns = (
        MetricColumn(RELIABILITY, "Causal reliability", primary=True),
        MetricColumn(CODE_FAILURE, "Sandbox failures", higher_is_better=False),
        MetricColumn(ERROR_RATE, "Error rate (paper's rule)", higher_is_better=False),
        MetricColumn(FALLBACK_METRIC, "Judge fallbacks", higher_is_better=False),
    )

    def __init__(self, sandbox_factory: Callable[[], Any] | None = None, placeholders: str = "filled") -> None:
        super().__init__(placeholders)
        self._sandbox_factory = sandbox_factory
        self._sandbox: Any = None
        self._sandbox_lock = threading.Lock()

    def sandbox(self) -> Any:
        """The shared sandbox, made on first use (raises SandboxUnavailable when it cannot run)."""
        with self._sandbox_lock:
            if self._sandbox is None:
                from evaluators.sandbox import Sandbox

                self._sandbox = (self._sandbox_factory or Sandbox)()
            return self._sandbox

    def first_messages(self, item: Item) -> list[dict[str, str]]:
        return code_messages(item.payload, self.question(item), data_seed(item))

    def generation(self) -> Generation:
        return Generation(conversation=CodeTurns(self))

    def baseline_line(self, item: Item, answer: str) -> dict[str, Any]:
        """A model answering ``answer`` to both turns: no program runs; the final prompt says so (``follow_up``)."""
        first = Stage(messages=self.first_messages(item), answer=answer)
        asked = CodeTurns(self).follow_up(item, [first], 0, {})
        assert asked is not None and asked.tool.get("status") == "no_code"
        final = Stage(messages=asked.messages, answer=answer, tool=asked.tool)
        return {"item_id": item.id, "output": answer, "transcript": [first.to_dict(), final.to_dict()]}

    def environment(self) -> dict[str, str]:
        from evaluators.sandbox.analysis import analysis_versions

        versions = ", ".join(f"{name} {version}" for name, version in analysis_versions().items())
        return {**super().environment(), "analysis_libraries": versions}


class CausalPitfallsPresentation(Presentation["CausalPitfallsEvaluator"]):
    """CausalPitfalls' pages (both protocols): the category, difficulty and challenge filters, the reference
    rows that show what the judge makes of known answers, the release's diagnostics and the protocol."""

    slice_dimensions = (
        SliceDimension(
            "category", "Category", tuple(CATEGORY_LABELS), tuple(("", w) for w in CATEGORY_LABELS.values())
        ),
        SliceDimension("difficulty", "Difficulty", DIFFICULTIES, tuple(("", w) for w in DIFFICULTY_LABELS.values())),
        SliceDimension(
            "challenge",
            "Challenge",
            tuple(sorted(CATEGORIES)),
            tuple(("", CHALLENGE_LABELS[c]) for c in sorted(CATEGORIES)),
        ),
    )

    def item_passed(self, score: ItemScore) -> bool | None:
        """Full marks: every sample met every criterion of the rubric."""
        return score.scores.get(RELIABILITY) == 1.0

    def baseline_predictions(self, items: Sequence[Item]) -> dict[str, bytes]:
        """The reference rows, which show what the judge makes of known answers: "No analysis" (the same
        non-answer for every item: a sound judge scores it 0) and "Rubric restated" (each item's criteria,
        filled from its answer key, written out as the answer: a sound judge gives it full marks)."""
        return {
            name: "".join(
                json.dumps(self.evaluator.baseline_line(item, answer(item))) + "\n" for item in items
            ).encode()
            for name, answer in BASELINE_ANSWERS.items()
        }

    def dataset_notes(self, items: Sequence[Item]) -> list[MethodNote]:
        return dataset_notes(items)

    def method_notes(self) -> list[MethodNote]:
        return method_notes(self.evaluator.protocol, self.evaluator.placeholders)

    def method_card(self) -> list[ProtocolRow]:
        return method_card(self.evaluator.protocol, self.evaluator.placeholders)


class CodeTurns(Conversation):
    """The code-assisted protocol's two turns: the model writes a program, the platform runs it on the
    dataset in the sandbox and asks the final question with its output."""

    transcript_reason = (
        "The code-assisted protocol is a conversation with the platform, which runs the model's program "
        "on the dataset between the two turns."
    )
    uses_analysis_libraries = True

    def __init__(self, evaluator: CausalPitfallsCodeEvaluator) -> None:
        self.evaluator = evaluator

    def max_stages(self, settings: dict[str, Any]) -> int:
        return 2

    def follow_up(
        self, item: Item, transcript: Sequence[Stage], sample_index: int, settings: dict[str, Any]
    ) -> FollowUp | None:
        """After the first turn: run its program on the dataset and ask the fresh final prompt."""
        if len(transcript) != 1:
            return None
        code = extract_code(transcript[0].answer)
        if code is None:
            tool: dict[str, Any] = {"name": "python", "status": "no_code", "code": "", "output": ""}
            return FollowUp(
                messages=[{"role": "user", "content": final_prompt(self.evaluator.question(item), None, "")}],
                tool=tool,
                fresh=True,
            )
        from evaluators.sandbox.analysis import run_analysis

        sandbox = self.evaluator.sandbox()
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, item.payload["csv_name"]).write_text(_csv_text(item.payload), encoding="utf-8")
            with sandbox.data_dir(Path(tmp)) as data:
                run = run_analysis(sandbox, with_preamble(code), data=data)
        output = run.feedback()
        tool = {"name": "python", "status": run.status, "code": code, "output": output, "seconds": run.seconds}
        return FollowUp(
            messages=[{"role": "user", "content": final_prompt(self.evaluator.question(item), code, output)}],
            tool=tool,
            fresh=True,
        )


def with_preamble(code: str) -> str:
    """The program as the sandbox runs it: the released harness's imports, then the model's code (a
    ``from __future__`` import, which must come first, stays first)."""
    lines = code.splitlines(keepends=True)
    future = [line for line in lines if line.startswith("from __future__ import")]
    rest = [line for line in lines if not line.startswith("from __future__ import")]
    return "".join(future) + PREAMBLE + "".join(rest)


def _csv_text(payload: dict[str, Any]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(payload["columns"])
    writer.writerows(payload["rows"])
    return out.getvalue()


def _code_status(transcript: Sequence[Stage]) -> str:
    for stage in transcript:
        if stage.tool.get("name") == "python":
            return str(stage.tool.get("status") or "unknown")
    return "no_transcript"
