"""Arena pages: the prompt box, the battle page with its per-pane partials (polled while answers
stream), votes, the ratings page with its downloads, and the staff page of exclusions. Views are
thin: they read the voter, call a service or selector, and render."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from leaderboard.arena import exports, presentation, published, selectors, services, standing
from leaderboard.arena.about import arena_about, reveal_words
from leaderboard.arena.forms import PromptForm, VoteForm
from leaderboard.arena.identity import voter_hash_if_known, voter_of
from leaderboard.arena.models import SIDES, Battle, Setting, VoteExclusion, Winner
from leaderboard.http import HtmxRequest


def _battle_or_404(public_id: str) -> Battle:
    battle = selectors.battle_for_page(public_id=public_id)
    if battle is None:
        raise Http404("no such battle")
    return battle


@require_http_methods(["GET", "POST"])
def arena_home(request: HtmxRequest, setting: str = Setting.SEARCH) -> HttpResponse:
    """The prompt box of one setting: ``/arena/`` (with web search) or ``/arena/chat/`` (plain chat)."""
    form = PromptForm(request.POST or None)
    about = arena_about(setting)
    form.fields["prompt"].widget.attrs["placeholder"] = (
        f"For example: {about.examples[0]}" if about.examples else "Ask anything…"
    )
    status = 200
    if request.method == "POST":
        try:  # the service's checks, not the form's, so every refusal reads the same
            battle = services.battle_create(
                prompt=request.POST.get("prompt", ""), voter=voter_of(request), setting=setting
            )
        except services.ArenaRefused as exc:
            form.add_error("prompt" if exc.field == "prompt" else None, str(exc))
            status = exc.status
        else:
            return redirect("arena-battle", public_id=battle.public_id)
    return render(
        request,
        "arena/home.html",
        {"form": form, "setting": setting, "chat": setting == Setting.CHAT, "about": about},
        status=status,
    )


def _battle_context(request: HtmxRequest, battle: Battle) -> dict:
    revealed = battle.locked
    turns = selectors.battle_turns(battle, with_attributions=revealed)
    vote = getattr(battle, "vote", None) if revealed else None  # the reverse one-to-one raises when there is none
    return {
        "battle": battle,
        "revealed": revealed,
        "mine": battle.voter_hash == voter_hash_if_known(request),
        "turns": [
            (t, presentation.pane(t, "a", revealed=revealed), presentation.pane(t, "b", revealed=revealed))
            for t in turns
        ],
        "complete": selectors.battle_complete(turns),
        "winners": Winner.choices,
        "prompt_form": PromptForm(),
        "vote": vote,
        # when the vote reaches the public figures (never at once: the public cut's delay)
        "counts_from": selectors.public_from(vote.created_at) if vote is not None else None,
        # what each contestant is, only after the vote (before it, it would narrow down who is who)
        "natures": {
            "a": reveal_words(battle.model_a, battle.setting),
            "b": reveal_words(battle.model_b, battle.setting),
        }
        if revealed
        else {},
    }


def battle_page(request: HtmxRequest, public_id: str) -> HttpResponse:
    battle = _battle_or_404(public_id)
    return render(request, "arena/battle.html", _battle_context(request, battle))


@require_GET
def battle_pane(request: HtmxRequest, public_id: str, index: int, side: str) -> HttpResponse:
    """One pane's partial: it re-polls itself while the answer streams in; once both are done it
    asks the page to refresh the vote controls."""
    battle = _battle_or_404(public_id)
    turn = battle.turns.filter(index=index).first()
    if turn is None or side not in SIDES:
        raise Http404("no such turn")
    pane = presentation.pane(turn, side, revealed=battle.locked)
    response = render(request, "arena/battle.html#pane", {"battle": battle, "turn": turn, "pane": pane})
    if pane.done and turn.done:
        response["HX-Trigger"] = "arena-turn-done"
    return response


@require_GET
def battle_controls(request: HtmxRequest, public_id: str) -> HttpResponse:
    battle = _battle_or_404(public_id)
    return render(request, "arena/battle.html#controls", _battle_context(request, battle))


def _refusal(request: HtmxRequest, battle: Battle, exc: services.ArenaRefused) -> HttpResponse:
    if request.htmx:
        return render(request, "arena/battle.html#refusal", {"message": str(exc)}, status=exc.status)
    context = _battle_context(request, battle)
    context["refusal"] = str(exc)
    return render(request, "arena/battle.html", context, status=exc.status)


@require_POST
def battle_turn(request: HtmxRequest, public_id: str) -> HttpResponse:
    battle = _battle_or_404(public_id)
    form = PromptForm(request.POST)
    try:
        services.turn_add(battle=battle, prompt=form.data.get("prompt", ""), voter=voter_of(request))
    except services.ArenaRefused as exc:
        return _refusal(request, battle, exc)
    return redirect("arena-battle", public_id=battle.public_id)


@require_POST
def battle_vote(request: HtmxRequest, public_id: str) -> HttpResponse:
    """The vote reads the battle itself (one query); the page is loaded only to show a refusal."""
    form = VoteForm(request.POST)
    try:
        if not form.is_valid():
            raise services.ArenaRefused(f"winner: choose one of {', '.join(Winner.values)}", field="winner")
        services.vote_cast(battle=public_id, winner=form.cleaned_data["winner"], voter=voter_of(request))
    except services.ArenaRefused as exc:
        return _refusal(request, _battle_or_404(public_id), exc)  # a missing battle is a 404 here
    messages.success(request, "Thanks, your vote is in. Here are the models.")
    return redirect("arena-battle", public_id=public_id)


def _board_filter(request: HtmxRequest) -> tuple[str, str]:
    """The leaderboard filter a request asks for: ("intent" or "language", its value), or ("", "")."""
    for name in exports.FILTER_KEYS:
        if request.GET.get(name):
            return name, request.GET[name]
    return "", ""


def leaderboard_page(request: HtmxRequest) -> HttpResponse:
    """The Search Arena's board (``?intent=`` / ``?language=``: a sub-board), or the plain-chat setting's
    (``?setting=chat``)."""
    key, value = (
        ("setting", Setting.CHAT.value) if request.GET.get("setting") == Setting.CHAT else _board_filter(request)
    )
    board = selectors.latest_snapshots(filter_key=key, filter_value=value)
    context = {
        "board": board,
        "raw_rows": presentation.rating_rows(board.raw),
        "style_rows": presentation.rating_rows(board.style),
        "raw_standings": standing.standings(board.raw),
        "style_standings": standing.standings(board.style),
        "coefficients": presentation.coefficient_rows(board.style),
        "robustness": presentation.robustness(board.raw),
        "win_rate": presentation.matrix_rows(board.raw, "win_rate"),
        "counts": presentation.matrix_rows(board.raw, "battle_count"),
        "language_options": presentation.language_options(board.languages),
        "question": request.GET.get("q", ""),
        # the question's ranking: computed for this answer, never stored (nor is the question)
        "for_prompt": services.ratings_for_prompt(request.GET["q"]) if request.GET.get("q", "").strip() else None,
    }
    template = "arena/leaderboard.html#board" if request.htmx else "arena/leaderboard.html"
    return render(request, template, context)


def topics_page(request: HtmxRequest) -> HttpResponse:
    """The topic explorer: the public prompts' topics and subtopics, each with its ratings, and the held-out
    comparison."""
    snapshot = selectors.latest_topics()
    return render(request, "arena/topics.html", {"snapshot": snapshot, "topics": presentation.topic_rows(snapshot)})


def findings_page(request: HtmxRequest) -> HttpResponse:
    """What voters reward: each style feature's effect with its interval, by intent and language, and
    how the ranking moves with style control; with the domain table behind the source categories."""
    from evaluators.arena.style import domain_table, paper_rules_table

    # every figure as kept under the latest ratings (``published``): no vote is read here
    return render(
        request,
        "arena/findings.html",
        {
            **published.findings(),
            "domains": domain_table(),
            "paper_rules": paper_rules_table(),
            "head_to_head": published.head_to_head(),
            "distribution": published.distribution(),
        },
    )


def transparency_page(request: HtmxRequest) -> HttpResponse:
    """The transparency report (``leaderboard.arena.transparency``)."""
    return render(request, "arena/transparency.html", {"report": published.transparency()})


@require_GET
def votes_download(request: HtmxRequest, fmt: str) -> HttpResponseBase:
    """The file the ratings task wrote for the latest ratings (``?intent=`` / ``?language=``: the
    votes behind that board); never built here."""
    if fmt not in exports.FORMATS:
        raise Http404("format: use jsonl or parquet")
    key, value = _board_filter(request)
    try:
        return exports.download_response(fmt, filter_key=key, filter_value=value)
    except exports.NoExport as exc:
        raise Http404(str(exc)) from None


@staff_member_required
def exclusions_page(request: HtmxRequest) -> HttpResponse:
    code = request.GET.get("code", "")
    page = Paginator(selectors.exclusions(code=code), 100).get_page(request.GET.get("page"))
    return render(request, "arena/exclusions.html", {"page": page, "code": code, "codes": VoteExclusion.Code.choices})
