"""The run-suite against a local scripted provider: the protocol, provider faults, stopping, pause and cancel."""

from __future__ import annotations

import json
import time

import pytest

from llmruns.models import ItemResponse, Suite
from llmruns.services import (
    suite_batch_prepare,
    suite_cancel,
    suite_execute,
    suite_item_execute,
    suite_resume,
    suite_start,
)
from llmruns.testing import Reply

pytestmark = pytest.mark.django_db


def _run(model, **options):
    suite = suite_start(model=model, enqueue=False, **({"min_runs": 1, "max_runs": 1, "seed": 1} | options))
    return suite_execute(suite_id=suite.pk)


def _single_item_model(fake_model):
    fake_model.concurrency = 1
    fake_model.save()
    return fake_model


def test_a_suite_stores_one_valid_item_per_run_and_dilemma(instrument, fake_model):
    suite = _run(fake_model, min_runs=3, max_runs=3)

    items = ItemResponse.objects.filter(run__suite=suite)
    assert items.count() == 21
    assert all(item.valid and item.status == ItemResponse.Status.DONE for item in items)
    assert suite.status == Suite.Status.FINISHED_AT_CAP


def test_a_stored_item_keeps_the_raw_text_the_ranking_and_the_provider(instrument, fake_model):
    suite = _run(fake_model)

    item = ItemResponse.objects.filter(run__suite=suite).first()
    assert item.attempts[0]["raw_text"].startswith('{"ranking":')
    assert item.canonical_ranking == "".join(item.display_to_option[label] for label in item.display_ranking)
    assert item.served_by == "FakeProvider"
    assert item.request_messages[0]["role"] == "user"


