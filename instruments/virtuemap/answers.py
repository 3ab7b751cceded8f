"""A VirtueMap run's stored answers as the scorer reads them (plain data, no database): shared by the plug-in and the
selectors, which therefore need not import each other."""

from __future__ import annotations

from collections.abc import Sequence

from instruments.base import AnswerStatus, StoredTrial

SLUG = "virtuemap"


def run_items(trials: Sequence[StoredTrial]) -> dict[int, dict[str, tuple[str, ...] | None]]:
    """Run index → dilemma id → canonical ranking (None for a trial that ended without a valid one).

    Only finished trials appear: a pending, running or failed trial has no result yet, so it counts neither as an
    answer nor as an invalid one; every run that has a trial appears.
    """
    runs: dict[int, dict[str, tuple[str, ...] | None]] = {}
    for trial in trials:
        items = runs.setdefault(trial.replicate, {})
        if trial.done:
            valid = trial.answer_status == AnswerStatus.VALID and trial.answer
            items[trial.item] = tuple(trial.answer["ranking"]) if valid else None
    return runs
