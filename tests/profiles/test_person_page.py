"""A person's own results across the instruments they took in this browser: computed now, stored nowhere, beside
people's where there are any."""

from __future__ import annotations

import pytest

from instruments.virtuemap.models import ProfilingSubmission
from tests.instruments.virtuemap.test_profile_questionnaire import answer_as_seen

pytestmark = pytest.mark.django_db


def test_before_any_instrument_the_page_says_where_to_start(client, instrument):
    page = client.get("/my-results/").content.decode()

    assert "You have not taken any instrument" in page and "data-instrument=" not in page


def test_rankings_made_without_consent_are_scored_now_and_stored_nowhere(client, instrument):
    answer_as_seen(client, "D1", "CBADE")
    page = client.get("/my-results/").content.decode()

    assert 'data-instrument="virtuemap"' in page and 'data-series="You"' in page
    assert 'data-figure="courage"' in page and "Not taken yet" in page
    assert ProfilingSubmission.objects.count() == 0


def test_a_consenting_respondents_moralbench_answers_show_beside_people(client, instrument, any_number_of_people):
    from instruments.moralbench.services import moralbench_load_file
    from surveys.services import consent_text_install_defaults

    moralbench_load_file()
    consent_text_install_defaults()
    client.post("/moralbench/questionnaire/", {"agree": "on", "accept": "1", "sets": "MFQ_30"})
    for position in range(1, 21):
        client.post("/moralbench/questionnaire/next/", {"position": str(position), "choice": "A"})
    page = " ".join(client.get("/my-results/").content.decode().split())

    assert 'data-instrument="moralbench"' in page and 'class="foundation-svg"' in page
    assert "People, median (N = 1)" in page  # the person is among the people who answered the whole set
