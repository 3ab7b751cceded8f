from __future__ import annotations

import math

import pytest

from instruments.transitivity.selectors import model_results_get, run_results
from instruments.transitivity.testing import WRONGNESS, provider_model, shown_principles, situation_1_worse
from llmruns.engine import run_execute, run_start
from llmruns.testing import FakeProvider

CYCLE = {("A", "Ce"): 0.8, ("Ce", "Cp"): 0.8, ("A", "Cp"): 0.2}  # A worse than Ce worse than Cp worse than A


def _cyclic_in_the_original_order(body):
    """The logistic chooser, except a cycle on A, Ce, Cp when they are shown in the original order."""
    one, two = shown_principles(body)
    p = situation_1_worse(body)
    if (one, two) not in CYCLE:  # the reversed order shows (Ce, A) etc.
        return [("1", math.log(p)), ("2", math.log(1 - p))]
    return [("1", math.log(CYCLE[one, two])), ("2", math.log(1 - CYCLE[one, two]))]


def _run(model, **plan):
    return run_execute(run_id=run_start(instrument="transitivity", model=model, plan=plan, enqueue=False).pk)


def test_a_model_with_a_known_order_gets_its_ranking_and_verdicts(choice_model):
    run = _run(choice_model, blocks=["1", "6"])
    results = model_results_get(slug=choice_model.slug)
    assert results["run"]["id"] == run.pk and results["alternatives"] == ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]
    assert results["pairs"][:2] == [["A", "Ce"], ["A", "Cp"]] and len(results["pairs"]) == 21
    assert [(v["block"], v["order"]) for v in results["vectors"]] == [
        (1, "original"),
        (1, "reversed"),
        (6, "original"),
        (6, "reversed"),
    ]
    best_first = sorted(WRONGNESS, key=lambda code: -WRONGNESS[code])
    for vector in results["vectors"]:
        assert len(vector["p"]) == 21 and not vector["missing_pairs"]
        result = vector["result"]
        # Binary logit choices are a random utility model: WUM and G-RUM hold; no pair is 0.9-certain.
        assert (result["wum"], result["hcm"], result["grum"]) == (True, False, True)
        assert result["copeland_order"] == best_first and not result["violating_triads"]
        assert result["certificate"]["kind"] == "mixture"
    aggregate = results["aggregate"]
    assert len(aggregate["of"]) == 4 and len(aggregate["matching"]) == 4
    assert aggregate["p"][0] == pytest.approx(results["vectors"][0]["p"][0])
    assert results["presentation_order_effects"] == []


def test_a_cycle_in_one_order_shows_as_a_violating_triad_and_an_order_effect(transitivity_instrument):
    with FakeProvider(logprobs=_cyclic_in_the_original_order) as provider:
        model = provider_model(provider)
        run = _run(model, blocks=["2"])
    original, reversed_ = run_results(run=run)["vectors"]
    assert original["result"]["wum"] is False and original["result"]["copeland_order"] is None
    assert ["A", "Ce", "Cp"] in original["result"]["violating_triads"]
    assert original["result"]["grum"] is False and original["result"]["certificate"]["kind"] == "inequality"
    assert reversed_["result"]["wum"] is True
    effects = model_results_get(slug=model.slug)["presentation_order_effects"]
    assert effects == [{"block": 2, "changed": ["wum", "grum", "copeland_order"]}]


def test_a_model_without_a_finished_run_has_no_results(choice_model):
    run_start(instrument="transitivity", model=choice_model, plan={"blocks": ["1"]}, enqueue=False)
    assert model_results_get(slug=choice_model.slug) is None
