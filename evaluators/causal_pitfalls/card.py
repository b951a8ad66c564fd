"""What the CausalPitfalls pages say: the method card (the authors' protocol beside ours, row by row),
the method notes, and a dataset version's notes (counts, what was skipped and why, every placeholder
left unfilled, every alias used).

The released side was read in the authors' repository (github.com/dudududuu/CausalPitfalls):
``llm_evaluation/get_responses.py`` (prompts, generation settings, the code-assisted turns),
``llm_evaluation/code_execution_utils.py`` (the harness that ran the programs),
``llm_evaluation/scoring_responses.py`` (rubric filling and the judge) and
``llm_evaluation/get_final_results.py`` (aggregation and the error rate); counts from the paper
(arXiv 2505.13770: 15 challenges, 75 questions, 75 datasets).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from evaluators.causal_pitfalls.baselines import baselines_row
from evaluators.causal_pitfalls.prompts import JUDGE_PROMPT, LIBRARIES, scores_schema
from evaluators.causal_pitfalls.release import CATEGORY_LABELS, DIRECT_ROWS, SAMPLE_ROWS
from evaluators.core.types import Item, MethodNote, ProtocolRow
from evaluators.llm.constraints import answer_format_row
from evaluators.llm.validation import known_answer_row
from evaluators.sandbox.analysis import ANALYSIS_LIMITS

#: the code-assisted board's share of final answers the paper's rule calls an error
ERROR_RATE = "error_rate"
PLACEHOLDER_MODES: tuple[str, ...] = ("filled", "as_released")
RESPONSES = "llm_evaluation/get_responses.py"
HARNESS = "llm_evaluation/code_execution_utils.py"
SCORER = "llm_evaluation/scoring_responses.py"
RESULTS = "llm_evaluation/get_final_results.py"
PAPER = "the paper (arXiv 2505.13770)"


def method_card(protocol: str, placeholders: str) -> list[ProtocolRow]:
    """The card of one configured evaluator: its protocol ("direct" or "code") and placeholder mode."""
    protocol_rows = _direct_rows() if protocol == "direct" else _code_rows()
    return [_placeholder_row(placeholders), *protocol_rows, *_judging_rows(protocol), *_figure_rows(protocol)]


def _judging_rows(protocol: str) -> list[ProtocolRow]:
    """How an answer is graded: the generation settings, the rubric, the judge, its answer and its fallbacks."""
    return [
        ProtocolRow(
            "Generation settings",
            "One answer per prompt; temperature 0 and 2,048 tokens for GPT-4o and DeepSeek; 2,048 tokens at the "
            "provider's default temperature for Claude; Gemini's defaults; o4-mini at reasoning effort medium.",
            "One answer per item at temperature 0, top-p 1, 2,048 tokens, a seed per item (a run may change them).",
            "One setting for every model, so rows compare; the release varied them by provider.",
            RESPONSES,
        ),
        ProtocolRow(
            "Rubric filling",
            "{KEY} and <KEY> filled from the dataset's answer-key entry; a placeholder the entry lacks stays in "
            "the rubric; a CSV without an entry is graded with the first entry's rubric.",
            "The same filling, plus temporal stability's {VARIABLE_T} read as the dataset's `period` column; "
            "what stays unfilled is named in the dataset notes; a CSV without an entry is skipped.",
            "The key never names VARIABLE_T, so those criteria could not be graded (250 unfilled in the "
            "release); another dataset's rubric would grade the wrong variables.",
            SCORER,
        ),
        ProtocolRow(
            "Judge and prompt",
            "GPT-4o at temperature 0 in JSON mode; a careful grader of causal-reasoning answers gives 1 or 0 "
            "per criterion; it sees the filled criteria (indented JSON, values as strings) and the answer only.",
            f"The judge configured for the board (its name and revision are on the page), prompt "
            f"{JUDGE_PROMPT.name}@{JUDGE_PROMPT.version}: our wording of the same grader, the same criteria "
            "JSON, and the number of scores expected, asked under a JSON schema of exactly that many 0/1 "
            "scores. Where the judge is served behind an answer cache (the embedded demo judge), a request "
            "identical to one already asked at temperature 0, the seed aside, gets that answer instead of a "
            "new call: the reference rows ask the same on both boards, and a dataset's five difficulties "
            "share their rubric.",
            "The operator pins the judge model; the count and the schema catch a list of the wrong length. "
            "Greedy decoding does not use the seed: a repeat would ask again for the same greedy answer.",
            SCORER,
        ),
        answer_format_row(
            "GPT-4o's JSON mode (response_format json_object): the prompt itself asks for only a JSON "
            "object with an array of 0/1 scores, and the API holds the answer to JSON",
            json_schema=scores_schema(3),
            example_note="(the schema of a rubric of 3 criteria; each rubric's own count is in its schema)",
            source=SCORER,
        ),
        ProtocolRow(
            "Judge retries and fallbacks",
            "No retry: an unparsable answer stops grading of that model's dataset (all its difficulties go "
            "ungraded); a list of the wrong length is taken as it is (zipped with the criteria, summed "
            "whole); an empty answer is still sent to the judge.",
            "A list of the wrong length or with other values is asked again once, then scored 0 and counted "
            "in 'Judge fallbacks'; an empty answer scores 0 without a judge call.",
            "One bad judge answer should neither drop five items nor score more criteria than exist.",
            SCORER,
        ),
        known_answer_row(
            "causal-pitfalls" if protocol == "direct" else "causal-pitfalls-code",
            "the rubric's criteria written out as the answer (it meets every one)",
            "the item's question sent back",
            SCORER,
        ),
    ]


def _figure_rows(protocol: str) -> list[ProtocolRow]:
    """From graded criteria to the board's figures: the item score, the means, the counts and the baselines."""
    return [
        ProtocolRow(
            "Item score",
            "Criteria met / criteria (the rubric's score columns; the moderation-effect rubric's stated maximum "
            "of 7 is not used), × 100.",
            "Criteria met / criteria, as a share of 1.",
            "Scores on the platform are shares; ×100 gives the paper's figure.",
            RESULTS,
        ),
        ProtocolRow(
            "Aggregation",
            "Causal reliability: the mean over the six categories of each category's plain item mean; by "
            "difficulty: the plain mean of that difficulty's items; no intervals.",
            "The same means; per category, difficulty and challenge the plain item mean; 95% intervals from "
            "a bootstrap over datasets.",
            "Intervals are the platform's rule for every score; a dataset's five difficulties are not "
            "independent, so datasets are resampled.",
            RESULTS,
        ),
        ProtocolRow(
            "Counts",
            f"{PAPER}: 6 categories, 15 challenges, 75 datasets and 75 questions, each dataset asked at 5 "
            "difficulties (375 prompts per protocol).",
            "370 items on the full release: 74 datasets × 5 difficulties; the dataset notes list each record skipped.",
            "dag_structure_markequi_sem.csv has no answer-key entry; the released scorer graded it with "
            "another dataset's rubric.",
            PAPER,
        ),
        baselines_row(protocol),
    ]


