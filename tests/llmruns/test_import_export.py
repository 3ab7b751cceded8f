"""Importing the original suite's raw records reproduces its profiles; export then import round-trips."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from llmruns.models import ItemResponse, ModelProfile, Suite
from llmruns.selectors import run_records_export
from llmruns.services import suite_publish

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data"
RUNS_PATH = DATA / "reference_runs_sample.jsonl"
REFERENCE = {
    entry["name"]: entry for entry in json.loads((DATA / "reference_profiles_sample.json").read_text())["models"]
}


def _import(path=RUNS_PATH):
    call_command("import_runs", str(path), stdout=io.StringIO())


def _show_profiles(*arguments):
    out = io.StringIO()
    call_command("show_profiles", "--format", "json", *arguments, stdout=out)
    return {entry["name"]: entry for entry in json.loads(out.getvalue())["models"]}


def test_importing_the_reference_records_stores_every_item(instrument):
    _import()

    assert ItemResponse.objects.count() == 98
    assert Suite.objects.filter(status=Suite.Status.IMPORTED).count() == 3


def test_show_profiles_reproduces_the_reference_profiles(instrument):
    _import()

    shown = _show_profiles()

    for name, reference in REFERENCE.items():
        entry = shown[name]
        assert entry["slug"] == reference["slug"]
        assert entry["runs"] == reference["runs"]
        assert entry["invalid_count"] == reference["invalid_count"]
        assert entry["profile"] == pytest.approx(reference["profile"], abs=1e-6)
        assert entry["mean_pairwise_kendall_tau"] == pytest.approx(reference["mean_pairwise_kendall_tau"], abs=1e-6)
        assert entry["consistency_0_100"] == pytest.approx(reference["consistency_0_100"], abs=1e-6)
        assert entry["max_ci_half_width"] == pytest.approx(reference["max_ci_half_width"], abs=1e-3)
        for virtue, stats in reference["profile_stats"].items():
            assert entry["profile_stats"][virtue] == pytest.approx(stats, abs=1e-3)


def test_show_profiles_with_the_legacy_quantile_reproduces_the_consistency_intervals(instrument):
    # The original suite used 1.96 beyond 30 df; the exact quantile makes those intervals 1.2-1.8 % wider.
    _import()

    shown = _show_profiles("--quantile", "legacy")

    for name, reference in REFERENCE.items():
        assert shown[name]["consistency_stats"] == pytest.approx(reference["consistency_stats"], abs=1e-6)


def test_export_gives_back_the_imported_records(instrument):
    _import()

    exported = list(run_records_export())

    assert exported == [json.loads(line) for line in RUNS_PATH.read_text().splitlines()]


def test_an_export_imports_as_new_suites_with_the_same_profiles(instrument, tmp_path):
    _import()
    exported = tmp_path / "exported.jsonl"
    call_command("export_runs", "--output", str(exported))

    call_command("import_runs", str(exported), stdout=io.StringIO())

    assert ItemResponse.objects.count() == 98 * 2
    assert _show_profiles()["GPT"]["profile"] == pytest.approx(REFERENCE["GPT"]["profile"], abs=1e-6)


def test_importing_the_same_file_twice_changes_nothing(instrument):
    _import()

    _import()

    assert ItemResponse.objects.count() == 98
    assert Suite.objects.count() == 3


def test_a_record_whose_rankings_disagree_is_rejected_with_its_line(instrument, tmp_path):
    record = json.loads(RUNS_PATH.read_text().splitlines()[1])
    record["canonical_ranking"] = ["A", "B", "C", "D", "E"]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")

    with pytest.raises(CommandError, match="line 1: canonical_ranking is not display_ranking"):
        _import(path)
    assert ItemResponse.objects.count() == 0


def test_publishing_an_imported_suite_writes_an_import_profile(instrument):
    _import()
    suite = Suite.objects.get(model__name="GPT")

    profile = suite_publish(suite=suite)

    assert profile.source == ModelProfile.Source.IMPORT
    assert profile.runs == 5 and profile.invalid_count == 1
    assert profile.consistency == pytest.approx(REFERENCE["GPT"]["consistency_0_100"], abs=1e-6)
    assert suite.published
