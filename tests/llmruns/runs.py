"""Starting and executing runs in tests: the engine's services with test defaults (no Celery, a fixed seed)."""

from __future__ import annotations

from typing import Any

from llmruns.engine import run_execute, run_start
from llmruns.models import LLMModel, Run, Trial


def suite_start(
    model: LLMModel, *, seed: int = 1, cost_budget: float | None = None, language: str = "en", **plan: Any
) -> Run:
    """A queued VirtueMap run (a run-suite) of ``model`` in ``language``; ``plan`` overrides the defaults of one run."""
    return run_start(
        instrument="virtuemap",
        model=model,
        plan={"min_runs": 1, "max_runs": 1} | plan,
        seed=seed,
        language=language,
        cost_budget=cost_budget,
        enqueue=False,
    )


def suite_run(model: LLMModel, **options: Any) -> Run:
    """A VirtueMap run of ``model`` started and executed here; returns the ended run."""
    return run_execute(run_id=suite_start(model, **options).pk)


def trial(run: Run, dilemma: str = "D1", replicate: int = 1) -> Trial:
    return Trial.objects.get(run=run, item=dilemma, replicate=replicate)


def statuses(trial: Trial) -> list[str]:
    """The status of every request of a trial, in order."""
    return list(trial.attempts.order_by("number").values_list("status", flat=True))
