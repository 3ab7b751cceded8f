from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from scoring.rankings import OPTIONS, RankingError
from scoring.stats import consistency, kendall_tau, pairwise_kendall_taus, t_interval, t_quantile

rankings = st.permutations(OPTIONS).map(tuple)
ABCDE = ("A", "B", "C", "D", "E")


# --- Kendall τ -----------------------------------------------------------------------


def test_kendall_tau_of_identical_rankings_is_1():
    assert kendall_tau(ABCDE, ABCDE) == 1.0


def test_kendall_tau_of_reversed_rankings_is_minus_1():
    assert kendall_tau(ABCDE, ABCDE[::-1]) == -1.0


def test_two_adjacent_swaps_give_tau_0_6():
    # B,A,D,C,E flips the pairs A-B and C-D only: 8 concordant, 2 discordant, (8 - 2)/10.
    assert kendall_tau(ABCDE, ("B", "A", "D", "C", "E")) == pytest.approx(0.6, abs=1e-15)


def test_kendall_tau_validates_both_rankings():
    with pytest.raises(RankingError, match=r"unknown option 'F'"):
        kendall_tau(ABCDE, ("A", "B", "C", "D", "F"))


@given(rankings, rankings)
def test_kendall_tau_is_symmetric_and_within_minus_1_to_1(a, b):
    tau = kendall_tau(a, b)

    assert tau == kendall_tau(b, a)
    assert -1.0 <= tau <= 1.0


@given(rankings, rankings)
def test_kendall_tau_matches_scipy(a, b):
    positions_a = [a.index(option) for option in OPTIONS]
    positions_b = [b.index(option) for option in OPTIONS]

    expected = scipy_stats.kendalltau(positions_a, positions_b).statistic
    assert kendall_tau(a, b) == pytest.approx(expected, abs=1e-12)


@given(st.lists(rankings, min_size=2, max_size=6))
def test_pairwise_taus_match_kendall_tau_in_upper_triangle_order(ranking_list):
    taus = pairwise_kendall_taus(ranking_list)

    pairs = zip(*np.triu_indices(len(ranking_list), k=1), strict=True)
    expected = [kendall_tau(ranking_list[i], ranking_list[j]) for i, j in pairs]
    np.testing.assert_allclose(taus, expected, rtol=0, atol=1e-12)


def test_pairwise_taus_of_one_ranking_are_empty():
    assert pairwise_kendall_taus([ABCDE]).shape == (0,)


# --- t-intervals ---------------------------------------------------------------------


def test_t_interval_of_four_values_by_hand():
    # mean 2.5; std = √((2.25 + 0.25 + 0.25 + 2.25)/3) = √(5/3) = 1.2909944…;
    # t_{0.975, 3} = 3.1824463…; half-width = 3.1824463 · 1.2909944 / 2 = 2.0542603…
    result = t_interval([1, 2, 3, 4])

    assert (result.n, result.mean) == (4, 2.5)
    assert result.std == pytest.approx(math.sqrt(5 / 3), abs=1e-12)
    assert result.ci_half_width == pytest.approx(2.0542602567605, abs=1e-12)
    assert result.ci_low == pytest.approx(2.5 - 2.0542602567605, abs=1e-12)
    assert result.ci_high == pytest.approx(2.5 + 2.0542602567605, abs=1e-12)


def test_t_interval_of_one_value_has_no_spread():
    result = t_interval([42.0])

    assert (result.n, result.mean) == (1, 42.0)
    assert (result.std, result.ci_low, result.ci_high, result.ci_half_width) == (None, None, None, None)


def test_t_interval_of_no_values_raises():
    with pytest.raises(ValueError, match=r"at least one value"):
        t_interval([])


def test_t_interval_rejects_nan():
    with pytest.raises(ValueError, match=r"finite"):
        t_interval([1.0, math.nan])


def test_t_interval_of_equal_values_has_zero_width():
    result = t_interval([80.0, 80.0, 80.0])

    assert (result.std, result.ci_half_width, result.ci_low, result.ci_high) == (0.0, 0.0, 80.0, 80.0)


