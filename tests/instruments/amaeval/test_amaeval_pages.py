"""AMAeval's pages, downloads and API: the Table 3 row of every published result, naming its judge."""

from __future__ import annotations

import csv
import io

import pytest

from instruments.amaeval.reports import paper_correlation, static_dynamic_correlation, table_row
from llmruns.engine import run_execute, run_start
from llmruns.models import LLMModel, Result
from tests.instruments.amaeval.test_amaeval_runs import _reply

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(amaeval_instrument, fake_model, fake_provider):
    fake_provider.answer = _reply
    judge = LLMModel.objects.create(
        slug="fake/judge", name="Fake judge", provider="openai_compatible", base_url=fake_provider.base_url,
        model_id="fake-judge", requests_per_minute=0,
    )  # fmt: skip
    run = run_start(
        instrument="amaeval",
        model=fake_model,
        judge=judge,
        plan={"limit": 2, "scenarios": 1, "replicates": 1},
        enqueue=False,
    )
    run_execute(run_id=run.pk)
    return Result.objects.get(instrument="amaeval")


def test_the_instrument_page_shows_each_models_row_and_the_downloads(client, published):
    page = client.get("/amaeval/").content.decode()

    assert "AMAeval: rating and generating moral reasoning" in page and 'data-model="fake/model"' in page
    assert f"{published.summary['ama']:.2f}" in page and "fake/judge" in page
    rows = list(csv.DictReader(io.StringIO(client.get("/amaeval/models.csv").content.decode())))
    assert rows[0]["slug"] == "fake/model" and float(rows[0]["ama"]) == pytest.approx(published.summary["ama"])
    assert client.get("/amaeval/models.json").json()["models"][0]["judge"] == "fake/judge"


def test_the_model_report_names_the_judge_and_shows_a_generated_chain(client, published):
    page = client.get("/amaeval/models/fake/model/").content.decode()

    assert "judged by <strong>fake/judge</strong>" in page and "Act one." in page and "Act well." in page
    assert client.get("/amaeval/models/nobody/").status_code == 404


def test_the_api_lists_the_results_in_table_3_layout(client, published):
    body = client.get("/api/v1/amaeval/results/").json()

    row = body["models"][0]
    assert row["slug"] == "fake/model" and row["fidelity"] == "corrected" and row["judge"] == "fake/judge"
    assert row["dynamic_accuracy_t1"] == pytest.approx(80.0) and row["ama"] == pytest.approx(published.summary["ama"])
    assert body["static_dynamic_spearman"] == {"fake/judge": {"models": 1, "spearman": None}}


def test_the_page_says_when_nothing_is_loaded_or_run_and_only_staff_see_the_commands(client, admin_client, db):
    page = client.get("/amaeval/").content.decode()
    assert "not available yet" in page and "No model measured yet." in page and "manage.py" not in page
    page = admin_client.get("/amaeval/").content.decode()
    assert "load_amaeval" in page and "run_instrument amaeval" in page


def test_the_rank_correlation_is_per_judge():
    def row(judge, static, dynamic):
        summary = {
            "static": {"t1": {"f1": static, "accuracy": static}, "t2": {"f1": static, "accuracy": static}},
            "dynamic": {"judge": judge, "t1": {"accuracy": dynamic}, "t2": {"accuracy": dynamic}},
        }
        return table_row(model=judge, slug=judge, run=None, summary=summary)

    rows = [row("a", 10, 1), row("a", 20, 3), row("a", 30, 2), row("b", 10, 5)]
    assert static_dynamic_correlation(rows) == {
        "a": {"models": 3, "spearman": pytest.approx(0.5)},
        "b": {"models": 1, "spearman": None},
    }


def test_the_correlation_is_the_papers_statistic_and_gives_its_printed_rho_over_table_3(client, amaeval_instrument):
    assert paper_correlation() == {"models": 18, "spearman": pytest.approx(0.756, abs=5e-4), "printed": 0.756}
    # Static accuracy counts: a model better on static F1 alone but worse on accuracy ranks lower.
    rows = [
        table_row(model=name, slug=name, run=None, summary=summary)
        for name, summary in (
            ("x", {"static": {"t1": {"f1": 30, "accuracy": 10}, "t2": {"f1": 30, "accuracy": 10}}}),
            ("y", {"static": {"t1": {"f1": 20, "accuracy": 40}, "t2": {"f1": 20, "accuracy": 40}}}),
            ("z", {"static": {"t1": {"f1": 10, "accuracy": 60}, "t2": {"f1": 10, "accuracy": 60}}}),
        )
    ]
    for row, dynamic in zip(rows, (1, 2, 3), strict=True):
        row.update(judge="j", dynamic_accuracy_t1=dynamic, dynamic_accuracy_t2=dynamic)
    assert static_dynamic_correlation(rows)["j"]["spearman"] == pytest.approx(1.0)  # by mean F1 alone: -1.0

    page = client.get("/amaeval/").content.decode()
    assert "0.756 (18 models; printed 0.756)" in page and "mean of static accuracy and weighted F1" in page
    assert client.get("/api/v1/amaeval/results/").json()["paper_static_dynamic_spearman"]["models"] == 18


def test_the_pages_say_which_judge_and_which_scenarios_every_dynamic_figure_comes_from(client, published):
    page = client.get("/amaeval/").content.decode()
    assert "data-dynamic-sources" in page and 'data-scenarios="published"' in page
    assert "1 of the published 79 (0 seen, 1 unseen)" in page
    assert "rubric: a chat model rates, not the published judge" in page
    report = client.get("/amaeval/models/fake/model/").content.decode()
    assert "1 of the published 79 (0 seen, 1 unseen)" in report
    zh = client.get("/amaeval/?lang=zh-hans").content.decode()
    assert "已发表的 79 个中的 1 个（0 个见过，1 个未见过）" in zh
    rows = client.get("/amaeval/models.csv").content.decode().splitlines()
    assert "scenario_set" in rows[0] and ",published,1,0," in rows[1]
