"""The leaderboards' and the models index's JSON: the shapes the API answers with and the pages download
(a board's ``?format=json``, ``/models/?format=json``), described in the OpenAPI schema; and the API's
benchmark (with its method card) and model profile."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from leaderboard.boards import selectors
from leaderboard.catalog.models import Benchmark, DatasetVersion


class ScoreCellSerializer(serializers.Serializer):
    value = serializers.FloatField()
    ci_low = serializers.FloatField(allow_null=True, help_text="95% interval")
    ci_high = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField(help_text="items behind the value")


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="null when the row is not ranked (see unranked_reason)")
    ranked = serializers.SerializerMethodField(
        help_text="false when the row is not ranked; unranked_reason says why (e.g. 'judge not validated: not ranked')"
    )
    contaminated = serializers.SerializerMethodField()
    model = serializers.CharField(source="model.name")
    model_slug = serializers.CharField(source="model.slug")
    run = serializers.IntegerField(source="run.pk")
    evaluator_version = serializers.CharField(source="run.evaluator_version")
    judge = serializers.SerializerMethodField(
        help_text="the judge that scored this row: name@revision (prompt version)"
    )
    unranked_reason = serializers.CharField()
    is_reference = serializers.BooleanField(
        help_text="a baseline row (e.g. PoliCon's Random and Greedy): shown, never ranked"
    )
    flags = serializers.ListField(child=serializers.CharField())
    scores = serializers.SerializerMethodField(
        help_text="column id (metric, or metric|slice) -> value with its interval"
    )

    def get_ranked(self, row: selectors.LeaderboardRow) -> bool:
        return row.rank is not None

    def get_contaminated(self, row: selectors.LeaderboardRow) -> bool:
        return row.unranked_reason.startswith("contaminated")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_judge(self, row: selectors.LeaderboardRow) -> str | None:
        return row.judge or None

    @extend_schema_field(serializers.DictField(child=ScoreCellSerializer()))
    def get_scores(self, row: selectors.LeaderboardRow) -> dict[str, Any]:
        return {column: score_cell(cell) for column, cell in row.cells.items()}


def _number(value: Any, kind: type) -> Any:
    return None if value is None else kind(value)


def score_cell(cell: selectors.Cell) -> dict[str, Any]:
    """``ScoreCellSerializer(cell).data`` without a serializer per cell: a board's download has one per row and
    column (16,000 on Multi-LCB's thousand rows), and building each serializer's fields dominated the download's
    time (issue 47 point 4). The same values: each field's representation (float, int), None for None."""
    return {
        "value": _number(cell.value, float),
        "ci_low": _number(cell.ci_low, float),
        "ci_high": _number(cell.ci_high, float),
        "n": _number(cell.n, int),
    }


class DateWindowSerializer(serializers.Serializer):
    """``{"from": date, "to": date}``, either open (null); both ends inclusive."""

    def get_fields(self) -> dict[str, serializers.Field]:  # "from" is a keyword: no class attribute
        return {
            "from": serializers.DateField(source="start", allow_null=True),
            "to": serializers.DateField(source="end", allow_null=True),
        }


class LeaderboardSerializer(serializers.Serializer):
    """One page of a leaderboard: the API's answer and the page's JSON download."""

    benchmark = serializers.CharField(source="benchmark.slug")
    dataset_version = serializers.CharField(source="dataset.tag", allow_null=True, default=None)
    evaluator_version = serializers.CharField(source="current_evaluator_version")
    judges = serializers.ListField(child=serializers.CharField())
    sort = serializers.CharField(source="sort_key")
    slice = serializers.CharField(
        source="slice_filter", help_text="the slice shown in the headline columns, e.g. language=python"
    )
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    total = serializers.IntegerField(help_text="rows over all pages")
    window = DateWindowSerializer(allow_null=True, help_text="the contest-date window the scores were recomputed over")
    rows = LeaderboardRowSerializer(many=True)


class IndexHeadlineSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    value = serializers.FloatField()
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    rank = serializers.IntegerField(
        allow_null=True, help_text="1 + the public models whose interval lies entirely better"
    )
    ranked = serializers.BooleanField(help_text="false when the headline is not ranked (unranked_reason says why)")
    unranked_reason = serializers.CharField(
        help_text="e.g. 'judge not validated: not ranked'; empty when ranked or when it has no interval"
    )
    format = serializers.ChoiceField(choices=["percent", "number"])


class IndexArenaSerializer(serializers.Serializer):
    rating = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True, help_text="among the ranked models; null while provisional")
    votes = serializers.IntegerField(allow_null=True, default=None)
    provisional = serializers.BooleanField(
        default=False, help_text="not ranked yet: too few votes or no finite interval"
    )


class IndexBoardSerializer(serializers.Serializer):
    slug = serializers.CharField(source="benchmark.slug")
    name = serializers.CharField(source="benchmark.name")
    metric = serializers.CharField()
    format = serializers.SerializerMethodField()

    def get_format(self, board: Any) -> str:
        return "percent" if board.percent else "number"


