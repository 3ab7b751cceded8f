"""The pairwise questionnaire's Back button, completion code and panel return, and results in plain words."""

from __future__ import annotations

import html
import re

import pytest

from surveys.models import QuestionnaireAnswer, QuestionnaireSession
from surveys.questionnaire import questionnaire_answer_correct
from tests.instruments.transitivity.test_pairwise_questionnaire import (
    ITEM,
    RESULTS,
    START,
    consent,
    shown,
    walk,
)
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db

PANEL = {"PROLIFIC_PID": "p" * 24, "STUDY_ID": "s" * 24, "SESSION_ID": "x" * 24}
# A strict ranking, worst first, and the vignette texts of block 3 it is checked against.
RANKING = ["S", "A", "Lo", "Ce", "F", "Cp", "Li"]


@pytest.fixture
def ready(transitivity_instrument, consent_texts, settings):
    settings.TRANSITIVITY_REPETITIONS = 1
    settings.STUDY_COMPLETION_CODE_COMPLETED = "C0MPLETE"
    settings.STUDY_COMPLETION_CODE_NO_CONSENT = "N0CONSENT"
    settings.STUDY_PANEL_REDIRECT_URL = "https://panel.example/complete?cc={code}"


def chosen_situation(page: str) -> str | None:
    found = re.search(r'name="situation" value="(\d)" required checked', page)
    return found.group(1) if found else None


def vignette(code: str, block: int = 3) -> str:
    from instruments.transitivity.models import Vignette

    return Vignette.objects.get(block_id=block, principle_id=code).text


def test_back_shows_the_stored_answer_and_a_change_keeps_the_first_in_the_same_row(client, ready):
    consent(client)
    client.post(ITEM, {"position": "1", "situation": "2"})
    client.post(ITEM, {"position": "2", "situation": "1"})

    page = client.get(ITEM).content.decode()
    assert 'href="/transitivity/questionnaire/next/?position=2"' in page and "Back" in page
    back = client.get(ITEM + "?position=1").content.decode()

    assert shown(back)[0] == 1 and chosen_situation(back) == "2"
    assert 'name="revisit" value="1"' in back and "Choice 1 of 42" in back
    response = client.post(ITEM, {"position": "1", "situation": "1", "revisit": "1"})
    # Next after a revisited page walks forward through one's answers, then to the first unanswered item.
    assert response.url == ITEM + "?position=2"
    answer = QuestionnaireAnswer.objects.get(position=1)
    assert answer.value["situation"] == 1 and [r["value"]["situation"] for r in answer.replaced] == [2]
    assert QuestionnaireAnswer.objects.count() == 2
    assert client.post(ITEM, {"position": "2", "situation": "1", "revisit": "1"}).url == ITEM
    assert QuestionnaireAnswer.objects.get(position=2).replaced == []
    assert shown(client.get(ITEM).content.decode())[0] == 3


def test_back_cannot_open_a_question_not_answered_yet(client, ready):
    consent(client)
    client.post(ITEM, {"position": "1", "situation": "2"})

    for query in ("?position=2", "?position=9", "?position=0", "?position=x"):
        page = client.get(ITEM + query).content.decode()
        assert shown(page)[0] == 2 and 'name="revisit"' not in page and chosen_situation(page) is None


def test_the_first_question_has_no_back_button(client, ready):
    consent(client)

    assert 'rel="prev"' not in client.get(ITEM).content.decode()


def test_a_change_without_a_choice_is_refused_and_changes_nothing(client, ready):
    consent(client)
    client.post(ITEM, {"position": "1", "situation": "2"})

    response = client.post(ITEM, {"position": "1", "revisit": "1"})

    assert response.status_code == 400 and "Choose situation 1 or situation 2" in response.content.decode()
    assert shown(response.content.decode())[0] == 1
    assert QuestionnaireAnswer.objects.get().value["situation"] == 2


def test_once_complete_every_answer_is_final(client, ready):
    consent(client)
    walk(client, min)
    before = list(QuestionnaireAnswer.objects.order_by("position").values_list("value", flat=True))
    flipped = "2" if before[0]["situation"] == 1 else "1"

    assert client.get(ITEM + "?position=1").url == RESULTS
    assert client.post(ITEM, {"position": "1", "situation": flipped, "revisit": "1"}).url == RESULTS
    with pytest.raises(ApplicationError) as refused:
        questionnaire_answer_correct(
            session=QuestionnaireSession.objects.get(), position=1, data={"situation": flipped}
        )

    assert refused.value.status == 409
    assert list(QuestionnaireAnswer.objects.order_by("position").values_list("value", flat=True)) == before


def test_a_correction_needs_an_answered_position(client, ready):
    consent(client)
    session = QuestionnaireSession.objects.get()

    with pytest.raises(ApplicationError) as unanswered:
        questionnaire_answer_correct(session=session, position=1, data={"situation": "1"})
    with pytest.raises(ApplicationError) as missing:
        questionnaire_answer_correct(session=session, position=43, data={"situation": "1"})

    assert (unanswered.value.status, missing.value.status) == (409, 400)
    assert not QuestionnaireAnswer.objects.exists()


def test_the_same_answer_again_through_back_changes_nothing(client, ready):
    consent(client)
    client.post(ITEM, {"position": "1", "situation": "2"})
    session = QuestionnaireSession.objects.get()

    outcome = questionnaire_answer_correct(session=session, position=1, data={"situation": "2"})

    assert outcome.created is False and QuestionnaireAnswer.objects.get().replaced == []


