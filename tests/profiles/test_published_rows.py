"""The papers' tables as published rows: `load_published_rows` stores each instrument's printed rows as results whose
source is the paper, and every results surface shows them beside the runs, marked, never averaged with them."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command

from instruments.virtuemap.records import reference_profiles_publish
from llmruns.engine import run_start
from llmruns.models import LLMModel, Result
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db

ALL = ("instrument", "transitivity_instrument", "moralbench", "amaeval_instrument")


@pytest.fixture
def published(instrument, transitivity_instrument, moralbench, amaeval_instrument):
    call_command("load_published_rows", stdout=io.StringIO())


def test_the_command_stores_every_papers_rows_once(published):
    call_command("load_published_rows", stdout=(out := io.StringIO()))

    rows = Result.objects.filter(source="paper")
    assert {
        slug: rows.filter(instrument=slug).count() for slug in ("virtuemap", "moralbench", "amaeval", "transitivity")
    } == {
        "virtuemap": 9,
        "moralbench": 5,
        "amaeval": 18,
        "transitivity": 5,
    }
    assert "37 published row(s) stored" in out.getvalue()
    assert not LLMModel.objects.filter(provider="paper").exclude(slug__startswith="paper/").exists()


def test_the_leaderboard_puts_the_papers_rows_beside_the_runs_and_keeps_them_out_of_the_mean(published, client):
    reference_profiles_publish()

    board = client.get("/leaderboards/virtuemap.json").json()
    sources = [row["source"] for row in board["rows"]]
    assert sources.count("paper") == 9 and sources.count("import") == 9
    wisdom = [column["key"] for column in board["columns"]].index("wisdom")
    runs = [row["values"][wisdom] for row in board["rows"] if row["source"] == "import"]
    assert board["mean"][wisdom] == pytest.approx(sum(runs) / 9)
    page = client.get("/leaderboards/virtuemap/").content.decode()
    assert page.count('data-source="paper"') >= 9 and "Published in the paper" in page


def test_an_impossible_printed_cell_is_shown_with_its_reason(published, client):
    board = client.get("/leaderboards/moralbench.json").json()

    notes = {(note["slug"], note["key"]): note["note"] for note in board["cell_notes"]}
    assert notes == {
        ("paper/moralbench/llama-2", "6_concepts/purity"): (
            "impossible: above the largest value the item set allows (9.9)"
        ),
        ("paper/moralbench/gemma-1-1", "6_concepts/total"): (
            "impossible: the printed total is not the sum of its row (51.8)"
        ),
        ("paper/moralbench/zephyr", "MFQ_30_compare/ingroup"): (
            "impossible: below the smallest value the item set allows (1.0)"
        ),
    }
    assert "data-cell-note" in client.get("/leaderboards/moralbench/").content.decode()
    page = client.get("/models/paper/moralbench/llama-2/").content.decode()
    assert "above the largest value the item set allows" in page


def test_a_model_known_only_from_a_paper_has_a_page_that_says_so(published, client):
    page = client.get("/models/paper/amaeval/qwen-2-5-32b/").content.decode()

    assert "data-paper-only" in page and "Known only from a paper" in page and "Table 3" in page
    assert "62.19" in page


def test_a_published_row_can_be_compared_like_a_model(published, client):
    reference_profiles_publish()

    page = client.get("/compare/?models=paper/virtuemap/mistral,mistralai/mistral-large")
    assert page.status_code == 200
    assert 'value="paper/virtuemap/mistral"' in page.content.decode()


def test_the_api_marks_published_rows_with_source_paper(published, api_client):
    listed = api_client.get("/api/v1/models/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert {row["slug"] for row in rows if row["source"] == "paper"} >= {"paper/virtuemap/gpt", "paper/virtuemap/qwen"}
    results = api_client.get("/api/v1/models/paper/transitivity/llama4/results/").json()["results"]
    assert [(result["instrument"], result["source"]) for result in results] == [("transitivity", "paper")]
    assert api_client.get("/api/v1/models/paper/virtuemap/claude/").json()["source"] == "paper"


def test_the_downloads_carry_the_published_rows_marked(published, client):
    text = client.get("/leaderboards/amaeval.csv").content.decode()

    rows = list(csv.DictReader(io.StringIO(text)))
    paper = [row for row in rows if row["source"] == "paper"]
    assert len(paper) == 18 and all("Table 3" in row["citation"] for row in paper)
    figures = list(
        csv.DictReader(io.StringIO(client.get("/models/paper/moralbench/gemma-1-1/results.csv").content.decode()))
    )
    assert {row["source"] for row in figures} == {"paper"}
    assert any(row["cell_note"].startswith("impossible") for row in figures)


def test_a_model_known_only_from_a_paper_cannot_be_run(published):
    with pytest.raises(ApplicationError, match="known only from a paper's table"):
        run_start(instrument="virtuemap", model=LLMModel.objects.get(slug="paper/virtuemap/gpt"), plan={})


def test_runs_name_the_protocol_the_papers_rows_are_compared_by():
    from instruments import registry

    assert registry.instrument("moralbench").result_protocol({"option_order": "paper"}) == "paper"
    assert registry.instrument("moralbench").result_protocol({"option_order": "counterbalanced"}) == "counterbalanced"
    assert registry.instrument("amaeval").result_protocol({"fidelity": "paper"}) == "paper"
    assert registry.instrument("virtuemap").result_protocol({"protocol": "original"}) == "original"


def test_a_moralbench_leaderboard_of_the_papers_rows_alone_is_comparable(published, client):
    board = client.get("/leaderboards/moralbench.json").json()

    assert board["protocols"] == ["paper"] and board["comparable"] is True
