"""History URLs: pages under /benchmarks/<slug>/ and the API under /api/benchmarks/<slug>/ (mounted at the site's
root)."""

from django.urls import path

from leaderboard.history import api, views

urlpatterns = [
    path("benchmarks/<slug:slug>/snapshots/", views.snapshot_list, name="snapshots"),
    path("benchmarks/<slug:slug>/snapshots/<int:pk>/", views.snapshot_detail, name="snapshot"),
    path(
        "benchmarks/<slug:slug>/snapshots/<int:pk>/download.<str:fmt>",
        views.snapshot_download,
        name="snapshot-download",
    ),
    path("benchmarks/<slug:slug>/changelog/", views.changelog, name="changelog"),
    path("api/benchmarks/<slug:slug>/snapshots/", api.SnapshotListView.as_view(), name="api-snapshots"),
    path("api/benchmarks/<slug:slug>/snapshots/<int:pk>/", api.SnapshotDetailView.as_view(), name="api-snapshot"),
    path("api/benchmarks/<slug:slug>/changelog/", api.ChangelogView.as_view(), name="api-changelog"),
]
