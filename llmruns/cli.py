"""What the run commands share: finding a model, running in the foreground with a progress bar, reporting a run.

Every run command (`run_instrument` and the shortcuts `run_suite`, `run_transitivity`) starts a run through
`llmruns.engine.run_start` and then either leaves it to a Celery worker (``--async``) or executes it here with a
tqdm bar on standard error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from llmruns.engine import run_cancel, run_execute, run_resume
from llmruns.models import LLMModel, Run, Trial
from llmruns.selectors import llm_model_get
from scoring.diagnostics import diagnostics_lines


def model_or_error(name: str) -> LLMModel:
    """The model whose slug (or display name) is ``name``; CommandError listing the known ones otherwise."""
    try:
        return llm_model_get(name=name)
    except LLMModel.DoesNotExist:
        known = ", ".join(LLMModel.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"no model {name!r}; known models: {known}") from None


def run_or_error(run_id: int, *, instrument: str | None = None) -> Run:
    runs = Run.objects.select_related("model")
    if instrument is not None:
        runs = runs.filter(instrument=instrument)
    run = runs.filter(pk=run_id).first()
    if run is None:
        raise CommandError(f"no {instrument + ' ' if instrument else ''}run {run_id}")
    return run


def run_in_foreground(run: Run, *, stream: Any, unit: str = "trial", postfix=None) -> Run:
    """Execute ``run`` here, drawing a progress bar of its stored trials on ``stream``; return the ended run.

    ``postfix(run)`` may return a dict shown beside the bar (e.g. the current means), refreshed after every batch.
    """
    stored = Trial.objects.filter(run=run, status=Trial.Status.DONE).count()
    with tqdm(total=run.trials_total or None, initial=stored, unit=unit, file=stream, dynamic_ncols=True) as bar:

        def update(current: Run, trial: Trial | None) -> None:
            bar.total = max(current.trials_total, bar.n)
            bar.n = current.trials_done
            if postfix is not None:
                bar.set_postfix(postfix(current), refresh=False)
            bar.refresh()

        return run_execute(run_id=run.pk, on_progress=update)


def run_line(run: Run) -> str:
    """One line saying how a run ended."""
    reason = f" ({run.stop_reason})" if run.stop_reason else ""
    return f"{run.instrument} run {run.pk}: {run.get_status_display()}{reason}. {run.stop_detail}".rstrip()


def diagnostics_write(command: BaseCommand, record: Mapping[str, Any] | None) -> None:
    """Write a diagnostics record's lines: each flag as a WARNING line, then the figures."""
    for line in diagnostics_lines(record):
        command.stdout.write(command.style.WARNING(line) if line.startswith("WARNING") else line)


def cancel_or_resume(run_id: int, *, resume: bool, cost_budget: float | None, instrument: str | None = None):
    """Cancel or resume a run for a command; CommandError when there is nothing to do."""
    run = run_or_error(run_id, instrument=instrument)
    done = run_resume(run=run, cost_budget=cost_budget) if resume else run_cancel(run=run)
    if not done:
        raise CommandError(f"run {run.pk} is {run.get_status_display().lower()}; nothing to do")
    return run