def _placeholder_row(placeholders: str) -> ProtocolRow:
    released = (
        "Questions sent as written: every {KEY} left unfilled, so the very-easy and easy levels never gave "
        "the confounders, irrelevant features or true effect (and its tolerance) that define them."
    )
    if placeholders == "as_released":
        return ProtocolRow("Question placeholders", released, "as released", source=RESPONSES)
    return ProtocolRow(
        "Question placeholders",
        released,
        "Every placeholder a question shows is filled from the dataset's answer-key entry (names, "
        "confounders, irrelevant features, the very-easy causal-effect question's true effect and "
        "tolerance). The setting placeholders=as_released sends them unfilled.",
        "The question files define each level by what it gives away; unfilled, the easy levels ask "
        "the hard question with braces in it.",
        RESPONSES,
    )


def _direct_rows() -> list[ProtocolRow]:
    return [
        ProtocolRow(
            "Direct prompt",
            "'Question:' and the question, the first 100 rows of an unseeded shuffle as pandas' text table, and a "
            "request for a direct analysis without code; one user message.",
            f"The question, {DIRECT_ROWS} rows of a seeded shuffle (one per dataset) as CSV with their total count, "
            f"and "
            "a request to answer without code; one user message.",
            "A seed makes a run repeatable; CSV is the file's own text.",
            RESPONSES,
        )
    ]


