"""Time on item in every questionnaire of the shared flow, as the validation study has it: the page's script posts
``elapsed_ms``, the server keeps it when it is plausible, and no value a client can send is a 500."""

from __future__ import annotations

import pytest

from instruments.virtuemap.validation import validation_open
from surveys.models import QuestionnaireAnswer
from surveys.web import elapsed_ms

pytestmark = pytest.mark.django_db

START, ITEM = "/transitivity/questionnaire/", "/transitivity/questionnaire/next/"


@pytest.fixture
def started(client, transitivity_instrument, consent_texts, settings, clock):
    settings.TRANSITIVITY_REPETITIONS = 1
    client.post(f"{START}?block=3", {"agree": "on", "accept": "1", "block": "3"})
    return clock


def answer(client, position: int, elapsed: str):
    return client.post(ITEM, {"position": str(position), "situation": "1", "elapsed_ms": elapsed})


def test_the_question_page_asks_its_script_for_the_time_on_the_item(client, started):
    page = client.get(ITEM).content.decode()
    assert "data-timed" in page and 'name="elapsed_ms"' in page and "js/timed-form" in page


def test_the_time_the_page_measured_is_stored_with_the_answer(client, started):
    started.advance(4)
    answer(client, 1, "3500")
    started.advance(7)
    answer(client, 2, "6200")
    assert list(QuestionnaireAnswer.objects.values_list("time_on_item_ms", flat=True)) == [3500, 6200]


def test_a_time_longer_than_since_the_answer_before_is_not_kept(client, started):
    started.advance(3)
    answer(client, 1, "2000")
    started.advance(2)
    answer(client, 2, "9000")  # the page could not have been shown 9 s before: it did not exist then
    assert list(QuestionnaireAnswer.objects.values_list("time_on_item_ms", flat=True)) == [2000, None]


@pytest.mark.parametrize("sent", ["²", "١٢", "-5", "1e3", "12.5", "9999999999", "", " 7"])
def test_a_time_that_is_no_plain_number_stores_the_answer_without_one(client, started, sent):
    started.advance(5)
    response = answer(client, 1, sent)
    assert response.status_code == 302
    assert QuestionnaireAnswer.objects.get().time_on_item_ms is None


def test_a_changed_answer_takes_the_time_of_its_new_page(client, started):
    started.advance(5)
    answer(client, 1, "4000")
    started.advance(5)
    client.post(ITEM, {"position": "1", "revisit": "1", "situation": "2", "elapsed_ms": "2500"})
    stored = QuestionnaireAnswer.objects.get()
    assert stored.time_on_item_ms == 2500 and stored.replaced[0]["time_on_item_ms"] == 4000


@pytest.mark.parametrize("sent", ["²", "-1", "99999999999999999999"])
def test_the_validation_item_page_takes_any_time_without_a_500(client, instrument, consent_texts, sent):
    validation_open(pairs=[("D1", "wisdom"), ("D2", "wisdom")])
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    assignment = client.get("/study/item/").context["assignment"]
    response = client.post("/study/item/", {"assignment": assignment.pk, "action": "confirm", "elapsed_ms": sent})
    assert response.status_code == 302
    assert assignment.respondent.validation_responses.get().time_measured_by == "server"


def test_elapsed_ms_reads_one_to_nine_ascii_digits_only():
    assert [elapsed_ms({"elapsed_ms": value}) for value in ("0", "123456789", "1234567890", "²", "")] == [
        0,
        123456789,
        None,
        None,
        None,
    ]
    assert elapsed_ms({}) is None
