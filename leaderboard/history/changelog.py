"""Writes to a board's changelog, called by the services that change a board: a public row filed or
replaced (``leaderboard_entry_refresh``), a model's rows filed again after a visibility change
(``leaderboard_entries_resync``), a dataset version imported or made current (the catalog's services),
and a snapshot frozen. Only public work is written as a public entry: a change that only a private row
sees is not written at all, and a row that leaves the board because its model or submission was made
private is written for staff only (``is_public=False``); readers also hide entries whose model or runs
became private later (``selectors.changelog_of``).

This module imports models only, so the services of other apps can call it without an import cycle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils import timezone

from leaderboard import pagecache
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.history.models import ChangeKind, ChangelogEntry, Snapshot
from leaderboard.runs.models import EvaluationRun, LeaderboardEntry
from leaderboard.runs.score_keys import column_id

#: a leaderboard row's slot as the entries service keys it: (benchmark, dataset version, public, submitter)
Slot = tuple[int, int, bool, int | None]
Headline = list[float | int | None]


def headline_of(benchmark: Benchmark, values: Mapping[str, Any]) -> Headline | None:
    """A row's headline [value, ci_low, ci_high, n]: its primary metric on the whole dataset."""
    primary = benchmark.primary_metric
    found = values.get(column_id(primary["key"])) if primary else None
    return list(found) if found else None


def headline_text(benchmark: Benchmark, headline: Headline | None) -> str:
    """A headline as the board prints it: ``41.2%`` for a share, ``3.142`` for a number."""
    if not headline or headline[0] is None:
        return "no headline"
    primary = benchmark.primary_metric or {}
    value = float(headline[0])
    return f"{100 * value:.1f}%" if primary.get("format", "percent") == "percent" else f"{value:.3f}"


def _write(benchmark: Benchmark, kind: ChangeKind, text: str, **fields: Any) -> ChangelogEntry:
    entry = ChangelogEntry.objects.create(
        benchmark=benchmark, kind=kind, text=text, at=fields.pop("at", None) or timezone.now(), **fields
    )
    pagecache.boards_changed()
    return entry


def changelog_row_filed(*, run: EvaluationRun, values: Mapping[str, Any], previous: LeaderboardEntry | None) -> None:
    """A succeeded public run becomes its model's public row: "model added" (its first public row on
    this dataset version) or "run replaced" (old and new headline), then whether the run brings a new
    evaluator version or judge to the board. Called before the row changes, with the row it replaces."""
    benchmark, model = run.benchmark, run.submission.model
    new = headline_of(benchmark, values)
    on = f" on dataset {run.dataset_version.tag}"
    common = {
        "model": model,
        "dataset_version_id": run.dataset_version_id,
        "run": run,
        "headline": new,
        "at": run.finished_at,
    }
    if previous is None:
        _write(benchmark, ChangeKind.MODEL_ADDED, f"{model.name} added{on}: {headline_text(benchmark, new)}", **common)
    elif previous.run_id != run.pk:
        old = headline_of(benchmark, previous.values)
        _write(
            benchmark,
            ChangeKind.RUN_REPLACED,
            f"{model.name}: run #{run.pk} replaced run #{previous.run_id}{on}, "
            f"{headline_text(benchmark, old)} → {headline_text(benchmark, new)}",
            previous_run_id=previous.run_id,
            previous_headline=old,
            **common,
        )
    _provenance_changes(run)


def _provenance_changes(run: EvaluationRun) -> None:
    """A new evaluator version or judge on the board: the first public row scored with it, beside the
    versions the board's other public rows were scored with."""
    others = (
        LeaderboardEntry.objects.filter(
            benchmark_id=run.benchmark_id, dataset_version_id=run.dataset_version_id, is_public=True
        )
        .exclude(run_id=run.pk)
        .values_list("run__evaluator_version", "run__environment__judge__label")
    )
    seen = list(others)
    benchmark = run.benchmark
    version = run.evaluator_version
    earlier_versions = sorted({v for v, _ in seen if v})
    if version and earlier_versions and version not in earlier_versions:
        _write(
            benchmark,
            ChangeKind.EVALUATOR_CHANGED,
            f"evaluator version {version} first used (by run #{run.pk}); other rows were scored by "
            f"{', '.join(earlier_versions)}",
            run=run,
            dataset_version_id=run.dataset_version_id,
            at=run.finished_at,
        )
    judge = (run.environment or {}).get("judge")
    label = str(judge.get("label", "")) if isinstance(judge, dict) else ""
    earlier_judges = sorted({str(j) for _, j in seen if j})
    if label and earlier_judges and label not in earlier_judges:
        _write(
            benchmark,
            ChangeKind.JUDGE_CHANGED,
            f"judge {label} first used (by run #{run.pk}); other rows were judged by {', '.join(earlier_judges)}",
            run=run,
            dataset_version_id=run.dataset_version_id,
            at=run.finished_at,
        )


