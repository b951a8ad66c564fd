"""CSV cells that a spreadsheet shows as text: one rule for every download (boards, snapshots)."""

from __future__ import annotations


def spreadsheet_safe(value: object) -> object:
    """A text cell a spreadsheet would run as a formula (a model named "=HYPERLINK(...)") gets a leading
    apostrophe, which spreadsheets show as text (OWASP's advice for CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
