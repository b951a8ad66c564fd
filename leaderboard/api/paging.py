"""The API's request parsing and pagination, hardened against hostile input.

``BoundedLimitOffsetPagination``: ``limit`` is capped at MAX_LIMIT and ``offset`` at MAX_OFFSET, so a
``?limit=9223372036854775808`` no longer reaches the database as an out-of-range integer (it was a
server error); a value that is not a whole number, a ``limit`` under 1 or an ``offset`` under 0 is a 400
naming the parameter, and the schema says so (minimum and maximum). ``SafeJSONParser``:
a body nested deeper than Python's recursion limit (``'[' * 100000``) is a 400 naming the problem,
not a RecursionError; a string holding a NUL character is a 400 naming where (PostgreSQL cannot store it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser

from leaderboard.middleware import NUL, nul_problem

MAX_LIMIT = 1000
MAX_OFFSET = 10**9


def _whole_number(request: Any, name: str, default: int, low: int, high: int) -> int:
    """A query parameter as a whole number of at least ``low`` (capped at ``high``); absent: ``default``."""
    text = request.query_params.get(name, "")
    if text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValidationError({"detail": f"{name}: {text[:20]!r} is not a whole number", "field": name}) from None
    if value < low:
        raise ValidationError({"detail": f"{name}: must be at least {low}", "field": name})
    return min(value, high)


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = MAX_LIMIT

    def get_limit(self, request: Any) -> int:
        return _whole_number(request, self.limit_query_param, self.default_limit or MAX_LIMIT, 1, MAX_LIMIT)

    def get_offset(self, request: Any) -> int:
        return _whole_number(request, self.offset_query_param, 0, 0, MAX_OFFSET)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        bounds = {self.limit_query_param: (1, MAX_LIMIT), self.offset_query_param: (0, MAX_OFFSET)}
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"] = {**parameter["schema"], "minimum": low, "maximum": high}
        return parameters


class SafeJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
            field = _nul_in(data, "body")
        except RecursionError:
            raise ParseError("JSON parse error: the document is nested too deeply") from None
        if field:  # DRF's shape for a field's problem: {"field": ["message"]}
            raise ValidationError({field.split(".")[0]: [nul_problem(field)]})
        return data


def _nul_in(value: Any, where: str) -> str | None:
    """The first place in a parsed JSON document that holds a NUL character, or None."""
    if isinstance(value, str):
        return where if NUL in value else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        if isinstance(key, str) and NUL in key:
            return where
        found = _nul_in(inner, str(key) if where == "body" else f"{where}.{key}")
        if found:
            return found
    return None
