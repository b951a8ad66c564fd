"""The admin's half of the page cache (``leaderboard.pagecache``): a staff edit calls no service, so the
admin of each model a board shows says itself that the boards changed, after a save (the form, a list's
editable column, the inlines) and after a delete (one object or a selection, with whatever it cascades to).
The services that write those models say it themselves (``pagecache.boards_changed``)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.forms import BaseFormSet, ModelForm
from django.http import HttpRequest

from leaderboard.pagecache import boards_changed


class ChangesBoardsAdmin(admin.ModelAdmin):
    """A ModelAdmin whose saves and deletes change what the boards show."""

    def save_model(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool) -> None:
        super().save_model(request, obj, form, change)
        boards_changed()

    def save_related(self, request: HttpRequest, form: ModelForm, formsets: list[BaseFormSet], change: bool) -> None:
        super().save_related(request, form, formsets, change)
        boards_changed()

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        super().delete_model(request, obj)
        boards_changed()

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        super().delete_queryset(request, queryset)
        boards_changed()
