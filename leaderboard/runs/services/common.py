"""Refusals the submission pages and the API show, and the dataset version a benchmark takes
submissions on (refused when it has none)."""

from __future__ import annotations

from collections.abc import Sequence

from leaderboard.catalog.models import Benchmark, DatasetVersion


class SubmissionRefused(ValueError):
    """A submission that cannot be accepted; ``field`` names the form field at fault, if any."""

    def __init__(
        self, message: str, *, field: str | None = None, problems: Sequence[tuple[int | None, str | None, str]] = ()
    ):
        super().__init__(message)
        self.field = field
        self.problems = list(problems)


def current_dataset(benchmark: Benchmark) -> DatasetVersion:
    """The benchmark's current dataset version; refused when it has no evaluator or no dataset yet."""
    if not benchmark.evaluator_key:
        raise SubmissionRefused(
            f"{benchmark.name} does not accept submissions yet: its evaluator has not landed.", field="benchmark"
        )
    version = benchmark.dataset_versions.filter(is_current=True).first()
    if version is None:
        raise SubmissionRefused(
            f"{benchmark.name} has no dataset imported yet; an operator must run import_dataset first.",
            field="benchmark",
        )
    return version
