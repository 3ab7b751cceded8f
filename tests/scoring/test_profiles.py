from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.profiles import (
    key_weight_arrays,
    questionnaire_arrays,
    virtue_profile,
    virtue_profiles_batch,
)
from scoring.rankings import OPTIONS, RankingError

VIRTUES = ("wisdom", "justice", "courage")
# A small key set with gaps: D2 has no justice key, D3 no wisdom key, nobody a courage key.
KEYS = {
    "D1": {"wisdom": ("C", "B", "D", "A", "E"), "justice": ("A", "B", "C", "D", "E")},
    "D2": {"wisdom": ("C", "B", "D", "A", "E")},
    "D3": {"justice": ("A", "B", "C", "D", "E")},
}
ANSWERS = {"D1": ("A", "B", "C", "D", "E"), "D2": ("C", "B", "A", "D", "E"), "D3": None}

rankings = st.permutations(OPTIONS).map(tuple)


def test_profile_is_the_mean_over_answered_dilemmas_with_a_key():
    # wisdom: D1 A..E vs C,B,D,A,E → A = 48 → 65; D2 C,B,A,D,E vs the same key → 54 → 95.
    # P(wisdom) = (65 + 95) / 2 = 80. justice: only D1 (D3 skipped), identical → 100.
    profile = virtue_profile(ANSWERS, KEYS, VIRTUES)

    assert profile.scores == {"wisdom": 80.0, "justice": 100.0, "courage": None}


def test_per_dilemma_scores_cover_the_available_keys():
    profile = virtue_profile(ANSWERS, KEYS, VIRTUES)

    assert profile.per_dilemma == {"D1": {"wisdom": 65.0, "justice": 100.0}, "D2": {"wisdom": 95.0}}


def test_skipped_dilemmas_are_listed_and_not_scored():
    profile = virtue_profile(ANSWERS, KEYS, VIRTUES)

    assert profile.answered == ("D1", "D2")
    assert profile.skipped == ("D3",)
    assert "D3" not in profile.per_dilemma


def test_keys_used_lists_the_pairs_that_entered_a_score():
    profile = virtue_profile(ANSWERS, KEYS, VIRTUES)

    assert profile.keys_used == (("D1", "justice"), ("D1", "wisdom"), ("D2", "wisdom"))


def test_a_virtue_without_any_key_scores_none_not_zero():
    assert virtue_profile(ANSWERS, KEYS, VIRTUES).scores["courage"] is None


def test_a_virtue_whose_keyed_dilemmas_were_all_skipped_scores_none():
    profile = virtue_profile({"D1": None, "D2": None, "D3": ("A", "B", "C", "D", "E")}, KEYS, VIRTUES)

    assert profile.scores == {"wisdom": None, "justice": 100.0, "courage": None}


def test_all_skipped_gives_no_scores():
    profile = virtue_profile(dict.fromkeys(KEYS), KEYS, VIRTUES)

    assert profile.scores == {"wisdom": None, "justice": None, "courage": None}
    assert profile.answered == ()
    assert profile.keys_used == ()


def test_an_answered_dilemma_without_keys_contributes_nothing():
    profile = virtue_profile({"D9": ("E", "D", "C", "B", "A")}, KEYS, VIRTUES)

    assert profile.per_dilemma == {"D9": {}}
    assert profile.scores["wisdom"] is None


def test_scores_follow_the_order_of_the_virtues_argument():
    profile = virtue_profile(ANSWERS, KEYS, ("courage", "wisdom"))

    assert list(profile.scores) == ["courage", "wisdom"]


def test_an_invalid_ranking_names_its_dilemma():
    with pytest.raises(RankingError, match=r"ranking for D2: unknown option 'a'"):
        virtue_profile({"D2": ("a", "B", "C", "D", "E")}, KEYS, VIRTUES)


def test_an_invalid_key_names_its_dilemma_and_virtue():
    keys = {"D1": {"wisdom": ("C", "B", "D", "A")}}

    with pytest.raises(RankingError, match=r"key for D1 x wisdom: ranking has 4 items"):
        virtue_profile({"D1": ("A", "B", "C", "D", "E")}, keys, VIRTUES)


def test_batch_gives_nan_where_no_dilemma_is_usable():
    dilemmas = ("D1", "D2", "D3")
    answers, answered = questionnaire_arrays([ANSWERS], dilemmas)
    key_weights, key_present = key_weight_arrays(KEYS, dilemmas, VIRTUES)

    profiles = virtue_profiles_batch(answers, answered, key_weights, key_present)

    assert profiles[0, :2].tolist() == [80.0, 100.0]
    assert math.isnan(profiles[0, 2])


def test_batch_ignores_whatever_unanswered_rows_hold():
    dilemmas = ("D1", "D2", "D3")
    answers, answered = questionnaire_arrays([ANSWERS], dilemmas)
    answers[0, 2] = [9, 9, 9, 9, 9]  # D3 was skipped; its row is never read
    key_weights, key_present = key_weight_arrays(KEYS, dilemmas, VIRTUES)

    assert virtue_profiles_batch(answers, answered, key_weights, key_present)[0, 1] == 100.0


def test_batch_rejects_rankings_of_the_wrong_shape():
    key_weights, key_present = key_weight_arrays(KEYS, ("D1", "D2"), VIRTUES)

    with pytest.raises(ValueError, match=r"rankings must have shape \(1, 2, 5\)"):
        virtue_profiles_batch(np.zeros((1, 3, 5), dtype=int), np.ones((1, 2), bool), key_weights, key_present)


@st.composite
def questionnaires_and_keys(draw):
    dilemmas = [f"D{i}" for i in range(1, draw(st.integers(1, 7)) + 1)]
    keys = {dilemma: {virtue: draw(rankings) for virtue in VIRTUES if draw(st.booleans())} for dilemma in dilemmas}
    questionnaires = draw(
        st.lists(
            st.fixed_dictionaries({dilemma: st.none() | rankings for dilemma in dilemmas}),
            min_size=1,
            max_size=6,
        )
    )
    return dilemmas, keys, questionnaires


@given(questionnaires_and_keys())
def test_batch_and_single_profiles_agree(case):
    dilemmas, keys, questionnaires = case
    answers, answered = questionnaire_arrays(questionnaires, dilemmas)
    key_weights, key_present = key_weight_arrays(keys, dilemmas, VIRTUES)

    batch = virtue_profiles_batch(answers, answered, key_weights, key_present)

    for row, questionnaire in zip(batch, questionnaires, strict=True):
        single = virtue_profile(questionnaire, keys, VIRTUES).scores
        expected = [math.nan if single[v] is None else single[v] for v in VIRTUES]
        np.testing.assert_allclose(row, expected, rtol=0, atol=1e-9)
