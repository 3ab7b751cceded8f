from __future__ import annotations

import re

import pytest
from django.test import Client

from instruments.virtuemap.models import Assignment, ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent

pytestmark = pytest.mark.django_db


def positions(ordering: str) -> dict[str, str]:
    return {f"item-position_{letter}": str(i) for i, letter in enumerate(ordering, start=1)}


def current(client) -> Assignment:
    client.get("/study/item/")
    return Assignment.objects.filter(answered_at__isnull=True).get()


@pytest.fixture
def consented(client, open_candidate):
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    return client


def test_the_landing_page_says_what_how_long_and_that_answers_are_anonymous(client, open_candidate):
    page = client.get("/study/?PROLIFIC_PID=abc&STUDY_ID=s&SESSION_ID=x").content.decode()
    assert "about 1 minute." in page and "anonymous" in page  # one open ordering, no attention check: one item
    assert "/study/consent/?PROLIFIC_PID=abc" in page


def test_the_consent_page_shows_the_versioned_text(client, open_candidate):
    page = client.get("/study/consent/").content.decode()
    assert "Information sheet" in page and "version 1" in page


def test_declining_stores_nothing_and_shows_the_no_consent_code_to_panel_arrivals(client, open_candidate):
    page = client.post("/study/consent/", {"decline": "1", "PROLIFIC_PID": "abc"}).content.decode()
    assert "please return your submission" in page.lower() and "VM-NOCONSENT" in page
    assert not Respondent.objects.exists() and "validation_respondent" not in client.session


def test_agreeing_without_ticking_the_box_is_a_form_error(client, open_candidate):
    page = client.post("/study/consent/", {"accept": "1"}).content.decode()
    assert "Please tick the box" in page and not Respondent.objects.exists()


def test_consent_leads_to_the_optional_demographics(client, open_candidate):
    response = client.post("/study/consent/", {"agree": "on", "accept": "1"})
    assert response.url == "/study/about-you/"
    assert Respondent.objects.get().consent_version == "1"


def test_demographics_can_be_skipped(consented):
    assert consented.post("/study/about-you/", {"skip": "1"}).url == "/study/item/"
    assert Respondent.objects.get().age_band == ""


def test_the_item_page_shows_dilemma_virtue_definition_ordering_progress_and_withdraw(consented):
    page = consented.get("/study/item/").content.decode()
    assert "The Spreadsheet Error" in page and "Practical Wisdom" in page
    assert "Proposed order" in page and 'progress id="study-progress"' in page
    assert "Withdraw and delete my answers" in page and "Item 1 of 10" in page


def test_a_confirmation_through_the_page_is_counted(consented, open_candidate):
    assignment = current(consented)
    consented.post("/study/item/", {"assignment": assignment.pk, "action": "confirm", **positions("CBDAE")})
    open_candidate.refresh_from_db()
    assert (open_candidate.n_evaluations, open_candidate.n_confirmations) == (1, 1)


def test_a_correction_through_the_page_is_stored(consented, open_candidate):
    assignment = current(consented)
    consented.post("/study/item/", {"assignment": assignment.pk, "action": "correct", **positions("BCDAE")})
    assert ValidationResponse.objects.get().ordering == "BCDAE"


def test_an_invalid_correction_is_shown_as_a_form_error_and_nothing_is_stored(consented):
    assignment = current(consented)
    body = {"assignment": assignment.pk, "action": "correct", **positions("CBDAE"), "item-position_A": "1"}
    page = consented.post("/study/item/", body).content.decode()
    assert "A and C are both at position 1" in page
    assert not ValidationResponse.objects.exists()


def test_a_back_button_resubmission_counts_once(consented, open_candidate):
    assignment = current(consented)
    body = {"assignment": assignment.pk, "action": "confirm", **positions("CBDAE")}
    consented.post("/study/item/", body)
    consented.post("/study/item/", body)
    open_candidate.refresh_from_db()
    assert open_candidate.n_evaluations == 1


