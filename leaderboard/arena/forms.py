"""Forms for the arena pages: a prompt and a vote. The rules live in services; these only carry input."""

from __future__ import annotations

from django import forms

from leaderboard.arena.models import Winner


class PromptForm(forms.Form):
    # No max_length here: services.prompt_clean gives the one message for every way a prompt is refused.
    # The placeholder is set by the view from what the contestants can answer (``arena.about``).
    prompt = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), strip=False, required=False)


class VoteForm(forms.Form):
    winner = forms.ChoiceField(choices=Winner.choices)
