from __future__ import annotations

import html
import itertools
import re

import pytest

from instruments.transitivity import trials
from instruments.transitivity.plugin import STUDY as TRANSITIVITY_STUDY
from scoring.transitivity import pairs, transitivity_results
from surveys.models import QuestionnaireAnswer, QuestionnaireSession, Respondent

pytestmark = pytest.mark.django_db

START = "/transitivity/questionnaire/"
ITEM = "/transitivity/questionnaire/next/"
RESULTS = "/transitivity/questionnaire/results/"
CODES = ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]


@pytest.fixture
def ready(transitivity_instrument, consent_texts, settings):
    settings.TRANSITIVITY_REPETITIONS = 1


def consent(client, block: int | None = 3):
    query = f"?block={block}" if block else ""
    return client.post(START + query, {"agree": "on", "accept": "1", **({"block": block} if block else {})})


def shown(page: str) -> tuple[int, str, str]:
    """The position and the two situation texts of a question page."""
    position = int(re.search(r'name="position" value="(\d+)"', page).group(1))
    texts = re.findall(r"<strong>Situation \d</strong>([^<]+)</span>", page)
    return position, html.unescape(texts[0]), html.unescape(texts[1])


def principle_of(text: str) -> str:
    from instruments.transitivity.models import Vignette

    return Vignette.objects.get(text=text).principle_id


def test_declining_stores_nothing(client, ready):
    response = client.post(START, {"decline": "1"})

    assert "Nothing was stored" in response.content.decode()
    assert not Respondent.objects.exists() and not QuestionnaireSession.objects.exists()


def test_starting_without_ticking_the_box_stores_nothing(client, ready):
    response = client.post(START, {"accept": "1"})

    assert response.status_code == 400
    assert "tick the box" in response.content.decode()
    assert not Respondent.objects.exists() and not QuestionnaireSession.objects.exists()


def test_an_unknown_block_is_refused_and_stores_nothing(client, ready):
    response = consent(client, block=99)

    assert response.status_code == 400
    assert "There is no block 99" in response.content.decode()
    assert not Respondent.objects.exists() and not QuestionnaireSession.objects.exists()


def test_the_start_page_says_which_block_was_asked_for(client, ready):
    assert "block 3 was asked for" in client.get(START + "?block=3").content.decode()


def test_consent_starts_a_session_on_the_asked_block_with_every_pair_in_both_orders(client, ready, settings):
    settings.TRANSITIVITY_REPETITIONS = 2

    assert consent(client).url == ITEM

    session = QuestionnaireSession.objects.get()
    assert session.respondent.study == TRANSITIVITY_STUDY
    assert session.instrument == "transitivity" and session.design == {"block": 3, "repetitions": 2}
    items = [(i["x"], i["y"], i["order"]) for i in session.sequence]
    assert len(items) == 84
    assert {(x, y, order): items.count((x, y, order)) for x, y, order in items} == {
        (CODES[x], CODES[y], order): 2 for x, y in pairs(7) for order in ("original", "reversed")
    }


def test_without_a_chosen_block_the_least_used_block_is_assigned(client, ready):
    from surveys.questionnaire import questionnaire_session_start
    from surveys.services import respondent_consent

    for block in (1, 2, 3, 4, 5):
        respondent = respondent_consent(study=TRANSITIVITY_STUDY, consent_version="1", accept=True).respondent
        questionnaire_session_start(respondent=respondent, options={"block": block})

    consent(client, block=None)

    assert QuestionnaireSession.objects.order_by("-created_at").first().design["block"] == 6


def test_the_sequence_is_shuffled_reproducibly_from_its_seed():
    one = trials.trial_sequence(n=7, repetitions=2, seed=11)
    again = trials.trial_sequence(n=7, repetitions=2, seed=11)
    other = trials.trial_sequence(n=7, repetitions=2, seed=12)

    assert one == again and one != other
    assert sum(a.pair == b.pair for a, b in itertools.pairwise(one)) == 0


def test_a_question_page_shows_the_two_situations_in_the_order_of_the_sequence(client, ready):
    consent(client)
    session = QuestionnaireSession.objects.get()

    page = client.get(ITEM).content.decode()

    assert page.count("<h1") == 1 and "Which situation is morally worse?</h1>" in page
    position, first, second = shown(page)
    item = session.sequence[0]
    expected = (item["x"], item["y"]) if item["order"] == "original" else (item["y"], item["x"])
    assert position == 1 and (principle_of(first), principle_of(second)) == expected
    assert 'type="radio" name="situation" value="1"' in page and "Choice 1 of 42" in page
    # One script only, which times the answer; the page works without it.
    assert page.count("<script") == 1 and "js/timed-form" in page


def test_an_answer_is_stored_once_even_when_the_form_is_sent_again(client, ready):
    consent(client)
    session = QuestionnaireSession.objects.get()

    first = client.post(ITEM, {"position": "1", "situation": "2"})
    again = client.post(ITEM, {"position": "1", "situation": "1"})

    assert first.status_code == again.status_code == 302
    answer = QuestionnaireAnswer.objects.get()
    item = session.sequence[0]
    assert answer.value == {"situation": 2, "chosen": item["y"] if item["order"] == "original" else item["x"]}
    assert answer.item == item
    assert shown(client.get(ITEM).content.decode())[0] == 2


