"""Answer-quality diagnostics: hand-worked shares, tests and flags."""

from __future__ import annotations

import json
import math
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.diagnostics import (
    Thresholds,
    answer_diagnostics,
    answer_position,
    answer_status_shares,
    binomial_share,
    choice_position_following,
    display_order_tau,
    label_mass_stats,
    ranking_position_following,
    respondent_diagnostics,
    straight_lining,
)


def _upper_tail(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def test_binomial_share_gives_the_exact_one_sided_p_value_and_an_interval_around_the_share():
    share = binomial_share(20, 21, 1 / 120)

    assert share["share"] == pytest.approx(20 / 21)
    assert share["p_value"] == pytest.approx(_upper_tail(20, 21, 1 / 120))
    assert share["ci_low"] < 20 / 21 < share["ci_high"] <= 1.0


def test_binomial_share_of_nothing_has_no_numbers():
    assert binomial_share(0, 0, 0.5) | {} == {
        "count": 0,
        "n": 0,
        "share": None,
        "chance": 0.5,
        "ci_low": None,
        "ci_high": None,
        "p_value": None,
    }


def test_binomial_share_refuses_counts_above_n():
    with pytest.raises(ValueError):
        binomial_share(3, 2, 0.5)


def test_display_order_tau_is_one_for_the_display_order_and_minus_one_reversed():
    assert display_order_tau([1, 2, 3, 4, 5]) == 1.0
    assert display_order_tau([5, 4, 3, 2, 1]) == -1.0
    assert display_order_tau([2, 1, 3, 4, 5]) == pytest.approx(0.8)


def test_display_order_tau_refuses_what_is_no_ranking():
    with pytest.raises(ValueError):
        display_order_tau([1, 1, 2])


def test_the_mean_tau_over_all_rankings_is_zero_and_one_in_120_equals_the_display_order():
    every = [list(p) for p in permutations(range(1, 6))]

    record = ranking_position_following(every)

    assert record["mean_tau"] == pytest.approx(0.0)
    assert record["display_order"]["share"] == pytest.approx(1 / 120)
    assert record["first_shown_first"]["share"] == pytest.approx(1 / 5)


def test_choices_count_the_first_shown_option_above_one_half_and_leave_ties_out():
    record = choice_position_following([0.93, 0.9, 0.2, 0.5])

    assert record["first_shown"]["count"] == 2 and record["first_shown"]["n"] == 3
    assert record["ties"] == 1
    assert record["mean_probability"] == pytest.approx((0.93 + 0.9 + 0.2 + 0.5) / 4)


def test_label_mass_reports_mean_minimum_and_share_below():
    record = label_mass_stats([0.33, 0.95, 0.5, 1.0])

    assert record["mean"] == pytest.approx(0.695)
    assert record["min"] == 0.33
    assert record["share_below"] == 0.5


def test_status_shares_count_refusals_with_unparseable_answers():
    record = answer_status_shares(["valid"] * 7 + ["refusal", "unparseable", "truncated"], reasked=4)

    assert record["refused_or_unparseable"] == pytest.approx(0.2)
    assert record["shares"]["truncated"] == pytest.approx(0.1)
    assert record["reasked"] == {"count": 4, "share": 0.4}


def test_rankings_that_echo_the_display_order_are_flagged_with_their_statistic():
    record = answer_diagnostics(statuses=["valid"] * 21, rankings=[[1, 2, 3, 4, 5]] * 20 + [[2, 1, 3, 4, 5]])

    assert [flag["code"] for flag in record["flags"]] == ["position"]
    assert "20 of 21 rankings equal to the display order" in record["flags"][0]["reason"]
    assert "p = " in record["flags"][0]["reason"]


def test_a_small_label_mass_and_many_refusals_are_flagged():
    record = answer_diagnostics(
        statuses=["valid"] * 8 + ["refusal", "unparseable"], first_shown=[0.9, 0.1] * 5, label_masses=[0.33] * 10
    )

    assert [flag["code"] for flag in record["flags"]] == ["label_mass", "refusals"]


def test_thresholds_are_what_the_flags_use():
    answers = dict(statuses=["valid"] * 9 + ["refusal"])

    assert answer_diagnostics(**answers)["flags"] == []
    assert (
        answer_diagnostics(**answers, thresholds=Thresholds(failure_share_max=0.05))["flags"][0]["code"] == "refusals"
    )


def test_thresholds_refuse_an_alpha_outside_zero_one():
    with pytest.raises(ValueError):
        Thresholds(alpha=1.5)


def test_an_answerer_ranking_by_content_is_flagged_at_about_the_tests_level_over_seeds():
    # A fixed preference among the options, shown in a random order each time: what it answers in display positions
    # is a uniformly random permutation. Two one-sided tests at α = 0.01 flag about 1 % of such suites.
    flagged = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        rankings = [list(rng.permutation(5) + 1) for _ in range(21)]
        flagged += bool(answer_diagnostics(statuses=["valid"] * 21, rankings=rankings)["flags"])

    assert flagged <= 6


@given(st.integers(min_value=5, max_value=60))
def test_an_answerer_always_choosing_the_first_shown_option_is_flagged_from_seven_answers(n):
    record = answer_diagnostics(statuses=["valid"] * n, first_shown=[1.0] * n)

    assert [flag["code"] for flag in record["flags"]] == (["position"] if n >= 7 else [])


# --- people: straight-lining and a respondent's record -------------------------------------------------------


def test_an_answer_position_is_the_ranking_or_the_side_of_a_choice():
    assert answer_position((2, 1, 3), None) == (2, 1, 3)
    assert answer_position(None, 1.0) == (1,) and answer_position(None, 0.0) == (2,)
    assert answer_position(None, 0.5) is None and answer_position(None, None) is None


def test_straight_lining_needs_the_same_position_on_every_one_of_enough_items():
    assert straight_lining([(2,)] * 10, min_items=10)["all_same"]
    assert not straight_lining([(2,)] * 9, min_items=10)["all_same"]
    mixed = straight_lining([(1,)] * 11 + [(2,)], min_items=10)
    assert not mixed["all_same"] and (mixed["modal_position"], mixed["count"], mixed["distinct"]) == ([1], 11, 2)
    assert straight_lining([]) is None
    with pytest.raises(ValueError, match="min_items"):
        straight_lining([(1,)], min_items=1)


def test_a_respondent_choosing_the_first_shown_option_every_time_carries_both_flags():
    record = respondent_diagnostics(answers=[(None, 1.0)] * 42)

    assert [flag["code"] for flag in record["flags"]] == ["position", "straight_lining"]
    assert "42 of 42 choices of the first-shown option" in record["flags"][0]["reason"]
    assert record["thresholds"]["straight_lining_min_items"] == 10


def test_a_respondent_alternating_sides_carries_no_flag():
    record = respondent_diagnostics(answers=[(None, float(i % 2)) for i in range(42)])

    assert record["flags"] == [] and record["position"]["first_shown"]["share"] == 0.5


def test_a_respondent_ranking_everything_as_shown_is_flagged_for_both():
    record = respondent_diagnostics(answers=[((1, 2, 3, 4, 5), None)] * 12)

    assert [flag["code"] for flag in record["flags"]] == ["position", "straight_lining"]


def test_every_flag_carries_the_pattern_and_figures_its_english_reason_was_made_of():
    records = [
        respondent_diagnostics(answers=[((1, 2, 3, 4, 5), None)] * 12),
        answer_diagnostics(
            statuses=["valid"] * 8 + ["refusal", "unparseable"], first_shown=[1.0] * 10, label_masses=[0.33] * 10
        ),
    ]
    flags = [flag for record in records for flag in record["flags"]]

    assert {flag["code"] for flag in flags} == {"position", "straight_lining", "label_mass", "refusals"}
    for flag in flags:
        parts = flag["reason_i18n"]
        assert parts["pattern"] % parts["facts"] == flag["reason"]
        assert json.loads(json.dumps(parts)) == parts  # stored with the result as JSON
