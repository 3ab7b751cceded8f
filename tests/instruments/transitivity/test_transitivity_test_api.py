from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from scoring.transitivity import linear_order_vertices, order_vertices, pairs, transitivity_results

pytestmark = pytest.mark.django_db

URL = "/api/v1/transitivity/test/"
PRINCIPLES = ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]


def embedded_in_seven(values: dict[tuple[int, int], float]) -> list[float]:
    """A 7-alternative vector with ``values`` on some pairs and P_xy = 1 for every other pair x < y."""
    return [values.get(pair, 1.0) for pair in pairs(7)]


def paper_triple(p_xy: float, p_yz: float, p_xz: float) -> list[float]:
    return embedded_in_seven({(0, 1): p_xy, (1, 2): p_yz, (0, 2): p_xz})


def fence_point() -> list[float]:
    # As in tests/scoring: pales (0,3), (1,4), (2,5) and every other pair among 0..5 at ½, the six crosses (u_i, l_j),
    # i ≠ j, at 0.05, alternative 6 below everything. Every triangle inequality holds; the fence fails by 0.2.
    pales = {(0, 3), (1, 4), (2, 5)}
    crosses = {(u, lower) for u in (0, 1, 2) for lower in (3, 4, 5) if (u, lower) not in pales}
    values = {pair: (0.05 if pair in crosses else 0.5) for pair in pairs(6)}
    return embedded_in_seven(values)


def triangle_sums(vector: list[float]) -> list[float]:
    index = {pair: i for i, pair in enumerate(pairs(7))}
    return [
        vector[index[a, b]] + vector[index[b, c]] - vector[index[a, c]]
        for a, b, c in itertools.combinations(range(7), 3)
    ]


def post_vectors(api_client, body, **kwargs):
    return api_client.post(URL, body, format="json", **kwargs)


def errors_of(response) -> list[str]:
    assert response.status_code == 400, response.content
    body = response.json()
    assert set(body) == {"message", "extra"} and body["message"]
    return [error["problem"] for error in body["extra"]["errors"]]


def test_the_papers_chain_with_a_half_is_wum_but_not_grum_in_seven_alternatives(api_client):
    result = post_vectors(api_client, {"alternatives": PRINCIPLES, "vectors": [paper_triple(1, 1, 0.5)]}).json()[
        "results"
    ][0]

    assert (result["wum"], result["hcm"], result["grum"]) == (True, False, False)
    assert result["copeland_order"] == PRINCIPLES
    assert result["violating_triads"] == []
    assert result["grum_distance"] == pytest.approx(1 / 6, abs=1e-9)
    assert result["certificate"]["kind"] == "inequality"


def test_the_papers_sixty_percent_cycle_is_grum_but_not_wum_in_seven_alternatives(api_client):
    result = post_vectors(api_client, {"alternatives": PRINCIPLES, "vectors": [paper_triple(0.6, 0.6, 0.4)]}).json()[
        "results"
    ][0]

    assert (result["wum"], result["hcm"], result["grum"]) == (False, False, True)
    assert result["copeland_order"] is None
    assert result["violating_triads"] == [["A", "Ce", "Cp"]]
    assert result["grum_distance"] == pytest.approx(0.0, abs=1e-9)


def test_a_fence_violation_is_outside_grum_although_every_triangle_inequality_holds(api_client):
    result = post_vectors(api_client, {"alternatives": PRINCIPLES, "vectors": [fence_point()]}).json()["results"][0]

    assert min(triangle_sums(fence_point())) >= 0 and max(triangle_sums(fence_point())) <= 1
    assert not result["grum"]
    assert result["certificate"]["distance_bound"] >= 0.2 / 9 - 1e-12


def test_the_papers_aggregation_example_averages_two_wum_vectors_into_a_cycle(api_client):
    first = embedded_in_seven({(0, 1): 1.0, (1, 2): 0.6, (0, 2): 0.55})
    second = embedded_in_seven({(0, 1): 0.45, (1, 2): 1.0, (0, 2): 0.0})
    mean = list((np.array(first) + np.array(second)) / 2)

    results = post_vectors(api_client, {"alternatives": PRINCIPLES, "vectors": [first, second, mean]}).json()["results"]

    assert [r["wum"] for r in results] == [True, True, False]
    assert results[2]["violating_triads"] == [["A", "Ce", "Cp"]]


