"""Model hosting's pages: registering a model, uploading its weights, its pre-flight check, and how each
judged board's judge is validated."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from evaluators.llm.validation import MARGIN
from evaluators.policon.validation import PASS_R
from leaderboard.accounts import policy
from leaderboard.catalog.selectors import models_visible
from leaderboard.http import HtmxRequest, SignedInRequest
from leaderboard.modelhost import services as modelhost
from leaderboard.modelhost import validation
from leaderboard.modelhost.forms import ModelRegistrationForm, WeightsUploadForm
from leaderboard.pagecache import cached_page


@login_required
@require_http_methods(["GET", "POST"])
def model_register(request: SignedInRequest) -> HttpResponse:
    form = ModelRegistrationForm(request.POST or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        upload = data["weights_upload"]
        spec = modelhost.ModelSource(
            source=data["source"],
            hf_repo=data["hf_repo"],
            hf_revision=data["hf_revision"],
            weights_upload_id=upload.pk if upload else None,
            endpoint_base_url=data["endpoint_base_url"],
            endpoint_model=data["endpoint_model"],
            endpoint_api_key=data["endpoint_api_key"],
        )
        try:
            model = modelhost.model_register(
                owner=request.user,
                name=data["name"],
                spec=spec,
                organization=data["organization"],
                modality=data["modality"],
                is_public=data["is_public"],
                release_date=data["release_date"],
            )
        except modelhost.ModelRefused as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
        else:
            messages.success(
                request, "Registered. A CPU worker is pre-flighting it; this page updates when it is done."
            )
            return redirect("model", slug=model.slug)
    return render(request, "web/model_register.html", {"form": form})


@require_http_methods(["GET", "POST"])
def model_preflight(request: HtmxRequest, slug: str) -> HttpResponse:
    """GET: the pre-flight fragment (htmx polls it while pending). POST: run the pre-flight again."""
    model = get_object_or_404(models_visible(user=request.user), slug=slug)
    can_manage = policy.can_manage(request.user, model)
    if request.method == "POST":
        try:
            modelhost.model_preflight_request(model=model, user=request.user)
        except PermissionError as exc:
            raise Http404(str(exc)) from exc
        except modelhost.PreflightAlreadyQueued as exc:
            messages.info(request, str(exc))
        return redirect("model", slug=model.slug)
    if request.htmx:
        return render(request, "web/model.html#preflight", {"model": model, "can_manage": can_manage})
    return redirect("model", slug=model.slug)


@login_required
@require_http_methods(["GET", "POST"])
def weights_upload(request: SignedInRequest) -> HttpResponse:
    """The upload page: static/js/upload.js sends the archive in parts through the API (resumable);
    without JavaScript the form posts a small archive in one request."""
    form = WeightsUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            upload = modelhost.upload_from_file(owner=request.user, file=form.cleaned_data["archive"])
        except modelhost.ModelRefused as exc:
            form.add_error("archive", str(exc))
        else:
            messages.success(request, f"Upload #{upload.pk} complete; register a model with it below.")
            return redirect("model-register")
    return render(request, "web/upload.html", {"form": form, "part_size": settings.UPLOAD_PART_BYTES})


@cached_page
def judges(request: HtmxRequest) -> HttpResponse:
    """How a judged board's judge is validated, and where each board stands."""
    return render(
        request,
        "web/judges.html",
        {
            "boards": validation.judged_boards(),
            "margin": MARGIN,
            "pass_r": PASS_R,
            "not_validated": validation.NOT_VALIDATED,
        },
    )
