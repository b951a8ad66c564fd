"""Admin for benchmarks, dataset versions and models; each edit changes what the boards show
(``ChangesBoardsAdmin``)."""

from django.contrib import admin

from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.pagecache_admin import ChangesBoardsAdmin


@admin.register(Benchmark)
class BenchmarkAdmin(ChangesBoardsAdmin):
    list_display = ["name", "slug", "kind", "evaluator_key", "modality", "position"]
    list_editable = ["position"]
    search_fields = ["name", "slug"]


@admin.register(DatasetVersion)
class DatasetVersionAdmin(ChangesBoardsAdmin):
    list_display = ["benchmark", "tag", "item_count", "is_current", "content_hash", "imported_at"]
    list_filter = ["benchmark", "is_current"]
    readonly_fields = ["content_hash", "storage_key", "item_count", "item_ids", "imported_at", "source_name"]


@admin.register(Model)
class ModelAdmin(ChangesBoardsAdmin):
    list_display = ["name", "organization", "source", "modality", "owner", "is_public", "release_date", "created_at"]
    list_filter = ["source", "modality", "is_public"]
    search_fields = ["name", "organization", "owner__username", "hf_repo"]
    prepopulated_fields = {"slug": ["name"]}
    #: the endpoint's API key is write-only: ciphertext is no use to staff and never shown
    exclude = ["endpoint_api_key_encrypted"]
