"""The contestants: the embedded ones and those configured, their responders and secrets, and what the sampler knows of
them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.conf import settings

from leaderboard import pagecache
from leaderboard.arena.models import ArenaModel
from leaderboard.arena.services.common import ArenaRefused

# --- models ------------------------------------------------------------------------------------

#: The embedded default's contestants: no GPU, no API key, honest about what they are.
EMBEDDED_MODELS: tuple[dict[str, Any], ...] = (
    {
        "name": "extractive-bm25-sentences",
        "organization": "this site (embedded default)",
        "description": "Not a language model: the best-matching sentences from the local documentation index (BM25), "
        "with citations.",
        "responder": {"kind": "extractive", "strategy": "bm25-sentences"},
    },
    {
        "name": "extractive-lead-passages",
        "organization": "this site (embedded default)",
        "description": "Not a language model: the opening passages of the top documents from the local index, with "
        "citations.",
        "responder": {"kind": "extractive", "strategy": "lead-passages"},
    },
)


def arena_models_seed(*, extra: Sequence[dict[str, Any]] | None = None) -> list[ArenaModel]:
    """Create (or update) the embedded contestants and those in ARENA_MODELS; idempotent."""
    configured = list(EMBEDDED_MODELS) + list(json.loads(settings.ARENA_MODELS or "[]")) + list(extra or [])
    seeded = []
    for spec in configured:
        if "api_key" in spec.get("responder", {}):
            raise ArenaRefused(
                f"arena model {spec.get('name')!r}: put the key in an environment variable and name it in api_key_ref",
                field="responder",
            )
        ref = spec.get("responder", {}).get("api_key_ref")
        if ref is not None and secret_ref_problem(ref):
            raise ArenaRefused(f"arena model {spec.get('name')!r}: {secret_ref_problem(ref)}", field="responder")
        model, _ = ArenaModel.objects.update_or_create(
            name=spec["name"],
            defaults={
                "organization": spec.get("organization", ""),
                "description": spec.get("description", ""),
                "responder": spec.get("responder", {}),
                "weight": float(spec.get("weight", 1.0)),
                "imported": False,
            },
        )
        seeded.append(model)
    pagecache.boards_changed()
    return seeded


def responder_deadline(config: dict[str, Any]) -> dict[str, Any]:
    """A networked responder's request timeout capped at the generation time limit (httpx's timeout
    is per read, so a trickling stream can still run past it: the periodic pass is the guarantee)."""
    if config.get("kind") in ("hosted", "search_tool", "chat"):
        limit = float(settings.ARENA_GENERATION_TIME_LIMIT)
        timeout = config.get("timeout_s")
        if timeout is None:
            config["timeout_s"] = limit
        elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
            config["timeout_s"] = min(float(timeout), limit)
        # anything else is left for the responder factory to refuse, naming the key
    return config


def responder_for(model: ArenaModel, setting: str = "search") -> Any:
    """The contestant's responder for a battle in ``setting`` (in "chat" it answers without search)."""
    from evaluators.arena.responders import responder_from_config

    return responder_from_config(
        responder_deadline(dict(model.responder)), secrets=_secret, name=model.name, setting=setting
    )


def takes_part_in(model: ArenaModel, setting: str) -> bool:
    """Whether the contestant's responder can answer in ``setting`` (an extractive one cannot chat)."""
    from evaluators.arena.plain_chat import settings_of

    return isinstance(model.responder, dict) and setting in settings_of(model.responder)


def drawable_models(setting: str) -> list[ArenaModel]:
    """The contestants that can be drawn for a battle in ``setting`` now: enabled, not imported, not
    retired, able to answer there, and pre-release variants only while pre-release testing is on."""
    candidates = ArenaModel.objects.filter(enabled=True, imported=False, retired_at__isnull=True)
    if not settings.ARENA_PRERELEASE_TESTING:  # an operator's choice: anonymous pre-release variants are off by default
        candidates = candidates.exclude(prerelease=True, released_at__isnull=True)
    return [m for m in candidates if takes_part_in(m, setting)]


#: the only names a responder's ``api_key_ref`` may use: anything else (SECRET_KEY, AWS_*, the
#: database URL...) could otherwise be sent by a staff member to a base_url they control
SECRET_PREFIXES = ("ARENA_SECRET_", "LEADERBOARD_ARENA_SECRET_")


def secret_ref_problem(ref: Any) -> str:
    """Why ``ref`` may not name a responder's key ("" when it may)."""
    if (
        not isinstance(ref, str)
        or not ref.startswith(SECRET_PREFIXES)
        or len(ref) == len(min(SECRET_PREFIXES, key=len))
    ):
        return (
            f"api_key_ref: {ref!r} is not allowed; name a setting or environment variable that starts with "
            f"{' or '.join(SECRET_PREFIXES)} (for example ARENA_SECRET_PERPLEXITY_KEY): only those may hold arena keys"
        )
    return ""


def _secret(ref: str) -> str:
    """A responder's ``api_key_ref`` names a setting or environment variable whose name starts with
    one of SECRET_PREFIXES; the key lives only there. Any other name is refused."""
    import os

    problem = secret_ref_problem(ref)
    if problem:
        raise ArenaRefused(problem, field="api_key_ref")
    value = getattr(settings, ref, None) or os.environ.get(ref)
    if not value:
        raise KeyError(ref)
    return str(value)
