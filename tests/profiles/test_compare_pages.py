"""The comparison page: up to six models side by side, overlaid pictures, and for two models their paired
differences with "not distinguishable" where the interval covers 0."""

from __future__ import annotations

import csv
import io

import pytest

from tests.profiles.conftest import CLAUDE, GEMINI, GPT

pytestmark = pytest.mark.django_db


def test_three_models_are_overlaid_on_one_pentagon_with_a_column_each(client, four_instruments):
    page = client.get(f"/compare/?models={GPT},{CLAUDE},{GEMINI}").content.decode()

    assert page.count("radar-series--") >= 3 and 'data-figure-table="virtuemap"' in page
    assert "data-differences" not in page  # only for two models


def test_two_models_get_their_paired_differences_with_a_verdict(client, four_instruments):
    page = client.get(f"/compare/?models={GPT},{CLAUDE}").content.decode()

    assert 'data-differences="virtuemap"' in page
    assert page.count("data-verdict") == 6  # five virtues and the consistency (which has no interval)


def test_a_difference_whose_interval_covers_zero_is_not_distinguishable(client, four_instruments):
    from llmruns.models import Result

    # Claude's profile moved onto GPT's: every virtue differs by 0, well inside any interval.
    gpt = Result.objects.get(model__slug=GPT, instrument="virtuemap")
    Result.objects.filter(model__slug=CLAUDE, instrument="virtuemap").update(summary=gpt.summary)
    page = client.get(f"/compare/?models={GPT},{CLAUDE}").content.decode()

    assert page.count('class="difference--none">not distinguishable') == 5


def test_bad_choices_are_said_and_change_nothing(client, four_instruments):
    response = client.get("/compare/?models=a,b,c,d,e,f,g")
    assert response.status_code == 400 and "at most 6" in response.content.decode()
    response = client.get(f"/compare/?models={GPT},nobody")
    assert response.status_code == 404 and "no model nobody" in response.content.decode()


def test_the_comparison_downloads_as_csv(client, four_instruments):
    rows = list(csv.DictReader(io.StringIO(client.get(f"/compare.csv?models={GPT},{CLAUDE}").content.decode())))

    assert {row["subject"] for row in rows} == {GPT, CLAUDE}
