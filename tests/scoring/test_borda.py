from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.borda import borda_alignment, borda_alignment_batch
from scoring.rankings import OPTIONS, RankingError, ranking_indices

rankings = st.permutations(OPTIONS).map(tuple)
D1_WISDOM_KEY = ("C", "B", "D", "A", "E")


def test_d1_wisdom_key_against_alphabetical_ranking_scores_65():
    # Key weights (A..E): A2 B4 C5 D3 E1; ranking A,B,C,D,E: A5 B4 C3 D2 E1.
    # A = 2·5 + 4·4 + 5·3 + 3·2 + 1·1 = 48, S = 100·(48 - 35)/20 = 65.
    assert borda_alignment(["A", "B", "C", "D", "E"], D1_WISDOM_KEY) == 65.0


def test_d1_wisdom_key_against_gpt_run_1_scores_95():
    # GPT run 1 ranked D1 C,B,A,D,E: A3 B4 C5 D2 E1 against key A2 B4 C5 D3 E1.
    # A = 3·2 + 4·4 + 5·5 + 2·3 + 1·1 = 54, S = 100·(54 - 35)/20 = 95.
    assert borda_alignment(["C", "B", "A", "D", "E"], D1_WISDOM_KEY) == 95.0


def test_exact_reverse_of_the_d1_wisdom_key_scores_0():
    assert borda_alignment(["E", "A", "D", "B", "C"], D1_WISDOM_KEY) == 0.0


@given(rankings)
def test_identical_ranking_scores_100(ranking):
    assert borda_alignment(ranking, ranking) == 100.0


@given(rankings)
def test_reverse_ranking_scores_0(ranking):
    assert borda_alignment(ranking, ranking[::-1]) == 0.0


@given(rankings, rankings)
def test_every_score_is_a_multiple_of_5_in_0_to_100(ranking, key):
    score = borda_alignment(ranking, key)

    assert 0.0 <= score <= 100.0
    assert score % 5 == 0


@given(rankings, rankings)
def test_score_is_symmetric_in_its_two_orderings(ranking, key):
    assert borda_alignment(ranking, key) == borda_alignment(key, ranking)


def test_an_invalid_key_raises_ranking_error():
    with pytest.raises(RankingError, match=r"'C' appears more than once"):
        borda_alignment(["A", "B", "C", "D", "E"], ["C", "C", "D", "A", "E"])


@given(st.lists(rankings, min_size=1, max_size=8), st.lists(rankings, min_size=1, max_size=4))
def test_batch_and_single_scores_agree(ranking_list, key_list):
    batch = borda_alignment_batch(ranking_indices(ranking_list), ranking_indices(key_list))

    expected = [[borda_alignment(r, k) for k in key_list] for r in ranking_list]
    assert batch.tolist() == expected


def test_batch_scores_every_ranking_against_every_key():
    batch = borda_alignment_batch(
        ranking_indices([("A", "B", "C", "D", "E"), ("C", "B", "A", "D", "E")]),
        ranking_indices([D1_WISDOM_KEY, ("A", "B", "C", "D", "E"), ("E", "D", "C", "B", "A")]),
    )

    # Row 2: C,B,A,D,E has weights A3 B4 C5 D2 E1; against A..E (A5 B4 C3 D2 E1)
    # A = 15 + 16 + 15 + 4 + 1 = 51 → 80; against E..A (A1 B2 C3 D4 E5) A = 39 → 20.
    assert batch.tolist() == [[65.0, 100.0, 0.0], [95.0, 80.0, 20.0]]


def test_batch_keeps_extra_leading_axes_of_the_rankings():
    stacked = np.zeros((4, 3, 5), dtype=int) + np.arange(5)

    assert borda_alignment_batch(stacked, ranking_indices([D1_WISDOM_KEY])).shape == (4, 3, 1)


def test_batch_rejects_a_ranking_row_that_is_not_a_permutation():
    with pytest.raises(RankingError, match=r"repeats an option"):
        borda_alignment_batch(np.array([[0, 0, 1, 2, 3]]), np.array([[0, 1, 2, 3, 4]]))
