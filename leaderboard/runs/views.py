"""The pages of submissions and runs: a model's submit form, a submission, a run's status, items and
media, its cancel and re-run, the submit page with its guides' requests files, the queue and the
notifications. The boards' pages are ``leaderboard.boards.views``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from leaderboard.accounts import policy
from leaderboard.catalog.labels import labels_for
from leaderboard.catalog.media import dataset_medium
from leaderboard.catalog.models import Benchmark
from leaderboard.catalog.selectors import models_runnable, models_visible
from leaderboard.http import HtmxRequest, SignedInRequest
from leaderboard.runs import public_queue as work_queue
from leaderboard.runs import selectors, services
from leaderboard.runs import submit_guide as guide
from leaderboard.runs.forms import ModelSubmitForm, PredictionsSubmissionForm
from leaderboard.runs.notifications import notifications_for, notifications_mark_read


@require_POST
@login_required
def model_submit(request: SignedInRequest, slug: str) -> HttpResponse:
    model = get_object_or_404(models_visible(user=request.user), slug=slug)
    form = ModelSubmitForm(request.POST)
    if form.is_valid():
        try:
            submission = services.submission_create_for_model(
                owner=request.user,
                model=model,
                benchmarks=list(form.cleaned_data["benchmarks"]),
                generation_settings=form.cleaned_data["generation_settings"] or {},
                is_public=form.cleaned_data["is_public"],
                note=form.cleaned_data["note"],
            )
        except services.SubmissionRefused as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request,
                "Accepted. A worker will generate the predictions, then score them; this page updates as it goes.",
            )
            return redirect("submission", pk=submission.pk)
    else:
        messages.error(request, "; ".join(f"{k}: {' '.join(str(e) for e in v)}" for k, v in form.errors.items()))
    return redirect("model", slug=model.slug)


def submission_detail(request: HtmxRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(selectors.submissions_visible(user=request.user), pk=pk)
    runs = list(submission.runs.select_related("benchmark", "dataset_version"))
    return render(
        request,
        "web/submission.html",
        {
            "submission": submission,
            "runs": [(run, selectors.run_progress(run=run)) for run in runs],
            "can_manage": policy.can_manage(request.user, submission),
        },
    )


def run_status(request: HtmxRequest, pk: int) -> HttpResponse:
    """The progress fragment; it re-polls itself while the run is unfinished."""
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    can_manage = policy.can_manage(request.user, run)
    context = {"run": run, "progress": selectors.run_progress(run=run), "can_manage": can_manage}
    if request.htmx:
        return render(request, "web/submission.html#run-status", context)
    return redirect("submission", pk=run.submission_id)


def run_items(request: HtmxRequest, pk: int) -> HttpResponse:
    """A run's item results, 50 a page, each with the work behind its scores and the items that belong with
    it (Video NIAH's other hop); ``?failed=1``: only those without full marks."""
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    failed_only = request.GET.get("failed") == "1"
    page = Paginator(selectors.run_item_results(run=run, failed_only=failed_only), 50).get_page(request.GET.get("page"))
    results = list(page)
    companions = selectors.item_companions(run=run, item_ids=[r.item_id for r in results])
    template = "web/run_items.html#items" if request.htmx else "web/run_items.html"
    return render(
        request,
        template,
        {
            "run": run,
            "page": page,
            "failed_only": failed_only,
            "labels": labels_for(run.benchmark),
            "rows": [(r, companions[r.item_id]) for r in results],
        },
    )


@login_required
def notifications(request: SignedInRequest) -> HttpResponse:
    """The user's latest notifications (runs finished or failed); viewing them marks them read."""
    found = notifications_for(user=request.user)
    unread = {n.pk for n in found if n.read_at is None}
    notifications_mark_read(user=request.user)
    return render(request, "web/notifications.html", {"notifications": found, "unread": unread})


def run_media(request: HtmxRequest, pk: int, key: str) -> HttpResponse:
    """An image of the run's dataset version (the per-item page shows what the model saw); only keys
    stored under that version, for those who may see the run."""
    run = get_object_or_404(selectors.runs_visible(user=request.user).select_related("dataset_version"), pk=pk)
    try:
        data, content_type = dataset_medium(run.dataset_version, key)
    except LookupError:
        raise Http404("no such image in this run's dataset") from None
    response = HttpResponse(data, content_type=content_type)
    response["Cache-Control"] = "private, max-age=31536000, immutable"  # content-addressed: never changes
    return response


@require_POST
@login_required
def run_cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    try:
        changed = services.run_cancel(run=run, user=request.user)
    except PermissionError as exc:
        raise Http404(str(exc)) from exc
    messages.info(request, "Run cancelled." if changed else "This run had already finished.")
    return redirect("submission", pk=run.submission_id)


@require_POST
@login_required
def run_rerun(request: SignedInRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(selectors.runs_visible(user=request.user), pk=pk)
    try:
        services.run_rerun(run=run, user=request.user)
    except PermissionError as exc:
        raise Http404(str(exc)) from exc
    except services.SubmissionRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Re-run queued.")
    return redirect("submission", pk=run.submission_id)


@login_required
@require_http_methods(["GET", "POST"])
def submit(request: SignedInRequest) -> HttpResponse:
    form = PredictionsSubmissionForm(
        request.POST or None, request.FILES or None, initial={"benchmark": request.GET.get("benchmark")}
    )
    problems: list = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["predictions"]
        try:
            submission = services.submission_create_from_predictions(
                owner=request.user,
                benchmark=form.cleaned_data["benchmark"],
                model_name=form.cleaned_data["model_name"],
                data=upload.read(),
                is_public=form.cleaned_data["is_public"],
                note=form.cleaned_data["note"],
                release_date=form.cleaned_data["release_date"],
            )
        except services.SubmissionRefused as exc:
            form.add_error(
                exc.field if exc.field in form.fields else None,
                str(exc)
                if not exc.problems
                else f"{len(exc.problems)} problem(s) found; nothing was stored or queued. Fix them and upload again.",
            )
            problems = exc.problems
        else:
            messages.success(request, "Accepted. Your run is queued; this page updates as it progresses.")
            return redirect("submission", pk=submission.pk)
    # a refused upload re-renders the form with its problems as a 400, so that clients and tools see the refusal
    return render(
        request,
        "web/submit.html",
        {
            "form": form,
            "problems": problems,
            "quota_left": services.quota_remaining(user=request.user),
            "runnable_models": models_runnable(user=request.user),
            "guides": guide.guides(),
            "selected": str(form["benchmark"].value() or ""),
        },
        status=400 if request.method == "POST" else 200,
    )


def benchmark_items(request: HtmxRequest, slug: str) -> StreamingHttpResponse:
    """The current dataset version's requests as JSON lines, to run a text model offline (guide.item_requests)."""
    benchmark = get_object_or_404(Benchmark, slug=slug)
    if guide.guide_for(benchmark) is None:
        raise Http404("This board has no dataset yet.")
    response = StreamingHttpResponse(guide.item_requests(benchmark), content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="{slug}-requests.jsonl"'
    return response


def queue(request: HtmxRequest) -> HttpResponse:
    """What runs, waits and failed lately, private work unnamed (``?format=json``: the API's JSON)."""
    found = work_queue.public_queue(user=request.user)
    if request.GET.get("format") == "json":
        return JsonResponse(found.to_dict())
    return render(request, "web/queue.html", {"queue": found})
