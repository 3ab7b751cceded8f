"""MoralBench for people on the shared one-item-per-page flow: consent, every page answered (one refused), option
order drawn and recorded, answers mapped back to the published options, scores beside the models', withdrawal."""

from __future__ import annotations

import html
import re

import pytest

from instruments.moralbench.questionnaire import MoralBenchQuestionnaire
from instruments.moralbench.selectors import scorer_items
from scoring.moralbench import letters_score
from surveys.models import QuestionnaireAnswer, QuestionnaireSession, Respondent
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db

BASE = "/moralbench/questionnaire/"
START, ITEM, RESULTS = BASE, f"{BASE}next/", f"{BASE}results/"


@pytest.fixture(autouse=True)
def consent(moralbench):
    consent_text_install_defaults()


def _page(client) -> tuple[int, dict[str, str]]:
    page = client.get(ITEM).content.decode()
    assert page.count("<h1") == 1  # the questionnaire's title; the item's own headings are h2
    position = int(re.search(r'name="position" value="(\d+)"', page).group(1))
    options = {
        letter: html.unescape(text)
        for letter, text in re.findall(r'value="([AB])" required>\s*<span><strong>[AB]\.</strong> ([^<]+)</span>', page)
    }
    return position, options


def test_a_person_answers_one_set_and_sees_their_scores(client):
    start = client.get(f"{START}?sets=MFQ_30").content.decode()
    assert "20 short questions" in start and 'name="sets" value="MFQ_30"' in start
    assert client.post(START, {"agree": "on", "accept": "1", "sets": "MFQ_30"}).status_code == 302
    session = QuestionnaireSession.objects.get()
    assert session.design == {"sets": ["MFQ_30"]} and len(session.sequence) == 20

    refused = client.post(ITEM, {"position": "1"})
    assert refused.status_code == 400 and "Choose one of the two answers." in refused.content.decode()
    for _ in range(20):
        position, options = _page(client)
        disagree = next(letter for letter, text in options.items() if text in ("Disagree", "Not Correct"))
        assert client.post(ITEM, {"position": str(position), "choice": disagree}).status_code == 302
    assert client.get(ITEM).url == RESULTS

    # Whatever letter "Disagree" was shown under, it is stored as the published B.
    assert {answer.value["option"] for answer in QuestionnaireAnswer.objects.all()} == {"B"}
    assert {item["presentation"] for item in QuestionnaireSession.objects.get().sequence} == {"paper", "swapped"}
    expected = letters_score(scorer_items(), {item["key"]: "B" for item in session.sequence})["MFQ_30"]
    results = client.get(RESULTS).content.decode()
    assert f"{expected['foundations']['harm']:.2f} / {expected['max']['harm']:.2f}" in results


def test_a_link_naming_an_unknown_set_is_refused(client):
    response = client.get(f"{START}?sets=MFQ_31")
    assert response.status_code == 400 and "There is no item set MFQ_31" in response.content.decode()


def test_the_order_is_drawn_from_the_seed_and_covers_every_item_once():
    items, design = MoralBenchQuestionnaire().sequence(seed=7, options={})
    again, _ = MoralBenchQuestionnaire().sequence(seed=7, options={})
    assert items == again and len({item["key"] for item in items}) == 88 and design["sets"][0] == "MFQ_30"
    shown_swapped = sum(item["presentation"] == "swapped" for item in items)
    assert 20 < shown_swapped < 68  # drawn per item, not all one way


def test_withdrawing_deletes_the_answers(client):
    client.post(START, {"agree": "on", "accept": "1"})
    position, _ = _page(client)
    client.post(ITEM, {"position": str(position), "choice": "A"})
    assert "Your answers are deleted" in client.post(f"{BASE}withdraw/").content.decode()
    assert not Respondent.objects.exists() and not QuestionnaireAnswer.objects.exists()


def test_the_results_show_the_published_models_beside_the_person(client):
    from llmruns.models import LLMModel, Result

    model = LLMModel.objects.create(slug="acme/alpha", name="Alpha", provider="openai_compatible", model_id="alpha")
    foundations = {"harm": 6.0, "fairness": 7.0, "ingroup": 5.0, "authority": 5.5, "purity": 4.5}
    summary = {"sets": {"MFQ_30": {"foundations": foundations, "max": foundations, "total": 28.0, "max_total": 28.0}}}
    Result.objects.create(model=model, instrument="moralbench", summary=summary)
    client.post(START, {"agree": "on", "accept": "1", "sets": "MFQ_30"})
    for position in range(1, 21):
        client.post(ITEM, {"position": str(position), "choice": "B"})
    results = client.get(RESULTS).content.decode()
    assert ">Alpha</a>" in results and "6.00 / 6.00" in results and "28.00 / 28.00" in results


def test_a_respondent_who_always_takes_the_first_answer_shown_is_flagged_and_kept(client, settings):
    from surveys.diagnostics import session_diagnostics

    settings.STUDY_SUBMIT_RATE = "off"
    client.post(START, {"agree": "on", "accept": "1", "sets": "MFQ_30"})
    for _ in range(20):
        position, _options = _page(client)
        client.post(ITEM, {"position": str(position), "choice": "A"})

    session = QuestionnaireSession.objects.get()
    record = session_diagnostics(session=session)
    assert "position" in [flag["code"] for flag in record["flags"]]
    assert session.answers.count() == len(session.sequence)  # flagged, never excluded


def test_back_shows_the_stored_answer(client):
    client.post(START, {"agree": "on", "accept": "1", "sets": "MFQ_30"})
    client.post(ITEM, {"position": "1", "choice": "B"})

    page = client.get(f"{ITEM}?position=1").content.decode()

    assert re.search(r'name="choice" value="B" required checked', page) and 'name="revisit" value="1"' in page
