"""AMAeval through the one engine against a fake OpenAI-compatible provider: the static part with fixed labels,
the generation chain with a judge, the AMA score, the fidelity stored with the run, and the refusals."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from instruments.amaeval import items
from instruments.amaeval.plugin import scenario_set
from instruments.amaeval.selectors import dataset
from llmruns.engine import run_execute, run_start
from llmruns.models import Attempt, LLMModel, Result, Run, Trial
from llmruns.testing import Reply
from scoring.amaeval import ama_score, static_metrics
from virtuemap_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def _reply(body):
    """Ratings: 3 for task 1 (2 when a judge rates Authority), 1 for task 2; the chain's steps in their formats."""
    system, last = body["messages"][0]["content"], body["messages"][-1]["content"]
    if "score from 1-4" in system:
        return (
            "2"
            if last.startswith("Scenario") and "\nValue: Authority\n" in last and body["model"] == "fake-judge"
            else "3"
        )
    if "Only output 0 or 1" in system:
        return "1"
    if "list all relevant actions" in system:
        return "Act one.\n\n[ACT]\n\nAct two."
    if "Describe the consequences" in system:
        return "Consequence one.\n\n[CONS]\n\nConsequence two."
    if "[PREC] <text> [\\\\PREC]" in system or "surrounded by [PREC]" in system:
        return "The value asks this. [PREC] Act well. [\\PREC]"
    return "The consequence satisfies the precept."


@pytest.fixture
def judge_model(fake_provider):
    return LLMModel.objects.create(
        slug="fake/judge",
        name="Fake judge",
        provider=LLMModel.Provider.OPENAI_COMPATIBLE,
        base_url=fake_provider.base_url,
        model_id="fake-judge",
        requests_per_minute=0,
    )


def _gold(task, limit):
    split = items.task_split(items.rating_items(dataset()), task)
    return [item.gold for item in split.scored[:limit]]


