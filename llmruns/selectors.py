"""Reads for the LLM run-suite and the published model profiles, as querysets or plain data for `scoring`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from llmruns.models import AgentNote, ItemResponse, LLMModel, ModelProfile, QuestionnaireRun, Suite
from scoring.stats import Quantile
from scoring.suite import RunItems, SuiteProfile, suite_profile
from surveys.models import Dilemma, Virtue
from surveys.selectors import retained_key_map
from virtuemap_site.snapshots import CachedSnapshot


def llm_model_get(*, name: str) -> LLMModel:
    """Return the model whose slug (or, failing that, display name) is ``name``; raises DoesNotExist."""
    model = LLMModel.objects.filter(slug=name).first()
    return model if model is not None else LLMModel.objects.get(name=name)


def suite_list() -> QuerySet[Suite]:
    return Suite.objects.select_related("model", "instrument").annotate(
        runs_started=Count("runs", distinct=True),
        runs_valid=Count("runs", filter=Q(runs__valid=True), distinct=True),
    )


def suite_runs_items(*, suite: Suite) -> dict[int, RunItems]:
    """Return run index → dilemma id → canonical ranking (None for an item that ended invalid).

    Only finished items (DONE) appear: a pending, running or failed item has no result yet, so it counts
    neither as an answer nor as an invalid one.
    """
    runs: dict[int, dict[str, tuple[str, ...] | None]] = {
        index: {} for index in QuestionnaireRun.objects.filter(suite=suite).values_list("index", flat=True)
    }
    items = ItemResponse.objects.filter(run__suite=suite, status=ItemResponse.Status.DONE).values_list(
        "run__index", "dilemma_id", "valid", "canonical_ranking"
    )
    for index, dilemma_id, valid, ranking in items:
        runs[index][dilemma_id] = tuple(ranking) if valid else None
    return runs


def suite_failure_counts(*, suite: Suite) -> dict[str, int]:
    """Return the number of unusable answers per parse status over every attempt of the suite's items."""
    counts: dict[str, int] = {}
    for attempts in ItemResponse.objects.filter(run__suite=suite).values_list("attempts", flat=True):
        for attempt in attempts:
            if attempt.get("status") != "valid":
                counts[attempt["status"]] = counts.get(attempt["status"], 0) + 1
    return dict(sorted(counts.items()))


def instrument_ids() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return (virtue ids, dilemma ids), each in instrument order."""
    virtues = tuple(Virtue.objects.order_by("position").values_list("id", flat=True))
    dilemmas = tuple(Dilemma.objects.order_by("position").values_list("id", flat=True))
    return virtues, dilemmas


def suite_latest_with_runs(*, model: LLMModel) -> Suite | None:
    """Return the model's published suite, else its most recent suite that has at least one run."""
    suites = Suite.objects.filter(model=model, runs__isnull=False).distinct()
    return suites.filter(published=True).order_by("-id").first() or suites.order_by("-id").first()


def models_with_runs() -> QuerySet[LLMModel]:
    return LLMModel.objects.filter(suites__runs__isnull=False).distinct().order_by("name")


def suite_profile_get(*, suite: Suite, quantile: Quantile = "exact") -> SuiteProfile:
    """Return the suite's statistics from its stored items and the current retained keys."""
    virtues, dilemmas = instrument_ids()
    return suite_profile(suite_runs_items(suite=suite), retained_key_map(), virtues, dilemmas, quantile=quantile)


def model_profile_records(*, quantile: Quantile = "exact") -> list[dict[str, Any]]:
    """Return, per model with stored runs, its profile in the field names of ``reference_profiles_sample.json``.

    The suite is the model's published one, else its latest with runs (`suite_latest_with_runs`).
    """
    records = []
    for model in models_with_runs():
        suite = suite_latest_with_runs(model=model)
        if suite is not None:
            record = suite_profile_get(suite=suite, quantile=quantile).record()
            records.append({"name": model.name, "slug": model.slug, **record})
    return records


def run_records_export(*, suites: Iterable[Suite] | None = None) -> Iterator[dict[str, Any]]:
    """Yield the raw records of the original VirtueMap run-suite, in timestamp order.

    One record per finished item (model × run × dilemma) with the original's field names, and the agent
    notes. ``raw_text`` is the last answer received; ``attempts`` the number of answers.
    """
    items = ItemResponse.objects.filter(status=ItemResponse.Status.DONE).select_related("run__suite__model")
    notes = AgentNote.objects.all()
    if suites is not None:
        items = items.filter(run__suite__in=list(suites))
    records: list[dict[str, Any]] = [
        {"timestamp": note.timestamp, "record_type": "agent_note", "message": note.message} for note in notes
    ]
    for item in items:
        suite = item.run.suite
        answers = [attempt for attempt in item.attempts if attempt.get("attempt") is not None]
        records.append(
            {
                "timestamp": item.completed_at,
                "model_name": suite.model.name,
                "model_slug": suite.model.slug,
                "run_id": item.run.index,
                "dilemma_id": item.dilemma_id,
                "temperature": suite.request_params.get("temperature"),
                "display_position_to_canonical": item.display_to_option,
                "canonical_to_display_position": {option: label for label, option in item.display_to_option.items()},
                "attempts": item.attempt_count,
                "raw_text": answers[-1]["raw_text"] if answers else "",
                "display_ranking": item.display_ranking if item.valid else None,
                "canonical_ranking": list(item.canonical_ranking) if item.valid else None,
                "valid": item.valid,
            }
        )
    records.sort(key=lambda record: record["timestamp"])
    for record in records:
        record["timestamp"] = record["timestamp"].isoformat(timespec="microseconds")
        yield record


def published_profile_list() -> QuerySet[ModelProfile]:
    """Every published profile with its model, by model name. A model is published once it has a profile."""
    return ModelProfile.objects.select_related("model").order_by("model__name", "model__slug")


def published_profile_get(*, slug: str) -> ModelProfile | None:
    return published_profile_list().filter(model__slug=slug).first()


PUBLISHED_PROFILE_SCORES = CachedSnapshot("llmruns:published-profile-scores")


def published_profile_scores() -> dict[str, tuple[str, dict[str, float | None]]]:
    """Model slug → (display name, virtue id → mean score) for every published profile, kept in memory.

    A `CachedSnapshot` like `surveys.selectors.profile_scoring_context`: saving or deleting a model or a profile
    forgets it when its transaction commits (`llmruns.apps`).
    """
    return PUBLISHED_PROFILE_SCORES.get(published_profile_scores_load)


def published_profile_scores_forget() -> None:
    PUBLISHED_PROFILE_SCORES.forget()


def published_profile_scores_load() -> dict[str, tuple[str, dict[str, float | None]]]:
    """What `published_profile_scores` keeps, read from the database now."""
    rows = published_profile_list().values_list("model__slug", "model__name", "profile_stats")
    return {
        slug: (name, {virtue: (stats or {}).get("mean") for virtue, stats in (profile_stats or {}).items()})
        for slug, name, profile_stats in rows
    }


def published_profile_last_modified() -> datetime | None:
    return ModelProfile.objects.aggregate(latest=Max("published_at"))["latest"]
