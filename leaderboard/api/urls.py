"""API routes."""
from rest_framework.routers import DefaultRouter

from leaderboard.api import views

router = DefaultRouter()
router.register("benchmarks", views.BenchmarkViewSet, basename="benchmark")
router.register("models", views.ModelViewSet, basename="model")
router.register("submissions", views.SubmissionViewSet, basename="submission")
router.register("runs", views.RunViewSet, basename="run")
urlpatterns = router.urls
