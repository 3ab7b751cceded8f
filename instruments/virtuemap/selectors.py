"""Reads of VirtueMap's model side: run profiles from stored trials, the published profiles, the original records.

A model's profile on the VirtueMap instrument is its published `llmruns.models.Result` (instrument "virtuemap"); the
statistics of any run can be recomputed from its stored trials and the current retained keys (`run_profile`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.db.models import Max, QuerySet

from instruments.virtuemap.plugin import VirtueMap, run_items
from llmruns.models import AgentNote, LLMModel, Result, Run, Trial
from llmruns.selectors import result_list, run_latest, stored_trials
from scoring.stats import Quantile
from scoring.suite import SuiteProfile, suite_profile
from surveys.selectors import dilemma_id_list, retained_key_map, virtue_list
from virtuemap_site.snapshots import CachedSnapshot

INSTRUMENT = VirtueMap.identity.slug


def run_profile(*, run: Run, quantile: Quantile = "exact") -> SuiteProfile:
    """The run's statistics from its stored trials and the current retained keys."""
    virtues = tuple(virtue_list().values_list("id", flat=True))
    return suite_profile(
        run_items(stored_trials(run)), retained_key_map(), virtues, tuple(dilemma_id_list()), quantile=quantile
    )


def models_with_runs() -> QuerySet[LLMModel]:
    return LLMModel.objects.filter(runs__instrument=INSTRUMENT, runs__trials_done__gt=0).distinct().order_by("name")


def model_profile_records(*, quantile: Quantile = "exact") -> list[dict[str, Any]]:
    """Return, per model with stored runs, its profile in the field names of ``reference_profiles_sample.json``.

    The run is the one the model's published profile comes from, else its latest run with a stored trial.
    """
    records = []
    for model in models_with_runs():
        run = run_latest(model=model, instrument=INSTRUMENT)
        if run is not None:
            record = run_profile(run=run, quantile=quantile).record()
            records.append({"name": model.name, "slug": model.slug, **record})
    return records


def run_records_export(*, runs: Iterable[Run] | None = None) -> Iterator[dict[str, Any]]:
    """Yield the raw records of the original VirtueMap run-suite, in timestamp order.

    One record per finished trial (model × run × dilemma) with the original's field names, and the agent notes.
    ``raw_text`` is the last answer received; ``attempts`` the number of answers.
    """
    trials = (
        Trial.objects.filter(run__instrument=INSTRUMENT, status=Trial.Status.DONE)
        .select_related("run__model")
        .prefetch_related("attempts")
    )
    if runs is not None:
        trials = trials.filter(run__in=list(runs))
    records: list[dict[str, Any]] = [
        {"timestamp": note.timestamp, "record_type": "agent_note", "message": note.message}
        for note in AgentNote.objects.all()
    ]
    for trial in trials:
        run = trial.run
        answers = [attempt for attempt in trial.attempts.all() if attempt.counts_as_answer]
        display_to_option = trial.display["display_to_option"]
        valid = trial.valid
        records.append(
            {
                "timestamp": trial.completed_at,
                "model_name": run.model.name,
                "model_slug": run.model.slug,
                "run_id": trial.replicate,
                "dilemma_id": trial.item,
                "temperature": run.request_params.get("temperature"),
                "display_position_to_canonical": display_to_option,
                "canonical_to_display_position": {option: label for label, option in display_to_option.items()},
                "attempts": trial.attempt_count,
                "raw_text": answers[-1].raw_text if answers else "",
                "display_ranking": trial.answer["display_ranking"] if valid else None,
                "canonical_ranking": list(trial.answer["ranking"]) if valid else None,
                "valid": valid,
            }
        )
    records.sort(key=lambda record: record["timestamp"])
    for record in records:
        record["timestamp"] = record["timestamp"].isoformat(timespec="microseconds")
        yield record


# --- published profiles ---------------------------------------------------------------------------------------


def published_profile_list() -> QuerySet[Result]:
    """Every published profile with its model, by model name. A model is published once it has a profile."""
    return result_list(instrument=INSTRUMENT)


def published_profile_get(*, slug: str) -> Result | None:
    return published_profile_list().filter(model__slug=slug).first()


def profile_scores(result: Result) -> dict[str, float | None]:
    """Virtue id → mean score of a published profile (None where it has no value for that virtue)."""
    return {virtue: (stats or {}).get("mean") for virtue, stats in (result.summary.get("profile_stats") or {}).items()}


PUBLISHED_PROFILE_SCORES = CachedSnapshot("llmruns:published-profile-scores")


def published_profile_scores() -> dict[str, tuple[str, dict[str, float | None]]]:
    """Model slug → (display name, virtue id → mean score) for every published profile, kept in memory.

    A `CachedSnapshot` like `surveys.selectors.profile_scoring_context`: saving or deleting a model or a result
    forgets it when its transaction commits (`llmruns.apps`).
    """
    return PUBLISHED_PROFILE_SCORES.get(published_profile_scores_load)


def published_profile_scores_forget() -> None:
    PUBLISHED_PROFILE_SCORES.forget()


def published_profile_scores_load() -> dict[str, tuple[str, dict[str, float | None]]]:
    """What `published_profile_scores` keeps, read from the database now."""
    return {result.model.slug: (result.model.name, profile_scores(result)) for result in published_profile_list()}


def published_profile_last_modified() -> datetime | None:
    return Result.objects.filter(instrument=INSTRUMENT).aggregate(latest=Max("published_at"))["latest"]