def test_an_answer_to_a_later_question_than_the_next_is_not_stored(client, ready):
    consent(client)

    client.post(ITEM, {"position": "5", "situation": "1"})

    assert not QuestionnaireAnswer.objects.exists()


def test_a_submission_without_a_choice_is_refused_and_stores_nothing(client, ready):
    consent(client)

    response = client.post(ITEM, {"position": "1"})

    assert response.status_code == 400
    assert "Choose situation 1 or situation 2" in response.content.decode()
    assert not QuestionnaireAnswer.objects.exists()


def test_the_questionnaire_needs_consent_first(client, ready):
    assert client.get(ITEM).url == START
    assert client.post(ITEM, {"position": "1", "situation": "1"}).url == START
    assert not QuestionnaireAnswer.objects.exists()


def walk(client, choose) -> None:
    """Answer every question: ``choose(worse_candidate_1, worse_candidate_2)`` returns the principle judged worse."""
    for _ in range(200):
        response = client.get(ITEM)
        if response.status_code == 302:
            return
        position, first, second = shown(response.content.decode())
        a, b = principle_of(first), principle_of(second)
        situation = 1 if choose(a, b) == a else 2
        assert client.post(ITEM, {"position": str(position), "situation": str(situation)}).status_code == 302
    raise AssertionError("the questionnaire did not end")


def test_a_walkthrough_ends_on_results_whose_verdicts_are_those_of_the_proportions(client, ready):
    consent(client)
    rank = {code: i for i, code in enumerate(["S", "A", "Lo", "Ce", "F", "Cp", "Li"])}

    walk(client, lambda a, b: a if rank[a] < rank[b] else b)

    session = QuestionnaireSession.objects.get()
    assert session.is_complete and session.respondent.is_complete
    assert session.answers.count() == 42
    page = client.get(RESULTS).content.decode()
    assert "all 42 answers are stored" in page
    assert "<h1>Your choices, block 3</h1>" in page
    assert page.count("S &gt; A &gt; Lo &gt; Ce &gt; F &gt; Cp &gt; Li") >= 2
    assert client.get(ITEM).url == RESULTS


def test_the_results_agree_with_the_scoring_package_on_the_respondents_proportions(client, ready, settings):
    settings.TRANSITIVITY_REPETITIONS = 2
    settings.STUDY_SUBMIT_RATE = "off"  # 84 answers within a second; the limit has tests of its own
    consent(client)
    seen: dict[tuple[str, str], int] = {}

    def alternate(a: str, b: str) -> str:
        # The second showing of a pair (in any order) flips the first choice: proportions of ½ appear.
        key = tuple(sorted((a, b)))
        seen[key] = seen.get(key, 0) + 1
        cyclic = {("A", "Ce"): "A", ("Ce", "Cp"): "Ce", ("A", "Cp"): "Cp"}.get(key, min(key))
        return cyclic if seen[key] % 4 in (1, 2) else (b if cyclic == a else a)

    walk(client, alternate)

    from instruments.transitivity.questionnaire import choice_vectors
    from surveys.questionnaire import questionnaire_answers

    vectors = choice_vectors(*questionnaire_answers(session=QuestionnaireSession.objects.get()))
    page = client.get(RESULTS).content.decode()
    for order in ("original", "reversed"):
        result = transitivity_results(vectors[3, order], 7)[0]
        cell = re.search(rf'data-block="3" data-order="{order}">(.*?)</td>', page, re.S).group(1)
        for model, holds in (("wum", result.wum), ("hcm", result.hcm), ("grum", result.grum)):
            mark = "✓" if holds else "✗"
            assert re.search(rf'data-model="{model}">[^<]*{mark}', cell), (order, model)


def test_the_results_show_the_models_verdicts_on_the_same_block(client, ready):
    from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

    choice_run_store(slug="acme/alpha", name="Alpha", vectors=vectors_for_model(1))
    consent(client)
    walk(client, min)

    page = client.get(RESULTS).content.decode()

    assert '<tr data-subject="Alpha">' in page and 'href="/transitivity/models/acme/alpha/"' in page


def test_withdrawing_deletes_the_respondent_and_every_answer(client, ready):
    consent(client)
    client.post(ITEM, {"position": "1", "situation": "1"})

    response = client.post("/transitivity/questionnaire/withdraw/")

    assert "Your answers are deleted" in response.content.decode()
    assert not Respondent.objects.exists() and not QuestionnaireAnswer.objects.exists()
    assert not QuestionnaireSession.objects.exists()
    assert client.get(ITEM).url == START


def test_choice_proportions_count_the_principle_judged_worse_whatever_the_order(client, ready):
    n = 7
    pair = list(pairs(n)).index((0, 1))
    answers = [(pair, 1, 1), (pair, 2, 2), (pair, 2, 1)]  # x, x, then y judged worse

    vectors = trials.choice_vectors(n=n, answers=answers)

    assert vectors[1][pair] == 1.0 and vectors[2][pair] == 0.5
    assert vectors[1][1] is None
