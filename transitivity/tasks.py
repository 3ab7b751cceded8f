"""Celery tasks of the transitivity instrument: thin wrappers that take ids and call services.

Late acknowledgement (settings: CELERY_TASK_ACKS_LATE) means a worker killed mid-run leaves the message
unacknowledged; the broker hands it to another worker, and `choice_run_execute` resumes from the stored items.
The task runs under the site's time limits (CELERY_TASK_SOFT_TIME_LIMIT / CELERY_TASK_TIME_LIMIT), which Redis's
visibility timeout outlasts (system check llmruns.E001).
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from transitivity.models import ChoiceRun
from transitivity.services import choice_run_execute, choice_run_resume

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def choice_run_task(run_id: int) -> str:
    """Execute (or resume) transitivity run ``run_id``; return its final status.

    252 prompts (× n samples when sampling) of a slow model can take hours: at the soft time limit the run is
    queued again from its stored items, so the limit bounds a task, not a run.
    """
    try:
        return choice_run_execute(run_id=run_id).status
    except SoftTimeLimitExceeded:
        logger.warning("transitivity run %s reached the task's soft time limit: continued in a new task", run_id)
        choice_run_resume(run=ChoiceRun.objects.get(pk=run_id))
        return "requeued"
