from __future__ import annotations

import pytest

from instruments.virtuemap.models import ProfilingSubmission
from instruments.virtuemap.plugin import PROFILING
from instruments.virtuemap.profiling import profiling_submission_store
from surveys.models import Respondent
from surveys.services import respondent_consent
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def positions(ranking: str) -> dict[str, str]:
    return {f"position_{letter}": str(index) for index, letter in enumerate(ranking, start=1)}


def consent(client, **extra):
    return client.post("/profile/", {"accept": "1", "agree": "on", **extra})


def test_the_start_page_offers_the_profiling_consent_text(client, instrument, consent_texts):
    page = client.get("/profile/").content.decode()
    assert "Research use of your profiling answers" in page
    assert "Start without storing anything" in page


def test_consenting_stores_the_answers_anonymously_with_their_scores(client, instrument, consent_texts):
    consent(client)
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    client.post("/profile/dilemmas/D2/", {"action": "skip"})
    submission = ProfilingSubmission.objects.get()
    assert submission.respondent.study == PROFILING
    assert submission.rankings == {"D1": "CBADE", "D2": None}
    assert submission.scores["wisdom"] == 95.0
    assert len(submission.keys_used) == 5


def test_the_pages_say_the_answers_are_stored_after_consent(client, instrument, consent_texts):
    consent(client)
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    assert 'data-storage-notice="stored"' in client.get("/profile/results/").content.decode()


def test_starting_without_consent_stores_nothing_and_says_so(client, instrument, consent_texts):
    response = client.post("/profile/", {"decline": "1"})
    assert response.url == "/profile/dilemmas/D1/"
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    assert 'data-storage-notice="not-stored"' in client.get("/profile/results/").content.decode()
    assert not Respondent.objects.exists()
    assert not ProfilingSubmission.objects.exists()


def test_agreeing_without_ticking_the_box_is_refused(client, instrument, consent_texts):
    response = client.post("/profile/", {"accept": "1"})
    assert response.status_code == 400
    assert "Please tick the box" in response.content.decode()
    assert not Respondent.objects.exists()


def test_withdrawing_deletes_the_respondent_and_the_answers(client, instrument, consent_texts):
    consent(client)
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    page = client.post("/profile/withdraw/").content.decode()
    assert "Deleted 2 records" in page
    assert "consent record and optional details</span>: <strong data-count>1<" in page
    assert "profiling submission</span>: <strong data-count>1<" in page
    assert not Respondent.objects.exists()
    assert not ProfilingSubmission.objects.exists()


def test_answers_given_before_consenting_are_stored_on_consent(client, instrument, consent_texts):
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    consent(client)
    assert ProfilingSubmission.objects.get().rankings == {"D1": "CBADE"}


def test_only_a_profiling_respondent_can_store_profiling_answers(instrument, respondent):
    with pytest.raises(ApplicationError):
        profiling_submission_store(respondent=respondent, rankings={"D1": "CBADE"})


def test_storing_again_replaces_the_answers(instrument, consent_texts):
    person = respondent_consent(study=PROFILING, consent_version="1", accept=True).respondent
    profiling_submission_store(respondent=person, rankings={"D1": "CBADE"})
    profiling_submission_store(respondent=person, rankings={"D1": "ABCDE", "D2": None})
    assert ProfilingSubmission.objects.get().rankings == {"D1": "ABCDE", "D2": None}


def test_the_start_orders_shown_and_the_kept_dilemmas_are_stored_with_the_answers(client, instrument, consent_texts):
    consent(client)
    start = client.get("/profile/dilemmas/D1/").context["form"].initial_order
    client.post("/profile/dilemmas/D1/", {"action": "keep", **positions(start)})
    other = client.get("/profile/dilemmas/D2/").context["form"].initial_order
    client.post("/profile/dilemmas/D2/", {"action": "answer", **positions(other[::-1])})
    submission = ProfilingSubmission.objects.get()
    assert submission.start_orders == {"D1": start, "D2": other}
    assert submission.kept_unmoved == ["D1"]
    assert submission.rankings == {"D1": start, "D2": other[::-1]}


def test_a_start_order_that_is_not_a_permutation_is_refused(instrument, consent_texts):
    person = respondent_consent(study=PROFILING, consent_version="1", accept=True).respondent
    with pytest.raises(ApplicationError):
        profiling_submission_store(respondent=person, rankings={"D1": "CBADE"}, start_orders={"D1": "AABCD"})
    assert not ProfilingSubmission.objects.exists()
