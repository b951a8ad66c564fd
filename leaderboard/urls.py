"""URL map: pages, accounts, admin and the API with its OpenAPI schema and docs."""
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from leaderboard.accounts import views as account_views
from leaderboard.web import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("ops/status/", views.ops_status, name="ops-status"),
    path("benchmarks/<slug:slug>/", views.benchmark_detail, name="benchmark"),
    path("benchmarks/<slug:slug>/items.jsonl", views.benchmark_items, name="benchmark-items"),
    path("benchmarks/<slug:slug>/example-predictions.jsonl", views.example_predictions, name="example-predictions"),
    path("judges/", views.judges, name="judges"),
    path("models/", views.models_index, name="models"),
    path("models/register/", views.model_register, name="model-register"),
    path("models/upload/", views.weights_upload, name="weights-upload"),
    path("models/<slug:slug>/", views.model_detail, name="model"),
    path("models/<slug:slug>/preflight/", views.model_preflight, name="model-preflight"),
    path("models/<slug:slug>/submit/", views.model_submit, name="model-submit"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission"),
    path("runs/<int:pk>/status/", views.run_status, name="run-status"),
    path("runs/<int:pk>/items/", views.run_items, name="run-items"),
    path("runs/<int:pk>/media/<str:key>", views.run_media, name="run-media"),
    path("notifications/", views.notifications, name="notifications"),
    path("compare/", views.compare, name="compare"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="run-cancel"),
    path("runs/<int:pk>/rerun/", views.run_rerun, name="run-rerun"),
    path("submit/", views.submit, name="submit"),
    path("queue/", views.queue, name="queue"),
    path("arena/", include("leaderboard.arena.urls")),
    path("", include("leaderboard.history.urls")),  # snapshots and changelog: pages and API
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/token/", account_views.api_token, name="api-token"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include("leaderboard.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

handler404 = "leaderboard.web.views.not_found"
handler500 = "leaderboard.web.views.server_error"
