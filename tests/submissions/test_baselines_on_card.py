"""Every reference row a board shows is described on its method card: for each board whose evaluator has
baselines, the names ``baselines_pending`` would submit on its sample dataset (the rows the board then
shows, "<name> (baseline)") each appear, quoted or as a label, in the card's "Baselines" row."""

from __future__ import annotations

import pytest

from leaderboard.catalog.models import Benchmark

pytestmark = pytest.mark.django_db


def _boards_with_baselines() -> list[str]:
    from evaluators.core import evaluator_for
    from evaluators.core.evaluator import Presentation
    from evaluators.core.registry import registered_keys

    return [
        key
        for key in registered_keys()
        if type(evaluator_for(key).presentation()).baseline_predictions is not Presentation.baseline_predictions
    ]


def test_the_boards_with_baselines_are_the_judged_ones() -> None:
    # PoliCon's Random and Greedy, CausalPitfalls' floor and ceiling on both protocols (so the test below runs)
    assert _boards_with_baselines() == ["causal-pitfalls", "causal-pitfalls-code", "policon"]


@pytest.mark.parametrize("slug", ["causal-pitfalls", "causal-pitfalls-code", "policon"])
def test_every_baseline_the_board_shows_is_on_its_card(slug: str) -> None:
    from evaluators.core import evaluator_for
    from leaderboard.boards.selectors import method_card_of
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import
    from leaderboard.runs.services.intake import baselines_pending

    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug=slug)
    dataset_version_import(
        benchmark=benchmark, release_path=evaluator_for(slug).presentation().sample_dataset(), tag="sample"
    )
    shown = [name.removesuffix(" (baseline)") for name, _ in baselines_pending(benchmark=benchmark)]
    assert len(shown) == 2, shown
    rows = [row for row in method_card_of(benchmark) if row.element == "Baselines"]
    assert len(rows) == 1, [row.element for row in method_card_of(benchmark)]
    for name in shown:
        assert f'"{name}"' in rows[0].here or f"{name}:" in rows[0].here, (name, rows[0].here)


@pytest.mark.parametrize("slug", ["causal-pitfalls", "causal-pitfalls-code"])
def test_causal_pitfalls_card_says_what_its_baselines_answer(slug: str) -> None:
    """The card's row quotes the floor's answer word for word and describes the ceiling as the criteria's
    descriptions joined by a space; both checked against the predictions the evaluator makes."""
    import json

    from evaluators.core import evaluator_for

    evaluator = evaluator_for(slug)
    item = next(iter(evaluator.import_release(evaluator.presentation().sample_dataset())))
    row = next(row for row in evaluator.presentation().method_card() if row.element == "Baselines")
    files = evaluator.presentation().baseline_predictions([item])
    floor, ceiling = (json.loads(files[name])["output"] for name in ("No analysis", "Rubric restated"))
    assert f'"No analysis" answers every item "{floor}"' in row.here
    assert "joined by a space" in row.here
    assert ceiling == " ".join(criterion["desc"] for criterion in item.payload["criteria"])
    assert row.deviates and row.why
    assert ("counts as a sandbox failure" in row.here) == (slug == "causal-pitfalls-code")
