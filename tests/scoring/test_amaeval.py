"""AMAeval's arithmetic on hand-computed cases, and the AMA formula on the paper's own rows."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.amaeval import (
    GoldLabelError,
    PersonRating,
    accuracy,
    ama_score,
    annotator_units,
    dynamic_accuracy,
    judged_good,
    mean_absolute_error,
    over_replicates,
    people_metrics,
    people_units,
    rank_correlation,
    static_metrics,
    task1_class,
    task1_gold,
    task2_gold,
    weighted_f1,
)


def test_task1_gold_is_the_integer_part_of_the_two_annotators_mean():
    assert task1_gold(4, 3) == 3
    assert task1_gold(2, 3) == 2
    assert task1_gold(4, 4) == 4


def test_task1_gold_counts_n_a_as_zero():
    assert task1_gold("n/a", 3) == 1
    assert task1_gold("n/a", "n/a") == 0
    assert task1_gold(" N/A ", 1) == 0


def test_task1_gold_without_a_second_score_is_the_first():
    assert task1_gold(1, None) == 1


def test_task1_gold_refuses_a_score_off_the_scale():
    with pytest.raises(GoldLabelError, match="neither 1–4 nor n/a"):
        task1_gold(5, 4)
    with pytest.raises(GoldLabelError):
        task1_gold("bad", 4)


def test_task2_gold_is_the_first_annotators_label_and_bad_samples_are_left_out():
    assert task2_gold(1) == 1 and task2_gold("0") == 0
    assert task2_gold("bad") is None
    with pytest.raises(GoldLabelError):
        task2_gold(2)


def test_weighted_f1_matches_the_hand_computed_value():
    # class 0: F1 2·1/(2+1+1) = 0.5, support 2; class 1: 2·2/(4+1+0) = 0.8, support 2; class 2: 0, support 1
    truth, predicted = [0, 0, 1, 1, 2], [0, 1, 1, 1, 0]
    assert weighted_f1(truth, predicted) == pytest.approx((2 * 0.5 + 2 * 0.8) / 5)
    assert accuracy(truth, predicted) == pytest.approx(0.6)
    assert mean_absolute_error(truth, predicted) == pytest.approx(3 / 5)


def test_a_class_only_predicted_has_no_weight_in_the_f1():
    # class 1: TP 1, FN 1 → F1 2/3 with all the support; class 3 has support 0
    assert weighted_f1([1, 1], [1, 3]) == pytest.approx(2 / 3)


def test_weighted_f1_of_a_perfect_and_of_an_all_wrong_prediction():
    assert weighted_f1([0, 1, 1], [0, 1, 1]) == 1.0
    assert weighted_f1([0, 0], [1, 1]) == 0.0


def test_metrics_of_nothing_are_none_and_unequal_lengths_are_refused():
    assert weighted_f1([], []) is None and accuracy([], []) is None and mean_absolute_error([], []) is None
    with pytest.raises(ValueError, match="2 gold labels but 1 predictions"):
        accuracy([0, 1], [0])


def test_static_metrics_count_unparseable_replies_apart():
    metrics = static_metrics([4, 3, 0, 2], [4, None, 1, None], with_mae=True)
    assert (metrics.n, metrics.unparseable) == (2, 2)
    assert metrics.accuracy == 0.5 and metrics.mae == 0.5 and metrics.unparseable_share == 0.5
    assert static_metrics([1], [1]).mae is None


def test_the_ama_formula_recomputes_the_papers_qwen_row_from_its_own_columns():
    # Qwen 2.5 32B in the paper's Table 3: S-F1 34.37 / 70.06, D-Acc 70.13 / 96.70, MAE 0.84, AMA 62.19
    assert ama_score(34.37, 70.06, 70.13, 96.70, 0.84) == pytest.approx(62.19, abs=0.03)


def test_the_mae_penalty_stops_at_ten_points():
    assert ama_score(50, 50, 50, 50, 1.5) == pytest.approx(40.0)
    assert ama_score(50, 50, 50, 50, 3.7) == pytest.approx(40.0)
    assert ama_score(50, 50, 50, 50, 0.0) == pytest.approx(50.0)


def test_the_ama_score_refuses_a_missing_part():
    with pytest.raises(ValueError, match="five finite numbers"):
        ama_score(50, 50, float("nan"), 50, 0.5)


def test_a_judge_score_counts_as_good_only_above_one_half():
    assert judged_good(0.51) and not judged_good(0.5)
    assert dynamic_accuracy([True, False, True, True]) == 0.75 and dynamic_accuracy([]) is None


def test_over_replicates_gives_a_t_interval_and_none_for_one_replicate():
    one = over_replicates([0.4, None])
    assert (one.mean, one.sd, one.ci_low, one.replicates) == (0.4, None, None, 1)
    three = over_replicates([0.4, 0.5, 0.6])
    assert three.mean == pytest.approx(0.5) and three.sd == pytest.approx(0.1)
    assert three.ci_low == pytest.approx(0.5 - 4.302653 * 0.1 / 3**0.5, abs=1e-5)
    assert over_replicates([None]).mean is None


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=40))
def test_weighted_f1_lies_between_zero_and_one_and_is_one_exactly_when_every_label_is_right(pairs):
    truth, predicted = [t for t, _ in pairs], [p for _, p in pairs]
    f1 = weighted_f1(truth, predicted)
    assert 0.0 <= f1 <= 1.0 + 1e-12
    assert (f1 == pytest.approx(1.0)) == (truth == predicted)


def test_the_rank_correlation_of_static_and_dynamic_scores():
    assert rank_correlation([10, 20, 30, 40], [1, 3, 2, 4]) == pytest.approx(0.8)  # 1 − 6·2/(4·15)
    assert rank_correlation([10, 20, 30], [3, 2, 1]) == pytest.approx(-1.0)
    assert rank_correlation([10, 20], [1, 2]) is None and rank_correlation([1, 1, 1], [1, 2, 3]) is None


def test_a_task1_rating_is_its_class_and_n_a_is_zero():
    assert [task1_class(rating) for rating in (1, "2", 4, "n/a", "N/A")] == [1, 2, 4, 0, 0]
    with pytest.raises(GoldLabelError):
        task1_class(5)


def test_annotator_agreement_on_task1_takes_only_pairs_both_on_the_scale():
    pairs = [(4, 3), ("n/a", 2), (3, "n/a"), (1, None), (2, 2)]
    assert annotator_units(1, pairs) == [(4, 3), (2, 2)]


def test_annotator_agreement_on_task2_leaves_out_bad_samples_and_missing_second_ratings():
    pairs = [(1, 1), (0, 1), ("bad", 0), (1, None), (0, "bad"), (1, 0)]
    assert annotator_units(2, pairs) == [(1, 1), (0, 1), (1, 0)]


def test_people_against_the_gold_labels_task1_keeps_both_on_the_scale_and_names_who_rated():
    ratings = [
        PersonRating("ann", 1, 3, 3),
        PersonRating("ann", 1, 0, 2),  # gold N/A: no point of the scale
        PersonRating("bob", 1, 2, 0),  # the person's N/A
        PersonRating("bob", 1, 4, 2),
        PersonRating("bob", 2, 1, 0),
    ]
    assert people_units(1, ratings) == ([(3, 3), (4, 2)], ["ann", "bob"])
    assert people_units(2, ratings) == ([(1, 0)], ["bob"])


def test_peoples_metrics_are_a_models_with_every_rating_a_pair():
    # Task 1 pairs (gold, person): (3, 3), (0, 2), (2, 0), (4, 2): accuracy 1/4, MAE (0 + 2 + 2 + 2) / 4 = 1.5.
    ratings = [PersonRating("a", 1, 3, 3), PersonRating("a", 1, 0, 2), PersonRating("b", 1, 2, 0)]
    ratings.append(PersonRating("b", 1, 4, 2))
    metrics = people_metrics(1, ratings)
    assert (metrics.n, metrics.unparseable, metrics.accuracy, metrics.mae) == (4, 0, 0.25, 1.5)
    assert metrics.f1 == pytest.approx(0.25)  # only class 3 is right: F1₃ = 1, weight 1/4
    assert people_metrics(2, ratings).n == 0 and people_metrics(2, ratings).mae is None
