"""Reads of the transitivity instrument: the alternatives, and models' results as the report pages show them.

A model's results are its stored `llmruns.models.Result` (written when a run finishes), so a page view never solves
a linear program; a run that has not finished can be tested on demand (`run_results`, used by `show_results`).
Every results record has the shape of `reports.subject_results` plus "model", "run" and "diagnostics" (the
answer-quality record of `scoring.diagnostics`, with its flags).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from instruments.transitivity.models import Principle
from llmruns.diagnostics import run_diagnostics
from llmruns.models import Result, Run
from llmruns.results import run_summary

INSTRUMENT = "transitivity"


def alternatives() -> tuple[str, ...]:
    """The principle codes in alternative order (`Principle.index`)."""
    return tuple(Principle.objects.order_by("index").values_list("code", flat=True))


def run_record(run: Run | None) -> dict[str, Any] | None:
    """What the reports say about the run a result comes from."""
    if run is None:
        return None
    plan = run.plan or {}
    progress = run.progress or {}
    return {
        "id": run.pk,
        "status": run.status,
        "method": plan.get("method"),
        "temperature": run.request_params.get("temperature"),
        "top_k": plan.get("top_k"),
        "samples": plan.get("samples"),
        "seed": run.seed,
        "items_total": run.trials_total,
        "items_done": run.trials_done,
        "items_missing": progress.get("missing", 0),
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }


def _results_record(result: Result) -> dict[str, Any]:
    return {
        "model": {"slug": result.model.slug, "name": result.model.name},
        "run": run_record(result.run),
        **result.summary,
        "diagnostics": result.diagnostics,
    }


def stored_results() -> QuerySet[Result]:
    return (
        Result.objects.filter(instrument=INSTRUMENT)
        .select_related("model", "run")
        .order_by("model__name", "model__slug")
    )


def models_with_results_count() -> int:
    return Result.objects.filter(instrument=INSTRUMENT).count()


def model_results_list() -> list[dict[str, Any]]:
    """The stored results of every model measured, by model name."""
    return [_results_record(result) for result in stored_results()]


def model_results_get(*, slug: str) -> dict[str, Any] | None:
    result = stored_results().filter(model__slug=slug).first()
    return _results_record(result) if result is not None else None


def run_results(*, run: Run) -> dict[str, Any]:
    """The results of any run (finished or not), tested now from its stored choices."""
    return {
        "model": {"slug": run.model.slug, "name": run.model.name},
        "run": run_record(run),
        **run_summary(run=run),
        "diagnostics": run_diagnostics(run=run),
    }


def summary_get(*, source: str = "runs", models: str | None = None) -> dict[str, Any]:
    """The paper's summary statistics (`instruments.transitivity.summary`) over ``source``: "runs" (the stored
    results of every model measured, or of the comma-separated model slugs ``models``) or "paper" (the paper's
    Extended Data Table 2). Raises ApplicationError for another source, models named with the paper's table, or a
    slug with no transitivity result (every one named)."""
    from django.utils.translation import gettext as _

    from instruments.transitivity import summary
    from virtuemap_site.errors import ApplicationError

    if source not in summary.SOURCES:
        raise ApplicationError(summary.source_error(source), {"field": "source", "allowed": list(summary.SOURCES)})
    if source == "paper":
        if models:
            raise ApplicationError(_("models applies to source=runs; the paper's table has its own five models"))
        return summary.paper_summary()
    results = model_results_list()
    if models is not None:
        slugs = list(dict.fromkeys(slug.strip() for slug in models.split(",") if slug.strip()))
        if not slugs or len(slugs) > summary.MAX_MODELS:
            raise ApplicationError(
                _("models must name 1 to %(most)s model slugs, separated by commas") % {"most": summary.MAX_MODELS}
            )
        by_slug = {result["model"]["slug"]: result for result in results}
        unknown = [slug for slug in slugs if slug not in by_slug]
        if unknown:
            raise ApplicationError(
                _("No transitivity result of: %(models)s") % {"models": ", ".join(unknown)}, {"unknown": unknown}
            )
        results = [by_slug[slug] for slug in slugs]
    return summary.runs_summary(alternatives(), results)
