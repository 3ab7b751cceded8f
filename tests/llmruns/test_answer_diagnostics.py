"""Answer-quality diagnostics through the one engine: every instrument's results carry them, with their flags.

Three fake answerers: one that echoes the display order, one that always picks the option shown first, and one that
answers by content. The first two are flagged in every instrument with a presentation order; the third is not.
"""

from __future__ import annotations

import io
import json
import math
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from instruments.transitivity.testing import provider_model, scripted_logprobs, shown_principles
from llmruns.diagnostics import run_diagnostics
from llmruns.engine import run_execute, run_start
from llmruns.models import Result, Trial
from llmruns.results import result_publish
from llmruns.testing import FakeProvider
from tests.llmruns.runs import suite_run
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db

ECHO = json.dumps({"ranking": ["1", "2", "3", "4", "5"]})


def _shown_letters(body, letter_of_text) -> list[str]:
    """The option letters of a VirtueMap prompt in the order they were shown (labels 1…5)."""
    lines = re.findall(r"^([1-5])\. (.*)$", body["messages"][-1]["content"], re.MULTILINE)
    assert len(lines) == 5
    return [letter_of_text[text.strip()] for _, text in lines]


@pytest.fixture
def letter_of_text(instrument):
    from instruments.virtuemap.models import Option

    return {option.text.strip(): option.letter for option in Option.objects.all()}


def _by_content(letter_of_text):
    def answer(body):
        letters = _shown_letters(body, letter_of_text)
        ranking = [str(letters.index(letter) + 1) for letter in "ABCDE"]
        return json.dumps({"ranking": ranking})

    return answer


def _first_shown_first(body):
    # The first-shown response on top, the others in reverse display order.
    return json.dumps({"ranking": ["1", "5", "4", "3", "2"]})


def _codes(result: Result) -> list[str]:
    return [flag["code"] for flag in result.diagnostics["flags"]]


@pytest.mark.parametrize("answer", ["echo", "first"])
def test_a_virtuemap_result_that_follows_the_display_order_is_flagged(instrument, fake_model, fake_provider, answer):
    fake_provider.answer = (lambda body: ECHO) if answer == "echo" else _first_shown_first
    run = suite_run(fake_model, min_runs=3, max_runs=3, seed=4)

    result = result_publish(run=run)

    assert _codes(result) == ["position"]
    position = result.diagnostics["position"]
    assert position["first_shown_first"]["share"] == 1.0
    assert (position["display_order"]["count"] == 21) == (answer == "echo")


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_virtuemap_result_answering_by_content_is_not_flagged(
    instrument, fake_model, fake_provider, letter_of_text, seed
):
    fake_provider.answer = _by_content(letter_of_text)
    run = suite_run(fake_model, min_runs=3, max_runs=3, seed=seed)

    result = result_publish(run=run)

    assert result.diagnostics["flags"] == []
    assert result.diagnostics["answers"]["shares"]["valid"] == 1.0
    assert abs(result.diagnostics["position"]["mean_tau"]) < 0.5


def _transitivity_run(provider, **plan):
    model = provider_model(provider)
    run = run_start(instrument="transitivity", model=model, plan={"blocks": ["1"]} | plan, seed=1, enqueue=False)
    run_execute(run_id=run.pk)
    return Result.objects.get(model=model, instrument="transitivity")


def _always_first(body):
    return [(" 1", math.log(0.95)), ("2", math.log(0.04))]


def test_a_transitivity_result_that_always_picks_situation_1_is_flagged(transitivity_instrument):
    with FakeProvider(logprobs=_always_first) as provider:
        result = _transitivity_run(provider)

    assert _codes(result) == ["position"]
    assert result.diagnostics["position"]["first_shown"]["count"] == 42
    assert result.diagnostics["label_mass"]["mean"] == pytest.approx(0.99)


def test_a_transitivity_result_answering_by_content_is_not_flagged(transitivity_instrument):
    with FakeProvider(logprobs=scripted_logprobs) as provider:
        result = _transitivity_run(provider)

    assert _codes(result) == []
    assert result.diagnostics["position"]["first_shown"]["share"] == pytest.approx(0.5)


def test_a_transitivity_result_with_little_label_mass_is_flagged_with_its_mean(transitivity_instrument):
    def thin(body):
        one, two = shown_principles(body)
        p = 0.8 if one < two else 0.2
        return [("The", math.log(0.6)), (" 1", math.log(0.4 * p)), ("2", math.log(0.4 * (1 - p)))]

    with FakeProvider(logprobs=thin) as provider:
        result = _transitivity_run(provider)

    assert "label_mass" in _codes(result)
    assert result.diagnostics["label_mass"]["mean"] == pytest.approx(0.4)
    assert "40.0 %" in next(flag["reason"] for flag in result.diagnostics["flags"] if flag["code"] == "label_mass")


def test_unparseable_answers_above_the_threshold_are_flagged_and_re_asks_counted(instrument, fake_model, fake_provider):
    fake_provider.answer = lambda body: "I cannot rank these."
    run = suite_run(fake_model, min_runs=1, max_runs=1, max_attempts=2)

    record = run_diagnostics(run=run)

    assert record["answers"]["counts"]["refusal"] + record["answers"]["counts"]["unparseable"] == 7
    assert record["answers"]["reasked"] == {"count": 7, "share": 1.0}
    assert [flag["code"] for flag in record["flags"]] == ["refusals"]


def test_the_thresholds_are_settings(instrument, fake_model, fake_provider, settings):
    fake_provider.answer = _first_shown_first
    run = suite_run(fake_model, min_runs=1, max_runs=1, seed=2)
    settings.DIAGNOSTICS_ALPHA = 1e-9

    assert run_diagnostics(run=run)["flags"] == []
    assert run_diagnostics(run=run)["thresholds"]["alpha"] == 1e-9


# --- enough evidence to publish -------------------------------------------------------------------------------


def _two_valid_of_three(fake_model):
    run = suite_run(fake_model, min_runs=3, max_runs=3, seed=3)
    Trial.objects.filter(run=run, replicate=2, item="D1").update(answer_status="unparseable", answer=None)
    return run


def test_publishing_a_suite_with_two_valid_runs_of_three_is_refused_with_the_reason(instrument, fake_model):
    run = _two_valid_of_three(fake_model)

    with pytest.raises(ApplicationError, match="2 valid full run\\(s\\) of 3 attempted, fewer than its plan's minimum"):
        result_publish(run=run)
    assert not Result.objects.filter(run=run).exists()


def test_the_publish_command_refuses_it_too(instrument, fake_model):
    run = _two_valid_of_three(fake_model)

    with pytest.raises(CommandError, match="minimum of 3"):
        call_command("publish", str(run.pk), stdout=io.StringIO())


def test_a_result_records_valid_and_attempted_runs(instrument, fake_model):
    run = suite_run(fake_model, min_runs=2, max_runs=3, seed=3)
    Trial.objects.filter(run=run, replicate=2, item="D1").update(answer_status="unparseable", answer=None)

    result = result_publish(run=run)

    assert (result.summary["runs"], result.summary["attempted_runs"]) == (2, 3)
