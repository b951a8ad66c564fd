"""The API schema's error answers, added to every operation by a drf-spectacular post-processing hook,
so that every status code a client can get is documented: a problem body (``detail``, the ``field`` at
fault, or DRF's per-field messages) for 400 on operations with inputs, 401 (a wrong or expired token)
and 403 everywhere, 404 where the path names an object, 409 where a state can refuse, 413 for an
oversized upload part, 415 for a body of another media type, 429 on rate-limited writes and 503 when the arena has too
few models."""

from __future__ import annotations

from typing import Any

PROBLEM = {
    "type": "object",
    "description": "Why the request was refused: `detail` (and the `field` at fault), or DRF's messages per field.",
    "properties": {"detail": {"type": "string"}, "field": {"type": "string", "nullable": True}},
    "additionalProperties": True,
}
REASONS = {
    "400": "The input is invalid: the problem names the field.",
    "401": "The token is wrong or expired.",
    "403": "Signed in, but not allowed (not the owner, or no CSRF token with a session).",
    "404": "No such object, or not visible to you.",
    "409": "Refused in the object's current state (e.g. answers still coming, already voted).",
    "413": "The upload part is larger than declared.",
    "415": "The body's Content-Type is not one this operation reads.",
    "429": "Over a rate limit or quota; the problem says when to try again.",
    "503": "The arena has fewer than two models enabled.",
}


def _codes(path: str, method: str, operation: dict[str, Any]) -> set[str]:
    codes = {"401", "403"}
    params = operation.get("parameters", [])
    if "requestBody" in operation or any(p.get("in") == "query" for p in params):
        codes.add("400")
    if "requestBody" in operation:
        codes.add("415")
    if "{" in path:
        codes.add("404")
    if method in {"post", "put", "patch", "delete"}:
        codes |= {"400", "429"}
    if path.startswith("/api/arena/battles/"):
        codes |= {"409"} if "{" in path else {"503"}
    if "/parts/" in path:
        codes.add("413")
    if path.endswith("/complete/"):
        codes.add("409")
    if path.startswith("/api/arena/ratings/"):
        codes.add("404")  # no ratings computed yet
    return codes


def document_errors(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM
    for path, methods in result.get("paths", {}).items():
        for method, operation in methods.items():
            responses = operation.setdefault("responses", {})
            for code in sorted(_codes(path, method, operation)):
                responses.setdefault(
                    code,
                    {
                        "description": REASONS[code],
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
                    },
                )
    return result
