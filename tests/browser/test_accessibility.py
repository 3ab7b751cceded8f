"""Accessibility in a real browser: axe-core (vendored) over every public page with zero serious or critical
violations, and keyboard use with no invisible focus stop and a visible focus on every control.

PUBLIC_PAGES is the list to extend when a page is added; `site` loads what every page needs to show content.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import axe_report, axe_violations

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC_PAGES = (
    "/",
    "/profile/",
    "/profile/dilemmas/D1/",
    "/models/",
    "/models/openai/gpt-5/",
    "/models/acme/alpha/",
    "/compare/?models=openai/gpt-5,anthropic/claude-sonnet-4.6,google/gemini-3.5-flash",
    "/compare/?models=openai/gpt-5,anthropic/claude-sonnet-4.6",
    "/leaderboards/",
    "/leaderboards/virtuemap/",
    "/leaderboards/transitivity/",
    "/my-results/",
    "/withdraw/",
    "/resume/",
    "/study/",
    "/study/consent/",
    "/transitivity/",
    "/transitivity/models/",
    "/transitivity/models/acme/alpha/",
    "/transitivity/questionnaire/",
    "/moralbench/",
    "/moralbench/models/",
    "/moralbench/questionnaire/",
    "/amaeval/",
    "/amaeval/questionnaire/",
    "/api/docs/",
)
# Pages that draw themselves from data they fetch: what to wait for before checking them.
DRAWN_BY_SCRIPT = {"/api/docs/": ".opblock-summary-control"}

# Where the keyboard is: the focused element, whether it can be seen, and whether it draws a focus indicator.
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const box = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  // A visually hidden radio shows its focus on the card it belongs to (the label's span).
  const shown = el.matches("input[type=radio]") ? el.nextElementSibling : el;
  const ring = shown ? getComputedStyle(shown) : style;
  return {
    // Where the element is in the document: links of a navigation bar look alike otherwise.
    key: Array.prototype.indexOf.call(document.querySelectorAll("*"), el),
    name: el.tagName.toLowerCase() + (el.name ? "[name=" + el.name + "]" : "") + (el.id ? "#" + el.id : ""),
    seen: box.width >= 2 && box.height >= 2 && style.visibility !== "hidden" && style.opacity !== "0"
      || (el.matches("input[type=radio]") && shown && shown.getBoundingClientRect().width >= 2),
    ring: ring.outlineStyle !== "none" && parseFloat(ring.outlineWidth) >= 2,
  };
}"""


@pytest.fixture
def site(instrument, published_models, transitivity_instrument, consent_texts, settings):
    """Every instrument loaded, a model measured on each, the validation study open."""
    from instruments.amaeval.services import amaeval_instrument_load_file
    from instruments.moralbench.services import moralbench_load_file
    from instruments.virtuemap.validation import validation_open
    from surveys.services import consent_text_install_defaults
    from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

    moralbench_load_file()
    amaeval_instrument_load_file()
    consent_text_install_defaults()
    validation_open()
    settings.TRANSITIVITY_REPETITIONS = 1
    choice_run_store(slug="acme/alpha", name="Alpha", vectors=vectors_for_model(1))


def test_every_public_page_has_no_serious_accessibility_violation(page, site):
    found = {}
    for path in PUBLIC_PAGES:
        response = page.goto(path, wait_until="networkidle")
        assert response.ok, f"{path} answered {response.status}"
        if path in DRAWN_BY_SCRIPT:
            page.wait_for_selector(DRAWN_BY_SCRIPT[path])
        found[path] = axe_violations(page)

    failing = {path: violations for path, violations in found.items() if violations}
    assert not failing, axe_report(failing)


def test_the_check_finds_what_it_is_meant_to_find(page, live_server):
    """The check is not a no-op: a page with an unlabelled field, an image without text and no language fails."""
    page.set_content("<html><body><main><img src='/x.png'><input type='text'></main></body></html>")

    assert {"image-alt", "label", "html-has-lang"} <= {violation["id"] for violation in axe_violations(page)}


def keyboard_walk(page, presses: int = 100) -> list[dict]:
    """Press Tab up to ``presses`` times from the top of the page; the focus stops, in order, until it wraps."""
    stops = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None or (stops and focused["key"] == stops[0]["key"]):
            break
        stops.append(focused)
    return stops


def test_the_ranking_has_no_invisible_focus_stop_and_every_control_shows_its_focus(page, instrument):
    page.goto("/profile/dilemmas/D1/")
    page.wait_for_function("document.querySelector('.ranking--enhanced') !== null")

    stops = keyboard_walk(page)

    names = [stop["name"] for stop in stops]
    assert not [n for n in names if n.startswith("select")], f"the hidden position selects take focus: {names}"
    assert sum(n == "button" for n in names) >= 5, names  # the move buttons are reached
    assert not [s["name"] for s in stops if not s["seen"]], "a focus stop nobody can see"
    assert not [s["name"] for s in stops if not s["ring"]], "a control without a visible focus indicator"


def test_the_pairwise_questionnaire_is_usable_by_keyboard_alone(page, site, accessible):
    page.goto("/transitivity/questionnaire/")
    stops = keyboard_walk(page)
    assert not [s["name"] for s in stops if not s["seen"] or not s["ring"]], stops
    page.get_by_label("I agree: store my choices").focus()
    page.keyboard.press("Space")
    page.get_by_role("button", name="I agree, start").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/questionnaire/next/")

    page.locator('input[name="situation"][value="1"]').focus()
    page.keyboard.press("ArrowRight")  # arrows move between the two situations, as in any radio group
    assert page.locator('input[name="situation"][value="2"]').is_checked()
    stops = keyboard_walk(page)
    assert not [s["name"] for s in stops if not s["seen"] or not s["ring"]], stops
    accessible(page)


def agree(page, path: str, label: str) -> None:
    """Open a questionnaire's start page, tick its consent box and start."""
    page.goto(path)
    page.get_by_label(label).check()
    page.get_by_role("button", name="I agree, start").click()


def test_the_pages_behind_consent_have_no_serious_accessibility_violation(page, site):
    """The pages a participant reaches only after consenting: study, profiling and the shared questionnaire."""
    found = {}

    def check(name: str) -> None:
        page.wait_for_load_state("networkidle")
        found[name] = axe_violations(page)

    page.goto("/study/?PROLIFIC_PID=5f00aa11&STUDY_ID=s1&SESSION_ID=x1")
    page.get_by_role("link", name="Read the information sheet").click()
    page.get_by_label("I have read the information above").check()
    page.get_by_role("button", name="I agree, start the study").click()
    check("study: about you")
    page.get_by_role("button", name="Skip these questions").click()
    page.wait_for_selector(".ranking--enhanced")
    check("study: item")

    agree(page, "/profile/", "I agree: store my answers anonymously for research.")
    page.wait_for_selector(".ranking--enhanced")
    check("profile: dilemma")
    page.get_by_role("button", name="I have not moved anything: this order is my answer").click()
    page.goto("/profile/results/")
    check("profile: results")

    agree(page, "/moralbench/questionnaire/?sets=MFQ_30", "I agree: store my answers")
    check("moralbench: question")
    page.get_by_role("radio").first.check()
    page.get_by_role("button", name="Next").click()
    page.get_by_role("link", name="Back").click()
    check("moralbench: question revisited with Back")
    page.goto("/moralbench/questionnaire/results/")
    check("moralbench: results")
    page.goto("/moralbench/questionnaire/withdraw/")
    check("moralbench: withdraw")

    failing = {name: violations for name, violations in found.items() if violations}
    assert not failing, axe_report(failing)
