from __future__ import annotations

import json

from instruments.virtuemap.prompts import (
    ALL_DISPLAY_RANKINGS,
    DISPLAY_LABELS,
    canonical_ranking,
    item_permutation,
    ranking_grammar,
    ranking_json_schema,
)


def test_a_permutation_maps_the_five_labels_onto_the_five_options():
    mapping = item_permutation(seed=7, run_index=1, dilemma_id="D1")

    assert tuple(mapping) == DISPLAY_LABELS
    assert sorted(mapping.values()) == ["A", "B", "C", "D", "E"]


def test_the_same_seed_run_and_dilemma_give_the_same_permutation():
    assert item_permutation(seed=7, run_index=2, dilemma_id="D3") == item_permutation(
        seed=7, run_index=2, dilemma_id="D3"
    )


def test_permutations_vary_across_runs_and_dilemmas():
    mappings = {
        tuple(item_permutation(seed=7, run_index=run, dilemma_id=dilemma).values())
        for run in range(1, 6)
        for dilemma in ("D1", "D2", "D3", "D4", "D5", "D6", "D7")
    }
    assert len(mappings) > 20


def test_a_display_ranking_maps_back_to_options():
    mapping = {"1": "E", "2": "A", "3": "D", "4": "B", "5": "C"}

    assert canonical_ranking(("5", "4", "2", "3", "1"), mapping) == ("C", "B", "A", "D", "E")


def test_the_constrained_schema_enumerates_the_120_rankings():
    schema = ranking_json_schema(constrain=True)

    assert len(schema["properties"]["ranking"]["enum"]) == 120 == len(set(ALL_DISPLAY_RANKINGS))


def test_the_grammar_has_one_alternative_per_ranking():
    grammar = ranking_grammar()

    assert grammar.count(" | ") == 119
    assert json.dumps('{"ranking":["5","4","3","2","1"]}') in grammar


def test_the_schema_and_grammar_take_the_protocols_letters():
    schema = ranking_json_schema(constrain=False, labels=("A", "B", "C", "D", "E"))

    assert schema["properties"]["ranking"]["items"]["enum"] == ["A", "B", "C", "D", "E"]
    assert json.dumps('{"ranking":["E","D","C","B","A"]}') in ranking_grammar(("A", "B", "C", "D", "E"))
