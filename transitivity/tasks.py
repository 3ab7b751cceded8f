"""Celery tasks of the transitivity instrument: thin wrappers that take ids and call services.

Late acknowledgement (settings: CELERY_TASK_ACKS_LATE) means a worker killed mid-run leaves the message
unacknowledged; the broker hands it to another worker, and `choice_run_execute` resumes from the stored items.
"""

from __future__ import annotations

from celery import shared_task

from transitivity.services import choice_run_execute

# 252 prompts (× n samples for the sampling method) of a slow model can take hours; the limits stop a hung task.
SOFT_TIME_LIMIT = 6 * 3600
HARD_TIME_LIMIT = SOFT_TIME_LIMIT + 600


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=SOFT_TIME_LIMIT, time_limit=HARD_TIME_LIMIT)
def choice_run_task(run_id: int) -> str:
    """Execute (or resume) transitivity run ``run_id``; return its final status."""
    return choice_run_execute(run_id=run_id).status
