"""Reading a choice among fixed labels from first-token log-probabilities or sampled answers (any instrument)."""

from __future__ import annotations

import math

import pytest

from llmruns.labels import (
    label_masses,
    reading_from_logprobs,
    reading_from_masses,
    reading_from_samples,
    sample_counts,
)

LABELS = ("1", "2")


def test_whitespace_variants_of_a_label_count_together():
    masses = label_masses([(" 1", math.log(0.3)), ("1", math.log(0.2)), ("\n2", math.log(0.1))], LABELS)
    assert masses["1"] == pytest.approx(0.5)
    assert masses["2"] == pytest.approx(0.1)


def test_other_tokens_do_not_count_for_a_label():
    masses = label_masses([("12", math.log(0.4)), ("1.", math.log(0.2)), ("Situation", -0.1)], LABELS)
    assert masses == {"1": 0.0, "2": 0.0}


def test_the_labels_are_normalised_against_each_other():
    reading = reading_from_logprobs(
        [("1", math.log(0.06)), ("The", math.log(0.9)), (" 2", math.log(0.02))], LABELS, top_k=3
    )
    assert reading.probabilities["1"] == pytest.approx(0.75)
    assert reading.retained_mass == pytest.approx(0.08)
    assert not reading.missing


def test_one_label_alone_gets_all_of_the_choice():
    reading = reading_from_logprobs([("2", -0.5), ("I", -1.5)], LABELS, top_k=2)
    assert reading.probabilities["1"] == 0.0
    assert reading.masses["2"] == pytest.approx(math.exp(-0.5))


def test_neither_label_in_the_top_k_is_missing_with_the_reason():
    reading = reading_from_logprobs([("Situation", -0.1), ("The", -2.5)], LABELS, top_k=2)
    assert reading.missing and reading.probabilities is None
    assert "top 2" in reading.missing_reason and "'Situation'" in reading.missing_reason


def test_a_token_listed_twice_counts_once():
    assert label_masses([("1", math.log(0.4)), ("1", math.log(0.4))], LABELS)["1"] == pytest.approx(0.4)


def test_zero_mass_from_a_full_distribution_is_missing():
    assert reading_from_masses({"1": 0.0, "2": 0.0}, LABELS, absent_reason="none").missing


def test_other_label_sets_are_read_the_same_way():
    reading = reading_from_logprobs([("A", math.log(0.3)), (" B", math.log(0.1))], ("A", "B"), top_k=2)
    assert reading.probabilities == {"A": pytest.approx(0.75), "B": pytest.approx(0.25)}


def test_sampled_answers_give_frequencies_over_all_samples():
    counts = sample_counts(["1", "1", "2", None, "1"], LABELS)
    assert counts == {"1": 3, "2": 1, "other": 1}
    reading = reading_from_samples(counts, LABELS)
    assert reading.masses["1"] == pytest.approx(0.6)
    assert reading.retained_mass == pytest.approx(0.8)
    assert reading.probabilities["1"] == pytest.approx(0.75)


def test_samples_that_never_name_a_label_are_missing():
    reading = reading_from_samples({"1": 0, "2": 0, "other": 20}, LABELS)
    assert reading.missing and "20 sampled answers" in reading.missing_reason
