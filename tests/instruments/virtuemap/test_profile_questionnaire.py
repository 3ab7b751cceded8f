from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from instruments.virtuemap.selectors import retained_key_map
from scoring import virtue_profile

pytestmark = pytest.mark.django_db

VIRTUES = ["wisdom", "justice", "truthfulness", "courage", "temperance"]
RANKINGS = {"D1": "CBADE", "D2": "ABCDE", "D4": "EDCBA", "D6": "BDAEC", "D7": "DCEAB"}


def positions(ranking: str) -> dict[str, str]:
    return {f"position_{letter}": str(index) for index, letter in enumerate(ranking, start=1)}


def answer(client, dilemma: str, ranking: str):
    return client.post(f"/profile/dilemmas/{dilemma}/", {"action": "answer", **positions(ranking)})


def shown_order(client, dilemma: str) -> str:
    """Show the dilemma page: the order its responses start in for this browser (recorded as shown)."""
    return client.get(f"/profile/dilemmas/{dilemma}/").context["form"].initial_order


def answer_as_seen(client, dilemma: str, ranking: str):
    """Show the dilemma, then give `ranking` as a person would: by "I have not moved anything" when the random start
    order already is that ranking, since saving an unmoved order is refused (one time in 120)."""
    action = "keep" if shown_order(client, dilemma) == ranking else "answer"
    return client.post(f"/profile/dilemmas/{dilemma}/", {"action": action, **positions(ranking)})


def skip(client, dilemma: str):
    return client.post(f"/profile/dilemmas/{dilemma}/", {"action": "skip"})


def answer_all(client) -> None:
    for number in range(1, 8):
        dilemma = f"D{number}"
        if dilemma in RANKINGS:
            answer(client, dilemma, RANKINGS[dilemma])
        else:
            skip(client, dilemma)


def test_the_walkthrough_submits_every_page_and_reaches_the_results(client, instrument, published_models):
    assert client.get("/profile/").status_code == 200
    two_firsts = {"position_A": "1", "position_B": "1", "position_C": "3", "position_D": "4", "position_E": "5"}
    bad = client.post("/profile/dilemmas/D1/", {"action": "answer", **two_firsts})
    assert bad.status_code == 400
    assert "Please give each response its own position" in bad.content.decode()
    redirects = []
    for number in range(1, 8):
        response = (
            answer(client, f"D{number}", RANKINGS[f"D{number}"])
            if f"D{number}" in RANKINGS
            else skip(client, f"D{number}")
        )
        redirects.append(response.url)
    assert redirects == [f"/profile/dilemmas/D{n}/" for n in range(2, 8)] + ["/profile/results/"]
    page = client.get("/profile/results/").content.decode()
    assert "5 of 7 answered, 2 skipped" in page
    assert "data-nearest-models" in page


def test_web_flow_api_and_scoring_give_the_same_scores(client, instrument):
    answer_all(client)
    web = client.get("/profile/results/").context["result"].scores
    api = APIClient().post(
        "/api/v1/profiles/score/", {"rankings": {d: list(r) for d, r in RANKINGS.items()}}, format="json"
    )
    expected = virtue_profile({d: tuple(r) for d, r in RANKINGS.items()}, retained_key_map(), VIRTUES).scores
    assert web == pytest.approx(expected)
    assert api.json()["scores"] == pytest.approx(expected)


def test_the_results_table_shows_scores_with_one_decimal(client, instrument):
    answer(client, "D1", "CBADE")
    answer(client, "D2", "ABCDE")
    page = client.get("/profile/results/").content.decode()
    # D1 wisdom 95, D2 wisdom scores 75 → mean 85.0
    expected = virtue_profile({"D1": tuple("CBADE"), "D2": tuple("ABCDE")}, retained_key_map(), VIRTUES)
    assert f"{expected.scores['wisdom']:.1f}</td>" in page


def test_progress_counts_answered_and_skipped_dilemmas(client, instrument):
    answer(client, "D1", "CBADE")
    answer(client, "D2", "ABCDE")
    skip(client, "D3")
    answer(client, "D4", "ABCDE")
    assert "3 of 7 answered, 1 skipped" in client.get("/profile/dilemmas/D5/").content.decode()


def test_answers_survive_a_reload(client, instrument):
    answer(client, "D1", "CBADE")
    form = client.get("/profile/dilemmas/D1/").context["form"]
    assert [form.position_field(letter).initial for letter in "CBADE"] == [1, 2, 3, 4, 5]


def test_skipping_keeps_no_ranking_and_goes_on(client, instrument):
    response = skip(client, "D3")
    assert response.url == "/profile/dilemmas/D4/"
    assert client.get("/profile/results/").context["result"].skipped[0] == "D1"


def test_back_goes_to_the_previous_dilemma(client, instrument):
    assert 'href="/profile/dilemmas/D2/" rel="prev"' in client.get("/profile/dilemmas/D3/").content.decode()
    assert 'href="/profile/" rel="prev"' in client.get("/profile/dilemmas/D1/").content.decode()


def test_all_skipped_shows_not_enough_answers_instead_of_zero(client, instrument, published_models):
    for number in range(1, 8):
        skip(client, f"D{number}")
    page = client.get("/profile/results/").content.decode()
    assert page.count("not enough answers") == 5
    assert "0.0</td>" not in page
    assert "Answer at least one dilemma" in page


