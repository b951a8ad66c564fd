"""Admin for the arena: contestants (a responder config never holds a secret, only the name of the
setting or environment variable that does, and that name must start with ARENA_SECRET_ or
LEADERBOARD_ARENA_SECRET_), battles with their turns, votes with every exclusion
(list and filter by reason), and rating snapshots."""
from typing import Any

from django import forms
from django.contrib import admin

from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Turn, Vote, VoteExclusion
from leaderboard.arena.services import secret_ref_problem

#: responder keys that would hold a secret in plain text
_SECRET_KEYS = ("api_key", "key", "secret", "token", "password", "authorization")


class ArenaModelForm(forms.ModelForm):
    class Meta:
        model = ArenaModel
        fields = "__all__"

    def clean_responder(self) -> Any:
        config = self.cleaned_data["responder"]
        if not isinstance(config, dict):
            raise forms.ValidationError("responder: must be a JSON object such as {\"kind\": \"extractive\", ...}")
        if "api_key_ref" in config and secret_ref_problem(config["api_key_ref"]):
            raise forms.ValidationError(f"responder: {secret_ref_problem(config['api_key_ref'])}")
        secrets = sorted(k for k in config if k.lower() in _SECRET_KEYS or k.lower().endswith(("_key", "_secret", "_token")))
        if secrets:
            raise forms.ValidationError(f"responder: {', '.join(secrets)} would store a secret in plain text; put the key in an "
                                        "environment variable or setting and name it in api_key_ref")
        return config


@admin.register(ArenaModel)
class ArenaModelAdmin(admin.ModelAdmin):
    form = ArenaModelForm
    list_display = ["name", "organization", "enabled", "imported", "weight", "added_at"]
    list_filter = ["enabled", "imported"]
    search_fields = ["name", "organization"]


class TurnInline(admin.StackedInline):
    model = Turn
    fields = readonly_fields = ("index", "prompt", "status_a", "text_a", "status_b", "text_b", "language", "answer_a", "answer_b")
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
