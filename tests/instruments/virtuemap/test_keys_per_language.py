"""Keys per edition: the Chinese edition validates its own keys with its own respondents (through the study API, as
an automated front end would), and a Chinese questionnaire is scored with the Chinese key where one is retained, else
with the English one, saying which. The English edition is untouched throughout."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from instruments.virtuemap.keys import edition_keys_validated
from instruments.virtuemap.models import KeyCandidate, ProfilingSubmission
from instruments.virtuemap.plugin import PROFILING, VALIDATION
from instruments.virtuemap.profiling import profiling_submission_store
from instruments.virtuemap.selectors import retained_key_map
from instruments.virtuemap.validation import validation_open
from surveys.models import ConsentText
from surveys.services import respondent_consent

pytestmark = pytest.mark.django_db

STUDY_API = "/api/v1/study"
SCORE_API = "/api/v1/profiles/score/"
PAIRS = ["D1:wisdom", "D1:justice"]
RANKINGS = {"D1": list("CBADE"), "D2": list("ABCDE")}
VIRTUES = ["wisdom", "justice", "truthfulness", "courage", "temperance"]


@pytest.fixture
def chinese_consent(consent_texts):
    """Each study's consent text in Chinese is installed with the English one, so Chinese arrivals consent in
    Chinese."""
    for study in (VALIDATION, PROFILING):
        assert ConsentText.objects.filter(study=study, language="zh-hans", is_current=True).exists()


@pytest.fixture
def small_study(study_settings, instrument, chinese_consent):
    """A key is retained after 4 confirmations (N > 3, q ≥ 0.95); each respondent answers up to two items."""
    study_settings.KEY_MIN_EVALUATIONS = 3
    study_settings.STUDY_ITEMS_PER_RESPONDENT = 2
    return study_settings


def api_respondent(**language) -> APIClient:
    """A new automated front end that consents through the study API, in the language its request names."""
    client = APIClient(**language.get("headers", {}))
    query = language.get("query", "")
    created = client.post(f"{STUDY_API}/consent/{query}", {"consent_version": "1", "accept": True}, format="json")
    assert created.status_code == 201, created.content
    client.credentials(HTTP_X_RESPONDENT_TOKEN=created.json()["token"])
    return client


def confirm_everything_served(client: APIClient) -> list[int]:
    """Confirm every item the study serves this respondent; return the candidates answered."""
    answered = []
    while (item := client.get(f"{STUDY_API}/next/")).status_code == 200:
        candidate = item.json()["candidate"]
        response = client.post(f"{STUDY_API}/responses/", {"candidate": candidate, "confirmed": True}, format="json")
        assert response.status_code == 201, response.content
        answered.append(candidate)
    return answered


CHINESE = {"headers": {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}}
CHINESE_LINK = {"query": "?lang=zh-hans"}


def score(language: str | None = None, rankings=None):
    body = {"rankings": rankings or RANKINGS} | ({"language": language} if language else {})
    return APIClient().post(SCORE_API, body, format="json")


def open_chinese(*pairs: str) -> None:
    call_command("open_validation", "--language", "zh", *[arg for pair in pairs for arg in ("--pair", pair)])


def test_open_validation_in_chinese_seeds_every_pair_from_the_english_retained_key(instrument):
    english_before = list(KeyCandidate.objects.values())

    call_command("open_validation", "--language", "zh-hans")

    chinese = KeyCandidate.objects.filter(language="zh-hans")
    english = retained_key_map()
    assert chinese.count() == 35
    for candidate in chinese:
        assert candidate.status == KeyCandidate.Status.OPEN and candidate.round == 1
        assert candidate.provenance == KeyCandidate.Provenance.ENGLISH_KEY
        assert tuple(candidate.ordering) == english[candidate.dilemma_id][candidate.virtue_id]
    assert list(KeyCandidate.objects.filter(language="en").values()) == english_before


def test_open_validation_refuses_a_language_without_an_edition(instrument):
    with pytest.raises(CommandError, match="--language must be one of en, zh-hans"):
        call_command("open_validation", "--language", "fr")


def test_chinese_respondents_of_the_study_api_promote_chinese_keys_and_leave_english_ones_alone(small_study):
    open_chinese(*PAIRS)
    english_open = validation_open(pairs=[("D1", "wisdom")])[0]
    chinese_ids = set(KeyCandidate.objects.filter(language="zh-hans").values_list("pk", flat=True))

    for language in (CHINESE, CHINESE_LINK, CHINESE, CHINESE_LINK):
        assert set(confirm_everything_served(api_respondent(**language))) == chinese_ids
    english_answers = confirm_everything_served(api_respondent())

    chinese = KeyCandidate.objects.filter(language="zh-hans")
    assert {(c.status, c.n_evaluations, c.n_confirmations) for c in chinese} == {("retained", 4, 4)}
    english_open.refresh_from_db()
    assert english_answers == [english_open.pk]
    assert (english_open.status, english_open.n_evaluations) == ("open", 1)
    # The English published keys stay retained: a Chinese key supersedes nothing outside its edition.
    assert KeyCandidate.objects.filter(language="en", status="retained").count() == 35


def test_a_respondent_who_consented_in_english_is_never_served_chinese_candidates(small_study):
    open_chinese(*PAIRS)

    client = api_respondent()

    assert client.get(f"{STUDY_API}/next/").status_code == 204


def test_a_chinese_questionnaire_is_scored_with_english_keys_until_chinese_ones_are_retained(small_study):
    before = score("zh-hans").json()
    assert before["language"] == "zh-hans"
    assert before["key_language"] == {dilemma: dict.fromkeys(VIRTUES, "en") for dilemma in ("D1", "D2")}
    assert before["scores"] == score().json()["scores"]

    open_chinese(*PAIRS)
    for _ in range(4):
        confirm_everything_served(api_respondent(**CHINESE))
    after = score("zh").json()

    assert after["key_language"]["D1"] == {**dict.fromkeys(VIRTUES, "en"), "wisdom": "zh-hans", "justice": "zh-hans"}
    assert after["key_language"]["D2"] == dict.fromkeys(VIRTUES, "en")
    chinese_keys = {key["id"] for key in after["keys"] if key["language"] == "zh-hans"}
    assert chinese_keys == set(KeyCandidate.objects.filter(language="zh-hans").values_list("pk", flat=True))


def test_a_chinese_key_that_differs_from_the_english_one_changes_only_chinese_scores(small_study):
    english_before = score().json()
    open_chinese("D1:wisdom")
    # The Chinese respondents all correct the ordering to the reverse of the English key.
    reverse = list(reversed(retained_key_map()["D1"]["wisdom"]))
    candidate = KeyCandidate.objects.get(language="zh-hans")
    while candidate.status == "open":
        client = api_respondent(**CHINESE)
        assert client.get(f"{STUDY_API}/next/").json()["candidate"] == candidate.pk
        body = {"candidate": candidate.pk, "confirmed": False, "ordering": reverse}
        assert client.post(f"{STUDY_API}/responses/", body, format="json").status_code == 201
        candidate.refresh_from_db()
    successor = KeyCandidate.objects.get(language="zh-hans", round=2)
    for _ in range(4):
        confirm_everything_served(api_respondent(**CHINESE))
    successor.refresh_from_db()
    assert successor.status == "retained" and successor.ordering == "".join(reverse)

    chinese = score("zh-hans").json()
    assert score().json() == english_before
    assert chinese["per_dilemma"]["D1"]["wisdom"] == pytest.approx(100 - english_before["per_dilemma"]["D1"]["wisdom"])
    assert chinese["per_dilemma"]["D2"] == english_before["per_dilemma"]["D2"]


def test_the_score_api_refuses_a_language_without_an_edition(instrument):
    for language in ("fr", "", 7):
        response = (
            score(language)
            if language
            else APIClient().post(SCORE_API, {"rankings": RANKINGS, "language": language}, format="json")
        )
        assert response.status_code == 400
        assert response.json()["message"] == f'Unknown language {language!r}: "language" must be one of en, zh-hans.'
        assert response.json()["extra"]["field"] == "language"


def test_english_scoring_says_english_keys_scored_everything(instrument):
    body = score().json()
    assert body["language"] == "en"
    assert body["key_language"] == {dilemma: dict.fromkeys(VIRTUES, "en") for dilemma in ("D1", "D2")}
    assert {key["language"] for key in body["keys"]} == {"en"}


def test_a_stored_chinese_profile_records_its_language_and_whose_keys_scored_it(small_study):
    open_chinese("D1:wisdom")
    for _ in range(4):
        confirm_everything_served(api_respondent(**CHINESE))
    person = respondent_consent(study=PROFILING, consent_version="1", accept=True, language="zh-hans").respondent

    profiling_submission_store(respondent=person, rankings={"D1": "CBADE"}, language="zh-hans")

    stored = ProfilingSubmission.objects.get(respondent=person)
    assert stored.language == "zh-hans"
    assert stored.key_language == {"D1": {**dict.fromkeys(VIRTUES, "en"), "wisdom": "zh-hans"}}


def test_the_chinese_results_page_says_which_keys_came_from_the_english_edition(small_study, client):
    open_chinese("D1:wisdom")
    for _ in range(4):
        confirm_everything_served(api_respondent(**CHINESE))
    positions = {f"position_{letter}": str(rank) for rank, letter in enumerate("CBADE", start=1)}
    client.post("/profile/dilemmas/D1/?lang=zh-hans", {"action": "answer", **positions})

    chinese = client.get("/profile/results/?lang=zh-hans").content.decode()
    # Answers given in Chinese stay scored by the Chinese edition's keys when the interface switches to English.
    switched = client.get("/profile/results/?lang=en").content.decode()
    in_english = Client()
    in_english.post("/profile/dilemmas/D1/?lang=en", {"action": "answer", **positions})
    english = in_english.get("/profile/results/?lang=en").content.decode()

    assert "data-key-language-note" in chinese and "有 4 个来自英文版" in chinese
    assert "4 of the 5 keys that scored them come from the English edition" in switched
    assert "data-key-language-note" not in english


def test_the_chinese_edition_is_validated_once_it_retains_a_key_for_every_pair(small_study):
    assert edition_keys_validated("en") and not edition_keys_validated("zh")
    open_chinese()
    KeyCandidate.objects.filter(language="zh-hans").update(status="retained")

    assert edition_keys_validated("zh-hans") and edition_keys_validated("zh")
    assert not edition_keys_validated("fr")


def test_the_key_list_api_and_the_admin_show_each_edition(small_study, admin_client):
    open_chinese("D1:wisdom")
    for _ in range(4):
        confirm_everything_served(api_respondent(**CHINESE))

    english = APIClient().get("/api/v1/keys/?dilemma=D1&virtue=wisdom").json()["results"]
    chinese = APIClient().get("/api/v1/keys/?dilemma=D1&virtue=wisdom&language=zh").json()["results"]
    listed = admin_client.get("/admin/virtuemap/keycandidate/?language=zh-hans").content.decode()

    assert [(key["language"], key["round"]) for key in english] == [("en", 0)]
    assert [(key["language"], key["round"], key["provenance"]) for key in chinese] == [("zh-hans", 1, "english_key")]
    assert "D1 × wisdom" in listed and "1 key candidate" in listed


def test_the_study_length_counts_the_open_orderings_of_the_arrival_edition(small_study):
    open_chinese(*PAIRS)

    chinese = APIClient(HTTP_ACCEPT_LANGUAGE="zh-hans").get(f"{STUDY_API}/consent/").json()
    english = APIClient().get(f"{STUDY_API}/consent/").json()

    assert (chinese["items"], english["items"]) == (2, 0)


def test_a_researcher_reopening_a_chinese_key_reopens_it_in_its_edition_only(small_study, researcher):
    from instruments.virtuemap.keys import key_candidate_reject, key_candidate_reopen

    english_open = validation_open(pairs=[("D1", "wisdom")])[0]
    open_chinese("D1:wisdom")
    chinese = KeyCandidate.objects.get(language="zh-hans")
    key_candidate_reject(candidate=chinese, user=researcher, reason="the translation of C was wrong")

    reopened = key_candidate_reopen(candidate=chinese, user=researcher, reason="translation fixed")

    assert (reopened.language, reopened.round, reopened.status) == ("zh-hans", 2, "open")
    english_open.refresh_from_db()
    assert english_open.status == "open"
