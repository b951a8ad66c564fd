"""The PoliCon evaluator: a model drafts a resolution, a judge votes for each party, the rules decide.

Items are (task, objective) pairs from the released layout (``release``). ``build_requests`` asks for
one resolution with the objective's prompt (``prompts``), seeded per item. ``score_item`` asks the
judge once per party, all parties of an item at once (the judge's own bounded concurrency), for one
digit 0..9; the votes go through the exact rules of ``voting``. The judge protocol is the setting
``judge_prompt`` (``prompts.PROTOCOLS``): by default ``v2``, PoliCon's released rubric, where an answer
that is not a digit is asked again up to 10 times and then counts as a fallback vote of 4 (``v1``: once,
then 0), shown as the fallback rate; a judge that cannot be reached raises ``JudgeUnavailable`` (an
infrastructure error: the run is retried, not scored). ``aggregate`` reports pass rates and welfare
means per party count and topic, with 95% intervals from a bootstrap that resamples tasks. The method
card (``card``) sets this protocol beside the released one; ``validation`` checks the judge against
the parties' real votes.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from evaluators.core.evaluator import Aggregation, KeptScores, Presentation, ScoredByJudge, one_choice
from evaluators.core.media import MediaSink
from evaluators.core.settings import generation_settings, item_seed
from evaluators.core.stats import ratio_with_ci
from evaluators.core.types import (
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
from evaluators.llm.constraints import Constraint
from evaluators.llm.judges import FALLBACK_METRIC, judge_fallbacks, judge_fallbacks_kept
from evaluators.llm.types import JudgeBatch
from evaluators.policon.card import JUDGE_SEED, JUDGE_TOP_P, PAPER_TASKS, protocol_card
from evaluators.policon.prompts import (
    DEFAULT_PROTOCOL,
    DIGITS,
    EXAMPLE_RESOLUTION,
    OPENING,
    PROTOCOLS,
    JudgeProtocol,
    drafting_messages,
    stance_text,
)
from evaluators.policon.release import OBJECTIVES, PARTY_COUNTS, Task, gaps, iter_items
from evaluators.policon.validation import JudgeValidation, validate_judge, validation_tasks
from evaluators.policon.voting import PASS_RULES, VETO_MINIMUM, WELFARE, Outcome, vote

#: objective -> the item score it sets
SCORE_KEY: dict[str, str] = {**PASS_RULES, **WELFARE}
DEFAULT_GENERATION: dict[str, Any] = {"n": 1, "temperature": 0.7, "top_p": 0.95, "max_tokens": 512, "seed": 0}
#: room for a digit (guided decoding stops there) or a short sentence holding one (an unguided judge)
JUDGE_MAX_TOKENS = 8


class PoliConEvaluator(ScoredByJudge):
    """Evaluator for PoliCon (key ``policon``)."""

    key = "policon"
    metric_columns = (
        MetricColumn("sm_pass", "SM pass", primary=True),
        MetricColumn("two_thirds_pass", "2/3M pass"),
        MetricColumn("veto_pass", "VP pass"),
        MetricColumn("rawls", "Rawls (0-9)", format="number"),
        MetricColumn("util", "Util (0-9)", format="number"),
        MetricColumn(FALLBACK_METRIC, "Judge fallbacks", higher_is_better=False),
    )
    judge_role = "policon"
    #: the judge protocol (prompt version, retries, fallback vote), the setting ``judge_prompt``
    protocol: JudgeProtocol = PROTOCOLS[DEFAULT_PROTOCOL]

    def configured(self, settings: Mapping[str, Any]) -> Self:
        """A copy with the operator's settings: ``judge_prompt`` (v2, the released rubric, or v1)."""
        version = one_choice(settings, "judge_prompt", tuple(PROTOCOLS), DEFAULT_PROTOCOL)
        configured = copy.copy(self)
        configured.protocol = PROTOCOLS[version]
        return configured

    # ----------------------------------------------------------------------------- dataset
    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return iter_items(Path(path))

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = generation_settings(settings, DEFAULT_GENERATION)
        task = Task.from_payload(item.payload)
        return [
            ModelRequest(
                item_id=item.id,
                messages=drafting_messages(task, item.payload["objective"]),
                n=merged["n"],
                temperature=merged["temperature"],
                top_p=merged["top_p"],
                max_tokens=merged["max_tokens"],
                extra={"seed": item_seed(merged["seed"], item.id)},
            )
        ]

    # ----------------------------------------------------------------------------- scoring
    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        self.require_judge()  # refused here, before any work, when scoring was started without a judge
        task = Task.from_payload(item.payload)
        objective = item.payload["objective"]
        veto_index = [p.name for p in task.parties].index(task.veto_party)
        samples, batches, values = [], [], []
        for prediction in sorted(predictions, key=lambda p: p.sample_index):
            batch = self.ask_votes(task, prediction.output.strip())
            votes = self.votes_of(batch)
            outcome = vote([p.seat_tenths for p in task.parties], votes, veto_index)
            batches.append(batch.to_dict())
            values.append(outcome.score(objective))
            samples.append(_sample_verdict(task, objective, votes, outcome, batch))
        score = sum(values) / len(values) if values else 0.0
        return ItemScore(
            item_id=item.id,
            slices=dict(item.slices),
            scores={SCORE_KEY[objective]: score},
            detail={"samples": samples, "judgements": batches},
        )

    def ask_votes(self, task: Task, resolution: str) -> JudgeBatch:
        """The judge's answer for each party of ``task`` about ``resolution``, under this protocol, sampled
        as released (temperature 0, top_p 0.95, seed 42 for every party's first attempt)."""
        protocol = self.protocol
        return self.require_judge().ask_many(
            protocol.prompt.name,
            shared={"background": task.background, "resolution": resolution},
            each=[{"party": p.name, "stance": stance_text(p.stance)} for p in task.parties],
            choices=DIGITS,
            max_tokens=JUDGE_MAX_TOKENS,
            seed=JUDGE_SEED,
            same_seed=True,
            top_p=JUDGE_TOP_P,
            prompt_version=protocol.prompt.version,
            retries=protocol.retries,
        )

    def votes_of(self, batch: JudgeBatch) -> list[int]:
        """A digit per call; the protocol's fallback vote where the answer stayed unusable."""
        return [int(call.parsed) if not call.fallback else self.protocol.fallback_vote for call in batch.calls]

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        usable = [s for s in item_scores if not s.error and s.slices.get("objective") in SCORE_KEY]
        metrics: list[MetricValue] = []
        groups: list[dict[str, str]] = [{}]
        groups += [{"parties": str(n)} for n in PARTY_COUNTS]
        groups += [{"topic": t} for t in sorted({s.slices.get("topic", "") for s in usable})]
        for objective, key in SCORE_KEY.items():
            for group in groups:
                subset = [
                    s
                    for s in usable
                    if s.slices["objective"] == objective
                    and key in s.scores
                    and all(s.slices.get(k) == v for k, v in group.items())
                ]
                if subset:
                    value, low, high = ratio_with_ci(
                        [s.scores[key] for s in subset], [1.0] * len(subset), [_task_of(s) for s in subset], seed=seed
                    )
                    metrics.append(MetricValue(key, value, low, high, len(subset), dict(group)))
        counts = [judge_fallbacks(s.detail) for s in usable]
        if any(calls for _, calls in counts):
            value, low, high = ratio_with_ci(
                [f for f, _ in counts], [c for _, c in counts], [_task_of(s) for s in usable], seed=seed
            )
            metrics.append(MetricValue(FALLBACK_METRIC, value, low, high, sum(c for _, c in counts)))
        return metrics

    def aggregation(self, *, seed: int = 0, order: Sequence[str] | None = None) -> Aggregation:
        """Each judge call's fallback kept, never the samples or the judge's texts."""
        return KeptScores(self, seed=seed, order=order, keep_detail=judge_fallbacks_kept)

    def presentation(self) -> PoliConPresentation:
        return PoliConPresentation(self)

    def validate_judge(
        self, items: Sequence[Item], limit: int | None = None, progress: Callable[[int, int], None] | None = None
    ) -> JudgeValidation:
        """The judge against the parties' real votes on the real resolutions (``validation``); ``limit``: tasks."""
        return validate_judge(self, validation_tasks([item.payload for item in items], limit), progress=progress)

    def environment(self) -> dict[str, str]:
        return {
            "judge_prompt": self.protocol.key,
            "judge_retries": str(self.protocol.retries),
            "fallback_vote": str(self.protocol.fallback_vote),
        }


