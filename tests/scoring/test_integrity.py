"""Evidence integrity: each concern on a hand-made trail, and an honest-looking trail that raises none."""

from __future__ import annotations

import random

import pytest

from scoring.integrity import EvidenceItem, evidence_concerns, largest_window, reversed_pairs


def item(seconds=20.0, at=0.0, network=None, ordering="CBDAE", confirmed=True, suspicious=False) -> EvidenceItem:
    return EvidenceItem(seconds, at, network, ordering, confirmed, suspicious)


def honest(n: int = 101, seed: int = 1) -> list[EvidenceItem]:
    """People: 8–60 s an item, one every 1–3 minutes, each from a network of their own, a few varied corrections."""
    rng = random.Random(seed)
    corrections = ["BCDAE", "CBADE", "CDBAE", "CBDEA", "BCADE"]
    trail, at = [], 0.0
    for index in range(n):
        at += rng.uniform(60, 180)
        confirmed = index % 25 != 7
        ordering = "CBDAE" if confirmed else corrections[index % len(corrections)]
        trail.append(item(rng.uniform(8, 60), at, rng.randrange(65536), ordering, confirmed))
    return trail


def codes(concerns) -> set[str]:
    return {concern.code for concern in concerns}


def test_an_honest_trail_raises_no_concern():
    assert evidence_concerns(honest(), current_key="CBDAE", new_key="CBDEA") == ()


def test_answers_sooner_than_the_minimum_are_too_fast():
    trail = [item(seconds=0.2, at=index * 60) for index in range(30)] + honest(70)
    concern = evidence_concerns(trail)[0]
    assert concern.code == "fast" and concern.value == pytest.approx(30 / 100) and concern.limit == 0.2


def test_a_fifth_of_fast_answers_is_still_allowed():
    trail = [item(seconds=1.0, at=index * 600) for index in range(20)] + honest(80)
    assert "fast" not in codes(evidence_concerns(trail))


def test_more_than_half_arriving_within_two_minutes_is_a_burst():
    trail = [item(at=1000 + index) for index in range(60)] + honest(41)
    assert "burst" in codes(evidence_concerns(trail))


def test_many_answers_from_one_network_are_a_concern():
    trail = [item(network=7, at=index * 100) for index in range(25)] + honest(76)
    concern = next(c for c in evidence_concerns(trail) if c.code == "one_network")
    assert concern.value == pytest.approx(25 / 101)


def test_two_answers_from_one_network_are_nothing():
    trail = [item(network=7, at=0), item(network=7, at=500), item(network=8, at=900)]
    assert "one_network" not in codes(evidence_concerns(trail))


def test_identical_corrections_are_a_concern():
    trail = [item(ordering="EDCBA", confirmed=False, at=index * 300) for index in range(6)]
    assert codes(evidence_concerns(trail)) == {"identical_corrections"}


def test_varied_corrections_are_not():
    orderings = ["BCDAE", "CBADE", "CDBAE", "ABCDE", "CBDEA", "BCDAE"]
    trail = [item(ordering=o, confirmed=False, at=index * 300) for index, o in enumerate(orderings)]
    assert evidence_concerns(trail) == ()


def test_respondents_whose_consent_looked_automated_are_a_concern():
    trail = [item(suspicious=True, at=index * 300) for index in range(30)] + honest(71)
    assert codes(evidence_concerns(trail)) == {"suspicious"}


def test_many_failed_attention_checks_are_a_concern():
    assert codes(evidence_concerns(honest(20), failed_respondents=10)) == {"failed_checks"}
    assert evidence_concerns(honest(20), failed_respondents=2) == ()


def test_a_new_key_that_reverses_most_pairs_of_the_current_one_upends_it():
    concern = evidence_concerns(honest(), current_key="CBDAE", new_key="EADBC")[0]
    assert (concern.code, concern.value) == ("upends_key", 10)
    assert evidence_concerns(honest(), current_key="CBDAE", new_key="BCDEA") == ()


@pytest.mark.parametrize(
    ("first", "second", "expected"), [("ABCDE", "ABCDE", 0), ("ABCDE", "EDCBA", 10), ("AB", "BA", 1)]
)
def test_reversed_pairs_counts_discordant_pairs(first, second, expected):
    assert reversed_pairs(first, second) == expected


def test_the_largest_window_counts_the_busiest_span():
    assert largest_window([0, 10, 200, 201, 202, 500], 120) == 3
    assert largest_window([], 120) == 0
