"""The transitivity test API works within a budget: eps bounds, vectors weighted by n!, a cap on exact-LP work and
a body limit, each refused with its limit named before the costly part runs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rest_framework.test import APIClient

import scoring.transitivity.grum
from instruments.transitivity.budget import MIN_API_EPS, max_body_bytes
from scoring.transitivity import order_vertices

URL = "/api/v1/transitivity/test/"
EIGHT = ["a", "b", "c", "d", "e", "f", "g", "h"]
# The paper's (1, ½, 1): its G-RUM distance is 1/6, so with eps = 1/6 only the exact LP can tell.
ON_THE_EDGE = {"alternatives": ["x", "y", "z"], "vectors": [[1.0, 0.5, 1.0]], "eps": 1 / 6}


@pytest.fixture
def exact_lps(monkeypatch):
    """The vectors handed to the exact LP, in order (the LP still runs)."""
    calls: list = []
    reference = scoring.transitivity.grum._grum_reference

    def counted(p, n, eps):
        calls.append(n)
        return reference(p, n, eps)

    monkeypatch.setattr(scoring.transitivity.grum, "_grum_reference", counted)
    return calls


def post(body):
    return APIClient().post(URL, body, format="json")


def vertex_vectors(count: int, n: int = 8) -> list[list[float]]:
    rng = np.random.default_rng(7)
    return order_vertices(np.array([rng.permutation(n) for _ in range(count)]), n).tolist()


def test_eps_zero_on_eight_alternatives_is_refused_before_any_lp(exact_lps):
    response = post({"alternatives": EIGHT, "vectors": vertex_vectors(25), "eps": 0})
    assert response.status_code == 400 and exact_lps == []
    assert response.json()["extra"]["errors"][0]["problem"] == "bad_eps"
    assert f"{MIN_API_EPS:g}" in response.json()["message"]


def test_the_same_vectors_at_the_default_eps_are_decided_without_an_exact_lp(exact_lps):
    response = post({"alternatives": EIGHT, "vectors": vertex_vectors(25)})
    assert response.status_code == 200 and exact_lps == []
    assert all(result["grum"] for result in response.json()["results"])


def test_vectors_that_need_more_exact_lp_than_the_budget_are_refused_with_the_limit_named(exact_lps, settings):
    settings.TRANSITIVITY_API_EXACT_ORDERS = 5  # less than the 3! = 6 orders of one LP
    response = post(ON_THE_EDGE)
    assert response.status_code == 422 and exact_lps == []
    assert response.json()["extra"] == {"vectors": [0], "orders": 6, "limit": 5}
    assert "TRANSITIVITY_API_EXACT_ORDERS" in response.json()["message"]


def test_exact_lp_work_within_the_budget_is_done(exact_lps):
    response = post(ON_THE_EDGE)
    assert response.status_code == 200 and exact_lps == [3]
    assert response.json()["results"][0]["grum_solver"] == "full_lp"


def test_one_vector_of_eight_alternatives_on_the_edge_is_over_the_default_budget(exact_lps):
    # The identity order with P(a ≻ c) = ½: again at distance 1/6, and the exact LP would have 8! = 40,320 columns.
    vector = order_vertices(np.array([range(8)]), 8)[0]
    vector[1] = 0.5
    response = post({"alternatives": EIGHT, "vectors": [vector.tolist()], "eps": 1 / 6})
    assert response.status_code == 422 and exact_lps == []
    assert response.json()["extra"]["orders"] == 40_320


def test_the_body_limit_fits_the_largest_legitimate_request(settings):
    rng = np.random.default_rng(3)
    vectors = rng.random((settings.TRANSITIVITY_API_MAX_VECTORS, 21)).tolist()  # full-precision floats
    body = json.dumps({"alternatives": list("ABCDEFG"), "vectors": vectors, "eps": 1e-6}, indent=1).encode()
    assert len(body) <= max_body_bytes()


def test_a_body_over_the_test_apis_limit_is_refused_with_413():
    response = APIClient().generic("POST", URL, b" " * (max_body_bytes() + 1), content_type="application/json")
    assert response.status_code == 413 and response.json()["extra"]["limit_bytes"] == max_body_bytes()


def test_a_deeply_nested_body_is_a_400_in_the_api_shape():
    response = APIClient().generic("POST", URL, b"[" * 100_000, content_type="application/json")
    assert response.status_code == 400 and "nested too deeply" in response.json()["message"]


def test_the_command_keeps_every_eps_and_no_exact_lp_cap():
    from instruments.transitivity.analysis import choice_vectors_test

    answer = choice_vectors_test(data={**ON_THE_EDGE, "eps": 0}, vector_limit=None)
    assert answer["results"][0]["grum"] is False
