"""Model hosting's page URLs (mounted at the site's root, before the model pages: "register" and "upload"
are not model slugs)."""

from django.urls import path

from leaderboard.modelhost import views

urlpatterns = [
    path("models/register/", views.model_register, name="model-register"),
    path("models/upload/", views.weights_upload, name="weights-upload"),
    path("models/<slug:slug>/preflight/", views.model_preflight, name="model-preflight"),
    path("judges/", views.judges, name="judges"),
]
