from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from scoring.similarity import centered_cosine_similarity, nearest_profiles

VIRTUES = ("wisdom", "justice", "truthfulness", "courage", "temperance")

scores = st.floats(min_value=0, max_value=100, allow_nan=False, allow_subnormal=False)
profiles = st.fixed_dictionaries({virtue: scores for virtue in VIRTUES})
gappy_profiles = st.fixed_dictionaries({virtue: st.none() | scores for virtue in VIRTUES})


def _profile(*values):
    return dict(zip(VIRTUES, values, strict=False))


def test_orthogonal_centered_profiles_score_50():
    # Centered: (1,2,3) → (-1,0,1) and (3,0,3) → (1,-2,1); dot = -1 + 0 + 1 = 0, cos 0.
    assert centered_cosine_similarity(_profile(1, 2, 3), _profile(3, 0, 3)) == 50.0


def test_similarity_by_hand():
    # (1,2,3) → (-1,0,1); (2,4,7) → (-7/3, -1/3, 8/3); dot = 15/3 = 5;
    # |x| = √2, |y| = √114 / 3; cos = 15/√228 = 0.9933993; 100·(cos + 1)/2 = 99.669963.
    similarity = centered_cosine_similarity(_profile(1, 2, 3), _profile(2, 4, 7))

    assert similarity == pytest.approx(50 * (1 + 15 / math.sqrt(228)), abs=1e-12)


def test_mirrored_profiles_score_0():
    assert centered_cosine_similarity(_profile(90, 80, 70), _profile(70, 80, 90)) == pytest.approx(0, abs=1e-9)


def test_a_level_shift_does_not_change_similarity():
    similarity = centered_cosine_similarity(_profile(90, 80, 70, 60), _profile(40, 30, 20, 10))

    assert similarity == pytest.approx(100.0, abs=1e-9)


def test_a_virtue_missing_in_either_profile_is_dropped_from_both():
    with_gap = centered_cosine_similarity(_profile(1, 2, 3, None), _profile(2, 4, 7, 99))

    assert with_gap == centered_cosine_similarity(_profile(1, 2, 3), _profile(2, 4, 7))


def test_nan_counts_as_missing():
    with_nan = centered_cosine_similarity(_profile(1, 2, 3, math.nan), _profile(2, 4, 7, 99))

    assert with_nan == centered_cosine_similarity(_profile(1, 2, 3), _profile(2, 4, 7))


def test_fewer_than_two_shared_virtues_give_none():
    assert centered_cosine_similarity(_profile(80, None, 70), _profile(None, 60, 90)) is None


def test_a_flat_profile_gives_none():
    assert centered_cosine_similarity(_profile(80, 80, 80), _profile(70, 80, 90)) is None


def test_a_flat_profile_of_inexact_floats_gives_none():
    # The mean of (0.1, 0.1, 0.1) is 0.10000000000000002, not 0.1: centering would leave
    # a tiny non-zero vector with an arbitrary direction.
    assert centered_cosine_similarity(_profile(0.1, 0.1, 0.1), _profile(70, 80, 90)) is None


@given(profiles, profiles)
def test_similarity_lies_in_0_to_100_and_is_symmetric(a, b):
    similarity = centered_cosine_similarity(a, b)

    assert similarity == centered_cosine_similarity(b, a)
    assert similarity is None or 0.0 <= similarity <= 100.0


@given(profiles)
def test_identical_non_flat_profiles_score_100(a):
    assume(len(set(a.values())) > 1)

    assert centered_cosine_similarity(a, dict(a)) == pytest.approx(100.0, abs=1e-9)


def test_nearest_profiles_are_sorted_by_similarity_with_ties_by_name():
    candidates = {
        "zeta": _profile(10, 20, 30),
        "alpha": _profile(20, 40, 60),
        "mirror": _profile(30, 20, 10),
        "side": _profile(3, 0, 3),
    }

    nearest = nearest_profiles(_profile(1, 2, 3), candidates, k=4)

    assert [name for name, _ in nearest] == ["alpha", "zeta", "side", "mirror"]
    assert [similarity for _, similarity in nearest] == pytest.approx([100, 100, 50, 0], abs=1e-9)


def test_nearest_profiles_return_at_most_k():
    candidates = {f"m{i}": _profile(i, 2 * i, 0) for i in range(1, 6)}

    assert len(nearest_profiles(_profile(1, 2, 3), candidates, k=3)) == 3


def test_nearest_profiles_leave_out_undefined_similarities():
    candidates = {"flat": _profile(50, 50, 50), "gappy": _profile(None, None, 80), "ok": _profile(1, 2, 4)}

    assert [name for name, _ in nearest_profiles(_profile(1, 2, 3), candidates)] == ["ok"]


def test_nearest_profiles_of_no_candidates_are_empty():
    assert nearest_profiles(_profile(1, 2, 3), {}) == []


@given(gappy_profiles, st.dictionaries(st.text(min_size=1, max_size=5), gappy_profiles, max_size=6))
def test_nearest_profiles_agree_with_the_single_pair_function(person, candidates):
    nearest = dict(nearest_profiles(person, candidates, k=len(candidates)))

    for name, candidate in candidates.items():
        expected = centered_cosine_similarity(person, candidate)
        if expected is None:
            assert name not in nearest
        else:
            assert nearest[name] == pytest.approx(expected, abs=1e-9)


profiles = st.dictionaries(
    st.sampled_from(["wisdom", "justice", "truthfulness", "courage", "temperance"]),
    st.none() | st.floats(min_value=0, max_value=100),
    min_size=5,
    max_size=5,
)


@given(profiles, st.dictionaries(st.sampled_from(["m1", "m2", "m3", "m4"]), profiles, max_size=4))
def test_nearest_profiles_few_agrees_with_nearest_profiles(person, candidates):
    from scoring.similarity import nearest_profiles_few

    # k above the number of candidates: the same candidates, the same values to rounding.
    fast, reference = nearest_profiles_few(person, candidates, k=10), nearest_profiles(person, candidates, k=10)
    assert dict(fast) == pytest.approx(dict(reference), abs=1e-9)


@given(
    gappy_profiles | profiles, st.dictionaries(st.sampled_from(["m1", "m2", "m3", "m4"]), gappy_profiles, max_size=4)
)
def test_nearest_profiles_prepared_gives_exactly_what_nearest_profiles_few_gives(person, candidates):
    from scoring.similarity import nearest_profiles_few, nearest_profiles_prepared, prepared_profiles

    prepared = prepared_profiles(candidates, VIRTUES)
    assert nearest_profiles_prepared(person, prepared, k=10) == nearest_profiles_few(person, candidates, k=10)


def test_a_prepared_candidate_with_a_gap_is_compared_on_the_shared_virtues():
    from scoring.similarity import nearest_profiles_prepared, prepared_profiles

    person = _profile(90, 80, 70, 60, 50)
    prepared = prepared_profiles({"gappy": {**_profile(90, 80, 70, 60, 50), "temperance": None}}, VIRTUES)
    [(name, similarity)] = nearest_profiles_prepared(person, prepared)
    assert (name, similarity) == ("gappy", pytest.approx(100.0, abs=1e-9))
