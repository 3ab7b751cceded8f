from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from llmruns.models import Run, Trial


def _run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("run_transitivity", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_runs_the_chosen_blocks_and_orders_and_prints_the_verdicts(choice_model):
    out, err = _run("--model", choice_model.slug, "--blocks", "3", "--orders", "reversed", "--seed", "5")
    run = Run.objects.get()
    assert (run.plan["blocks"], run.plan["orders"], run.seed) == ([3], ["reversed"], 5)
    assert run.status == Run.Status.FINISHED
    assert "21/21" in err  # the progress bar
    results = json.loads(out[out.index("{") :])
    assert [(v["block"], v["order"]) for v in results["vectors"]] == [(3, "reversed")]
    assert results["vectors"][0]["result"]["wum"] is True


def test_it_resumes_a_run_by_id_without_asking_stored_prompts_again(choice_model, choice_provider):
    _run("--model", choice_model.slug, "--blocks", "1", "--orders", "original")
    run = Run.objects.get()
    Trial.objects.filter(run=run, item__startswith="1/A-").update(status=Trial.Status.ERROR)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.FAILED)
    _run("--resume", str(run.pk))
    assert len(choice_provider.requests) == 21 + 6
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED and run.trials_done == 21


def test_it_queues_a_run_with_async(choice_model, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        out, _ = _run("--model", choice_model.slug, "--blocks", "2", "--async")
    assert "queued" in out and len(callbacks) == 1
    assert Run.objects.get().status == Run.Status.QUEUED


def test_it_names_the_known_models_for_an_unknown_one(choice_model):
    with pytest.raises(CommandError, match="fake/choices"):
        _run("--model", "nobody")


def test_it_refuses_to_resume_a_finished_run(choice_model):
    _run("--model", choice_model.slug, "--blocks", "1", "--orders", "original")
    with pytest.raises(CommandError, match="has finished"):
        _run("--resume", str(Run.objects.get().pk))


def test_it_refuses_an_unknown_block(choice_model):
    with pytest.raises(CommandError, match="unknown blocks: 9"):
        _run("--model", choice_model.slug, "--blocks", "9")
