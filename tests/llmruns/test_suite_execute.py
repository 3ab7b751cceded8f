"""VirtueMap runs on the engine against a local scripted provider: the protocol, provider faults, stopping, pause and
cancel."""

from __future__ import annotations

import json
import time

import pytest

from llmruns.engine import run_cancel, run_execute, run_resume, trial_execute
from llmruns.models import Run, Trial
from llmruns.testing import Reply
from tests.llmruns.runs import statuses, suite_run, suite_start, trial

pytestmark = pytest.mark.django_db


def _single_request_model(fake_model):
    fake_model.concurrency = 1
    fake_model.save()
    return fake_model


def test_a_suite_stores_one_valid_trial_per_run_and_dilemma(instrument, fake_model):
    run = suite_run(fake_model, min_runs=3, max_runs=3)

    trials = Trial.objects.filter(run=run)
    assert trials.count() == 21
    assert all(trial.valid and trial.status == Trial.Status.DONE for trial in trials)
    assert sorted(set(trials.values_list("replicate", flat=True))) == [1, 2, 3]
    assert run.status == Run.Status.FINISHED and run.stop_reason == "max_runs"


def test_a_stored_trial_keeps_the_raw_text_the_ranking_and_the_provider(instrument, fake_model):
    run = suite_run(fake_model)

    stored = trial(run)
    attempt = stored.attempts.get()
    display_to_option = stored.display["display_to_option"]
    assert attempt.raw_text.startswith('{"ranking":')
    assert attempt.messages == stored.messages and [m["role"] for m in stored.messages] == ["system", "user"]
    assert stored.answer["ranking"] == "".join(display_to_option[label] for label in stored.answer["display_ranking"])
    assert stored.served_by == "FakeProvider"


