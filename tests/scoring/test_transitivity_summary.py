"""The transitivity paper's summary statistics: from its own Extended Data Table 2 they give the figures its text
derives from that table, and hand-worked cases show each definition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.transitivity import ChoiceSetVerdict, transitivity_summary

TABLE = Path(__file__).resolve().parents[2] / "instruments" / "transitivity" / "fixtures" / "paper_ed_table2.json"
PRINCIPLES = ("A", "Ce", "Cp", "F", "Li", "Lo", "S")
ORDERS = ("1 vs. 2", "2 vs. 1")


def _paper_verdicts() -> list[ChoiceSetVerdict]:
    rows = json.loads(TABLE.read_text(encoding="utf-8"))["rows"]
    return [
        ChoiceSetVerdict(
            subject=row["llm"],
            block=row["block"],
            order=row["presentation_order"],
            wum=row["WUM"],
            hcm=row["HCM"],
            grum=row["G-RUM"],
            ranking=tuple(row["rank_ordering"]) if row["rank_ordering"] else None,
            triples=tuple(tuple(triple) for triple in row["wum_violating_triples"] or ()),
        )
        for row in rows
    ]


PAPER = transitivity_summary(_paper_verdicts(), PRINCIPLES, ORDERS)


def test_the_paper_table_gives_the_printed_adherence_36_8_and_13_of_60():
    assert PAPER.sets == 60
    assert {name: (share.count, share.of) for name, share in PAPER.adherence.items()} == {
        "wum": (36, 60),
        "hcm": (8, 60),
        "grum": (13, 60),
    }
    assert PAPER.adherence["wum"].share == pytest.approx(0.6)


def test_the_paper_table_puts_care_physical_in_the_top_two_of_28_of_36_rankings():
    assert PAPER.principles["Cp"].rankings == 36
    assert PAPER.principles["Cp"].top_two == 28


def test_the_paper_table_gives_a_and_loyalty_the_last_two_places_in_22_rankings_not_the_printed_20():
    assert PAPER.bottom_two_pairs[("A", "Lo")] == 22
    assert next(iter(PAPER.bottom_two_pairs)) == ("A", "Lo")  # the most frequent bottom pair
    assert (PAPER.principles["A"].bottom_two, PAPER.principles["Lo"].bottom_two) == (22, 28)


def test_the_paper_table_gives_the_printed_order_effects_8_5_and_26_of_30():
    effects = PAPER.order_effects
    assert (effects.pairs, effects.wum, effects.grum, effects.ranking_or_triples) == (30, 8, 5, 26)
    assert (effects.hcm, effects.any) == (6, 28)


def _set(block=1, order="1", wum=True, hcm=False, grum=True, ranking=("x", "y", "z"), triples=(), subject="m"):
    ranking = ranking if wum else None
    return ChoiceSetVerdict(subject, block, order, wum, hcm, grum, ranking, triples)


def test_the_same_cycle_written_from_another_principle_is_no_order_effect():
    one = _set(wum=False, grum=False, triples=(("y", "z", "x"),))
    two = _set(order="2", wum=False, grum=False, triples=(("x", "y", "z"),))
    reverse = _set(order="2", wum=False, grum=False, triples=(("x", "z", "y"),))

    assert transitivity_summary([one, two], ("x", "y", "z"), ("1", "2")).order_effects.ranking_or_triples == 0
    assert transitivity_summary([one, reverse], ("x", "y", "z"), ("1", "2")).order_effects.ranking_or_triples == 1


def test_a_changed_ranking_is_an_order_effect_and_a_block_seen_in_one_order_is_no_pair():
    summary = transitivity_summary(
        [_set(), _set(order="2", ranking=("y", "x", "z")), _set(block=2)], ("x", "y", "z"), ("1", "2")
    )
    assert summary.order_effects.pairs == 1 and summary.order_effects.ranking_or_triples == 1
    assert summary.principles["x"].top_two == 3 and summary.principles["z"].bottom_two == 3


def test_no_sets_give_no_shares():
    summary = transitivity_summary([], ("x", "y", "z"), ("1", "2"))
    assert summary.sets == 0 and summary.adherence["wum"].share is None
    assert summary.principles["x"].rankings == 0 and summary.order_effects.pairs == 0


def test_a_set_in_an_unknown_order_or_twice_in_one_order_is_refused():
    with pytest.raises(ValueError, match="unknown presentation order"):
        transitivity_summary([_set(order="3")], ("x", "y", "z"), ("1", "2"))
    with pytest.raises(ValueError, match="two verdicts"):
        transitivity_summary([_set(), _set()], ("x", "y", "z"), ("1", "2"))
