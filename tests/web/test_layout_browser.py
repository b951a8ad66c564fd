"""The populated site (tests/web/populated_site.py) in Debian's Chromium at a phone's width (390 px) and a desktop's
(1280 px): model names on the home page wrap between words, never inside one; /models/ never scrolls the page
sideways and a table wider than its box says so; the "Show on the public leaderboard" checkbox sits beside its
label; /favicon.ico is served and linked; on a phone the setup notice takes a line or two (it filled the first
screen) and a board whose per-language columns lie off-screen says it scrolls sideways. Screenshots are kept in the
test artifacts."""

from __future__ import annotations

import pytest
from django.db import transaction

from leaderboard.catalog.models import Benchmark
from leaderboard.setup_status import record
from tests.web.populated_site import populate, scored_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

#: the line breaks inside a word of each element's text: (element's text, the characters either side of the break)
MID_WORD_BREAKS = """els => els.flatMap(el => {
  const text = el.textContent, node = el.firstChild, range = document.createRange(), found = [];
  let top = null;
  for (let i = 0; i < text.length; i++) {
    range.setStart(node, i); range.setEnd(node, i + 1);
    const rect = range.getClientRects()[0];
    if (!rect) continue;
    if (top !== null && rect.top > top + 2 && /[^\\s\\-–(]/.test(text[i - 1]) && /\\S/.test(text[i]))
      found.push([text, text.slice(i - 3, i + 3)]);
    top = rect.top;
  }
  return found;
})"""


WIDTHS = ((390, 844, "phone"), (1280, 900, "desktop"))


@pytest.fixture
def populated(user, multi_lcb) -> None:
    with transaction.atomic():  # the entries service locks the model's rows
        populate(user)
        for name in (
            "Mixtral Instruct Preview Edition",
            "Llama Reasoning Distilled Large",
        ):  # names that wrap in a card
            scored_run(Benchmark.objects.get(slug="policon"), user, name, True)


def test_home_page_model_names_wrap_between_words(populated, live_server, page, artifacts):
    for width, height, name in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/")
        page.screenshot(path=str(artifacts / f"home-{name}.png"), full_page=True)
        names = page.locator("table.leaders td:nth-child(2) a")
        assert names.count() >= 10, names.count()
        assert names.evaluate_all(MID_WORD_BREAKS) == [], name


def test_models_index_never_scrolls_the_page_and_says_its_table_is_wider(populated, live_server, page, artifacts):
    for width, height, name in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/models/")
        page.screenshot(path=str(artifacts / f"models-{name}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (
            name,
            page.evaluate("document.documentElement.scrollWidth"),
        )
        box = page.locator("#models-index").locator("xpath=..")
        wide = box.evaluate("b => b.scrollWidth > b.clientWidth + 1")
        cue = page.locator("p.scroll-cue")
        assert (not wide and cue.count() == 0) or (wide and cue.first.is_visible()), (name, wide, cue.count())


def test_a_favicon_is_served_and_linked(live_server, page):
    page.goto(live_server.url + "/")
    assert page.locator('link[rel="icon"]').get_attribute("href") == "/favicon.ico"
    icon = page.request.get(live_server.url + "/favicon.ico")
    assert (
        icon.status == 200 and icon.headers["content-type"] == "image/x-icon" and icon.body()[:4] == b"\x00\x00\x01\x00"
    )  # an ICO file


def test_the_public_checkbox_sits_beside_its_label(user, multi_lcb, live_server, page, artifacts):
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "a-long-test-password")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(live_server.url + "/**")
    for width, height, name in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/submit/")
        page.screenshot(path=str(artifacts / f"submit-{name}.png"), full_page=True)
        label = page.locator('label[for="id_is_public"]').bounding_box()
        box = page.locator("#id_is_public").bounding_box()
        assert label and box, name
        middle = box["y"] + box["height"] / 2
        assert label["y"] <= middle <= label["y"] + label["height"], (
            name,
            label,
            box,
        )  # on the label's line, not under it
        assert box["x"] + box["width"] <= label["x"] or box["x"] >= label["x"] + label["width"], (
            name,
            label,
            box,
        )  # beside it


def test_on_a_phone_the_setup_notice_is_short_and_a_wide_board_says_it_scrolls(
    populated, live_server, page, artifacts, settings, tmp_path
):
    settings.VAR_DIR = tmp_path  # as `make run` records it while the judge and the toolchains install
    record(tmp_path / "setup-status.json", "judge", "installing")
    record(tmp_path / "setup-status.json", "toolchains", "installing")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/benchmarks/multi-lcb/")
    page.screenshot(path=str(artifacts / "setup-phone.png"), full_page=True)
    notice = page.locator(".setup-notice").bounding_box()
    assert notice and notice["height"] <= 0.2 * 844, (
        notice
    )  # what is installing, in a line or two, not the first screen
    # the per-language columns lie past the phone's right edge: the board says it scrolls sideways
    board = page.locator("table.board").first.locator("xpath=..")
    assert (
        board.evaluate("b => b.scrollWidth > b.clientWidth + 1")
        and board.locator("xpath=preceding-sibling::p[1]").get_attribute("class") == "scroll-cue"
    )
    assert (
        page.locator("p.scroll-cue").first.is_visible() and page.evaluate("document.documentElement.scrollWidth") <= 390
    )
