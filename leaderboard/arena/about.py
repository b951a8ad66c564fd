"""What this deployment's arena is, said on ``/arena/`` and in a battle's reveal: what the contestants that
can be drawn are (extractive quoters with no language model, language models given search results, hosted
search services, plain models), what they search (a local collection, named from its index, or the web),
questions that suit them, and whether the plain-chat setting has contestants at all. Derived from the
configured contestants and the search index, never written for one deployment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leaderboard.arena.models import ArenaModel, Setting
from leaderboard.arena.services.contestants import drawable_models

#: local collections we can name, by the package the index was built from (its ``source_version``
#: before "="): the name and questions it can answer
KNOWN_CORPORA: dict[str, tuple[str, tuple[str, ...]]] = {
    "python3.11-doc": (
        "the Python 3.11 documentation (docs.python.org)",
        (
            "How do I read a file line by line in Python?",
            "What is the difference between a list and a tuple?",
            "How do I sort a dictionary by its values?",
        ),
    ),
}

#: questions for contestants that search the web
WEB_QUESTIONS: tuple[str, ...] = (
    "What changed in the latest stable Linux kernel release?",
    "Which countries have the most high-speed rail, and how much?",
    "What do recent studies say about intermittent fasting?",
)


@dataclass(frozen=True)
class Nature:
    """What one contestant is, in words, and what it searches: a local index (its path) or the web."""

    words: str
    local_index: str | None = None  # "default" or a path
    web: bool = False


def _search_of(config: dict[str, Any]) -> dict[str, Any]:
    search = config.get("search")
    if isinstance(search, dict):
        return search
    return {"backend": "local", "index": config.get("index", "default")}


def nature_of(model: ArenaModel, setting: str = Setting.SEARCH) -> Nature:
    """What ``model`` is in ``setting``, from its responder configuration."""
    config = model.responder if isinstance(model.responder, dict) else {}
    kind = config.get("kind")
    if setting == Setting.CHAT or kind == "chat":
        return Nature("a language model answering from what it knows, without search")
    if kind in ("extractive", "search_tool"):
        search = _search_of(config)
        web = search.get("backend") == "searxng"
        local = None if web else str(search.get("index", "default"))
        if kind == "extractive":
            return Nature(
                "not a language model: it quotes the best-matching passages it finds and cites them", local, web
            )
        return Nature("a language model given the top search results as numbered sources", local, web)
    if kind == "hosted":
        return Nature("a hosted search service that searches the web and cites its sources", None, True)
    return Nature("a contestant of an unknown kind")


def corpus_name(index: str) -> tuple[str, tuple[str, ...]]:
    """A local index's collection in words, with questions that suit it (none for a collection we do
    not know), read from the index's own record of what it was built from."""
    from evaluators.arena.search import default_index_path, index_version

    path = default_index_path() if index == "default" else Path(index)
    version = index_version(path)
    if version is None:
        return "a local document collection whose search index is not built yet", ()
    package = version.split("=", 1)[0]
    if package in KNOWN_CORPORA:
        return KNOWN_CORPORA[package]
    return f"a local document collection ({version or 'of unrecorded origin'})", ()


@dataclass(frozen=True)
class About:
    """What ``/arena/`` says about one setting."""

    setting: str
    contestants: int
    natures: list[str] = field(default_factory=list)
    corpora: list[str] = field(default_factory=list)
    web: bool = False
    examples: list[str] = field(default_factory=list)
    chat_available: bool = False

    @property
    def local_only(self) -> bool:
        return bool(self.corpora) and not self.web

    @property
    def corpus_words(self) -> str:
        return " and ".join(self.corpora)


def arena_about(setting: str = Setting.SEARCH) -> About:
    """What the contestants that can be drawn in ``setting`` are, what they search, questions that suit
    them, and whether plain chat has the two contestants a battle needs."""
    models = drawable_models(setting)
    natures = [nature_of(m, setting) for m in models]
    corpora: list[str] = []
    examples: list[str] = []
    for index in dict.fromkeys(n.local_index for n in natures if n.local_index is not None):
        name, questions = corpus_name(index)
        corpora.append(name)
        examples.extend(questions)
    web = any(n.web for n in natures)
    if setting == Setting.CHAT:
        examples = []  # a plain model can be asked anything
    elif web:
        examples = [*examples[:2], *WEB_QUESTIONS][:3]
    chat_available = len(drawable_models(Setting.CHAT)) >= 2
    return About(
        setting=setting,
        contestants=len(models),
        natures=list(dict.fromkeys(n.words for n in natures)),
        corpora=corpora,
        web=web,
        examples=examples[:3],
        chat_available=chat_available,
    )


def reveal_words(model: ArenaModel, setting: str) -> str:
    """What one contestant of a battle is and what it searched, for the reveal (after the vote only)."""
    nature = nature_of(model, setting)
    said = nature.words[:1].upper() + nature.words[1:]
    if nature.local_index is not None:
        return f"{said}; it searches only {corpus_name(nature.local_index)[0]}, not the web."
    return f"{said}; it searches the web." if nature.web else f"{said}."
