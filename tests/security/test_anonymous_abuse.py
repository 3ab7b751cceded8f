"""Anonymous abuse: rate limits keyed on an unstored value, the consent honeypot and minimum time, and flags."""

from __future__ import annotations

import pickle
import re
import time

import pytest
from django.core.cache import cache
from django.test import RequestFactory

from instruments.virtuemap.exports import RESPONSES
from instruments.virtuemap.models import ValidationResponse
from instruments.virtuemap.validation import validation_open
from surveys.forms import FORM_TIME_MAX_AGE, form_time_token
from surveys.models import Respondent
from tests import client_session
from virtuemap_site.abuse import client_fingerprint, parse_rate

ADDRESS = "203.0.113.9"


@pytest.fixture
def study(instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.STUDY_CONSENT_MIN_SECONDS = 5.0
    return validation_open(pairs=[("D1", "wisdom")])[0]


def signed_form_time(client, shown_seconds_ago: float) -> str:
    """The display time the consent page would have given this test client's browser session."""
    session = client.session
    token = form_time_token(session, time.time() - shown_seconds_ago)
    client_session.saved(client, session)
    return token


def _consent(client, *, shown_seconds_ago: float | None = 30.0, honeypot: str = "", **extra):
    data = {"agree": "on", "accept": "1", "contact_note": honeypot}
    if shown_seconds_ago is not None:
        data["form_time"] = signed_form_time(client, shown_seconds_ago)
    return client.post("/study/consent/", data, REMOTE_ADDR=extra.pop("address", ADDRESS), **extra)


def test_a_person_who_reads_and_agrees_is_not_flagged(client, study):
    assert _consent(client).url == "/study/about-you/"
    assert Respondent.objects.get().suspicion == ""


def test_the_consent_page_carries_a_signed_display_time_and_a_honeypot(client, study):
    page = client.get("/study/consent/").content.decode()
    assert re.search(r'name="form_time" value="[^"]+:[^"]+"', page)
    assert 'class="hp-field" aria-hidden="true"' in page and 'name="contact_note"' in page


def test_a_filled_honeypot_flags_the_respondent_who_continues_normally(client, study):
    response = _consent(client, honeypot="http://spam.example")
    assert response.url == "/study/about-you/"  # not turned away
    respondent = Respondent.objects.get()
    assert respondent.suspicion == "honeypot"
    item = client.get("/study/item/")
    assignment = item.context["assignment"]
    client.post("/study/item/", {"assignment": assignment.pk, "action": "confirm"}, REMOTE_ADDR=ADDRESS)
    response = ValidationResponse.objects.get()
    assert response.respondent == respondent and response.counted


def test_consenting_sooner_than_the_minimum_time_flags(client, study):
    _consent(client, shown_seconds_ago=1.0)
    assert Respondent.objects.get().suspicion == "too_fast"


def test_the_real_form_posted_at_once_is_too_fast(client, study):
    page = client.get("/study/consent/").content.decode()
    form_time = re.search(r'name="form_time" value="([^"]+)"', page).group(1)
    client.post("/study/consent/", {"agree": "on", "accept": "1", "form_time": form_time})
    assert Respondent.objects.get().suspicion == "too_fast"


def test_a_consent_without_our_signed_time_flags(client, study):
    _consent(client, shown_seconds_ago=None, honeypot="x")
    assert Respondent.objects.get().suspicion == "honeypot,no_form_time"


def test_a_forged_display_time_counts_as_missing(client, study):
    client.post("/study/consent/", {"agree": "on", "accept": "1", "form_time": "1700000000.0"})
    assert Respondent.objects.get().suspicion == "no_form_time"


def test_a_display_time_older_than_its_maximum_age_counts_as_missing(client, study):
    _consent(client, shown_seconds_ago=FORM_TIME_MAX_AGE + 60)
    assert Respondent.objects.get().suspicion == "no_form_time"


def test_a_display_time_replayed_from_another_browser_flags_every_consent_it_carries(client, study):
    page = client.get("/study/consent/").content.decode()
    captured = re.search(r'name="form_time" value="([^"]+)"', page).group(1)
    for _ in range(3):
        client.cookies.clear()  # a fresh browser session each time
        client.post("/study/consent/", {"agree": "on", "accept": "1", "form_time": captured})
    assert list(Respondent.objects.values_list("suspicion", flat=True)) == ["form_time_reused"] * 3


def test_a_display_time_vouches_for_one_consent_only(client, study):
    data = {"agree": "on", "form_time": signed_form_time(client, 30)}
    client.post("/profile/", data)
    client.post("/profile/", data)  # the same browser, the same page, sent again
    assert list(Respondent.objects.order_by("consented_at").values_list("suspicion", flat=True)) == [
        "",
        "form_time_reused",
    ]


def test_the_profiling_consent_flags_too(client, study):
    data = {"agree": "on", "contact_note": "bot", "form_time": signed_form_time(client, 60)}
    client.post("/profile/", data)
    assert Respondent.objects.get(study="profiling").suspicion == "honeypot"


def test_suspicion_is_in_the_export_and_the_admin(client, study, researcher):
    _consent(client, honeypot="x")
    assignment = client.get("/study/item/").context["assignment"]
    client.post("/study/item/", {"assignment": assignment.pk, "action": "confirm"})
    header, row = RESPONSES.csv_text().splitlines()[:2]
    assert header.split(",")[-1] == "suspicion" and row.endswith(",honeypot")
    client.force_login(researcher)
    page = client.get("/admin/surveys/respondent/?suspicion=any").content.decode()
    assert "honeypot" in page and str(Respondent.objects.get().pk) in page
    assert (
        str(Respondent.objects.get().pk) not in client.get("/admin/surveys/respondent/?suspicion=none").content.decode()
    )


# --- Rate limits ------------------------------------------------------------------------------------------------


def test_consent_pages_are_rate_limited_per_client(client, study, settings):
    settings.STUDY_CONSENT_RATE = "2/hour"
    for _ in range(2):
        _consent(client)
        client.cookies.clear()  # a new browser each time, same address
    response = _consent(client)
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert "Please slow down" in response.content.decode()
    assert Respondent.objects.count() == 2
    assert _consent(client, address="198.51.100.4").status_code == 302  # another client is not affected


def test_the_limit_can_be_turned_off(client, study, settings):
    settings.STUDY_CONSENT_RATE = "off"
    for _ in range(5):
        assert _consent(client).status_code == 302
        client.cookies.clear()


def test_item_submissions_are_rate_limited(client, study, settings):
    settings.STUDY_SUBMIT_RATE = "1/minute"
    _consent(client)
    assignment = client.get("/study/item/").context["assignment"]
    client.post("/study/about-you/", {"skip": "1"}, REMOTE_ADDR=ADDRESS)  # the one allowed submission
    response = client.post("/study/item/", {"assignment": assignment.pk, "action": "confirm"}, REMOTE_ADDR=ADDRESS)
    assert response.status_code == 429 and not ValidationResponse.objects.exists()


def test_an_answer_refused_for_speed_can_be_sent_again_from_the_429_page_once_the_wait_is_over(client, study, settings):
    settings.STUDY_SUBMIT_RATE = "1/minute"
    _consent(client)
    assignment = client.get("/study/item/").context["assignment"]
    client.post("/study/about-you/", {"skip": "1"}, REMOTE_ADDR=ADDRESS)
    answer = {"assignment": str(assignment.pk), "action": "confirm"}
    refused = client.post("/study/item/", answer, REMOTE_ADDR=ADDRESS)
    page = refused.content.decode()
    resent = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page))
    assert '<form method="post" action="/study/item/">' in page and resent == answer

    settings.STUDY_SUBMIT_RATE = "off"  # the wait is over
    assert client.post("/study/item/", resent, REMOTE_ADDR=ADDRESS).status_code == 302
    assert ValidationResponse.objects.get().candidate_id == assignment.candidate_id


