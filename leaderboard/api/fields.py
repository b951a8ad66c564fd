"""Serializer fields the apps' APIs share: text and JSON that may hold an endpoint's URL, shown without
the user name or password in it."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from evaluators.llm.types import redact_userinfo


def _without_userinfo(value: Any) -> Any:
    """``value`` (text, or JSON lists and objects of it) with the user name and password taken out of every URL."""
    if isinstance(value, str):
        return redact_userinfo(value)
    if isinstance(value, list):
        return [_without_userinfo(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_userinfo(v) for k, v in value.items()}
    return value


class ShownTextField(serializers.CharField):
    """Text that may hold an endpoint's URL (the address, a failure message), shown without any user name or
    password in it: registration refuses them, but a row stored before may hold them."""

    def to_representation(self, value: Any) -> str:
        return redact_userinfo(super().to_representation(value))


class ShownJSONField(serializers.JSONField):
    """A JSON record that may hold an endpoint's URL (a run's environment), shown as ShownTextField shows text."""

    def to_representation(self, value: Any) -> Any:
        return _without_userinfo(super().to_representation(value))
