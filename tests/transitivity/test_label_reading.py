from __future__ import annotations

import math

import pytest

from transitivity.parsing import (
    label_masses_from_logprobs,
    label_of_answer,
    label_reading,
    reading_from_logprobs,
    reading_from_samples,
    sample_counts,
    x_worse_probability,
)


def test_whitespace_variants_of_a_label_count_together():
    masses = label_masses_from_logprobs([(" 1", math.log(0.3)), ("1", math.log(0.2)), ("\n2", math.log(0.1))])
    assert masses["1"] == pytest.approx(0.5)
    assert masses["2"] == pytest.approx(0.1)


def test_other_tokens_do_not_count_for_a_label():
    masses = label_masses_from_logprobs([("12", math.log(0.4)), ("1.", math.log(0.2)), ("Situation", -0.1)])
    assert masses == {"1": 0.0, "2": 0.0}


def test_the_labels_are_normalised_against_each_other():
    reading = reading_from_logprobs([("1", math.log(0.06)), ("The", math.log(0.9)), (" 2", math.log(0.02))], top_k=3)
    assert reading.situation_1_worse == pytest.approx(0.75)
    assert reading.retained_mass == pytest.approx(0.08)
    assert not reading.missing


def test_one_label_alone_gets_all_of_the_choice():
    reading = reading_from_logprobs([("2", -0.5), ("I", -1.5)], top_k=2)
    assert reading.situation_1_worse == 0.0
    assert reading.label_2_mass == pytest.approx(math.exp(-0.5))


def test_neither_label_in_the_top_k_is_missing_with_the_reason():
    reading = reading_from_logprobs([("Situation", -0.1), ("The", -2.5)], top_k=2)
    assert reading.missing and reading.situation_1_worse is None
    assert "top 2" in reading.missing_reason and "'Situation'" in reading.missing_reason


def test_a_token_listed_twice_counts_once():
    assert label_masses_from_logprobs([("1", math.log(0.4)), ("1", math.log(0.4))])["1"] == pytest.approx(0.4)


def test_zero_mass_from_a_full_distribution_is_missing():
    assert label_reading({"1": 0.0, "2": 0.0}, absent_reason="none").missing


@pytest.mark.parametrize(
    ("answer", "label"),
    [("1", "1"), (" 2\n", "2"), ("Situation 1", "1"), ("2. Because", "2"), ("12", None), ("Neither", None), ("", None)],
)
def test_a_sampled_answer_names_its_label(answer, label):
    assert label_of_answer(answer) == label


def test_sampled_answers_give_frequencies_over_all_samples():
    counts = sample_counts(["1", "1", "2", "I cannot choose", "1"])
    assert counts == {"1": 3, "2": 1, "other": 1}
    reading = reading_from_samples(counts)
    assert reading.label_1_mass == pytest.approx(0.6)
    assert reading.retained_mass == pytest.approx(0.8)
    assert reading.situation_1_worse == pytest.approx(0.75)


def test_samples_that_never_name_a_label_are_missing():
    reading = reading_from_samples({"1": 0, "2": 0, "other": 20})
    assert reading.missing and "20 sampled answers" in reading.missing_reason


def test_the_reversed_order_maps_back_to_the_canonical_pair():
    assert x_worse_probability(0.8, reversed_order=False) == 0.8
    assert x_worse_probability(0.8, reversed_order=True) == pytest.approx(0.2)
    assert x_worse_probability(None, reversed_order=True) is None
