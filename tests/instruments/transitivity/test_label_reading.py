"""What the transitivity test reads beyond label probabilities: a sampled answer's label, the canonical direction."""

from __future__ import annotations

import pytest

from instruments.transitivity.parsing import label_of_answer, x_worse_probability


@pytest.mark.parametrize(
    ("answer", "label"),
    [("1", "1"), (" 2\n", "2"), ("Situation 1", "1"), ("2. Because", "2"), ("12", None), ("Neither", None), ("", None)],
)
def test_a_sampled_answer_names_its_label(answer, label):
    assert label_of_answer(answer) == label


def test_the_reversed_order_maps_back_to_the_canonical_pair():
    assert x_worse_probability(0.8, reversed_order=False) == 0.8
    assert x_worse_probability(0.8, reversed_order=True) == pytest.approx(0.2)
    assert x_worse_probability(None, reversed_order=True) is None
