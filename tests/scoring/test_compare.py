"""scoring.compare: the difference of two models' (or two languages') replicate means with Welch's interval, against a
case computed by hand, and the leaderboard's mean and range rows."""

from __future__ import annotations

import math

import pytest

from scoring.compare import (
    Sample,
    column_summary,
    mean_interval,
    printed_agrees,
    sample_differences,
    std_from_interval,
    welch_difference,
)
from scoring.stats import t_interval

# Model A's five runs and model B's four, on one virtue.
A = [56.0, 58.0, 60.0, 62.0, 64.0]  # mean 60, s² = (16 + 4 + 0 + 4 + 16) / 4 = 10
B = [52.0, 55.0, 55.0, 58.0]  # mean 55, s² = (9 + 0 + 0 + 9) / 3 = 6


def test_the_difference_and_its_welch_interval_match_the_hand_computation():
    # v_A = 10/5 = 2, v_B = 6/4 = 1.5, se = √3.5 = 1.870829;
    # df = 3.5² / (2²/4 + 1.5²/3) = 12.25 / (1 + 0.75) = 7 exactly; t_{0.975, 7} = 2.364624;
    # half-width = 2.364624 · 1.870829 = 4.423807, so 5 ∓ 4.423807 = (0.576193, 9.423807): it excludes 0.
    difference = welch_difference(Sample(60.0, math.sqrt(10), 5), Sample(55.0, math.sqrt(6), 4))

    assert difference.estimate == 5.0
    assert difference.df == pytest.approx(7.0)
    assert difference.low == pytest.approx(0.576193, abs=1e-6)
    assert difference.high == pytest.approx(9.423807, abs=1e-6)
    assert difference.distinguishable is True


def test_an_interval_that_covers_zero_is_not_distinguishable():
    # The same spreads, means 57 and 55: 2 ∓ 4.423807 covers 0.
    difference = welch_difference(Sample(57.0, math.sqrt(10), 5), Sample(55.0, math.sqrt(6), 4))

    assert difference.low < 0 < difference.high
    assert difference.distinguishable is False
    assert difference.record()["distinguishable"] is False


def test_a_side_with_one_replicate_has_no_interval():
    difference = welch_difference(Sample(60.0, None, 1), Sample(55.0, 2.0, 4))

    assert (difference.estimate, difference.low, difference.high, difference.distinguishable) == (5.0, None, None, None)


def test_two_sides_without_spread_differ_exactly_by_their_means():
    assert welch_difference(Sample(60.0, 0.0, 3), Sample(55.0, 0.0, 3)).distinguishable is True
    assert welch_difference(Sample(55.0, 0.0, 3), Sample(55.0, 0.0, 3)).distinguishable is False


def test_the_standard_deviation_comes_back_from_a_stored_t_interval():
    stats = t_interval(A)

    assert std_from_interval(stats.mean, stats.ci_high, stats.n) == pytest.approx(math.sqrt(10))
    assert mean_interval(stats.mean, stats.std, stats.n) == pytest.approx((stats.ci_low, stats.ci_high))
    assert mean_interval(60.0, None, 1) is None
    with pytest.raises(ValueError):
        std_from_interval(60.0, 61.0, 1)


def test_a_column_summary_is_the_mean_and_range_of_the_values_present():
    summary = column_summary([70.0, None, 80.0, 90.0])

    assert (summary.mean, summary.low, summary.high, summary.n) == (80.0, 70.0, 90.0, 3)
    assert column_summary([None]).mean is None


def test_sample_differences_pair_the_keys_both_sides_have_in_the_first_sides_order():
    # One model's Chinese runs (the A figures on courage) against its English ones (B), as the hand case above.
    chinese = {
        "courage": Sample(60.0, math.sqrt(10), 5),
        "wisdom": Sample(50.0, 1.0, 5),
        "consistency": Sample(70, None, 0),
    }
    english = {"wisdom": Sample(50.0, 1.0, 4), "courage": Sample(55.0, math.sqrt(6), 4)}

    differences = sample_differences(chinese, english)

    assert list(differences) == ["courage", "wisdom"]
    assert differences["courage"] == welch_difference(chinese["courage"], english["courage"])
    assert differences["courage"].low == pytest.approx(0.576193, abs=1e-6)
    assert differences["wisdom"].estimate == 0.0 and differences["wisdom"].distinguishable is False


def test_sample_differences_of_sides_without_a_common_key_are_empty():
    assert sample_differences({"courage": Sample(1.0, 1.0, 3)}, {"wisdom": Sample(1.0, 1.0, 3)}) == {}


def test_printed_agrees_when_the_printed_value_is_the_rounding():
    assert printed_agrees(80.451, 80.5, 1)
    assert printed_agrees(10.952380952, 10.95, 2)
    assert not printed_agrees(79.0476, 79.1, 1)


def test_printed_agrees_with_either_neighbour_of_an_exact_half():
    assert printed_agrees(0.25, 0.2, 1) and printed_agrees(0.25, 0.3, 1)
