"""AMAeval end to end with the embedded SmolLM2-135M-Instruct, as the model and as its own judge.

One rating per task and one scenario's generation chain with short replies, so the test stays a few minutes on a
CPU: what is checked is that every step reaches the model and is stored, not the (poor) figures of a 135M model.
"""

from __future__ import annotations

import pytest

from instruments.amaeval.items import read_label
from llmruns.engine import run_execute, run_start
from llmruns.models import Attempt, LLMModel, Result, Run, Trial

# Both parts with the model judging itself: about 100 s of one core (the embedded model's prompt cache restores the
# few-shot prefixes), so it runs in CI (docs/embedded-model.md).
pytestmark = [pytest.mark.django_db, pytest.mark.database_independent]


def test_smollm2_takes_both_parts_judged_by_itself(amaeval_instrument):
    model = LLMModel.objects.get(slug="smollm2-135m")
    plan = {"limit": 1, "scenarios": 1, "generation_tokens": 24, "judge_mode": "classifier", "replicates": 1}
    run = run_execute(run_id=run_start(instrument="amaeval", model=model, judge=model, plan=plan, enqueue=False).pk)

    assert run.status == Run.Status.FINISHED and run.trials_done == 3
    for trial in Trial.objects.filter(run=run, item__startswith="t"):
        attempt = trial.attempts.get()
        assert attempt.request["max_tokens"] == 10 and attempt.served_by.startswith("llama-cpp-python")
        label = read_label(attempt.raw_text, int(trial.item[1]), fidelity="corrected")
        assert trial.answer_status == ("unparseable" if label is None else "valid")
    chain = Trial.objects.get(run=run, item__startswith="gen/")
    steps = list(chain.attempts.order_by("number").values_list("step", flat=True))
    assert steps[:2] == ["actions", "consequences"] and sum("precept Care" in step for step in steps) >= 1
    judged = Attempt.objects.filter(trial=chain, judge=True)
    answer = chain.answer
    assert judged.count() == len(answer["judged"]["t1"]) + len(answer["judged"]["t2"]) == 5 + len(answer["evaluations"])
    summary = Result.objects.get(run=run).summary
    assert summary["dynamic"]["judge"] == "smollm2-135m"
    assert summary["dynamic"]["t1"]["n"] + summary["dynamic"]["t1"]["unjudged"] == 5
