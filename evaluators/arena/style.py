"""Style features of one arena response, for style control of the ratings.

A response's style (length, citation count, markdown, which kinds of sources it cites, and whether
its citations were shown in the standardized format) influences votes independently of quality.
``features`` turns one side's final text and cited URLs into a flat ``{feature: value}`` dict whose
keys are ``STYLE_FEATURES``; ratings.py turns both sides' dicts into the per-battle covariates
``(a - b) / (a + b + 1)``, z-scored. The counts of supported and unsupported citations
(``ATTRIBUTION_FEATURES``) come from the citation attribution, not from the text.

Source categories come from domain rules (``source_category``): a fixed table of well-known domains
per category, then suffix rules (``.gov``, ``.edu``, ``.ac.xx``, ``.mil``...), then a news heuristic for
hosts under a country-code top-level domain; anything else is ``other``. The table is checked in
order, so ``ncbi.nlm.nih.gov`` is an academic source, not a government one.

The Search Arena paper's own style control (``lmarena/search-arena``, ``scripts/utils.py`` and its
preference notebook) is kept beside ours as the named alternative ``"paper"``
(``STYLE_DEFINITIONS``, ``paper_features``): length is the mean number of whitespace-separated words
per assistant message, ``citation_count`` the search trace's URLs per turn (every listed URL, repeats
included, divided by the number of turns), and ``cites_<category>`` whether any URL's host (the text
between the second and third "/") matches the paper's substring rules, in its order
(``paper_source_category``). The paper stores every feature in an int32 array before taking
(a - b) / (a + b + 1), so its length and citation count are truncated toward zero (152.5 words a
message counts as 152, 2.5 URLs a turn as 2); ``paper_features`` does the same. Ours keeps all turns
joined, distinct URLs, the markdown and citation-style features and its own domain table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

SOURCE_CATEGORIES: tuple[str, ...] = (
    "youtube",
    "gov_edu",
    "wiki",
    "us_news",
    "foreign_news",
    "social_media",
    "community_blog",
    "tech_coding",
    "academic_journal",
    "retail",
    "other",
)

#: per-turn counts of an answer's (claim, cited source) pairs that the cited text supports, and that it
#: does not (irrelevant or contradicting), from ``attribution.py``: not in the text, so ``features``
#: gives 0 unless told them; the site adds them from the stored attributions
ATTRIBUTION_FEATURES: tuple[str, ...] = ("supported_citations", "unsupported_citations")

STYLE_FEATURES: tuple[str, ...] = (
    "length",
    "citation_count",
    "markdown_headers",
    "markdown_lists",
    "markdown_bold",
    *(f"cites_{category}" for category in SOURCE_CATEGORIES),
    "citation_style_standardized",
    *ATTRIBUTION_FEATURES,
)

# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
# Domains (the host or any parent of it) per category, checked in this order.
_DOMAINS: tuple[tuple[str, frozenset[str]], ...] = (
    ("academic_journal", frozenset({
        "arxiv.org", "doi.org", "nature.com", "sciencedirect.com", "springer.com", "link.springer.com",
        "wiley.com", "onlinelibrary.wiley.com", "ncbi.nlm.nih.gov", "pubmed.ncbi.nlm.nih.gov", "jstor.org",
        "ieee.org", "ieeexplore.ieee.org", "acm.org", "dl.acm.org", "researchgate.net", "semanticscholar.org",
        "plos.org", "frontiersin.org", "mdpi.com", "tandfonline.com", "sagepub.com", "science.org",
        "cell.com", "biorxiv.org", "medrxiv.org", "ssrn.com", "scholar.google.com", "thelancet.com",
        "nejm.org", "bmj.com", "jamanetwork.com", "oup.com", "academic.oup.com", "cambridge.org",
        "aclanthology.org", "openreview.net", "pnas.org", "acs.org", "iop.org", "aps.org",
    })),
    ("youtube", frozenset({"youtube.com", "youtu.be", "youtube-nocookie.com"})),
    ("wiki", frozenset({
        "wikipedia.org", "wikimedia.org", "wiktionary.org", "wikidata.org", "wikivoyage.org",
        "wikiquote.org", "wikihow.com", "fandom.com", "britannica.com",
    })),
    ("social_media", frozenset({
        "twitter.com", "x.com", "facebook.com", "fb.com", "instagram.com", "tiktok.com", "linkedin.com",
        "threads.net", "pinterest.com", "snapchat.com", "weibo.com", "vk.com", "bsky.app", "mastodon.social",
        "t.me", "telegram.org",
    })),
    ("community_blog", frozenset({
        "reddit.com", "quora.com", "medium.com", "substack.com", "blogspot.com", "wordpress.com",
        "tumblr.com", "tripadvisor.com", "goodreads.com", "discord.com", "steamcommunity.com",
        "news.ycombinator.com", "hubpages.com", "livejournal.com", "ghost.io",
    })),
    ("tech_coding", frozenset({
        "github.com", "gitlab.com", "bitbucket.org", "stackoverflow.com", "stackexchange.com",
        "superuser.com", "serverfault.com", "askubuntu.com", "dev.to", "readthedocs.io", "readthedocs.org",
        "pypi.org", "npmjs.com", "crates.io", "docs.rs", "python.org", "developer.mozilla.org",
        "learn.microsoft.com", "docs.microsoft.com", "developer.apple.com", "developers.google.com",
        "cloud.google.com", "docs.aws.amazon.com", "kubernetes.io", "docker.com", "huggingface.co",
        "geeksforgeeks.org", "w3schools.com", "freecodecamp.org", "debian.org", "ubuntu.com",
        "kernel.org", "rust-lang.org", "go.dev", "nodejs.org", "techcrunch.com", "theverge.com",
        "arstechnica.com", "wired.com", "tomshardware.com", "anandtech.com", "zdnet.com",
    })),
    ("retail", frozenset({
        "ebay.com", "walmart.com", "target.com", "bestbuy.com", "etsy.com", "aliexpress.com",
        "alibaba.com", "homedepot.com", "lowes.com", "ikea.com", "costco.com", "newegg.com",
        "wayfair.com", "temu.com", "shein.com", "zalando.com", "rakuten.com", "flipkart.com",
        "bhphotovideo.com", "sephora.com", "nike.com", "apple.com",
    })),
    ("us_news", frozenset({
        "nytimes.com", "washingtonpost.com", "cnn.com", "foxnews.com", "nbcnews.com", "cbsnews.com",
        "abcnews.go.com", "usatoday.com", "wsj.com", "npr.org", "apnews.com", "bloomberg.com",
        "politico.com", "axios.com", "thehill.com", "latimes.com", "cnbc.com", "forbes.com",
        "businessinsider.com", "time.com", "newsweek.com", "huffpost.com", "vox.com", "theatlantic.com",
        "nypost.com", "chicagotribune.com", "sfchronicle.com", "bostonglobe.com", "msnbc.com",
        "pbs.org", "propublica.org", "espn.com", "marketwatch.com", "fortune.com", "newyorker.com",
        "usnews.com", "variety.com", "hollywoodreporter.com", "people.com",
    })),
    ("foreign_news", frozenset({
        "bbc.co.uk", "bbc.com", "theguardian.com", "reuters.com", "aljazeera.com", "dw.com", "france24.com",
        "lemonde.fr", "spiegel.de", "ft.com", "economist.com", "independent.co.uk", "telegraph.co.uk",
        "scmp.com", "timesofindia.indiatimes.com", "indiatimes.com", "hindustantimes.com", "ndtv.com",
        "thehindu.com", "abc.net.au", "cbc.ca", "japantimes.co.jp", "nikkei.com", "asahi.com",
        "koreaherald.com", "straitstimes.com", "euronews.com", "elpais.com", "corriere.it", "lefigaro.fr",
        "faz.net", "zeit.de", "sueddeutsche.de", "rt.com", "tass.com", "xinhuanet.com", "chinadaily.com.cn",
        "globaltimes.cn", "theglobeandmail.com", "smh.com.au", "skynews.com", "dailymail.co.uk",
        "thetimes.co.uk", "irishtimes.com", "haaretz.com", "timesofisrael.com", "nzherald.co.nz",
    })),
)
# fmt: on
# Shops whose brand is the registrable label under any top-level domain (amazon.de, ebay.co.uk...).
_RETAIL_BRANDS = frozenset({"amazon", "ebay", "walmart", "ikea", "aliexpress", "etsy", "mercadolibre"})
_GOV_EDU_SUFFIXES = (".gov", ".edu", ".mil", ".int")
_GOV_EDU_LABELS = frozenset({"gov", "edu", "ac", "gouv", "gob", "govt", "mil"})
_NEWS_WORDS = ("news", "times", "herald", "tribune", "gazette", "post", "journal", "daily")
_US_HOSTS_TLDS = (".com", ".org", ".net", ".us")

_HEADER = re.compile(r"^\s{0,3}#{1,6}\s+\S", re.MULTILINE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+?\*\*|__[^_\n]+?__")


def _host(url: str) -> str:
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:
        return ""
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def _under(host: str, domains: frozenset[str]) -> bool:
    labels = host.split(".")
    return any(".".join(labels[i:]) in domains for i in range(len(labels)))


def domain_table() -> list[tuple[str, list[str], str]]:
    """(category, its listed domains, the rules beyond the list) for the findings page: what decides a
    cited source's category, as the code applies it, in order."""
    rules = {
        "gov_edu": f"also any host ending in {', '.join(_GOV_EDU_SUFFIXES)} or with a label among "
        f"{', '.join(sorted(_GOV_EDU_LABELS))} (such as .ac.uk)",
        "us_news": f"also hosts under {', '.join(_US_HOSTS_TLDS)} whose name holds {', '.join(_NEWS_WORDS)}",
        "foreign_news": f"also hosts under any other top-level domain whose name holds {', '.join(_NEWS_WORDS)}",
        "retail": f"also hosts naming {', '.join(sorted(_RETAIL_BRANDS))}",
        "other": "every domain no rule knows: shown as unknown, not guessed",
    }
    listed = {category: sorted(domains) for category, domains in _DOMAINS}
    return [(category, listed.get(category, []), rules.get(category, "")) for category in SOURCE_CATEGORIES]


