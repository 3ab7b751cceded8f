"""Krippendorff's alpha and its bootstrap interval: hand-computed small cases, Krippendorff's own textbook examples,
the undefined cases, the bounds of the bootstrap, and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.agreement import MAX_RESAMPLES, alpha_with_interval, krippendorff_alpha

# Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), the 4 observers × 12 units example with missing
# values; published: nominal α = 0.743, interval α = 0.849. One row per unit, one column per observer A–D.
TEXTBOOK_UNITS = [
    (1, 1, None, 1),
    (2, 2, 3, 2),
    (3, 3, 3, 3),
    (3, 3, 3, 3),
    (2, 2, 2, 2),
    (1, 2, 3, 4),
    (4, 4, 4, 4),
    (1, 1, 2, 1),
    (2, 2, 2, 2),
    (None, 5, 5, 5),
    (None, None, 1, 1),
    (None, 3, None, None),
]
# The same paper's two observers coding ten units 0/1; published α = 0.095.
BINARY_A = (0, 1, 0, 0, 0, 0, 0, 0, 1, 0)
BINARY_B = (1, 1, 1, 0, 0, 1, 0, 0, 0, 0)


def test_the_textbook_example_gives_the_published_nominal_and_interval_alphas():
    assert krippendorff_alpha(TEXTBOOK_UNITS, level="nominal") == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(TEXTBOOK_UNITS, level="interval") == pytest.approx(0.849, abs=5e-4)


def test_the_textbook_binary_example_gives_the_published_alpha():
    # By hand: n = 20 values, n₀ = 14, n₁ = 6, four disagreeing units, α = 1 − 19 · 4 / (14 · 6) = 0.0952.
    units = list(zip(BINARY_A, BINARY_B, strict=True))
    assert krippendorff_alpha(units, level="nominal") == pytest.approx(1 - 19 * 4 / (14 * 6))
    assert round(krippendorff_alpha(units, level="nominal"), 3) == 0.095


def test_interval_alpha_of_three_pairs_by_hand():
    # Values 1, 2, 2, 3, 3, 3: n = 6, Σ(v − v̄)² = 10/3; Σ(a − b)² = 1 + 1 + 0 = 2.
    # α = 1 − (n − 1) Σ(a − b)² / (n Σ(v − v̄)²) = 1 − 5 · 2 / (6 · 10/3) = 0.5.
    assert krippendorff_alpha([(1, 2), (2, 3), (3, 3)], level="interval") == pytest.approx(0.5)


def test_nominal_alpha_of_three_pairs_by_hand():
    # n₀ = n₁ = 3, one disagreeing unit: α = 1 − (n − 1) · 2 / (2 · n₀ · n₁) = 1 − 10 / 18.
    assert krippendorff_alpha([(0, 0), (1, 1), (0, 1)], level="nominal") == pytest.approx(1 - 10 / 18)


def test_interval_alpha_weighs_a_far_disagreement_more_than_a_near_one():
    near = krippendorff_alpha([(1, 1), (4, 4), (2, 3), (3, 3)], level="interval")
    far = krippendorff_alpha([(1, 1), (4, 4), (1, 4), (3, 3)], level="interval")
    assert far < near


def test_perfect_agreement_is_one_and_units_without_a_pair_do_not_count():
    assert krippendorff_alpha([(1, 1), (2, 2), (3, None), (None, None)], level="interval") == pytest.approx(1.0)


@pytest.mark.parametrize(
    "units",
    [[], [(1, None), (None, 2)], [(3, 3), (3, 3), (4, None)]],
    ids=["no units", "no unit with two values", "one value only"],
)
def test_alpha_is_undefined_without_pairs_or_without_variation(units):
    assert krippendorff_alpha(units, level="interval") is None
    estimate = alpha_with_interval(units, level="nominal", rng=np.random.default_rng(1), resamples=10)
    assert estimate.alpha is None and estimate.ci_low is None and estimate.resamples == 0


def test_an_unknown_level_is_refused():
    with pytest.raises(ValueError, match="ordinal"):
        krippendorff_alpha([(1, 2)], level="ordinal")


def test_the_bootstrap_is_reproducible_from_its_generator_and_brackets_the_estimate():
    units = list(zip(BINARY_A * 3, BINARY_B[3:] + BINARY_B * 2 + BINARY_B[:3], strict=False))
    first = alpha_with_interval(units, level="nominal", rng=np.random.default_rng(7), resamples=300)
    again = alpha_with_interval(units, level="nominal", rng=np.random.default_rng(7), resamples=300)
    assert first == again
    assert first.ci_low < first.alpha < first.ci_high
    assert first.units == 30 and first.values == 60 and first.clusters == 30
    assert first.resamples == 300 and first.undefined == 0


def test_one_cluster_gives_alpha_but_no_interval():
    # Resampling one respondent would redraw the same ratings every time: no spread to report.
    units = [(1, 2), (2, 3), (3, 3)]
    estimate = alpha_with_interval(
        units, level="interval", rng=np.random.default_rng(3), clusters=["p", "p", "p"], resamples=50
    )
    assert estimate.alpha == pytest.approx(0.5) and estimate.clusters == 1
    assert estimate.ci_low is None and estimate.ci_high is None and estimate.resamples == 0


def test_resampling_clusters_takes_all_of_a_drawn_clusters_units():
    # Two respondents, one agreeing perfectly and one not at all: each resample is one of them twice or both once.
    units = [(1, 1), (4, 4), (2, 2), (1, 4), (4, 1), (2, 3)]
    clusters = ["a", "a", "a", "b", "b", "b"]
    estimate = alpha_with_interval(
        units, level="interval", rng=np.random.default_rng(5), clusters=clusters, resamples=200
    )
    possible = {
        round(krippendorff_alpha(drawn, level="interval"), 9) for drawn in (units[:3] * 2, units[3:] * 2, units)
    }
    assert estimate.clusters == 2 and estimate.undefined == 0
    assert round(estimate.ci_low, 9) in possible and round(estimate.ci_high, 9) in possible
    assert estimate.ci_low < estimate.alpha < estimate.ci_high


def test_resamples_whose_alpha_is_undefined_are_counted_and_left_out():
    # Two units only: a resample drawing the same unit twice has one value, so no α.
    estimate = alpha_with_interval([(1, 1), (2, 2)], level="nominal", rng=np.random.default_rng(0), resamples=200)
    assert estimate.alpha == pytest.approx(1.0)
    assert 0 < estimate.undefined < 200
    assert estimate.ci_low == estimate.ci_high == pytest.approx(1.0)


@pytest.mark.parametrize("resamples", [0, MAX_RESAMPLES + 1])
def test_the_number_of_resamples_is_bounded(resamples):
    with pytest.raises(ValueError, match="resamples"):
        alpha_with_interval([(1, 2), (2, 2)], level="interval", rng=np.random.default_rng(0), resamples=resamples)


def test_cluster_labels_must_name_every_unit():
    with pytest.raises(ValueError, match="cluster"):
        alpha_with_interval([(1, 2), (2, 2)], level="interval", rng=np.random.default_rng(0), clusters=["a"])


pairs = st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=2, max_size=30)


@given(pairs)
def test_alpha_is_at_most_one_and_ignores_which_coder_is_which_and_the_order_of_units(units):
    alpha = krippendorff_alpha(units, level="interval")
    if alpha is None:
        assert len({value for unit in units for value in unit}) == 1
        return
    assert alpha <= 1.0 + 1e-12
    swapped = krippendorff_alpha([(b, a) for a, b in units], level="interval")
    shuffled = krippendorff_alpha(list(reversed(units)), level="interval")
    assert swapped == pytest.approx(alpha) and shuffled == pytest.approx(alpha)
