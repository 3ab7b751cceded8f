"""The recipe of docs/adding-an-instrument.md, proven: a test-only instrument registered by a setting runs through
the one engine, publishes its result, and appears in the commands and the API without a line of platform code."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from llmruns.engine import run_execute, run_start
from llmruns.models import Attempt, Result, Run, Trial
from llmruns.results import result_publish
from llmruns.testing import Reply

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def toy_registered(settings):
    settings.INSTRUMENTS = settings.INSTRUMENTS | {"toy": "tests.instruments.toy.Toy"}


def _answer_yes_to_promises(body):
    return "Yes." if "promise" in body["messages"][0]["content"] else "No"


def test_a_toy_run_goes_through_the_engine_and_publishes_its_result(fake_model, fake_provider):
    fake_provider.answer = _answer_yes_to_promises
    fake_provider.queue(Reply(content="Maybe?"))  # the first reply is unusable: re-asked
    fake_model.concurrency = 1
    fake_model.save()

    run = run_execute(run_id=run_start(instrument="toy", model=fake_model, plan={"replicates": 2}, enqueue=False).pk)

    assert run.status == Run.Status.FINISHED and Trial.objects.filter(run=run).count() == 6
    first_reply = Attempt.objects.filter(trial__run=run).order_by("at", "pk").first()
    assert first_reply.status == "unparseable" and first_reply.trial.attempts.count() == 2
    result = result_publish(run=run)
    assert result.summary == {"share_yes": {"q1": 1.0, "q2": 0.0, "q3": 0.0}}
    assert Result.objects.get(instrument="toy").run == run


def test_the_toy_gets_a_command_with_its_plan_option_and_a_place_in_the_api(fake_model, fake_provider, client):
    fake_provider.answer = _answer_yes_to_promises
    out = io.StringIO()

    call_command(
        "run_instrument", "toy", "--model", fake_model.slug, "--replicates", "3", stdout=out, stderr=io.StringIO()
    )

    run = Run.objects.get(instrument="toy")
    assert run.plan == {"replicates": 3} and run.trials_done == 9
    assert json.loads(out.getvalue()[out.getvalue().index("{") :]) == {"share_yes": {"q1": 1.0, "q2": 0.0, "q3": 0.0}}
    listed = {entry["slug"]: entry for entry in client.get("/api/v1/instruments/").json()}
    assert listed["toy"]["plan_options"][0]["name"] == "replicates" and listed["toy"]["items_count"] == 3
    assert client.get("/api/v1/instruments/toy/").json()["items"][0]["text"].startswith("Is it wrong")