def test_exact_quantile_is_scipy_t_ppf():
    assert t_quantile(4) == scipy_stats.t.ppf(0.975, 4)


def test_legacy_quantile_rounds_t_to_3_decimals_up_to_30_df():
    assert (t_quantile(2, quantile="legacy"), t_quantile(4, quantile="legacy")) == (4.303, 2.776)
    assert t_quantile(30, quantile="legacy") == 2.042


def test_legacy_quantile_is_1_96_beyond_30_df():
    assert t_quantile(31, quantile="legacy") == 1.96
    assert t_quantile(99, quantile="legacy") == 1.96


def test_legacy_interval_uses_the_legacy_quantile():
    values = [70.0, 80.0, 75.0, 72.0, 78.0]

    legacy = t_interval(values, quantile="legacy")

    assert legacy.ci_half_width == pytest.approx(2.776 * legacy.std / math.sqrt(5), abs=1e-12)


def test_an_unknown_quantile_method_raises():
    with pytest.raises(ValueError, match=r"'exact' or 'legacy'"):
        t_quantile(4, quantile="normal")


def test_the_confidence_level_changes_the_quantile():
    assert t_quantile(10, confidence=0.99) == scipy_stats.t.ppf(0.995, 10)


# --- consistency ---------------------------------------------------------------------


def test_consistency_pools_pairs_over_dilemmas():
    # D1: τ(A..E, A..E) = 1, τ(A..E, B,A,…) = 0.8 twice; D2: τ(A..E, E..A) = -1.
    # Pooled τ̄ = (1 + 0.8 + 0.8 - 1)/4 = 0.4, C = 100·(0.4 + 1)/2 = 70;
    # C_pair = 100, 90, 90, 0, std = √((900 + 400 + 400 + 4900)/3) = √2200.
    result = consistency({"D1": [ABCDE, ABCDE, ("B", "A", "C", "D", "E")], "D2": [ABCDE, ABCDE[::-1]]})

    assert result.mean_kendall_tau == pytest.approx(0.4, abs=1e-12)
    assert result.consistency_0_100 == pytest.approx(70.0, abs=1e-12)
    assert result.stats.n == 4
    assert result.stats.mean == pytest.approx(70.0, abs=1e-12)
    assert result.stats.std == pytest.approx(math.sqrt(2200), abs=1e-12)


def test_identical_repeats_are_fully_consistent():
    result = consistency({"D1": [ABCDE] * 3, "D2": [ABCDE[::-1]] * 2})

    assert (result.consistency_0_100, result.stats.ci_low) == (100.0, 100.0)


def test_a_dilemma_with_one_ranking_contributes_no_pairs():
    result = consistency({"D1": [ABCDE, ABCDE], "D2": [ABCDE[::-1]]})

    assert (result.stats.n, result.consistency_0_100) == (1, 100.0)


def test_no_pairs_at_all_gives_none():
    assert consistency({"D1": [ABCDE], "D2": []}) is None


def test_consistency_passes_the_quantile_method_on():
    rankings_by_dilemma = {"D1": [ABCDE, ("B", "A", "C", "D", "E"), ("A", "C", "B", "D", "E")]}

    exact = consistency(rankings_by_dilemma).stats
    legacy = consistency(rankings_by_dilemma, quantile="legacy").stats

    assert legacy.ci_half_width / exact.ci_half_width == pytest.approx(4.303 / t_quantile(2), abs=1e-12)


def test_percentile_rank_counts_ties_as_half_below():
    from scoring import percentile_rank

    assert percentile_rank(50, [10, 20, 50, 80]) == pytest.approx(62.5)
    assert percentile_rank(100, [10, 20]) == 100.0 and percentile_rank(0, [10, 20]) == 0.0
    assert percentile_rank(7, [7, 7, 7]) == 50.0


def test_percentile_rank_refuses_an_empty_reference_and_a_non_finite_value():
    from scoring import percentile_rank

    with pytest.raises(ValueError):
        percentile_rank(50, [])
    with pytest.raises(ValueError):
        percentile_rank(float("nan"), [1.0])
