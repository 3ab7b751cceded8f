"""Reproduce the profiles the original VirtueMap run-suite computed from its raw records.

The records (tests/data/reference_runs_sample.jsonl) hold agent notes and one record per
model x run x dilemma. A *valid full run* is a run whose 7 dilemmas are all valid; the
model profile and its intervals are over those runs. Consistency uses every valid
ranking, including valid items of runs that were not complete.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

from scoring.stats import IntervalStats
from scoring.suite import SuiteProfile, suite_profile

ROOT = Path(__file__).resolve().parents[2]
RUNS_PATH = ROOT / "tests" / "data" / "reference_runs_sample.jsonl"
PROFILES_PATH = ROOT / "tests" / "data" / "reference_profiles_sample.json"
INSTRUMENT_PATH = ROOT / "instruments" / "virtuemap" / "fixtures" / "instrument.json"
MODELS = ("GPT", "Claude", "Gemini")


@dataclass(frozen=True)
class ModelRecords:
    """One model's item records: run id → dilemma id → canonical ranking (None = invalid)."""

    runs: dict[int, dict[str, tuple[str, ...] | None]]
    invalid_count: int


@cache
def _instrument() -> tuple[dict, tuple[str, ...], tuple[str, ...]]:
    instrument = json.loads(INSTRUMENT_PATH.read_text())
    virtues = tuple(virtue["id"] for virtue in instrument["virtues"])
    dilemmas = tuple(dilemma["id"] for dilemma in instrument["dilemmas"])
    return instrument["published_key"], virtues, dilemmas


@cache
def _records(model: str) -> ModelRecords:
    runs: dict[int, dict[str, tuple[str, ...] | None]] = defaultdict(dict)
    invalid_count = 0
    for line in RUNS_PATH.read_text().splitlines():
        record = json.loads(line)
        if record.get("record_type") == "agent_note" or record["model_name"] != model:
            continue
        ranking = tuple(record["canonical_ranking"]) if record["valid"] else None
        runs[record["run_id"]][record["dilemma_id"]] = ranking
        invalid_count += not record["valid"]
    return ModelRecords(runs=dict(runs), invalid_count=invalid_count)


@cache
def _reference(model: str) -> dict:
    models = json.loads(PROFILES_PATH.read_text())["models"]
    return next(entry for entry in models if entry["name"] == model)


@cache
def _suite(model: str, quantile: str = "exact") -> SuiteProfile:
    key, virtues, dilemmas = _instrument()
    return suite_profile(_records(model).runs, key, virtues, dilemmas, quantile=quantile)


def _valid_full_runs(model: str) -> list[int]:
    return list(_suite(model).valid_run_ids)


def _profile_stats(model: str) -> dict[str, IntervalStats]:
    return _suite(model).profile_stats


@pytest.mark.parametrize("model", MODELS)
def test_reference_runs_count_valid_full_runs(model):
    reference = _reference(model)

    assert len(_valid_full_runs(model)) == reference["runs"] == reference["valid_questionnaire_runs"]


def test_gpt_has_six_runs_but_five_valid_full_runs():
    assert sorted(_records("GPT").runs) == [1, 2, 3, 4, 5, 6]
    assert _valid_full_runs("GPT") == [1, 2, 4, 5, 6]


@pytest.mark.parametrize("model", MODELS)
def test_reference_invalid_count(model):
    assert _suite(model).invalid_count == _reference(model)["invalid_count"]


@pytest.mark.parametrize("model", MODELS)
def test_reference_virtue_means_and_stds(model):
    reference = _reference(model)

    for virtue, result in _profile_stats(model).items():
        assert result.mean == pytest.approx(reference["profile"][virtue], abs=1e-6)
        assert result.mean == pytest.approx(reference["profile_stats"][virtue]["mean"], abs=1e-6)
        assert result.std == pytest.approx(reference["profile_stats"][virtue]["std"], abs=1e-6)


