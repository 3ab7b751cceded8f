"""A respondent's results in words and next to the models' answers, arranged without a database."""

from __future__ import annotations

from instruments.transitivity.presenters import block_shares, pair_comparison, plain_summary, same_side
from instruments.transitivity.reports import subject_results

CODES = ["A", "Ce", "Cp"]
SITUATIONS = {code: {"name": f"name {code}", "text": f"text {code}"} for code in CODES}


def test_two_choice_shares_agree_only_when_both_decide_the_same_way():
    assert same_side(0.75, 1.0) is True and same_side(0.25, 0.9) is False
    assert same_side(0.5, 1.0) is None and same_side(None, 0.2) is None


def test_an_ordered_person_gets_their_situations_worst_first():
    # A worse than Ce, A worse than Cp, Ce worse than Cp, in both orders.
    results = subject_results(alternatives=CODES, vectors={(1, "original"): [1, 1, 1], (1, "reversed"): [1, 1, 1]})

    summary = plain_summary(results, situations=SITUATIONS)

    assert summary["one_order"] and [one["text"] for one in summary["ranking"]] == ["text A", "text Ce", "text Cp"]
    assert summary["cycles"] == [] and summary["clear"]


def test_a_cycle_in_one_order_only_is_named_with_its_order():
    # Original: A > Ce, Ce > Cp, Cp > A (a cycle); reversed: A > Ce > Cp. Together: A > Ce, Ce > Cp, A vs Cp at ½.
    results = subject_results(alternatives=CODES, vectors={(1, "original"): [1, 0, 1], (1, "reversed"): [1, 1, 1]})

    summary = plain_summary(results, situations=SITUATIONS)

    assert summary["one_order"]
    assert [[one["code"] for one in cycle] for cycle in summary["cycles"]] == [["A", "Ce", "Cp"]]
    assert summary["cycle_orders"] == ["original order"]


def test_no_words_before_a_choice_set_is_complete():
    results = subject_results(alternatives=CODES, vectors={(1, "original"): [1, None, 1]})

    assert plain_summary(results, situations=SITUATIONS) is None


def test_a_model_not_asked_the_persons_block_is_compared_on_the_same_pairs_of_principles_elsewhere():
    person = [1.0, 1.0, 0.0]
    asked = subject_results(alternatives=CODES, vectors={(2, "original"): [1, 1, 1], (2, "reversed"): [1, 0, 1]})
    elsewhere = subject_results(alternatives=CODES, vectors={(1, "original"): [0, 1, 1], (5, "original"): [0, 1, 0]})

    same, other = pair_comparison(person, [asked, elsewhere], block=2)

    assert block_shares(asked, {2}) == [1.0, 0.5, 1.0]
    assert (same["same_block"], same["blocks"], same["agreed"], same["decided"]) == (True, [2], 1, 2)
    assert (other["same_block"], other["blocks"], other["shares"]) == (False, [1, 5], [0.0, 1.0, 0.5])
    assert (other["agreed"], other["decided"]) == (1, 2)
