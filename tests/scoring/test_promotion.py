from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.promotion import (
    PromotionOutcome,
    as_fraction,
    evaluations_to_decision,
    kemeny_consensus,
    mean_kendall_tau,
    promotion_decision,
    wilson_interval,
)
from scoring.rankings import OPTIONS

RETAINED, REJECTED, UNDECIDED = PromotionOutcome.RETAINED, PromotionOutcome.REJECTED, PromotionOutcome.UNDECIDED
PERMUTATIONS = [tuple(p) for p in itertools.permutations(OPTIONS)]


def test_n_101_with_96_confirmations_is_retained():
    assert promotion_decision(101, 96).outcome is RETAINED


def test_n_101_with_95_confirmations_is_not_retained():
    assert promotion_decision(101, 95).outcome is REJECTED


def test_n_100_is_never_enough_even_with_every_confirmation():
    assert promotion_decision(100, 100).outcome is UNDECIDED


def test_q_exactly_at_the_threshold_is_retained():
    # 0.95 · 120 = 114 exactly: q = 114/120 must count, which a float comparison could miss.
    assert promotion_decision(120, 114, min_evaluations=100, min_confirmation=0.95).outcome is RETAINED
    assert promotion_decision(20, 19, min_evaluations=19, min_confirmation="0.95").outcome is RETAINED


def test_a_float_threshold_is_read_as_its_decimal():
    assert as_fraction(0.95) == Fraction(19, 20)


def test_the_sixth_disconfirmation_rejects_with_the_defaults():
    assert promotion_decision(5, 0).outcome is UNDECIDED
    assert promotion_decision(6, 0).outcome is REJECTED
    assert promotion_decision(60, 55).outcome is UNDECIDED
    assert promotion_decision(61, 55).outcome is REJECTED
    assert promotion_decision(101, 96).max_disconfirmations == 5


def test_with_a_threshold_of_one_the_first_disconfirmation_rejects():
    assert promotion_decision(1, 0, min_evaluations=10, min_confirmation=1).outcome is REJECTED


def test_impossible_counts_are_refused():
    with pytest.raises(ValueError, match="0 ≤ Y ≤ N"):
        promotion_decision(3, 4)


@given(st.integers(0, 400), st.data())
def test_every_round_is_decided_by_its_target_and_retention_follows_the_rule(n, data):
    y = data.draw(st.integers(0, n))
    decision = promotion_decision(n, y)
    if n >= 101:
        assert decision.decided
    assert (decision.outcome is RETAINED) == (n > 100 and 20 * y >= 19 * n)


@given(st.lists(st.booleans(), min_size=101, max_size=101))
def test_a_sequence_of_answers_is_decided_once_and_rejection_is_final(answers):
    outcomes = [promotion_decision(n, sum(answers[:n])).outcome for n in range(1, 102)]
    first = next(i for i, outcome in enumerate(outcomes) if outcome is not UNDECIDED)
    if outcomes[first] is REJECTED:
        assert all(outcome is REJECTED for outcome in outcomes[first:])


def test_wilson_interval_matches_a_hand_worked_value():
    low, high = wilson_interval(96, 101)
    assert low == pytest.approx(0.8893, abs=1e-4)
    assert high == pytest.approx(0.9787, abs=1e-4)


def test_wilson_interval_stays_inside_zero_and_one_at_the_extremes():
    assert wilson_interval(0, 5)[0] == 0.0
    assert wilson_interval(5, 5)[1] == 1.0
    assert wilson_interval(0, 0) is None


def test_mean_kendall_tau_of_corrections_with_the_candidate():
    # One adjacent swap (τ = 0.8) and the exact reverse (τ = −1): mean −0.1.
    corrections = [("B", "A", "C", "D", "E"), ("E", "D", "C", "B", "A")]
    assert mean_kendall_tau(corrections, tuple("ABCDE")) == pytest.approx(-0.1)
    assert mean_kendall_tau([], tuple("ABCDE")) is None


def test_kemeny_consensus_of_a_majority_is_the_majority():
    rankings = [tuple("BACDE")] * 3 + [tuple("ABCDE")] * 2
    assert kemeny_consensus(rankings) == tuple("BACDE")


def test_kemeny_ties_go_to_the_higher_borda_agreement():
    # ABCDE, BACDE and BCADE are all 2 disagreements away; Borda totals A 8, B 9, C 7 make
    # BACDE's agreement 5·9 + 4·8 + 3·7 + … the largest, though ABCDE is first alphabetically.
    assert kemeny_consensus([tuple("ABCDE"), tuple("BCADE")]) == tuple("BACDE")


def test_kemeny_ties_left_by_borda_go_to_the_alphabetically_first():
    # Opposite rankings: every permutation is 10 disagreements away and every Borda total is 6.
    assert kemeny_consensus([tuple("ABCDE"), tuple("EDCBA")]) == tuple("ABCDE")


def test_kemeny_consensus_of_nothing_is_none():
    assert kemeny_consensus([]) is None


@given(st.lists(st.sampled_from(PERMUTATIONS), min_size=1, max_size=8))
def test_kemeny_consensus_is_a_permutation_no_farther_than_any_input(rankings):
    def distance(p):
        return sum((1 - mean_kendall_tau([r], p)) * 5 for r in rankings)

    consensus = kemeny_consensus(rankings)
    assert sorted(consensus) == list(OPTIONS)
    assert distance(consensus) <= min(distance(r) for r in rankings) + 1e-9


@given(st.sampled_from(PERMUTATIONS), st.integers(1, 5))
def test_unanimous_rankings_are_their_own_consensus(ranking, copies):
    assert kemeny_consensus([ranking] * copies) == ranking


@pytest.mark.parametrize(
    ("n", "y", "expected"),
    [
        (0, 0, 6),  # six disconfirmations reject it sooner than 101 confirmations retain it
        (95, 94, 5),  # five disconfirmations (D_max = 5 already has one) before six confirmations
        (100, 100, 1),  # the 101st evaluation decides either way
        (10, 5, 1),  # one more disconfirmation rejects it
        (101, 101, 0),  # retained: decided
        (6, 0, 0),  # rejected: decided
    ],
)
def test_evaluations_to_decision_is_the_nearer_of_retention_and_rejection(n, y, expected):
    assert evaluations_to_decision(promotion_decision(n, y)) == expected


@given(st.integers(0, 100).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_an_undecided_candidate_is_decided_after_that_many_evaluations_and_not_before(counts):
    n, y = counts
    decision = promotion_decision(n, y)
    if decision.decided:
        return
    k = evaluations_to_decision(decision)
    # The fastest route is all confirmations (to the target) or all disconfirmations (to rejection).
    routes = [promotion_decision(n + k, y + k), promotion_decision(n + k, y)]
    assert any(route.decided for route in routes)
    earlier = [promotion_decision(n + k - 1, y + k - 1), promotion_decision(n + k - 1, y)]
    assert not any(route.decided for route in earlier)
