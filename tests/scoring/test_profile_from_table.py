from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.profiles import (
    alignment_table,
    key_weight_arrays,
    virtue_profile,
    virtue_profile_from_key_weights,
    virtue_profile_from_table,
)
from scoring.rankings import OPTIONS, RankingError

VIRTUES = ("wisdom", "justice", "courage")
DILEMMAS = ("D1", "D2", "D3", "D4")
KEYS = {
    "D1": {"wisdom": ("C", "B", "D", "A", "E"), "justice": ("A", "B", "C", "D", "E")},
    "D2": {"wisdom": ("C", "B", "D", "A", "E")},
    "D3": {"justice": ("E", "D", "C", "B", "A"), "courage": ("B", "A", "C", "E", "D")},
}
ARRAYS = key_weight_arrays(KEYS, DILEMMAS, VIRTUES)
TABLE = alignment_table(DILEMMAS, VIRTUES, *ARRAYS)

answers = st.dictionaries(
    st.sampled_from([*DILEMMAS, "D9"]), st.none() | st.permutations(OPTIONS).map(list), max_size=5
)


@given(answers)
def test_it_gives_exactly_what_the_key_weights_and_virtue_profile_give(rankings):
    profile = virtue_profile_from_table(rankings, TABLE, VIRTUES)
    assert profile == virtue_profile_from_key_weights(rankings, DILEMMAS, VIRTUES, *ARRAYS)
    assert profile == virtue_profile(rankings, KEYS, VIRTUES)


def test_the_table_holds_every_permutation_of_every_dilemma():
    assert {dilemma: len(entries) for dilemma, entries in TABLE.items()} == dict.fromkeys(DILEMMAS, 120)
    assert TABLE["D1"][("A", "B", "C", "D", "E")] == {"wisdom": 65.0, "justice": 100.0}
    assert TABLE["D4"][("A", "B", "C", "D", "E")] == {}


def test_a_result_never_shares_a_row_of_the_table():
    profile = virtue_profile_from_table({"D1": ["A", "B", "C", "D", "E"]}, TABLE, VIRTUES)
    profile.per_dilemma["D1"]["wisdom"] = 0.0
    assert TABLE["D1"][("A", "B", "C", "D", "E")]["wisdom"] == 65.0


@pytest.mark.parametrize("ranking", [["A", "A", "B", "C", "D"], ["A", "B"], "ABCDE", [["A"], "B", "C", "D", "E"], 5])
def test_an_invalid_ranking_names_its_dilemma(ranking):
    with pytest.raises(RankingError, match="ranking for D2"):
        virtue_profile_from_table({"D2": ranking}, TABLE, VIRTUES)
