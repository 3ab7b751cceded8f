"""Reads of the run engine and the result store, for admin, commands and the instruments' pages."""

from __future__ import annotations

from django.db.models import QuerySet

from instruments.base import RunContext, StoredTrial
from llmruns.models import LLMModel, Result, Run, Trial


def llm_model_get(*, name: str) -> LLMModel:
    """Return the model whose slug (or, failing that, display name) is ``name``; raises DoesNotExist."""
    model = LLMModel.objects.filter(slug=name).first()
    return model if model is not None else LLMModel.objects.get(name=name)


def run_list(*, instrument: str | None = None) -> QuerySet[Run]:
    runs = Run.objects.select_related("model", "judge")
    return runs.filter(instrument=instrument) if instrument is not None else runs


def run_latest(*, model: LLMModel, instrument: str, language: str = "en") -> Run | None:
    """The model's run of ``instrument`` in ``language`` its result was published from, else its latest run in that
    language with a stored trial."""
    results = Result.objects.filter(model=model, instrument=instrument, language=language, run__isnull=False)
    result = results.select_related("run").first()
    if result is not None:
        return result.run
    runs = run_list(instrument=instrument).filter(model=model, language=language, trials_done__gt=0)
    return runs.order_by("-pk").first()


def result_list(*, instrument: str, language: str = "en") -> QuerySet[Result]:
    """The results of an instrument in a language from runs and admin, by model name: not the papers' published rows,
    which only the cross-instrument pages (`instruments.profiles`) show beside them."""
    return (
        Result.objects.filter(instrument=instrument, language=language)
        .exclude(source=Result.Source.PAPER)
        .select_related("model", "run")
        .order_by("model__name", "model__slug")
    )


def run_context(run: Run) -> RunContext:
    """What an instrument is told about a run it plans, answers or scores for."""
    return RunContext(
        run_id=run.pk,
        seed=run.seed or 0,
        language=run.language,
        plan=run.plan,
        model_provider=run.request_params.get("provider", ""),
        top_logprobs=int(run.request_params.get("top_logprobs") or 0),
        judge=run.judge.slug if run.judge_id else "",
    )


def stored_trials(run: Run) -> list[StoredTrial]:
    """The run's trials as plain data, in creation order."""
    rows = Trial.objects.filter(run=run).order_by("pk")
    fields = ["item", "presentation", "replicate", "status", "answer_status", "answer", "display"]
    return [StoredTrial(**row) for row in rows.values(*fields)]
