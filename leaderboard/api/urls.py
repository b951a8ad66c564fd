"""API routes."""
from django.urls import path
from rest_framework.routers import DefaultRouter

from leaderboard.api import views
from leaderboard.arena import api as arena_api
from leaderboard.arena import report_api as arena_reports

router = DefaultRouter()
router.register("benchmarks", views.BenchmarkViewSet, basename="api-benchmark")
router.register("models", views.ModelViewSet, basename="api-model")
router.register("submissions", views.SubmissionViewSet, basename="api-submission")
router.register("runs", views.RunViewSet, basename="api-run")
router.register("uploads", views.UploadViewSet, basename="api-upload")
router.register("arena/battles", arena_api.BattleViewSet, basename="api-arena-battle")
router.register("arena/ratings", arena_api.ArenaRatingsViewSet, basename="api-arena-ratings")
urlpatterns = router.urls + [
    path("arena/transparency/", arena_reports.TransparencyView.as_view(), name="api-arena-transparency"),
    path("arena/distribution/", arena_reports.DistributionView.as_view(), name="api-arena-distribution"),
    path("arena/agreement/", arena_reports.AgreementView.as_view(), name="api-arena-agreement"),
]
