"""Transitivity runs on the one engine: the paper's prompt, label probabilities or samples, missing choices, resume."""

from __future__ import annotations

import json
import math
import random
import uuid

import pytest
from django.db import IntegrityError
from django.utils import timezone

from instruments.transitivity.selectors import run_results
from instruments.transitivity.testing import (
    LABEL_MASS,
    expected_x_worse,
    provider_model,
    shown_principles,
    situation_1_worse,
)
from llmruns.engine import _Outcome, run_cancel, run_execute, run_resume, run_start, trial_store
from llmruns.models import Result, Run, Trial
from llmruns.tasks import run_task
from llmruns.testing import FakeProvider, Reply
from virtuemap_site.errors import ApplicationError


def _start(model, **plan) -> Run:
    return run_start(instrument="transitivity", model=model, plan=plan, seed=1, enqueue=False)


def _trial(run: Run, block: int, x: str, y: str, order: str = "original") -> Trial:
    return Trial.objects.get(run=run, item=f"{block}/{x}-{y}", presentation=order)


def test_a_full_run_has_one_trial_per_block_pair_and_order(choice_model):
    run = _start(choice_model)
    assert run.trials_total == 252 == Trial.objects.filter(run=run).count()
    assert Trial.objects.filter(run=run, item__startswith="3/", presentation="reversed").count() == 21


def test_the_same_prompt_cannot_be_stored_twice(choice_model):
    run = _start(choice_model, blocks=["1"], orders=["original"])
    trial = Trial.objects.filter(run=run).first()
    with pytest.raises(IntegrityError):
        Trial.objects.create(run=run, item=trial.item, presentation=trial.presentation, replicate=trial.replicate)


def test_it_asks_the_papers_prompt_at_temperature_one_for_one_token_with_top_logprobs(choice_model, choice_provider):
    run_execute(run_id=_start(choice_model, blocks=["2"], orders=["reversed"]).pk)
    body = choice_provider.requests[0]
    assert (body["temperature"], body["max_tokens"], body["logprobs"], body["top_logprobs"]) == (1.0, 1, True, 20)
    assert body["messages"][0]["content"].startswith("Each sentence contains a situation")
    assert len(body["messages"]) == 1


def test_probabilities_are_stored_in_the_canonical_direction_for_both_orders(choice_model):
    run = run_execute(run_id=_start(choice_model, blocks=["1"]).pk)
    assert run.status == Run.Status.FINISHED and run.trials_done == 42 and run.progress["missing"] == 0
    for trial in Trial.objects.filter(run=run):
        x, y = trial.item.split("/")[1].split("-")
        assert trial.answer["p"] == pytest.approx(expected_x_worse(x, y))
        assert trial.answer["retained_mass"] == pytest.approx(LABEL_MASS)
        assert trial.attempts.get().request["labels"] == ["1", "2"]


def test_every_top_k_token_and_the_raw_response_are_kept(choice_model):
    run = run_execute(run_id=_start(choice_model, blocks=["1"], orders=["original"]).pk)
    attempt = _trial(run, 1, "A", "Ce").attempts.get()
    assert [candidate["token"] for candidate in attempt.logprobs] == ["2", " 1", "The"]
    assert attempt.logprobs[2]["logprob"] == pytest.approx(math.log(0.1))
    assert attempt.raw["choices"][0]["logprobs"]["content"][0]["top_logprobs"][1]["token"] == " 1"
    assert _trial(run, 1, "A", "Ce").answer["label_masses"]["1"] == pytest.approx(
        LABEL_MASS * expected_x_worse("A", "Ce")
    )


def test_neither_label_in_the_top_k_stores_the_trial_as_missing(transitivity_instrument):
    def no_labels_for_sanctity(body):
        if "S" in shown_principles(body):
            return [("Situation", -0.2), ("The", -1.9)]
        return [("1", math.log(situation_1_worse(body))), ("2", math.log(1 - situation_1_worse(body)))]

    with FakeProvider(logprobs=no_labels_for_sanctity) as provider:
        model = provider_model(provider)
        run = run_execute(run_id=_start(model, blocks=["4"]).pk)
    assert run.status == Run.Status.FINISHED and run.progress["missing"] == 12
    trial = _trial(run, 4, "A", "S")
    assert trial.answer_status == "missing" and trial.answer["p"] is None and trial.status == Trial.Status.DONE
    assert 'neither "1" nor "2" among the top 20' in trial.answer_detail
    vectors = run_results(run=run)["vectors"]
    assert vectors[0]["p"][5] is None and ["A", "S"] in vectors[0]["missing_pairs"] and vectors[0]["result"] is None


def test_a_resumed_run_stores_every_prompt_exactly_once(choice_model, choice_provider):
    run = _start(choice_model, blocks=["5"])

    def cancel_after_ten(run, trial):
        if run.trials_done >= 10:
            run_cancel(run=run)

    run = run_execute(run_id=run.pk, on_progress=cancel_after_ten)
    assert run.status == Run.Status.CANCELLED
    stored_before = run.trials_done
    asked_before = len(choice_provider.requests)
    assert 10 <= stored_before < 42
    assert run_resume(run=run, enqueue=False)
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.FINISHED
    assert Trial.objects.filter(run=run).count() == 42 == run.trials_done
    assert len(choice_provider.requests) == 42 and asked_before == stored_before
    assert all(trial.attempt_count == 1 for trial in Trial.objects.filter(run=run))


