"""Leaderboards per instrument: a row per model, the mean and range rows over them, CSV and JSON downloads."""

from __future__ import annotations

import csv
import io

import pytest

from llmruns.models import Result
from tests.profiles.conftest import CLAUDE, GEMINI, GPT

pytestmark = pytest.mark.django_db


def test_the_virtuemap_table_has_a_row_per_model_and_the_mean_and_range_of_each_virtue(client, four_instruments):
    page = client.get("/leaderboards/virtuemap/").content.decode()
    means = [
        Result.objects.get(model__slug=slug, instrument="virtuemap").summary["profile_stats"]["courage"]["mean"]
        for slug in (GPT, CLAUDE, GEMINI)
    ]

    assert page.count("<tr data-model=") == 3 and "data-sortable" in page
    assert f"{sum(means) / 3:.2f}" in page and f"{min(means):.2f}–{max(means):.2f}" in page


def test_instruments_with_their_own_paper_tables_link_to_them(client, four_instruments):
    assert "/moralbench/models/" in client.get("/leaderboards/moralbench/").content.decode()
    assert "/amaeval/" in client.get("/leaderboards/amaeval/").content.decode()
    assert client.get("/leaderboards/nothing/").status_code == 404


def test_the_leaderboard_downloads_as_csv_and_json(client, four_instruments):
    rows = list(csv.reader(io.StringIO(client.get("/leaderboards/virtuemap.csv").content.decode())))
    board = client.get("/leaderboards/virtuemap.json").json()

    assert rows[0][:5] == ["model", "slug", "source", "protocol", "wisdom"] and [row[0] for row in rows[-2:]] == [
        "Mean",
        "Range",
    ]
    assert len(rows) == 1 + 3 + 2
    assert [row["slug"] for row in board["rows"]] == [CLAUDE, GPT, GEMINI]  # by name: "GPT" sorts before "Gemini"
    assert board["mean"][0] == pytest.approx(sum(row["values"][0] for row in board["rows"]) / 3)
