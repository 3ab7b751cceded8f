"""Every study's answers are exportable from admin as CSV with a codebook naming every column, each answer with the
edition it was shown in and its time on item: the shared questionnaire's studies (transitivity, MoralBench,
AMAeval), VirtueMap's profiling and its validation study."""

from __future__ import annotations

import csv
import io

import pytest

from instruments.virtuemap.validation import validation_open
from surveys.questionnaire import questionnaire_answer_submit, questionnaire_session_start
from surveys.services import respondent_consent

pytestmark = pytest.mark.django_db

SESSIONS = "/admin/surveys/questionnairesession/"


def export(client, url: str) -> tuple[list[dict[str, str]], str]:
    response = client.get(f"{url}.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    return rows, client.get(f"{url}-codebook.md").content.decode()


def answer_first(study: str, options: dict, data: list[dict], clock, language: str = "en"):
    respondent = respondent_consent(study=study, consent_version="1", accept=True, language=language).respondent
    session = questionnaire_session_start(respondent=respondent, options=options)
    for position, fields in enumerate(data, start=1):
        clock.advance(3)
        questionnaire_answer_submit(session=session, position=position, data=fields, time_on_item_ms=2500)
    return respondent


def assert_documented(rows: list[dict[str, str]], codebook: str) -> None:
    assert rows and all(f"`{column}`" in codebook for column in rows[0])


def test_moralbench_answers_export_with_their_set_option_language_and_time(admin_client, moralbench, consent_texts,
                                                                           clock):  # fmt: skip
    person = answer_first("moralbench", {"sets": "MFQ_30"}, [{"choice": "A"}, {"choice": "B"}], clock, "zh-hans")

    rows, codebook = export(admin_client, f"{SESSIONS}export/moralbench")

    assert_documented(rows, codebook)
    assert [row["respondent"] for row in rows] == [str(person.pk)] * 2
    assert {row["set"] for row in rows} == {"MFQ_30"} and [row["shown"] for row in rows] == ["A", "B"]
    assert {(row["language"], row["time_on_item_ms"]) for row in rows} == {("en", "2500")}


def test_amaeval_ratings_export_with_their_task_item_and_rating(admin_client, amaeval_instrument, consent_texts,
                                                                clock):  # fmt: skip
    answer_first("amaeval", {}, [{"rating": "3"}], clock)

    rows, codebook = export(admin_client, f"{SESSIONS}export/amaeval")

    assert_documented(rows, codebook)
    assert (rows[0]["task"], rows[0]["rating"], rows[0]["language"]) == ("1", "3", "en")
    assert rows[0]["item"]


def test_transitivity_choices_export_from_the_sessions_list_too(admin_client, pairwise_respondent):
    pairwise_respondent(["1", "2"])

    rows, codebook = export(admin_client, f"{SESSIONS}export/transitivity")

    assert_documented(rows, codebook)
    assert [row["situation"] for row in rows] == ["1", "2"] and {row["language"] for row in rows} == {"en"}


def test_profiling_answers_export_one_row_per_dilemma_with_the_edition(client, admin_client, instrument,
                                                                       consent_texts):  # fmt: skip
    client.post("/profile/?lang=zh-hans", {"agree": "on", "accept": "1"})
    positions = {f"position_{letter}": str(rank) for rank, letter in enumerate("CBADE", start=1)}
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions})
    client.post("/profile/dilemmas/D2/", {"action": "skip"})

    rows, codebook = export(admin_client, "/admin/virtuemap/profilingsubmission/export/answers")

    assert_documented(rows, codebook)
    by_dilemma = {row["dilemma"]: row for row in rows}
    assert (by_dilemma["D1"]["ranking"], by_dilemma["D1"]["language"]) == ("CBADE", "zh-hans")
    assert (by_dilemma["D2"]["skipped"], by_dilemma["D2"]["ranking"]) == ("1", "")


def test_validation_responses_export_the_edition_shown(admin_client, client, instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    validation_open(pairs=[("D1", "wisdom")], language="zh-hans")
    client.post("/study/consent/?lang=zh-hans", {"agree": "on", "accept": "1"})
    client.get("/study/item/")
    from instruments.virtuemap.models import Assignment

    pending = Assignment.objects.get(answered_at__isnull=True)
    client.post("/study/item/", {"assignment": pending.pk, "edition": "zh-hans", "action": "confirm"})

    rows, codebook = export(admin_client, "/admin/virtuemap/keycandidate/export/responses")

    assert_documented(rows, codebook)
    assert [row["language"] for row in rows] == ["zh-hans"]


def test_every_study_of_the_shared_questionnaire_has_an_export_link(admin_client, consent_texts):
    page = admin_client.get(SESSIONS).content.decode()

    for study in ("transitivity", "moralbench", "amaeval"):
        assert f'href="{SESSIONS}export/{study}.csv"' in page
        assert f'href="{SESSIONS}export/{study}-codebook.md"' in page