class PoliConPresentation(Presentation["PoliConEvaluator"]):
    """PoliCon's pages: the party-count and topic filters, the objective of each item, the Random and Greedy
    rows, the release's diagnostics and how a resolution is asked for and voted on."""

    slice_dimensions = (
        SliceDimension("parties", "Parties", tuple(str(n) for n in PARTY_COUNTS)),
        SliceDimension("topic", "Topic"),
    )
    item_labels = {"objective": "Objective"}
    item_value_labels = {"objective": OBJECTIVES}

    def item_passed(self, score: ItemScore) -> bool | None:
        """Full marks on a pass rule: every sample's resolution passed. A welfare objective (0-9) is graded: None."""
        passes = [value for key, value in score.scores.items() if key in PASS_RULES.values()]
        return passes[0] == 1.0 if passes else None

    def baseline_predictions(self, items: Sequence[Item]) -> dict[str, bytes]:
        """PoliCon's reference rows: Random (a random party's stance, seeded per item, as the resolution)
        and Greedy (the stance of the party with the most seats; the first listed on a tie)."""
        rows: dict[str, list[str]] = {"Random": [], "Greedy": []}
        for item in items:
            parties = Task.from_payload(item.payload).parties
            chosen = random.Random(item_seed(0, item.id)).choice(parties)
            largest = max(parties, key=lambda p: p.seat_tenths)
            for name, party in (("Random", chosen), ("Greedy", largest)):
                rows[name].append(json.dumps({"item_id": item.id, "output": f"{OPENING} {party.stance}"}) + "\n")
        return {name: "".join(lines).encode() for name, lines in rows.items()}

    def dataset_notes(self, items: Sequence[Item]) -> list[MethodNote]:
        """The diagnostics of a dataset version: its tasks per party count beside the paper's, what the
        release leaves empty (each task named), and, with the parties' real choices as the judge's votes,
        how often the real adopted resolution passes under our rules."""
        tasks = {item.payload["task"]: Task.from_payload(item.payload) for item in items}
        if not tasks:
            return []
        notes = [_count_note(tasks.values())]
        found = gaps(tasks.values())
        if found["stance"] or found["resolution"]:
            notes.append(
                MethodNote(
                    "What the release leaves empty (imported, not refused)",
                    "Every task imports. A party without a stance is shown to the model and the judge as having none "
                    "(the released code sent the empty text); a task without its adopted resolution loses nothing, "
                    "since no prompt shows a task's own resolution, but judge validation skips it.",
                    tuple(f"No stance: {entry}" for entry in found["stance"])
                    + tuple(f"No resolution: {entry}" for entry in found["resolution"]),
                )
            )
        rates = real_vote_pass_rates(items)
        points = tuple(
            f"{OBJECTIVES[o]}: {passed} of {total} real resolutions pass ({passed / total:.0%})"
            for o, (passed, total) in rates.items()
        )
        return notes + [
            MethodNote(
                "The rules on the real votes (a diagnostic, not a check)",
                "Every released resolution was adopted. Voting with each party's real choice (the share of "
                "its members who voted for it, in tenths) and the release's seat weights, which are drawn "
                "at random rather than taken from the real parliament, gives these pass rates:",
                points,
            )
        ]

    def method_notes(self) -> list[MethodNote]:
        return [
            MethodNote(
                "How a resolution is voted on",
                "For each party, a neutral judge reads the background, the model's resolution and the party's "
                "stance and answers one digit from 0 to 9 (how far the resolution gives specific, feasible "
                "implementation details that capture the stance, with the released rubric's three bands), "
                "constrained to one digit where the judge's server supports guided decoding, under the judge "
                f"prompt {self.evaluator.protocol.key}, at temperature 0, top_p {JUDGE_TOP_P} and seed {JUDGE_SEED} as "
                "released. Support is the seat-weighted sum of the digits.",
                (
                    "SM passes when support is at least 5; 2/3M when it is at least 20/3; VP when the veto party "
                    f"votes at least {VETO_MINIMUM} and SM passes. Rawls is the lowest vote, Util the mean vote.",
                    "Seat weights are tenths, so support is computed in integers. PoliCon's released code adds "
                    "float weights, which flips outcomes exactly at the thresholds (weights .3/.5/.1/.1 with votes "
                    "9/2/5/8 give 4.999999999999999 there, a fail; 5 here, a pass).",
                    "Where the judge's server has no guided decoding, the client appends to the judge prompt: \""
                    + Constraint(DIGITS, None).instruction()
                    + '" Then an answer holding exactly one digit as a '
                    'word ("The stance scores 9.") counts as that digit; the raw answer is kept on the per-item page.',
                    f"A judge answer that is not a digit is asked again, up to {self.evaluator.protocol.retries} "
                    f"times; if it "
                    f"is still unusable the vote counts as {self.evaluator.protocol.fallback_vote} and as a fallback. "
                    f"The "
                    "fallback rate is a column of the leaderboard.",
                    "A judge that cannot be reached or times out fails the run as an infrastructure error; the run "
                    "is retried and never scored with fallback votes.",
                ),
            ),
            MethodNote(
                "How a resolution is asked for",
                "The prompt gives the background, each party's stance, the objective's requirement (seat shares "
                "as weights and the voting rule for SM, 2/3M and VP; for Rawls and Util the principle in the release's "
                "own sentence), the "
                "released guidance (remedies for opposing stances, qualified supportive ones, substance without "
                f'procedure) and asks for one paragraph starting "{OPENING}". Its example resolution is fixed '
                "and fictional, never the task's own adopted text.",
                (
                    f"Generation: temperature {DEFAULT_GENERATION['temperature']}, top_p "
                    f"{DEFAULT_GENERATION['top_p']}, {DEFAULT_GENERATION['max_tokens']} new tokens, a seed per item.",
                    f"The example: {EXAMPLE_RESOLUTION}",
                ),
            ),
            MethodNote(
                "Intervals",
                "95% intervals come from a bootstrap that resamples tasks: the five objectives "
                "of one task share its parties and background, so they are not independent.",
            ),
        ]

    def method_card(self) -> list[ProtocolRow]:
        return protocol_card(self.evaluator.protocol, DEFAULT_GENERATION, JUDGE_MAX_TOKENS)


