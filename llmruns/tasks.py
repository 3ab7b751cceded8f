"""Celery tasks of the run-suite: thin wrappers that take ids and call services.

Every task is idempotent: the suite and each item are claimed with conditional updates in PostgreSQL, so a
repeated or redelivered message does no harm. Late acknowledgement and rejection on a lost worker (settings)
keep a message until its task ended; a worker killed outright leaves it unacknowledged until Redis's visibility
timeout, so `resume_stalled_suites` (celery beat) queues silent suites again long before that. Time limits are
the global CELERY_TASK_SOFT_TIME_LIMIT / CELERY_TASK_TIME_LIMIT (sized in settings for LLM calls).
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from llmruns.services import suite_execute, suite_requeue, suites_stalled_resume

logger = logging.getLogger(__name__)


@shared_task
def suite_run(suite_id: int) -> str:
    """Execute (or resume) suite ``suite_id``; return its final status.

    At the soft time limit the suite is handed to a fresh task, so the limit bounds a task, not a suite.
    """
    try:
        return suite_execute(suite_id=suite_id).status
    except SoftTimeLimitExceeded:
        logger.warning("suite %s reached the task's soft time limit: continued in a new task", suite_id)
        suite_requeue(suite_id=suite_id)
        return "requeued"


@shared_task
def resume_stalled_suites() -> list[int]:
    """Queue again the suites whose worker vanished or whose message was lost (celery beat, every minute)."""
    return suites_stalled_resume()
