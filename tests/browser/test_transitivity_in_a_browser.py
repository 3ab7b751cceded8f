from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def transitivity_ready(transitivity_instrument, consent_texts, settings):
    from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

    settings.TRANSITIVITY_REPETITIONS = 1
    choice_run_store(slug="acme/alpha", name="Alpha", vectors=vectors_for_model(1))


def test_a_person_consents_answers_every_pair_of_a_block_and_sees_their_verdicts(
    page, transitivity_ready, screenshot, accessible
):
    from surveys.models import QuestionnaireAnswer

    page.goto("/transitivity/")
    page.get_by_role("link", name="Answer the pairs yourself").click()
    page.get_by_label("I agree: store my choices").check()
    page.get_by_role("button", name="I agree, start").click()
    for number in range(1, 43):
        assert page.get_by_text(f"Choice {number} of 42").is_visible()
        if number == 1:
            screenshot(page, "transitivity-question")
            accessible(page)
        # The whole card is the control: a tap on the situation's text chooses it.
        page.locator(f'.pair-option[data-situation="{1 + number % 2}"]').click()
        page.get_by_role("button", name="Next" if number < 42 else "Save and see my results").click()
        page.wait_for_load_state()
        if number == 2:
            # Back shows the stored answer; changing it keeps one answer per position.
            page.get_by_role("link", name="Back").click()
            assert page.get_by_text("Choice 2 of 42").is_visible()
            assert page.locator('input[name="situation"][value="1"]').is_checked()
            screenshot(page, "transitivity-back")
            page.locator('.pair-option[data-situation="2"]').click()
            page.get_by_role("button", name="Next").click()
            page.wait_for_load_state()
    assert page.url.endswith("/transitivity/questionnaire/results/")
    assert page.get_by_text("all 42 answers are stored").is_visible()
    assert page.locator("[data-plain-results]").is_visible()
    assert page.locator("[data-verdict-grid] .verdict").count() == 6
    assert page.locator('tr[data-subject="Alpha"]').is_visible()
    assert page.locator('[data-model-comparison="acme/alpha"]').is_visible()
    assert QuestionnaireAnswer.objects.count() == 42
    second = QuestionnaireAnswer.objects.get(position=2)
    assert second.value["situation"] == 2 and len(second.replaced) == 1
    accessible(page)
    screenshot(page, "transitivity-results")


def test_a_panel_participant_gets_the_completion_code_and_the_way_back(page, transitivity_ready, screenshot, settings):
    settings.STUDY_COMPLETION_CODE_COMPLETED = "C0MPLETE"
    page.goto("/transitivity/questionnaire/?PROLIFIC_PID=p1&STUDY_ID=s1&SESSION_ID=x1")
    page.get_by_label("I agree: store my choices").check()
    page.get_by_role("button", name="I agree, start").click()
    for number in range(1, 43):
        page.locator('.pair-option[data-situation="1"]').click()
        page.get_by_role("button", name="Next" if number < 42 else "Save and see my results").click()
        page.wait_for_load_state()

    panel = page.locator("[data-panel-return]")
    assert panel.get_by_text("C0MPLETE").is_visible()
    assert "cc=C0MPLETE" in panel.get_by_role("link", name="Return to the panel").get_attribute("href")
    screenshot(page, "transitivity-completion-code")


def test_a_model_report_shows_verdicts_heatmaps_and_downloads(page, transitivity_ready, screenshot):
    page.goto("/transitivity/models/")
    page.get_by_role("link", name="Alpha").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/transitivity/models/acme/alpha/")
    assert page.locator("[data-verdict-grid] td").count() == 12
    assert page.locator("svg.heatmap-svg").count() == 12
    assert page.locator("svg.heatmap-svg").first.is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, "the report scrolls sideways"
    with page.expect_download() as download:
        page.get_by_role("link", name="Download CSV").click()
    assert download.value.suggested_filename == "transitivity-acme-alpha.csv"
    screenshot(page, "transitivity-model-report")


def test_the_models_bar_chart_shows_every_label_whole_and_legible(page, transitivity_ready, screenshot, charts_legible):
    from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

    long_name = "An Unusually Long Model Name From A Provider/with-a-very-long-variant-suffix-instruct"
    choice_run_store(slug="acme/long", name=long_name, vectors=vectors_for_model(2))
    page.goto("/transitivity/models/")

    assert charts_legible(page) > 10
    lines = page.locator("svg.counts-svg text.counts-group").all_text_contents()
    # Whole, on lines of their own (a line ends where a space was).
    assert "".join(lines).replace(" ", "") == ("Alpha" + long_name).replace(" ", "") and len(lines) == 4
    screenshot(page, "transitivity-models")
