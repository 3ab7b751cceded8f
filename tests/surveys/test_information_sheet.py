"""Every study's information sheet says who answers for it (researcher, institution, contact, ethics approval) and
what taking part asks, computed from the settings and the item bank rather than written into the text."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.core.management import call_command

from instruments import registry
from instruments.virtuemap.consent import PROFILING_CONSENT, VALIDATION_CONSENT
from instruments.virtuemap.validation import validation_open
from surveys.models import ConsentText, QuestionnaireSession
from surveys.services import consent_text_install_defaults

pytestmark = pytest.mark.django_db

DETAILS = {
    "STUDY_RESEARCHER": "Dr Ada Example",
    "STUDY_INSTITUTION": "University of Example",
    "STUDY_CONTACT": "virtuemap-study@example.org",
    "STUDY_ETHICS_REFERENCE": "Example Ethics Board, ref. 2026-123",
}
# Every consent page: the validation study's, the profiling page, and the shared questionnaire of each other study.
CONSENT_PAGES = {"validation": "/study/consent/", "profiling": "/profile/"}


@pytest.fixture
def everything_loaded(settings):
    for name, value in DETAILS.items():
        setattr(settings, name, value)
    call_command("load_instrument", verbosity=0)
    validation_open()


def _consent_page(study: str) -> str:
    return CONSENT_PAGES.get(study, f"/take/{study}/")


def _length(page: str) -> tuple[int, int]:
    found = re.search(r"<p data-study-length>.*?(\d+) pages?, .*?about\s+(\d+) minutes?", page, re.S)
    assert found, "the sheet states no length"
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("study", sorted(registry.studies()))
def test_every_information_sheet_names_the_researcher_institution_contact_and_ethics_approval(
    client, everything_loaded, study
):
    page = client.get(_consent_page(study)).content.decode()
    for value in DETAILS.values():
        assert value in page, (study, value)
    assert '<a href="mailto:virtuemap-study@example.org">' in page
    _length(page)  # and how long it takes


def test_the_first_consent_texts_record_the_details_so_that_their_hash_covers_them(everything_loaded):
    for text in ConsentText.objects.all():
        assert (text.researcher, text.ethics_reference) == (
            DETAILS["STUDY_RESEARCHER"],
            DETAILS["STUDY_ETHICS_REFERENCE"],
        )
        assert text.text_hash == text.computed_hash


def test_a_consent_texts_own_details_come_before_the_settings(client, everything_loaded):
    ConsentText.objects.filter(study="validation").update(ethics_reference="Another Board, ref. 7")
    page = client.get("/study/consent/").content.decode()
    assert "Another Board, ref. 7" in page and DETAILS["STUDY_ETHICS_REFERENCE"] not in page


def test_details_given_nowhere_are_said_to_be_missing(client, instrument, consent_texts):
    from instruments.virtuemap.validation import validation_open

    validation_open()  # the consent page of a study with nothing open takes no consent
    page = client.get("/study/consent/").content.decode()
    assert page.count("Not given yet") == 4


def test_a_text_without_details_keeps_the_hash_it_had_before_details_existed(db):
    text = ConsentText.objects.create(study="profiling", version="9", title="t", **_sheet(PROFILING_CONSENT))
    before = hashlib.sha256(f"{text.information_sheet}\x1e{text.consent_statement}".encode()).hexdigest()
    assert text.text_hash == before
    text.contact = "someone@example.org"
    text.save()
    assert text.text_hash != before


def _sheet(consent: dict) -> dict:
    return {"information_sheet": consent["information_sheet"], "consent_statement": consent["consent_statement"]}


def test_the_validation_sheet_counts_the_items_and_checks_of_the_settings(client, everything_loaded, settings):
    settings.STUDY_ITEMS_PER_RESPONDENT = 7
    settings.STUDY_ATTENTION_CHECKS = 2
    page = client.get("/study/consent/").content.decode()
    assert _length(page) == (9, 9)  # 9 pages at a minute each
    assert "2 of them a check that you are reading attentively" in page
    assert "You will see 9" in client.get("/study/").content.decode()


def test_the_profiling_sheet_counts_the_dilemmas(client, everything_loaded):
    assert _length(client.get("/profile/").content.decode()) == (7, 10)  # 7 × 90 s = 10.5 minutes, said as 10


@pytest.mark.parametrize("study", ["transitivity", "moralbench"])
def test_a_questionnaire_asks_exactly_as_many_items_as_its_sheet_says(client, everything_loaded, study):
    stated, _ = _length(client.get(f"/take/{study}/").content.decode())
    client.post(f"/take/{study}/", {"agree": "on", "accept": "1"})
    assert len(QuestionnaireSession.objects.get(instrument=study).sequence) == stated


def test_no_built_in_consent_text_states_a_count_or_a_time_of_its_own():
    for study in registry.studies().values():
        sheet = study.consent["information_sheet"]
        assert not re.search(r"\bminutes?\b|\babout (ten|\d+)\b", sheet), study.slug


def test_the_profiling_sheet_promises_no_questions_about_the_person_since_none_are_asked(client, everything_loaded):
    assert "Optional questions" not in PROFILING_CONSENT["information_sheet"]
    assert "we ask nothing about you" in client.get("/profile/").content.decode()


def test_the_validation_sheet_promises_the_optional_questions_its_study_asks(client, everything_loaded):
    assert "age band, gender, country, education and native language" in VALIDATION_CONSENT["information_sheet"]
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    page = client.get("/study/about-you/").content.decode()
    for name in ("age_band", "gender", "country", "education", "native_language"):
        assert f'name="{name}"' in page


def test_installing_the_defaults_twice_changes_nothing(everything_loaded):
    assert consent_text_install_defaults() == []


def test_the_home_page_invitation_states_the_minutes_the_sheet_states(client, everything_loaded, settings):
    settings.STUDY_ITEMS_PER_RESPONDENT = 4
    _, minutes = _length(client.get("/study/consent/").content.decode())
    assert f"(about {minutes} minutes, anonymous)" in client.get("/").content.decode()


def test_the_study_api_gives_front_ends_the_same_details_and_length(api_client, everything_loaded, settings):
    settings.STUDY_ITEMS_PER_RESPONDENT = 5
    settings.STUDY_ATTENTION_CHECKS = 1
    body = api_client.get("/api/v1/study/consent/").json()
    assert body["researcher"] == DETAILS["STUDY_RESEARCHER"] and body["contact"] == DETAILS["STUDY_CONTACT"]
    assert (body["items"], body["attention_checks"], body["minutes"]) == (6, 1, 6)
    stated = _length(api_client.get("/study/consent/").content.decode())
    assert stated == (body["items"], body["minutes"])


def _earlier_built_in_text(study: str, **changes) -> ConsentText:
    """The study's first built-in wording as a deployment installed it before the sheets computed their length."""
    from instruments.moralbench.consent import MORALBENCH_CONSENT

    sheet = MORALBENCH_CONSENT["information_sheet"]
    sheet = sheet[: sheet.index("Withdrawing.")] + (
        'Withdrawing. You may stop at any time. Until you close the study, a "withdraw" link deletes everything you '
        "gave us."
    )
    earlier = {
        "title": MORALBENCH_CONSENT["title"],
        "information_sheet": sheet.replace(
            "answers is random and recorded.", "answers is random and recorded. It takes about 10 to 15 minutes."
        ),
        "consent_statement": MORALBENCH_CONSENT["consent_statement"],
        **changes,
    }
    return ConsentText.objects.create(study=study, version="1", is_current=True, **earlier)


