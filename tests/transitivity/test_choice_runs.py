from __future__ import annotations

import math
import random
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.utils import timezone

from llmruns.testing import FakeProvider, Reply
from transitivity.models import ChoiceItem, ChoiceRun, EstimationMethod
from transitivity.services import (
    choice_run_cancel,
    choice_run_execute,
    choice_run_resume,
    choice_run_start,
    transitivity_model_results,
)
from transitivity.tasks import choice_run_task
from transitivity.testing import LABEL_MASS, expected_x_worse, provider_model, shown_principles, situation_1_worse


def test_a_full_run_has_one_item_per_block_pair_and_order(choice_model):
    run = choice_run_start(model=choice_model, enqueue=False)
    assert run.items_total == 252 == ChoiceItem.objects.filter(run=run).count()
    assert ChoiceItem.objects.filter(run=run, block=3, order="reversed").count() == 21


def test_the_same_prompt_cannot_be_stored_twice(choice_model):
    run = choice_run_start(model=choice_model, blocks=[1], orders=["original"], enqueue=False)
    item = ChoiceItem.objects.filter(run=run).first()
    with pytest.raises(IntegrityError):
        ChoiceItem.objects.create(
            run=run,
            block=item.block,
            principle_x=item.principle_x,
            principle_y=item.principle_y,
            order=item.order,
            situation_1=item.situation_1,
            situation_2=item.situation_2,
            method=item.method,
        )


def test_it_asks_the_papers_prompt_at_temperature_one_for_one_token_with_top_logprobs(choice_model, choice_provider):
    run = choice_run_start(model=choice_model, blocks=[2], orders=["reversed"], enqueue=False)
    choice_run_execute(run_id=run.pk)
    body = choice_provider.requests[0]
    assert (body["temperature"], body["max_tokens"], body["logprobs"], body["top_logprobs"]) == (1.0, 1, True, 20)
    assert body["messages"][0]["content"].startswith("Each sentence contains a situation")
    assert len(body["messages"]) == 1


def test_probabilities_are_stored_in_the_canonical_direction_for_both_orders(choice_model):
    run = choice_run_start(model=choice_model, blocks=[1], enqueue=False)
    run = choice_run_execute(run_id=run.pk)
    assert run.status == ChoiceRun.Status.FINISHED and run.items_done == 42 and run.items_missing == 0
    for item in ChoiceItem.objects.filter(run=run):
        assert item.probability == pytest.approx(expected_x_worse(item.principle_x_id, item.principle_y_id))
        assert item.retained_mass == pytest.approx(LABEL_MASS)
        assert item.method == EstimationMethod.LOGPROBS


def test_every_top_k_token_and_the_raw_response_are_kept(choice_model):
    run = choice_run_start(model=choice_model, blocks=[1], orders=["original"], enqueue=False)
    choice_run_execute(run_id=run.pk)
    item = ChoiceItem.objects.filter(run=run, principle_x="A", principle_y="Ce").get()
    assert [candidate["token"] for candidate in item.top_logprobs] == ["2", " 1", "The"]
    assert item.top_logprobs[2]["logprob"] == pytest.approx(math.log(0.1))
    assert item.raw_response["choices"][0]["logprobs"]["content"][0]["top_logprobs"][1]["token"] == " 1"
    assert item.label_1_mass == pytest.approx(LABEL_MASS * expected_x_worse("A", "Ce"))


def test_neither_label_in_the_top_k_stores_the_item_as_missing(transitivity_instrument):
    def no_labels_for_sanctity(body):
        if "S" in shown_principles(body):
            return [("Situation", -0.2), ("The", -1.9)]
        return [("1", math.log(situation_1_worse(body))), ("2", math.log(1 - situation_1_worse(body)))]

    with FakeProvider(logprobs=no_labels_for_sanctity) as provider:
        model = provider_model(provider)
        run = choice_run_execute(run_id=choice_run_start(model=model, blocks=[4], enqueue=False).pk)
    assert run.status == ChoiceRun.Status.FINISHED and run.items_missing == 12
    item = ChoiceItem.objects.get(run=run, principle_x="A", principle_y="S", order="original")
    assert item.missing and item.probability is None and item.status == ChoiceItem.Status.DONE
    assert 'neither "1" nor "2" among the top 20' in item.missing_reason
    vectors = transitivity_model_results(run=run)["vectors"]
    assert vectors[0]["p"][5] is None and ["A", "S"] in vectors[0]["missing_pairs"] and vectors[0]["result"] is None


def test_a_resumed_run_stores_every_prompt_exactly_once(choice_model, choice_provider):
    run = choice_run_start(model=choice_model, blocks=[5], enqueue=False)

    def cancel_after_ten(run, item):
        if run.items_done >= 10:
            choice_run_cancel(run=run)

    run = choice_run_execute(run_id=run.pk, on_progress=cancel_after_ten)
    assert run.status == ChoiceRun.Status.CANCELLED
    stored_before = run.items_done
    asked_before = len(choice_provider.requests)
    assert 10 <= stored_before < 42
    assert choice_run_resume(run=run, enqueue=False)
    run = choice_run_execute(run_id=run.pk)
    assert run.status == ChoiceRun.Status.FINISHED
    assert ChoiceItem.objects.filter(run=run).count() == 42 == run.items_done
    assert len(choice_provider.requests) == 42 and asked_before == stored_before
    assert all(item.attempt_count == 1 for item in ChoiceItem.objects.filter(run=run))


