from __future__ import annotations

import pytest

from instruments.virtuemap.selectors import retained_key_map
from scoring import virtue_profile

pytestmark = pytest.mark.django_db

URL = "/api/v1/profiles/score/"
VIRTUES = ["wisdom", "justice", "truthfulness", "courage", "temperance"]
RANKINGS = {
    "D1": ["C", "B", "A", "D", "E"],
    "D2": ["A", "B", "C", "D", "E"],
    "D3": ["E", "D", "C", "B", "A"],
    "D5": ["B", "D", "A", "E", "C"],
}


def score(api_client, body, **kwargs):
    return api_client.post(URL, body, format="json", **kwargs)


def test_scores_agree_with_the_scoring_package(api_client, instrument):
    body = score(api_client, {"rankings": RANKINGS}).json()
    expected = virtue_profile(RANKINGS, retained_key_map(), VIRTUES)
    assert body["scores"] == pytest.approx(expected.scores)
    assert body["per_dilemma"].keys() == expected.per_dilemma.keys()
    for dilemma, scores in expected.per_dilemma.items():
        assert body["per_dilemma"][dilemma] == pytest.approx(scores)


def test_the_response_lists_answered_and_skipped_dilemmas_in_instrument_order(api_client, instrument):
    body = score(api_client, {"rankings": {**RANKINGS, "D6": None}}).json()
    assert body["answered"] == ["D1", "D2", "D3", "D5"]
    assert body["skipped"] == ["D4", "D6", "D7"]


def test_the_response_names_every_retained_key_it_used(api_client, instrument):
    keys = score(api_client, {"rankings": {"D1": RANKINGS["D1"]}}).json()["keys"]
    assert [(key["dilemma"], key["virtue"]) for key in keys] == [("D1", virtue) for virtue in VIRTUES]
    assert keys[0]["ordering"] == ["C", "B", "D", "A", "E"]
    assert keys[0]["provenance"] == "published"


def test_the_bodys_keys_and_their_editions_are_the_scoring_services(api_client, instrument):
    """The body's keys and `key_language` come from what its scoring context built once; the service's result is the
    reference."""
    from instruments.virtuemap.profiling import profile_score

    result = profile_score(rankings={**RANKINGS, "D4": None})
    body = score(api_client, {"rankings": {**RANKINGS, "D4": None}}).json()
    assert [key["id"] for key in body["keys"]] == [key.id for key in result.keys]
    assert body["key_language"] == result.key_language


def test_a_key_removed_after_a_score_is_gone_from_the_next_scores_keys(api_client, instrument):
    """A score body's keys are built once per scoring context and shared; a changed key brings a new context."""
    from instruments.virtuemap.models import KeyCandidate

    def keys():
        return [
            (key["dilemma"], key["virtue"])
            for key in score(api_client, {"rankings": {"D1": RANKINGS["D1"]}}).json()["keys"]
        ]

    assert keys() == [("D1", virtue) for virtue in VIRTUES]
    KeyCandidate.objects.filter(dilemma_id="D1", virtue_id="wisdom").get().delete()
    assert keys() == [("D1", virtue) for virtue in VIRTUES if virtue != "wisdom"]


def test_a_virtue_without_a_usable_dilemma_is_null(api_client, instrument):
    from instruments.virtuemap.models import KeyCandidate

    KeyCandidate.objects.filter(dilemma_id="D1", virtue_id="courage").delete()
    body = score(api_client, {"rankings": {"D1": RANKINGS["D1"]}}).json()
    assert body["scores"]["courage"] is None
    assert "courage" not in body["per_dilemma"]["D1"]


def test_all_dilemmas_skipped_gives_every_virtue_null(api_client, instrument):
    body = score(api_client, {"rankings": {f"D{i}": None for i in range(1, 8)}}).json()
    assert body["scores"] == dict.fromkeys(VIRTUES)
    assert body["answered"] == []
    assert body["nearest_models"] == []


def test_nearest_models_are_the_three_published_profiles_most_similar_first(api_client, instrument, published_models):
    nearest = score(api_client, {"rankings": RANKINGS}).json()["nearest_models"]
    assert {model["slug"] for model in nearest} == {
        "openai/gpt-5",
        "anthropic/claude-sonnet-4.6",
        "google/gemini-3.5-flash",
    }
    similarities = [model["similarity"] for model in nearest]
    assert similarities == sorted(similarities, reverse=True)
    assert all(0 <= value <= 100 for value in similarities)