def test_the_answer_agrees_with_the_scoring_package_on_random_vectors(api_client):
    vectors = np.random.default_rng(7).uniform(size=(12, 21)).round(3)
    expected = transitivity_results(vectors, 7)

    results = post_vectors(api_client, {"alternatives": PRINCIPLES, "vectors": vectors.tolist()}).json()["results"]

    for got, want in zip(results, expected, strict=True):
        assert (got["wum"], got["hcm"], got["grum"]) == (want.wum, want.hcm, want.grum)
        assert got["grum_distance"] == pytest.approx(want.grum_distance, abs=1e-12)
        assert got["violating_triads"] == [[PRINCIPLES[i] for i in triad] for triad in want.violating_triads]


def test_a_mixture_certificate_reproduces_the_vector_from_named_orders(api_client):
    vector = (0.3 * order_vertices([0, 1, 2, 3], 4)[0] + 0.7 * order_vertices([3, 2, 1, 0], 4)[0]).tolist()
    names = ["w", "x", "y", "z"]

    certificate = post_vectors(api_client, {"alternatives": names, "vectors": [vector]}).json()["results"][0][
        "certificate"
    ]

    assert certificate["kind"] == "mixture"
    orders = [[names.index(name) for name in order] for order in certificate["orders"]]
    mixture = np.array(certificate["weights"]) @ order_vertices(orders, 4)
    assert np.abs(mixture - vector).max() <= 1e-6


def test_an_inequality_certificate_is_valid_for_every_linear_order(api_client):
    body = post_vectors(api_client, {"alternatives": ["x", "y", "z"], "vectors": [[1.0, 0.5, 1.0]]}).json()
    certificate = body["results"][0]["certificate"]

    assert body["pairs"] == [["x", "y"], ["x", "z"], ["y", "z"]]
    assert (linear_order_vertices(3) @ certificate["coefficients"]).max() <= certificate["rhs"] + 1e-12
    assert np.dot(certificate["coefficients"], [1.0, 0.5, 1.0]) - certificate["rhs"] == pytest.approx(1 / 6)


def test_eps_is_the_tolerance_of_grum(api_client):
    body = {"alternatives": ["x", "y", "z"], "vectors": [[1.0, 0.5, 1.0]], "eps": 0.2}

    answer = post_vectors(api_client, body).json()

    assert answer["eps"] == 0.2
    assert answer["results"][0]["grum"] and answer["results"][0]["certificate"]["kind"] == "mixture"


def test_anonymous_clients_may_test_without_a_csrf_token(client):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    body = json.dumps({"alternatives": ["x", "y", "z"], "vectors": [[0.6, 0.4, 0.6]]})

    assert strict.post(URL, body, content_type="application/json").status_code == 200


def test_nothing_is_written_to_the_database(api_client, django_assert_num_queries):
    with django_assert_num_queries(0):
        post_vectors(api_client, {"alternatives": ["x", "y", "z"], "vectors": [[0.6, 0.4, 0.6]]})


# --- errors ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ([1, 2], "not_an_object"),
        ({"vectors": [[0.5, 0.5, 0.5]]}, "missing_field"),
        ({"alternatives": ["x", "y", "z"]}, "missing_field"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3], "method": "fast"}, "unknown_field"),
        ({"alternatives": ["x", "y"], "vectors": [[0.5]]}, "alternatives_count"),
        ({"alternatives": list("abcdefghi"), "vectors": [[0.5] * 36]}, "alternatives_count"),
        ({"alternatives": "xyz", "vectors": [[0.5] * 3]}, "not_a_list"),
        ({"alternatives": ["x", "y", "x"], "vectors": [[0.5] * 3]}, "duplicate_name"),
        ({"alternatives": ["x", " ", "z"], "vectors": [[0.5] * 3]}, "bad_name"),
        ({"alternatives": ["x", 2, "z"], "vectors": [[0.5] * 3]}, "bad_name"),
        ({"alternatives": ["x", "y", "z"], "vectors": []}, "no_vectors"),
        ({"alternatives": ["x", "y", "z"], "vectors": [0.5, 0.5, 0.5]}, "not_a_list"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5, 0.5]]}, "wrong_length"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5, 0.5, 0.5, 0.5]]}, "wrong_length"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5, "0.5", 0.5]]}, "not_a_number"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5, True, 0.5]]}, "not_a_number"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5, None, 0.5]]}, "not_a_number"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5, 1.5, 0.5]]}, "out_of_range"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5, -0.01, 0.5]]}, "out_of_range"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3], "eps": -1e-6}, "bad_eps"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3], "eps": 0.5}, "bad_eps"),
        ({"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3], "eps": "small"}, "bad_eps"),
    ],
)
def test_bad_input_is_a_400_that_names_the_problem(api_client, body, problem):
    assert problem in errors_of(post_vectors(api_client, body))


