"""suite_profile and the stopping rule on synthetic runs: stop at the minimum, in the middle, at the cap."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from scoring.stats import StopReason
from scoring.suite import suite_profile, suite_stopping_decision

INSTRUMENT_PATH = Path(__file__).resolve().parents[2] / "instruments" / "virtuemap" / "fixtures" / "instrument.json"


@cache
def _instrument():
    data = json.loads(INSTRUMENT_PATH.read_text())
    return (
        data["published_key"],
        tuple(virtue["id"] for virtue in data["virtues"]),
        tuple(dilemma["id"] for dilemma in data["dilemmas"]),
    )


def _run(ranking: str, invalid: tuple[str, ...] = ()):
    """A run answering every dilemma with the same ranking, except the ``invalid`` dilemmas."""
    _, _, dilemmas = _instrument()
    return {dilemma: None if dilemma in invalid else tuple(ranking) for dilemma in dilemmas}


def _profile(runs):
    key, virtues, dilemmas = _instrument()
    return suite_profile(dict(enumerate(runs, start=1)), key, virtues, dilemmas)


def _stop_after(runs):
    """Feed runs one at a time; return (runs done, reason) when the rule stops."""
    for done in range(1, len(runs) + 1):
        decision = suite_stopping_decision(
            _profile(runs[:done]),
            attempted_runs=done,
            min_runs=3,
            max_runs=10,
            ci_threshold=5.0,
            consistency_threshold=95.0,
        )
        if decision.stop:
            return done, decision.reason
    raise AssertionError("the suite never stopped")


def test_identical_runs_stop_at_the_minimum_of_three():
    assert _stop_after([_run("ABCDE")] * 10) == (3, StopReason.CI_THRESHOLD)


def test_runs_differing_by_one_swap_stop_in_the_middle_when_the_interval_narrows():
    runs = [_run("ABCDE"), _run("BACDE"), _run("ACBDE")] * 4

    assert _stop_after(runs) == (7, StopReason.CI_THRESHOLD)


def test_opposite_runs_go_on_to_the_cap():
    assert _stop_after([_run("ABCDE"), _run("EDCBA")] * 5) == (10, StopReason.MAX_RUNS)


def test_runs_with_an_invalid_item_count_towards_the_cap_but_not_the_minimum():
    runs = [_run("ABCDE", invalid=("D1",))] * 10

    assert _stop_after(runs) == (10, StopReason.MAX_RUNS)


def test_a_run_with_an_invalid_item_is_not_a_valid_full_run_but_its_valid_items_count_for_consistency():
    profile = _profile([_run("ABCDE"), _run("ABCDE", invalid=("D1",))])

    assert profile.valid_run_ids == (1,)
    assert profile.invalid_count == 1
    assert profile.consistency.stats.n == 6


def test_a_dilemma_not_yet_asked_is_neither_valid_nor_invalid():
    profile = _profile([{"D1": tuple("ABCDE")}])

    assert profile.runs == 0 and profile.invalid_count == 0
    assert profile.profile_stats == {}


def test_one_valid_run_has_means_but_no_interval():
    profile = _profile([_run("ABCDE")])

    assert profile.max_ci_half_width is None
    assert all(stats.ci_half_width is None for stats in profile.profile_stats.values())


def test_the_record_has_no_consistency_without_a_pair():
    record = _profile([_run("ABCDE")]).record()

    assert record["consistency_0_100"] is None and record["consistency_stats"] is None


@pytest.mark.parametrize("ranking", ["ABCDE", "EDCBA"])
def test_the_record_profile_equals_the_means(ranking):
    record = _profile([_run(ranking)] * 3).record()

    assert record["profile"] == {virtue: stats["mean"] for virtue, stats in record["profile_stats"].items()}
