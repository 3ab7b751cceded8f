from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from scoring.transitivity import aggregation_report, pairs, presentation_order_effects, transitivity_results
from tests.instruments.transitivity.reporting import choice_run_store, vectors_for_model

pytestmark = pytest.mark.django_db

CODES = ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]
KEYS = [(block, order) for block in range(1, 7) for order in (1, 2)]
ORDER = {1: "original", 2: "reversed"}


@pytest.fixture
def two_models(transitivity_instrument):
    first = vectors_for_model(1)
    second = vectors_for_model(2)
    choice_run_store(slug="acme/alpha", name="Alpha", vectors=first)
    choice_run_store(slug="beta", name="Beta", vectors=second)
    return {"acme/alpha": first, "beta": second}


def expected(vectors):
    return transitivity_results([vectors[key] for key in KEYS], 7)


def test_the_about_page_lists_the_principles_from_the_database(client, transitivity_instrument):
    from instruments.transitivity.models import Principle

    Principle.objects.filter(code="A").update(definition="Respect for elders, edited in the database")

    page = client.get("/transitivity/").content.decode()

    assert "Respect for elders, edited in the database" in page
    assert page.count("data-principle=") == 7
    assert "6 blocks" in page and "21 pairs" in page and "2 presentation orders" in page
    assert "/transitivity/questionnaire/" in page and "/transitivity/models/" in page


def test_the_home_page_links_the_transitivity_instrument(client, instrument):
    assert 'href="/transitivity/"' in client.get("/").content.decode()


def test_the_about_page_says_when_the_instrument_is_not_loaded(client, admin_client, db):
    assert "load_transitivity" in admin_client.get("/transitivity/").content.decode()
    assert "not available yet" in client.get("/transitivity/").content.decode()


def test_the_json_download_has_the_verdicts_of_the_scoring_package(client, two_models):
    response = client.get("/transitivity/models/acme/alpha/report.json")
    body = response.json()

    assert response["Content-Disposition"] == 'attachment; filename="transitivity-acme-alpha.json"'
    assert body["model"]["slug"] == "acme/alpha"
    want = expected(two_models["acme/alpha"])
    got = {(one["block"], one["order"]): one["result"] for one in body["vectors"]}
    for (block, order), result in zip(KEYS, want, strict=True):
        mine = got[block, ORDER[order]]
        assert (mine["wum"], mine["hcm"], mine["grum"]) == (result.wum, result.hcm, result.grum)
        assert mine["grum_distance"] == pytest.approx(result.grum_distance, abs=1e-12)
        ranking = [CODES[i] for i in result.copeland_order] if result.copeland_order else None
        assert mine["copeland_order"] == ranking


def test_the_aggregate_is_the_mean_of_the_twelve_sets_tested_the_same_way(client, two_models):
    vectors = two_models["beta"]
    report = aggregation_report([vectors[key] for key in KEYS], 7)

    aggregate = client.get("/transitivity/models/beta/report.json").json()["aggregate"]

    assert aggregate["p"] == pytest.approx(np.mean([vectors[key] for key in KEYS], axis=0).tolist())
    assert aggregate["result"]["wum"] == report.aggregate.wum
    assert aggregate["result"]["grum"] == report.aggregate.grum
    assert aggregate["matching"] == [[KEYS[i][0], ORDER[KEYS[i][1]]] for i in report.matching]


def test_presentation_order_effects_are_those_of_the_scoring_package(client, two_models):
    results = dict(zip(KEYS, expected(two_models["acme/alpha"]), strict=True))
    effects = presentation_order_effects([results[b, 1] for b in range(1, 7)], [results[b, 2] for b in range(1, 7)])

    body = client.get("/transitivity/models/acme/alpha/report.json").json()

    assert body["presentation_order_effects"] == [
        {"block": effect.block + 1, "changed": list(effect.changed)} for effect in effects
    ]