def test_profiling_answers_are_rate_limited(client, study, settings):
    settings.STUDY_SUBMIT_RATE = "1/minute"
    answer = {f"position_{letter}": str(i) for i, letter in enumerate("ABCDE", start=1)}
    assert client.post("/profile/dilemmas/D1/", answer).status_code == 302
    assert client.post("/profile/dilemmas/D2/", answer).status_code == 429


def test_the_study_api_consent_is_rate_limited(api_client, study, settings):
    settings.STUDY_CONSENT_RATE = "1/hour"
    body = {"consent_version": "1", "accept": True}
    assert api_client.post("/api/v1/study/consent/", body, format="json").status_code == 201
    response = api_client.post("/api/v1/study/consent/", body, format="json")
    assert response.status_code == 429 and response.json()["extra"]["wait_seconds"] > 0
    assert Respondent.objects.count() == 1


def test_the_study_api_submissions_are_rate_limited(api_client, study, settings):
    settings.STUDY_SUBMIT_RATE = "1/minute"
    token = api_client.post("/api/v1/study/consent/", {"consent_version": "1", "accept": True}, format="json")
    api_client.credentials(HTTP_X_RESPONDENT_TOKEN=token.json()["token"])
    candidate = api_client.get("/api/v1/study/next/").json()["candidate"]
    assert api_client.patch("/api/v1/study/respondent/", {}, format="json").status_code == 204
    response = api_client.post("/api/v1/study/responses/", {"candidate": candidate, "confirmed": True}, format="json")
    assert response.status_code == 429 and not ValidationResponse.objects.exists()


