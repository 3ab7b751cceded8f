from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rankings import (
    OPTIONS,
    RankingError,
    borda_weights,
    borda_weights_from_indices,
    ranking_from_positions,
    ranking_indices,
    validate_ranking,
)

rankings = st.permutations(OPTIONS).map(tuple)


def test_validate_ranking_returns_a_tuple_of_letters():
    assert validate_ranking(["C", "B", "D", "A", "E"]) == ("C", "B", "D", "A", "E")


def test_validate_ranking_accepts_a_tuple():
    assert validate_ranking(("E", "D", "C", "B", "A")) == ("E", "D", "C", "B", "A")


def test_a_string_is_not_a_ranking():
    with pytest.raises(RankingError, match=r"must be a list of option letters, got str 'ABCDE'"):
        validate_ranking("ABCDE")


def test_a_dict_is_not_a_ranking():
    with pytest.raises(RankingError, match=r"got dict"):
        validate_ranking({"A": 1, "B": 2, "C": 3, "D": 4, "E": 5})


def test_none_is_not_a_ranking():
    with pytest.raises(RankingError, match=r"got NoneType None"):
        validate_ranking(None)


def test_four_items_are_too_few():
    with pytest.raises(RankingError, match=r"has 4 items; a ranking has exactly 5"):
        validate_ranking(["A", "B", "C", "D"])


def test_six_items_are_too_many():
    with pytest.raises(RankingError, match=r"has 6 items; a ranking has exactly 5"):
        validate_ranking(["A", "B", "C", "D", "E", "F"])


def test_an_unknown_letter_is_named():
    with pytest.raises(RankingError, match=r"unknown option 'F'"):
        validate_ranking(["A", "B", "C", "D", "F"])


def test_a_repeated_letter_is_named():
    with pytest.raises(RankingError, match=r"'A' appears more than once; missing 'E'"):
        validate_ranking(["A", "B", "C", "D", "A"])


def test_every_repeated_letter_is_named():
    with pytest.raises(RankingError, match=r"'A', 'B' appear more than once; missing 'D', 'E'"):
        validate_ranking(["A", "A", "B", "B", "C"])


def test_lowercase_letters_are_unknown_not_upper_cased():
    with pytest.raises(RankingError, match=r"unknown option 'a'"):
        validate_ranking(["a", "B", "C", "D", "E"])


def test_letters_with_whitespace_are_unknown_not_stripped():
    with pytest.raises(RankingError, match=r"unknown option ' A'"):
        validate_ranking([" A", "B", "C", "D", "E"])


def test_non_string_items_are_named():
    with pytest.raises(RankingError, match=r"must be option letters \(strings\), got int 1"):
        validate_ranking(["A", "B", "C", "D", 1])


def test_ranking_error_is_a_value_error():
    assert issubclass(RankingError, ValueError)


def test_borda_weights_are_in_option_order():
    # C first (5), B (4), D (3), A (2), E last (1); listed in the order A..E.
    assert borda_weights(["C", "B", "D", "A", "E"]).tolist() == [2, 4, 5, 3, 1]


def test_ranking_indices_list_option_indices_in_rank_order():
    indices = ranking_indices([("C", "B", "D", "A", "E"), ("A", "B", "C", "D", "E")])

    assert indices.tolist() == [[2, 1, 3, 0, 4], [0, 1, 2, 3, 4]]


def test_ranking_indices_name_the_bad_row():
    with pytest.raises(RankingError, match=r"ranking 1: unknown option 'Z'"):
        ranking_indices([("A", "B", "C", "D", "E"), ("A", "B", "C", "D", "Z")])


def test_ranking_indices_reject_a_single_string():
    with pytest.raises(RankingError, match=r"expected a sequence of rankings"):
        ranking_indices("ABCDE")


def test_index_arrays_with_a_repeat_are_rejected():
    with pytest.raises(RankingError, match=r"\[0, 1, 2, 3, 3\] at \(1,\) repeats an option"):
        ranking_indices(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 3]]))


def test_index_arrays_out_of_range_are_rejected():
    with pytest.raises(RankingError, match=r"\[5, 1, 2, 3, -1\] at \(0,\) has option indices outside 0..4"):
        ranking_indices(np.array([[5, 1, 2, 3, -1]]))


def test_float_index_arrays_are_rejected():
    with pytest.raises(RankingError, match=r"must be integers"):
        borda_weights_from_indices(np.array([[0.0, 1.0, 2.0, 3.0, 4.0]]))


@given(rankings)
def test_weights_from_indices_equal_weights_from_letters(ranking):
    indices = ranking_indices([ranking])

    assert borda_weights_from_indices(indices)[0].tolist() == borda_weights(ranking).tolist()


def test_masked_rows_get_zero_weights_and_are_not_checked():
    indices = np.array([[2, 1, 3, 0, 4], [9, 9, 9, 9, 9], [0, 0, 0, 0, 0]])

    weights = borda_weights_from_indices(indices, where=np.array([True, False, False]))

    assert weights.tolist() == [[2, 4, 5, 3, 1], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]


def test_unmasked_rows_are_still_checked():
    indices = np.array([[2, 1, 3, 0, 4], [0, 0, 1, 2, 3]])

    with pytest.raises(RankingError, match=r"\[0, 0, 1, 2, 3\] at \(1,\) repeats an option"):
        borda_weights_from_indices(indices, where=np.array([False, True]))


def test_positions_give_the_ranking_they_describe():
    assert ranking_from_positions({"A": "3", "B": "1", "C": "2", "D": "5", "E": "4"}) == ("B", "C", "A", "E", "D")


def test_two_responses_at_one_position_are_named():
    with pytest.raises(RankingError, match="B and D are both at position 2"):
        ranking_from_positions({"A": 1, "B": 2, "C": 3, "D": 2, "E": 5})


def test_a_missing_position_is_named():
    with pytest.raises(RankingError, match="no position given for C"):
        ranking_from_positions({"A": 1, "B": 2, "D": 4, "E": 5})


@pytest.mark.parametrize("raw", ["0", "6", "first", "2.5"])
def test_a_position_outside_one_to_five_is_refused(raw):
    with pytest.raises(RankingError, match="position of A must be"):
        ranking_from_positions({"A": raw, "B": 2, "C": 3, "D": 4, "E": 5})
