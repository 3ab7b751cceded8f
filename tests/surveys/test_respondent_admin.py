"""Respondents in admin: searchable by id, read-only (no Save button), with their answers on their page — the shared
questionnaire's from the platform, an instrument's own through its `respondent_answer_tables` — and the columns
instruments add through `respondent_columns`."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from instruments import registry

pytestmark = pytest.mark.django_db

LIST = "/admin/surveys/respondent/"


@pytest.fixture
def answered(pairwise_respondent):
    return pairwise_respondent(["2"], [2500])


def test_a_respondent_is_found_by_the_beginning_of_their_id(admin_client, respondent, answered):
    page = admin_client.get(LIST, {"q": str(answered.pk)[:8]}).content.decode()

    assert str(answered.pk) in page and str(respondent.pk) not in page


def test_a_respondent_is_found_by_the_participant_reference_they_quote(admin_client, consent_texts):
    from surveys.services import respondent_consent

    quoting = respondent_consent(study="transitivity", consent_version="1", accept=True)
    other = respondent_consent(study="transitivity", consent_version="1", accept=True).respondent
    typed = quoting.reference.lower().replace("-", " ")  # as a participant might write it

    page = admin_client.get(LIST, {"q": typed}).content.decode()

    assert str(quoting.respondent.pk) in page and str(other.pk) not in page


def test_a_respondent_s_page_shows_their_questionnaire_answers_and_no_save_button(admin_client, answered):
    page = admin_client.get(f"{LIST}{answered.pk}/change/").content.decode()

    item = answered.questionnaire_session.sequence[0]
    assert f"block: 3; order: {item['order']}; repetition: 1; x: {item['x']}; y: {item['y']}" in page
    chosen = item["y"] if item["order"] == "original" else item["x"]  # situation 2 shows the pair's other principle
    assert f"chosen: {chosen}; situation: 2" in page and "<td>2.5</td>" in page
    assert 'name="_save"' not in page


def test_a_respondent_cannot_be_edited_by_posting_to_their_page(admin_client, respondent):
    response = admin_client.post(f"{LIST}{respondent.pk}/change/", {"study": "profiling"})

    assert response.status_code == 403
    respondent.refresh_from_db()
    assert respondent.study == "validation"


def test_an_instrument_s_column_is_empty_for_respondents_of_other_instruments(admin_client, answered):
    page = admin_client.get(LIST).content.decode()

    assert 'class="field-confirmed_share">—<' in page


def test_the_platform_knows_the_virtuemap_column_only_through_the_contract():
    columns = [column.name for plugin in registry.instruments() for column in plugin.respondent_columns()]

    assert columns == ["confirmed_share"]


def test_the_list_s_questionnaire_flags_cost_no_query_per_respondent(admin_client, pairwise_respondent):
    pairwise_respondent(["1", "2"])
    with CaptureQueriesContext(connection) as one:
        admin_client.get(LIST)
    for _ in range(4):
        pairwise_respondent(["1", "1", "2"])
    with CaptureQueriesContext(connection) as five:
        page = admin_client.get(LIST).content.decode()

    assert page.count('class="field-questionnaire_flags">none<') == 5
    assert len(five) == len(one)