def test_the_responses_are_shown_once_as_the_reorderable_proposed_order_with_two_equal_buttons(consented):
    page = consented.get("/study/item/").content.decode()
    text = "Report the mistake immediately and explain exactly what happened."  # response A of D1
    assert page.count(text) == 1
    assert 'data-initial-order="CBDAE"' in page
    buttons = re.findall(r'<button class="([^"]+)" type="submit" name="action" value="(\w+)"', page)
    assert buttons == [("button button--choice", "confirm"), ("button button--choice", "correct")]
    assert "<details" not in page


def test_confirming_a_moved_order_is_refused_and_nothing_is_stored(consented):
    assignment = current(consented)
    body = {"assignment": assignment.pk, "action": "confirm", **positions("BCDAE")}
    page = consented.post("/study/item/", body).content.decode()
    assert "You have moved responses" in page and not ValidationResponse.objects.exists()


def test_a_correction_that_moves_nothing_is_refused_and_nothing_is_stored(consented):
    assignment = current(consented)
    body = {"assignment": assignment.pk, "action": "correct", **positions("CBDAE")}
    page = consented.post("/study/item/", body).content.decode()
    assert "This is still the proposed order" in page and not ValidationResponse.objects.exists()


def test_an_answer_without_a_choice_of_button_is_refused(consented):
    assignment = current(consented)
    page = consented.post("/study/item/", {"assignment": assignment.pk, **positions("BCDAE")}).content.decode()
    assert "Please choose" in page and not ValidationResponse.objects.exists()


def test_the_page_records_its_presentation_and_the_scripts_time_when_plausible(consented):
    assignment = current(consented)
    consented.post(
        "/study/item/", {"assignment": assignment.pk, "action": "correct", "elapsed_ms": "0", **positions("BCDAE")}
    )
    response = ValidationResponse.objects.get()
    assert (response.presentation, response.time_measured_by, response.time_on_item_ms) == ("in_place", "client", 0)
    assert response.displayed_order == "CBDAE"


def test_an_implausible_script_time_falls_back_to_the_servers_clock(consented):
    assignment = current(consented)
    consented.post("/study/item/", {"assignment": assignment.pk, "action": "confirm", "elapsed_ms": "999999999"})
    response = ValidationResponse.objects.get()
    assert response.time_measured_by == "server" and response.time_on_item_ms < 999999999


def test_study_complete_is_shown_when_nothing_is_open(client, instrument, consent_texts):
    page = client.post("/study/consent/", {"agree": "on", "accept": "1"}).content.decode()
    assert "The study is complete" in page and "not open in this language" in page
    assert not Respondent.objects.exists()


def test_withdrawal_deletes_everything_and_confirms(consented):
    assignment = current(consented)
    consented.post("/study/item/", {"assignment": assignment.pk, "action": "confirm", **positions("CBDAE")})
    page = consented.post("/study/withdraw/").content.decode()
    assert "You have withdrawn" in page and not Respondent.objects.exists()
    assert not ValidationResponse.objects.exists()