def source_category(url: str) -> str:
    """The category of a cited URL (one of ``SOURCE_CATEGORIES``), by the rules in the module doc."""
    host = _host(url)
    if not host:
        return "other"
    for category, domains in _DOMAINS:
        if _under(host, domains):
            return category
    labels = host.split(".")
    if (len(labels) >= 2 and labels[-2] in _RETAIL_BRANDS) or (len(labels) >= 3 and labels[-3] in _RETAIL_BRANDS):
        return "retail"
    if (
        host.endswith(_GOV_EDU_SUFFIXES)
        or any(label in _GOV_EDU_LABELS for label in labels[1:-1])
        or (len(labels) >= 2 and labels[-2] in _GOV_EDU_LABELS)
    ):
        return "gov_edu"
    if any(word in host for word in _NEWS_WORDS):
        return "us_news" if host.endswith(_US_HOSTS_TLDS) else "foreign_news"
    return "other"


def features(
    text: str, source_urls: Sequence[str], citation_style: str, attributed: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Style features of one side of a battle.

    ``text`` is the side's response text (all assistant turns joined), ``source_urls`` the URLs it
    cited, ``citation_style`` how its citations were displayed: "standardized" or the provider's own
    ("original"). Length is in whitespace-separated words; citation count is distinct URLs.
    ``attributed`` holds the ``ATTRIBUTION_FEATURES`` when known (0 otherwise).
    """
    distinct = list(dict.fromkeys(u for u in source_urls if u))
    cited = {source_category(u) for u in distinct}
    values: dict[str, float] = {
        "length": float(len(text.split())),
        "citation_count": float(len(distinct)),
        "markdown_headers": float(len(_HEADER.findall(text))),
        "markdown_lists": float(len(_LIST_ITEM.findall(text))),
        "markdown_bold": float(len(_BOLD.findall(text))),
    }
    for category in SOURCE_CATEGORIES:
        values[f"cites_{category}"] = 1.0 if category in cited else 0.0
    values["citation_style_standardized"] = 1.0 if citation_style == "standardized" else 0.0
    for name in ATTRIBUTION_FEATURES:
        values[name] = float((attributed or {}).get(name, 0.0))
    return values


# ---------------------------------------------------------------- the paper's definitions

#: the paper's style control features (its preference notebook's full control: length, citation
#: count and the eleven source categories), under names of their own so that both sets can be stored
PAPER_STYLE_FEATURES: tuple[str, ...] = (
    "paper_response_length",
    "paper_citation_count",
    *(f"paper_cites_{category}" for category in SOURCE_CATEGORIES),
)

#: the style controls a fit can use: ours (the default) and the paper's
STYLE_DEFINITIONS: dict[str, tuple[str, ...]] = {"ours": STYLE_FEATURES, "paper": PAPER_STYLE_FEATURES}

# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
# The paper's rules: a host containing any of these substrings is in the category; the first
# matching category wins (so "blog" anywhere in a host makes it a community blog unless an earlier
# rule matched). Its US list includes economist.com, ft.com and investopedia.com, and "politico.co".
_PAPER_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("youtube", ("youtube.com",)),
    ("gov_edu", (".gov", ".edu", ".mil")),
    ("wiki", ("wikipedia", "wikihow", "wikimedia")),
    ("us_news", ("cnn.com", "apnews.com", "cnbc.com", "bloomberg.com", "economist.com", "nytimes.com",
                 "washingtonpost.com", "wsj.com", "nbcnews.com", "abcnews.go.com", "usatoday.com", "npr.org",
                 "latimes.com", "vox.com", "huffpost.com", "ft.com", "foxnews.com", "axios.com", "time.com",
                 "buzzfeed.com", "cbsnews.com", "politico.co", "newsweek.com", "fortune.com", "theatlantic.com",
                 "whattowatch.com", "scrippsnews.com", "investopedia.com", "yahoo.com", "breitbart.com",
                 "washingtontimes.com", "dailycaller.com", "thefederalist.com", "townhall.com", "pjmedia.com",
                 "westernjournal.com", "forbes.com")),
    ("foreign_news", ("reuters.com", "bbc.com", "aljazeera.com", "dw.com", "france24.com", "as.com", "elpais.com",
                      "cbc.ca", "theglobeandmail.com", "smh.com.au", "abc.net.au", "japantimes.co.jp",
                      "straitstimes.com", "hindustantimes.com", "thehindu.com", "economictimes.indiatimes.com",
                      "indianexpress.com", "independent.co.uk", "theguardian.com", "cadenaser.com", "lemonde.fr",
                      "vnexpress.net", "ndtv.com")),
    ("social_media", ("tiktok.com", "facebook.com", "instagram.com", "x.com", "twitter.com", "linkedin.com",
                      "snapchat.com", "pinterest.com")),
    ("community_blog", ("reddit.com", "quora.com", "blog", "medium.com", "wordpress.com", "substack.com",
                        "tumblr.com")),
    ("tech_coding", ("github.com", "gitlab.com", "stackexchange.com", "microsoft.com", "dev.to", "codecademy.com",
                     "stackoverflow.com")),
    ("academic_journal", ("jstor.org", "springer.com", "sciencedirect.com", "nature.com", "arxiv.org",
                          "researchgate.com", "biorxiv.org")),
    ("retail", ("amazon.com", "ebay.com", "walmart.com", "target.com", "bestbuy.com", "costco.com")),
)
# fmt: on


def paper_rules_table() -> list[tuple[str, tuple[str, ...]]]:
    """(category, the substrings that put a host in it) as the paper checks them, in order (for the
    findings page); a host matching none is "other"."""
    return list(_PAPER_RULES)


def paper_source_category(url: str) -> str:
    """A cited URL's category by the paper's rules: its host is the text between the second and third
    "/" as written (``www.`` and any port kept, case kept; a URL without "//" has none, so "other",
    where the paper's code would stop with an error), matched by substring in the rules' order."""
    parts = url.split("/")
    host = parts[2] if len(parts) > 2 else ""
    for category, needles in _PAPER_RULES:
        if any(needle in host for needle in needles):
            return category
    return "other"


def paper_features(assistant_messages: Sequence[str], trace: Sequence[Sequence[str]]) -> dict[str, float]:
    """The paper's style features of one side (``PAPER_STYLE_FEATURES``): ``assistant_messages`` its
    assistant messages' texts, ``trace`` the URLs of its search trace, a list per turn. Length and
    citation count truncated toward zero as the paper's int32 array does; a side without messages
    (or turns) has 0 (the paper's mean of nothing is undefined)."""
    words = (
        sum(len(text.split()) for text in assistant_messages) / len(assistant_messages) if assistant_messages else 0.0
    )
    per_turn = sum(len(turn) for turn in trace) / len(trace) if trace else 0.0
    values = {"paper_response_length": float(math.trunc(words)), "paper_citation_count": float(math.trunc(per_turn))}
    cited = {paper_source_category(url) for turn in trace for url in turn}
    for category in SOURCE_CATEGORIES:
        values[f"paper_cites_{category}"] = 1.0 if category in cited else 0.0
    return values
