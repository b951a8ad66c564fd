"""API routes: each app's viewsets and views under /api/ (the apps own them: ``<app>/api.py``)."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from leaderboard.arena import api as arena_api
from leaderboard.arena import report_api as arena_reports
from leaderboard.boards import api as boards_api
from leaderboard.modelhost import api as modelhost_api
from leaderboard.runs import api as runs_api

router = DefaultRouter()
router.register("benchmarks", boards_api.BenchmarkViewSet, basename="api-benchmark")
router.register("models", boards_api.ModelViewSet, basename="api-model")
router.register("submissions", runs_api.SubmissionViewSet, basename="api-submission")
router.register("runs", runs_api.RunViewSet, basename="api-run")
router.register("uploads", modelhost_api.UploadViewSet, basename="api-upload")
router.register("arena/battles", arena_api.BattleViewSet, basename="api-arena-battle")
router.register("arena/ratings", arena_api.ArenaRatingsViewSet, basename="api-arena-ratings")
urlpatterns = router.urls + [
    path("arena/transparency/", arena_reports.TransparencyView.as_view(), name="api-arena-transparency"),
    path("arena/distribution/", arena_reports.DistributionView.as_view(), name="api-arena-distribution"),
    path("arena/agreement/", boards_api.AgreementView.as_view(), name="api-arena-agreement"),
]
