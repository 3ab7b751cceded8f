"""The pages around the participant reference, for every study: the footer, withdrawing and resuming from another
browser, the private results link, and what a panel participant who withdraws or comes back is told."""

from __future__ import annotations

import re
import time
from pathlib import Path
from unittest import mock

import pytest
from django.test import Client

from instruments.virtuemap.models import ProfilingSubmission
from instruments.virtuemap.plugin import PROFILING
from surveys.models import QuestionnaireAnswer, QuestionnaireSession, Respondent
from surveys.references import reference_new
from surveys.services import consent_text_install_defaults
from tests.instruments.toy import STUDY
from tests.instruments.virtuemap.test_profile_questionnaire import answer_as_seen, positions

pytestmark = pytest.mark.django_db

START, ITEM, RESULTS = f"/take/{STUDY}/", f"/take/{STUDY}/next/", f"/take/{STUDY}/results/"
REFERENCE = re.compile(r"data-participant-reference>.*?<strong class=\"reference\">([0-9A-Z-]{14})</strong>", re.S)


@pytest.fixture(autouse=True)
def toy_registered(settings):
    settings.INSTRUMENTS = settings.INSTRUMENTS | {"toy": "tests.instruments.toy.Toy"}
    settings.TEMPLATES = [
        {
            **settings.TEMPLATES[0],
            "DIRS": [*settings.TEMPLATES[0]["DIRS"], Path(__file__).parents[1] / "instruments" / "templates"],
        }
    ]
    consent_text_install_defaults()


def footer_reference(page: str) -> str | None:
    found = REFERENCE.search(page)
    return found.group(1) if found else None


def results_link(page: str) -> str:
    return re.search(r'value="http://testserver([^"]+)" aria-label="Private link', page).group(1)


def take_part(client: Client, answers: int = 1) -> str:
    """Consent to the toy questionnaire, answer ``answers`` items; return the reference in the footer."""
    client.post(START, {"agree": "on", "accept": "1"})
    for position in range(1, answers + 1):
        client.post(ITEM, {"position": str(position), "answer": "yes"})
    return footer_reference(client.get(ITEM if answers < 3 else RESULTS).content.decode())


def test_every_page_after_consent_shows_the_reference_in_its_footer(client):
    assert footer_reference(client.get(START).content.decode()) is None
    reference = take_part(client)
    assert reference is not None
    for path in (ITEM, "/", "/models/", "/withdraw/"):
        assert footer_reference(client.get(path).content.decode()) == reference, path


def test_a_second_browser_withdraws_with_the_reference_and_is_told_what_was_deleted(client):
    reference = take_part(client, answers=2)
    other = Client()

    page = other.post("/withdraw/", {"reference": reference.lower(), "confirm": "1"}).content.decode()

    assert "Deleted 4 records" in page
    for kind, count in [("consent record and optional details", 1), ("questionnaire session", 1)]:
        assert f"{kind}</span>: <strong data-count>{count}<" in page
    assert "questionnaire answers</span>: <strong data-count>2<" in page
    assert not Respondent.objects.exists() and not QuestionnaireSession.objects.exists()
    assert not QuestionnaireAnswer.objects.exists()
    # The first browser no longer shows a reference that leads nowhere, and starts afresh.
    assert footer_reference(client.get("/").content.decode()) is None
    assert client.get(ITEM).url == START


def test_an_unknown_or_malformed_reference_deletes_nothing_and_says_why(client):
    take_part(client)
    unknown = Client().post("/withdraw/", {"reference": reference_new()})
    malformed = Client().post("/withdraw/", {"reference": "my name"})
    assert unknown.status_code == malformed.status_code == 400
    assert "No participant holds this reference, so nothing was changed" in unknown.content.decode()
    assert "This is not a participant reference" in malformed.content.decode()
    assert Respondent.objects.count() == 1 and QuestionnaireAnswer.objects.count() == 1


def test_guessing_references_is_rate_limited(client, settings):
    settings.STUDY_REFERENCE_RATE = "3/hour"
    reference = take_part(client)
    guesser = Client()
    statuses = [guesser.post("/withdraw/", {"reference": reference_new()}).status_code for _ in range(3)]
    limited = guesser.post("/withdraw/", {"reference": reference})
    resume = guesser.post("/resume/", {"reference": reference})  # one budget for both pages
    assert statuses == [400, 400, 400] and limited.status_code == resume.status_code == 429
    assert Respondent.objects.count() == 1


