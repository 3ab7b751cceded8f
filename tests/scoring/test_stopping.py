from __future__ import annotations

import pytest

from scoring.stats import StopReason, stopping_decision, t_interval


def _decide(**overrides):
    arguments = {
        "valid_runs": 3,
        "attempted_runs": 3,
        "max_ci_half_width": 20.0,
        "consistency_ci_low": 80.0,
    }
    return stopping_decision(**(arguments | overrides))


def _run_until_stop(scores_per_run, valid_per_run=None, consistency_low_per_run=None):
    """Feed runs one by one to the stopping rule; return (attempted runs, reason) at the stop.

    scores_per_run holds each run's score for one virtue (the largest CI comes from it);
    a run marked invalid counts as attempted but adds no score.
    """
    valid_per_run = valid_per_run or [True] * len(scores_per_run)
    valid_scores = []
    for attempted, (score, valid) in enumerate(zip(scores_per_run, valid_per_run, strict=True), start=1):
        if valid:
            valid_scores.append(score)
        half_width = t_interval(valid_scores).ci_half_width if valid_scores else None
        decision = stopping_decision(
            valid_runs=len(valid_scores),
            attempted_runs=attempted,
            max_ci_half_width=half_width,
            consistency_ci_low=consistency_low_per_run[attempted - 1] if consistency_low_per_run else None,
        )
        if decision.stop:
            return attempted, decision.reason
    raise AssertionError("the suite never stopped")


def test_a_tight_suite_stops_at_the_third_run():
    # [80, 81, 80]: std 0.577, half-width 4.303 · 0.577 / √3 = 1.43 ≤ 5.
    assert _run_until_stop([80.0, 81.0, 80.0, 95.0]) == (3, StopReason.CI_THRESHOLD)


def test_a_noisier_suite_stops_when_its_interval_narrows():
    # Half-widths after runs 3..7: 22.4, 11.8, 8.1, 6.1, 4.97, so the CI rule fires at run 7.
    scores = [70.0, 80.0, 62.0, 72.0, 68.0, 71.0, 69.0, 70.0, 73.0, 67.0]

    assert _run_until_stop(scores) == (7, StopReason.CI_THRESHOLD)


def test_a_suite_that_never_settles_stops_at_the_cap():
    assert _run_until_stop([0.0, 100.0] * 5) == (10, StopReason.MAX_RUNS)


def test_a_highly_consistent_suite_stops_on_the_consistency_rule():
    scores = [0.0, 100.0] * 5
    consistency_lows = [None, 90.0, 94.0, 95.5, 97.0, 97.0, 97.0, 97.0, 97.0, 97.0]

    assert _run_until_stop(scores, consistency_low_per_run=consistency_lows) == (
        4,
        StopReason.CONSISTENCY_THRESHOLD,
    )


def test_invalid_runs_delay_the_minimum_but_count_towards_the_cap():
    # Runs 2 and 4 fail; the third valid run is run 5, where [80, 81, 80] is tight.
    valid = [True, False, True, False, True, True]

    assert _run_until_stop([80.0, 0.0, 81.0, 0.0, 80.0, 80.0], valid) == (5, StopReason.CI_THRESHOLD)


def test_a_model_that_keeps_failing_stops_at_the_cap():
    assert _run_until_stop([0.0] * 10, [False] * 10) == (10, StopReason.MAX_RUNS)


def test_below_the_minimum_the_suite_continues_even_with_a_tight_interval():
    decision = _decide(valid_runs=2, attempted_runs=2, max_ci_half_width=0.1, consistency_ci_low=99.0)

    assert (decision.stop, decision.reason) == (False, StopReason.BELOW_MIN_RUNS)


def test_at_the_cap_below_the_minimum_the_reason_is_the_cap():
    decision = _decide(valid_runs=2, attempted_runs=10, max_ci_half_width=0.1)

    assert (decision.stop, decision.reason) == (True, StopReason.MAX_RUNS)


def test_the_ci_rule_stops_at_exactly_the_threshold():
    assert _decide(max_ci_half_width=5.0).reason == StopReason.CI_THRESHOLD


def test_the_consistency_rule_stops_at_exactly_the_threshold():
    assert _decide(consistency_ci_low=95.0).reason == StopReason.CONSISTENCY_THRESHOLD


def test_the_ci_rule_is_checked_before_the_consistency_rule():
    assert _decide(max_ci_half_width=1.0, consistency_ci_low=99.0).reason == StopReason.CI_THRESHOLD


def test_the_statistical_rules_are_checked_before_the_cap():
    assert _decide(attempted_runs=10, max_ci_half_width=1.0).reason == StopReason.CI_THRESHOLD


def test_missing_statistics_never_stop_a_suite():
    decision = _decide(max_ci_half_width=None, consistency_ci_low=None)

    assert (decision.stop, decision.reason) == (False, StopReason.CONTINUE)


def test_thresholds_and_limits_are_arguments():
    decision = _decide(valid_runs=5, attempted_runs=5, max_runs=5, min_runs=5, ci_threshold=1.0)

    assert (decision.stop, decision.reason) == (True, StopReason.MAX_RUNS)


def test_stop_reasons_are_plain_strings():
    assert StopReason.CONSISTENCY_THRESHOLD == "consistency_threshold"


def test_more_valid_than_attempted_runs_is_an_error():
    with pytest.raises(ValueError, match=r"valid_runs \(4\) exceeds attempted_runs \(3\)"):
        _decide(valid_runs=4)