def _code_rows() -> list[ProtocolRow]:
    return [
        ProtocolRow(
            "Code request",
            "The question, the CSV's path in the repository, its column list and 10 rows of the shuffle, and "
            "a request for Python code only; the first fenced block of any label is taken.",
            f"The question, the file's path under /data, its columns and {SAMPLE_ROWS} rows of the seeded "
            "shuffle, what the program may use and its time limit; the first fenced block labelled Python (or "
            "unlabelled) is taken.",
            "A ```bash or ```text block first would run as Python there; the model is told the sandbox's "
            "limits because it cannot install anything.",
            RESPONSES,
        ),
        ProtocolRow(
            "Code-assisted final prompt",
            "A fresh single message: 'Question: ' and the question, a blank line, 'Code:' and the program on "
            "the lines below, a blank line, 'Results:' and what running it printed ('ERROR: ' and the error "
            "output on failure, 'NULL' when the run broke); no instruction.",
            "as released",
            source=RESPONSES,
        ),
        ProtocolRow(
            "What the final prompt reports",
            "The output; on failure 'ERROR: ' and the whole error output; a note when nothing was printed. A "
            "reply without a code block got no final prompt: the item has no code-assisted answer and is "
            "left out of the averages.",
            "The output (first 4,000 characters); on failure why it stopped and the end of the error output; "
            "a note when nothing was printed. A reply without a code block still gets the final prompt, says "
            "so, is graded and counts as a sandbox failure.",
            "Leaving items out would reward a model for not writing code; output is capped.",
            HARNESS,
        ),
        ProtocolRow(
            "Sandbox libraries",
            "The harness's virtual environment with numpy, pandas, statsmodels, matplotlib, seaborn, "
            "scikit-learn and causal packages (linearmodels, dowhy, causalml...), pip-installing anything "
            "imported; pandas, numpy, statsmodels (sm, smf, ols, logit), matplotlib.pyplot as plt, seaborn as "
            "sns and os imported before every program; no time limit.",
            f"{LIBRARIES}, pinned (matplotlib on its Agg backend); the same names bound before every program, "
            "each library imported when the program first uses it; "
            f"no network, nothing installable, one thread, {ANALYSIS_LIMITS.wall_seconds:g} s, "
            f"{ANALYSIS_LIMITS.memory_mb} MB.",
            "Untrusted code runs only in the sandbox, which has no network; pins make scores repeatable; "
            "importing on first use spares a program that never plots seconds of import. A program that "
            "imports a causal package the sandbox lacks fails.",
            HARNESS,
        ),
        ProtocolRow(
            "Error rate",
            f"{PAPER} defines it on the code-assisted protocol; the released code counts an answer whose text "
            "matches error|exception|failed|traceback (any case, anywhere: 'standard error' counts), over the "
            "direct and the code-assisted answers together, by category and by difficulty.",
            "The same rule on the code-assisted board's final answers, overall, by category and by "
            "difficulty, beside the sandbox-failure rate (a program missing, failed, stopped).",
            "Two boards, one per protocol; the sandbox's own record says which programs failed, the word "
            "rule is kept to compare with the paper.",
            RESULTS,
        ),
    ]