def test_scoring_stores_nothing(api_client, instrument, django_assert_max_num_queries):
    with django_assert_max_num_queries(4) as context:
        score(api_client, {"rankings": RANKINGS})
    assert not [query for query in context.captured_queries if not query["sql"].startswith("SELECT")]


@pytest.mark.parametrize(
    ("rankings", "problem", "words"),
    [
        ({"D9": ["A", "B", "C", "D", "E"]}, "unknown_dilemma", "D9: unknown dilemma 'D9'"),
        ({"D2": ["A", "B", "C", "D", "F"]}, "wrong_letters", "D2: unknown option 'F'"),
        ({"D3": ["A", "A", "C", "D", "E"]}, "repeats", "D3: 'A' appears more than once; missing 'B'"),
        ({"D4": ["A", "B", "C", "D"]}, "not_five", "D4: ranking has 4 items"),
        ({"D5": "ABCDE"}, "not_a_list", "D5: a ranking must be a list"),
    ],
)
def test_an_invalid_ranking_is_a_400_naming_the_dilemma_and_the_problem(
    api_client, instrument, rankings, problem, words
):
    response = score(api_client, {"rankings": rankings})
    assert response.status_code == 400
    assert words in response.json()["message"]
    [error] = response.json()["extra"]["errors"]
    assert (error["dilemma"], error["problem"]) == (next(iter(rankings)), problem)


