"""The page URLs of the leaderboards (mounted at the site's root)."""

from django.urls import path

from leaderboard.boards import views

urlpatterns = [
    path("benchmarks/<slug:slug>/", views.benchmark_detail, name="benchmark"),
    path("models/", views.models_index, name="models"),
    path("models/<slug:slug>/", views.model_detail, name="model"),
    path("compare/", views.compare, name="compare"),
]
