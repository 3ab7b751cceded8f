"""The paper's summary statistics on /transitivity/, in the API and the downloads: over the paper's own table they
give the paper's figures (and say where its text departs from its table); over models measured here, those models'."""

from __future__ import annotations

import csv
import io

import pytest

from scoring.transitivity import transitivity_results
from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

pytestmark = pytest.mark.django_db

URL = "/api/v1/transitivity/summary/"


def test_the_api_gives_the_papers_figures_from_its_own_table(client):
    body = client.get(URL, {"source": "paper"}).json()

    assert body["sets"] == 60
    assert body["adherence"] == {
        "wum": {"count": 36, "share": 0.6},
        "hcm": {"count": 8, "share": pytest.approx(8 / 60, abs=1e-6)},
        "grum": {"count": 13, "share": pytest.approx(13 / 60, abs=1e-6)},
    }
    assert body["order_effects"] == {"pairs": 30, "wum": 8, "grum": 5, "ranking_or_triples": 26}
    assert body["principles"]["Cp"] == {"rankings": 36, "top_two": 28, "bottom_two": 7}
    assert set(body["principles"]) == {"A", "Ce", "Cp", "F", "Li", "Lo", "S"}
    assert body["bottom_two_pairs"][0] == {"pair": ["A", "Lo"], "count": 22, "share": pytest.approx(22 / 36, abs=1e-6)}


def test_the_api_says_where_the_papers_text_departs_from_its_table(client):
    printed = {row["figure"]: row for row in client.get(URL, {"source": "paper"}).json()["printed"]}

    assert [key for key, row in printed.items() if not row["agrees"]] == ["A_Lo_bottom_two"]
    departure = printed["A_Lo_bottom_two"]
    assert departure["printed"] == {"count": 20, "of": 36} and departure["table"]["count"] == 22
    assert "22 of 36" in departure["note"]


def test_the_summary_of_chosen_models_counts_their_stored_verdicts(client, transitivity_instrument):
    vectors = vectors_for_model(3)
    choice_run_store(slug="acme/alpha", name="Alpha", vectors=vectors)
    choice_run_store(slug="beta", name="Beta", vectors=vectors_for_model(4))
    results = transitivity_results(list(vectors.values()), 7)

    body = client.get(URL, {"models": "acme/alpha"}).json()

    assert body["source"] == "runs" and [model["slug"] for model in body["models"]] == ["acme/alpha"]
    assert body["sets"] == 12
    assert body["adherence"]["wum"]["count"] == sum(result.wum for result in results)
    assert body["principles"]["Cp"]["rankings"] == sum(result.wum for result in results)
    assert body["order_effects"]["pairs"] == 6
    assert client.get(URL).json()["sets"] == 24  # every model measured


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"source": "book"}, "source must be one of runs, paper"),
        ({"models": "nobody,acme/alpha"}, "No transitivity result of: nobody"),
        ({"models": ","}, "models must name 1 to 100"),
        ({"source": "paper", "models": "acme/alpha"}, "models applies to source=runs"),
    ],
)
def test_a_bad_query_gets_a_400_that_names_the_problem(client, transitivity_instrument, query, message):
    choice_run_store(slug="acme/alpha", name="Alpha", vectors=vectors_for_model(3))
    response = client.get(URL, query)
    assert response.status_code == 400 and message in response.json()["message"]


def test_the_about_page_shows_the_paper_text_and_the_models_side_by_side(client, transitivity_instrument):
    page = client.get("/transitivity/").content.decode()

    assert "data-transitivity-summary" in page
    assert '<tr data-statistic="wum">' in page and "36 / 60 (60&nbsp;%)" in page
    assert page.count("data-departs") == 1 and 'data-summary-note="A_Lo_bottom_two"' in page
    assert "none yet" in page  # no model measured
    zh = client.get("/transitivity/?lang=zh-hans").content.decode()
    assert "论文的表格" in zh


def test_the_downloads_give_the_paper_table_and_the_printed_figures(client):
    rows = list(csv.DictReader(io.StringIO(client.get("/transitivity/summary.csv?source=paper").content.decode())))
    by_name = {row["statistic"]: row for row in rows}
    assert (by_name["adherence_wum"]["count"], by_name["adherence_wum"]["total"]) == ("36", "60")
    assert by_name["order_effect_ranking_or_triples"]["count"] == "26"
    assert (by_name["paper_text_A_Lo_bottom_two"]["count"], by_name["paper_text_A_Lo_bottom_two"]["printed_count"]) == (
        "22",
        "20",
    )
    body = client.get("/transitivity/summary.json?source=paper").json()
    assert body["order_effects"]["ranking_or_triples"] == 26
    assert client.get("/transitivity/summary.json?source=book").status_code == 400
