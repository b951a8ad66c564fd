"""What a model can take in, as a capability order: a video model also takes images, an image model
also takes text. A model may enter every benchmark whose modality its own covers; the site's
submission rules and the model pre-flight both ask here, so the order is written once."""

from __future__ import annotations

#: from the least to the most capable; each includes everything before it
MODALITIES: tuple[str, ...] = ("text", "image", "video")


def _rank(modality: str) -> int:
    try:
        return MODALITIES.index(modality)
    except ValueError:
        raise ValueError(f"modality: {modality!r} is not one of {', '.join(MODALITIES)}") from None


def covers(model_modality: str, needed: str) -> bool:
    """Whether a model of ``model_modality`` can enter a benchmark that needs ``needed``."""
    return _rank(model_modality) >= _rank(needed)


def covered_by(model_modality: str) -> tuple[str, ...]:
    """Every benchmark modality a model of ``model_modality`` may enter, e.g. ("text", "image")."""
    return MODALITIES[: _rank(model_modality) + 1]


def refusal(*, model_name: str, model_modality: str, benchmark_name: str, needed: str) -> str | None:
    """Why the model may not enter the benchmark, in words that say what to do, or None when it may."""
    if covers(model_modality, needed):
        return None
    article = "an" if model_modality[:1] in "aeiou" else "a"
    return (
        f"{benchmark_name} sends {needed} input, and {model_name} is registered as {article} {model_modality} model. "
        f"Register a model that takes {needed} input (modality {needed}"
        f"{' or video' if needed == 'image' else ''}) to enter it."
    )
