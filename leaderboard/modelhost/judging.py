"""Judges configured for the site: the ``LEADERBOARD_JUDGES`` setting, read into pinned judges.

The setting is a JSON object of judge key -> ``{"name", "revision", "prompt_version", "base_url",
"model", "api_key_env"}``: ``name`` and ``revision`` (a model revision or an API version) pin the
model a leaderboard names, ``prompt_version`` the judge prompts, ``base_url``/``model`` where it is
served (any OpenAI-compatible endpoint), and ``api_key_env`` the environment variable holding its
key (the key itself is never written in a setting). An evaluator with ``judge_role = "<key>"``
gets ``Judge(spec, ChatClient(endpoint))`` through ``judging().judged`` (see
``evaluators.core.protocol``); the run records ``judge_record(spec)`` in its environment.
"""

from __future__ import annotations

import json
import os
from typing import Any

from django.conf import settings

from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec

REQUIRED = ("name", "revision", "prompt_version", "base_url", "model")


class JudgeNotConfigured(LookupError):
    """An evaluator asks for a judge the ``LEADERBOARD_JUDGES`` setting does not define (or defines badly)."""


def judges_configured() -> dict[str, dict[str, Any]]:
    """The parsed setting; raises JudgeNotConfigured naming the entry and field that is wrong."""
    raw = settings.JUDGES
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as exc:
        raise JudgeNotConfigured(f"LEADERBOARD_JUDGES is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise JudgeNotConfigured("LEADERBOARD_JUDGES must be a JSON object of judge key -> {name, revision, ...}")
    for key, entry in data.items():
        if not isinstance(entry, dict):
            raise JudgeNotConfigured(f"LEADERBOARD_JUDGES[{key!r}] must be an object")
        missing = [f for f in REQUIRED if not str(entry.get(f) or "").strip()]
        if missing:
            raise JudgeNotConfigured(f"LEADERBOARD_JUDGES[{key!r}] lacks {', '.join(missing)}")
    return data


def judge_spec(role: str) -> JudgeSpec:
    """The pinned judge configured under ``role``, with its endpoint (key read from ``api_key_env``)."""
    judges = judges_configured()
    if role not in judges:
        raise JudgeNotConfigured(
            f"this benchmark needs the judge {role!r}, but LEADERBOARD_JUDGES does not define it "
            f"(defined: {', '.join(sorted(judges)) or 'none'})"
        )
    entry = judges[role]
    api_key = ""
    if entry.get("api_key_env"):
        api_key = os.environ.get(entry["api_key_env"], "")
        if not api_key:
            raise JudgeNotConfigured(
                f"LEADERBOARD_JUDGES[{role!r}]: the environment variable {entry['api_key_env']} "
                "holding its API key is not set"
            )
    return JudgeSpec(
        name=str(entry["name"]),
        revision=str(entry["revision"]),
        prompt_version=str(entry["prompt_version"]),
        endpoint=Endpoint(str(entry["base_url"]), str(entry["model"]), api_key),
    )


def judge_for(role: str, *, concurrency: int | None = None) -> Judge:
    """A ready Judge for ``role``: one connection pool, at most ``concurrency`` calls in flight
    (``LEADERBOARD_JUDGE_CONCURRENCY``), shared by the threads that score items."""
    spec = judge_spec(role)
    assert spec.endpoint is not None
    bound = max(1, concurrency or settings.JUDGE_CONCURRENCY)
    client = ChatClient(spec.endpoint, max_concurrency=bound, timeout_s=settings.GENERATION_REQUEST_TIMEOUT)
    return Judge(spec, client, concurrency=bound)


def judge_record(spec: JudgeSpec, role: str) -> dict[str, str]:
    """What a run stores in ``environment["judge"]`` and a leaderboard prints (no endpoint, no key),
    with the setting's optional ``note`` (a caveat every page showing its scores repeats)."""
    note = str(judges_configured().get(role, {}).get("note") or "")
    return {**spec.to_dict(), "label": spec.label, "role": role, **({"note": note} if note else {})}


#: The embedded default's judge (``make run``): installed by scripts/install-demo-judge, served by
#: ``manage.py demo_judge`` (vLLM's CPU build where it is installed: batched, with guided decoding;
#: else `transformers serve`, one request at a time), configured by ``manage.py demo_judge --setting``.
DEMO_JUDGE_DIR = "models/smollm2-135m-instruct"  # under VAR_DIR
DEMO_JUDGE = {"name": "SmolLM2-135M-Instruct", "revision": "Q4_1-gguf-b179c95", "prompt_version": "v1"}
#: how the demo judge's server constrains its answers, by server kind (the note's middle)
DEMO_JUDGE_SERVED = {
    "vllm": "served on the CPU by vLLM with guided decoding, so it always answers in the asked form",
    "transformers": "served on the CPU without guided decoding",
}


def demo_judge_note(server: str) -> str:
    """The caveat every page showing the demo judge's scores repeats, for its ``server`` kind."""
    return (
        f"the embedded demo's judge is SmolLM2-135M-Instruct (Apache-2.0, 135M parameters, "
        f"{DEMO_JUDGE_SERVED[server]}). "
        "It is a real language model but far too small to judge well: its votes are close to noise, so these figures "
        "only show the pipeline working, not the models' quality. A request identical to one it has answered at "
        "temperature 0 (the seed aside) is answered from a cache, not asked again."
    )


def demo_judge_server() -> str:
    """The server the demo judge runs on: vLLM where its Python is installed (``VLLM_PYTHON``), which batches
    concurrent calls and constrains answers, else `transformers serve`."""
    return "vllm" if settings.VLLM_PYTHON else "transformers"


#: the judge roles of the evaluators that ship with the site
JUDGED_ROLES: tuple[str, ...] = ("policon", "causal-pitfalls", "indic-vision")


def demo_judge_setting(
    base_url: str, model: str, server: str = "transformers", roles: tuple[str, ...] = JUDGED_ROLES
) -> dict[str, dict[str, str]]:
    """LEADERBOARD_JUDGES for the demo judge served at ``base_url`` under the name ``model`` by ``server``."""
    return {
        role: {**DEMO_JUDGE, "note": demo_judge_note(server), "base_url": base_url, "model": model} for role in roles
    }