def test_a_panel_respondent_walks_every_page_to_the_code_and_the_redirect(client, instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 1
    validation_open()
    client.get("/study/?PROLIFIC_PID=p1&STUDY_ID=s&SESSION_ID=x")
    assert client.post("/study/consent/", {"PROLIFIC_PID": "p1", "accept": "1"}).status_code == 200  # unticked
    client.post("/study/consent/", {"agree": "on", "accept": "1", "PROLIFIC_PID": "p1"})
    client.post("/study/about-you/", {"age_band": "25-34", "country": "GB"})
    while (response := client.get("/study/item/")).status_code == 200:
        item = Assignment.objects.filter(answered_at__isnull=True).get()
        if item.kind == "attention_check":
            ordering = item.check_letter + item.displayed_order.replace(item.check_letter, "")
            client.post("/study/item/", {"assignment": item.pk, **positions(ordering)})
        else:
            client.post("/study/item/", {"assignment": item.pk, "action": "confirm", **positions(item.displayed_order)})
    page = client.get(response.url).content.decode()
    assert "VM-COMPLETED" in page and "cc=VM-COMPLETED" in page
    assert ValidationResponse.objects.count() == 10 and not Respondent.objects.get().flagged


def test_the_last_answer_leads_straight_to_the_thank_you_page(client, instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.STUDY_ITEMS_PER_RESPONDENT = 2
    validation_open()
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    assert client.get("/study/thanks/").url == "/study/item/"  # not finished: their item, no code
    redirects = []
    for _ in range(2):
        client.get("/study/item/")
        item = Assignment.objects.filter(answered_at__isnull=True).get()
        redirects.append(client.post("/study/item/", {"assignment": item.pk, "action": "confirm"}).url)
    assert redirects == ["/study/item/", "/study/thanks/"]
    assert "VM-COMPLETED" in client.get("/study/thanks/").content.decode()
    assert Respondent.objects.get().is_complete and ValidationResponse.objects.count() == 2


def test_another_browser_with_a_finished_panel_id_is_not_told_and_does_not_count(client, open_candidate):
    client.post("/study/consent/", {"agree": "on", "accept": "1", "pid": "p9"})
    Respondent.objects.update(completed_at="2026-01-01T00:00Z")
    client.cookies.clear()  # another browser, the same panel ID
    response = client.post("/study/consent/", {"agree": "on", "accept": "1", "pid": "p9"})
    assert response.url == "/study/about-you/"  # where every first arrival goes
    newcomer = Respondent.objects.get(completed_at__isnull=True)
    assert newcomer.flagged and "panel_id_reused" in newcomer.suspicion.split(",")


def test_a_returning_unfinished_panel_respondent_of_the_same_session_resumes(client, open_candidate):
    panel = {"PROLIFIC_PID": "p9", "STUDY_ID": "s1", "SESSION_ID": "x1"}
    client.post("/study/consent/", {"agree": "on", "accept": "1", **panel})
    client.session.flush()
    client.cookies.clear()
    response = client.post("/study/consent/", {"agree": "on", "accept": "1", **panel})
    assert response.url == "/study/item/" and Respondent.objects.count() == 1


def test_a_browser_that_already_consented_continues_instead_of_consenting_again(consented):
    assert consented.get("/study/consent/").url == "/study/item/"
    assert Respondent.objects.count() == 1


def test_a_browser_that_finished_sees_its_code_again_instead_of_a_new_consent(consented):
    Respondent.objects.update(completed_at="2026-01-01T00:00Z")
    assert consented.get("/study/consent/").url == "/study/thanks/"
    assert "see your completion code" in consented.get("/study/").content.decode()


def test_the_home_page_invites_people_to_the_study_while_it_is_open(client, open_candidate):
    assert 'href="/study/"' in client.get("/").content.decode()


def test_pages_after_consent_need_the_session(client, open_candidate):
    assert client.get("/study/item/").url == "/study/"
    assert re.search("Nothing to withdraw", client.get("/study/withdraw/").content.decode())


PANEL = {"PROLIFIC_PID": "p7", "STUDY_ID": "s7", "SESSION_ID": "x7"}


def test_a_finished_panel_participant_back_on_another_device_sees_the_code_not_a_consent_form(client, open_candidate):
    client.post("/study/consent/", {"agree": "on", "accept": "1", **PANEL})
    Respondent.objects.update(completed_at="2026-01-01T00:00Z")
    other = Client()
    for path in ("/study/", "/study/consent/"):
        page = other.get(path, PANEL).content.decode()
        assert "VM-COMPLETED" in page and "cc=VM-COMPLETED" in page and 'name="agree"' not in page, path
    assert Respondent.objects.count() == 1


def test_a_withdrawing_panel_participant_is_told_to_return_the_submission(client, open_candidate):
    client.post("/study/consent/", {"agree": "on", "accept": "1", **PANEL})
    page = client.post("/study/withdraw/").content.decode()
    assert "return your submission" in page and "VM-NOCONSENT" in page and "Deleted 1 record" in page
    assert "VM-COMPLETED" not in page and not Respondent.objects.exists()


def test_the_reference_resumes_the_study_in_another_browser(consented):
    page = consented.get("/study/item/").content.decode()
    reference = re.search(r'<strong class="reference">([0-9A-Z-]{14})</strong>', page).group(1)
    other = Client()
    assert other.post("/resume/", {"reference": reference}).url == "/study/item/"
    assert other.get("/study/item/").status_code == 200 and Respondent.objects.count() == 1