def test_an_out_of_range_value_is_named_by_vector_pair_and_value(api_client):
    response = post_vectors(api_client, {"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3, [0.5, 0.5, 1.5]]})

    error = response.json()["extra"]["errors"][0]
    assert error == {
        "vector": 1,
        "pair": ["y", "z"],
        "problem": "out_of_range",
        "message": "vector 1, entry 2 (P(y ≻ z)) is 1.5, outside [0, 1]",
    }
    assert response.json()["message"] == error["message"]


def test_every_bad_vector_is_listed(api_client):
    body = {"alternatives": ["x", "y", "z"], "vectors": [[0.5, 0.5], [0.5, 2.0, 0.5], [0.5] * 3, [9, 0.5, -1]]}

    errors = post_vectors(api_client, body).json()["extra"]["errors"]

    assert [(e["vector"], e["problem"]) for e in errors] == [
        (0, "wrong_length"),
        (1, "out_of_range"),
        (3, "out_of_range"),
        (3, "out_of_range"),
    ]


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_rejected_as_not_json(api_client, token):
    body = '{"alternatives": ["x", "y", "z"], "vectors": [[0.5, TOKEN, 0.5]]}'.replace("TOKEN", token)

    response = api_client.post(URL, body, content_type="application/json")

    assert response.status_code == 400
    assert token.lstrip("-") in response.json()["message"]


def test_a_number_too_large_for_a_float_is_rejected_as_not_finite(api_client):
    body = '{"alternatives": ["x", "y", "z"], "vectors": [[0.5, 1e400, 0.5]]}'

    response = api_client.post(URL, body, content_type="application/json")

    assert errors_of(response) == ["not_finite"]


def test_more_vectors_than_the_limit_are_refused(api_client, settings):
    settings.TRANSITIVITY_API_MAX_VECTORS = 3

    assert post_vectors(api_client, {"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3] * 3}).status_code == 200
    assert errors_of(post_vectors(api_client, {"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3] * 4})) == [
        "too_many_vectors"
    ]


def test_eight_alternatives_get_an_eighth_of_the_limit(api_client, settings):
    settings.TRANSITIVITY_API_MAX_VECTORS = 16
    names = list("abcdefgh")

    assert post_vectors(api_client, {"alternatives": names, "vectors": [[1.0] * 28] * 2}).status_code == 200
    assert errors_of(post_vectors(api_client, {"alternatives": names, "vectors": [[1.0] * 28] * 3})) == [
        "too_many_vectors"
    ]


def test_anonymous_posts_are_throttled_like_the_score_api(api_client, monkeypatch):
    from virtuemap_site.api import AnonymousPostThrottle

    monkeypatch.setattr(AnonymousPostThrottle, "THROTTLE_RATES", {"anon_post": "2/minute"})
    body = {"alternatives": ["x", "y", "z"], "vectors": [[0.6, 0.4, 0.6]]}

    statuses = [post_vectors(api_client, body).status_code for _ in range(3)]

    assert statuses == [200, 200, 429]


# --- the schema ----------------------------------------------------------------------------------------------


def test_the_schema_documents_the_operation_with_examples_and_errors(client):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"][URL]["post"]

    assert operation["operationId"] == "transitivity_test"
    assert set(operation["responses"]) >= {"200", "400", "429"}
    assert "out_of_range" in operation["responses"]["400"]["description"]
    assert operation["requestBody"]["content"]["application/json"]["examples"]
    assert operation["responses"]["400"]["content"]["application/json"]["examples"]
    certificate = schema["components"]["schemas"]["TransitivityCertificate"]
    assert certificate["discriminator"]["propertyName"] == "kind"
