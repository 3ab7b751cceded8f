from __future__ import annotations

import pytest

from instruments.virtuemap.plugin import PROFILING, VALIDATION
from surveys.models import ConsentText, Respondent
from surveys.selectors import respondent_by_token
from surveys.services import panel_id_hash, respondent_consent, respondent_demographics_set, respondent_withdraw
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def consent(**overrides):
    arguments = {"study": VALIDATION, "consent_version": "1", "accept": True} | overrides
    return respondent_consent(**arguments)


def test_consent_records_the_version_and_the_hash_of_the_text_read(consent_texts):
    respondent = consent().respondent
    text = ConsentText.objects.get(study=VALIDATION, language="en", is_current=True)
    assert (respondent.consent_version, respondent.consent_text_hash) == ("1", text.text_hash)
    assert len(text.text_hash) == 64


def test_declining_stores_nothing_and_offers_the_no_consent_code_to_panel_arrivals(consent_texts, settings):
    with pytest.raises(ApplicationError) as error:
        consent(accept=False, panel={"PROLIFIC_PID": "abc123"})
    assert error.value.extra == {"completion_code": settings.STUDY_COMPLETION_CODE_NO_CONSENT}
    assert not Respondent.objects.exists()


def test_an_outdated_consent_version_is_refused(consent_texts):
    with pytest.raises(ApplicationError, match="not the current one"):
        consent(consent_version="0")
    assert not Respondent.objects.exists()


def test_a_panel_id_is_stored_only_as_its_keyed_hash(consent_texts):
    respondent = consent(panel={"PROLIFIC_PID": "5f1e0c2a9b"}).respondent
    assert respondent.panel == Respondent.Panel.PROLIFIC
    assert respondent.panel_id_hash == panel_id_hash("5f1e0c2a9b") != "5f1e0c2a9b"
    assert "5f1e0c2a9b" not in str(Respondent.objects.values().get())


PROLIFIC = {"PROLIFIC_PID": "5f1e0c2a9b", "STUDY_ID": "study-1", "SESSION_ID": "session-1"}


def test_the_same_panel_session_resumes_its_respondent_with_a_new_token(consent_texts):
    first = consent(panel=PROLIFIC)
    again = consent(panel=PROLIFIC)
    assert again.resumed and again.respondent.pk == first.respondent.pk
    assert respondent_by_token(token=again.token) == first.respondent


def test_a_panel_id_alone_neither_resumes_nor_revokes_its_respondent(consent_texts):
    first = consent(panel=PROLIFIC)
    newcomer = consent(panel={"PROLIFIC_PID": PROLIFIC["PROLIFIC_PID"]})
    assert not newcomer.resumed and newcomer.respondent.pk != first.respondent.pk
    assert respondent_by_token(token=first.token) == first.respondent


def test_another_session_with_a_used_panel_id_gets_a_respondent_who_does_not_count(consent_texts):
    consent(panel=PROLIFIC)
    newcomer = consent(panel={**PROLIFIC, "SESSION_ID": "session-2"}).respondent
    assert newcomer.flagged and newcomer.suspicion == "panel_id_reused"
    assert newcomer.panel_id_hash is None and newcomer.panel == Respondent.Panel.PROLIFIC


def test_a_finished_panel_id_is_answered_exactly_like_a_new_one(consent_texts):
    finished = consent(panel={"pid": "p-1"}).respondent
    Respondent.objects.filter(pk=finished.pk).update(completed_at="2026-01-01T00:00Z")
    used = consent(panel={"pid": "p-1"})
    fresh = consent(panel={"pid": "p-2"})
    assert (used.resumed, type(used.token)) == (fresh.resumed, type(fresh.token)) == (False, str)


def test_a_generic_panel_id_never_resumes_by_itself(consent_texts):
    first = consent(panel={"pid": "p-1"}).respondent
    assert consent(panel={"pid": "p-1"}).respondent.pk != first.pk


def test_the_same_panel_id_may_take_both_studies(consent_texts):
    consent(panel={"pid": "p-1"})
    assert not consent(study=PROFILING, panel={"pid": "p-1"}).resumed


def test_a_malformed_panel_id_is_refused(consent_texts):
    with pytest.raises(ApplicationError, match="PROLIFIC_PID must be"):
        consent(panel={"PROLIFIC_PID": "name@example.org"})


def test_demographics_accept_only_bands_and_may_be_skipped(respondent):
    respondent_demographics_set(respondent=respondent, answers={"age_band": "25-34", "country": ""})
    respondent.refresh_from_db()
    assert (respondent.age_band, respondent.country, respondent.gender) == ("25-34", "", "")


def test_a_demographic_answer_outside_its_bands_is_refused(respondent):
    with pytest.raises(ApplicationError, match="not an answer to age_band"):
        respondent_demographics_set(respondent=respondent, answers={"age_band": "31"})


def test_withdrawal_deletes_the_respondent(respondent):
    respondent_withdraw(respondent=respondent)
    assert not Respondent.objects.exists()
