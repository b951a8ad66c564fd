"""The Search Arena paper's style features (lmarena/search-arena, scripts/utils.py: add_response_length_style,
get_num_urls, _get_domain_category and the int32 array of preprocess_for_style), worked out by hand from
those definitions for hand-built sides, and kept beside ours as the named alternative "paper"."""

from __future__ import annotations

from evaluators.arena.ratings import BattleRecord, RatingConfig, rate
from evaluators.arena.style import (
    PAPER_STYLE_FEATURES,
    SOURCE_CATEGORIES,
    STYLE_DEFINITIONS,
    features,
    paper_features,
    paper_source_category,
)

MESSAGES = ["one two three", "four five six seven eight", "nine ten"]
TRACE = [
    ["https://www.youtube.com/watch?v=1", "https://www.youtube.com/watch?v=1", "https://docs.microsoft.com/x"],
    ["https://en.wikipedia.org/wiki/A"],
    [],
]


def test_length_is_mean_words_per_assistant_message_and_citations_urls_per_turn_truncated_as_int32():
    paper = paper_features(MESSAGES, TRACE)
    # (3 + 5 + 2) / 3 = 3.33 words a message -> 3; (3 + 1 + 0) / 3 = 1.33 URLs a turn, the repeat counted -> 1
    assert paper["paper_response_length"] == 3.0 and paper["paper_citation_count"] == 1.0
    # ours: all turns joined (10 words) and distinct URLs (3)
    ours = features("\n\n".join(MESSAGES), [u for turn in TRACE for u in turn], "original")
    assert ours["length"] == 10.0 and ours["citation_count"] == 3.0
    # int32 truncation toward zero: 5 and 6 words -> 5.5 -> 5; 5 URLs over 2 turns -> 2.5 -> 2
    half = paper_features(["a b c d e", "a b c d e f"], [["http://a.org/1"] * 3, ["http://a.org/2"] * 2])
    assert (half["paper_response_length"], half["paper_citation_count"]) == (5.0, 2.0)
    assert paper_features([], [])["paper_response_length"] == 0.0


def test_domain_categories_follow_the_papers_substring_rules_in_its_order():
    paper = paper_features(MESSAGES, TRACE)
    # docs.microsoft.com holds "ft.com" (the Financial Times, on the paper's US news list), and the US
    # news rule comes before the coding one: the paper counts it as US news, not tech_coding
    cited = {c for c in SOURCE_CATEGORIES if paper[f"paper_cites_{c}"] == 1.0}
    assert cited == {"youtube", "us_news", "wiki"}
    assert features("", ["https://docs.microsoft.com/x"], "original")["cites_tech_coding"] == 1.0  # ours
    cases = {
        "https://www.cdc.gov/flu": "gov_edu",
        "https://myblog.example.org/post": "community_blog",  # "blog" anywhere in the host
        "https://www.netflix.com/title": "social_media",  # holds "x.com"
        "https://www.bbc.co.uk/news": "other",  # the paper lists bbc.com only
        "https://www.amazon.de/dp/1": "other",  # and amazon.com only
        "https://economictimes.indiatimes.com/a": "foreign_news",
        "https://www.economist.com/a": "us_news",  # on the paper's US list
        "https://arxiv.org/abs/1": "academic_journal",
        "arxiv.org/abs/1": "other",  # no "//": no host (the paper's code stops with an error)
        "https://www.youtube.com.evil.net/": "youtube",
    }
    for url, category in cases.items():
        assert paper_source_category(url) == category, url


def test_the_papers_features_are_a_named_alternative_for_the_style_controlled_fit():
    assert STYLE_DEFINITIONS["paper"] == PAPER_STYLE_FEATURES and len(PAPER_STYLE_FEATURES) == 13
    long_side = paper_features(["word " * 300], [["https://en.wikipedia.org/a"]])
    short_side = paper_features(["word " * 30], [["https://www.reddit.com/r"]])
    records = [
        BattleRecord(
            model_a=f"m{i % 3}",
            model_b=f"m{(i + 1) % 3}",
            winner=("model_a", "model_b", "tie")[i % 4 % 3],
            features_a=long_side if i % 2 else short_side,
            features_b=short_side if i % 2 else long_side,
        )
        for i in range(120)
    ]
    result = rate(
        records,
        RatingConfig(
            reference="m0",
            style_control=True,
            style_features=PAPER_STYLE_FEATURES,
            interval="sandwich",
            robustness=False,
            min_votes=10,
        ),
    )
    assert [c.feature for c in result.coefficients] == list(PAPER_STYLE_FEATURES)
    coefficient = {c.feature: c.value for c in result.coefficients}
    assert coefficient["paper_cites_youtube"] == 0.0  # no side cites YouTube: a constant feature, no effect
    assert coefficient["paper_response_length"] != 0.0
