"""Style features and the source-category domain rules."""

from __future__ import annotations

import pytest

from evaluators.arena.style import SOURCE_CATEGORIES, STYLE_FEATURES, features, source_category


@pytest.mark.parametrize(
    "url, category",
    [
        ("https://www.youtube.com/watch?v=abc", "youtube"),
        ("youtu.be/abc", "youtube"),
        ("https://data.census.gov/table", "gov_edu"),
        ("https://www.ox.ac.uk/admissions", "gov_edu"),
        ("https://cs.stanford.edu/people", "gov_edu"),
        ("https://www.gov.uk/browse", "gov_edu"),
        ("https://pubmed.ncbi.nlm.nih.gov/123/", "academic_journal"),  # listed before the .gov rule
        ("https://arxiv.org/abs/2506.05334", "academic_journal"),
        ("https://de.wikipedia.org/wiki/Berlin", "wiki"),
        ("https://www.nytimes.com/2025/01/01/x.html", "us_news"),
        ("https://www.bbc.co.uk/news/world", "foreign_news"),
        ("https://www.kathmandupost.com.np/news", "foreign_news"),
        ("https://x.com/someone/status/1", "social_media"),
        ("https://old.reddit.com/r/python", "community_blog"),
        ("https://someone.substack.com/p/post", "community_blog"),
        ("https://github.com/org/repo", "tech_coding"),
        ("https://unix.stackexchange.com/q/1", "tech_coding"),
        ("https://www.amazon.co.uk/dp/B0", "retail"),
        ("https://www.ebay.de/itm/1", "retail"),
        ("https://example.org/page", "other"),
        ("not a url at all", "other"),
        ("", "other"),
    ],
)
def test_source_category(url, category):
    assert source_category(url) == category


def test_feature_names_and_values():
    assert len(STYLE_FEATURES) == 5 + len(SOURCE_CATEGORIES) + 1 + 2 and "citation_style_standardized" in STYLE_FEATURES
    text = "# Title\n\nSome **bold** and __more__ words.\n\n- one\n- two\n1. three\n"
    urls = ["https://en.wikipedia.org/wiki/A", "https://en.wikipedia.org/wiki/A", "https://github.com/x/y"]
    got = features(text, urls, "standardized")
    assert list(got) == list(STYLE_FEATURES)
    assert got["length"] == len(text.split()) and got["citation_count"] == 2
    assert (got["markdown_headers"], got["markdown_lists"], got["markdown_bold"]) == (1, 3, 2)
    assert got["cites_wiki"] == got["cites_tech_coding"] == 1 and got["cites_retail"] == 0
    assert got["supported_citations"] == got["unsupported_citations"] == 0  # not in the text: told, or 0
    told = features(text, urls, "standardized", {"supported_citations": 2.5, "unsupported_citations": 1.0})
    assert (told["supported_citations"], told["unsupported_citations"]) == (2.5, 1.0)
    assert got["citation_style_standardized"] == 1 and features("", [], "original")["citation_style_standardized"] == 0