@pytest.mark.parametrize("model", MODELS)
def test_reference_profile_intervals_with_the_exact_quantile(model):
    # The suite rounded t to 3 decimals; the exact quantile differs by less than 1e-3 here.
    reference = _reference(model)["profile_stats"]

    for virtue, result in _profile_stats(model).items():
        assert result.ci_half_width == pytest.approx(reference[virtue]["ci_half_width"], abs=1e-3)
        assert result.ci_low == pytest.approx(reference[virtue]["ci_low"], abs=1e-3)
        assert result.ci_high == pytest.approx(reference[virtue]["ci_high"], abs=1e-3)


@pytest.mark.parametrize("model", MODELS)
def test_reference_largest_profile_half_width(model):
    largest = max(result.ci_half_width for result in _profile_stats(model).values())

    assert largest == pytest.approx(_reference(model)["max_ci_half_width"], abs=1e-3)


@pytest.mark.parametrize("model", MODELS)
def test_reference_kendall_tau_and_consistency(model):
    reference = _reference(model)

    result = _suite(model).consistency

    assert result.mean_kendall_tau == pytest.approx(reference["mean_pairwise_kendall_tau"], abs=1e-6)
    assert result.consistency_0_100 == pytest.approx(reference["consistency_0_100"], abs=1e-6)


@pytest.mark.parametrize("model", MODELS)
def test_reference_consistency_stats_mean_and_std(model):
    reference = _reference(model)["consistency_stats"]

    result = _suite(model).consistency.stats

    assert result.mean == pytest.approx(reference["mean"], abs=1e-6)
    assert result.std == pytest.approx(reference["std"], abs=1e-6)


@pytest.mark.parametrize("model", MODELS)
def test_reference_consistency_intervals_with_the_legacy_quantile(model):
    reference = _reference(model)["consistency_stats"]

    result = _suite(model, quantile="legacy").consistency.stats

    assert result.ci_half_width == pytest.approx(reference["ci_half_width"], abs=1e-6)
    assert result.ci_low == pytest.approx(reference["ci_low"], abs=1e-6)
    assert result.ci_high == pytest.approx(reference["ci_high"], abs=1e-6)


def test_consistency_includes_valid_items_of_incomplete_runs():
    # GPT: 6 rankings of 6 dilemmas (15 pairs each) and 5 valid rankings of D5 (10 pairs).
    assert _suite("GPT").consistency.stats.n == 6 * 15 + 10


@pytest.mark.parametrize("model", ["GPT", "Gemini"])
def test_exact_consistency_half_width_is_wider_by_the_ratio_of_the_quantiles(model):
    exact = _suite(model).consistency.stats
    legacy = _suite(model, quantile="legacy").consistency.stats
    assert exact.n - 1 > 30  # beyond the legacy table, where the suite used 1.96

    ratio = exact.ci_half_width / legacy.ci_half_width

    assert ratio == pytest.approx(scipy_stats.t.ppf(0.975, exact.n - 1) / 1.96, abs=1e-9)


@pytest.mark.parametrize("model", ["GPT", "Gemini"])
def test_legacy_consistency_half_width_is_1_2_to_1_8_percent_narrower(model):
    shortfall = 1 - _suite(model, quantile="legacy").consistency.stats.ci_half_width / (
        _suite(model).consistency.stats.ci_half_width
    )

    assert 0.012 <= shortfall <= 0.018


@pytest.mark.parametrize("model", MODELS)
def test_suite_profile_record_uses_the_reference_field_names_and_values(model):
    reference = _reference(model)

    record = _suite(model, quantile="legacy").record()

    assert set(record) == set(reference) - {"name", "slug"}
    assert record["runs"] == reference["runs"]
    assert record["invalid_count"] == reference["invalid_count"]
    assert record["profile"] == pytest.approx(reference["profile"], abs=1e-6)
    assert record["consistency_stats"] == pytest.approx(reference["consistency_stats"], abs=1e-6)
