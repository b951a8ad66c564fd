"""The API's request parsing and pagination, hardened against hostile input.

``BoundedLimitOffsetPagination``: ``limit`` is capped at MAX_LIMIT and ``offset`` at MAX_OFFSET, so a
``?limit=9223372036854775808`` no longer reaches the database as an out-of-range integer (it was a
server error); a value that is not a number falls back to the default, as DRF does. ``SafeJSONParser``:
a body nested deeper than Python's recursion limit (``'[' * 100000``) is a 400 naming the problem,
not a RecursionError.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser

MAX_LIMIT = 1000
MAX_OFFSET = 10**9


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = MAX_LIMIT

    def get_offset(self, request: Any) -> int:
        return min(super().get_offset(request), MAX_OFFSET)


class SafeJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error: the document is nested too deeply") from None
