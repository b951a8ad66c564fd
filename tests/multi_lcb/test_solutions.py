"""End-to-end judging with the real sandbox: every reference solution in every language passes all
tests of its problem through ``MultiLCBEvaluator.score_item``, and every known-wrong program under
tests/multi_lcb/wrong/<verdict>/ gets that verdict. A missing solution file is a failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.core.runner import score_items
from evaluators.core.types import Item, ItemScore, Prediction
from evaluators.multi_lcb.evaluator import VERDICTS, MultiLCBEvaluator
from evaluators.multi_lcb.examples import EXTENSIONS, SOLUTIONS
from evaluators.multi_lcb.prompts import LANGUAGE_KEYS, LANGUAGE_SPECS
from evaluators.multi_lcb.release import iter_problems

pytestmark = pytest.mark.toolchains

WRONG = Path(__file__).resolve().parent / "wrong"
WRONG_PROBLEM = "abc900_a"
TIME_LIMIT = 5.0
SPIN_LIMIT = 1.5  # the known-wrong programs that never stop


def evaluator(memory_mb: int = 1024) -> MultiLCBEvaluator:
    return MultiLCBEvaluator(time_limit_seconds=TIME_LIMIT, memory_mb=memory_mb)


def all_items() -> dict[str, Item]:
    ev = evaluator()
    return {item.id: item for item in ev.import_release(ev.presentation().sample_dataset())}


def problem_ids() -> list[str]:
    return [p["question_id"] for p in iter_problems(MultiLCBEvaluator().presentation().sample_dataset())]


def fenced(language: str, code: str) -> str:
    return f"```{LANGUAGE_SPECS[language].fence}\n{code}\n```\n"


def describe(score: ItemScore) -> str:
    lines = []
    for sample in score.detail["samples"]:
        if sample["verdict"] != "passed":
            where = (
                ""
                if sample["failed_test"] is None
                else (f" on {'public' if sample['failed_test_public'] else 'private'} test {sample['failed_test']}")
            )
            lines.append(f"{score.item_id}: {sample['verdict']}{where}: {sample['reason'][:400]}")
    return "\n".join(lines)


def test_every_problem_has_a_solution_in_every_language() -> None:
    missing = [
        f"{qid}/{language}.{EXTENSIONS[language]}"
        for qid in problem_ids()
        for language in LANGUAGE_KEYS
        if not (SOLUTIONS / qid / f"{language}.{EXTENSIONS[language]}").is_file()
    ]
    assert not missing, f"{len(missing)} reference solution file(s) missing under {SOLUTIONS}:\n" + "\n".join(missing)


@pytest.mark.parametrize("language", LANGUAGE_KEYS)
def test_reference_solutions_pass(language: str) -> None:
    items = all_items()
    chosen: list[Item] = []
    predictions: list[Prediction] = []
    for qid in problem_ids():
        path = SOLUTIONS / qid / f"{language}.{EXTENSIONS[language]}"
        if path.is_file():
            item = items[f"{qid}/{language}"]
            chosen.append(item)
            predictions.append(Prediction(item.id, fenced(language, path.read_text(encoding="utf-8"))))
    assert chosen, f"no reference solutions for {language} under {SOLUTIONS}"
    scores = list(score_items(evaluator(), chosen, predictions, concurrency=2))
    assert len(scores) == len(chosen)
    failures = [describe(s) for s in scores if s.scores["c"] != s.scores["n"]]
    assert not failures, f"{len(failures)} {language} reference solution(s) failed:\n" + "\n".join(failures)
    for s in scores:
        sample = s.detail["samples"][0]
        assert sample["tests_run"] == s.detail["tests"] and s.scores["pass@1"] == 1.0


def test_known_wrong_programs_get_their_verdicts() -> None:
    assert WRONG.is_dir(), f"{WRONG} is missing (known-wrong programs for {WRONG_PROBLEM})"
    items = all_items()
    cases: list[tuple[str, str, Path]] = []
    unknown: list[str] = []
    for verdict_dir in sorted(p for p in WRONG.iterdir() if p.is_dir()):
        if verdict_dir.name not in VERDICTS:
            unknown.append(verdict_dir.name)
            continue
        by_ext = {ext: lang for lang, ext in EXTENSIONS.items()}
        for path in sorted(verdict_dir.iterdir()):
            language = path.stem if path.stem in EXTENSIONS else by_ext.get(path.suffix.lstrip("."), "")
            if path.is_file() and language in EXTENSIONS and path.suffix == f".{EXTENSIONS[language]}":
                cases.append((verdict_dir.name, language, path))
    assert not unknown, f"directories under {WRONG} that are not verdicts: {unknown} (verdicts: {VERDICTS})"
    assert cases, f"no known-wrong programs under {WRONG}"
    # one item per case: each program is its own (problem, language) item with a unique id
    chosen: list[Item] = []
    predictions: list[Prediction] = []
    expected: dict[str, str] = {}
    for verdict, language, path in cases:
        base = items[f"{WRONG_PROBLEM}/{language}"]
        item = Item(id=f"{base.id}#{verdict}", slices=base.slices, payload=base.payload)
        chosen.append(item)
        predictions.append(Prediction(item.id, fenced(language, path.read_text(encoding="utf-8"))))
        expected[item.id] = verdict
    # 512 MB: the allocating programs reach the limit well inside the time limit even on a busy machine.
    # The time-limit programs spin for ever, so any limit gives their verdict: they run under a short one
    # (a spinner kept off the CPU by the load is run once more, so each could cost twice its limit)
    spinning = {item.id for item in chosen if expected[item.id] == "time_limit"}
    scores = []
    for limit, group in ((TIME_LIMIT, lambda i: i not in spinning), (SPIN_LIMIT, lambda i: i in spinning)):
        batch = [item for item in chosen if group(item.id)]
        batch_predictions = [p for p in predictions if group(p.item_id)]
        scores += score_items(
            MultiLCBEvaluator(time_limit_seconds=limit, memory_mb=512), batch, batch_predictions, concurrency=2
        )
    assert spinning and {s.item_id for s in scores if s.item_id in spinning} == spinning
    assert len(scores) == len(cases)
    wrong = []
    for s in scores:
        got = s.detail["samples"][0]["verdict"]
        if got != expected[s.item_id]:
            wrong.append(
                f"{s.item_id}: expected {expected[s.item_id]}, got {got}: {s.detail['samples'][0]['reason'][:400]}"
            )
    assert not wrong, f"{len(wrong)} known-wrong program(s) got another verdict:\n" + "\n".join(wrong)


def test_no_code_answer_is_a_failure() -> None:
    items = all_items()
    item = items[f"{WRONG_PROBLEM}/python"]
    score = evaluator().score_item(
        item,
        [
            Prediction(item.id, "I would add the numbers.", 0),
            Prediction(item.id, fenced("python", "print(sum(map(int, input().split())))"), 1),
        ],
    )
    assert [s["verdict"] for s in score.detail["samples"]] == ["no_code", "passed"]
    assert score.scores["pass@1"] == 0.5
