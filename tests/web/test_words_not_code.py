"""Every page of a populated site (tests/web/populated_site.py), reached by following the internal links from
``/`` as a visitor and as a signed-in owner, says things in words: no Python repr (``<EvaluationRun``,
``Progress(``), no settings key (``LEADERBOARD_...``), and no metric, slice or slice-value key where the
label table (leaderboard/catalog/labels.py) has words for it; every key the site's scores and item results
use has an entry in that table."""

from __future__ import annotations

import html as html_lib
import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urldefrag, urlsplit

import pytest
from django.apps import apps

from leaderboard.catalog.labels import Labels, code_like, labels_for
from leaderboard.catalog.models import Benchmark
from leaderboard.runs.models import ItemResult, Score
from tests.web.populated_site import populate

pytestmark = pytest.mark.django_db

#: pages not crawled: the admin (staff only, Django's own words), sign out (a POST), the API's machine documents
#: (and a run's images, by their content hash: the populated site has none)
SKIPPED = ("/admin/", "/accounts/logout/", "/api/", "/static/")


class _Page(HTMLParser):
    """The links of a page and its visible text, without what shows code as code (pre, code, kbd, samp), scripts
    and styles; the text of each element is kept apart so a search never joins two cells."""

    HIDDEN = {"script", "style", "pre", "code", "kbd", "samp", "textarea"}

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.texts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        for name, value in attrs:
            if name in ("href", "hx-get") and value:
                self.links.append(value)
            if name in ("title", "aria-label", "alt", "placeholder") and value:
                self.texts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.texts.append(data)


def crawl(client) -> dict[str, str]:
    """Every internal page reachable from ``/``: url -> HTML, each path once per set of query parameter names (the
    first such link found: one sort of a board, one pair on the compare page)."""
    seen: dict[str, str] = {}
    todo = ["/"]
    shapes: set[tuple[str, frozenset[str]]] = set()
    while todo:
        url = todo.pop(0)
        path = urlsplit(url).path
        shape = (path, frozenset(parse_qs(urlsplit(url).query)))
        if shape in shapes or path.startswith(SKIPPED) or "/media/" in path or not path.startswith("/"):
            continue
        shapes.add(shape)
        response = client.get(url)
        assert response.status_code in (200, 302), (url, response.status_code)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        page = response.content.decode()
        seen[url] = page
        parser = _Page()
        parser.feed(page)
        for link in parser.links:
            link = html_lib.unescape(urldefrag(link)[0])
            parts = urlsplit(link)
            if link and not parts.netloc and parts.scheme in ("", "http", "https"):
                todo.append(link if link.startswith("/") else path + link)
    return seen


def visible_texts(page: str) -> list[str]:
    parser = _Page()
    parser.feed(page)
    return parser.texts


#: every model class of the site: "<EvaluationRun: run #11 ...>" is Python's repr of one
MODEL_NAMES = sorted(m.__name__ for m in apps.get_models())


def keys_in_words(benchmark: Benchmark, labels: Labels) -> dict[str, str]:
    """The keys a page must not show bare, with their words: each key that cannot be prose (it holds "_", "@" or a
    digit: "ned_char", "short_1") and each value of a declared dimension ("cpp", "mcq"), unless its words contain
    it ("pass@1" in "pass@1, mean of languages", "python" in "Python")."""
    declared = {
        str(v) for dim in benchmark.slice_dimensions for v, _ in zip(dim["values"], dim.get("value_labels") or [])
    }
    pairs = [
        *labels.metrics.items(),
        *labels.dimensions.items(),
        *(p for named in labels.values.values() for p in named.items()),
    ]
    return {
        key: words
        for key, words in pairs
        if code_like(key) and (re.search(r"[_@0-9]", key) or key in declared) and key.lower() not in words.lower()
    }


def test_every_page_says_it_in_words(client, user, multi_lcb):
    populate(user)
    problems = []
    bare: dict[str, str] = {}
    for benchmark in Benchmark.objects.exclude(evaluator_key="").exclude(
        slug="search-arena"
    ):  # the arena's board has no runs
        labels = labels_for(benchmark)
        metrics = {s.key for s in Score.objects.filter(run__benchmark=benchmark)}
        slices = {
            tuple(p.split("=", 1))
            for s in Score.objects.filter(run__benchmark=benchmark)
            for p in s.slice_key.split(",")
            if p
        }
        for result in ItemResult.objects.filter(run__benchmark=benchmark):
            metrics |= set(result.scores)
            slices |= {(k, str(v)) for k, v in result.slices.items()}
        assert metrics, benchmark.slug
        problems += [f"{benchmark.slug}: {m}" for m in labels.missing(metrics=metrics, slices=slices)]
        bare |= keys_in_words(benchmark, labels)
    assert problems == [], "keys without words in the label table: " + "; ".join(problems)
    assert {"ned_char", "char_edits", "short_1", "true_false", "mcq", "cpp", "csharp", "very_easy"} <= set(bare)

    pages = [(url, "") for url in crawl(client).items()]
    client.force_login(user)
    pages += [(url, " (signed in)") for url in crawl(client).items()]
    assert (
        len(pages) > 100
        and any(url.startswith("/runs/") for (url, _), _ in pages)
        and any(url.startswith("/compare/?") for (url, _), _ in pages)
    )
    for (url, page), who in pages:
        text_of_page = html_lib.unescape(page)
        for code in ["Progress(", "LEADERBOARD_", *(f"<{name}" for name in MODEL_NAMES)]:
            if code in text_of_page:
                at = text_of_page.index(code)
                problems.append(f"{url}{who}: {text_of_page[max(0, at - 80) : at + 80]!r}")
        for text in visible_texts(page):
            for key in bare:
                if re.search(rf"(?<![\w@]){re.escape(key)}(?![\w@])", text):
                    problems.append(f"{url}{who}: {key!r} (words: {bare[key]!r}) in {text.strip()[:120]!r}")
    assert problems == [], "\n".join(sorted(set(problems))[:60])
    # a count is a whole number: "Largest N answered" 32 frames, not 32.000 (the populated runs answer up to 32)
    niah = next(page for (url, page), _ in pages if url == "/benchmarks/video-niah-single/")
    assert "Largest N answered" in niah and not re.search(r"\b32\.0+\b", " ".join(visible_texts(niah)))
