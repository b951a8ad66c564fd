"""Admin for the arena: contestants (a responder config never holds a secret, only the name of the
setting or environment variable that does, and that name must start with ARENA_SECRET_ or
LEADERBOARD_ARENA_SECRET_), battles with their turns, votes with every exclusion
(list and filter by reason), rating snapshots, and each turn's citation attributions. A contestant is
retired by the admin action (the reason given in the form's "retire reason" field) or ``manage.py arena_retire``."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Turn, TurnAttribution, Vote, VoteExclusion
from leaderboard.arena.services import ArenaRefused, secret_ref_problem
from leaderboard.pagecache_admin import ChangesBoardsAdmin

#: responder keys that would hold a secret in plain text
_SECRET_KEYS = ("api_key", "key", "secret", "token", "password", "authorization")


class ArenaModelForm(forms.ModelForm):
    class Meta:
        model = ArenaModel
        fields = "__all__"

    def clean_responder(self) -> Any:
        config = self.cleaned_data["responder"]
        if not isinstance(config, dict):
            raise forms.ValidationError('responder: must be a JSON object such as {"kind": "extractive", ...}')
        if "api_key_ref" in config and secret_ref_problem(config["api_key_ref"]):
            raise forms.ValidationError(f"responder: {secret_ref_problem(config['api_key_ref'])}")
        secrets = sorted(
            k for k in config if k.lower() in _SECRET_KEYS or k.lower().endswith(("_key", "_secret", "_token"))
        )
        if secrets:
            raise forms.ValidationError(
                f"responder: {', '.join(secrets)} would store a secret in plain text; put the key in an "
                "environment variable or setting and name it in api_key_ref"
            )
        return config


@admin.register(ArenaModel)
class ArenaModelAdmin(ChangesBoardsAdmin):
    """A contestant's link to a catalog model decides whose profile and index row show its figures: an
    edit changes what the boards show."""

    form = ArenaModelForm
    list_display = ["name", "organization", "enabled", "imported", "weight", "added_at", "prerelease", "retired_at"]
    list_filter = ["enabled", "imported", "prerelease"]
    search_fields = ["name", "organization"]
    readonly_fields = ["retired_at", "final_rating", "released_at"]
    raw_id_fields = ["catalog_model"]  # the catalog model that is this contestant (leaderboard.arena.catalog_link)
    actions = ["retire"]

    @admin.action(description="Retire the selected models (the reason: each one's retire reason field, required)")
    def retire(self, request: HttpRequest, queryset: QuerySet[ArenaModel]) -> None:
        from leaderboard.arena.services.lifecycle import model_retire

        for model in queryset:
            try:
                model_retire(name=model.name, reason=model.retire_reason)
            except ArenaRefused as exc:
                self.message_user(request, f"{model.name}: {exc}", level=messages.ERROR)
            else:
                self.message_user(request, f"retired {model.name}")


class TurnInline(admin.StackedInline):
    model = Turn
    fields = readonly_fields = (
        "index",
        "prompt",
        "status_a",
        "text_a",
        "status_b",
        "text_b",
        "language",
        "answer_a",
        "answer_b",
    )
    extra = 0
    can_delete = False


@admin.register(Battle)
class BattleAdmin(admin.ModelAdmin):
    list_display = ["public_id", "model_a", "model_b", "status", "locked", "propensity", "primary_intent", "created_at"]
    list_filter = ["status", "locked", "primary_intent"]
    search_fields = ["public_id", "conv_id", "model_a__name", "model_b__name"]
    readonly_fields = ["public_id", "voter_hash", "ip_hash", "created_at"]
    inlines = [TurnInline]


class ExclusionInline(admin.TabularInline):
    model = VoteExclusion
    fields = ["code", "detail", "by", "at"]
    readonly_fields = ["at"]
    extra = 0


@admin.register(Vote)
class VoteAdmin(admin.ModelAdmin):
    list_display = ["battle", "winner", "valid", "exclusion_reasons", "turn_count", "created_at"]
    list_filter = ["valid", "winner", "exclusions__code"]
    readonly_fields = ["battle", "voter_hash", "created_at"]
    inlines = [ExclusionInline]


@admin.register(VoteExclusion)
class VoteExclusionAdmin(admin.ModelAdmin):
    list_display = ["vote", "code", "detail", "by", "at"]
    list_filter = ["code", "by"]
    search_fields = ["detail", "vote__battle__public_id"]


@admin.register(RatingSnapshot)
class RatingSnapshotAdmin(admin.ModelAdmin):
    list_display = ["kind", "filter_key", "filter_value", "n_votes", "n_excluded", "computed_at"]
    list_filter = ["kind", "filter_key"]


@admin.register(TurnAttribution)
class TurnAttributionAdmin(admin.ModelAdmin):
    list_display = ["turn", "side", "supported", "irrelevant", "contradicting", "unchecked", "failed", "computed_at"]
    list_filter = ["side"]
    search_fields = ["turn__battle__public_id", "method"]
    readonly_fields = [
        "turn",
        "side",
        "method",
        "pairs",
        "supported",
        "irrelevant",
        "contradicting",
        "unchecked",
        "failed",
        "judge_calls",
        "computed_at",
    ]