def test_a_429_with_retry_after_is_waited_for_and_consumes_no_attempt(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.queue(Reply(status=429, headers={"Retry-After": "1"}))
    started = time.monotonic()

    run = suite_run(fake_model)

    first = trial(run)
    assert time.monotonic() - started >= 1.0
    assert first.valid and first.attempt_count == 1
    assert first.attempts.get().provider_retries == 1


def test_a_server_error_is_retried_and_consumes_no_attempt(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.queue(Reply(status=500), Reply(status=503))

    run = suite_run(fake_model)

    first = trial(run)
    assert first.valid and first.attempt_count == 1
    assert len(fake_provider.requests) == 7 + 2


def test_a_timeout_is_retried(instrument, fake_model, fake_provider, settings):
    settings.LLMRUNS_REQUEST_TIMEOUT = 0.5
    _single_request_model(fake_model)
    fake_provider.queue(Reply(delay=2.0))

    run = suite_run(fake_model)

    first = trial(run)
    assert first.valid and first.attempt_count == 1


def test_truncated_json_is_recorded_and_asked_again(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.queue(Reply(content='{"ranking":["2","1",', finish_reason="length"))

    run = suite_run(fake_model)

    first = trial(run)
    assert statuses(first) == ["truncated", "valid"]
    assert first.attempts.order_by("number").first().raw_text == '{"ranking":["2","1",'
    assert first.valid and first.attempt_count == 2


def test_a_ranking_with_a_repeat_is_corrected_by_a_follow_up(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.queue(Reply(content='{"ranking":["1","1","2","3","4"]}'))

    run = suite_run(fake_model)

    first = trial(run)
    follow_up = fake_provider.requests[1]["messages"]
    assert statuses(first) == ["off_scale", "valid"]
    # The original suite's way: the first request again with its re-ask appended, the bad reply not sent back.
    assert follow_up[:2] == fake_provider.requests[0]["messages"]
    assert follow_up[2]["content"].startswith("Your previous answer was invalid.") and len(follow_up) == 3
    # Every request is stored with the conversation it sent.
    assert first.attempts.get(number=2).messages == follow_up


def test_a_trial_out_of_attempts_is_invalid_and_so_is_its_run(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.queue(*[Reply(content="I'm sorry, I cannot rank these.")] * 2)

    run = suite_run(fake_model, max_attempts=2)

    first = trial(run)
    assert not first.valid and first.attempt_count == 2 and first.answer_status == "refusal"
    assert statuses(first) == ["refusal", "refusal"]
    assert run.progress["runs"] == 0 and run.progress["attempted_runs"] == 1
    assert run.progress["failure_counts"] == {"refusal": 2}


def test_a_permanent_provider_error_fails_the_run_with_its_reason(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.queue(Reply(status=401))

    run = suite_run(fake_model)

    assert run.status == Run.Status.FAILED
    assert run.stop_reason == "provider_error"
    assert "HTTP 401" in run.stop_detail


def test_a_failed_run_resumes_and_asks_only_the_failed_trial_again(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.queue(Reply(status=401))
    run = suite_run(fake_model)

    run_resume(run=run, enqueue=False)
    run = run_execute(run_id=run.pk)

    assert run.status == Run.Status.FINISHED
    assert Trial.objects.filter(run=run, answer_status="valid").count() == 7
    assert len(fake_provider.requests) == 1 + 7
    # The failed request stays on record beside the answer that followed it.
    assert statuses(trial(run)) == ["provider_error", "valid"]


def _alphabetical_answer(body):
    """Rank the responses by their text: the same canonical ranking whatever the permutation."""
    lines = [
        line for line in body["messages"][-1]["content"].splitlines() if line[:2] in {"1.", "2.", "3.", "4.", "5."}
    ]
    ranking = [line[0] for line in sorted(lines, key=lambda line: line[3:])]
    return json.dumps({"ranking": ranking})


def test_identical_answers_stop_the_suite_early_at_the_minimum(instrument, fake_model, fake_provider):
    fake_provider.answer = _alphabetical_answer

    run = run_execute(run_id=suite_start(fake_model, seed=3, min_runs=3, max_runs=10).pk)

    assert run.status == Run.Status.FINISHED
    assert run.stop_reason == "ci_threshold"
    assert sorted(set(Trial.objects.filter(run=run).values_list("replicate", flat=True))) == [1, 2, 3]


def test_reaching_the_cost_budget_pauses_the_run_with_its_reason(instrument, fake_model, fake_provider):
    _single_request_model(fake_model)
    fake_provider.cost = 0.01

    run = suite_run(fake_model, cost_budget=0.025)

    assert run.status == Run.Status.PAUSED
    assert run.stop_reason == "cost_budget"
    assert "budget" in run.stop_detail
    # The third answer reaches the budget; the fourth was already asked (one in flight) and is kept.
    assert Trial.objects.filter(run=run, status=Trial.Status.DONE).count() == 4


def test_a_cancelled_run_asks_nothing(instrument, fake_model, fake_provider):
    run = suite_start(fake_model)
    run_cancel(run=run)

    run = run_execute(run_id=run.pk)

    assert run.status == Run.Status.CANCELLED
    assert fake_provider.requests == []


def test_the_same_seed_gives_the_same_permutations_and_rankings(instrument, fake_model):
    first = suite_run(fake_model, seed=42)
    second = suite_run(fake_model, seed=42)

    def stored(run):
        return [(t.display, t.answer) for t in Trial.objects.filter(run=run).order_by("item")]

    assert stored(first) == stored(second)


def test_the_first_batch_of_trials_is_created_with_the_run(instrument, fake_model):
    run = suite_start(fake_model, min_runs=3, max_runs=10)

    assert run.trials_total == 21 == Trial.objects.filter(run=run, status=Trial.Status.PENDING).count()


def test_a_single_trial_executes_once_and_is_not_claimable_again(instrument, fake_model, fake_provider):
    run = suite_start(fake_model, seed=2)

    stored = trial_execute(trial_id=trial(run).pk)

    assert stored.valid and stored.status == Trial.Status.DONE
    assert trial_execute(trial_id=stored.pk) is None
    assert len(fake_provider.requests) == 1