def test_an_unedited_earlier_built_in_text_is_replaced_by_the_next_version(db, consent_texts):
    ConsentText.objects.filter(study="moralbench", language="en").delete()
    earlier = _earlier_built_in_text("moralbench")
    (installed,) = consent_text_install_defaults()
    assert (installed.study, installed.version, installed.is_current) == ("moralbench", "2", True)
    assert "minutes" not in installed.information_sheet
    earlier.refresh_from_db()
    assert not earlier.is_current and "10 to 15 minutes" in earlier.information_sheet  # kept for who consented to it
    assert consent_text_install_defaults() == []


def test_a_text_a_researcher_edited_is_left_alone(db, consent_texts):
    ConsentText.objects.filter(study="moralbench", language="en").delete()
    edited = _earlier_built_in_text("moralbench", title="Our own title", consent_statement="Our own statement.")
    assert consent_text_install_defaults() == []
    edited.refresh_from_db()
    assert edited.is_current


def test_researchers_fill_the_details_in_admin_until_someone_consented_to_them(admin_client, respondent):
    text = respondent.consent_text
    url = f"/admin/surveys/consenttext/{text.pk}/change/"
    assert 'name="ethics_reference"' not in admin_client.get(url).content.decode()  # consented to: read-only
    other = ConsentText.objects.get(study="profiling", language="en")
    assert (
        'name="ethics_reference"' in admin_client.get(f"/admin/surveys/consenttext/{other.pk}/change/").content.decode()
    )


def test_the_transitivity_page_states_the_minutes_its_questionnaires_sheet_states(client, everything_loaded):
    _, minutes = _length(client.get("/take/transitivity/").content.decode())
    assert re.search(rf"about\s+{minutes} minutes;", client.get("/transitivity/").content.decode())


def test_the_moralbench_introduction_states_the_minutes_its_sheet_states(client, everything_loaded):
    page = client.get("/take/moralbench/").content.decode()
    _, minutes = _length(page)
    assert f"It takes about {minutes} minute" in page
