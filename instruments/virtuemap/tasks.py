"""Celery tasks of the surveys app: thin wrappers over selectors and services."""

from __future__ import annotations

import logging

from celery import shared_task

from instruments.virtuemap.selectors import key_count_drift

logger = logging.getLogger(__name__)


@shared_task
def verify_key_counts() -> int:
    """Recount N and Y of every key candidate from its stored responses and log any drift (there must be
    none). Returns the number of drifting candidates; it does not repair them, so a drift stays visible."""
    drift = key_count_drift()
    for item in drift:
        logger.error(
            "key candidate %s: stored N, Y = %s but its responses give %s",
            item.candidate_id,
            item.stored,
            item.recounted,
        )
    if not drift:
        logger.info("key counts verified: no drift")
    return len(drift)
