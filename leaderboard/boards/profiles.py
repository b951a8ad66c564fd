"""A model's profile: every benchmark's headline score with its interval and its rank on the current
leaderboard, its Search Arena rating (the arena contestant linked to it) with interval and rank,
its provenance and its runs; for the model page and ``GET /api/models/<slug>/profile/``. Reads only."""

from __future__ import annotations

from typing import Any

from django.db.models.fields.json import KeyTransform

from leaderboard.arena import standing
from leaderboard.arena.catalog_link import contestant_name_of
from leaderboard.arena.selectors import latest_snapshots, model_attribution
from leaderboard.boards.leaders import BoardHeadlines, board_headlines
from leaderboard.boards.selectors import Cell, model_scores, public_entries_q, ranks_among
from leaderboard.catalog.bars import bar_share
from leaderboard.catalog.models import Model
from leaderboard.modelhost.validation import run_status, unranked_by_judge
from leaderboard.runs.costs import summed
from leaderboard.runs.models import EvaluationRun, LeaderboardEntry, RunStatus
from leaderboard.runs.score_keys import column_id
from leaderboard.runs.selectors import visible_submissions_q


def _rank(
    run: EvaluationRun, primary: dict[str, Any], value: list | None, board: BoardHeadlines | None
) -> tuple[int | None, int, str]:
    """(rank, public models ranked, why not) on the benchmark's current board, by the leaderboard's own
    rule (``selectors.ranks_among``), among the rows ``board`` ranks (``leaders.board_headlines``, read once for
    every board: no query per board)."""
    if value is None or value[1] is None or value[2] is None:
        return None, 0, "no interval"
    if board is None:  # a board the headlines leave out (no evaluator): read here
        return _rank_read(run, primary, value)
    if board.version_id is None or board.version_id != run.dataset_version_id:
        return None, 0, "scored on an older dataset version"
    status = run_status(run.benchmark, run.environment, board.validations)
    if not status.ranked:
        return None, 0, status.reason
    return (*board.rank_of(Cell(*value)), "")


def _rank_read(run: EvaluationRun, primary: dict[str, Any], value: list) -> tuple[int | None, int, str]:
    """``_rank`` read from the board's rows."""
    current = run.benchmark.dataset_versions.filter(is_current=True).first()
    if current is None or current.pk != run.dataset_version_id:
        return None, 0, "scored on an older dataset version"
    status = run_status(run.benchmark, run.environment, current.judge_validations)
    if not status.ranked:
        return None, 0, status.reason
    entries = LeaderboardEntry.objects.filter(
        public_entries_q(), benchmark_id=run.benchmark_id, dataset_version=current, model__is_reference=False
    )
    entries = entries.exclude(pk__in=list(unranked_by_judge(run.benchmark, entries, current)))
    # the primary cell only (Postgres returns that cell, never the whole ``values`` of every row)
    cells = list(
        entries.annotate(cell=KeyTransform(column_id(primary["key"]), "values")).values_list("cell", flat=True)
    )
    cells = [c for c in cells if c and c[1] is not None and c[2] is not None]
    rank = ranks_among(cells, primary.get("higher_is_better", True))(Cell(*value))
    return rank, len(cells), ""


def _arena(model: Model) -> dict[str, Any] | None:
    """The arena row of the contestant linked to ``model`` (``arena.catalog_link``; never by name), with its
    standing (``arena.standing``: ranked with a rank among the ranked models, or provisional)."""
    name = contestant_name_of(model.pk)
    snapshot = latest_snapshots().raw
    if name is None or snapshot is None:
        return None
    rows = standing.snapshot_rows(snapshot)
    row = next((m for m in rows if m.get("name") == name), None)
    if row is None:
        return None
    return {
        **row,
        "of": sum(1 for m in rows if m["ranked"]),
        "votes_counted": snapshot.n_votes,
        "computed_at": snapshot.computed_at,
        "attribution": model_attribution(name=name),
        "rule": standing.rule_text(standing.min_votes_of(snapshot)),
    }


def model_profile(*, model: Model, user: Any) -> dict[str, Any]:
    """What the model page and the API show about ``model`` to ``user``."""
    benchmarks = []
    boards = {board.benchmark.pk: board for board in board_headlines()}
    for benchmark, run, scores in model_scores(model=model, user=user):
        primary = next((c for c in benchmark.metric_columns if c.get("primary")), None)
        if primary is None:
            continue
        score = next((s for s in scores if s.key == primary["key"] and not s.slice_key), None)
        value = [score.value, score.ci_low, score.ci_high, score.n] if score else None
        rank, ranked_of, why = _rank(run, primary, value, boards.get(benchmark.pk))
        share = None if score is None else bar_share(primary, score.value)
        benchmarks.append(
            {
                "benchmark": benchmark.slug,
                "name": benchmark.name,
                "metric": primary["label"],
                "format": primary.get("format", "percent"),
                "higher_is_better": primary.get("higher_is_better", True),
                "value": None if score is None else score.value,
                "ci_low": None if score is None else score.ci_low,
                "ci_high": None if score is None else score.ci_high,
                "n": None if score is None else score.n,
                "rank": rank,
                "ranked_of": ranked_of,
                "unranked_reason": why,
                "run": run.pk,
                "submission": run.submission_id,
                "dataset": run.dataset_version.tag,
                "evaluator_version": run.evaluator_version,
                "finished_at": run.finished_at,
                "bar": share,
                "run_obj": run,
            }
        )
    runs = (
        EvaluationRun.objects.filter(visible_submissions_q(user, "submission__"), submission__model=model)
        .select_related("benchmark", "submission__owner")
        .order_by("-created_at")[:20]
    )
    submitted_by = sorted({r.submission.owner.username for r in runs if r.submission.owner_id})
    return {
        "model": {
            "name": model.name,
            "slug": model.slug,
            "organization": model.organization,
            "provenance": model.get_source_display(),
            "hf_repo": model.hf_repo,
            "hf_revision": model.hf_revision,
            "modality": model.modality,
            "release_date": model.release_date,
            "owner": model.owner.username if model.owner_id else "",
            "submitted_by": submitted_by,
        },
        "benchmarks": benchmarks,
        "arena": _arena(model),
        "runs": [
            {
                "id": r.pk,
                "benchmark": r.benchmark.name,
                "status": r.status,
                "submission": r.submission_id,
                "created_at": r.created_at,
                "finished_at": r.finished_at,
            }
            for r in runs
        ],
        "cost": _cost(model, user),
    }


def _cost(model: Model, user: Any) -> dict[str, Any]:
    """What the model's succeeded runs visible to ``user`` cost, added up (runs before costs were recorded
    are not counted: ``runs`` says how many are)."""
    costs = list(
        EvaluationRun.objects.filter(
            visible_submissions_q(user, "submission__"), submission__model=model, status=RunStatus.SUCCEEDED
        )
        .exclude(cost={})
        .values_list("cost", flat=True)
    )
    return {"total": summed(costs), "runs": len(costs)}
