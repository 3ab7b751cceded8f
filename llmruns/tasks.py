"""Celery tasks of the run engine: thin wrappers that take ids and call the engine.

Every task is idempotent: the run and each trial are claimed with conditional updates, so a repeated or redelivered
message does no harm. Late acknowledgement and rejection on a lost worker (settings) keep a message until its task
ended; a worker killed outright leaves it unacknowledged until Redis's visibility timeout, so `resume_stalled_runs`
(celery beat) queues silent runs again long before that. Time limits are the global CELERY_TASK_SOFT_TIME_LIMIT /
CELERY_TASK_TIME_LIMIT (sized in settings for LLM calls).
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from llmruns.engine import run_execute, run_requeue, runs_stalled_resume

logger = logging.getLogger(__name__)


@shared_task
def run_task(run_id: int) -> str:
    """Execute (or resume) run ``run_id`` of any instrument; return its final status.

    At the soft time limit the run is handed to a fresh task, so the limit bounds a task, not a run.
    """
    try:
        return run_execute(run_id=run_id).status
    except SoftTimeLimitExceeded:
        logger.warning("run %s reached the task's soft time limit: continued in a new task", run_id)
        run_requeue(run_id=run_id)
        return "requeued"


@shared_task
def resume_stalled_runs() -> list[int]:
    """Queue again the runs whose worker vanished or whose message was lost (celery beat, every minute)."""
    return runs_stalled_resume()
