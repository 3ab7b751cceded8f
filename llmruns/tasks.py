"""Celery tasks of the run-suite: thin wrappers that take ids and call services.

Late acknowledgement (settings: CELERY_TASK_ACKS_LATE) means a worker killed mid-suite leaves the message
unacknowledged; the broker hands it to another worker after the visibility timeout, and `suite_execute`
resumes from the stored items.
"""

from __future__ import annotations

from celery import shared_task

from llmruns.services import suite_execute

# A suite of a slow model can take hours; the limits only stop a task that hangs.
SOFT_TIME_LIMIT = 6 * 3600
HARD_TIME_LIMIT = SOFT_TIME_LIMIT + 600


@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=SOFT_TIME_LIMIT, time_limit=HARD_TIME_LIMIT)
def suite_run(suite_id: int) -> str:
    """Execute (or resume) suite ``suite_id``; return its final status."""
    return suite_execute(suite_id=suite_id).status