def _task_of(score: ItemScore) -> str:
    return score.item_id.rsplit("/", 1)[0]


def _sample_verdict(
    task: Task, objective: str, votes: list[int], outcome: Outcome, batch: JudgeBatch
) -> dict[str, str]:
    named = ", ".join(f"{p.name} {v}" for p, v in zip(task.parties, votes))
    fallbacks = sum(call.fallback for call in batch.calls)
    note = f"; {fallbacks} fallback vote(s)" if fallbacks else ""
    if objective in PASS_RULES:
        verdict = "pass" if getattr(outcome, objective) else "fail"
        return {"verdict": verdict, "reason": f"support {float(outcome.support):g} of 9 ({named}){note}"}
    return {"verdict": "scored", "reason": f"{OBJECTIVES[objective]} {outcome.score(objective):g} ({named}){note}"}


def _count_note(tasks: Iterable[Task]) -> MethodNote:
    per_count = Counter(len(task.parties) for task in tasks)
    points = tuple(
        f"{n} parties: {per_count.get(n, 0):,} tasks ({per_count.get(n, 0) * len(OBJECTIVES):,} items); "
        f"the paper: {PAPER_TASKS[n]:,}"
        for n in PARTY_COUNTS
    )
    return MethodNote(
        "Tasks imported beside the paper's counts",
        f"{sum(per_count.values()):,} tasks, each asked under {len(OBJECTIVES)} objectives:",
        points,
    )


def real_vote_pass_rates(items: Sequence[Item]) -> dict[str, tuple[int, int]]:
    """objective -> (passed, total) for the voting objectives, with the real choices as votes."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        objective = item.payload.get("objective")
        if objective not in PASS_RULES:
            continue
        task = Task.from_payload(item.payload)
        veto_index = [p.name for p in task.parties].index(task.veto_party)
        outcome = vote([p.seat_tenths for p in task.parties], [p.choice for p in task.parties], veto_index)
        counts[objective][0] += int(outcome.score(objective))
        counts[objective][1] += 1
    return {o: (c[0], c[1]) for o, c in counts.items()}