class IndexRowSerializer(serializers.Serializer):
    slug = serializers.CharField(source="model.slug")
    name = serializers.CharField(source="model.name")
    organization = serializers.CharField(source="model.organization")
    modality = serializers.CharField(source="model.modality")
    source = serializers.CharField(source="model.source")  # type: ignore[assignment]  # the API's field is "source", a Field attribute too
    registered = serializers.DateTimeField(source="model.created_at")
    headlines = serializers.SerializerMethodField()
    arena = IndexArenaSerializer(allow_null=True)

    @extend_schema_field(serializers.DictField(child=IndexHeadlineSerializer(allow_null=True)))
    def get_headlines(self, row: Any) -> dict[str, Any]:
        """The model's headline on each board by the board's slug (null: no score there)."""
        return {slug: None if h is None else h.to_dict() for slug, h in row.headlines.items()}

    def to_representation(self, row: Any) -> dict[str, Any]:
        """The declared fields, each as its field represents it, read directly: the index answers with every
        public model (a thousand at scale), and each row through every field's attribute lookup was most of the
        API's time (issue 47 point 4)."""
        model = row.model
        return {
            "slug": _text(model.slug),
            "name": _text(model.name),
            "organization": _text(model.organization),
            "modality": _text(model.modality),
            "source": _text(model.source),
            "registered": None
            if model.created_at is None
            else self.fields["registered"].to_representation(model.created_at),
            "headlines": self.get_headlines(row),
            "arena": None if row.arena is None else self.fields["arena"].to_representation(row.arena),
        }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


class ModelsIndexSerializer(serializers.Serializer):
    """Every public model with its headline on each board and its arena rating (``/models/``)."""

    boards = IndexBoardSerializer(many=True)
    rows = IndexRowSerializer(many=True)


class DatasetVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = DatasetVersion
        fields = ["tag", "content_hash", "item_count", "imported_at", "is_current"]


class ProtocolRowSerializer(serializers.Serializer):
    """One row of a benchmark's method card (evaluators.core.types.ProtocolRow)."""

    element = serializers.CharField()
    released = serializers.CharField()
    here = serializers.CharField()
    why = serializers.CharField(allow_blank=True)
    source = serializers.CharField(allow_blank=True)  # type: ignore[assignment]  # the API's field is "source", a Field attribute too
    deviates = serializers.BooleanField()


class BenchmarkSerializer(serializers.ModelSerializer):
    available = serializers.BooleanField(source="is_available", read_only=True)
    method_card = serializers.SerializerMethodField()

    @extend_schema_field(ProtocolRowSerializer(many=True))
    def get_method_card(self, benchmark: Benchmark) -> list[dict[str, str | bool]]:
        """The release's protocol beside this platform's, row by row, as on the benchmark's page."""
        return [row.to_dict() for row in selectors.method_card_of(benchmark)]

    class Meta:
        model = Benchmark
        fields = [
            "slug",
            "name",
            "kind",
            "summary",
            "modality",
            "available",
            "metric_columns",
            "slice_dimensions",
            "method_card",
        ]


class ProfileBenchmarkSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    name = serializers.CharField()
    metric = serializers.CharField()
    format = serializers.CharField()
    higher_is_better = serializers.BooleanField()
    value = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    ranked = serializers.SerializerMethodField(
        help_text="false when the figure is not ranked (unranked_reason says why)"
    )
    ranked_of = serializers.IntegerField()
    unranked_reason = serializers.CharField()

    def get_ranked(self, row: dict[str, Any]) -> bool:
        return row["rank"] is not None

    run = serializers.IntegerField()
    submission = serializers.IntegerField()
    dataset = serializers.CharField()
    evaluator_version = serializers.CharField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ProfileArenaSerializer(serializers.Serializer):
    rating = serializers.FloatField()
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    rank_ub = serializers.IntegerField()
    of = serializers.IntegerField(help_text="the ranked models")
    votes = serializers.IntegerField()
    provisional = serializers.BooleanField(
        help_text="not ranked yet (too few votes or no finite interval): the rating is no measurement"
    )
    ranked = serializers.BooleanField()
    rank = serializers.IntegerField(allow_null=True, help_text="among the ranked models; null while provisional")
    standing = serializers.CharField(allow_blank=True, help_text="why it is not ranked yet, in words")
    bounded = serializers.BooleanField(default=True)
    note = serializers.CharField(allow_blank=True)


class ProfileRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    benchmark = serializers.CharField()
    status = serializers.CharField()
    submission = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ProfileModelSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    organization = serializers.CharField(allow_blank=True)
    provenance = serializers.CharField(
        help_text="where the predictions come from: a file, HF weights, uploaded weights or an endpoint"
    )
    hf_repo = serializers.CharField(allow_blank=True)
    hf_revision = serializers.CharField(allow_blank=True)
    modality = serializers.CharField()
    release_date = serializers.DateField(allow_null=True)
    owner = serializers.CharField(allow_blank=True)
    submitted_by = serializers.ListField(child=serializers.CharField())


class ProfileCostSerializer(serializers.Serializer):
    total = serializers.DictField(
        child=serializers.FloatField(), help_text="each cost figure added up over the runs (submissions.costs)"
    )
    runs = serializers.IntegerField(help_text="the succeeded runs with a recorded cost")


class ModelProfileSerializer(serializers.Serializer):
    """A model's profile (``leaderboard.boards.profiles``)."""

    model = ProfileModelSerializer()
    benchmarks = ProfileBenchmarkSerializer(many=True)
    arena = ProfileArenaSerializer(allow_null=True)
    runs = ProfileRunSerializer(many=True)
    cost = ProfileCostSerializer()
