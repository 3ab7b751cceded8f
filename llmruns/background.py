"""A background worker inside the process, for the embedded defaults.

Without Redis there is no Celery worker: tasks execute in the process that sends them (`CELERY_TASK_ALWAYS_EAGER`).
A run started from admin would then run inside the researcher's request, which waits until the whole run has ended
(over a minute on the embedded model). With `LLM_RUNS_IN_BACKGROUND` (on by default exactly when tasks execute
in-process), the engine hands the task to this one thread instead: the request returns at once and the run's page
shows its progress. Runs wait their turn here, one at a time, as they would for a single Celery worker. A run whose
process ends before it does stays "running" until it is resumed (admin's "Resume" action, or `run_instrument
--resume`), which continues it from its stored trials.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from django.db import connections

logger = logging.getLogger(__name__)

_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llm-runs")


def run_in_background(work: Callable[[], object]) -> Future:
    """Queue ``work`` on the process's background thread; its database connection is closed when it ends."""
    return _worker.submit(_work_then_close, work)


def _work_then_close(work: Callable[[], object]) -> None:
    try:
        work()
    except Exception:
        logger.exception("a run in the background thread ended with an error")
    finally:
        connections.close_all()