def test_a_429_with_retry_after_is_waited_for_and_consumes_no_attempt(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.queue(Reply(status=429, headers={"Retry-After": "1"}))
    started = time.monotonic()

    suite = _run(fake_model)

    first = ItemResponse.objects.get(run__suite=suite, dilemma_id="D1")
    assert time.monotonic() - started >= 1.0
    assert first.valid and first.attempt_count == 1
    assert first.attempts[0]["provider_retries"] == 1


def test_a_server_error_is_retried_and_consumes_no_attempt(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.queue(Reply(status=500), Reply(status=503))

    suite = _run(fake_model)

    first = ItemResponse.objects.get(run__suite=suite, dilemma_id="D1")
    assert first.valid and first.attempt_count == 1
    assert len(fake_provider.requests) == 7 + 2


def test_a_timeout_is_retried(instrument, fake_model, fake_provider, settings):
    settings.LLMRUNS_REQUEST_TIMEOUT = 0.5
    _single_item_model(fake_model)
    fake_provider.queue(Reply(delay=2.0))

    suite = _run(fake_model)

    first = ItemResponse.objects.get(run__suite=suite, dilemma_id="D1")
    assert first.valid and first.attempt_count == 1


def test_truncated_json_is_recorded_and_asked_again(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.queue(Reply(content='{"ranking":["2","1",', finish_reason="length"))

    suite = _run(fake_model)

    first = ItemResponse.objects.get(run__suite=suite, dilemma_id="D1")
    assert [attempt["status"] for attempt in first.attempts] == ["truncated", "valid"]
    assert first.attempts[0]["raw_text"] == '{"ranking":["2","1",'
    assert first.valid and first.attempt_count == 2


def test_a_ranking_with_a_repeat_is_corrected_by_a_follow_up(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.queue(Reply(content='{"ranking":["1","1","2","3","4"]}'))

    suite = _run(fake_model)

    first = ItemResponse.objects.get(run__suite=suite, dilemma_id="D1")
    follow_up = fake_provider.requests[1]["messages"]
    assert [attempt["status"] for attempt in first.attempts] == ["not_a_permutation", "valid"]
    assert follow_up[1] == {"role": "assistant", "content": '{"ranking":["1","1","2","3","4"]}'}
    assert "1 repeated" in follow_up[2]["content"]


def test_an_item_out_of_attempts_is_invalid_and_so_is_its_run(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.queue(*[Reply(content="I'm sorry, I cannot rank these.")] * 2)

    suite = _run(fake_model, max_attempts=2)

    first = ItemResponse.objects.get(run__suite=suite, dilemma_id="D1")
    assert not first.valid and first.attempt_count == 2
    assert [attempt["status"] for attempt in first.attempts] == ["refusal", "refusal"]
    assert suite.runs.get().valid is False
    assert suite.progress["failure_counts"] == {"refusal": 2}


def test_a_permanent_provider_error_fails_the_suite_with_its_reason(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.queue(Reply(status=401))

    suite = _run(fake_model)

    assert suite.status == Suite.Status.FAILED
    assert suite.stop_reason == "provider_error"
    assert "HTTP 401" in suite.stop_detail


def test_a_failed_suite_resumes_and_asks_only_the_failed_item_again(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.queue(Reply(status=401))
    suite = _run(fake_model)

    suite_resume(suite=suite, enqueue=False)
    suite = suite_execute(suite_id=suite.pk)

    assert suite.status == Suite.Status.FINISHED_AT_CAP
    assert ItemResponse.objects.filter(run__suite=suite, valid=True).count() == 7
    assert len(fake_provider.requests) == 1 + 7


def _alphabetical_answer(body):
    """Rank the responses by their text: the same canonical ranking whatever the permutation."""
    lines = [line for line in body["messages"][0]["content"].splitlines() if line[:2] in {"1.", "2.", "3.", "4.", "5."}]
    ranking = [line[0] for line in sorted(lines, key=lambda line: line[3:])]
    return json.dumps({"ranking": ranking})


def test_identical_answers_stop_the_suite_early_at_the_minimum(instrument, fake_model, fake_provider):
    fake_provider.answer = _alphabetical_answer
    suite = suite_start(model=fake_model, enqueue=False, seed=3, min_runs=3, max_runs=10)

    suite = suite_execute(suite_id=suite.pk)

    assert suite.status == Suite.Status.STOPPED_EARLY
    assert suite.runs.count() == 3
    assert suite.stop_reason == "ci_threshold"


def test_reaching_the_cost_budget_pauses_the_suite_with_its_reason(instrument, fake_model, fake_provider):
    _single_item_model(fake_model)
    fake_provider.cost = 0.01

    suite = _run(fake_model, cost_budget=0.025)

    assert suite.status == Suite.Status.PAUSED
    assert suite.stop_reason == "cost_budget"
    assert "budget" in suite.stop_detail
    # The third answer reaches the budget; the fourth was already asked (one in flight) and is kept.
    assert ItemResponse.objects.filter(run__suite=suite, status=ItemResponse.Status.DONE).count() == 4


def test_a_cancelled_suite_asks_nothing(instrument, fake_model, fake_provider):
    suite = suite_start(model=fake_model, enqueue=False)
    suite_cancel(suite=suite)

    suite = suite_execute(suite_id=suite.pk)

    assert suite.status == Suite.Status.CANCELLED
    assert fake_provider.requests == []


def test_the_same_seed_gives_the_same_permutations_and_rankings(instrument, fake_model):
    first = _run(fake_model, seed=42)
    second = _run(fake_model, seed=42)

    def stored(suite):
        return list(
            ItemResponse.objects.filter(run__suite=suite)
            .order_by("dilemma_id")
            .values_list("display_to_option", "canonical_ranking")
        )

    assert stored(first) == stored(second)


def test_a_single_item_executes_once_and_is_not_claimable_again(instrument, fake_model, fake_provider):
    suite = suite_start(model=fake_model, enqueue=False, min_runs=1, max_runs=1, seed=2)
    suite_batch_prepare(suite=suite)
    item = ItemResponse.objects.filter(run__suite=suite).first()

    stored = suite_item_execute(item_id=item.pk)

    assert stored.valid and stored.status == ItemResponse.Status.DONE
    assert suite_item_execute(item_id=item.pk) is None
    assert len(fake_provider.requests) == 1
