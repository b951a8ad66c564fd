"""docs/architecture.md's worked example, built from the doc's own code blocks: the evaluator is
written out as a package, registered, and its sample scored end to end by the command line, so the
example a newcomer copies cannot drift from the base class."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from evaluators import __main__ as cli
from evaluators.core import registry

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def _blocks(language: str) -> list[str]:
    """The doc's fenced blocks in ``language``, their list indentation removed."""
    section = DOC.read_text(encoding="utf-8").split("## Adding a benchmark: a worked example", 1)[1]
    blocks = re.findall(rf"^( *)```{language}\n(.*?)^\1```", section, re.S | re.M)
    return ["\n".join(line[len(indent) :] for line in body.splitlines()) + "\n" for indent, body in blocks]


@pytest.fixture
def tiny_qa(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (code,) = _blocks("python")
    (sample,) = _blocks("json")
    package = tmp_path / "tiny_qa_example"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "evaluator.py").write_text(code)
    (package / "data" / "sample.jsonl").write_text(sample)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register("tiny-qa", "tiny_qa_example.evaluator:TinyQAEvaluator")
    yield package
    registry._PATHS.pop("tiny-qa")
    registry.register("multi-lcb", registry._PATHS["multi-lcb"])  # clears the registry's caches
    sys.modules.pop("tiny_qa_example.evaluator", None)
    sys.modules.pop("tiny_qa_example", None)


def test_the_worked_example_builds_and_scores_its_sample(tiny_qa: Path, tmp_path: Path, capsys) -> None:
    evaluator = registry.evaluator_for("tiny-qa")
    assert evaluator.presentation().sample_dataset() == tiny_qa / "data" / "sample.jsonl"
    items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))
    assert [item.id for item in items] == ["q1", "q2", "q3"]
    # q1 right (case and spaces aside), q2 wrong, q3 right: 2 of 3, geography 2 of 2, arithmetic 0 of 1
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"item_id": i, "output": o}) + "\n" for i, o in (("q1", " paris "), ("q2", "5"), ("q3", "Tokyo"))
        )
    )
    out = tmp_path / "results.json"
    assert (
        cli.main(
            [
                "score",
                "--benchmark",
                "tiny-qa",
                "--dataset",
                str(evaluator.presentation().sample_dataset()),
                "--predictions",
                str(predictions),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    metrics = {tuple(sorted(m["slice"].items())): m for m in json.loads(out.read_text())["metrics"]}
    assert metrics[()]["value"] == pytest.approx(2 / 3) and metrics[()]["n"] == 3
    assert metrics[(("topic", "geography"),)]["value"] == 1.0
    assert metrics[(("topic", "arithmetic"),)]["value"] == 0.0
    assert "3 item(s), 3 prediction(s)" in capsys.readouterr().out


def test_the_worked_example_refuses_a_bad_record_naming_it(tiny_qa: Path, tmp_path: Path) -> None:
    from evaluators.core import DatasetError

    release = tmp_path / "bad.jsonl"
    release.write_text(
        '{"id": "q1", "topic": "t", "question": "Q?", "answer": "A"}\n{"id": "q2", "topic": "t", "question": ""}\n'
    )
    with pytest.raises(DatasetError, match="record 2: field 'question' must be a non-empty string"):
        list(registry.evaluator_for("tiny-qa").import_release(release))
    # the defaults the base class gives: no settings, no judge, no hooks
    evaluator = registry.evaluator_for("tiny-qa")
    with pytest.raises(ValueError, match="benchmark 'tiny-qa' takes no settings"):
        evaluator.configured({"n": 2})
    assert evaluator.presentation().method_notes() == [] and evaluator.presentation().heatmap is None
    assert evaluator.generation().conversation is None and evaluator.judging() is None
