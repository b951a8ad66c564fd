"""Every page's URL name reaches the page, never an API route of the same name: the API router names
its routes after its basenames ("run" + the action "items" is "run-items"), so a basename equal to a
page's prefix made the site's links, Cancel and Re-run buttons and the pre-flight poll open the API."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver, reverse

from leaderboard import urls as site_urls


def _page_patterns(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            if str(entry.pattern).startswith(("api/", "admin/")):
                continue
            yield from _page_patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern) and entry.name and not str(entry.pattern).startswith("api/"):
            yield prefix, entry


def test_every_page_name_reverses_to_its_page_not_the_api() -> None:
    resolver = get_resolver()
    checked = []
    for _prefix, pattern in _page_patterns(site_urls.urlpatterns):
        kwargs = {
            name: ("1" if converter.__class__.__name__ == "IntConverter" else "x")
            for name, converter in pattern.pattern.converters.items()
        }
        path = reverse(pattern.name, kwargs=kwargs)
        assert not path.startswith("/api/"), f"the page name {pattern.name!r} reverses to the API route {path}"
        assert resolver.resolve(path).func == pattern.callback, (pattern.name, path)
        checked.append(pattern.name)
    # the names that clashed with the API router's before its basenames were prefixed
    assert {"run-items", "run-cancel", "run-rerun", "model-preflight", "run-status"} <= set(checked)
    assert reverse("run-items", kwargs={"pk": 7}) == "/runs/7/items/"
