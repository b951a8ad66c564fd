"""Words people read for the arena's code names: style features (``cites_academic_journal`` is shown
as "Cites academic journals") and prompt languages (ISO 639-1 ``de`` as "German"). The pages use these;
the API and the downloads keep the code names."""

from __future__ import annotations

FEATURE_LABELS: dict[str, str] = {
    "length": "Length (words)",
    "citation_count": "Number of citations",
    "citation_style_standardized": "Citations in the standardized format",
    "markdown_headers": "Headers",
    "markdown_lists": "List items",
    "markdown_bold": "Bold text",
    "cites_academic_journal": "Cites academic journals",
    "cites_gov_edu": "Cites government and education sites",
    "cites_wiki": "Cites Wikipedia",
    "cites_us_news": "Cites US news",
    "cites_foreign_news": "Cites news outside the US",
    "cites_community_blog": "Cites forums and blogs",
    "cites_social_media": "Cites social media",
    "cites_tech_coding": "Cites technical and coding sites",
    "cites_youtube": "Cites YouTube",
    "cites_retail": "Cites shops",
    "cites_other": "Cites other sites",
    "supported_citations": "Supported citations",
    "unsupported_citations": "Unsupported citations (irrelevant or contradicting)",
    # the Search Arena paper's definitions (evaluators.arena.style.PAPER_STYLE_FEATURES)
    "paper_response_length": "Length (words per answer)",
    "paper_citation_count": "Search results per turn",
}
for _category, _words in list(FEATURE_LABELS.items()):
    if _category.startswith("cites_"):
        FEATURE_LABELS[f"paper_{_category}"] = f"{_words} (the paper's rules)"

# a table of names, kept a line of names each (the formatter would put one name a line)
# fmt: off
LANGUAGE_NAMES: dict[str, str] = {
    "und": "Undetermined", "af": "Afrikaans", "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan",
    "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian",
    "fa": "Persian", "fi": "Finnish", "fr": "French", "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi",
    "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian", "it": "Italian", "ja": "Japanese", "kn": "Kannada",
    "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "ml": "Malayalam", "mr": "Marathi", "ms": "Malay",
    "nl": "Dutch", "no": "Norwegian", "or": "Odia", "pa": "Punjabi", "pl": "Polish", "pt": "Portuguese",
    "ro": "Romanian", "ru": "Russian", "sk": "Slovak",
    "sl": "Slovenian", "sr": "Serbian", "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "th": "Thai",
    "tl": "Tagalog", "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "zh": "Chinese",
}
# fmt: on


def feature_label(feature: str) -> str:
    """A style feature's words; an unknown feature keeps its code name with underscores as spaces."""
    return FEATURE_LABELS.get(feature, feature.replace("_", " "))


def language_name(code: str) -> str:
    """A language code's English name with the code ("German (de)"); an unknown code as it is."""
    name = LANGUAGE_NAMES.get(code)
    return f"{name} ({code})" if name else code


def filter_label(key: str, value: str) -> str:
    """A sub-board's filter in words: "Language: German (de)", "Intent: Analysis"."""
    if key == "setting":
        return "Setting: plain chat (no search)" if value == "chat" else "Setting: with search"
    return f"{key.capitalize()}: {language_name(value) if key == 'language' else value}"