def changelog_rows_refiled(*, model: Model, latest: Mapping[Slot, EvaluationRun]) -> None:
    """A model's rows are about to be filed again from ``latest`` (after its or a submission's visibility
    changed): a public row that goes is "hidden" (the model was made private: staff only) or "retired"
    (its runs left the public board), one that comes back is "back on the board", and an older public
    run taking the public row back is "run replaced". Called while the old rows still exist."""
    before = {
        (e.benchmark_id, e.dataset_version_id): e
        for e in LeaderboardEntry.objects.filter(model=model, is_public=True).select_related(
            "benchmark", "dataset_version"
        )
    }
    after = {(b, d): run for (b, d, public, _), run in latest.items() if public}
    for key, entry in before.items():
        run = after.get(key)
        benchmark = entry.benchmark
        if run is None:  # the work behind the row is private now: staff read why, visitors read nothing about it
            kind, verb, why = (
                (ChangeKind.MODEL_RETIRED, "retired", "its submission was made private or withdrawn")
                if model.is_public
                else (ChangeKind.MODEL_HIDDEN, "hidden", "the model was made private")
            )
            _write(
                benchmark,
                kind,
                f"{model.name} {verb} from dataset {entry.dataset_version.tag}: {why}",
                model=model,
                dataset_version=entry.dataset_version,
                previous_run_id=entry.run_id,
                previous_headline=headline_of(benchmark, entry.values),
                is_public=False,
            )
        elif run.pk != entry.run_id:
            new = headline_of(benchmark, _values_of(run))
            old = headline_of(benchmark, entry.values)
            _write(
                benchmark,
                ChangeKind.RUN_REPLACED,
                f"{model.name}: run #{run.pk} took the row back from run #{entry.run_id} on dataset "
                f"{entry.dataset_version.tag} "
                f"(the later run left the public board), {headline_text(benchmark, old)} → "
                f"{headline_text(benchmark, new)}",
                model=model,
                dataset_version=entry.dataset_version,
                run=run,
                previous_run_id=entry.run_id,
                headline=new,
                previous_headline=old,
            )
    for (benchmark_id, dataset_id), run in after.items():
        if (benchmark_id, dataset_id) in before:
            continue
        last = ChangelogEntry.objects.filter(
            benchmark_id=benchmark_id, dataset_version_id=dataset_id, model=model
        ).first()
        if last is not None and last.kind not in (ChangeKind.MODEL_RETIRED, ChangeKind.MODEL_HIDDEN):
            continue  # the rows of a board rebuilt from its runs: nothing changed for a visitor
        kind, verb = (
            (ChangeKind.MODEL_ADDED, "added") if last is None else (ChangeKind.MODEL_RETURNED, "back on the board")
        )
        benchmark = run.benchmark
        new = headline_of(benchmark, _values_of(run))
        _write(
            benchmark,
            kind,
            f"{model.name} {verb} on dataset {run.dataset_version.tag}: {headline_text(benchmark, new)}",
            model=model,
            dataset_version_id=dataset_id,
            run=run,
            headline=new,
        )


def _values_of(run: EvaluationRun) -> dict[str, list[float | int | None]]:
    return {
        column_id(key, s_key): [value, low, high, n]
        for key, s_key, value, low, high, n in run.scores.values_list(
            "key", "slice_key", "value", "ci_low", "ci_high", "n"
        )
    }


def changelog_dataset_version(*, version: DatasetVersion, added: bool) -> None:
    """A dataset version imported (``added``) and/or made the board's current one."""
    benchmark = version.benchmark
    described = f"dataset version {version.tag} ({version.item_count} items, sha256 {version.content_hash[:12]})"
    if added:
        current = " and made current" if version.is_current else ""
        _write(benchmark, ChangeKind.DATASET_ADDED, f"{described} added{current}", dataset_version=version)
    elif version.is_current:
        _write(benchmark, ChangeKind.DATASET_CURRENT, f"{described} made current", dataset_version=version)


def changelog_snapshot(*, snapshot: Snapshot) -> None:
    corrects = f", correcting snapshot #{snapshot.corrects_id}" if snapshot.corrects_id else ""
    _write(
        snapshot.benchmark,
        ChangeKind.SNAPSHOT,
        f"snapshot #{snapshot.pk} frozen ({len(snapshot.rows)} rows){corrects}: {snapshot.reason}",
        snapshot=snapshot,
        dataset_version=snapshot.dataset_version,
        at=snapshot.frozen_at,
    )