def test_a_provider_error_fails_the_run_and_a_resume_asks_only_that_prompt_again(choice_model, choice_provider):
    choice_provider.queue(Reply(status=500))
    run = run_execute(run_id=_start(choice_model, blocks=["6"], orders=["original"]).pk)
    assert run.status == Run.Status.FAILED and run.trials_error == 1 and run.trials_done == 20
    assert "HTTP 500" in run.stop_detail
    run_resume(run=run, enqueue=False)
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.FINISHED and run.trials_done == 21
    assert len(choice_provider.requests) == 22
    retried = Trial.objects.get(run=run, attempts__status="provider_error")
    assert list(retried.attempts.values_list("status", flat=True)) == ["provider_error", "valid"]


def test_a_finished_run_stores_its_results_so_pages_never_solve_a_linear_program(choice_model):
    run = run_execute(run_id=_start(choice_model, blocks=["1"]).pk)

    result = Result.objects.get(model=choice_model, instrument="transitivity")
    assert result.run == run and result.source == Result.Source.RUN
    now = run_results(run=run)
    tested_now = {key: value for key, value in now.items() if key not in ("model", "run", "diagnostics")}
    assert result.summary == json.loads(json.dumps(tested_now))
    assert result.diagnostics == json.loads(json.dumps(now["diagnostics"]))
    assert [vector["result"]["wum"] for vector in result.summary["vectors"]] == [True, True]


def test_a_finished_run_does_not_resume(choice_model):
    run = run_execute(run_id=_start(choice_model, blocks=["1"]).pk)
    assert not run_resume(run=run, enqueue=False)


def test_the_celery_task_runs_a_queued_run(choice_model):
    run = _start(choice_model, blocks=["3"], orders=["original"])
    assert run_task.apply(args=[run.pk]).get() == Run.Status.FINISHED


def test_a_run_that_is_not_queued_is_left_alone(choice_model, choice_provider):
    run = _start(choice_model, blocks=["3"])
    run_cancel(run=run)
    assert run_execute(run_id=run.pk).status == Run.Status.CANCELLED
    assert not choice_provider.requests


def test_a_model_without_logprobs_is_measured_by_sampling(transitivity_instrument):
    def answer(body):
        # Situation 1 with its probability, drawn from the request's seed.
        return "1" if random.Random(body["seed"]).random() < situation_1_worse(body) else " 2"

    with FakeProvider(answer=answer) as provider:
        model = provider_model(provider, top_logprobs=0)
        run = _start(model, blocks=["1"], orders=["original"], samples=6)
        assert run.plan["method"] == "sampling"
        run = run_execute(run_id=run.pk)
        assert len(provider.requests) == 21 * 6 and not any(body.get("logprobs") for body in provider.requests)
        assert len({body["seed"] for body in provider.requests}) == 126
    trial = _trial(run, 1, "Cp", "Lo")
    assert trial.answer["counts"]["1"] + trial.answer["counts"]["2"] == 6
    assert trial.answer["p"] == pytest.approx(trial.answer["counts"]["1"] / 6)
    assert trial.attempts.count() == 6 and trial.attempts.first().raw_text in ("1", " 2")


def test_the_sample_count_defaults_to_the_setting(transitivity_instrument, choice_provider, settings):
    settings.TRANSITIVITY_SAMPLES = 7
    model = provider_model(choice_provider, top_logprobs=0)
    assert _start(model, blocks=["1"]).plan["samples"] == 7


def test_logprobs_cannot_be_asked_of_a_model_without_them(transitivity_instrument, choice_provider):
    model = provider_model(choice_provider, top_logprobs=0)
    with pytest.raises(ApplicationError, match="no log-probabilities"):
        _start(model, method="logprobs")


def test_unknown_blocks_and_orders_are_refused(choice_model):
    with pytest.raises(ApplicationError, match="unknown blocks: 7"):
        _start(choice_model, blocks=["1", "7"])
    with pytest.raises(ApplicationError, match="backwards is not one of original, reversed"):
        _start(choice_model, orders=["backwards"])
    assert not Run.objects.exists()


def test_a_run_interrupted_mid_prompt_resumes_and_a_late_answer_of_the_old_worker_is_discarded(
    choice_model, choice_provider
):
    run = _start(choice_model, blocks=["2"], orders=["original"])
    # A worker died while asking two prompts: the run and those trials are left RUNNING under its claims.
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
    stale = list(Trial.objects.filter(run=run)[:2])
    old_token = uuid.uuid4()
    Trial.objects.filter(pk__in=[trial.pk for trial in stale]).update(
        status=Trial.Status.RUNNING, claim_token=old_token, claimed_at=timezone.now()
    )
    assert run_resume(run=run, enqueue=False)
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.FINISHED and run.trials_done == 21 == len(choice_provider.requests)
    assert trial_store(trial_id=stale[0].pk, token=old_token, outcome=_Outcome([], error="late")) is None
    assert Trial.objects.get(pk=stale[0].pk).attempt_count == 1
