"""Sign-up, and the page that shows a user's API token."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from leaderboard.http import HtmxRequest, SignedInRequest


@require_http_methods(["GET", "POST"])
def signup(request: HtmxRequest) -> HttpResponse:
    form: UserCreationForm[User] = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, "Welcome! Submit a predictions file to get your first score.")
        return redirect("submit")
    return render(request, "registration/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: SignedInRequest) -> HttpResponse:
    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        messages.success(request, "A new API token was made; the old one no longer works.")
        return redirect("api-token")
    token, _ = Token.objects.get_or_create(user=request.user)
    return render(request, "registration/token.html", {"token": token})
