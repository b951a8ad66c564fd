"""The documentation a newcomer reads: the README stays a five-minute page (under 1,200 words, short
sentences), and every relative link in it and in docs/ and the packages' READMEs leads to a file that
exists (a section moved out of the README must not leave dead links behind)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"```.*?```", re.S)


def _prose(path: Path) -> str:
    return _FENCE.sub("", path.read_text(encoding="utf-8"))


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"\s+", text) if re.search(r"\w", w)]


def test_readme_is_a_five_minute_page() -> None:
    text = _prose(ROOT / "README.md")
    assert len(_words(text)) < 1200
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", re.sub(r"\s+", " ", text)) if len(_words(s)) > 2]
    longest = max(sentences, key=lambda s: len(_words(s)))
    assert len(_words(longest)) <= 30, longest


def _docs() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
    found += sorted((ROOT / "evaluators").glob("*/README.md"))
    found += [ROOT / "evaluators" / "README.md"] if (ROOT / "evaluators" / "README.md").exists() else []
    return found


@pytest.mark.parametrize("doc", _docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files(doc: Path) -> None:
    dead = []
    for target in _LINK.findall(_prose(doc)):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if path and not (doc.parent / path).exists():
            dead.append(target)
    assert dead == [], f"{doc.relative_to(ROOT)} links to files that do not exist: {dead}"
