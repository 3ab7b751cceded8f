"""Every page and API call of a respondent's journeys costs at most five queries (issue 18), the consent
submissions included (their change of session key costs one, the old row's delete; the respondent's session is then
the signed cookie: `virtuemap_site.sessions`).

Measured in a warm process: the instrument's text, the keys and the model profiles are already in memory
(`CachedSnapshot`), as they are after a process's first request. Transaction control (BEGIN and COMMIT in production,
SAVEPOINT and RELEASE inside a test's transaction) is not counted as a query, but each transaction is:
`django_assert_max_num_queries` allows two statements for each, and the statements left must be at most five.
docs/performance.md gives the counts of the validation study's path.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
from django.contrib.sessions.models import Session
from rest_framework.test import APIClient

from instruments.virtuemap.models import Assignment, ValidationResponse
from instruments.virtuemap.selectors import instrument_content, profile_scoring_context, published_profile_scores
from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent

pytestmark = pytest.mark.django_db

MAX_QUERIES = 5
TRANSACTION_CONTROL = re.compile(r"\s*(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT|BEGIN|COMMIT)\b", re.I)
API = "/api/v1/study"


@pytest.fixture
def costs(django_assert_max_num_queries):
    """``with costs(transactions=1):`` at most five queries, in at most that many transactions."""

    @contextmanager
    def at_most(*, transactions: int = 0, queries: int = MAX_QUERIES):
        with django_assert_max_num_queries(queries + 2 * transactions) as captured:
            yield captured
        statements = [query["sql"] for query in captured.captured_queries]
        counted = [sql for sql in statements if not TRANSACTION_CONTROL.match(sql)]
        assert len(counted) <= queries, "\n".join(counted)

    return at_most


@pytest.fixture
def warm(instrument, consent_texts, published_models):
    """A process that has served a request: the instrument, keys and profiles in memory."""
    instrument_content()
    profile_scoring_context()
    published_profile_scores()


@pytest.fixture
def study(warm, study_settings):
    """Every validation round open, one attention check among the items."""
    study_settings.STUDY_ATTENTION_CHECKS = 1
    validation_open()


def positions(ordering: str, prefix: str = "item-") -> dict[str, str]:
    return {f"{prefix}position_{letter}": str(i) for i, letter in enumerate(ordering, start=1)}


def pending() -> Assignment:
    return Assignment.objects.get(answered_at__isnull=True)


@pytest.fixture
def consented(client, study):
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    return client


def answer_current(client) -> None:
    client.get("/study/item/")
    item = pending()
    if item.kind == Assignment.Kind.ATTENTION_CHECK:
        ordering = item.check_letter + item.displayed_order.replace(item.check_letter, "")
        client.post("/study/item/", {"assignment": item.pk, "action": "check", **positions(ordering)})
    else:
        client.post("/study/item/", {"assignment": item.pk, "action": "confirm"})


# --- the validation study's pages -------------------------------------------------------------------------------


def test_the_landing_page(client, study, costs):
    with costs():
        assert client.get("/study/").status_code == 200


def test_the_consent_page(client, study, costs):
    with costs(transactions=1):
        assert client.get("/study/consent/").status_code == 200


def test_the_consent_page_reads_its_consent_text_once(client, study, costs):
    """The information sheet's length is counted in the edition of the text already read, not by reading it again."""
    with costs(transactions=1) as captured:
        page = client.get("/study/consent/")
    assert page.status_code == 200 and page.context["information"].length is not None
    reads = [query["sql"] for query in captured.captured_queries if 'FROM "surveys_consenttext"' in query["sql"]]
    assert len(reads) == 1, reads


def test_the_consent_submission_gives_a_new_session(client, study, costs):
    old_key = client.session.session_key  # a session planted before consent
    with costs(transactions=2):  # the consent, the respondent (the new session is the signed cookie)
        response = client.post("/study/consent/", {"agree": "on", "accept": "1"})

    assert response.url == "/study/about-you/"
    assert client.session.session_key != old_key and not Session.objects.exists()
    assert client.get("/study/about-you/").status_code == 200  # the new session holds the respondent


def test_the_demographics_page_and_its_answers(consented, costs):
    with costs():
        assert consented.get("/study/about-you/").status_code == 200
    with costs(transactions=1):
        assert consented.post("/study/about-you/", {"age_band": "25-34"}).status_code == 302


def test_an_item_served_afresh(consented, costs):
    with costs(transactions=1):
        page = consented.get("/study/item/")
    assert page.status_code == 200 and "Item 1 of" in page.content.decode()


@pytest.mark.parametrize("visit", ["served afresh", "shown again"])
def test_the_item_page_reads_its_respondent_once_and_locks_nothing(consented, costs, visit):
    if visit == "shown again":
        consented.get("/study/item/")
    # The one transaction is the new item's insert (a savepoint in a test; in production it commits on its own).
    with costs(transactions=int(visit == "served afresh"), queries=4) as captured:
        assert consented.get("/study/item/").status_code == 200
    reads = [
        query["sql"] for query in captured.captured_queries if re.search(r'FROM "surveys_respondent"', query["sql"])
    ]
    assert len(reads) == 1, reads
    # Serving takes no lock: the database's constraints settle a race with the respondent's other requests.
    assert not [query["sql"] for query in captured.captured_queries if "FOR UPDATE" in query["sql"]]