def test_a_virtue_without_keys_for_the_answered_dilemmas_shows_not_enough_answers(client, instrument):
    from instruments.virtuemap.models import KeyCandidate

    KeyCandidate.objects.filter(dilemma_id="D1", virtue_id="courage").delete()
    answer(client, "D1", "CBADE")
    page = client.get("/profile/results/").content.decode()
    assert page.count("not enough answers") == 1


def test_the_results_show_the_chart_the_nearest_models_and_the_overlay(client, instrument, published_models):
    answer_all(client)
    response = client.get("/profile/results/")
    page = response.content.decode()
    assert page.count('class="radar-svg"') == 2
    assert "Scores are on a 0–100 scale" in page
    nearest = response.context["result"].nearest_models
    assert len(nearest) == 3
    assert f"You and {nearest[0].name}" in page


def test_the_results_say_that_nothing_is_stored(client, instrument):
    answer(client, "D1", "CBADE")
    assert "Nothing you enter here is stored on our server" in client.get("/profile/results/").content.decode()


def test_starting_again_forgets_every_answer(client, instrument):
    answer(client, "D1", "CBADE")
    client.post("/profile/results/")
    assert "0 of 7 answered, 0 skipped" in client.get("/profile/").content.decode()


def test_a_tampered_answers_cookie_is_ignored(client, instrument):
    client.cookies["virtuemap_profile"] = '{"D1":"AAAAA"}'
    assert client.get("/profile/results/").status_code == 200
    assert client.get("/profile/results/").context["result"].answered == ()


def test_an_unknown_dilemma_page_is_a_404(client, instrument):
    assert client.get("/profile/dilemmas/D99/").status_code == 404


# --- No default answers: a random start order per person, and "I have not moved anything" as a choice ----------


def test_each_person_starts_from_their_own_random_order_the_same_on_every_reload(client, instrument):
    from django.test import Client

    first = [shown_order(client, f"D{n}") for n in range(1, 8)]
    assert first == [shown_order(client, f"D{n}") for n in range(1, 8)]
    assert all(sorted(order) == list("ABCDE") for order in first)
    other = Client()
    # Seven independent shuffles agree between two people with probability 120**-7.
    assert [shown_order(other, f"D{n}") for n in range(1, 8)] != first


def test_saving_the_order_as_shown_is_refused_and_nothing_is_kept(client, instrument):
    start = shown_order(client, "D1")
    response = client.post("/profile/dilemmas/D1/", {"action": "answer", **positions(start)})
    assert response.status_code == 400 and "You have not moved anything" in response.content.decode()
    assert client.get("/profile/results/").context["result"].answered == ()


def test_i_have_not_moved_anything_keeps_the_start_order_as_the_answer(client, instrument):
    start = shown_order(client, "D1")
    assert client.post("/profile/dilemmas/D1/", {"action": "keep", **positions(start)}).status_code == 302
    assert client.get("/profile/results/").context["result"].answered == ("D1",)
    assert shown_order(client, "D1") == start


def test_keeping_a_moved_order_is_refused(client, instrument):
    start = shown_order(client, "D1")
    moved = start[1] + start[0] + start[2:]
    response = client.post("/profile/dilemmas/D1/", {"action": "keep", **positions(moved)})
    assert response.status_code == 400 and "You have moved responses" in response.content.decode()


def test_a_moved_ranking_is_saved(client, instrument):
    start = shown_order(client, "D2")
    moved = start[::-1]
    assert client.post("/profile/dilemmas/D2/", {"action": "answer", **positions(moved)}).status_code == 302
    assert shown_order(client, "D2") == moved


# --- The results in plain words, with people's scores as the reference once there are enough ----------------


def test_the_results_say_what_a_score_means_with_the_persons_own_highest_score(client, instrument):
    answer(client, "D1", "CBADE")
    page = client.get("/profile/results/")
    best = max((row for row in page.context["rows"] if row["score"] is not None), key=lambda row: row["score"])
    text = " ".join(page.content.decode().split())
    assert f"{best['virtue'].name.lower()} score of {best['score']:.0f}" in text
    assert "<strong>50</strong> is what a ranking made at random scores on average" in text
    assert "the same <strong>shape</strong>, not the same level" in text or "No comparison" in text


def test_people_are_the_reference_only_once_enough_have_consented(
    client, instrument, consent_texts, settings, any_number_of_people
):
    from instruments.virtuemap.models import ProfilingSubmission
    from instruments.virtuemap.plugin import PROFILING
    from surveys.services import respondent_consent

    settings.PROFILE_REFERENCE_MIN_RESPONDENTS = 4
    for wisdom in (10.0, 20.0, 30.0):
        person = respondent_consent(study=PROFILING, consent_version="1", accept=True).respondent
        ProfilingSubmission.objects.create(
            respondent=person, rankings={"D1": "ABCDE"}, scores={"wisdom": wisdom}, keys_used=[]
        )
    answer(client, "D1", "CBADE")  # wisdom 95
    page = " ".join(client.get("/profile/results/").content.decode().split())
    assert "Once at least 4 people" in page and "(so far: 3)" in page and "data-percentile" not in page
    person = respondent_consent(study=PROFILING, consent_version="1", accept=True).respondent
    ProfilingSubmission.objects.create(respondent=person, rankings={}, scores={"wisdom": 95.0}, keys_used=[])
    page = " ".join(client.get("/profile/results/").content.decode().split())
    # Three lower and one equal: 100 · (3 + ½) / 4 = 87.5, shown as 88.
    assert "higher than 88% of 4 people" in page
