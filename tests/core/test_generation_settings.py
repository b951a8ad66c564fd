"""``GenerationSettings``: a submission's stored generation settings read once into a typed value, with
an error naming the setting that is unknown, of another type or out of bounds, and a cache key equal for
equal settings."""

from __future__ import annotations

import pytest

from evaluators.core.settings import GenerationSettings


def test_the_settings_given_are_read_and_the_rest_left_to_the_benchmark() -> None:
    settings = GenerationSettings.from_json({"n": 3, "temperature": "0.5", "max_tokens": 64.0})
    assert settings == GenerationSettings(n=3, temperature=0.5, max_tokens=64)
    assert settings.given() == {"n": 3, "temperature": 0.5, "max_tokens": 64}
    assert GenerationSettings.from_json(None) == GenerationSettings.from_json({}) == GenerationSettings()
    assert GenerationSettings().given() == {}


@pytest.mark.parametrize(
    "stored, message",
    [
        ({"stop": ["\n"]}, "unknown setting 'stop' (known: n, temperature, top_p, max_tokens, seed)"),
        ({"temperature": "warm"}, "setting 'temperature': 'warm' is not a number"),
        ({"top_p": 1.5}, "setting 'top_p': 1.5 is outside 0..1"),
        ({"n": 2.5}, "setting 'n': expected a whole number, got 2.5"),
        ({"seed": True}, "setting 'seed': expected a number, got bool"),
        ({"max_tokens": None}, "setting 'max_tokens': expected a number, got NoneType"),
        (["n", 1], "generation settings: expected an object of setting names and values, got list"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(stored: object, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        GenerationSettings.from_json(stored)
    assert str(refused.value) == message


def test_the_cache_key_is_the_same_for_the_same_settings_however_written() -> None:
    assert (
        GenerationSettings.from_json({"top_p": "0.9", "n": 2}).cache_key()
        == GenerationSettings.from_json({"n": 2.0, "top_p": 0.9}).cache_key()
        == '{"n": 2, "top_p": 0.9}'
    )
    assert GenerationSettings.from_json({"n": 2}).cache_key() != GenerationSettings.from_json({"n": 3}).cache_key()
