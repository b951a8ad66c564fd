"""The page URLs of submissions, runs and leaderboards (mounted at the site's root)."""
from django.urls import path

from leaderboard.submissions import views

urlpatterns = [
    path("benchmarks/<slug:slug>/", views.benchmark_detail, name="benchmark"),
    path("models/", views.models_index, name="models"),
    path("models/<slug:slug>/", views.model_detail, name="model"),
    path("models/<slug:slug>/submit/", views.model_submit, name="model-submit"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("runs/<int:pk>/status/", views.run_status, name="run-status"),
    path("runs/<int:pk>/items/", views.run_items, name="run-items"),
    path("runs/<int:pk>/media/<str:key>", views.run_media, name="run-media"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="run-cancel"),
    path("runs/<int:pk>/rerun/", views.run_rerun, name="run-rerun"),
    path("notifications/", views.notifications, name="notifications"),
    path("compare/", views.compare, name="compare"),
    path("submit/", views.submit, name="submit"),
    path("queue/", views.queue, name="queue"),
]
