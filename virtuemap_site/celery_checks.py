"""System checks of the Celery set-up that the run engine relies on (registered by the site's app config)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks


def longest_hard_time_limit() -> float | None:
    """The longest hard time limit of any registered task (the global one or a task's own); None if unlimited."""
    from celery import current_app as app
    from django.utils.module_loading import autodiscover_modules

    # The site's Celery app (virtuemap_site.celery) is the current one; taking it from Celery rather than importing
    # the site keeps llmruns below the site.
    autodiscover_modules("tasks")
    limits = [settings.CELERY_TASK_TIME_LIMIT]
    limits += [getattr(task, "time_limit", None) for name, task in app.tasks.items() if not name.startswith("celery.")]
    known = [limit for limit in limits if limit]
    # A task without any hard limit has none at all only if the global one is unset too.
    return max(known) if known and settings.CELERY_TASK_TIME_LIMIT else None


@checks.register(checks.Tags.compatibility)
def visibility_timeout_outlasts_tasks(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Redis redelivers an unacknowledged message after its visibility timeout; a task still running then would
    run twice. So the timeout must be longer than the longest hard time limit (and some limit must exist)."""
    if not settings.REDIS_URL:
        return []
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout", 3600)
    longest = longest_hard_time_limit()
    if longest is None:
        return [
            checks.Error(
                "Celery tasks have no hard time limit, so none is shorter than Redis's visibility timeout.",
                hint="Set CELERY_TASK_TIME_LIMIT.",
                id="llmruns.E001",
            )
        ]
    if visibility <= longest:
        return [
            checks.Error(
                f"Redis's visibility timeout ({visibility} s) is not longer than the longest hard time limit of a "
                f"task ({longest} s): a task still running would be delivered to a second worker.",
                hint="Raise CELERY_VISIBILITY_TIMEOUT or lower CELERY_TASK_TIME_LIMIT.",
                id="llmruns.E001",
            )
        ]
    return []
