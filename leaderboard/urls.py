"""URL map: the site's own pages (home, health, operations), each app's pages and API, accounts, admin and
the OpenAPI schema and docs."""

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
    # each app's pages; model hosting's before the model pages ("models/register/" is not a model)
    path("", include("leaderboard.modelhost.urls")),
    path("", include("leaderboard.catalog.urls")),
    path("", include("leaderboard.runs.urls")),
    path("", include("leaderboard.boards.urls")),
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
