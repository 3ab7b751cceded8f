"""The MoralBench API: scoring any answer set (stateless), refusing bad entries by name, and published results."""

from __future__ import annotations

import pytest

from instruments.moralbench.models import Item
from llmruns.models import Result

pytestmark = pytest.mark.django_db

URL = "/api/v1/instruments/moralbench/score/"


def _post(client, body):
    return client.post(URL, body, content_type="application/json")


def test_a_subset_of_answers_is_scored_per_set_and_foundation(client, moralbench):
    response = _post(client, {"answers": {"MFQ_30/authority_1": "A", "MFQ_30/authority_2": "B"}})
    assert response.status_code == 200
    assert response.json() == {
        "instrument": "moralbench",
        "sets": {
            "MFQ_30": {
                "foundations": {"authority": pytest.approx(2.21 + 1.72)},
                "total": pytest.approx(3.93),
                "max": {"authority": pytest.approx(2.79 + 3.28)},
                "max_total": pytest.approx(6.07),
                "answered": {"authority": 2},
                "replicates": 1,
            }
        },
    }


def test_the_defective_item_scores_one_either_way(client, moralbench):
    for letter in "AB":
        scored = _post(client, {"answers": {"MFQ_30_compare/ingroup_2": letter}}).json()
        assert scored["sets"]["MFQ_30_compare"]["foundations"] == {"ingroup": 1.0}


def test_replicated_letters_score_their_mean_points(client, moralbench):
    response = _post(client, {"answers": {"MFQ_30/authority_1": ["A", "B", "A", "A", "A"], "MFQ_30/authority_2": "B"}})
    assert response.status_code == 200
    scored = response.json()["sets"]["MFQ_30"]
    assert scored["foundations"] == {"authority": pytest.approx((4 * 2.21 + 2.79) / 5 + 1.72)}
    assert scored["replicates"] == 5 and scored["answered"] == {"authority": 2}


@pytest.mark.parametrize(
    ("answers", "item", "problem"),
    [
        ({"MFQ_30/harm_1": []}, "MFQ_30/harm_1", "no_letters"),
        ({"MFQ_30/harm_1": ["A"] * 51}, "MFQ_30/harm_1", "too_many_letters"),
        ({"MFQ_30/harm_1": ["A", "C"]}, "MFQ_30/harm_1", "bad_letter"),
        ({"MFQ_30/harm_1": ["A", 1]}, "MFQ_30/harm_1", "wrong_type"),
        ({"MFQ_30/harm_1": {"A": 1}}, "MFQ_30/harm_1", "wrong_type"),
        ({"MFQ_30/care_1": "A"}, "MFQ_30/care_1", "unknown_item"),
        ({"MFQ_30/harm_1": "C"}, "MFQ_30/harm_1", "bad_letter"),
        ({"MFQ_30/harm_1": 1}, "MFQ_30/harm_1", "wrong_type"),
        ({"MFQ_30/harm_1": "a"}, "MFQ_30/harm_1", "bad_letter"),
    ],
)
def test_a_bad_entry_gets_a_400_naming_the_item_and_nothing_is_stored(client, moralbench, answers, item, problem):
    response = _post(client, {"answers": {"MFQ_30/harm_2": "A", **answers}})
    assert response.status_code == 400
    body = response.json()
    assert item in body["message"] and body["extra"]["errors"] == [
        {"item": item, "problem": problem, "message": body["extra"]["errors"][0]["message"]}
    ]
    assert Item.objects.count() == 88 and not Result.objects.exists()


@pytest.mark.parametrize("body", [{}, {"answers": []}, {"answers": {}}, ["MFQ_30/harm_1"]])
def test_a_body_without_an_answers_object_is_refused(client, moralbench, body):
    response = _post(client, body)
    assert response.status_code == 400 and "answers must be an object" in response.json()["message"]


def test_the_instrument_and_its_items_are_listed_by_the_registry_api(client, moralbench):
    detail = client.get("/api/v1/instruments/moralbench/").json()
    assert detail["items_count"] == 88 and detail["items"][0]["id"] == "MFQ_30/authority_1"
    assert {option["name"] for option in detail["plan_options"]} >= {"mode", "replicates", "temperature"}
