"""The page URLs of submissions and runs (mounted at the site's root)."""

from django.urls import path

from leaderboard.runs import views

urlpatterns = [
    path("models/<slug:slug>/submit/", views.model_submit, name="model-submit"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("runs/<int:pk>/status/", views.run_status, name="run-status"),
    path("runs/<int:pk>/items/", views.run_items, name="run-items"),
    path("runs/<int:pk>/media/<str:key>", views.run_media, name="run-media"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="run-cancel"),
    path("runs/<int:pk>/rerun/", views.run_rerun, name="run-rerun"),
    path("notifications/", views.notifications, name="notifications"),
    path("submit/", views.submit, name="submit"),
    path("benchmarks/<slug:slug>/items.jsonl", views.benchmark_items, name="benchmark-items"),
    path("queue/", views.queue, name="queue"),
]
