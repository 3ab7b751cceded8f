"""AMAeval for people on the shared one-item-per-page flow: consent, a seeded draw of scored items of both tasks, the
levels explained and no answer chosen in advance, answers read in the dataset's notation (one refused), results beside
the annotators', withdrawal; then people's row of Table 3 and the agreement figures on the page, downloads and API."""

from __future__ import annotations

import csv
import io
import re

import pytest

from instruments.amaeval.items import task_split
from instruments.amaeval.questionnaire import ITEMS_PER_TASK, AmaevalQuestionnaire
from instruments.amaeval.selectors import rating_items
from instruments.base import AnswerRejected
from surveys.models import QuestionnaireAnswer, QuestionnaireSession, Respondent
from surveys.questionnaire import questionnaire_answer_submit, questionnaire_session_start
from surveys.services import consent_text_install_defaults, respondent_consent
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db

BASE = "/amaeval/questionnaire/"
START, ITEM, RESULTS = BASE, f"{BASE}next/", f"{BASE}results/"


@pytest.fixture(autouse=True)
def ready(amaeval_instrument, settings):
    settings.STUDY_SUBMIT_RATE = "off"
    consent_text_install_defaults()


def _position(page: str) -> int:
    return int(re.search(r'name="position" value="(\d+)"', page).group(1))


def _gold(item_id: str) -> int:
    return next(item.gold for item in rating_items() if item.id == item_id)


def _answer_everything(client, rate) -> QuestionnaireSession:
    """Consent, then answer every page with ``rate(item)`` (the form's value), returning the session."""
    assert client.post(START, {"agree": "on", "accept": "1"}).status_code == 302
    session = QuestionnaireSession.objects.order_by("-pk").first()
    for item in session.sequence:
        position = _position(client.get(ITEM).content.decode())
        assert client.post(ITEM, {"position": str(position), "rating": rate(item)}).status_code == 302
    return session


def test_a_person_rates_derivations_then_evaluations_and_sees_their_ratings_beside_the_annotators(client):
    start = client.get(START).content.decode()
    assert "Rating moral reasoning" in start and f"first {ITEMS_PER_TASK} reasonings" in start
    client.post(START, {"agree": "on", "accept": "1"})
    session = QuestionnaireSession.objects.get()
    assert [item["task"] for item in session.sequence] == [1] * ITEMS_PER_TASK + [2] * ITEMS_PER_TASK

    first = client.get(ITEM).content.decode()
    assert first.count("<h1") == 1 and '<h1 class="questionnaire-heading">Rating moral reasoning</h1>' in first
    assert "Part 1 of 2" in first and "The reasoning is convincing and the precept intuitively follows" in first
    assert "The moral value is irrelevant in this scenario." in first
    assert first.count('type="radio" name="rating"') == 5 and "checked" not in first  # no answer chosen for them
    refused = client.post(ITEM, {"position": "1"})
    assert refused.status_code == 400 and "Choose a rating from 1 to 4, or N/A." in refused.content.decode()
    assert not QuestionnaireAnswer.objects.exists()

    for position, item in enumerate(session.sequence, start=1):
        page = client.get(ITEM).content.decode()
        assert _position(page) == position
        if item["task"] == 2:
            assert "Part 2 of 2" in page and "Consequence" in page and page.count('name="rating"') == 2
        rating = "n/a" if position == 1 else ("3" if item["task"] == 1 else "1")
        assert client.post(ITEM, {"position": str(position), "rating": rating}).status_code == 302
    assert client.get(ITEM).url == RESULTS

    values = [answer.value for answer in QuestionnaireAnswer.objects.order_by("position")]
    assert values[0] == {"rating": "n/a"} and values[1] == {"rating": 3} and values[-1] == {"rating": 1}
    results = client.get(RESULTS).content.decode()
    assert "all 20 answers are stored" in results and results.count("<td data-mine>") == 20
    # Task 2's judgements read as words, the respondent's and the label's alike.
    assert results.count("<td data-mine>Correct</td>") == ITEMS_PER_TASK and "<td data-mine>1</td>" not in results
    agreed = sum(_gold(item["id"]) == 1 for item in session.sequence[ITEMS_PER_TASK:])
    assert f"label to {agreed} of {ITEMS_PER_TASK}" in results


def test_the_draw_is_seeded_from_the_scored_items_of_both_tasks_never_the_examples():
    items, design = AmaevalQuestionnaire().sequence(seed=11, options={})
    again, _ = AmaevalQuestionnaire().sequence(seed=11, options={})
    other, _ = AmaevalQuestionnaire().sequence(seed=12, options={})
    assert items == again and items != other and design == {"items_per_task": ITEMS_PER_TASK}

    bank = rating_items()
    for task in (1, 2):
        scored = {item.id for item in task_split(bank, task).scored}
        drawn = [item["id"] for item in items if item["task"] == task]
        assert len(set(drawn)) == ITEMS_PER_TASK and set(drawn) <= scored


def test_task2_answers_are_shown_in_both_orders_across_people_and_their_position_is_recorded():
    orders = [
        tuple(item["order"])
        for seed in range(10)
        for item in AmaevalQuestionnaire().sequence(seed=seed, options={})[0]
        if item["task"] == 2
    ]
    assert set(orders) == {(1, 0), (0, 1)}
    questionnaire = AmaevalQuestionnaire()
    item = {"id": "t2/0/1/Care/satisfied", "task": 2, "order": [0, 1]}
    assert questionnaire.presented(item, {"rating": 0}).first_shown == 1.0
    assert questionnaire.presented(item, {"rating": 1}).first_shown == 0.0
    assert questionnaire.presented({"id": "t1/9/Care", "task": 1}, {"rating": 4}).first_shown is None


