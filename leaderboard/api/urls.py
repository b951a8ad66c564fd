"""API routes."""
from rest_framework.routers import DefaultRouter

from leaderboard.api import views
from leaderboard.arena import api as arena_api

router = DefaultRouter()
router.register("benchmarks", views.BenchmarkViewSet, basename="benchmark")
router.register("models", views.ModelViewSet, basename="model")
router.register("submissions", views.SubmissionViewSet, basename="submission")
router.register("runs", views.RunViewSet, basename="run")
router.register("uploads", views.UploadViewSet, basename="upload")
router.register("arena/battles", arena_api.BattleViewSet, basename="arena-battle")
router.register("arena/ratings", arena_api.ArenaRatingsViewSet, basename="arena-ratings")
urlpatterns = router.urls
