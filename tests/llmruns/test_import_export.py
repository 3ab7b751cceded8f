"""Importing the original suite's raw records reproduces its profiles; export then import round-trips."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from instruments.virtuemap.selectors import run_records_export
from llmruns.models import Result, Run, Trial
from llmruns.results import result_publish

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

    assert Trial.objects.count() == 98
    assert Run.objects.filter(status=Run.Status.IMPORTED, instrument="virtuemap").count() == 3


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

    # Every field of the original records, plus the suite's diagnostics (additive: import_runs ignores them).
    originals = [{key: record[key] for key in record if key != "suite_diagnostics"} for record in exported]
    assert originals == [json.loads(line) for line in RUNS_PATH.read_text().splitlines()]


def test_every_exported_item_carries_its_suite_s_diagnostics_and_flags(instrument):
    from llmruns.diagnostics import run_diagnostics

    _import()
    exported = [record for record in run_records_export() if record.get("record_type") != "agent_note"]

    assert exported and all("suite_diagnostics" in record for record in exported)
    by_model = {record["model_slug"]: record["suite_diagnostics"] for record in exported}
    for run in Run.objects.all():
        assert by_model[run.model.slug] == run_diagnostics(run=run)
    for record in by_model.values():
        assert record["position"]["kind"] == "ranking" and record["flags"] == []


def test_an_export_imports_as_new_runs_with_the_same_profiles(instrument, tmp_path):
    _import()
    exported = tmp_path / "exported.jsonl"
    call_command("export_runs", "--output", str(exported))

    call_command("import_runs", str(exported), stdout=io.StringIO())

    assert Trial.objects.count() == 98 * 2
    assert _show_profiles()["GPT"]["profile"] == pytest.approx(REFERENCE["GPT"]["profile"], abs=1e-6)


def test_importing_the_same_file_twice_changes_nothing(instrument):
    _import()

    _import()

    assert Trial.objects.count() == 98
    assert Run.objects.count() == 3


def test_a_record_whose_rankings_disagree_is_rejected_with_its_line(instrument, tmp_path):
    record = json.loads(RUNS_PATH.read_text().splitlines()[1])
    record["canonical_ranking"] = ["A", "B", "C", "D", "E"]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")

    with pytest.raises(CommandError, match="line 1: canonical_ranking is not display_ranking"):
        _import(path)
    assert Trial.objects.count() == 0


def _lines_of_a_windows_tool(tmp_path):
    """The reference records as another tool might write them: a byte-order mark, CRLF line ends, blank lines."""
    lines = RUNS_PATH.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "windows.jsonl"
    path.write_bytes(("\ufeff" + "\r\n\r\n".join(lines) + "\r\n").encode("utf-8"))
    return path


def test_a_file_with_a_byte_order_mark_crlf_line_ends_and_blank_lines_imports_like_the_original(instrument, tmp_path):
    _import(_lines_of_a_windows_tool(tmp_path))

    assert Trial.objects.count() == 98
    assert _show_profiles()["GPT"]["profile"] == pytest.approx(REFERENCE["GPT"]["profile"], abs=1e-6)


def test_a_bad_line_in_the_middle_names_its_line_number_and_imports_nothing(instrument, tmp_path):
    lines = RUNS_PATH.read_text(encoding="utf-8").splitlines()
    lines[40] = '{"model_slug": "openai/gpt-5", "dilemma_id": "D1",'
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    with pytest.raises(CommandError, match="line 41: not JSON"):
        _import(path)
    assert Trial.objects.count() == 0 and Run.objects.count() == 0


def test_a_file_that_is_not_utf8_is_refused_with_a_message(instrument, tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"record_type": "agent_note", "message": "caf\u00e9"}\n'.encode("latin-1"))

    with pytest.raises(CommandError, match="not UTF-8"):
        _import(path)


def test_publishing_an_imported_run_writes_an_import_profile(instrument):
    _import()
    run = Run.objects.get(model__name="GPT")

    result = result_publish(run=run)

    assert result.source == Result.Source.IMPORT and result.run == run
    assert result.summary["runs"] == 5 and result.summary["invalid_count"] == 1
    assert result.summary["consistency"] == pytest.approx(REFERENCE["GPT"]["consistency_0_100"], abs=1e-6)


def test_a_suite_that_echoes_the_display_order_is_exported_with_its_position_flag(
    instrument, fake_model, fake_provider
):
    from tests.llmruns.runs import suite_run

    fake_provider.answer = lambda body: json.dumps({"ranking": ["1", "2", "3", "4", "5"]})
    run = suite_run(fake_model, min_runs=3, max_runs=3, seed=4)
    out = io.StringIO()

    call_command("export_runs", "--suite", str(run.pk), stdout=out)

    records = [json.loads(line) for line in out.getvalue().splitlines()]
    items = [record for record in records if record.get("record_type") != "agent_note"]
    assert len(items) == 21
    for record in items:
        flags = record["suite_diagnostics"]["flags"]
        assert [flag["code"] for flag in flags] == ["position"]
        assert "21 of 21 rankings equal to the display order" in flags[0]["reason"]


def test_show_profiles_carries_each_model_s_diagnostics(instrument, fake_model, fake_provider):
    from tests.llmruns.runs import suite_run

    _import()
    fake_provider.answer = lambda body: json.dumps({"ranking": ["1", "2", "3", "4", "5"]})
    suite_run(fake_model, min_runs=3, max_runs=3, seed=4)

    shown = _show_profiles()
    table = io.StringIO()
    call_command("show_profiles", stdout=table)

    assert [flag["code"] for flag in shown[fake_model.name]["diagnostics"]["flags"]] == ["position"]
    assert all(shown[name]["diagnostics"]["flags"] == [] for name in REFERENCE)
    assert f"{fake_model.name} ({fake_model.slug}):" in table.getvalue() and "flags: position" in table.getvalue()
    assert table.getvalue().count("flags: none") == len(REFERENCE)