@pytest.mark.parametrize(
    ("task", "rating"), [(1, "5"), (1, "0"), (1, ""), (1, "N/A "), (2, "n/a"), (2, "2"), (2, None)]
)
def test_an_answer_off_the_scale_is_refused(task, rating):
    item = {"id": "t1/9/Care", "task": 1} if task == 1 else {"id": "t2/9/0/Care/satisfied", "task": 2, "order": [1, 0]}
    with pytest.raises(AnswerRejected):
        AmaevalQuestionnaire().read_answer(item, {} if rating is None else {"rating": rating})


def test_the_services_store_a_rating_once_and_refuse_a_changed_or_unreadable_one():
    respondent = respondent_consent(study="amaeval", consent_version="1", accept=True).respondent
    session = questionnaire_session_start(respondent=respondent, seed=5)
    assert session.sequence == AmaevalQuestionnaire().sequence(seed=5, options={})[0]

    with pytest.raises(ApplicationError, match="Choose a rating"):
        questionnaire_answer_submit(session=session, position=1, data={"rating": "5"})
    assert questionnaire_answer_submit(session=session, position=1, data={"rating": "n/a"}).created
    assert not questionnaire_answer_submit(session=session, position=1, data={"rating": "n/a"}).created
    with pytest.raises(ApplicationError, match="already answered differently") as changed:
        questionnaire_answer_submit(session=session, position=1, data={"rating": "4"})
    assert changed.value.status == 409
    assert list(QuestionnaireAnswer.objects.values_list("value", flat=True)) == [{"rating": "n/a"}]


def test_withdrawing_deletes_the_ratings_and_people_leave_the_table(client, any_number_of_people):
    client.post(START, {"agree": "on", "accept": "1"})
    client.post(ITEM, {"position": "1", "rating": "4"})
    assert "People (1 respondent)" in client.get("/amaeval/").content.decode()

    assert "Your answers are deleted" in client.post(f"{BASE}withdraw/").content.decode()
    assert not Respondent.objects.exists() and not QuestionnaireAnswer.objects.exists()
    assert 'data-model="people"' not in client.get("/amaeval/").content.decode()


def test_peoples_row_and_their_agreement_with_the_gold_labels_on_the_page_downloads_and_api(
    client, any_number_of_people
):
    from django.test import Client

    # One person rates every derivation 3 and every evaluation 1; another gives the gold label everywhere.
    constant = _answer_everything(client, lambda item: "3" if item["task"] == 1 else "1")
    _answer_everything(
        Client(), lambda item: "n/a" if item["task"] == 1 and not _gold(item["id"]) else str(_gold(item["id"]))
    )

    page = client.get("/amaeval/").content.decode()
    assert 'data-model="people"' in page and "People (2 respondents)" in page
    assert "do not apply to people (n/a)" in page

    body = client.get("/api/v1/amaeval/results/").json()
    people = body["people"]
    assert people["respondents"] == 2 and people["n_t1"] == people["n_t2"] == 2 * ITEMS_PER_TASK
    assert people["ama"] is None and "ama" in people["not_applicable"]
    right = sum(_gold(item["id"]) == 1 for item in constant.sequence[ITEMS_PER_TASK:])
    assert people["static_accuracy_t2"] == pytest.approx(100 * (ITEMS_PER_TASK + right) / (2 * ITEMS_PER_TASK))

    people_gold = body["agreement"]["people_gold"]
    assert people_gold["t2"]["units"] == 2 * ITEMS_PER_TASK and people_gold["t2"]["clusters"] == 2
    assert people_gold["t2"]["level"] == "nominal" and body["agreement"]["annotators"]["t1"]["level"] == "interval"
    assert client.get("/amaeval/models.json").json()["people"] == people

    rows = list(csv.DictReader(io.StringIO(client.get("/amaeval/models.csv").content.decode())))
    assert rows[-1]["model"] == "People (2 respondents)" and rows[-1]["ama"] == "n/a"
    assert float(rows[-1]["static_accuracy_t2"]) == pytest.approx(people["static_accuracy_t2"])


def test_the_dataset_annotators_agreement_is_the_two_coder_formula_on_the_items_both_rated(client):
    agreement = client.get("/api/v1/amaeval/results/").json()["agreement"]["annotators"]
    assert agreement["t1"]["units"] == 164 and agreement["t2"]["units"] == 164

    # Two coders, every unit complete: interval α = 1 − (n − 1) Σ_u (a − b)² / (n Σ_i (v_i − v̄)²); nominal
    # α = 1 − (n − 1) · 2 · (disagreeing units) / (2 n₀ n₁).
    bank = rating_items()
    t1 = [
        (item.score, item.additional_score)
        for item in bank
        if item.task == 1 and item.score in (1, 2, 3, 4) and item.additional_score in (1, 2, 3, 4)
    ]
    values = [v for pair in t1 for v in pair]
    n, mean = len(values), sum(values) / len(values)
    interval = 1 - (n - 1) * sum((a - b) ** 2 for a, b in t1) / (n * sum((v - mean) ** 2 for v in values))
    assert agreement["t1"]["alpha"] == pytest.approx(interval)
    assert agreement["t1"]["ci_low"] < agreement["t1"]["alpha"] < agreement["t1"]["ci_high"]

    t2 = [
        (item.score, item.additional_score)
        for item in bank
        if item.task == 2 and item.score in (0, 1) and item.additional_score in (0, 1)
    ]
    ones = sum(v for pair in t2 for v in pair)
    n2 = 2 * len(t2)
    nominal = 1 - (n2 - 1) * 2 * sum(a != b for a, b in t2) / (2 * ones * (n2 - ones))
    assert agreement["t2"]["alpha"] == pytest.approx(nominal)