def test_a_second_browser_resumes_where_the_first_left_off(client):
    reference = take_part(client, answers=1)
    other = Client()
    response = other.post("/resume/", {"reference": reference})
    assert response.url == ITEM
    page = other.get(ITEM).content.decode()
    assert 'name="position" value="2"' in page and footer_reference(page) == reference
    other.post(ITEM, {"position": "2", "answer": "no"})
    assert QuestionnaireAnswer.objects.count() == 2 and Respondent.objects.count() == 1


def test_the_private_results_link_shows_the_results_in_any_browser_until_withdrawal(client):
    take_part(client, answers=3)
    url = results_link(client.get(RESULTS).content.decode())

    shown = Client().get(url)
    assert shown.status_code == 200
    page = shown.content.decode()
    assert page.count('data-answer="yes"') == 3 and "Withdraw: delete my answers" not in page
    assert Client().get(url[:-3] + "xx/").status_code == 404  # damaged
    client.post(f"/take/{STUDY}/withdraw/")
    gone = Client().get(url)
    assert gone.status_code == 404 and "they were withdrawn" in gone.content.decode()


def test_a_private_results_link_expires(client, settings):
    take_part(client, answers=3)
    url = results_link(client.get(RESULTS).content.decode())
    settings.RESULTS_LINK_MAX_AGE_DAYS = 1
    with mock.patch("django.core.signing.time.time", return_value=time.time() + 2 * 86_400):
        expired = Client().get(url)
    assert expired.status_code == 404 and "expired" in expired.content.decode()
    assert Client().get(url).status_code == 200  # a day later it still worked


def test_a_finished_panel_participant_back_through_the_panel_link_sees_the_code_again(client, settings):
    panel = {"PROLIFIC_PID": "p1", "STUDY_ID": "s1", "SESSION_ID": "x1"}
    client.post(START, {"agree": "on", "accept": "1", **panel})
    for position in (1, 2, 3):
        client.post(ITEM, {"position": str(position), "answer": "yes"})
    other = Client()  # another device
    page = other.get(START, panel).content.decode()
    assert "You have already finished" in page and "VM-COMPLETED" in page and "cc=VM-COMPLETED" in page
    # Someone with the panel ID but another session is not told, and gets the ordinary consent form.
    assert "already finished" not in Client().get(START, {**panel, "SESSION_ID": "other"}).content.decode()


def test_a_withdrawing_panel_participant_is_told_to_return_the_submission_with_the_right_code(client):
    client.post(START, {"agree": "on", "accept": "1", "PROLIFIC_PID": "p2", "STUDY_ID": "s1", "SESSION_ID": "x"})
    page = client.post(f"/take/{STUDY}/withdraw/").content.decode()
    assert "return your submission" in page and "VM-NOCONSENT" in page
    anonymous = take_part(Client())
    by_reference = Client().post("/withdraw/", {"reference": anonymous, "confirm": "1"}).content.decode()
    assert "Deleted" in by_reference and "return your submission" not in by_reference


# --- profiling, whose answers live in the browser until consent ---------------------------------------------


@pytest.fixture
def profiled(client, instrument):
    client.post("/profile/", {"accept": "1", "agree": "on"})
    answer_as_seen(client, "D1", "CBADE")
    return client


def test_start_again_can_withdraw_the_stored_answers_and_says_so(profiled):
    page = profiled.post("/profile/results/", {"start_again": "withdraw", "confirm": "1"}).content.decode()
    assert "Deleted 2 records" in page
    assert not Respondent.objects.exists() and not ProfilingSubmission.objects.exists()


def test_start_again_can_keep_the_stored_answers_under_the_reference_that_withdraws_them(profiled):
    reference = footer_reference(profiled.get("/profile/results/").content.decode())
    page = profiled.post("/profile/results/", {"start_again": "keep"}).content.decode()
    assert reference in page and "withdraw them" in page
    assert ProfilingSubmission.objects.count() == 1
    assert "profiling_respondent" not in profiled.session  # this browser starts afresh
    assert "Deleted 2 records" in Client().post("/withdraw/", {"reference": reference, "confirm": "1"}).content.decode()
    assert not ProfilingSubmission.objects.exists()


