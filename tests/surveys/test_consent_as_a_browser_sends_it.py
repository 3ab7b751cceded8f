"""Every study's consent page, submitted with exactly the fields a browser sends: the display time reaches the server,
so a person who reads and agrees is not flagged, and a script is flagged as before."""

from __future__ import annotations

import re

import pytest

from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.services import consent_text_install_defaults
from tests.form_as_sent import form_as_sent

pytestmark = pytest.mark.django_db

CONSENT_PAGES = {
    "validation": "/study/consent/",
    "profiling": "/profile/",
    "transitivity": "/transitivity/questionnaire/",
    "moralbench": "/moralbench/questionnaire/",
    "amaeval": "/amaeval/questionnaire/",
}


@pytest.fixture
def studies(instrument, transitivity_instrument, moralbench, amaeval_instrument, settings):
    consent_text_install_defaults()
    validation_open()
    # The page was read for longer than the minimum: the test client posts at once, so no minimum here.
    settings.STUDY_CONSENT_MIN_SECONDS = 0.0


@pytest.mark.parametrize("study", CONSENT_PAGES)
def test_the_consent_form_as_a_browser_sends_it_flags_nobody(client, studies, study):
    page = client.get(CONSENT_PAGES[study]).content
    response = client.post(CONSENT_PAGES[study], form_as_sent(page, agree="on", accept="1"))

    assert response.status_code == 302
    assert Respondent.objects.get(study=study).suspicion == ""


def test_the_display_time_field_is_one_a_browser_submits(client, studies):
    page = client.get("/study/consent/").content.decode()
    field = re.search(r'<input[^>]*name="form_time"[^>]*>', page).group(0)
    assert "disabled" not in field and form_as_sent(page)["form_time"]


def test_a_refused_consent_draws_a_fresh_display_time_not_the_one_sent(client, studies):
    sent = form_as_sent(client.get("/study/consent/").content, accept="1")  # the box left unticked
    again = client.post("/study/consent/", sent)
    fresh = form_as_sent(again.content)["form_time"]
    assert again.status_code == 200 and fresh != sent["form_time"]

    client.post("/study/consent/", {**form_as_sent(again.content), "agree": "on", "accept": "1"})
    assert Respondent.objects.get().suspicion == ""


def test_a_script_that_posts_the_page_it_never_loaded_is_still_flagged(client, studies):
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    assert Respondent.objects.get().suspicion == "no_form_time"


def test_a_script_as_fast_as_a_click_is_still_flagged_too_fast(client, studies, settings):
    settings.STUDY_CONSENT_MIN_SECONDS = 5.0
    page = client.get("/transitivity/questionnaire/").content
    client.post("/transitivity/questionnaire/", form_as_sent(page, agree="on", accept="1"))
    assert Respondent.objects.get().suspicion == "too_fast"