def test_the_cache_holds_no_client_address(client, api_client, study, settings):
    settings.STUDY_CONSENT_RATE = "100/hour"
    _consent(client)
    api_client.post(
        "/api/v1/study/consent/", {"consent_version": "1", "accept": True}, format="json", REMOTE_ADDR=ADDRESS
    )
    api_client.post("/api/v1/profiles/score/", {"rankings": {}}, format="json", REMOTE_ADDR=ADDRESS)
    if not hasattr(cache, "_cache") or not isinstance(cache._cache, dict):
        pytest.skip("inspects the local-memory cache (CACHE_URL points elsewhere)")
    stored = cache._cache  # locmem: key -> pickled value
    assert any(":rl:" in key for key in stored)  # the counters are there…
    for key, value in stored.items():
        assert ADDRESS not in key and ADDRESS not in repr(pickle.loads(value))  # …under no address


def test_the_fingerprint_is_stable_within_a_period_and_changes_with_the_key(settings):
    settings.ABUSE_KEY_ROTATION_SECONDS = 3600
    request = RequestFactory().get("/", REMOTE_ADDR=ADDRESS)
    now = 3600 * 1000 + 10
    assert client_fingerprint(request, now) == client_fingerprint(request, now + 3000)
    assert client_fingerprint(request, now) != client_fingerprint(request, now + 3600)
    assert ADDRESS not in client_fingerprint(request, now)


@pytest.mark.parametrize(
    "text, expected", [("30/hour", (30, 3600)), ("60/minute", (60, 60)), ("5/s", (5, 1)), ("100/day", (100, 86400))]
)
def test_rates_are_parsed(text, expected):
    rate = parse_rate(text)
    assert (rate.requests, rate.seconds) == expected


@pytest.mark.parametrize("text", ["30", "0/hour", "x/minute", "30/fortnight"])
def test_bad_rates_are_refused(text):
    with pytest.raises(ValueError):
        parse_rate(text)


def test_withdrawing_through_the_api_is_never_rate_limited(api_client, study, settings):
    settings.STUDY_SUBMIT_RATE = "1/minute"
    token = api_client.post("/api/v1/study/consent/", {"consent_version": "1", "accept": True}, format="json")
    api_client.credentials(HTTP_X_RESPONDENT_TOKEN=token.json()["token"])
    api_client.patch("/api/v1/study/respondent/", {}, format="json")  # the one allowed write
    assert api_client.delete("/api/v1/study/respondent/").status_code == 204
    assert not Respondent.objects.exists()


def test_the_schema_documents_the_rate_limit(api_client):
    paths = api_client.get("/api/schema/?format=json").json()["paths"]
    assert "429" in paths["/api/v1/study/consent/"]["post"]["responses"]
    assert "429" in paths["/api/v1/study/responses/"]["post"]["responses"]


# --- Every instrument's pages alike --------------------------------------------------------------------------


@pytest.fixture
def questionnaire(transitivity_instrument, consent_texts):
    return "/transitivity/questionnaire/"


def test_the_transitivity_consent_is_rate_limited_per_client(client, questionnaire, settings):
    settings.STUDY_CONSENT_RATE = "2/hour"
    statuses = []
    for _ in range(3):
        client.cookies.clear()  # a new browser each time, same address
        statuses.append(client.post(questionnaire, {"agree": "on"}, REMOTE_ADDR=ADDRESS).status_code)
    assert statuses == [302, 302, 429] and Respondent.objects.count() == 2


def test_transitivity_answers_are_rate_limited(client, questionnaire, settings):
    settings.STUDY_SUBMIT_RATE = "2/minute"
    client.post(questionnaire, {"agree": "on"})
    statuses = [
        client.post(f"{questionnaire}next/", {"position": str(position), "situation": "1"}).status_code
        for position in (1, 2, 3)
    ]
    assert statuses == [302, 302, 429]


def test_the_transitivity_consent_flags_like_the_others(client, questionnaire):
    data = {"agree": "on", "contact_note": "bot", "form_time": signed_form_time(client, 60)}
    client.post(questionnaire, data)
    assert Respondent.objects.get(study="transitivity").suspicion == "honeypot"


def test_a_respondent_keeps_a_bucket_of_its_network_and_no_address(client, study):
    _consent(client, address="198.51.100.23")
    _consent(client.__class__(), address="198.51.100.99")  # the same /24
    _consent(client.__class__(), address="203.0.113.5")
    buckets = list(Respondent.objects.order_by("consented_at").values_list("network_bucket", flat=True))
    assert buckets[0] == buckets[1] != buckets[2] and all(0 <= bucket < 65536 for bucket in buckets)
