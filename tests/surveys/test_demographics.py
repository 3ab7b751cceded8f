"""Demographics that describe an international sample: every ISO 3166-1 country and ISO 639-1 language, from the
maintained lists (django-countries, pycountry), on the page and in the study API; the earlier stored values migrated."""

from __future__ import annotations

import pytest

from instruments.virtuemap.validation import validation_open
from surveys.demographics import country_choices, language_choices
from surveys.models import Respondent
from surveys.services import respondent_demographics_set
from tests.migrations import migrate_to
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def test_every_iso_country_and_two_letter_language_is_offered_with_other_last():
    countries, languages = dict(country_choices()), dict(language_choices())
    assert len(countries) == 249 + 1 and len(languages) == 184 + 1
    assert (countries["KE"], countries["BR"], countries["VN"]) == ("Kenya", "Brazil", "Vietnam")
    assert (languages["sw"], languages["zh"], languages["el"]) == ("Swahili", "Chinese", "Modern Greek")
    assert country_choices()[-1][0] == language_choices()[-1][0] == "other"


def test_a_respondent_from_kenya_whose_first_language_is_swahili_can_say_so(client, instrument, consent_texts):
    validation_open(pairs=[("D1", "wisdom")])
    client.post("/study/consent/", {"agree": "on", "accept": "1"})
    page = client.get("/study/about-you/").content.decode()
    assert '<option value="KE">Kenya</option>' in page and '<option value="sw">Swahili</option>' in page
    response = client.post("/study/about-you/", {"country": "KE", "native_language": "sw", "save": "1"})
    assert response.url == "/study/item/"
    assert Respondent.objects.values_list("country", "native_language").get() == ("KE", "sw")


def test_a_code_outside_the_iso_lists_is_refused_and_nothing_is_written(respondent):
    for answers in ({"country": "XX"}, {"native_language": "english"}, {"native_language": "eng"}):
        with pytest.raises(ApplicationError, match="is not an answer to"):
            respondent_demographics_set(respondent=respondent, answers={"age_band": "25-34", **answers})
    respondent.refresh_from_db()
    assert (respondent.age_band, respondent.country, respondent.native_language) == ("", "", "")


def test_the_study_api_takes_the_iso_codes_too(api_client, consent_texts):
    body = {"consent_version": "1", "accept": True}
    token = api_client.post("/api/v1/study/consent/", body, format="json").json()["token"]
    api_client.credentials(HTTP_X_RESPONDENT_TOKEN=token)
    assert api_client.patch("/api/v1/study/respondent/", {"country": "XX"}, format="json").status_code == 400
    answers = {"country": "BR", "native_language": "pt"}
    assert api_client.patch("/api/v1/study/respondent/", answers, format="json").status_code == 204
    assert Respondent.objects.values_list("country", "native_language").get() == ("BR", "pt")


BEFORE = [("surveys", "0013_consent_text_study_details")]
AFTER = [("surveys", "0014_native_language_iso_codes")]


@pytest.mark.django_db(transaction=True)
def test_stored_languages_become_iso_codes_and_countries_stay_as_they_were():
    old = migrate_to(BEFORE)
    text = old.get_model("surveys", "ConsentText").objects.create(
        study="validation", version="1", title="t", information_sheet="i", consent_statement="c", text_hash="0" * 64
    )
    stored = {"english": "GB", "other": "other", "": ""}
    for language, country in stored.items():
        old.get_model("surveys", "Respondent").objects.create(
            study="validation", consent_text=text, consent_version="1", consent_text_hash="0" * 64,
            consented_at="2026-06-01T10:00:00+00:00", native_language=language, country=country,
        )  # fmt: skip
    new = migrate_to(AFTER)
    rows = set(new.get_model("surveys", "Respondent").objects.values_list("native_language", "country"))
    assert rows == {("en", "GB"), ("other", "other"), ("", "")}
    new.get_model("surveys", "Respondent").objects.filter(country="other").update(native_language="sw")
    back = migrate_to(BEFORE)
    rows = set(back.get_model("surveys", "Respondent").objects.values_list("native_language", "country"))
    assert rows == {("english", "GB"), ("other", "other"), ("", "")}
    migrate_to(AFTER)
