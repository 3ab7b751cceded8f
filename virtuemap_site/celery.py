"""Celery application; tasks are discovered in each app's `tasks.py`."""

from __future__ import annotations

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "virtuemap_site.settings")

app = Celery("virtuemap")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.worker_init.connect
def refuse_a_visibility_timeout_within_a_time_limit(**kwargs: object) -> None:
    """A worker does not start when Redis could redeliver a task that is still running (check llmruns.E001)."""
    from django.core.exceptions import ImproperlyConfigured

    from virtuemap_site.celery_checks import visibility_timeout_outlasts_tasks

    errors = visibility_timeout_outlasts_tasks()
    if errors:
        raise ImproperlyConfigured(f"{errors[0].msg} {errors[0].hint}")
