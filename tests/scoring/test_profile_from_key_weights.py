from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.profiles import key_weight_arrays, virtue_profile, virtue_profile_from_key_weights
from scoring.rankings import OPTIONS, RankingError

VIRTUES = ("wisdom", "justice", "courage")
DILEMMAS = ("D1", "D2", "D3", "D4")
KEYS = {
    "D1": {"wisdom": ("C", "B", "D", "A", "E"), "justice": ("A", "B", "C", "D", "E")},
    "D2": {"wisdom": ("C", "B", "D", "A", "E")},
    "D3": {"justice": ("E", "D", "C", "B", "A"), "courage": ("B", "A", "C", "E", "D")},
}

answers = st.dictionaries(
    st.sampled_from([*DILEMMAS, "D9"]), st.none() | st.permutations(OPTIONS).map(tuple), max_size=5
)


def from_weights(rankings):
    return virtue_profile_from_key_weights(rankings, DILEMMAS, VIRTUES, *key_weight_arrays(KEYS, DILEMMAS, VIRTUES))


@given(answers)
def test_it_gives_exactly_what_virtue_profile_gives(rankings):
    assert from_weights(rankings) == virtue_profile(rankings, KEYS, VIRTUES)


def test_a_worked_case():
    # D1 A..E: wisdom vs C,B,D,A,E → A = 48 → 65, justice identical → 100; D3 skipped.
    profile = from_weights({"D1": ("A", "B", "C", "D", "E"), "D3": None})
    assert profile.scores == {"wisdom": 65.0, "justice": 100.0, "courage": None}
    assert profile.skipped == ("D3",)


def test_an_invalid_ranking_names_its_dilemma():
    with pytest.raises(RankingError, match="ranking for D2"):
        from_weights({"D2": ("A", "A", "B", "C", "D")})
