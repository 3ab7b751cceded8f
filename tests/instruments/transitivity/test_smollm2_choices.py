"""End to end with the embedded SmolLM2-135M-Instruct: llama.cpp's full next-token distribution, no sampling.

One block in both presentation orders (42 prompts) → two vectors of 21 → WUM, HCM and G-RUM verdicts. The run
is the expensive part, so the end-to-end test checks the stored items along with the verdicts.
"""

from __future__ import annotations

import math

import pytest

from instruments.transitivity.models import TransitivityInstrument
from instruments.transitivity.prompts import choice_messages
from instruments.transitivity.selectors import run_results
from llmruns.backends import BackendConfig, backend_for
from llmruns.engine import run_execute, run_start
from llmruns.models import LLMModel, Run, Trial

pytestmark = [pytest.mark.django_db, pytest.mark.database_independent]


def _local_backend():
    return backend_for(BackendConfig(provider="local", model_id="smollm2-135m", temperature=1.0))


def test_one_block_in_both_orders_gives_two_vectors_with_verdicts(transitivity_instrument):
    model = LLMModel.objects.get(slug="smollm2-135m")
    run = run_start(instrument="transitivity", model=model, plan={"blocks": ["1"]}, enqueue=False)
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.FINISHED and run.trials_done == 42 and run.plan["method"] == "logprobs"
    results = run_results(run=run)
    assert [(v["block"], v["order"]) for v in results["vectors"]] == [(1, "original"), (1, "reversed")]
    for vector in results["vectors"]:
        assert len(vector["p"]) == 21 and all(0.0 < p < 1.0 for p in vector["p"])
        result = vector["result"]
        assert {type(result[name]) for name in ("wum", "hcm", "grum")} == {bool}
        assert not result["hcm"] or result["wum"]  # high certainty implies weak utility
        assert (result["copeland_order"] is None) == (not result["wum"])
    assert results["aggregate"]["of"] == [[1, "original"], [1, "reversed"]]

    trial = Trial.objects.get(run=run, item="1/A-Ce", presentation="reversed")
    attempt = trial.attempts.get()
    raw = attempt.raw
    assert raw["vocabulary_size"] > 40_000 and raw["temperature"] == 1.0
    assert raw["label_token_ids"]["1"] and raw["label_token_ids"]["2"]
    masses = trial.answer["label_masses"]
    assert trial.answer["retained_mass"] == pytest.approx(masses["1"] + masses["2"])
    # Reversed order: Situation 1 shows Ce, so P(A worse than Ce) is the share of label "2".
    assert trial.answer["p"] == pytest.approx(masses["2"] / trial.answer["retained_mass"])
    top = attempt.logprobs
    assert len(top) == 20 and top == sorted(top, key=lambda candidate: -candidate["logprob"])
    # The label mass sums every variant of the vocabulary, so it is at least any one listed variant.
    for candidate in top:
        if candidate["token"].strip() == "1":
            assert math.exp(candidate["logprob"]) <= masses["1"] * (1 + 1e-9)


def test_the_same_prompt_gives_the_same_distribution_whatever_came_before(transitivity_instrument):
    template = TransitivityInstrument.objects.get().prompt_template
    first = choice_messages(template=template, vignette_1="You see a man kick a dog.", vignette_2="You see a lie.")
    other = choice_messages(template=template, vignette_1="You see a lie.", vignette_2="You see a man kick a dog.")
    backend = _local_backend()
    before = backend.first_token(first, top_k=5, labels=("1", "2"))
    backend.first_token(other, top_k=5, labels=("1", "2"))
    after = backend.first_token(first, top_k=5, labels=("1", "2"))
    assert after.label_masses == before.label_masses and after.candidates == before.candidates
    assert 0.0 < before.label_masses["1"] + before.label_masses["2"] <= 1.0
