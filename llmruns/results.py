"""The one result store: publishing a run as its model's result, re-scoring results, and telling stale ones.

A `Result` holds an instrument's summary of a run and what it depended on besides the answers (for VirtueMap the
retained keys). When the instrument's current dependencies differ, the result is stale: the gallery and the API say
so until it is re-scored from the run's stored answers, which needs no new LLM call.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from instruments import registry
from llmruns.diagnostics import run_diagnostics
from llmruns.models import Result, Run
from llmruns.selectors import run_context, stored_trials
from virtuemap_site.errors import ApplicationError


def run_summary(*, run: Run) -> dict[str, Any]:
    """The instrument's summary of ``run`` from its stored trials, as it would be published now."""
    plugin = registry.instrument(run.instrument)
    return plugin.result_summary(run_context(run), stored_trials(run))


@transaction.atomic
def result_publish(*, run: Run) -> Result:
    """Make a finished run its model's result on the run's instrument and language (replacing the earlier one).

    Raises ApplicationError for a run that has not finished, or that its instrument refuses to publish (e.g. fewer
    valid runs than the plan's minimum), with the reason.
    """
    if not run.is_finished:
        raise ApplicationError(f"run {run.pk} is {run.get_status_display().lower()}; only finished runs publish")
    plugin = registry.instrument(run.instrument)
    context, trials = run_context(run), stored_trials(run)
    refusal = plugin.publishable(context, trials)
    if refusal:
        raise ApplicationError(f"run {run.pk} cannot be published: {refusal}")
    result, _ = Result.objects.update_or_create(
        model=run.model,
        instrument=run.instrument,
        language=run.language,
        defaults={
            "instrument_version": run.instrument_version,
            "source": Result.Source.IMPORT if run.status == Run.Status.IMPORTED else Result.Source.RUN,
            "run": run,
            "summary": plugin.result_summary(context, trials),
            "dependencies": plugin.result_dependencies(language=run.language),
            "diagnostics": run_diagnostics(run=run),
            "protocol": plugin.result_protocol(run.plan or {}),
            "scored_at": timezone.now(),
        },
    )
    return result


class CurrentDependencies:
    """Each instrument's current dependencies per result language, read once however many results are checked
    (pass one to `result_is_stale` for a whole page)."""

    def __init__(self) -> None:
        self._read: dict[tuple[str, str], dict[str, Any]] = {}

    def of(self, instrument: str, language: str) -> dict[str, Any]:
        key = (instrument, language)
        if key not in self._read:
            self._read[key] = registry.instrument(instrument).result_dependencies(language=language)
        return self._read[key]


def result_is_stale(result: Result, *, current: CurrentDependencies | None = None) -> bool:
    """True when the result was computed from other dependencies than its instrument's current ones in its
    language (a Chinese VirtueMap result goes stale when a Chinese key is retained, an English one does not).

    A result that records no dependencies (entered in admin) is never stale: nothing says what it rests on.
    """
    if not result.dependencies:
        return False
    return result.dependencies != (current or CurrentDependencies()).of(result.instrument, result.language)


@transaction.atomic
def result_rescore(*, result: Result) -> Result:
    """Recompute a result from its run's stored answers under the current dependencies (no LLM call).

    Raises ApplicationError for a result without a run (entered in admin), which has no answers to re-score.
    """
    if result.run is None:
        raise ApplicationError(f"the {result} has no run to re-score from (it was entered in admin)")
    plugin = registry.instrument(result.instrument)
    run = result.run
    result.summary = plugin.result_summary(run_context(run), stored_trials(run))
    result.dependencies = plugin.result_dependencies(language=result.language)
    result.diagnostics = run_diagnostics(run=run)
    result.scored_at = timezone.now()
    result.save(update_fields=["summary", "dependencies", "diagnostics", "scored_at", "published_at"])
    return result


def results_stale_rescore(*, instrument: str | None = None) -> list[Result]:
    """Re-score every stale result with a run, and every one published before results carried diagnostics (of one
    instrument, or all); return those re-scored."""
    results = Result.objects.select_related("model", "run").filter(run__isnull=False)
    if instrument is not None:
        results = results.filter(instrument=instrument)
    current = CurrentDependencies()
    return [
        result_rescore(result=result)
        for result in results
        if result_is_stale(result, current=current) or not result.diagnostics
    ]


@transaction.atomic
def published_rows_load() -> list[Result]:
    """Store every registered instrument's published rows (its papers' tables) as results of source PAPER, each on a
    model of its own ("paper/<instrument>/<row>", provider PAPER: known from the paper only, never run), so they sit
    beside the runs on every results page and are never averaged into them. Idempotent: a row already stored is
    rewritten with the same cells. Returns the results stored."""
    from llmruns.models import LLMModel

    stored = []
    for plugin in registry.instruments():
        for row in plugin.published_rows():
            model, _ = LLMModel.objects.update_or_create(
                slug=f"paper/{plugin.slug}/{row.key}",
                defaults={
                    "name": row.name,
                    "provider": LLMModel.Provider.PAPER,
                    "base_url": "",
                    "model_id": row.name,
                    "family": plugin.identity.name,
                },
            )
            result, _ = Result.objects.update_or_create(
                model=model,
                instrument=plugin.slug,
                language="en",
                defaults={
                    "instrument_version": "",
                    "source": Result.Source.PAPER,
                    "run": None,
                    "summary": dict(row.summary),
                    "dependencies": {},
                    "diagnostics": {},
                    "citation": row.citation,
                    "cell_notes": dict(row.cell_notes),
                    "protocol": row.protocol,
                },
            )
            stored.append(result)
    return stored