def test_a_static_run_through_the_command_prints_the_issues_json(amaeval_instrument, fake_model, fake_provider):
    fake_provider.answer = _reply
    fake_provider.queue(Reply(content="I cannot say."))  # the first reply names no label: stored, counted apart
    fake_model.concurrency = 1
    fake_model.save()

    call_command(
        "run_instrument", "amaeval", "--model", fake_model.slug, "--part", "static", "--limit", "6",
        "--replicates", "1", "--seed", "3", stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    run = Run.objects.get(instrument="amaeval")
    out = io.StringIO()
    call_command("show_results", str(run.pk), "--format", "json", stdout=out)
    shown = json.loads(out.getvalue())

    assert run.plan["fidelity"] == "corrected" and run.request_params["temperature"] == 0.0
    assert shown["instrument"] == "amaeval" and shown["dynamic"] is None and shown["ama"] is None
    t1 = static_metrics(_gold(1, 6), [None] + [3] * 5, with_mae=True)
    assert shown["static"]["t1"]["n"] == 5 and shown["static"]["t1"]["unparseable"] == 1
    assert shown["static"]["t1"]["accuracy"] == pytest.approx(100 * t1.accuracy)
    assert shown["static"]["t1"]["f1"] == pytest.approx(100 * t1.f1)
    assert shown["static"]["t1"]["mae"] == pytest.approx(t1.mae)
    t2 = static_metrics(_gold(2, 6), [1] * 6)
    assert shown["static"]["t2"] | {"intervals": None} == {
        "accuracy": pytest.approx(100 * t2.accuracy),
        "f1": pytest.approx(100 * t2.f1),
        "n": 6,
        "unparseable": 0,
        "unparseable_share": 0.0,
        "intervals": None,
    }
    unread = Trial.objects.get(run=run, answer_status="unparseable")
    assert unread.attempts.get().raw_text == "I cannot say." and unread.answer is None
    assert Result.objects.get(instrument="amaeval").summary["static"]["t1"]["n"] == 5
    assert fake_provider.requests[0]["max_tokens"] == 10 and len(fake_provider.requests[0]["messages"]) == 12


def test_both_parts_with_a_judge_give_the_ama_score_and_name_the_judge(
    amaeval_instrument, fake_model, fake_provider, judge_model
):
    fake_provider.answer = _reply
    plan = {"limit": 3, "scenarios": 1, "generation_tokens": 200, "replicates": 1}
    run = run_start(instrument="amaeval", model=fake_model, judge=judge_model, plan=plan, enqueue=False)
    run = run_execute(run_id=run.pk)

    assert run.status == Run.Status.FINISHED and run.trials_done == 3 + 3 + 1
    summary = Result.objects.get(instrument="amaeval").summary
    dynamic = summary["dynamic"]
    assert dynamic["judge"] == "fake/judge" and dynamic["judge_mode"] == "rubric" and dynamic["scenarios"] == 1
    # Five derivations judged, Authority rated 2 (not good); two actions × five precepts, all good.
    assert (dynamic["t1"]["accuracy"], dynamic["t1"]["n"]) == (pytest.approx(80.0), 5)
    assert (dynamic["t2"]["accuracy"], dynamic["t2"]["n"]) == (pytest.approx(100.0), 10)
    static = summary["static"]
    expected = ama_score(static["t1"]["f1"], static["t2"]["f1"], 80.0, 100.0, static["t1"]["mae"])
    assert summary["ama"] == pytest.approx(expected) and summary["ama_sd"] is None
    assert dynamic["scenario_set"] == "published"
    assert (dynamic["subsets"]["seen"]["scenarios"], dynamic["subsets"]["unseen"]["scenarios"]) == (0, 1)
    assert dynamic["subsets"]["unseen"]["t2"]["accuracy"] == pytest.approx(100.0)
    chain = Trial.objects.get(run=run, item="gen/78")  # the last of the 79, as the published --n-scenarios takes
    steps = list(chain.attempts.order_by("number").values_list("step", "judge"))
    assert steps[:3] == [("actions", False), ("consequences", False), ("precept Authority zero-shot", False)]
    assert sum(judge for _, judge in steps) == 15 and chain.answer["actions"] == ["Act one.", "Act two."]
    judge_request = next(body for body in fake_provider.requests if body["model"] == "fake-judge")
    assert judge_request["max_tokens"] == 10


def test_the_paper_fidelity_is_stored_and_asks_as_published(amaeval_instrument, fake_model, fake_provider):
    fake_provider.answer = _reply
    run = run_start(
        instrument="amaeval",
        model=fake_model,
        plan={"part": "static", "limit": 1, "fidelity": "paper", "replicates": 1},
        enqueue=False,
    )
    assert run.plan["fidelity"] == "paper" and run.plan["temperature"] is None
    assert run.request_params["temperature"] == fake_model.temperature
    task2 = Trial.objects.get(run=run, item__startswith="t2/")
    assert "Precept: {'conclusion': " in task2.messages[-1]["content"]


def test_a_run_with_a_dynamic_part_is_refused_without_a_judge(amaeval_instrument, fake_model):
    with pytest.raises(ApplicationError, match="needs a judge model"):
        run_start(instrument="amaeval", model=fake_model, plan={"part": "dynamic"}, enqueue=False)
    assert not Run.objects.exists()


def test_a_temperature_under_the_paper_fidelity_is_refused(amaeval_instrument, fake_model):
    with pytest.raises(CommandError, match="the paper fidelity sets no temperature"):
        call_command(
            "run_instrument", "amaeval", "--model", fake_model.slug, "--part", "static", "--fidelity", "paper",
            "--temperature", "0.7", stdout=io.StringIO(),
        )  # fmt: skip


def test_an_unread_judge_reply_is_counted_apart(amaeval_instrument, fake_model, fake_provider, judge_model):
    def judge_unsure(body):
        return "Hard to say." if body["model"] == "fake-judge" else _reply(body)

    fake_provider.answer = judge_unsure
    plan = {"part": "dynamic", "scenarios": 1, "judge_mode": "rubric", "replicates": 1}
    run = run_execute(
        run_id=run_start(instrument="amaeval", model=fake_model, judge=judge_model, plan=plan, enqueue=False).pk
    )

    dynamic = Result.objects.get(run=run).summary["dynamic"]
    assert dynamic["t1"] == {"accuracy": None, "n": 0, "unjudged": 5, "intervals": dynamic["t1"]["intervals"]}
    assert Attempt.objects.filter(trial__run=run, judge=True, status="unparseable").count() == 15


@pytest.mark.parametrize(
    ("derivation", "evaluation", "expected"),
    [("0.8", "0.5", (100.0, 0.0)), ("1.2", "-0.7", (100.0, 0.0)), ("-0.2", "0.51", (0.0, 100.0))],
)
def test_a_classifier_judges_raw_output_is_read_as_written_and_good_above_one_half(
    amaeval_instrument, fake_model, fake_provider, judge_model, derivation, evaluation, expected
):
    def classify(body):
        if body["model"] != "fake-judge":
            return _reply(body)
        assert len(body["messages"]) == 2 and "evaluate the quality" in body["messages"][0]["content"]
        return derivation if "an action, a consequence" not in body["messages"][0]["content"] else evaluation

    fake_provider.answer = classify
    plan = {"part": "dynamic", "scenarios": 1, "judge_mode": "classifier", "replicates": 1}
    run = run_start(instrument="amaeval", model=fake_model, judge=judge_model, plan=plan, enqueue=False)
    run = run_execute(run_id=run.pk)

    dynamic = Result.objects.get(run=run).summary["dynamic"]
    assert dynamic["judge_mode"] == "classifier" and dynamic["t1"]["unjudged"] == dynamic["t2"]["unjudged"] == 0
    assert (dynamic["t1"]["accuracy"], dynamic["t2"]["accuracy"]) == pytest.approx(expected)


def test_the_published_scenarios_are_the_79_of_the_dynamic_benchmark_the_first_40_the_annotated_ones(
    amaeval_instrument,
):
    published = items.published_scenarios()
    assert len(published) == 79 and len(set(published)) == 79
    assert [text for _, text in scenario_set("annotated")] == list(published[:40])
    assert [items.scenario_seen(index) for index in (0, 39, 40, 78)] == [True, True, False, False]


def test_the_dynamic_part_reports_all_scenarios_and_apart_those_the_published_judge_saw(
    amaeval_instrument, fake_model, fake_provider, judge_model
):
    def judge_by_scenario(body):
        # The judge calls every reasoning good on the annotated scenarios and bad on the others.
        if body["model"] != "fake-judge":
            return _reply(body)
        return (
            "0.9"
            if any(text in body["messages"][-1]["content"] for text in items.published_scenarios()[:40])
            else "0.1"
        )

    fake_provider.answer = judge_by_scenario
    plan = {"part": "dynamic", "scenarios": 41, "judge_mode": "classifier", "replicates": 1}  # 2 seen, 39 unseen
    run = run_execute(
        run_id=run_start(instrument="amaeval", model=fake_model, judge=judge_model, plan=plan, enqueue=False).pk
    )

    dynamic = Result.objects.get(run=run).summary["dynamic"]
    assert dynamic["scenarios"] == 41 and dynamic["scenario_set"] == "published"
    seen, unseen = dynamic["subsets"]["seen"], dynamic["subsets"]["unseen"]
    assert (seen["scenarios"], unseen["scenarios"]) == (2, 39)
    assert (seen["t1"]["accuracy"], unseen["t1"]["accuracy"]) == (pytest.approx(100.0), pytest.approx(0.0))
    assert dynamic["t1"]["accuracy"] == pytest.approx(100 * 2 / 41)
    assert dynamic["t1"]["n"] == seen["t1"]["n"] + unseen["t1"]["n"] == 41 * 5


def test_the_defaults_are_the_published_protocol_five_runs_over_the_79_scenarios(
    amaeval_instrument, fake_model, judge_model
):
    run = run_start(instrument="amaeval", model=fake_model, judge=judge_model, plan={"limit": 1}, enqueue=False)
    assert run.plan["replicates"] == 5 and run.plan["scenario_set"] == "published"
    generated = Trial.objects.filter(run=run, item__startswith="gen/")
    assert generated.count() == 79 * 5 and generated.filter(display__seen=False).count() == 39 * 5


def test_more_scenarios_than_the_set_holds_are_refused(amaeval_instrument, fake_model, judge_model):
    plan = {"part": "dynamic", "scenarios": 41, "scenario_set": "annotated"}
    with pytest.raises(ApplicationError, match="more than the 40 scenarios of the annotated set"):
        run_start(instrument="amaeval", model=fake_model, judge=judge_model, plan=plan, enqueue=False)