def test_the_csv_has_a_row_per_choice_set_and_the_aggregate_with_every_probability(client, two_models):
    response = client.get("/transitivity/models/beta/report.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))

    assert response["Content-Type"].startswith("text/csv")
    assert len(rows) == 13 and rows[-1]["block"] == "aggregate"
    want = expected(two_models["beta"])
    for row, key, result in zip(rows[:12], KEYS, want, strict=True):
        assert (int(row["block"]), row["order"]) == (key[0], ORDER[key[1]])
        assert row["wum"] == str(result.wum).lower() and row["grum"] == str(result.grum).lower()
        assert float(row["P(A,Ce)"]) == two_models["beta"][key][0]
        assert float(row["P(Lo,S)"]) == two_models["beta"][key][20]


def test_the_report_page_shows_the_grid_rankings_heatmaps_and_downloads(client, two_models):
    want = expected(two_models["acme/alpha"])

    page = client.get("/transitivity/models/acme/alpha/").content.decode()

    assert page.count('data-model="wum"') >= 12
    assert page.count("<svg") == 12
    assert page.count('role="img"') == 12
    assert "/transitivity/models/acme/alpha/report.csv" in page and "report.json" in page
    for result in want:
        if result.copeland_order:
            assert " &gt; ".join(CODES[i] for i in result.copeland_order) in page
    for result in want:
        for triad in result.violating_triads:
            assert "–".join(CODES[i] for i in triad) in page
    assert "<script" not in page


def test_a_missing_item_leaves_its_choice_set_incomplete_and_out_of_the_aggregate(client, transitivity_instrument):
    vectors = vectors_for_model(3)
    vectors[2, 1] = [None, *vectors[2, 1][1:]]
    choice_run_store(slug="gamma", name="Gamma", vectors=vectors)

    body = client.get("/transitivity/models/gamma/report.json").json()
    page = client.get("/transitivity/models/gamma/").content.decode()

    missing = next(one for one in body["vectors"] if (one["block"], one["order"]) == (2, "original"))
    assert missing["result"] is None and missing["missing_pairs"] == [["A", "Ce"]]
    assert sum(one["result"] is not None for one in body["vectors"]) == 11
    assert len(body["aggregate"]["of"]) == 11
    assert "1 pair missing" in page


def test_the_comparison_page_counts_per_model_and_tabulates_the_aggregates(client, two_models):
    page = client.get("/transitivity/models/").content.decode()

    for slug, vectors in two_models.items():
        results = expected(vectors)
        row = page[page.index(f'<tr data-model="{slug}">') :]
        row = row[: row.index("</tr>")]
        for model in ("wum", "hcm", "grum"):
            assert f'<td data-count="{model}">{sum(getattr(r, model) for r in results)}</td>' in row
    assert page.count('class="counts-bar counts-bar--') == 6
    assert "data-aggregate-table" in page


def test_the_comparison_downloads_hold_every_model(client, two_models):
    body = client.get("/transitivity/models.json").json()
    rows = list(csv.DictReader(io.StringIO(client.get("/transitivity/models.csv").content.decode())))

    assert [one["model"]["slug"] for one in body["models"]] == ["acme/alpha", "beta"]
    assert [row["subject"] for row in rows].count("beta") == 13 and len(rows) == 26


def test_the_latest_finished_run_is_reported(client, transitivity_instrument):
    from llmruns.models import LLMModel, Run

    choice_run_store(slug="delta", name="Delta", vectors={(1, 1): [1.0] * 21})
    model = LLMModel.objects.get(slug="delta")
    Run.objects.create(
        model=model, instrument="transitivity", seed=2, plan={"blocks": [1], "orders": ["original"]}, status="running"
    )

    body = client.get("/transitivity/models/delta/report.json").json()

    assert body["run"]["status"] == "finished"
    assert body["vectors"][0]["result"]["copeland_order"] == CODES


def test_an_unknown_model_is_a_404(client, transitivity_instrument):
    assert client.get("/transitivity/models/nobody/").status_code == 404
    assert client.get("/transitivity/models/nobody/report.csv").status_code == 404


def test_the_heatmap_cell_is_the_probability_that_the_row_is_worse(transitivity_instrument):
    from instruments.transitivity.charts import heatmap_chart

    vector = [0.0] * 21
    vector[list(pairs(7)).index((0, 1))] = 0.9
    chart = heatmap_chart(alternatives=CODES, vector=vector)

    cell = {(c.row, c.column): c for c in chart.cells}
    assert cell[0, 1].text == "0.90" and cell[1, 0].text == "0.10"
    assert cell[0, 0].text == ""
    assert cell[0, 1].fill != cell[1, 0].fill
