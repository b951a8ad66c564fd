"""The register-a-model form in Debian's Chromium, at a phone's and a desktop's size (screenshots in
VAR_DIR/artifacts): it shows the chosen source's
fields only (CSS, no JavaScript needed), switches when another source is chosen, and an error is shown
next to its field with the chosen source's fields still in view."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_the_register_form_shows_the_chosen_sources_fields_and_errors_beside_them(live_server, page, user, artifacts):
    page.goto(live_server.url + "/accounts/login/?next=/models/register/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", "a-long-test-password")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/models/register/")
    # the default source is the endpoint: only its fields are shown
    assert page.locator("#id_endpoint_base_url").is_visible() and page.locator("#id_endpoint_api_key").is_visible()
    assert not page.locator("#id_hf_repo").is_visible() and not page.locator("#id_weights_upload").is_visible()
    page.get_by_label("Hugging Face repository").first.check()
    assert page.locator("#id_hf_repo").is_visible() and page.locator("#id_hf_revision").is_visible()
    assert not page.locator("#id_endpoint_base_url").is_visible()
    page.screenshot(path=str(artifacts / "register-hf.png"), full_page=True)

    page.fill("#id_name", "my-model")
    page.fill("#id_hf_repo", "org/model")  # no revision: refused, next to the revision field
    with page.expect_navigation():  # is_visible does not wait: read the answer, not the page being left
        page.get_by_role("button", name="Register and pre-flight").click()
    revision = page.locator("fieldset[data-source='hf'] .field").filter(has=page.locator("#id_hf_revision"))
    error = revision.locator(".errorlist")
    assert revision.is_visible() and error.is_visible() and "revision" in error.inner_text().lower()
    assert page.locator("input[name='source'][value='hf']").is_checked()  # the choice is kept
    assert not page.locator("#id_endpoint_base_url").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(artifacts / "register-error-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})  # a desktop: the same form, the same choice
    page.goto(live_server.url + "/models/register/")
    page.get_by_label("Uploaded weights").first.check()
    assert page.locator("#id_weights_upload").is_visible() and not page.locator("#id_hf_repo").is_visible()
    page.screenshot(path=str(artifacts / "register-weights-desktop.png"), full_page=True)
