"""The catalog's page URLs (mounted at the site's root)."""

from django.urls import path

from leaderboard.catalog import views

urlpatterns = [
    path("benchmarks/<slug:slug>/example-predictions.jsonl", views.example_predictions, name="example-predictions"),
]
