"""A model's page across every instrument: each instrument's figure, picture, run and flags, people beside them,
the downloads, and the query budget."""

from __future__ import annotations

import csv
import io

import pytest

from llmruns.models import Result, Run
from tests.profiles.conftest import CLAUDE, GPT

pytestmark = pytest.mark.django_db


def test_the_page_has_a_section_per_instrument_with_its_picture_and_run(client, four_instruments):
    page = client.get(f"/models/{GPT}/").content.decode()

    for slug in ("virtuemap", "transitivity", "moralbench", "amaeval"):
        assert f'data-instrument="{slug}"' in page
    assert 'class="radar-svg"' in page  # the pentagon
    assert "data-transitivity-profile" in page and 'data-model="grum"' in page  # the verdicts
    assert 'class="foundation-svg"' in page  # MoralBench's bars
    assert "data-amaeval-profile" in page and "data-ama" in page  # the AMA score with its parts
    assert page.count("data-run-facts") == 4 and "Instrument version" in page and "Cost" in page


def test_the_run_facts_name_status_source_and_language_in_the_readers_language(client, four_instruments):
    english = client.get(f"/models/{GPT}/?lang=en").content.decode()
    chinese = client.get(f"/models/{GPT}/?lang=zh-hans").content.decode()

    assert "(Finished)" in english and '<span lang="en">English</span>' in english
    assert "（已完成）" in chinese or "(已完成)" in chinese
    assert "(finished)" not in english + chinese
    assert '<span lang="en">English</span>' in chinese  # a language is named as it calls itself


def test_a_figure_shows_its_interval_over_the_replicate_runs(client, four_instruments):
    result = Result.objects.get(model__slug=GPT, instrument="virtuemap")
    stats = result.summary["profile_stats"]["courage"]
    page = client.get(f"/models/{GPT}/").content.decode()

    assert f"{stats['mean']:.2f}" in page and f"{stats['ci_low']:.2f} – {stats['ci_high']:.2f}" in page


def test_a_model_measured_on_one_instrument_says_which_it_was_not_measured_on(client, four_instruments):
    page = client.get(f"/models/{CLAUDE}/").content.decode()

    assert 'data-instrument="virtuemap"' in page and 'data-instrument="moralbench"' not in page
    assert "Not measured on: Transitivity" in " ".join(page.split()) or "Not measured on:" in page


def test_people_who_took_an_instrument_are_shown_beside_the_model_with_their_number(
    client, four_instruments, any_number_of_people
):
    from surveys.services import consent_text_install_defaults

    consent_text_install_defaults()
    client.post("/moralbench/questionnaire/", {"agree": "on", "accept": "1", "sets": "MFQ_30"})
    for position in range(1, 21):  # the whole MFQ-30 set, always "A"
        client.post("/moralbench/questionnaire/next/", {"position": str(position), "choice": "A"})
    page = " ".join(client.get(f"/models/{GPT}/").content.decode().split())

    assert "People, median (N = 1)" in page
    assert page.count("data-no-people") == 3  # VirtueMap (too few people), transitivity, AMAeval


def test_the_page_is_drawn_in_at_most_eight_queries(client, four_instruments, django_assert_max_num_queries):
    client.get(f"/models/{GPT}/")  # warm the caches a first visitor fills (the retained keys' snapshot)
    with django_assert_max_num_queries(8):
        response = client.get(f"/models/{GPT}/")
    assert response.status_code == 200


def test_an_unknown_model_is_a_404(client, four_instruments):
    assert client.get("/models/nobody/nothing/").status_code == 404


def test_every_figure_downloads_as_csv_with_its_source_and_flags(client, four_instruments):
    response = client.get(f"/models/{GPT}/results.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))

    assert response["Content-Disposition"].startswith("attachment")
    assert {row["instrument"] for row in rows} == {"virtuemap", "transitivity", "moralbench", "amaeval"}
    courage = next(row for row in rows if row["instrument"] == "virtuemap" and row["figure"] == "courage")
    assert courage["source"] == "import" and float(courage["ci_low"]) < float(courage["mean"])
    assert {row["diagnostic_flags"] for row in rows if row["instrument"] == "moralbench"} != {""}


def test_every_stored_answer_of_a_run_downloads_as_json(client, four_instruments):
    run = Run.objects.get(model__slug=GPT, instrument="moralbench")
    body = client.get(f"/models/{GPT}/runs/{run.pk}/answers.json").json()

    assert body["instrument"] == "moralbench" and len(body["trials"]) == run.trials_total
    assert body["run"]["seed"] == run.seed and "provider" in body["run"]
    assert client.get(f"/models/{CLAUDE}/runs/{run.pk}/answers.json").status_code == 404  # not Claude's run
