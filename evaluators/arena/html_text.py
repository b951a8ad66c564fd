"""An HTML page as plain text for the arena's local search index (``evaluators.arena.search``): its title
and its sections (each heading's anchor, heading and text), read with the stdlib parser, skipping what is
no content (scripts, navigation, sidebars, footers, forms) and keeping paragraphs, list items and
headings apart."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_BLOCK = {
    "p",
    "div",
    "section",
    "li",
    "dt",
    "dd",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "blockquote",
    "br",
    "ul",
    "ol",
    "dl",
    "figure",
    "caption",
}
_SKIP_TAGS = {"script", "style", "head", "nav", "footer", "noscript", "template", "svg", "button", "form"}
_SKIP_CLASSES = {"sphinxsidebar", "related", "footer", "headerlink", "clearer", "mobile-nav", "toctree-wrapper"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


@dataclass
class Section:
    """A part of a page that can be linked to: its anchor (element id), heading and text."""

    anchor: str
    heading: str
    text: str = ""


@dataclass
class _Open:
    tag: str
    skip: bool
    heading: bool


class _SectionParser(HTMLParser):
    """Collects readable text, split at ``<section id>`` and ``<dt id>`` (Sphinx's API entries)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.sections: list[Section] = [Section("", "")]
        self._stack: list[_Open] = []
        self._lines: list[str] = []
        self._line: list[str] = []
        self._heading: list[str] = []
        self._in_title = False
        self._pre = 0
        self._section_tag = ""
        self._described = False

    def _skipping(self) -> bool:
        return any(o.skip for o in self._stack)

    def _capturing_heading(self) -> bool:
        return any(o.heading for o in self._stack)

    def _break(self) -> None:
        line = "".join(self._line)
        line = line if self._pre else re.sub(r"\s+", " ", line).strip()
        if line.strip():
            self._lines.append(line)
        self._line = []

    def _flush_section(self) -> None:
        self._break()
        self.sections[-1].text += ("\n" if self.sections[-1].text else "") + "\n".join(self._lines)
        self._lines = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "title":
            self._in_title = True
        if tag in _BLOCK:
            self._break()
        if tag in _VOID:
            return
        classes = set((attributes.get("class") or "").split())
        skip = tag in _SKIP_TAGS or bool(classes & _SKIP_CLASSES) or attributes.get("role") == "navigation"
        anchor = attributes.get("id") or ""
        starts_section = (
            bool(anchor)
            and not self._skipping()
            and (tag == "section" or (tag == "div" and "section" in classes) or tag == "dt")
        )
        if starts_section and tag == "dt" and self._section_tag == "dt" and not self._described:
            starts_section = False  # consecutive API entries sharing one description stay together
        if tag == "dd":
            self._described = True
        if starts_section:
            self._flush_section()
            if self.sections[-1].anchor or self.sections[-1].text.strip():
                self.sections.append(Section(anchor, ""))
            else:  # nothing before the first anchor: it names the page's opening section
                self.sections[-1].anchor = anchor
            self._heading = []
            self._section_tag = tag
            self._described = False
        heading = not skip and (tag in _HEADINGS or (tag == "dt" and starts_section)) and not self.sections[-1].heading
        self._stack.append(_Open(tag, skip, heading))
        if tag == "pre":
            self._pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _VOID or not any(o.tag == tag for o in self._stack):
            return
        while self._stack:
            closed = self._stack.pop()
            if closed.tag == "pre":
                self._pre -= 1
            if closed.heading and not self._capturing_heading() and self._heading:
                self.sections[-1].heading = re.sub(r"\s+", " ", "".join(self._heading)).strip()[:120]
                self._heading = []
            if closed.tag == tag:
                break
        if tag in _BLOCK:
            self._break()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._skipping():
            return
        self._line.append(data)
        if self._capturing_heading():
            self._heading.append(data)

    def close(self) -> None:
        super().close()
        self._flush_section()


def html_sections(markup: str) -> tuple[str, list[Section]]:
    """(page title, sections with text) of an HTML page, with the stdlib parser."""
    parser = _SectionParser()
    parser.feed(markup)
    parser.close()
    title = re.sub(r"\s+", " ", parser.title).strip()
    title = re.sub(r"\s+[—–-]\s+[^—–]*documentation$", "", title)
    return title, [s for s in parser.sections if s.text.strip()]
