"""The Celery promises: enqueue on commit, late acknowledgement, time limits inside Redis's visibility timeout."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from llmruns.engine import run_start
from llmruns.models import LLMModel, Run
from virtuemap_site.celery import app, refuse_a_visibility_timeout_within_a_time_limit
from virtuemap_site.celery_checks import longest_hard_time_limit, visibility_timeout_outlasts_tasks

ROOT = Path(__file__).resolve().parents[1]
APPS = ["surveys", "llmruns", "instruments", "virtuemap_site"]


def _with_redis(settings, **transport) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = settings.CELERY_BROKER_TRANSPORT_OPTIONS | transport


def test_the_default_visibility_timeout_outlasts_the_longest_hard_time_limit(settings):
    _with_redis(settings)
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] > longest_hard_time_limit()
    assert visibility_timeout_outlasts_tasks() == []


def test_a_visibility_timeout_shorter_than_a_hard_time_limit_fails_the_system_check(settings):
    _with_redis(settings, visibility_timeout=settings.CELERY_TASK_TIME_LIMIT)
    [error] = visibility_timeout_outlasts_tasks()
    assert error.id == "llmruns.E001"


def test_a_worker_refuses_to_start_with_such_a_visibility_timeout(settings):
    _with_redis(settings, visibility_timeout=60)
    with pytest.raises(ImproperlyConfigured, match="visibility timeout"):
        refuse_a_visibility_timeout_within_a_time_limit()


def test_the_time_limits_leave_room_for_a_slow_llm_request(settings):
    assert settings.CELERY_TASK_SOFT_TIME_LIMIT >= 3600
    assert settings.CELERY_TASK_TIME_LIMIT - settings.CELERY_TASK_SOFT_TIME_LIMIT > settings.LLMRUNS_REQUEST_TIMEOUT


@pytest.mark.parametrize("name", ["llmruns.tasks.run_task", "llmruns.tasks.resume_stalled_runs"])
def test_tasks_are_acknowledged_late_and_given_back_when_their_worker_dies(name):
    task = app.tasks[name]
    assert task.acks_late is True
    assert task.reject_on_worker_lost is True


def test_a_run_started_in_a_transaction_is_enqueued_only_at_commit(instrument, django_capture_on_commit_callbacks):
    model = LLMModel.objects.create(slug="fake/commit", name="Fake", base_url="http://127.0.0.1:9/v1", model_id="m")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = run_start(instrument="virtuemap", model=model, plan={"min_runs": 1, "max_runs": 1}, enqueue=True)
    assert len(callbacks) == 1
    assert Run.objects.get(pk=run.pk).status == Run.Status.QUEUED


def _enqueue_calls(tree: ast.AST) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"delay", "apply_async", "send_task"}
    ]


def _inside_on_commit(tree: ast.AST, call: ast.Call) -> bool:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "on_commit"
            and any(inner is call for arg in node.args for inner in ast.walk(arg))
        ):
            return True
    return False


def test_every_enqueue_in_the_application_code_waits_for_the_commit():
    offenders = []
    for app_name in APPS:
        for path in (ROOT / app_name).rglob("*.py"):
            tree = ast.parse(path.read_text())
            offenders += [
                f"{path.relative_to(ROOT)}:{call.lineno}"
                for call in _enqueue_calls(tree)
                if not _inside_on_commit(tree, call)
            ]
    assert offenders == [], "enqueue these with transaction.on_commit(lambda: task.delay(...))"
