"""Request checks that hold for every view. A NUL character (``\\x00``) can never be stored (PostgreSQL
text refuses it) and is never meant: a query parameter, or an API form field or file name, holding one
is a 400 that names the field, before any view runs, instead of a server error when the value reaches
the database. JSON bodies are checked the same way by the API's parser
(``leaderboard.api.paging.SafeJSONParser``); the pages' forms refuse it themselves (Django's form
fields and the arena's prompt check name the field in the page)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

NUL = "\x00"


def nul_problem(field: str) -> str:
    return f"{field}: contains a NUL character (\\x00), which cannot be stored; remove it"


def _field_with_nul(request: HttpRequest) -> str | None:
    for name, values in request.GET.lists():
        if NUL in name or any(NUL in v for v in values):
            return name.replace(NUL, "") or "query"
    content_type = request.content_type or ""
    if (
        request.path.startswith("/api/")
        and request.method == "POST"
        and content_type in {"application/x-www-form-urlencoded", "multipart/form-data"}
    ):
        for name, values in request.POST.lists():
            if NUL in name or any(NUL in v for v in values):
                return name.replace(NUL, "") or "form"
        for name, files in request.FILES.lists():
            if any(NUL in (f.name or "") for f in files):
                return name
    return None


def refuse_nul_characters(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    def middleware(request: HttpRequest) -> HttpResponse:
        field = _field_with_nul(request)
        if field is None:
            return get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": nul_problem(field), "field": field}, status=400)
        return HttpResponse(nul_problem(field), status=400, content_type="text/plain; charset=utf-8")

    return middleware