def test_an_item_shown_again(consented, costs):
    consented.get("/study/item/")
    with costs():  # serving writes nothing when the item is pending, and opens no transaction
        assert consented.get("/study/item/").status_code == 200


def test_a_confirmation(consented, costs):
    consented.get("/study/item/")
    item = pending()
    with costs(transactions=1):
        response = consented.post("/study/item/", {"assignment": item.pk, "action": "confirm"})
    assert response.url == "/study/item/" and ValidationResponse.objects.get().confirmed


def test_a_correction_sent_with_positions(consented, costs):
    consented.get("/study/item/")
    item = pending()
    corrected = item.displayed_order[::-1]
    with costs(transactions=1):
        consented.post("/study/item/", {"assignment": item.pk, "action": "correct", **positions(corrected)})
    assert ValidationResponse.objects.get().ordering == corrected


def test_an_attention_check(consented, costs):
    while pending_kind(consented) != Assignment.Kind.ATTENTION_CHECK:
        answer_current(consented)
    item = pending()
    ordering = item.check_letter + item.displayed_order.replace(item.check_letter, "")
    with costs(transactions=1):
        consented.post("/study/item/", {"assignment": item.pk, "action": "check", **positions(ordering)})
    assert Assignment.objects.get(pk=item.pk).check_passed


def pending_kind(client) -> str:
    client.get("/study/item/")
    return pending().kind


def test_the_last_answer_and_the_thanks_page(consented, costs, settings):
    for _ in range(settings.STUDY_ITEMS_PER_RESPONDENT + settings.STUDY_ATTENTION_CHECKS - 1):
        answer_current(consented)
    consented.get("/study/item/")
    last = pending()
    with costs(transactions=1):
        assert consented.post("/study/item/", {"assignment": last.pk, "action": "confirm"}).url == "/study/thanks/"
    with costs(transactions=1):  # completes the respondent
        assert "VM-" in consented.get("/study/thanks/").content.decode()
    with costs():
        assert consented.get("/study/item/").url == "/study/thanks/"
    with costs(transactions=1):
        assert "VM-" in consented.get("/study/thanks/").content.decode()


# --- the validation study's API ----------------------------------------------------------------------------------


@pytest.fixture
def api(study):
    client = APIClient()
    token = client.post(f"{API}/consent/", {"consent_version": "1", "accept": True}, format="json").json()["token"]
    client.credentials(HTTP_X_RESPONDENT_TOKEN=token)
    return client


def test_the_api_consent_text_and_consent(study, costs):
    client = APIClient()
    with costs():
        assert client.get(f"{API}/consent/").status_code == 200
    with costs(transactions=1):
        body = {"consent_version": "1", "accept": True}
        assert client.post(f"{API}/consent/", body, format="json").status_code == 201


def test_the_api_next_item_served_and_served_again(api, costs):
    with costs(transactions=1):
        first = api.get(f"{API}/next/").json()
    with costs():
        again = api.get(f"{API}/next/").json()
    assert first == again and first["progress"] == {"answered": 0, "total": 11, "position": 1}


def test_the_api_answer(api, costs):
    candidate = api.get(f"{API}/next/").json()["candidate"]
    with costs(transactions=1):
        body = api.post(f"{API}/responses/", {"candidate": candidate, "confirmed": True}, format="json").json()
    assert body["progress"] == {"answered": 1, "total": 11}


def test_the_api_respondent(api, costs):
    with costs():
        assert api.get(f"{API}/respondent/").status_code == 200
    with costs(transactions=1):
        assert api.patch(f"{API}/respondent/", {"age_band": "25-34"}, format="json").status_code == 204


# --- profiling ---------------------------------------------------------------------------------------------------


def test_the_profiling_start_page(client, warm, costs):
    with costs(transactions=1):
        assert client.get("/profile/").status_code == 200


def test_the_profiling_consent_submission(client, warm, costs):
    with costs(transactions=3):
        response = client.post("/profile/", {"agree": "on", "accept": "1"})
    assert response.status_code == 302 and Respondent.objects.filter(study="profiling").count() == 1


def moved_ranking(page) -> dict[str, str]:
    """A ranking answer to the dilemma page shown: its random start order reversed, so never refused as unmoved."""
    assert page.status_code == 200
    return {"action": "answer", **positions(page.context["form"].initial_order[::-1], "")}


def test_dilemma_pages_and_results_without_consent(client, warm, costs):
    with costs():
        page = client.get("/profile/dilemmas/D1/")
    with costs():
        assert client.post("/profile/dilemmas/D1/", moved_ranking(page)).status_code == 302
    with costs():
        assert client.get("/profile/results/").status_code == 200


def test_dilemma_pages_and_results_with_consent(client, warm, costs):
    client.post("/profile/", {"agree": "on", "accept": "1"})
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("BACDE", "")})
    with costs():
        page = client.get("/profile/dilemmas/D2/")
    with costs(transactions=1):
        assert client.post("/profile/dilemmas/D2/", moved_ranking(page)).status_code == 302
    with costs():
        assert client.get("/profile/results/").status_code == 200


def test_the_score_api(warm, costs):
    with costs(queries=0):
        response = APIClient().post("/api/v1/profiles/score/", {"rankings": {"D1": list("CBADE")}}, format="json")
    assert response.status_code == 200