def test_the_results_page_offers_both_ways_of_starting_again_only_after_consent(profiled, client):
    page = profiled.get("/profile/results/").content.decode()
    assert 'value="withdraw"' in page and 'value="keep"' in page
    anonymous = Client()
    anonymous.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    page = anonymous.get("/profile/results/").content.decode()
    assert 'value="keep"' not in page and "Start again (forget my answers)" in page


def test_a_second_browser_resumes_the_profile_with_the_stored_answers(profiled):
    reference = footer_reference(profiled.get("/profile/results/").content.decode())
    start_order = ProfilingSubmission.objects.get().start_orders["D1"]
    other = Client()
    assert other.post("/resume/", {"reference": reference}).url == "/profile/resume/"
    assert other.get("/profile/resume/").url == "/profile/dilemmas/D2/"
    other.get("/profile/dilemmas/D2/")
    other.post("/profile/dilemmas/D2/", {"action": "skip"})
    stored = ProfilingSubmission.objects.get()
    assert stored.rankings == {"D1": "CBADE", "D2": None}
    assert stored.start_orders["D1"] == start_order  # what the first browser showed still stands
    assert Respondent.objects.filter(study=PROFILING).count() == 1


def test_the_private_link_to_a_profile_works_without_consent_and_in_another_browser(client, instrument):
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    page = client.get("/profile/results/").content.decode()
    url = results_link(page)
    scores = re.findall(r'data-virtue="(\w+)">\s*<th[^>]*>[^<]+</th>\s*<td>([^<]+)<', page)
    shown = Client().get(url).content.decode()
    assert re.findall(r'data-virtue="(\w+)">\s*<th[^>]*>[^<]+</th>\s*<td>([^<]+)<', shown) == scores
    assert "from a private link" in shown and "data-start-again" not in shown
    assert not Respondent.objects.exists()
    assert Client().get("/profile/results/forged/").status_code == 404


def test_a_forged_references_cookie_shows_nothing(client):
    reference = take_part(client)
    client.cookies["participant_references"] = f'{{"{STUDY}":"{reference}"}}:forged-signature'
    page = client.get(ITEM).content.decode()
    assert footer_reference(page) is None and 'name="position"' in page


def test_resuming_another_reference_keeps_the_one_this_browser_showed_in_view(client):
    mine = take_part(client)
    theirs = take_part(Client())
    assert client.post("/resume/", {"reference": theirs}).url == ITEM
    shown = re.findall(r'<strong class="reference">([0-9A-Z-]{14})</strong>', client.get(ITEM).content.decode())
    assert shown[:2] == [mine, theirs]
    assert client.post("/resume/", {"reference": mine}).url == ITEM


def test_the_private_link_carries_on_without_consent_in_a_browser_without_answers(client, instrument):
    client.post("/profile/dilemmas/D1/", {"action": "answer", **positions("CBADE")})
    url = results_link(client.get("/profile/results/").content.decode())
    other = Client()
    assert other.post(url).url == "/profile/dilemmas/D2/"
    other.get("/profile/dilemmas/D2/")
    other.post("/profile/dilemmas/D2/", {"action": "skip"})
    assert "1 of 7 answered, 1 skipped" in other.get("/profile/results/").content.decode()
    # The browser that holds answers of its own keeps them: loading the link there is refused.
    refused = client.post(url)
    assert refused.status_code == 409 and "This browser holds answers of its own" in refused.content.decode()
    assert not Respondent.objects.exists()


def test_taking_part_again_after_the_session_ended_keeps_the_earlier_reference_in_view(client):
    earlier = take_part(client, answers=3)
    client.cookies.pop("sessionid")  # the session ends; the references cookie outlives it
    take_part(client)
    shown = re.findall(r'<strong class="reference">([0-9A-Z-]{14})</strong>', client.get(ITEM).content.decode())
    assert len(shown) == 2 and shown[0] == earlier and Respondent.objects.count() == 2
    later = shown[1]
    Client().post("/withdraw/", {"reference": earlier, "confirm": "1"})
    assert footer_reference(client.get(ITEM).content.decode()) == later