def test_a_provider_error_fails_the_run_and_a_resume_asks_only_that_prompt_again(choice_model, choice_provider):
    choice_provider.queue(Reply(status=500))
    run = choice_run_start(model=choice_model, blocks=[6], orders=["original"], enqueue=False)
    run = choice_run_execute(run_id=run.pk)
    assert run.status == ChoiceRun.Status.FAILED and run.items_error == 1 and run.items_done == 20
    assert "HTTP 500" in run.stop_detail
    choice_run_resume(run=run, enqueue=False)
    run = choice_run_execute(run_id=run.pk)
    assert run.status == ChoiceRun.Status.FINISHED and run.items_done == 21
    assert len(choice_provider.requests) == 22
    retried = ChoiceItem.objects.get(run=run, attempt_count=2)
    assert retried.attempts[0]["error"] and retried.attempts[1]["error"] is None


def test_a_finished_run_does_not_resume(choice_model):
    run = choice_run_execute(run_id=choice_run_start(model=choice_model, blocks=[1], enqueue=False).pk)
    assert not choice_run_resume(run=run, enqueue=False)


def test_the_celery_task_runs_a_queued_run(choice_model):
    run = choice_run_start(model=choice_model, blocks=[3], orders=["original"], enqueue=False)
    assert choice_run_task.apply(args=[run.pk]).get() == ChoiceRun.Status.FINISHED


def test_a_task_at_its_soft_time_limit_hands_the_run_to_a_fresh_task(
    choice_model, monkeypatch, django_capture_on_commit_callbacks
):
    from celery.exceptions import SoftTimeLimitExceeded

    from transitivity import tasks

    run = choice_run_start(model=choice_model, blocks=[3], orders=["original"], enqueue=False)

    def hang(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(tasks, "choice_run_execute", hang)
    with django_capture_on_commit_callbacks() as callbacks:
        assert tasks.choice_run_task.run(run.pk) == "requeued"
    assert ChoiceRun.objects.get(pk=run.pk).status == ChoiceRun.Status.QUEUED
    assert len(callbacks) == 1


def test_a_run_that_is_not_queued_is_left_alone(choice_model, choice_provider):
    run = choice_run_start(model=choice_model, blocks=[3], enqueue=False)
    choice_run_cancel(run=run)
    assert choice_run_execute(run_id=run.pk).status == ChoiceRun.Status.CANCELLED
    assert not choice_provider.requests


def test_a_model_without_logprobs_is_measured_by_sampling(transitivity_instrument):
    def answer(body):
        # Situation 1 with its probability, drawn from the request's seed.
        return "1" if random.Random(body["seed"]).random() < situation_1_worse(body) else " 2"

    with FakeProvider(answer=answer) as provider:
        model = provider_model(provider, top_logprobs=0)
        run = choice_run_start(model=model, blocks=[1], orders=["original"], samples=6, enqueue=False)
        assert run.method == EstimationMethod.SAMPLING
        run = choice_run_execute(run_id=run.pk)
        assert len(provider.requests) == 21 * 6 and not any(body.get("logprobs") for body in provider.requests)
        assert len({body["seed"] for body in provider.requests}) == 126
    item = ChoiceItem.objects.get(run=run, principle_x="Cp", principle_y="Lo")
    assert item.method == EstimationMethod.SAMPLING and item.samples == 6
    assert item.sample_counts["1"] + item.sample_counts["2"] == 6
    assert item.probability == pytest.approx(item.sample_counts["1"] / 6)
    assert item.raw_response["answers"][0]["text"] in ("1", " 2")


def test_the_sample_count_defaults_to_the_setting(transitivity_instrument, choice_provider, settings):
    settings.TRANSITIVITY_SAMPLES = 7
    model = provider_model(choice_provider, top_logprobs=0)
    assert choice_run_start(model=model, blocks=[1], enqueue=False).samples == 7


def test_logprobs_cannot_be_asked_of_a_model_without_them(transitivity_instrument, choice_provider):
    model = provider_model(choice_provider, top_logprobs=0)
    with pytest.raises(ValidationError, match="no log-probabilities"):
        choice_run_start(model=model, method="logprobs", enqueue=False)


def test_unknown_blocks_and_orders_are_refused(choice_model):
    with pytest.raises(ValidationError, match="unknown blocks: 7"):
        choice_run_start(model=choice_model, blocks=[1, 7], enqueue=False)
    with pytest.raises(ValidationError, match="unknown orders"):
        choice_run_start(model=choice_model, orders=["backwards"], enqueue=False)
    assert not ChoiceRun.objects.exists()


def test_a_run_interrupted_mid_prompt_resumes_and_a_late_answer_of_the_old_worker_is_discarded(
    choice_model, choice_provider
):
    from transitivity.protocol import ChoiceOutcome
    from transitivity.services import choice_item_store

    run = choice_run_start(model=choice_model, blocks=[2], orders=["original"], enqueue=False)
    # A worker died while asking two prompts: the run and those items are left RUNNING under its claims.
    ChoiceRun.objects.filter(pk=run.pk).update(status=ChoiceRun.Status.RUNNING)
    stale = list(ChoiceItem.objects.filter(run=run)[:2])
    old_token = uuid.uuid4()
    ChoiceItem.objects.filter(pk__in=[item.pk for item in stale]).update(
        status=ChoiceItem.Status.RUNNING, claim_token=old_token, claimed_at=timezone.now()
    )
    assert choice_run_resume(run=run, enqueue=False)
    run = choice_run_execute(run_id=run.pk)
    assert run.status == ChoiceRun.Status.FINISHED and run.items_done == 21 == len(choice_provider.requests)
    late = ChoiceOutcome("logprobs", reading=None, error=None)
    assert choice_item_store(item_id=stale[0].pk, token=old_token, outcome=late) is None
    assert ChoiceItem.objects.get(pk=stale[0].pk).attempt_count == 1