def method_notes(protocol: str, placeholders: str) -> list[MethodNote]:
    if protocol == "direct":
        first = MethodNote(
            "Direct protocol",
            f"The question with {DIRECT_ROWS} rows of the dataset (one seeded shuffle per "
            "dataset) as CSV, answered without code.",
        )
    else:
        first = MethodNote(
            "Code-assisted protocol",
            f"Two prompts. First the question, the file's path under /data, its columns and {SAMPLE_ROWS} rows, "
            "and a request for one Python program. The platform runs the answer's first fenced Python "
            f"block in the data sandbox ({LIBRARIES}, pinned; the released harness's imports run first; "
            "the dataset read-only at /data; no network, nothing installable; one thread; 60 s; 2 GB; "
            "64 KiB of output). Then a fresh prompt, as the released code sends it, gives the question, "
            "the program and its output (or the error, or that no block was found); that answer is graded.",
            (
                "A reply without a Python block, or a program that fails, still gets the final prompt; "
                "the item counts toward the sandbox-failure rate.",
                "The error rate is the paper's: final answers in which error, exception, failed or "
                "traceback appears, in any case.",
                "Scores need the platform's transcript of both prompts: a predictions file without "
                "transcripts is refused.",
            ),
        )
    filled = (
        "Each placeholder a question shows is filled from the dataset's answer-key entry: the easier levels are "
        "defined by what they give away (the confounders, irrelevant features, and at very easy the true causal "
        "effect with its tolerance). The released code sent them unfilled."
        if placeholders == "filled"
        else "Placeholders are sent unfilled, as the released code did (setting placeholders=as_released)."
    )
    return [
        first,
        MethodNote(
            "Questions",
            "Each challenge asks the same question at five difficulties, with fewer hints as they rise. " + filled,
        ),
        MethodNote(
            "Grading",
            "A judge reads the challenge's rubric criteria, filled from the answer key, and the final answer "
            '(not the question or the data, as in the released scorer) and returns {"scores": [0 or 1 per '
            "criterion]}. A list of the wrong length or with other values is asked again, then scored 0 and "
            "counted as a judge fallback.",
            (
                "Item score = criteria met / criteria.",
                "Causal reliability = the mean of the category means (six categories in the full release); "
                "by difficulty, category and challenge, the plain item mean, as the released scorer.",
                "95% intervals: a bootstrap that resamples each category's datasets (the five difficulties of "
                "one dataset are not independent).",
            ),
        ),
    ]


def dataset_notes(items: Sequence[Item]) -> list[MethodNote]:
    """Counts against the paper's, each record skipped and why, every alias used and every placeholder left
    unfilled (by challenge, with the datasets and the number of items where it stays)."""
    categories = sorted({item.slices["category"] for item in items})
    datasets = {(item.payload["challenge"], item.payload["dataset"]) for item in items}
    points = [
        f"{len(items)} items: {len(datasets)} datasets of {len({c for c, _ in datasets})} challenges, each asked at "
        f"{len({item.slices['difficulty'] for item in items})} difficulties (the paper: 75 datasets of 15 challenges, "
        "375 prompts per protocol).",
        "Categories present: "
        + ", ".join(CATEGORY_LABELS[c] for c in categories)
        + (
            ""
            if len(categories) == len(CATEGORY_LABELS)
            else f" ({len(categories)} of {len(CATEGORY_LABELS)}: causal reliability is the mean over these only)."
        ),
    ]
    skipped = sorted({(s["challenge"], s["record"], s["reason"]) for item in items for s in item.payload["skipped"]})
    points += [f"Skipped: {challenge}/{record}, {reason}." for challenge, record, reason in skipped]
    aliases = sorted(
        {
            (item.payload["challenge"], name, column)
            for item in items
            for name, column in item.payload["aliases"].items()
        }
    )
    points += [
        f"{challenge}: {{{name}}} filled with the dataset's column '{column}' (the answer key names no {name})."
        for challenge, name, column in aliases
    ]
    counts: dict[str, Counter[tuple[str, str]]] = {part: Counter() for part in ("question", "rubric")}
    where: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for item in items:
        for part, counter in counts.items():
            for token in item.payload["unfilled"][part]:
                counter[(item.payload["challenge"], token)] += 1
                where[(part, item.payload["challenge"], token)].add(item.payload["dataset"])
    for part, counter in counts.items():
        label = "questions" if part == "question" else "rubrics"
        if not counter:
            points.append(f"Placeholders left unfilled in {label}: none.")
        for (challenge, token), n in sorted(counter.items()):
            names = sorted(where[(part, challenge, token)])
            points.append(
                f"Left unfilled in {label}: {token} in {challenge} ({n} items; datasets {', '.join(names)}), "
                "its answer-key entry has no such field."
            )
    mismatched = sorted(
        {
            (item.payload["challenge"], str(item.payload["rubric_max_score"]), len(item.payload["criteria"]))
            for item in items
            if item.payload["rubric_max_score"] != len(item.payload["criteria"])
        }
    )
    points += [
        f"{challenge}: the rubric says max_score {stated} over {count} criteria; scores are out of the criteria, "
        "as the released scorer's."
        for challenge, stated, count in mismatched
    ]
    return [MethodNote("This dataset version", "What the items cover, what was left out and why.", tuple(points))]