def test_a_panel_participant_gets_the_completion_code_and_the_way_back_to_the_panel(client, ready):
    client.post(START + "?block=3", {"agree": "on", "accept": "1", "block": 3, **PANEL})
    walk(client, min)

    page = client.get(RESULTS).content.decode()

    assert "C0MPLETE" in page and 'href="https://panel.example/complete?cc=C0MPLETE"' in page
    assert "Your choices, block 3" in page  # the results stay to read


def test_a_participant_without_a_panel_gets_no_code(client, ready):
    consent(client)
    walk(client, min)

    page = client.get(RESULTS).content.decode()

    assert "C0MPLETE" not in page and "panel.example" not in page


def test_a_panel_participant_who_declines_gets_the_no_consent_code_and_nothing_is_stored(client, ready):
    response = client.post(START, {"decline": "1", **PANEL})

    page = response.content.decode()
    assert "Nothing was stored" in page and "N0CONSENT" in page
    assert 'href="https://panel.example/complete?cc=N0CONSENT"' in page
    assert "<title>Nothing was stored — VirtueMap</title>" in page  # the code is in the page, once, not in its title
    assert page.count("N0CONSENT") == 2  # the code shown, and in the link back
    assert not QuestionnaireSession.objects.exists()


def test_results_in_plain_words_give_the_order_of_the_situations_read(client, ready):
    consent(client)
    rank = {code: i for i, code in enumerate(RANKING)}
    walk(client, lambda a, b: a if rank[a] < rank[b] else b)

    page = html.unescape(client.get(RESULTS).content.decode())

    assert "Your choices can be put in one order." in page
    listed = re.search(r"<ol class=\"situation-list\" data-ranking-words>(.*?)</ol>", page, re.S).group(1)
    items = re.findall(r"<li><strong>([^<]+)</strong>: ([^<]+)</li>", listed)
    assert [text for _, text in items] == [vignette(code) for code in RANKING]
    assert items[0][0] == "Sanctity"
    assert "data-cycle" not in page


def test_results_in_plain_words_name_the_three_situations_of_a_cycle(client, ready):
    consent(client)
    # A judged worse than Ce, Ce worse than Cp, Cp worse than A; every other pair by a fixed order.
    cycle = {("A", "Ce"): "A", ("Ce", "Cp"): "Ce", ("A", "Cp"): "Cp"}
    walk(client, lambda a, b: cycle.get(tuple(sorted((a, b), key=RANKING_INDEX.get)), min(a, b)))

    page = html.unescape(client.get(RESULTS).content.decode())

    assert "Your choices cannot be put in one order." in page
    cycles = re.findall(r"<ol class=\"situation-list situation-cycle\" data-cycle>(.*?)</ol>", page, re.S)
    assert len(cycles) == 1
    named = re.findall(r"<li><strong>([^<]+)</strong>: ([^<]+) <span", cycles[0])
    assert named == [(name, vignette(code)) for name, code in CYCLE_NAMES]
    # Choices made the same way every time, around a cycle: no mixture of orders gives them either.
    assert "They do not fit even a mixture of orders" in page


RANKING_INDEX = {code: i for i, code in enumerate(["A", "Ce", "Cp", "F", "Li", "Lo", "S"])}
CYCLE_NAMES = [("Authority", "A"), ("Care-emotional", "Ce"), ("Care-physical", "Cp")]


def test_models_are_compared_on_the_same_pairs_whatever_the_block(client, ready):
    from tests.instruments.transitivity.reporting import choice_run_store

    # Beta was asked block 3 only and judges the first principle of every pair worse; Gamma only block 1 and the
    # second. The person judges the first principle worse too (in index order): all agree with Beta, none with Gamma.
    first_worse = [1.0] * 21
    choice_run_store(slug="acme/beta", name="Beta", vectors={(3, 1): first_worse, (3, 2): first_worse})
    choice_run_store(slug="acme/gamma", name="Gamma", vectors={(1, 1): [0.0] * 21, (1, 2): [0.2] * 21})
    consent(client)
    walk(client, lambda a, b: min(a, b, key=RANKING_INDEX.get))

    page = html.unescape(client.get(RESULTS).content.decode())

    beta = re.search(r'data-model-comparison="acme/beta">(.*?)</li>', page, re.S).group(1)
    gamma = re.search(r'data-model-comparison="acme/gamma">(.*?)</li>', page, re.S).group(1)
    assert "<strong>21 of 21</strong>" in beta and "the same situations, block 3" in beta
    assert "<strong>0 of 21</strong>" in gamma and "not asked block 3" in gamma and "block 1" in gamma
    rows = re.findall(r"<tr><th scope=\"row\">([^<]+)</th><td>([^<]+)</td><td>([^<]+)</td><td>([^<]+)</td></tr>", page)
    assert rows[0] == ("Authority vs Care-emotional", "100 %", "100 %", "10 %")
    assert len(rows) == 21
    # The verdict table lists only the models asked the same block.
    assert '<tr data-subject="Beta">' in page and '<tr data-subject="Gamma">' not in page


def test_researchers_see_a_changed_answer_with_the_one_it_replaced(client, admin_client, ready):
    consent(client)
    client.post(ITEM, {"position": "1", "situation": "2"})
    client.post(ITEM, {"position": "1", "situation": "1", "revisit": "1"})
    session = QuestionnaireSession.objects.get()

    page = html.unescape(admin_client.get(f"/admin/surveys/questionnairesession/{session.pk}/change/").content.decode())

    assert '"situation": 2' in page and '"situation": 1' in page