def test_an_empty_body_is_a_400_that_says_what_is_missing(api_client, instrument):
    response = api_client.post(URL, "", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["extra"]["errors"][0]["problem"] == "empty_body"
    assert '"rankings"' in response.json()["message"]


def test_every_invalid_dilemma_is_reported_at_once(api_client, instrument):
    response = score(api_client, {"rankings": {"D1": ["A"], "D2": RANKINGS["D2"], "D3": ["B"] * 5}})
    assert [error["dilemma"] for error in response.json()["extra"]["errors"]] == ["D1", "D3"]


def test_a_body_that_is_not_json_gets_the_same_error_shape(api_client, instrument):
    response = api_client.post(URL, "{rankings", content_type="application/json")
    assert response.status_code == 400
    assert set(response.json()) == {"message", "extra"}


def test_anonymous_posts_are_throttled_by_the_rate_in_settings(api_client, instrument, monkeypatch):
    from virtuemap_site.api import AnonymousPostThrottle

    monkeypatch.setattr(AnonymousPostThrottle, "THROTTLE_RATES", {"anon_post": "2/minute"})
    statuses = [score(api_client, {"rankings": {}}).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert "wait_seconds" in score(api_client, {"rankings": {}}).json()["extra"]


def test_reads_are_never_throttled(api_client, instrument, monkeypatch):
    from virtuemap_site.api import AnonymousPostThrottle

    monkeypatch.setattr(AnonymousPostThrottle, "THROTTLE_RATES", {"anon_post": "1/minute"})
    assert {api_client.get("/api/v1/virtues/").status_code for _ in range(3)} == {200}


def test_the_fast_renderer_writes_the_bytes_drfs_renderer_writes(api_client, instrument, published_models):
    from rest_framework.renderers import JSONRenderer

    from virtuemap_site.api import FastJSONRenderer

    body = score(api_client, {"rankings": RANKINGS}).json()
    body["nearest_models"][0]["name"] = 'line\u2028separator é \u2029 "quoted" \\ \x01'
    assert FastJSONRenderer().render(body, "application/json") == JSONRenderer().render(body, "application/json")


def test_the_fast_renderer_leaves_what_orjson_would_write_differently_to_drf(api_client):
    from datetime import UTC, datetime

    from rest_framework.renderers import JSONRenderer

    from virtuemap_site.api import FastJSONRenderer

    body = {"at": datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC), "big": 2**70, "n": {1: "x"}}
    assert FastJSONRenderer().render(body, "application/json") == JSONRenderer().render(body, "application/json")


def test_a_request_for_html_still_gets_the_browsable_api(api_client, instrument):
    response = score(api_client, {"rankings": RANKINGS}, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")


def test_a_request_for_a_format_the_api_does_not_speak_is_a_406(api_client, instrument):
    response = score(api_client, {"rankings": RANKINGS}, HTTP_ACCEPT="application/xml")
    assert response.status_code == 406
    assert set(response.json()) == {"message", "extra"}


def test_a_plain_json_request_gets_json_and_the_same_headers_as_before(api_client, instrument):
    response = score(api_client, {"rankings": RANKINGS})
    assert response["Content-Type"] == "application/json"
    assert response["Allow"] == "POST, OPTIONS"
    assert "Accept" in response["Vary"]


@pytest.mark.parametrize(
    "body",
    [
        '{"rankings": {"D1": ["C", "B", "A", "D", "E"], "D2": null}, "language": "zh-hans"}',
        '{"rankings": {"D1": ["C", "B"]}}',
        "{rankings",
        '{"rankings": {"D1": NaN}}',
        '["not", "an", "object"]',
        '{"rankings": {}, "extra": 1}',
        # What orjson refuses and `json` reads, or refuses with its own message: DRF's parser decides.
        '{"rankings": {"D1": 1e400}}',
        '{"rankings": {"\\ud800": null}}',
        '\ufeff{"rankings": {}}',
    ],
)
def test_a_body_declared_plain_json_is_read_as_drfs_parser_reads_it(api_client, instrument, body):
    """Content-Type exactly application/json is read straight from the body (`PlainJSONRequestMixin.plain_json_data`);
    with a charset DRF's own parser selection reads it. Both must answer the same, errors included."""
    plain = api_client.post(URL, body, content_type="application/json")
    through_drf = api_client.post(URL, body, content_type="application/json; charset=utf-8")
    assert (plain.status_code, plain.content) == (through_drf.status_code, through_drf.content)


def test_a_whole_number_beyond_64_bits_is_refused_either_way(api_client, instrument):
    """The one difference `plain_json_data` documents: orjson reads such a number as a float, so the message quotes
    it as one. The score body has no place for a number: the answer is the same 400."""
    body = '{"rankings": {}, "language": 12345678901234567890123}'
    plain = api_client.post(URL, body, content_type="application/json")
    through_drf = api_client.post(URL, body, content_type="application/json; charset=utf-8")
    assert plain.status_code == through_drf.status_code == 400
    assert plain.json()["extra"] == through_drf.json()["extra"] == {"field": "language", "languages": ["en", "zh-hans"]}


def test_a_body_in_another_charset_is_still_decoded_by_its_charset(api_client, instrument):
    body = '{"rankings": {"D1": ["C", "B", "A", "D", "E"]}, "language": "en"}'.encode("utf-16")
    response = api_client.post(URL, body, content_type="application/json; charset=utf-16")
    assert response.status_code == 200
    assert response.json()["answered"] == ["D1"]


def test_a_view_whose_first_parser_is_not_json_reads_its_body_through_drf(rf):
    from rest_framework import parsers
    from rest_framework.views import APIView

    from virtuemap_site.api import PlainJSONRequestMixin

    class FormFirst(PlainJSONRequestMixin, APIView):
        parser_classes = [parsers.FormParser, parsers.JSONParser]

    view = FormFirst()
    request = view.initialize_request(rf.post("/", '{"a": 1}', content_type="application/json"))
    assert view.plain_json_data(request) == {"a": 1}  # DRF chose the JSON parser for it


def test_a_plain_json_answer_is_the_bytes_and_headers_drfs_response_gives(
    api_client, instrument, published_models, monkeypatch
):
    """`plain_json_response` renders at once what DRF's Response would: the same body, the same headers."""
    from rest_framework.response import Response

    from virtuemap_site.api import PlainJSONRequestMixin

    fast = score(api_client, {"rankings": RANKINGS})
    monkeypatch.setattr(PlainJSONRequestMixin, "plain_json_response", lambda self, request, data: Response(data))
    through_drf = score(api_client, {"rankings": RANKINGS})
    assert fast.status_code == through_drf.status_code == 200
    assert fast.content == through_drf.content
    assert dict(fast.headers) == dict(through_drf.headers)
